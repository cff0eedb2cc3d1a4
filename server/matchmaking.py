"""Quick match: one queue per game pairs waiting players into two-seat races."""

from __future__ import annotations

import logging

from server.fanout import envelope
from server.races import Races
from server.store import Store
from shared.protocol import GameName, MatchFound

log = logging.getLogger("arena.match")


class Matchmaker:
    def __init__(self, store: Store, races: Races, time_limit: float) -> None:
        self.store = store
        self.races = races
        self.time_limit = time_limit

    async def enqueue(self, player_id: str, name: str, game: GameName) -> str | None:
        """Queue the player, or pair them with a waiting one; the race id when paired."""
        other = await self.store.match(game, player_id)
        if other is None:
            log.info("queued for quick match", extra={"player_id": player_id, "game": game})
            return None
        other_name = await self.store.player_name(other) or "?"
        meta = await self.races.create(other, other_name, game, 2, self.time_limit, ready=True)
        await self.races.join(player_id, name, meta.code, ready=True)
        await self.races.begin_countdown(meta.race_id)
        log.info("quick match", extra={"race_id": meta.race_id, "player_id": player_id})
        for racer in (other, player_id):
            info = await self.races.info(meta.race_id, racer)
            await self.store.publish_player(racer, envelope(MatchFound(race=info)))
        return meta.race_id

    async def cancel(self, player_id: str, games: set[str]) -> None:
        for game in games:
            await self.store.unqueue(game, player_id)

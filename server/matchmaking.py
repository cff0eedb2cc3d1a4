"""Quick match: one queue per game pairs waiting players into two-seat races.

A queued player holds a lease that their node renews while they wait. When a node
dies, its waiting players' leases run out and the queue drops them instead of pairing
someone with a player who is no longer there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from server.fanout import envelope
from server.races import Races, now_ms
from server.store import Store
from shared.protocol import GameName, MatchFound

log = logging.getLogger("arena.match")

#: How long a queued player stays matchable without their node renewing the lease.
LEASE_MS = 30_000
#: How often a node renews its waiting players' leases.
RENEW_EVERY = LEASE_MS / 1000 / 3


class Matchmaker:
    def __init__(self, store: Store, races: Races, time_limit: float) -> None:
        self.store = store
        self.races = races
        self.time_limit = time_limit
        #: ``(game, player id)`` of the players this node keeps in a queue.
        self.waiting: set[tuple[str, str]] = set()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._renew_leases(), name="quick-match-leases")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def enqueue(self, player_id: str, name: str, game: GameName) -> str | None:
        """Queue the player, or pair them with a waiting one; the race id when paired."""
        now = now_ms()
        other = await self.store.match(game, player_id, now, now + LEASE_MS)
        if other is None:
            self.waiting.add((game, player_id))
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

    def matched(self, player_id: str, game: str) -> None:
        """A player of this node was paired (by any node): no lease to renew."""
        self.waiting.discard((game, player_id))

    async def cancel(self, player_id: str, games: set[str]) -> None:
        for game in games:
            self.waiting.discard((game, player_id))
            await self.store.unqueue(game, player_id)

    async def _renew_leases(self) -> None:
        while True:
            await asyncio.sleep(RENEW_EVERY)
            if not self.waiting:
                continue
            try:
                await self.store.renew_queue_leases(sorted(self.waiting), now_ms() + LEASE_MS)
            except Exception as exc:
                # The next round tries again, well before the leases run out.
                log.warning("renewing quick-match leases failed", extra={"reason": repr(exc)})

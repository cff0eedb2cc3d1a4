"""Open races do not wait for players who went away.

When a player's connection closes while they sit in a race that has not started, they
get ``lobby_grace`` seconds to come back (a dropped connection, a page reload). If by
then they have no connection on this node and have not said hello anywhere since, they
leave the race as if they had sent ``leave_race``: the others see the seat free up, and
a race whose last player went away is cancelled and leaves the list of open races.
"""

from __future__ import annotations

import asyncio
import logging

from server.errors import ArenaError
from server.fanout import Fanout
from server.races import Races, now_ms
from server.store import Store

log = logging.getLogger("arena.lobby")


class Lobby:
    def __init__(self, store: Store, races: Races, fanout: Fanout, grace: float) -> None:
        self.store = store
        self.races = races
        self.fanout = fanout
        self.grace = grace
        self._tasks: set[asyncio.Task[None]] = set()

    def went_away(self, player_id: str, race_ids: list[str]) -> None:
        """A connection of ``player_id`` closed; ``race_ids`` are the races it followed."""
        if not race_ids:
            return
        task = asyncio.create_task(self._leave_if_gone(player_id, race_ids, now_ms()))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _leave_if_gone(self, player_id: str, race_ids: list[str], since: int) -> None:
        await asyncio.sleep(self.grace)
        try:
            if self.fanout.has_player(player_id) or await self.store.last_hello(player_id) > since:
                return  # still here, or back
            for race_id in race_ids:
                meta = await self.store.meta(race_id)
                if meta is None or meta.status != "open":
                    continue
                try:
                    await self.races.leave(player_id, race_id)
                except ArenaError:
                    continue  # left, started or cancelled meanwhile
                log.info("gone player left an open race", extra={"race_id": race_id, "player_id": player_id})
        except Exception as exc:
            log.warning(
                "could not free a gone player's seat", extra={"player_id": player_id, "reason": repr(exc)}
            )

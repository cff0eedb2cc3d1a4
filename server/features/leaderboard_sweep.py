"""Idle accounts off the leaderboards: a leaderboard lists settled ratings only, and a
listed rating turns provisional again after enough days without a rated race
(:func:`~server.features.ratings.current`). Every node sweeps each game's leaderboard
every ``every`` seconds (hourly: a deviation grows once a day), the first sweep at a
random point of its first interval (:func:`first_wait`), so that nodes restarted more
often than that still sweep, and not all at once; a player swept off comes back with their next rated race,
whose end lists them again.

Sweeps are idempotent, so many nodes sweeping is harmless. A player is taken off only
while their score is still the one the sweep read: a rated race that ends meanwhile
keeps its new entry. A node's cached leaderboard pages (2 s) may still show a player
swept off until they expire.
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Final

from server.background import cancel_and_wait
from server.features.ratings import unsettled
from server.store import Store
from server.timesource import TimeSource
from shared.games import GAMES

log = logging.getLogger("arena.leaderboards")

#: Leaderboard entries read at a time (ZSCAN's COUNT, a hint) and judged together.
BATCH: Final = 500
#: The first sweep's wait is at least this share of an interval.
FIRST_AT_LEAST: Final = 0.05


def first_wait(every: float, draw: float) -> float:
    """The wait before a node's first sweep, for a ``draw`` in [0, 1).

    >>> first_wait(3600, 0.0), first_wait(3600, 0.5)
    (180.0, 1890.0)
    """
    return every * (FIRST_AT_LEAST + (1 - FIRST_AT_LEAST) * draw)


class LeaderboardSweep:
    def __init__(self, store: Store, time: TimeSource, every: float) -> None:
        self.store = store
        self.time = time
        self.every = every
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._keep_sweeping(), name="leaderboard-sweep")

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait([self._task])

    async def sweep(self) -> dict[str, int]:
        """Take every idle account off each game's leaderboard; how many per game (games
        where nobody was taken off are left out)."""
        now = self.time.now_ms()
        removed: dict[str, int] = {}
        for game in GAMES:
            count = await self._sweep_game(game, now)
            if count:
                removed[game] = count
        if removed:
            log.info("idle accounts taken off the leaderboards", extra={"removed": removed})
        return removed

    async def _sweep_game(self, game: str, now: int) -> int:
        removed = 0
        async for listed in self.store.ratings.listed_batches(game, BATCH):
            stored = await self.store.ratings.ratings(game, [player_id for player_id, _score in listed])
            idle = unsettled(listed, stored, now)
            if idle:
                removed += await self.store.ratings.unlist(game, idle)
        return removed

    async def _keep_sweeping(self) -> None:
        wait = first_wait(self.every, random.random())
        while True:
            await asyncio.sleep(wait)
            wait = self.every
            try:
                await self.sweep()
            except Exception as exc:
                log.warning("sweeping the leaderboards failed", extra={"reason": repr(exc)})

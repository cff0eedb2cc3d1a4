"""The server's clock: starts races when their countdown ends and ends them at their
time limit, even if nobody sends anything.

Deadlines live in Redis (``deadlines``), so a restarted node, or any other node,
picks them up. Every node runs a clock; the store's status checks make a race start
or end once however many clocks see it due.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from server.races import Races, now_ms
from server.store import Store

log = logging.getLogger("arena.clock")


class Clock:
    def __init__(self, store: Store, races: Races, tick: float) -> None:
        self.store = store
        self.races = races
        self.tick = tick
        self._task: asyncio.Task[None] | None = None
        self._pending: set[asyncio.Task[None]] = set()
        self._stopping = asyncio.Event()

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="clock")

    async def stop(self) -> None:
        self._stopping.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._task), 2.0)
            except (TimeoutError, asyncio.CancelledError):
                self._task.cancel()
        for task in list(self._pending):
            task.cancel()

    def end_soon(self, race_id: str) -> None:
        """End a race now, from the event loop (everyone finished)."""
        task = asyncio.create_task(self._end(race_id))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _end(self, race_id: str) -> None:
        try:
            await self.races.end(race_id)
        except Exception:
            log.exception("ending a race failed", extra={"race_id": race_id})

    async def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                await self.check()
            except Exception:
                log.exception("clock tick failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self.tick)

    async def check(self) -> None:
        """Start or end every race that is due now."""
        now = now_ms()
        for race_id in await self.store.due_races(now):
            meta = await self.store.meta(race_id)
            if meta is None or meta.status in ("finished", "cancelled", "open"):
                await self.store.drop_deadline(race_id)
            elif meta.status == "countdown":
                await self.races.go(meta)
            elif (meta.ends_at is not None and now >= meta.ends_at) or meta.status == "ending":
                await self.races.end(race_id)

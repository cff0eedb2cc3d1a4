"""The race clock: starts races when their countdown ends and ends them at their time
limit, even if nobody sends anything.

Deadlines live in Redis, so a restarted node, or any other node, picks them up. Every
node runs one; the store's status checks make a race start or end once however many
clocks see it due.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from typing import assert_never

from server.features.race_rules import ClockAction, clock_action
from server.features.racing import Racing
from server.features.results import RaceResults
from server.outage import StoreHealth
from server.store import Store
from server.timesource import TimeSource

log = logging.getLogger("arena.clock")

#: The longest wait between two looks at the deadlines while Redis is unreachable.
_MAX_BACKOFF = 2.0
#: Due races read per look, and handled together.
_LOOK_AT = 500
_AT_ONCE = 50


class RaceClock:
    def __init__(
        self,
        store: Store,
        racing: Racing,
        results: RaceResults,
        time: TimeSource,
        tick: float,
        health: StoreHealth,
    ) -> None:
        self.store = store
        self.health = health
        self.racing = racing
        self.results = results
        self.time = time
        self.tick = tick
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="race-clock")

    async def stop(self) -> None:
        self._stopping.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._task), 2.0)
            except (TimeoutError, asyncio.CancelledError):
                self._task.cancel()

    async def _run(self) -> None:
        delay = self.tick
        while not self._stopping.is_set():
            try:
                await self.check()
                self.health.succeeded()
                delay = self.tick
            except Exception as exc:
                if not self.health.is_outage(exc):
                    log.exception("clock tick failed")
                    delay = self.tick
                else:
                    # Redis is away: look again less and less often, up to every 2 s.
                    self.health.failed(exc)
                    delay = min(max(delay, self.tick) * 2, _MAX_BACKOFF)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), delay)

    async def check(self) -> None:
        """Start or end every race that is due now.

        Up to :data:`_AT_ONCE` races are handled together, and each node takes the due
        races in an order of its own: hundreds of races due in the same moment (a burst
        of quick matches) start within a few ticks, and several nodes share the work
        instead of all taking the same first ones.
        """
        now = self.time.now_ms()
        due = await self.store.deadlines.due_at(now, _LOOK_AT)
        random.shuffle(due)
        for start in range(0, len(due), _AT_ONCE):
            outcomes = await asyncio.gather(
                *(self._act(race_id, now, due_at) for race_id, due_at in due[start : start + _AT_ONCE]),
                return_exceptions=True,
            )
            failed = next((o for o in outcomes if isinstance(o, BaseException)), None)
            if failed is not None:
                raise failed

    async def _act(self, race_id: str, now: int, due_at: int) -> None:
        meta = await self.store.races.meta(race_id)
        match clock_action(meta, now, due_at):
            case ClockAction.DROP:
                await self.store.deadlines.drop(race_id)
            case ClockAction.GO:
                assert meta is not None
                await self.racing.go(meta)
            case ClockAction.END:
                await self.results.end(race_id)
            case ClockAction.RESCHEDULE:
                assert meta is not None and meta.ends_at is not None
                await self.store.deadlines.set(race_id, meta.ends_at)
            case ClockAction.WAIT:
                pass
            case unexpected:
                assert_never(unexpected)

"""Tasks a component starts and must not lose: kept referenced, cancelled at stop."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Iterable
from typing import Any

log = logging.getLogger("arena.background")


class Background:
    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def spawn(self, work: Coroutine[Any, Any, None], what: str) -> None:
        """Run ``work`` in the background; a failure is logged with ``what`` it was."""
        task = asyncio.create_task(self._logged(work, what))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @staticmethod
    async def _logged(work: Coroutine[Any, Any, None], what: str) -> None:
        try:
            await work
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("%s failed", what)

    async def stop(self) -> None:
        await cancel_and_wait(self._tasks)


async def cancel_and_wait(tasks: Iterable[asyncio.Task[Any]]) -> None:
    """Cancel ``tasks`` and wait until every one has ended.

    A task that runs on after its cancellation is cancelled again until it ends: a
    library call can swallow a cancellation (redis-py does, now and then, in the middle
    of a command), and a node's stop must not wait on such a task for the rest of its
    work, nor forever."""
    tasks = list(tasks)
    pending = {task for task in tasks if not task.done()}
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=0.1)
    for task in tasks:
        if not task.cancelled():
            task.exception()  # retrieved: a failure was logged where it happened

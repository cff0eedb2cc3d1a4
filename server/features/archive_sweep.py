"""The archive's sweep (``SA_ARCHIVE_DIR``): the node that ends a race archives its record
at once, and every race is also queued (``archive:due``) before its end, so that a node
that dies after the end, or a disk that refused the write, leaves the record to any
node's sweep. A daily attempt is due once its day is closed, its seed out. Every node
with an archive sweeps every ``every`` seconds; a record is written once whoever
sweeps, so many sweeping is harmless."""

from __future__ import annotations

import asyncio
import logging
import random

from server.background import cancel_and_wait
from server.features.results import RaceResults

log = logging.getLogger("arena.archive")


class ArchiveSweep:
    def __init__(self, results: RaceResults, every: float) -> None:
        self.results = results
        self.every = every
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.results.archive is not None:
            self._task = asyncio.create_task(self._keep_sweeping(), name="archive-sweep")

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait([self._task])

    async def _keep_sweeping(self) -> None:
        await asyncio.sleep(self.every * random.random())  # nodes started together spread out
        while True:
            try:
                settled = await self.results.archive_due()
            except Exception as exc:  # Redis away: the races stay due for the next sweep
                log.warning("the archive's sweep failed", extra={"reason": repr(exc)})
            else:
                if settled:
                    log.info("race records archived by the sweep", extra={"count": settled})
            await asyncio.sleep(self.every)

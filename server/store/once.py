"""Writes to keys in different cluster slots, each applied once per operation.

A race's end changes every racer's rating, history, counts and recent races, and the
leaderboard; a day's close adds points to two tables and every player's streak. On a
Redis Cluster those keys lie in different slots, so no single script can write them
all. Each write is instead a script on one key and its marker (a sorted set of the
operations applied to that key, in the key's own slot): a retry after a crash, or a
second node doing the same work, writes nothing twice.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from server.store import keys, scripts
from server.store.batch import PipelineBatcher

#: How long a marker remembers an operation: far longer than any retry can come late.
MARKER_MS = 8 * 24 * 3600 * 1000


@dataclass(frozen=True, slots=True)
class OnceWrite:
    """One write of :data:`scripts.APPLY_ONCE`: its target key, op and the op's arguments."""

    target: str
    op: str
    args: tuple[str | int | float, ...]


class OnceWriter:
    def __init__(self, client: Any) -> None:
        self._script = client.register_script(scripts.APPLY_ONCE.source)
        self._batcher = PipelineBatcher(client)

    async def apply(self, op_id: str, now: int, writes: list[OnceWrite]) -> list[int]:
        """Apply every write for ``op_id`` (in one round trip per Redis server): for each,
        1 applied now, 0 applied before, -1 refused (a rating that moved meanwhile)."""
        calls = [
            self._batcher.call(
                self._script,
                [keys.applied(write.target), write.target],
                [op_id, now, MARKER_MS, write.op, *write.args],
            )
            for write in writes
        ]
        return [int(answer) for answer in await asyncio.gather(*calls)]

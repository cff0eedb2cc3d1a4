"""Races by the time something is due for them: the clock's next look at a race (its
countdown's end, then its time limit: ``keys.DEADLINES``), or its record's archiving
(``keys.ARCHIVE_DUE``)."""

from __future__ import annotations

from typing import Any

from server.store import keys


class DeadlineStore:
    def __init__(self, client: Any, key: str = keys.DEADLINES) -> None:
        self.redis = client
        self.key = key

    async def due_at(self, now: int, limit: int = 50) -> list[tuple[str, int]]:
        """The races due by ``now`` with the time each was due, earliest first."""
        rows: list[tuple[str, float]] = await self.redis.zrangebyscore(
            self.key, "-inf", now, 0, limit, withscores=True
        )
        return [(race_id, int(score)) for race_id, score in rows]

    async def set(self, race_id: str, due: int) -> None:
        await self.redis.zadd(self.key, {race_id: due})

    async def ensure(self, race_id: str, due: int) -> None:
        """Due at ``due`` unless a time is set already (that one stands)."""
        await self.redis.zadd(self.key, {race_id: due}, nx=True)

    async def drop(self, race_id: str) -> None:
        await self.redis.zrem(self.key, race_id)

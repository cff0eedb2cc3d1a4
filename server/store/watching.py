"""Spectating: the races being played, and how many people watch each, per node."""

from __future__ import annotations

from typing import Any

from server.store import keys, scripts


class WatchStore:
    def __init__(self, client: Any, sharded: bool = False) -> None:
        self.redis = client
        self._watchers = client.register_script(scripts.WATCHERS.source_for(sharded))

    async def set_spectators(self, race_id: str, node_id: str, count: int, now: int, valid_ms: int) -> int:
        """This node's spectators of the race (0: none, its entry goes); the total on every
        node comes back, and a change is published to the race's racers and spectators."""
        total = await self._watchers(
            keys=[keys.race_watchers(race_id)],
            args=[node_id, count, now, valid_ms, keys.race_channel(race_id), race_id],
        )
        return int(total)

    async def forget_node(self, node_id: str, now: int) -> int:
        """Take a dead node's spectators out of every live race's count (each change is
        published as :meth:`set_spectators` does); how many races it was watching."""
        race_ids: list[str] = await self.redis.zrange(keys.LIVE_RACES, 0, -1)
        if not race_ids:
            return 0
        async with self.redis.pipeline(transaction=False) as pipe:
            for race_id in race_ids:
                pipe.hexists(keys.race_watchers(race_id), node_id)
            present: list[bool] = await pipe.execute()
        watched = [race_id for race_id, there in zip(race_ids, present, strict=True) if there]
        for race_id in watched:
            await self.set_spectators(race_id, node_id, 0, now, 0)
        return len(watched)

    async def spectators(self, race_ids: list[str], now: int) -> list[int]:
        """How many people watch each race now, on every node."""
        if not race_ids:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for race_id in race_ids:
                pipe.hvals(keys.race_watchers(race_id))
            rows: list[list[str]] = await pipe.execute()
        return [_live_total(values, now) for values in rows]

    async def watchers(self, race_id: str, now: int) -> dict[str, int]:
        """How many people watch the race on each node now (node id to count)."""
        entries: dict[str, str] = await self.redis.hgetall(keys.race_watchers(race_id))
        return {node: count for node, value in entries.items() if (count := _live_count(value, now))}

    async def add_live(self, race_id: str, at: int) -> None:
        await self.redis.zadd(keys.LIVE_RACES, {race_id: at})

    async def remove_live(self, race_ids: list[str]) -> None:
        if race_ids:
            await self.redis.zrem(keys.LIVE_RACES, *race_ids)

    async def live(self, limit: int) -> list[str]:
        """The newest races being played (or lately ended and not yet unlisted)."""
        ids: list[str] = await self.redis.zrevrange(keys.LIVE_RACES, 0, limit - 1)
        return ids


def _live_total(values: list[str], now: int) -> int:
    """The sum of the entries still valid at ``now``.

    >>> _live_total(["3:2000", "4:500", "bad"], 1000)
    3
    """
    return sum(_live_count(value, now) for value in values)


def _live_count(value: str, now: int) -> int:
    """One node's entry ``<count>:<valid until ms>``: its count while valid, else 0."""
    count, _, until = value.partition(":")
    return int(count) if count.isdigit() and until.isdigit() and int(until) > now else 0

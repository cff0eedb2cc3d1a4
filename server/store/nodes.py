"""The nodes that serve, each with its heartbeat, and the players connected to each:
what lets the others notice a node that died without closing its connections."""

from __future__ import annotations

from typing import Any

from server.store import keys


class NodeStore:
    def __init__(self, client: Any) -> None:
        self.redis = client

    async def beat(self, node_id: str, now: int, silent_ms: int) -> bool:
        """The node is alive at ``now``, and may be silent for ``silent_ms`` before the
        others take it for dead (its own beat decides, whatever theirs is); whether it
        was not on the list (new, or taken for dead meanwhile)."""
        await self.redis.hset(keys.NODE_SILENCE, node_id, silent_ms)
        added: int = await self.redis.zadd(keys.NODES, {node_id: now})
        return added == 1

    async def arrived(self, node_id: str, player_ids: list[str]) -> None:
        """These players have connections on the node now."""
        if player_ids:
            await self.redis.sadd(keys.node_players(node_id), *player_ids)

    async def left(self, node_id: str, player_id: str) -> None:
        """The player's last connection on the node closed."""
        await self.redis.srem(keys.node_players(node_id), player_id)

    async def silent(
        self, now: int, silent_ms: int, heard_since: int, limit: int = 20
    ) -> list[tuple[str, int]]:
        """(node id, its last heartbeat) of the nodes silent for longer than their own
        allowance at ``now`` (``silent_ms`` for a node that declares none), their silence
        counted from ``heard_since`` at the earliest (when the judge could hear again)."""
        judged = await self._judged(now, silent_ms, heard_since)
        return [(n, last) for n, last, alive in judged if not alive][:limit]

    async def players(self, node_id: str) -> list[str]:
        """The players a node had connections of (sorted)."""
        members: set[str] = await self.redis.smembers(keys.node_players(node_id))
        return sorted(members)

    async def live(self, now: int, silent_ms: int, heard_since: int) -> list[str]:
        """The nodes that beat within their own allowance of silence before ``now``
        (``silent_ms`` for a node that declares none), or since ``heard_since``."""
        return [n for n, _last, alive in await self._judged(now, silent_ms, heard_since) if alive]

    async def _judged(self, now: int, default_ms: int, heard_since: int) -> list[tuple[str, int, bool]]:
        """Every node listed, the longest silent first: its id, its last heartbeat, and
        whether it beat within its declared allowance of silence before ``now``
        (``default_ms`` for a node from before nodes declared theirs), the silence
        counted from ``heard_since`` at the earliest."""
        listed: list[tuple[str, float]] = await self.redis.zrange(keys.NODES, 0, -1, withscores=True)
        if not listed:
            return []
        declared: list[str | None] = await self.redis.hmget(keys.NODE_SILENCE, [n for n, _ in listed])
        return [
            (node_id, int(last), max(last, heard_since) >= now - (int(allowed) if allowed else default_ms))
            for (node_id, last), allowed in zip(listed, declared, strict=True)
        ]

    async def connected_elsewhere(self, player_ids: list[str], node_ids: list[str]) -> set[str]:
        """Which of ``player_ids`` have a connection on one of ``node_ids``."""
        if not player_ids or not node_ids:
            return set()
        async with self.redis.pipeline(transaction=False) as pipe:
            for node_id in node_ids:
                pipe.smismember(keys.node_players(node_id), player_ids)
            rows = await pipe.execute()
        return {p for row in rows for p, here in zip(player_ids, row, strict=True) if here}

    async def forget(self, node_id: str) -> bool:
        """The node is gone (stopped, or found dead and dealt with); whether this call
        took it off the list (another node may have dealt with it at the same time)."""
        removed: int = await self.redis.zrem(keys.NODES, node_id)
        await self.redis.delete(keys.node_players(node_id))
        await self.redis.hdel(keys.NODE_SILENCE, node_id)
        return removed == 1

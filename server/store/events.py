"""Pub/sub: publishing events, and which nodes follow which race."""

from __future__ import annotations

from typing import Any

from server.store import keys


class EventStore:
    def __init__(self, client: Any, sharded: bool = False) -> None:
        self.redis = client
        #: ``SPUBLISH`` reaches only the shard of the channel's slot (see :mod:`server.store.pubsub`).
        self._publish = "SPUBLISH" if sharded else "PUBLISH"

    async def publish_race(self, race_id: str, payload: str) -> None:
        await self.redis.execute_command(self._publish, keys.race_channel(race_id), payload)

    async def publish_player(self, player_id: str, payload: str) -> None:
        await self.redis.execute_command(self._publish, keys.player_channel(player_id), payload)

    async def follow_race(self, race_id: str, node_id: str) -> None:
        """Mark ``node_id`` as one with sessions in the race (it wants its progress events)."""
        await self.redis.sadd(keys.race_nodes(race_id), node_id)

    async def unfollow_race(self, race_id: str, node_id: str) -> None:
        await self.redis.srem(keys.race_nodes(race_id), node_id)

"""The packed script batches on one Redis server: a batch's deadline, against a real server."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store.batch import ScriptBatcher
from tests.redis_direct import ON_CLUSTER

pytestmark = pytest.mark.skipif(ON_CLUSTER, reason="the packed batches of one server (a cluster has its own)")


async def test_a_batch_redis_does_not_answer_within_the_socket_timeout_fails_and_the_next_runs(
    clean_redis: str,
) -> None:
    """The client's socket timeout bounds a whole batch (one deadline, not one per reply):
    a batch held up past it fails as redis-py's timeout, the node's retryable outage."""
    client = aioredis.Redis.from_url(
        clean_redis, socket_timeout=0.3, retry=Retry(NoBackoff(), 0), decode_responses=True
    )
    pauser = aioredis.Redis.from_url(clean_redis)
    echo = client.register_script("return ARGV[1]")
    batcher = ScriptBatcher(client)
    try:
        assert await batcher.call(echo, ["k"], ["before"]) == "before"
        await pauser.execute_command("CLIENT", "PAUSE", 5000, "WRITE")
        with pytest.raises(RedisTimeoutError, match=r"did not answer 1 calls within 0\.3 s"):
            await batcher.call(echo, ["k"], ["held"])
        await pauser.execute_command("CLIENT", "UNPAUSE")
        assert await batcher.call(echo, ["k"], ["after"]) == "after"
    finally:
        await pauser.execute_command("CLIENT", "UNPAUSE")
        await batcher.aclose()
        await client.aclose()
        await pauser.aclose()

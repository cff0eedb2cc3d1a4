"""The packed script batches on one Redis server: a batch's deadline, against a real server."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ResponseError
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


@contextlib.asynccontextmanager
async def one_batch_at_a_time(url: str) -> AsyncIterator[tuple[aioredis.Redis, ScriptBatcher]]:
    """A client speaking RESP3, as the node's does, and a batcher running one batch at a
    time: calls made while one runs all go in the next."""
    client = aioredis.Redis.from_url(url, protocol=3, decode_responses=True)
    batcher = ScriptBatcher(client, max_inflight=1)
    try:
        yield client, batcher
    finally:
        await batcher.aclose()
        await client.aclose()


async def test_the_calls_of_one_batch_each_get_their_own_reply_or_error_reply(clean_redis: str) -> None:
    async with one_batch_at_a_time(clean_redis) as (client, batcher):
        answer = client.register_script(
            "if ARGV[1] == 'bad' then return redis.error_reply('no') end return ARGV"
        )
        number = client.register_script("return tonumber(ARGV[1])")
        calls = [batcher.call(answer, ["k"], [str(n)]) for n in range(40)]
        calls += [batcher.call(answer, ["k"], ["bad"]), batcher.call(number, ["k"], ["7"])]
        replies = await asyncio.gather(*calls, return_exceptions=True)
        assert replies[:40] == [[str(n)] for n in range(40)]
        assert isinstance(replies[40], ResponseError) and str(replies[40]) == "no"
        assert replies[41] == 7


async def test_a_push_message_read_with_a_batchs_replies_goes_to_redis_py_and_each_call_gets_its_reply(
    clean_redis: str,
) -> None:
    """On RESP3 a push message may sit among a batch's replies (here each write of a
    tracked key sends one before the script's reply): it is never taken for a reply."""
    async with one_batch_at_a_time(clean_redis) as (client, batcher):
        write = client.register_script("redis.call('SET', KEYS[1], ARGV[1]) return {ARGV[1]}")
        assert await batcher.call(write, ["k0"], ["first"]) == ["first"]
        (connection,) = batcher._idle
        await connection.send_command("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "k")
        assert await connection.read_response() == "OK"
        # One call alone, then the rest together in one batch on that same connection.
        calls = [batcher.call(write, [f"k{n}"], [f"v{n}"]) for n in range(6)]
        assert await asyncio.gather(*calls) == [[f"v{n}"] for n in range(6)]
        assert await client.mget([f"k{n}" for n in range(6)]) == [f"v{n}" for n in range(6)]

"""Tests that read or write Redis themselves: a client for the URL the nodes were given,
one server or a cluster (``SA_TEST_REDIS=cluster``)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from typing import Any

import redis
import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode as AsyncClusterNode
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.cluster import ClusterNode, RedisCluster

from server.redis_client import cluster_startup_nodes, is_cluster_url, sharded_pubsub

#: ``SA_TEST_REDIS=cluster``: the tests that take ``redis_url`` run on a 3-master Redis
#: Cluster instead of one server (``make test-on-cluster``); ``cluster7``: on a cluster of
#: Redis 7 (:func:`server.local_cluster.redis_7_server`), whose nodes pass events by sharded pub/sub.
ON_CLUSTER = os.environ.get("SA_TEST_REDIS") in ("cluster", "cluster7")
ON_REDIS_7 = os.environ.get("SA_TEST_REDIS") == "cluster7"


def async_redis(url: str, decode_responses: bool = True) -> Any:
    """An asyncio client of ``url`` (close it with ``aclose``)."""
    if is_cluster_url(url):
        nodes = [AsyncClusterNode(host, port) for host, port in cluster_startup_nodes(url)]
        return AsyncRedisCluster(startup_nodes=nodes, decode_responses=decode_responses)
    return aioredis.from_url(url, decode_responses=decode_responses)


def sync_redis(url: str, decode_responses: bool = False) -> Any:
    """A blocking client of ``url`` (close it with ``close``)."""
    if is_cluster_url(url):
        nodes = [ClusterNode(host, port) for host, port in cluster_startup_nodes(url)]
        return RedisCluster(startup_nodes=nodes, decode_responses=decode_responses)
    return redis.Redis.from_url(url, decode_responses=decode_responses)


@contextlib.asynccontextmanager
async def listening(url: str, channel: str) -> AsyncIterator[Any]:
    """A pub/sub connection subscribed to ``channel`` the way the nodes publish it
    (``SA_PUBSUB=auto``), its confirmation read: classic on one server, or on any one
    server of a cluster (each hears every classic publish); sharded, on the master of
    the channel's slot, on a cluster of Redis 7. Messages come as bytes."""
    client = async_redis(url, decode_responses=False)
    try:
        sharded = await sharded_pubsub(client, "auto")
        if sharded:
            node = client.get_node_from_key(channel)
            listener = aioredis.Redis(host=node.host, port=node.port)
        elif is_cluster_url(url):
            host, port = cluster_startup_nodes(url)[0]
            listener = aioredis.Redis(host=host, port=port)
        else:
            listener = aioredis.Redis.from_url(url)
    finally:
        await client.aclose()
    pubsub = listener.pubsub()
    try:
        await (pubsub.ssubscribe if sharded else pubsub.subscribe)(channel)
        await pubsub.get_message(timeout=1.0)
        yield pubsub
    finally:
        await pubsub.aclose()
        await listener.aclose()

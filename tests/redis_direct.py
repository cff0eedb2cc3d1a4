"""Tests that read or write Redis themselves: a client for the URL the nodes were given,
one server or a cluster (``SA_TEST_REDIS=cluster``)."""

from __future__ import annotations

import os
from typing import Any

import redis
import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode as AsyncClusterNode
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.cluster import ClusterNode, RedisCluster

from server.redis_client import cluster_startup_nodes, is_cluster_url

#: ``SA_TEST_REDIS=cluster``: the tests that take ``redis_url`` run on a 3-master Redis
#: Cluster instead of one server (``make test-on-cluster``).
ON_CLUSTER = os.environ.get("SA_TEST_REDIS") == "cluster"


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


def async_subscriber(url: str) -> aioredis.Redis:
    """A client to subscribe with: one server, or any one server of a cluster (a cluster
    forwards every publish to each of its servers)."""
    if is_cluster_url(url):
        host, port = cluster_startup_nodes(url)[0]
        return aioredis.Redis(host=host, port=port)
    return aioredis.Redis.from_url(url)

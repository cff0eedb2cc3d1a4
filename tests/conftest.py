"""Fixtures for every test package: a real redis-server for the session, an in-process
node on it, and SDK clients closed after each test. (Helpers for starting nodes live in
``tests/server/conftest.py``.)"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import redis

from server.app import ArenaServer
from server.local_cluster import LocalCluster, redis_7_server
from server.redis_client import cluster_startup_nodes
from server.redis_embedded import EmbeddedRedis
from tests.redis_direct import ON_CLUSTER, ON_REDIS_7
from tests.server.conftest import Connect, client_opener, running_node


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if ON_CLUSTER:
        binary = redis_7_server() if ON_REDIS_7 else None
        if ON_REDIS_7 and binary is None:
            raise RuntimeError(
                "SA_TEST_REDIS=cluster7 needs a Redis 7 redis-server (apt-get install redis-server)"
            )
        cluster = LocalCluster(tmp_path_factory.mktemp("cluster"), binary=binary)
        yield cluster.start()
        cluster.stop()
        return
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis"))
    url = server.start()
    yield url
    server.stop()


@pytest.fixture
def clean_redis(redis_url: str) -> str:
    if ON_CLUSTER:
        for host, port in cluster_startup_nodes(redis_url):
            with redis.Redis(host=host, port=port) as client:
                if client.info("replication")["role"] == "master":
                    client.flushall()
        return redis_url
    client = redis.Redis.from_url(redis_url)
    client.flushall()
    client.close()
    return redis_url


@pytest.fixture
async def arena(clean_redis: str) -> AsyncIterator[ArenaServer]:
    async with running_node(clean_redis) as node:
        yield node


@pytest.fixture
async def connect() -> AsyncIterator[Connect]:
    """Open clients (closed at the end of the test): ``await connect(url, binary=True)``."""
    async with client_opener() as open_client:
        yield open_client

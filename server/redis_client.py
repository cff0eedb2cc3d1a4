"""The node's Redis client: one server (``redis://``, ``rediss://``, ``unix://``) or a
Redis Cluster (``redis+cluster://host:port[,host:port...]``, ``rediss+cluster://`` for
TLS).

A cluster URL names startup nodes; the client learns the rest of the topology from
them and follows it as it changes (failovers, resharding). Every key of one race, one
queue or one daily board shares a hash tag, so each script touches a single slot.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote, urlsplit

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff, NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError

from server.config import CLUSTER_SCHEMES

#: Slots the cluster client may find without a master before it answers an outage
#: (a failover in progress) rather than retrying further.
_CLUSTER_RETRIES = 3


def is_cluster_url(url: str) -> bool:
    return url.split("://", 1)[0] in CLUSTER_SCHEMES


def open_redis(url: str, max_connections: int) -> Any:
    """A client for ``url`` that decodes replies to text.

    One server: a blocking pool of ``max_connections`` (under load a request waits for
    a free connection instead of failing). A cluster: up to ``max_connections`` per
    cluster server.
    """
    if is_cluster_url(url):
        return _cluster_client(url, max_connections)
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=max_connections,
        timeout=10,
        decode_responses=True,
        health_check_interval=30,
        # A pooled connection that Redis dropped (a restart) fails its next command once;
        # it is opened again and the command sent once more, rather than answered as an
        # outage minutes after Redis came back. Not on a timeout: that command may have run.
        retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
    )
    return aioredis.Redis(connection_pool=pool)


def cluster_startup_nodes(url: str) -> list[tuple[str, int]]:
    """The ``host:port`` pairs of a cluster URL (port 6379 when left out).

    >>> cluster_startup_nodes("redis+cluster://:pw@a:7000,b,[::1]:7002")
    [('a', 7000), ('b', 6379), ('::1', 7002)]
    """
    netloc = url.split("://", 1)[1].split("/", 1)[0].rsplit("@", 1)[-1]
    nodes = []
    for part in netloc.split(","):
        if part.startswith("["):
            host, _, rest = part[1:].partition("]")
            port = rest.removeprefix(":")
        else:
            host, _, port = part.partition(":")
        if not host:
            raise ValueError(f"a cluster URL needs host[:port] entries: {url!r}")
        nodes.append((host, int(port or 6379)))
    return nodes


def _cluster_client(url: str, max_connections: int) -> RedisCluster:
    parts = urlsplit(url.split(",")[0])  # the credentials come before the first node
    username = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password else None
    return RedisCluster(
        startup_nodes=[ClusterNode(host, port) for host, port in cluster_startup_nodes(url)],
        username=username,
        password=password,
        ssl=url.startswith("rediss+"),
        decode_responses=True,
        max_connections=max_connections,
        retry=Retry(ExponentialWithJitterBackoff(base=0.05, cap=0.5), _CLUSTER_RETRIES),
        socket_connect_timeout=2,
        socket_timeout=5,
        health_check_interval=30,
    )


def pubsub_clients(client: Any) -> Iterator[Any]:
    """Clients to subscribe with, in the order to try them: the client itself for one
    server; for a cluster, a client of its own for each known server, shuffled.

    A cluster forwards classic ``PUBLISH`` to every server, so a subscription on any one
    hears every channel. Its connection is kept apart from the cluster client's pools:
    those are closed and remade as the topology changes (a failover), which would cut the
    subscription with them.
    """
    if not isinstance(client, RedisCluster):
        yield client
        return
    nodes = list(client.get_nodes())
    random.shuffle(nodes)
    for node in nodes:
        pool = aioredis.ConnectionPool(
            connection_class=node.connection_class, max_connections=2, **node.connection_kwargs
        )
        yield aioredis.Redis(connection_pool=pool)


#: The oldest Redis with sharded pub/sub (``SSUBSCRIBE``, ``SPUBLISH``).
SHARDED_PUBSUB_SINCE = 7


async def server_versions(client: Any) -> dict[str, str]:
    """``redis_version`` of the server, or of each master of a cluster, by address."""
    if isinstance(client, RedisCluster):
        replies = await client.info("server", target_nodes=RedisCluster.PRIMARIES)
        return {name: str(info.get("redis_version", "0")) for name, info in replies.items()}
    info = await client.info("server")
    return {"redis": str(info.get("redis_version", "0"))}


async def sharded_pubsub(client: Any, choice: str) -> bool:
    """Whether the node's events go by sharded pub/sub, for the ``SA_PUBSUB`` ``choice``:
    ``classic`` never; ``sharded`` always (raises ``ValueError`` unless ``client`` is a
    cluster whose masters all run Redis 7 or newer); ``auto`` when it could be.

    Every node of a deployment must agree, as a node subscribed one way does not hear
    what another publishes the other way: ``auto`` gives them all the same answer from
    the same cluster, and an upgrade from Redis 6 to 7 is done with ``classic`` set until
    every master runs 7.
    """
    if choice.lower() == "classic":
        return False
    cluster = isinstance(client, RedisCluster)
    old = {name: v for name, v in (await server_versions(client)).items() if _major(v) < SHARDED_PUBSUB_SINCE}
    if choice.lower() == "sharded":
        if not cluster:
            raise ValueError("sharded pub/sub is for a Redis Cluster (a redis+cluster:// URL)")
        if old:
            name, version = sorted(old.items())[0]
            raise ValueError(
                f"sharded pub/sub needs Redis {SHARDED_PUBSUB_SINCE} or newer: {name} runs {version}"
            )
        return True
    return cluster and not old


def _major(version: str) -> int:
    """The major version of a ``redis_version``.

    >>> _major("7.0.15")
    7
    """
    head = version.split(".", 1)[0]
    return int(head) if head.isdigit() else 0

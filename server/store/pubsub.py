"""Pub/sub subscriptions: the channels a node listens to, kept through Redis failures.

Two ways, chosen once per deployment (``SA_PUBSUB``, see :func:`server.redis_client.sharded_pubsub`):

- :class:`ClassicSubscriber`: ``SUBSCRIBE`` on one connection. On a cluster, classic
  ``PUBLISH`` is forwarded to every server, so one connection to any server hears every
  channel (and every server carries every message).
- :class:`ShardedSubscriber`: ``SSUBSCRIBE`` (Redis 7) on a cluster. A shard channel
  lives in the slot its name hashes to, like a key, and ``SPUBLISH`` reaches only the
  servers of that slot's shard: a node keeps one connection per master that holds a
  channel it wants, and moves each channel to its new master when its slot moves (a
  failover, a resharding).

Either calls ``on_subscribed(channel)`` when Redis confirms a subscription and
``on_message(channel, payload)`` for each message, from its reading task(s). A channel
Redis confirms again, without the node asking for it anew, was not heard for a while (its
connection was made anew, by redis-py's own retry or by the subscriber; its slot moved):
``on_resumed(channel)`` says so, as what was published meanwhile was missed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import SlotNotCoveredError

from server.background import cancel_and_wait
from server.redis_client import pubsub_clients

log = logging.getLogger("arena.pubsub")

#: Seconds without a message before a subscribed connection is checked with a PING.
_QUIET = 2.0
#: Seconds a read waits for a message before it looks whether to PING.
_READ_WAIT = 0.2
#: Seconds between tries to subscribe anew while Redis is away.
_RETRY = 0.5

MessageHandler = Callable[[str, str], None]
ConfirmHandler = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Handlers:
    """What a subscriber calls, from its reading task(s)."""

    #: A message on a channel: ``(channel, payload)``.
    on_message: MessageHandler
    #: Redis confirmed a channel the node asked for.
    on_subscribed: ConfirmHandler
    #: Redis confirmed a channel again after a gap in which its messages were missed.
    on_resumed: ConfirmHandler


class Subscriber(Protocol):
    """What the fan-out needs of a subscription, however it is kept."""

    async def start(self) -> None:
        """Start reading (after the first :meth:`subscribe`)."""

    async def subscribe(self, channel: str) -> None:
        """Ask for ``channel``; its confirmation comes to ``on_subscribed``."""

    async def unsubscribe(self, channel: str) -> None: ...

    async def stop(self) -> None: ...


def open_subscriber(client: Any, sharded: bool, handlers: Handlers) -> Subscriber:
    """The subscriber for ``client``: sharded (a cluster of Redis 7) or classic."""
    if sharded:
        return ShardedSubscriber(client, handlers)
    return ClassicSubscriber(client, handlers)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class _Inbox:
    """Hands on what a subscribed connection reads: messages, and confirmations. The first
    confirmation of a channel is its subscription, any later one (until it is
    unsubscribed) a resumption after a gap."""

    def __init__(self, handlers: Handlers, sharded: bool) -> None:
        self._handlers = handlers
        self._live: set[str] = set()
        self._message, self._confirmation = (
            ("smessage", "ssubscribe") if sharded else ("message", "subscribe")
        )

    def take(self, message: dict[str, Any]) -> tuple[str, str]:
        """Hand ``message`` on if it is a message or a confirmation: its kind and channel."""
        kind = str(message.get("type"))
        channel = _text(message.get("channel"))
        if kind == self._message:
            self._handlers.on_message(channel, _text(message.get("data")))
        elif kind == self._confirmation:
            self.confirmed(channel)
        return kind, channel

    def confirmed(self, channel: str) -> None:
        if channel in self._live:
            self._handlers.on_resumed(channel)
        else:
            self._live.add(channel)
            self._handlers.on_subscribed(channel)

    def dropped(self, channel: str) -> None:
        self._live.discard(channel)


class _Watch:
    """Reads a subscribed connection, and checks it with a PING after :data:`_QUIET`
    seconds without a message: a dead connection raises then, not in silence."""

    def __init__(self) -> None:
        self._heard = time.monotonic()

    async def next_message(self, pubsub: Any) -> dict[str, Any] | None:
        """The next message, or None after a short wait without one."""
        message: dict[str, Any] | None = await pubsub.get_message(timeout=_READ_WAIT)
        now = time.monotonic()
        if message is not None:
            self._heard = now
        elif now - self._heard > _QUIET:
            self._heard = now
            await pubsub.ping()
        return message


class ClassicSubscriber:
    """``SUBSCRIBE`` on one connection, made anew (with every channel) when it fails."""

    def __init__(self, client: Any, handlers: Handlers) -> None:
        self._client = client
        self._inbox = _Inbox(handlers, sharded=False)
        #: The client subscribed with (the node's own, or one for a cluster's server).
        self._subscriber: Any = next(pubsub_clients(client))
        self._pubsub: Any = self._subscriber.pubsub()
        self._channels: set[str] = set()
        #: Held while the connection changes, so a subscription never lands on one being replaced.
        self._changing = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    async def start(self) -> None:
        self._task = asyncio.create_task(self._read(), name="pubsub")

    async def subscribe(self, channel: str) -> None:
        async with self._changing:
            await self._pubsub.subscribe(channel)
            self._channels.add(channel)

    async def unsubscribe(self, channel: str) -> None:
        async with self._changing:
            self._channels.discard(channel)
            self._inbox.dropped(channel)
            with contextlib.suppress(Exception):
                await self._pubsub.unsubscribe(channel)

    async def stop(self) -> None:
        self._stopping = True
        if self._task is not None:
            # The reader only ever waits (for a message, a ping's answer, a retry): nothing
            # is lost by not letting its current wait (up to 0.2 s) run out.
            await cancel_and_wait([self._task])
        await self._close()

    async def _read(self) -> None:
        broken = False
        watch = _Watch()
        while not self._stopping:
            if broken:
                # A failed connection may never come back as it was (its server gone for
                # good, as a cluster master after a failover): subscribe anew, until it works.
                if not await self._rebuild():
                    await asyncio.sleep(_RETRY)
                    continue
                broken = False
                log.warning("pub/sub reads again")
            try:
                message = await watch.next_message(self._pubsub)
            except Exception as exc:
                if not self._stopping:
                    log.warning("pub/sub read failed; subscribing anew", extra={"reason": repr(exc)})
                    broken = True
                    await asyncio.sleep(_READ_WAIT)
                continue
            if message is not None:
                self._inbox.take(message)

    async def _rebuild(self) -> bool:
        """A new connection with every subscription, in place of one that failed; False
        while Redis is away. On a cluster it may be any server that answers, as each one
        hears every channel, and the one that failed may be gone for good (a master after
        its failover)."""
        async with self._changing:
            await self._close()
            channels = sorted(self._channels)
            for subscriber in pubsub_clients(self._client):
                pubsub = subscriber.pubsub()
                try:
                    await pubsub.subscribe(*channels)
                except Exception:
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()
                    if subscriber is not self._client:
                        await subscriber.aclose()
                    continue
                self._subscriber, self._pubsub = subscriber, pubsub
                return True
            return False

    async def _close(self) -> None:
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()
        if self._subscriber is not self._client:
            with contextlib.suppress(Exception):
                await self._subscriber.aclose()


@dataclass(eq=False)
class _Shard:
    """One master's connection and its reader (its channels are those ``_wanted`` names it for)."""

    name: str
    client: aioredis.Redis
    pubsub: Any
    reader: asyncio.Task[None] | None = None


class ShardedSubscriber:
    """``SSUBSCRIBE`` on a cluster: each channel on the master of its slot.

    A connection that fails (its master died), or a server that drops a channel (its
    slot moved: Redis sends ``sunsubscribe``), leaves those channels without a home; a
    task then reads the cluster's slots again and subscribes each on its master now,
    trying until it works. Messages published in between are missed, as with classic
    pub/sub while its connection is made anew.
    """

    def __init__(self, cluster: RedisCluster, handlers: Handlers) -> None:
        self._cluster = cluster
        self._inbox = _Inbox(handlers, sharded=True)
        self._shards: dict[str, _Shard] = {}
        #: Every channel wanted, and the shard it is subscribed on (None: to be placed).
        self._wanted: dict[str, str | None] = {}
        #: Held while channels are placed, so two never race for one channel.
        self._changing = asyncio.Lock()
        self._placing: asyncio.Task[None] | None = None
        self._stopping = False

    async def start(self) -> None:
        """Readers start with their shards."""

    async def subscribe(self, channel: str) -> None:
        async with self._changing:
            if channel in self._wanted:
                return
            self._wanted[channel] = None
            try:
                await self._place(channel)
            except Exception:
                del self._wanted[channel]
                raise

    async def unsubscribe(self, channel: str) -> None:
        async with self._changing:
            name = self._wanted.pop(channel, None)
            self._inbox.dropped(channel)
            shard = self._shards.get(name) if name is not None else None
            if shard is None:
                return
            with contextlib.suppress(Exception):
                await shard.pubsub.sunsubscribe(channel)

    async def stop(self) -> None:
        self._stopping = True
        tasks = [s.reader for s in self._shards.values() if s.reader is not None]
        if self._placing is not None:
            tasks.append(self._placing)
        await cancel_and_wait(tasks)
        for shard in list(self._shards.values()):
            await self._close(shard)
        self._shards.clear()

    async def _place(self, channel: str) -> None:
        """Subscribe ``channel`` on the master of its slot (the caller holds ``_changing``)."""
        node = self._cluster.get_node_from_key(channel)
        if node is None:
            raise SlotNotCoveredError(f"no master holds the slot of {channel!r} now")
        shard = self._shards.get(node.name)
        if shard is None:
            shard = self._open(node)
        try:
            await shard.pubsub.ssubscribe(channel)
        except Exception:
            if shard.reader is None and self._shards.get(shard.name) is shard:
                del self._shards[shard.name]  # never read from: nothing else to move off it
                await self._close(shard)
            raise
        if self._shards.get(shard.name) is not shard:
            # Its connection failed while this subscription was on its way.
            self._homeless([channel])
            return
        self._wanted[channel] = shard.name
        if shard.reader is None:
            # Only now: reading needs the connection the first subscription opened.
            shard.reader = asyncio.create_task(self._read(shard), name=f"pubsub {shard.name}")

    def _open(self, node: ClusterNode) -> _Shard:
        # A pool of its own, out of the cluster client's (which it closes and remakes as
        # the topology changes); no retries inside redis-py: a failed connection is given
        # up and its channels placed anew, on whichever master holds them by then.
        settings = {**node.connection_kwargs, "retry": Retry(NoBackoff(), 0)}
        pool = aioredis.ConnectionPool(connection_class=node.connection_class, max_connections=2, **settings)
        client = aioredis.Redis(connection_pool=pool)
        shard = _Shard(node.name, client, client.pubsub())
        self._shards[node.name] = shard
        return shard

    async def _read(self, shard: _Shard) -> None:
        watch = _Watch()
        while not self._stopping:
            try:
                message = await watch.next_message(shard.pubsub)
            except Exception as exc:
                if not self._stopping:
                    log.warning(
                        "sharded pub/sub read failed; placing its channels anew",
                        extra={"reason": f"{shard.name}: {exc!r}"},
                    )
                    await self._lose(shard)
                return
            if message is None:
                continue
            kind, channel = self._inbox.take(message)
            if kind == "sunsubscribe" and self._wanted.get(channel) == shard.name:
                # Wanted still, yet unsubscribed: the server no longer holds its slot.
                self._homeless([channel])

    async def _lose(self, shard: _Shard) -> None:
        """``shard``'s connection failed: give it up and place its channels anew."""
        if self._shards.get(shard.name) is shard:
            del self._shards[shard.name]
        self._homeless([c for c, name in self._wanted.items() if name == shard.name])
        await self._close(shard)

    def _homeless(self, channels: list[str]) -> None:
        for channel in channels:
            if channel in self._wanted:
                self._wanted[channel] = None
        if not self._stopping and (self._placing is None or self._placing.done()):
            self._placing = asyncio.create_task(self._place_homeless(), name="pubsub placing")

    async def _place_homeless(self) -> None:
        while not self._stopping:
            try:
                # The slots as the cluster has them now: a failover or a resharding is
                # why the channels lost their place.
                await self._cluster.nodes_manager.initialize()
                async with self._changing:
                    for channel in [c for c, name in self._wanted.items() if name is None]:
                        await self._place(channel)
            except Exception as exc:
                log.warning("sharded pub/sub cannot subscribe yet", extra={"reason": repr(exc)})
                await asyncio.sleep(_RETRY)
                continue
            if all(name is not None for name in self._wanted.values()):
                log.warning("sharded pub/sub reads again")
                return

    async def _close(self, shard: _Shard) -> None:
        with contextlib.suppress(Exception):
            await shard.pubsub.aclose()
        with contextlib.suppress(Exception):
            await shard.client.aclose()

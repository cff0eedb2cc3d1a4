"""The store: the one package that owns every Redis key and Lua script.

One module per domain (:mod:`~server.store.races`, :mod:`~server.store.boards`,
:mod:`~server.store.players`, :mod:`~server.store.queues`,
:mod:`~server.store.deadlines`, :mod:`~server.store.events`,
:mod:`~server.store.rematches`, :mod:`~server.store.accounts`,
:mod:`~server.store.ratings`, :mod:`~server.store.dailies`,
:mod:`~server.store.watching`); key names are built in
:mod:`server.store.keys` only; the scripts and their KEYS/ARGV contracts are in
:mod:`server.store.scripts`; what is read comes back as the records of
:mod:`server.store.records`.
"""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis
import redis.exceptions
from redis.asyncio.cluster import RedisCluster

from server.store import keys, scripts
from server.store.accounts import AccountStore
from server.store.boards import BoardStore
from server.store.dailies import DailyStore
from server.store.deadlines import DeadlineStore
from server.store.events import EventStore
from server.store.nodes import NodeStore
from server.store.players import PlayerStore
from server.store.queues import QueueStore
from server.store.races import RaceStore
from server.store.ratings import RatingStore
from server.store.records import (
    Answer,
    BoardRecord,
    Deal,
    LoggedMoveRecord,
    MoveOutcome,
    PlayerRating,
    RaceMeta,
    RacerRecord,
    RaceStatus,
    RematchRecord,
    Seat,
)
from server.store.rematches import RematchStore
from server.store.watching import WatchStore

__all__ = [
    "OUTAGE_ERRORS",
    "Answer",
    "BoardRecord",
    "Deal",
    "LoggedMoveRecord",
    "MoveOutcome",
    "PlayerRating",
    "RaceMeta",
    "RaceStatus",
    "RacerRecord",
    "RematchRecord",
    "Seat",
    "Store",
]


#: What a call raises when Redis cannot be reached (down, restarting, network gone, or
#: every pooled connection busy past the pool's timeout), or a cluster's slot has no
#: master for a moment (a failover under way).
OUTAGE_ERRORS: tuple[type[BaseException], ...] = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    redis.exceptions.BusyLoadingError,
    redis.exceptions.ClusterDownError,
    redis.exceptions.TryAgainError,
    redis.exceptions.SlotNotCoveredError,
    OSError,
)


class Store:
    """Every Redis read and write of the server, by domain."""

    def __init__(
        self, client: aioredis.Redis | RedisCluster, ack_replicas: int = 0, sharded: bool = False
    ) -> None:
        """``sharded``: events go out with ``SPUBLISH`` (a cluster of Redis 7 whose nodes
        subscribe with ``SSUBSCRIBE``), else with ``PUBLISH``."""
        # redis-py types replies as ``bytes | str``; this client decodes responses.
        self.redis: Any = client
        self.sharded = sharded
        self.players = PlayerStore(client)
        self.races = RaceStore(client, sharded)
        self.boards = BoardStore(client, ack_replicas, sharded)
        self.queues = QueueStore(client)
        self.deadlines = DeadlineStore(client)
        #: Finished races whose records are still to be archived (``SA_ARCHIVE_DIR``).
        self.archive_due = DeadlineStore(client, keys.ARCHIVE_DUE)
        self.events = EventStore(client, sharded)
        self.rematches = RematchStore(client)
        self.accounts = AccountStore(client)
        self.ratings = RatingStore(client)
        self.dailies = DailyStore(client)
        self.watching = WatchStore(client, sharded)
        self.nodes = NodeStore(client)

    async def load_scripts(self) -> None:
        """Load every script once, so batched calls can use EVALSHA."""
        for script in scripts.ALL:
            await self.redis.script_load(script.source_for(self.sharded))

    async def ping(self) -> bool:
        return bool(await self.redis.ping())

    async def aclose(self) -> None:
        """Close the store's own connections (the client's pool is the caller's)."""
        await self.boards.aclose()

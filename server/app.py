"""A node: the WebSocket server wired to Redis, the fan-out, the clock and the handlers."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable

import redis.asyncio as aioredis
from websockets.asyncio.server import Server, ServerConnection, serve

from server.boards import Boards
from server.clock import Clock
from server.config import Settings
from server.connection import Handler
from server.fanout import Fanout
from server.http import http_routes
from server.lobby import Lobby
from server.matchmaking import Matchmaker
from server.metrics import Metrics
from server.races import Races, random_seed
from server.redis_embedded import EmbeddedRedis
from server.session import Session
from server.store import Store

log = logging.getLogger("arena.app")


class ArenaServer:
    """Start with :meth:`start`, stop with :meth:`stop` (or :meth:`run` until SIGTERM).

    ``seed_source`` picks each race's seed (secure random by default); tests pass
    their own to race on a deal with a known winning line.
    """

    def __init__(self, settings: Settings, seed_source: Callable[[], int] = random_seed) -> None:
        self.settings = settings
        self.seed_source = seed_source
        self.metrics = Metrics()
        self.embedded: EmbeddedRedis | None = None
        self.redis: aioredis.Redis | None = None
        self.server: Server | None = None
        self.clock: Clock | None = None
        self.matchmaker: Matchmaker | None = None
        self.lobby: Lobby | None = None
        self.fanout: Fanout | None = None
        self.races: Races | None = None
        self.store: Store | None = None

    @property
    def port(self) -> int:
        assert self.server is not None
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    @property
    def url(self) -> str:
        return f"ws://{self.settings.host}:{self.port}"

    async def start(self) -> None:
        settings = self.settings
        redis_url = settings.redis_url
        if not redis_url:
            # Started from the event loop's thread: it must outlive only this process.
            self.embedded = EmbeddedRedis(settings.data_dir, settings.redis_fsync)
            redis_url = self.embedded.start()
        # A blocking pool: under load, requests wait for a free connection instead of
        # failing with "Too many connections".
        pool = aioredis.BlockingConnectionPool.from_url(
            redis_url,
            max_connections=settings.redis_max_connections,
            timeout=10,
            decode_responses=True,
            health_check_interval=30,
        )
        self.redis = aioredis.Redis(connection_pool=pool)
        store = Store(self.redis)
        self.store = store
        await store.ping()
        await store.load_scripts()
        self.fanout = Fanout(self.redis, store, settings.node_id)
        fanout = self.fanout
        self.metrics.watch_races(lambda: fanout.race_count)
        races = Races(store, self.fanout, settings, self.metrics, self.seed_source)
        self.races = races
        self.clock = Clock(store, races, settings.clock_tick)
        boards = Boards(store, self.fanout, self.metrics, self.clock.end_soon)
        races.on_end = boards.forget_race
        self.fanout.on_race_ended = boards.forget_race
        self.matchmaker = Matchmaker(store, races, settings.quick_match_time_limit)
        self.lobby = Lobby(store, races, self.fanout, settings.lobby_grace)
        handler = Handler(store, self.fanout, races, boards, self.matchmaker, self.lobby, self.metrics)
        await self.fanout.start()
        self.clock.start()
        self.matchmaker.start()

        async def connection(ws: ServerConnection) -> None:
            await handler.serve(Session(ws, settings.rate_limit, settings.rate_burst))

        self.server = await serve(
            connection,
            settings.host,
            settings.port,
            process_request=http_routes(store, self.metrics),
            compression=None,
            max_size=settings.max_message_bytes,
            max_queue=64,
            ping_interval=20,
            ping_timeout=20,
        )
        log.info(
            "listening",
            extra={"address": self.url, "node_id": settings.node_id, "redis_url": _safe(redis_url)},
        )

    async def stop(self) -> None:
        """Close connections (1001 going away), stop the clock, Redis, the embedded server."""
        if self.server is not None:
            self.server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.server.wait_closed(), 10)
        if self.clock is not None:
            await self.clock.stop()
        if self.matchmaker is not None:
            await self.matchmaker.stop()
        if self.lobby is not None:
            await self.lobby.stop()
        if self.fanout is not None:
            await self.fanout.stop()
        if self.store is not None:
            with contextlib.suppress(Exception):
                await self.store.aclose()
        if self.redis is not None:
            with contextlib.suppress(Exception):
                await self.redis.aclose()
        if self.embedded is not None:
            self.embedded.stop()
        log.info("stopped", extra={"node_id": self.settings.node_id})

    async def run(self, ready: Callable[[ArenaServer], None] | None = None) -> None:
        """Serve until SIGTERM or SIGINT, then shut down gracefully."""
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await self.start()
        try:
            if ready is not None:
                ready(self)
            await stop.wait()
            log.info("shutting down")
        finally:
            await self.stop()


def _safe(url: str) -> str:
    """A Redis URL without its password, for logs."""
    if "@" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return url

"""A node: the WebSocket server wired to Redis, the features, the clock and the fan-out.

This module is the composition root: it builds every part, and registers each request's
handler in :func:`routes` (one line per message class).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, cast

import redis.asyncio as aioredis
import redis.exceptions
from websockets.asyncio.server import Server, ServerConnection, serve

from server.admission import AddressLimits, Admission
from server.archive import make_ready
from server.config import Settings, setting_name
from server.features.accounts import Accounts
from server.features.archive_sweep import ArchiveSweep
from server.features.catch_up import CatchUp
from server.features.daily import Daily
from server.features.hints import Hints
from server.features.leaderboard_sweep import LeaderboardSweep
from server.features.lobby import Lobby, random_seed
from server.features.node_watch import NodeWatch
from server.features.presence import Presence
from server.features.profiles import Profiles
from server.features.quick_match import QuickMatchmaker
from server.features.racing import Racing
from server.features.rematch import Rematches
from server.features.results import RaceResults
from server.features.scheduler import RaceClock
from server.features.watching import Watching
from server.metrics import Metrics
from server.outage import StoreHealth
from server.redis_client import open_redis, sharded_pubsub
from server.redis_embedded import EmbeddedRedis
from server.store import OUTAGE_ERRORS, Store
from server.timesource import SystemTime, TimeSource
from server.transport.connection import ConnectionHandler
from server.transport.fanout import Fanout
from server.transport.gate import gated_connection
from server.transport.http import client_address, http_routes
from server.transport.origins import OriginPolicy
from server.transport.reader import DirectReadConnection
from server.transport.router import Router
from server.transport.session import Session
from server.transport.spectators import Spectators
from server.transport.web import WebFiles
from shared import protocol as p

log = logging.getLogger("arena.app")

#: How long a starting node waits for Redis to answer its first ping.
STARTUP_PING_TIMEOUT = 10.0
#: The reason connections are closed with (1001, going away) when the node stops.
SHUTDOWN_REASON = "server shutting down"
#: Seconds between looks at whether the embedded redis-server still runs.
EMBEDDED_LOOK_EVERY = 1.0


class StartupError(RuntimeError):
    """The node cannot start (Redis does not answer); the message is one readable line."""


@dataclass(frozen=True)
class Features:
    presence: Presence
    lobby: Lobby
    quick_match: QuickMatchmaker
    racing: Racing
    results: RaceResults
    clock: RaceClock
    hints: Hints
    rematches: Rematches
    accounts: Accounts
    profiles: Profiles
    daily: Daily
    watching: Watching
    leaderboard_sweep: LeaderboardSweep
    nodes: NodeWatch
    archive_sweep: ArchiveSweep
    catch_up: CatchUp


def routes(features: Features) -> Router:
    """Every request class with its handler."""
    router = Router()
    router.add(p.Hello, features.presence.hello, public=True)
    router.add(p.Ping, features.presence.ping, public=True)
    router.add(p.CreateRace, features.lobby.create_race)
    router.add(p.JoinRace, features.lobby.join_race)
    router.add(p.ListRaces, features.lobby.list_races, viewers=True)
    router.add(p.ListMyRaces, features.lobby.list_my_races)
    router.add(p.LeaveRace, features.lobby.leave_race)
    router.add(p.Ready, features.lobby.ready)
    router.add(p.RevealShare, features.lobby.reveal_share)
    router.add(p.StartRace, features.lobby.start_race)
    router.add(p.GetRace, features.lobby.get_race, viewers=True)
    router.add(p.MakeMove, features.racing.make_move)
    router.add(p.Finish, features.racing.finish)
    router.add(p.GetResults, features.results.get_results, viewers=True)
    router.add(p.GetMoveLog, features.results.get_move_log, viewers=True)
    router.add(p.GetReplay, features.results.get_replay, viewers=True)
    router.add(p.QuickMatch, features.quick_match.quick_match)
    router.add(p.CancelQuickMatch, features.quick_match.cancel_quick_match)
    router.add(p.GetHint, features.hints.get_hint)
    router.add(p.OfferRematch, features.rematches.offer_rematch)
    router.add(p.AnswerRematch, features.rematches.answer_rematch)
    router.add(p.Register, features.accounts.register)
    router.add(p.Login, features.accounts.login, public=True)
    router.add(p.Logout, features.accounts.logout)
    router.add(p.ChangePassword, features.accounts.change_password)
    router.add(p.Rename, features.accounts.rename)
    router.add(p.GetLeaderboard, features.profiles.get_leaderboard, viewers=True)
    router.add(p.GetProfile, features.profiles.get_profile, viewers=True)
    router.add(p.GetDailies, features.daily.get_dailies, viewers=True)
    router.add(p.StartDaily, features.daily.start_daily)
    router.add(p.GetDailyBoard, features.daily.get_daily_board, viewers=True)
    router.add(p.DailyGhosts, features.daily.daily_ghosts)
    router.add(p.GetDailyStandings, features.daily.get_daily_standings, viewers=True)
    router.add(p.ListLive, features.watching.list_live, viewers=True)
    router.add(p.Watch, features.watching.watch, viewers=True)
    router.add(p.Unwatch, features.watching.unwatch, viewers=True)
    router.add(p.GetRecord, features.results.get_record, viewers=True)
    router.check()
    return router


def build_features(
    store: Store,
    settings: Settings,
    time: TimeSource,
    metrics: Metrics,
    seed_source: Callable[[], int],
    health: StoreHealth,
    admission: Admission,
    mix_shares: bool = True,
) -> Features:
    results = RaceResults(store, settings, time, metrics)
    racing = Racing(store, settings.node_id, time, metrics, results)
    nodes = NodeWatch(store, metrics, health, settings.node_id, settings.node_beat, settings.lobby_grace)
    lobby = Lobby(store, settings, time, metrics, nodes, seed_source, mix_shares)
    quick_match = QuickMatchmaker(store, lobby, settings, time)
    lobby.racers_leave_queues = quick_match.started_racing
    rematches = Rematches(store, lobby, settings, time, nodes)
    presence = Presence(
        store,
        lobby,
        quick_match,
        rematches,
        nodes,
        time,
        admission,
        settings.guest_ttl,
        results,
        settings.sign_in_ttl,
    )
    clock = RaceClock(store, racing, results, time, settings.clock_tick, health)
    hints = Hints(store, time)
    accounts = Accounts(
        store,
        presence,
        lobby,
        metrics,
        time,
        settings.login_failures_per_address,
        settings.login_failures_per_account,
    )
    profiles = Profiles(store, time, settings.daily_time_limit)
    daily = Daily(store, lobby, racing, settings, time)
    watching = Watching(store, settings, time)
    leaderboard_sweep = LeaderboardSweep(store, time, settings.leaderboard_sweep)
    return Features(
        presence,
        lobby,
        quick_match,
        racing,
        results,
        clock,
        hints,
        rematches,
        accounts,
        profiles,
        daily,
        watching,
        leaderboard_sweep,
        nodes,
        ArchiveSweep(results, settings.archive_sweep),
        CatchUp(store, lobby, results),
    )


def admission_for(settings: Settings) -> Admission:
    limits = AddressLimits(
        max_connections=settings.max_connections_per_address,
        connect_rate=settings.connect_rate,
        connect_burst=settings.connect_burst,
        new_player_rate=settings.new_player_rate,
        new_player_burst=settings.new_player_burst,
        abuse_ban=settings.abuse_ban,
    )
    return Admission(limits, settings.trusted_proxies.split(","))


class ArenaServer:
    """Start with :meth:`start`, stop with :meth:`stop` (or :meth:`run` until SIGTERM).

    ``seed_source`` picks each race's server seed (secure random by default); tests pass
    their own, with ``mix_shares`` off, to race on a deal with a known winning line
    (racers' seed shares are then checked but left out of the deal). ``time`` is the
    server's clock (the system's by default).
    """

    def __init__(
        self,
        settings: Settings,
        seed_source: Callable[[], int] = random_seed,
        time: TimeSource | None = None,
        mix_shares: bool = True,
    ) -> None:
        self.settings = settings
        self.seed_source = seed_source
        self.mix_shares = mix_shares
        self.time: TimeSource = time or SystemTime()
        self.metrics = Metrics()
        self.embedded: EmbeddedRedis | None = None
        self._embedded_watch: asyncio.Task[None] | None = None
        self.redis: aioredis.Redis | None = None
        self.server: Server | None = None
        self.store: Store | None = None
        self.features: Features | None = None
        self.fanout: Fanout | None = None
        self.spectators: Spectators | None = None
        self.admission = admission_for(settings)

    @property
    def port(self) -> int:
        assert self.server is not None
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    @property
    def url(self) -> str:
        """The node's address as clients write it (an IPv6 host in brackets)."""
        host = self.settings.host
        return f"ws://[{host}]:{self.port}" if ":" in host else f"ws://{host}:{self.port}"

    async def start(self) -> None:
        """Connect to Redis (or start the embedded one), start the features, listen.

        An archive directory, or the embedded Redis's data directory, the node cannot write
        to raises :class:`~server.config.SettingError`. A start that fails stops what it had
        started (the clock, the embedded Redis, …) before the error goes on, so nothing is
        left running behind it."""
        if self.settings.archive_dir:  # before anything starts: a bad one leaves nothing to stop
            await asyncio.to_thread(make_ready, self.settings.archive_dir)
        try:
            await self._start()
        except BaseException:
            await self.stop()
            raise

    async def _start(self) -> None:
        settings = self.settings
        redis_url = settings.redis_url
        if not redis_url:
            self.embedded = EmbeddedRedis(settings.data_dir, settings.redis_fsync)
            redis_url = self.embedded.start()
        self.redis = open_redis(redis_url, settings.redis_max_connections)
        try:
            await asyncio.wait_for(self.redis.ping(), STARTUP_PING_TIMEOUT)
            sharded = await sharded_pubsub(self.redis, settings.pubsub)
        except (redis.exceptions.RedisError, redis.exceptions.RedisClusterException, OSError) as exc:
            reason = str(exc) or f"no answer within {STARTUP_PING_TIMEOUT:g} s"
            raise StartupError(f"Redis at {_safe(redis_url)} does not answer: {reason}") from None
        except ValueError as exc:
            raise StartupError(f"{setting_name('pubsub')}: {exc}") from None
        store = Store(self.redis, settings.ack_replicas, sharded)
        self.store = store
        await store.load_scripts()
        health = StoreHealth(self.metrics, OUTAGE_ERRORS)
        features = build_features(
            store,
            settings,
            self.time,
            self.metrics,
            self.seed_source,
            health,
            self.admission,
            self.mix_shares,
        )
        self.features = features
        router = routes(features)
        fanout = Fanout(
            self.redis,
            store.events,
            settings.node_id,
            features.racing,
            features.quick_match,
            features.results,
            features.catch_up,
            sharded,
        )
        self.fanout = fanout
        self.metrics.watch_races(lambda: fanout.race_count)
        spectators = Spectators(fanout, features.watching, store, settings, self.time, self.metrics)
        self.spectators = spectators
        admission = self.admission
        handler = ConnectionHandler(
            router,
            fanout,
            spectators,
            features.presence,
            self.metrics,
            health,
            settings.hello_timeout,
            admission,
        )
        await fanout.start()
        await features.nodes.start()
        spectators.start()
        features.clock.start()
        features.lobby.start()
        features.quick_match.start()
        features.rematches.start()
        features.leaderboard_sweep.start()
        features.archive_sweep.start()
        if self.settings.daily_prepare:
            features.daily.start()
        if self.embedded is not None:
            self._embedded_watch = asyncio.create_task(self._keep_embedded_redis_up(self.embedded))

        def connection(ws: ServerConnection) -> Coroutine[Any, Any, None]:
            # Not a coroutine of its own: every resumption of a connection's task passes
            # through each coroutine it nests, and a move resumes it twice.
            address = client_address(ws, ws.request, admission)
            # gated_connection's class: every connection of the node reads directly.
            direct = cast(DirectReadConnection, ws)
            return handler.serve(Session(direct, settings.rate_limit, settings.rate_burst, address))

        try:
            self.server = await serve(
                connection,
                settings.host,
                settings.port,
                process_request=http_routes(
                    store,
                    self.metrics,
                    admission,
                    WebFiles(),
                    OriginPolicy(
                        settings.allowed_origins.split(","),
                        admission.trusted_proxies,
                        settings.public_host_names,
                    ),
                ),
                create_connection=gated_connection(admission, self.metrics),
                compression=None,
                max_size=settings.max_message_bytes,
                max_queue=64,
                ping_interval=20,
                ping_timeout=20,
            )
        except OSError as exc:  # the port is taken, the host has no such address, …
            where = f"{settings.host}:{settings.port} (SA_HOST, SA_PORT)"
            raise StartupError(f"cannot listen on {where}: {exc.strerror or exc}") from None
        log.info(
            "listening",
            extra={
                "address": self.url,
                "node_id": settings.node_id,
                "redis_url": _safe(redis_url),
                "pubsub": "sharded" if store.sharded else "classic",
            },
        )

    async def _keep_embedded_redis_up(self, embedded: EmbeddedRedis) -> None:
        """Start the embedded redis-server again whenever it ends by itself (killed, out of
        memory): the node owns it, and no one else would, so without this the node would
        answer ``unavailable`` for ever. It reloads its data from its append-only file."""
        while True:
            await asyncio.sleep(EMBEDDED_LOOK_EVERY)
            status = embedded.exited()
            if status is None:
                continue
            how = f"killed by signal {-status}" if status < 0 else f"exit status {status}"
            log.error(
                "embedded redis-server ended by itself: starting it again",
                extra={"how": how, "log": str(embedded.data_dir / "redis.log")},
            )
            try:
                embedded.revive()  # in the loop's thread, which outlives it (see start)
            except OSError as exc:  # looked at again next time
                log.error("embedded redis-server did not start again", extra={"reason": str(exc)})

    async def stop(self) -> None:
        """Close connections (1001 going away), stop the clock, Redis, the embedded server.
        Only a node that listened logs that it stopped: a start refused for a setting
        prints its one line of reason and nothing else."""
        listened = self.server is not None
        if self.server is not None:
            try:
                self.server.close(reason=SHUTDOWN_REASON)
            except TypeError:  # websockets before 14 closes with 1001 and no reason
                self.server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.server.wait_closed(), 10)
        if self.features is not None:
            await self.features.clock.stop()
            await self.features.quick_match.stop()
            await self.features.lobby.stop()
            await self.features.results.stop()
            await self.features.rematches.stop()
            self.features.hints.stop()
            self.features.accounts.stop()
            await self.features.daily.stop()
            await self.features.leaderboard_sweep.stop()
            await self.features.archive_sweep.stop()
            await self.features.nodes.stop()
        if self.spectators is not None:
            await self.spectators.stop()
        if self.fanout is not None:
            await self.fanout.stop()
        if self.store is not None:
            with contextlib.suppress(Exception):
                await self.store.aclose()
        if self.redis is not None:
            with contextlib.suppress(Exception):
                await self.redis.aclose()
        if self._embedded_watch is not None:
            self._embedded_watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._embedded_watch
        if self.embedded is not None:
            self.embedded.stop()
        if listened:
            log.info("stopped", extra={"node_id": self.settings.node_id})

    async def run(self, ready: Callable[[ArenaServer], None] | None = None) -> None:
        """Serve until SIGTERM or SIGINT, then shut down gracefully."""
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        signals = (signal.SIGTERM, signal.SIGINT)
        for sig in signals:
            loop.add_signal_handler(sig, stop.set)
        try:
            await self.start()
            try:
                if ready is not None:
                    ready(self)
                await stop.wait()
                log.info("shutting down")
            finally:
                await self.stop()
        finally:
            for sig in signals:  # a signal from now on ends the process as usual
                loop.remove_signal_handler(sig)


def _safe(url: str) -> str:
    """A Redis URL without its password, for logs."""
    if "@" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return url

"""Prometheus metrics of one node, in a registry of its own."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.connections = Gauge("arena_connections", "Open WebSocket connections", registry=self.registry)
        self.races_started = Counter(
            "arena_races_started", "Races whose countdown began", registry=self.registry
        )
        self.races_finished = Counter(
            "arena_races_finished", "Races ended with results", registry=self.registry
        )
        self.races_watched = Gauge(
            "arena_races_subscribed", "Races with racers on this node", registry=self.registry
        )
        self.moves = Counter("arena_moves", "Moves handled", ["result"], registry=self.registry)
        self.move_latency = Histogram(
            "arena_move_latency_seconds",
            "From a move's arrival to its ack",
            buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0),
            registry=self.registry,
        )
        self.errors = Counter("arena_errors", "Error replies sent", ["code"], registry=self.registry)
        self.store_outages = Counter(
            "arena_redis_outages", "Times Redis became unreachable", registry=self.registry
        )
        self.store_errors = Counter(
            "arena_redis_errors", "Calls that failed because Redis was unreachable", registry=self.registry
        )
        self.refused_connections = Counter(
            "arena_refused_connections",
            "Connections refused before the handshake: by a per-address limit (HTTP 429), "
            "held at the door (dropped), or for a page of another site (origin, HTTP 403)",
            ["reason"],
            registry=self.registry,
        )
        self.login_refusals = Counter(
            "arena_login_refusals",
            "Logins and password changes refused (rate_limited) by a guessing limit, before any hash",
            ["limit"],
            registry=self.registry,
        )
        self.shut_connections = Counter(
            "arena_shut_connections",
            "Connections closed for abuse (1008)",
            ["reason"],
            registry=self.registry,
        )
        self.archive_failures = Counter(
            "arena_archive_failures",
            "Race records this node could not write to the archive (SA_ARCHIVE_DIR)",
            registry=self.registry,
        )
        self.dead_nodes = Counter(
            "arena_dead_nodes",
            "Other nodes this node found without a heartbeat and took for dead (their players gone)",
            registry=self.registry,
        )

        self.spectators = Gauge(
            "arena_spectators", "Connections watching a race on this node", registry=self.registry
        )
        self.slow_spectators = Counter(
            "arena_slow_spectators",
            "Spectators dropped because their connection fell too far behind",
            registry=self.registry,
        )

        self.tasks = Gauge(
            "arena_tasks", "asyncio tasks alive in the node (a leak grows it)", registry=self.registry
        )
        self.tasks.set_function(_task_count)

    def watch_races(self, count: Callable[[], int]) -> None:
        """Report the races followed by this node, read when /metrics is scraped."""
        self.races_watched.set_function(count)

    def render(self) -> bytes:
        return generate_latest(self.registry)


def _task_count() -> int:
    try:
        return len(asyncio.all_tasks())
    except RuntimeError:  # scraped from outside the node's loop
        return 0

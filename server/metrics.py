"""Prometheus metrics of one node, in a registry of its own."""

from __future__ import annotations

import asyncio
from bisect import bisect_left
from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

#: The bounds (seconds) of the move latency histogram's buckets.
MOVE_LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
#: Their ``le`` labels, as prometheus_client writes them, and the last bucket's.
_BUCKET_LABELS = (*(repr(bound) for bound in MOVE_LATENCY_BUCKETS), "+Inf")


class MoveMetrics(Collector):
    """The moves handled, by result, and how long each accepted one took from its arrival
    to its ack (``arena_moves_total`` and ``arena_move_latency_seconds``).

    Every move updates them, so they are kept as plain numbers (a move's update is a few
    additions, where prometheus_client's own counter and histogram take a lock for each
    change and search the buckets in Python) and handed to the registry as metric
    families only when ``/metrics`` is read."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}
        self._buckets = [0] * (len(MOVE_LATENCY_BUCKETS) + 1)  # the last one: +Inf
        self._sum = 0.0

    def count(self, result: str) -> None:
        """One more move handled with ``result`` (an error code, or ``resent``)."""
        self._counts[result] = self._counts.get(result, 0) + 1

    def accepted(self, seconds: float) -> None:
        """One more move accepted, ``seconds`` after it arrived."""
        self._counts["accepted"] = self._counts.get("accepted", 0) + 1
        self._buckets[bisect_left(MOVE_LATENCY_BUCKETS, seconds)] += 1
        self._sum += seconds

    def collect(self) -> Iterator[Metric]:
        moves = CounterMetricFamily("arena_moves", "Moves handled", labels=["result"])
        for result, count in sorted(self._counts.items()):
            moves.add_metric([result], count)
        yield moves
        total, cumulative = 0, []
        for label, count in zip(_BUCKET_LABELS, self._buckets, strict=True):
            total += count
            cumulative.append((label, total))
        yield HistogramMetricFamily(
            "arena_move_latency_seconds",
            "From a move's arrival to its ack",
            buckets=cumulative,
            sum_value=self._sum,
        )


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
        self.moves = MoveMetrics()
        self.registry.register(self.moves)
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

"""The moves' metrics, kept as plain numbers: /metrics reads them exactly as it read
prometheus_client's own counter and histogram of the same moves."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from server.metrics import MOVE_LATENCY_BUCKETS, MoveMetrics

#: Latencies on and around the bucket bounds, and past the last one.
LATENCIES = (0.0001, 0.0005, 0.00051, 0.001, 0.004, 0.025, 0.0999, 0.25, 0.9, 1.0, 1.5, 30.0)
OTHER_RESULTS = ("illegal_move", "resent", "stale_seq", "resent", "unavailable")


def samples(registry: CollectorRegistry) -> list[str]:
    """The exposition's sample lines (no comments, nor the libraries' ``_created``)."""
    text = generate_latest(registry).decode()
    return sorted(line for line in text.splitlines() if not line.startswith("#") and "_created" not in line)


def test_the_moves_metrics_read_as_prometheus_clients_own_counter_and_histogram() -> None:
    ours = CollectorRegistry()
    moves = MoveMetrics()
    ours.register(moves)
    theirs = CollectorRegistry()
    counter = Counter("arena_moves", "Moves handled", ["result"], registry=theirs)
    histogram = Histogram(
        "arena_move_latency_seconds",
        "From a move's arrival to its ack",
        buckets=MOVE_LATENCY_BUCKETS,
        registry=theirs,
    )
    for seconds in LATENCIES:
        moves.accepted(seconds)
        counter.labels(result="accepted").inc()
        histogram.observe(seconds)
    for result in OTHER_RESULTS:
        moves.count(result)
        counter.labels(result=result).inc()
    assert samples(ours) == samples(theirs)
    assert 'arena_move_latency_seconds_bucket{le="0.0005"} 2.0' in samples(ours)
    assert 'arena_moves_total{result="resent"} 2.0' in samples(ours)

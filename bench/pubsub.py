"""Pub/sub on a Redis Cluster: classic against sharded, what each event costs the servers.

    .venv/bin/python bench/pubsub.py --racers 200 --think 0.1 --seconds 10

Starts a cluster of Redis 7 (``redis-server`` on PATH, Debian's package) with 3 masters
and a replica each, and two node processes on it. Each race has one racer on each node,
so every move reaches the other node through Redis. The same paced run goes once with
``SA_PUBSUB=classic`` and once with ``SA_PUBSUB=sharded`` (the cluster is emptied in
between), and the table says, per acknowledged move, across the six servers:

- the messages their cluster bus carried for pub/sub (``CLUSTER INFO``'s
  ``cluster_stats_messages_publish_sent`` and ``..._publishshard_sent``): classic
  ``PUBLISH`` goes from the server that took it to every other server, ``SPUBLISH`` only
  to the replicas of its slot's master;
- the servers' CPU (``INFO cpu``) and the bytes they wrote (``INFO stats``).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load import Scenario, run_client, run_server_bench, start_bench_node, stop_bench_node  # noqa: E402
from server.local_cluster import LocalCluster, redis_7_server  # noqa: E402

#: The counters read from every server before and after the counted seconds.
_BUS = ("cluster_stats_messages_publish_sent", "cluster_stats_messages_publishshard_sent")


def counters(cluster: LocalCluster) -> dict[str, float]:
    """Bus messages for pub/sub, CPU seconds and bytes written, summed over the servers."""
    total = {"bus": 0.0, "cpu": 0.0, "bytes": 0.0}
    for server in cluster.servers:
        with server.client() as client:
            info = client.cluster("info")
            total["bus"] += sum(float(info.get(name, 0)) for name in _BUS)
            cpu = client.info("cpu")
            total["cpu"] += float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])
            total["bytes"] += float(client.info("stats")["total_net_output_bytes"])
    return total


def one_run(cluster: LocalCluster, mode: str, args: argparse.Namespace) -> dict[str, float]:
    nodes = [start_bench_node(cluster.url, {"SA_PUBSUB": mode}) for _ in range(2)]
    marks: dict[str, dict[str, float]] = {}
    try:
        urls = [f"ws://127.0.0.1:{port}" for _node, port in nodes]
        scenario = Scenario(mode, args.think, args.seconds, args.warmup)

        def mark(name: str) -> None:
            marks[name] = counters(cluster)

        async def run() -> tuple[int, float]:
            asyncio.get_running_loop().call_later(args.warmup + args.seconds, mark, "after")
            tally, elapsed = await run_server_bench(
                urls, args.racers, scenario, when_counting=lambda: mark("before"), across=True
            )
            return tally.accepted, elapsed

        moves, elapsed = run_client(run())
    finally:
        for node, _port in nodes:
            stop_bench_node(node)
    before, after = marks["before"], marks["after"]
    moves = max(moves, 1)
    return {
        "moves/s": moves / elapsed,
        "bus": (after["bus"] - before["bus"]) / moves,
        "cpu": (after["cpu"] - before["cpu"]) / moves * 1e6,
        "bytes": (after["bytes"] - before["bytes"]) / moves,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--racers", type=int, default=200)
    parser.add_argument("--think", type=float, default=0.1, help="a racer's mean pause after each ack (s)")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    args = parser.parse_args(argv)
    binary = redis_7_server()
    if binary is None:
        parser.error("needs a Redis 7 redis-server on PATH (apt-get install redis-server)")
    rows = {}
    with tempfile.TemporaryDirectory(prefix="arena-pubsub-") as tmp:
        cluster = LocalCluster(tmp, masters=3, replicas=1, binary=binary)
        cluster.start()
        try:
            for mode in ("classic", "sharded"):
                cluster.flush()
                rows[mode] = one_run(cluster, mode, args)
                print(f"{mode}: {rows[mode]['moves/s']:.0f} moves/s", file=sys.stderr, flush=True)
        finally:
            cluster.stop()
    print(
        f"\n{args.racers} racers, one of each race on each of 2 nodes (every move crosses by pub/sub), "
        f"thinking ~{args.think:g} s; {args.seconds:g} s counted; Redis 7, 3 masters with a replica each\n"
    )
    print("| pub/sub | moves/s | bus messages per move | servers' CPU us per move | bytes written per move |")
    print("|---|---:|---:|---:|---:|")
    for mode, row in rows.items():
        print(f"| {mode} | {row['moves/s']:.0f} | {row['bus']:.2f} | {row['cpu']:.1f} | {row['bytes']:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Scaling benchmark: idle connections' memory, and 1..N nodes on one Redis.

    .venv/bin/python bench/scale.py --idle 10000
    .venv/bin/python bench/scale.py --nodes 3 --racers 1000 --seconds 10

``--idle N`` starts one node, opens N WebSocket connections that each say ``hello`` (a
guest each, as a player who opened the app and waits) and then stay idle, and prints the
node's resident memory before and after: the memory an idle connection costs.

``--nodes N`` runs the flat-out scenario of ``bench/load.py`` (every racer one move in
flight) against 1, 2, ... N node processes on one Redis, racers spread over the nodes
(both racers of a race on one node), and prints for each: moves/s, the nodes' CPU per
move, and Redis's own CPU per move (``INFO cpu``), from which Redis's limit on one core
follows (1 s / its CPU per move). Everything runs on this machine's cores: the load
generator, the nodes and Redis share them, which the table's CPU columns show.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from bench.load import (  # noqa: E402
    Scenario,
    Tally,
    Wire,
    connect_options,
    process_cpu,
    process_rss_kib,
    run_client,
    run_server_bench,
    start_bench_node,
    stop_bench_node,
)
from server.redis_embedded import EmbeddedRedis  # noqa: E402


def start_node(redis_url: str) -> tuple[subprocess.Popen[str], str]:
    node, port = start_bench_node(redis_url)
    return node, f"ws://127.0.0.1:{port}"


async def open_idle(url: str, count: int) -> list[ClientConnection]:
    """``count`` connections, each past its ``hello``; opened 100 at a time."""
    connections: list[ClientConnection] = []

    async def one(number: int) -> None:
        ws = await connect(url, **connect_options())
        wire = Wire(ws)
        await wire.request({"type": "hello", "name": f"idle{number}"})
        connections.append(ws)

    for start in range(0, count, 100):
        await asyncio.gather(*(one(n) for n in range(start, min(start + 100, count))))
    return connections


def idle_run(count: int) -> int:
    with tempfile.TemporaryDirectory(prefix="arena-scale-") as tmp:
        redis_server = EmbeddedRedis(Path(tmp) / "redis")
        redis_url = redis_server.start()
        node, url = start_node(redis_url)
        try:

            async def measure() -> tuple[int, int, float]:
                warm = await open_idle(url, 100)  # pools, caches and code paths warmed first
                await asyncio.sleep(1)
                before = process_rss_kib(node.pid)
                started = time.perf_counter()
                rest = await open_idle(url, count)
                opened_in = time.perf_counter() - started
                await asyncio.sleep(3)  # let the node settle (handshake buffers freed)
                after = process_rss_kib(node.pid)
                await asyncio.gather(*(ws.close() for ws in warm + rest))
                return before, after, opened_in

            before, after, opened_in = run_client(measure())
        finally:
            stop_bench_node(node)
            redis_server.stop()
    per = (after - before) / count
    print(f"idle connections: {count} opened and said hello in {opened_in:.1f} s")
    print("| connections | node RSS before | node RSS after | per connection | target |")
    print("|---|---|---|---|---|")
    verdict = "met" if per < 30 else "NOT met"
    print(
        f"| {count} | {before / 1024:.1f} MiB | {after / 1024:.1f} MiB | {per:.1f} KiB "
        f"| < 30 KiB: {verdict} |"
    )
    return 0


def redis_cpu(client: redis.Redis) -> float:
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def one_setup(
    nodes: list[tuple[subprocess.Popen[str], str]],
    probe: redis.Redis,
    racers: int,
    seconds: float,
    warmup: float,
) -> tuple[float, float, float, float]:
    """Flat out on these nodes: moves/s, the nodes' and Redis's CPU us per move, Redis busy."""
    cpu: dict[str, float] = {}
    pids = [node.pid for node, _url in nodes]

    def mark(name: str) -> None:
        cpu[f"{name}-nodes"] = sum(process_cpu(pid) or 0.0 for pid in pids)
        cpu[f"{name}-redis"] = redis_cpu(probe)

    async def run() -> tuple[Tally, float]:
        loop = asyncio.get_running_loop()
        loop.call_later(warmup, mark, "from")
        loop.call_later(warmup + seconds, mark, "to")
        urls = [url for _node, url in nodes]
        return await run_server_bench(urls, racers, Scenario("flat out", 0.0, seconds, warmup))

    tally, elapsed = run_client(run())
    moves = max(1, tally.accepted)
    redis_seconds = cpu["to-redis"] - cpu["from-redis"]
    return (
        tally.accepted / elapsed,
        (cpu["to-nodes"] - cpu["from-nodes"]) / moves * 1e6,
        redis_seconds / moves * 1e6,
        redis_seconds / seconds,
    )


def nodes_run(most: int, racers: int, seconds: float, warmup: float) -> int:
    rows = []
    with tempfile.TemporaryDirectory(prefix="arena-scale-") as tmp:
        redis_server = EmbeddedRedis(Path(tmp) / "redis")
        redis_url = redis_server.start()
        probe = redis.Redis.from_url(redis_url)
        try:
            for count in range(1, most + 1):
                nodes = [start_node(redis_url) for _ in range(count)]
                try:
                    rows.append((count, *one_setup(nodes, probe, racers, seconds, warmup)))
                finally:
                    for node, _url in nodes:
                        stop_bench_node(node)
                print(f"{count} node(s): {rows[-1][1]:.0f} moves/s", file=sys.stderr, flush=True)
        finally:
            probe.close()
            redis_server.stop()
    base = rows[0][1]
    print(f"\n{racers} racers flat out (one move in flight each), {seconds:g} s per run, one Redis\n")
    print(
        "| nodes | moves/s | vs 1 node | nodes' CPU us/move | Redis CPU us/move | Redis busy | Redis limit |"
    )
    print("|---|---|---|---|---|---|---|")
    for count, rate, node_us, redis_us, busy in rows:
        limit = 1e6 / redis_us if redis_us else 0.0
        print(
            f"| {count} | {rate:.0f} | {rate / base:.2f}x | {node_us:.0f} | {redis_us:.1f} "
            f"| {busy:.0%} of a core | ~{limit:.0f} moves/s |"
        )
    print(f"\nthis machine has {os.cpu_count()} cores for the load generator, the nodes and Redis together")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--idle", type=int, default=0, help="idle connections to open")
    parser.add_argument("--nodes", type=int, default=0, help="run with 1..N nodes on one Redis")
    parser.add_argument("--racers", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    args = parser.parse_args(argv)
    if args.idle:
        idle_run(args.idle)
    if args.nodes:
        nodes_run(args.nodes, max(2, args.racers - args.racers % 2), args.seconds, args.warmup)
    if not args.idle and not args.nodes:
        parser.error("say --idle N or --nodes N")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The Live list's refresh: how long a node takes to build it with many races running.

    .venv/bin/python bench/live.py --races 200

Starts a private redis-server and an in-process node, seats ``--races`` casual Eight
Off races of two SDK racers each (all running), then builds the node's live list
(``list_live``'s work, with its one-second cache emptied first) ``--rounds`` times and
prints the wall time and the CPU time it took: the work a node does at most once a
second for each game filter while anyone has the Live page open.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load import run_client  # noqa: E402
from client.sdk import ArenaClient  # noqa: E402
from server.app import ArenaServer  # noqa: E402
from server.config import Settings  # noqa: E402
from server.features.timed_cache import TimedCache  # noqa: E402
from server.redis_embedded import EmbeddedRedis  # noqa: E402
from shared.protocol import RaceStarted  # noqa: E402

#: No per-address limits: every racer connects from loopback.
UNLIMITED = {"new_player_rate": 0, "max_connections_per_address": 0, "connect_rate": 0, "create_rate": 0}


async def seat_race(url: str, number: int) -> list[ArenaClient]:
    clients = [await ArenaClient.connect(url) for _ in range(2)]
    for index, client in enumerate(clients):
        await client.hello(name=f"racer{number}-{index}")
    race = await clients[0].create_race("eight-off", time_limit=3600)
    await clients[1].join_race(race.code)
    for client in clients:
        await client.ready(race.race_id)
    for client in clients:
        await client.wait_for(RaceStarted, lambda e: e.race_id == race.race_id)
    return clients


async def measure(redis_url: str, races: int, rounds: int) -> tuple[int, list[float], list[float]]:
    settings = Settings.from_env(
        {}, redis_url=redis_url, port=0, countdown=0, log_level="WARNING", **UNLIMITED
    )
    node = ArenaServer(settings)
    await node.start()
    clients: list[ArenaClient] = []
    try:
        for start in range(0, races, 25):
            for seated in await asyncio.gather(
                *(seat_race(node.url, n) for n in range(start, min(races, start + 25)))
            ):
                clients += seated
        assert node.features is not None  # started
        watching = node.features.watching
        walls: list[float] = []
        cpus: list[float] = []
        listed = 0
        for _ in range(rounds):
            watching._live = TimedCache(seconds=1.0, most=8)  # as if its second were up
            began, cpu = time.perf_counter(), time.process_time()
            listed = len(await watching.live(None))
            walls.append(time.perf_counter() - began)
            cpus.append(time.process_time() - cpu)
        return listed, walls, cpus
    finally:
        for client in clients:
            await client.close()
        await node.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--races", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="arena-live-") as tmp:
        redis_server = EmbeddedRedis(Path(tmp) / "redis")
        try:
            listed, walls, cpus = run_client(measure(redis_server.start(), args.races, args.rounds))
        finally:
            redis_server.stop()
    print(
        f"\n{args.races} races running, the live list built {args.rounds} times (kept: the best {listed})\n"
    )
    print("| | median | max |")
    print("|---|---:|---:|")
    print(f"| wall time | {statistics.median(walls) * 1000:.1f} ms | {max(walls) * 1000:.1f} ms |")
    print(f"| node CPU (this process, the racers idle) | {statistics.median(cpus) * 1000:.1f} ms | "
          f"{max(cpus) * 1000:.1f} ms |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A day's board, measured: ``--attempts`` finished scored attempts of one game in Redis
(as the ends of attempts write them), then clients read the top 100 and their own rank
through a node for ``--seconds`` each.

Run: ``make bench-daily`` (or ``.venv/bin/python bench/daily.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import orjson
import redis.asyncio as aioredis

from bench.assists import ROOMY, percentile
from client.sdk import ArenaClient
from server.features.daily_rules import board_score, day_of
from server.redis_embedded import EmbeddedRedis
from shared.protocol import GameName
from tests.server.conftest import running_node

GAME: GameName = "eight-off"


async def fill(redis_url: str, day: str, attempts: int) -> list[str]:
    """``attempts`` board entries (a third of them wins), their players and attempts."""
    client = aioredis.from_url(redis_url, decode_responses=True)
    rng = random.Random(7)
    players = []
    try:
        for start in range(0, attempts, 5_000):
            async with client.pipeline(transaction=False) as pipe:
                for index in range(start, min(attempts, start + 5_000)):
                    player_id = f"p_day{index:06d}"
                    players.append(player_id)
                    won = rng.random() < 0.33
                    score = 52 if won else rng.randrange(0, 52)
                    time_ms = rng.randrange(60_000, 1_800_000) if won else None
                    value = board_score(won, time_ms, score, rng.randrange(0, 1_800_000))
                    pipe.hset(f"player:{player_id}", mapping={"name": f"racer{index}"})
                    pipe.zadd(f"daily:{{{day}}}:{GAME}:board", {player_id: value})
                    record = orjson.dumps({"race_id": f"r{index:06d}", "scored": True}).decode()
                    pipe.hset(f"daily:{{{day}}}:{GAME}:attempts", player_id, record)
                await pipe.execute()
    finally:
        await client.aclose()
    return players


async def reader(url: str, until: float, top: bool) -> list[float]:
    client = await ArenaClient.connect(url)
    await client.hello(name="reader")
    times: list[float] = []
    while time.perf_counter() < until:
        started = time.perf_counter()
        board = await client.daily_board(GAME, limit=100 if top else 1, offset=0 if top else 5_000)
        times.append((time.perf_counter() - started) * 1000)
        assert board.total > 0
    await client.close()
    return times


async def run(attempts: int, readers: int, seconds: float) -> None:
    with tempfile.TemporaryDirectory() as data:
        redis = EmbeddedRedis(Path(data) / "redis")
        url = redis.start()
        try:
            async with running_node(url, **ROOMY, rate_limit=100_000.0, rate_burst=100_000) as node:
                day = day_of(node.time.now_ms()).isoformat()
                filled = time.perf_counter()
                await fill(url, day, attempts)
                filled = time.perf_counter() - filled
                results = {}
                for label, top in (("top 100", True), ("one entry and its rank, mid-board", False)):
                    until = time.perf_counter() + seconds
                    runs = await asyncio.gather(*(reader(node.url, until, top) for _ in range(readers)))
                    results[label] = [t for r in runs for t in r]
        finally:
            redis.stop()
    print(f"\nA day's board of {attempts:,} attempts ({filled:.1f} s to write)")
    print(f"{readers} readers back to back for {seconds:.0f} s each (pages kept 2 s, as deployed)\n")
    print("| read | reads | reads/s | p50 ms | p99 ms |")
    print("|---|---:|---:|---:|---:|")
    for label, times in results.items():
        print(
            f"| {label} | {len(times)} | {len(times) / seconds:,.0f} | {statistics.median(times):.2f} | "
            f"{percentile(times, 0.99):.2f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=10_000)
    parser.add_argument("--readers", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    asyncio.run(run(args.attempts, args.readers, args.seconds))


if __name__ == "__main__":
    main()

"""Ratings, measured: leaderboard reads with 100,000 rated players in Redis, and the time
to end and rate a finished race of 8 racers.

1. ``--players`` settled ratings are written to Redis as races' ends write them. Then
   clients read the top 100 through a node for ``--seconds``: with the node's page cache
   (as deployed), and with it off (every read goes to Redis); plus one player's own rank.
2. 8 accounts race a rated race; the end (standings, Glicko-2 for 8 racers, and the one
   Lua call that ends the race and writes 8 ratings) is timed ``--races`` times.

Run: ``make bench-ratings`` (or ``.venv/bin/python bench/ratings.py``).
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

import redis.asyncio as aioredis

from bench.assists import ROOMY, percentile
from client.sdk import ArenaClient
from server.app import ArenaServer
from server.features.ratings import new_ratings
from server.redis_embedded import EmbeddedRedis
from shared.protocol import RaceStarted, Standing
from tests.server.conftest import running_node

PASSWORD = "a password for the bench"


async def fill(redis_url: str, players: int, now: int) -> None:
    client = aioredis.from_url(redis_url, decode_responses=True)
    rng = random.Random(1)
    try:
        for start in range(0, players, 5_000):
            async with client.pipeline(transaction=False) as pipe:
                for index in range(start, min(players, start + 5_000)):
                    player_id = f"p_bench{index:06d}"
                    rating = rng.gauss(1500, 250)
                    pipe.hset(
                        f"player:{player_id}", mapping={"name": f"racer{index}", "username": f"racer{index}"}
                    )
                    pipe.hset(
                        f"player:{player_id}:rating:eight-off",
                        mapping={
                            "rating": rating,
                            "rd": 60 + rng.random() * 40,
                            "volatility": 0.06,
                            "games": 40,
                            "last_at": now,
                        },
                    )
                    pipe.zadd("leaderboard:eight-off", {player_id: rating})
                await pipe.execute()
    finally:
        await client.aclose()


async def reader(url: str, until: float) -> list[float]:
    client = await ArenaClient.connect(url)
    await client.hello(name="reader")
    times: list[float] = []
    while time.perf_counter() < until:
        started = time.perf_counter()
        board = await client.leaderboard("eight-off", 0, 100)
        times.append((time.perf_counter() - started) * 1000)
        assert len(board.entries) == 100
    await client.close()
    return times


async def leaderboard_run(url: str, readers: int, seconds: float) -> tuple[int, list[float]]:
    until = time.perf_counter() + seconds
    results = await asyncio.gather(*(reader(url, until) for _ in range(readers)))
    times = [t for r in results for t in r]
    return len(times), times


async def rated_race_end(node: ArenaServer, url: str, racers: int, round_: int) -> float:
    clients = []
    for index in range(racers):
        client = await ArenaClient.connect(url)
        await client.hello(name=f"r{round_}x{index}")
        await client.register(f"rate{round_}x{index}", PASSWORD)
        clients.append(client)
    race = await clients[0].create_race("eight-off", seats=racers, rated=True)
    for client in clients[1:]:
        await client.join_race(race.code)
    for client in clients:
        await client.ready(race.race_id)
    for client in clients:
        await client.wait_for(RaceStarted, lambda e: e.race_id == race.race_id)
    assert node.features is not None
    started = time.perf_counter()
    await node.features.results.end(race.race_id)
    elapsed = (time.perf_counter() - started) * 1000
    for client in clients:
        await client.close()
    return elapsed


def pure_rating_time(racers: int, rounds: int) -> float:
    standings = [
        Standing(rank=i + 1, player_id=f"p{i}", name=f"p{i}", won=False, score=52 - i, move_count=10)
        for i in range(racers)
    ]
    started = time.perf_counter()
    for _ in range(rounds):
        new_ratings(standings, {}, 0)
    return (time.perf_counter() - started) / rounds * 1000


async def run(players: int, readers: int, seconds: float, races: int) -> None:
    with tempfile.TemporaryDirectory() as data:
        redis = EmbeddedRedis(Path(data) / "redis")
        url = redis.start()
        try:
            async with running_node(url, **ROOMY, rate_limit=100_000.0, rate_burst=100_000) as node:
                filled = time.perf_counter()
                await fill(url, players, node.time.now_ms())
                filled = time.perf_counter() - filled
                cached_count, cached = await leaderboard_run(node.url, readers, seconds)
                assert node.features is not None
                node.features.profiles.pages.seconds = 0.0  # every read goes to Redis
                direct_count, direct = await leaderboard_run(node.url, readers, seconds)
                ends = [await rated_race_end(node, node.url, 8, r) for r in range(races)]
        finally:
            redis.stop()
    print(f"\n1. Leaderboard top 100 of {players:,} rated players ({filled:.1f} s to write them)")
    print(f"   {readers} readers back to back (the per-connection message limit raised for them)\n")
    print("| page cache | reads | reads/s | p50 ms | p99 ms |")
    print("|---|---:|---:|---:|---:|")
    for label, count, times in (("2 s (as deployed)", cached_count, cached), ("off", direct_count, direct)):
        print(
            f"| {label} | {count} | {count / seconds:,.0f} | {statistics.median(times):.2f} | "
            f"{percentile(times, 0.99):.2f} |"
        )
    print("\n2. Ending a rated race of 8 racers\n")
    print("| step | ms |")
    print("|---|---:|")
    print(f"| Glicko-2 for 8 racers (7 games each), alone | {pure_rating_time(8, 200):.2f} |")
    print(f"| the whole end through the node, median of {races} | {statistics.median(ends):.2f} |")
    print(f"| the whole end, slowest | {max(ends):.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--readers", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--races", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(run(args.players, args.readers, args.seconds, args.races))


if __name__ == "__main__":
    main()

"""Accounts, measured: what one password hash costs, logins per second through a node,
and racers' move latency while a login flood runs.

1. ``hash_password``/``verify_password`` alone, on one core.
2. Server: racers in pairs move every 20 ms for ``--seconds``; then again while
   ``--flooders`` clients log in back to back (right passwords, each login on a new
   connection, so every one costs a hash). The flooders run in a process of their own,
   so their work does not count against the node's. Move p50/p99 of both runs, logins/s.

Run: ``make bench-accounts`` (or ``.venv/bin/python bench/accounts.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.assists import ROOMY, pair, percentile, racer
from client.sdk import ArenaClient
from server.passwords import hash_password, verify_password
from server.redis_embedded import EmbeddedRedis
from tests.server.conftest import running_node

PASSWORD = "a password for the bench"


def hash_table(rounds: int) -> None:
    started = time.perf_counter()
    stored = ""
    for _ in range(rounds):
        stored = hash_password(PASSWORD)
    hashed = (time.perf_counter() - started) / rounds
    started = time.perf_counter()
    for _ in range(rounds):
        verify_password(PASSWORD, stored)
    verified = (time.perf_counter() - started) / rounds
    print("\n1. One password hash (scrypt n=2^15, r=8, p=1), one core\n")
    print("| call | ms each |")
    print("|---|---:|")
    print(f"| hash_password | {hashed * 1000:.1f} |")
    print(f"| verify_password | {verified * 1000:.1f} |")


async def accounts(url: str, count: int) -> list[str]:
    names = []
    for index in range(count):
        client = await ArenaClient.connect(url)
        await client.hello(name=f"flooder {index}")
        await client.register(f"flood_{index}", PASSWORD)
        await client.close()
        names.append(f"flood_{index}")
    return names


async def flooder(url: str, username: str, until: float) -> int:
    logins = 0
    while time.perf_counter() < until:
        client = await ArenaClient.connect(url)
        try:
            await client.login(username, PASSWORD)
            logins += 1
        finally:
            await client.close()
    return logins


async def flood(url: str, names: list[str], seconds: float) -> None:
    """The flooders' process: log in until ``seconds`` pass; print how many logins."""
    until = time.perf_counter() + seconds
    counts = await asyncio.gather(*(flooder(url, name, until) for name in names))
    print(sum(counts))


async def server_run(url: str, pairs: int, names: list[str], seconds: float) -> tuple[list[float], int]:
    races = [await pair(url) for _ in range(pairs)]
    flooding = None
    if names:
        flooding = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--flood", url, str(seconds), *names, stdout=asyncio.subprocess.PIPE
        )
    until = time.perf_counter() + seconds
    movers = [
        racer(client, race_id, view, until, index * 2 + side)
        for index, (ada, bob, race_id, view) in enumerate(races)
        for side, client in enumerate((ada, bob))
    ]
    results = await asyncio.gather(*movers)
    logins = 0
    if flooding is not None:
        out, _ = await flooding.communicate()
        logins = int(out.decode().strip().splitlines()[-1])
    for ada, bob, _race_id, _view in races:
        await ada.close()
        await bob.close()
    return [x for r in results for x in r], logins


async def server_table(pairs: int, flooders: int, seconds: float) -> None:
    with tempfile.TemporaryDirectory() as data:
        redis = EmbeddedRedis(Path(data) / "redis")
        url = redis.start()
        try:
            async with running_node(url, **ROOMY) as node:
                names = await accounts(node.url, flooders)
                quiet, _ = await server_run(node.url, pairs, [], seconds)
                busy, logins = await server_run(node.url, pairs, names, seconds)
        finally:
            redis.stop()
    print(f"\n2. Server: {pairs * 2} racers moving every 20 ms, {seconds:.0f} s\n")
    print("| run | moves | move p50 ms | move p99 ms | logins | logins/s |")
    print("|---|---:|---:|---:|---:|---:|")
    print(
        f"| no logins | {len(quiet)} | {statistics.median(quiet):.2f} | {percentile(quiet, 0.99):.2f} | 0 | |"
    )
    print(
        f"| {flooders} clients logging in back to back | {len(busy)} | {statistics.median(busy):.2f} | "
        f"{percentile(busy, 0.99):.2f} | {logins} | {logins / seconds:.1f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="hashes timed alone")
    parser.add_argument("--pairs", type=int, default=10, help="racing pairs in the server run")
    parser.add_argument("--flooders", type=int, default=20, help="clients logging in back to back")
    parser.add_argument("--seconds", type=float, default=8.0, help="length of each server run")
    parser.add_argument("--flood", nargs="+", help=argparse.SUPPRESS)  # the flooders' process
    args = parser.parse_args()
    if args.flood:
        url, seconds, *names = args.flood
        asyncio.run(flood(url, names, float(seconds)))
        return
    hash_table(args.rounds)
    asyncio.run(server_table(args.pairs, args.flooders, args.seconds))


if __name__ == "__main__":
    main()

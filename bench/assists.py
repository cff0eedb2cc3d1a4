"""Undo and hints, measured: the engine's cost of keeping moves to undo, a hint's search
time, and what hints asked during races do to the other racers' move latency.

1. Engine: ``play()`` with its undo record against ``undo()``, and the memory an undo
   record keeps per move (tracemalloc over long playouts).
2. Hints offline: :func:`shared.strategies.hint` on positions along random playouts.
3. Server: racers in pairs move every 20 ms (every fifth move an ``undo`` when allowed)
   for ``--seconds``; then the same again while ``--hinters`` more racers each ask for a
   hint as often as allowed (once a second). Move latency p50/p99 of both runs, and the hint latency.

Run: ``make bench-assists`` (or ``.venv/bin/python bench/assists.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from client.errors import ArenaError
from client.sdk import ArenaClient
from server.features.hints import HINT_COOLDOWN
from server.redis_embedded import EmbeddedRedis
from shared import GAMES, Game, new_game
from shared.protocol import BoardView, RaceStarted
from shared.strategies import hint
from tests.server.conftest import running_node

#: Every racer connects from 127.0.0.1: the per-address allowances make room for them.
ROOMY = {"new_player_burst": 1000, "new_player_rate": 1000.0, "connect_burst": 1000, "connect_rate": 1000.0}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def playout(game_id: str, seed: int, moves: int) -> tuple[Game, list[str]]:
    game, rng, played = new_game(game_id, seed), random.Random(seed), []
    for _ in range(moves):
        legal = game.legal_moves()
        if not legal:
            break
        played.append(game.play(rng.choice(legal)).move)
    return game, played


def engine_table(seeds: int) -> None:
    print("\n1. Engine: play() keeps an undo record; undo() takes it back\n")
    print("| game | play()/s | undo()/s | bytes kept per move |")
    print("|---|---:|---:|---:|")
    for game_id in GAMES:
        lines = [playout(game_id, seed, 200)[1] for seed in range(seeds)]
        total = sum(len(line) for line in lines)
        games = [new_game(game_id, seed) for seed in range(seeds)]
        started = time.perf_counter()
        for game, line in zip(games, lines, strict=True):
            for move in line:
                game.play(move)
        played = time.perf_counter() - started
        started = time.perf_counter()
        for game in games:
            while game.can_undo():
                game.undo()
        undone = time.perf_counter() - started
        tracemalloc.start()
        kept = [new_game(game_id, seed) for seed in range(seeds)]
        before = tracemalloc.get_traced_memory()[0]
        for game, line in zip(kept, lines, strict=True):
            for move in line:
                game.play(move)
        grown = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        print(f"| {game_id} | {total / played:,.0f} | {total / undone:,.0f} | {grown / total:,.0f} |")


def hint_table(positions: int) -> None:
    print("\n2. A hint's search, offline (one core)\n")
    print("| game | positions | p50 ms | p95 ms | max ms |")
    print("|---|---:|---:|---:|---:|")
    for game_id in GAMES:
        times: list[float] = []
        for seed in range(positions):
            game, _ = playout(game_id, seed, random.Random(seed).randrange(0, 60))
            started = time.perf_counter()
            hint(game.view(), game.legal_moves())
            times.append((time.perf_counter() - started) * 1000)
        print(
            f"| {game_id} | {positions} | {statistics.median(times):.1f} | "
            f"{percentile(times, 0.95):.1f} | {max(times):.1f} |"
        )


async def pair(url: str) -> tuple[ArenaClient, ArenaClient, str, BoardView]:
    ada = await ArenaClient.connect(url)
    bob = await ArenaClient.connect(url)
    await ada.hello(name="ada", legal_moves=True)
    await bob.hello(name="bob", legal_moves=True)
    race = await ada.create_race("eight-off", time_limit=600.0, hints=True)
    await bob.join_race(race.code)
    await ada.ready(race.race_id)
    await bob.ready(race.race_id)
    started = await ada.wait_for(RaceStarted, lambda e: e.race_id == race.race_id)
    await bob.wait_for(RaceStarted, lambda e: e.race_id == race.race_id)
    return ada, bob, race.race_id, started.view


async def racer(client: ArenaClient, race_id: str, view: BoardView, until: float, seed: int) -> list[float]:
    rng, count = random.Random(seed), 0
    latencies: list[float] = []
    while time.perf_counter() < until:
        count += 1
        legal = view.legal_moves or []
        move = "undo" if (count % 5 == 0 and view.can_undo) or (not legal and view.can_undo) else None
        if move is None:
            if not legal:
                return latencies
            move = rng.choice(legal)
        started = time.perf_counter()
        view = (await client.move(race_id, move)).view
        latencies.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(0.02)
    return latencies


async def hinter(client: ArenaClient, race_id: str, until: float) -> list[float]:
    """Ask for a hint as often as a racer may (once per HINT_COOLDOWN)."""
    latencies: list[float] = []
    while time.perf_counter() < until:
        started = time.perf_counter()
        try:
            await client.hint(race_id)
        except ArenaError as refused:
            print(f"hint refused: {refused}")
            return latencies
        latencies.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(HINT_COOLDOWN + 0.05)
    return latencies


async def server_run(url: str, pairs: int, hinters: int, seconds: float) -> tuple[list[float], list[float]]:
    races = [await pair(url) for _ in range(pairs + (hinters + 1) // 2)]
    until = time.perf_counter() + seconds
    movers = [
        racer(client, race_id, view, until, index * 2 + side)
        for index, (ada, bob, race_id, view) in enumerate(races[:pairs])
        for side, client in enumerate((ada, bob))
    ]
    askers = [
        hinter(client, race_id, until) for ada, bob, race_id, _view in races[pairs:] for client in (ada, bob)
    ][:hinters]
    results = await asyncio.gather(*movers, *askers)
    for ada, bob, _race_id, _view in races:
        await ada.close()
        await bob.close()
    moves = [x for r in results[: len(movers)] for x in r]
    hints = [x for r in results[len(movers) :] for x in r]
    return moves, hints


async def server_table(pairs: int, hinters: int, seconds: float) -> None:
    with tempfile.TemporaryDirectory() as data:
        redis = EmbeddedRedis(Path(data) / "redis")
        url = redis.start()
        try:
            async with running_node(url, **ROOMY) as node:
                quiet, _ = await server_run(node.url, pairs, 0, seconds)
            async with running_node(url, **ROOMY) as node:
                busy, hints = await server_run(node.url, pairs, hinters, seconds)
        finally:
            redis.stop()
    print(f"\n3. Server: {pairs * 2} racers moving every 20 ms (an undo every fifth move), {seconds:.0f} s\n")
    print("| run | moves | move p50 ms | move p99 ms | hints | hint p50 ms | hint p99 ms |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    quiet_p50, quiet_p99 = statistics.median(quiet), percentile(quiet, 0.99)
    print(f"| no hints | {len(quiet)} | {quiet_p50:.2f} | {quiet_p99:.2f} | 0 | | |")
    print(
        f"| {hinters} racers asking a hint a second | {len(busy)} | {statistics.median(busy):.2f} | "
        f"{percentile(busy, 0.99):.2f} | {len(hints)} | {statistics.median(hints):.1f} | "
        f"{percentile(hints, 0.99):.1f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200, help="playouts per game for the engine table")
    parser.add_argument("--positions", type=int, default=40, help="positions per game for the hint table")
    parser.add_argument("--pairs", type=int, default=10, help="racing pairs in the server run")
    parser.add_argument("--hinters", type=int, default=10, help="racers asking a hint every second")
    parser.add_argument("--seconds", type=float, default=8.0, help="length of each server run")
    args = parser.parse_args()
    engine_table(args.seeds)
    hint_table(args.positions)
    asyncio.run(server_table(args.pairs, args.hinters, args.seconds))


if __name__ == "__main__":
    main()

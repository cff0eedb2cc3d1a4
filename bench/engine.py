"""Engine benchmark (issue 2): validated play() calls and legal_moves() calls per second.

For each game: deal seeded games and play random legal moves (recording each move
list), then time (a) replaying those move lists with ``play()`` from fresh deals and
(b) ``legal_moves()`` on positions sampled along the playouts. Single process, one core.

Run: ``make bench`` (or ``.venv/bin/python bench/engine.py [--games N] [--moves N]``).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shared import GAMES, Game, from_position, new_game

PLAY_TARGET = 100_000
LEGAL_TARGET = 20_000
SEED_BASE = 20_000


@dataclass(frozen=True)
class Playout:
    seed: int
    moves: list[str]


@dataclass(frozen=True)
class Result:
    game: str
    games: int
    plays: int
    play_rate: float
    legal_calls: int
    legal_rate: float


def choose(legal: list[str], rng: random.Random) -> str:
    """A random legal move, biased towards progress so that playouts go deep."""
    progress = [m for m in legal if ">f" in m or (m != "deal" and ">" not in m)]
    if progress and rng.random() < 0.6:
        return progress[rng.randrange(len(progress))]
    calm = [m for m in legal if ">r" not in m]
    if calm and rng.random() < 0.85:
        return calm[rng.randrange(len(calm))]
    return legal[rng.randrange(len(legal))]


def make_playouts(game_id: str, games: int, max_moves: int) -> tuple[list[Playout], list[Game]]:
    """Random playouts, and a sample of the positions met along them."""
    rng = random.Random(f"bench:{game_id}")
    playouts: list[Playout] = []
    samples: list[Game] = []
    for i in range(games):
        seed = SEED_BASE + i
        game = new_game(game_id, seed)
        moves: list[str] = []
        for _ in range(max_moves):
            legal = game.legal_moves()
            if not legal:
                break
            if rng.random() < 0.25:
                samples.append(from_position(game.position()))
            move = choose(legal, rng)
            game.play(move)
            moves.append(move)
        playouts.append(Playout(seed, moves))
    return playouts, samples


def time_play(game_id: str, playouts: Sequence[Playout], rounds: int) -> tuple[int, float]:
    """Replay every move list from a fresh deal; only the play() calls are timed."""
    clock = time.perf_counter
    plays = 0
    elapsed = 0.0
    for _ in range(rounds):
        for playout in playouts:
            game = new_game(game_id, playout.seed)
            play = game.play
            start = clock()
            for move in playout.moves:
                play(move)
            elapsed += clock() - start
            plays += len(playout.moves)
    return plays, elapsed


def time_legal_moves(samples: Sequence[Game], rounds: int) -> tuple[int, float]:
    clock = time.perf_counter
    calls = 0
    start = clock()
    for _ in range(rounds):
        for game in samples:
            game.legal_moves()
        calls += len(samples)
    return calls, clock() - start


def bench_game(game_id: str, games: int, max_moves: int, rounds: int) -> Result:
    playouts, samples = make_playouts(game_id, games, max_moves)
    time_play(game_id, playouts[:10], 1)  # warm-up (parse caches, imports)
    plays, play_time = time_play(game_id, playouts, rounds)
    calls, legal_time = time_legal_moves(samples, rounds)
    return Result(game_id, games, plays, plays / play_time, calls, calls / legal_time)


def table(results: Sequence[Result]) -> str:
    head = f"{'game':<11} | {'play()/s':>10} | {'legal_moves()/s':>15} | {'target':>12} | ok?"
    lines = [head, "-" * len(head)]
    for r in results:
        ok = r.play_rate >= PLAY_TARGET and r.legal_rate >= LEGAL_TARGET
        lines.append(
            f"{r.game:<11} | {r.play_rate:>10,.0f} | {r.legal_rate:>15,.0f} | "
            f"{'100k / 20k':>12} | {'ok' if ok else 'MISSED'}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=200, help="playouts per game (default 200)")
    parser.add_argument("--moves", type=int, default=400, help="most moves per playout (default 400)")
    parser.add_argument("--rounds", type=int, default=3, help="timed passes over the playouts (default 3)")
    args = parser.parse_args(argv)
    results = []
    for game_id in GAMES:
        result = bench_game(game_id, args.games, args.moves, args.rounds)
        print(
            f"{game_id}: {args.games} playouts, {result.plays // args.rounds} moves, "
            f"{result.legal_calls // args.rounds} sampled positions",
            flush=True,
        )
        results.append(result)
    print()
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())

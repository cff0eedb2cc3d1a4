"""Solver benchmark: how often :mod:`shared.solver` settles a deal, how fast, and how long
choosing a daily deal takes.

For each game:

1. Deals: the seeds ``--first`` to ``--first + --seeds - 1``, each solved once within
   ``--budget`` positions: the share won (a winning line found, and checked by replaying
   it), proved unwinnable (the search exhausted), and given up (budget spent), with the
   median, 95th percentile and largest time per deal.
2. Days: a daily deal is the first candidate the solver proves winnable. For each of
   ``--days`` simulated days ``d`` the candidates are the seeds ``1000 * d + i`` for ``i``
   from 0, tried in order (at most ``--tries``): how many were tried until one was won,
   and the time that took, averaged over the days (and the worst day's time).

Prints one markdown table, one line per game. Single process, one core.

Run: ``make bench-solver`` (or ``.venv/bin/python bench/solver.py [--seeds N] [--days N]``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shared import GAMES, replay
from shared.solver import Solution, solve_deal

#: Candidate ``i`` of simulated day ``d`` is the seed ``DAY_STRIDE * d + i``.
DAY_STRIDE = 1000


@dataclass(frozen=True)
class Attempt:
    """One deal solved: the solver's answer and the wall time it took."""

    seed: int
    solution: Solution
    ms: float

    @property
    def outcome(self) -> str:
        if self.solution.line is not None:
            return "won"
        return "lost" if self.solution.exhausted else "gave up"


def attempt(game_id: str, seed: int, budget: int) -> Attempt:
    """Solve one deal, timed; a winning line must replay to a won game."""
    start = time.perf_counter()
    solution = solve_deal(game_id, seed, budget)
    ms = (time.perf_counter() - start) * 1000
    if solution.line is not None and not replay(game_id, seed, solution.line).is_won:
        raise AssertionError(f"{game_id} seed {seed}: the line does not win")
    if solution.nodes > budget:
        raise AssertionError(f"{game_id} seed {seed}: {solution.nodes} positions, over the budget")
    return Attempt(seed, solution, ms)


@dataclass(frozen=True)
class Day:
    """One simulated day: candidates tried until one was proved winnable (or none was)."""

    tried: int
    ms: float
    found: bool


def choose_day(game_id: str, day: int, budget: int, tries: int) -> Day:
    """Try the day's candidates in order until the solver wins one."""
    spent = 0.0
    for i in range(tries):
        result = attempt(game_id, DAY_STRIDE * day + i, budget)
        spent += result.ms
        if result.outcome == "won":
            return Day(i + 1, spent, True)
    return Day(tries, spent, False)


def percentile(values: Sequence[float], share: float) -> float:
    """The ``share`` quantile of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


@dataclass(frozen=True)
class Row:
    """One line of the table: a game's deals and days."""

    game: str
    attempts: list[Attempt]
    days: list[Day]

    def share(self, outcome: str) -> str:
        count = sum(a.outcome == outcome for a in self.attempts)
        return f"{100 * count / len(self.attempts):.0f}%"

    def cells(self) -> list[str]:
        times = [a.ms for a in self.attempts]
        found = [d for d in self.days if d.found]
        return [
            self.game,
            str(len(self.attempts)),
            self.share("won"),
            self.share("lost"),
            self.share("gave up"),
            f"{statistics.median(times):.0f}",
            f"{percentile(times, 0.95):.0f}",
            f"{max(times):.0f}",
            f"{statistics.mean(d.tried for d in self.days):.2f}",
            f"{statistics.mean(d.ms for d in self.days):.0f}",
            f"{max(d.ms for d in self.days):.0f}",
            f"{len(found)}/{len(self.days)}",
        ]


def run(games: Sequence[str], first: int, seeds: int, days: int, budget: int, tries: int) -> list[Row]:
    rows = []
    for game_id in games:
        attempts = [attempt(game_id, seed, budget) for seed in range(first, first + seeds)]
        chosen = [choose_day(game_id, day, budget, tries) for day in range(1, days + 1)]
        rows.append(Row(game_id, attempts, chosen))
    return rows


def table(rows: Sequence[Row]) -> str:
    header = [
        "game",
        "deals",
        "won",
        "proved lost",
        "gave up",
        "median ms",
        "p95 ms",
        "max ms",
        "day: candidates",
        "day: mean ms",
        "day: max ms",
        "days found",
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row.cells()) + " |" for row in rows]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=50, help="consecutive deals per game")
    parser.add_argument("--first", type=int, default=1, help="the first seed")
    parser.add_argument("--days", type=int, default=20, help="simulated days per game")
    parser.add_argument("--tries", type=int, default=40, help="candidates per day at most")
    parser.add_argument("--budget", type=int, default=200_000, help="positions per deal")
    parser.add_argument("--games", nargs="+", choices=GAMES, default=list(GAMES))
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows = run(args.games, args.first, args.seeds, args.days, args.budget, args.tries)
    print(table(rows))
    print(
        f"\nseeds {args.first}..{args.first + args.seeds - 1}, budget {args.budget:,} positions; "
        f"days 1..{args.days}: candidates {DAY_STRIDE}*day + 0, 1, ... (at most {args.tries}); "
        f"{time.perf_counter() - start:.0f} s in all"
    )


if __name__ == "__main__":
    main()

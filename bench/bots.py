"""Bot benchmark: how often each strategy wins each game, offline (engine only, no server).

For each game and strategy, plays the same seeded deals (seeds ``SEED_BASE`` to
``SEED_BASE + seeds - 1``) from the strategy's view only: it gets ``Game.view()`` and the
legal moves, never the position (:func:`client.bots.offline.play_deal`). A deal ends
when it is won, when the strategy gives up, when no move is legal, or at the move cap.
Prints one markdown table. Single process, one core.

Run: ``make bench-bots`` (or ``.venv/bin/python bench/bots.py [--seeds N] [--max-moves N]``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from client.bots import RandomStrategy, SearchStrategy, Strategy
from client.bots.offline import Outcome, play_deal
from shared import GAMES

SEED_BASE = 1000
#: Each strategy by name, made fresh for each deal from the deal's seed.
STRATEGIES: dict[str, Callable[[int], Strategy]] = {
    "random": lambda seed: RandomStrategy(seed),
    "search": lambda seed: SearchStrategy(seed),
}


@dataclass(frozen=True)
class Row:
    """One line of the table: how one strategy did on the deals of one game."""

    game: str
    strategy: str
    outcomes: list[Outcome]

    @property
    def wins(self) -> int:
        return sum(outcome.won for outcome in self.outcomes)

    def cells(self) -> list[str]:
        games = len(self.outcomes)
        moves = sum(outcome.moves for outcome in self.outcomes)
        seconds = sum(outcome.seconds for outcome in self.outcomes)
        return [
            self.game,
            self.strategy,
            str(games),
            str(self.wins),
            f"{100 * self.wins / games:.0f}%",
            f"{sum(outcome.score for outcome in self.outcomes) / games:.1f}",
            f"{moves / seconds:,.0f}" if seconds else "-",
        ]


def run(games: Sequence[str], strategies: Sequence[str], seeds: int, max_moves: int) -> list[Row]:
    """Every strategy on the same ``seeds`` deals of every game."""
    rows = []
    for game_id in games:
        for name in strategies:
            make = STRATEGIES[name]
            outcomes = [
                play_deal(game_id, seed, make(seed), max_moves)
                for seed in range(SEED_BASE, SEED_BASE + seeds)
            ]
            rows.append(Row(game_id, name, outcomes))
    return rows


def table(rows: Sequence[Row]) -> str:
    """The rows as a markdown table."""
    header = ["game", "strategy", "games", "wins", "win rate", "mean score", "moves/s"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row.cells()) + " |" for row in rows]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=30, help="deals per game and strategy")
    parser.add_argument("--max-moves", type=int, default=500, help="move cap per deal")
    parser.add_argument("--games", nargs="+", choices=GAMES, default=list(GAMES))
    parser.add_argument("--strategies", nargs="+", choices=list(STRATEGIES), default=list(STRATEGIES))
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows = run(args.games, args.strategies, args.seeds, args.max_moves)
    print(table(rows))
    print(
        f"\nseeds {SEED_BASE}..{SEED_BASE + args.seeds - 1}, move cap {args.max_moves}, "
        f"{time.perf_counter() - start:.0f} s in all"
    )


if __name__ == "__main__":
    main()

"""Playing a deal offline, with the engine alone: for benchmarks and tests of strategies.

The strategy gets only what a racer would: the view and the legal moves.

>>> from shared.strategies.strategy import RandomStrategy
>>> outcome = play_deal("treize", 7, RandomStrategy(seed=7), max_moves=20)
>>> outcome.moves <= 20 and 0 <= outcome.score <= 52
True
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from shared import new_game
from shared.strategies.strategy import Strategy


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one deal went: ``seconds`` is the time spent in the whole loop."""

    won: bool
    score: int
    moves: int
    seconds: float


def play_deal(game_id: str, seed: int, strategy: Strategy, max_moves: int = 500) -> Outcome:
    """Deal ``game_id`` for ``seed`` and let ``strategy`` play it until the deal is won,
    the strategy gives up, no move is legal, or ``max_moves`` moves were played."""
    game = new_game(game_id, seed)
    start = time.perf_counter()
    moves = 0
    while moves < max_moves and not game.is_won:
        legal = game.legal_moves()
        move = strategy.choose(game.view(), legal) if legal else None
        if move is None:
            break
        game.play(move)
        moves += 1
    return Outcome(game.is_won, game.score, moves, time.perf_counter() - start)

"""The engine's entry points: deal a game, load a position, replay a move list.

>>> game = new_game("treize", 42)
>>> game.game_id, game.score
('treize', 0)
>>> replay("treize", 42, ["deal"]).move_count
1
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

# The game modules register their classes in Game.registry when imported.
import shared.eagle_wing
import shared.eight_off
import shared.treize  # noqa: F401
from shared.deal import DEAL_VERSION, shuffled_deck
from shared.errors import IllegalMove
from shared.game import Game, UndoRule
from shared.games import GAMES


def _game_type(game: object) -> type[Game]:
    if not isinstance(game, str) or game not in Game.registry:
        raise ValueError(f"unknown game {game!r}; games are {', '.join(GAMES)}")
    return Game.registry[game]


def new_game(
    game: str, seed: int, deal_version: int = DEAL_VERSION, undo_rule: UndoRule = UndoRule.UNLIMITED
) -> Game:
    """The deal of ``game`` for ``seed``: the same on every platform and Python version."""
    kind = _game_type(game)
    board = kind.deal(shuffled_deck(game, seed, deal_version))
    board.undo_rule = undo_rule
    return board


@cache
def dealt_home(game: str) -> int:
    """The cards every deal of ``game`` puts home, its score before any move: Eagle Wing's
    base card on f1, none in the other games.

    >>> [dealt_home(g) for g in ("eagle-wing", "treize", "eight-off")]
    [1, 0, 0]
    """
    return new_game(game, 0).score


def from_position(data: dict[str, Any], move_count: int = 0) -> Game:
    """A game from the position dict of docs/rules.md; a bad dict raises ``ValueError``."""
    if not isinstance(data, dict):
        raise ValueError("a position is a dict")
    return _game_type(data.get("game")).from_position(data, move_count=move_count)


def replay(
    game: str,
    seed: int,
    moves: Iterable[str],
    deal_version: int = DEAL_VERSION,
    undo_rule: UndoRule = UndoRule.UNLIMITED,
) -> Game:
    """Re-deal and play ``moves`` in order (``undo`` among them takes the previous move
    back); the first bad move raises with its index."""
    board = new_game(game, seed, deal_version, undo_rule)
    for index, move in enumerate(moves):
        try:
            board.play(move)
        except IllegalMove as exc:
            raise type(exc)(exc.reason, move=str(move), index=index) from None
    return board

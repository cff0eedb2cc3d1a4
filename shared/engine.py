"""The engine's entry points: deal a game, load a position, replay a move list.

>>> game = new_game("treize", 42)
>>> game.game_id, game.score
('treize', 0)
>>> replay("treize", 42, ["deal"]).move_count
1
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from shared.deal import DEAL_VERSION, shuffled_deck
from shared.eagle_wing import EagleWing
from shared.eight_off import EightOff
from shared.errors import IllegalMove
from shared.game import Game
from shared.treize import Treize

GAMES: Final = ("eagle-wing", "treize", "eight-off")
GAME_TYPES: Final[dict[str, type[EagleWing] | type[Treize] | type[EightOff]]] = {
    "eagle-wing": EagleWing,
    "treize": Treize,
    "eight-off": EightOff,
}


def _game_type(game: object) -> type[EagleWing] | type[Treize] | type[EightOff]:
    if not isinstance(game, str) or game not in GAME_TYPES:
        raise ValueError(f"unknown game {game!r}; games are {', '.join(GAMES)}")
    return GAME_TYPES[game]


def new_game(game: str, seed: int, deal_version: int = DEAL_VERSION) -> Game:
    """The deal of ``game`` for ``seed``: the same on every platform and Python version."""
    kind = _game_type(game)
    return kind.deal(shuffled_deck(game, seed, deal_version))


def from_position(data: dict[str, Any], move_count: int = 0) -> Game:
    """A game from the position dict of RULES.md; a bad dict raises ``ValueError``."""
    if not isinstance(data, dict):
        raise ValueError("a position is a dict")
    return _game_type(data.get("game")).from_position(data, move_count=move_count)


def replay(game: str, seed: int, moves: Iterable[str], deal_version: int = DEAL_VERSION) -> Game:
    """Re-deal and play ``moves`` in order; the first bad move raises with its index."""
    board = new_game(game, seed, deal_version)
    for index, move in enumerate(moves):
        try:
            board.play(move)
        except IllegalMove as exc:
            raise IllegalMove(exc.reason, move=str(move), index=index) from None
    return board

"""The shapes of what the engine hands out: a player's view of a board, and what a move
changed. Plain dicts at run time (the wire format), typed here for the type checker.

Keys are listed in the order the engine builds them, which is the order on the wire.

>>> from shared import new_game
>>> list(new_game("treize", 1).view())
['game', 'piles', 'score', 'won', 'move_count']
"""

# No ``from __future__ import annotations`` here: Python 3.11 reads NotRequired from
# a TypedDict's real annotations only, and __optional_keys__ must be right at run time.
from typing import NotRequired, TypedDict

from shared.games import GameName


class PileView(TypedDict):
    """A pile as the player sees it: ``count`` cards, of which ``cards`` are face up."""

    count: int
    cards: list[str]


class GameView(TypedDict):
    """What ``Game.view()`` returns: a whole board with no face-down card.

    ``base_rank`` and ``redeals_left`` are Eagle Wing's only, and come after ``piles``.
    """

    game: GameName
    piles: dict[str, PileView]
    base_rank: NotRequired[str]
    redeals_left: NotRequired[int]
    score: int
    won: bool
    move_count: int


class MoveResultDict(TypedDict):
    """What ``MoveResult.to_dict()`` returns. Each step is ``[card, src, dst]``; ``card``
    is ``None`` for a card moved face down (a redeal)."""

    move: str
    steps: list[list[str | None]]
    score_delta: int
    score: int
    won: bool

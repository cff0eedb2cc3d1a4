"""The shapes of what the engine hands out: a player's view of a board, and what a move
changed. Plain dicts at run time (the wire format), typed here for the type checker.

Keys are listed in the order the engine builds them, which is the order on the wire.

>>> from shared import new_game
>>> list(new_game("treize", 1).view())
['game', 'piles', 'score', 'won', 'move_count']
"""

# No ``from __future__ import annotations`` here: Python 3.11 reads NotRequired from
# a TypedDict's real annotations only, and __optional_keys__ must be right at run time.
from typing import Any, NotRequired, TypedDict

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


def merged_view(before: GameView | dict[str, Any], changed: GameView | dict[str, Any]) -> dict[str, Any]:
    """A changed view (``Game.changed_view``: only the piles a move changed) laid over the
    whole view before that move: the whole view after it.

    >>> before = {"game": "treize", "piles": {"stock": {"count": 2, "cards": []},
    ...     "waste": {"count": 0, "cards": []}}, "score": 0, "won": False, "move_count": 0}
    >>> after = merged_view(before, {"game": "treize", "piles": {"stock": {"count": 1, "cards": []},
    ...     "waste": {"count": 1, "cards": ["7H"]}}, "score": 0, "won": False, "move_count": 1})
    >>> after["piles"]["waste"], after["move_count"]
    ({'count': 1, 'cards': ['7H']}, 1)
    """
    return {**changed, "piles": {**before["piles"], **changed["piles"]}}

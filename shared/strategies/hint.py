"""A hint: a good next move for a racer's board, chosen from what the racer sees.

It runs the bots' :class:`~shared.strategies.search.SearchStrategy` on the view alone,
with a fixed seed: the hint is a function of the view, so two deals that differ only in
face-down cards get the same hint, and asking twice gives the same answer.

>>> from shared import new_game
>>> game = new_game("eight-off", 3)
>>> hint(game.view()) in game.legal_moves()
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from shared.knowledge import view_legal_moves
from shared.strategies.search import SearchStrategy
from shared.strategies.strategy import distinct_moves

#: The search's seed: fixed, so that a hint depends on nothing but the view.
HINT_SEED: Final = 13
#: Positions searched when nothing is hidden, and guessed deals when cards are.
HINT_BUDGET: Final = 200
HINT_SAMPLES: Final = 3


def hint(view: Mapping[str, Any], legal: list[str] | None = None) -> str | None:
    """A good legal move for the board ``view`` shows, or ``None`` when no move is legal.

    ``legal`` is the view's legal moves when the caller has them (they never depend on
    hidden cards); they are worked out from the view otherwise.
    """
    moves = view_legal_moves(view) if legal is None else legal
    if not moves:
        return None
    search = SearchStrategy(seed=HINT_SEED, budget=HINT_BUDGET, samples=HINT_SAMPLES)
    chosen = search.choose(view, moves)
    if chosen is not None:
        return chosen
    # Every move leads back to this very position or nowhere better: still a legal move.
    return distinct_moves(view, moves)[0]

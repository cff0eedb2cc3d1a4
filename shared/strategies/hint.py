"""A hint: a good next move for a racer's board, chosen from what the racer sees.

It runs the bots' :class:`~shared.strategies.search.SearchStrategy` on the view alone,
with a fixed seed and without its solver (a hint is the search's best-looking move, not
a step of a winning line worked out in full): the hint is a function of the view (and
of the positions the racer has already been through), so two deals that differ only in
face-down cards get the same hint, and asking twice gives the same answer.

A hint never leads back to a position reached before in the game (``reached``, from
:func:`reached_keys`): following the hints never goes round in circles. When every legal
move would, or none is left, there is no hint (``None``).

>>> from shared import new_game
>>> game = new_game("eight-off", 3)
>>> hint(game.view()) in game.legal_moves()
True
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Mapping
from typing import Any, Final

from shared.engine import new_game
from shared.errors import IllegalMove
from shared.knowledge import view_key, view_legal_moves
from shared.strategies.search import SearchStrategy

#: The search's seed: fixed, so that a hint depends on nothing but the view.
HINT_SEED: Final = 13
#: Positions searched when nothing is hidden, and guessed deals when cards are.
HINT_BUDGET: Final = 200
HINT_SAMPLES: Final = 3


def hint(
    view: Mapping[str, Any], legal: list[str] | None = None, reached: Collection[Hashable] = ()
) -> str | None:
    """A good legal move for the board ``view`` shows, or ``None`` when no move is legal
    or every one leads back to a position already reached.

    ``legal`` is the view's legal moves when the caller has them (they never depend on
    hidden cards); they are worked out from the view otherwise. ``reached`` holds the
    :func:`~shared.knowledge.view_key` of every position reached earlier in the game.
    """
    moves = view_legal_moves(view) if legal is None else legal
    if not moves:
        return None
    search = SearchStrategy(seed=HINT_SEED, budget=HINT_BUDGET, samples=HINT_SAMPLES, solver_budget=0)
    return search.choose(view, moves, reached=reached)


def reached_keys(game: str, seed: int, moves: Iterable[str]) -> set[Hashable]:
    """The :func:`~shared.knowledge.view_key` of every position of the deal of ``game``
    for ``seed`` as ``moves`` (a racer's accepted moves, ``undo`` among them) went
    through, the deal's and the last one's included. A move the engine refuses (it never
    should) ends the list there.

    >>> game = new_game("eight-off", 3)
    >>> first = game.legal_moves()[0]
    >>> len(reached_keys("eight-off", 3, [first, "undo"]))
    2
    """
    board = new_game(game, seed)
    keys = {view_key(board.view())}
    for move in moves:
        try:
            board.play(move)
        except IllegalMove:
            break
        keys.add(view_key(board.view()))
    return keys

"""The legal moves of the board a racer sees.

The server sends them with a view when asked (``BoardView.legal_moves``: always in
``race_started``, and in every view of a session that asked at ``hello``). Otherwise
they are worked out here from the view alone: the seed is secret during a race, so the
client rebuilds *a* position that looks exactly like the view (foundations filled in
from their top card, unseen cards in the face-down places) and asks the engine. Hidden
cards never decide which moves are legal in these three games, so the list is exact.

>>> from shared import new_game
>>> from shared.protocol import BoardView
>>> game = new_game("eagle-wing", 5)
>>> legal_moves(BoardView.model_validate(game.view())) == game.legal_moves()
True
"""

from __future__ import annotations

from typing import Any, Final

from shared import FULL_DECK, RANKS, from_position
from shared.eagle_wing import MAX_REDEALS
from shared.protocol import BoardView

FOUNDATIONS: Final = frozenset({"f1", "f2", "f3", "f4"})


def legal_moves(view: BoardView) -> list[str]:
    """Every legal move of ``view``, canonical and sorted; ``[]`` if the view cannot be
    read as a position (a view from a newer server, say)."""
    if view.legal_moves is not None:
        return list(view.legal_moves)
    position = position_like(view)
    if position is None:
        return []
    try:
        return from_position(position).legal_moves()
    except ValueError:
        return []


def _foundation(top: str, count: int, first: int) -> list[str] | None:
    """The ``count`` cards of a foundation that builds up in ``top``'s suit from the
    value ``first`` (round the corner) to ``top``; ``None`` if they do not end there."""
    cards = [RANKS[(first - 1 + i) % 13] + top[1] for i in range(count)]
    return cards if cards[-1] == top else None


def position_like(view: BoardView) -> dict[str, Any] | None:
    """A full position that the player could be looking at in ``view``, or ``None``."""
    base = RANKS.index(view.base_rank) + 1 if view.base_rank in tuple(RANKS) else 1
    piles: dict[str, list[str]] = {}
    hidden: dict[str, int] = {}
    for name, pile in view.piles.items():
        missing = pile.count - len(pile.cards)
        if missing < 0:
            return None
        if missing and name in FOUNDATIONS and pile.cards:
            built = _foundation(pile.cards[-1], pile.count, base)
            if built is None:
                return None
            piles[name] = built
        else:
            piles[name] = list(pile.cards)
            hidden[name] = missing
    seen = {card for cards in piles.values() for card in cards}
    unseen = [card for card in FULL_DECK if card not in seen]
    for name, count in hidden.items():
        piles[name] = [*unseen[:count], *piles[name]]
        unseen = unseen[count:]
    position: dict[str, Any] = {"game": view.game, "piles": piles}
    if view.game == "eagle-wing":
        left = view.redeals_left if view.redeals_left is not None else MAX_REDEALS
        position["redeals_used"] = MAX_REDEALS - left
    return position

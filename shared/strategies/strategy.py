"""What a strategy is, the random one, and move pruning every strategy may use.

A strategy looks at a racer's view (``Game.view()`` or a wire ``BoardView`` dumped as a
dict) and the legal moves, and picks one, or ``None`` to give up. It sees nothing else:
never a hidden card.

>>> from shared import new_game
>>> game = new_game("eight-off", 1)
>>> move = RandomStrategy(seed=1).choose(game.view(), game.legal_moves())
>>> move in game.legal_moves()
True
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol

#: ``src>dst`` or ``src:k>dst``.
_TRANSFER: Final = re.compile(r"^([a-z]+\d*)(?::(\d+))?>([a-z]+\d*)$")


class Strategy(Protocol):
    """Chooses moves from what a racer sees."""

    #: A short name (``random``, ``search``) for bot names and reports.
    name: str

    def choose(self, view: Mapping[str, Any], legal: Sequence[str]) -> str | None:
        """One of ``legal`` for the board ``view`` shows, or ``None`` to give up."""
        ...


class RandomStrategy:
    """A uniformly random legal move, from its own seeded generator; never gives up
    while a move is legal."""

    name = "random"

    def __init__(self, seed: int | str = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: Mapping[str, Any], legal: Sequence[str]) -> str | None:
        if not legal:
            return None
        return legal[self.rng.randrange(len(legal))]


def _kind(pile: str) -> str:
    """The kind of a pile: its name without the number (``t3`` is a ``t``)."""
    return pile.rstrip("0123456789")


def distinct_moves(view: Mapping[str, Any], legal: Sequence[str]) -> list[str]:
    """``legal`` without moves that change nothing a racer cares about, in order.

    Empty piles of one kind are interchangeable, so of the moves sending the same cards to
    an empty pile of one kind only the first stays (``t1>r5`` when ``t1>r3`` is there too);
    and a move carrying a whole pile onto an empty pile of the same kind only renames the
    pile (``r1>r2``, a whole run from ``t3`` to an empty ``t5``), so it goes.
    """
    counts = {name: int(pile["count"]) for name, pile in view["piles"].items()}
    kept: list[str] = []
    seen: set[tuple[str, str, str]] = set()
    for move in legal:
        match = _TRANSFER.match(move)
        if match is None:
            kept.append(move)
            continue
        src, k, dst = match.group(1), int(match.group(2) or 1), match.group(3)
        if counts.get(dst, -1) != 0:
            kept.append(move)
            continue
        if _kind(src) == _kind(dst) and counts.get(src) == k:
            continue
        key = (src, str(k), _kind(dst))
        if key not in seen:
            seen.add(key)
            kept.append(move)
    return kept

"""Building a move by picking a card, then where it goes (keyboard or mouse).

Pure: given the legal moves of the position, what picking a card means. A :class:`Pick`
names a card by its pile's name in the move notation and how many cards from the top it
takes (``t3`` depth 2 is the top two cards of ``t3``).

>>> legal = ["deal", "t1>f1", "t1>t3", "t2:2>t4"]
>>> step = activate(legal, None, Pick("t1"))
>>> step.selected, sorted(targets(legal, step.selected))
(Pick(name='t1', depth=1), ['f1', 't3'])
>>> activate(legal, step.selected, Pick("t3")).move
't1>t3'
>>> activate(legal, None, Pick("stock")).move
'deal'
>>> activate(["p1+p2", "p7"], None, Pick("p7")).move
'p7'

A hint lights up the card(s) its move takes and where they go:

>>> hinted("t2:2>t4")
((Pick(name='t2', depth=2),), frozenset({'t4'}))
>>> [pick.name for pick in hinted("p22+wt")[0]], hinted("deal")[0]
(['p22', 'wt'], (Pick(name='stock', depth=1),))
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from shared import BadNotation, Move, parse_move


@dataclass(frozen=True, slots=True)
class Pick:
    """A card on the board: its pile's notation name and how deep (1 = the top card)."""

    name: str
    depth: int = 1


@dataclass(frozen=True, slots=True)
class Step:
    """What picking did: a move to play, or the new selection (``None``: nothing
    selected), and a note for the status line."""

    move: str | None = None
    selected: Pick | None = None
    note: str = ""


@functools.lru_cache(maxsize=4096)
def _parsed(move: str) -> Move | None:
    try:
        return parse_move(move)
    except BadNotation:
        return None


def _moves(legal: Iterable[str]) -> list[tuple[str, Move]]:
    parsed = ((text, _parsed(text)) for text in legal)
    return [(text, move) for text, move in parsed if move is not None]


def _from(legal: Iterable[str], pick: Pick) -> list[tuple[str, Move]]:
    """The legal moves that start with the picked card(s)."""
    found = []
    for text, move in _moves(legal):
        if (move.kind == "move" and move.src == pick.name and move.count == pick.depth) or (
            move.kind == "remove" and pick.depth == 1 and pick.name in (move.src, move.dst)
        ):
            found.append((text, move))
    return found


def depths(legal: Iterable[str], name: str) -> list[int]:
    """The group sizes that can leave pile ``name``, smallest first."""
    found = {move.count for _, move in _moves(legal) if move.kind == "move" and move.src == name}
    if any(move.kind == "remove" and name in (move.src, move.dst) for _, move in _moves(legal)):
        found.add(1)
    return sorted(found)


def targets(legal: Iterable[str], pick: Pick | None) -> frozenset[str]:
    """Where the picked card(s) may go: piles, or the cards a Treize card pairs with
    (itself, for a King that goes alone)."""
    if pick is None:
        return frozenset()
    names: set[str] = set()
    for _, move in _from(legal, pick):
        if move.kind == "move":
            names.add(move.dst)
        else:
            names.add(move.dst if move.src == pick.name else move.src)
            if not move.dst:
                names.add(pick.name)
    return frozenset(names)


def _move_between(legal: Iterable[str], pick: Pick, target: str) -> str | None:
    for text, move in _from(legal, pick):
        if move.kind == "move" and move.dst == target:
            return text
        if move.kind == "remove":
            if not move.dst and target == pick.name:
                return text
            if move.dst and target in (move.src, move.dst) and target != pick.name:
                return text
    return None


def _deal(legal: Sequence[str]) -> Step:
    for move in ("deal", "redeal"):
        if move in legal:
            return Step(move=move)
    return Step(note="the stock cannot be dealt now")


def activate(legal: Sequence[str], selected: Pick | None, picked: Pick) -> Step:
    """What picking ``picked`` does while ``selected`` is selected.

    The stock deals (or redeals). With nothing selected, a card that can move becomes
    the selection, and a Treize King that may go alone is removed at once. With a
    selection, a target completes the move; the selected pile again takes one more card
    (a group move), or drops the selection once no bigger group can move; any other
    card that can move becomes the selection instead.
    """
    if picked.name == "stock":
        return _deal(legal)
    if selected is not None:
        if picked.name == selected.name:
            bigger = [d for d in depths(legal, selected.name) if d > selected.depth]
            if picked.depth != selected.depth and picked.depth in depths(legal, picked.name):
                return Step(selected=picked, note=_describe(picked))
            move = _move_between(legal, selected, picked.name)
            if move is not None:
                return Step(move=move)
            if bigger:
                grown = Pick(selected.name, bigger[0])
                return Step(selected=grown, note=_describe(grown))
            return Step(note="selection cleared")
        move = _move_between(legal, selected, picked.name)
        if move is not None:
            return Step(move=move)
    moves = _from(legal, picked)
    if not moves:
        if selected is not None:
            return Step(selected=selected, note=f"{_describe(selected)} cannot go to {picked.name}")
        return Step(note=f"nothing can move from {picked.name} now")
    alone = [text for text, move in moves if move.kind == "remove" and not move.dst]
    if alone and len(moves) == 1:
        return Step(move=alone[0])
    return Step(selected=picked, note=_describe(picked))


def _describe(pick: Pick) -> str:
    if pick.depth == 1:
        return f"{pick.name} selected: pick where it goes"
    return f"top {pick.depth} cards of {pick.name} selected: pick where they go"


def hinted(move: str | None) -> tuple[tuple[Pick, ...], frozenset[str]]:
    """The cards a (hinted) move takes and the piles they go to; nothing for ``None``
    or notation that cannot be read."""
    parsed = _parsed(move) if move else None
    if parsed is None:
        return (), frozenset()
    if parsed.kind in ("deal", "redeal"):
        return (Pick("stock"),), frozenset()
    if parsed.kind == "move":
        return (Pick(parsed.src, parsed.count),), frozenset({parsed.dst})
    if parsed.kind == "remove":
        pair = (Pick(parsed.dst),) if parsed.dst else ()
        return (Pick(parsed.src), *pair), frozenset()
    return (), frozenset()

"""How good a position looks, one score function per game, higher is better.

They read a whole ``Game``: the search calls them on determinized games (whose hidden
cards are a random guess), never on the real board. Cards on the foundations (or
removed, in Treize) weigh most; the rest rewards room to work (empty cells and columns),
mobility (legal moves) and cards the foundations need soon lying near the top.

>>> from shared import new_game
>>> game = new_game("treize", 4)
>>> before = evaluate(game, len(game.legal_moves()))
>>> _ = game.play(next(m for m in game.legal_moves() if m != "deal"))  # two cards go
>>> evaluate(game, len(game.legal_moves())) > before
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from shared import Game
from shared.cards import SUITS, VALUE
from shared.treize import COVERED_BY, PYRAMID

FOUNDATIONS: Final = ("f1", "f2", "f3", "f4")
TABLEAU: Final = ("t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8")
CELLS: Final = ("r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8")

#: The weight of one card on a foundation (or removed): every other term is smaller.
CARD: Final = 100.0


def _needs(game: Game, first: int) -> dict[str, int]:
    """The value each suit's foundation needs next (``first`` for a suit not started)."""
    needs = dict.fromkeys(SUITS, first)
    for name in FOUNDATIONS:
        pile = game.piles[name]
        if pile:
            needs[pile[-1][1]] = VALUE[pile[-1]] % 13 + 1
    return needs


def _in_suit_below(lower: str, upper: str) -> bool:
    return lower[1] == upper[1] and VALUE[lower] == VALUE[upper] % 13 + 1


def eight_off(game: Game, mobility: int) -> float:
    """Foundation cards; free cells and empty columns; next-needed cards not buried; piles
    that are clean runs (nothing out of order on them)."""
    piles = game.piles
    score = sum(len(piles[f]) for f in FOUNDATIONS)
    free_cells = sum(1 for r in CELLS if not piles[r])
    empty_columns = sum(1 for t in TABLEAU if not piles[t])
    needs = _needs(game, 1)
    buried = 0
    disorder = 0
    for name in TABLEAU:
        pile = piles[name]
        height = len(pile)
        for index, card in enumerate(pile):
            gap = VALUE[card] - needs[card[1]]
            if 0 <= gap <= 2:
                buried += (height - 1 - index) * (3 - gap)
            if index and not (pile[index - 1][1] == card[1] and VALUE[pile[index - 1]] == VALUE[card] + 1):
                disorder += 1
        if pile and VALUE[pile[0]] != 13:
            disorder += 1
    return (
        CARD * score
        + 12.0 * free_cells
        + 20.0 * empty_columns
        - 2.0 * buried
        - 3.0 * disorder
        + 0.5 * mobility
    )


def eagle_wing(game: Game, mobility: int) -> float:
    """Foundation cards; few cards left in the reserve, then in the stock and waste (a
    tableau card is at hand, since piles build down as foundations build up); next-needed
    cards near the top of the tableau; empty piles; redeals kept in hand."""
    piles = game.piles
    score = sum(len(piles[f]) for f in FOUNDATIONS)
    needs = _needs(game, VALUE[piles["f1"][0]])
    buried = 0
    empty = 0
    for name in TABLEAU:
        pile = piles[name]
        empty += not pile
        for index, card in enumerate(pile):
            if VALUE[card] == needs[card[1]]:
                buried += len(pile) - 1 - index
    reserve = len(piles["reserve"])
    dealt = len(piles["stock"]) + len(piles["waste"])
    redeals_left = 2 - int(getattr(game, "redeals_used", 0))
    return (
        CARD * score
        - 6.0 * reserve
        - 2.0 * dealt
        - 4.0 * buried
        + 3.0 * empty
        + 10.0 * redeals_left
        + 0.5 * mobility
    )


def _lying_on() -> dict[str, frozenset[str]]:
    """Each Treize pyramid slot and every slot whose card lies on it, however high up."""
    above: dict[str, frozenset[str]] = {}
    for name in reversed(list(COVERED_BY)):
        left, right = COVERED_BY[name]
        above[name] = frozenset({left, right}) | above.get(left, frozenset()) | above.get(right, frozenset())
    return above


_LYING_ON: Final = _lying_on()


def treize(game: Game, mobility: int) -> float:
    """Removed cards; pyramid cards uncovered above the bottom row; few cards between the
    waste's two ends (they are reached only once an end is gone); no pyramid card locked,
    that is with every partner still in play lying on it (the game is then lost: ranks
    ``v`` and ``13 - v`` leave in pairs, so such a card can never go)."""
    piles = game.piles
    where: dict[int, list[str]] = {}
    for name in ("stock", "waste"):
        for card in piles[name]:
            where.setdefault(VALUE[card], []).append(name)
    for name in PYRAMID:
        if piles[name]:
            where.setdefault(VALUE[piles[name][0]], []).append(name)
    uncovered = locked = 0
    for name, (left, right) in COVERED_BY.items():
        uncovered += bool(piles[name]) and not piles[left] and not piles[right]
    for name, above in _LYING_ON.items():
        pile = piles[name]
        if pile and VALUE[pile[0]] != 13:
            partners = where.get(13 - VALUE[pile[0]], [])
            locked += all(place in above for place in partners)
    trapped = max(0, len(piles["waste"]) - 3)
    return CARD * game.score + 3.0 * uncovered - 4.0 * trapped - 150.0 * locked + 1.0 * mobility


EVALUATORS: Final[dict[str, Callable[[Game, int], float]]] = {
    "eight-off": eight_off,
    "eagle-wing": eagle_wing,
    "treize": treize,
}


def evaluate(game: Game, mobility: int) -> float:
    """How good ``game`` looks to its game's score function; ``mobility`` is the number of
    its legal moves (the caller usually has them already)."""
    return EVALUATORS[game.game_id](game, mobility)

"""Treize, as GNOME Aisleriot plays it (docs/rules.md, "Treize").

>>> from shared.deal import shuffled_deck
>>> game = Treize.deal(shuffled_deck("treize", 1))
>>> len(game.piles["stock"]), game.score
(24, 0)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final, Self

from shared.cards import KING, VALUE
from shared.errors import BadNotation, RuleViolation
from shared.game import REMOVED, Game, MoveResult, Step, pile_error
from shared.moves import Move
from shared.views import GameView, PileView

ROWS: Final = 7
PYRAMID: Final = tuple(f"p{i}" for i in range(1, 29))
PILES: Final = ("stock", "waste", *PYRAMID)
STOCK_SIZE: Final = 24
WASTE_NAMES: Final = ("wb", "wu", "wt")
_NAMES: Final = frozenset(PYRAMID) | frozenset(WASTE_NAMES)
#: Canonical order inside a pair: pyramid by index, then wb, wu, wt.
_ORDER: Final = {**{name: i for i, name in enumerate(PYRAMID)}, "wb": 100, "wu": 101, "wt": 102}


def _covers() -> dict[str, tuple[str, str]]:
    """Each pyramid pile of rows 1-6 and the two piles of the next row that cover it."""
    covers: dict[str, tuple[str, str]] = {}
    index = 0
    for row in range(1, ROWS):
        for _ in range(row):
            below = index + row  # same position, next row
            covers[PYRAMID[index]] = (PYRAMID[below], PYRAMID[below + 1])
            index += 1
    return covers


COVERED_BY: Final = _covers()


class Treize(Game):
    game_id = "treize"
    pile_names = PILES

    def __init__(self, piles: dict[str, list[str]], move_count: int = 0) -> None:
        super().__init__(piles, move_count)
        self._derive()

    def _derive(self) -> None:
        self._present = sum(len(pile) for pile in self.piles.values())

    @classmethod
    def deal(cls, deck: list[str]) -> Self:
        """Deal p1..p28 face up in order, then the other 24 face down to the stock."""
        piles: dict[str, list[str]] = {name: [] for name in PILES}
        for i, name in enumerate(PYRAMID):
            piles[name] = [deck[i]]
        piles["stock"] = deck[len(PYRAMID) :]
        return cls(piles)

    # ----- availability ----------------------------------------------------------

    def _exposed(self, name: str) -> bool:
        piles = self.piles
        if not piles[name]:
            return False
        cover = COVERED_BY.get(name)
        return cover is None or not (piles[cover[0]] or piles[cover[1]])

    def _card_at(self, name: str) -> str:
        """The card ``name`` names, or a rejection saying why it is not available."""
        piles = self.piles
        if name in WASTE_NAMES:
            waste = piles["waste"]
            need = {"wb": 1, "wt": 2, "wu": 3}[name]
            if len(waste) < need:
                raise self._waste_error(name, len(waste))
            return waste[{"wb": 0, "wt": -1, "wu": -2}[name]]
        pile = piles[name]
        if not pile:
            raise RuleViolation(f"{name} is already removed")
        cover = COVERED_BY.get(name)
        if cover is not None:
            blocking = [c for c in cover if piles[c]]
            if blocking:
                raise RuleViolation(f"{name} ({pile[0]}) is covered by {' and '.join(blocking)}")
        return pile[0]

    @staticmethod
    def _waste_error(name: str, size: int) -> RuleViolation:
        if size == 0:
            return RuleViolation("the waste is empty")
        if name == "wt":
            return RuleViolation("the waste holds one card: it is wb, not wt")
        return RuleViolation(f"wu needs 3 or more cards on the waste; it holds {size}")

    # ----- moves -----------------------------------------------------------------

    def _check_names(self, move: Move) -> None:
        if move.kind == "redeal":
            raise RuleViolation("treize has no redeal")
        if move.kind == "move":
            if move.src in _NAMES and move.count == 1 and move.dst.rstrip("0123456789") == "f":
                self._refuse_sent_home(move)
            raise BadNotation("treize removes cards: a King alone (p25, wt) or a pair making 13 (p9+wt)")
        if move.kind == "remove":
            for name in (move.src, move.dst):
                if name and name not in _NAMES:
                    raise pile_error(name, ("p1..p28", "wb", "wu", "wt"), self.game_id)
            if move.src == move.dst:
                raise RuleViolation(f"{move.src} cannot pair with itself")

    def _refuse_sent_home(self, move: Move) -> None:
        """``p7>f``, a card sent home as in the other games (a board's "send home" key):
        why that card cannot go (covered, removed, not a King) before the notation."""
        card = self._card_at(move.src)
        if VALUE[card] != KING:
            raise RuleViolation(f"{card} is not a King: only Kings are removed alone")
        raise BadNotation(f"treize removes a King alone: {move.src}, not {move}")

    def _apply(self, move: Move) -> MoveResult:
        if move.kind == "deal":
            return self._deal_one()
        names = (move.src, move.dst) if move.dst else (move.src,)
        if "wu" in names and (len(names) == 1 or "wt" not in names):
            raise RuleViolation("wu is available only to pair with wt")
        cards = [self._card_at(name) for name in names]
        if len(cards) == 1:
            if VALUE[cards[0]] != KING:
                raise RuleViolation(f"{cards[0]} is not a King: only Kings are removed alone")
        else:
            total = VALUE[cards[0]] + VALUE[cards[1]]
            if total != 13:
                raise RuleViolation(f"{cards[0]} and {cards[1]} make {total}, not 13")
        ordered = sorted(zip(names, cards, strict=True), key=lambda nc: _ORDER[nc[0]])
        self._remove([name for name, _ in ordered])
        self._present -= len(ordered)
        steps = tuple(Step(card, name, REMOVED) for name, card in ordered)
        canonical = "+".join(name for name, _ in ordered)
        return MoveResult(canonical, steps, len(ordered), self.score, self.is_won)

    def _remove(self, names: list[str]) -> None:
        piles = self.piles
        waste = piles["waste"]
        if "wt" in names:
            waste.pop()
        if "wu" in names:
            waste.pop()  # wu pairs only with wt: once wt is gone, wu is the newest card
        if "wb" in names:
            waste.pop(0)
        for name in names:
            if name.startswith("p"):
                piles[name].clear()

    def _deal_one(self) -> MoveResult:
        stock = self.piles["stock"]
        if not stock:
            raise RuleViolation("the stock is empty, and treize has no redeal")
        card = stock.pop()
        self.piles["waste"].append(card)
        return MoveResult("deal", (Step(card, "stock", "waste"),), 0, self.score, self.is_won)

    @classmethod
    def _step_aliases(cls) -> dict[str, str]:
        return dict.fromkeys(WASTE_NAMES, "waste")

    def _reveals(self, result: MoveResult) -> bool:
        return result.move == "deal"  # the stock's top card was face down

    def legal_moves(self) -> list[str]:
        piles = self.piles
        available: list[tuple[str, str]] = [(name, piles[name][0]) for name in PYRAMID if self._exposed(name)]
        waste = piles["waste"]
        if waste:
            available.append(("wb", waste[0]))
        if len(waste) >= 2:
            available.append(("wt", waste[-1]))
        moves = ["deal"] if piles["stock"] else []
        for i, (name, card) in enumerate(available):
            value = VALUE[card]
            if value == KING:
                moves.append(name)
                continue
            for other, other_card in available[i + 1 :]:
                if value + VALUE[other_card] == 13:
                    moves.append(f"{name}+{other}")
        if len(waste) >= 3 and VALUE[waste[-1]] + VALUE[waste[-2]] == 13:
            moves.append("wu+wt")
        moves.sort()
        return moves

    # ----- state -----------------------------------------------------------------

    @property
    def score(self) -> int:
        return 52 - self._present

    @property
    def is_won(self) -> bool:
        return self._present == 0

    def view(self) -> GameView:
        p = self.piles
        piles: dict[str, PileView] = {
            "stock": {"count": len(p["stock"]), "cards": []},
            "waste": {"count": len(p["waste"]), "cards": list(p["waste"])},
        }
        for name in PYRAMID:
            piles[name] = {"count": len(p[name]), "cards": list(p[name])}
        return self._view_of(piles)

    def pile_views(self, names: Iterable[str]) -> dict[str, PileView]:
        p = self.piles
        return {
            name: {"count": len(p[name]), "cards": [] if name == "stock" else list(p[name])} for name in names
        }

    @classmethod
    def _check_layout(cls, piles: dict[str, list[str]], data: dict[str, Any]) -> None:
        cls._check_max(piles, PYRAMID, 1)
        if len(piles["stock"]) + len(piles["waste"]) > STOCK_SIZE:
            raise ValueError(f"stock and waste hold more than the {STOCK_SIZE} cards dealt there")
        for name, cover in COVERED_BY.items():
            if not piles[name]:
                still = [c for c in cover if piles[c]]
                if still:
                    raise ValueError(f"{name} is removed while {still[0]} still covers it")

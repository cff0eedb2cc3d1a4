"""Eagle Wing, as GNOME Aisleriot plays it (docs/rules.md, "Eagle Wing").

>>> from shared.deal import shuffled_deck
>>> game = EagleWing.deal(shuffled_deck("eagle-wing", 3))
>>> game.score, len(game.piles["reserve"]), len(game.piles["stock"])
(1, 13, 30)
>>> game.play("deal").steps[0].dst
'waste'
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any, Final, Self

from shared.cards import RANKS, VALUE
from shared.errors import BadNotation, RuleViolation
from shared.game import FoundationGame, MoveResult, Step, describe_top, pile_error
from shared.moves import Move, move_text
from shared.views import GameView, PileView

FOUNDATIONS: Final = ("f1", "f2", "f3", "f4")
TABLEAU: Final = ("t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8")
PILES: Final = ("stock", "waste", *FOUNDATIONS, *TABLEAU, "reserve")
TABLEAU_CAP: Final = 3
MAX_REDEALS: Final = 2
RESERVE_SIZE: Final = 13
STOCK_SIZE: Final = 30
_TABLEAU_SET: Final = frozenset(TABLEAU)
_FOUNDATION_SET: Final = frozenset(FOUNDATIONS)
_SOURCES: Final = ("waste", *TABLEAU, "reserve")


def _next_value(value: int) -> int:
    """The rank that follows ``value`` when building up with wrap (Ace after King)."""
    return value % 13 + 1


class EagleWing(FoundationGame):
    game_id = "eagle-wing"
    pile_names = PILES

    def __init__(self, piles: dict[str, list[str]], redeals_used: int = 0, move_count: int = 0) -> None:
        super().__init__(piles, move_count)
        self.redeals_used = redeals_used
        self.base = VALUE[piles["f1"][0]]

    @classmethod
    def deal(cls, deck: list[str]) -> Self:
        """Deal in Aisleriot's order: reserve (first card at the bottom), t1..t8, f1, stock."""
        piles: dict[str, list[str]] = {name: [] for name in PILES}
        piles["reserve"] = deck[:RESERVE_SIZE]
        for i, name in enumerate(TABLEAU):
            piles[name] = [deck[RESERVE_SIZE + i]]
        piles["f1"] = [deck[RESERVE_SIZE + 8]]
        piles["stock"] = deck[RESERVE_SIZE + 9 :]
        return cls(piles)

    # ----- rules -----------------------------------------------------------------

    def _fits_foundation(self, card: str, top: str | None) -> bool:
        if top is None:
            return VALUE[card] == self.base
        return top[1] == card[1] and VALUE[card] == _next_value(VALUE[top])

    @staticmethod
    def _fits_tableau(card: str, pile: list[str]) -> bool:
        if not pile:
            return True
        top = pile[-1]
        return len(pile) < TABLEAU_CAP and top[1] == card[1] and VALUE[top] == _next_value(VALUE[card])

    def _check_names(self, move: Move) -> None:
        if move.kind == "remove":
            raise BadNotation(f"{move.src!r} is not an eagle-wing move: write A>B, A:k>B, deal or redeal")
        if move.kind != "move":
            return
        if move.src not in PILES:
            raise pile_error(move.src, PILES, self.game_id)
        if move.dst != "f" and move.dst not in PILES:
            raise pile_error(move.dst, PILES, self.game_id)

    def _apply(self, move: Move) -> MoveResult:
        if move.kind == "deal":
            return self._deal_one()
        if move.kind == "redeal":
            return self._redeal()
        return self._transfer(move)

    def _deal_one(self) -> MoveResult:
        stock = self.piles["stock"]
        if not stock:
            reason = "the stock is empty"
            if self.piles["waste"] and self.redeals_used < MAX_REDEALS:
                reason += ": redeal turns the waste back over"
            raise RuleViolation(reason)
        card = stock.pop()
        self.piles["waste"].append(card)
        return MoveResult("deal", (Step(card, "stock", "waste"),), 0, self.score, self.is_won)

    def _redeal(self) -> MoveResult:
        stock, waste = self.piles["stock"], self.piles["waste"]
        if stock:
            raise RuleViolation("redeal only when the stock is empty")
        if not waste:
            raise RuleViolation("the waste is empty: there is nothing to redeal")
        if self.redeals_used >= MAX_REDEALS:
            raise RuleViolation("both redeals are used: three passes through the stock in all")
        steps = tuple(Step(None, "waste", "stock") for _ in waste)
        waste.reverse()
        stock.extend(waste)
        waste.clear()
        self.redeals_used += 1
        return MoveResult("redeal", steps, 0, self.score, self.is_won)

    def _source_cards(self, src: str, count: int) -> list[str]:
        """The cards that would leave ``src``, top card first, or a rejection."""
        pile = self.piles[src]
        if src in _FOUNDATION_SET:
            raise RuleViolation("foundation cards never move again")
        if src == "stock":
            raise RuleViolation("the stock is face down: deal turns its top card onto the waste")
        if not pile:
            raise RuleViolation(f"{src} is empty")
        if src == "reserve" and len(pile) > 1:
            raise RuleViolation("the reserve's top card is face down: it plays only when it is the last card")
        if count > 1:
            if src not in _TABLEAU_SET:
                raise RuleViolation("only a tableau pile moves cards as a group")
            if count > len(pile):
                raise RuleViolation(f"{src} holds only {len(pile)} card{'' if len(pile) == 1 else 's'}")
        return pile[: -count - 1 : -1]

    def _resolve_foundation(self, card: str) -> str:
        piles = self.piles
        for name in FOUNDATIONS:
            top = piles[name][-1] if piles[name] else None
            if self._fits_foundation(card, top):
                return name
        if VALUE[card] == self.base:
            raise RuleViolation(f"{card} needs an empty foundation and none is left")
        raise RuleViolation(f"{card} fits no foundation")

    def _transfer(self, move: Move) -> MoveResult:
        src, dst, count = move.src, move.dst, move.count
        moving = self._source_cards(src, count)
        if dst == "f":
            dst = self._resolve_foundation(moving[0])
        if src == dst:
            raise RuleViolation(f"{src} cannot move onto itself")
        piles = self.piles
        target = piles[dst]
        if dst in _FOUNDATION_SET:
            top = target[-1] if target else None
            for card in moving:
                if not self._fits_foundation(card, top):
                    raise RuleViolation(self._foundation_reason(card, dst, top))
                top = card
            score_delta = count
        elif dst in _TABLEAU_SET:
            if count > 1:
                raise RuleViolation("cards move to the tableau one at a time; groups go to a foundation")
            if len(target) >= TABLEAU_CAP:
                raise RuleViolation(f"{dst} holds {TABLEAU_CAP} cards already")
            if not self._fits_tableau(moving[0], target):
                raise RuleViolation(
                    f"{moving[0]} does not fit on {describe_top(dst, target)}: "
                    "the tableau builds down in suit"
                )
            score_delta = 0
        else:
            raise RuleViolation(f"cards cannot be moved to the {dst}")
        source = piles[src]
        del source[-count:]
        target.extend(moving)
        steps = [Step(card, src, dst) for card in moving]
        reserve = piles["reserve"]
        if not source and reserve and src in _TABLEAU_SET:
            card = reserve.pop()
            source.append(card)
            steps.append(Step(card, "reserve", src))
        return MoveResult(move_text(src, dst, count), tuple(steps), score_delta, self.score, self.is_won)

    def _foundation_reason(self, card: str, dst: str, top: str | None) -> str:
        if top is None:
            return f"{dst} is empty: only a {RANKS[self.base - 1]} (the base rank) starts a foundation"
        return f"{card} does not fit on {dst} (top {top})"

    # ----- undo ------------------------------------------------------------------

    def _extras(self) -> tuple[int, ...]:
        return (self.redeals_used,)

    def _set_extras(self, extras: tuple[int, ...]) -> None:
        (self.redeals_used,) = extras

    def _reveals(self, result: MoveResult) -> bool:
        """A deal turns up the stock's face-down top card. An auto-fill from a reserve
        still holding cards moved its face-down top card (the last card alone is face up)."""
        if result.move == "deal":
            return True
        return bool(self.piles["reserve"]) and any(step.src == "reserve" for step in result.steps)

    def legal_moves(self) -> list[str]:
        piles = self.piles
        moves: list[str] = []
        if piles["stock"]:
            moves.append("deal")
        elif piles["waste"] and self.redeals_used < MAX_REDEALS:
            moves.append("redeal")
        tops = {name: (piles[name][-1] if piles[name] else None) for name in FOUNDATIONS}
        reserve_playable = len(piles["reserve"]) == 1
        for src in _SOURCES:
            pile = piles[src]
            if not pile or (src == "reserve" and not reserve_playable):
                continue
            card = pile[-1]
            for dst, top in tops.items():
                if self._fits_foundation(card, top):
                    moves.append(f"{src}>{dst}")
                    if src in _TABLEAU_SET:
                        for k in range(2, len(pile) + 1):
                            if self._group_fits(pile, k, top):
                                moves.append(f"{src}:{k}>{dst}")
            for dst in TABLEAU:
                if dst != src and self._fits_tableau(card, piles[dst]):
                    moves.append(f"{src}>{dst}")
        moves.sort()
        return moves

    def _group_fits(self, pile: list[str], count: int, top: str | None) -> bool:
        for card in pile[: -count - 1 : -1]:
            if not self._fits_foundation(card, top):
                return False
            top = card
        return True

    # ----- state -----------------------------------------------------------------

    def _position_extras(self) -> dict[str, Any]:
        return {"redeals_used": self.redeals_used}

    def view(self) -> GameView:
        p = self.piles
        piles: dict[str, PileView] = {
            "stock": {"count": len(p["stock"]), "cards": []},
            "waste": {"count": len(p["waste"]), "cards": p["waste"][-1:]},
        }
        for name in FOUNDATIONS:
            piles[name] = {"count": len(p[name]), "cards": p[name][-1:]}
        for name in TABLEAU:
            piles[name] = {"count": len(p[name]), "cards": list(p[name])}
        reserve = p["reserve"]
        piles["reserve"] = {
            "count": len(reserve),
            "cards": list(reserve) if len(reserve) == 1 else [],
        }
        return self._view_of(piles)

    def pile_views(self, names: Iterable[str]) -> dict[str, PileView]:
        p = self.piles
        views: dict[str, PileView] = {}
        for name in names:
            cards = p[name]
            if name in _TABLEAU_SET:
                shown = list(cards)
            elif name == "stock":
                shown = []
            elif name == "reserve":
                shown = list(cards) if len(cards) == 1 else []
            else:  # the waste and the foundations show their top card
                shown = cards[-1:]
            views[name] = {"count": len(cards), "cards": shown}
        return views

    def _view_of(self, piles: dict[str, PileView]) -> GameView:
        # Eagle Wing's own fields come between the piles and the score (the wire order).
        return {
            "game": self.game_id,
            "piles": piles,
            "base_rank": RANKS[self.base - 1],
            "redeals_left": MAX_REDEALS - self.redeals_used,
            "score": self.score,
            "won": self.is_won,
            "move_count": self.move_count,
        }

    # ----- positions ----------------------------------------------------------------

    @classmethod
    def _check_layout(cls, piles: dict[str, list[str]], data: dict[str, Any]) -> None:
        cls._check_total(piles, 52)
        cls._check_max(piles, TABLEAU, TABLEAU_CAP)
        cls._check_max(piles, ("reserve",), RESERVE_SIZE)
        cls._check_max(piles, FOUNDATIONS, 13)
        if len(piles["stock"]) + len(piles["waste"]) > STOCK_SIZE:
            raise ValueError(f"stock and waste hold more than the {STOCK_SIZE} cards dealt there")
        if not piles["f1"]:
            raise ValueError("f1 is empty: it holds the base card from the deal on")
        base = VALUE[piles["f1"][0]]
        first = (base, f"the base rank {RANKS[base - 1]}")
        cls._check_foundations(piles, FOUNDATIONS, first, _next_value)
        for name in TABLEAU:
            pile = piles[name]
            for lower, upper in itertools.pairwise(pile):
                if upper[1] != lower[1] or VALUE[lower] != _next_value(VALUE[upper]):
                    raise ValueError(f"{name} does not build down in suit at {upper}")
            if not pile and piles["reserve"]:
                raise ValueError(f"{name} is empty while the reserve still holds cards")
        if "redeals_used" not in data:
            raise ValueError("an eagle-wing position needs redeals_used (0, 1 or 2)")
        redeals = data["redeals_used"]
        if not isinstance(redeals, int) or isinstance(redeals, bool) or not 0 <= redeals <= 2:
            raise ValueError(f"redeals_used must be 0, 1 or 2, not {redeals!r}")

    @classmethod
    def _from_checked(cls, piles: dict[str, list[str]], data: dict[str, Any]) -> Self:
        return cls(piles, redeals_used=data.get("redeals_used", 0))

"""What a racer who watched every move remembers beyond the current view.

A view shows what is face up now; a racer also saw what was face up before. Two things
are worth keeping, both learnt from consecutive views only (never from hidden cards):

- **Treize**: a card never turns face down again, so a card that left the view was
  removed: it is out of play, not in the stock.
- **Eagle Wing**: the waste shows only its top card, but each card was on top once, so
  the whole waste's order is known; and a redeal turns it back into the stock in the same
  order, so after the first pass the stock is known too.

When two views do not follow from each other by one move (a view was missed), what the
views cannot confirm is forgotten.

>>> from shared import new_game
>>> game, memory = new_game("eagle-wing", 3), Memory()
>>> for _ in range(3):
...     memory.observe(game.view())
...     _ = game.play("deal")
>>> memory.observe(game.view())
>>> sorted(memory.remembered())  # the two cards under the waste's top, seen dealt
[('waste', 0), ('waste', 1)]
>>> _ = game.play("deal"), game.play("deal")
>>> memory.observe(game.view())  # two moves at once: what was not seen is forgotten
>>> memory.remembered()
{}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Slot = tuple[str, int]


class Memory:
    """Cards a racer saw that the current view no longer shows; call :meth:`observe`
    with each view in turn (a view of another game, or of an earlier move, starts over)."""

    def __init__(self) -> None:
        self._start(None)

    def _start(self, game: str | None) -> None:
        self.game = game
        self.move_count = -1
        #: Treize cards seen removed.
        self.out_of_play: set[str] = set()
        self._visible: set[str] = set()
        #: Eagle Wing's stock and waste, bottom to top, ``None`` where not remembered.
        self._stock: list[str | None] = []
        self._waste: list[str | None] = []

    def observe(self, view: Mapping[str, Any]) -> None:
        """Take in the next view of the game."""
        move_count = int(view["move_count"])
        if view["game"] != self.game or move_count < self.move_count:
            self._start(str(view["game"]))
            self._forget(view)
        visible = {card for pile in view["piles"].values() for card in pile["cards"]}
        if self.game == "treize":
            self.out_of_play |= self._visible - visible
        elif self.game == "eagle-wing" and move_count != self.move_count:
            self._follow_stock(view, one_move=move_count == self.move_count + 1)
        self._visible = visible
        self.move_count = move_count

    def remembered(self) -> dict[Slot, str]:
        """The hidden slots of the last view whose card is remembered."""
        slots: dict[Slot, str] = {}
        for index, card in enumerate(self._stock):
            if card is not None:
                slots["stock", index] = card
        for index, card in enumerate(self._waste[:-1]):
            if card is not None:
                slots["waste", index] = card
        return slots

    # ----- Eagle Wing's stock and waste ------------------------------------------------

    def _forget(self, view: Mapping[str, Any]) -> None:
        """Remember only what ``view`` shows of the stock and waste."""
        if self.game != "eagle-wing":
            self._stock, self._waste = [], []
            return
        piles = view["piles"]
        waste = piles["waste"]
        self._stock = [None] * int(piles["stock"]["count"])
        self._waste = [None] * (int(waste["count"]) - len(waste["cards"])) + list(waste["cards"])

    def _follow_stock(self, view: Mapping[str, Any], one_move: bool) -> None:
        """Update the stock and waste for one move (a deal, a waste card played, a redeal,
        or a move elsewhere); anything else forgets them."""
        piles = view["piles"]
        stock_count, waste_count = int(piles["stock"]["count"]), int(piles["waste"]["count"])
        top = piles["waste"]["cards"][-1] if piles["waste"]["cards"] else None
        stock, waste = self._stock, self._waste
        if not one_move:
            self._forget(view)
        elif stock_count == len(stock) - 1 and waste_count == len(waste) + 1:
            dealt = stock.pop()
            waste.append(top)
            if dealt not in (None, top):
                self._forget(view)
        elif stock_count == len(stock) and waste_count == len(waste) - 1:
            waste.pop()
        elif not stock and waste_count == 0 and stock_count == len(waste):
            self._stock, self._waste = waste[::-1], []
        elif stock_count != len(stock) or waste_count != len(waste):
            self._forget(view)
        if self._waste and self._waste[-1] not in (None, top):
            self._forget(view)
        elif self._waste:
            self._waste[-1] = top

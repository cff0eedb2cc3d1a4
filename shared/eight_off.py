"""Eight Off, as GNOME Aisleriot plays it (docs/rules.md, "Eight Off").

>>> from shared.deal import shuffled_deck
>>> game = EightOff.deal(shuffled_deck("eight-off", 1))
>>> [len(game.piles[t]) for t in TABLEAU], sum(len(game.piles[r]) for r in RESERVE)
([6, 6, 6, 6, 6, 6, 6, 6], 4)
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any, Final, Self

from shared.cards import ACE, KING, RANKS, SUITS, VALUE
from shared.errors import BadNotation, RuleViolation
from shared.game import FoundationGame, MoveResult, Step, describe_top, pile_error
from shared.moves import Move, move_text
from shared.views import GameView, PileView

FOUNDATIONS: Final = ("f1", "f2", "f3", "f4")
RESERVE: Final = ("r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8")
TABLEAU: Final = ("t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8")
PILES: Final = (*FOUNDATIONS, *RESERVE, *TABLEAU)
#: Auto-play scans reserve cells, then tableau piles, left to right.
AUTOPLAY_SCAN: Final = (*RESERVE, *TABLEAU)
_FOUNDATION_SET: Final = frozenset(FOUNDATIONS)
_RESERVE_SET: Final = frozenset(RESERVE)
_TABLEAU_SET: Final = frozenset(TABLEAU)
#: 6 dealt cards with a run from Queen to Ace built on a King on top.
_TABLEAU_MAX: Final = 18


def _continues_run(lower: str, upper: str) -> bool:
    """Whether ``upper`` lies correctly on ``lower`` in a same-suit descending run."""
    return lower[1] == upper[1] and VALUE[lower] == VALUE[upper] + 1


class EightOff(FoundationGame):
    game_id = "eight-off"
    pile_names = PILES

    def __init__(self, piles: dict[str, list[str]], move_count: int = 0) -> None:
        super().__init__(piles, move_count)
        self._derive()

    def _derive(self) -> None:
        #: Whether auto-play has run since the piles were set (dealt, loaded or undone):
        #: then no top card is one the foundations want.
        self._settled = False
        # Which foundation builds each suit, and the cards the foundations take next (the
        # next value of each suit not yet complete).
        need = dict.fromkeys(SUITS, ACE)
        self._home: dict[str, str] = {}
        piles = self.piles
        for name in FOUNDATIONS:
            pile = piles[name]
            if pile:
                need[pile[0][1]] = len(pile) + 1
                self._home[pile[0][1]] = name
        self._wanted: set[str] = {RANKS[value - 1] + suit for suit, value in need.items() if value <= KING}

    @classmethod
    def deal(cls, deck: list[str]) -> Self:
        """Deal 48 cards round by round across t1..t8, then the last 4 to r1..r4."""
        piles: dict[str, list[str]] = {name: [] for name in PILES}
        for i, card in enumerate(deck[:48]):
            piles[TABLEAU[i % 8]].append(card)
        for name, card in zip(RESERVE, deck[48:], strict=False):
            piles[name].append(card)
        return cls(piles)

    # ----- rules -----------------------------------------------------------------

    def _free_cells(self) -> int:
        piles = self.piles
        return sum(1 for name in RESERVE if not piles[name])

    def _to_foundation(self, card: str, src: str, dst: str, steps: list[Step]) -> None:
        self.piles[src].pop()
        self.piles[dst].append(card)
        suit, value = card[1], VALUE[card]
        self._home[suit] = dst
        self._wanted.discard(card)
        if value < KING:
            self._wanted.add(RANKS[value] + suit)
        steps.append(Step(card, src, dst))

    def _leftmost_empty(self, names: tuple[str, ...]) -> str | None:
        piles = self.piles
        for name in names:
            if not piles[name]:
                return name
        return None

    def _autoplay(self, steps: list[Step]) -> None:
        piles, wanted = self.piles, self._wanted
        while True:
            for name in AUTOPLAY_SCAN:
                pile = piles[name]
                if pile and pile[-1] in wanted:
                    card = pile[-1]
                    home = self._home.get(card[1]) or self._leftmost_empty(FOUNDATIONS)
                    assert home is not None  # an unstarted suit always has an empty foundation
                    self._to_foundation(card, name, home, steps)
                    break
            else:
                self._settled = True
                return

    def _check_names(self, move: Move) -> None:
        if move.kind == "redeal":
            raise RuleViolation("eight-off has no stock: there is nothing to redeal")
        if move.kind == "deal":
            raise RuleViolation("eight-off has no stock: every card is dealt at the start")
        if move.kind == "remove":
            raise BadNotation(f"{move.src!r} is not an eight-off move: write A>B or A:k>B")
        if move.src not in PILES:
            raise pile_error(move.src, PILES, self.game_id)
        if move.dst not in ("f", "r") and move.dst not in PILES:
            raise pile_error(move.dst, PILES, self.game_id)

    def _apply(self, move: Move) -> MoveResult:
        src, dst, count = move.src, move.dst, move.count
        piles = self.piles
        if src in _FOUNDATION_SET:
            raise RuleViolation("foundation cards never move again")
        source = piles[src]
        if not source:
            raise RuleViolation(f"{src} is empty")
        if count > 1:
            self._check_run(src, source, count, dst)
        card = source[-1]
        if dst == "f":
            dst = self._resolve_foundation(card)
        elif dst == "r":
            free = self._leftmost_empty(RESERVE)
            if free is None:
                raise RuleViolation("no reserve cell is free")
            dst = free
        if src == dst:
            raise RuleViolation(f"{src} cannot move onto itself")
        target = piles[dst]
        steps: list[Step] = []
        if dst in _RESERVE_SET:
            if target:
                raise RuleViolation(f"{dst} already holds {target[0]}: a reserve cell takes one card")
        elif dst in _FOUNDATION_SET:
            self._check_foundation(card, dst, target)
        else:
            self._check_tableau(source[-count], dst, target)
        before = self.score
        if dst in _FOUNDATION_SET:
            self._to_foundation(card, src, dst, steps)
            self._autoplay(steps)
        else:
            if count == 1:
                target.append(source.pop())
                steps.append(Step(card, src, dst))
            else:
                moving = source[-count:]
                del source[-count:]
                target.extend(moving)
                steps.extend(Step(c, src, dst) for c in moving)
            # Settled before, and nothing went home: the foundations want what they wanted,
            # which no top card was, so only the card this move uncovered may go now.
            if not self._settled or (source and source[-1] in self._wanted):
                self._autoplay(steps)
        score = self.score
        return MoveResult(move_text(src, dst, count), tuple(steps), score - before, score, score == 52)

    def _check_run(self, src: str, source: list[str], count: int, dst: str) -> None:
        if src not in _TABLEAU_SET:
            raise RuleViolation("only a tableau pile moves a run of cards")
        if count > len(source):
            raise RuleViolation(f"{src} holds only {len(source)} card{'' if len(source) == 1 else 's'}")
        if dst not in _TABLEAU_SET:
            raise RuleViolation("a run moves only to a tableau pile; other moves take one card")
        run = source[-count:]
        for lower, upper in itertools.pairwise(run):
            if not _continues_run(lower, upper):
                raise RuleViolation(f"the top {count} cards of {src} are not a run down in suit")
        free = self._free_cells()
        if count > free + 1:
            cells = f"{count - 1} free reserve cell{'' if count == 2 else 's'}"
            raise RuleViolation(f"a run of {count} needs {cells}; {free} {'is' if free == 1 else 'are'} free")

    def _resolve_foundation(self, card: str) -> str:
        if card not in self._wanted:
            raise RuleViolation(f"{card} fits no foundation")
        home = self._home.get(card[1]) or self._leftmost_empty(FOUNDATIONS)
        assert home is not None
        return home

    def _check_foundation(self, card: str, dst: str, target: list[str]) -> None:
        if not target:
            if VALUE[card] != ACE:
                raise RuleViolation(f"{dst} is empty: only an Ace starts a foundation")
            return
        top = target[-1]
        if top[1] != card[1] or VALUE[card] != VALUE[top] + 1:
            raise RuleViolation(f"{card} does not fit on {dst} (top {top})")

    @staticmethod
    def _check_tableau(bottom: str, dst: str, target: list[str]) -> None:
        if not target:
            if VALUE[bottom] != KING:
                raise RuleViolation(f"{dst} is empty: only a King (or a run from a King) goes there")
            return
        if not _continues_run(target[-1], bottom):
            raise RuleViolation(
                f"{bottom} does not fit on {describe_top(dst, target)}: the tableau builds down in suit"
            )

    def legal_moves(self) -> list[str]:
        piles, wanted = self.piles, self._wanted
        moves: list[str] = []
        free = [name for name in RESERVE if not piles[name]]
        empty_foundations = [name for name in FOUNDATIONS if not piles[name]]
        tops = [(name, piles[name][-1]) for name in TABLEAU if piles[name]]
        empty_tableau = [name for name in TABLEAU if not piles[name]]
        for src in AUTOPLAY_SCAN:
            pile = piles[src]
            if not pile:
                continue
            card = pile[-1]
            value, suit = VALUE[card], card[1]
            moves.extend(f"{src}>{r}" for r in free if r != src)
            if card in wanted:
                if value == ACE:
                    moves.extend(f"{src}>{f}" for f in empty_foundations)
                else:
                    moves.append(f"{src}>{self._home[suit]}")
            for dst, top in tops:
                if dst != src and top[1] == suit and VALUE[top] == value + 1:
                    moves.append(f"{src}>{dst}")
            if value == KING:
                moves.extend(f"{src}>{t}" for t in empty_tableau if t != src)
            if src in _TABLEAU_SET:
                self._run_moves(src, pile, len(free), tops, empty_tableau, moves)
        moves.sort()
        return moves

    @staticmethod
    def _run_moves(
        src: str,
        pile: list[str],
        free: int,
        tops: list[tuple[str, str]],
        empty_tableau: list[str],
        moves: list[str],
    ) -> None:
        longest = min(free + 1, len(pile))
        k = 1
        while k < longest and _continues_run(pile[-k - 1], pile[-k]):
            k += 1
            bottom = pile[-k]
            for dst, top in tops:
                if dst != src and _continues_run(top, bottom):
                    moves.append(f"{src}:{k}>{dst}")
            if VALUE[bottom] == KING:
                moves.extend(f"{src}:{k}>{t}" for t in empty_tableau)

    # ----- state -----------------------------------------------------------------

    def view(self) -> GameView:
        p = self.piles
        piles: dict[str, PileView] = {}
        for name in FOUNDATIONS:
            piles[name] = {"count": len(p[name]), "cards": p[name][-1:]}
        for name in (*RESERVE, *TABLEAU):
            piles[name] = {"count": len(p[name]), "cards": list(p[name])}
        return self._view_of(piles)

    def pile_views(self, names: Iterable[str]) -> dict[str, PileView]:
        p = self.piles
        return {
            name: {"count": len(p[name]), "cards": p[name][-1:] if name in _FOUNDATION_SET else list(p[name])}
            for name in names
        }

    @classmethod
    def _check_layout(cls, piles: dict[str, list[str]], data: dict[str, Any]) -> None:
        cls._check_total(piles, 52)
        cls._check_max(piles, RESERVE, 1)
        cls._check_max(piles, FOUNDATIONS, 13)
        cls._check_max(piles, TABLEAU, _TABLEAU_MAX)
        cls._check_foundations(piles, FOUNDATIONS, (ACE, "an Ace"), lambda value: value + 1)

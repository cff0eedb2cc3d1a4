"""A full-information solver: it sees every card of a ``Game`` (never a view) and looks
for a winning line within a budget of positions.

:func:`solve` searches from a game's current position; :func:`solve_deal` from a seeded
deal. The answer is a :class:`Solution`: the winning line in canonical notation (it
replays with :func:`shared.replay` to a won game), or ``None`` with ``exhausted`` True
when every reachable position was searched without a win (the deal is proved lost), or
``None`` with ``exhausted`` False when the budget ran out first (nothing is known).

>>> from shared import replay
>>> found = solve_deal("eight-off", 1)
>>> found.line is not None and replay("eight-off", 1, found.line).is_won
True

**The search.** Depth-first, without recursion, on a compact model of each game (small
integers for cards, mutated in place and restored by its own undo), not on the engine's
``Game``: the engine is about ten times slower per move. The line found is played once
on a copy of the real game at the end, which checks it and writes it canonically. Each
position met is put in a transposition table under a *canonical key*, so a position
reached twice, in either order of two independent moves or with piles the rules treat
alike swapped, is searched once:

- Eight Off: the tableau piles as a sorted tuple of tuples and the reserve cells as a
  sorted multiset (foundations follow from where the other cards are);
- Eagle Wing: the tableau piles sorted, the reserve's size, and the stock and waste as
  the set of cards left in them, where the waste ends and the redeals used;
- Treize: nothing is interchangeable (a pyramid card's place matters), the key is one
  integer: the cards left in the pyramid, in the stock and waste, and how many were dealt.

**Pruning, all of it sound** (a move is only left out when another one is at least as
good), so that an exhausted search is a proof:

- a move that must be at least as good as every other is played alone: an Eight Off
  card that fits a foundation (only before the first move: auto-play does it after),
  an Eagle Wing card that fits a foundation already started (the card that would go on
  it in the tableau is home already), a Treize King, and a Treize pair that are the last
  two cards of their ranks (removing cards only ever frees others);
- never a cell-to-cell move, a move to a second empty cell or empty pile (the first one
  is the same), a King that is its pile's bottom card to an empty pile, an Eight Off run
  broken anywhere but at its bottom (its cards have nowhere else to go);
- Eagle Wing's stock is one macro move per card still in it: "deal until that card is
  the waste's top (turning the waste over if needed), then play it"; a deal that plays
  nothing is never needed;
- a Treize position is dead, and not searched, when some rank can no longer pair off:
  no way to match each card of rank ``v`` with one of ``13 - v`` when two cards one of
  which lies on the other in the pyramid can never pair.

Moves are tried in a fixed order: to the foundations, then building on the tableau
(cards from the cells first), then Kings to empty piles, then to cells or from the
stock; Treize tries pairs of pyramid cards before pairs with the waste and deals last.

**Limits.** Depth-first search with a good move order finds Eight Off wins within a
few hundred positions for nearly every deal, and Treize's space is small enough to be
exhausted for most deals. Eagle Wing is harder: its stock gives many choices at every
position and the budget sometimes runs out on deals that can be won, or that cannot (a
lost Eagle Wing deal is rarely proved). A budget of 200,000 positions takes a few
seconds of pure Python; the table of seen positions holds up to the budget in keys.
"""

from __future__ import annotations

import heapq
import itertools
from abc import ABC, abstractmethod
from collections.abc import Hashable
from dataclasses import dataclass
from typing import ClassVar, Final, cast

from shared.cards import FULL_DECK
from shared.eagle_wing import EagleWing
from shared.eight_off import EightOff
from shared.engine import new_game
from shared.errors import IllegalMove
from shared.game import Game
from shared.treize import COVERED_BY, PYRAMID, Treize

#: A card as a small integer: its index in ``FULL_DECK`` (suit * 13 + rank - 1).
_INDEX: Final = {card: i for i, card in enumerate(FULL_DECK)}
KING_RANK: Final = 12  # rank index: Ace 0 .. King 12

_Move = tuple[int, ...]


@dataclass(frozen=True)
class Solution:
    """What :func:`solve` found.

    ``line``: the winning moves in canonical notation, or ``None`` when none was found;
    ``nodes``: the positions expanded; ``exhausted``: True when the whole space was
    searched without a win, which proves the position lost.
    """

    line: list[str] | None
    nodes: int
    exhausted: bool


def solve(game: Game, budget: int = 200_000) -> Solution:
    """Search ``game`` from its current position for a winning line, expanding at most
    ``budget`` positions. ``game`` itself is not changed."""
    model = _model_of(game)
    search = _best_first if model.best_first else _depth_first
    found, nodes, exhausted = search(model, budget)
    if found is None:
        return Solution(None, nodes, exhausted)
    notation = [text for move in found for text in model.notation(move)]
    return Solution(_canonical(game, notation), nodes, False)


def solve_deal(game_id: str, seed: int, budget: int = 200_000) -> Solution:
    """:func:`solve` on the deal of ``game_id`` for ``seed``."""
    return solve(new_game(game_id, seed), budget)


def _canonical(game: Game, notation: list[str]) -> list[str]:
    """The line played on a copy of ``game``, as the engine writes each move."""
    probe = game.copy()
    line = []
    for text in notation:
        try:
            line.append(probe.play(text).move)
        except IllegalMove as exc:  # pragma: no cover - a bug in a model below
            raise RuntimeError(f"the solver's line breaks a rule at {text!r}: {exc}") from exc
    if not probe.is_won:  # pragma: no cover - a bug in a model below
        raise RuntimeError("the solver's line does not win")
    return line


# ----- the search ------------------------------------------------------------------


class _Model(ABC):
    """One game's position, mutable, with its own undo stack."""

    @abstractmethod
    def key(self) -> Hashable:
        """The position up to what the rules treat alike."""

    @abstractmethod
    def moves(self) -> list[_Move]:
        """The moves worth trying, best first (a forced move alone)."""

    @abstractmethod
    def apply(self, move: _Move) -> None:
        """Play ``move`` (one of :meth:`moves`)."""

    @abstractmethod
    def undo(self) -> None:
        """Take the last :meth:`apply` back."""

    @abstractmethod
    def won(self) -> bool:
        """Whether every card is home."""

    def dead(self) -> bool:
        """Whether the position surely cannot be won (False when unsure)."""
        return False

    def spent(self) -> int:
        """A resource used up, beyond :meth:`key`: of two positions with the same key,
        the one that spent less is at least as good (it can play every line the other
        can)."""
        return 0

    @abstractmethod
    def notation(self, move: _Move) -> list[str]:
        """The engine moves that play ``move`` (shorthands allowed)."""

    # Only for a best-first search (``best_first``):

    #: Search best first (by :meth:`score`) rather than depth first.
    best_first: ClassVar[bool] = False

    def snapshot(self) -> Hashable:
        """The position, to :meth:`restore` later."""
        raise NotImplementedError

    def restore(self, snapshot: Hashable) -> None:
        """Go back to a position :meth:`snapshot` took (the undo stack is emptied)."""
        raise NotImplementedError

    def score(self) -> float:
        """How far the position looks from a win: lower is better."""
        raise NotImplementedError


def _depth_first(model: _Model, budget: int) -> tuple[list[_Move] | None, int, bool]:
    """(winning moves or None, positions expanded, whether the space was exhausted)."""
    if model.won():
        return [], 0, False
    if model.dead():
        return None, 0, True
    if budget < 1:
        return None, 0, False
    #: Each position met, and the least it had spent when met.
    seen = {model.key(): model.spent()}
    path: list[_Move] = []
    stack = [model.moves()]
    index = [0]
    nodes = 1
    apply, undo, key, won, dead, moves, spent = (
        model.apply,
        model.undo,
        model.key,
        model.won,
        model.dead,
        model.moves,
        model.spent,
    )
    while stack:
        options = stack[-1]
        i = index[-1]
        if i >= len(options):
            stack.pop()
            index.pop()
            if path:
                path.pop()
                undo()
            continue
        index[-1] = i + 1
        move = options[i]
        apply(move)
        if won():
            path.append(move)
            return path, nodes, False
        position, cost = key(), spent()
        if seen.get(position, cost + 1) <= cost:
            undo()
            continue
        seen[position] = cost
        if dead():
            undo()
            continue
        if nodes >= budget:
            return None, nodes, False
        nodes += 1
        path.append(move)
        stack.append(moves())
        index.append(0)
    return None, nodes, True


#: What one move of depth costs in the best-first order (against :meth:`_Model.score`).
_DEPTH_WEIGHT: Final = 0.5


def _best_first(model: _Model, budget: int) -> tuple[list[_Move] | None, int, bool]:
    """Like :func:`_depth_first`, expanding the position of least ``score + depth / 2``
    first. Each expanded position keeps a snapshot; one waiting is its parent and move."""
    if model.won():
        return [], 0, False
    if model.dead():
        return None, 0, True
    if budget < 1:
        return None, 0, False
    seen = {model.key(): model.spent()}
    snapshots = [model.snapshot()]
    #: Per expanded position: the position it was expanded from, the move, its depth.
    parents: list[tuple[int, _Move, int]] = [(-1, (), 0)]
    frontier: list[tuple[float, int, int, _Move]] = []
    order = itertools.count()
    apply, undo, key, won, dead, spent, score = (
        model.apply,
        model.undo,
        model.key,
        model.won,
        model.dead,
        model.spent,
        model.score,
    )
    current = 0
    nodes = 1
    while True:
        weight = _DEPTH_WEIGHT * (parents[current][2] + 1)
        for move in model.moves():
            apply(move)
            if won():
                path = [move]
                while current > 0:
                    current, previous, _ = parents[current]
                    path.append(previous)
                return path[::-1], nodes, False
            position, cost = key(), spent()
            if seen.get(position, cost + 1) > cost:
                seen[position] = cost
                if not dead():
                    heapq.heappush(frontier, (score() + weight, next(order), current, move))
            undo()
        if not frontier:
            return None, nodes, True
        if nodes >= budget:
            return None, nodes, False
        _, _, parent, move = heapq.heappop(frontier)
        model.restore(snapshots[parent])
        apply(move)
        snapshots.append(model.snapshot())
        parents.append((parent, move, parents[parent][2] + 1))
        current = len(parents) - 1
        nodes += 1


def _model_of(game: Game) -> _Model:
    if isinstance(game, EightOff):
        return _EightOffModel(game)
    if isinstance(game, EagleWing):
        return _EagleWingModel(game)
    if isinstance(game, Treize):
        return _TreizeModel(game)
    raise ValueError(f"no solver for {game.game_id!r}")


# ----- Eight Off -------------------------------------------------------------------

#: Eight Off places: tableau piles 0-7, cells 8-15, the foundations 16.
_CELL: Final = 8
_HOME: Final = 16


class _EightOffModel(_Model):
    """Eight Off: moves ``(src, dst, count)``; auto-play after each, as the engine does."""

    def __init__(self, game: Game) -> None:
        piles = game.piles
        self.tab = [[_INDEX[c] for c in piles[f"t{i}"]] for i in range(1, 9)]
        self.cells = [_INDEX[piles[f"r{i}"][0]] if piles[f"r{i}"] else -1 for i in range(1, 9)]
        self.found = [0, 0, 0, 0]
        for name in ("f1", "f2", "f3", "f4"):
            if piles[name]:
                self.found[_INDEX[piles[name][0]] // 13] = len(piles[name])
        #: Each pile as a tuple, kept in step with ``tab`` for the key.
        self.frozen = [tuple(pile) for pile in self.tab]
        #: Per move: the move, the cards it moved, and the (place, card) auto-play sent home.
        self.history: list[tuple[_Move, list[int], list[tuple[int, int]]]] = []

    def key(self) -> Hashable:
        return tuple(sorted(self.frozen)), tuple(sorted(self.cells))

    def won(self) -> bool:
        return sum(self.found) == 52

    def apply(self, move: _Move) -> None:
        src, dst, count = move
        tab, cells, frozen = self.tab, self.cells, self.frozen
        if src < _CELL:
            pile = tab[src]
            cards = pile[-count:]
            del pile[-count:]
            frozen[src] = tuple(pile)
        else:
            cards = [cells[src - _CELL]]
            cells[src - _CELL] = -1
        if dst < _CELL:
            tab[dst].extend(cards)
            frozen[dst] = tuple(tab[dst])
        elif dst < _HOME:
            cells[dst - _CELL] = cards[0]
        else:
            self.found[cards[0] // 13] += 1
        # Before the move nothing fitted a foundation (auto-play saw to it), except at the
        # deal: only a foundation move or a card it uncovered can start auto-play.
        sent: list[tuple[int, int]] = []
        if dst == _HOME or (src < _CELL and tab[src] and tab[src][-1] % 13 == self.found[tab[src][-1] // 13]):
            sent = self._autoplay()
        self.history.append((move, cards, sent))

    def _autoplay(self) -> list[tuple[int, int]]:
        """Every card that fits a foundation goes there, until none does."""
        tab, cells, found = self.tab, self.cells, self.found
        sent: list[tuple[int, int]] = []
        moved = True
        while moved:
            moved = False
            for i in range(8):
                card = cells[i]
                if card >= 0 and card % 13 == found[card // 13]:
                    found[card // 13] += 1
                    cells[i] = -1
                    sent.append((_CELL + i, card))
                    moved = True
            for i in range(8):
                pile = tab[i]
                while pile and pile[-1] % 13 == found[pile[-1] // 13]:
                    card = pile.pop()
                    found[card // 13] += 1
                    sent.append((i, card))
                    moved = True
        for place, _ in sent:
            if place < _CELL:
                self.frozen[place] = tuple(tab[place])
        return sent

    def undo(self) -> None:
        (src, dst, count), cards, sent = self.history.pop()
        tab, cells, found, frozen = self.tab, self.cells, self.found, self.frozen
        for place, card in reversed(sent):
            found[card // 13] -= 1
            if place < _CELL:
                tab[place].append(card)
            else:
                cells[place - _CELL] = card
        for place, _ in sent:
            if place < _CELL:
                frozen[place] = tuple(tab[place])
        if dst < _CELL:
            del tab[dst][-count:]
            frozen[dst] = tuple(tab[dst])
        elif dst < _HOME:
            cells[dst - _CELL] = -1
        else:
            found[cards[0] // 13] -= 1
        if src < _CELL:
            tab[src].extend(cards)
            frozen[src] = tuple(tab[src])
        else:
            cells[src - _CELL] = cards[0]

    def moves(self) -> list[_Move]:
        tab, cells, found = self.tab, self.cells, self.found
        # Only before the first move can a card fit a foundation (auto-play does it after).
        for i, card in enumerate(cells):
            if card >= 0 and card % 13 == found[card // 13]:
                return [(_CELL + i, _HOME, 1)]
        for i, pile in enumerate(tab):
            if pile and pile[-1] % 13 == found[pile[-1] // 13]:
                return [(i, _HOME, 1)]
        free = cells.count(-1)
        free_cell = _CELL + cells.index(-1) if free else -1
        tops = {pile[-1]: i for i, pile in enumerate(tab) if pile}
        empty = next((i for i, pile in enumerate(tab) if not pile), -1)
        builds: list[_Move] = []
        kings: list[_Move] = []
        for i, card in enumerate(cells):
            if card < 0:
                continue
            if card % 13 == KING_RANK:
                if empty >= 0:
                    kings.append((_CELL + i, empty, 1))
            elif card + 1 in tops:
                # Onto a settled pile: at least as good as any other move.
                target = tops[card + 1]
                if self._settled(tab[target]):
                    return [(_CELL + i, target, 1)]
                builds.append((_CELL + i, target, 1))
        stores: list[_Move] = []
        for i, pile in enumerate(tab):
            if not pile:
                continue
            height = len(pile)
            run = 1  # the top cards in one suit, each one below the card under it
            while run < height and pile[-run] % 13 != KING_RANK and pile[-run - 1] == pile[-run] + 1:
                run += 1
            bottom = pile[-run]
            if run <= free + 1:
                if bottom % 13 == KING_RANK:
                    if empty >= 0 and run < height:
                        kings.append((i, empty, run))
                elif bottom + 1 in tops:
                    builds.append((i, tops[bottom + 1], run))
            if free and not (run == height and bottom % 13 == KING_RANK):
                stores.append((i, free_cell, 1))
        return builds + kings + stores

    @staticmethod
    def _settled(pile: list[int]) -> bool:
        """Whether ``pile`` is one run down in suit from a King: its cards never need to
        move again but home (each one's only place in the tableau is where it lies)."""
        height = len(pile)
        if pile[0] % 13 != KING_RANK:
            return False
        return all(pile[k] == pile[k + 1] + 1 and pile[k + 1] % 13 != KING_RANK for k in range(height - 1))

    best_first = True

    def snapshot(self) -> Hashable:
        return tuple(self.frozen), tuple(self.cells), tuple(self.found)

    def restore(self, snapshot: Hashable) -> None:
        frozen, cells, found = cast(
            tuple[tuple[tuple[int, ...], ...], tuple[int, ...], tuple[int, ...]], snapshot
        )
        self.frozen = list(frozen)
        self.tab = [list(pile) for pile in frozen]
        self.cells = list(cells)
        self.found = list(found)
        self.history.clear()

    def score(self) -> float:
        """Twice the cards lying on a lower card (each must move before that one goes
        home), three per card in a cell, less two per empty pile and one per card home."""
        blocking = 0
        for pile in self.tab:
            lowest = KING_RANK + 1
            for card in pile:
                rank = card % 13
                if rank > lowest:
                    blocking += 1
                else:
                    lowest = rank
        held = 8 - self.cells.count(-1)
        empty = sum(1 for pile in self.tab if not pile)
        return 2 * blocking + 3 * held - 2 * empty - sum(self.found)

    def notation(self, move: _Move) -> list[str]:
        src, dst, count = move
        source = f"t{src + 1}" if src < _CELL else f"r{src - _CELL + 1}"
        target = f"t{dst + 1}" if dst < _CELL else (f"r{dst - _CELL + 1}" if dst < _HOME else "f")
        return [f"{source}:{count}>{target}" if count > 1 else f"{source}>{target}"]


# ----- Eagle Wing ------------------------------------------------------------------

#: Eagle Wing move kinds ``(kind, source, target, deals, redeal, deals after)``:
_FROM_PILE: Final = 0
_FROM_RESERVE: Final = 1
_FROM_STOCK: Final = 2
#: Targets: tableau piles 0-7, the foundations 8.
_EW_HOME: Final = 8
_TABLEAU_CAP: Final = 3
_MAX_REDEALS: Final = 2


#: Per card: the card it goes on in an Eagle Wing tableau pile (same suit, one rank up,
#: round the corner), and the card that goes on it.
_PARENT: Final = tuple(c - c % 13 + (c % 13 + 1) % 13 for c in range(52))
_CHILD: Final = tuple(c - c % 13 + (c % 13 + 12) % 13 for c in range(52))


class _EagleWingModel(_Model):
    """Eagle Wing. The stock and waste are one fixed sequence (``talon``, in the order
    the cards come out; a redeal keeps it): ``live`` has a bit per card still there,
    the waste is the live cards below ``split`` and the stock those from it."""

    def __init__(self, game: Game) -> None:
        assert isinstance(game, EagleWing)
        piles = game.piles
        self.tab = [[_INDEX[c] for c in piles[f"t{i}"]] for i in range(1, 9)]
        self.frozen = [tuple(pile) for pile in self.tab]
        self.reserve = [_INDEX[c] for c in piles["reserve"]]
        self.talon = [_INDEX[c] for c in (*piles["waste"], *reversed(piles["stock"]))]
        #: Each card of the talon by its place there.
        self.place = {card: j for j, card in enumerate(self.talon)}
        self.live = (1 << len(self.talon)) - 1
        self.split = len(piles["waste"])
        self.redeals = game.redeals_used
        self.base = _INDEX[piles["f1"][0]] % 13
        self.found = [0, 0, 0, 0]
        for name in ("f1", "f2", "f3", "f4"):
            if piles[name]:
                self.found[_INDEX[piles[name][0]] // 13] = len(piles[name])
        #: Per move: the move, the card, whether the reserve refilled a pile, and the
        #: talon's (live, split, redeals) before it.
        self.history: list[tuple[_Move, int, bool, int, int, int]] = []

    def key(self) -> Hashable:
        return tuple(sorted(self.frozen)), len(self.reserve), self.live

    def spent(self) -> int:
        """Redeals used, then where the waste ends: fewer redeals is better whatever the
        waste (deal the stock out and turn it over to start the pass afresh), and with as
        many, a shorter waste is better (deal on to reach the other's)."""
        return self.redeals * 64 + self.split

    def won(self) -> bool:
        return sum(self.found) == 52

    def apply(self, move: _Move) -> None:
        kind, source, target = move[0], move[1], move[2]
        tab = self.tab
        before = (self.live, self.split, self.redeals)
        refilled = False
        if kind == _FROM_PILE:
            pile = tab[source]
            card = pile.pop()
            if not pile and self.reserve:
                pile.append(self.reserve.pop())
                refilled = True
            self.frozen[source] = tuple(pile)
        elif kind == _FROM_RESERVE:
            card = self.reserve.pop()
        else:
            card = self.talon[source]
            self.live &= ~(1 << source)
            self.redeals += move[4]
            self.split = (self.live & ((1 << source) - 1)).bit_length()
        if target == _EW_HOME:
            self.found[card // 13] += 1
        else:
            tab[target].append(card)
            self.frozen[target] = tuple(tab[target])
        self.history.append((move, card, refilled, *before))

    def undo(self) -> None:
        move, card, refilled, self.live, self.split, self.redeals = self.history.pop()
        kind, source, target = move[0], move[1], move[2]
        tab = self.tab
        if target == _EW_HOME:
            self.found[card // 13] -= 1
        else:
            tab[target].pop()
            self.frozen[target] = tuple(tab[target])
        if kind == _FROM_PILE:
            pile = tab[source]
            if refilled:
                self.reserve.append(pile.pop())
            pile.append(card)
            self.frozen[source] = tuple(pile)
        elif kind == _FROM_RESERVE:
            self.reserve.append(card)

    def moves(self) -> list[_Move]:
        tab, found, base = self.tab, self.found, self.base
        # The card each suit's foundation takes next; those of suits already started.
        wanted = {suit * 13 + (base + n) % 13 for suit, n in enumerate(found) if n < 13}
        started = {card for card in wanted if found[card // 13]}
        reserve_card = self.reserve[0] if len(self.reserve) == 1 else -1
        live, split, talon = self.live, self.split, self.talon
        waste = live & ((1 << split) - 1)
        waste_top = waste.bit_length() - 1
        # A card for a foundation already started is the best move there is.
        for i, pile in enumerate(tab):
            if pile and pile[-1] in started:
                return [(_FROM_PILE, i, _EW_HOME)]
        if reserve_card in started:
            return [(_FROM_RESERVE, 0, _EW_HOME)]
        if waste_top >= 0 and talon[waste_top] in started:
            return [(_FROM_STOCK, waste_top, _EW_HOME, 0, 0, 0)]
        home: list[_Move] = []
        builds: list[_Move] = []
        spread: list[_Move] = []
        # The piles a card can go on, by their top card; the first empty pile.
        open_tops = {pile[-1]: i for i, pile in enumerate(tab) if 0 < len(pile) < _TABLEAU_CAP}
        empty = next((i for i, pile in enumerate(tab) if not pile), -1)
        for i, pile in enumerate(tab):
            if not pile:
                continue
            card = pile[-1]
            if card in wanted:
                home.append((_FROM_PILE, i, _EW_HOME))
            if len(pile) == 1:
                target = open_tops.get(_PARENT[card], -1)
                if target >= 0:
                    builds.append((_FROM_PILE, i, target))
            elif empty >= 0:
                spread.append((_FROM_PILE, i, empty))
        if reserve_card >= 0:
            if reserve_card in wanted:
                home.append((_FROM_RESERVE, 0, _EW_HOME))
            target = open_tops.get(_PARENT[reserve_card], -1)
            if target >= 0:
                builds.append((_FROM_RESERVE, 0, target))
        # Cards of the stock and waste, dealt to the waste's top and played: those that
        # fit a foundation or a pile's top, or any of them when a pile is empty.
        stock: list[tuple[int, _Move]] = []
        place = self.place
        goals: list[tuple[int, int]] = []
        if empty >= 0:
            rest = live
            while rest:
                low = rest & -rest
                rest ^= low
                j = low.bit_length() - 1
                goals.append((j, empty))
        for card in wanted:
            j = place.get(card, -1)
            if j >= 0 and live >> j & 1:
                goals.append((j, _EW_HOME))
        for top, target in open_tops.items():
            j = place.get(_CHILD[top], -1)
            if j >= 0 and live >> j & 1:
                goals.append((j, target))
        if goals:
            stock_left = (live >> split).bit_count()
            may_redeal = self.redeals < _MAX_REDEALS
            for j, target in goals:
                if j == waste_top:
                    if target == _EW_HOME:
                        home.append((_FROM_STOCK, j, target, 0, 0, 0))
                    else:
                        stock.append((0, (_FROM_STOCK, j, target, 0, 0, 0)))
                elif j >= split:
                    deals = (live & ((2 << j) - 1) & ~waste).bit_count()
                    stock.append((deals, (_FROM_STOCK, j, target, deals, 0, 0)))
                elif may_redeal:
                    after = (live & ((2 << j) - 1)).bit_count()
                    stock.append((100 + after, (_FROM_STOCK, j, target, stock_left, 1, after)))
            stock.sort()
        return home + builds + [move for _, move in stock] + spread

    def notation(self, move: _Move) -> list[str]:
        kind, source, target = move[0], move[1], move[2]
        dst = "f" if target == _EW_HOME else f"t{target + 1}"
        if kind == _FROM_PILE:
            return [f"t{source + 1}>{dst}"]
        if kind == _FROM_RESERVE:
            return [f"reserve>{dst}"]
        deals, redeal, after = move[3], move[4], move[5]
        return ["deal"] * deals + ["redeal"] * redeal + ["deal"] * after + [f"waste>{dst}"]


# ----- Treize ----------------------------------------------------------------------

#: Treize places: pyramid slots 0-27, then the waste's named cards.
_WB: Final = 28
_WU: Final = 29
_WT: Final = 30
_PLACE_NAMES: Final = (*PYRAMID, "wb", "wu", "wt")
#: Move kinds ``(kind, place, other place)``.
_DEAL: Final = 0
_KING: Final = 1
_PAIR: Final = 2


def _pyramid_masks() -> tuple[list[int], list[int]]:
    """Per slot: the bits of the two slots covering it, and of every slot lying on it."""
    index = {name: i for i, name in enumerate(PYRAMID)}
    cover = [0] * len(PYRAMID)
    above = [0] * len(PYRAMID)
    for name in reversed(PYRAMID):
        if name in COVERED_BY:
            left, right = (index[c] for c in COVERED_BY[name])
            cover[index[name]] = (1 << left) | (1 << right)
            above[index[name]] = cover[index[name]] | above[left] | above[right]
    return cover, above


_COVER, _ABOVE = _pyramid_masks()


class _TreizeModel(_Model):
    """Treize, as three integers: ``pyramid`` (a bit per slot still holding its card),
    ``live`` (a bit per card of the stock-and-waste sequence not removed yet, in the order
    they are dealt) and ``dealt`` (how many of that sequence were dealt). The waste is the
    live cards below ``dealt``, oldest first. Cards are just their values here."""

    def __init__(self, game: Game) -> None:
        piles = game.piles
        self.values = [_INDEX[p[0]] % 13 + 1 if p else 0 for p in (piles[n] for n in PYRAMID)]
        self.sequence = [_INDEX[c] % 13 + 1 for c in (*piles["waste"], *reversed(piles["stock"]))]
        self.pyramid = sum(1 << i for i, v in enumerate(self.values) if v)
        self.live = (1 << len(self.sequence)) - 1
        self.dealt = len(piles["waste"])
        #: The pair of ranks (v, 13 - v) the last move removed, by ``v - 1``; -1 for none,
        #: -2 for all (no move yet).
        self.changed = -2
        self.history: list[tuple[int, int, int, int]] = []
        #: Per pair of ranks (v, 13 - v): the slots and sequence cards of each rank.
        self.ranks: list[tuple[int, int, int, int]] = [
            (
                sum(1 << i for i, v in enumerate(self.values) if v == low),
                sum(1 << i for i, v in enumerate(self.sequence) if v == low),
                sum(1 << i for i, v in enumerate(self.values) if v == 13 - low),
                sum(1 << i for i, v in enumerate(self.sequence) if v == 13 - low),
            )
            for low in range(1, 7)
        ]
        self.matchable: list[dict[int, bool]] = [{} for _ in self.ranks]
        self.layers: dict[int, _Layer] = {}

    def key(self) -> Hashable:
        return self.pyramid | self.live << 28 | self.dealt << 60

    def won(self) -> bool:
        return not self.pyramid and not self.live

    def apply(self, move: _Move) -> None:
        self.history.append((self.pyramid, self.live, self.dealt, self.changed))
        kind = move[0]
        if kind == _DEAL:
            self.dealt += 1
            self.changed = -1
            return
        waste = self.live & ((1 << self.dealt) - 1)
        for place in move[1:]:
            if place < _WB:
                value = self.values[place]
                self.pyramid &= ~(1 << place)
            elif place == _WB:
                value = self.sequence[(waste & -waste).bit_length() - 1]
                self.live &= ~(waste & -waste)
            elif place == _WT:
                value = self.sequence[waste.bit_length() - 1]
                self.live &= ~(1 << (waste.bit_length() - 1))
            else:
                under = (waste ^ 1 << (waste.bit_length() - 1)).bit_length() - 1
                value = self.sequence[under]
                self.live &= ~(1 << under)
        self.changed = -1 if kind == _KING else min(value, 13 - value) - 1

    def undo(self) -> None:
        self.pyramid, self.live, self.dealt, self.changed = self.history.pop()

    def dead(self) -> bool:
        """Some pair of ranks cannot pair off any more (see the module's docstring). Only
        the ranks the last move removed can have changed."""
        changed = self.changed
        if changed == -1:
            return False
        pyramid, live = self.pyramid, self.live
        for rank in range(len(self.ranks)) if changed == -2 else (changed,):
            low_p, low_s, high_p, high_s = self.ranks[rank]
            state = (pyramid & (low_p | high_p)) | (live & (low_s | high_s)) << 28
            ok = self.matchable[rank].get(state)
            if ok is None:
                ok = _can_pair_off(pyramid & low_p, live & low_s, pyramid & high_p, live & high_s)
                self.matchable[rank][state] = ok
            if not ok:
                return True
        return False

    def _layer(self, pyramid: int) -> _Layer:
        """What the pyramid ``pyramid`` offers, whatever the waste holds."""
        values = self.values
        exposed = 0
        slots: list[int] = []
        rest = pyramid
        while rest:
            low = rest & -rest
            rest ^= low
            slot = low.bit_length() - 1
            if not pyramid & _COVER[slot]:
                exposed |= low
                slots.append(slot)
        king = next((slot for slot in slots if values[slot] == 13), -1)
        pairs: list[_Move] = [
            (_PAIR, a, b) for i, a in enumerate(slots) for b in slots[i + 1 :] if values[a] + values[b] == 13
        ]
        partners = [tuple(slot for slot in slots if values[slot] == 13 - v) for v in range(14)]
        layer = self.layers[pyramid] = (exposed, king, pairs, partners)
        return layer

    def moves(self) -> list[_Move]:
        pyramid, sequence = self.pyramid, self.sequence
        layer = self.layers.get(pyramid)
        exposed, king, pyramid_pairs, partners = layer if layer is not None else self._layer(pyramid)
        if king >= 0:
            return [(_KING, king)]
        waste = self.live & ((1 << self.dealt) - 1)
        bottom = waste & -waste
        pairs = list(pyramid_pairs)
        low = high = 0
        if waste:
            low = sequence[bottom.bit_length() - 1]
            if low == 13:
                return [(_KING, _WB)]
            pairs += [(_PAIR, slot, _WB) for slot in partners[low]]
            if waste != bottom:
                top = waste.bit_length() - 1
                high = sequence[top]
                if high == 13:
                    return [(_KING, _WT)]
                pairs += [(_PAIR, slot, _WT) for slot in partners[high]]
                if low + high == 13:
                    pairs.append((_PAIR, _WB, _WT))
                below = waste ^ (1 << top)
                if below != bottom and sequence[below.bit_length() - 1] + high == 13:
                    pairs.append((_PAIR, _WU, _WT))
        checked = 0
        values = self.values
        for pair in pairs:
            place = pair[1]
            value = values[place] if place < _WB else low if place == _WB else high
            rank = min(value, 13 - value) - 1
            if not checked >> rank & 1:
                checked |= 1 << rank
                if self._in_hand(rank, exposed, bottom):
                    return [pair]
        if self.dealt < len(sequence):
            pairs.append((_DEAL,))
        return pairs

    def _in_hand(self, rank: int, exposed: int, bottom: int) -> bool:
        """Whether a pair of ranks (v, 13 - v), both playable now, may be removed at once:
        they are the last two of their ranks, or every card left of the two ranks is
        playable and stays so until removed (an exposed pyramid card, or ``wb``), so that
        any pairing of them leads to the same position."""
        low_p, low_s, high_p, high_s = self.ranks[rank]
        slots, cards = self.pyramid & (low_p | high_p), self.live & (low_s | high_s)
        if slots.bit_count() + cards.bit_count() == 2:
            return True
        return not slots & ~exposed and not cards & ~bottom

    def notation(self, move: _Move) -> list[str]:
        if move[0] == _DEAL:
            return ["deal"]
        return ["+".join(_PLACE_NAMES[place] for place in move[1:])]


#: What a Treize pyramid offers: exposed slots (bits), an exposed King's slot (or -1),
#: the pairs of exposed cards, and per value the exposed slots of its partner's value.
_Layer = tuple[int, int, list[_Move], list[tuple[int, ...]]]


def _can_pair_off(low_p: int, low_s: int, high_p: int, high_s: int) -> bool:
    """Whether the cards left of two ranks adding to 13 (bits of pyramid slots and of
    sequence cards, for each rank) can all be matched in pairs: two pyramid cards can
    pair unless one lies on the other."""
    lows = [(True, i) for i in range(28) if low_p >> i & 1] + [
        (False, i) for i in range(24) if low_s >> i & 1
    ]
    highs = [(True, i) for i in range(28) if high_p >> i & 1] + [
        (False, i) for i in range(24) if high_s >> i & 1
    ]

    def can_pair(a: tuple[bool, int], b: tuple[bool, int]) -> bool:
        if a[0] and b[0]:
            return not (_ABOVE[a[1]] >> b[1] & 1 or _ABOVE[b[1]] >> a[1] & 1)
        return True

    def match(k: int, used: int) -> bool:
        if k == len(lows):
            return True
        return any(
            not used >> j & 1 and can_pair(lows[k], high) and match(k + 1, used | 1 << j)
            for j, high in enumerate(highs)
        )

    return len(lows) == len(highs) and match(0, 0)

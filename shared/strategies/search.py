"""A lookahead strategy over determinized games.

:class:`SearchStrategy` never sees a hidden card: it deals games that show the racer's
view (:func:`shared.knowledge.sample_game`, hidden cards guessed from the unseen ones)
and searches those, scoring positions with :mod:`shared.strategies.heuristics`.

- **Nothing hidden** (Eight Off, Treize once the stock is out): one exact game, searched
  best first for ``budget`` positions; each first move is worth the best position found
  after it, and a move on a winning line the search meets is played at once. When the
  search sees no win, the solver (:func:`shared.solver.solve`, within ``solver_budget``
  positions) looks for one, and the strategy follows the line it finds move by move
  (:class:`shared.strategies.plan.Plan`) to the win; only when it finds none does the
  search's best-looking move go. Greedy, the search alone can walk into a dead end a few
  moves ahead (every cell full, no move but back) and give a winnable Eight Off deal up.
- **Cards hidden** (Eagle Wing, Treize): ``samples`` guessed games, each searched only
  ``depth`` moves deep (the ``width`` best-looking moves of each position); a move is
  worth its total over the samples. A deep search of one guess would plan around cards
  the racer cannot know. The guesses use what earlier views showed too
  (:class:`shared.strategies.memory.Memory`: the Eagle Wing waste's order, Treize's removed cards).

Loops: the positions the racer has stood on are remembered (by :func:`shared.knowledge.view_key`,
which ignores the order of interchangeable piles), and a move back to one is never
chosen (a solver's line through one is not followed). It gives up (``None``) when no
other move is left, or when the score has not risen for ``patience`` moves, never while
it sees a winning line. After the solver found no line, it is asked again only once the
score has risen (fewer positions are left to search), and never again in a game it
proved lost; after the board left a line (a move taken back, say), at once.

>>> from shared import new_game
>>> game = new_game("treize", 4)
>>> SearchStrategy(seed=1).choose(game.view(), game.legal_moves()) in game.legal_moves()
True
"""

from __future__ import annotations

import heapq
import itertools
import math
import random
from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from shared import Game, GameView
from shared.knowledge import hidden_count, rebuild, sample_game, view_key
from shared.solver import solve
from shared.strategies.heuristics import evaluate
from shared.strategies.memory import Memory
from shared.strategies.plan import Plan
from shared.strategies.strategy import distinct_moves

#: How much a gain is worth less for each move it takes to reach it.
STEP_COST: Final = 0.5
#: What the best-first search says a move is worth when a winning line starts with it.
WINNING: Final = math.inf
#: Positions the solver may expand for one move choice. It wins nearly every Eight Off
#: deal within a few hundred; 5,000 take about 0.4 s at worst.
SOLVER_BUDGET: Final = 5_000


class SearchStrategy:
    """Best-first search of the exact game, with the solver's winning line when the search
    sees none, when nothing is hidden; otherwise a short lookahead averaged over several
    determinizations (see the module's docstring). ``solver_budget`` 0 never asks the
    solver."""

    name = "search"

    def __init__(
        self,
        seed: int | str = 0,
        budget: int = 300,
        samples: int = 3,
        depth: int = 2,
        width: int = 4,
        patience: int = 120,
        solver_budget: int = SOLVER_BUDGET,
    ) -> None:
        if min(budget, samples, depth, width) < 1:
            raise ValueError("budget, samples, depth and width are at least 1")
        if solver_budget < 0:
            raise ValueError("solver_budget is at least 0")
        self.rng = random.Random(seed)
        self.budget = budget
        self.samples = samples
        self.depth = depth
        self.width = width
        self.patience = patience
        self.solver_budget = solver_budget
        self._game: str | None = None
        self._last_move_count = -1
        self._seen: set[Hashable] = set()
        self._memory = Memory()
        self._best_score = -1
        self._idle = 0
        self._plan: Plan | None = None
        #: The solver is asked only at a higher score than this (it found nothing at it).
        self._unsolved_at = -1
        #: The solver proved this game lost: it is not asked again.
        self._lost = False

    # ----- memory of the game being played --------------------------------------------

    def reset(self) -> None:
        """Forget the game: the next view starts a new one."""
        self._game = None
        self._last_move_count = -1
        self._seen.clear()
        self._memory = Memory()
        self._best_score = -1
        self._idle = 0
        self._plan = None
        self._unsolved_at = -1
        self._lost = False

    def _observe(self, view: Mapping[str, Any]) -> None:
        """Remember what ``view`` shows; a view of another game, or of an earlier move,
        starts a new game."""
        move_count = int(view["move_count"])
        if view["game"] != self._game or move_count < self._last_move_count:
            self.reset()
            self._game = str(view["game"])
        self._last_move_count = move_count
        self._seen.add(view_key(view))
        self._memory.observe(view)
        score = int(view["score"])
        if score > self._best_score:
            self._best_score, self._idle = score, 0
        else:
            self._idle += 1

    # ----- choosing ---------------------------------------------------------------------

    def choose(
        self, view: Mapping[str, Any], legal: Sequence[str], reached: Collection[Hashable] = ()
    ) -> str | None:
        """The best-looking of ``legal`` that leads to no position seen before: none this
        strategy stood on, nor any whose :func:`~shared.knowledge.view_key` is in
        ``reached`` (positions of this game it was not shown: a hint's history). ``None``
        gives up."""
        self._observe(view)
        self._seen.update(reached)
        if self._plan is not None:
            move = self._plan.next_move(view, legal)
            if move is not None:
                return move
            self._plan = None
        candidates = distinct_moves(view, legal)
        if not candidates:
            return None
        if hidden_count(view) == 0:
            game = rebuild(view)
            totals = self._best_first(game, candidates)
            if WINNING not in totals.values():
                move = self._solved(game, view, legal)
                if move is not None:
                    return move
        elif self._idle <= self.patience:
            totals = self._sampled_lookahead(view, candidates)
        else:
            return None
        best = max(totals, key=lambda move: totals[move], default=None)
        if best is None or (self._idle > self.patience and totals[best] != WINNING):
            return None
        return best

    def _solved(self, game: Game, view: Mapping[str, Any], legal: Sequence[str]) -> str | None:
        """The first move of the solver's winning line from ``game`` (showing ``view``),
        which the next choices follow; ``None`` when the solver is not asked (see the
        module's docstring) or finds no line that keeps off the positions seen."""
        score = int(view["score"])
        if self.solver_budget < 1 or self._lost or score <= self._unsolved_at:
            return None
        solution = solve(game, self.solver_budget)
        plan = None if solution.line is None else Plan.of_line(game, solution.line, avoid=self._seen)
        move = None if plan is None else plan.next_move(view, legal)
        if move is None:
            self._unsolved_at, self._lost = score, solution.exhausted
            return None
        self._plan = plan
        return move

    def _sampled_lookahead(self, view: Mapping[str, Any], candidates: list[str]) -> dict[str, float]:
        """Each candidate's total, over ``samples`` guesses of the hidden cards, of the best
        value within ``depth`` moves. A move back to a seen position in any guess is out."""
        totals = dict.fromkeys(candidates, 0.0)
        gone, remembered = self._memory.out_of_play, self._memory.remembered()
        for _ in range(self.samples):
            world = sample_game(view, self.rng, gone, remembered)
            for move in list(totals):
                child = world.copy()
                child.play(move)
                if view_key(child.view()) in self._seen:
                    del totals[move]
                else:
                    totals[move] += self._lookahead(child, self.depth - 1)
        return totals

    def _lookahead(self, game: Game, depth: int) -> float:
        """The best value of ``game`` or of a position within ``depth`` more moves."""
        legal = game.legal_moves()
        best = evaluate(game, len(legal))
        if depth == 0 or game.is_won or not legal:
            return best
        children: list[tuple[float, Game]] = []
        for move in distinct_moves(game.view(), legal):
            child = game.copy()
            child.play(move)
            children.append((evaluate(child, len(child.legal_moves())), child))
        children.sort(key=lambda pair: pair[0], reverse=True)
        for value, child in children[: self.width]:
            reached = self._lookahead(child, depth - 1) if depth > 1 else value
            best = max(best, reached - STEP_COST)
        return best

    def _best_first(self, game: Game, candidates: list[str]) -> dict[str, float]:
        """For each candidate: the best value a best-first search of ``budget`` positions
        reached after it (a winning line ends the search: its move alone is returned, worth
        :data:`WINNING`).
        Moves back to a seen position are out; a position met twice is searched once."""
        values: dict[str, float] = {}
        frontier: list[_Node] = []
        root = _Node.root(game)
        known = {view_key(root.view)}
        order = itertools.count(1)

        def consider(parent: _Node, move: str, first: str) -> bool:
            """Play ``move`` after ``parent``; True when it wins."""
            child = parent.game.copy()
            child.play(move)
            view = child.view()
            key = view_key(view)
            if key in known or key in self._seen:
                return False
            known.add(key)
            node = _Node.of(child, view, parent, next(order), first)
            values[first] = max(values.get(first, node.value), node.value)
            heapq.heappush(frontier, node)
            return child.is_won

        for move in candidates:
            if consider(root, move, move):
                return {move: WINNING}
        for _ in range(self.budget):
            if not frontier:
                break
            parent = heapq.heappop(frontier)
            for move in distinct_moves(parent.view, parent.legal):
                if consider(parent, move, parent.first):
                    return {parent.first: WINNING}
        return values


@dataclass(order=True, slots=True)
class _Node:
    """A position met by the best-first search; the heap pops the best-looking first."""

    priority: tuple[float, int]
    value: float = field(compare=False)
    game: Game = field(compare=False)
    view: GameView = field(compare=False)
    legal: list[str] = field(compare=False)
    #: The first move of the line that reached it.
    first: str = field(compare=False)
    depth: int = field(compare=False)

    @classmethod
    def root(cls, game: Game) -> _Node:
        """The position the search starts from."""
        return cls((0.0, 0), 0.0, game, game.view(), game.legal_moves(), "", 0)

    @classmethod
    def of(cls, game: Game, view: GameView, parent: _Node, tiebreak: int, first: str) -> _Node:
        """``game`` (showing ``view``), one move after ``parent`` on the line from ``first``."""
        legal = game.legal_moves()
        depth = parent.depth + 1
        value = evaluate(game, len(legal)) - STEP_COST * depth
        return cls((-value, tiebreak), value, game, view, legal, first, depth)

"""A winning line to follow, one move at a time, each checked against the board.

A strategy that sees every card (an Eight Off view; a Treize view once the stock is out)
may ask :func:`shared.solver.solve` for a winning line from the game it rebuilds from the
view. :meth:`Plan.of_line` keeps that line with the :func:`~shared.knowledge.view_key` of
the position each move is played from, unless it passes through a position to avoid (one
the racer already stood on: following the plan then never goes round in circles).
:meth:`Plan.next_move` gives the line's next move while the board is where the line
expects it, and nothing once it is not (another move was played, one was taken back, the
board was read again after a refusal): the plan is then over, and the strategy plans
again or chooses another way.

>>> from shared import new_game
>>> from shared.solver import solve
>>> game = new_game("eight-off", 1)
>>> plan = Plan.of_line(game, solve(game).line or [])
>>> move = plan.next_move(game.view(), game.legal_moves())
>>> move in game.legal_moves()
True
>>> plan.next_move(game.view(), game.legal_moves()) is None  # the board did not move on
True
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Hashable, Mapping, Sequence
from typing import Any

from shared import Game
from shared.knowledge import view_key


class Plan:
    """The moves of a line still to play, each with the key of the position it is
    played from."""

    def __init__(self, steps: Sequence[tuple[Hashable, str]]) -> None:
        self._steps = deque(steps)

    @classmethod
    def of_line(cls, game: Game, line: Sequence[str], avoid: Collection[Hashable] = ()) -> Plan | None:
        """The plan of playing ``line`` from ``game`` (not changed), or ``None`` when a
        position it leads to has its :func:`~shared.knowledge.view_key` in ``avoid``."""
        probe = game.copy()
        steps: list[tuple[Hashable, str]] = []
        for move in line:
            steps.append((view_key(probe.view()), move))
            probe.play(move)
            if view_key(probe.view()) in avoid:
                return None
        return cls(steps)

    def __len__(self) -> int:
        """The moves left to play."""
        return len(self._steps)

    def next_move(self, view: Mapping[str, Any], legal: Sequence[str]) -> str | None:
        """The line's move from the board ``view`` shows, one of ``legal``; ``None`` when
        the line is played out or the board is not where the line expects it, which ends
        the plan."""
        if not self._steps:
            return None
        key, move = self._steps[0]
        if key != view_key(view) or move not in legal:
            self._steps.clear()
            return None
        self._steps.popleft()
        return move

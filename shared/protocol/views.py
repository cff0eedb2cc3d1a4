"""What a racer sees of their own board, and what one move changed: typed, on the wire.

They mirror the engine's ``Game.view()`` and ``MoveResult.to_dict()`` (docs/notation.md).
"""

from __future__ import annotations

from pydantic import Field

from shared.game import GameName
from shared.protocol.base import Reply


class PileView(Reply):
    """A pile as the player sees it: ``count`` cards, of which ``cards`` are face up."""

    count: int
    cards: list[str] = Field(default_factory=list)


class BoardView(Reply):
    """A whole board as its racer sees it: never a face-down card."""

    game: GameName
    piles: dict[str, PileView]
    score: int
    won: bool
    move_count: int
    #: Eagle Wing only: the foundations' base rank and the redeals still allowed.
    base_rank: str | None = None
    redeals_left: int | None = None
    #: Every legal move in canonical notation, sorted: in ``race_started`` always, and in
    #: every other view of a session that asked for them at ``hello``.
    legal_moves: list[str] | None = None
    #: Whether the move ``undo`` would be accepted now (docs/rules.md, "Undo"): sent with
    #: ``legal_moves``.
    can_undo: bool | None = None


class MoveSummary(Reply):
    """What one accepted move changed. ``steps`` are ``[card, from, to]`` in order;
    ``card`` is null for a card moved face down (a redeal)."""

    move: str
    steps: list[tuple[str | None, str, str]]
    score_delta: int
    score: int
    won: bool

"""Playing a race: the start, moves and their acks, others' progress, giving up."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from shared.protocol.base import RaceId, Reply, Request, RequestId
from shared.protocol.views import BoardView, MoveSummary


class MakeMove(Request):
    """A move on the sender's own board; ``seq`` is 1 + the number of moves acked so far."""

    type: Literal["move"] = "move"
    id: RequestId
    race_id: RaceId
    seq: Annotated[int, Field(ge=1)]
    move: Annotated[str, Field(min_length=1, max_length=32)]


class Finish(Request):
    """Give up: stop playing and keep the score reached."""

    type: Literal["finish"] = "finish"
    id: RequestId
    race_id: RaceId


class MoveAck(Reply):
    """Reply to an accepted move: what changed and the racer's new view."""

    type: Literal["move_ack"] = "move_ack"
    id: RequestId | None = None
    race_id: str
    seq: int
    result: MoveSummary
    view: BoardView
    finished: bool = False
    #: ``view.piles`` holds only the piles this move changed (the session asked for that
    #: with ``changed_piles``): laid over the board's view at ``seq - 1``, pile by pile,
    #: they give the whole view (``shared.views.merged_view``). Every other field of the
    #: view is whole.
    changed_only: bool = False
    #: The stored ack of the seq sent again: nothing was played now (the move had been
    #: played under that seq before, by this request's earlier send or another session).
    resent: bool = False


class RaceStarted(Reply):
    """Event: moves are accepted from now on; every racer gets this same deal."""

    type: Literal["race_started"] = "race_started"
    race_id: str
    starts_at: int
    ends_at: int
    view: BoardView


class Progress(Reply):
    """Event: another racer's progress (never their cards)."""

    type: Literal["progress"] = "progress"
    race_id: str
    player_id: str
    score: int
    cards_left: int
    move_count: int
    finished: bool
    won: bool


Requests = MakeMove | Finish
Replies = MoveAck | RaceStarted | Progress

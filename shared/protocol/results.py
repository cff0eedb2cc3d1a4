"""A race's end: standings, the revealed seed, the move log."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from shared.game import GameName
from shared.protocol.base import RaceId, Reply, Request, RequestId
from shared.protocol.views import BoardView

#: Most views one ``replay`` reply carries.
REPLAY_LIMIT_MAX = 200


class GetResults(Request):
    type: Literal["get_results"] = "get_results"
    id: RequestId
    race_id: RaceId


class GetMoveLog(Request):
    type: Literal["get_move_log"] = "get_move_log"
    id: RequestId
    race_id: RaceId


class GetReplay(Request):
    """A racer's board after each of their moves in a race that ended (the deal first),
    a page at a time: for clients that draw a replay without running the rules."""

    type: Literal["get_replay"] = "get_replay"
    id: RequestId
    race_id: RaceId
    player_id: Annotated[str, Field(min_length=1, max_length=64)]
    offset: Annotated[int, Field(ge=0, le=1_000_000)] = 0
    limit: Annotated[int, Field(ge=1, le=REPLAY_LIMIT_MAX)] = 100


class Standing(Reply):
    """One line of a race's results, best first; equal results share a rank."""

    rank: int
    player_id: str
    name: str
    bot: bool = False
    won: bool
    score: int
    move_count: int
    time_ms: int | None = None
    score_reached_ms: int | None = None
    #: The racer gave up (sent ``finish``) without having won; false for a winner and for
    #: one still playing when the race ended (and in summaries stored before the field).
    gave_up: bool = False
    #: In a rated race: the racer's rating after it, the change it made, and whether the
    #: new rating is still provisional (shown with a ``?``; false in results stored
    #: before the field).
    rating: int | None = None
    rating_change: int | None = None
    provisional: bool = False


class RaceSummary(Reply):
    race_id: str
    game: GameName
    started_at: int
    ended_at: int
    #: Absent for a daily attempt until its day is closed (``reveals_at``).
    seed: int | None = None
    salt: str | None = None
    commitment: str
    #: A daily attempt's (or practice's): when its seed and salt are revealed, once its
    #: day's last attempts are surely over (the day's end, plus an attempt's time limit,
    #: plus a minute); absent for other races.
    reveals_at: int | None = None
    #: Whether the race changed its racers' ratings (each standing then has them).
    rated: bool = False
    standings: list[Standing]
    #: A daily challenge run's day (``YYYY-MM-DD``), and what the run was: ``scored`` (an
    #: account's scored attempt), ``unscored`` (a guest's first attempt: the day's attempt,
    #: not ranked) or ``practice`` (a run after the attempt). Absent for other races.
    daily: str | None = None
    attempt: Literal["scored", "unscored", "practice"] | None = None


class LoggedMove(Reply):
    player_id: str
    seq: int
    move: str
    at: int


class Results(Reply):
    type: Literal["results"] = "results"
    id: RequestId | None = None
    summary: RaceSummary


class MoveLog(Reply):
    type: Literal["move_log"] = "move_log"
    id: RequestId | None = None
    race_id: str
    game: GameName
    #: Absent for a daily attempt until its day is closed (``RaceSummary.reveals_at``).
    seed: int | None = None
    salt: str | None = None
    commitment: str
    moves: list[LoggedMove]


class Replay(Reply):
    """``views[i]`` is the board after ``offset + i`` of the racer's moves (0: the deal);
    ``moves[i]`` is the move that led to it (empty for the deal) and ``times[i]`` when it
    was played, in ms since the race's start (0 for the deal). ``total`` counts every view
    there is, so the last one is ``total - 1``."""

    type: Literal["replay"] = "replay"
    id: RequestId | None = None
    race_id: str
    player_id: str
    game: GameName
    total: int
    offset: int
    views: list[BoardView]
    moves: list[str]
    times: list[int] = []


class RaceEnded(Reply):
    """Event: the race is over; the seed is revealed and results are final."""

    type: Literal["race_ended"] = "race_ended"
    race_id: str
    summary: RaceSummary


class RaceCancelled(Reply):
    """Event: the race is void and has no results (``reason`` says why; the seed stays
    secret: the deal was never played)."""

    type: Literal["race_cancelled"] = "race_cancelled"
    race_id: str
    reason: Literal["missed"]
    message: str


Requests = GetResults | GetMoveLog | GetReplay
Replies = Results | MoveLog | Replay | RaceEnded | RaceCancelled

"""A race's end: standings, the revealed seed, the move log."""

from __future__ import annotations

from typing import Literal

from shared.game import GameName
from shared.protocol.base import RaceId, Reply, Request, RequestId


class GetResults(Request):
    type: Literal["get_results"] = "get_results"
    id: RequestId
    race_id: RaceId


class GetMoveLog(Request):
    type: Literal["get_move_log"] = "get_move_log"
    id: RequestId
    race_id: RaceId


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


class RaceSummary(Reply):
    race_id: str
    game: GameName
    started_at: int
    ended_at: int
    seed: int
    salt: str
    commitment: str
    standings: list[Standing]


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
    seed: int
    salt: str
    commitment: str
    moves: list[LoggedMove]


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


Requests = GetResults | GetMoveLog
Replies = Results | MoveLog | RaceEnded | RaceCancelled

"""Setting a race up: create, join, list, leave, ready, start, look at one race."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from shared.fairness import DIGEST_PATTERN, SHARE_PATTERN
from shared.game import GameName
from shared.protocol.base import RaceId, Reply, Request, RequestId
from shared.protocol.rematch_offer import RematchInfo
from shared.protocol.session import QueueStay
from shared.protocol.views import BoardView

#: The shortest and longest race, in seconds.
TIME_LIMIT_MIN = 1.0
TIME_LIMIT_MAX = 24 * 3600.0
#: The most seats a race has.
SEATS_MAX = 8

#: The SHA-256 (hex) of a racer's seed share, sent when joining (docs/deals.md).
ShareCommitment = Annotated[str, Field(pattern=DIGEST_PATTERN)]
#: A racer's seed share, revealed with ``ready`` or ``reveal_share``.
SeedShare = Annotated[str, Field(pattern=SHARE_PATTERN)]

RaceStatusName = Literal["open", "countdown", "running", "ending", "finished", "cancelled"]


class CreateRace(Request):
    type: Literal["create_race"] = "create_race"
    id: RequestId
    game: GameName
    seats: Annotated[int, Field(ge=2, le=SEATS_MAX)] = 2
    time_limit: Annotated[float, Field(ge=TIME_LIMIT_MIN, le=TIME_LIMIT_MAX)] = 600.0
    #: Whether racers may ask for hints (``get_hint``): by default a casual race allows
    #: them and a rated one does not (a rated race never has them).
    hints: bool | None = None
    #: A rated race changes its racers' ratings; only accounts may race it.
    rated: bool = False
    #: The creator's seed share commitment (docs/deals.md); reveal the share with ``ready``.
    share_commitment: ShareCommitment | None = None


class JoinRace(Request):
    type: Literal["join_race"] = "join_race"
    id: RequestId
    code: Annotated[str, Field(min_length=4, max_length=12, pattern=r"^[A-Za-z0-9]+$")]
    #: The racer's seed share commitment (docs/deals.md); reveal the share with ``ready``.
    share_commitment: ShareCommitment | None = None


#: The most open races one ``race_list`` carries.
LIST_LIMIT_MAX = 50


class ListRaces(Request):
    """Open races, oldest first, a page at a time: ``offset`` races are skipped."""

    type: Literal["list_races"] = "list_races"
    id: RequestId
    game: GameName | None = None
    offset: Annotated[int, Field(ge=0, le=100_000)] = 0
    limit: Annotated[int, Field(ge=1, le=LIST_LIMIT_MAX)] = 20


class ListMyRaces(Request):
    """The races the sender sits in that are not over, and the quick match they wait in
    (asked for by any of their sessions: another tab or device too)."""

    type: Literal["list_my_races"] = "list_my_races"
    id: RequestId


class LeaveRace(Request):
    type: Literal["leave_race"] = "leave_race"
    id: RequestId
    race_id: RaceId


class Ready(Request):
    type: Literal["ready"] = "ready"
    id: RequestId
    race_id: RaceId
    ready: bool = True
    #: The seed share whose commitment came with the join; without it (lost: another
    #: device, a restarted client) the racer is ready and their share is left out.
    share: SeedShare | None = None


class RevealShare(Request):
    """The seed share whose commitment came with the seat, revealed before the start:
    during the countdown of a race that had no ready step (a quick match, a rematch), or
    by the session that kept it when the racer got ready without it elsewhere."""

    type: Literal["reveal_share"] = "reveal_share"
    id: RequestId
    race_id: RaceId
    share: SeedShare


class StartRace(Request):
    type: Literal["start_race"] = "start_race"
    id: RequestId
    race_id: RaceId


class GetRace(Request):
    type: Literal["get_race"] = "get_race"
    id: RequestId
    race_id: RaceId


class RacerInfo(Reply):
    """What everyone may know about a racer: never their cards."""

    player_id: str
    name: str
    bot: bool = False
    ready: bool = False
    score: int = 0
    cards_left: int = 52
    move_count: int = 0
    finished: bool = False
    won: bool = False
    #: Once the race has started: a winner's time to win, and when the racer's score
    #: became what it is (0: never changed), ms since the start, as the results have them;
    #: so a client that opens a race under way ranks its racers as the results will.
    time_ms: int | None = None
    score_reached_ms: int | None = None
    #: Whether the racer committed to a seed share, and whether they revealed it.
    share_committed: bool = False
    share_revealed: bool = False
    #: The racer's rating in the race's game (accounts only: one without a rating in the
    #: game yet has 1500, provisional), and whether it is still provisional (shown with a
    #: ``?``).
    rating: int | None = None
    provisional: bool = False
    #: In an open race (its lobby): the racer has no connection to the server now. Their
    #: seat is kept for the server's lobby grace (``welcome.lobby_grace``), then freed.
    away: bool = False


class BoardState(Reply):
    """The requesting racer's own board: the next seq to send is ``seq + 1``."""

    seq: int
    view: BoardView
    finished: bool = False


class RaceInfo(Reply):
    """A race as the requester may see it; the seed appears only once the race is over."""

    race_id: str
    code: str
    game: GameName
    seats: int
    time_limit: float
    status: RaceStatusName
    creator: str
    racers: list[RacerInfo]
    server_time: int
    #: Whether ``get_hint`` is allowed in this race (every racer sees the setting).
    hints: bool = False
    #: Whether the race changes its racers' ratings.
    rated: bool = False
    #: People watching the race now (``spectators`` events tell changes).
    spectators: int = 0
    starts_at: int | None = None
    ends_at: int | None = None
    commitment: str | None = None
    board: BoardState | None = None
    seed: int | None = None
    salt: str | None = None
    #: A daily challenge run's day and what the run is (as in ``RaceSummary``); absent
    #: for other races.
    daily: str | None = None
    attempt: Literal["scored", "unscored", "practice"] | None = None
    #: In ``get_race`` of a finished race, to one of its racers: the latest rematch offer
    #: of it, if any was made (``rematch_update`` tells its steps as they come).
    rematch: RematchInfo | None = None


class Race(Reply):
    """Reply carrying one race (create, join, get)."""

    type: Literal["race"] = "race"
    id: RequestId | None = None
    race: RaceInfo


class RaceList(Reply):
    """A page of open races; ``next_offset`` asks for the next page (absent on the last)."""

    type: Literal["race_list"] = "race_list"
    id: RequestId | None = None
    races: list[RaceInfo]
    next_offset: int | None = None


class MyRaces(Reply):
    """Reply to ``list_my_races``: race ids, in order; ``queued`` is absent for no queue."""

    type: Literal["my_races"] = "my_races"
    id: RequestId | None = None
    races: list[str]
    queued: QueueStay | None = None


class RaceUpdate(Reply):
    """Event: seats or readiness changed in a race that has not started."""

    type: Literal["race_update"] = "race_update"
    race: RaceInfo
    #: The players this update unseated: not ready when the creator started this rated
    #: race (a rated race starts with its ready racers). Absent otherwise.
    left_out: list[str] | None = None


class RaceCountdown(Reply):
    """Event: the race starts at ``starts_at`` (server ms); the seed's commitment is public."""

    type: Literal["race_countdown"] = "race_countdown"
    race_id: str
    starts_at: int
    ends_at: int
    commitment: str
    server_time: int


Requests = (
    CreateRace | JoinRace | ListRaces | ListMyRaces | LeaveRace | Ready | RevealShare | StartRace | GetRace
)
Replies = Race | RaceList | MyRaces | RaceUpdate | RaceCountdown

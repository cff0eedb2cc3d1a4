"""Daily challenges: one deal per game per UTC day, one scored attempt each, the day's
boards. An attempt is a race of one: its moves, finish and end are the race messages."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from shared.game import GameName
from shared.protocol.base import Reply, Request, RequestId
from shared.protocol.lobby import RaceInfo

#: A day, as ``YYYY-MM-DD`` (UTC).
Day = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")]
#: The longest page of a day's board.
DAILY_BOARD_LIMIT_MAX = 100


class GetDailies(Request):
    """The day's deals (today's by default) with their commitments; a past day's seeds."""

    type: Literal["get_dailies"] = "get_dailies"
    id: RequestId
    date: Day | None = None


class DailyAttempt(Reply):
    """The sender's first attempt of a daily deal: ``scored`` unless a guest made it."""

    race_id: str
    scored: bool


class DailyInfo(Reply):
    """One daily deal. ``proven``: the solver found a win before it was published. The
    ``seed`` and ``salt`` appear once the day is closed (``Dailies.reveals_at``)."""

    game: GameName
    commitment: str
    proven: bool
    seed: int | None = None
    salt: str | None = None
    attempt: DailyAttempt | None = None


class Dailies(Reply):
    """A day's deals. The day runs from ``opens_at`` to ``closes_at`` (00:00 to 24:00
    UTC); an attempt begun before its end still runs after it, so the day's seeds and
    everyone's attempts open only at ``reveals_at``, once its last attempts are surely over
    (the end, plus an attempt's time limit, plus a minute)."""

    type: Literal["dailies"] = "dailies"
    id: RequestId | None = None
    date: str
    opens_at: int
    closes_at: int
    reveals_at: int
    server_time: int
    deals: list[DailyInfo]


class StartDaily(Request):
    """Play today's deal of ``game``: the first attempt of an account is its scored one;
    ``practice`` plays it again, unscored, once the scored attempt is over."""

    type: Literal["start_daily"] = "start_daily"
    id: RequestId
    game: GameName
    practice: bool = False


class DailyStarted(Reply):
    """The attempt, a race of one already running: ``race.board`` is the deal (or the
    board as far as it got). Send moves and ``finish`` as in any race; its clock runs for
    ``time_limit`` from its start, ``race.starts_at``. ``resumed``: the attempt had started
    before (the player came back to it), and its clock has been running since."""

    type: Literal["daily_started"] = "daily_started"
    id: RequestId | None = None
    date: str
    scored: bool
    race: RaceInfo
    resumed: bool = False


class GetDailyBoard(Request):
    type: Literal["get_daily_board"] = "get_daily_board"
    id: RequestId
    game: GameName
    date: Day | None = None
    offset: Annotated[int, Field(ge=0, le=1_000_000)] = 0
    limit: Annotated[int, Field(ge=1, le=DAILY_BOARD_LIMIT_MAX)] = 50


class DailyEntry(Reply):
    """A finished scored attempt. ``race_id`` (for its results and move log) is shown to
    its own player, and to all once the day is closed (``Dailies.reveals_at``): nobody
    reads another's attempt before, whatever their own."""

    rank: int
    player_id: str
    name: str
    bot: bool = False
    won: bool
    score: int
    time_ms: int | None = None
    race_id: str | None = None
    #: The player gave up (sent ``finish``) without having won; false for a win and for
    #: an attempt whose time ran out (and for attempts stored before the field).
    gave_up: bool = False


class DailyBoard(Reply):
    """Winners first by time, then by cards home, then who reached them first; ties share
    a rank. ``me`` is the sender's entry once their scored attempt is over. ``reveals_at``
    is when the day is closed, so when every entry's ``race_id`` shows (None from a
    server that does not say)."""

    type: Literal["daily_board"] = "daily_board"
    id: RequestId | None = None
    date: str
    game: GameName
    total: int
    entries: list[DailyEntry]
    me: DailyEntry | None = None
    next_offset: int | None = None
    reveals_at: int | None = None


class DailyGhosts(Request):
    """During one's own scored attempt: race (``on``) or stop racing the day's best three
    finished attempts of that deal, replayed at the same elapsed times as ``ghost`` events."""

    type: Literal["daily_ghosts"] = "daily_ghosts"
    id: RequestId
    race_id: Annotated[str, Field(min_length=1, max_length=64)]
    on: bool = True


class GhostInfo(Reply):
    """A ghost: a finished scored attempt of the day's deal, with its place and result on
    the day's board (its :class:`DailyEntry`'s)."""

    player_id: str
    name: str
    rank: int
    won: bool
    time_ms: int | None = None
    #: The player gave up (sent ``finish``) without having won, as the board's
    #: ``DailyEntry.gave_up`` says it: its replay ends given up; false for a win and for
    #: an attempt whose time ran out.
    gave_up: bool = False


class Ghosts(Reply):
    """Reply to ``daily_ghosts``: the ghosts now racing (none once turned off)."""

    type: Literal["ghosts"] = "ghosts"
    id: RequestId | None = None
    race_id: str
    ghosts: list[GhostInfo]


class Ghost(Reply):
    """Event: where a ghost was ``elapsed_ms`` into its attempt (its progress, never its
    cards), sent when the attempt's own clock reaches the same elapsed time."""

    type: Literal["ghost"] = "ghost"
    race_id: str
    player_id: str
    elapsed_ms: int
    score: int
    cards_left: int
    move_count: int
    finished: bool
    won: bool


class GetDailyStandings(Request):
    """The daily tournament: a day's overall standing (today's by default), this week's
    and the all-time tables of points, and the sender's streak."""

    type: Literal["get_daily_standings"] = "get_daily_standings"
    id: RequestId
    date: Day | None = None


class TournamentEntry(Reply):
    """A player's day: points summed over the three games' boards, and their place on each."""

    rank: int
    player_id: str
    name: str
    bot: bool = False
    points: int
    places: dict[GameName, int]


class TableEntry(Reply):
    rank: int
    player_id: str
    name: str
    bot: bool = False
    points: int


class Streak(Reply):
    """Consecutive days with a scored attempt: the current run and the best."""

    current: int
    best: int


class DailyStandings(Reply):
    """``day`` is live until the day is counted; ``week`` (the ISO week of ``date``) and
    ``all_time`` count the days already over. The top 20 of each table.

    The sender's own entry in each table, wherever they stand in it (inside the top 20
    too: it is then also one of the table's rows), and absent when they have no points
    there (a guest, or an account without a scored attempt that day, or a counted day
    that week or ever): ``me_day`` in the day's standing (with their places), ``me_week``
    in the week's table and ``me_all_time`` in the all-time table. Its ``rank`` follows
    the tables' rule: one more than the players with strictly more points.

    ``counted`` says whether the day is counted: its standing final, its points in the
    week's and all-time tables. ``counts_at`` is when it is due to be, in ms: once an
    attempt begun at the day's last moment is surely over (nodes count within a minute
    of it)."""

    type: Literal["daily_standings"] = "daily_standings"
    id: RequestId | None = None
    date: str
    week: str
    counted: bool
    counts_at: int
    day: list[TournamentEntry]
    week_table: list[TableEntry]
    all_time: list[TableEntry]
    streak: Streak | None = None
    me_day: TournamentEntry | None = None
    me_week: TableEntry | None = None
    me_all_time: TableEntry | None = None


Requests = GetDailies | StartDaily | GetDailyBoard | DailyGhosts | GetDailyStandings
Replies = Dailies | DailyStarted | DailyBoard | Ghosts | Ghost | DailyStandings

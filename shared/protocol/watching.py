"""Spectating: the live races, watching one (or the featured one), and a race's record."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from shared.game import GameName
from shared.protocol.base import RaceId, Reply, Request, RequestId
from shared.protocol.lobby import RacerInfo
from shared.protocol.views import BoardView

#: The most races one ``live_races`` reply carries.
LIVE_LIMIT_MAX = 50


class ListLive(Request):
    """The races being played now (counting down or running), best first: the highest
    rated racer first, then the most watched, then the newest. Daily challenge attempts
    are never listed (their deal is the whole day's)."""

    type: Literal["list_live"] = "list_live"
    id: RequestId
    game: GameName | None = None
    limit: Annotated[int, Field(ge=1, le=LIVE_LIMIT_MAX)] = 20


class Watch(Request):
    """Watch a race live: every racer's board, as each racer sees it. Without
    ``race_id``, follow the featured race, and the next one whenever it ends. A
    connection watches one race at a time: a new ``watch`` replaces the last."""

    type: Literal["watch"] = "watch"
    id: RequestId
    race_id: RaceId | None = None


class Unwatch(Request):
    """Stop watching (answered with ``ok``)."""

    type: Literal["unwatch"] = "unwatch"
    id: RequestId


class GetRecord(Request):
    """A finished race's record (docs/record.md): seeds, shares, racers, results and
    every move with its time; check it offline with ``shared.record.verify_record``."""

    type: Literal["get_record"] = "get_record"
    id: RequestId
    race_id: RaceId


class LiveRace(Reply):
    """A race being played, as anyone may see it: no seed, no cards."""

    race_id: str
    game: GameName
    status: Literal["countdown", "running", "ending", "finished"]
    rated: bool
    starts_at: int | None = None
    ends_at: int | None = None
    #: Racers with their ratings (accounts in the race's game) and live progress.
    racers: list[RacerInfo]
    #: People watching now, on every node.
    spectators: int = 0
    #: Spectators see each board this long after it was played (rated races).
    delay_ms: int = 0


class LiveRaces(Reply):
    type: Literal["live_races"] = "live_races"
    id: RequestId | None = None
    races: list[LiveRace]


class SpectatorBoard(Reply):
    """One racer's board as a spectator sees it: exactly the racer's own view, never a
    face-down card. ``seq`` counts the racer's moves shown so far; ``last_move`` is the
    move ``seq`` as its ``watch_move`` names it (canonical notation, or ``undo``), absent
    before the racer's first move. In a delayed race both are as of ``as_of``: never a
    move the spectator is not shown yet. ``view`` is absent until the race's start
    reaches the spectator (``race_started``, which carries the deal): nobody sees the
    deal before the race starts. ``held`` is true while the racer's moves are held back
    for showing cards another racer has not seen (see :class:`WatchHeld`); the server
    leaves it out otherwise."""

    player_id: str
    seq: int
    view: BoardView | None = None
    last_move: str | None = None
    finished: bool = False
    won: bool = False
    held: bool = False


class Watching(Reply):
    """The answer to ``watch``, and the event of a featured watch moving on to the next
    race (then ``id`` is absent). ``race`` is absent while a featured watch waits for a
    race to be played. ``boards`` are as of ``as_of`` (server ms): ``delay_ms`` before
    now in a delayed race. Later ``watch_move`` events with a ``seq`` at or below a
    board's are already in it."""

    type: Literal["watching"] = "watching"
    id: RequestId | None = None
    featured: bool = False
    race: LiveRace | None = None
    delay_ms: int = 0
    as_of: int = 0
    boards: list[SpectatorBoard] = Field(default_factory=list)


class WatchMove(Reply):
    """Event for spectators: a racer's move ``seq`` played at ``at`` (server ms), and the
    racer's board after it."""

    type: Literal["watch_move"] = "watch_move"
    race_id: str
    player_id: str
    seq: int
    move: str
    at: int
    view: BoardView


class WatchHeld(Reply):
    """Event for spectators: a racer's board stops (``held`` true) or goes on (false).
    In a game whose stock hides cards (Treize, Eagle Wing) a move whose board shows a
    card that another racer still racing has not turned up yet is held back, with that
    racer's later moves, until every other racer has seen it, won or given up, or the
    race ends; ``held`` false comes just before the first move held back."""

    type: Literal["watch_held"] = "watch_held"
    race_id: str
    player_id: str
    held: bool


class RacerRenamed(Reply):
    """Event for spectators: a racer of the race watched goes by ``name`` from now on (a
    guest renamed, or registered as an account). Sent at once, in a delayed race too: a
    name is not a board. A racer with a rating (an account: a guest who registered has
    1500, provisional) has it here too, as in the race's racers."""

    type: Literal["racer_renamed"] = "racer_renamed"
    race_id: str
    player_id: str
    name: str
    rating: int | None = None
    provisional: bool = False


class Spectators(Reply):
    """Event for racers and spectators: how many people watch the race now."""

    type: Literal["spectators"] = "spectators"
    race_id: str
    count: int


class RecordText(Reply):
    """A finished race's record, as text (docs/record.md)."""

    type: Literal["record"] = "record"
    id: RequestId | None = None
    race_id: str
    text: str


Requests = ListLive | Watch | Unwatch | GetRecord
Replies = LiveRaces | Watching | WatchMove | WatchHeld | RacerRenamed | Spectators | RecordText

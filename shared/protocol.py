"""The wire protocol: every message as a pydantic model, and its msgpack/JSON codec.

Pure and synchronous: no I/O. A client message is a request carrying an ``id``;
the server's reply (or error) echoes it. Events pushed by the server carry no ``id``.

>>> frame = encode(Hello(id=1, name="ada"), binary=False)
>>> frame
'{"type":"hello","id":1,"protocol":1,"name":"ada"}'
>>> decode_client(frame)
Hello(type='hello', id=1, protocol=1, name='ada', token=None)
>>> try:
...     decode_client(b"\\xc1")
... except ProtocolError as exc:
...     print(exc.code.value, "-", exc.message)
malformed - the binary frame is not valid msgpack
"""

from __future__ import annotations

import json
import re
from enum import StrEnum
from typing import Annotated, Any, Final, Literal

import msgpack
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

#: Bumped on any incompatible change; exchanged in ``hello``/``welcome``.
PROTOCOL_VERSION: Final = 1

GameName = Literal["eagle-wing", "treize", "eight-off"]
RequestId = Annotated[int | str, Field(union_mode="left_to_right")]
RaceId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
NAME_MAX: Final = 24
_NAME_RE: Final = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9 _.\-]*[A-Za-z0-9_.\-])?")


def _check_name(name: str) -> str:
    if not 1 <= len(name) <= NAME_MAX:
        raise ValueError(f"a name has 1 to {NAME_MAX} characters")
    if _NAME_RE.fullmatch(name) is None:
        raise ValueError(
            "a name starts with a letter or digit and uses only letters, digits, spaces, '_', '-' and '.'"
        )
    return name


PlayerName = Annotated[str, AfterValidator(_check_name)]


class ErrorCode(StrEnum):
    """The fixed set of error codes an ``error`` message may carry."""

    MALFORMED = "malformed"
    UNKNOWN_TYPE = "unknown_type"
    INVALID_MESSAGE = "invalid_message"
    UNSUPPORTED_PROTOCOL = "unsupported_protocol"
    HELLO_REQUIRED = "hello_required"
    BAD_TOKEN = "bad_token"
    RATE_LIMITED = "rate_limited"
    RACE_NOT_FOUND = "race_not_found"
    NOT_A_RACER = "not_a_racer"
    RACE_FULL = "race_full"
    RACE_NOT_OPEN = "race_not_open"
    RACE_NOT_STARTED = "race_not_started"
    RACE_OVER = "race_over"
    RACE_NOT_OVER = "race_not_over"
    RACER_FINISHED = "racer_finished"
    NOT_CREATOR = "not_creator"
    NOT_ENOUGH_RACERS = "not_enough_racers"
    ILLEGAL_MOVE = "illegal_move"
    STALE_SEQ = "stale_seq"
    FUTURE_SEQ = "future_seq"
    INTERNAL_ERROR = "internal_error"


class ProtocolError(Exception):
    """A frame that cannot become a message; carries the wire error code."""

    def __init__(self, code: ErrorCode, message: str, request_id: int | str | None = None) -> None:
        super().__init__(f"{code.value}: {message}")
        self.code = code
        self.message = message
        self.request_id = request_id


class _Message(BaseModel):
    """A request: unknown fields are rejected."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class _Reply(BaseModel):
    """A server message or part of one: unknown fields are ignored (newer servers)."""

    model_config = ConfigDict(extra="ignore", frozen=True)


# ----- client to server: requests ----------------------------------------------------


class Hello(_Message):
    """Open a session: a new guest with ``name``, or resume one with ``token``."""

    type: Literal["hello"] = "hello"
    id: RequestId
    protocol: int = PROTOCOL_VERSION
    name: PlayerName | None = None
    token: Annotated[str, Field(min_length=16, max_length=128)] | None = None


class CreateRace(_Message):
    type: Literal["create_race"] = "create_race"
    id: RequestId
    game: GameName
    seats: Annotated[int, Field(ge=2, le=8)] = 2
    time_limit: Annotated[float, Field(gt=0, le=24 * 3600)] = 600.0


class JoinRace(_Message):
    type: Literal["join_race"] = "join_race"
    id: RequestId
    code: Annotated[str, Field(min_length=4, max_length=12, pattern=r"^[A-Za-z0-9]+$")]


class ListRaces(_Message):
    type: Literal["list_races"] = "list_races"
    id: RequestId
    game: GameName | None = None


class LeaveRace(_Message):
    type: Literal["leave_race"] = "leave_race"
    id: RequestId
    race_id: RaceId


class Ready(_Message):
    type: Literal["ready"] = "ready"
    id: RequestId
    race_id: RaceId
    ready: bool = True


class StartRace(_Message):
    type: Literal["start_race"] = "start_race"
    id: RequestId
    race_id: RaceId


class MakeMove(_Message):
    """A move on the sender's own board; ``seq`` is 1 + the number of moves acked so far."""

    type: Literal["move"] = "move"
    id: RequestId
    race_id: RaceId
    seq: Annotated[int, Field(ge=1)]
    move: Annotated[str, Field(min_length=1, max_length=32)]


class Finish(_Message):
    """Give up: stop playing and keep the score reached."""

    type: Literal["finish"] = "finish"
    id: RequestId
    race_id: RaceId


class GetRace(_Message):
    type: Literal["get_race"] = "get_race"
    id: RequestId
    race_id: RaceId


class GetResults(_Message):
    type: Literal["get_results"] = "get_results"
    id: RequestId
    race_id: RaceId


class GetMoveLog(_Message):
    type: Literal["get_move_log"] = "get_move_log"
    id: RequestId
    race_id: RaceId


class QuickMatch(_Message):
    type: Literal["quick_match"] = "quick_match"
    id: RequestId
    game: GameName


class CancelQuickMatch(_Message):
    type: Literal["cancel_quick_match"] = "cancel_quick_match"
    id: RequestId


class Ping(_Message):
    type: Literal["ping"] = "ping"
    id: RequestId


ClientMessage = Annotated[
    Hello
    | CreateRace
    | JoinRace
    | ListRaces
    | LeaveRace
    | Ready
    | StartRace
    | MakeMove
    | Finish
    | GetRace
    | GetResults
    | GetMoveLog
    | QuickMatch
    | CancelQuickMatch
    | Ping,
    Field(discriminator="type"),
]

# ----- shared parts -------------------------------------------------------------------


class RacerInfo(_Reply):
    """What everyone may know about a racer: never their cards."""

    player_id: str
    name: str
    ready: bool = False
    score: int = 0
    cards_left: int = 52
    move_count: int = 0
    finished: bool = False
    won: bool = False


class BoardState(_Reply):
    """The requesting racer's own board: the next seq to send is ``seq + 1``."""

    seq: int
    view: dict[str, Any]
    finished: bool = False


class RaceInfo(_Reply):
    """A race as the requester may see it; the seed appears only once the race is over."""

    race_id: str
    code: str
    game: GameName
    seats: int
    time_limit: float
    status: Literal["open", "countdown", "running", "ending", "finished", "cancelled"]
    creator: str
    racers: list[RacerInfo]
    server_time: int
    starts_at: int | None = None
    ends_at: int | None = None
    commitment: str | None = None
    board: BoardState | None = None
    seed: int | None = None
    salt: str | None = None


class Standing(_Reply):
    """One line of a race's results, best first."""

    rank: int
    player_id: str
    name: str
    won: bool
    score: int
    move_count: int
    time_ms: int | None = None
    score_reached_ms: int | None = None


class RaceSummary(_Reply):
    race_id: str
    game: GameName
    started_at: int
    ended_at: int
    seed: int
    salt: str
    commitment: str
    standings: list[Standing]


class LoggedMove(_Reply):
    player_id: str
    seq: int
    move: str
    at: int


# ----- server to client: replies and events --------------------------------------------


class Welcome(_Reply):
    """Reply to ``hello``. ``token`` is secret: it resumes this player on any connection."""

    type: Literal["welcome"] = "welcome"
    id: RequestId | None = None
    protocol: int = PROTOCOL_VERSION
    player_id: str
    name: str
    token: str
    resumed: bool = False
    races: list[str] = Field(default_factory=list)
    server_time: int


class Error(_Reply):
    type: Literal["error"] = "error"
    id: RequestId | None = None
    code: ErrorCode
    message: str


class Ok(_Reply):
    type: Literal["ok"] = "ok"
    id: RequestId | None = None


class Pong(_Reply):
    type: Literal["pong"] = "pong"
    id: RequestId | None = None
    server_time: int


class Race(_Reply):
    """Reply carrying one race (create, join, get)."""

    type: Literal["race"] = "race"
    id: RequestId | None = None
    race: RaceInfo


class RaceList(_Reply):
    type: Literal["race_list"] = "race_list"
    id: RequestId | None = None
    races: list[RaceInfo]


class MoveAck(_Reply):
    """Reply to an accepted move: what changed and the racer's new view."""

    type: Literal["move_ack"] = "move_ack"
    id: RequestId | None = None
    race_id: str
    seq: int
    result: dict[str, Any]
    view: dict[str, Any]
    finished: bool = False


class Queued(_Reply):
    type: Literal["queued"] = "queued"
    id: RequestId | None = None
    game: GameName


class Results(_Reply):
    type: Literal["results"] = "results"
    id: RequestId | None = None
    summary: RaceSummary


class MoveLog(_Reply):
    type: Literal["move_log"] = "move_log"
    id: RequestId | None = None
    race_id: str
    game: GameName
    seed: int
    salt: str
    commitment: str
    moves: list[LoggedMove]


class RaceUpdate(_Reply):
    """Event: seats or readiness changed in a race that has not started."""

    type: Literal["race_update"] = "race_update"
    race: RaceInfo


class MatchFound(_Reply):
    """Event: quick match paired the player into a race."""

    type: Literal["match_found"] = "match_found"
    race: RaceInfo


class RaceCountdown(_Reply):
    """Event: the race starts at ``starts_at`` (server ms); the seed's commitment is public."""

    type: Literal["race_countdown"] = "race_countdown"
    race_id: str
    starts_at: int
    ends_at: int
    commitment: str
    server_time: int


class RaceStarted(_Reply):
    """Event: moves are accepted from now on; every racer gets this same deal."""

    type: Literal["race_started"] = "race_started"
    race_id: str
    starts_at: int
    ends_at: int
    view: dict[str, Any]


class Progress(_Reply):
    """Event: another racer's progress (never their cards)."""

    type: Literal["progress"] = "progress"
    race_id: str
    player_id: str
    score: int
    cards_left: int
    move_count: int
    finished: bool
    won: bool


class RaceEnded(_Reply):
    """Event: the race is over; the seed is revealed and results are final."""

    type: Literal["race_ended"] = "race_ended"
    race_id: str
    summary: RaceSummary


ServerMessage = Annotated[
    Welcome
    | Error
    | Ok
    | Pong
    | Race
    | RaceList
    | MoveAck
    | Queued
    | Results
    | MoveLog
    | RaceUpdate
    | MatchFound
    | RaceCountdown
    | RaceStarted
    | Progress
    | RaceEnded,
    Field(discriminator="type"),
]

CLIENT_ADAPTER: Final[TypeAdapter[ClientMessage]] = TypeAdapter(ClientMessage)
SERVER_ADAPTER: Final[TypeAdapter[ServerMessage]] = TypeAdapter(ServerMessage)

# ----- codec ------------------------------------------------------------------------


def to_wire(message: BaseModel) -> dict[str, Any]:
    """The JSON-ready dict of a message (``None`` fields left out)."""
    return message.model_dump(mode="json", exclude_none=True)


#: One packer for every frame (it resets itself after each message, even on an error):
#: saves building a packer per message in ``msgpack.packb``.
_PACKER: Final = msgpack.Packer(use_bin_type=True)


def encode_dict(data: dict[str, Any], binary: bool) -> bytes | str:
    """Encode a JSON-ready dict: msgpack bytes, or compact JSON text."""
    if binary:
        packed: bytes = _PACKER.pack(data)
        return packed
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def encode(message: BaseModel, binary: bool = True) -> bytes | str:
    """Encode a message for one frame: msgpack for binary frames, JSON for text."""
    return encode_dict(to_wire(message), binary)


def load_frame(frame: bytes | str) -> dict[str, Any]:
    """The dict inside a frame; raises :class:`ProtocolError` (``malformed``)."""
    try:
        if isinstance(frame, str):
            data = json.loads(frame)
        else:
            data = msgpack.unpackb(frame, raw=False, strict_map_key=True)
    except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError):
        kind = (
            "text frame is not valid JSON"
            if isinstance(frame, str)
            else ("binary frame is not valid msgpack")
        )
        raise ProtocolError(ErrorCode.MALFORMED, f"the {kind}") from None
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.MALFORMED, "a message is a map with a 'type' field")
    return data


def _request_id(data: dict[str, Any]) -> int | str | None:
    value = data.get("id")
    return value if isinstance(value, int | str) and not isinstance(value, bool) else None


def describe(error: ValidationError) -> str:
    """A short readable summary of a validation error."""
    parts = []
    for item in error.errors()[:3]:
        where = ".".join(str(p) for p in item["loc"][1:]) or "message"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)


def parse_client(data: dict[str, Any]) -> ClientMessage:
    """Validate a decoded dict as a client message (raises :class:`ProtocolError`)."""
    request_id = _request_id(data)
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError(ErrorCode.INVALID_MESSAGE, "a message needs a 'type' text field", request_id)
    try:
        return CLIENT_ADAPTER.validate_python(data)
    except ValidationError as exc:
        if any(e["type"] == "union_tag_invalid" for e in exc.errors()):
            raise ProtocolError(
                ErrorCode.UNKNOWN_TYPE, f"unknown message type {kind[:40]!r}", request_id
            ) from None
        raise ProtocolError(ErrorCode.INVALID_MESSAGE, describe(exc), request_id) from None


def decode_client(frame: bytes | str) -> ClientMessage:
    """A client frame to its message, or :class:`ProtocolError` with the code to send."""
    return parse_client(load_frame(frame))


def decode_server(frame: bytes | str) -> ServerMessage:
    """A server frame to its message (used by clients); raises :class:`ProtocolError`."""
    data = load_frame(frame)
    try:
        return SERVER_ADAPTER.validate_python(data)
    except ValidationError as exc:
        raise ProtocolError(ErrorCode.INVALID_MESSAGE, describe(exc), _request_id(data)) from None

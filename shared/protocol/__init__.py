"""The wire protocol: every message as a pydantic model, and its msgpack/JSON codec.

Pure and synchronous: no I/O. One module per feature (``session``, ``lobby``,
``racing``, ``results``, ``quick_match``, ``assists``, ``rematch``, ``accounts``, ``profiles``) holds
its requests, replies and events;
``messages`` joins them into one union per direction; ``codec`` reads and writes
frames. A client message is a request carrying an ``id``; the server's reply (or
error) echoes it. Events pushed by the server carry no ``id``.

>>> frame = encode(Hello(id=1, name="ada"), binary=False)
>>> frame
'{"type":"hello","id":1,"protocol":1,"name":"ada","legal_moves":false,"bot":false}'
>>> decode_client(frame)
Hello(type='hello', id=1, protocol=1, name='ada', token=None, legal_moves=False, bot=False)
>>> try:
...     decode_client(b"\\xc1")
... except ProtocolError as exc:
...     print(exc.code.value, "-", exc.message)
malformed - the binary frame is not valid msgpack
"""

from shared.game import GameName
from shared.protocol.accounts import (
    PASSWORD_MAX,
    PASSWORD_MIN,
    Account,
    ChangePassword,
    Login,
    Logout,
    Register,
)
from shared.protocol.assists import GetHint, Hint
from shared.protocol.base import (
    NAME_MAX,
    PROTOCOL_VERSION,
    Error,
    ErrorCode,
    Ok,
    PlayerName,
    ProtocolError,
    RaceId,
    Reply,
    Request,
    RequestId,
    check_name,
)
from shared.protocol.codec import (
    decode_client,
    decode_server,
    describe,
    encode,
    encode_dict,
    load_frame,
    parse_client,
    to_wire,
)
from shared.protocol.lobby import (
    LIST_LIMIT_MAX,
    BoardState,
    CreateRace,
    GetRace,
    JoinRace,
    LeaveRace,
    ListRaces,
    Race,
    RaceCountdown,
    RaceInfo,
    RaceList,
    RacerInfo,
    RaceStatusName,
    RaceUpdate,
    Ready,
    StartRace,
)
from shared.protocol.messages import CLIENT_ADAPTER, SERVER_ADAPTER, ClientMessage, ServerMessage
from shared.protocol.profiles import (
    LEADERBOARD_LIMIT_MAX,
    GameRating,
    GameStats,
    GetLeaderboard,
    GetProfile,
    Leaderboard,
    LeaderboardEntry,
    PlayerProfile,
    Profile,
    RatingPoint,
    RecentRace,
)
from shared.protocol.quick_match import CancelQuickMatch, MatchFound, Queued, QuickMatch
from shared.protocol.racing import Finish, MakeMove, MoveAck, Progress, RaceStarted
from shared.protocol.rematch import (
    REMATCH_WAIT,
    AnswerRematch,
    OfferRematch,
    Rematch,
    RematchInfo,
    RematchRacer,
    RematchStarted,
    RematchUpdate,
)
from shared.protocol.results import (
    GetMoveLog,
    GetReplay,
    GetResults,
    LoggedMove,
    MoveLog,
    RaceCancelled,
    RaceEnded,
    RaceSummary,
    Replay,
    Results,
    Standing,
)
from shared.protocol.session import Hello, Ping, Pong, Welcome
from shared.protocol.views import BoardView, MoveSummary, PileView

__all__ = [
    "CLIENT_ADAPTER",
    "LEADERBOARD_LIMIT_MAX",
    "LIST_LIMIT_MAX",
    "NAME_MAX",
    "PASSWORD_MAX",
    "PASSWORD_MIN",
    "PROTOCOL_VERSION",
    "REMATCH_WAIT",
    "SERVER_ADAPTER",
    "Account",
    "AnswerRematch",
    "BoardState",
    "BoardView",
    "CancelQuickMatch",
    "ChangePassword",
    "ClientMessage",
    "CreateRace",
    "Error",
    "ErrorCode",
    "Finish",
    "GameName",
    "GameRating",
    "GameStats",
    "GetHint",
    "GetLeaderboard",
    "GetMoveLog",
    "GetProfile",
    "GetRace",
    "GetReplay",
    "GetResults",
    "Hello",
    "Hint",
    "JoinRace",
    "Leaderboard",
    "LeaderboardEntry",
    "LeaveRace",
    "ListRaces",
    "LoggedMove",
    "Login",
    "Logout",
    "MakeMove",
    "MatchFound",
    "MoveAck",
    "MoveLog",
    "MoveSummary",
    "OfferRematch",
    "Ok",
    "PileView",
    "Ping",
    "PlayerName",
    "PlayerProfile",
    "Pong",
    "Profile",
    "Progress",
    "ProtocolError",
    "Queued",
    "QuickMatch",
    "Race",
    "RaceCancelled",
    "RaceCountdown",
    "RaceEnded",
    "RaceId",
    "RaceInfo",
    "RaceList",
    "RaceStarted",
    "RaceStatusName",
    "RaceSummary",
    "RaceUpdate",
    "RacerInfo",
    "RatingPoint",
    "Ready",
    "RecentRace",
    "Register",
    "Rematch",
    "RematchInfo",
    "RematchRacer",
    "RematchStarted",
    "RematchUpdate",
    "Replay",
    "Reply",
    "Request",
    "RequestId",
    "Results",
    "ServerMessage",
    "Standing",
    "StartRace",
    "Welcome",
    "check_name",
    "decode_client",
    "decode_server",
    "describe",
    "encode",
    "encode_dict",
    "load_frame",
    "parse_client",
    "to_wire",
]

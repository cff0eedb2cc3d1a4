"""Opening a session (``hello``/``welcome``) and measuring the clock (``ping``/``pong``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from shared.protocol.base import PROTOCOL_VERSION, PlayerName, Reply, Request, RequestId


class Hello(Request):
    """Open a session: a new guest with ``name``, resume one with ``token``, or only look
    on with ``viewer`` (one of the three)."""

    type: Literal["hello"] = "hello"
    id: RequestId
    protocol: int = PROTOCOL_VERSION
    name: PlayerName | None = None
    #: Checked by the server, not by its shape here: any text that is not a token it
    #: handed out is ``bad_token`` (the frame's size bounds it).
    token: str | None = None
    #: Send the board's legal moves (canonical notation) with every view this session
    #: gets, for clients that do not run the rules themselves.
    legal_moves: bool = False
    #: Acks of this session's moves carry in their view only the piles the move changed
    #: (``changed_only``): the client lays them over the view it holds, and sends less.
    changed_piles: bool = False
    #: A new guest that is a program: shown as a bot to everyone (kept on resume).
    bot: bool = False
    #: A session that only reads and watches, with no player: nothing is stored for it,
    #: and it cannot race (a visitor's pages before they choose a name).
    viewer: bool = False


class Ping(Request):
    type: Literal["ping"] = "ping"
    id: RequestId


class Welcome(Reply):
    """Reply to ``hello``. ``token`` is secret: it resumes this player on any connection
    (a viewer has none)."""

    type: Literal["welcome"] = "welcome"
    id: RequestId | None = None
    protocol: int = PROTOCOL_VERSION
    player_id: str
    name: str
    token: str | None = None
    resumed: bool = False
    races: list[str] = Field(default_factory=list)
    server_time: int
    #: The account's username when the player has one (absent for a guest).
    username: str | None = None
    #: The session only reads and watches (``hello`` with ``viewer``).
    viewer: bool = False
    #: The quick match the player waits in as this session says hello (queued by another
    #: of their sessions: a connection of its own waits in none yet); absent for none.
    queued: QueueStay | None = None
    #: Seconds this server keeps the seat of a player whose connection closed in a race
    #: not yet started (``SA_LOBBY_GRACE``); absent for a viewer, and from older servers.
    lobby_grace: float | None = None


class QueueStay(Reply):
    """A quick match the player waits in: its game, the stay's ``ticket`` (as ``queued``
    gave it) and whether it is the rated queue (accounts)."""

    game: str
    ticket: str
    rated: bool = False


class Pong(Reply):
    type: Literal["pong"] = "pong"
    id: RequestId | None = None
    server_time: int


Requests = Hello | Ping
Replies = Welcome | Pong

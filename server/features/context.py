"""What a handler is given (the caller) and what it gives back (a reply with effects)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel

from server.errors import ArenaError
from server.features.events import LocalEvent
from shared.protocol import ErrorCode, Request


@dataclass(frozen=True, slots=True)
class Identity:
    """The player behind a connection, once it said hello."""

    player_id: str
    name: str
    bot: bool = False
    #: The session asked for legal moves with its views.
    legal_moves: bool = False
    #: The session's acks carry only the piles their move changed.
    changed_piles: bool = False
    #: The player has an account (a username and password), not only a guest's token.
    account: bool = False
    #: The SHA-256 of the token this connection said hello or logged in with.
    token_sha: str = ""
    #: No player: the session only reads and watches (``hello`` with ``viewer``).
    viewer: bool = False


@dataclass(slots=True)
class Caller:
    """Who sent a request: what a handler may know of the connection."""

    identity: Identity | None
    remote: str
    #: The client's address (the proxy-named one behind a trusted proxy): per-address
    #: limits count by it.
    address: str = ""
    #: This connection among all the nodes' connections (random).
    connection: str = ""

    @property
    def player(self) -> Identity:
        """The caller's identity; ``hello_required`` before hello."""
        if self.identity is None:
            raise ArenaError(ErrorCode.HELLO_REQUIRED, "say hello first")
        return self.identity


@dataclass(frozen=True, slots=True)
class WatchTarget:
    """A ``watch`` (or ``unwatch``) for the transport to carry out: it answers the request
    itself, with the race's boards, once the session follows the race's spectator hub."""

    request_id: int | str
    #: The race to watch; None for the featured race.
    race_id: str | None
    #: Stop watching instead.
    stop: bool = False


@dataclass(slots=True)
class Reply:
    """A handler's answer: the message for the caller, and what the transport must do.
    (Not frozen: a frozen dataclass sets each field through ``object.__setattr__``, and
    every move builds a reply: 1.1 us more, measured.)

    ``message`` is a model, or a wire dict on the move path (built directly for speed).
    ``follow``/``unfollow`` are races whose events the connection starts/stops getting;
    ``identify`` ties the connection to a player (hello); ``local`` are events for this
    node's other sessions, delivered before the reply is sent; ``after`` are messages for
    the caller alone, sent right after the reply; ``close`` ends the connection after it.
    """

    #: None when ``watch`` is set: the spectators' transport answers.
    message: BaseModel | dict[str, Any] | None
    follow: tuple[str, ...] = ()
    unfollow: tuple[str, ...] = ()
    identify: Identity | None = None
    local: tuple[LocalEvent, ...] = ()
    after: tuple[BaseModel, ...] = ()
    #: Close the connection after the reply, with this reason (logout).
    close: str | None = None
    watch: WatchTarget | None = None


M = TypeVar("M", bound=Request)
Handler = Callable[[Caller, M], Awaitable[Reply]]

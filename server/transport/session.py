"""One WebSocket connection: who is on it, how it likes its frames, and its rate limit."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable
from typing import Any

from pydantic import BaseModel
from websockets.asyncio.server import ServerConnection

from server.features.context import Caller
from server.ratelimit import RateLimiter
from server.transport.frames import start_frame
from server.transport.reader import DirectReadConnection
from shared.protocol import encode, encode_dict

STRIKE_BURST = 50
STRIKE_RATE = 0.5


class Session:
    """A connection's state. ``binary`` follows the last frame the client sent."""

    def __init__(self, ws: DirectReadConnection, rate: float, burst: int, address: str = "") -> None:
        self.ws = ws
        self.binary = True
        self.caller = Caller(
            identity=None,
            remote=_remote(ws),
            address=address or peer_host(ws),
            connection=secrets.token_hex(8),
        )
        self.limiter = RateLimiter(rate, burst)
        #: Rate-limited frames allowed: 50 at once, then one more every 2 s; past that the
        #: connection is closed (1008).
        self.strikes = RateLimiter(STRIKE_RATE, STRIKE_BURST)
        #: The races whose events this connection gets.
        self.races: set[str] = set()
        #: The last races this connection followed to their end, latest last: a rematch
        #: of one may start (a tuple: most connections never end a race).
        self.ended: tuple[str, ...] = ()
        #: The close started by the server (rate limit), while the queue drains.
        self.closing: asyncio.Task[None] | None = None

    @property
    def player_id(self) -> str | None:
        identity = self.caller.identity
        return identity.player_id if identity is not None else None

    async def send(self, message: BaseModel | dict[str, Any]) -> None:
        rest = self.start_send(message)
        if rest is not None:
            await rest

    def start_send(self, message: BaseModel | dict[str, Any]) -> Awaitable[None] | None:
        """:meth:`send` without a coroutine while it has nothing to wait for: None once
        written, else what is left to await (:func:`~server.transport.frames.start_frame`)."""
        if isinstance(message, dict):
            return start_frame(self.ws, encode_dict(message, self.binary))
        return start_frame(self.ws, encode(message, self.binary))

    @property
    def address(self) -> str:
        return self.caller.address


def peer_host(ws: ServerConnection) -> str:
    """The socket peer's host (no port)."""
    address: Any = ws.remote_address
    return str(address[0]) if isinstance(address, tuple) else str(address)


def _remote(ws: ServerConnection) -> str:
    address: Any = ws.remote_address
    return f"{address[0]}:{address[1]}" if isinstance(address, tuple) else str(address)

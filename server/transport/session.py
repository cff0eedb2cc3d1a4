"""One WebSocket connection: who is on it, how it likes its frames, and its rate limit."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from pydantic import BaseModel
from websockets.asyncio.server import ServerConnection

from server.features.context import Caller
from shared.protocol import encode, encode_dict

STRIKE_BURST = 50
STRIKE_RATE = 0.5


class RateLimiter:
    """A token bucket: ``rate`` messages per second, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class Session:
    """A connection's state. ``binary`` follows the last frame the client sent."""

    def __init__(self, ws: ServerConnection, rate: float, burst: int) -> None:
        self.ws = ws
        self.binary = True
        self.caller = Caller(identity=None, remote=_remote(ws))
        self.limiter = RateLimiter(rate, burst)
        #: Rate-limited frames allowed: 50 at once, then one more every 2 s; past that the
        #: connection is closed (1008).
        self.strikes = RateLimiter(STRIKE_RATE, STRIKE_BURST)
        #: The races whose events this connection gets.
        self.races: set[str] = set()
        #: The close started by the server (rate limit), while the queue drains.
        self.closing: asyncio.Task[None] | None = None

    @property
    def player_id(self) -> str | None:
        identity = self.caller.identity
        return identity.player_id if identity is not None else None

    async def send(self, message: BaseModel | dict[str, Any]) -> None:
        if isinstance(message, dict):
            await self.ws.send(encode_dict(message, self.binary))
        else:
            await self.ws.send(encode(message, self.binary))


def _remote(ws: ServerConnection) -> str:
    address: Any = ws.remote_address
    return f"{address[0]}:{address[1]}" if isinstance(address, tuple) else str(address)

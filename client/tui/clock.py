"""The race clock on the client: server time from the local clock plus an offset.

Times in the protocol are milliseconds on the server's clock. A ``pong`` (or any
message with ``server_time``) sets the offset; a ping's round trip is split in two.

>>> clock = ServerClock.from_sample(server_time=10_000, sent=900.0, received=1_100.0)
>>> clock.offset_ms
9000.0
>>> format_remaining(83_400), format_remaining(-5), format_remaining(3_600_000)
('1:24', '0:00', '1:00:00')
"""

from __future__ import annotations

import time
from dataclasses import dataclass


def local_ms() -> float:
    """The local wall clock in milliseconds."""
    return time.time() * 1000.0


@dataclass(frozen=True, slots=True)
class ServerClock:
    """``offset_ms`` = server clock - local clock."""

    offset_ms: float = 0.0

    @classmethod
    def from_sample(cls, server_time: int, sent: float, received: float) -> ServerClock:
        """From a reply stamped ``server_time`` to a request sent at local ``sent`` and
        answered at ``received`` (ms): the server stamped it half way."""
        return cls(server_time - (sent + received) / 2.0)

    def now(self) -> float:
        """The server's clock now, in ms."""
        return local_ms() + self.offset_ms

    def until(self, at: int) -> float:
        """Milliseconds from now until server time ``at`` (negative once past)."""
        return at - self.now()


def format_remaining(ms: float) -> str:
    """``m:ss`` (``h:mm:ss`` from an hour), rounded up to the second, never negative."""
    seconds = max(0, int(-(-ms // 1000)))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"

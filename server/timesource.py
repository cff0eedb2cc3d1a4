"""The server's time, injectable: the system clock in production, a hand-driven one in
tests (so a test can run a whole race, or a whole day, without sleeping for it)."""

from __future__ import annotations

import time
from typing import Protocol


class TimeSource(Protocol):
    def now_ms(self) -> int:
        """Milliseconds since the Unix epoch: the server's clock decides."""
        ...


class SystemTime:
    def now_ms(self) -> int:
        return int(time.time() * 1000)


class ManualTime:
    """A clock that moves only when told to.

    >>> clock = ManualTime(1_000)
    >>> clock.advance(2.5)
    >>> clock.now_ms()
    3500
    """

    def __init__(self, start_ms: int) -> None:
        self._now = start_ms

    def now_ms(self) -> int:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += round(seconds * 1000)

    def set(self, now_ms: int) -> None:
        self._now = now_ms

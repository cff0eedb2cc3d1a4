"""A small cache of recent answers for reads many readers repeat (leaderboard and board
pages, a day's standing): each value is kept ``seconds``, and the cache is emptied when it
holds ``most`` values (they are cheap to make again)."""

from __future__ import annotations

import time
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class TimedCache(Generic[K, V]):
    """
    >>> cache: TimedCache[str, int] = TimedCache(seconds=60, most=2)
    >>> cache.put("a", 1); cache.get("a"), cache.get("b")
    (1, None)
    """

    def __init__(self, seconds: float, most: int = 256) -> None:
        self.seconds = seconds
        self.most = most
        self._values: dict[K, tuple[float, V]] = {}

    def get(self, key: K) -> V | None:
        found = self._values.get(key)
        if found is None or time.monotonic() - found[0] >= self.seconds:
            return None
        return found[1]

    def put(self, key: K, value: V) -> None:
        if len(self._values) >= self.most:
            self._values.clear()
        self._values[key] = (time.monotonic(), value)

    def drop(self, key: K) -> None:
        self._values.pop(key, None)

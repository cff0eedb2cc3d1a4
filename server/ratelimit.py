"""A token bucket, for every rate limit of the server."""

from __future__ import annotations

import time


class RateLimiter:
    """A token bucket: ``rate`` tokens per second, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def allow(self) -> bool:
        """Spend a token if there is one."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def wait(self) -> float:
        """Seconds until :meth:`allow` lets one more in, as of its last call."""
        return max(0.0, (1.0 - self.tokens) / self.rate) if self.rate > 0 else float("inf")

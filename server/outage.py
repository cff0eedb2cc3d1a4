"""Redis going away and coming back: one log line each way, counters, no tracebacks."""

from __future__ import annotations

import logging
import time

from server import logs
from server.metrics import Metrics

log = logging.getLogger("arena.redis")


class StoreHealth:
    """Tells the store's outage errors apart, and logs only the changes of state."""

    def __init__(self, metrics: Metrics, outage_errors: tuple[type[BaseException], ...]) -> None:
        self.metrics = metrics
        self.outage_errors = outage_errors
        self.down = False
        #: When Redis was last found reachable again after an outage (system clock, ms;
        #: 0 before any outage): what the node could not hear before it, it does not judge.
        self.back_at_ms = 0

    def is_outage(self, exc: BaseException) -> bool:
        return isinstance(exc, self.outage_errors)

    def failed(self, exc: BaseException) -> None:
        """A call failed because Redis is unreachable."""
        self.metrics.store_errors.inc()
        if not self.down:
            self.down = True
            self.metrics.store_outages.inc()
            log.warning(
                "redis unreachable: answering 'unavailable' until it is back", extra={"reason": repr(exc)}
            )

    def succeeded(self) -> None:
        """A call that needed Redis worked (the race clock, which asks every tick, and
        the node's heartbeat say so: a request may not have needed Redis at all)."""
        if self.down:
            self.down = False
            self.back_at_ms = int(time.time() * 1000)
            logs.forget_repeats()  # the next outage's warnings count their own repeats
            log.warning("redis is reachable again")

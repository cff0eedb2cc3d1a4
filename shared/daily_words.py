"""When a daily deal's seed is revealed, in the words the server's refusals and the
clients' notes both use: once the day's last attempts are over, which runs past midnight
(UTC) by an attempt's time limit."""

from __future__ import annotations

import datetime as dt


def utc_minute(ms: int) -> str:
    """A server time in ms as its UTC day and minute, rounded up to the minute (so that
    what it names has happened by then).

    >>> utc_minute(1_773_448_260_000), utc_minute(1_773_448_260_001)
    ('2026-03-14 00:31 UTC', '2026-03-14 00:32 UTC')
    """
    minute = -(-ms // 60_000) * 60
    return dt.datetime.fromtimestamp(minute, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def reveal_words(reveals_at: int | None) -> str:
    """When a daily deal's seed is revealed, from ``reveals_at`` (ms; None: a server that
    does not say).

    >>> reveal_words(1_773_448_260_000)
    "once the day's last attempts are over (2026-03-14 00:31 UTC)"
    >>> reveal_words(None)
    "once the day's last attempts are over (after midnight UTC)"
    """
    when = "after midnight UTC" if reveals_at is None else utc_minute(reveals_at)
    return f"once the day's last attempts are over ({when})"

"""When a day of the daily challenges is closed, as the store has it: the rule
(:func:`server.features.daily_rules.day_closes`) fed with the latest end of the day's
attempts, which the store keeps as each attempt starts. Whoever reveals a day's seeds or
attempts, or says when they open, asks here (never the setting alone: an attempt keeps
the time limit it began with, whatever the setting is now)."""

from __future__ import annotations

import datetime as dt

from server.features.daily_rules import closing_words, day_closes
from server.store import RaceMeta, RaceStatus, Store


async def closes_at(store: Store, day: str, time_limit: float) -> int:
    """When the day named ``YYYY-MM-DD`` is closed (``time_limit``: the setting's)."""
    return day_closes(dt.date.fromisoformat(day), time_limit, await store.dailies.last_end(day))


async def is_closed(store: Store, day: str, now: int, time_limit: float) -> bool:
    """Whether the day named ``YYYY-MM-DD`` is closed at ``now``: its seeds are out."""
    return now >= await closes_at(store, day, time_limit)


async def words(store: Store, day: str, time_limit: float) -> str:
    """When the day's seeds and attempts open, in words."""
    return closing_words(day, time_limit, await store.dailies.last_end(day))


async def seed_out(store: Store, meta: RaceMeta, now: int, time_limit: float) -> bool:
    """Whether a finished race's seed may be shown: always, but a daily run's only once
    its day is closed. False for a race not finished."""
    if meta.status is not RaceStatus.FINISHED:
        return False
    return not meta.daily or await is_closed(store, meta.daily, now, time_limit)

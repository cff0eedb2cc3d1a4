"""Who may look at a daily deal's moves before its day is closed (kept apart so that the
race results can ask without importing the daily feature)."""

from __future__ import annotations

from server.features.daily_rules import day_closed
from server.store import Store


async def may_look(store: Store, player_id: str, day: str, game: str, now: int, time_limit: float) -> bool:
    """Whether the player may see a daily deal's moves, boards' move logs or another's
    attempt: once the day is closed (its last attempts over: ``time_limit`` is an
    attempt's), or once their own first attempt of it is over."""
    if day_closed(day, now, time_limit):
        return True
    attempt = await store.dailies.attempt(day, game, player_id)
    if attempt is None:
        return False
    meta = await store.races.meta(attempt[0])
    return meta is not None and meta.status.is_over

"""Ratings, leaderboards and what a profile shows: read here; written only at a race's
end, by the script that ends it (:meth:`server.store.races.RaceStore.complete_end`),
except the sweep that takes idle accounts off a leaderboard (:meth:`RatingStore.unlist`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import orjson

from server.store import keys, scripts
from server.store.records import PlayerRating


def _rating(raw: dict[str, str] | list[str | None]) -> PlayerRating | None:
    values = raw if isinstance(raw, list) else [raw.get(f) for f in _FIELDS]
    if values[0] is None:
        return None
    rating, rd, volatility, games, last_at = values
    return PlayerRating(float(rating), float(rd), float(volatility), int(games or 0), int(last_at or 0))  # type: ignore[arg-type]


_FIELDS = ["rating", "rd", "volatility", "games", "last_at"]


class RatingStore:
    def __init__(self, client: Any) -> None:
        self.redis = client
        self._unlist = client.register_script(scripts.UNLIST.source)

    async def ratings(self, game: str, player_ids: list[str]) -> dict[str, PlayerRating | None]:
        """Each player's rating in ``game`` (None before their first rated race)."""
        return (await self.ratings_in_games([(game, player_ids)]))[0]

    async def ratings_in_games(
        self, players: list[tuple[str, list[str]]]
    ) -> list[dict[str, PlayerRating | None]]:
        """:meth:`ratings` of each (game, players) pair, in one round trip."""
        wanted = [(game, player_id) for game, player_ids in players for player_id in player_ids]
        if not wanted:
            return [{} for _ in players]
        async with self.redis.pipeline(transaction=False) as pipe:
            for game, player_id in wanted:
                pipe.hmget(keys.player_rating(player_id, game), _FIELDS)
            rows = iter(await pipe.execute())
        return [{p: _rating(next(rows)) for p in player_ids} for _game, player_ids in players]

    async def all_games(self, player_id: str, games: tuple[str, ...]) -> dict[str, PlayerRating | None]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for game in games:
                pipe.hmget(keys.player_rating(player_id, game), _FIELDS)
            rows = await pipe.execute()
        return {g: _rating(row) for g, row in zip(games, rows, strict=True)}

    async def history(self, player_id: str, game: str, count: int) -> list[dict[str, Any]]:
        raw: list[str] = await self.redis.lrange(keys.player_rating_history(player_id, game), 0, count - 1)
        return [orjson.loads(entry) for entry in raw]

    async def stats(self, player_id: str, games: tuple[str, ...]) -> dict[str, dict[str, int]]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for game in games:
                pipe.hgetall(keys.player_stats(player_id, game))
            rows = await pipe.execute()
        return {g: {k: int(v) for k, v in row.items()} for g, row in zip(games, rows, strict=True)}

    async def recent(self, player_id: str, count: int) -> list[dict[str, Any]]:
        raw: list[str] = await self.redis.lrange(keys.player_recent(player_id), 0, count - 1)
        return [orjson.loads(entry) for entry in raw]

    async def top(self, game: str, offset: int, count: int) -> list[tuple[str, float]]:
        """A page of the leaderboard, best first: (player id, rating)."""
        rows: list[tuple[str, float]] = await self.redis.zrevrange(
            keys.leaderboard(game), offset, offset + count - 1, withscores=True
        )
        return rows

    async def place(self, game: str, player_id: str) -> tuple[int, float] | None:
        """The player's place in the leaderboard's order (1 is first; equal ratings by
        player id, last first) and listed rating, or None when not on it."""
        key = keys.leaderboard(game)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrevrank(key, player_id)
            pipe.zscore(key, player_id)
            place, rating = await pipe.execute()
        return None if place is None or rating is None else (place + 1, float(rating))

    async def shown_above(self, game: str, shown: int) -> int:
        """How many listed ratings show above ``shown`` once rounded to whole points as
        ``round`` rounds them (a half to the even neighbour: 1601.5 shows 1602, 1600.5
        shows 1600, so above 1601 starts at 1601.5 itself, above 1600 just past 1600.5)."""
        half = repr(shown + 0.5)
        count: int = await self.redis.zcount(
            keys.leaderboard(game), half if shown % 2 else f"({half}", "+inf"
        )
        return count

    async def listed(self, game: str) -> int:
        count: int = await self.redis.zcard(keys.leaderboard(game))
        return count

    async def listed_batches(self, game: str, count: int) -> AsyncIterator[list[tuple[str, float]]]:
        """Every (player id, rating) of the leaderboard, about ``count`` at a time (ZSCAN:
        one listed all along comes at least once, one listed or removed meanwhile may not)."""
        cursor = 0
        while True:
            cursor, rows = await self.redis.zscan(keys.leaderboard(game), cursor, count=count)
            if rows:
                yield rows
            if cursor == 0:
                return

    async def unlist(self, game: str, read: list[tuple[str, float]]) -> int:
        """Take players off the leaderboard, each only if its score is still the one
        ``read``; how many were removed (see :data:`scripts.UNLIST`)."""
        args = [value for player_id, score in read for value in (player_id, repr(score))]
        removed: int = await self._unlist(keys=[keys.leaderboard(game)], args=args)
        return removed

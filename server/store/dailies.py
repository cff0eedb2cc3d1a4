"""Daily challenges: the secret, each day's deal per game, attempts and the day's boards."""

from __future__ import annotations

import secrets
from typing import Any

import orjson

from server.store import keys, scripts
from server.store.once import OnceWrite, OnceWriter
from server.store.records import DailyDeal


class DailyStore:
    def __init__(self, client: Any) -> None:
        self.redis = client
        self._once = OnceWriter(client)
        self._attempt_ends = client.register_script(scripts.DAILY_ATTEMPT_ENDS.source)

    async def secret(self) -> bytes:
        """The daily secret kept in Redis: made by the first node that asks, the same for
        every node after."""
        await self.redis.set(keys.DAILY_SECRET, secrets.token_hex(32), nx=True)
        stored: str = await self.redis.get(keys.DAILY_SECRET)
        return bytes.fromhex(stored)

    async def deal(self, day: str, game: str) -> DailyDeal | None:
        raw: str | None = await self.redis.get(keys.daily_deal(day, game))
        return DailyDeal(**orjson.loads(raw)) if raw else None

    async def put_deal(self, day: str, game: str, deal: DailyDeal) -> bool:
        """Keep the day's deal unless one is kept already (every node derives the same)."""
        payload = orjson.dumps(
            {
                "seed": deal.seed,
                "candidate": deal.candidate,
                "salt": deal.salt,
                "commitment": deal.commitment,
                "proven": deal.proven,
                "line_length": deal.line_length,
            }
        )
        return bool(await self.redis.set(keys.daily_deal(day, game), payload, nx=True))

    async def claim_attempt(self, day: str, game: str, player_id: str, race_id: str, scored: bool) -> bool:
        """Record the player's first attempt of the day's deal; False when they had one."""
        record = orjson.dumps({"race_id": race_id, "scored": scored}).decode()
        return bool(await self.redis.hsetnx(keys.daily_attempts(day, game), player_id, record))

    async def attempt(self, day: str, game: str, player_id: str) -> tuple[str, bool] | None:
        """(race id, scored) of the player's first attempt of the day's deal, or None."""
        raw: str | None = await self.redis.hget(keys.daily_attempts(day, game), player_id)
        if raw is None:
            return None
        record = orjson.loads(raw)
        return str(record["race_id"]), bool(record["scored"])

    async def attempt_races(self, day: str, game: str, player_ids: list[str]) -> dict[str, str]:
        """The race of each of these players' first attempts."""
        if not player_ids:
            return {}
        rows = await self.redis.hmget(keys.daily_attempts(day, game), player_ids)
        return {p: orjson.loads(r)["race_id"] for p, r in zip(player_ids, rows, strict=True) if r}

    async def gave_up(self, day: str, game: str, player_ids: list[str]) -> set[str]:
        """Those of these players whose scored attempt was given up (finished, not won)."""
        if not player_ids:
            return set()
        scores = await self.redis.zmscore(keys.daily_gave_up(day, game), player_ids)
        return {p for p, score in zip(player_ids, scores, strict=True) if score is not None}

    async def board(self, day: str, game: str, offset: int, count: int) -> list[tuple[str, float]]:
        """A page of the day's board, best (lowest score) first."""
        rows: list[tuple[str, float]] = await self.redis.zrange(
            keys.daily_board(day, game), offset, offset + count - 1, withscores=True
        )
        return rows

    async def board_size(self, day: str, game: str) -> int:
        size: int = await self.redis.zcard(keys.daily_board(day, game))
        return size

    async def board_place(self, day: str, game: str, player_id: str) -> tuple[float, int] | None:
        """The player's board score and place in the board's order (0 is first), or None
        when they are not on the board."""
        key = keys.daily_board(day, game)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zscore(key, player_id)
            pipe.zrank(key, player_id)
            score, index = await pipe.execute()
        return None if score is None or index is None else (float(score), int(index))

    async def boards_of(self, day: str, games: tuple[str, ...], player_id: str) -> set[str]:
        """The games on whose board of ``day`` the player is."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for game in games:
                pipe.zscore(keys.daily_board(day, game), player_id)
            scores = await pipe.execute()
        return {game for game, score in zip(games, scores, strict=True) if score is not None}

    async def rank_of(self, day: str, game: str, score: float) -> int:
        """The rank a board score has: 1 + the attempts strictly better (ties share it)."""
        better: int = await self.redis.zcount(keys.daily_board(day, game), "-inf", f"({score}")
        return better + 1

    async def whole_board(self, day: str, game: str) -> list[tuple[str, float]]:
        rows: list[tuple[str, float]] = await self.redis.zrange(
            keys.daily_board(day, game), 0, -1, withscores=True
        )
        return rows

    async def close(self, day: str, day_number: int, week: str, points: dict[str, int], now: int) -> bool:
        """Count the day's tournament points into the week's and the all-time tables and
        carry each player's streak, once whoever calls and however often; True for the
        call that marked the day counted."""
        pairs: list[str | int] = []
        for player in sorted(points):
            pairs += [player, points[player]]
        writes = [
            OnceWrite(keys.daily_points_week(week), "zincrby", tuple(pairs)),
            OnceWrite(keys.DAILY_POINTS_ALL, "zincrby", tuple(pairs)),
            *(OnceWrite(keys.player_daily_streak(p), "streak", (day_number,)) for p in sorted(points)),
        ]
        await self._once.apply(f"close {day}", now, writes)
        return bool(await self.redis.set(keys.daily_closed(day), "1", nx=True))

    async def attempt_ends(self, day: str, race_id: str, ends_at: int) -> None:
        """An attempt of ``day`` counts down or runs until ``ends_at`` (at the latest): it
        is one of the day's unended attempts, and the day's last end is no sooner. Called
        before the countdown or start is stored, so a running attempt is always here."""
        await self._attempt_ends(
            keys=[keys.daily_unended(day), keys.daily_last_end(day)], args=[race_id, ends_at]
        )

    async def last_end(self, day: str) -> int | None:
        """The latest ends_at of any attempt of ``day`` (None: no attempt began)."""
        raw: str | None = await self.redis.get(keys.daily_last_end(day))
        return int(raw) if raw else None

    async def unended(self, day: str) -> list[tuple[str, int]]:
        """The day's attempts not yet seen over, each with its ends_at, soonest first."""
        rows: list[tuple[str, float]] = await self.redis.zrange(
            keys.daily_unended(day), 0, -1, withscores=True
        )
        return [(race_id, int(ends_at)) for race_id, ends_at in rows]

    async def forget_ended(self, day: str, race_ids: list[str]) -> None:
        """These attempts of ``day`` are over: no longer among its unended ones."""
        if race_ids:
            await self.redis.zrem(keys.daily_unended(day), *race_ids)

    async def closed(self, day: str) -> bool:
        return bool(await self.redis.exists(keys.daily_closed(day)))

    async def table(self, week: str | None, count: int) -> list[tuple[str, float]]:
        """The top of the week's table (or the all-time one, ``week`` None)."""
        rows: list[tuple[str, float]] = await self.redis.zrevrange(
            _table_key(week), 0, count - 1, withscores=True
        )
        return rows

    async def table_place(self, week: str | None, player_id: str) -> tuple[int, int] | None:
        """(points, rank) of the player in the week's table (or the all-time one, ``week``
        None), or None when they have no points there. The rank is 1 + the players with
        strictly more points, so equal points share it, as the table's rows do."""
        key = _table_key(week)
        points: float | None = await self.redis.zscore(key, player_id)
        if points is None:
            return None
        better: int = await self.redis.zcount(key, f"({points}", "+inf")
        return int(points), better + 1

    async def streak(self, player_id: str) -> tuple[int, int, int] | None:
        """(last day number, current, best) of the player's streak, or None."""
        last, current, best = await self.redis.hmget(
            keys.player_daily_streak(player_id), ["last", "current", "best"]
        )
        return None if last is None else (int(last), int(current), int(best))


def _table_key(week: str | None) -> str:
    """The key of the week's table of points, or of the all-time one (``week`` None)."""
    return keys.daily_points_week(week) if week else keys.DAILY_POINTS_ALL

"""Races: creation, seats, the countdown, the start, the end; codes and the open list."""

from __future__ import annotations

import json
import logging
from typing import Any

import orjson

from server.store import keys, scripts
from server.store.once import OnceWrite, OnceWriter
from server.store.records import Answer, Deal, RaceMeta, RacerRecord, RaceStatus, Seat
from shared.protocol.base import numbered_name, unnumbered_name
from shared.protocol.lobby import SEATS_MAX
from shared.usernames import seat_key

log = logging.getLogger("arena.store")

#: Ratings after rated races kept per player and game, and recent races kept per player.
HISTORY = 50
RECENT = 30
#: How long a listed race may have no keys before a page of open races unlists it (ms):
#: its keys and its listing are written in one round trip that a cluster may apply in any
#: order, so a race being made is not taken for one that is gone.
LISTED_UNMADE_MS = 60_000


class RaceStore:
    def __init__(self, client: Any, sharded: bool = False) -> None:
        self.redis = client
        self._join = client.register_script(scripts.JOIN.source)
        self._ready = client.register_script(scripts.READY.source)
        self._leave = client.register_script(scripts.LEAVE.source)
        self._rename_seat = client.register_script(scripts.RENAME_SEAT.source)
        self._start = client.register_script(scripts.START.source_for(sharded))
        self._reveal = client.register_script(scripts.REVEAL.source)
        self._go = client.register_script(scripts.GO.source_for(sharded))
        self._begin_end = client.register_script(scripts.BEGIN_END.source)
        self._end_plan = client.register_script(scripts.END_PLAN.source)
        self._end_finish = client.register_script(scripts.END_FINISH.source_for(sharded))
        self._once = OnceWriter(client)
        self._void = client.register_script(scripts.VOID.source_for(sharded))

    # ----- setup -----------------------------------------------------------------------

    async def create(self, meta: RaceMeta, seat: Seat) -> bool:
        """Store a new race with its creator seated; False if the short code is taken."""
        if not await self.redis.set(keys.race_code(meta.code), meta.race_id, nx=True):
            return False
        fields = {
            "race_id": meta.race_id,
            "code": meta.code,
            "game": meta.game,
            "seats": meta.seats,
            "time_limit": repr(meta.time_limit),
            "status": meta.status.value,
            "creator": meta.creator,
            "seed": meta.seed,
            "server_seed": meta.server_seed or meta.seed,
            "salt": meta.salt,
            "commitment": meta.commitment,
            "created_at": meta.created_at,
            "hints": "1" if meta.hints else "0",
            "rated": "1" if meta.rated else "0",
            "daily": meta.daily,
            "daily_scored": "1" if meta.daily_scored else "0",
            "practice": "1" if meta.practice else "0",
            "quick": "1" if meta.quick else "0",
        }
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(keys.race_meta(meta.race_id), mapping=fields)
            pipe.hset(keys.race_racers(meta.race_id), seat.player_id, _seat_json(seat))
            pipe.zadd(keys.OPEN_RACES, {meta.race_id: meta.created_at})
            pipe.zadd(keys.open_races(meta.game), {meta.race_id: meta.created_at})
            pipe.sadd(keys.player_active(seat.player_id), meta.race_id)
            await pipe.execute()
        return True

    async def race_for_code(self, code: str) -> str | None:
        race_id: str | None = await self.redis.get(keys.race_code(code))
        return race_id

    async def open_races(self, limit: int = 50) -> list[str]:
        races: list[str] = await self.redis.zrange(keys.OPEN_RACES, 0, limit - 1)
        return races

    async def open_page(
        self, game: str | None, offset: int, limit: int, now: int
    ) -> tuple[list[tuple[RaceMeta, list[Seat]]], bool]:
        """A page of open races (of ``game``, or of all), oldest first, and whether more
        follow: two round trips whatever the page size. A listed race found no longer open,
        or gone for good (listed over :data:`LISTED_UNMADE_MS` ago, with no keys), is left
        out and unlisted: its unlisting was lost with the store midway."""
        key = keys.OPEN_RACES if game is None else keys.open_races(game)
        listed: list[tuple[str, float]] = await self.redis.zrange(
            key, offset, offset + limit, withscores=True
        )  # one extra: more?
        more = len(listed) > limit
        found = await self.races([race_id for race_id, _ in listed[:limit]])
        page = [(meta, seats) for meta, seats in found if meta.status is RaceStatus.OPEN]
        have = {meta.race_id for meta, _ in found}
        gone = [r for r, at in listed[:limit] if r not in have and at < now - LISTED_UNMADE_MS]
        if gone or len(page) < len(found):
            async with self.redis.pipeline(transaction=False) as pipe:
                for meta, _ in found:
                    if meta.status is not RaceStatus.OPEN:
                        self._unlist(pipe, meta.race_id, meta.game)
                for race_id in gone:
                    self._unlist(pipe, race_id, game or "")
                await pipe.execute()
        return page, more

    async def races(self, race_ids: list[str]) -> list[tuple[RaceMeta, list[Seat]]]:
        """The races that exist among ``race_ids``, each with its seats, in one round trip."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for race_id in race_ids:
                pipe.hgetall(keys.race_meta(race_id))
                pipe.hgetall(keys.race_racers(race_id))
            replies = await pipe.execute()
        return [
            (_parse_meta(raw_meta), _sorted_seats(raw_seats))
            for raw_meta, raw_seats in zip(replies[::2], replies[1::2], strict=True)
            if raw_meta
        ]

    async def metas(self, race_ids: list[str]) -> list[RaceMeta]:
        """The races that exist among ``race_ids``, in one round trip."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for race_id in race_ids:
                pipe.hgetall(keys.race_meta(race_id))
            replies = await pipe.execute()
        return [_parse_meta(raw) for raw in replies if raw]

    @staticmethod
    def _unlist(pipe: Any, race_id: str, game: str) -> None:
        """Queue on ``pipe`` the removal of a race from the open lists."""
        pipe.zrem(keys.OPEN_RACES, race_id)
        pipe.zrem(keys.open_races(game), race_id)

    async def join(self, race_id: str, seat: Seat) -> tuple[Answer, RaceStatus | None]:
        """Seat the player; with the answer, the race's status as the join found it (None
        when there is no such race): why a race that is not open refused the seat. A name
        another seat of the race has already (in any case) is numbered: ``root (2)``."""
        reply, found = await self._join(
            keys=[keys.race_meta(race_id), keys.race_racers(race_id)],
            args=[seat.player_id, _seat_json(seat), *_seat_names(seat.name)],
        )
        answer, status = Answer(reply), RaceStatus(found) if found else None
        if answer in (Answer.OK, Answer.ALREADY):
            # Already seated too: a join retried after its seat was taken but before this
            # write (the store lost midway) writes it now.
            await self.redis.sadd(keys.player_active(seat.player_id), race_id)
        return answer, status

    async def set_ready(self, race_id: str, player_id: str, ready: bool, share: str = "") -> Answer:
        """The racer is ready (or not), revealing their seed ``share`` if they have one."""
        reply = await self._ready(
            keys=[keys.race_meta(race_id), keys.race_racers(race_id)],
            args=[player_id, "1" if ready else "0", share],
        )
        return Answer(reply)

    async def reveal_share(self, race_id: str, player_id: str, share: str) -> Answer:
        """The racer reveals their seed ``share`` before the start, ready or not."""
        reply = await self._reveal(
            keys=[keys.race_meta(race_id), keys.race_racers(race_id)], args=[player_id, share]
        )
        return Answer(reply)

    async def rename_seat(self, race_id: str, player_id: str, name: str) -> Answer:
        """The racer's seat takes their new name (a guest renamed, or became an account),
        numbered as :meth:`join` seats it when another seat has it, unless the race is
        already ending or over."""
        reply = await self._rename_seat(
            keys=[keys.race_meta(race_id), keys.race_racers(race_id)], args=[player_id, *_seat_names(name)]
        )
        return Answer(reply)

    async def leave(self, race_id: str, player_id: str, ttl: int, only_unready: bool = False) -> Answer:
        """The player leaves an open race; the last one out cancels it, and then the
        race's keys expire after ``ttl`` seconds (0: kept). With ``only_unready`` a ready
        seat stays (``ready``), in the same atomic step."""
        reply = await self._leave(
            keys=[keys.race_meta(race_id), keys.race_racers(race_id)],
            args=[player_id, "1" if only_unready else "0"],
        )
        answer = Answer(reply)
        if answer in (Answer.OK, Answer.CANCELLED, Answer.NOT_A_RACER):
            # Not a racer too: a leave retried after its seat went but before this write.
            await self.redis.srem(keys.player_active(player_id), race_id)
        if answer in (Answer.CANCELLED, Answer.NOT_OPEN):
            await self._put_away_if_cancelled(race_id, player_id, ttl)
        return answer

    async def _put_away_if_cancelled(self, race_id: str, player_id: str, ttl: int) -> None:
        """A cancelled race is unlisted and its keys set to expire after ``ttl`` seconds
        (0: kept), and it leaves the leaver's races: again for a leave retried after the
        store failed between the cancelling script and these writes."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hmget(keys.race_meta(race_id), ["status", "code", "game"])
            pipe.ttl(keys.race_meta(race_id))
            (status, code, game), expires_in = await pipe.execute()
        if status != RaceStatus.CANCELLED:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            self._unlist(pipe, race_id, game or "")
            pipe.srem(keys.player_active(player_id), race_id)
            await pipe.execute()
        if ttl > 0 and expires_in < 0:
            await self.expire(race_id, code, [], ttl)

    async def start_countdown(
        self,
        race_id: str,
        game: str,
        player_ids: list[str],
        starts_at: int,
        ends_at: int,
        position: dict[str, Any],
        score: int,
        event: str,
        seed: int,
        live: bool = True,
        all_ready: bool = False,
    ) -> Answer:
        """Deal every board (from ``seed``, the deal's seed, now stored) and begin the
        countdown; ``changed`` if the seats moved, ``not_ready`` if one of them is not ready
        and ``all_ready`` asked they all be. A ``live`` race is listed for spectators until it ends.

        The deadline is written first: a node that dies right after the script still
        leaves the race where every clock finds it (and a deadline of a race that stayed
        open is dropped by the clock).
        """
        await self.redis.zadd(keys.DEADLINES, {race_id: starts_at})
        board_keys = [keys.race_board(race_id, p) for p in player_ids]
        args: list[Any] = [
            starts_at,
            ends_at,
            json.dumps(position, separators=(",", ":")),
            score,
            event,
            keys.race_channel(race_id),
            seed,
            "1" if all_ready else "0",
            *player_ids,
        ]
        reply = await self._start(
            keys=[keys.race_meta(race_id), keys.race_racers(race_id), *board_keys], args=args
        )
        answer = Answer(reply)
        if answer is Answer.OK:
            async with self.redis.pipeline(transaction=False) as pipe:
                # Again: a clock that looked while the race was still open may have dropped it.
                pipe.zadd(keys.DEADLINES, {race_id: starts_at}, nx=True)
                self._unlist(pipe, race_id, game)
                if live:
                    pipe.zadd(keys.LIVE_RACES, {race_id: starts_at})
                await pipe.execute()
        return answer

    async def go(self, race_id: str, game: str, now: int, event: str, ends_at: int, deal: Deal) -> Answer:
        """Countdown over: the race runs from ``now`` to ``ends_at``, its next deadline,
        dealt from ``deal``. ``ok`` when it started; ``changed`` when a seed share came
        after ``deal`` was mixed (mix again); ``no`` when it was not due or not counting down."""
        position = json.dumps(deal.position, separators=(",", ":")) if deal.position is not None else ""
        board_keys = [keys.race_board(race_id, p) for p in deal.player_ids]
        args: list[Any] = [
            now,
            event,
            keys.race_channel(race_id),
            ends_at,
            deal.seed,
            position,
            deal.score,
            ",".join(sorted(deal.shared)),
        ]
        reply = await self._go(
            keys=[keys.race_meta(race_id), keys.race_racers(race_id), *board_keys], args=args
        )
        answer = Answer(reply)
        if answer is Answer.CHANGED:
            return answer
        async with self.redis.pipeline(transaction=False) as pipe:
            self._unlist(pipe, race_id, game)
            if answer is Answer.OK:
                pipe.zadd(keys.DEADLINES, {race_id: ends_at})
            await pipe.execute()
        return answer

    async def void(
        self, race_id: str, code: str, player_ids: list[str], now: int, reason: str, event: str, ttl: int
    ) -> bool:
        """A race still in countdown is cancelled (``reason``): it never runs, has no
        results, and its keys expire after ``ttl`` seconds (0: kept)."""
        voided = bool(
            await self._void(
                keys=[keys.race_meta(race_id)], args=[now, reason, event, keys.race_channel(race_id)]
            )
        )
        if voided:
            await self._untime(race_id, code, player_ids, ttl)
        return voided

    # ----- reading ---------------------------------------------------------------------

    async def meta(self, race_id: str) -> RaceMeta | None:
        raw: dict[str, str] = await self.redis.hgetall(keys.race_meta(race_id))
        return _parse_meta(raw) if raw else None

    async def seats(self, race_id: str) -> list[Seat]:
        raw: dict[str, str] = await self.redis.hgetall(keys.race_racers(race_id))
        return _sorted_seats(raw)

    async def race(self, race_id: str) -> tuple[RaceMeta, list[Seat]] | None:
        found = await self.races([race_id])
        return found[0] if found else None

    async def summary(self, race_id: str) -> str | None:
        value: str | None = await self.redis.get(keys.race_summary(race_id))
        return value

    # ----- ending ----------------------------------------------------------------------

    async def begin_end(self, race_id: str, now: int) -> bool:
        return bool(await self._begin_end(keys=[keys.race_meta(race_id)], args=[now]))

    async def complete_end(
        self,
        meta: RaceMeta,
        player_ids: list[str],
        summary: str,
        event: str,
        ttl: int,
        racers: list[RacerRecord],
        now: int,
        daily: tuple[str, str, int, bool] | None = None,
    ) -> int:
        """End the race and write what it changed for each racer, once: 1 when this call
        ended it, 0 when it was not ending, -1 when a rating changed since ``racers`` were
        computed (nothing is written: compute again).

        The first node to get here fixes the end's plan in the race's slot; every later
        attempt (a retry after a crash, another node's clock) applies that same plan. Each
        racer's keys are written once each (:mod:`server.store.once`), and only then is
        the race finished and its end published.
        """
        race_id = meta.race_id
        plan_key = keys.race_end_plan(race_id)
        stored: str | None = await self.redis.get(plan_key)
        if stored is None:
            if await self._ratings_moved(meta.game, racers):
                return -1
            plan = {
                "summary": summary,
                "event": event,
                "racers": [_racer_json(r) for r in racers],
                "daily": list(daily) if daily else None,
            }
            stored = await self._end_plan(
                keys=[keys.race_meta(race_id), plan_key], args=[orjson.dumps(plan).decode()]
            )
        answer = 0
        if stored is not None:
            stale = await self._apply_plan(race_id, meta.game, orjson.loads(stored), now)
            for player_id in stale:
                log.error(
                    "a racer's rating changed while the race ended: this race is not rated for them",
                    extra={"race_id": race_id, "player_id": player_id},
                )
            answer = int(
                await self._end_finish(
                    keys=[keys.race_meta(race_id), keys.race_summary(race_id), plan_key],
                    args=[keys.race_channel(race_id)],
                )
            )
        await self._untime(race_id, meta.code, player_ids, ttl)
        return answer

    async def _ratings_moved(self, game: str, racers: list[RacerRecord]) -> bool:
        rated = [r for r in racers if r.rating is not None]
        if not rated:
            return False
        async with self.redis.pipeline(transaction=False) as pipe:
            for racer in rated:
                pipe.hget(keys.player_rating(racer.player_id, game), "games")
            games = await pipe.execute()
        return any(int(g or 0) != r.expect for g, r in zip(games, rated, strict=True))

    async def _apply_plan(self, race_id: str, game: str, plan: dict[str, Any], now: int) -> list[str]:
        """Write the plan's changes to every racer, the leaderboard and the daily board;
        the racers whose rating could not be written (it moved meanwhile)."""
        writes: list[OnceWrite] = []
        rating_of: dict[int, str] = {}
        # Every racer's place on the leaderboard in one write: the key's marker takes one
        # write per race, so a second one to the same key would be skipped as done.
        listings: list[str | float] = []
        for racer in plan["racers"]:
            player_id = racer["player_id"]
            rating = racer.get("rating")
            if rating is not None:
                rating_of[len(writes)] = player_id
                writes.append(
                    OnceWrite(
                        keys.player_rating(player_id, game),
                        "rating",
                        (
                            racer["expect"],
                            rating["rating"],
                            rating["rd"],
                            rating["volatility"],
                            rating["games"],
                            rating["last_at"],
                        ),
                    )
                )
                listings += [player_id, rating["rating"] if racer["listed"] else ""]
                history = keys.player_rating_history(player_id, game)
                writes.append(OnceWrite(history, "push", (racer["history"], HISTORY)))
            if racer.get("counted", True):  # a daily practice is no race of the stats
                stats = keys.player_stats(player_id, game)
                won = "1" if racer["won"] else "0"
                writes.append(OnceWrite(stats, "stats", (won, racer.get("time_ms", ""))))
            writes.append(OnceWrite(keys.player_recent(player_id), "push", (racer["recent"], RECENT)))
        if listings:
            writes.append(OnceWrite(keys.leaderboard(game), "zset", tuple(listings)))
        if plan["daily"]:
            # A plan fixed before the attempt's gave-up flag was in it has three items. The
            # mark goes first (same slot, same batch): whoever finds the entry finds it too.
            day, member, score, *gave_up = plan["daily"]
            if any(gave_up):
                writes.append(OnceWrite(keys.daily_gave_up(day, game), "zadd", (member, score)))
            writes.append(OnceWrite(keys.daily_board(day, game), "zadd", (member, score)))
        answers = await self._once.apply(f"end {race_id}", now, writes)
        return [player for index, player in rating_of.items() if answers[index] < 0]

    async def _untime(self, race_id: str, code: str, player_ids: list[str], ttl: int) -> None:
        """An over race leaves the clock's deadlines, and its keys expire after ``ttl``
        seconds (0: kept), in one round trip."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrem(keys.DEADLINES, race_id)
            pipe.zrem(keys.LIVE_RACES, race_id)
            if ttl > 0:
                for key in keys.race_keys(race_id, code, player_ids):
                    pipe.expire(key, ttl)
            await pipe.execute()

    async def expire(self, race_id: str, code: str | None, player_ids: list[str], ttl: int) -> None:
        """Every key of a race expires after ``ttl`` seconds (keys it never had are no-ops)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in keys.race_keys(race_id, code, player_ids):
                pipe.expire(key, ttl)
            await pipe.execute()


def _seat_names(name: str) -> list[str]:
    """The names a seat may take, the first free first (ARGV of the scripts that name one):
    enough that one is free however many seats the race has. A numbered ``name`` (a
    rematch keeps a racer's number) comes first, then the name's own and its numbers."""
    base = unnumbered_name(name)
    names = [base, *(numbered_name(base, number) for number in range(2, SEATS_MAX + 1))]
    if name != base:
        names = [name, *(each for each in names if each != name)]
    return [part for each in names for part in (each, seat_key(each))]


def _seat_json(seat: Seat) -> str:
    data: dict[str, Any] = {
        "name": seat.name,
        "fold": seat_key(seat.name),
        "ready": seat.ready,
        "joined_at": seat.joined_at,
    }
    if seat.bot:
        data["bot"] = True
    if seat.share_commitment:
        data["share_commitment"] = seat.share_commitment
    return json.dumps(data)


def _sorted_seats(raw: dict[str, str]) -> list[Seat]:
    seats = [_parse_seat(pid, value) for pid, value in raw.items()]
    return sorted(seats, key=lambda s: (s.joined_at, s.player_id))


def _parse_seat(player_id: str, value: str) -> Seat:
    data = orjson.loads(value)
    return Seat(
        player_id,
        str(data["name"]),
        bool(data["ready"]),
        int(data["joined_at"]),
        bool(data.get("bot", False)),
        str(data.get("share_commitment", "")),
        str(data.get("share", "")),
    )


def _opt_int(value: str | None) -> int | None:
    return int(value) if value not in (None, "", "0") else None


def _parse_meta(raw: dict[str, str]) -> RaceMeta:
    return RaceMeta(
        race_id=raw["race_id"],
        code=raw["code"],
        game=raw["game"],  # type: ignore[arg-type]  # written from a GameName only
        seats=int(raw["seats"]),
        time_limit=float(raw["time_limit"]),
        status=RaceStatus(raw["status"]),
        creator=raw["creator"],
        seed=int(raw["seed"]),
        salt=raw["salt"],
        commitment=raw["commitment"],
        created_at=int(raw["created_at"]),
        starts_at=_opt_int(raw.get("starts_at")),
        ends_at=_opt_int(raw.get("ends_at")),
        ended_at=_opt_int(raw.get("ended_at")),
        cancel_reason=raw.get("cancel_reason") or None,
        hints=raw.get("hints") == "1",
        rated=raw.get("rated") == "1",
        daily=raw.get("daily", ""),
        daily_scored=raw.get("daily_scored") == "1",
        practice=raw.get("practice") == "1",
        quick=raw.get("quick") == "1",
        racer_count=int(raw.get("racer_count") or 0),
        finished_count=int(raw.get("finished_count") or 0),
        server_seed=int(raw.get("server_seed") or raw["seed"]),
    )


def _racer_json(racer: RacerRecord) -> dict[str, Any]:
    """A racer's part of the end as the script reads it (no nulls: Lua sees those as true)."""
    data: dict[str, Any] = {"player_id": racer.player_id, "won": racer.won, "recent": racer.recent}
    if racer.time_ms is not None:
        data["time_ms"] = racer.time_ms
    if not racer.counted:
        data["counted"] = False
    if racer.rating is not None:
        r = racer.rating
        data["rating"] = {
            "rating": r.rating,
            "rd": r.rd,
            "volatility": r.volatility,
            "games": r.games,
            "last_at": r.last_at,
        }
        data["expect"] = racer.expect
        data["listed"] = racer.listed
        data["history"] = racer.history
    return data

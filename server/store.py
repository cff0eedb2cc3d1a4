"""The store: the one module that owns every Redis key and Lua script.

Keys of one race share the hash tag ``{race id}`` so a race never spans cluster slots:
``race:{id}:meta`` (hash), ``race:{id}:racers`` (hash player -> seat JSON),
``race:{id}:board:<player>`` (hash), ``race:{id}:log`` (stream of moves),
``race:{id}:summary`` (JSON), ``race:{id}:nodes`` (set of the node ids following
the race) and the pub/sub channel ``race:{id}:events``.
Global keys: ``player:<id>`` (hash), ``token:<sha256>`` (player id; tokens themselves
are never stored), ``player:<id>:races`` (set), ``code:<code>`` (race id),
``races:open`` (sorted set), ``deadlines`` (sorted set of race id -> due ms),
``queue:{<game>}`` (list of waiting players) with ``queue:{<game>}:leases`` (sorted
set of their lease ends) and the channel ``player:<id>:events``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass
from typing import Any, Final

import orjson
import redis.asyncio as aioredis
from redis.exceptions import NoScriptError, ResponseError

from server import scripts
from shared import Game, MoveResult

_OPEN: Final = "races:open"
_DEADLINES: Final = "deadlines"


def _meta(race_id: str) -> str:
    return f"race:{{{race_id}}}:meta"


def _racers(race_id: str) -> str:
    return f"race:{{{race_id}}}:racers"


def _board(race_id: str, player_id: str) -> str:
    return f"race:{{{race_id}}}:board:{player_id}"


def _log(race_id: str) -> str:
    return f"race:{{{race_id}}}:log"


def _summary(race_id: str) -> str:
    return f"race:{{{race_id}}}:summary"


def _nodes(race_id: str) -> str:
    return f"race:{{{race_id}}}:nodes"


def _code(code: str) -> str:
    return f"code:{code}"


def _queue(game: str) -> str:
    return f"queue:{{{game}}}"


def _leases(game: str) -> str:
    return f"queue:{{{game}}}:leases"


def race_channel(race_id: str) -> str:
    """The pub/sub channel of one race's events."""
    return f"race:{{{race_id}}}:events"


def race_of_channel(channel: str) -> str | None:
    """The race id of a :func:`race_channel` name (None for any other channel)."""
    if channel.startswith("race:{") and channel.endswith("}:events"):
        return channel[len("race:{") : -len("}:events")]
    return None


def player_channel(player_id: str) -> str:
    """The pub/sub channel of events for one player (quick match)."""
    return f"player:{player_id}:events"


def token_digest(token: str) -> str:
    """What the store keeps of a token: its SHA-256, never the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Seat:
    player_id: str
    name: str
    ready: bool
    joined_at: int


@dataclass(frozen=True, slots=True)
class RaceMeta:
    race_id: str
    code: str
    game: str
    seats: int
    time_limit: float
    status: str
    creator: str
    seed: int
    salt: str
    commitment: str
    created_at: int
    starts_at: int | None
    ends_at: int | None
    ended_at: int | None


@dataclass(frozen=True, slots=True)
class BoardRecord:
    """A racer's stored board: the position dict plus counters."""

    player_id: str
    position: dict[str, Any]
    seq: int
    move_count: int
    score: int
    won: bool
    finished: bool
    score_at: int
    finished_at: int
    #: The ``result`` of the last accepted move (JSON), for a resent seq.
    last_result: str | None = None


@dataclass(frozen=True, slots=True)
class MoveOutcome:
    """What the move script said: ``status`` is ``ok``, ``dup``, ``seq`` or an error word."""

    status: str
    current_seq: int | None = None
    all_finished: bool = False


class ScriptBatcher:
    """Runs the script calls made in the same moment as one batch: one round trip.

    Moves from many racers arrive together; writing their ``EVALSHA`` commands in one
    packed write, then reading the replies in order, saves most of redis-py's
    per-command cost (its pipeline object, command stack and per-argument encoder).
    At most ``max_inflight`` batches run at once, each on one of the batcher's own
    connections (made from the client's pool settings, outside its pool: no pool
    locking and checks per batch); calls made meanwhile wait and go together in the
    next one. Redis runs each script atomically on its own, exactly as in a
    non-transactional pipeline. A connection that failed or was interrupted mid-batch
    is disconnected (it reconnects on its next use), so no reply is ever read twice.
    """

    def __init__(self, client: Any, max_inflight: int = 2, max_batch: int = 256) -> None:
        self.client = client
        self.max_inflight = max_inflight
        self.max_batch = max_batch
        self._pending: list[tuple[Any, list[Any], list[Any], asyncio.Future[Any]]] = []
        self._inflight = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._idle: list[Any] = []
        self._connections: list[Any] = []

    async def aclose(self) -> None:
        """Disconnect the batcher's own connections."""
        for connection in self._connections:
            await connection.disconnect()

    async def call(self, script: Any, keys: list[Any], args: list[Any]) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending.append((script, keys, args, future))
        self._kick()
        return await future

    def _kick(self) -> None:
        while self._pending and self._inflight < self.max_inflight:
            batch = self._pending[: self.max_batch]
            del self._pending[: self.max_batch]
            self._inflight += 1
            task = asyncio.create_task(self._flush(batch))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _flush(self, batch: list[tuple[Any, list[Any], list[Any], asyncio.Future[Any]]]) -> None:
        try:
            results = await self._run(batch)
            for (script, keys, args, future), result in zip(batch, results, strict=True):
                if isinstance(result, NoScriptError):
                    # Redis lost its script cache (restart): this call did not run.
                    try:
                        result = await script(keys=keys, args=args)
                    except Exception as exc:
                        result = exc
                if future.done():
                    continue
                if isinstance(result, Exception):
                    future.set_exception(result)
                else:
                    future.set_result(result)
        except Exception as exc:
            for _script, _keys, _args, future in batch:
                if not future.done():
                    future.set_exception(exc)
        finally:
            self._inflight -= 1
            self._kick()

    async def _run(self, batch: list[tuple[Any, list[Any], list[Any], asyncio.Future[Any]]]) -> list[Any]:
        """Send every call of the batch in one write; the replies (or errors) in order."""
        packed = b"".join(_pack_evalsha(script.sha, keys, args) for script, keys, args, _f in batch)
        if self._idle:
            connection = self._idle.pop()
        else:
            connection = self.client.connection_pool.make_connection()
            self._connections.append(connection)
        try:
            # Retried on a connection error as redis-py retries a pipeline (the
            # connection's own retry policy): a script that did run before the failure
            # answers 'dup' the second time, which the caller turns into the stored ack.
            results: list[Any] = await connection.retry.call_with_retry(
                lambda: self._exchange(connection, packed, len(batch)),
                lambda error: connection.disconnect(),
            )
            return results
        except BaseException:
            # A reply may still be on its way: never hand this connection out again as is.
            await connection.disconnect()
            raise
        finally:
            self._idle.append(connection)

    @staticmethod
    async def _exchange(connection: Any, packed: bytes, count: int) -> list[Any]:
        await connection.send_packed_command(packed)
        results: list[Any] = []
        for _ in range(count):
            try:
                results.append(await connection.read_response())
            except ResponseError as exc:
                results.append(exc)
        return results


def _arg(value: Any) -> bytes:
    """One command argument as Redis protocol bytes (as redis-py's encoder does it)."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    return _number(value).encode()


def _number(value: Any) -> str:
    if isinstance(value, bool):
        raise TypeError("a bool is not a Redis argument: pass '1' or '0'")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    raise TypeError(f"cannot send {type(value).__name__} to Redis")


def _pack_evalsha(sha: str, keys: list[Any], args: list[Any]) -> bytes:
    """``EVALSHA sha numkeys keys... args...`` in the Redis protocol (RESP).

    Built as text and encoded once: when every argument is ASCII text or a number, a
    length in characters is the length in bytes. Anything else takes the exact path.
    """
    items = [sha, str(len(keys)), *keys, *args]
    parts = [f"*{len(items) + 1}\r\n$7\r\nEVALSHA\r\n"]
    for item in items:
        if type(item) is not str:
            if isinstance(item, bytes):
                return _pack_exact(items)
            item = _number(item)
        parts.append(f"${len(item)}\r\n{item}\r\n")
    text = "".join(parts)
    return text.encode() if text.isascii() else _pack_exact(items)


def _pack_exact(items: list[Any]) -> bytes:
    encoded = [b"EVALSHA", *map(_arg, items)]
    parts = [b"*%d\r\n" % len(encoded)]
    for item in encoded:
        parts.append(b"$%d\r\n%b\r\n" % (len(item), item))
    return b"".join(parts)


def _expire_race(pipe: Any, race_id: str, code: str | None, player_ids: list[str], ttl: int) -> None:
    """Queue on ``pipe`` the expiry of every key of a race (keys it never had are no-ops)."""
    keys = [_meta(race_id), _racers(race_id), _log(race_id), _summary(race_id), _nodes(race_id)]
    keys += [_board(race_id, p) for p in player_ids]
    if code:
        keys.append(_code(code))
    for key in keys:
        pipe.expire(key, ttl)


def _dumps(data: Any) -> str:
    return orjson.dumps(data).decode()


def _opt_int(value: str | None) -> int | None:
    return int(value) if value not in (None, "", "0") else None


class Store:
    """Every Redis read and write of the server."""

    def __init__(self, client: aioredis.Redis) -> None:
        # redis-py types replies as ``bytes | str``; this client decodes responses.
        self.redis: Any = client
        self._join = self.redis.register_script(scripts.JOIN)
        self._ready = self.redis.register_script(scripts.READY)
        self._leave = self.redis.register_script(scripts.LEAVE)
        self._start = self.redis.register_script(scripts.START)
        self._go = self.redis.register_script(scripts.GO)
        self._move = self.redis.register_script(scripts.MOVE)
        self._finish = self.redis.register_script(scripts.FINISH)
        self._begin_end = self.redis.register_script(scripts.BEGIN_END)
        self._complete_end = self.redis.register_script(scripts.COMPLETE_END)
        self._match = self.redis.register_script(scripts.MATCH)
        self._batcher = ScriptBatcher(self.redis)

    async def load_scripts(self) -> None:
        """Load every script once, so pipelined calls can use EVALSHA."""
        for script in (
            self._join,
            self._ready,
            self._leave,
            self._start,
            self._go,
            self._move,
            self._finish,
            self._begin_end,
            self._complete_end,
            self._match,
        ):
            await self.redis.script_load(script.script)

    async def aclose(self) -> None:
        """Close the store's own connections (the client's pool is the caller's)."""
        await self._batcher.aclose()

    async def ping(self) -> bool:
        return bool(await self.redis.ping())

    # ----- players -----------------------------------------------------------------

    async def create_player(self, player_id: str, name: str, token: str, now: int) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(f"player:{player_id}", mapping={"name": name, "created_at": now})
            pipe.set(f"token:{token_digest(token)}", player_id)
            await pipe.execute()

    async def player_for_token(self, token: str) -> tuple[str, str] | None:
        """(player id, name) of a token, or None."""
        player_id = await self.redis.get(f"token:{token_digest(token)}")
        if player_id is None:
            return None
        name = await self.redis.hget(f"player:{player_id}", "name")
        return (player_id, name or "?") if name is not None else None

    async def mark_hello(self, player_id: str, now: int) -> None:
        """The player said hello (new or resumed) at ``now``."""
        await self.redis.hset(f"player:{player_id}", "hello_at", now)

    async def last_hello(self, player_id: str) -> int:
        """When the player last said hello (ms; 0 if never recorded)."""
        value: str | None = await self.redis.hget(f"player:{player_id}", "hello_at")
        return int(value) if value else 0

    async def player_name(self, player_id: str) -> str | None:
        name: str | None = await self.redis.hget(f"player:{player_id}", "name")
        return name

    async def player_races(self, player_id: str) -> list[str]:
        races: set[str] = await self.redis.smembers(f"player:{player_id}:races")
        return sorted(races)

    async def add_player_race(self, player_id: str, race_id: str) -> None:
        await self.redis.sadd(f"player:{player_id}:races", race_id)

    async def remove_player_race(self, player_id: str, race_id: str) -> None:
        await self.redis.srem(f"player:{player_id}:races", race_id)

    # ----- races: setup ------------------------------------------------------------

    async def create_race(self, meta: RaceMeta, seat: Seat) -> bool:
        """Store a new race with its creator seated; False if the short code is taken."""
        if not await self.redis.set(_code(meta.code), meta.race_id, nx=True):
            return False
        fields = {
            "race_id": meta.race_id,
            "code": meta.code,
            "game": meta.game,
            "seats": meta.seats,
            "time_limit": repr(meta.time_limit),
            "status": meta.status,
            "creator": meta.creator,
            "seed": meta.seed,
            "salt": meta.salt,
            "commitment": meta.commitment,
            "created_at": meta.created_at,
        }
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(_meta(meta.race_id), mapping=fields)
            pipe.hset(_racers(meta.race_id), seat.player_id, _seat_json(seat))
            pipe.zadd(_OPEN, {meta.race_id: meta.created_at})
            pipe.sadd(f"player:{seat.player_id}:races", meta.race_id)
            await pipe.execute()
        return True

    async def race_for_code(self, code: str) -> str | None:
        race_id: str | None = await self.redis.get(_code(code))
        return race_id

    async def open_races(self, limit: int = 50) -> list[str]:
        races: list[str] = await self.redis.zrange(_OPEN, 0, limit - 1)
        return races

    async def close_open_race(self, race_id: str) -> None:
        await self.redis.zrem(_OPEN, race_id)

    async def join(self, race_id: str, seat: Seat) -> str:
        keys = [_meta(race_id), _racers(race_id)]
        result: str = await self._join(keys=keys, args=[seat.player_id, _seat_json(seat)])
        if result == "ok":
            await self.add_player_race(seat.player_id, race_id)
        return result

    async def set_ready(self, race_id: str, player_id: str, ready: bool) -> str:
        keys = [_meta(race_id), _racers(race_id)]
        result: str = await self._ready(keys=keys, args=[player_id, "1" if ready else "0"])
        return result

    async def leave(self, race_id: str, player_id: str, ttl: int) -> str:
        """The player leaves an open race; the last one out cancels it, and then the
        race's keys expire after ``ttl`` seconds (0: kept)."""
        result: str = await self._leave(keys=[_meta(race_id), _racers(race_id)], args=[player_id])
        if result in ("ok", "cancelled"):
            await self.remove_player_race(player_id, race_id)
        if result == "cancelled":
            await self.close_open_race(race_id)
            if ttl > 0:
                code: str | None = await self.redis.hget(_meta(race_id), "code")
                async with self.redis.pipeline(transaction=False) as pipe:
                    _expire_race(pipe, race_id, code, [], ttl)
                    await pipe.execute()
        return result

    async def start(
        self,
        race_id: str,
        player_ids: list[str],
        starts_at: int,
        ends_at: int,
        position: dict[str, Any],
        score: int,
        event: str,
    ) -> str:
        """Deal every board and begin the countdown; ``changed`` if the seats moved."""
        keys = [_meta(race_id), _racers(race_id), *(_board(race_id, p) for p in player_ids)]
        args: list[Any] = [
            starts_at,
            ends_at,
            json.dumps(position, separators=(",", ":")),
            score,
            event,
            race_channel(race_id),
            *player_ids,
        ]
        result: str = await self._start(keys=keys, args=args)
        if result == "ok":
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.zrem(_OPEN, race_id)
                pipe.zadd(_DEADLINES, {race_id: starts_at})
                await pipe.execute()
        return result

    async def go(self, race_id: str, now: int, event: str, ends_at: int) -> bool:
        """Countdown over: the race runs, and its next deadline is its time limit."""
        args: list[Any] = [now, event, race_channel(race_id)]
        started = bool(await self._go(keys=[_meta(race_id)], args=args))
        if started:
            await self.redis.zadd(_DEADLINES, {race_id: ends_at})
        return started

    # ----- races: reading ----------------------------------------------------------

    async def meta(self, race_id: str) -> RaceMeta | None:
        raw: dict[str, str] = await self.redis.hgetall(_meta(race_id))
        return _parse_meta(raw) if raw else None

    async def seats(self, race_id: str) -> list[Seat]:
        raw: dict[str, str] = await self.redis.hgetall(_racers(race_id))
        seats = [_parse_seat(pid, value) for pid, value in raw.items()]
        return sorted(seats, key=lambda s: (s.joined_at, s.player_id))

    async def race(self, race_id: str) -> tuple[RaceMeta, list[Seat]] | None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hgetall(_meta(race_id))
            pipe.hgetall(_racers(race_id))
            raw_meta, raw_seats = await pipe.execute()
        if not raw_meta:
            return None
        seats = [_parse_seat(pid, value) for pid, value in raw_seats.items()]
        seats.sort(key=lambda s: (s.joined_at, s.player_id))
        return _parse_meta(raw_meta), seats

    async def board(self, race_id: str, player_id: str) -> BoardRecord | None:
        raw: dict[str, str] = await self.redis.hgetall(_board(race_id, player_id))
        return _parse_board(player_id, raw) if raw else None

    async def boards(self, race_id: str, player_ids: list[str]) -> list[BoardRecord]:
        if not player_ids:
            return []
        fields = ("seq", "move_count", "score", "won", "finished", "score_at", "finished_at")
        async with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.hmget(_board(race_id, player_id), fields)
            rows = await pipe.execute()
        records = []
        for player_id, row in zip(player_ids, rows, strict=True):
            if row[0] is None:
                continue
            records.append(_parse_board(player_id, dict(zip(fields, row, strict=True))))
        return records

    async def summary(self, race_id: str) -> str | None:
        value: str | None = await self.redis.get(_summary(race_id))
        return value

    async def move_log(self, race_id: str) -> list[dict[str, str]]:
        entries = await self.redis.xrange(_log(race_id))
        return [dict(fields) for _entry_id, fields in entries]

    # ----- races: playing ----------------------------------------------------------

    async def follow_race(self, race_id: str, node_id: str) -> None:
        """Mark ``node_id`` as one with sessions in the race (it wants its progress events)."""
        await self.redis.sadd(_nodes(race_id), node_id)

    async def unfollow_race(self, race_id: str, node_id: str) -> None:
        await self.redis.srem(_nodes(race_id), node_id)

    async def apply_move(
        self,
        race_id: str,
        player_id: str,
        seq: int,
        game: Game,
        result: MoveResult,
        now: int,
        event: str,
        node_id: str,
    ) -> MoveOutcome:
        """The one atomic call per move: CAS on seq, store, log, publish.

        ``game`` is the board after the move. Everything sent is encoded before the
        first await, so a move waiting on Redis holds strings, not the position's
        lists and dicts: the garbage collector's young generation stays small. The
        progress event is published only when a node other than ``node_id`` (the
        mover's, which delivers it itself) follows the race.
        """
        keys = [_meta(race_id), _board(race_id, player_id), _log(race_id), _nodes(race_id)]
        args: list[Any] = [
            player_id,
            seq,
            result.move,
            _dumps(game.position()),
            game.move_count,
            result.score,
            "1" if result.won else "0",
            now,
            _dumps(result.to_dict()),
            event,
            race_channel(race_id),
            node_id,
        ]
        reply: list[str] = await self._batcher.call(self._move, keys, args)
        return _outcome(reply)

    async def finish(self, race_id: str, player_id: str, now: int, event: str) -> MoveOutcome:
        keys = [_meta(race_id), _board(race_id, player_id)]
        reply: list[str] = await self._finish(keys=keys, args=[now, event, race_channel(race_id)])
        return _outcome(reply)

    # ----- races: ending -----------------------------------------------------------

    async def begin_end(self, race_id: str, now: int) -> bool:
        return bool(await self._begin_end(keys=[_meta(race_id)], args=[now]))

    async def complete_end(
        self, race_id: str, code: str, player_ids: list[str], summary: str, event: str, ttl: int
    ) -> bool:
        keys = [_meta(race_id), _summary(race_id)]
        done = bool(await self._complete_end(keys=keys, args=[summary, event, race_channel(race_id)]))
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrem(_DEADLINES, race_id)
            if ttl > 0:
                _expire_race(pipe, race_id, code, player_ids, ttl)
            await pipe.execute()
        return done

    async def due_races(self, now: int, limit: int = 50) -> list[str]:
        races: list[str] = await self.redis.zrangebyscore(_DEADLINES, "-inf", now, 0, limit)
        return races

    async def set_deadline(self, race_id: str, due: int) -> None:
        await self.redis.zadd(_DEADLINES, {race_id: due})

    async def drop_deadline(self, race_id: str) -> None:
        await self.redis.zrem(_DEADLINES, race_id)

    # ----- quick match -------------------------------------------------------------

    async def match(self, game: str, player_id: str, now: int, lease_until: int) -> str | None:
        """The player waiting for ``game`` to pair with, or None (now queued until
        ``lease_until`` unless the lease is renewed)."""
        keys = [_queue(game), _leases(game)]
        other: str | None = await self._match(keys=keys, args=[player_id, now, lease_until])
        return other or None

    async def renew_queue_leases(self, entries: list[tuple[str, str]], lease_until: int) -> None:
        """Extend the leases of waiting ``(game, player id)`` entries (gone ones stay gone)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for game, player_id in entries:
                pipe.zadd(_leases(game), {player_id: lease_until}, xx=True)
            await pipe.execute()

    async def unqueue(self, game: str, player_id: str) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.lrem(_queue(game), 0, player_id)
            pipe.zrem(_leases(game), player_id)
            await pipe.execute()

    # ----- fan-out -----------------------------------------------------------------

    async def publish_player(self, player_id: str, event: str) -> None:
        await self.redis.publish(player_channel(player_id), event)

    async def publish_race(self, race_id: str, event: str) -> None:
        await self.redis.publish(race_channel(race_id), event)


def _seat_json(seat: Seat) -> str:
    return json.dumps({"name": seat.name, "ready": seat.ready, "joined_at": seat.joined_at})


def _parse_seat(player_id: str, value: str) -> Seat:
    data = json.loads(value)
    return Seat(player_id, str(data["name"]), bool(data["ready"]), int(data["joined_at"]))


def _parse_meta(raw: dict[str, str]) -> RaceMeta:
    return RaceMeta(
        race_id=raw["race_id"],
        code=raw["code"],
        game=raw["game"],
        seats=int(raw["seats"]),
        time_limit=float(raw["time_limit"]),
        status=raw["status"],
        creator=raw["creator"],
        seed=int(raw["seed"]),
        salt=raw["salt"],
        commitment=raw["commitment"],
        created_at=int(raw["created_at"]),
        starts_at=_opt_int(raw.get("starts_at")),
        ends_at=_opt_int(raw.get("ends_at")),
        ended_at=_opt_int(raw.get("ended_at")),
    )


def _parse_board(player_id: str, raw: dict[str, Any]) -> BoardRecord:
    position = orjson.loads(raw["position"]) if raw.get("position") else {}
    return BoardRecord(
        player_id=player_id,
        position=position,
        seq=int(raw["seq"]),
        move_count=int(raw["move_count"]),
        score=int(raw["score"]),
        won=raw["won"] == "1",
        finished=raw["finished"] == "1",
        score_at=int(raw["score_at"]),
        finished_at=int(raw["finished_at"]),
        last_result=raw.get("ack"),
    )


def _outcome(reply: list[str]) -> MoveOutcome:
    status = reply[0]
    if status == "ok":
        return MoveOutcome("ok", all_finished=int(reply[1]) >= int(reply[2]))
    if status == "dup":
        return MoveOutcome("dup")
    if status == "seq":
        return MoveOutcome("seq", current_seq=int(reply[1]))
    return MoveOutcome(status)

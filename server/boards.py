"""Racers' boards: a move from its seq check to its ack, and giving up.

A node caches the boards of its racers (the engine's ``Game`` and the last acked
seq). The cache is only a shortcut: the store's compare-and-set on seq is the truth,
and any disagreement drops the cache entry and reloads the board from Redis.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from server.errors import ArenaError, not_a_racer, race_not_found, script_error
from server.fanout import Fanout, envelope, envelope_dict
from server.metrics import Metrics
from server.races import now_ms
from server.store import MoveOutcome, Store
from shared import Game, IllegalMove, from_position
from shared.protocol import ErrorCode, MakeMove, Progress, RequestId

log = logging.getLogger("arena.boards")

_CARDS = 52
_CACHE_SIZE = 20_000


@dataclass
class CachedBoard:
    game: Game
    seq: int
    finished: bool
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Boards:
    def __init__(
        self, store: Store, fanout: Fanout, metrics: Metrics, end_race: Callable[[str], None]
    ) -> None:
        self.store = store
        self.fanout = fanout
        self.metrics = metrics
        self.end_race = end_race
        self._accepted = metrics.moves.labels(result="accepted")
        self._cache: OrderedDict[tuple[str, str], CachedBoard] = OrderedDict()

    def forget_race(self, race_id: str) -> None:
        for key in [k for k in self._cache if k[0] == race_id]:
            del self._cache[key]

    async def _load(self, race_id: str, player_id: str) -> CachedBoard:
        record = await self.store.board(race_id, player_id)
        if record is None:
            meta = await self.store.meta(race_id)
            if meta is None:
                raise race_not_found(race_id)
            if meta.status in ("open", "cancelled"):
                seated = any(s.player_id == player_id for s in await self.store.seats(race_id))
                if seated:
                    raise script_error("not_started")
            raise not_a_racer(race_id)
        game = from_position(record.position)
        game.move_count = record.move_count
        board = CachedBoard(game, record.seq, record.finished)
        key = (race_id, player_id)
        self._cache[key] = board
        if len(self._cache) > _CACHE_SIZE:
            self._cache.popitem(last=False)
        return board

    async def _board(self, race_id: str, player_id: str, seq: int) -> CachedBoard:
        board = self._cache.get((race_id, player_id))
        if board is None or seq != board.seq + 1:
            board = await self._load(race_id, player_id)
        return board

    async def move(self, player_id: str, request: MakeMove) -> dict[str, Any]:
        """Apply one move; the ack (a wire dict) echoes the request id."""
        started = time.perf_counter()
        try:
            ack = await self._move(player_id, request)
        except ArenaError as exc:
            self.metrics.moves.labels(result=exc.code.value).inc()
            raise
        self._accepted.inc()
        self.metrics.move_latency.observe(time.perf_counter() - started)
        return ack

    async def _move(self, player_id: str, request: MakeMove) -> dict[str, Any]:
        race_id, seq = request.race_id, request.seq
        board = await self._board(race_id, player_id, seq)
        async with board.lock:
            if self._cache.get((race_id, player_id)) is not board:
                board = await self._load(race_id, player_id)
            try:
                return await self._locked_move(board, player_id, request)
            except ArenaError:
                raise
            except BaseException:
                # The engine may have applied a move the store never took: reload later.
                self._cache.pop((race_id, player_id), None)
                raise

    async def _locked_move(self, board: CachedBoard, player_id: str, request: MakeMove) -> dict[str, Any]:
        race_id, seq = request.race_id, request.seq
        if seq <= board.seq:
            return await self._resent(race_id, player_id, seq, board.seq, request.id)
        if seq > board.seq + 1:
            raise ArenaError(
                ErrorCode.FUTURE_SEQ,
                f"seq {seq} is ahead: the next move's seq is {board.seq + 1}",
            )
        if board.finished:
            raise await self._race_error_or(race_id, script_error("finished"))
        try:
            result = board.game.play(request.move)
        except IllegalMove as exc:
            raise await self._race_error_or(race_id, ArenaError(ErrorCode.ILLEGAL_MOVE, exc.reason)) from None
        game = board.game
        # The Progress event as a wire dict, built directly (the same fields, in order).
        event: dict[str, Any] = {
            "type": "progress",
            "race_id": race_id,
            "player_id": player_id,
            "score": result.score,
            "cards_left": _CARDS - result.score,
            "move_count": game.move_count,
            "finished": result.won,
            "won": result.won,
        }
        # Delivered here at once; other nodes get it through Redis pub/sub.
        published = envelope_dict(event, skip=player_id, origin=self.fanout.node_id)
        outcome = await self.store.apply_move(
            race_id, player_id, seq, game, result, now_ms(), published, self.fanout.node_id
        )
        if outcome.status != "ok":
            self._cache.pop((race_id, player_id), None)
            return await self._rejected(race_id, player_id, seq, outcome, request.id)
        board.seq = seq
        board.finished = result.won
        self.fanout.deliver_race_message(race_id, event, skip=player_id)
        if outcome.all_finished:
            self.end_race(race_id)
        # The MoveAck message as a wire dict, built directly (this is the hot path) and
        # only now: the board is locked, so the view is the one the store just took.
        ack: dict[str, Any] = {
            "type": "move_ack",
            "id": request.id,
            "race_id": race_id,
            "seq": seq,
            "result": result.to_dict(),
            "view": game.view(),
            "finished": result.won,
        }
        return ack

    async def _resent(
        self, race_id: str, player_id: str, seq: int, current: int, request_id: RequestId
    ) -> dict[str, Any]:
        if seq == current:
            ack = await self._stored_ack(race_id, player_id, request_id)
            if ack is not None:
                return ack
        raise ArenaError(
            ErrorCode.STALE_SEQ,
            f"seq {seq} was already played: the next move's seq is {current + 1}",
        )

    async def _stored_ack(self, race_id: str, player_id: str, request_id: RequestId) -> dict[str, Any] | None:
        """The ack of the racer's last accepted move, again: the store keeps its result
        next to the board, and the board is the view that ack carried."""
        record = await self.store.board(race_id, player_id)
        if record is None or record.last_result is None:
            return None
        game = from_position(record.position)
        game.move_count = record.move_count
        return {
            "type": "move_ack",
            "id": request_id,
            "race_id": race_id,
            "seq": record.seq,
            "result": orjson.loads(record.last_result),
            "view": game.view(),
            "finished": record.won,
        }

    async def _rejected(
        self,
        race_id: str,
        player_id: str,
        seq: int,
        outcome: MoveOutcome,
        request_id: RequestId,
    ) -> dict[str, Any]:
        if outcome.status == "dup":
            ack = await self._stored_ack(race_id, player_id, request_id)
            if ack is not None:
                return ack
        if outcome.status == "seq" and outcome.current_seq is not None:
            if seq <= outcome.current_seq:
                return await self._resent(race_id, player_id, seq, outcome.current_seq, request_id)
            raise ArenaError(
                ErrorCode.FUTURE_SEQ,
                f"seq {seq} is ahead: the next move's seq is {outcome.current_seq + 1}",
            )
        raise script_error(outcome.status)

    async def _race_error_or(self, race_id: str, error: ArenaError) -> ArenaError:
        """A race that is over or not running explains a rejection better than the move."""
        meta = await self.store.meta(race_id)
        if meta is None:
            return race_not_found(race_id)
        if meta.status in ("ending", "finished") or (meta.ends_at and now_ms() > meta.ends_at):
            return script_error("over")
        if meta.status == "countdown":
            return script_error("not_started")
        return error

    async def finish(self, player_id: str, race_id: str) -> None:
        """The racer gives up and keeps their score."""
        record = await self.store.board(race_id, player_id)
        if record is None:
            await self._load(race_id, player_id)  # raises the right error
            return
        event = Progress(
            race_id=race_id,
            player_id=player_id,
            score=record.score,
            cards_left=_CARDS - record.score,
            move_count=record.move_count,
            finished=True,
            won=record.won,
        )
        outcome = await self.store.finish(race_id, player_id, now_ms(), envelope(event, skip=player_id))
        if outcome.status != "ok":
            raise script_error(outcome.status)
        cached = self._cache.get((race_id, player_id))
        if cached is not None:
            cached.finished = True
        log.info("racer finished", extra={"race_id": race_id, "player_id": player_id})
        if outcome.all_finished:
            self.end_race(race_id)

"""Racing: the start of a race, a move from its seq check to its ack, and giving up.

A node caches the boards of its racers (the engine's ``Game`` and the last acked seq).
The cache is only a shortcut: the store's compare-and-set on seq is the truth, and any
disagreement drops the cache entry and reloads the board from Redis.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import orjson

from server.errors import ArenaError, answer_error, not_a_racer, race_not_found
from server.features.board_cache import BoardCache, CachedBoard
from server.features.context import Caller, Reply
from server.features.events import EventKind, LocalEvent, pack_event
from server.features.race_rules import CARDS, view_of, window_from_go
from server.features.results import RaceResults
from server.metrics import Metrics
from server.store import OUTAGE_ERRORS, Answer, Deal, MoveOutcome, RaceMeta, RaceStatus, Store
from server.timesource import TimeSource
from shared import Game, IllegalMove, UndoRule, from_position, new_game, parse_move, replay
from shared.fairness import mixed_seed
from shared.protocol import BoardView, ErrorCode, Finish, MakeMove, Ok, Progress, RaceStarted

log = logging.getLogger("arena.racing")

#: Reads of a racer's board and log before one pair agrees (a move of their other
#: session may land between the two reads); after, the board is used without undo.
_LOAD_TRIES = 3

_CACHE_SIZE = 20_000


def _same_move(sent: str, stored_sent: str | None, stored_canonical: str) -> bool:
    """Whether a resent move is the one its seq already holds (as sent, or canonical)."""
    text = sent.strip().lower()
    if stored_sent is not None and text == stored_sent.strip().lower():
        return True
    try:
        return str(parse_move(text)) == stored_canonical
    except IllegalMove:
        return False


class Racing:
    def __init__(
        self, store: Store, node_id: str, time: TimeSource, metrics: Metrics, results: RaceResults
    ) -> None:
        self.store = store
        self.node_id = node_id
        self.time = time
        self.metrics = metrics
        self.results = results
        self._cache = BoardCache(_CACHE_SIZE)

    def forget_race(self, race_id: str) -> None:
        """The race ended: its boards need no cache."""
        self._cache.drop_race(race_id)

    # ----- the start -------------------------------------------------------------------

    async def go(self, meta: RaceMeta) -> None:
        """The countdown is over: moves are accepted from now on, for the whole time
        limit, on the deal mixed from every seed share revealed by now. A race whose
        announced window passed before its clock came (the node was down) is void instead."""
        now = self.time.now_ms()
        window = window_from_go(meta, now)
        if window is None:
            await self.results.void(meta, now)
            return
        starts_at, ends_at = window
        if meta.daily and not meta.practice:
            # Before the start is stored: a daily attempt never runs past its day's last
            # end, so its day's seeds stay hidden and its count waits for it.
            await self.store.dailies.attempt_ends(meta.daily, meta.race_id, ends_at)
        for _attempt in range(5):
            deal, game = await self._deal(meta)
            view = BoardView.model_validate(view_of(game, legal=True))
            event = RaceStarted(race_id=meta.race_id, starts_at=starts_at, ends_at=ends_at, view=view)
            payload = pack_event(EventKind.BROADCAST, event, deal=deal.seed)
            answer = await self.store.races.go(meta.race_id, meta.game, now, payload, ends_at, deal)
            if answer is Answer.OK:
                late = now - (meta.starts_at or now)
                log.info("race started", extra={"race_id": meta.race_id, "late_ms": late})
            if answer is not Answer.CHANGED:
                return
        # Shares kept coming: the race stays in countdown and the next tick tries again.

    async def _deal(self, meta: RaceMeta) -> tuple[Deal, Game]:
        """The race's deal from the server's seed and the shares revealed so far: the
        countdown dealt from those revealed with ready; those revealed since change it."""
        seats = await self.store.races.seats(meta.race_id)
        shares = {s.player_id: s.share for s in seats if s.share}
        seed = mixed_seed(meta.game, meta.server_seed, shares)
        game = new_game(meta.game, seed)
        player_ids = tuple(s.player_id for s in seats)
        if seed == meta.seed:
            return Deal(seed, tuple(shares), player_ids), game
        return Deal(seed, tuple(shares), player_ids, dict(game.position()), game.score), game

    # ----- handlers --------------------------------------------------------------------

    async def make_move(self, caller: Caller, message: MakeMove) -> Reply:
        """Apply one move; the ack (a wire dict) echoes the request id. One move of a
        board at a time: the next waits for the store's answer to this one."""
        started = time.perf_counter()
        try:
            player = caller.player
            player_id, race_id = player.player_id, message.race_id
            board = self._cache.get(race_id, player_id)
            if board is None or message.seq != board.seq + 1:
                board = await self._load(race_id, player_id)
            lock = board.lock
            await lock.acquire()  # not ``async with``: two coroutines fewer on every move
            try:
                if self._cache.get(race_id, player_id) is not board:
                    board = await self._load(race_id, player_id)
                reply = await self._locked_move(
                    board, player_id, message, player.legal_moves, player.changed_piles
                )
            except ArenaError:
                raise
            except BaseException:
                # The engine may have applied a move the store never took: reload later.
                self._cache.drop(race_id, player_id)
                raise
            finally:
                lock.release()
        except ArenaError as exc:
            self.metrics.moves.count(exc.code.value)
            raise
        except OUTAGE_ERRORS:
            self.metrics.moves.count(ErrorCode.UNAVAILABLE.value)  # the connection answers it so
            raise
        if type(reply.message) is dict and reply.message.get("resent"):
            self.metrics.moves.count("resent")  # answered with the ack it had: no move played now
            return reply
        self.metrics.moves.accepted(time.perf_counter() - started)
        return reply

    async def finish(self, caller: Caller, message: Finish) -> Reply:
        """The racer gives up and keeps their score."""
        player_id, race_id = caller.player.player_id, message.race_id
        record = await self.store.boards.board(race_id, player_id)
        if record is None:
            await self._load(race_id, player_id)  # raises the right error
            raise not_a_racer(race_id)
        event = Progress(
            race_id=race_id,
            player_id=player_id,
            score=record.score,
            cards_left=CARDS - record.score,
            move_count=record.move_count,
            finished=True,
            won=record.won,
        )
        outcome = await self.store.boards.finish(
            race_id, player_id, self.time.now_ms(), pack_event(EventKind.BROADCAST, event, skip=player_id)
        )
        if outcome.answer is not Answer.OK:
            raise answer_error(outcome.answer)
        cached = self._cache.get(race_id, player_id)
        if cached is not None:
            cached.finished = True
        log.info("racer finished", extra={"race_id": race_id, "player_id": player_id})
        if outcome.all_finished:
            self.results.end_soon(race_id)
        return Reply(Ok(id=message.id))

    # ----- moves -----------------------------------------------------------------------

    async def _load(self, race_id: str, player_id: str) -> CachedBoard:
        for _ in range(_LOAD_TRIES):
            record = await self.store.boards.board(race_id, player_id)
            if record is None:
                break
            game = from_position(record.position, move_count=record.move_count)
            game.undo_rule = UndoRule.KEEP_REVEALS
            if not record.can_undo:
                break
            with_history = await self._with_history(race_id, player_id, game, record.seq)
            if with_history is not None:
                game = with_history
                break
            # The log and the board were read apart, a move of the racer's other session
            # between them: read both again.
        if record is None:
            meta = await self.store.races.meta(race_id)
            if meta is None:
                raise race_not_found(race_id)
            if meta.status in (RaceStatus.OPEN, RaceStatus.CANCELLED):
                seated = any(s.player_id == player_id for s in await self.store.races.seats(race_id))
                if seated:
                    raise answer_error(Answer.NOT_STARTED)
            raise not_a_racer(race_id)
        board = CachedBoard(game, record.seq, record.finished)
        self._cache.put(race_id, player_id, board)
        return board

    async def _with_history(self, race_id: str, player_id: str, game: Game, seq: int) -> Game | None:
        """``game`` (loaded from its position, at ``seq``) with the moves it may take back:
        replayed from the seed and the racer's log. A log that does not lead to the stored
        position (it never should) leaves the position alone, without undo. None: the log
        has moves past ``seq`` (a move landed after the board was read)."""
        meta = await self.store.races.meta(race_id)
        if meta is None:
            return game
        moves = [m.move for m in await self.store.boards.move_log(race_id) if m.player_id == player_id]
        if len(moves) > seq:
            return None
        try:
            rebuilt = replay(meta.game, meta.seed, moves, undo_rule=UndoRule.KEEP_REVEALS)
        except IllegalMove as exc:
            problem = exc.reason
        else:
            if rebuilt.position() == game.position() and rebuilt.move_count == game.move_count:
                return rebuilt
            problem = "it leads to another position"
        log.error("a racer's log does not rebuild their board", extra={"race_id": race_id, "reason": problem})
        return game

    async def _locked_move(
        self, board: CachedBoard, player_id: str, request: MakeMove, legal: bool, changed: bool
    ) -> Reply:
        race_id, seq = request.race_id, request.seq
        if seq <= board.seq:
            return Reply(await self._resent(race_id, player_id, request, board.seq, legal))
        if seq > board.seq + 1:
            raise ArenaError(
                ErrorCode.FUTURE_SEQ, f"seq {seq} is ahead: the next move's seq is {board.seq + 1}"
            )
        if board.finished:
            raise await self._race_error_or(race_id, answer_error(Answer.FINISHED))
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
            "cards_left": CARDS - result.score,
            "move_count": game.move_count,
            "finished": result.won,
            "won": result.won,
        }
        result_dict = result.to_dict()
        # Delivered by this node at once; other nodes get it through Redis pub/sub.
        outcome = await self.store.boards.apply_move(
            race_id,
            player_id,
            seq,
            sent=request.move,
            position=game.position_text(),
            move_count=game.move_count,
            result=orjson.dumps(result_dict).decode(),
            move=result.move,
            score=result.score,
            won=result.won,
            now=self.time.now_ms(),
            event=pack_event(EventKind.BROADCAST, event, skip=player_id, origin=self.node_id),
            node_id=self.node_id,
            can_undo=game.can_undo(),
        )
        if outcome.answer is not Answer.OK:
            self._cache.drop(race_id, player_id)
            return Reply(await self._rejected(race_id, player_id, request, outcome, legal))
        board.seq = seq
        board.finished = result.won
        if outcome.all_finished:
            self.results.end_soon(race_id)
        # The MoveAck message as a wire dict, built directly (this is the hot path) and
        # only now: the board is locked, so the view is the one the store just took.
        ack: dict[str, Any] = {
            "type": "move_ack",
            "id": request.id,
            "race_id": race_id,
            "seq": seq,
            "result": result_dict,
            "view": view_of(game, legal, changed=changed),
            "finished": result.won,
        }
        if changed:
            ack["changed_only"] = True
        return Reply(ack, local=(LocalEvent(race_id, event, skip=player_id),))

    async def _resent(
        self, race_id: str, player_id: str, request: MakeMove, current: int, legal: bool
    ) -> dict[str, Any]:
        """A seq already played: the last one is answered with its ack again, when it
        carries the same move."""
        if request.seq == current:
            ack = await self._stored_ack(race_id, player_id, request, legal)
            if ack is not None:
                return ack
        raise ArenaError(
            ErrorCode.STALE_SEQ, f"seq {request.seq} was already played: the next move's seq is {current + 1}"
        )

    async def _stored_ack(
        self, race_id: str, player_id: str, request: MakeMove, legal: bool
    ) -> dict[str, Any] | None:
        """The ack of the racer's last accepted move, again: the store keeps its result
        next to the board, and the board is the view that ack carried. A different move
        under that seq is refused with the move the seq holds."""
        record = await self.store.boards.board(race_id, player_id)
        if record is None or record.last_result is None:
            return None
        result = orjson.loads(record.last_result)
        if not _same_move(request.move, record.last_move, result["move"]):
            raise ArenaError(
                ErrorCode.SEQ_CONFLICT,
                f"seq {record.seq} already holds the move {result['move']!r}, not {request.move[:32]!r}: "
                f"send a new move with seq {record.seq + 1}",
            )
        await self.store.boards.confirm_replicated(race_id, player_id, self.time.now_ms())
        game = from_position(record.position, move_count=record.move_count)
        return {
            "type": "move_ack",
            "id": request.id,
            "race_id": race_id,
            "seq": record.seq,
            "result": result,
            "view": view_of(game, legal, record.can_undo),
            "finished": record.won,
            "resent": True,
        }

    async def _rejected(
        self, race_id: str, player_id: str, request: MakeMove, outcome: MoveOutcome, legal: bool
    ) -> dict[str, Any]:
        if outcome.answer is Answer.DUP:
            ack = await self._stored_ack(race_id, player_id, request, legal)
            if ack is not None:
                return ack
        if outcome.answer is Answer.SEQ and outcome.current_seq is not None:
            if request.seq <= outcome.current_seq:
                return await self._resent(race_id, player_id, request, outcome.current_seq, legal)
            raise ArenaError(
                ErrorCode.FUTURE_SEQ,
                f"seq {request.seq} is ahead: the next move's seq is {outcome.current_seq + 1}",
            )
        raise answer_error(outcome.answer)

    async def _race_error_or(self, race_id: str, error: ArenaError) -> ArenaError:
        """A race that is over or not running explains a rejection better than the move."""
        meta = await self.store.races.meta(race_id)
        if meta is None:
            return race_not_found(race_id)
        if meta.status in (RaceStatus.ENDING, RaceStatus.FINISHED) or (
            meta.ends_at and self.time.now_ms() > meta.ends_at
        ):
            return answer_error(Answer.OVER)
        if meta.status is RaceStatus.COUNTDOWN:
            return answer_error(Answer.NOT_STARTED)
        return error

"""Hints: a good next move for a racer's own board, where the race allows them.

The search (:func:`shared.strategies.hint`, the bots' own) reads the racer's view only,
never a hidden card, and the positions their board has been in (replayed from the deal
and their moves in the race's log), so that a hint never leads back to one. It is pure
Python and takes up to about a tenth of a second, so it runs in a
:class:`~server.worker.Worker` process. One racer has one hint in flight and waits
:data:`HINT_COOLDOWN` after a hint's answer for the next (a search slowed down gives no
second hint at once); beyond :data:`MAX_QUEUED` hints waiting, the node says it is busy.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Hashable
from typing import Final

from server.errors import ArenaError, answer_error, not_a_racer, race_not_found
from server.features.context import Caller, Reply
from server.store import Answer, RaceMeta, RaceStatus, Store
from server.timesource import TimeSource
from server.worker import Worker, WorkerDied
from shared import GameName, GameView, from_position
from shared.protocol import ErrorCode, GetHint, Hint
from shared.strategies import hint, reached_keys

log = logging.getLogger("arena.hints")


def hints_off(meta: RaceMeta) -> str:
    """Why the race ``meta`` has no hints, in the racer's words."""
    if meta.daily:
        return "hints are off in a scored daily attempt (practise the deal for hints)"
    if meta.rated:
        return "hints are off in this race: rated races never have them"
    if meta.quick:
        return "hints are off in this race: quick matches (and their rematches) never have them"
    return "hints are off in this race: its creator turned them off"


#: A hint without a move: none is legal, or every one leads back to where the board was.
NO_MOVE: Final = "no move is left: your score stands as it is; give up to end your race now"
#: The same, where the racer may still take moves back.
NO_MOVE_BUT_UNDO: Final = "no move is left but undo: undo to try another way, or give up to end your race now"
NOTHING_NEW: Final = "every move left leads back to a position your board has had: undo, or give up"
#: Seconds between two hints of one racer.
HINT_COOLDOWN: Final = 1.0
#: Hints waiting for the worker before the node refuses more.
MAX_QUEUED: Final = 16


class Hints:
    def __init__(self, store: Store, time: TimeSource) -> None:
        self.store = store
        self.time = time
        self._worker = Worker("hints")
        self._queued = 0
        self._last: dict[str, float] = {}

    def stop(self) -> None:
        self._worker.stop()

    async def get_hint(self, caller: Caller, message: GetHint) -> Reply:
        race_id, player_id = message.race_id, caller.player.player_id
        meta = await self.store.races.meta(race_id)
        if meta is None:
            raise race_not_found(race_id)
        record = await self.store.boards.board(race_id, player_id)
        if record is None:
            # Boards are dealt at the countdown: a racer seated before it has none yet.
            if meta.status is RaceStatus.OPEN and player_id in {
                seat.player_id for seat in await self.store.races.seats(race_id)
            }:
                raise answer_error(Answer.NOT_STARTED)
            raise not_a_racer(race_id)
        if not meta.hints:
            raise ArenaError(ErrorCode.HINTS_OFF, hints_off(meta))
        if meta.status is RaceStatus.COUNTDOWN:
            raise answer_error(Answer.NOT_STARTED)
        if meta.status is not RaceStatus.RUNNING or (meta.ends_at and self.time.now_ms() > meta.ends_at):
            raise answer_error(Answer.OVER)
        if record.finished:
            raise answer_error(Answer.FINISHED)
        self._pace(player_id)
        game = from_position(record.position, move_count=record.move_count)
        legal = game.legal_moves()
        moves = [m.move for m in await self.store.boards.move_log(race_id) if m.player_id == player_id]
        move = await self._search(game.view(), legal, meta.game, meta.seed, moves) if legal else None
        self._last[player_id] = time.monotonic()
        why = None if move is not None else _no_hint(bool(legal), record.can_undo)
        return Reply(Hint(id=message.id, race_id=race_id, seq=record.seq, move=move, message=why))

    def _pace(self, player_id: str) -> None:
        now = time.monotonic()
        last = self._last.get(player_id)
        if last is not None and now - last < HINT_COOLDOWN:
            raise ArenaError(ErrorCode.RATE_LIMITED, f"one hint per {HINT_COOLDOWN:g} s: ask again soon")
        if self._queued >= MAX_QUEUED:
            raise ArenaError(ErrorCode.UNAVAILABLE, "hints are busy on this server: ask again shortly")
        self._last[player_id] = now
        if len(self._last) > 100_000:
            self._last = {p: t for p, t in self._last.items() if now - t < HINT_COOLDOWN}

    async def _search(
        self, view: GameView, legal: list[str], game: GameName, seed: int, moves: list[str]
    ) -> str | None:
        self._queued += 1
        try:
            return await self._worker.run(hint_after, view, legal, game, seed, moves)
        except WorkerDied:
            raise ArenaError(ErrorCode.UNAVAILABLE, "the hint search failed: ask again") from None
        finally:
            self._queued -= 1


def hint_after(view: GameView, legal: list[str], game: GameName, seed: int, moves: list[str]) -> str | None:
    """The hint for ``view`` on the deal of ``game`` for ``seed`` after the racer's
    ``moves``: never a move back to a position those moves went through (run in the
    worker: replaying the moves is the search's work too)."""
    reached: set[Hashable] = reached_keys(game, seed, moves)
    return hint(view, legal, reached)


def _no_hint(legal: bool, can_undo: bool) -> str:
    """Why a hint has no move: every ``legal`` move leads back, or none is legal (and
    whether the racer ``can_undo`` the last one).

    >>> _no_hint(True, True) == NOTHING_NEW, _no_hint(False, True) == NO_MOVE_BUT_UNDO
    (True, True)
    """
    if legal:
        return NOTHING_NEW
    return NO_MOVE_BUT_UNDO if can_undo else NO_MOVE

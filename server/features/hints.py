"""Hints: a good next move for a racer's own board, where the race allows them.

The search (:func:`shared.strategies.hint`, the bots' own) reads the racer's view only,
never a hidden card. It takes up to about a tenth of a second, so it runs in a worker
thread, at most ``workers`` at once per node: moves keep flowing meanwhile.
"""

from __future__ import annotations

import asyncio

from server.errors import ArenaError, answer_error, not_a_racer, race_not_found
from server.features.context import Caller, Reply
from server.store import Answer, RaceStatus, Store
from server.timesource import TimeSource
from shared import from_position
from shared.protocol import ErrorCode, GetHint, Hint
from shared.strategies import hint

HINTS_OFF = "hints are off in this race (its creator chose so; quick matches never have them)"


class Hints:
    def __init__(self, store: Store, time: TimeSource, workers: int = 1) -> None:
        self.store = store
        self.time = time
        self._workers = asyncio.Semaphore(workers)

    async def get_hint(self, caller: Caller, message: GetHint) -> Reply:
        race_id, player_id = message.race_id, caller.player.player_id
        meta = await self.store.races.meta(race_id)
        if meta is None:
            raise race_not_found(race_id)
        record = await self.store.boards.board(race_id, player_id)
        if record is None:
            raise not_a_racer(race_id)
        if not meta.hints:
            raise ArenaError(ErrorCode.HINTS_OFF, HINTS_OFF)
        if meta.status is RaceStatus.COUNTDOWN:
            raise answer_error(Answer.NOT_STARTED)
        if meta.status is not RaceStatus.RUNNING or (meta.ends_at and self.time.now_ms() > meta.ends_at):
            raise answer_error(Answer.OVER)
        if record.finished:
            raise answer_error(Answer.FINISHED)
        game = from_position(record.position, move_count=record.move_count)
        async with self._workers:
            move = await asyncio.to_thread(hint, game.view(), game.legal_moves())
        return Reply(Hint(id=message.id, race_id=race_id, seq=record.seq, move=move))

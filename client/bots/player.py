"""A bot that races through the SDK: quick match, play with a strategy, finish, again.

    async with await ArenaClient.connect(url) as client:
        bot = Bot(client, "eight-off", lambda: SearchStrategy(seed=1), number=1)
        await bot.hello()
        summaries = await bot.run(races=3)

The bot sees what any racer sees: its own views, never a hidden card. A move the server
refuses (or a seq it does not expect) makes it read its board again with ``get_race``
and go on from there. It gives up (``finish``) when its strategy has nothing useful left
or after ``max_moves`` moves, and it waits for the race's end before the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Final

from client.errors import (
    FutureSeqError,
    IllegalMoveError,
    RaceOverError,
    RacerFinishedError,
    RateLimitedError,
    SeqConflictError,
    StaleSeqError,
    UnavailableError,
)
from client.sdk import ArenaClient
from shared.knowledge import view_legal_moves
from shared.protocol import (
    BoardView,
    GameName,
    MatchFound,
    RaceCancelled,
    RaceEnded,
    RaceStarted,
    RaceSummary,
    Welcome,
)
from shared.strategies.strategy import Strategy

#: Refusals after which the board is read again from the server.
_OUT_OF_STEP: Final = (IllegalMoveError, StaleSeqError, FutureSeqError, SeqConflictError)
#: Refusals worth the same move again after a pause.
_TRY_AGAIN: Final = (RateLimitedError, UnavailableError)
#: Refusals meaning this racer's race is over.
_OVER: Final = (RaceOverError, RacerFinishedError)
#: Resyncs in a row after which the bot gives up the race (its rules disagree with the server's).
MAX_RESYNCS: Final = 3


def bot_name(strategy: str, number: int) -> str:
    """The name a bot says hello with: ``bot-search-3``."""
    return f"bot-{strategy}-{number}"


class Bot:
    """Races ``game`` by quick match on ``client``, with a fresh strategy from
    ``new_strategy`` for each race; its name is ``bot-<strategy>-<number>``. ``wait`` is
    how long, in seconds, it waits for a match and for the start (the end may take the
    race's whole time limit more); ``pause`` how long it waits before sending a move again
    that the server could not take (``rate_limited``, ``unavailable``)."""

    def __init__(
        self,
        client: ArenaClient,
        game: GameName,
        new_strategy: Callable[[], Strategy],
        number: int = 1,
        max_moves: int = 1000,
        wait: float = 60.0,
        pause: float = 0.2,
    ) -> None:
        self.client = client
        self.game: GameName = game
        self.new_strategy = new_strategy
        self.name = bot_name(new_strategy().name, number)
        self.max_moves = max_moves
        self.wait = wait
        self.pause = pause

    async def hello(self) -> Welcome:
        """Open the session: the bot's only ``hello`` (a new guest, marked as a bot)."""
        return await self.client.hello(name=self.name, bot=True)

    async def run(self, races: int | None = None) -> list[RaceSummary]:
        """Race ``races`` times (forever if None); the summaries of the races that ended."""
        summaries: list[RaceSummary] = []
        count = 0
        while races is None or count < races:
            summary = await self.race()
            if summary is not None:
                summaries.append(summary)
            count += 1
        return summaries

    async def race(self) -> RaceSummary | None:
        """One race: queue, wait for the start, play, finish, and wait for the end. None
        when the race was cancelled."""
        await self.client.quick_match(self.game)
        found = await self.client.wait_for(MatchFound, timeout=self.wait)
        race_id = found.race.race_id
        started = await self.client.wait_for(RaceStarted, lambda e: e.race_id == race_id, timeout=self.wait)
        await self.play(race_id, started.view)
        end = await self._end_of(race_id, found.race.time_limit + self.wait)
        return end.summary if isinstance(end, RaceEnded) else None

    async def play(self, race_id: str, view: BoardView) -> None:
        """Play from ``view`` until won, out of moves or given up (then ``finish``)."""
        strategy = self.new_strategy()
        resyncs = 0
        for _ in range(self.max_moves):
            data = view.model_dump()
            if view.won:
                return
            legal = view.legal_moves if view.legal_moves is not None else view_legal_moves(data)
            # Search is CPU-bound: in a thread, so the connection keeps answering pings.
            move = await asyncio.to_thread(strategy.choose, data, legal)
            if move is None:
                break
            try:
                ack = await self.client.move(race_id, move)
            except _TRY_AGAIN:
                await asyncio.sleep(self.pause)
                continue
            except _OVER:
                return
            except _OUT_OF_STEP:
                resyncs += 1
                board = await self.client.board(race_id)
                if board is None or board.finished or resyncs > MAX_RESYNCS:
                    break
                view = board.view
                continue
            resyncs = 0
            if ack.finished:
                return
            view = ack.view
        await self._give_up(race_id)

    async def _give_up(self, race_id: str) -> None:
        with contextlib.suppress(*_OVER):
            await self.client.finish(race_id)

    async def _end_of(self, race_id: str, timeout: float) -> RaceEnded | RaceCancelled:
        """The event that ends ``race_id``: its results, or its cancellation."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            event = await self.client.next_event(max(0.0, deadline - loop.time()))
            if isinstance(event, RaceEnded | RaceCancelled) and event.race_id == race_id:
                return event

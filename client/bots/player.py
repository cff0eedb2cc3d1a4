"""A bot that races through the SDK: quick match, play with a strategy, finish, again.

    async with await ArenaClient.connect(url) as client:
        bot = Bot(client, "eight-off", lambda: SearchStrategy(seed=1), number=1)
        await bot.hello()
        summaries = await bot.run(races=3)

The bot sees what any racer sees: its own views, never a hidden card. A move the server
refuses (or a seq it does not expect) makes it read its board again with ``get_race``
and go on from there. It gives up (``finish``) when its strategy has nothing useful left
or after ``max_moves`` moves, and it waits for the race's end before the next one.

After a race against a person, a bot gives them :data:`REMATCH_WINDOW` seconds to offer a
rematch before it queues again: it accepts while it has races left to play, and after its
last race (``wind_down``) it declines, so nobody waits out an offer to a bot that left.
An offer that comes after the window, the bot declines at once (while it is connected):
it has moved on.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import random
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Final, TypeVar

from client.errors import (
    ArenaError,
    FutureSeqError,
    IllegalMoveError,
    PlayedElsewhereError,
    QueueLeftError,
    RaceOverError,
    RacerFinishedError,
    RateLimitedError,
    RematchNotOpenError,
    SeqConflictError,
    StaleSeqError,
    UnavailableError,
)
from client.sdk import ArenaClient
from shared.knowledge import view_legal_moves
from shared.protocol import (
    BoardView,
    GameName,
    RaceCancelled,
    RaceEnded,
    RaceInfo,
    RaceStarted,
    RaceSummary,
    RematchStarted,
    RematchUpdate,
    ServerMessage,
    Welcome,
)
from shared.strategies.strategy import Strategy

T = TypeVar("T")

#: Refusals after which the board is read again from the server.
_OUT_OF_STEP: Final = (
    IllegalMoveError,
    StaleSeqError,
    FutureSeqError,
    SeqConflictError,
    PlayedElsewhereError,
)
#: Refusals worth the same request again after a pause.
_TRY_AGAIN: Final = (RateLimitedError, UnavailableError)
#: Refusals meaning this racer's race is over.
_OVER: Final = (RaceOverError, RacerFinishedError)
#: Resyncs in a row after which the bot gives up the race (its rules disagree with the server's).
MAX_RESYNCS: Final = 3
#: Seconds a bot waits, after a race against a person, for that person's rematch offer.
REMATCH_WINDOW: Final = 8.0
#: How many past races a late rematch offer is declined for (the latest ones).
LAPSED_KEPT: Final = 4


def bot_name(strategy: str, number: int) -> str:
    """The name a bot says hello with: ``bot-search-3``."""
    return f"bot-{strategy}-{number}"


class Bot:
    """Races ``game`` by quick match on ``client``, with a fresh strategy from
    ``new_strategy`` for each race; its name is ``bot-<strategy>-<number>``. ``wait`` is
    how long, in seconds, it waits for a match and for the start (the end may take the
    race's whole time limit more); ``pause`` how long it waits before sending a move again
    that the server could not take (``rate_limited``, ``unavailable``); ``rematch_window``
    how long it waits for a person's rematch offer after racing them (0: never); ``think``
    the mean seconds it takes over a move (0: as fast as it chooses), so a person racing it
    has a race: each move waits a random 0.5 to 1.5 times that, counted from the view it
    moves from (its search included), drawn from ``rng``."""

    def __init__(
        self,
        client: ArenaClient,
        game: GameName,
        new_strategy: Callable[[], Strategy],
        number: int = 1,
        max_moves: int = 1000,
        wait: float = 60.0,
        pause: float = 0.2,
        rematch_window: float = REMATCH_WINDOW,
        think: float = 0.0,
        rng: random.Random | None = None,
    ) -> None:
        self.client = client
        self.game: GameName = game
        self.new_strategy = new_strategy
        self.name = bot_name(new_strategy().name, number)
        self.max_moves = max_moves
        self.wait = wait
        self.pause = pause
        self.rematch_window = rematch_window
        self.think = think
        self._rng = rng if rng is not None else random.Random()
        #: The last race, while a rematch of it may still be offered (a person raced in it).
        self._rematchable: RaceSummary | None = None
        #: The latest races whose window lapsed: an offer of their rematch is declined at once.
        self._lapsed: deque[str] = deque(maxlen=LAPSED_KEPT)
        self._declines: set[asyncio.Task[None]] = set()
        client.on_event = self._decline_late_offer

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
        await self.wind_down()
        return summaries

    async def race(self) -> RaceSummary | None:
        """One race: the last opponent's rematch if they offer one in time, else a quick
        match; wait for the start, play, finish, and wait for the end. None when the race
        was cancelled."""
        return await self.race_on(await self._rematch(accept=True) or await self._quick_match())

    async def race_on(self, race: RaceInfo) -> RaceSummary | None:
        """Race in ``race``, where the bot sits (matched, or left behind by an earlier run
        of the bot: ``ArenaClient.races_in_play``): wait for its start, play on from its
        board, finish, and wait for the end. None when it was cancelled, or was still open
        (the bot leaves an open race: it races by quick match)."""
        race_id = race.race_id
        if race.status == "open":
            with contextlib.suppress(ArenaError):
                await self._patiently(lambda: self.client.leave(race_id))
            return None
        if race.status == "countdown":
            started = await self.client.wait_for(
                RaceStarted, lambda e: e.race_id == race_id, timeout=self.wait
            )
            await self.play(race_id, started.view)
        elif race.board is not None and not race.board.finished:
            await self.play(race_id, race.board.view)
        end = await self._end_of(race_id, race.time_limit + self.wait)
        if not isinstance(end, RaceEnded):
            return None
        with_person = any(not s.bot for s in end.summary.standings if s.player_id != self.client.player_id)
        self._rematchable = end.summary if with_person else None
        return end.summary

    async def wind_down(self) -> None:
        """After the bot's last race: decline the rematch its opponent offers in the window."""
        await self._rematch(accept=False)

    async def _quick_match(self) -> RaceInfo:
        """Queue until paired: a stay that ends otherwise (a place lapsed while the server
        lost its store, say) is taken again; a bot is there to race."""
        while True:
            await self._patiently(lambda: self.client.quick_match(self.game))
            try:
                return (await self.client.wait_for_match(timeout=self.wait)).race
            except QueueLeftError:
                continue

    async def _rematch(self, accept: bool) -> RaceInfo | None:
        """Answer the rematch of the last race if its person offers one within the window;
        the new race when it starts with this bot in it."""
        last, self._rematchable = self._rematchable, None
        if last is None:
            return None
        race_id = last.race_id
        if self.rematch_window <= 0:
            self._lapsed.append(race_id)
            return None
        try:
            await self.client.wait_for(RematchUpdate, lambda e: _offered(e, race_id), self.rematch_window)
            answered = await self._patiently(lambda: self.client.answer_rematch(race_id, accept))
        except TimeoutError:
            self._lapsed.append(race_id)
            return None
        except RematchNotOpenError:
            return None
        if not accept or answered.status in ("declined", "expired", "failed"):
            return None
        return await self._rematch_race(race_id)

    def _decline_late_offer(self, event: ServerMessage) -> None:
        """An offer of a rematch whose window lapsed: declined now, not left to expire, each
        time it is offered."""
        if not isinstance(event, RematchUpdate) or event.rematch.status != "open":
            return
        race_id = event.rematch.race_id
        if race_id in self._lapsed:  # kept: an offer made again is declined again
            task = asyncio.get_running_loop().create_task(self._decline(race_id))
            self._declines.add(task)
            task.add_done_callback(self._declines.discard)

    async def _decline(self, race_id: str) -> None:
        with contextlib.suppress(ArenaError, ConnectionError):
            await self._patiently(lambda: self.client.answer_rematch(race_id, False))

    async def _rematch_race(self, race_id: str) -> RaceInfo | None:
        """The rematch of ``race_id`` once it starts; None if it will not."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.wait
        while True:
            try:
                event = await self.client.next_event(max(0.0, deadline - loop.time()))
            except TimeoutError:
                return None
            if isinstance(event, RematchStarted) and event.race_id == race_id:
                return event.race
            if isinstance(event, RematchUpdate) and _closed(event, race_id):
                return None

    async def play(self, race_id: str, view: BoardView) -> None:
        """Play from ``view`` until won, out of moves or given up (then ``finish``)."""
        strategy = self.new_strategy()
        resyncs = 0
        loop = asyncio.get_running_loop()
        for _ in range(self.max_moves):
            seen = loop.time()
            data = view.model_dump()
            if view.won:
                return
            legal = view.legal_moves if view.legal_moves is not None else view_legal_moves(data)
            # Search is CPU-bound: in a thread, so the connection keeps answering pings.
            move = await asyncio.to_thread(strategy.choose, data, legal)
            if move is None:
                break
            await self._take_time(seen)
            try:
                ack = await self._patiently(functools.partial(self.client.move, race_id, move))
            except _OVER:
                return
            except _OUT_OF_STEP:
                resyncs += 1
                board = await self._patiently(lambda: self.client.board(race_id))
                if board is None or board.finished or resyncs > MAX_RESYNCS:
                    break
                view = board.view
                continue
            resyncs = 0
            if ack.finished:
                return
            view = ack.view
        await self._give_up(race_id)

    async def _take_time(self, since: float) -> None:
        """Wait out this move's share of ``think``, counted from ``since`` (the loop's time
        when its view came)."""
        if self.think <= 0:
            return
        left = self.think * self._rng.uniform(0.5, 1.5) - (asyncio.get_running_loop().time() - since)
        if left > 0:
            await asyncio.sleep(left)

    async def _give_up(self, race_id: str) -> None:
        with contextlib.suppress(*_OVER):
            await self._patiently(lambda: self.client.finish(race_id))

    async def _patiently(self, request: Callable[[], Awaitable[T]]) -> T:
        """``request``'s answer, asked again after :attr:`pause` each time it is refused as
        one too many (or while the server cannot reach its store): a fast bot's finish,
        board or queueing after a burst of moves is no reason to stop."""
        while True:
            try:
                return await request()
            except _TRY_AGAIN:
                await asyncio.sleep(self.pause)

    async def _end_of(self, race_id: str, timeout: float) -> RaceEnded | RaceCancelled:
        """The event that ends ``race_id``: its results, or its cancellation."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            event = await self.client.next_event(max(0.0, deadline - loop.time()))
            if isinstance(event, RaceEnded | RaceCancelled) and event.race_id == race_id:
                return event


def _offered(event: RematchUpdate, race_id: str) -> bool:
    return event.rematch.race_id == race_id and event.rematch.status == "open"


def _closed(event: RematchUpdate, race_id: str) -> bool:
    """The rematch of ``race_id`` will not start."""
    return event.rematch.race_id == race_id and event.rematch.status in ("declined", "expired", "failed")

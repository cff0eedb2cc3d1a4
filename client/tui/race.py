"""The race screen: the board, the clock, everyone's progress, the move input.

It follows the race's events in a worker (``ArenaClient.events()``) and plays the
racer's moves one at a time through the SDK; a refused move shows the server's reason
on the status line. Once the race is over the results replace the live ranking and
ctrl+r opens the replay.
"""

from __future__ import annotations

import asyncio
from typing import ClassVar, Final

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, Static

from client.errors import ArenaError
from client.sdk import ArenaClient
from client.tui.board import BoardArea, BoardWidget
from client.tui.clock import ServerClock, local_ms
from client.tui.legal import legal_moves
from client.tui.move_input import MoveHints, MoveInput
from client.tui.panels import ClockPanel, RacersPanel, RankingPanel
from client.tui.race_state import RaceState
from client.tui.replay import ReplayScreen
from shared.protocol import RaceEnded, RaceStarted, Welcome

GO: Final = "go! type a move, or pick a card and its target on the board"
#: Errors after which the client's idea of its board is out of date: fetch it again.
RESYNC_CODES: Final = frozenset({"stale_seq", "future_seq", "seq_conflict", "unavailable", "internal_error"})


def ordinal(n: int) -> str:
    """A rank in words.

    >>> ordinal(1), ordinal(2), ordinal(3), ordinal(11), ordinal(22)
    ('1st', '2nd', '3rd', '11th', '22nd')
    """
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


class StatusLine(Static):
    """One line for what just happened; :attr:`last` keeps its text."""

    DEFAULT_CSS = "StatusLine { height: 1; background: $panel; padding: 0 1; }"

    last: str = ""

    def say(self, text: str, error: bool = False) -> None:
        self.last = text
        self.update(Text(text, style="bold red" if error else ""))


class RaceScreen(Screen[None]):
    """One racer playing one race."""

    DEFAULT_CSS = """
    #main { height: 1fr; }
    #board-area { width: 1fr; }
    #side { width: 34; padding: 0 1; }
    #move { margin: 0 1; }
    #hints { padding: 0 2; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+g", "give_up", "give up"),
        Binding("ctrl+r", "replay", "replay (after the end)"),
        Binding("escape", "clear", "clear", show=False),
    ]

    def __init__(self, client: ArenaClient, race_id: str) -> None:
        super().__init__()
        self.client = client
        self.race_id = race_id
        self.state = RaceState(race_id=race_id, me=client.player_id)
        self.clock = ServerClock()
        self.legal: list[str] = []
        self._moves = asyncio.Lock()

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with BoardArea(id="board-area"):
                yield BoardWidget(id="board")
            with Vertical(id="side"):
                yield ClockPanel(id="clock")
                yield RacersPanel(id="racers")
                yield RankingPanel(id="ranking")
        yield MoveInput(id="move")
        yield MoveHints(id="hints")
        yield StatusLine("connecting…", id="status")
        yield Footer()

    # ----- widgets ----------------------------------------------------------------

    @property
    def board(self) -> BoardWidget:
        return self.query_one("#board", BoardWidget)

    @property
    def status(self) -> StatusLine:
        return self.query_one("#status", StatusLine)

    @property
    def move_input(self) -> MoveInput:
        return self.query_one("#move", MoveInput)

    def on_mount(self) -> None:
        self.move_input.focus()
        self.set_interval(0.25, self._tick)
        self.run_worker(self._follow(), name="follow", group="race", exit_on_error=False)

    def _tick(self) -> None:
        self.query_one("#clock", ClockPanel).show(self.state, self.clock)

    def redraw(self) -> None:
        """Bring every widget up to date with :attr:`state`."""
        view = self.state.view
        if view is not None:
            self.legal = legal_moves(view) if self.playing else []
            self.board.show(view, self.legal)
            self.move_input.set_legal(self.legal)
            self.query_one("#hints", MoveHints).show(self.legal, self.move_input.value, self.playing)
        self.query_one("#racers", RacersPanel).show(self.state)
        self.query_one("#ranking", RankingPanel).show(self.state)
        self.move_input.disabled = not self.playing
        if self.playing and self.focused is None:
            self.move_input.focus()
        self._tick()

    @property
    def playing(self) -> bool:
        """Whether this racer may still move."""
        return self.state.status == "running" and not self.state.i_finished

    # ----- following the race -----------------------------------------------------

    async def _follow(self) -> None:
        try:
            await self._sync_clock()
            self.state.load(await self.client.get_race(self.race_id))
            if self.state.status == "finished":
                # Opened after the end: the results are not part of the race info.
                self.state.summary = await self.client.results(self.race_id)
        except ArenaError as exc:
            self.status.say(f"cannot follow race {self.race_id}: {exc.message}", error=True)
            return
        except (ConnectionError, TimeoutError) as exc:
            self.status.say(f"connection lost: {exc}", error=True)
            return
        self.redraw()
        self.status.say(self._opening_note())
        async for event in self.client.events():
            if isinstance(event, Welcome):
                # The SDK resumed a dropped connection: follow the race again.
                await self._resync()
                self.status.say("reconnected")
                continue
            if not self.state.apply(event):
                continue
            self.redraw()
            if isinstance(event, RaceEnded):
                self.status.say(self._ending_note())
            elif self.state.status == "cancelled":
                self.status.say(f"race cancelled: {self.state.cancelled}", error=True)
            elif isinstance(event, RaceStarted) and not self.state.i_finished:
                self.status.say(GO)
        self.status.say("connection closed", error=True)

    async def _sync_clock(self) -> None:
        sent = local_ms()
        pong = await self.client.ping()
        self.clock = ServerClock.from_sample(pong.server_time, sent, local_ms())

    def _opening_note(self) -> str:
        state = self.state
        if state.over:
            return self._ending_note()
        if state.status == "running":
            return GO
        if state.status == "open" and state.code:
            seated = f"{len(state.racers)}/{state.seats} seated"
            join = f"play --join {state.code}"
            return f"{state.game} race {state.code}: {seated}, waiting for everyone to be ready ({join})"
        return f"{state.game} race: waiting for the start"

    def _ending_note(self) -> str:
        if self.state.cancelled:
            return f"race cancelled: {self.state.cancelled}"
        for rank, racer in self.state.ranking():
            if racer.player_id == self.state.me:
                total = len(self.state.ranking())
                return f"race over: you placed {ordinal(rank)} of {total}. ctrl+r replay, ctrl+q quit"
        return "race over. ctrl+r replay, ctrl+q quit"

    # ----- playing -----------------------------------------------------------------

    async def play(self, move: str) -> None:
        """Send ``move``; the ack redraws the board, a refusal says why."""
        move = move.strip()
        if not move:
            return
        if self.state.over:
            self.status.say("the race is over", error=True)
            return
        async with self._moves:
            try:
                ack = await self.client.move(self.race_id, move)
            except ArenaError as exc:
                self.status.say(f"✗ {move}: {exc.message}", error=True)
                if exc.code in RESYNC_CODES:
                    await self._resync()
                return
            except (ConnectionError, TimeoutError) as exc:
                self.status.say(f"✗ {move}: connection problem ({exc}); it is safe to retry", error=True)
                return
        self.state.acked(ack)
        self.redraw()
        result = ack.result
        note = f"✓ {result.move}"
        if result.score_delta:
            note += f"  +{result.score_delta} (score {result.score})"
        if ack.finished:
            note = f"✓ {result.move}  you won in {ack.view.move_count} moves! waiting for the others…"
        self.status.say(note)

    async def _resync(self) -> None:
        try:
            self.state.load(await self.client.get_race(self.race_id))
        except (ArenaError, ConnectionError, TimeoutError):
            return
        self.redraw()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.input.value = ""
        self.run_worker(self.play(event.value), group="moves", exit_on_error=False)

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#hints", MoveHints).show(self.legal, event.value, self.playing)

    def on_key(self, event: events.Key) -> None:
        # Typing while the board has the focus goes to the move input.
        typed = event.character or ""
        if event.is_printable and typed.strip() and self.board.has_focus and self.playing:
            self.move_input.focus()
            self.move_input.insert_text_at_cursor(typed)
            event.stop()

    def on_board_widget_move_chosen(self, event: BoardWidget.MoveChosen) -> None:
        self.run_worker(self.play(event.move), group="moves", exit_on_error=False)

    def on_board_widget_note(self, event: BoardWidget.Note) -> None:
        self.status.say(event.text)

    # ----- actions ------------------------------------------------------------------

    def action_clear(self) -> None:
        self.board.action_clear()
        self.move_input.value = ""

    async def action_give_up(self) -> None:
        if self.state.over or self.state.i_finished:
            self.status.say("you are not playing any more")
            return
        try:
            await self.client.finish(self.race_id)
        except ArenaError as exc:
            self.status.say(f"cannot give up: {exc.message}", error=True)
            return
        self.state.gave_up()
        self.redraw()
        self.status.say(f"you gave up with score {self.state.view.score if self.state.view else 0}")

    async def action_replay(self) -> None:
        if self.state.summary is None:
            self.status.say("the replay opens once the race is over")
            return
        try:
            log = await self.client.move_log(self.race_id)
        except ArenaError as exc:
            self.status.say(f"no replay: {exc.message}", error=True)
            return
        names = {s.player_id: s.name for s in self.state.summary.standings}
        await self.app.push_screen(ReplayScreen(log, names, me=self.state.me))


class RaceApp(App[None]):
    """Play ``race_id`` with an ``ArenaClient`` that already said hello."""

    TITLE = "Solitaire Arena"

    def __init__(self, client: ArenaClient, race_id: str) -> None:
        super().__init__()
        self.client = client
        self.race_id = race_id

    def get_default_screen(self) -> RaceScreen:
        return RaceScreen(self.client, self.race_id)

    @property
    def race_screen(self) -> RaceScreen:
        screen = self.screen_stack[0]
        assert isinstance(screen, RaceScreen)
        return screen

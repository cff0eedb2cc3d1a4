"""The replay screen: step through a finished race's moves, racer by racer.

The move log reveals the seed, so each racer's game is re-dealt with
``shared.new_game`` and replayed with ``Game.play``: :class:`Timeline` keeps the view
after every move, and the screen steps through them (left/right, home/end) and switches
racer (tab, or ``[`` and ``]``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Static

from client.tui.board import BoardArea, BoardWidget
from shared import IllegalMove, MoveResult, new_game
from shared.games import GameName
from shared.protocol import BoardView, MoveLog


@dataclass
class Timeline:
    """One racer's game, move by move: ``views[i]`` is the board after ``i`` moves and
    ``results[i]`` what move ``i + 1`` did. ``error`` says why the log stops early."""

    player_id: str
    moves: list[str]
    views: list[BoardView] = field(default_factory=list)
    #: When each move was played, in ms since the race's start.
    times: list[int] = field(default_factory=list)
    results: list[MoveResult] = field(default_factory=list)
    error: str | None = None

    @classmethod
    def play(cls, game: GameName, seed: int, player_id: str, moves: Sequence[str]) -> Timeline:
        board = new_game(game, seed)
        timeline = cls(player_id, list(moves), [BoardView.model_validate(board.view())])
        for index, move in enumerate(moves):
            try:
                timeline.results.append(board.play(move))
            except IllegalMove as exc:
                timeline.error = f"move {index + 1} ({move!r}) is illegal: {exc.reason}"
                break
            timeline.views.append(BoardView.model_validate(board.view()))
        return timeline

    @property
    def last(self) -> int:
        """The index of the last position."""
        return len(self.views) - 1


def timelines(log: MoveLog, racers: Sequence[str] = (), started_at: int | None = None) -> list[Timeline]:
    """A timeline per racer: ``racers`` first (in that order), then anyone else in the log.
    Move times count from ``started_at`` (the race's start; default: the first move)."""
    order = list(dict.fromkeys([*racers, *(m.player_id for m in log.moves)]))
    moves: dict[str, list[str]] = {player: [] for player in order}
    times: dict[str, list[int]] = {player: [] for player in order}
    start = started_at if started_at is not None else min((m.at for m in log.moves), default=0)
    for logged in sorted(log.moves, key=lambda m: (m.player_id, m.seq)):
        moves[logged.player_id].append(logged.move)
        times[logged.player_id].append(logged.at - start)
    if log.seed is None:
        raise ValueError("this daily attempt's seed is revealed after its day: replay it then")
    seed = log.seed
    out = [Timeline.play(log.game, seed, player, moves[player]) for player in order]
    for timeline in out:
        timeline.times = times[timeline.player_id]
    return out


def clock_time(ms: int) -> str:
    """A time since the race's start.

    >>> clock_time(83_450)
    '1:23.4'
    """
    tenths = ms // 100
    return f"{tenths // 600}:{tenths // 10 % 60:02d}.{tenths % 10}"


class ReplayScreen(Screen[None]):
    """Replays a finished race from its move log."""

    DEFAULT_CSS = """
    #replay-title { height: 1; background: $panel; padding: 0 1; text-style: bold; }
    #replay-main { height: 1fr; }
    #replay-board-area { width: 1fr; }
    #replay-moves { width: 34; padding: 0 1; }
    #replay-status { height: 1; background: $panel; padding: 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right", "step(1)", "next move"),
        Binding("left", "step(-1)", "previous"),
        Binding("pagedown", "step(10)", "+10", show=False),
        Binding("pageup", "step(-10)", "-10", show=False),
        Binding("home", "jump(0)", "deal"),
        Binding("end", "jump(-1)", "last move"),
        Binding("tab,right_square_bracket", "racer(1)", "next racer"),
        Binding("shift+tab,left_square_bracket", "racer(-1)", "previous racer", show=False),
        Binding("escape,q", "close", "close"),
    ]

    def __init__(
        self, log: MoveLog, names: Mapping[str, str], me: str | None = None, started_at: int | None = None
    ) -> None:
        super().__init__()
        self.move_log = log
        self.names = dict(names)
        first = [me] if me is not None else []
        self.timelines = timelines(log, [*first, *names], started_at)
        self.racer = 0
        self.index = 0

    def compose(self) -> ComposeResult:
        yield Static(id="replay-title")
        with Horizontal(id="replay-main"):
            with BoardArea(id="replay-board-area"):
                yield BoardWidget(id="replay-board", interactive=False)
            yield Static(id="replay-moves")
        yield Static(id="replay-status")
        yield Footer()

    @property
    def board(self) -> BoardWidget:
        return self.query_one("#replay-board", BoardWidget)

    @property
    def timeline(self) -> Timeline:
        return self.timelines[self.racer]

    def on_mount(self) -> None:
        self.redraw()

    def redraw(self) -> None:
        timeline = self.timeline
        name = self.names.get(timeline.player_id, timeline.player_id)
        title = (
            f"Replay  race {self.move_log.race_id}  {self.move_log.game}  seed {self.move_log.seed}  "
            f"racer {name} ({self.racer + 1}/{len(self.timelines)})"
        )
        self.query_one("#replay-title", Static).update(title)
        self.board.show(timeline.views[self.index])
        self.query_one("#replay-moves", Static).update(self._move_list())
        self.query_one("#replay-status", Static).update(self._step_note())

    def _step_note(self) -> str:
        timeline = self.timeline
        view = timeline.views[self.index]
        where = f"move {self.index}/{timeline.last}"
        if self.index == 0:
            note = f"{where}: the deal"
        else:
            result = timeline.results[self.index - 1]
            moved = len(result.steps)
            note = f"{where}: {result.move} ({moved} card{'s' if moved != 1 else ''} moved)"
            if self.index <= len(timeline.times):
                note += f" at {clock_time(timeline.times[self.index - 1])}"
        note += f"  score {view.score}{'  WON' if view.won else ''}"
        if timeline.error and self.index == timeline.last:
            note += f"  ! {timeline.error}"
        return note

    def _move_list(self) -> Text:
        text = Text("Moves\n", style="bold")
        shown = self.timeline.moves[: self.timeline.last]
        start = max(0, self.index - 12)
        times = self.timeline.times
        for number, move in enumerate(shown[start : start + 24], start=start + 1):
            style = "reverse" if number == self.index else ""
            at = f" {clock_time(times[number - 1]):>8}" if number <= len(times) else ""
            text.append(f"{number:>3}. {move:<10}{at}\n", style=style)
        if not shown:
            text.append("(no moves)\n", style="dim")
        return text

    def action_step(self, delta: int) -> None:
        self.index = max(0, min(self.timeline.last, self.index + delta))
        self.redraw()

    def action_jump(self, index: int) -> None:
        self.index = self.timeline.last if index < 0 else min(index, self.timeline.last)
        self.redraw()

    def action_racer(self, delta: int) -> None:
        self.racer = (self.racer + delta) % len(self.timelines)
        self.index = min(self.index, self.timeline.last)
        self.redraw()

    def action_close(self) -> None:
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()
        else:
            self.app.exit()


class ReplayApp(App[None]):
    """Replays a finished race's move log (``ArenaClient.move_log``)."""

    TITLE = "Solitaire Arena replay"

    def __init__(
        self, log: MoveLog, names: Mapping[str, str], me: str | None = None, started_at: int | None = None
    ) -> None:
        super().__init__()
        self.move_log = log
        self.names = dict(names)
        self.me = me
        self.started_at = started_at

    def get_default_screen(self) -> ReplayScreen:
        return ReplayScreen(self.move_log, self.names, self.me, self.started_at)

    @property
    def replay_screen(self) -> ReplayScreen:
        screen = self.screen_stack[0]
        assert isinstance(screen, ReplayScreen)
        return screen

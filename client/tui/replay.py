"""The replay screen: step through a finished race's moves, racer by racer.

The move log reveals the seed, so each racer's game is re-dealt with
``shared.new_game`` and replayed with ``Game.play``: :class:`Timeline` keeps the view
after every move, and the screen steps through them (left/right, home/end) and switches
racer (tab, or ``[`` and ``]``). A daily attempt's seed stays secret until its day is
closed: its player replays it from the server's views instead (``get_replay``, as the
browser does; :func:`served_timeline`), which hold no face-down card.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Final

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Static

from client.columns import clipped, width
from client.sdk import ArenaClient
from client.tui.board import BoardArea, BoardWidget
from client.tui.too_small import TooSmallNotice
from shared import IllegalMove, MoveResult, new_game
from shared.games import GameName
from shared.protocol import BoardView, MoveLog
from shared.protocol.results import REPLAY_LIMIT_MAX


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


async def served_timeline(client: ArenaClient, race_id: str, player_id: str) -> Timeline:
    """``player_id``'s timeline in ``race_id`` from the server's views (``get_replay``, a
    page at a time), for a race whose seed is not out yet: the player's own daily attempt
    before its day is closed. A hidden card stays hidden; there are no move results."""
    views: list[BoardView] = []
    moves: list[str] = []
    times: list[int] = []
    total = 1
    while len(views) < total:
        page = await client.replay(race_id, player_id, offset=len(views), limit=REPLAY_LIMIT_MAX)
        total = page.total
        if not page.views:
            break
        views += page.views
        moves += page.moves
        times += page.times
    return Timeline(player_id, moves[1:], views, times[1:])


#: The move list's width, how narrow it gets so that a board fits beside it in an
#: 80-column terminal, and its padding.
MOVES_WIDTH: Final = 34
MOVES_MIN_WIDTH: Final = 22
_MOVES_PADDING: Final = 2


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


def move_line(number: int, move: str, at: str, columns: int) -> str:
    """A move in the move list, numbered, with the time it was played (``at``); tighter
    where the usual line does not fit in ``columns``.

    >>> move_line(12, "t2:3>t5", "1:23.4", 32)
    ' 12. t2:3>t5      1:23.4'
    >>> move_line(12, "t2:3>t5", "1:23.4", 21)
    ' 12 t2:3>t5    1:23.4'
    """
    line = f"{number:>3}. {move:<10}" + (f" {at:>8}" if at else "")
    if len(line) <= columns:
        return line
    return f"{number:>3} {move:<10} {at}".rstrip()


_STEP: Final = Binding.Group("move", compact=True)
_TITLE_PADDING: Final = 2


def replay_title(log: MoveLog, racer: str, columns: int) -> str:
    """The title in one line of ``columns``: the race, its game, its seed where there is
    room for it (else the status line gives it at the deal), and the racer shown (a name
    cut where even that does not fit).

    >>> log = MoveLog(race_id="9b9f7e6c4bea", game="treize", seed=17180775478973134212, salt="s",
    ...               commitment="c", moves=[])
    >>> replay_title(log, "alice (2/2)", 100)
    'Replay  race 9b9f7e6c4bea  treize  seed 17180775478973134212  racer alice (2/2)'
    >>> replay_title(log, "alice (2/2)", 78)
    'Replay  race 9b9f7e6c4bea  treize  racer alice (2/2)'
    """
    head = f"Replay  race {log.race_id}  {log.game}"
    with_seed = f"{head}  seed {log.seed}  racer {racer}"
    if log.seed is not None and width(with_seed) <= columns:
        return with_seed
    return clipped(f"{head}  racer {racer}", columns)


class ReplayScreen(Screen[None]):
    """Replays a finished race from its move log."""

    # The title keeps to one line (the seed left out where it does not fit: the status
    # line gives it at the deal); the status line wraps rather than lose its end in 80
    # columns (a move's note may end with why the log stops).
    DEFAULT_CSS = """
    #replay-title { height: 1; background: $panel; padding: 0 1; text-style: bold; }
    #replay-main { height: 1fr; }
    #replay-board-area { width: 1fr; }
    #replay-moves { width: 34; padding: 0 1; }
    #replay-status { height: auto; max-height: 2; background: $panel; padding: 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # One footer entry for both arrows: the whole footer fits in 80 columns.
        Binding("left", "step(-1)", "previous", group=_STEP),
        Binding("right", "step(1)", "next move", group=_STEP),
        Binding("pagedown", "step(10)", "+10", show=False),
        Binding("pageup", "step(-10)", "-10", show=False),
        Binding("home", "jump(0)", "deal"),
        Binding("end", "jump(-1)", "last move"),
        Binding("tab,right_square_bracket", "racer(1)", "next racer"),
        Binding("shift+tab,left_square_bracket", "racer(-1)", "previous racer", show=False),
        Binding("escape,q", "close", "close"),
    ]

    def __init__(
        self,
        log: MoveLog,
        names: Mapping[str, str],
        me: str | None = None,
        started_at: int | None = None,
        served: Sequence[Timeline] = (),
    ) -> None:
        """``served``: the timelines from the server's views (:func:`served_timeline`),
        for a log without its seed; otherwise each racer's is dealt from the seed."""
        super().__init__()
        self.move_log = log
        self.names = dict(names)
        first = [me] if me in self.names else []  # a viewer who did not race has no board
        self.timelines = list(served) or timelines(log, [*first, *names], started_at)
        self.racer = 0
        self.index = 0
        self._moves_width = MOVES_WIDTH

    def compose(self) -> ComposeResult:
        yield TooSmallNotice(id="too-small")
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

    @property
    def _composed(self) -> bool:
        """Whether the screen's widgets are all there: an app told to exit (q pressed as
        the replay opened) mounts no more widgets, and its screen is then left without
        some or all of them (the board, nested deepest, comes last)."""
        return bool(self.query("#replay-board"))

    def on_mount(self) -> None:
        if not self._composed:
            return
        self.query_one(TooSmallNotice).fit(self.app.size)
        self.redraw()

    def on_resize(self, event: events.Resize) -> None:
        if not self._composed:
            return
        self.query_one(TooSmallNotice).fit(self.app.size)
        self.redraw()  # the title fits the new width
        self.call_after_refresh(self._fit_moves)

    def _fit_moves(self) -> None:
        """Narrow the move list (down to :data:`MOVES_MIN_WIDTH`) while the board would
        not fit beside it, so the whole board shows in an 80-column terminal."""
        area = self.query_one("#replay-board-area", BoardArea)
        row = self.query_one("#replay-main").size.width
        width = area.width_beside(row, self.move_log.game, MOVES_WIDTH, MOVES_MIN_WIDTH)
        if width != self._moves_width:
            self._moves_width = width
            self.query_one("#replay-moves").styles.width = width
            self.redraw()

    def redraw(self) -> None:
        timeline = self.timeline
        self.query_one("#replay-title", Static).update(self._title())
        self.board.show(timeline.views[self.index])
        self.query_one("#replay-moves", Static).update(self._move_list())
        self.query_one("#replay-status", Static).update(self._step_note())

    def _title(self) -> str:
        timeline = self.timeline
        name = self.names.get(timeline.player_id, timeline.player_id)
        racer = f"{name} ({self.racer + 1}/{len(self.timelines)})"
        return replay_title(self.move_log, racer, max(self.size.width - _TITLE_PADDING, 1))

    def _step_note(self) -> str:
        timeline = self.timeline
        view = timeline.views[self.index]
        where = f"move {self.index}/{timeline.last}"
        if self.index == 0 and self.move_log.seed is None:
            note = f"{where}: the deal (its seed is revealed once the day is closed)"
        elif self.index == 0:
            seed = f"seed {self.move_log.seed}"
            note = f"{where}: the deal" if seed in self._title() else f"{where}: the deal of {seed}"
        elif self.index > len(timeline.results):  # the server's views: no move results
            note = f"{where}: {timeline.moves[self.index - 1]}"
            if self.index <= len(timeline.times):
                note += f" at {clock_time(timeline.times[self.index - 1])}"
        else:
            result = timeline.results[self.index - 1]
            moved = len({step.card for step in result.steps})  # a card moved, then played home: one
            note = f"{where}: {result.move} ({moved} card{'s' if moved != 1 else ''} moved)"
            if self.index <= len(timeline.times):
                note += f" at {clock_time(timeline.times[self.index - 1])}"
        note += f"  score {view.score}{'  WON' if view.won else ''}"
        if timeline.error and self.index == timeline.last:
            note += f"  ! {timeline.error}"
        return note

    def _move_list(self) -> Text:
        text = Text("Moves\n", style="bold", no_wrap=True, overflow="crop")
        shown = self.timeline.moves[: self.timeline.last]
        start = max(0, self.index - 12)
        times = self.timeline.times
        columns = self._moves_width - _MOVES_PADDING
        for number, move in enumerate(shown[start : start + 24], start=start + 1):
            style = "reverse" if number == self.index else ""
            at = clock_time(times[number - 1]) if number <= len(times) else ""
            text.append(move_line(number, move, at, columns) + "\n", style=style)
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
    """Replays a finished race's move log (``ArenaClient.move_log``), or the server's
    views of it (``served``, as for :class:`ReplayScreen`)."""

    TITLE = "Solitaire Arena replay"

    def __init__(
        self,
        log: MoveLog,
        names: Mapping[str, str],
        me: str | None = None,
        started_at: int | None = None,
        served: Sequence[Timeline] = (),
    ) -> None:
        super().__init__()
        self.move_log = log
        self.names = dict(names)
        self.me = me
        self.started_at = started_at
        self.served = list(served)

    def get_default_screen(self) -> ReplayScreen:
        return ReplayScreen(self.move_log, self.names, self.me, self.started_at, self.served)

    @property
    def replay_screen(self) -> ReplayScreen:
        screen = self.screen_stack[0]
        assert isinstance(screen, ReplayScreen)
        return screen

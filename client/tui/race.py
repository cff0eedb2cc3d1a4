"""The race screen: the board, the clock, everyone's progress, the move input.

It follows the race's events in a worker (``ArenaClient.events()``) and plays the
racer's moves one at a time through the SDK; a refused move shows the server's reason
on the status line. ``u`` (or the move ``undo``) takes the last move back while the
server says it can; ``h`` (or ``hint``) asks for a hint where the race allows them and
lights the move up on the board. Racers' ratings show beside their names, and the race
panel says how many people watch the race (``spectators`` events). A new name the
player took on another session (``renamed``) shows on their row while the race is not over. Once the race is
over the results replace the live ranking (with everyone's new rating after a rated
race), ctrl+r opens the replay, ``r`` (or ``rematch``) offers the same racers a new deal
and ``y``/``n`` answer someone else's offer; when a rematch starts the screen follows
the new race.

A daily attempt (:class:`~client.tui.race_state.DailyRun`) is a race of one on the same
screen: labelled scored, practice or guest, nothing about other racers or rematches;
once it is over the side panel gives its place on the day's board, and ``p`` (or
``practice``) plays the deal again, unscored, on the same screen. During one's own scored
attempt, ``g`` (or ``ghosts``) races the day's best three finished attempts as ghosts
(``daily_ghosts``) and hides them again: the racers panel shows each ghost's progress as
its ``ghost`` events come. The replay of a daily opens once its day's last attempts are
over (its seed is secret until then: the results say when, ``reveals_at``).

The one-key commands are bindings shown in the footer only while they apply; in the
move field they act only while it is empty (see :mod:`client.tui.move_input`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import ClassVar, Final, TypeVar

from pydantic import ValidationError
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, Static
from textual.worker import Worker

from client.columns import clipped
from client.errors import ArenaError, ConnectionLostError, UnavailableError
from client.sdk import ArenaClient
from client.suggestions import login_command, player_options
from client.tui.board import BoardArea, BoardWidget, Direction
from client.tui.cards import cards_in_words
from client.tui.clock import ServerClock, local_ms
from client.tui.legal import legal_moves
from client.tui.move_input import COMMAND_WORDS, MoveHints, MoveInput, playing_placeholder
from client.tui.panels import (
    ClockPanel,
    DailyPanel,
    RaceInfoPanel,
    RacersPanel,
    RankingPanel,
    RematchPanel,
    bar_width_in,
    rating_text,
    room_for,
)
from client.tui.race_state import DailyRun, Racer, RaceState, rematch_note
from client.tui.replay import ReplayScreen, served_timeline
from client.tui.too_small import TooSmallNotice
from client.wording import (
    LEFT_OUT,
    change_words,
    place_words,
    refusal_words,
    run_ending_words,
    seconds_words,
    time_ran_out,
    validation_line,
)
from shared.daily_words import reveal_words
from shared.games import GameName
from shared.protocol import (
    DailyStarted,
    Ghost,
    GhostInfo,
    Hint,
    MoveAck,
    MoveSummary,
    RaceCountdown,
    RaceEnded,
    RaceInfo,
    RaceStarted,
    RaceSummary,
    RaceUpdate,
    RematchInfo,
    RematchStarted,
    RematchUpdate,
    Welcome,
)
from shared.ranking import shares_rank

T = TypeVar("T")

#: The side panel's width, and how narrow it gets so that a board fits beside it in a
#: narrow terminal (80 columns) rather than scroll out of sight.
SIDE_WIDTH: Final = 34
SIDE_MIN_WIDTH: Final = 22
#: The side panel's padding, a column each side.
_SIDE_PADDING: Final = 2

#: Said at the start, in one line of an 80-column terminal.
GO: Final = "go! type a move, or pick a card and its target on the board (arrows, enter)"
#: Refusals that say the board moved on without this screen: another session of the
#: player (a browser tab, another terminal) played on it. Said in plain words.
OUT_OF_STEP_CODES: Final = frozenset({"stale_seq", "future_seq", "seq_conflict", "played_elsewhere"})
#: Errors after which the client's idea of its board is out of date: fetch it again.
RESYNC_CODES: Final = OUT_OF_STEP_CODES | {"internal_error"}
#: The server's word that this racer has finished: a give-up whose answer was lost on the
#: way (it went through), or one made on another session of the player's.
FINISHED_CODE: Final = "racer_finished"
#: How much of a move the protocol refused is shown back (a paste of several moves is long).
MOVE_SHOWN: Final = 24
#: Said once the server answers again after a request refused as ``unavailable`` (a move
#: it may have stored all the same): the board read again shows whether it did.
STORE_BACK: Final = "the server is back: the board is shown as it is now"
LOBBY_STORE_BACK: Final = "the server is back"
PLAYED_ELSEWHERE: Final = (
    "✗ {move} not played: this race was played on elsewhere (another window or device). "
    "The board is shown as it is now: play your move again."
)
#: The one-key commands: the action each runs (``COMMAND_WORDS``: the word that does the same).
KEY_ACTIONS: Final = {
    "u": "undo",
    "h": "hint",
    "r": "offer_rematch",
    "y": "answer_rematch",
    "n": "answer_rematch",
    "p": "practise",
    "g": "toggle_ghosts",
}
#: Words typed in the move field that are commands, not moves (``undo`` is a move).
TYPED_COMMANDS: Final = {
    "hint": "hint",
    "rematch": "rematch",
    "yes": "accept",
    "y": "accept",
    "accept": "accept",
    "no": "decline",
    "n": "decline",
    "decline": "decline",
    "practice": "practice",
    "practise": "practice",
    "ghosts": "ghosts",
}
AFTER_THE_END: Final = "race over: r or rematch offers a rematch, y/yes or n/no answers one"
#: Seconds quitting a lobby tries to leave it before the command ends anyway.
LEAVE_PATIENCE: Final = 5.0
#: The move field of a race that was cancelled (left by everyone, or void).
CANCELLED_FIELD: Final = "race cancelled: nothing to play here (ctrl+q quits)"
#: The move field where this racer sits no more (left on another session, seat lost).
NO_MOVES_HERE: Final = "no moves here: you are not racing in this race now (ctrl+q quits)"
#: The move field once the connection is gone for good (the status line says why).
CUT_OFF_FIELD: Final = "nothing is sent from here any more (ctrl+q quits)"
#: The move field before the start.
BEFORE_THE_START: Final = "moves go here once the race starts"
#: The move field of a racer who is done while others still race.
DONE_WAITING: Final = "you are done: the results show once everyone is (ctrl+q quits)"
AFTER_THE_DAILY: Final = "daily over: p or practice plays the deal again, unscored"
#: The move field once the day of the daily deal played is over too (p would be today's).
AFTER_THE_DAY: Final = "daily over, and its day: ctrl+q, then solitaire-arena daily plays today's"
#: Seconds within which a second ctrl+g gives up (the first one asks).
GIVE_UP_WINDOW: Final = 4.0
GIVE_UP_ASK: Final = "give up? ctrl+g again within 4 s ends the race for you (your score stays)"
#: What the status line says once the window passed without a second ctrl+g.
GIVE_UP_LAPSED: Final = "you play on: no second ctrl+g within 4 s (ctrl+g asks again)"


def _seed_comes(summary: RaceSummary | None, clock: ServerClock) -> str:
    """When a daily run's seed comes out, for a note written now: "" once it is out (by
    the results, or by the server's clock at its ``reveals_at``), else when it will be
    (``summary`` None: the results never came). Its player replays it before that, from
    the server's boards.

    >>> late = RaceSummary(race_id="r1", game="treize", started_at=0, ended_at=1, commitment="c",
    ...                    standings=[], reveals_at=88_260_000)
    >>> _seed_comes(late, ServerClock(offset_ms=-local_ms()))
    "; its seed is revealed once the day's last attempts are over (1970-01-02 00:31 UTC)"
    >>> _seed_comes(late, ServerClock(offset_ms=88_260_000 - local_ms()))
    ''
    """
    if summary is None:
        return f"; its seed is revealed {reveal_words(None)}"  # the results did not come: when is not known
    if summary.seed is not None:
        return ""
    if summary.reveals_at is not None and clock.now() >= summary.reveals_at:
        return ""
    return f"; its seed is revealed {reveal_words(summary.reveals_at)}"


def undo_note(result: MoveSummary) -> str:
    """What an undo took back, from its steps (each card going back where it came from),
    the cards written as the board draws them.

    >>> undo_note(MoveSummary(move="undo", steps=[("TS", "f1", "t4")], score_delta=-1, score=0, won=False))
    '✓ undo: 10♠ f1>t4  -1 (score 0)'

    Past four cards, the first three and the last (the racer's own, autoplay's taken back
    before it) are shown:

    >>> undo_note(MoveSummary(move="undo", steps=[("AC", "f2", "t7"), ("2C", "f2", "t1"), ("AD", "f1", "t5"),
    ...                       ("2D", "f1", "t2"), ("9H", "r1", "t4")], score_delta=-4, score=0, won=False))
    '✓ undo: A♣ f2>t7, 2♣ f2>t1, A♦ f1>t5, 1 more card, 9♥ r1>t4  -4 (score 0)'

    Cards that all went the same way are counted (an Eagle Wing redeal taken back):

    >>> undo_note(MoveSummary(move="undo", steps=[(None, "stock", "waste")] * 23, score_delta=0, score=4,
    ...                       won=False))
    '✓ undo: 23 cards stock>waste'
    """
    ways = {(src, dst) for _card, src, dst in result.steps}
    if len(result.steps) > 1 and len(ways) == 1:
        (src, dst), count = ways.pop(), len(result.steps)
        shown, more = f"{count} cards {src}>{dst}", ""
    else:
        words = [
            f"{cards_in_words(card) if card else 'a card'} {src}>{dst}" for card, src, dst in result.steps
        ]
        if len(words) > 4:  # the last is the racer's own card, after those autoplay sent home
            hidden = len(words) - 4
            words = [*words[:3], f"{hidden} more card{'s' if hidden > 1 else ''}", words[-1]]
        shown, more = ", ".join(words), ""
    note = f"✓ undo: {shown}{more}" if shown else "✓ undo"
    if result.score_delta:
        note += f"  {result.score_delta:+d} (score {result.score})"
    return note


def ghosts_note(ghosts: list[GhostInfo]) -> str:
    """Which ghosts race the attempt, for the status line (with how each ended: a win's
    time, or that it was given up).

    >>> ghosts_note([GhostInfo(player_id="p_z", name="zoe", rank=1, won=True, time_ms=95012),
    ...              GhostInfo(player_id="p_b", name="bob", rank=2, won=False),
    ...              GhostInfo(player_id="p_q", name="quin", rank=3, won=False, gave_up=True)])
    'racing ghosts: zoe (#1, won in 95.0 s), bob (#2), quin (#3, gave up); g hides them'
    """
    shown = []
    for ghost in ghosts:
        end = ""
        if ghost.won and ghost.time_ms is not None:
            end = f", won in {seconds_words(ghost.time_ms)} s"
        elif ghost.gave_up:
            end = ", gave up"
        shown.append(f"{ghost.name} (#{ghost.rank}{end})")
    return f"racing ghosts: {', '.join(shown)}; g hides them"


#: The status line while a dropped connection is being resumed.
RECONNECTING: Final = "connection lost: reconnecting…"
#: Said once it is back, unless something said since says more (:meth:`RaceScreen._back`).
RECONNECTED: Final = "reconnected"
#: The status line once the client gave up resuming a dropped connection.
GONE: Final = "connection lost for good"
#: The clock then: it no longer counts here (in the 20 columns of a narrowed side panel).
CLOCK_GONE: Final = "offline: clock off"
#: The screen's actions that need the server (none is offered once the connection is gone).
SERVER_ACTIONS: Final = frozenset(
    {
        "give_up",
        "replay",
        "undo",
        "hint",
        "toggle_ready",
        "unready",
        "enter_ready",
        "offer_rematch",
        "answer_rematch",
        "practise",
        "toggle_ghosts",
        "rejoin",
    }
)
#: Refusals of ``ready`` that say this racer no longer sits in an open race: it was left
#: (or started, or cancelled) meanwhile, maybe on another session of the player.
NOT_SEATED_CODES: Final = frozenset({"not_a_racer", "race_not_open"})


def connection_trouble(exc: BaseException) -> str:
    """A request's connection problem in words (a timeout says nothing of itself).

    >>> connection_trouble(TimeoutError())
    'no answer from the server'
    >>> connection_trouble(ConnectionResetError("Connection reset by peer"))
    'connection problem (Connection reset by peer)'
    >>> connection_trouble(ConnectionError())
    'connection problem'
    """
    if isinstance(exc, TimeoutError):
        return "no answer from the server"
    return f"connection problem ({exc})" if str(exc) else "connection problem"


def lobby_news(before: dict[str, Racer], after: dict[str, Racer], me: str | None) -> str:
    """What changed among the others in the lobby, to go before its note: who left, who
    lost their connection (away) and who is back ("" when none of that).

    >>> ada, bob, cy = Racer("p_a", "ada"), Racer("p_b", "bob"), Racer("p_c", "cy")
    >>> away = Racer("p_b", "bob", away=True)
    >>> lobby_news({"p_a": ada, "p_b": bob, "p_c": cy}, {"p_a": ada, "p_b": away}, "p_a")
    'cy left; bob is away (their seat is kept for a while); '
    >>> lobby_news({"p_a": ada, "p_b": away}, {"p_a": ada, "p_b": bob}, "p_a")
    'bob is back; '
    """
    news = [f"{r.name} left" for p, r in before.items() if p not in after and p != me]
    for player_id, racer in after.items():
        was = before.get(player_id)
        if player_id == me or was is None or was.away == racer.away:
            continue
        news.append(
            f"{racer.name} is away (their seat is kept for a while)"
            if racer.away
            else f"{racer.name} is back"
        )
    return "".join(f"{line}; " for line in news)


def left_elsewhere_note(code: str, cancelled: bool) -> str:
    """The lobby of a race this player left on another session of theirs (the server
    tells the sessions of the player who left nothing).

    >>> left_elsewhere_note("5985RT", cancelled=True)
    'you left race 5985RT on another session: nobody sits in it, so it is cancelled. ctrl+q quits'
    """
    if cancelled:
        return f"you left race {code} on another session: nobody sits in it, so it is cancelled. ctrl+q quits"
    return f"you left race {code} on another session: it goes on without you. ctrl+q quits"


#: Seconds a server keeps the seat of a racer whose connection closed in a race not yet
#: started, unless it is set otherwise (``SA_LOBBY_GRACE``), for a server that does not
#: say its own in ``welcome``.
LOBBY_GRACE: Final = 30


def seat_lost_note(code: str, away: float | None, status: str, grace: float | None = None) -> str:
    """The lobby of a race whose seat this racer lost while their connection was down:
    away longer than the server keeps a seat (``grace`` seconds, as its ``welcome`` said;
    None: not said), they left it (the last one out cancels it); the race is at ``status``
    now.

    >>> seat_lost_note("5985RT", 41.3, "open", 30.0)  # doctest: +NORMALIZE_WHITESPACE
    'you lost your seat in race 5985RT: the connection was down 41 s, longer than this server
    keeps the seat of a racer gone before a race starts (30 s). r joins it again, ctrl+q quits'
    >>> seat_lost_note("5985RT", None, "cancelled", 12.5)  # doctest: +NORMALIZE_WHITESPACE
    'you lost your seat in race 5985RT: the connection was down longer than this server keeps
    the seat of a racer gone before a race starts (12.5 s); nobody sat in it any more, so it is
    cancelled. ctrl+q quits'
    >>> seat_lost_note("5985RT", 41.3, "running")  # doctest: +NORMALIZE_WHITESPACE
    'you lost your seat in race 5985RT: the connection was down 41 s, longer than this server
    keeps the seat of a racer gone before a race starts (30 s by default); it started without
    you meanwhile. ctrl+q quits'
    """
    down = "down" if away is None else f"down {max(1, round(away))} s,"
    kept = f"{LOBBY_GRACE} s by default" if grace is None else f"{grace:g} s"
    why = (
        f"you lost your seat in race {code}: the connection was {down} longer than this server "
        f"keeps the seat of a racer gone before a race starts ({kept})"
    )
    if status == "open":
        return f"{why}. r joins it again, ctrl+q quits"
    if status == "cancelled":
        return f"{why}; nobody sat in it any more, so it is cancelled. ctrl+q quits"
    return f"{why}; it started without you meanwhile. ctrl+q quits"


def default_join_command(code: str) -> str:
    """What friends type to join the race ``code`` on the default server."""
    return f"solitaire-arena play --join {code}"


#: The most lines the status line takes: a lobby's note ends with a line of the whole
#: command friends join with, which in 80 columns, with a server address, takes four.
STATUS_MOST: Final = 4
#: The most it takes while no board shows (a lobby): a note that the lobby was reopened
#: (two lines in 80 columns) above the lobby's own, and under it the note that the seed
#: share was left out (:data:`SHARE_LEFT_OUT`, three lines).
LOBBY_STATUS_MOST: Final = STATUS_MOST + 2 + 3
#: Said once a racer got ready without the seed share they committed.
SHARE_LEFT_OUT: Final = (
    "your seed share for this race was committed on another device: the deal is mixed without it, "
    "unless that device is still in this lobby when the countdown begins"
)


class StatusLine(Static):
    """One line for what just happened; :attr:`last` keeps its text."""

    DEFAULT_CSS = (
        f"StatusLine {{ height: auto; max-height: {STATUS_MOST}; background: $panel; padding: 0 1; }}"
    )

    last: str = ""
    #: Whether the connection was last seen dropped (see :meth:`follow_connection`).
    dropped: bool = False
    #: Whether what it says is the notice of a drop (nothing was said since): once the
    #: connection is back, only that notice gives way to :data:`RECONNECTED`.
    telling_drop: bool = False
    #: When the last drop was seen (monotonic seconds; None: none was).
    dropped_at: float | None = None

    def say(self, text: str, error: bool = False) -> None:
        self.last = text
        self.telling_drop = False
        self.update(Text(text, style="bold red" if error else ""))

    def follow_connection(self, reconnecting: bool) -> None:
        """Say so once the connection dropped and is being resumed (the client's
        ``reconnecting``): until it is back, nothing else would tell."""
        if reconnecting and not self.dropped:
            self.say(RECONNECTING, error=True)
            self.telling_drop = True
            self.dropped_at = time.monotonic()
        self.dropped = reconnecting

    def move_waits(self, move: str) -> None:
        """A move typed while the connection is being resumed waits for it: say so,
        keeping the notice that it is being resumed."""
        self.waits(f"{move} is sent once it is back")

    def waits(self, what: str) -> None:
        """Something asked for while the connection is being resumed waits for it:
        ``what`` (said after the notice that it is being resumed, which stays)."""
        if not self.dropped:
            self.dropped_at = time.monotonic()
        self.say(f"{RECONNECTING} {what}", error=True)
        self.telling_drop = True
        self.dropped = True

    def away_for(self) -> float | None:
        """Seconds since the last drop was seen (None: no drop was)."""
        return None if self.dropped_at is None else time.monotonic() - self.dropped_at


class RaceScreen(Screen[None]):
    """One racer playing one race. With ``daily`` the race is a daily attempt: already
    started as ``race_id`` when ``daily.date`` is known, else started by the screen
    (a refusal, ``daily_attempted`` say, is shown on the status line)."""

    DEFAULT_CSS = """
    #main { height: 1fr; }
    #board-area { width: 1fr; }
    #side { width: 34; padding: 0 1; }
    #move { margin: 0 1; }
    #hints { padding: 0 2; }
    """

    #: How often (seconds) a lobby reads its race again: a leave on another session of
    #: the player is told to nobody of that player (``race_update`` skips them).
    LOBBY_CHECK: ClassVar[float] = 5.0
    #: How often (seconds) the board is asked for again while the server cannot reach
    #: its store, after a move it refused so (:meth:`_catch_up`).
    CATCH_UP_PAUSE: ClassVar[float] = 1.0

    # The footer shows a key only while it applies (``check_action``); ``u`` is shown
    # dimmed while the racer plays but the server says an undo would be refused.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+g", "give_up", "give up"),
        Binding("ctrl+r", "replay", "replay"),
        Binding("u", "undo", "undo"),
        Binding("h", "hint", "hint"),
        Binding("r", "toggle_ready", "ready"),
        Binding("r", "unready", "not ready"),  # the footer says what r does now
        Binding("enter", "enter_ready", "ready", show=False, priority=True),
        Binding("r", "offer_rematch", "rematch"),
        Binding("y", "answer_rematch(True)", "accept rematch"),
        Binding("n", "answer_rematch(False)", "decline rematch"),
        Binding("p", "practise", "practice"),
        Binding("g", "toggle_ghosts", "ghosts"),
        Binding("r", "rejoin", "join again"),
        Binding("escape", "clear", "clear", show=False),
    ]

    def __init__(
        self,
        client: ArenaClient,
        race_id: str = "",
        daily: DailyRun | None = None,
        ready_when_full: bool = False,
        join_command: Callable[[str], str] = default_join_command,
        resumed: str = "",
        options: Callable[[], str] = str,
    ) -> None:
        super().__init__()
        self.client = client
        self.race_id = race_id
        #: What the commands it suggests need to reach the same server as the same player
        #: (``" --server URL --name NAME"``, or ""), asked each time: the player may be
        #: renamed meanwhile.
        self.options = options
        #: Whether the connection is lost for good (the client gave up resuming it):
        #: nothing that needs the server is offered any more.
        self.gone = False
        #: Whether quitting the lobby could not tell the server (out of reach).
        self.leave_unsent = False
        #: The move that waited for the connection when the client gave up resuming it.
        self.unsent: str | None = None
        #: Reads the board again once the server reaches its store again (after a move
        #: refused as ``unavailable``); a later move stops it.
        self._catching_up: Worker[None] | None = None
        #: What friends type to join the race of a code (the lobby's status line says it).
        self.join_command = join_command
        #: Why this race opened rather than the one asked for (``you are still racing in
        #: …: resuming it``): said first on the opening status line ("": nothing to say).
        self.resumed = resumed
        #: Say ready by itself once every seat of the (open) race is taken, once.
        self.ready_when_full = ready_when_full
        self._readied_when_full = False
        #: Whether the status line said this racer got ready without their seed share.
        self._told_share_left_out = False
        self.state = RaceState(race_id=race_id, me=client.player_id, daily=daily)
        if daily is not None:
            self.state.game = daily.game
        self.clock = ServerClock()
        self.legal: list[str] = []
        #: The last hint, shown while the board is still the one it was for.
        self.hint: Hint | None = None
        self._moves = asyncio.Lock()
        self._keys: tuple[bool | None, ...] = ()
        #: When ctrl+g last asked whether to give up (monotonic seconds).
        self._give_up_asked: float | None = None
        self._side_width = SIDE_WIDTH
        #: Whether this racer was seen seated in the race (so that a lobby which no
        #: longer seats them says they left it elsewhere).
        self._seated = False
        #: How many times the client had resumed a dropped connection when this racer was
        #: last seen seated (a seat gone since a resume was lost while away: :attr:`seat_lost`).
        self._seated_resumes = client.resumes
        #: How long (seconds) the connection was down before the last resume (None: unknown).
        self._away: float | None = None
        #: The most lines the status line takes now (:meth:`_fit_status`).
        self._status_most = STATUS_MOST
        #: Said before the start of a rematch that closed the replay (:meth:`_follow_rematch`).
        self._replay_closed = ""
        #: The race whose start the status line told (once: its event and a read of the
        #: race may both find it started, in either order).
        self._go_told = ""

    def compose(self) -> ComposeResult:
        yield TooSmallNotice(id="too-small")
        with Horizontal(id="main"):
            with BoardArea(id="board-area"):
                yield BoardWidget(id="board")
            with Vertical(id="side"):
                yield RaceInfoPanel(id="race-info")
                yield ClockPanel(id="clock")
                yield RacersPanel(id="racers")
                yield RankingPanel(id="ranking")
                yield RematchPanel(id="rematch")
                yield DailyPanel(id="daily")
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
        self.query_one(TooSmallNotice).fit(self.app.size)
        self.move_input.command_key = self.command_key
        self.move_input.dimmed_key = self.dimmed_key
        self.move_input.to_board = self.to_board
        self.move_input.focus()
        self.set_interval(0.25, self._tick)
        self.set_interval(self.LOBBY_CHECK, self._check_lobby)
        self.run_worker(self._follow(), name="follow", group="race", exit_on_error=False)

    def on_resize(self, event: events.Resize) -> None:
        self.query_one(TooSmallNotice).fit(self.app.size)
        self.call_after_refresh(self._fit_side)

    def _fit_side(self) -> None:
        """Narrow the side panel (down to :data:`SIDE_MIN_WIDTH`) while the board would
        not fit beside it, so the whole board shows in an 80-column terminal."""
        width = SIDE_WIDTH
        view = self.board.view
        if view is not None:
            area = self.query_one("#board-area", BoardArea)
            width = area.width_beside(
                self.query_one("#main").size.width, view.game, SIDE_WIDTH, SIDE_MIN_WIDTH
            )
        self._fit_status()
        if self._side_width == width:
            self.call_after_refresh(self._fit_racers)  # the height may have changed
            return
        self._side_width = width
        self.query_one("#side").styles.width = width
        columns = width - _SIDE_PADDING
        racers = self.query_one("#racers", RacersPanel)
        racers.bar_width, racers.columns = bar_width_in(columns), columns
        self.query_one("#race-info", RaceInfoPanel).columns = columns
        self.query_one("#ranking", RankingPanel).columns = columns
        self.query_one("#rematch", RematchPanel).columns = columns
        self.query_one("#daily", DailyPanel).columns = columns
        self.redraw_side()

    def _fit_status(self) -> None:
        """In a short terminal, the status line gives up its last lines (down to one) so
        that the whole board shows above it (the rows of cards a racer plays from are the
        lowest of Treize's pyramid); a board that would not show whole even then (a long
        Eight Off column) scrolls instead, and the status line keeps its lines. With no
        board yet (a lobby) it may take more (:data:`LOBBY_STATUS_MOST`)."""
        main, status = self.query_one("#main"), self.status
        if main.size.height <= 0:
            return
        if self.board.view is None:
            most = LOBBY_STATUS_MOST
        else:
            need = len(self.board.plain.splitlines())
            room = main.outer_size.height + status.outer_size.height - need
            most = STATUS_MOST if room < 1 else min(STATUS_MOST, room)
        if self._status_most != most:
            self._status_most = most
            status.styles.max_height = most

    def _fit_racers(self) -> None:
        """In a short terminal, the racers panel gives up lines so that the ranking (and
        after the end the rematch) under it still shows."""
        side = self.query_one("#side")
        if side.size.height > 0:
            racers = self.query_one("#racers", RacersPanel)
            racers.fit(self.state, room_for(side, racers))

    def _tick(self) -> None:
        # Fitted after each redraw too, but that fit may read the panels' heights before a
        # layout has caught up with them (a loaded machine): checked again here, a cut
        # ranking row shows within a tick.
        self._fit_racers()
        if self.gone:
            self.query_one("#clock", ClockPanel).update(CLOCK_GONE)  # stopped: nothing counts here
            return
        self.status.follow_connection(self.client.reconnecting)
        self.query_one("#clock", ClockPanel).show(self.state, self.clock)
        self.query_one("#rematch", RematchPanel).show(self.state, self.clock)
        if self.state.status == "finished" and not self.state.day_over:
            self._notice_day_over()

    def _notice_day_over(self) -> None:
        """Once the day of the daily deal on screen is over, ``p`` would practise the new
        day's deal: it is no longer offered, and the ending note says how to play today's."""
        if not self.state.daily_day_over(self.clock.now()):
            return
        before = self._ending_note()
        self.state.day_over = True
        self.redraw()
        if self.status.last == before:
            self.status.say(self._ending_note())

    def redraw(self) -> None:
        """Bring every widget up to date with :attr:`state`."""
        self._seated = self._seated or self.state.me in self.state.racers
        if self.state.me in self.state.racers:
            self._seated_resumes = self.client.resumes
        view = self.state.view
        if view is not None:
            self.legal = legal_moves(view) if self.playing else []
            self.board.show(view, self.legal, hint=self.hinted_move)
            self._fit_side()
        else:
            self.legal = []
            if self.board.view is not None:
                self.board.reset()
        self.move_input.set_legal(self.legal)
        self._show_move_hints(self.move_input.value)
        self.redraw_side()
        self.move_input.disabled = not self.typing
        self.move_input.placeholder = self._field_placeholder()
        if self.typing and self.focused is None:
            self.move_input.focus()
        self._tick()
        keys = tuple(self.check_action(KEY_ACTIONS[key], ()) for key in ("u", "h", "r", "y", "p", "g"))
        keys += tuple(
            self.check_action(action, ())
            for action in ("toggle_ready", "unready", "give_up", "replay", "rejoin")
        )
        if keys != self._keys:
            self._keys = keys
            self.refresh_bindings()  # the footer shows the keys that apply now

    def _field_placeholder(self) -> str:
        """What the move field says it takes now: moves only while they can be played."""
        state = self.state
        if self.gone:
            return CUT_OFF_FIELD
        if state.status == "finished":
            if state.daily is not None:
                return AFTER_THE_DAY if state.day_over else AFTER_THE_DAILY
            return AFTER_THE_END
        if state.status == "cancelled":
            return CANCELLED_FIELD
        if self.seat_lost or (self._seated and state.me not in state.racers):
            return NO_MOVES_HERE
        if state.i_finished:
            return DONE_WAITING
        if state.status in ("open", "countdown"):
            return BEFORE_THE_START
        return playing_placeholder(state.hints, state.game)

    def redraw_side(self) -> None:
        """Bring the side panels up to date with :attr:`state` (the clock and the
        rematch follow it on their own)."""
        self.query_one("#race-info", RaceInfoPanel).show(self.state)
        self.query_one("#racers", RacersPanel).show(self.state)
        self.query_one("#ranking", RankingPanel).show(self.state)
        self.query_one("#daily", DailyPanel).show(self.state)
        self.call_after_refresh(self._fit_racers)

    def _show_move_hints(self, typed: str) -> None:
        self.query_one("#hints", MoveHints).show(self.legal, typed, self.playing)

    @property
    def playing(self) -> bool:
        """Whether this racer may still move."""
        state = self.state
        return state.status == "running" and not state.i_finished and not self.gone and not self.seat_lost

    @property
    def typing(self) -> bool:
        """Whether the move field takes anything: moves while playing, the rematch (or
        practice) commands once the race ended."""
        return self.playing or (self.state.status == "finished" and not self.gone)

    @property
    def in_lobby(self) -> bool:
        """Whether this racer sits in the race and it has not started (``r`` readies)."""
        state = self.state
        return state.status == "open" and state.me in state.racers and state.daily is None

    @property
    def hinted_move(self) -> str | None:
        """The last hint's move while the board is the one it was asked for."""
        hint = self.hint
        if hint is None or hint.race_id != self.race_id or hint.seq != self.state.seq or not self.playing:
            return None
        return hint.move

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Which one-key commands apply now (``False`` hides a key, ``None`` dims it)."""
        if self.gone and action in SERVER_ACTIONS:
            return False  # each would need the server
        if action == "undo":
            if not self.playing:
                return False
            return True if self.state.can_undo else None
        if action == "hint":
            return self.playing and self.state.hints
        if action in ("toggle_ready", "unready"):
            mine = self.state.racers.get(self.state.me or "")
            ready = mine is not None and mine.ready
            return self.in_lobby and ready == (action == "unready")
        if action == "enter_ready":
            return self.in_lobby
        if action == "rejoin":
            return self.seat_lost and self.state.status == "open"
        if action == "give_up":
            return self.playing
        if action == "replay":
            # (A daily's deal stays secret until its day is closed: its player replays it
            # from the server's boards till then.)
            return self.state.summary is not None
        if action == "offer_rematch":
            return self.state.can_offer_rematch
        if action == "answer_rematch":
            return self.state.rematch_asks_me
        if action == "practise":
            return (
                self.state.daily is not None and self.state.status == "finished" and not self.state.day_over
            )
        if action == "toggle_ghosts":
            return self.state.can_race_ghosts
        return True

    def to_board(self, direction: Direction) -> bool:
        """An arrow key from the move field: the board takes the focus, its cursor moved
        that way, while there is a move to pick on it."""
        if not self.playing or self.board.view is None:
            return False
        self.board.focus()
        self.board.action_cursor(direction)
        return True

    def dimmed_key(self, key: str) -> None:
        """A one-key command shown dimmed (or ``h`` in a race without hints) was pressed:
        say why it does not apply."""
        if key == "u":
            # The server's refusal says why (nothing to take back, a card a deal turned up).
            self.run_worker(self.play("undo"), group="moves", exit_on_error=False)
        elif key == "h":  # as the word does: the server says hints are off
            self.run_worker(self.ask_hint(), group="hints", exit_on_error=False)

    def command_key(self, key: str) -> bool | None:
        """Whether ``key`` is a one-key command that applies now: ``True``; ``None`` when
        it is shown but does not apply; ``False`` when it is not shown."""
        action = KEY_ACTIONS.get(key)
        if action is None:
            return False
        applies = self.check_action(action, ())
        if action == "hint" and applies is False and self.playing and not self.gone:
            # Not in the footer (hints are off in this race), yet no move starts with h:
            # pressed, it says why rather than begin a move that cannot be.
            return None
        return applies

    # ----- following the race -----------------------------------------------------

    async def _follow(self) -> None:
        daily = self.state.daily
        if daily is not None and daily.date is None:
            started = await self._start_daily(daily.game, daily.practice)
            if started is None:
                self.redraw()  # nothing to play: the status line says why
                return
            self._adopt_daily(started, daily.practice)
        try:
            await self._sync_clock()
            self.state.load(await self.client.get_race(self.race_id))
            if self.state.status == "finished":
                # Opened after the end: the results are not part of the race info.
                self.state.summary = await self.client.results(self.race_id)
                await self._find_place()
        except ArenaError as exc:
            self.status.say(
                f"cannot follow race {self.race_id}: {refusal_words(exc.code, exc.message)}", error=True
            )
            return
        except (ConnectionError, TimeoutError) as exc:
            self.status.say(f"cannot follow race {self.race_id}: {connection_trouble(exc)}", error=True)
            return
        self.redraw()
        opening = self._opening_note()
        self.status.say(f"{self.resumed}\n{opening}" if self.resumed else opening)
        await self._ready_if_full()
        async for event in self.client.events():
            if isinstance(event, Welcome):
                await self._back()
                continue
            if isinstance(event, RematchStarted):
                if event.race_id == self.race_id:
                    await self._follow_rematch(event.race)
                continue
            if isinstance(event, Ghost):
                # Only the racers panel changes; a burst of them comes when ghosts start late.
                if self.state.apply(event):
                    self.query_one("#racers", RacersPanel).show(self.state)
                continue
            # Who sat in the lobby before an update: to say who left, went away or came back.
            seated = dict(self.state.racers) if isinstance(event, RaceUpdate) else {}
            if not self.state.apply(event):
                continue
            self.redraw()
            if isinstance(event, RematchUpdate) and self.state.rematch is not None:
                self.status.say(rematch_note(self.state.rematch, self.state.me, rated=self.state.rated))
            elif isinstance(event, RaceEnded):
                await self._ended()
            elif isinstance(event, MoveAck):  # a move whose answer came after it timed out
                self.status.say(f"{self._ack_note(event)} (its answer came late)")
            elif self.state.status == "cancelled":
                self.status.say(f"race cancelled: {self.state.cancelled}", error=True)
            elif isinstance(event, RaceStarted) and not self.state.i_finished:
                if self._go_told != event.race_id:  # told already, when a read of the race found it started
                    self.status.say(self._go_note())
            elif isinstance(event, RaceUpdate) and self.state.status == "open":
                news = lobby_news(seated, self.state.racers, self.state.me)
                self.status.say(news + self._opening_note())  # who sits in the lobby now
                await self._ready_if_full()
            elif isinstance(event, RaceCountdown):  # the lobby's note (who is ready) is over
                self.status.say(self._opening_note())
        # The client gave up resuming the connection (or it was closed): nothing here can
        # reach the server again, so say how to come back rather than seem to go on.
        self.gone = True
        self.redraw()
        self.status.say(self._gone_note(), error=True)

    async def _ended(self) -> None:
        """The race ended (its results taken in :attr:`state`): say how."""
        await self._find_place()
        await self._ratings_after()
        self.state.day_over = self.state.daily_day_over(self.clock.now())
        self.redraw()
        self.status.say(self._ending_note())
        # Said at once; the board as it ended follows (it changes no word of it).
        await self._read_own_board()
        self.redraw()

    async def _back(self) -> None:
        """The SDK resumed a dropped connection: follow the race again. The status line
        says :data:`RECONNECTED` only in place of the notice of the drop: a note said since
        says more (a move's answer, the race's end, which may come before the welcome or
        after it), and a lobby keeps its own note (who sits, how others join)."""
        before, self._away = self.state.status, self.status.away_for()
        offer_before = self.state.rematch
        await self._resync()
        state, telling_drop = self.state, self.status.telling_drop
        if self.seat_lost:  # away longer than the race kept the seat
            self.redraw()
            self.status.say(self._opening_note(), error=True)
        elif state.status == "finished" and state.summary is None and await self._read_own_end():
            return
        elif self.in_lobby or (state.status != before and not state.over):
            # A lobby, or a race that began meanwhile: what it is now, as it opens.
            note = self._opening_note()
            self.status.say(f"{RECONNECTED}\n{note}" if telling_drop else note)
            await self._ready_if_full()
        elif state.over and state.rematch is not None and state.rematch != offer_before:
            # An offer made or answered while away: its events were missed, get_race told.
            note = rematch_note(state.rematch, state.me, rated=state.rated)
            self.status.say(f"{RECONNECTED}\n{note}" if telling_drop else note)
        elif telling_drop:
            self.status.say(RECONNECTED)  # a race's end still to come says more, after it
        await self._ghosts_again()

    async def _ghosts_again(self) -> None:
        """After a resume: ghosts raced before the drop are asked for again. Their progress
        came from a task on the node that served ``daily_ghosts`` (gone with a node that
        went down), and what it sent while the connection was down was lost."""
        state, race_id = self.state, self.race_id
        if not state.ghosts_on or not state.can_race_ghosts:
            return
        try:
            reply = await self.client.daily_ghosts(race_id, on=True)
        except (ArenaError, ConnectionError, TimeoutError):
            reply = None
        if state is not self.state or not state.ghosts_on:
            return  # the screen moved on, or g turned them off meanwhile
        if reply is None or not reply.ghosts:
            state.ghosts_on = False
            state.set_ghosts([])
            self.redraw()
            self.status.say("the ghosts were lost with the connection: g calls them again", error=True)
            return
        state.set_ghosts(reply.ghosts)
        self.redraw()

    async def _read_own_end(self) -> bool:
        """After a resume: the results of the race, which ended while away, taken as its end
        would have brought them (the welcome is followed by the end only of races the player
        was not told of: another device of theirs that followed the race then was told);
        whether they could be read."""
        race_id = self.race_id
        try:
            summary = await self.client.results(race_id)
        except (ArenaError, ConnectionError, TimeoutError):
            return False
        if race_id != self.race_id or not self.state.apply(RaceEnded(race_id=race_id, summary=summary)):
            return False
        self.redraw()
        await self._ended()
        return True

    @property
    def signed_out(self) -> str | None:
        """Why the player was signed out (the server's reason, in words) when that ended
        the connection for good; None otherwise."""
        ended = self.client.ended
        return ended.words if ended is not None and ended.signed_out else None

    @property
    def guest_gone(self) -> bool:
        """Whether the server no longer knows the player, a guest: no login brings it back."""
        ended = self.client.ended
        return ended is not None and ended.guest_gone

    def _gone_note(self) -> str:
        """What the status line says once the connection is lost for good: how to come back
        (after the move that waited for the connection, if one did: it was not sent)."""
        unsent = f"✗ {self.unsent} not sent: " if self.unsent else ""
        return unsent + self._way_back()

    def _way_back(self) -> str:
        """How to come back to this race once the connection is lost for good."""
        state, race_id, options = self.state, self.race_id, self.options()
        if self.guest_gone:
            return f"{self.signed_out}. ctrl+q, then solitaire-arena play{options} plays as a new guest"
        if self.signed_out is not None:
            return f"{self.signed_out}. ctrl+q, then {login_command(self.client.url)} signs you in again"
        then = ""
        if state.status == "finished":
            then = f"solitaire-arena replay {race_id}{options} plays the race back"
        elif state.status in ("countdown", "running") and (
            state.me in state.racers or state.daily is not None
        ):
            if state.i_finished:
                then = f"solitaire-arena replay {race_id}{options} once the race is over"
            else:
                run = "race" if state.daily is None else "daily run"
                then = f"solitaire-arena play{options} resumes the {run}"
        elif self.in_lobby:
            then = f"solitaire-arena play{options} reopens the lobby"
        if not then:
            return f"{GONE}: ctrl+q quits"
        return f"{GONE}: ctrl+q, then {then}"

    async def _ratings_after(self) -> None:
        """After a rated race: the new ratings with their provisional mark (the racers
        panel and the results show them)."""
        if not self.state.rated:
            return
        with contextlib.suppress(ArenaError, ConnectionError, TimeoutError):  # the results' ratings stand
            self.state.take_ratings(await self.client.get_race(self.race_id))

    async def _read_own_board(self) -> None:
        """The race read again for this player's board (a move on another session of
        theirs is not pushed here), which alone is taken: the race's status may be older
        than the events already taken. Unreadable, what is shown stands."""
        try:
            info = await self.client.get_race(self.race_id)
        except (ArenaError, ConnectionError, TimeoutError):
            return
        if info.board is not None:
            self.state.set_view(info.board.view, info.board.seq)

    async def _sync_clock(self) -> None:
        sent = local_ms()
        pong = await self.client.ping()
        self.clock = ServerClock.from_sample(pong.server_time, sent, local_ms())

    def _go_note(self) -> str:
        """The start, said on the status line: a daily attempt says which one, a rematch
        that closed the replay says so (once)."""
        self._go_told = self.race_id
        daily = self.state.daily
        if daily is not None:
            return f"{daily.label}, {daily.game} of {daily.date}: {GO}"
        closed, self._replay_closed = self._replay_closed, ""
        return f"{closed}\n{GO}" if closed else GO

    @property
    def seat_lost(self) -> bool:
        """Whether this racer lost their seat in the race before its start while their
        connection was down (the server frees the seat of a racer away too long): seated
        before a resume, seated no more since (the race may have started without them)."""
        state = self.state
        seated = self._seated and state.me in state.racers
        if not self._seated or seated or state.daily is not None or state.left_out:
            return False
        return self.client.resumes > self._seated_resumes and state.cancelled is None

    @property
    def left_elsewhere(self) -> bool:
        """Whether this racer sat in the race before its start and sits there no more:
        they left it on another session (the race may have been cancelled with it)."""
        state = self.state
        if not self._seated or state.me in state.racers or state.daily is not None:
            return False
        return state.status == "open" or (state.status == "cancelled" and state.cancelled is None)

    def _check_lobby(self) -> None:
        if self.in_lobby and not self.gone and not self.client.reconnecting:
            self.run_worker(self._recheck_lobby(), group="lobby", exclusive=True, exit_on_error=False)

    async def _recheck_lobby(self) -> None:
        """Read the lobby's race again: say so if this racer left it on another session."""
        race_id = self.race_id
        try:
            info = await self.client.get_race(race_id)
        except (ArenaError, ConnectionError, TimeoutError):
            return
        if race_id != self.race_id or self.state.status != "open":
            return  # moved on meanwhile: its events tell
        self.state.load(info)
        self.redraw()
        if self.left_elsewhere:
            self.status.say(self._opening_note())

    def _opening_note(self) -> str:
        state = self.state
        if state.left_out and state.me not in state.racers:
            return f"{LEFT_OUT}. ctrl+q quits"
        if self.seat_lost:
            return seat_lost_note(
                state.code or self.race_id, self._away, state.status, self.client.lobby_grace
            )
        if self.left_elsewhere:
            return left_elsewhere_note(state.code or self.race_id, cancelled=state.status == "cancelled")
        if state.over:
            return self._ending_note()
        if state.status == "running":
            return self._go_note()
        if state.status == "open" and state.code:
            ready = sum(racer.ready for racer in state.racers.values())
            seated = f"{len(state.racers)}/{state.seats} seated, {ready} ready"
            join = f"others join with: {self.join_command(state.code)}"
            mine = state.racers.get(state.me or "")
            if mine is None:
                you = "waiting for everyone to be ready"
            elif mine.ready:
                you = "you are ready (r: not ready); it starts once everyone seated is ready"
                if self._told_share_left_out:  # kept while ready: a lobby update redraws this note
                    join = f"{join}\n{SHARE_LEFT_OUT}"
            elif self.ready_when_full and len(state.racers) < state.seats:
                you = "press r (or Enter) when ready, or wait for every seat"
            else:
                you = "press r (or Enter) when ready"
            return f"{state.game} race {state.code}: {seated}; {you}\n{join}"
        if state.status == "countdown":
            code = f" {state.code}" if state.code else ""
            racing = f"{len(state.racers)} racing"
            return f"{state.game} race{code}: {racing}; the deal comes when the countdown ends"
        return f"{state.game} race: waiting for the start"

    def _ending_note(self) -> str:
        if self.state.cancelled:
            return f"race cancelled: {self.state.cancelled}"
        if self.state.daily is not None:
            return self._daily_note(self.state.daily)
        keys = "r rematch, ctrl+r replay, ctrl+q quit"
        summary = self.state.summary
        over = "race over (time ran out)" if summary is not None and time_ran_out(summary) else "race over"
        ranking = self.state.ranking()
        for rank, racer in ranking:
            if racer.player_id == self.state.me:
                tied = shares_rank(rank, [other for other, _racer in ranking])
                rating = ""
                if racer.rating is not None and racer.rating_change is not None:
                    rating = f", rating {rating_text(racer, True)} {change_words(racer.rating_change)}"
                placed = "" if tied else "placed "  # "you tied 1st of 2"
                return f"{over}: you {placed}{place_words(rank, len(ranking), tied)}{rating}. {keys}"
        return f"{over}. {keys}"

    def _daily_note(self, daily: DailyRun) -> str:
        """How a daily attempt ended: its result, and its place on the day's board."""
        mine = None
        if self.state.summary is not None:
            mine = next((s for s in self.state.summary.standings if s.player_id == self.state.me), None)
        result = "over"
        if mine is not None:
            result = run_ending_words(daily.game, mine)
        place = self.state.place
        if not daily.scored:
            where = "not on the board (practice)" if daily.practice else "not on the board (guest)"
        elif place is None:
            where = "not on the board yet"
        else:
            where = f"#{place.rank} of {self.state.board_total} on the {daily.game} board of {daily.date}"
        if self.state.day_over:
            return (
                f"daily over: {result}, {where}. {daily.date} is over too: {self._todays_daily(daily.game)}"
            )
        return f"daily over: {result}, {where}. p practice, ctrl+q quit"

    def _todays_daily(self, game: GameName) -> str:
        """How to play today's deal of ``game`` from the terminal (``p`` practises only the
        deal of the day it was played)."""
        return f"ctrl+q, then solitaire-arena daily {game}{self.options()} plays today's deal"

    async def _find_place(self) -> None:
        """After a scored daily attempt: its place on the day's board."""
        daily = self.state.daily
        if daily is None or not daily.scored or daily.date is None:
            return
        try:
            board = await self.client.daily_board(daily.game, date=daily.date, limit=1)
        except (ArenaError, ConnectionError, TimeoutError):
            return
        self.state.place, self.state.board_total = board.me, board.total

    async def _start_daily(self, game: GameName, practice: bool) -> DailyStarted | None:
        """Start today's ``game`` (``practice``: again, unscored); a refusal is shown."""
        self.status.say(f"starting today's {game}{' practice' if practice else ''}…")
        try:
            return await self.client.start_daily(game, practice=practice)
        except ArenaError as exc:
            self._say_refused("✗ daily", exc)
        except (ConnectionError, TimeoutError) as exc:
            self.status.say(f"✗ daily: {connection_trouble(exc)}", error=True)
        return None

    def _adopt_daily(self, started: DailyStarted, practice: bool) -> None:
        """Follow the daily attempt ``started`` (running already) from now on."""
        game = started.race.game
        self.race_id = started.race.race_id
        daily = DailyRun(game, started.date, scored=started.scored, practice=practice)
        self.state = RaceState(race_id=self.race_id, me=self.client.player_id, daily=daily)
        self.state.load(started.race)
        self.hint = None

    async def practise(self) -> None:
        """After a daily attempt: play the day's deal again, unscored, on this screen."""
        daily = self.state.daily
        if daily is None or self.state.status != "finished":
            self.status.say("practice is for a daily attempt that is over", error=True)
            return
        if self.state.day_over:
            self.status.say(f"{daily.date} is over: {self._todays_daily(daily.game)}", error=True)
            return
        started = await self._start_daily(daily.game, practice=True)
        if started is None:
            return
        self._adopt_daily(started, practice=True)
        self.board.reset()
        self.move_input.value = ""
        self.redraw()
        self.status.say(self._opening_note())

    async def _follow_rematch(self, race: RaceInfo) -> None:
        """A rematch of this race started with this racer seated: follow the new race."""
        old = self.race_id
        self.race_id = race.race_id
        self.state = RaceState(race_id=race.race_id, me=self.client.player_id)
        self.state.load(race)
        self.hint = None
        self.board.reset()
        self.move_input.value = ""
        self.redraw()
        # The replay of the race before may be open over this screen: the new race's clock
        # runs, so it comes to the front, saying why the replay went.
        closed = await self._to_front()
        self._replay_closed = f"replay of race {old} closed: your rematch started" if closed else ""
        counting = f"rematch of race {old}: {self.state.game} race {race.race_id}, counting down"
        self.status.say(f"{self._replay_closed}\n{counting}" if self._replay_closed else counting)
        # The session follows the new race already; in case its start went by unseen:
        await self._resync()
        if self.state.status == "running" and self._go_told != self.race_id:
            self.status.say(self._go_note())

    async def _to_front(self) -> bool:
        """Close every screen opened over this one (a replay); whether one was."""
        closed = False
        while self.app.screen is not self and len(self.app.screen_stack) > 1:
            await self.app.pop_screen()
            closed = True
        return closed

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
            if self._catching_up is not None:
                self._catching_up.cancel()  # this move's answer tells what is stored
                self._catching_up = None
            if self.client.reconnecting:
                self.status.move_waits(move)
            try:
                ack = await self.client.move(self.race_id, move)
            except ArenaError as exc:
                await self._refused(move, exc)
                return
            except ValidationError as exc:  # one the protocol cannot carry (a paste of many moves)
                self.status.say(f"✗ {clipped(move, MOVE_SHOWN)}: {validation_line(exc)}", error=True)
                return
            except (ConnectionError, TimeoutError) as exc:
                self.status.say(f"✗ {move}: {connection_trouble(exc)}; it is safe to retry", error=True)
                return
        if ack.race_id != self.race_id:
            return  # acked after the screen moved on to a rematch
        self.state.acked(ack)
        self.redraw()
        self.status.say(self._ack_note(ack))

    def _ack_note(self, ack: MoveAck) -> str:
        result = ack.result
        note = f"✓ {result.move}"
        if result.score_delta:
            note += f"  {result.score_delta:+d} (score {result.score})"
        if result.move == "undo":
            note = undo_note(result)
        if ack.finished:
            others = "" if self.state.daily is not None else " waiting for the others…"
            note = f"✓ {result.move}  you won in {ack.view.move_count} moves!{others}"
        return note

    async def _refused(self, move: str, exc: ArenaError) -> None:
        """Say why ``move`` was not played (the board read again when it may be out of date)."""
        if isinstance(exc, ConnectionLostError) and self.client.gave_up:
            self.unsent = move
            self.status.say(self._gone_note(), error=True)
            return
        what = "" if move == "undo" else "the move"
        self.status.say(f"✗ {move}: {cards_in_words(refusal_words(exc.code, exc.message, what))}", error=True)
        self._catch_up_if_lost(exc)
        if exc.code in RESYNC_CODES:
            await self._resync()
        if exc.code in OUT_OF_STEP_CODES:
            self.status.say(PLAYED_ELSEWHERE.format(move=move), error=True)
        if exc.code == FINISHED_CODE and not self.state.i_finished:
            self.state.gave_up()  # the screen shows them finished, as the server has it
            await self._read_own_board()
            self.redraw()

    def _say_refused(self, head: str, exc: ArenaError) -> None:
        """Say ``head: why`` on the status line, in a person's words."""
        self.status.say(f"{head}: {refusal_words(exc.code, exc.message)}", error=True)
        self._catch_up_if_lost(exc)

    def _catch_up_if_lost(self, exc: ArenaError) -> None:
        """After a refusal ``unavailable`` in a race: read it again once the server answers
        (:meth:`_catch_up`), which also says the server is back."""
        if isinstance(exc, UnavailableError) and self.race_id:
            self._catching_up = self.run_worker(
                self._catch_up(), group="catch-up", exclusive=True, exit_on_error=False
            )

    async def _catch_up(self) -> None:
        """Read the board again as soon as the server answers: a move it refused as
        ``unavailable`` may have been stored all the same, and the next move is played
        on the board as it is; any other refusal so is no longer said once it is back."""
        race_id = self.race_id
        while True:
            try:
                info = await self.client.get_race(race_id)
                break
            except UnavailableError:
                await asyncio.sleep(self.CATCH_UP_PAUSE)
            except (ArenaError, ConnectionError, TimeoutError):
                return
        if race_id != self.race_id:
            return  # moved on to a rematch meanwhile
        self.state.load(info)
        self.redraw()
        if self.state.status == "open":  # no board yet: the lobby as it is
            self.status.say(f"{LOBBY_STORE_BACK}\n{self._opening_note()}")
        else:
            self.status.say(STORE_BACK)

    async def _resync(self) -> None:
        try:
            self.state.load(await self.client.get_race(self.race_id))
        except (ArenaError, ConnectionError, TimeoutError):
            return
        self.redraw()

    async def submit(self, text: str) -> None:
        """What was typed in the move field: a command word, else a move."""
        command = TYPED_COMMANDS.get(text.strip().lower())
        if command in ("rematch", "accept", "decline") and not self.state.over:
            said = text.strip()
            self.status.say(
                f"✗ {said}: not a move; rematches are offered and answered once the race is over", error=True
            )
            return
        if command == "hint":
            await self.ask_hint()
        elif command == "rematch":
            await self.offer_rematch()
        elif command in ("accept", "decline"):
            await self.answer_rematch(command == "accept")
        elif command == "practice":
            await self.practise()
        elif command == "ghosts":
            await self.toggle_ghosts()
        else:
            await self.play(text)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        # The field emptied itself as Enter was pressed (MoveInput.action_submit): what it
        # holds now was typed since, the next move.
        self.run_worker(self.submit(event.value), group="moves", exit_on_error=False)

    def on_input_changed(self, event: Input.Changed) -> None:
        self._show_move_hints(event.value)

    def on_key(self, event: events.Key) -> None:
        # Typing while the board has the focus goes to the move input, except a one-key
        # command, which goes on to its binding.
        typed = event.character or ""
        if not (event.is_printable and typed.strip() and self.board.has_focus and self.typing):
            return
        applies = self.command_key(event.key)
        if not self.move_input.value and applies is True:
            self.move_input.expect_rest(COMMAND_WORDS[event.key])  # on to the binding
            return
        if not self.move_input.value and applies is None:
            self.move_input.expect_rest(COMMAND_WORDS[event.key])
            self.dimmed_key(event.key)
            event.stop()
            return
        self.move_input.focus()
        self.move_input.feed(typed)
        event.stop()

    def on_board_widget_move_chosen(self, event: BoardWidget.MoveChosen) -> None:
        self.run_worker(self.play(event.move), group="moves", exit_on_error=False)

    def on_board_widget_note(self, event: BoardWidget.Note) -> None:
        self.status.say(event.text)

    # ----- actions ------------------------------------------------------------------

    def action_clear(self) -> None:
        self.board.action_clear()
        self.move_input.value = ""

    def action_undo(self) -> None:
        self.run_worker(self.play("undo"), group="moves", exit_on_error=False)

    def action_hint(self) -> None:
        self.run_worker(self.ask_hint(), group="hints", exit_on_error=False)

    def action_offer_rematch(self) -> None:
        self.run_worker(self.offer_rematch(), group="rematch", exit_on_error=False)

    def action_answer_rematch(self, accept: bool) -> None:
        self.run_worker(self.answer_rematch(accept), group="rematch", exit_on_error=False)

    def action_practise(self) -> None:
        self.run_worker(self.practise(), group="daily", exit_on_error=False)

    def action_toggle_ghosts(self) -> None:
        self.run_worker(self.toggle_ghosts(), group="ghosts", exit_on_error=False)

    async def _asked(self, what: str, call: Awaitable[T]) -> T | None:
        """The reply to ``call``, or None after saying on the status line why there is none."""
        try:
            return await call
        except ArenaError as exc:
            self._say_refused(f"✗ {what}", exc)
        except (ConnectionError, TimeoutError) as exc:
            self.status.say(f"✗ {what}: {connection_trouble(exc)}", error=True)
        return None

    async def ask_hint(self) -> None:
        """Ask the server for a hint; it is shown and lit up until the board changes. Asked
        again before then, the hint shown is said again (the server would refuse a second
        one so soon, and its refusal would hide the hint's text)."""
        race_id = self.race_id
        if self.hint is not None and self.hint.move is not None and self.hint.seq == self.state.seq:
            self.status.say(f"hint: {self.hint.move}  (lit up on the board)")
            return
        self.status.say("looking for a hint…")
        hint = await self._asked("hint", self.client.hint(race_id))
        if hint is None or race_id != self.race_id:
            return
        if hint.move is None:
            why = hint.message or "no move is left"
            self.status.say(f"hint: {why} (ctrl+g gives up)")
            return
        elsewhere = hint.seq > self.state.seq
        if elsewhere:  # moves played on another session: the board as it is, then its hint
            await self._resync()
        if hint.seq != self.state.seq:
            self.status.say(f"hint for an earlier position ({hint.move}): press h again")
            return
        self.hint = hint
        self.redraw()
        where = "lit up on the board"
        if elsewhere:
            where = "lit up; the board was played on elsewhere: shown as it is now"
        self.status.say(f"hint: {hint.move}  ({where})")

    async def toggle_ghosts(self) -> None:
        """Race the day's best attempts as ghosts, or stop racing them."""
        state = self.state
        if not state.can_race_ghosts:
            self.status.say("ghosts race your own scored daily attempt, while it runs", error=True)
            return
        race_id, on = self.race_id, not state.ghosts_on
        # Events are taken from now on (one may come before the reply), and none once off.
        state.ghosts_on = on
        if not on:
            state.set_ghosts([])
            self.redraw()
        self.status.say("calling the ghosts…" if on else "ghosts off")
        reply = await self._asked("ghosts", self.client.daily_ghosts(race_id, on=on))
        if race_id != self.race_id or state is not self.state:
            return  # the screen moved on meanwhile
        if not on:
            return
        if reply is None or not reply.ghosts:
            state.ghosts_on = False
            state.set_ghosts([])
            self.redraw()
            if reply is not None:
                game = state.daily.game if state.daily is not None else "this"
                self.status.say(f"no ghosts yet: nobody has finished a scored {game} attempt today")
            return
        state.set_ghosts(reply.ghosts)
        self.redraw()
        self.status.say(ghosts_note(reply.ghosts))

    async def offer_rematch(self) -> None:
        rematch = await self._asked("rematch", self.client.offer_rematch(self.race_id))
        if rematch is not None:
            self._rematch_answered(rematch)

    async def answer_rematch(self, accept: bool) -> None:
        rematch = await self._asked("rematch", self.client.answer_rematch(self.race_id, accept))
        if rematch is not None:
            self._rematch_answered(rematch)

    def _rematch_answered(self, rematch: RematchInfo) -> None:
        if not self.state.take_rematch(rematch):
            return  # the rematch started meanwhile (the screen follows it), or an update came first
        self.redraw()
        self.status.say(rematch_note(rematch, self.state.me, rated=self.state.rated))

    def action_toggle_ready(self) -> None:
        self.run_worker(self.toggle_ready(), group="ready", exit_on_error=False)

    def action_unready(self) -> None:
        self.action_toggle_ready()

    def action_enter_ready(self) -> None:
        self.action_toggle_ready()

    async def toggle_ready(self) -> None:
        """In the lobby: say ready (or no longer ready). The race starts once at least two
        racers sit and all of them are ready."""
        mine = self.state.racers.get(self.state.me or "")
        if not self.in_lobby or mine is None:
            return
        await self._say_ready(not mine.ready)

    async def _say_ready(self, ready: bool, automatic: bool = False) -> None:
        """Say ready (or not); ``automatic``: not asked for by the racer, so a race whose
        countdown began meanwhile (its events say so) is no refusal to show."""
        try:
            await self.client.ready(self.race_id, ready)
        except ArenaError as exc:
            if not (automatic and exc.code == "race_not_open"):
                self._say_refused("✗ ready", exc)
            if exc.code in NOT_SEATED_CODES:
                await self._recheck_lobby()  # left elsewhere, say, which nothing told
            return
        except (ConnectionError, TimeoutError) as exc:
            self.status.say(f"✗ ready: {connection_trouble(exc)}", error=True)
            return
        mine = self.state.racers.get(self.state.me or "")
        if mine is not None and self.state.status == "open":
            self.state.racers[mine.player_id] = replace(mine, ready=ready)
            self.redraw()
            self.status.say(self._opening_note())
        if ready and mine is not None and mine.share_committed and self.client.share_of(self.race_id) is None:
            self._tell_share_left_out()

    def _tell_share_left_out(self) -> None:
        """Once: this racer got ready without the seed share they committed (on another
        device, or in a client that kept no copy), so the deal is mixed without it."""
        if self._told_share_left_out:
            return
        self._told_share_left_out = True
        if self.in_lobby:
            self.status.say(self._opening_note())  # which keeps it while this racer is ready
        else:  # the ready began the countdown
            self.status.say(f"{self.status.last}\n{SHARE_LEFT_OUT}")

    async def _ready_if_full(self) -> None:
        """Once every seat is taken, ready this racer (once: an unready later stays)."""
        state = self.state
        mine = state.racers.get(state.me or "")
        if not self.ready_when_full or self._readied_when_full or not self.in_lobby or mine is None:
            return
        if len(state.racers) >= state.seats:
            # Once, whoever readied: the racer who filled the last seat is ready already
            # (``play --join`` readies before the screen opens).
            self._readied_when_full = True
            if not mine.ready:
                await self._say_ready(True, automatic=True)

    def action_rejoin(self) -> None:
        self.run_worker(self._rejoin(), group="ready", exclusive=True, exit_on_error=False)

    async def _rejoin(self) -> None:
        """Sit in the race again, whose seat was lost while the connection was down."""
        code = self.state.code
        if not self.seat_lost or code is None:
            return
        self.status.say(f"joining race {code} again…")
        try:
            info = await self.client.join_race(code)
        except ArenaError as exc:
            self._say_refused(f"✗ join {code}", exc)
            await self._resync()  # started or cancelled meanwhile, say: r is offered no more
            return
        except (ConnectionError, TimeoutError) as exc:
            self.status.say(f"✗ join {code}: {connection_trouble(exc)}", error=True)
            return
        self.state.load(info)
        self._readied_when_full = False  # a new seat: readied once every seat is taken
        self.redraw()
        self.status.say(self._opening_note())
        await self._ready_if_full()

    async def leave_if_open(self) -> bool:
        """Leave the race if it has not started (the racer quit its lobby); whether it
        was left."""
        state = self.state
        if state.status != "open" or state.me not in state.racers or state.daily is not None:
            return False
        try:
            async with asyncio.timeout(LEAVE_PATIENCE):  # not the whole resume's wait
                await self.client.leave(self.race_id)
        except ArenaError:
            return False  # started or cancelled meanwhile: nothing left here
        except (ConnectionError, TimeoutError):
            self.leave_unsent = True
            return False
        return True

    def action_give_up(self) -> None:
        if self.state.over or self.state.i_finished:
            self.status.say("you are not playing any more")
            return
        # Giving up ends the race for good: the first press asks, a second within a few
        # seconds gives up.
        now = time.monotonic()
        if self._give_up_asked is None or now - self._give_up_asked > GIVE_UP_WINDOW:
            self._give_up_asked = now
            self.status.say(GIVE_UP_ASK)
            self.set_timer(GIVE_UP_WINDOW, self._give_up_lapsed)
            return
        self._give_up_asked = None
        # In a worker: an answer slow to come (a stalled connection) keeps no key waiting.
        self.run_worker(self._give_up(), group="give-up", exclusive=True, exit_on_error=False)

    async def _give_up(self) -> None:
        race_id = self.race_id
        if self.client.reconnecting:
            self.status.waits("you give up once it is back")
        try:
            await self.client.finish(race_id)
        except ArenaError as exc:
            if exc.code != FINISHED_CODE:  # else given up already: an earlier ctrl+g's answer was lost
                self._say_refused("cannot give up", exc)
                return
        except (ConnectionError, TimeoutError) as exc:
            self.status.say(f"cannot give up: {connection_trouble(exc)} (ctrl+g asks again)", error=True)
            return
        if race_id != self.race_id:
            return  # moved on meanwhile
        self.state.gave_up()
        await self._read_own_board()  # another session of the player may have moved
        self.redraw()
        if not self.state.over:  # else the end's note says how it went
            self.status.say(f"you gave up with score {self.state.view.score if self.state.view else 0}")

    def _give_up_lapsed(self) -> None:
        """The window of the last ask passed: the status line no longer asks for a second
        ctrl+g that would only ask again (unless it says something newer by now)."""
        asked = self._give_up_asked
        if asked is None or time.monotonic() - asked < GIVE_UP_WINDOW - 0.1:
            return  # given up, or asked again since
        self._give_up_asked = None
        if self.status.last == GIVE_UP_ASK and not self.state.over and not self.state.i_finished:
            self.status.say(GIVE_UP_LAPSED)

    def action_replay(self) -> None:
        if self.state.summary is None:
            self.status.say("the replay opens once the race is over")
            return
        # In a worker: an answer slow to come (a stalled connection) keeps no key waiting.
        self.run_worker(self._open_replay(), group="replay", exclusive=True, exit_on_error=False)

    async def _open_replay(self) -> None:
        race_id = self.race_id
        try:
            log = await self.client.move_log(race_id)
            if race_id != self.race_id or self.state.summary is None:
                return  # moved on to a rematch meanwhile
            names = {s.player_id: s.name for s in self.state.summary.standings}
            served = []
            if log.seed is None:  # one's own daily attempt before its day is closed: the server's views
                served = [await served_timeline(self.client, race_id, p) for p in names]
        except ArenaError as exc:
            self._say_refused("no replay", exc)
            return
        except (ConnectionError, TimeoutError) as exc:
            self.status.say(f"no replay: {connection_trouble(exc)} (ctrl+r asks again)", error=True)
            return
        started_at = self.state.summary.started_at
        screen = ReplayScreen(log, names, me=self.state.me, started_at=started_at, served=served)
        await self.app.push_screen(screen)


class RaceApp(App[None]):
    """Play ``race_id`` with an ``ArenaClient`` that already said hello; with ``daily``,
    a daily attempt (started as ``race_id``, or started by the screen when its ``date`` is
    None: ``RaceApp(client, daily=DailyRun("treize"))``)."""

    TITLE = "Solitaire Arena"
    #: The footer names the key that quits (it always applies), and offers no command
    #: palette: its commands (themes, screenshots) are none of a race's.
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+q", "quit", "quit", priority=True)]
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        client: ArenaClient,
        race_id: str = "",
        daily: DailyRun | None = None,
        ready_when_full: bool = False,
        join_command: Callable[[str], str] = default_join_command,
        options: Callable[[], str] = str,
        resumed: str = "",
    ) -> None:
        super().__init__()
        self.client = client
        self.race_id = race_id
        self.daily = daily
        self.ready_when_full = ready_when_full
        self.join_command = join_command
        #: Said first on the opening status line (:attr:`RaceScreen.resumed`).
        self.resumed = resumed
        #: What the commands of the parting note need to reach the same server as the same
        #: player (``" --server URL --name NAME"``, or ""), asked when the note is written.
        self.options = options
        self._race_screen: RaceScreen | None = None
        #: Whether quitting left the race's lobby (:meth:`leave_if_open`).
        self.left_lobby = False

    def get_default_screen(self) -> RaceScreen:
        self._race_screen = RaceScreen(
            self.client,
            self.race_id,
            self.daily,
            self.ready_when_full,
            join_command=self.join_command,
            resumed=self.resumed,
            options=self.options,
        )
        return self._race_screen

    async def leave_if_open(self) -> None:
        """After the app ended: leave the race if it had not started (the racer quit its
        lobby)."""
        if self._race_screen is not None:
            self.left_lobby = await self._race_screen.leave_if_open()

    def parting_note(self) -> str | None:
        """After the app ended, for the terminal: where the race the player quit is and
        how to come back to it, or to replay it (a daily run: now, or when its seed comes
        out, as the note is written), or that its lobby was left."""
        screen = self._race_screen
        if screen is None:
            return None
        state, race_id, options = screen.state, screen.race_id, self.options()
        if screen.signed_out is not None and state.status != "finished":
            return self._signed_out_note(screen)
        if state.left_out and state.me not in state.racers:
            return f"race {state.code or race_id}: {LEFT_OUT}"
        if screen.seat_lost and state.status == "open" and state.code:
            return (
                f"you lost your seat in race {state.code} while the connection was down: "
                f"{self.join_command(state.code)} joins it again"
            )
        if screen.leave_unsent and state.status == "open":
            grace = self.client.lobby_grace
            kept = f"{LOBBY_GRACE} s by default" if grace is None else f"{grace:g} s"
            return (
                f"you quit race {state.code or race_id}'s lobby while the server was out of reach: it frees "
                f"your seat once you have been away as long as it keeps one ({kept})"
            )
        if self.left_lobby:
            code = state.code or race_id
            if len(state.racers) <= 1:
                return f"you left race {code} before its start: nobody else sat in it, so it is cancelled"
            return f"you left race {code} before its start: the others sitting in it go on without you"
        if state.daily is not None:
            run = "practice" if state.daily.practice else "attempt"
            if state.status == "finished":
                return (
                    f"your {state.daily.game} daily {run} (race {race_id}) is over: solitaire-arena "
                    f"replay {race_id}{options} plays it back{_seed_comes(state.summary, screen.clock)}"
                )
            if state.status != "running" or state.i_finished:
                return None
            return (
                f"you left your {state.daily.game} daily {run} (race {race_id}) while it runs, and its "
                f"clock with it: solitaire-arena play{options} resumes it"
            )
        if state.status == "finished":
            return f"race {race_id} is over: solitaire-arena replay {race_id}{options} plays it back"
        if state.status in ("countdown", "running") and state.me in state.racers:
            if state.i_finished:
                return f"race {race_id} goes on: solitaire-arena replay {race_id}{options} once it is over"
            code = state.code or race_id  # as the screen named it
            return f"you left race {code} while it runs: solitaire-arena play{options} resumes it"
        return None

    def _signed_out_note(self, screen: RaceScreen) -> str:
        """The parting note of a player signed out before the race was over: log in
        again, and ``play`` (as the account logged in) comes back to it."""
        state, url = screen.state, self.client.url
        if screen.guest_gone:
            lost = f", and race {screen.race_id} with it" if state.status != "finished" else ""
            return f"{screen.signed_out}{lost}: solitaire-arena play{self.options()} plays as a new guest"
        login = login_command(url)
        where = "" if url is None else player_options(url)  # no --name: the account logs in
        if state.status in ("countdown", "running") and not state.i_finished:
            what = f"race {screen.race_id}"
            if state.daily is not None:
                run = "practice" if state.daily.practice else "attempt"
                what = f"your {state.daily.game} daily {run} ({what})"
            return (
                f"{screen.signed_out}, while {what} runs: {login} signs you in again, "
                f"then solitaire-arena play{where} resumes it"
            )
        return f"{screen.signed_out}: {login} signs you in again"

    @property
    def race_screen(self) -> RaceScreen:
        screen = self.screen_stack[0]
        assert isinstance(screen, RaceScreen)
        return screen

"""The watch screen: a race as a spectator sees it, every racer's board live.

One racer's board is drawn large (the focused racer); every other racer has a compact
card beside it: name (a bot's marked ``[bot]``), rating, score, cards left, last move,
and whether they finished or won, or their board is paused (in Treize and Eagle Wing,
held back for spectators until the other racers have turned up its cards: one short note
under the cards says what "paused" means, however many are, and the status line names
each as it starts and ends). Tab (or
shift+tab) and the keys 1-8 switch the large board between racers; ``q`` quits. The
title says which race, whether it is rated, ``featured`` when the screen follows the
featured race, and ``delayed 30 s`` when the race reaches its spectators late (a rated
race): the clock then runs that far behind too, with the boards. While the race counts
down there is no board to draw (nobody sees the deal before the start): a line says the
deal is shown when the race starts. Once the race ends the results show under the cards;
a featured watch then moves on to the next race by itself (the server's unasked
``watching``), keeping those results in view ("Last race's results") until the next
race starts.

The screen keeps a :class:`client.watching.WatchedRace` up to date from the client's
events in a worker, as the race screen follows its race.
"""

from __future__ import annotations

from typing import ClassVar, Final

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from client.columns import clipped_name, fewest_columns, padded, split_to_fit, width
from client.errors import ArenaError
from client.sdk import ArenaClient
from client.suggestions import login_command
from client.tui.board import BoardArea, BoardWidget
from client.tui.clock import ServerClock, format_remaining, local_ms
from client.tui.panels import TAIL_NAME_MIN, bar_width_in, progress_bar, room_for, spectators_text
from client.tui.race import StatusLine, connection_trouble
from client.tui.too_small import TooSmallNotice
from client.watching import CARDS, FEATURED_NONE, WatchedRace, ended_unseen, standing_rating
from client.wording import (
    DEAL_AT_START,
    PAUSED,
    PAUSED_NOTE,
    change_words,
    refusal_words,
    result_words,
    standing_words,
    time_ran_out,
)
from shared.protocol import (
    ErrorCode,
    RaceEnded,
    RaceStarted,
    RaceSummary,
    Replay,
    Spectators,
    WatchHeld,
    Watching,
    Welcome,
)

#: The title of the results a featured watch keeps once it moved on (short enough for a
#: narrowed side panel, so that it reads the same in every terminal).
LAST_RESULTS: Final = "Last race's results"
#: Racers the number keys reach (1-8); tab reaches every one.
NUMBER_KEYS = 8
#: The side panel's width, how narrow it gets so that a board fits beside it in an
#: 80-column terminal, and its padding.
SIDE_WIDTH: Final = 36
SIDE_MIN_WIDTH: Final = 22
_SIDE_PADDING: Final = 2


def racer_order(watched: WatchedRace) -> list[str]:
    """The racers in their seat order, then anyone else with a board."""
    seated = [r.player_id for r in watched.race.racers] if watched.race else []
    return list(dict.fromkeys([*seated, *watched.boards]))


def title_text(watched: WatchedRace) -> str:
    """The race watched, what kind it is, and how it is followed.

    >>> from shared.protocol import LiveRace
    >>> race = LiveRace(race_id="r1", game="treize", status="running", rated=True, racers=[])
    >>> title_text(WatchedRace(Watching(race=race, featured=True, delay_ms=30_000)))
    'Watching race r1  treize  rated  featured  delayed 30 s'
    >>> title_text(WatchedRace(Watching(featured=True)))
    'Watching the featured race'
    """
    race = watched.race
    parts = ["Watching the featured race"]  # no race yet: "featured" is said once
    if race is not None:
        parts = [f"Watching race {race.race_id}", race.game, "rated" if race.rated else "casual"]
        if watched.featured:
            parts.append("featured")
    if watched.delay_ms > 0:
        parts.append(f"delayed {watched.delay_ms / 1000:g} s")
    return "  ".join(parts)


def watch_clock_text(watched: WatchedRace, clock: ServerClock) -> str:
    """The race clock as the spectator sees the race: ``delay_ms`` behind the server's
    clock, as the boards are."""
    race = watched.race
    if race is None:
        return "waiting for a race"
    if watched.cancelled:
        return "race cancelled"
    if watched.summary is not None or race.status == "finished":
        return "race over"
    shown_at = clock.now() - watched.delay_ms
    if race.status == "countdown" and race.starts_at is not None and race.starts_at > shown_at:
        return f"starts in {format_remaining(race.starts_at - shown_at)}"
    if race.ends_at is not None:
        return f"⏱ {format_remaining(race.ends_at - shown_at)} left"
    return race.status


def _state_of(watched: WatchedRace, player_id: str) -> str:
    board = watched.boards.get(player_id)
    if board is not None and board.won:
        return "won"
    if board is not None and board.finished:
        return "gave up"
    if board is not None and board.held:
        return "paused"  # why: in the one note under the cards (held_text)
    return ""


#: How a racer's state (:func:`_state_of`) is drawn.
_STATE_STYLES: Final = {"won": "bold green", "paused": "bold yellow"}


def held_text(watched: WatchedRace) -> str:
    """One note, whichever and however many racers' boards are held back for spectators,
    saying what ``paused`` on their cards means; nothing when none is. (The status line
    names each racer as their board is held.)

    >>> from shared.protocol import LiveRace, RacerInfo, SpectatorBoard
    >>> racers = [RacerInfo(player_id="p_a", name="ada"), RacerInfo(player_id="p_b", name="bob")]
    >>> race = LiveRace(race_id="r1", game="treize", status="running", rated=False, racers=racers)
    >>> boards = [SpectatorBoard(player_id="p_a", seq=3, held=True), SpectatorBoard(player_id="p_b", seq=1)]
    >>> held_text(WatchedRace(Watching(race=race, boards=boards)))
    'paused: shows cards others have not turned up yet'
    >>> held_text(WatchedRace(Watching(race=race, boards=boards[1:])))
    ''
    """
    return PAUSED_NOTE if any(board.held for board in watched.boards.values()) else ""


#: The most columns a racer's name takes over the large board (a longer one is cut).
FOCUS_NAME_COLUMNS: Final = 24
#: After a bot's name, as the race screen marks it.
BOT_MARK: Final = " [bot]"


def shown_name(watched: WatchedRace, player_id: str, columns: int) -> str:
    """A racer's name in at most ``columns`` terminal columns (cut where longer), a bot's
    with :data:`BOT_MARK` after it.

    >>> from shared.protocol import LiveRace, RacerInfo
    >>> racers = [RacerInfo(player_id="p_b", name="bot-search-1", bot=True)]
    >>> watched = WatchedRace(Watching(race=LiveRace(race_id="r1", game="treize",
    ...                                              status="running", rated=False, racers=racers)))
    >>> shown_name(watched, "p_b", 24), shown_name(watched, "p_b", 12)
    ('bot-search-1 [bot]', 'bot-s… [bot]')
    """
    mark = BOT_MARK if watched.is_bot(player_id) else ""
    return clipped_name(watched.name(player_id), max(columns - len(mark), 1)) + mark


def focus_text(watched: WatchedRace, player_id: str, number: int) -> Text:
    """The two lines over the large board: whose it is (``number`` of how many; a name
    cut to :data:`FOCUS_NAME_COLUMNS` terminal columns), and how they stand."""
    order = racer_order(watched)
    name = clipped_name(watched.name(player_id), FOCUS_NAME_COLUMNS) + (
        BOT_MARK if watched.is_bot(player_id) else ""
    )
    text = Text(f"{number}/{len(order)} {name} {watched.rating(player_id)}".rstrip(), style="bold")
    state = _state_of(watched, player_id)
    if state:
        text.append(f"  {state}", style=_STATE_STYLES.get(state, ""))
    score, moves = watched.counts(player_id)
    text.append(f"\nscore {score}  {CARDS - score} left  moves {moves}")
    text.append(f"  last {watched.last_move.get(player_id, '-')}")
    return text


def card_name_columns(watched: WatchedRace, columns: int) -> int:
    """The terminal columns every racer's card pads (and cuts) their name to, so that the
    ratings after the names line up: the widest name's, or fewer where a card's first
    line (number, name, rating) would pass ``columns``.

    >>> from shared.protocol import LiveRace, RacerInfo
    >>> racers = [RacerInfo(player_id="p_a", name="ada", rating=1612),
    ...           RacerInfo(player_id="p_l", name="李小龍", rating=1500, provisional=True)]
    >>> watched = WatchedRace(Watching(race=LiveRace(race_id="r1", game="treize",
    ...                                              status="running", rated=True, racers=racers)))
    >>> card_name_columns(watched, 34), card_name_columns(watched, 12)
    (6, 3)
    """
    order = racer_order(watched)
    number = len(f"{len(order)} ")
    ratings = max((len(f"  {rating}") for player in order if (rating := watched.rating(player))), default=0)
    names = max((width(shown_name(watched, player, columns)) for player in order), default=0)
    return min(names, max(columns - number - ratings, 1))


def card_text(
    watched: WatchedRace, player_id: str, number: int, columns: int = SIDE_WIDTH - _SIDE_PADDING
) -> Text:
    """A racer's compact card in ``columns``: number and name (padded alike on every card,
    :func:`card_name_columns`), rating, a bar of cards played, score and cards left, moves,
    the last move (on a line of its own where it does not fit), and whether they finished
    or won (after the rating, or under it where it does not fit)."""
    text = Text()
    rating = watched.rating(player_id)
    state = _state_of(watched, player_id)
    pad = card_name_columns(watched, columns)
    head = f"{number} {padded(shown_name(watched, player_id, pad), pad)}"
    shown_rating = f"  {rating}" if rating else ""
    text.append(head, style="bold")
    text.append(shown_rating)
    if state:
        fits = width(f"{head}{shown_rating}  {state}") <= columns
        text.append("  " if fits else "\n  ")
        text.append(state, style=_STATE_STYLES.get(state, ""))
    text.rstrip()
    text.append("\n")
    score, moves = watched.counts(player_id)
    text.append(
        progress_bar(CARDS - score, bar_width_in(columns)), style="green" if state == "won" else "cyan"
    )
    text.append(f" {CARDS - score:>2} left\n")
    last = watched.last_move.get(player_id, "-")
    counts = split_to_fit(f"score {score:>2}  moves {moves:>3}", f"last {last}", columns, gap="  ", indent="")
    text.append("\n".join(counts), style="dim")
    return text


def results_text(
    summary: RaceSummary, columns: int = SIDE_WIDTH - _SIDE_PADDING, title: str = "Results"
) -> Text:
    """The results under ``title``, best first, with each racer's new rating after a rated race and
    whether they gave up (each on a line of its own, to keep to a narrow panel); in
    ``columns``. A long name is cut, as the race screen's ranking cuts it: shorter, down
    to :data:`TAIL_NAME_MIN` columns, for its result to stay on its line, else to the
    line's width with the result under it.

    >>> from shared.protocol import Standing
    >>> def standing(rank, name):
    ...     return Standing(rank=rank, player_id=name, name=name, won=False, score=0, move_count=0)
    >>> summary = RaceSummary(race_id="r1", game="eight-off", started_at=0, ended_at=1, commitment="c",
    ...     standings=[standing(1, "bob"), standing(2, "filler-with-long-name-00")])
    >>> print(results_text(summary, 21))
    Results
    1. bob   0 cards home
    2. fill… 0 cards home
    >>> twins = summary.model_copy(update={"standings": [standing(1, "alice"), standing(2, "alice (2)")]})
    >>> print(results_text(twins, 21))  # the number that tells them apart is never cut
    Results
    1. alice 0 cards home
    2. alice (2)
       0 cards home
    >>> print(results_text(summary, 17))
    Results
    1. bob
       0 cards home
    2. filler-with-l…
       0 cards home
    """
    text = Text(f"{title}\n", style="bold")
    results = [result_words(summary.game, s.won, s.score, s.time_ms) for s in summary.standings]
    # Names padded alike, so that the results line up: to 12, or less for the results to fit.
    pad = max(0, min(12, columns - len("1.  ") - max(map(len, results), default=0)))
    for standing, result in zip(summary.standings, results, strict=True):
        place = f"{standing.rank}. "
        room = columns - len(place)
        if room - width(f" {result}") >= fewest_columns(standing.name, TAIL_NAME_MIN):
            room -= width(f" {result}")  # the name cut shorter: the result stays on its line
        head = f"{place}{padded(clipped_name(standing.name, room), min(pad, room))}"
        text.append("\n".join(split_to_fit(head, result, columns)) + "\n")
        if standing.gave_up:
            text.append("   gave up\n", style="dim")
        if standing.rating is not None and standing.rating_change is not None:
            rating = f"{standing_rating(standing)} {change_words(standing.rating_change)}"
            text.append(f"   rating {rating}\n", style="dim")
    text.rstrip()
    return text


def winner_text(summary: RaceSummary | None) -> str:
    """Who came first, to follow "race over" (nothing without results).

    >>> from shared.protocol import Standing
    >>> ada = Standing(rank=1, player_id="p_a", name="ada", won=True, score=52, move_count=80,
    ...                time_ms=95012)
    >>> summary = RaceSummary(race_id="r1", game="treize", started_at=0, ended_at=1,
    ...                       commitment="c", standings=[ada])
    >>> winner_text(summary), winner_text(None)
    (': ada won in 95.0 s', '')
    >>> winner_text(summary.model_copy(update={"standings": [
    ...     ada.model_copy(update={"won": False, "score": 9, "time_ms": None})]}))
    ': ada first with 9 cards removed'
    >>> winner_text(summary.model_copy(update={"standings": [
    ...     ada.model_copy(update={"won": False, "score": 9, "time_ms": None, "gave_up": True})]}))
    ': ada first, gave up with 9 cards removed'
    """
    if summary is None or not summary.standings:
        return ""
    first = summary.standings[0]
    result = standing_words(summary.game, first)
    if first.won:
        return f": {first.name} {result}"
    return f": {first.name} first, {result}" if first.gave_up else f": {first.name} first with {result}"


class RacerCard(Static):
    """One racer who is not on the large board."""

    DEFAULT_CSS = "RacerCard { height: auto; border-top: solid $primary; }"

    def __init__(self, player_id: str) -> None:
        super().__init__()
        self.player_id = player_id


class WatchScreen(Screen[None]):
    """Watches a race (``watching``, the reply to ``ArenaClient.watch``); with ``target``
    None it follows the featured race, and the next one whenever it ends."""

    DEFAULT_CSS = """
    #watch-title { height: 1; background: $panel; padding: 0 1; text-style: bold; }
    #watch-main { height: 1fr; }
    #watch-left { width: 1fr; }
    #watch-focus { height: auto; padding: 0 1; }
    #watch-board-area { height: 1fr; }
    #watch-deal { height: auto; padding: 1 1; color: $text-muted; }
    #watch-side { width: 36; padding: 0 1; }
    #watch-clock { height: 1; text-style: bold; }
    #watch-spectators { height: 1; color: $text-muted; }
    #watch-cards { height: auto; scrollbar-size-vertical: 1; }
    #watch-held { height: auto; border-top: solid $warning; text-style: bold; }
    #watch-results { height: auto; border-top: solid $primary; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "next_racer(1)", "next racer"),
        Binding("shift+tab", "next_racer(-1)", "previous racer", show=False),
        *(Binding(str(n), f"racer({n})", f"racer {n}", show=False) for n in range(1, NUMBER_KEYS + 1)),
        Binding("q", "quit_watch", "quit"),
    ]

    def __init__(self, client: ArenaClient, watching: Watching, target: str | None = None) -> None:
        super().__init__()
        self.client = client
        #: The race asked for: None for the featured race.
        self.target = target
        self.watched = WatchedRace(watching)
        self.clock = ServerClock()
        #: The racer on the large board.
        self.shown_racer: str | None = None
        self.cards: dict[str, RacerCard] = {}
        self._side_width = SIDE_WIDTH
        #: A featured watch that moved on: the results of the race before, kept in view
        #: until the next race starts.
        self.last_results: RaceSummary | None = None

    def compose(self) -> ComposeResult:
        yield TooSmallNotice(id="too-small")
        yield Static(id="watch-title")
        with Horizontal(id="watch-main"):
            with Vertical(id="watch-left"):
                yield Static(id="watch-focus")
                with BoardArea(id="watch-board-area"):
                    yield Static(DEAL_AT_START, id="watch-deal")
                    yield BoardWidget(id="watch-board", interactive=False)
            with Vertical(id="watch-side"):
                yield Static(id="watch-clock")
                yield Static(id="watch-spectators")
                yield VerticalScroll(id="watch-cards", can_focus=False)
                yield Static(id="watch-held")
                yield Static(id="watch-results")
        yield StatusLine("", id="watch-status")
        yield Footer()

    # ----- widgets ----------------------------------------------------------------

    @property
    def board(self) -> BoardWidget:
        return self.query_one("#watch-board", BoardWidget)

    @property
    def status(self) -> StatusLine:
        return self.query_one("#watch-status", StatusLine)

    @property
    def order(self) -> list[str]:
        return racer_order(self.watched)

    def on_mount(self) -> None:
        self.query_one(TooSmallNotice).fit(self.app.size)
        self.set_interval(0.25, self._tick)
        self.redraw()
        self.status.say(self._opening_note())
        self.run_worker(self._follow(), name="follow", group="watch", exit_on_error=False)

    def on_resize(self, event: events.Resize) -> None:
        self.query_one(TooSmallNotice).fit(self.app.size)
        self.call_after_refresh(self._fit_side)

    def _fit_side(self) -> None:
        """Narrow the side panel (down to :data:`SIDE_MIN_WIDTH`) while the large board
        would not fit beside it; keep the results under the cards in sight. Between two
        featured races (no board) the panel keeps its width, as the board its size."""
        width = self._side_width
        view = self.board.view
        if view is not None:
            area = self.query_one("#watch-board-area", BoardArea)
            row = self.query_one("#watch-main").size.width
            width = area.width_beside(row, view.game, SIDE_WIDTH, SIDE_MIN_WIDTH)
        if width != self._side_width:
            self._side_width = width
            self.query_one("#watch-side").styles.width = width
            self.redraw()
        self.call_after_refresh(self._fit_cards)

    def _fit_cards(self) -> None:
        """The cards scroll rather than push the results out of the side panel."""
        side = self.query_one("#watch-side")
        cards = self.query_one("#watch-cards", VerticalScroll)
        if side.size.height > 0:
            cards.styles.max_height = max(room_for(side, cards), 1)

    @property
    def side_columns(self) -> int:
        return self._side_width - _SIDE_PADDING

    def _tick(self) -> None:
        self.status.follow_connection(self.client.reconnecting)
        self.query_one("#watch-clock", Static).update(watch_clock_text(self.watched, self.clock))

    def redraw(self) -> None:
        """Bring every widget up to date with :attr:`watched`."""
        watched = self.watched
        order = self.order
        if self.shown_racer not in order:
            self.shown_racer = order[0] if order else None
        self.query_one("#watch-title", Static).update(title_text(watched))
        spectators = spectators_text(watched.spectators) if watched.race is not None else ""
        self.query_one("#watch-spectators", Static).update(spectators)
        self._draw_focus()
        self._draw_cards(order)
        note = held_text(watched)
        held = self.query_one("#watch-held", Static)
        held.update(note)
        held.display = bool(note)
        results = self.query_one("#watch-results", Static)
        results.display = watched.summary is not None or self.last_results is not None
        if watched.summary is not None:
            results.update(results_text(watched.summary, self.side_columns))
        elif self.last_results is not None:
            results.update(results_text(self.last_results, self.side_columns, LAST_RESULTS))
        self._tick()
        self.call_after_refresh(self._fit_side)

    def _draw_focus(self) -> None:
        focus = self.query_one("#watch-focus", Static)
        player = self.shown_racer
        board = self.watched.boards.get(player) if player is not None else None
        if player is None:
            focus.update("")
        else:
            focus.update(focus_text(self.watched, player, self.order.index(player) + 1))
        # During the countdown the boards have no view: the waiting line stands in for them.
        self.query_one("#watch-deal", Static).display = self.watched.deal_hidden
        if board is not None and board.view is not None:
            self.board.show(board.view)
        elif self.board.view is not None:
            self.board.reset()

    def _draw_cards(self, order: list[str]) -> None:
        """A card for every racer, the focused one's hidden (it is on the large board)."""
        holder = self.query_one("#watch-cards", VerticalScroll)
        if list(self.cards) != order:
            holder.remove_children()
            self.cards = {player: RacerCard(player) for player in order}
            holder.mount_all(self.cards.values())
        for number, (player, card) in enumerate(self.cards.items(), start=1):
            card.display = player != self.shown_racer
            # One column for the cards' scrollbar, there once they outgrow the side panel.
            card.update(card_text(self.watched, player, number, self.side_columns - 1))

    # ----- following the race -----------------------------------------------------

    async def _follow(self) -> None:
        await self._sync_clock()
        self._tick()
        async for event in self.client.events():
            if isinstance(event, Welcome):
                # The SDK resumed a dropped connection: watch again, from a fresh snapshot.
                await self._watch_again()
                continue
            before, results = self.watched.race_id, self.watched.summary
            if not self.watched.apply(event):
                continue
            if isinstance(event, Watching) and results is not None and self.watched.race_id != before:
                self.last_results = results
            started = self.watched.race is not None and not self.watched.deal_hidden
            if isinstance(event, (Watching, RaceStarted)) and started:
                self.last_results = None  # the next race started
            self.redraw()
            lines = self.watched.describe(event)
            if isinstance(event, Watching):
                self.status.say(self._moved_on_note(before, results))
            elif isinstance(event, RaceEnded):
                self.status.say(self._ending_note())
            elif isinstance(event, WatchHeld) and event.held:  # why: in the note under the cards
                self.status.say(f"{self.watched.name(event.player_id)}'s board is {PAUSED}")
            elif lines and not isinstance(event, Spectators):  # the side panel has the count
                self.status.say(lines[0])
        self.status.say(self._closed_note(), error=True)

    def _closed_note(self) -> str:
        """What the status line says once the connection ended for good."""
        ended = self.client.ended
        if ended is None or not ended.signed_out:
            return "connection closed"
        if ended.guest_gone:
            return f"{ended.words}. q, then the same command watches again"
        login = login_command(self.client.url)
        return f"{ended.words}. q, then {login} signs you in again"

    async def _sync_clock(self) -> None:
        sent = local_ms()
        try:
            pong = await self.client.ping()
        except (ArenaError, ConnectionError, TimeoutError):
            return
        self.clock = ServerClock.from_sample(pong.server_time, sent, local_ms())

    async def _watch_again(self) -> None:
        try:
            watching = await self.client.watch(self.target)
        except ArenaError as exc:
            if exc.code == ErrorCode.RACE_OVER and await self._catch_up_on_the_end():
                return
            why = refusal_words(exc.code, exc.message)
            self.status.say(f"reconnected, but cannot watch again: {why}", error=True)
            return
        except (ConnectionError, TimeoutError) as exc:
            self.status.say(f"reconnected, but cannot watch again: {connection_trouble(exc)}", error=True)
            return
        before, ended = self.watched.race_id, await ended_unseen(self.client, self.watched, watching)
        self.watched.reset(watching)
        if ended is not None:  # as if it had ended in sight: its results stay until the next start
            started = self.watched.race is not None and not self.watched.deal_hidden
            self.last_results = None if started else ended
        self.redraw()
        if ended is None:
            self.status.say("reconnected")
            return
        self.status.say(f"reconnected: the race ended meanwhile; {self._moved_on_note(before, ended)}")

    async def _catch_up_on_the_end(self) -> bool:
        """The race ended while the connection was down: show its results and each racer's
        last board, as a spectator who stayed would have seen them. False when they
        cannot be read either."""
        race_id = self.watched.race_id
        if race_id is None:
            return False
        try:
            summary = await self.client.results(race_id)
            finals = [await self._last_board(race_id, s.player_id, s.move_count) for s in summary.standings]
        except (ArenaError, ConnectionError, TimeoutError):
            return False
        self.watched.ended_away(summary, finals)
        self.redraw()
        self.status.say(f"reconnected: the race ended meanwhile; {self._ending_note()}")
        return True

    async def _last_board(self, race_id: str, player_id: str, guess: int) -> Replay:
        """The page of a racer's replay holding their last board (``guess``: its index as
        far as the results tell; asked again where the replay says otherwise)."""
        page = await self.client.replay(race_id, player_id, offset=guess, limit=1)
        if page.offset != page.total - 1:
            page = await self.client.replay(race_id, player_id, offset=page.total - 1, limit=1)
        return page

    def _opening_note(self) -> str:
        if self.watched.race is None:
            return f"{FEATURED_NONE}. q quits"
        count = len(self.order)
        keys = f"tab or 1-{min(count, NUMBER_KEYS)} switches the large board" if count > 1 else ""
        return "; ".join(part for part in (keys, "q quits") if part)

    def _ending_note(self) -> str:
        summary = self.watched.summary
        over = "race over (time ran out)" if summary is not None and time_ran_out(summary) else "race over"
        note = f"{over}{winner_text(summary)}"
        if self.watched.featured:
            return f"{note}; the next featured race follows. q quits"
        return f"{note}. q quits"

    def _moved_on_note(self, before: str | None, results: RaceSummary | None) -> str:
        """A featured watch moved on from race ``before`` (which ended with ``results``)."""
        race = self.watched.race
        ended = f"race {before} over{winner_text(results)}; " if before is not None else ""
        if race is None:
            return f"{ended}featured: waiting for the next race to start"
        return f"{ended}now watching race {race.race_id} ({race.game}), featured"

    # ----- actions ----------------------------------------------------------------

    def action_next_racer(self, delta: int) -> None:
        order = self.order
        if not order:
            return
        index = order.index(self.shown_racer) if self.shown_racer in order else 0
        self.shown_racer = order[(index + delta) % len(order)]
        self.redraw()

    def action_racer(self, number: int) -> None:
        order = self.order
        if not 1 <= number <= len(order):
            self.status.say(f"no racer {number}: this race has {len(order)}", error=True)
            return
        self.shown_racer = order[number - 1]
        self.redraw()

    def action_quit_watch(self) -> None:
        self.app.exit()


class WatchApp(App[None]):
    """Watch a race with an ``ArenaClient`` that already said hello and got ``watching``
    (``ArenaClient.watch``'s reply): ``target`` is the race asked for, None for the
    featured one."""

    TITLE = "Solitaire Arena — watching"

    def __init__(self, client: ArenaClient, watching: Watching, target: str | None = None) -> None:
        super().__init__()
        self.client = client
        self.watching = watching
        self.target = target

    def get_default_screen(self) -> WatchScreen:
        return WatchScreen(self.client, self.watching, self.target)

    @property
    def watch_screen(self) -> WatchScreen:
        screen = self.screen_stack[0]
        assert isinstance(screen, WatchScreen)
        return screen

"""The side panels of the race screen: the race, rated or casual (or a daily attempt),
its hint setting and how many people watch it, clock, racers' progress and ratings (and
a daily attempt's ghosts), ranking or results (with the new ratings after a rated race),
and a rematch once the race ended (for a daily attempt, its place on the day's board
instead)."""

from __future__ import annotations

from itertools import combinations

from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from client.columns import clipped, clipped_name, fewest_columns, padded, split_to_fit, width
from client.tui.clock import ServerClock, format_remaining
from client.tui.race_state import CARDS, GHOSTS_SHOWN, GhostRacer, Racer, RaceState, rematch_note
from client.wording import change_words, seconds_words, standing_words

BAR_WIDTH = 16
#: The columns a racer's counts line takes with how they ended on it, at most: a panel
#: narrower than this puts the flag by the name.
WIDE_COUNTS = len("  score 99  moves 999  gave up")
#: The columns a side panel has inside its padding when it is as wide as it gets.
SIDE_COLUMNS = 32
#: The fewest columns a name is cut to in the ranking (and the racers panel) for its result
#: (``gave up``) to stay on its line; past that the result goes under it (beside the bar).
TAIL_NAME_MIN = 5
#: Where an account starts in a game it has no rating in yet (Glicko-2), provisional.
START_RATING = 1500


def room_for(column: Widget, flexible: Widget) -> int:
    """The lines ``column`` has left for its child ``flexible`` once its other children
    shown take theirs."""
    others = sum(
        child.outer_size.height for child in column.children if child is not flexible and child.display
    )
    return column.content_size.height - others


def bar_width_in(columns: int) -> int:
    """How wide a progress bar is drawn in a panel of ``columns``, with a racer's
    `` 52 left`` after it.

    >>> bar_width_in(32), bar_width_in(20)
    (16, 12)
    """
    return min(BAR_WIDTH, columns - len(" 52 left"))


def progress_bar(cards_left: int, width: int = BAR_WIDTH) -> str:
    """Cards played as a bar: ``█`` for done, ``░`` for left.

    >>> progress_bar(52, 4), progress_bar(26, 4), progress_bar(0, 4)
    ('░░░░', '██░░', '████')
    """
    done = max(0, min(CARDS, CARDS - cards_left))
    filled = round(width * done / CARDS)
    return "█" * filled + "░" * (width - filled)


def clock_text(state: RaceState, clock: ServerClock) -> str:
    """What the clock says for the race now."""
    if state.status == "cancelled":
        return "race cancelled"
    if state.over:
        return "race over"
    if state.left_out and state.me not in state.racers:
        return "started without you"  # its lobby's clock would otherwise wait on for good
    if state.status in ("open",):
        return "waiting for racers"
    if state.status == "countdown" and state.starts_at is not None and clock.until(state.starts_at) > 0:
        return f"starts in {format_remaining(clock.until(state.starts_at))}"
    if state.status == "countdown":
        # Past its start time yet not started (the server was away): a late start gets the
        # whole time limit, so no time runs down meanwhile.
        return "starting…"
    if state.ends_at is not None:
        return f"⏱ {format_remaining(clock.until(state.ends_at))} left"
    return state.status


def _flag(racer: Racer) -> str:
    """How a racer who is done ended: a racer finished without a win gave up (as the
    results say it).

    >>> _flag(Racer("p_a", "ada", finished=True, won=True)), _flag(Racer("p_b", "bob", finished=True))
    ('won', 'gave up')
    """
    if racer.won:
        return "won"
    if racer.finished:
        return "gave up"
    return ""


def lobby_flag(racer: Racer) -> str:
    """How a racer stands in the lobby: ``away`` while they have no connection (ready or
    not: they may not be back), else ``ready`` once they said so.

    >>> lobby_flag(Racer("p_a", "ada", ready=True)), lobby_flag(Racer("p_b", "bob", ready=True, away=True))
    ('ready', 'away')
    """
    if racer.away:
        return "away"
    return "ready" if racer.ready else ""


def rating_text(racer: Racer, rated: bool) -> str:
    """A racer's rating as shown beside their name: ``1612``, or ``1500?`` while it is
    provisional; in a rated race, an account without one yet starts at 1500 (provisional).
    Empty for a guest.

    >>> rating_text(Racer("p_a", "ada", rating=1612), rated=False)
    '1612'
    >>> rating_text(Racer("p_a", "ada", rating=1662, provisional=True), rated=True)
    '1662?'
    >>> rating_text(Racer("p_a", "ada"), rated=True), rating_text(Racer("p_a", "ada"), rated=False)
    ('1500?', '')
    """
    if racer.rating is not None:
        return f"{racer.rating}{'?' if racer.provisional else ''}"
    return f"{START_RATING}?" if rated else ""


def race_text(state: RaceState, columns: int = SIDE_COLUMNS) -> str:
    """The game, the race's code, whether it is rated, and its hint setting; for a daily
    attempt its day and whether it is scored. In fewer ``columns`` than a line takes, the
    same in short lines (:func:`short_race_text`).

    >>> state = RaceState(race_id="r1", me="p_a", game="treize", code="K7QX2M", hints=True)
    >>> print(race_text(state))
    treize  race K7QX2M
    Casual: no ratings change
    hints on: h shows one
    >>> state.hints, state.rated = False, True
    >>> race_text(state).splitlines()[1:]
    ['Rated: ratings change at the end', 'hints off in this race']

    Once people watch the race, a line says how many:

    >>> state.spectators = 3
    >>> race_text(state).splitlines()[-1]
    '3 spectators watching'
    >>> state.spectators = 1
    >>> race_text(state).splitlines()[-1]
    '1 spectator watching'
    >>> from client.tui.race_state import DailyRun
    >>> state.daily = DailyRun("treize", "2027-03-14", scored=True)
    >>> print(race_text(state))
    treize  daily 2027-03-14
    Daily — scored attempt
    hints off in this attempt
    """
    text = _full_race_text(state)
    if max(len(line) for line in text.splitlines()) > columns:
        return short_race_text(state)
    return text


def _full_race_text(state: RaceState) -> str:
    daily = state.daily
    if daily is not None:
        if daily.date is None:  # not started (or refused)
            return f"{daily.game}  daily\n{daily.label}"
        hints = "hints on: h shows one" if state.hints else "hints off in this attempt"
        return f"{daily.game}  daily {daily.date}\n{daily.label}\n{hints}"
    first = f"{state.game or 'race'}  race {state.code}" if state.code else state.game or "race"
    kind = "Rated: ratings change at the end" if state.rated else "Casual: no ratings change"
    hints = "hints on: h shows one" if state.hints else "hints off in this race"
    text = f"{first}\n{kind}\n{hints}"
    if state.spectators > 0:
        text += f"\n{spectators_text(state.spectators)} watching"
    return text


def short_race_text(state: RaceState) -> str:
    """What :func:`race_text` says, in lines of 20 columns at most (the side panel beside
    a board in an 80-column terminal).

    >>> state = RaceState(race_id="r1", me="p_a", game="eagle-wing", code="K7QX2M", hints=True)
    >>> print(short_race_text(state))
    eagle-wing  K7QX2M
    Casual, h for hints
    >>> state.rated, state.hints, state.spectators = True, False, 12
    >>> short_race_text(state).splitlines()[1:]
    ['Rated, hints off', '12 spectators']
    >>> from client.tui.race_state import DailyRun
    >>> state.daily = DailyRun("eagle-wing", "2027-03-14", practice=True)
    >>> print(short_race_text(state))
    daily 2027-03-14
    eagle-wing, practice
    hints off
    """
    hints = "h for hints" if state.hints else "hints off"
    daily = state.daily
    if daily is not None:
        if daily.date is None:
            return f"{daily.game}  daily\n{daily.label}"
        kind = "practice" if daily.practice else "scored" if daily.scored else "guest"
        return f"daily {daily.date}\n{daily.game}, {kind}\n{hints}"
    first = f"{state.game or 'race'}  {state.code}" if state.code else state.game or "race"
    text = f"{first}\n{'Rated' if state.rated else 'Casual'}, {hints}"
    if state.spectators > 0:
        text += f"\n{spectators_text(state.spectators)}"
    return text


def spectators_text(count: int) -> str:
    """How many people watch a race.

    >>> spectators_text(0), spectators_text(1), spectators_text(14)
    ('no spectators', '1 spectator', '14 spectators')
    """
    if count <= 0:
        return "no spectators"
    return f"{count} spectator{'' if count == 1 else 's'}"


class RaceInfoPanel(Static):
    DEFAULT_CSS = "RaceInfoPanel { height: auto; color: $text-muted; }"

    #: The columns the panel has (fewer in a narrowed side panel).
    columns: int = SIDE_COLUMNS

    def show(self, state: RaceState) -> None:
        self.update(race_text(state, self.columns))


class ClockPanel(Static):
    DEFAULT_CSS = "ClockPanel { height: 1; text-style: bold; }"

    def show(self, state: RaceState, clock: ServerClock) -> None:
        self.update(clock_text(state, clock))


def ghost_lines(
    ghost: GhostRacer,
    bar_width: int = BAR_WIDTH,
    name_columns: int | None = None,
    columns: int = SIDE_COLUMNS,
) -> tuple[str, str, str]:
    """A ghost's rows in the racers panel: its name (padded and cut to ``name_columns``,
    counted in terminal columns; None: as it is), marked a ghost (with its place on the
    day's board), a bar of its cards played and cards left, its moves and how it ended.

    >>> ghost = GhostRacer("p_z", "zoe", rank=1, elapsed_ms=4000, score=3, cards_left=49, move_count=2)
    >>> ghost_lines(ghost)
    ('zoe  ghost #1', '█░░░░░░░░░░░░░░░ 49 left', '  moves   2')
    >>> from dataclasses import replace
    >>> ghost_lines(replace(ghost, elapsed_ms=95012, score=52, cards_left=0, move_count=80,
    ...                     finished=True, won=True))[1:]
    ('████████████████  0 left', '  moves  80  won in 95.0 s')
    >>> ghost_lines(replace(ghost, rank=0, finished=True))[::2]
    ('zoe  ghost', '  moves   2  finished')

    A ghost whose attempt was given up says so once its replay reaches the end:

    >>> quitter = replace(ghost, gave_up=True)
    >>> ghost_lines(quitter)[2], ghost_lines(replace(quitter, finished=True))[2]
    ('  moves   2', '  moves   2  gave up')
    >>> ghost_lines(ghost, name_columns=6)[0], ghost_lines(replace(ghost, name="李小龍李"), name_columns=6)[0]
    ('zoe     ghost #1', '李小…   ghost #1')

    With a shorter bar (a narrowed panel: 20 columns), how it ended goes up by the name,
    or where the name would not keep :data:`TAIL_NAME_MIN` columns there, on its bar's
    line in place of its cards left:

    >>> ghost_lines(replace(ghost, cards_left=0, move_count=80, finished=True, won=True), bar_width=12)
    ('zoe  ghost #1  won', '████████████  0 left', 'moves  80')
    >>> ghost_lines(replace(ghost, finished=True), bar_width=12)[0]
    'zoe  ghost #1  done'
    >>> ghost_lines(replace(ghost, name="alice", finished=True, gave_up=True), 12, columns=20)[:2]
    ('alice  ghost #1', '█░░░░░░░░░░░ gave up')
    """
    name = ghost.name if name_columns is None else padded(clipped(ghost.name, name_columns), name_columns)
    mark = "  ghost" + (f" #{ghost.rank}" if ghost.rank else "")
    if bar_width < BAR_WIDTH:
        ended = [_ghost_end(ghost)]
        head, bar = fitted_rows(name, mark, ended, ghost.cards_left, bar_width, columns, least=width(name))
        return head, bar, f"moves {ghost.move_count:>3}"
    end = ""
    if ghost.won:
        end = f"  won in {seconds_words(ghost.elapsed_ms)} s"
    elif ghost.finished:
        end = "  gave up" if ghost.gave_up else "  finished"
    bar = f"{progress_bar(ghost.cards_left, bar_width)} {ghost.cards_left:>2} left"
    return f"{name}{mark}", bar, f"  moves {ghost.move_count:>3}{end}"


def _ghost_end(ghost: GhostRacer) -> str:
    """How a ghost ended, in a narrowed panel: won, gave up, or done (its time ran out)."""
    if ghost.won:
        return "won"
    if ghost.finished:
        return "gave up" if ghost.gave_up else "done"
    return ""


def ghosts_lines(
    ghosts: list[GhostRacer], bar_width: int = BAR_WIDTH, columns: int = SIDE_COLUMNS
) -> list[tuple[str, str, str]]:
    """Every ghost's rows (:func:`ghost_lines`), their names padded alike in terminal
    columns so that the marks after them line up, and cut where a row would pass
    ``columns``.

    >>> ghosts = [GhostRacer("p_z", "zoe", rank=1), GhostRacer("p_l", "李小龍", rank=2)]
    >>> [rows[0] + "|" for rows in ghosts_lines(ghosts)]
    ['zoe     ghost #1|', '李小龍  ghost #2|']
    >>> [rows[0] + "|" for rows in ghosts_lines(ghosts, bar_width=12, columns=15)]
    ['zoe    ghost #1|', '李小…  ghost #2|']
    """
    marks = max((len(f"  ghost #{ghost.rank}") for ghost in ghosts), default=0)
    names = min(max((width(ghost.name) for ghost in ghosts), default=0), max(columns - marks, 1))
    return [ghost_lines(ghost, bar_width, names, columns) for ghost in ghosts]


#: The fewest columns of a progress bar that has how a racer ended (or their rating)
#: after it in place of their cards left.
BAR_MIN = 4


def fitted_rows(
    name: str,
    marks: str,
    parts: list[str],
    cards_left: int,
    bar_width: int,
    columns: int,
    least: int = TAIL_NAME_MIN,
) -> tuple[str, str]:
    """A racer's (or a ghost's) first two rows in the racers panel, each kept to
    ``columns``: the name with its ``marks`` (`` (you)``, ``  ghost #1``) and ``parts``
    (rating, how they ended), then a bar of cards played and cards left. The name is cut
    for the parts to fit, down to ``least`` columns; where that would cut it shorter,
    parts go to the bar's line in place of the cards left (the bar shorter if need be):
    as few as keep the name whole (the later ones first), else as few as keep it
    ``least`` columns.

    >>> fitted_rows("alice", " (you)", ["1500?"], 51, 12, 20)
    ('alice (you)  1500?', '░░░░░░░░░░░░ 51 left')
    >>> fitted_rows("alice", " (you)", ["1500?", "gave up"], 51, 12, 20)
    ('alice (you)  1500?', '░░░░░░░░░░░░ gave up')
    >>> fitted_rows("bob_rated", "", ["1662? +162", "gave up"], 51, 12, 20)
    ('bob_rated  gave up', '░░░░░░░░░ 1662? +162')
    >>> fitted_rows("filler-with-long-name-00", "", ["1500?", "gave up"], 51, 12, 20)
    ('filler-with-…  1500?', '░░░░░░░░░░░░ gave up')
    """
    parts = [part for part in parts if part]
    choices = []  # (head, bar line, the columns the name keeps), the parts kept first
    for kept in range(len(parts), -1, -1):
        for chosen in combinations(range(len(parts)), kept):
            rest = marks + "".join(f"  {parts[i]}" for i in chosen)
            moved = " ".join(part for i, part in enumerate(parts) if i not in chosen)
            after = moved or f"{cards_left:>2} left"
            bar = min(bar_width, columns - 1 - width(after))
            if moved and bar < BAR_MIN:
                continue
            room = max(1, columns - width(rest))
            choices.append(
                (f"{clipped_name(name, room)}{rest}", f"{progress_bar(cards_left, bar)} {after}", room)
            )
    enough = fewest_columns(name, least)
    if choices[0][2] < enough:
        whole = [choice for choice in choices if choice[2] >= width(name)]
        fair = [choice for choice in choices if choice[2] >= enough]
        return (whole or fair or choices)[0][:2]
    return choices[0][:2]


def racer_head(racer: Racer, state: RaceState, flag: str, columns: int) -> str:
    """A racer's first line in the racers panel: name (``(you)``, ``[bot]``), rating and
    ``flag``, the name cut for the line to keep to ``columns`` (:func:`racer_rows`).

    >>> state = RaceState(race_id="r1", me="p_i")
    >>> racer_head(Racer("p_i", "Ivy Verylongname-Player"), state, "", 20)
    'Ivy Verylongn… (you)'
    >>> racer_head(Racer("p_h", "Hank", rating=1612), state, "gave up", 20)
    'Hank  1612  gave up'
    """
    return racer_rows(racer, state, flag, columns)[0]


def rating_change(racer: Racer, state: RaceState) -> int | None:
    """The change a rated race's end made to ``racer``'s rating (None: none yet), as its
    results say (the racer's row reads the new rating from the race once it ended).

    >>> from shared.protocol import RaceSummary, Standing
    >>> state = RaceState(race_id="r1", me="p_a", rated=True)
    >>> rating_change(Racer("p_a", "ada", rating=1662), state) is None
    True
    >>> state.summary = RaceSummary(race_id="r1", game="treize", seed=1, started_at=0, ended_at=1,
    ...     commitment="c", standings=[Standing(rank=1, player_id="p_a", name="ada", score=52,
    ...     won=True, move_count=80, rating=1662, rating_change=162)])
    >>> rating_change(Racer("p_a", "ada", rating=1662), state)
    162
    """
    if racer.rating_change is not None or state.summary is None:
        return racer.rating_change
    return next((s.rating_change for s in state.summary.standings if s.player_id == racer.player_id), None)


def racer_rows(
    racer: Racer, state: RaceState, flag: str, columns: int, bar_width: int = BAR_WIDTH
) -> tuple[str, str]:
    """A racer's first two rows in the racers panel (:func:`fitted_rows`): name
    (``(you)``, ``[bot]``), rating (after a rated race, with its change) and ``flag``,
    then their progress bar.

    >>> state = RaceState(race_id="r1", me="p_a", rated=True)
    >>> racer_rows(Racer("p_a", "alice", finished=True, cards_left=51), state, "gave up", 20, 12)
    ('alice (you)  1500?', '░░░░░░░░░░░░ gave up')

    After a rated race, the new rating and its change:

    >>> alice = Racer("p_a", "alice", cards_left=51, rating=1662, provisional=True, rating_change=162)
    >>> racer_rows(alice, state, "", 32)[0]
    'alice (you)  1662? +162'
    >>> racer_rows(alice, state, "gave up", 20, 12)
    ('alice (you)  gave up', '░░░░░░░░░ 1662? +162')
    """
    marks = f"{' (you)' if racer.player_id == state.me else ''}{' [bot]' if racer.bot else ''}"
    rating = rating_text(racer, state.rated)
    change = rating_change(racer, state)
    if rating and change is not None:  # a rated race's end: the new rating, and by how much
        rating += f" {change_words(change)}"
    return fitted_rows(racer.name, marks, [rating, flag], racer.cards_left, bar_width, columns)


def _append_bar(text: Text, line: str, style: str) -> None:
    """A bar's line (:func:`fitted_rows`) added to ``text``, the bar in ``style``."""
    after = line.lstrip("█░")
    text.append(line[: len(line) - len(after)], style=style)
    text.append(after + "\n")


#: Lines a racer takes in the racers panel: name, bar, score and moves; where the side
#: panel is short, name and bar only (the ranking under it has the scores).
FULL_ROWS = 3
SHORT_ROWS = 2


class RacersPanel(Static):
    """Every racer's name and rating, and progress: a bar of cards played, cards left,
    score, moves; while a daily attempt races ghosts, up to three ghost rows under them."""

    DEFAULT_CSS = "RacersPanel { height: auto; border-top: solid $primary; }"

    #: How wide a racer's progress bar is drawn, and the columns the panel has (fewer in
    #: a narrowed side panel).
    bar_width: int = BAR_WIDTH
    columns: int = SIDE_COLUMNS
    #: Lines per racer (and ghost): :data:`FULL_ROWS` or :data:`SHORT_ROWS`.
    rows: int = FULL_ROWS
    #: The lines the panel is cut to (None: all of them).
    _limit: int | None = None

    def show(self, state: RaceState) -> None:
        text = Text()
        racers = list(state.racers.values())
        if self._limit is not None:  # cut short: the player's own row goes first, never cut
            racers.sort(key=lambda racer: racer.player_id != state.me)
        for racer in racers:
            self._add_racer(text, racer, state)
        ghosts = self._ghosts(state)
        rows = ghosts_lines(ghosts, self.bar_width, self.columns)
        for ghost, (name, bar, moves) in zip(ghosts, rows, strict=True):
            text.append(name + "\n", style="italic")
            _append_bar(text, bar, "green" if ghost.won else "magenta")
            if self.rows == FULL_ROWS:
                text.append(moves + "\n", style="dim")
        text.rstrip()
        self.update(text)

    def lines(self, state: RaceState, rows: int) -> int:
        """The lines the panel takes with ``rows`` per racer, its border included."""
        return 1 + rows * (len(state.racers) + len(self._ghosts(state)))

    def fit(self, state: RaceState, room: int) -> None:
        """Keep to ``room`` lines: short rows if the full ones do not fit, and past that
        the racers at the end are cut (the player's own row moved first, and always
        kept), so that the panels under this one still show."""
        rows = FULL_ROWS if self.lines(state, FULL_ROWS) <= room else SHORT_ROWS
        limit = None
        if self.lines(state, rows) > room:
            # Whole racers only, and never fewer than one: the player's own row stays.
            limit = 1 + rows * max(1, (room - 1) // rows)
        if (rows, limit) == (self.rows, self._limit):
            return
        self.rows, self._limit = rows, limit
        self.styles.max_height = limit
        self.show(state)

    @staticmethod
    def _ghosts(state: RaceState) -> list[GhostRacer]:
        return list(state.ghosts.values())[:GHOSTS_SHOWN] if state.ghosts_on else []

    def _add_racer(self, text: Text, racer: Racer, state: RaceState) -> None:
        me = racer.player_id == state.me
        flag = _flag(racer) or (lobby_flag(racer) if state.status == "open" else "")
        # A narrowed panel (an 80-column terminal) has 20 to 27 columns: the flag goes up
        # by the name, and the counts keep to them.
        narrow = self.bar_width < BAR_WIDTH or self.columns < WIDE_COUNTS
        head, bar = racer_rows(racer, state, flag if narrow else "", self.columns, self.bar_width)
        text.append(head + "\n", style="bold" if me else "")
        _append_bar(text, bar, "green" if racer.won else "cyan")
        if self.rows != FULL_ROWS:
            return
        lead, gap = ("", " ") if narrow else ("  ", "  ")
        counts = f"{lead}score {racer.score:>2}{gap}moves {racer.move_count:>3}{gap}{'' if narrow else flag}"
        text.append(counts.rstrip() + "\n", style="dim")


def name_columns(names: list[str], tails: list[str], pad: int, room: int) -> int:
    """The one width every name in the ranking is padded and cut to, so that the scores
    after them line up: the longest name's (at least ``pad``), within the ``room`` a name
    has before its score; and where a result follows a score (``won 95.0s``, ``gave up``),
    narrower, down to :data:`TAIL_NAME_MIN`, for the longest result to stay on its line.

    >>> name_columns(["Ivy Verylongname-Player", "Hank the Tank"], ["", ""], 12, 14)
    14
    >>> name_columns(["ada", "bob"], ["", ""], 12, 26), name_columns(["ada", "filler-with-long"], [], 12, 26)
    (12, 16)
    >>> name_columns(["filler-with-long-name-00", "eve"], ["gave up", "gave up"], 12, 14)
    5
    >>> name_columns(["filler-with-long-name-00", "eve"], ["won 101.5s", ""], 12, 14)  # under it
    14
    """
    columns = min(max([pad, *map(width, names)]), room)
    longest_tail = max(map(len, tails), default=0)
    beside = room - len("  ") - longest_tail  # for a name, the longest result on its line
    if longest_tail and beside >= TAIL_NAME_MIN:
        columns = min(columns, beside)
    return max(1, columns)


def ranked_name(name: str, columns: int) -> str:
    """A name in the ranking, padded and cut (with an ellipsis) to ``columns``
    (:func:`name_columns`).

    >>> ranked_name("ada", 6) + "|", ranked_name("filler-with-long-name-0", 14) + "|"
    ('ada   |', 'filler-with-l…|')
    """
    return padded(clipped_name(name, columns), columns)


class RankingPanel(Static):
    """The seats in order: live during the race, the results once it ended (after a rated
    race, each racer's new rating and its change under their line)."""

    DEFAULT_CSS = "RankingPanel { height: auto; border-top: solid $primary; }"

    #: The columns the panel has (fewer in a narrowed side panel).
    columns: int = SIDE_COLUMNS

    def show(self, state: RaceState) -> None:
        title = "Results" if state.summary is not None else "Ranking"
        if state.daily is not None:  # a race of one: its place is on the day's board, or none
            title = "Your practice" if state.daily.practice else "Your attempt"
        text = Text(f"{title}\n", style="bold")
        times, gave_up = {}, set()
        if state.summary is not None:
            times = {s.player_id: s.time_ms for s in state.summary.standings}
            gave_up = {s.player_id for s in state.summary.standings if s.gave_up}
        ranking = state.ranking()
        tails = []
        for _rank, racer in ranking:
            time_ms = times.get(racer.player_id)
            # Where a winner has the time of the win, a racer who gave up says so.
            tail = "gave up" if racer.player_id in gave_up else ""
            if racer.won:
                tail = f"won {seconds_words(time_ms)}s" if time_ms is not None else "won"
            tails.append(tail)
        place_width, pad = (0, 15) if state.daily is not None else (len("1. "), 12)
        room = self.columns - place_width - len(" 52")
        names = name_columns([racer.name for _rank, racer in ranking], tails, pad, room)
        for (rank, racer), tail in zip(ranking, tails, strict=True):
            place = "" if state.daily is not None else f"{rank}. "
            line = f"{place}{ranked_name(racer.name, names)} {racer.score:>2}"
            lines = split_to_fit(line, tail, self.columns, gap="  ") if tail else [line]
            text.append("\n".join(lines) + "\n", style="bold" if racer.player_id == state.me else "")
            if racer.rating is not None and racer.rating_change is not None:
                text.append(
                    f"   rating {rating_text(racer, True)} {change_words(racer.rating_change)}\n", style="dim"
                )
        text.rstrip()
        self.update(text)


def answer_lines(name: str, marks: str, answer: str, columns: int) -> list[str]:
    """A racer's answer to a rematch offer in ``columns``: name (and ``marks``: `` (you)``)
    padded to 16 columns, or fewer for the longest answer (``accepted``) to fit, the
    name cut down to :data:`TAIL_NAME_MIN` columns; past that, one's own row says only
    ``you`` (its answer kept in sight on a short terminal), another's answer goes under it.

    >>> answer_lines("bob", "", "accepted", 32), answer_lines("bob", "", "accepted", 20)
    (['  bob              accepted'], ['  bob       accepted'])
    >>> answer_lines("alice_with_a_long_name", "", "accepted", 20)
    ['  alice_wi… accepted']
    >>> answer_lines("alice_with_a_long_name", " (you)", "offered", 21)
    ['  you        offered']
    >>> answer_lines("alice_with_a_long_name", "", "offered", 14)
    ['  alice_with_…', '    offered']
    """
    pad = min(16, columns - len("   accepted"))  # the longest answer: all line up
    room = pad - width(marks)
    if room >= fewest_columns(name, TAIL_NAME_MIN):
        return [f"  {padded(clipped_name(name, room) + marks, pad)} {answer}"]
    if marks and pad >= len("you"):
        return [f"  {padded('you', pad)} {answer}"]
    return [f"  {clipped_name(name, columns - 2 - width(marks))}{marks}", f"    {answer}"]


class RematchPanel(Static):
    """After the end: how to offer a rematch, or the offer and everyone's answer."""

    DEFAULT_CSS = "RematchPanel { height: auto; border-top: solid $primary; }"

    #: The columns the panel has (fewer in a narrowed side panel).
    columns: int = SIDE_COLUMNS

    def show(self, state: RaceState, clock: ServerClock) -> None:
        self.display = state.status == "finished" and state.daily is None
        if not self.display:
            return
        text = Text("Rematch\n", style="bold")
        rematch = state.rematch
        if rematch is None:
            self.update(text.append("r offers one: same racers, new deal"))
            return
        # A name cut so that no word is wider than the panel ("name's", "name:").
        text.append(rematch_note(rematch, state.me, most=self.columns - len("'s"), rated=state.rated) + "\n")
        for racer in rematch.racers:
            marks = " (you)" if racer.player_id == state.me else ""
            lines = answer_lines(racer.name, marks, racer.answer, self.columns)
            text.append("\n".join(lines) + "\n", style="dim")
        if rematch.status == "open":
            text.append(f"  {format_remaining(clock.until(rematch.expires_at))} to answer\n", style="dim")
        elif state.can_offer_rematch:
            text.append("r offers another\n")
        text.rstrip()
        self.update(text)


def daily_text(state: RaceState, columns: int = SIDE_COLUMNS) -> str:
    """After a daily attempt: its place on the day's board, and how to play it again (the
    result under the place when both do not fit in ``columns``).

    >>> from client.tui.race_state import DailyRun
    >>> from shared.protocol import DailyEntry
    >>> state = RaceState(race_id="r1", me="p_a", status="finished",
    ...                   daily=DailyRun("treize", "2027-03-14", scored=True))
    >>> state.place = DailyEntry(rank=2, player_id="p_a", name="ada", won=True, score=52,
    ...                          time_ms=101654)
    >>> state.board_total = 14
    >>> print(daily_text(state))
    Board of 2027-03-14
    #2 of 14: won in 101.6 s
    p practises the deal (unscored)
    >>> state.place = state.place.model_copy(update={"won": False, "score": 30, "time_ms": None,
    ...                                              "gave_up": True})
    >>> print(daily_text(state))
    Board of 2027-03-14
    #2 of 14:
    gave up with 30 cards removed
    p practises the deal (unscored)
    >>> state.daily = DailyRun("treize", "2027-03-14", practice=True)
    >>> print(daily_text(state))
    Practice: not on the board
    p plays the deal again

    Once the deal's day is over, ``p`` would practise another deal: not offered.

    >>> state.day_over = True
    >>> print(daily_text(state))
    Practice: not on the board
    the day is over: play today's
    solitaire-arena daily treize
    """
    daily = state.daily
    if daily is None or state.status != "finished":
        return ""
    again = f"the day is over: play today's\nsolitaire-arena daily {daily.game}" if state.day_over else ""
    if daily.practice:
        return f"Practice: not on the board\n{again or 'p plays the deal again'}"
    if not daily.scored:
        return f"Guest attempt: not on the board\n(accounts are)\n{again or 'p plays the deal again'}"
    lines = [f"Board of {daily.date}"]
    place = state.place
    if place is None:
        lines.append("not on the board yet")
    else:
        where = f"#{place.rank} of {state.board_total}:"
        lines += split_to_fit(where, standing_words(daily.game, place), columns, indent="")
    lines.append(again or "p practises the deal (unscored)")
    return "\n".join(lines)


class DailyPanel(Static):
    """After a daily attempt: its place on the day's board (practice: not on it)."""

    DEFAULT_CSS = "DailyPanel { height: auto; border-top: solid $primary; }"

    #: The columns the panel has (fewer in a narrowed side panel).
    columns: int = SIDE_COLUMNS

    def show(self, state: RaceState) -> None:
        text = daily_text(state, self.columns)
        self.display = bool(text)
        if text:
            first, _, rest = text.partition("\n")
            self.update(Text.assemble((first + "\n", "bold"), rest))

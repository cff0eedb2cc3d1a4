"""The side panels of the race screen: the race, rated or casual (or a daily attempt),
its hint setting and how many people watch it, clock, racers' progress and ratings (and
a daily attempt's ghosts), ranking or results (with the new ratings after a rated race),
and a rematch once the race ended (for a daily attempt, its place on the day's board
instead)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from client.tui.clock import ServerClock, format_remaining
from client.tui.race_state import CARDS, GHOSTS_SHOWN, GhostRacer, Racer, RaceState, rematch_note
from client.wording import change_words, result_words

BAR_WIDTH = 16
#: Where an account starts in a game it has no rating in yet (Glicko-2), provisional.
START_RATING = 1500


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
    if state.status in ("open",):
        return "waiting for racers"
    if state.status == "countdown" and state.starts_at is not None and clock.until(state.starts_at) > 0:
        return f"starts in {format_remaining(clock.until(state.starts_at))}"
    if state.ends_at is not None:
        return f"⏱ {format_remaining(clock.until(state.ends_at))} left"
    return state.status


def _flag(racer: Racer) -> str:
    if racer.won:
        return "won"
    if racer.finished:
        return "done"
    return ""


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


def race_text(state: RaceState) -> str:
    """The game, the race's code, whether it is rated, and its hint setting; for a daily
    attempt its day and whether it is scored.

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

    def show(self, state: RaceState) -> None:
        self.update(race_text(state))


class ClockPanel(Static):
    DEFAULT_CSS = "ClockPanel { height: 1; text-style: bold; }"

    def show(self, state: RaceState, clock: ServerClock) -> None:
        self.update(clock_text(state, clock))


def ghost_lines(ghost: GhostRacer) -> tuple[str, str, str]:
    """A ghost's rows in the racers panel: its name, marked a ghost (with its place on the
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
    """
    name = f"{ghost.name}  ghost" + (f" #{ghost.rank}" if ghost.rank else "")
    bar = f"{progress_bar(ghost.cards_left)} {ghost.cards_left:>2} left"
    end = ""
    if ghost.won:
        end = f"  won in {ghost.elapsed_ms / 1000:.1f} s"
    elif ghost.finished:
        end = "  finished"
    return name, bar, f"  moves {ghost.move_count:>3}{end}"


class RacersPanel(Static):
    """Every racer's name and rating, and progress: a bar of cards played, cards left,
    score, moves; while a daily attempt races ghosts, up to three ghost rows under them."""

    DEFAULT_CSS = "RacersPanel { height: auto; border-top: solid $primary; }"

    #: How wide a racer's progress bar is drawn (shorter in a narrowed side panel).
    bar_width: int = BAR_WIDTH

    def show(self, state: RaceState) -> None:
        text = Text()
        for racer in state.racers.values():
            me = racer.player_id == state.me
            name = f"{racer.name}{' (you)' if me else ''}{' [bot]' if racer.bot else ''}"
            rating = rating_text(racer, state.rated)
            text.append(f"{name}  {rating}\n" if rating else f"{name}\n", style="bold" if me else "")
            bar = progress_bar(racer.cards_left, self.bar_width)
            text.append(bar, style="green" if racer.won else "cyan")
            text.append(f" {racer.cards_left:>2} left\n")
            flag = _flag(racer) or ("ready" if state.status == "open" and racer.ready else "")
            # A narrowed panel (an 80-column terminal) has 20 cells: the line keeps to them.
            lead, gap = ("  ", "  ") if self.bar_width >= BAR_WIDTH else ("", " ")
            counts = f"{lead}score {racer.score:>2}{gap}moves {racer.move_count:>3}{gap}{flag}"
            text.append(counts.rstrip() + "\n", style="dim")
        if state.ghosts_on:
            for ghost in list(state.ghosts.values())[:GHOSTS_SHOWN]:
                name, bar, moves = ghost_lines(ghost)
                text.append(name + "\n", style="italic")
                text.append(bar[:BAR_WIDTH], style="green" if ghost.won else "magenta")
                text.append(bar[BAR_WIDTH:] + "\n")
                text.append(moves + "\n", style="dim")
        self.update(text)


class RankingPanel(Static):
    """The seats in order: live during the race, the results once it ended (after a rated
    race, each racer's new rating and its change under their line)."""

    DEFAULT_CSS = "RankingPanel { height: auto; border-top: solid $primary; }"

    def show(self, state: RaceState) -> None:
        title = "Results" if state.summary is not None else "Ranking"
        if state.daily is not None:
            title = "Your attempt"  # a race of one: its place is on the day's board
        text = Text(f"{title}\n", style="bold")
        times = {}
        if state.summary is not None:
            times = {s.player_id: s.time_ms for s in state.summary.standings}
        for rank, racer in state.ranking():
            line = f"{rank}. {racer.name:<12} {racer.score:>2}"
            if state.daily is not None:
                line = f"{racer.name:<15} {racer.score:>2}"
            time_ms = times.get(racer.player_id)
            if racer.won:
                line += f"  won {time_ms / 1000:.1f}s" if time_ms is not None else "  won"
            text.append(line + "\n", style="bold" if racer.player_id == state.me else "")
            if racer.rating is not None and racer.rating_change is not None:
                text.append(
                    f"   rating {rating_text(racer, True)} {change_words(racer.rating_change)}\n", style="dim"
                )
        self.update(text)


class RematchPanel(Static):
    """After the end: how to offer a rematch, or the offer and everyone's answer."""

    DEFAULT_CSS = "RematchPanel { height: auto; border-top: solid $primary; }"

    def show(self, state: RaceState, clock: ServerClock) -> None:
        self.display = state.status == "finished" and state.daily is None
        if not self.display:
            return
        text = Text("Rematch\n", style="bold")
        rematch = state.rematch
        if rematch is None:
            text.append("r offers one: same racers, new deal\n")
            self.update(text)
            return
        text.append(rematch_note(rematch, state.me) + "\n")
        for racer in rematch.racers:
            name = f"{racer.name}{' (you)' if racer.player_id == state.me else ''}"
            text.append(f"  {name:<16} {racer.answer}\n", style="dim")
        if rematch.status == "open":
            text.append(f"  {format_remaining(clock.until(rematch.expires_at))} to answer\n", style="dim")
        elif state.can_offer_rematch:
            text.append("r offers another\n")
        self.update(text)


def daily_text(state: RaceState) -> str:
    """After a daily attempt: its place on the day's board, and how to play it again.

    >>> from client.tui.race_state import DailyRun
    >>> from shared.protocol import DailyEntry
    >>> state = RaceState(race_id="r1", me="p_a", status="finished",
    ...                   daily=DailyRun("treize", "2027-03-14", scored=True))
    >>> state.place = DailyEntry(rank=2, player_id="p_a", name="ada", won=True, score=52,
    ...                          time_ms=101554)
    >>> state.board_total = 14
    >>> print(daily_text(state))
    Board of 2027-03-14
    #2 of 14: won in 101.6 s
    p practises the deal (unscored)
    >>> state.daily = DailyRun("treize", "2027-03-14", practice=True)
    >>> print(daily_text(state))
    Practice: not on the board
    p plays the deal again
    """
    daily = state.daily
    if daily is None or state.status != "finished":
        return ""
    if daily.practice:
        return "Practice: not on the board\np plays the deal again"
    if not daily.scored:
        return "Guest attempt: not on the board\n(accounts are)\np plays the deal again"
    lines = [f"Board of {daily.date}"]
    place = state.place
    if place is None:
        lines.append("not on the board yet")
    else:
        result = result_words(daily.game, place.won, place.score, place.time_ms)
        lines.append(f"#{place.rank} of {state.board_total}: {result}")
    lines.append("p practises the deal (unscored)")
    return "\n".join(lines)


class DailyPanel(Static):
    """After a daily attempt: its place on the day's board (practice: not on it)."""

    DEFAULT_CSS = "DailyPanel { height: auto; border-top: solid $primary; }"

    def show(self, state: RaceState) -> None:
        text = daily_text(state)
        self.display = bool(text)
        if text:
            first, _, rest = text.partition("\n")
            self.update(Text.assemble((first + "\n", "bold"), rest))

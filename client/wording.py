"""A racer's result in words, written alike by every terminal client: what a score
counts depends on the game (cards on the foundations, or in Treize cards removed)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pydantic import ValidationError

#: What a spectator is shown instead of the boards while the race counts down (the
#: browser's watch page says it too): nobody sees the deal before the race starts.
DEAL_AT_START = "the deal is shown when the race starts"

#: What a spectator is shown of a racer's board held back (``watch_held``; the browser's
#: watch page says it too): in Treize and Eagle Wing a board shows spectators no card
#: that another racer still racing has not turned up yet, so it waits for them.
PAUSED = "paused for spectators"
HELD_NOTE = f"{PAUSED}: it shows cards another racer has not turned up yet"
#: The terminal watch screen's one note under the racers' cards while any board is
#: paused (each card says ``paused``): short, to leave the cards room in 80x24.
PAUSED_NOTE = "paused: shows cards others have not turned up yet"


#: What a racer is told when a rated race's creator started it while they were not ready
#: (a ``race_update`` naming them in ``left_out``): they are no longer seated in it (the
#: browser's race page says it too).
LEFT_OUT = "the race started without you: you were not ready (rated races start with their ready racers)"


def left_out_of(left_out: list[str] | None, player_id: str | None) -> bool:
    """Whether a ``race_update``'s ``left_out`` names ``player_id``: a rated start
    unseated them as not ready.

    >>> left_out_of(["p1"], "p1"), left_out_of(None, "p1"), left_out_of(["p2"], None)
    (True, False, False)
    """
    return player_id is not None and player_id in (left_out or ())


#: What a terminal says of a request refused ``unavailable``, in a person's words (the
#: server's message is written for programs: it tells them to resend a move with the
#: same seq). ``{what}`` is what to try again: ``the move``, or nothing (the line names it).
STORE_LOST = "the server lost its store for a moment: try {what}again shortly"


def refusal_words(code: str, message: str, what: str = "") -> str:
    """A refusal as a terminal says it: the server's ``message``, unless its ``code`` is
    ``unavailable`` (:data:`STORE_LOST`, trying ``what`` again).

    >>> refusal_words("unavailable", "the server cannot reach its store right now: ...", "the move")
    'the server lost its store for a moment: try the move again shortly'
    >>> refusal_words("unavailable", "the server cannot reach its store right now: ...")
    'the server lost its store for a moment: try again shortly'
    >>> refusal_words("illegal_move", "r1 is empty", "the move")
    'r1 is empty'
    """
    if code != "unavailable":
        return message
    return STORE_LOST.format(what=f"{what} " if what else "")


def cards_scored(game: str, score: int) -> str:
    """A score in words: the cards put home on the foundations, or, in Treize (whose
    score counts the cards its pairs and Kings took away), the cards removed.

    >>> cards_scored("eight-off", 1), cards_scored("eagle-wing", 12), cards_scored("treize", 30)
    ('1 card home', '12 cards home', '30 cards removed')
    """
    return f"{score} card{'' if score == 1 else 's'} {'removed' if game == 'treize' else 'home'}"


def seconds_words(ms: int) -> str:
    """A race time in seconds, to the tenth, cut as a stopwatch cuts it (never rounded up):
    the same in every client, in standings as on a replay's clock.

    >>> seconds_words(95_012), seconds_words(2_250), seconds_words(1_599), seconds_words(0)
    ('95.0', '2.2', '1.5', '0.0')
    """
    tenths = max(0, ms) // 100
    return f"{tenths // 10}.{tenths % 10}"


def result_words(game: str, won: bool, score: int, time_ms: int | None, gave_up: bool = False) -> str:
    """A racer's result: the time of a win, else the cards scored (said to be where the
    racer gave up when they did, as the browser says it too).

    >>> result_words("eight-off", True, 52, 95012), result_words("treize", False, 2, None)
    ('won in 95.0 s', '2 cards removed')
    >>> result_words("eagle-wing", True, 52, None)
    'won'
    >>> result_words("eight-off", False, 1, None, gave_up=True)
    'gave up with 1 card home'
    """
    if won:
        return f"won in {seconds_words(time_ms)} s" if time_ms is not None else "won"
    return f"gave up with {cards_scored(game, score)}" if gave_up else cards_scored(game, score)


class Result(Protocol):
    """A line of results: a race's standing, a daily board's entry, a profile's recent race."""

    @property
    def won(self) -> bool: ...
    @property
    def score(self) -> int: ...
    @property
    def time_ms(self) -> int | None: ...
    @property
    def gave_up(self) -> bool: ...


def standing_words(game: str, standing: Result) -> str:
    """:func:`result_words` of one line of results: of a race's, a daily board's or a
    profile's latest races.

    >>> from shared.protocol import DailyEntry
    >>> standing_words("treize", DailyEntry(rank=3, player_id="p_a", name="ada", won=False,
    ...                                     score=30, gave_up=True))
    'gave up with 30 cards removed'
    """
    return result_words(game, standing.won, standing.score, standing.time_ms, standing.gave_up)


class Results(Protocol):
    """A race's results: its standings."""

    @property
    def standings(self) -> Sequence[Result]: ...


def time_ran_out(results: Results) -> bool:
    """Whether a race of several ended at its time limit: someone was still playing
    (neither won nor gave up). A race otherwise ends once every racer is done.

    >>> from shared.protocol import RaceSummary, Standing
    >>> def race(*gave_up):
    ...     standings = [Standing(rank=1, player_id="p_a", name="ada", won=True, score=52,
    ...                           move_count=80, time_ms=95012)]
    ...     standings += [Standing(rank=2, player_id=f"p_{n}", name="bob", won=False, score=9,
    ...                            move_count=40, gave_up=g) for n, g in enumerate(gave_up)]
    ...     return RaceSummary(race_id="r1", game="treize", started_at=0, ended_at=1,
    ...                        commitment="c", standings=standings)
    >>> time_ran_out(race(True)), time_ran_out(race(True, False)), time_ran_out(race())
    (False, True, False)
    """
    return any(not s.won and not s.gave_up for s in results.standings)


def run_ending_words(game: str, standing: Result) -> str:
    """How one's own run of one (a daily attempt or practice) ended, as a sentence: won,
    given up, or played until its time ran out.

    >>> from shared.protocol import DailyEntry
    >>> def mine(won, score, time_ms=None, gave_up=False):
    ...     return DailyEntry(rank=1, player_id="p_a", name="ada", won=won, score=score,
    ...                       time_ms=time_ms, gave_up=gave_up)
    >>> run_ending_words("eight-off", mine(True, 52, 95012))
    'you won in 95.0 s'
    >>> run_ending_words("treize", mine(False, 30, gave_up=True))
    'you gave up with 30 cards removed'
    >>> run_ending_words("eight-off", mine(False, 3))
    'time ran out with 3 cards home'
    """
    if standing.won or standing.gave_up:
        return "you " + standing_words(game, standing)
    return f"time ran out with {cards_scored(game, standing.score)}"


def ordinal(n: int) -> str:
    """A rank in words.

    >>> ordinal(1), ordinal(2), ordinal(3), ordinal(11), ordinal(22)
    ('1st', '2nd', '3rd', '11th', '22nd')
    """
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def place_words(rank: int, racers: int, tied: bool) -> str:
    """A racer's place in a race, said to be shared when others have the same rank (a
    race where nobody scored is everyone's tie for 1st, not a win), as the browser says it.

    >>> place_words(1, 2, False), place_words(1, 8, True), place_words(3, 4, True)
    ('1st of 2', 'tied 1st of 8', 'tied 3rd of 4')
    """
    return f"{'tied ' if tied else ''}{ordinal(rank)} of {racers}"


def change_words(change: int) -> str:
    """A rating change with its sign, as the browser writes it too.

    >>> change_words(12), change_words(-8), change_words(0)
    ('+12', '-8', '±0')
    """
    return f"{change:+d}" if change else "±0"


def validation_line(exc: ValidationError) -> str:
    """A value the protocol cannot carry, in one line: where, and the validator's own words
    (without pydantic's ``Value error, ``).

    >>> from shared.protocol import Hello
    >>> try:
    ...     Hello(id=1, name="x" * 30)
    ... except ValidationError as exc:
    ...     print(validation_line(exc))
    name: a name has 1 to 24 characters
    """
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    words = str(error["msg"]).removeprefix("Value error, ")
    return f"{where}: {words}" if where else words

"""The rules of the daily challenges that need no I/O: which deal a day has, when a day
begins and ends, how a day's board orders attempts, and the tournament's points.

A day's deal for a game is the first *candidate* the solver proves winnable. Candidate
``k``'s seed is the first 63 bits of HMAC-SHA256 under the server's daily secret of
``solitaire-arena:daily:v1:<game>:<YYYY-MM-DD>:<k>``: nobody without the secret can
compute it ahead, and every node derives the same one.

>>> day = dt.date(2026, 11, 23)
>>> candidate_seed(b"k", "treize", day, 0) == candidate_seed(b"k", "treize", day, 0)
True
>>> candidate_seed(b"k", "treize", day, 0) != candidate_seed(b"other", "treize", day, 0)
True
>>> day_of(day_start(day)), day_of(day_start(day) + DAY_MS - 1)
(datetime.date(2026, 11, 23), datetime.date(2026, 11, 23))
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
from dataclasses import dataclass
from typing import Final

from shared import new_game
from shared.daily_words import reveal_words
from shared.record import AttemptKind

DAILY_VERSION: Final = 1
DAY_MS: Final = 86_400_000
_EPOCH: Final = dt.date(1970, 1, 1)

#: The wait after a day's last attempt could end before the day is counted (closed).
CLOSE_MARGIN_MS: Final = 60_000

#: Points for the places 1 to 10 of a game's daily board (Formula 1's scale); every other
#: finished scored attempt gets 1 point, so showing up counts.
PLACE_POINTS: Final = (25, 18, 15, 12, 10, 8, 6, 4, 2, 1)
TAKING_PART: Final = 1

#: A board score: lower is better. Winners come first, by time to win; then everyone else
#: by cards home (more is better), then by when they reached that score (sooner is better).
_LOSS_BASE: Final = 10**13
_PER_CARD: Final = 10**10


def candidate_seed(secret: bytes, game: str, day: dt.date, candidate: int) -> int:
    message = f"solitaire-arena:daily:v{DAILY_VERSION}:{game}:{day.isoformat()}:{candidate}".encode()
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def day_of(ms: int) -> dt.date:
    """The UTC day of a server time (ms since the epoch)."""
    return _EPOCH + dt.timedelta(days=ms // DAY_MS)


def day_start(day: dt.date) -> int:
    """When ``day`` opens: 00:00 UTC, in ms since the epoch."""
    return (day - _EPOCH).days * DAY_MS


def day_closes(day: dt.date, time_limit: float, last_end: int | None = None) -> int:
    """When ``day`` is closed: a minute after its last attempt is surely over, the later of
    an attempt begun at its last moment with the setting's ``time_limit`` (seconds) and
    ``last_end``, the latest end of any attempt actually begun that day (kept as each one
    starts: an attempt keeps the time limit it began with, and one begun under a longer
    setting, or started late by a node that was down, runs longer). Its seeds, salts and
    attempts (results, move logs, replays, records) open to everyone then: an attempt
    begun before midnight still runs after it, so the day's end alone would show its
    player the deal they are playing. Its points are counted from then on, once every
    attempt of it has ended (:func:`day_countable`).

    >>> day_closes(_EPOCH, 1800) - DAY_MS
    1860000
    >>> day_closes(_EPOCH, 300, last_end=DAY_MS + 1_740_000) - DAY_MS
    1800000
    >>> day_closes(_EPOCH, 1800, last_end=DAY_MS - 5_000) - DAY_MS
    1860000
    """
    by_setting = day_start(day) + DAY_MS + int(time_limit * 1000)
    return max(by_setting, last_end or 0) + CLOSE_MARGIN_MS


def attempt_kind(daily: str, scored: bool, practice: bool) -> AttemptKind | None:
    """What a race of day ``daily`` (empty: not a daily run) was: the account's scored
    attempt, a guest's first attempt (``unscored``), or a ``practice`` after the attempt.

    >>> attempt_kind("2026-11-25", True, False), attempt_kind("2026-11-25", False, True)
    ('scored', 'practice')
    >>> attempt_kind("2026-11-25", False, False), attempt_kind("", False, False)
    ('unscored', None)
    """
    if not daily:
        return None
    if practice:
        return "practice"
    return "scored" if scored else "unscored"


def day_closed(day: str, now: int, time_limit: float, last_end: int | None = None) -> bool:
    """Whether the day named ``YYYY-MM-DD`` is closed at ``now`` (:func:`day_closes`).

    >>> closes = day_closes(_EPOCH, 1800)
    >>> day_closed("1970-01-01", DAY_MS, 1800), day_closed("1970-01-01", closes, 1800)
    (False, True)
    >>> day_closed("1970-01-01", closes, 1800, last_end=closes)
    False
    """
    return now >= day_closes(dt.date.fromisoformat(day), time_limit, last_end)


def day_countable(day: str, now: int, time_limit: float, last_end: int | None, unended: int) -> bool:
    """Whether the day's tournament points may be counted at ``now``: the day is closed
    (:func:`day_closed`) and none of its attempts is still unended (``unended`` of them
    are not over yet, their board entries unwritten: one whose time is up is ended by the
    race clock, and the count waits for it).

    >>> closes = day_closes(_EPOCH, 1800)
    >>> day_countable("1970-01-01", closes, 1800, None, 0), day_countable("1970-01-01", closes, 1800, None, 1)
    (True, False)
    """
    return unended == 0 and day_closed(day, now, time_limit, last_end)


def race_id_shown(
    day: str | None, owner: str, reader: str, now: int, time_limit: float, last_end: int | None = None
) -> bool:
    """Whether ``reader`` is given the race id of ``owner``'s race, a daily run of ``day``
    (None: another race, whose id is everyone's). A daily run's id is its player's own
    until its day is closed, then everyone's: the day's board and profiles keep this rule
    (docs/daily.md, "Fair play").

    >>> closes = day_closes(_EPOCH, 1800)
    >>> race_id_shown("1970-01-01", "p_a", "p_b", closes - 1, 1800)
    False
    >>> race_id_shown("1970-01-01", "p_a", "p_a", closes - 1, 1800)
    True
    >>> race_id_shown("1970-01-01", "p_a", "p_b", closes, 1800)
    True
    >>> race_id_shown(None, "p_a", "p_b", 0, 1800)
    True
    """
    return day is None or owner == reader or day_closed(day, now, time_limit, last_end)


def closing_words(day: str, time_limit: float, last_end: int | None = None) -> str:
    """When the day named ``YYYY-MM-DD`` opens its seeds and attempts, in words.

    >>> closing_words("2027-03-14", 1800)
    "once the day's last attempts are over (2027-03-15 00:31 UTC)"
    >>> closing_words("2027-03-14", 600.5)
    "once the day's last attempts are over (2027-03-15 00:12 UTC)"
    """
    return reveal_words(day_closes(dt.date.fromisoformat(day), time_limit, last_end))


def board_score(won: bool, time_ms: int | None, score: int, reached_ms: int) -> int:
    """The sorted-set score of an attempt on its day's board (lower ranks higher).

    >>> board_score(True, 90_000, 52, 90_000) < board_score(True, 95_000, 52, 95_000)
    True
    >>> board_score(True, 10**9, 52, 10**9) < board_score(False, None, 51, 1_000)
    True
    >>> board_score(False, None, 30, 5_000) < board_score(False, None, 30, 6_000)
    True
    >>> board_score(False, None, 30, 6_000) < board_score(False, None, 29, 1)
    True
    """
    if won and time_ms is not None:
        return max(0, time_ms)
    return _LOSS_BASE + (52 - score) * _PER_CARD + min(max(0, reached_ms), _PER_CARD - 1)


def board_result(value: float) -> tuple[bool, int | None, int]:
    """(won, time to win, cards home) of a board score.

    >>> board_result(board_score(True, 90_000, 52, 90_000)), board_result(board_score(False, None, 30, 5))
    ((True, 90000, 52), (False, None, 30))
    """
    number = int(value)
    if number < _LOSS_BASE:
        return True, number, 52
    return False, None, 52 - (number - _LOSS_BASE) // _PER_CARD


def prove_day(secret: bytes, game: str, day: str, budget: int, tries: int) -> tuple[int, int, int | None]:
    """(candidate, seed, winning line's length) of the day's deal: the first candidate the
    solver proves winnable within ``budget`` positions. When none of ``tries`` candidates
    is proven, candidate 0 is the deal, unproven (length None). CPU-heavy: run it in a
    worker process."""
    from shared.solver import solve_deal

    date = dt.date.fromisoformat(day)
    for candidate in range(tries):
        seed = candidate_seed(secret, game, date, candidate)
        line = solve_deal(game, seed, budget).line
        if line is not None:
            return candidate, seed, len(line)
    return 0, candidate_seed(secret, game, date, 0), None


@dataclass(frozen=True, slots=True)
class GhostPoint:
    """Where a finished attempt stood ``elapsed_ms`` after its start."""

    elapsed_ms: int
    score: int
    move_count: int
    finished: bool
    won: bool


def ghost_timeline(
    game: str, seed: int, moves: list[tuple[str, int]], started_at: int, ended_at: int
) -> list[GhostPoint]:
    """A finished attempt's progress move by move, from its seed and its logged moves (each
    with the server time it was taken), ending with its finish.

    >>> from shared import new_game
    >>> line = new_game("eight-off", 2).legal_moves()[:1]
    >>> [p.elapsed_ms for p in ghost_timeline("eight-off", 2, [(line[0], 1_500)], 1_000, 9_000)]
    [500, 8000]
    """
    board = new_game(game, seed)
    points_: list[GhostPoint] = []
    for move, at in moves:
        board.play(move)
        points_.append(
            GhostPoint(max(0, at - started_at), board.score, board.move_count, board.is_won, board.is_won)
        )
    if not board.is_won:
        points_.append(GhostPoint(max(0, ended_at - started_at), board.score, board.move_count, True, False))
    return points_


def points(rank: int) -> int:
    """Tournament points for a place on a game's daily board.

    >>> [points(r) for r in (1, 2, 10, 11, 500)]
    [25, 18, 1, 1, 1]
    """
    return PLACE_POINTS[rank - 1] if rank <= len(PLACE_POINTS) else TAKING_PART


def iso_week(day: dt.date) -> str:
    """The ISO week a day belongs to, as the weekly table names it (``2026-W48``)."""
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"

"""Race records: a finished race as text anyone can check, as PGN is for chess.

A record holds everything needed to check a race: the server's seed commitment, the seed
and salt it revealed, the racers' seed shares, every accepted move with its time, and
the results. :func:`write_record` and :func:`read_record` turn a :class:`RaceRecord` into
the text format of ``docs/record.md`` and back; :func:`verify_record` re-deals the game,
replays every racer's moves and checks that the results follow from them.

>>> from dataclasses import replace
>>> from shared.fairness import commitment
>>> record = RaceRecord(
...     game="treize", deal_version=1, race_id="r1", started_at=1_700_000_000_000,
...     ended_at=1_700_000_060_000, time_limit_ms=60_000, rated=False, daily=None,
...     server_seed=42, salt="00", commitment=commitment("treize", 42, "00"), shares=(),
...     seed=42, racers=(RecordRacer("p_1", "Ada"),),
...     results=(RecordResult(1, "p_1", False, 0, 1, None, 0),),
...     moves=(("p_1", (RecordMove(1, "deal", 1_500),)),),
... )
>>> text = write_record(record)
>>> print(text[text.index("[Seed"):], end="")
[Seed "42"]
[Racer "p_1 Ada human -"]
[Result "1 p_1 - 0 1 - 0"]
<BLANKLINE>
== p_1
1. deal {1500}
>>> read_record(text) == record
True
>>> verify_record(record)
>>> try:
...     verify_record(replace(record, seed=43))
... except RecordRejected as exc:
...     print(exc)
the seed is not the server seed (the record has no shares)
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal

from shared.engine import new_game
from shared.errors import IllegalMove
from shared.fairness import commitment, is_share, mixed_seed, share_commitment
from shared.game import Game, UndoRule
from shared.games import GAMES, GameName
from shared.ranking import rank_results, result_key

#: The value of the ``Event`` header, which says what the text is.
EVENT: Final = "Solitaire Arena race"
#: The longest record read, in characters.
MAX_RECORD_CHARS: Final = 2_000_000
#: The most racers, shares and results a record may list.
MAX_RACERS: Final = 100
#: The most moves one racer's section may hold.
MAX_MOVES: Final = 100_000
#: The longest name or salt, in characters.
MAX_TEXT: Final = 200
#: Move lines are wrapped before this width (an entry is never split).
LINE_WIDTH: Final = 100
#: The last millisecond a ``Date`` header can show: 9999-12-31T23:59:59.999Z.
MAX_STARTED_AT: Final = 253_402_300_799_999

_GAME_NAMES: Final[dict[str, GameName]] = {name: name for name in GAMES}
_ID: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
_DIGEST: Final = re.compile(r"[0-9a-f]{64}")
_SHARE_TEXT: Final = re.compile(r"[A-Za-z0-9]{1,128}")
_NATURAL: Final = re.compile(r"0|[1-9][0-9]{0,59}")
_INTEGER: Final = re.compile(r"0|-?[1-9][0-9]{0,59}")
_DAY: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_HEADER: Final = re.compile(r'\[([A-Za-z]+) "((?:[^"\\]|\\.)*)"\]')
_ESCAPE: Final = re.compile(r"\\(.)")
_SECTION: Final = re.compile(r"==[ \t]+(\S+)")
_SEQ: Final = re.compile(r"(0|[1-9][0-9]{0,59})\.")
_AT: Final = re.compile(r"\{(0|[1-9][0-9]{0,59})\}")
_MAX_MOVE_CHARS: Final = 64
_EPOCH: Final = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

#: What a daily run was (the ``Attempt`` header): the account's scored attempt, a guest's
#: first attempt (the day's attempt, unscored), or a practice after the attempt.
AttemptKind = Literal["scored", "unscored", "practice"]
_ATTEMPTS: Final[dict[str, AttemptKind]] = {
    "scored": "scored",
    "unscored": "unscored",
    "practice": "practice",
}


# ----- the data ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RecordRacer:
    """A racer: ``rating`` is their rating before the race in a rated race, else None."""

    player_id: str
    name: str
    bot: bool = False
    rating: int | None = None


@dataclass(frozen=True, slots=True)
class RecordShare:
    """A racer's revealed seed share and the SHA-256 commitment they sent before it."""

    player_id: str
    commitment: str
    share: str


@dataclass(frozen=True, slots=True)
class RecordResult:
    """One line of the standings. ``time_ms`` is the time to win (None without a win);
    ``score_reached_ms`` is when the final score was reached (0 if it never changed)."""

    rank: int
    player_id: str
    won: bool
    score: int
    move_count: int
    time_ms: int | None
    score_reached_ms: int


@dataclass(frozen=True, slots=True)
class RecordMove:
    """An accepted move: ``seq`` counts a racer's moves from 1 (an ``undo`` is a move and
    takes one), ``at_ms`` is milliseconds since the race started."""

    seq: int
    move: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class RaceRecord:
    """A finished race. Times are milliseconds: ``started_at`` and ``ended_at`` since the
    Unix epoch, a move's ``at_ms`` since ``started_at``. ``daily`` is the day
    (``YYYY-MM-DD``) of a daily challenge run, else None, and ``attempt`` what that run
    was (:data:`AttemptKind`; None in a record written before the field, and in any other
    race). ``moves`` holds each racer's moves in order, as ``(player id, moves)`` pairs
    (see :meth:`moves_of`)."""

    game: GameName
    deal_version: int
    race_id: str
    started_at: int
    ended_at: int
    time_limit_ms: int
    rated: bool
    daily: str | None
    server_seed: int
    salt: str
    commitment: str
    shares: tuple[RecordShare, ...]
    seed: int
    racers: tuple[RecordRacer, ...]
    results: tuple[RecordResult, ...]
    moves: tuple[tuple[str, tuple[RecordMove, ...]], ...]
    attempt: AttemptKind | None = None

    def moves_of(self, player_id: str) -> tuple[RecordMove, ...]:
        """The moves of ``player_id``: none when the record has no section for them."""
        for player, moves in self.moves:
            if player == player_id:
                return moves
        return ()


class RecordSyntaxError(ValueError):
    """A text is not a race record: ``reason`` says why, ``line_number`` (from 1) where."""

    def __init__(self, reason: str, line_number: int) -> None:
        self.reason = reason
        self.line_number = line_number
        super().__init__(f"line {line_number}: {reason}")


class RecordRejected(ValueError):
    """A record failed verification: ``reason`` says which check, ``player_id`` whose
    moves or result, and ``move_index`` (from 0) which of their moves, where known. The
    text counts moves from 1, as the record numbers them (``racer p_ada, move 1: ...``)."""

    def __init__(self, reason: str, player_id: str | None = None, move_index: int | None = None) -> None:
        self.reason = reason
        self.player_id = player_id
        self.move_index = move_index
        where = [] if player_id is None else [f"racer {player_id}"]
        if move_index is not None:
            where.append(f"move {move_index + 1}")
        super().__init__(f"{', '.join(where)}: {reason}" if where else reason)


# ----- writing -------------------------------------------------------------------------


def write_record(record: RaceRecord) -> str:
    """The text of ``record`` (docs/record.md). A value the format cannot hold (a player
    id with a space, a negative time, a move with a brace, ...) raises ``ValueError``;
    whatever it writes, :func:`read_record` reads back equal."""
    if record.game not in _GAME_NAMES:
        raise ValueError(f"unknown game {record.game!r}")
    if not record.racers:
        raise ValueError("a record names at least one racer")
    _check_count(len(record.racers), "racers")
    _check_count(len(record.shares), "shares")
    _check_count(len(record.results), "results")
    _check_count(len(record.moves), "move sections")
    lines = [
        _header("Event", EVENT),
        _header("Game", record.game),
        _header("DealVersion", _natural(record.deal_version, "the deal version")),
        _header("Race", _token(record.race_id, "the race id")),
        _header("Date", _date_of(record.started_at)),
        _header("StartedAt", _natural(record.started_at, "started_at")),
        _header("EndedAt", _natural(record.ended_at, "ended_at")),
        _header("TimeLimit", _natural(record.time_limit_ms, "the time limit")),
        _header("Rated", "yes" if _flag(record.rated, "rated") else "no"),
    ]
    if record.daily is not None:
        lines.append(_header("Daily", _day(record.daily)))
    if record.attempt is not None:
        if record.daily is None:
            raise ValueError("only a daily challenge run has an Attempt")
        if record.attempt not in _ATTEMPTS:
            raise ValueError(f"an Attempt is scored, unscored or practice, not {record.attempt!r}")
        lines.append(_header("Attempt", record.attempt))
    lines += [
        _header("ServerSeed", _natural(record.server_seed, "the server seed")),
        _header("Salt", _text(record.salt, "the salt")),
        _header("Commitment", _digest(record.commitment, "the commitment")),
    ]
    lines += [_share_header(share) for share in record.shares] or [_header("Shares", "none")]
    lines.append(_header("Seed", _natural(record.seed, "the seed")))
    lines += [_racer_header(racer) for racer in record.racers]
    lines += [_result_header(result) for result in record.results]
    seen: set[str] = set()
    for player, moves in record.moves:
        if player in seen:
            raise ValueError(f"two move sections for {player}")
        seen.add(player)
        lines += ["", f"== {_token(player, 'a player id')}", *_move_lines(moves)]
    text = "\n".join(lines) + "\n"
    if len(text) > MAX_RECORD_CHARS:
        raise ValueError(f"the record would be longer than {MAX_RECORD_CHARS} characters")
    return text


def _header(name: str, value: str) -> str:
    return '[{} "{}"]'.format(name, value.replace("\\", "\\\\").replace('"', '\\"'))


def _share_header(share: RecordShare) -> str:
    player = _token(share.player_id, "a share's player id")
    digest = _digest(share.commitment, "a share's commitment")
    if not isinstance(share.share, str) or not _SHARE_TEXT.fullmatch(share.share):
        raise ValueError(f"cannot write the share {share.share!r}: 1 to 128 letters and digits")
    return _header("Share", f"{player} {digest} {share.share}")


def _racer_header(racer: RecordRacer) -> str:
    player = _token(racer.player_id, "a racer's player id")
    name = _text(racer.name, "a racer's name")
    kind = "bot" if _flag(racer.bot, "bot") else "human"
    rating = "-" if racer.rating is None else _integer(racer.rating, "a rating")
    return _header("Racer", f"{player} {name} {kind} {rating}")


def _result_header(result: RecordResult) -> str:
    fields = (
        _natural(result.rank, "a rank"),
        _token(result.player_id, "a result's player id"),
        "won" if _flag(result.won, "won") else "-",
        _natural(result.score, "a score"),
        _natural(result.move_count, "a move count"),
        "-" if result.time_ms is None else _natural(result.time_ms, "a time"),
        _natural(result.score_reached_ms, "a score's time"),
    )
    return _header("Result", " ".join(fields))


def _move_lines(moves: tuple[RecordMove, ...]) -> list[str]:
    _check_count(len(moves), "moves", MAX_MOVES)
    lines: list[str] = []
    line = ""
    for move in moves:
        if not isinstance(move.move, str) or not _is_move_text(move.move):
            raise ValueError(f"cannot write the move {move.move!r}")
        entry = f"{_natural(move.seq, 'a seq')}. {move.move} {{{_natural(move.at_ms, 'a time')}}}"
        if line and len(line) + 1 + len(entry) > LINE_WIDTH:
            lines.append(line)
            line = entry
        else:
            line = f"{line} {entry}" if line else entry
    return [*lines, line] if line else lines


def _check_count(count: int, what: str, most: int = MAX_RACERS) -> None:
    if count > most:
        raise ValueError(f"a record holds at most {most} {what}, not {count}")


def _natural(value: int, what: str) -> str:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} is a whole number from 0, not {value!r}")
    text = str(value)
    if not _NATURAL.fullmatch(text):
        raise ValueError(f"{what} has more than 60 digits")
    return text


def _integer(value: int, what: str) -> str:
    if isinstance(value, bool) or not isinstance(value, int) or not _INTEGER.fullmatch(str(value)):
        raise ValueError(f"{what} is a whole number of at most 60 digits, not {value!r}")
    return str(value)


def _flag(value: bool, what: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{what} is True or False, not {value!r}")
    return value


def _token(value: str, what: str) -> str:
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise ValueError(f"{what} is 1 to 64 letters, digits, '_' and '-', not {value!r}")
    return value


def _digest(value: str, what: str) -> str:
    if not isinstance(value, str) or not _DIGEST.fullmatch(value):
        raise ValueError(f"{what} is 64 lowercase hex digits, not {value!r}")
    return value


def _text(value: str, what: str) -> str:
    if not isinstance(value, str) or not _is_plain(value):
        raise ValueError(f"{what} is at most {MAX_TEXT} characters without control characters")
    return value


def _day(value: str) -> str:
    if not isinstance(value, str) or not _is_day(value):
        raise ValueError(f"a daily challenge's day is a date YYYY-MM-DD, not {value!r}")
    return value


def _date_of(started_at: int) -> str:
    """The UTC date and time of ``started_at`` (ms since the epoch), ISO 8601.

    >>> _date_of(0), _date_of(1_700_000_000_123)
    ('1970-01-01T00:00:00.000Z', '2023-11-14T22:13:20.123Z')
    """
    if isinstance(started_at, bool) or not isinstance(started_at, int):
        raise ValueError(f"started_at is a whole number, not {started_at!r}")
    if not 0 <= started_at <= MAX_STARTED_AT:
        raise ValueError(f"started_at {started_at} is not a time from 1970 to 9999")
    moment = _EPOCH + dt.timedelta(milliseconds=started_at)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _is_plain(text: str) -> bool:
    """Whether ``text`` may be a name or salt: no control characters, nor lone surrogates."""
    return len(text) <= MAX_TEXT and not any(unicodedata.category(c) in ("Cc", "Cs") for c in text)


def _is_move_text(text: str) -> bool:
    return (
        0 < len(text) <= _MAX_MOVE_CHARS
        and not any(c.isspace() or c in "{}" for c in text)
        and _is_plain(text)
    )


def _is_day(text: str) -> bool:
    if not _DAY.fullmatch(text):
        return False
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


# ----- reading -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Header:
    name: str
    value: str
    line: int


class _Headers:
    """The header lines in order, taken one name at a time as the format lists them."""

    def __init__(self, headers: list[_Header], end_line: int) -> None:
        self._headers = headers
        self._next = 0
        self._end_line = end_line

    def has(self, name: str) -> bool:
        return self._next < len(self._headers) and self._headers[self._next].name == name

    def take(self, name: str) -> _Header:
        if self._next >= len(self._headers):
            raise RecordSyntaxError(f"the [{name}] header is missing", self._end_line)
        header = self._headers[self._next]
        if header.name != name:
            raise RecordSyntaxError(f"expected the [{name}] header here, not [{header.name}]", header.line)
        self._next += 1
        return header

    def take_all(self, name: str) -> list[_Header]:
        taken: list[_Header] = []
        while self.has(name):
            header = self.take(name)
            if len(taken) == MAX_RACERS:
                raise RecordSyntaxError(f"more than {MAX_RACERS} [{name}] headers", header.line)
            taken.append(header)
        return taken

    def finish(self) -> None:
        if self._next < len(self._headers):
            header = self._headers[self._next]
            raise RecordSyntaxError(
                f"unexpected [{header.name}] header: headers come in the order of docs/record.md", header.line
            )


@dataclass(slots=True)
class _Section:
    player_id: str
    line: int
    moves: list[RecordMove]


def read_record(text: str) -> RaceRecord:
    """The record in ``text`` (docs/record.md). Text that is not a well-formed record
    raises :class:`RecordSyntaxError` saying what is wrong and on which line; nothing
    else is raised, whatever the text. Reading checks the form only:
    :func:`verify_record` checks the race."""
    if not isinstance(text, str):
        raise RecordSyntaxError(f"a record is text, not {type(text).__name__}", 1)
    if len(text) > MAX_RECORD_CHARS:
        raise RecordSyntaxError(f"the record is longer than {MAX_RECORD_CHARS} characters", 1)
    lines = text.removeprefix("\ufeff").split("\n")
    headers: list[_Header] = []
    sections: list[_Section] = []
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            if sections:
                raise RecordSyntaxError("a header after the move sections", number)
            headers.append(_read_header(line, number))
        elif line.startswith("=="):
            sections.append(_read_section_start(line, number, sections))
        elif sections:
            _read_moves(line, number, sections[-1])
        else:
            raise RecordSyntaxError(
                'expected a header [Name "value"], a section "== <player id>" or a # comment', number
            )
    return _record_of(_Headers(headers, len(lines)), sections)


def _read_header(line: str, number: int) -> _Header:
    match = _HEADER.fullmatch(line)
    if match is None:
        raise RecordSyntaxError('cannot read this header: write it [Name "value"]', number)
    name, escaped = match.groups()

    def unescape(escape: re.Match[str]) -> str:
        if escape.group(1) not in '"\\':
            raise RecordSyntaxError(f'unknown escape \\{escape.group(1)} (only \\" and \\\\)', number)
        return escape.group(1)

    return _Header(name, _ESCAPE.sub(unescape, escaped), number)


def _read_section_start(line: str, number: int, sections: list[_Section]) -> _Section:
    match = _SECTION.fullmatch(line)
    if match is None or not _ID.fullmatch(match.group(1)):
        raise RecordSyntaxError('a move section starts "== <player id>"', number)
    player = match.group(1)
    if any(section.player_id == player for section in sections):
        raise RecordSyntaxError(f"a second move section for {player}", number)
    if len(sections) == MAX_RACERS:
        raise RecordSyntaxError(f"more than {MAX_RACERS} move sections", number)
    return _Section(player, number, [])


def _read_moves(line: str, number: int, section: _Section) -> None:
    tokens = line.split()
    for start in range(0, len(tokens), 3):
        entry = tokens[start : start + 3]
        if len(entry) < 3:
            raise RecordSyntaxError(
                f"incomplete move {' '.join(entry)!r}: write each move as <seq>. <move> {{<ms>}}", number
            )
        seq_text, move, at_text = entry
        seq = _SEQ.fullmatch(seq_text)
        if seq is None:
            raise RecordSyntaxError(f"expected a move number such as '12.', not {_shown(seq_text)}", number)
        if not _is_move_text(move):
            raise RecordSyntaxError(f"{_shown(move)} cannot be a move", number)
        at = _AT.fullmatch(at_text)
        if at is None:
            raise RecordSyntaxError(
                f"expected a time in ms such as '{{1500}}', not {_shown(at_text)}", number
            )
        if len(section.moves) == MAX_MOVES:
            raise RecordSyntaxError(f"more than {MAX_MOVES} moves for {section.player_id}", number)
        section.moves.append(RecordMove(int(seq.group(1)), move, int(at.group(1))))


def _shown(token: str) -> str:
    return repr(token if len(token) <= 40 else token[:37] + "...")


def _record_of(headers: _Headers, sections: list[_Section]) -> RaceRecord:
    event = headers.take("Event")
    if event.value != EVENT:
        raise RecordSyntaxError(f'this is not a race record: its Event is not "{EVENT}"', event.line)
    game_header = headers.take("Game")
    game = _GAME_NAMES.get(game_header.value)
    if game is None:
        raise RecordSyntaxError(f"unknown game {_shown(game_header.value)}", game_header.line)
    deal_version = _read_natural(headers.take("DealVersion"))
    race_id = _read_token(headers.take("Race"))
    date = headers.take("Date")
    started_header = headers.take("StartedAt")
    started_at = _read_natural(started_header)
    if started_at > MAX_STARTED_AT:
        raise RecordSyntaxError("StartedAt is after the year 9999", started_header.line)
    if date.value != _date_of(started_at):
        raise RecordSyntaxError(f"Date is not the time of StartedAt, {_date_of(started_at)}", date.line)
    ended_at = _read_natural(headers.take("EndedAt"))
    time_limit_ms = _read_natural(headers.take("TimeLimit"))
    rated = _read_choice(headers.take("Rated"), {"yes": True, "no": False})
    daily = _read_day(headers.take("Daily")) if headers.has("Daily") else None
    attempt = None
    if headers.has("Attempt"):
        attempt_header = headers.take("Attempt")
        if daily is None:
            raise RecordSyntaxError("an Attempt comes only after a Daily header", attempt_header.line)
        words = "scored, unscored or practice"
        attempt = _ATTEMPTS[_read_checked(attempt_header, _ATTEMPTS.__contains__, words)]
    server_seed = _read_natural(headers.take("ServerSeed"))
    salt = _read_text(headers.take("Salt"))
    commitment_value = _read_digest(headers.take("Commitment"))
    shares = _read_shares(headers)
    seed = _read_natural(headers.take("Seed"))
    racers = [_read_racer(header) for header in headers.take_all("Racer")]
    if not racers:
        headers.take("Racer")
    results = [_read_result(header) for header in headers.take_all("Result")]
    headers.finish()
    return RaceRecord(
        game=game,
        deal_version=deal_version,
        race_id=race_id,
        started_at=started_at,
        ended_at=ended_at,
        time_limit_ms=time_limit_ms,
        rated=rated,
        daily=daily,
        server_seed=server_seed,
        salt=salt,
        commitment=commitment_value,
        shares=shares,
        seed=seed,
        racers=tuple(racers),
        results=tuple(results),
        moves=tuple((section.player_id, tuple(section.moves)) for section in sections),
        attempt=attempt,
    )


def _read_shares(headers: _Headers) -> tuple[RecordShare, ...]:
    if headers.has("Shares"):
        none = headers.take("Shares")
        if none.value != "none":
            raise RecordSyntaxError('[Shares] is only ever "none"', none.line)
        return ()
    shares = [_read_share(header) for header in headers.take_all("Share")]
    if not shares:
        headers.take("Share")
    return tuple(shares)


def _read_share(header: _Header) -> RecordShare:
    fields = _fields(header, 3, "<player id> <commitment> <share>")
    if not _ID.fullmatch(fields[0]):
        raise _bad(header, "a player id")
    if not _DIGEST.fullmatch(fields[1]):
        raise _bad(header, "a commitment (64 lowercase hex digits)")
    if not _SHARE_TEXT.fullmatch(fields[2]):
        raise _bad(header, "a share (letters and digits)")
    return RecordShare(*fields)


def _read_racer(header: _Header) -> RecordRacer:
    player, _space, rest = header.value.partition(" ")
    fields = rest.rsplit(" ", 2)
    if len(fields) != 3:
        raise RecordSyntaxError('a Racer is "<player id> <name> <bot|human> <rating|->"', header.line)
    name, kind, rating = fields
    if not _ID.fullmatch(player):
        raise _bad(header, "a player id")
    if not _is_plain(name):
        raise _bad(header, f"a name (at most {MAX_TEXT} characters, no control characters)")
    if kind not in ("bot", "human"):
        raise _bad(header, "'bot' or 'human'")
    if rating != "-" and not _INTEGER.fullmatch(rating):
        raise _bad(header, "a rating (a whole number, or - for none)")
    return RecordRacer(player, name, kind == "bot", None if rating == "-" else int(rating))


def _read_result(header: _Header) -> RecordResult:
    shape = "<rank> <player id> <won|-> <score> <move count> <time ms|-> <score reached ms>"
    rank, player, won, score, move_count, time_ms, reached = _fields(header, 7, shape)
    for text in (rank, score, move_count, reached):
        if not _NATURAL.fullmatch(text):
            raise _bad(header, f"a whole number instead of {_shown(text)}")
    if not _ID.fullmatch(player):
        raise _bad(header, "a player id")
    if won not in ("won", "-"):
        raise _bad(header, "'won' or '-'")
    if time_ms != "-" and not _NATURAL.fullmatch(time_ms):
        raise _bad(header, "a time to win (a whole number of ms, or -)")
    return RecordResult(
        int(rank),
        player,
        won == "won",
        int(score),
        int(move_count),
        None if time_ms == "-" else int(time_ms),
        int(reached),
    )


def _fields(header: _Header, count: int, shape: str) -> list[str]:
    fields = header.value.split(" ")
    if len(fields) != count:
        raise RecordSyntaxError(f'a {header.name} is "{shape}", one space apart', header.line)
    return fields


def _bad(header: _Header, expected: str) -> RecordSyntaxError:
    return RecordSyntaxError(f"this {header.name} needs {expected}", header.line)


def _read_checked(header: _Header, check: Callable[[str], object], expected: str) -> str:
    if not check(header.value):
        raise RecordSyntaxError(f"{header.name} is {expected}, not {_shown(header.value)}", header.line)
    return header.value


def _read_natural(header: _Header) -> int:
    return int(_read_checked(header, _NATURAL.fullmatch, "a whole number from 0 (at most 60 digits)"))


def _read_token(header: _Header) -> str:
    return _read_checked(header, _ID.fullmatch, "1 to 64 letters, digits, '_' and '-'")


def _read_digest(header: _Header) -> str:
    return _read_checked(header, _DIGEST.fullmatch, "64 lowercase hex digits")


def _read_text(header: _Header) -> str:
    return _read_checked(header, _is_plain, f"at most {MAX_TEXT} characters without control characters")


def _read_day(header: _Header) -> str:
    return _read_checked(header, _is_day, "a date YYYY-MM-DD")


def _read_choice(header: _Header, choices: dict[str, bool]) -> bool:
    return choices[_read_checked(header, choices.__contains__, " or ".join(map(repr, choices)))]


# ----- verifying -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Outcome:
    """What replaying one racer's moves gives."""

    won: bool
    score: int
    move_count: int
    time_ms: int | None
    score_reached_ms: int


def verify_record(record: RaceRecord) -> None:
    """Check ``record`` as anyone could after the race, raising :class:`RecordRejected` at
    the first failed check, in this order (docs/record.md, "Verification"):

    1. the commitment is the SHA-256 of the game, the server seed and the salt;
    2. a daily challenge run has one racer; racers are listed once each; every share is
       well formed, matches its commitment, and belongs to a racer who has no other share;
    3. the seed is the mix of the server seed and the shares (the server seed without any);
    4. each racer's moves replay legally from the deal, played as races are
       (:attr:`UndoRule.KEEP_REVEALS`), numbered 1, 2, 3..., in time order within the time
       limit, and none after a win;
    5. the results list each racer once, in standing order, and each says what the moves
       give: won, score, move count, time to win, when the score was reached, and rank.
    """
    _check_commitment(record)
    racers = _check_racers_and_shares(record)
    _check_seed(record)
    outcomes = _check_moves(record, racers)
    _check_results(record, outcomes)


def _check_commitment(record: RaceRecord) -> None:
    if commitment(record.game, record.server_seed, record.salt) != record.commitment:
        raise RecordRejected("the commitment does not match the server seed and salt")


def _check_racers_and_shares(record: RaceRecord) -> list[str]:
    if record.daily is not None and len(record.racers) != 1:
        raise RecordRejected(f"a daily challenge run has one racer, not {len(record.racers)}")
    racers: list[str] = []
    for racer in record.racers:
        if racer.player_id in racers:
            raise RecordRejected("the racer is listed twice", racer.player_id)
        racers.append(racer.player_id)
    shared: set[str] = set()
    for share in record.shares:
        player = share.player_id
        if player not in racers:
            raise RecordRejected("a share for a player who is not a racer", player)
        if player in shared:
            raise RecordRejected("two shares for one racer", player)
        shared.add(player)
        if not isinstance(share.share, str) or not is_share(share.share):
            raise RecordRejected("the share is not 16 to 64 lowercase hex digits", player)
        if share_commitment(share.share) != share.commitment:
            raise RecordRejected("the share does not match its commitment", player)
    return racers


def _check_seed(record: RaceRecord) -> None:
    shares = {share.player_id: share.share for share in record.shares}
    if record.seed != mixed_seed(record.game, record.server_seed, shares):
        if shares:
            raise RecordRejected("the seed is not the mix of the server seed and the shares")
        raise RecordRejected("the seed is not the server seed (the record has no shares)")


def _check_moves(record: RaceRecord, racers: list[str]) -> dict[str, _Outcome]:
    sections: set[str] = set()
    for player, _moves in record.moves:
        if player not in racers:
            raise RecordRejected("moves for a player who is not a racer", player)
        if player in sections:
            raise RecordRejected("two move sections for one racer", player)
        sections.add(player)
    try:
        deal = new_game(record.game, record.seed, record.deal_version, UndoRule.KEEP_REVEALS)
    except ValueError as exc:
        raise RecordRejected(f"the game cannot be dealt: {exc}") from None
    return {
        player: _replay(deal.copy(), player, record.moves_of(player), record.time_limit_ms)
        for player in racers
    }


def _replay(game: Game, player: str, moves: tuple[RecordMove, ...], time_limit_ms: int) -> _Outcome:
    previous_at, reached_at, won_at = 0, 0, None
    for index, move in enumerate(moves):
        if move.seq != index + 1:
            raise RecordRejected(f"the move's seq is {move.seq}, not {index + 1}", player, index)
        if game.is_won:
            raise RecordRejected("a move after the racer won", player, index)
        if move.at_ms < 0:
            raise RecordRejected(f"played at {move.at_ms} ms, before the race started", player, index)
        if move.at_ms < previous_at:
            raise RecordRejected(
                f"time goes backwards: {move.at_ms} ms, after a move at {previous_at} ms", player, index
            )
        if move.at_ms > time_limit_ms:
            raise RecordRejected(
                f"played at {move.at_ms} ms, after the time limit of {time_limit_ms} ms", player, index
            )
        score_before = game.score
        try:
            result = game.play(move.move)
        except IllegalMove as exc:
            raise RecordRejected(f"illegal move {move.move!r}: {exc.reason}", player, index) from None
        if result.score != score_before:
            reached_at = move.at_ms
        if result.won:
            won_at = move.at_ms
        previous_at = move.at_ms
    return _Outcome(game.is_won, game.score, game.move_count, won_at, reached_at)


def _check_results(record: RaceRecord, outcomes: dict[str, _Outcome]) -> None:
    listed: set[str] = set()
    for result in record.results:
        player = result.player_id
        if player not in outcomes:
            raise RecordRejected("a result for a player who is not a racer", player)
        if player in listed:
            raise RecordRejected("two results for one racer", player)
        listed.add(player)
    for player in outcomes:
        if player not in listed:
            raise RecordRejected("the racer has no result", player)
    for result in record.results:
        _check_result(result, outcomes[result.player_id])
    standings = rank_results(
        (player, result_key(o.won, o.time_ms, o.score, o.score_reached_ms)) for player, o in outcomes.items()
    )
    rank_of = {player: rank for rank, player in standings}
    for result in record.results:
        if result.rank != rank_of[result.player_id]:
            raise RecordRejected(
                f"results say rank={result.rank} but the moves give rank={rank_of[result.player_id]}",
                result.player_id,
            )
    for place, (result, (_rank, player)) in enumerate(zip(record.results, standings, strict=True), start=1):
        if result.player_id != player:
            raise RecordRejected(
                f"results list the racer in place {place}, where {player} belongs "
                "(best first, equal results in player id order)",
                result.player_id,
            )


def _check_result(result: RecordResult, outcome: _Outcome) -> None:
    player = result.player_id
    if result.won != outcome.won:
        does = "win" if outcome.won else "do not win"
        raise RecordRejected(f"results say won={result.won} but the moves {does}", player)
    for field, claimed, actual in (
        ("score", result.score, outcome.score),
        ("move_count", result.move_count, outcome.move_count),
        ("time_ms", result.time_ms, outcome.time_ms),
        ("score_reached_ms", result.score_reached_ms, outcome.score_reached_ms),
    ):
        if claimed != actual:
            raise RecordRejected(f"results say {field}={claimed} but the moves give {field}={actual}", player)

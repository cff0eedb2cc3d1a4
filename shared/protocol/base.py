"""What every protocol module shares: versions, ids, names, error codes, the two bases.

A request (client to server) rejects unknown fields; a reply or event (server to
client) ignores them, so an older client keeps working against a newer server.
"""

from __future__ import annotations

import re
import unicodedata
from enum import StrEnum
from typing import Annotated, Final, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from shared.name_chars import invisible_problem, is_mark, mark_problem

#: Bumped on any incompatible change; exchanged in ``hello``/``welcome``.
PROTOCOL_VERSION: Final = 1

RequestId = Annotated[int | str, Field(union_mode="left_to_right")]
RaceId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
NAME_MAX: Final = 24
_NAME_PUNCTUATION: Final = frozenset(" _.-")


def check_name(name: str) -> str:
    """A player name, NFC-normalized: letters (any script, with the combining marks that
    spell them), digits, space and ``_ . -``, starting with a letter or digit, not ending
    with a space, and with no character that draws nothing.

    >>> check_name("Zoe\\u0308")  # e + combining diaeresis composes to one letter
    'Zoë'
    >>> suresh = "\\u0938\\u0941\\u0930\\u0947\\u0936"  # Devanagari, vowel signs and all
    >>> check_name(suresh) == suresh
    True
    >>> check_name(" ada")
    Traceback (most recent call last):
    ...
    ValueError: a name starts with a letter or digit and uses only letters, digits, spaces, '_', '-' and '.'
    >>> check_name("bob ")
    Traceback (most recent call last):
    ...
    ValueError: a name does not end with a space
    """
    name = unicodedata.normalize("NFC", name)
    if not 1 <= len(name) <= NAME_MAX:
        raise ValueError(f"a name has 1 to {NAME_MAX} characters")
    if not name[0].isalnum() or any(not (c.isalnum() or is_mark(c) or c in _NAME_PUNCTUATION) for c in name):
        raise ValueError(
            "a name starts with a letter or digit and uses only letters, digits, spaces, '_', '-' and '.'"
        )
    if name[-1] == " ":
        raise ValueError("a name does not end with a space")
    problem = invisible_problem(name) or mark_problem(name)
    if problem is not None:
        raise ValueError(problem)
    return name


PlayerName = Annotated[str, AfterValidator(check_name)]


#: A name with the number :func:`numbered_name` adds: the name, and `` (N)``.
NUMBERED_NAME: Final = re.compile(r"(.+)( \([0-9]+\))")


def unnumbered_name(name: str) -> str:
    """``name`` without the number :func:`numbered_name` added to it, if it has one.

    >>> unnumbered_name("root (2)"), unnumbered_name("root")
    ('root', 'root')
    """
    numbered = NUMBERED_NAME.fullmatch(name)
    return numbered.group(1) if numbered else name


def numbered_name(name: str, number: int) -> str:
    """``name`` with a number that tells it apart from the same name on another seat of
    a race, its end cut so that the whole still has at most :data:`NAME_MAX` characters.
    No name a player can take has brackets, so a numbered one is never a player's own.

    >>> numbered_name("root", 2)
    'root (2)'
    >>> numbered_name("Hank the Tank of Ankh Mo", 3)
    'Hank the Tank of Ank (3)'
    >>> numbered_name("Hank the Tank of an ox", 3)  # no space left before the number
    'Hank the Tank of an (3)'
    """
    suffix = f" ({number})"
    return name[: NAME_MAX - len(suffix)].rstrip(" ") + suffix


def name_fold(name: str) -> str:
    """What two seats of one race must not share: the name case-folded (NFC, as names
    are kept).

    >>> name_fold("Zo\u00cb") == name_fold("zo\u00eb"), name_fold("STRASSE") == name_fold("stra\u00dfe")
    (True, True)
    """
    return unicodedata.normalize("NFC", name.casefold())


class ErrorCode(StrEnum):
    """The fixed set of error codes an ``error`` message may carry."""

    MALFORMED = "malformed"
    UNKNOWN_TYPE = "unknown_type"
    INVALID_MESSAGE = "invalid_message"
    UNSUPPORTED_PROTOCOL = "unsupported_protocol"
    HELLO_REQUIRED = "hello_required"
    BAD_TOKEN = "bad_token"
    RATE_LIMITED = "rate_limited"
    RACE_NOT_FOUND = "race_not_found"
    NOT_A_RACER = "not_a_racer"
    RACE_FULL = "race_full"
    RACE_NOT_OPEN = "race_not_open"
    RACE_NOT_STARTED = "race_not_started"
    RACE_OVER = "race_over"
    RACE_NOT_OVER = "race_not_over"
    RACE_CANCELLED = "race_cancelled"
    RACER_FINISHED = "racer_finished"
    NOT_CREATOR = "not_creator"
    NOT_ENOUGH_RACERS = "not_enough_racers"
    TOO_MANY_RACES = "too_many_races"
    ALREADY_QUEUED = "already_queued"
    QUICK_MATCH_CANCELLED = "quick_match_cancelled"
    ALREADY_RACING = "already_racing"
    ILLEGAL_MOVE = "illegal_move"
    HINTS_OFF = "hints_off"
    BAD_USERNAME = "bad_username"
    USERNAME_TAKEN = "username_taken"
    ALREADY_REGISTERED = "already_registered"
    BAD_LOGIN = "bad_login"
    NOT_REGISTERED = "not_registered"
    PLAYER_NOT_FOUND = "player_not_found"
    DAILY_ATTEMPTED = "daily_attempted"
    DAILY_NOT_ATTEMPTED = "daily_not_attempted"
    DAILY_NOT_READY = "daily_not_ready"
    NO_DAILY = "no_daily"
    NOT_YET = "not_yet"
    OWN_RACE = "own_race"
    BAD_SHARE = "bad_share"
    REMATCH_NOT_OPEN = "rematch_not_open"
    REMATCH_EXISTS = "rematch_exists"
    STALE_SEQ = "stale_seq"
    SEQ_CONFLICT = "seq_conflict"
    FUTURE_SEQ = "future_seq"
    UNAVAILABLE = "unavailable"
    INTERNAL_ERROR = "internal_error"


class ProtocolError(Exception):
    """A frame that cannot become a message; carries the wire error code."""

    def __init__(self, code: ErrorCode, message: str, request_id: int | str | None = None) -> None:
        super().__init__(f"{code.value}: {message}")
        self.code = code
        self.message = message
        self.request_id = request_id


class Request(BaseModel):
    """A client message: unknown fields are rejected, and so is a value of another type
    (no ``"3"`` or ``3.0`` for an integer, no ``true`` for an id)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Reply(BaseModel):
    """A server message or part of one: unknown fields are ignored (newer servers)."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class Error(Reply):
    type: Literal["error"] = "error"
    id: RequestId | None = None
    code: ErrorCode
    message: str


class Ok(Reply):
    type: Literal["ok"] = "ok"
    id: RequestId | None = None
    #: The new token of the session, in place of the one it said hello with: only in the
    #: reply to ``change_password`` (absent everywhere else).
    token: str | None = None

"""The exception handlers raise; the transport turns it into an ``error`` message."""

from __future__ import annotations

from typing import Final

from server.store.records import Answer, RaceStatus
from shared.protocol import ErrorCode


class ArenaError(Exception):
    """A request that cannot be served, with the wire code and a readable message."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def race_not_found(race_id: str) -> ArenaError:
    return ArenaError(ErrorCode.RACE_NOT_FOUND, f"there is no race {race_id[:64]!r}")


def not_a_racer(race_id: str) -> ArenaError:
    return ArenaError(ErrorCode.NOT_A_RACER, f"you are not racing in race {race_id[:64]!r}")


#: Why a race is no longer open, by its status.
_NOT_OPEN_BECAUSE: Final[dict[RaceStatus, str]] = {
    RaceStatus.COUNTDOWN: "its countdown to the start has begun",
    RaceStatus.RUNNING: "it has started",
    RaceStatus.ENDING: "it has ended",
    RaceStatus.FINISHED: "it has ended",
    RaceStatus.CANCELLED: "it was cancelled",
}


def race_not_open(status: RaceStatus | None) -> ArenaError:
    """A join or start refused because the race is no longer open, saying which of
    started, ended or cancelled it is (``status``: the race's status as the store found it).

    >>> race_not_open(RaceStatus.CANCELLED).message
    'that race is no longer open: it was cancelled'
    >>> race_not_open(RaceStatus.RUNNING).message, race_not_open(RaceStatus.FINISHED).message
    ('that race is no longer open: it has started', 'that race is no longer open: it has ended')
    >>> race_not_open(RaceStatus.COUNTDOWN).message
    'that race is no longer open: its countdown to the start has begun'
    """
    because = _NOT_OPEN_BECAUSE.get(status) if status is not None else None
    return ArenaError(
        ErrorCode.RACE_NOT_OPEN, f"that race is no longer open: {because or 'it has started or ended'}"
    )


#: The store's answers that are errors, with their wire code and message.
_ANSWER_ERRORS: Final[dict[Answer, tuple[ErrorCode, str]]] = {
    Answer.NOT_FOUND: (ErrorCode.RACE_NOT_FOUND, "there is no such race"),
    Answer.NOT_OPEN: (ErrorCode.RACE_NOT_OPEN, "that race is no longer open: it has started or ended"),
    Answer.FULL: (ErrorCode.RACE_FULL, "every seat of that race is taken"),
    Answer.NOT_A_RACER: (ErrorCode.NOT_A_RACER, "you are not racing in that race"),
    Answer.NOT_STARTED: (ErrorCode.RACE_NOT_STARTED, "the race has not started yet: wait for it"),
    Answer.OVER: (ErrorCode.RACE_OVER, "the race is over: no more moves"),
    Answer.FINISHED: (ErrorCode.RACER_FINISHED, "you have finished this race: no more moves"),
}


def answer_error(answer: Answer) -> ArenaError:
    """The error for a store answer that refuses the request."""
    code, message = _ANSWER_ERRORS.get(answer, (ErrorCode.INTERNAL_ERROR, f"store said {answer.value!r}"))
    return ArenaError(code, message)

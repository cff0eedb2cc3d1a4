"""The exception handlers raise; the connection turns it into an ``error`` message."""

from __future__ import annotations

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


#: Store script answers that are errors, by word.
SCRIPT_ERRORS: dict[str, tuple[ErrorCode, str]] = {
    "not_found": (ErrorCode.RACE_NOT_FOUND, "there is no such race"),
    "not_open": (ErrorCode.RACE_NOT_OPEN, "that race is no longer open: it has started or ended"),
    "full": (ErrorCode.RACE_FULL, "every seat of that race is taken"),
    "not_a_racer": (ErrorCode.NOT_A_RACER, "you are not racing in that race"),
    "not_started": (ErrorCode.RACE_NOT_STARTED, "the race has not started yet: wait for it"),
    "over": (ErrorCode.RACE_OVER, "the race is over: no more moves"),
    "finished": (ErrorCode.RACER_FINISHED, "you have finished this race: no more moves"),
}


def script_error(word: str) -> ArenaError:
    code, message = SCRIPT_ERRORS.get(word, (ErrorCode.INTERNAL_ERROR, f"store said {word!r}"))
    return ArenaError(code, message)

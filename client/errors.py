"""Typed errors: one exception class per error code of the protocol.

Every class is an :class:`ArenaError`; catch the base for any refusal, or one class for
one reason::

    try:
        await client.move(race_id, "t1>f1")
    except IllegalMoveError as refused:
        print(refused.message)

:data:`RETRYABLE` are the codes worth retrying later with the same request.
"""

from __future__ import annotations

from typing import ClassVar, Final

from shared.protocol import ErrorCode, MoveAck, QuickMatchLeft


class ArenaError(Exception):
    """The server refused a request: ``code`` (an :class:`ErrorCode` value) says why and
    ``message`` explains it in words."""

    code_of_class: ClassVar[str] = ""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class QueueLeftError(Exception):
    """The quick match being waited for ended otherwise than paired: ``left`` (the
    ``quick_match_left`` event) says why."""

    def __init__(self, left: QuickMatchLeft) -> None:
        super().__init__(f"{left.reason}: {left.message}")
        self.left = left


class UnexpectedReplyError(ArenaError):
    """The server answered with a message of the wrong type (a client or server bug)."""

    code_of_class = "unexpected_reply"


class ConnectionLostError(ArenaError, ConnectionError):
    """The connection dropped before the reply came, and could not be resumed in time."""

    code_of_class = "connection_lost"


class MalformedError(ArenaError):
    """The frame was not msgpack or JSON, or not a map."""

    code_of_class = ErrorCode.MALFORMED.value


class UnknownTypeError(ArenaError):
    """The request's type names no request."""

    code_of_class = ErrorCode.UNKNOWN_TYPE.value


class InvalidMessageError(ArenaError):
    """A field was missing, mistyped or out of range (or a second hello)."""

    code_of_class = ErrorCode.INVALID_MESSAGE.value


class UnsupportedProtocolError(ArenaError):
    """The server speaks another protocol version."""

    code_of_class = ErrorCode.UNSUPPORTED_PROTOCOL.value


class HelloRequiredError(ArenaError):
    """The request came before hello."""

    code_of_class = ErrorCode.HELLO_REQUIRED.value


class BadTokenError(ArenaError):
    """The token is unknown (or the guest expired): say hello with a name."""

    code_of_class = ErrorCode.BAD_TOKEN.value


class RateLimitedError(ArenaError):
    """Too much, too fast: the request was dropped; slow down and retry."""

    code_of_class = ErrorCode.RATE_LIMITED.value


class RaceNotFoundError(ArenaError):
    """No race has that id or code."""

    code_of_class = ErrorCode.RACE_NOT_FOUND.value


class NotARacerError(ArenaError):
    """You do not race in that race."""

    code_of_class = ErrorCode.NOT_A_RACER.value


class RaceFullError(ArenaError):
    """Every seat of the race is taken."""

    code_of_class = ErrorCode.RACE_FULL.value


class RaceNotOpenError(ArenaError):
    """The race has left the lobby."""

    code_of_class = ErrorCode.RACE_NOT_OPEN.value


class RaceNotStartedError(ArenaError):
    """The countdown is not over yet."""

    code_of_class = ErrorCode.RACE_NOT_STARTED.value


class RaceOverError(ArenaError):
    """The race has ended, or its time limit passed."""

    code_of_class = ErrorCode.RACE_OVER.value


class RaceNotOverError(ArenaError):
    """Results and move logs exist only after the end."""

    code_of_class = ErrorCode.RACE_NOT_OVER.value


class RaceCancelledError(ArenaError):
    """The race was cancelled: it has no results."""

    code_of_class = ErrorCode.RACE_CANCELLED.value


class RacerFinishedError(ArenaError):
    """You already won or gave up."""

    code_of_class = ErrorCode.RACER_FINISHED.value


class NotCreatorError(ArenaError):
    """Only the race's creator may start it."""

    code_of_class = ErrorCode.NOT_CREATOR.value


class NotEnoughRacersError(ArenaError):
    """A race needs two racers to start."""

    code_of_class = ErrorCode.NOT_ENOUGH_RACERS.value


class TooManyRacesError(ArenaError):
    """You sit in too many races that have not started."""

    code_of_class = ErrorCode.TOO_MANY_RACES.value


class AlreadyQueuedError(ArenaError):
    """You are queued for another game: cancel that first."""

    code_of_class = ErrorCode.ALREADY_QUEUED.value


class QuickMatchCancelledError(ArenaError):
    """Another session cancelled the quick match while this one was being queued."""

    code_of_class = ErrorCode.QUICK_MATCH_CANCELLED.value


class AlreadyRacingError(ArenaError):
    """You (or a racer of that race) race elsewhere."""

    code_of_class = ErrorCode.ALREADY_RACING.value


class IllegalMoveError(ArenaError):
    """The engine refused the move; the message is its reason."""

    code_of_class = ErrorCode.ILLEGAL_MOVE.value


class HintsOffError(ArenaError):
    """The race does not allow hints (its ``hints`` setting is off)."""

    code_of_class = ErrorCode.HINTS_OFF.value


class RematchNotOpenError(ArenaError):
    """No rematch offer is open to answer: none was made, it was decided, it expired, or
    you answered it already."""

    code_of_class = ErrorCode.REMATCH_NOT_OPEN.value


class RematchExistsError(ArenaError):
    """A rematch of that race is already offered or started."""

    code_of_class = ErrorCode.REMATCH_EXISTS.value


class BadUsernameError(ArenaError):
    """The username is not one (its length, characters or mixed scripts); the message says why."""

    code_of_class = ErrorCode.BAD_USERNAME.value


class UsernameTakenError(ArenaError):
    """An account has that username, or one too like it."""

    code_of_class = ErrorCode.USERNAME_TAKEN.value


class AlreadyRegisteredError(ArenaError):
    """The player has an account already."""

    code_of_class = ErrorCode.ALREADY_REGISTERED.value


class BadLoginError(ArenaError):
    """Wrong username or password (or, changing it, the old password)."""

    code_of_class = ErrorCode.BAD_LOGIN.value


class NotRegisteredError(ArenaError):
    """That needs an account, and the player is a guest."""

    code_of_class = ErrorCode.NOT_REGISTERED.value


class PlayerNotFoundError(ArenaError):
    """No player has that id, or no account that username."""

    code_of_class = ErrorCode.PLAYER_NOT_FOUND.value


class DailyAttemptedError(ArenaError):
    """The player's attempt of today's deal (scored, or a guest's first play) is over."""

    code_of_class = ErrorCode.DAILY_ATTEMPTED.value


class DailyNotAttemptedError(ArenaError):
    """Practice comes after the scored attempt of the day's deal is over."""

    code_of_class = ErrorCode.DAILY_NOT_ATTEMPTED.value


class DailyNotReadyError(ArenaError):
    """That day's deal is not prepared (yet): try again shortly, or another day."""

    code_of_class = ErrorCode.DAILY_NOT_READY.value


class NoDailyError(ArenaError):
    """A past day had no daily deal (of that game): asking again changes nothing."""

    code_of_class = ErrorCode.NO_DAILY.value


class NotYetError(ArenaError):
    """Not before your own scored attempt of that daily deal is over, or the day is."""

    code_of_class = ErrorCode.NOT_YET.value


class OwnRaceError(ArenaError):
    """A racer cannot watch the race they are in (another board shows their hidden cards)."""

    code_of_class = ErrorCode.OWN_RACE.value


class BadShareError(ArenaError):
    """A seed share that is malformed or does not match the commitment sent with the join."""

    code_of_class = ErrorCode.BAD_SHARE.value


class PlayedElsewhereError(ArenaError):
    """The seq this client chose for a move already holds that same move, played on
    another session of this player (a tab, a device): the server acked it as a resend,
    and nothing of this client's was played. ``ack`` is that stored ack (the board as it
    was after it); moves played elsewhere since may have moved the board on."""

    code_of_class = "played_elsewhere"

    def __init__(self, code: str, message: str, ack: MoveAck) -> None:
        super().__init__(code, message)
        self.ack = ack


class StaleSeqError(ArenaError):
    """That seq was already played."""

    code_of_class = ErrorCode.STALE_SEQ.value


class SeqConflictError(ArenaError):
    """The last seq was sent again with a different move."""

    code_of_class = ErrorCode.SEQ_CONFLICT.value


class FutureSeqError(ArenaError):
    """The seq skips ahead of the next one."""

    code_of_class = ErrorCode.FUTURE_SEQ.value


class UnavailableError(ArenaError):
    """The server cannot reach its store: retry shortly (a move with the same seq is safe)."""

    code_of_class = ErrorCode.UNAVAILABLE.value


class InternalErrorError(ArenaError):
    """The server failed on the request (it may or may not have taken effect)."""

    code_of_class = ErrorCode.INTERNAL_ERROR.value


#: The exception class of each error code.
ERROR_CLASSES: Final[dict[ErrorCode, type[ArenaError]]] = {
    ErrorCode.MALFORMED: MalformedError,
    ErrorCode.UNKNOWN_TYPE: UnknownTypeError,
    ErrorCode.INVALID_MESSAGE: InvalidMessageError,
    ErrorCode.UNSUPPORTED_PROTOCOL: UnsupportedProtocolError,
    ErrorCode.HELLO_REQUIRED: HelloRequiredError,
    ErrorCode.BAD_TOKEN: BadTokenError,
    ErrorCode.RATE_LIMITED: RateLimitedError,
    ErrorCode.RACE_NOT_FOUND: RaceNotFoundError,
    ErrorCode.NOT_A_RACER: NotARacerError,
    ErrorCode.RACE_FULL: RaceFullError,
    ErrorCode.RACE_NOT_OPEN: RaceNotOpenError,
    ErrorCode.RACE_NOT_STARTED: RaceNotStartedError,
    ErrorCode.RACE_OVER: RaceOverError,
    ErrorCode.RACE_NOT_OVER: RaceNotOverError,
    ErrorCode.RACE_CANCELLED: RaceCancelledError,
    ErrorCode.RACER_FINISHED: RacerFinishedError,
    ErrorCode.NOT_CREATOR: NotCreatorError,
    ErrorCode.NOT_ENOUGH_RACERS: NotEnoughRacersError,
    ErrorCode.TOO_MANY_RACES: TooManyRacesError,
    ErrorCode.ALREADY_QUEUED: AlreadyQueuedError,
    ErrorCode.QUICK_MATCH_CANCELLED: QuickMatchCancelledError,
    ErrorCode.ALREADY_RACING: AlreadyRacingError,
    ErrorCode.ILLEGAL_MOVE: IllegalMoveError,
    ErrorCode.HINTS_OFF: HintsOffError,
    ErrorCode.REMATCH_NOT_OPEN: RematchNotOpenError,
    ErrorCode.REMATCH_EXISTS: RematchExistsError,
    ErrorCode.BAD_USERNAME: BadUsernameError,
    ErrorCode.USERNAME_TAKEN: UsernameTakenError,
    ErrorCode.ALREADY_REGISTERED: AlreadyRegisteredError,
    ErrorCode.BAD_LOGIN: BadLoginError,
    ErrorCode.NOT_REGISTERED: NotRegisteredError,
    ErrorCode.PLAYER_NOT_FOUND: PlayerNotFoundError,
    ErrorCode.DAILY_ATTEMPTED: DailyAttemptedError,
    ErrorCode.DAILY_NOT_ATTEMPTED: DailyNotAttemptedError,
    ErrorCode.DAILY_NOT_READY: DailyNotReadyError,
    ErrorCode.NO_DAILY: NoDailyError,
    ErrorCode.NOT_YET: NotYetError,
    ErrorCode.OWN_RACE: OwnRaceError,
    ErrorCode.BAD_SHARE: BadShareError,
    ErrorCode.STALE_SEQ: StaleSeqError,
    ErrorCode.SEQ_CONFLICT: SeqConflictError,
    ErrorCode.FUTURE_SEQ: FutureSeqError,
    ErrorCode.UNAVAILABLE: UnavailableError,
    ErrorCode.INTERNAL_ERROR: InternalErrorError,
}

#: Codes after which the same request may succeed later.
RETRYABLE: Final = frozenset({ErrorCode.RATE_LIMITED, ErrorCode.UNAVAILABLE})


def error_for(code: str, message: str) -> ArenaError:
    """The typed exception for an ``error`` reply (the base class for a code this client
    does not know: a newer server may add some)."""
    try:
        kind = ERROR_CLASSES[ErrorCode(code)]
    except ValueError:
        kind = ArenaError
    return kind(code, message)

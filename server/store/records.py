"""What the store reads and writes, as typed records; statuses and script answers as enums."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from shared.protocol import GameName


class RaceStatus(StrEnum):
    """A race's life: open -> countdown -> running -> ending -> finished; or cancelled."""

    OPEN = "open"
    COUNTDOWN = "countdown"
    RUNNING = "running"
    ENDING = "ending"
    FINISHED = "finished"
    CANCELLED = "cancelled"

    @property
    def is_over(self) -> bool:
        return self in (RaceStatus.FINISHED, RaceStatus.CANCELLED)

    @property
    def is_dealt(self) -> bool:
        """Whether the racers' boards exist (from the countdown on)."""
        return self in (RaceStatus.COUNTDOWN, RaceStatus.RUNNING, RaceStatus.ENDING, RaceStatus.FINISHED)

    @property
    def is_started(self) -> bool:
        return self in (RaceStatus.RUNNING, RaceStatus.ENDING, RaceStatus.FINISHED)


class Answer(StrEnum):
    """The words the Lua scripts answer with."""

    OK = "ok"
    ALREADY = "already"
    ALL_READY = "all_ready"
    CANCELLED = "cancelled"
    CHANGED = "changed"
    DUP = "dup"
    SEQ = "seq"
    NOT_FOUND = "not_found"
    NOT_OPEN = "not_open"
    FULL = "full"
    NOT_A_RACER = "not_a_racer"
    NOT_READY = "not_ready"
    READY = "ready"
    NOT_STARTED = "not_started"
    OVER = "over"
    FINISHED = "finished"
    NO = "no"


@dataclass(frozen=True, slots=True)
class Deal:
    """The deal a race starts with: its seed, mixed from the shares of the ``shared``
    racers, and the opening ``position`` (None when the countdown's deal stands) with its
    ``score``, for the boards of ``player_ids``."""

    seed: int
    shared: tuple[str, ...]
    player_ids: tuple[str, ...]
    position: dict[str, Any] | None = None
    score: int = 0


@dataclass(frozen=True, slots=True)
class Seat:
    player_id: str
    name: str
    ready: bool
    joined_at: int
    bot: bool = False
    #: The SHA-256 of the racer's seed share, sent when joining, and the share, sent
    #: when saying ready (both empty for a client that sends none).
    share_commitment: str = ""
    share: str = ""


@dataclass(frozen=True, slots=True)
class RaceMeta:
    race_id: str
    code: str
    game: GameName
    seats: int
    time_limit: float
    status: RaceStatus
    creator: str
    seed: int
    salt: str
    commitment: str
    created_at: int
    starts_at: int | None
    ends_at: int | None
    ended_at: int | None
    #: Why a cancelled race was cancelled (``missed``: its whole window passed unplayed).
    cancel_reason: str | None = None
    #: Whether racers may ask for hints.
    hints: bool = False
    #: Whether the race changes its racers' ratings.
    rated: bool = False
    #: A daily attempt's day (``YYYY-MM-DD``; empty for any other race), and whether it is
    #: the scored attempt.
    daily: str = ""
    daily_scored: bool = False
    #: A practice of a day's deal after the attempt: neither scored nor the attempt, kept
    #: out of the racer's counts and marked so among their recent races.
    practice: bool = False
    #: A quick match, or a rematch of one: set up by the server, never with hints.
    quick: bool = False
    #: Once dealt: how many racers it has, and how many are done (won or gave up).
    racer_count: int = 0
    finished_count: int = 0
    #: The server's own secret seed, the one ``commitment`` promises; ``seed`` (the deal's)
    #: mixes it with the racers' seed shares at the start (shared/fairness.py).
    server_seed: int = 0


@dataclass(frozen=True, slots=True)
class BoardRecord:
    """A racer's stored board: the position dict plus counters."""

    player_id: str
    position: dict[str, Any]
    seq: int
    move_count: int
    score: int
    won: bool
    finished: bool
    score_at: int
    finished_at: int
    #: The ``result`` of the last accepted move (JSON), for a resent seq.
    last_result: str | None = None
    #: The last accepted move's text as the racer sent it.
    last_move: str | None = None
    #: Whether the racer may undo their last move now (docs/rules.md, "Undo").
    can_undo: bool = False


@dataclass(frozen=True, slots=True)
class MoveOutcome:
    """What the move or finish script said."""

    answer: Answer
    current_seq: int | None = None
    all_finished: bool = False


@dataclass(frozen=True, slots=True)
class LoggedMoveRecord:
    player_id: str
    seq: int
    move: str
    at: int


@dataclass(frozen=True, slots=True)
class RematchRecord:
    """A rematch offer as stored: ``answers`` maps each invited racer to ``offered``,
    ``pending``, ``accepted`` or ``declined``; ``status`` is ``open``, ``starting``,
    ``started``, ``declined``, ``expired`` or ``failed``."""

    race_id: str
    offered_by: str
    status: str
    expires_at: int
    answers: dict[str, str]
    #: The seed share commitment each racer sent with their offer or acceptance.
    commitments: dict[str, str] = field(default_factory=dict)
    new_race_id: str | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class PlayerRating:
    """A player's Glicko-2 rating in one game, as stored; ``games`` counts the rated races
    that changed it (and versions it: an update expects the count it was computed from)."""

    rating: float
    rd: float
    volatility: float
    games: int
    last_at: int


@dataclass(frozen=True, slots=True)
class RacerRecord:
    """What a race's end writes for one racer, in the same atomic call that ends it: the
    new rating (rated races) expected to replace the one with ``games`` = ``expect``, and
    the race in the racer's counts and recent races."""

    player_id: str
    won: bool
    time_ms: int | None
    recent: str
    rating: PlayerRating | None = None
    expect: int = 0
    listed: bool = False
    history: str = ""
    #: Whether the race counts in the racer's stats (a daily practice does not).
    counted: bool = True


@dataclass(frozen=True, slots=True)
class DailyDeal:
    """A day's deal of one game: the seed (secret until the day is over), which candidate
    it was, its commitment and whether the solver proved it winnable (with a line of
    ``line_length`` moves)."""

    seed: int
    candidate: int
    salt: str
    commitment: str
    proven: bool
    line_length: int

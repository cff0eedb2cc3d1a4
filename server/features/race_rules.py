"""The rules of a race that need no I/O: its clock's decisions and standings.

Unit-tested without Redis (tests/server/features/test_race_rules.py).
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from server.store.records import BoardRecord, RaceMeta, RaceStatus, Seat
from shared import Game, GameName, dealt_home
from shared.protocol import RacerInfo, Standing
from shared.ranking import ResultKey, rank_results, result_key

CARDS = 52


class ClockAction(Enum):
    """What the clock does with a race whose deadline came."""

    #: Nothing left to time (over, gone, or never started): forget the deadline.
    DROP = "drop"
    #: The countdown is over: the race runs.
    GO = "go"
    #: The time limit passed, everyone is done, or an end was interrupted: end it.
    END = "end"
    #: Running, not yet at its limit (a start interrupted before its limit was set).
    RESCHEDULE = "reschedule"
    #: Still open, its deadline just written: a start under way on some node. Look again.
    WAIT = "wait"


#: How long an open race's deadline is left for the start that wrote it, ms. Its deadline
#: is written before the start itself (so a node dying in between leaves it found); a
#: clock must not take the race's staying open for a start that never came.
START_GRACE_MS = 10_000


def clock_action(meta: RaceMeta | None, now: int, due_at: int | None = None) -> ClockAction:
    """What to do with a race whose deadline (``due_at``) came.

    >>> clock_action(None, 0)
    <ClockAction.DROP: 'drop'>
    """
    if meta is not None and meta.status is RaceStatus.OPEN and due_at is not None:
        return ClockAction.WAIT if now - due_at < START_GRACE_MS else ClockAction.DROP
    if meta is None or meta.status.is_over or meta.status is RaceStatus.OPEN:
        return ClockAction.DROP
    if meta.status is RaceStatus.COUNTDOWN:
        return ClockAction.GO
    if meta.status is RaceStatus.ENDING or (meta.ends_at is not None and now >= meta.ends_at):
        return ClockAction.END
    if 0 < meta.racer_count <= meta.finished_count:
        return ClockAction.END  # everyone is done: the node ending it did not get to
    return ClockAction.RESCHEDULE


def view_of(game: Game, legal: bool, can_undo: bool | None = None, changed: bool = False) -> dict[str, Any]:
    """A board's view as a wire dict, with its legal moves and whether it can undo when
    the session asked. ``can_undo`` is what the store says of a game loaded from a
    position alone (it has no moves to take back, though the racer may have). ``changed``:
    only the piles the game's last move changed (``Game.changed_view``)."""
    # A fresh dict per call, either way.
    view: dict[str, Any] = game.changed_view() if changed else game.view()  # type: ignore[assignment]
    if legal:
        view["legal_moves"] = game.legal_moves()
        view["can_undo"] = game.can_undo() if can_undo is None else can_undo
    return view


def race_window(now: int, countdown: float, time_limit: float) -> tuple[int, int]:
    """(starts_at, ends_at) of a race whose countdown begins at ``now`` (ms).

    >>> race_window(1_000, 3.0, 60.0)
    (4000, 64000)
    """
    starts_at = now + int(countdown * 1000)
    return starts_at, starts_at + int(time_limit * 1000)


def window_from_go(meta: RaceMeta, now: int) -> tuple[int, int] | None:
    """(starts_at, ends_at) of a race whose countdown is over and which starts ``now``:
    it gets its whole time limit however late its clock came. None when ``now`` is past
    the window the race was announced with: nobody could play it, so it is void.

    >>> meta = RaceMeta("r", "c", "treize", 2, 60.0, RaceStatus.COUNTDOWN, "p", 1, "s", "h", 0,
    ...                 starts_at=3_000, ends_at=63_000, ended_at=None)
    >>> window_from_go(meta, 3_020)
    (3020, 63020)
    >>> window_from_go(meta, 40_000)
    (40000, 100000)
    >>> window_from_go(meta, 63_000) is None
    True
    """
    announced_end = meta.ends_at if meta.ends_at is not None else now + 1
    if now >= announced_end:
        return None
    return now, now + int(meta.time_limit * 1000)


def _result_key(board: BoardRecord, started_at: int) -> ResultKey:
    """Smaller is better; equal keys are equal results (:func:`shared.ranking.result_key`)."""
    time_ms = board.finished_at - started_at if board.won else None
    return result_key(board.won, time_ms, board.score, max(0, board.score_at - started_at))


def standings(seats: list[Seat], boards: list[BoardRecord], started_at: int) -> list[Standing]:
    """Winners first by time to win; then by score; then by who reached that score first.
    Equal results share a rank (1, 1, 3) and are listed in player id order
    (:func:`shared.ranking.rank_results`)."""
    names = {s.player_id: s.name for s in seats}
    bots = {s.player_id for s in seats if s.bot}
    by_player = {b.player_id: b for b in boards}
    order = rank_results((b.player_id, _result_key(b, started_at)) for b in boards)
    ranks = [rank for rank, _player in order]
    ordered = [by_player[player] for _rank, player in order]
    return [
        Standing(
            rank=rank,
            player_id=board.player_id,
            name=names.get(board.player_id, "?"),
            bot=board.player_id in bots,
            won=board.won,
            score=board.score,
            move_count=board.move_count,
            time_ms=board.finished_at - started_at if board.won else None,
            score_reached_ms=max(0, board.score_at - started_at),
            gave_up=board.finished and not board.won,
        )
        for rank, board in zip(ranks, ordered, strict=True)
    ]


def racer_info(seat: Seat, board: BoardRecord | None, game: GameName, started_at: int = 0) -> RacerInfo:
    """What everyone may know of a racer: the seat, and the board's counters once dealt
    (before that, the deal's: in Eagle Wing one card is home from the start), with the
    times the results rank by, from ``started_at`` (0: not started)."""
    shares = {"share_committed": bool(seat.share_commitment), "share_revealed": bool(seat.share)}
    if board is None:
        start = dealt_home(game)
        return RacerInfo(
            player_id=seat.player_id,
            name=seat.name,
            bot=seat.bot,
            ready=seat.ready,
            **shares,
            score=start,
            cards_left=CARDS - start,
        )
    return RacerInfo(
        player_id=seat.player_id,
        name=seat.name,
        bot=seat.bot,
        ready=seat.ready,
        **shares,
        score=board.score,
        cards_left=CARDS - board.score,
        move_count=board.move_count,
        finished=board.finished,
        won=board.won,
        time_ms=board.finished_at - started_at if board.won and started_at else None,
        score_reached_ms=max(0, board.score_at - started_at) if started_at else None,
    )

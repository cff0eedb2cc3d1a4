"""A finished race's record (docs/record.md), from what the store keeps of it."""

from __future__ import annotations

from collections import defaultdict

from server.features.daily_rules import attempt_kind
from server.store import LoggedMoveRecord, RaceMeta, Seat
from shared import DEAL_VERSION
from shared.protocol import RaceSummary
from shared.record import RaceRecord, RecordMove, RecordRacer, RecordResult, RecordShare


def race_record(
    meta: RaceMeta, seats: list[Seat], summary: RaceSummary, log: list[LoggedMoveRecord]
) -> RaceRecord:
    """The record of a race that ended and whose seed is revealed (``summary.seed``)."""
    assert summary.seed is not None
    standings = {s.player_id: s for s in summary.standings}
    racers = []
    for seat in seats:
        line = standings.get(seat.player_id)
        before = None
        if line is not None and line.rating is not None and line.rating_change is not None:
            before = line.rating - line.rating_change
        racers.append(RecordRacer(seat.player_id, seat.name, seat.bot, before))
    moves: dict[str, list[RecordMove]] = defaultdict(list)
    for move in log:
        moves[move.player_id].append(RecordMove(move.seq, move.move, move.at - summary.started_at))
    shares = tuple(
        RecordShare(seat.player_id, seat.share_commitment, seat.share)
        for seat in seats
        if seat.share_commitment and seat.share
    )
    return RaceRecord(
        game=meta.game,
        deal_version=DEAL_VERSION,
        race_id=meta.race_id,
        started_at=summary.started_at,
        ended_at=summary.ended_at,
        time_limit_ms=round(meta.time_limit * 1000),
        rated=meta.rated,
        daily=meta.daily or None,
        attempt=attempt_kind(meta.daily, meta.daily_scored, meta.practice),
        server_seed=meta.server_seed,
        salt=summary.salt or meta.salt,
        commitment=summary.commitment,
        shares=shares,
        seed=summary.seed,
        racers=tuple(racers),
        results=tuple(
            RecordResult(
                line.rank,
                line.player_id,
                line.won,
                line.score,
                line.move_count,
                line.time_ms,
                line.score_reached_ms or 0,
            )
            for line in summary.standings
        ),
        moves=tuple((seat.player_id, tuple(moves.get(seat.player_id, ()))) for seat in seats),
    )

"""A finished race read back from the record archive once Redis let it go
(``SA_RACE_TTL``): its results and its moves, as the live race gave them."""

from __future__ import annotations

import asyncio
import logging
from typing import NamedTuple

from pydantic import ValidationError

from server.archive import RESULTS_SUFFIX, Archive
from shared.protocol import LoggedMove, RaceSummary
from shared.record import RaceRecord, RecordSyntaxError, read_record

log = logging.getLogger("arena.archive")


class ArchivedRace(NamedTuple):
    summary: RaceSummary
    record: RaceRecord


async def read_archived(archive: Archive, race_id: str) -> ArchivedRace | None:
    """``race_id``'s results and record from the archive; None when it has not both (a
    race archived before its results were kept beside its record has only the record),
    or they do not read."""
    results = await archive.read(race_id, RESULTS_SUFFIX)
    text = await archive.read(race_id) if results is not None else None
    if results is None or text is None:
        return None
    try:
        summary = RaceSummary.model_validate_json(results)
        record = await asyncio.to_thread(read_record, text)
    except (ValidationError, RecordSyntaxError) as error:
        log.warning("an archived race does not read", extra={"race_id": race_id, "reason": str(error)})
        return None
    return ArchivedRace(summary, record)


def logged_moves(record: RaceRecord) -> list[LoggedMove]:
    """Every racer's moves in the order they were played (by time; racers in the record's
    order at the same millisecond), each at its time since the epoch, as ``move_log``
    gives them."""
    moves = [
        LoggedMove(player_id=player, seq=move.seq, move=move.move, at=record.started_at + move.at_ms)
        for player, played in record.moves
        for move in played
    ]
    return sorted(moves, key=lambda logged: logged.at)

"""The wire form of a stored rematch offer: for the offer's own steps (server/features/
rematch.py) and for ``get_race`` of the race that ended (server/features/lobby.py)."""

from __future__ import annotations

from server.store import RematchRecord
from shared.protocol import RematchInfo, RematchRacer


def rematch_info(record: RematchRecord, names: dict[str, str]) -> RematchInfo:
    """``record`` as its racers see it, each named from ``names`` (player id -> name);
    ``starting`` shows as ``open`` until the new race exists."""
    status = "open" if record.status == "starting" else record.status
    return RematchInfo(
        race_id=record.race_id,
        offered_by=record.offered_by,
        status=status,  # type: ignore[arg-type]  # the store writes only these words
        expires_at=record.expires_at,
        racers=[
            RematchRacer(player_id=p, name=names.get(p, "?"), answer=a)  # type: ignore[arg-type]
            for p, a in record.answers.items()
        ],
        new_race_id=record.new_race_id,
        reason=record.reason,
    )

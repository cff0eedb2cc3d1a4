"""Where a rematch offer stands: told with every step of it (``rematch``,
``rematch_update``), and carried by ``get_race`` of a finished race to its racers, so that
a client opened after the offer was made (a reloaded page, a resumed connection) sees it."""

from __future__ import annotations

from typing import Literal

from shared.protocol.base import Reply

#: How long an offer waits for answers, in seconds.
REMATCH_WAIT = 30.0

RematchStatus = Literal["open", "started", "declined", "expired", "failed"]
RematchAnswer = Literal["offered", "pending", "accepted", "declined"]


class RematchRacer(Reply):
    player_id: str
    name: str
    answer: RematchAnswer


class RematchInfo(Reply):
    """An offer and its answers. ``race_id`` is the race that ended; once ``started``,
    ``new_race_id`` is the rematch; ``reason`` says why a ``failed`` one could not start."""

    race_id: str
    offered_by: str
    status: RematchStatus
    expires_at: int
    racers: list[RematchRacer]
    new_race_id: str | None = None
    reason: str | None = None

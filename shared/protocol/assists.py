"""Help during a race: a hint for the racer's own board (undo is the move ``undo``)."""

from __future__ import annotations

from typing import Literal

from shared.protocol.base import RaceId, Reply, Request, RequestId


class GetHint(Request):
    """Ask for a good next move on the sender's own board; refused with ``hints_off`` in a
    race whose ``hints`` setting is off."""

    type: Literal["get_hint"] = "get_hint"
    id: RequestId
    race_id: RaceId


class Hint(Reply):
    """A good next move for the board after move ``seq``, in canonical notation, chosen from
    what the racer sees; never one back to a position the racer's board has been in. With
    no such move ``move`` is null and ``message`` says why (no move is legal, or every one
    leads back)."""

    type: Literal["hint"] = "hint"
    id: RequestId | None = None
    race_id: str
    seq: int
    move: str | None = None
    message: str | None = None


Requests = GetHint
Replies = Hint

"""A rematch: after a race ends, one racer offers the same racers, game and settings on a
new deal; the others accept or decline, and those who accepted go to a countdown."""

from __future__ import annotations

from typing import Literal

from shared.protocol.base import RaceId, Reply, Request, RequestId
from shared.protocol.lobby import RaceInfo, ShareCommitment
from shared.protocol.rematch_offer import RematchInfo


class OfferRematch(Request):
    type: Literal["offer_rematch"] = "offer_rematch"
    id: RequestId
    race_id: RaceId
    #: The offerer's seed share commitment for the rematch (docs/deals.md); reveal the
    #: share with ``reveal_share`` once ``rematch_started`` seats them.
    share_commitment: ShareCommitment | None = None


class AnswerRematch(Request):
    type: Literal["answer_rematch"] = "answer_rematch"
    id: RequestId
    race_id: RaceId
    accept: bool
    #: With an acceptance: the racer's seed share commitment, as in ``offer_rematch``.
    share_commitment: ShareCommitment | None = None


class Rematch(Reply):
    """Reply to an offer or an answer: the offer as it now stands."""

    type: Literal["rematch"] = "rematch"
    id: RequestId | None = None
    rematch: RematchInfo


class RematchUpdate(Reply):
    """Event, to every racer invited: the offer was made, answered, declined or expired."""

    type: Literal["rematch_update"] = "rematch_update"
    rematch: RematchInfo


class RematchStarted(Reply):
    """Event, to each racer who accepted (and the offerer): they are seated in ``race``,
    whose countdown has begun; their sessions already follow it."""

    type: Literal["rematch_started"] = "rematch_started"
    race_id: str
    race: RaceInfo


Requests = OfferRematch | AnswerRematch
Replies = Rematch | RematchUpdate | RematchStarted

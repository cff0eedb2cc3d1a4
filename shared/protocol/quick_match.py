"""Quick match: one queue per game pairs waiting players into two-seat races."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from shared.game import GameName
from shared.protocol.base import Reply, Request, RequestId
from shared.protocol.lobby import RaceInfo, ShareCommitment


class QuickMatch(Request):
    type: Literal["quick_match"] = "quick_match"
    id: RequestId
    game: GameName
    #: The racer's seed share commitment (docs/deals.md); once paired, reveal the share
    #: with ``reveal_share`` during the countdown.
    share_commitment: ShareCommitment | None = None
    #: An account's quick match waits in the rated queue unless ``casual``: then in the
    #: casual one, with guests and bots, for an unrated race. A guest's is always casual.
    casual: bool = False


class CancelQuickMatch(Request):
    type: Literal["cancel_quick_match"] = "cancel_quick_match"
    id: RequestId


class Queued(Reply):
    """The player waits: in the rated queue (an account) or the casual one (a guest, or
    an account that asked for a casual quick match).
    ``ticket`` names this stay in the queue: asking again for the same game while queued
    keeps it, queueing after leaving gets a new one (``quick_match_left`` names the one
    that ended)."""

    type: Literal["queued"] = "queued"
    id: RequestId | None = None
    game: GameName
    rated: bool = False
    ticket: str = ""


class QueueLeftReason(StrEnum):
    #: ``cancel_quick_match``, from any of the player's sessions.
    CANCELLED = "cancelled"
    #: The player's last connection to the server that kept them waiting closed.
    DISCONNECTED = "disconnected"
    #: Their place lapsed while their server could not reach its store for longer than a
    #: lease (30 s): queue again to wait on.
    EXPIRED = "expired"
    #: A race of theirs began (a lobby race, a daily attempt): a player races one race at a
    #: time, and queues again once it is over.
    RACING = "racing"


class QuickMatchLeft(Reply):
    """Event to every session of a player: they no longer wait in ``game``'s queue (the
    stay that ``ticket`` names ended) for ``reason``; not sent when paired
    (``match_found`` says that)."""

    type: Literal["quick_match_left"] = "quick_match_left"
    game: GameName
    ticket: str
    reason: QueueLeftReason
    message: str


class MatchFound(Reply):
    """Event: quick match paired the player into a race."""

    type: Literal["match_found"] = "match_found"
    race: RaceInfo


Requests = QuickMatch | CancelQuickMatch
Replies = Queued | MatchFound | QuickMatchLeft

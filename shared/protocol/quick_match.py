"""Quick match: one queue per game pairs waiting players into two-seat races."""

from __future__ import annotations

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


class CancelQuickMatch(Request):
    type: Literal["cancel_quick_match"] = "cancel_quick_match"
    id: RequestId


class Queued(Reply):
    """The player waits: in the rated queue (an account) or the casual one (a guest)."""

    type: Literal["queued"] = "queued"
    id: RequestId | None = None
    game: GameName
    rated: bool = False


class MatchFound(Reply):
    """Event: quick match paired the player into a race."""

    type: Literal["match_found"] = "match_found"
    race: RaceInfo


Requests = QuickMatch | CancelQuickMatch
Replies = Queued | MatchFound

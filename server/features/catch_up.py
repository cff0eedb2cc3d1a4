"""What a race's followers on a node may have missed while the node did not hear the
race's channel (its pub/sub connection was made anew, its slot moved to another master).

Events are not kept anywhere, but what they told is in the store: the race now, its end,
its start. After such a gap a node sends its sessions of the race what the store holds
now, in the messages they already take in: the end (with the same bookkeeping as a heard
end), or the race as it stands (``race_update``: who sits, status, clock, every racer's
progress) and, to racers who have not moved yet, its start (whose ``view`` is their
board; the fan-out sends it only if its sessions never had it). Moves made in the gap
are read back by the spectators' copies from the move log (see
:meth:`server.features.watching.Watching.refill_hub`).

A player's own channel carries their quick match's pairing: a player this node still
keeps waiting for a game who sits in a race of that game nobody here follows was paired
in the gap, and is told so as a heard pairing would (``match_found``); likewise a
rematch of a race the player's sessions here followed to its end (``rematch_started``).
It also carries sign-outs and new names: a session whose account token no longer works
is closed, and sessions that go by another name than the store's are renamed
(``renamed``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from server.features.events import Event, EventKind
from server.features.lobby import Lobby
from server.features.race_rules import view_of
from server.features.results import RaceResults
from server.store import RaceMeta, RaceStatus, Store
from shared import new_game
from shared.protocol import BoardView, RaceInfo, RaceStarted, RaceUpdate, to_wire

#: The close reason of a session whose sign-out was missed (its token was revoked by a
#: logout, a password change or too many sign-ins, which one is not kept).
SIGNED_OUT_ELSEWHERE: Final = "signed out: this sign-in was ended elsewhere"


@dataclass(frozen=True, slots=True)
class PlayerNow:
    """A player as the store has them, against what their sessions here may believe."""

    name: str
    account: bool
    #: Those of the sessions' account tokens (digests) that were revoked.
    revoked: frozenset[str]


@dataclass(frozen=True, slots=True)
class Missed:
    """One message to send a race's sessions after a gap."""

    event: Event
    #: The players whose sessions get it (None: every session of the race).
    only: frozenset[str] | None = None


class CatchUp:
    def __init__(self, store: Store, lobby: Lobby, results: RaceResults) -> None:
        self.store = store
        self.lobby = lobby
        self.results = results

    async def race(self, race_id: str) -> list[Missed]:
        """What to send the race's sessions now, in order (nothing for a race gone from
        the store)."""
        race = await self.store.races.race(race_id)
        if race is None:
            return []
        meta, seats = race
        if meta.status.is_over:
            ends = await self.results.news([meta])
            return [Missed(Event(EventKind.RACE_ENDED, to_wire(end))) for end in ends]
        info = await self.lobby.info_of(meta, seats, None)
        missed = [Missed(Event(EventKind.BROADCAST, to_wire(RaceUpdate(race=info))))]
        unmoved = frozenset(r.player_id for r in info.racers if r.move_count == 0)
        start = _start_of(meta)
        if unmoved and start is not None:
            # The start may be what was missed: without it these racers have no board.
            missed.append(Missed(Event(EventKind.BROADCAST, to_wire(start)), unmoved))
        return missed

    async def start(self, race_id: str, player_id: str) -> RaceStarted | None:
        """The race's start for a session of ``player_id`` that followed the race only
        after it may have been sent (a seating told late): None unless the race runs and
        the player has not moved in it yet."""
        meta = await self.store.races.meta(race_id)
        start = _start_of(meta) if meta is not None else None
        if start is None:
            return None
        board = await self.store.boards.board(race_id, player_id)
        return start if board is None or board.move_count == 0 else None

    async def pairings(self, player_id: str, waiting_for: set[str], followed: set[str]) -> list[RaceInfo]:
        """The races (as ``player_id`` may see them) quick match seated the player in
        while they wait for one of ``waiting_for`` here, that none of their sessions here
        follows (``followed``)."""
        if not waiting_for:
            return []
        metas = await self.lobby.current_races(player_id)
        return [
            await self.lobby.info(meta.race_id, player_id)
            for meta in metas
            if not meta.status.is_over and meta.game in waiting_for and meta.race_id not in followed
        ]

    async def player(self, player_id: str, tokens: set[str]) -> PlayerNow | None:
        """The player's name and account now, and which of ``tokens`` (their sessions'
        tokens) were revoked; None for a player gone from the store."""
        profile = await self.store.players.profile(player_id)
        if profile is None:
            return None
        username = await self.store.accounts.username(player_id)
        revoked = await self.store.accounts.revoked(sorted(tokens))
        return PlayerNow(
            name=username or profile[0], account=username is not None, revoked=frozenset(revoked)
        )

    async def rematches(
        self, player_id: str, before: set[str], followed: set[str]
    ) -> list[tuple[str, RaceInfo]]:
        """The rematches of races in ``before`` that seated ``player_id`` (offered or
        accepted) in a race that is not over and none of their sessions here follows
        (``followed``): each as (the race it replays, the new race as the player sees it)."""
        found = []
        for race_id in sorted(before):
            record = await self.store.rematches.get(race_id)
            if record is None or record.status != "started" or record.new_race_id is None:
                continue
            seated = player_id == record.offered_by or record.answers.get(player_id) == "accepted"
            if not seated or record.new_race_id in followed:
                continue
            meta = await self.store.races.meta(record.new_race_id)
            if meta is not None and not meta.status.is_over:
                found.append((race_id, await self.lobby.info(record.new_race_id, player_id)))
        return found


def _start_of(meta: RaceMeta) -> RaceStarted | None:
    """The ``race_started`` its racers were sent, while the race runs."""
    if meta.status is not RaceStatus.RUNNING or meta.starts_at is None or meta.ends_at is None:
        return None
    view = BoardView.model_validate(view_of(new_game(meta.game, meta.seed), legal=True))
    return RaceStarted(race_id=meta.race_id, starts_at=meta.starts_at, ends_at=meta.ends_at, view=view)

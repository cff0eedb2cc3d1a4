"""Rematch: after a race ends, a racer offers the same racers, game and settings on a new
deal. Each other racer accepts or declines; when every answer is in (or the wait of
``REMATCH_WAIT`` seconds is over), those who accepted and the offerer are seated in a new
race whose countdown begins at once. With nobody accepting, the offer is declined (or
expired).

Offers and answers are decided by Lua in Redis, so two nodes never start the same
rematch. Every step is told to each invited racer on their player channel; the racers of
the new race get ``rematch_started`` after their sessions follow it.
"""

from __future__ import annotations

import asyncio
import logging
import random

from server.background import Background, cancel_and_wait
from server.config import Settings
from server.errors import ArenaError, not_a_racer, race_not_found
from server.features.context import Caller, Identity, Reply
from server.features.events import EventKind, pack_event
from server.features.lobby import Lobby
from server.features.node_watch import NodeWatch
from server.features.rematch_info import rematch_info
from server.store import RaceMeta, RaceStatus, Seat, Store
from server.timesource import TimeSource
from shared.protocol import (
    REMATCH_WAIT,
    AnswerRematch,
    ErrorCode,
    OfferRematch,
    Rematch,
    RematchInfo,
    RematchStarted,
    RematchUpdate,
)
from shared.protocol.base import unnumbered_name

log = logging.getLogger("arena.rematch")

#: Seconds a racer invited to a rematch (or offering one) may be away before leaving
#: counts as declining (or withdrawing) it: a dropped connection resumed meanwhile does not.
LEAVE_GRACE = 5.0

#: How long past its wait an offer may stay ``starting`` (its new race being made) before
#: it counts as failed: the node making the race failed midway.
STARTING_STUCK_MS = 10_000
#: Why a rematch whose start failed for want of the store did not start.
NOT_STARTED = "the server lost its store while starting it: offer again"

#: Seconds between a node's looks for offers whose wait is over (about: nodes spread out).
SWEEP_EVERY = 1.0

#: What a refused answer's script word means for the racer.
_CLOSED = {
    "none": "nobody has offered a rematch of this race",
    "closed": "that rematch offer is already decided",
    "late": "that rematch offer expired",
    "answered": "you already answered that rematch offer",
}


def kept_seat_name(seat_name: str, name: str) -> str:
    """The name a racer asks for in a rematch: their seat's, number and all, while they
    still go by the name it numbered; else their ``name`` now (a rename drops the number).

    >>> kept_seat_name("alice (2)", "alice"), kept_seat_name("alice (2)", "ally")
    ('alice (2)', 'ally')
    """
    return seat_name if unnumbered_name(seat_name) == name else name


class Rematches:
    def __init__(
        self, store: Store, lobby: Lobby, settings: Settings, time: TimeSource, nodes: NodeWatch
    ) -> None:
        self.store = store
        self.lobby = lobby
        self.nodes = nodes
        self.settings = settings
        self.time = time
        self.wait = REMATCH_WAIT
        self.leave_grace = LEAVE_GRACE
        self.sweep_every = SWEEP_EVERY
        self.background = Background()
        self._sweep: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._sweep = asyncio.create_task(self._keep_sweeping(), name="rematch-sweep")

    async def stop(self) -> None:
        if self._sweep is not None:
            await cancel_and_wait([self._sweep])
        await self.background.stop()

    # ----- handlers --------------------------------------------------------------------

    async def offer_rematch(self, caller: Caller, message: OfferRematch) -> Reply:
        race_id, player_id = message.race_id, caller.player.player_id
        seats = await self._seats_of_ended(race_id)
        if all(s.player_id != player_id for s in seats):
            raise not_a_racer(race_id)
        now = self.time.now_ms()
        expires_at = now + int(self.wait * 1000)
        ttl = max(self.settings.race_ttl, int(self.wait) + 60) if self.settings.race_ttl else 0
        racers = [s.player_id for s in seats]
        commitment = message.share_commitment or ""
        if not await self.store.rematches.offer(race_id, player_id, racers, now, expires_at, ttl, commitment):
            raise ArenaError(ErrorCode.REMATCH_EXISTS, "a rematch of this race is already offered or started")
        log.info("rematch offered", extra={"race_id": race_id, "player_id": player_id})
        await self._decline_for_the_gone(race_id, [p for p in racers if p != player_id], now)
        self.background.spawn(self._expire_later(race_id), "expiring a rematch offer")
        info = await self._told(race_id, seats)
        return Reply(Rematch(id=message.id, rematch=info))

    async def answer_rematch(self, caller: Caller, message: AnswerRematch) -> Reply:
        race_id, player_id = message.race_id, caller.player.player_id
        now, commitment = self.time.now_ms(), message.share_commitment or ""
        word = await self.store.rematches.answer(race_id, player_id, message.accept, now, commitment)
        if word == "late":
            await self._decide_expired(race_id)
        if word == "not_invited":
            raise not_a_racer(race_id)
        if word in _CLOSED:
            raise ArenaError(ErrorCode.REMATCH_NOT_OPEN, _CLOSED[word])
        seats = await self.store.races.seats(race_id)
        if word == "start":
            await self._start(race_id, seats)
        info = await self._told(race_id, seats)
        return Reply(Rematch(id=message.id, rematch=info))

    async def went_away(self, player_id: str, ended: list[str]) -> None:
        """The player's last connection on this node closed. An open offer of a race they
        saw end, to them or from them, is answered for them once they have stayed away
        for the grace: the others need not wait out the offer."""
        since = self.time.now_ms()
        for race_id in ended:
            record = await self.store.rematches.get(race_id)
            if record is not None and record.status == "open" and player_id in record.answers:
                self.background.spawn(
                    self._answer_for_the_gone(race_id, player_id, since),
                    "answering a rematch for one who left",
                )

    async def _answer_for_the_gone(self, race_id: str, player_id: str, since: int) -> None:
        await asyncio.sleep(self.leave_grace)
        if player_id in await self.store.nodes.connected_elsewhere(
            [player_id], await self.nodes.live_nodes()
        ):
            return
        if await self.store.players.last_hello(player_id) > since:
            return  # back, on a node that has not said so yet
        record = await self.store.rematches.get(race_id)
        if record is None or record.status != "open":
            return
        seats = await self.store.races.seats(race_id)
        if record.offered_by == player_id:
            name = next((s.name for s in seats if s.player_id == player_id), "the racer who offered it")
            if not await self.store.rematches.withdraw(race_id, f"{name} left"):
                return
        else:
            word = await self.store.rematches.answer(race_id, player_id, False, self.time.now_ms())
            if word not in ("ok", "start", "declined"):
                return  # answered, decided or late meanwhile
            if word == "start":
                await self._start(race_id, seats)
        log.info("rematch answered for a racer who left", extra={"race_id": race_id, "player_id": player_id})
        await self._told(race_id, seats)

    # ----- deciding --------------------------------------------------------------------

    async def _decline_for_the_gone(self, race_id: str, invited: list[str], now: int) -> None:
        """Those invited who have no connection on any live node (a bot whose program
        ended, a closed browser) decline at once: the offerer need not wait out the offer."""
        here = await self.store.nodes.connected_elsewhere(invited, await self.nodes.live_nodes())
        for player_id in invited:
            if player_id not in here:
                await self.store.rematches.answer(race_id, player_id, False, now)

    async def _seats_of_ended(self, race_id: str) -> list[Seat]:
        race = await self.store.races.race(race_id)
        if race is None:
            raise race_not_found(race_id)
        meta, seats = race
        if meta.status is RaceStatus.CANCELLED:
            raise ArenaError(ErrorCode.RACE_CANCELLED, "the race was cancelled: there is nothing to rematch")
        if meta.status is not RaceStatus.FINISHED:
            raise ArenaError(ErrorCode.RACE_NOT_OVER, "a rematch is offered once the race has ended")
        if len(seats) < 2:
            raise ArenaError(
                ErrorCode.NOT_ENOUGH_RACERS,
                "a daily attempt is raced alone: it has no rematch (practise its deal instead)"
                if meta.daily
                else "a rematch needs at least 2 racers",
            )
        return seats

    async def _expire_later(self, race_id: str) -> None:
        await asyncio.sleep(self.wait + 0.05)
        await self._decide_expired(race_id)

    async def _keep_sweeping(self) -> None:
        """Decide the offers whose wait is over that no timer of this node decided: their
        node stopped during the wait (the timers of :meth:`_expire_later` die with it)."""
        while True:
            await asyncio.sleep(self.sweep_every * (0.5 + random.random()))  # nodes spread out
            try:
                for entry in await self.store.rematches.due(self.time.now_ms()):
                    if await self._decide_expired(entry.rpartition(":")[0]) != "starting":
                        await self.store.rematches.drop_due(entry)
            except Exception as exc:  # Redis away: the offers stay due for the next sweep
                log.warning("the rematch sweep failed", extra={"reason": repr(exc)})

    async def _decide_expired(self, race_id: str) -> str:
        """Decide an offer whose wait is over; the store's word (``starting``: a start is
        under way, to be looked at again)."""
        word = await self.store.rematches.expire(race_id, self.time.now_ms(), STARTING_STUCK_MS, NOT_STARTED)
        if word in ("no", "starting"):
            return word
        seats = await self.store.races.seats(race_id)
        if word == "start":
            await self._start(race_id, seats)
        await self._told(race_id, seats)
        return word

    async def _start(self, race_id: str, seats: list[Seat]) -> None:
        """Seat the offerer and everyone who accepted in a new race, each with the seed
        share commitment they sent, and count it down: they reveal their shares during the
        countdown, and the start mixes those revealed by then."""
        record = await self.store.rematches.get(race_id)
        meta = await self.store.races.meta(race_id)
        if record is None or meta is None:
            return
        by_id = {s.player_id: s for s in seats}
        players = [record.offered_by] + [p for p, a in record.answers.items() if a == "accepted"]
        # Seated by the names they go by now (a guest may have renamed since the race),
        # each keeping the number that told them from a same-named racer.
        now_named = await self.store.players.profiles(players)
        identities = [
            Identity(
                p,
                kept_seat_name(by_id[p].name, now_named[p][0] if p in now_named else by_id[p].name),
                bot=by_id[p].bot,
                account=await self.store.accounts.username(p) is not None,
            )
            for p in players
            if p in by_id
        ]
        new: RaceMeta | None = None
        try:
            new = await self.lobby.create(
                identities[0],
                meta.game,
                len(identities),
                meta.time_limit,
                ready=True,
                hints=meta.hints,
                rated=meta.rated,
                share_commitment=record.commitments.get(identities[0].player_id, ""),
                quick=meta.quick,
            )
            for identity in identities[1:]:
                commitment = record.commitments.get(identity.player_id, "")
                await self.lobby.join(identity, new.code, ready=True, share_commitment=commitment)
            await self.lobby.begin_countdown(new.race_id)
        except Exception as exc:
            reason = exc.message if isinstance(exc, ArenaError) else NOT_STARTED
            if new is not None:
                await self.lobby.unseat_all(new.race_id, [i.player_id for i in identities])
            await self.store.rematches.failed(race_id, reason)
            log.info("rematch could not start", extra={"race_id": race_id, "reason": reason})
            return
        await self.store.rematches.started(race_id, new.race_id)
        log.info("rematch started", extra={"race_id": race_id, "new_race_id": new.race_id})
        for identity in identities:
            info = await self.lobby.info(new.race_id, identity.player_id)
            event = RematchStarted(race_id=race_id, race=info)
            await self.store.events.publish_player(identity.player_id, pack_event(EventKind.SEATED, event))

    async def _told(self, race_id: str, seats: list[Seat]) -> RematchInfo:
        """The offer as it stands, sent to every racer it invited."""
        record = await self.store.rematches.get(race_id)
        if record is None:
            raise ArenaError(ErrorCode.REMATCH_NOT_OPEN, _CLOSED["none"])
        info = rematch_info(record, {s.player_id: s.name for s in seats})
        payload = pack_event(EventKind.BROADCAST, RematchUpdate(rematch=info))
        for player_id in record.answers:
            await self.store.events.publish_player(player_id, payload)
        return info

"""Pub/sub fan-out: events published by any node reach this node's sessions.

A node subscribes to the channels of the races and players it has sessions for
(classic or sharded pub/sub: :mod:`server.store.pubsub`), and forwards each event to those sessions with
``websockets.broadcast`` (one encoding per frame format). It also records in the store
which races it follows, so that a move is published only when another node wants it.
What else an event does is its :class:`~server.features.events.EventKind`.

When Redis confirms a race's channel again after a gap (the subscription's connection was
made anew, its slot moved), the race's sessions here are sent what the store says they
may have missed (:mod:`server.features.catch_up`), and its listeners are told to read
the race again.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Callable
from typing import Any, Final, assert_never

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from websockets.frames import CloseCode

from server.background import Background
from server.features.catch_up import SIGNED_OUT_ELSEWHERE, CatchUp, Missed
from server.features.events import Event, EventKind, LocalEvent, own_prefix, unpack_event
from server.features.quick_match import QuickMatchmaker
from server.features.racing import Racing
from server.features.results import RaceResults
from server.store import keys
from server.store.events import EventStore
from server.store.pubsub import Handlers, Subscriber, open_subscriber
from server.transport.frames import broadcast_frame
from server.transport.session import Session
from shared.protocol import MatchFound, RaceInfo, RematchStarted, Renamed, encode_dict, to_wire

log = logging.getLogger("arena.fanout")

#: How many times a catch-up is tried, and how long apart: the store may still be out of
#: reach just after the subscription came back.
CATCH_UP_TRIES: Final = 20
CATCH_UP_RETRY_S: Final = 0.5
#: How many of the races a connection followed to their end it remembers (to catch up
#: a rematch of one that started while the node could not hear the player).
ENDED_KEPT: Final = 4


class Fanout:
    def __init__(
        self,
        client: aioredis.Redis | RedisCluster,
        events: EventStore,
        node_id: str,
        racing: Racing,
        quick_match: QuickMatchmaker,
        results: RaceResults,
        catch_up: CatchUp,
        sharded: bool = False,
    ) -> None:
        self._results = results
        self._catch_up = catch_up
        handlers = Handlers(self._heard, self._confirm, self._resumed)
        self._subscriber: Subscriber = open_subscriber(client, sharded, handlers)
        self._events = events
        self.node_id = node_id
        self._racing = racing
        self._quick_match = quick_match
        self._node_channel = keys.node_channel(node_id)
        self._own_prefix = own_prefix(node_id)
        self._sessions: dict[str, set[Session]] = {}
        #: Node-level readers of a channel's raw payloads (spectator hubs), besides sessions.
        self._listeners: dict[str, Callable[[str], None]] = {}
        #: What a listener does when its channel was not heard for a while.
        self._listener_resumed: dict[str, Callable[[], None]] = {}
        #: Races whose channel was confirmed again after a gap, waiting for their catch-up
        #: (one at a time: a failover resumes every channel at once).
        self._behind: set[str] = set()
        self._catching_up = False
        #: Events heard on a channel while its race is being caught up: sent after the
        #: catch-up, which read the store before they came, so that they are not overtaken.
        self._held: dict[str, list[Event]] = {}
        #: Races whose start this node's sessions were sent (a catch-up does not repeat it).
        self._started: set[str] = set()
        self._confirmed: dict[str, asyncio.Event] = {}
        #: Channels subscribed (and races followed); changed under ``_changing`` only,
        #: so a drop and a new attach of one channel never interleave.
        self._subscribed: set[str] = set()
        self._changing = asyncio.Lock()
        self._background = Background()

    async def start(self) -> None:
        await self._subscribe(self._node_channel)
        await self._subscriber.start()
        await self._wait_confirmed(self._node_channel)

    async def stop(self) -> None:
        await self._subscriber.stop()
        await self._background.stop()

    def sessions_of(self, player_id: str) -> int:
        """How many sessions of ``player_id`` this node has."""
        return len(self._sessions.get(keys.player_channel(player_id), ()))

    @property
    def race_count(self) -> int:
        return sum(1 for c in self._sessions if keys.race_of_channel(c) is not None)

    # ----- subscriptions ------------------------------------------------------------

    async def attach_race(self, race_id: str, session: Session) -> None:
        session.races.add(race_id)
        await self._attach(keys.race_channel(race_id), session)

    async def attach_player(self, player_id: str, session: Session) -> None:
        await self._attach(keys.player_channel(player_id), session)

    async def detach(self, session: Session) -> None:
        """The connection closed: stop following its races and player."""
        channels = [keys.race_channel(r) for r in session.races]
        if session.player_id is not None:
            channels.append(keys.player_channel(session.player_id))
        session.races.clear()
        for channel in channels:
            await self._leave(channel, session)

    async def detach_race(self, race_id: str, session: Session) -> None:
        """The session's player left the race: stop sending it that race's events."""
        session.races.discard(race_id)
        await self._leave(keys.race_channel(race_id), session)

    async def listen(
        self, channel: str, listener: Callable[[str], None], resumed: Callable[[], None] | None = None
    ) -> None:
        """Hand every payload published on ``channel`` (but this node's own deliveries)
        to ``listener``, as well as to the channel's sessions; a race channel is followed
        like one a session attached to. ``resumed`` is called when Redis confirms the
        channel again after a gap: payloads published in it were missed."""
        self._listeners[channel] = listener
        if resumed is not None:
            self._listener_resumed[channel] = resumed
        await self._ensure(channel)

    async def unlisten(self, channel: str) -> None:
        self._listener_resumed.pop(channel, None)
        if self._listeners.pop(channel, None) is not None and not self._sessions.get(channel):
            await self._drop(channel)

    async def _leave(self, channel: str, session: Session) -> None:
        members = self._sessions.get(channel)
        if members is None or session not in members:
            return
        members.discard(session)
        if not members:
            await self._drop(channel)

    async def _attach(self, channel: str, session: Session) -> None:
        self._join(channel, session)
        await self._ensure(channel)

    def _join(self, channel: str, session: Session) -> None:
        """The session gets the channel's events from now on (once it is subscribed)."""
        self._sessions.setdefault(channel, set()).add(session)

    async def _ensure(self, channel: str) -> None:
        """Subscribe to ``channel`` unless subscribed, and wait for Redis to confirm."""
        async with self._changing:
            if channel not in self._subscribed:
                race_id = keys.race_of_channel(channel)
                if race_id is not None:
                    # Before subscribing: from now on other nodes publish their racers' moves.
                    await self._events.follow_race(race_id, self.node_id)
                await self._subscribe(channel)
                self._subscribed.add(channel)
        await self._wait_confirmed(channel)

    async def _drop(self, channel: str) -> None:
        self._sessions.pop(channel, None)
        async with self._changing:
            if self._sessions.get(channel) or channel in self._listeners or channel not in self._subscribed:
                return  # still wanted (a session attached again, a listener), or already dropped
            self._subscribed.discard(channel)
            self._confirmed.pop(channel, None)
            await self._subscriber.unsubscribe(channel)
            race_id = keys.race_of_channel(channel)
            if race_id is not None:
                self._started.discard(race_id)
                with contextlib.suppress(Exception):
                    await self._events.unfollow_race(race_id, self.node_id)

    async def _subscribe(self, channel: str) -> None:
        self._confirmed.setdefault(channel, asyncio.Event())
        await self._subscriber.subscribe(channel)

    def _confirm(self, channel: str) -> None:
        confirmed = self._confirmed.get(channel)
        if confirmed is not None:
            confirmed.set()

    def _resumed(self, channel: str) -> None:
        """Redis confirmed ``channel`` again after a gap: what was published meanwhile was
        not heard here."""
        listener_resumed = self._listener_resumed.get(channel)
        if listener_resumed is not None:
            listener_resumed()
        if not self._sessions.get(channel):
            return
        player_id = keys.player_of_channel(channel)
        if player_id is not None:
            self._background.spawn(self._catch_up_player(channel, player_id), "catching up a player")
            return
        race_id = keys.race_of_channel(channel)
        if race_id is None:
            return
        self._behind.add(race_id)
        if not self._catching_up:
            self._catching_up = True
            self._background.spawn(self._catch_up_races(), "catching up after a pub/sub gap")

    async def _catch_up_races(self) -> None:
        caught_up, rounds = 0, 0
        try:
            while self._behind:
                failed: set[str] = set()
                while self._behind:
                    race_id = self._behind.pop()
                    try:
                        await self._catch_up_race(race_id)
                    except Exception as exc:
                        log.warning(
                            "catching up a race failed", extra={"race_id": race_id, "reason": repr(exc)}
                        )
                        failed.add(race_id)
                        continue
                    caught_up += 1
                rounds += 1
                if failed and rounds < CATCH_UP_TRIES:
                    await asyncio.sleep(CATCH_UP_RETRY_S)
                    self._behind |= {r for r in failed if self._sessions.get(keys.race_channel(r))}
        finally:
            self._catching_up = False
            log.warning("caught up races after a pub/sub gap", extra={"count": caught_up})

    async def _catch_up_race(self, race_id: str) -> None:
        """Send the race's sessions what the store says now; what is heard meanwhile is
        newer, and follows it."""
        channel = keys.race_channel(race_id)
        self._held[channel] = []
        try:
            self._send_missed(channel, await self._catch_up.race(race_id))
        finally:
            for event in self._held.pop(channel, ()):
                if self._sessions.get(channel):
                    self._deliver(channel, event)

    async def _catch_up_player(self, channel: str, player_id: str) -> None:
        # Races a try seated the player in whose own catch-up is still to be done: a try
        # that failed after seating reads them on the next (they are followed by then, so
        # they are no longer found as new seatings).
        unread: set[str] = set()
        for tries_left in reversed(range(CATCH_UP_TRIES)):
            if not self._sessions.get(channel):
                return
            try:
                await self._catch_up_player_once(channel, player_id, unread)
                return
            except Exception as exc:
                log.warning(
                    "catching up a player failed", extra={"player_id": player_id, "reason": repr(exc)}
                )
                if tries_left:
                    await asyncio.sleep(CATCH_UP_RETRY_S)

    async def _catch_up_player_once(self, channel: str, player_id: str, unread: set[str]) -> None:
        """A sign-out or a new name missed in the gap, then a quick match that paired the
        player in it, as if their events were heard (and the race as it stands, as it may
        have started since), and a stay in a queue cancelled from another node in it."""
        sessions = list(self._sessions.get(channel, ()))
        identities = [s.caller.identity for s in sessions if s.caller.identity is not None]
        # A guest's token too: a register on another node revokes it.
        tokens = {i.token_sha for i in identities if i.token_sha}
        now = await self._catch_up.player(player_id, tokens)
        if now is not None:
            if now.revoked:
                self._sign_out(channel, {"tokens": sorted(now.revoked), "reason": SIGNED_OUT_ELSEWHERE})
            if any(i.name != now.name or i.account != now.account for i in identities):
                told = to_wire(Renamed(name=now.name, username=now.name if now.account else None))
                self._rename(
                    channel, {"player_id": player_id, "name": now.name, "account": now.account, "event": told}
                )
        followed = set().union(*(session.races for session in sessions))
        waiting_for = self._quick_match.waiting_games(player_id)
        seatings = [
            (race, to_wire(MatchFound(race=race)), True)
            for race in await self._catch_up.pairings(player_id, waiting_for, followed)
        ]
        ended = set().union(*(session.ended for session in sessions))
        seatings += [
            (race, to_wire(RematchStarted(race_id=old, race=race)), False)
            for old, race in await self._catch_up.rematches(player_id, followed | ended, followed)
        ]
        for race, told, matched in seatings:
            for session in list(self._sessions.get(channel, ())):
                await self._seat(session, race, told, matched)
            unread.add(race.race_id)
        # Their countdowns may have ended in the gap too.
        for race_id in sorted(unread):
            await self._catch_up_race(race_id)
            unread.discard(race_id)
        seated_in = {race.game for race, _told, matched in seatings if matched}
        for left in await self._quick_match.ended_unheard(player_id, seated_in):
            self._deliver(channel, Event(EventKind.QUEUE_LEFT, to_wire(left)))

    def _send_missed(self, channel: str, missed: list[Missed]) -> None:
        for item in missed:
            if not self._sessions.get(channel):
                return  # the race ended meanwhile (heard), or its sessions left
            if not self._first_start(channel, item.event):
                continue
            if item.only is None:
                self._deliver(channel, item.event)
            else:
                targets = [s for s in self._sessions[channel] if s.player_id in item.only]
                self._send_to(targets, item.event.msg)

    def _first_start(self, channel: str, event: Event) -> bool:
        """False for a race's start that its sessions here were already sent (heard, or
        from a catch-up); notes a first one."""
        if event.msg.get("type") != "race_started":
            return True
        race_id = keys.race_of_channel(channel)
        if race_id is None or race_id in self._started:
            return race_id is None
        self._started.add(race_id)
        return True

    async def _wait_confirmed(self, channel: str) -> None:
        event = self._confirmed.get(channel)
        if event is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), 5.0)

    # ----- delivery -----------------------------------------------------------------

    def _heard(self, channel: str, payload: str) -> None:
        """A message on ``channel``: to its listener and sessions, but this node's own."""
        if payload.startswith(self._own_prefix):
            return
        listener = self._listeners.get(channel)
        if listener is not None:
            listener(payload)
        self._received(channel, payload)

    def deliver_local(self, event: LocalEvent) -> None:
        """Deliver an event this node published (with itself as origin) to its own
        sessions, from the message itself rather than the published payload."""
        channel = keys.race_channel(event.race_id)
        if self._sessions.get(channel):
            self._broadcast(channel, event.msg, event.skip)

    def _received(self, channel: str, payload: str) -> None:
        if not self._sessions.get(channel):
            return
        try:
            event = unpack_event(payload)
        except ValueError:
            log.warning("dropped an unreadable event", extra={"reason": channel})
            return
        held = self._held.get(channel)
        if held is not None:
            held.append(event)
            return
        self._deliver(channel, event)

    def _deliver(self, channel: str, event: Event) -> None:
        match event.kind:
            case EventKind.BROADCAST:
                if self._first_start(channel, event):
                    self._broadcast(channel, event.msg, event.skip)
            case EventKind.UNSEATED:
                self._broadcast(channel, event.msg, event.skip)
                self._unseat(channel, set(event.msg.get("left_out") or ()))
            case EventKind.MATCH_FOUND | EventKind.SEATED:
                race = RaceInfo.model_validate(event.msg["race"])
                matched = event.kind is EventKind.MATCH_FOUND
                for session in list(self._sessions.get(channel, ())):
                    self._background.spawn(self._seat(session, race, event.msg, matched), "seating delivery")
            case EventKind.RACE_ENDED:
                self._broadcast(channel, event.msg, event.skip)
                race_id = keys.race_of_channel(channel)
                if race_id is not None:
                    told = sorted({s.player_id for s in self._sessions.get(channel, ()) if s.player_id})
                    self._background.spawn(self._results.told(race_id, told), "noting who saw the end")
                    self._racing.forget_race(race_id)
                    # Its sessions go at once (nothing more of the race is for them, not a
                    # catch-up's copy of this end); the subscription after.
                    for session in self._sessions.pop(channel, ()):
                        session.races.discard(race_id)
                        session.ended = (*session.ended[-(ENDED_KEPT - 1) :], race_id)
                    self._started.discard(race_id)
                    self._background.spawn(self._drop(channel), "dropping an ended race")
            case EventKind.SIGNED_OUT:
                self._sign_out(channel, event.msg)
            case EventKind.RENAMED:
                self._rename(channel, event.msg)
            case EventKind.QUEUE_LEFT:
                player_id = keys.player_of_channel(channel)
                if player_id is not None:
                    self._quick_match.heard_left(
                        player_id, str(event.msg.get("game")), str(event.msg.get("ticket"))
                    )
                self._broadcast(channel, event.msg, "")
            case unexpected:
                assert_never(unexpected)

    def _unseat(self, channel: str, players: set[str]) -> None:
        """The sessions of ``players`` stop following the race at once: no event of it
        after this one reaches them (its countdown comes next)."""
        race_id = keys.race_of_channel(channel)
        members = self._sessions.get(channel)
        if race_id is None or not members:
            return
        for session in [s for s in members if s.player_id in players]:
            members.discard(session)
            session.races.discard(race_id)
        if not members:
            self._background.spawn(self._drop_unwanted(channel), "dropping a race nobody here follows")

    async def _drop_unwanted(self, channel: str) -> None:
        if not self._sessions.get(channel):  # unless a session attached again meanwhile
            await self._drop(channel)

    def _sign_out(self, channel: str, msg: dict[str, Any]) -> None:
        """Close the player's connections open with a revoked token, but the one kept."""
        revoked, keep = set(msg["tokens"]), msg.get("keep", "")
        for session in self._sessions.get(channel, ()):
            identity = session.caller.identity
            if identity is None or identity.token_sha not in revoked or session.caller.connection == keep:
                continue
            if session.closing is None:
                close = session.ws.close(CloseCode.NORMAL_CLOSURE, msg["reason"])
                session.closing = asyncio.create_task(close)

    def _rename(self, channel: str, msg: dict[str, Any]) -> None:
        """The player's sessions here go by their new name (and account) from now on, and
        are told (the clients show who is signed in)."""
        for session in self._sessions.get(channel, ()):
            identity = session.caller.identity
            if identity is not None and identity.player_id == msg["player_id"]:
                session.caller.identity = dataclasses.replace(
                    identity, name=msg["name"], account=identity.account or bool(msg["account"])
                )
        self._broadcast(channel, msg["event"], "")

    async def _seat(self, session: Session, race: RaceInfo, msg: dict[str, Any], matched: bool) -> None:
        """This session's player was seated in ``race`` (by a quick match when
        ``matched``, else a rematch): tell them, follow the race, and send its start if
        it came before."""
        if matched and session.player_id is not None:
            self._quick_match.matched(session.player_id, race.game)
        race_id, channel = race.race_id, keys.race_channel(race.race_id)
        started_here = race_id in self._started
        session.races.add(race_id)
        self._join(channel, session)
        # Told at once, as it joins the race's sessions: whatever the race sends them from
        # now on comes after.
        self._send_to([session], msg)
        await self._ensure(channel)
        if race.status in ("open", "countdown"):
            await self._start_missed(session, race.race_id, started_here)

    async def _start_missed(self, session: Session, race_id: str, started_here: bool) -> None:
        """A seating told after its race's countdown ended: the start was sent to the
        race's other sessions here before this one followed it (``started_here``), or
        published before this node heard the race's channel at all."""
        player_id = session.player_id
        start = await self._catch_up.start(race_id, player_id) if player_id is not None else None
        if start is None:
            return
        msg = to_wire(start)
        if started_here:
            with contextlib.suppress(Exception):
                await session.send(msg)
            return
        channel = keys.race_channel(race_id)
        if self._first_start(channel, Event(EventKind.BROADCAST, msg)):
            self._broadcast(channel, msg, "")

    def _broadcast(self, channel: str, msg: dict[str, Any], skip: str) -> None:
        members = self._sessions.get(channel)
        if not members:
            return
        self._send_to([s for s in members if not skip or s.player_id != skip], msg)

    @staticmethod
    def _send_to(targets: list[Session], msg: dict[str, Any]) -> None:
        binary = [s.ws for s in targets if s.binary]
        text = [s.ws for s in targets if not s.binary]
        if binary:
            broadcast_frame(binary, encode_dict(msg, True))
        if text:
            broadcast_frame(text, encode_dict(msg, False))

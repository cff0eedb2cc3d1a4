"""Pub/sub fan-out: events published by any node reach this node's sessions.

A node subscribes one Redis pub/sub connection to the channels of the races and
players it has sessions for, and forwards each event to those sessions with
``websockets.broadcast`` (one encoding per frame format). It also records in the store
which races it follows, so that a move is published only when another node wants it.
An event is published as ``{"skip": <player id or "">, "msg": <message dict>}``: the
``skip`` player (the mover, for progress) does not get it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from typing import Any

import orjson
import redis.asyncio as aioredis
from pydantic import BaseModel
from websockets.asyncio.server import broadcast

from server.session import Session
from server.store import Store, player_channel, race_channel, race_of_channel
from shared.protocol import encode_dict, to_wire

log = logging.getLogger("arena.fanout")

#: Called for a ``match_found`` event before it is delivered to a player's sessions.
MatchHook = Callable[[Session, dict[str, Any]], Coroutine[Any, Any, None]]


def envelope(message: BaseModel, skip: str = "", origin: str = "") -> str:
    """The published form of an event. ``origin`` (a node id) marks an event that node
    already delivered to its own sessions: it skips the copy Redis sends back."""
    return envelope_dict(to_wire(message), skip, origin)


def envelope_dict(msg: dict[str, Any], skip: str = "", origin: str = "") -> str:
    """:func:`envelope` of a message already in its wire form (a JSON-ready dict)."""
    data: dict[str, Any] = {"o": origin} if origin else {}
    data["skip"] = skip
    data["msg"] = msg
    return orjson.dumps(data).decode()


class Fanout:
    def __init__(self, client: aioredis.Redis, store: Store, node_id: str) -> None:
        self._pubsub: Any = client.pubsub()
        self._store = store
        self.node_id = node_id
        self._node_channel = f"node:{node_id}:events"
        self._own_prefix = orjson.dumps({"o": node_id}).decode()[:-1] + ","
        self._sessions: dict[str, set[Session]] = {}
        self._confirmed: dict[str, asyncio.Event] = {}
        #: Channels subscribed (and races followed); changed under ``_changing`` only,
        #: so a drop and a new attach of one channel never interleave.
        self._subscribed: set[str] = set()
        self._changing = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self.on_match: MatchHook | None = None
        self.on_race_ended: Callable[[str], None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopping = False

    async def start(self) -> None:
        await self._subscribe(self._node_channel)
        self._task = asyncio.create_task(self._read(), name="fanout")
        await self._wait_confirmed(self._node_channel)

    async def stop(self) -> None:
        self._stopping = True
        if self._task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._task), 2.0)
            except (TimeoutError, asyncio.CancelledError):
                self._task.cancel()
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()

    def has_player(self, player_id: str) -> bool:
        """Whether a session of ``player_id`` is connected to this node."""
        return bool(self._sessions.get(player_channel(player_id)))

    @property
    def race_count(self) -> int:
        return sum(1 for c in self._sessions if c.startswith("race:"))

    # ----- subscriptions ------------------------------------------------------------

    async def attach_race(self, race_id: str, session: Session) -> None:
        session.races.add(race_id)
        await self._attach(race_channel(race_id), session)

    async def attach_player(self, player_id: str, session: Session) -> None:
        await self._attach(player_channel(player_id), session)

    async def detach(self, session: Session) -> None:
        """The connection closed: stop following its races and player."""
        channels = [race_channel(r) for r in session.races]
        if session.player_id is not None:
            channels.append(player_channel(session.player_id))
        session.races.clear()
        for channel in channels:
            if session not in self._sessions.get(channel, ()):
                continue
            members = self._sessions[channel]
            members.discard(session)
            if not members:
                await self._drop(channel)

    async def detach_race(self, race_id: str, session: Session) -> None:
        """The session's player left the race: stop sending it that race's events."""
        session.races.discard(race_id)
        channel = race_channel(race_id)
        members = self._sessions.get(channel)
        if members is not None:
            members.discard(session)
            if not members:
                await self._drop(channel)

    async def drop_race(self, race_id: str) -> None:
        """The race is over: forget its sessions and its channel."""
        channel = race_channel(race_id)
        for session in self._sessions.get(channel, ()):
            session.races.discard(race_id)
        if channel in self._sessions:
            await self._drop(channel)

    async def _attach(self, channel: str, session: Session) -> None:
        self._sessions.setdefault(channel, set()).add(session)
        async with self._changing:
            if channel not in self._subscribed:
                race_id = race_of_channel(channel)
                if race_id is not None:
                    # Before subscribing: from now on other nodes publish their racers' moves.
                    await self._store.follow_race(race_id, self.node_id)
                await self._subscribe(channel)
                self._subscribed.add(channel)
        await self._wait_confirmed(channel)

    async def _drop(self, channel: str) -> None:
        self._sessions.pop(channel, None)
        async with self._changing:
            if self._sessions.get(channel) or channel not in self._subscribed:
                return  # a session attached again meanwhile, or already dropped
            self._subscribed.discard(channel)
            self._confirmed.pop(channel, None)
            with contextlib.suppress(Exception):
                await self._pubsub.unsubscribe(channel)
            race_id = race_of_channel(channel)
            if race_id is not None:
                with contextlib.suppress(Exception):
                    await self._store.unfollow_race(race_id, self.node_id)

    async def _subscribe(self, channel: str) -> None:
        self._confirmed.setdefault(channel, asyncio.Event())
        await self._pubsub.subscribe(channel)

    async def _wait_confirmed(self, channel: str) -> None:
        event = self._confirmed.get(channel)
        if event is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), 5.0)

    # ----- delivery -----------------------------------------------------------------

    async def _read(self) -> None:
        while not self._stopping:
            try:
                message = await self._pubsub.get_message(timeout=0.2)
            except Exception as exc:
                if not self._stopping:
                    log.warning("pub/sub read failed; retrying", extra={"reason": repr(exc)})
                    await asyncio.sleep(0.5)
                continue
            if message is None:
                continue
            kind = message.get("type")
            channel = _text(message.get("channel"))
            if kind == "subscribe":
                event = self._confirmed.get(channel)
                if event is not None:
                    event.set()
            elif kind == "message":
                payload = _text(message.get("data"))
                if not payload.startswith(self._own_prefix):
                    self._deliver(channel, payload)

    def deliver_race_message(self, race_id: str, msg: dict[str, Any], skip: str = "") -> None:
        """Deliver an event this node published (with itself as origin) to its own
        sessions, from the message itself rather than the published payload."""
        channel = race_channel(race_id)
        if self._sessions.get(channel):
            self._send(channel, msg, skip)

    def _deliver(self, channel: str, payload: str) -> None:
        if not self._sessions.get(channel):
            return
        try:
            data = orjson.loads(payload)
            skip: str = data.get("skip", "")
            msg: dict[str, Any] = data["msg"]
        except (ValueError, KeyError, TypeError, AttributeError):
            log.warning("dropped an unreadable event", extra={"reason": channel})
            return
        self._send(channel, msg, skip)

    def _send(self, channel: str, msg: dict[str, Any], skip: str) -> None:
        members = self._sessions.get(channel)
        if not members:
            return
        targets = [s for s in members if not skip or s.player_id != skip]
        if msg.get("type") == "match_found" and self.on_match is not None:
            for session in targets:
                self._spawn(self.on_match(session, msg))
            return
        binary = [s.ws for s in targets if s.binary]
        text = [s.ws for s in targets if not s.binary]
        if binary:
            broadcast(binary, encode_dict(msg, True))
        if text:
            broadcast(text, encode_dict(msg, False))
        if msg.get("type") == "race_ended":
            race_id = str(msg.get("race_id", ""))
            if self.on_race_ended is not None:
                self.on_race_ended(race_id)
            self._spawn(self.drop_race(race_id))

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)

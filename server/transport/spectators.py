"""Spectators' sessions on this node: one hub per watched race, fed through the fan-out.

A hub opens when a session first watches its race here: the node registers its
spectators (from then on every move of the race is published on the race's watch
channel), listens to that channel and the race's own, and only then replays the move
log, so no move falls between the two. Each released message is encoded once per
frame format and written with ``websockets.broadcast``; a spectator whose connection
has more than ``spectator_buffer`` bytes waiting is dropped (closed with 1013, to watch
again with a fresh snapshot), never waited for.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import socket
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import orjson
from websockets.frames import CloseCode

from server.background import Background, cancel_and_wait
from server.config import Settings
from server.errors import ArenaError
from server.features.context import WatchTarget
from server.features.events import Event, unpack_event
from server.features.spectating import RaceHub
from server.features.watching import Watching
from server.metrics import Metrics
from server.store import Store, keys
from server.timesource import TimeSource
from server.transport.fanout import Fanout
from server.transport.frames import broadcast_frame, server_frame, write_to_all
from server.transport.session import Session
from shared.protocol import ErrorCode, encode_dict, to_wire

log = logging.getLogger("arena.spectators")

#: How often delayed hubs release what is due, and featured spectators look for a race.
_TICK = 0.05
#: At most this often a race's changed spectator count is written (and racers and other
#: nodes told), and this node's spectators of it told: a thousand arriving at once make
#: a few writes and messages a second, and the first arrival in a while shows at once.
_COUNT_EVERY = 0.25
#: A node's spectator count stays valid this long unless written again (a node that
#: dies stops counting after it); live counts are written again well before.
_COUNT_VALID_MS = 30_000
_COUNT_REFRESH_MS = 10_000
#: Seconds between two looks for a race by a featured watch that has none.
_FEATURED_RETRY = 1.0
#: Spectators written to before the node turns to other work for a moment.
_CHUNK = 32
#: Seconds between two chunks: the racers' own work comes first, spectators a moment later.
_CHUNK_PAUSE = 0.001
#: Bytes the kernel may hold for a spectator's socket (Linux doubles it).
_KERNEL_BUFFER = 64 * 1024
_SLOW = "too slow to keep up: watch again for a fresh snapshot"


@dataclass
class _Hub:
    members: set[Session] = field(default_factory=set)
    hub: RaceHub | None = None
    opened: asyncio.Event = field(default_factory=asyncio.Event)
    #: Payloads that came while the hub was opening: ("race" | "watch", payload).
    early: list[tuple[str, str]] = field(default_factory=list)
    #: Released messages still being written, each with the members it goes to.
    outbox: deque[tuple[dict[str, Any], list[Session]]] = field(default_factory=deque)
    sender: asyncio.Task[None] | None = None
    #: The count the members were last told, all but those in ``fresh``: who joined since,
    #: with the count their snapshot carried (themselves in it).
    shown: int = -1
    fresh: dict[Session, int] = field(default_factory=dict)
    #: When (the loop's time) the members were last told a count.
    told_at: float = 0.0


class Spectators:
    def __init__(
        self,
        fanout: Fanout,
        watching: Watching,
        store: Store,
        settings: Settings,
        time: TimeSource,
        metrics: Metrics,
    ) -> None:
        self.fanout = fanout
        self.watching = watching
        self.store = store
        self.node_id = settings.node_id
        self.buffer_limit = settings.spectator_buffer
        self.time = time
        self.metrics = metrics
        self._hubs: dict[str, _Hub] = {}
        #: What each spectating session watches (None: a featured watch waiting for a race).
        self._watching: dict[Session, str | None] = {}
        self._featured: set[Session] = set()
        self._counted: dict[str, tuple[int, int]] = {}  # race -> (count, written at)
        self._background = Background()
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="spectators")

    async def stop(self) -> None:
        self._stopping.set()
        if self._task is not None:
            await cancel_and_wait([self._task])
        await self._background.stop()
        for race_id in list(self._hubs):
            with contextlib.suppress(Exception):
                await self._close_hub(race_id)

    @property
    def count(self) -> int:
        return len(self._watching)

    # ----- watch and unwatch -----------------------------------------------------------

    async def handle(self, session: Session, target: WatchTarget) -> None:
        """Carry out a ``watch`` or ``unwatch``; a watch's answer is sent from here."""
        await self.leave(session)
        if target.stop:
            return
        if target.race_id is not None:
            await self._join(session, target.race_id, target.request_id, featured=False)
            return
        self._featured.add(session)
        await self._feature(session, target.request_id, after=None)

    async def leave(self, session: Session) -> None:
        """The session stops watching (unwatch, a new watch, or its connection closed)."""
        self._featured.discard(session)
        race_id = self._watching.pop(session, None)
        self.metrics.spectators.set(len(self._watching))
        if race_id is None:
            return
        entry = self._hubs.get(race_id)
        if entry is None:
            return
        entry.members.discard(session)
        if not entry.members and entry.opened.is_set():
            await self._close_hub(race_id)

    async def _feature(self, session: Session, request_id: int | str | None, after: str | None) -> None:
        """Watch the featured race, or wait for one (told once with a race-less
        ``watching``)."""
        viewer = session.player_id or ""
        race_id = await self.watching.featured(viewer, after)
        if race_id is not None:
            try:
                await self._join(session, race_id, request_id, featured=True)
                return
            except ArenaError:
                pass  # it ended meanwhile: wait for the next
        if session not in self._featured or (session in self._watching and self._watching[session] is None):
            return  # unwatched meanwhile, or already told it waits
        self._watching[session] = None
        message: dict[str, Any] = {"type": "watching"}
        if request_id is not None:
            message["id"] = request_id
        message.update(featured=True, delay_ms=0, as_of=self.time.now_ms(), boards=[])
        self._send(session, message)

    async def _join(
        self, session: Session, race_id: str, request_id: int | str | None, featured: bool
    ) -> None:
        entry = await self._open_hub(race_id)
        hub = entry.hub
        assert hub is not None
        if session.ws.close_code is not None:
            return
        if featured and session not in self._featured:
            return  # unwatched while the hub opened
        # The snapshot is written and the session joins without yielding: nothing the hub
        # releases can fall between the two.
        entry.members.add(session)
        hub.recount(len(entry.members))  # the newcomer's first count has them in it
        self._send(session, self._watching_message(hub, request_id, featured))
        entry.fresh[session] = hub.spectators
        _small_kernel_buffer(session)
        self._watching[session] = race_id
        self.metrics.spectators.set(len(self._watching))

    def _watching_message(self, hub: RaceHub, request_id: int | str | None, featured: bool) -> dict[str, Any]:
        message: dict[str, Any] = {"type": "watching"}
        if request_id is not None:
            message["id"] = request_id
        message.update(
            featured=featured,
            race=to_wire(hub.live_race()),
            delay_ms=hub.delay_ms,
            as_of=self.time.now_ms() - hub.delay_ms,
            boards=hub.snapshot(),
        )
        return message

    # ----- hubs ------------------------------------------------------------------------

    async def _open_hub(self, race_id: str) -> _Hub:
        entry = self._hubs.get(race_id)
        if entry is not None:
            await entry.opened.wait()
            if entry.hub is None:
                raise ArenaError(ErrorCode.RACE_OVER, "the race ended before it could be watched")
            return entry
        entry = _Hub()
        self._hubs[race_id] = entry
        try:
            # Registered first, so that every move from now on is published to the watch
            # channel; listening next; the log read last.
            now = self.time.now_ms()
            await self.store.watching.set_spectators(race_id, self.node_id, 1, now, _COUNT_VALID_MS)
            self._counted[race_id] = (1, now)
            resumed = functools.partial(self._resumed, race_id)
            await self.fanout.listen(
                keys.watch_channel(race_id), lambda p: self._payload(race_id, "watch", p), resumed
            )
            await self.fanout.listen(
                keys.race_channel(race_id), lambda p: self._payload(race_id, "race", p), resumed
            )
            hub = await self.watching.open_hub(race_id)
        except BaseException:
            self._hubs.pop(race_id, None)
            entry.opened.set()
            with contextlib.suppress(Exception):
                await self._unregister(race_id)
            raise
        for source, payload in entry.early:
            self._feed(hub, source, payload)
        entry.early.clear()
        entry.hub = hub
        entry.opened.set()
        self._release(race_id, entry)
        return entry

    async def _close_hub(self, race_id: str) -> None:
        entry = self._hubs.pop(race_id, None)
        if entry is None:
            return
        for session in entry.members:
            if self._watching.get(session) != race_id:
                continue
            if session in self._featured:
                self._watching[session] = None
            else:
                del self._watching[session]
        self.metrics.spectators.set(len(self._watching))
        self._counted.pop(race_id, None)
        await self._unregister(race_id)

    async def _unregister(self, race_id: str) -> None:
        await self.fanout.unlisten(keys.watch_channel(race_id))
        await self.fanout.unlisten(keys.race_channel(race_id))
        await self.store.watching.set_spectators(
            race_id, self.node_id, 0, self.time.now_ms(), _COUNT_VALID_MS
        )

    def _payload(self, race_id: str, source: str, payload: str) -> None:
        entry = self._hubs.get(race_id)
        if entry is None:
            return
        if entry.hub is None:
            entry.early.append((source, payload))
            return
        self._feed(entry.hub, source, payload)
        if entry.hub.delay_ms == 0:
            self._release(race_id, entry)

    def _resumed(self, race_id: str) -> None:
        """One of the race's channels was not heard for a while: the hub reads the race
        again from the store (it ignores what it already has)."""
        self._background.spawn(self._refill(race_id), "refilling a hub after a pub/sub gap")

    async def _refill(self, race_id: str) -> None:
        entry = self._hubs.get(race_id)
        if entry is None:
            return
        await entry.opened.wait()
        if entry.hub is None or self._hubs.get(race_id) is not entry:
            return
        await self.watching.refill_hub(race_id, entry.hub)
        self._release(race_id, entry)

    def _feed(self, hub: RaceHub, source: str, payload: str) -> None:
        try:
            if source == "watch":
                move = orjson.loads(payload)
                hub.receive_move(str(move["p"]), int(move["s"]), str(move["m"]), int(move["at"]))
            else:
                event = unpack_event(payload)
                if event.msg.get("type") == "spectators":
                    hub.count_elsewhere(self._elsewhere(hub.race_id, event))
                else:
                    hub.receive_event(event.msg, self.time.now_ms(), event.deal)
        except (ValueError, KeyError, TypeError):
            log.warning("dropped an unreadable spectator event", extra={"race_id": hub.race_id})

    def _elsewhere(self, race_id: str, event: Event) -> int:
        """Those watching on other nodes, from a published count: every node's count but
        this one's (one from a node that sends only the total: less this node's last)."""
        if event.nodes is not None:
            return sum(count for node, count in event.nodes.items() if node != self.node_id)
        written = self._counted.get(race_id, (0, 0))[0]
        return max(0, int(event.msg.get("count", 0)) - written)

    def _release(self, race_id: str, entry: _Hub) -> None:
        hub = entry.hub
        if hub is None:
            return
        for message in hub.release(self.time.now_ms()):
            self._broadcast(entry, message)
        if hub.over:
            self._background.spawn(self._ended(race_id), "closing an ended race's hub")

    async def _ended(self, race_id: str) -> None:
        entry = self._hubs.get(race_id)
        if entry is not None and entry.sender is not None:
            await asyncio.shield(entry.sender)  # the end reaches everyone before they move on
        featured = [s for s in entry.members if s in self._featured] if entry else []
        await self._close_hub(race_id)
        for session in featured:
            self._watching.pop(session, None)  # neither watching nor told it waits, yet
            await self._feature(session, None, after=race_id)

    # ----- sending ---------------------------------------------------------------------

    def _broadcast(self, entry: _Hub, message: dict[str, Any], targets: list[Session] | None = None) -> None:
        """Send ``message`` to the hub's members of now (or to ``targets`` of them), in
        order after what is still being sent: many members are written a chunk at a time,
        letting the node's other work (racers' moves) run in between."""
        entry.outbox.append((message, list(entry.members) if targets is None else targets))
        if entry.sender is None or entry.sender.done():
            entry.sender = asyncio.create_task(self._send_out(entry), name="spectators-send")

    async def _send_out(self, entry: _Hub) -> None:
        while entry.outbox:
            message, targets = entry.outbox.popleft()
            frames: dict[bool, bytes] = {}
            for start in range(0, len(targets), _CHUNK):
                if start:
                    await asyncio.sleep(_CHUNK_PAUSE)
                self._write(entry, targets[start : start + _CHUNK], message, frames)

    def _write(
        self, entry: _Hub, targets: list[Session], message: dict[str, Any], frames: dict[bool, bytes]
    ) -> None:
        by_format: dict[bool, list[Any]] = {True: [], False: []}
        for session in targets:
            if session not in entry.members:
                continue  # left meanwhile
            transport = session.ws.transport
            if transport is None or transport.get_write_buffer_size() > self.buffer_limit:
                self._too_slow(session, entry)
                continue
            by_format[session.binary].append(session.ws)
        for binary, connections in by_format.items():
            if connections:
                if binary not in frames:  # built once per format, for every chunk
                    frames[binary] = server_frame(encode_dict(message, binary))
                write_to_all(connections, frames[binary])

    def _send(self, session: Session, message: dict[str, Any]) -> None:
        broadcast_frame([session.ws], encode_dict(message, session.binary))

    def _too_slow(self, session: Session, entry: _Hub) -> None:
        entry.members.discard(session)
        self._watching.pop(session, None)
        self._featured.discard(session)
        self.metrics.slow_spectators.inc()
        log.warning("dropped a slow spectator", extra={"player_id": session.player_id})
        ws = session.ws
        self._background.spawn(ws.close(CloseCode.TRY_AGAIN_LATER, _SLOW), "closing a slow spectator")
        asyncio.get_running_loop().call_later(2.0, ws.transport.abort)

    # ----- the tick --------------------------------------------------------------------

    async def _run(self) -> None:
        last_featured = 0.0
        loop = asyncio.get_running_loop()
        while not self._stopping.is_set():
            await asyncio.sleep(_TICK)
            now = loop.time()
            for race_id, entry in list(self._hubs.items()):
                if entry.hub is not None and entry.hub.waiting:
                    self._release(race_id, entry)
                self._tell_count(race_id, entry, now)
            try:
                await self._write_counts()
                if now - last_featured >= _FEATURED_RETRY:
                    last_featured = now
                    for session in [s for s, race in self._watching.items() if race is None]:
                        if session in self._featured and session.ws.close_code is None:
                            await self._feature(session, None, after=None)
            except Exception as exc:
                log.warning("spectator bookkeeping failed", extra={"reason": repr(exc)})

    def _tell_count(self, race_id: str, entry: _Hub, now: float) -> None:
        """Tell this node's spectators of the race how many watch, when it changed for
        any of them (at most every ``_COUNT_EVERY``): this node's count as it is now, the
        other nodes' as they last published it."""
        hub = entry.hub
        if hub is None or now - entry.told_at < _COUNT_EVERY:
            return
        count = hub.recount(len(entry.members))
        if count == entry.shown and not entry.fresh:
            return
        targets = [s for s in entry.members if entry.fresh.get(s, entry.shown) != count]
        entry.shown = count
        entry.fresh.clear()
        if targets:
            entry.told_at = now
            self._broadcast(entry, {"type": "spectators", "race_id": race_id, "count": count}, targets)

    async def _write_counts(self) -> None:
        """Write the spectator counts of this node that changed (each race's at most
        every ``_COUNT_EVERY``), and refresh the others before they expire."""
        now = self.time.now_ms()
        for race_id, entry in list(self._hubs.items()):
            count = len(entry.members)
            written = self._counted.get(race_id)
            since = now - written[1] if written is not None else _COUNT_REFRESH_MS
            changed = written is None or written[0] != count
            due = (changed and since >= _COUNT_EVERY * 1000) or since >= _COUNT_REFRESH_MS
            if due and count > 0 and entry.hub is not None:
                self._counted[race_id] = (count, now)
                await self.store.watching.set_spectators(race_id, self.node_id, count, now, _COUNT_VALID_MS)


def _small_kernel_buffer(session: Session) -> None:
    """Bound what the kernel holds for a spectator (plenty for watch events): a spectator
    that stops reading then shows in the connection's own buffer within a few hundred
    events, and is dropped, instead of hiding megabytes in the socket."""
    sock = session.ws.transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, _KERNEL_BUFFER)

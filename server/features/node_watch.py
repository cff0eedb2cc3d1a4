"""Nodes that die without closing their connections (SIGKILL, a lost machine).

A node that stops closes its connections, and each player's last one records them gone
(:meth:`~server.features.lobby.Lobby.went_away`). A node that dies records nothing, so
every node keeps a heartbeat in Redis (every ``beat`` seconds) and the set of players it
has connections of. A node silent for :data:`SILENT_BEATS` of its own beats (each node
declares how long that is, so nodes of different beats judge each other fairly) is taken
for dead by the live nodes that look: its players are recorded gone, unless they have a
connection on a live node, and the lobby's sweep frees their open races' seats once the
grace (counted from the dead node's last heartbeat) is over, unless they said hello
somewhere since it was found dead. A node's id is new at each start, so a node restarted after a
crash finds its former self silent like any other. Heartbeats are on the system clock,
whatever clock the races run on (tests move theirs by hand).

A node judges only the silence it could have heard: after Redis was out of its reach
(:class:`~server.outage.StoreHealth`, told by its own heartbeat and the race clock), the
others could not beat either, so each gets its whole allowance again, counted from when
Redis came back. A node the others took for dead all the same (Redis out of its reach
alone) writes its players again at its next beat and takes them off the gone list.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Final

from server.background import cancel_and_wait
from server.metrics import Metrics
from server.outage import StoreHealth
from server.store import Store

log = logging.getLogger("arena.nodes")

#: Heartbeats a node may miss before the others take it for dead.
SILENT_BEATS: Final = 4


def _now_ms() -> int:
    return int(time.time() * 1000)


class NodeWatch:
    def __init__(
        self,
        store: Store,
        metrics: Metrics,
        health: StoreHealth,
        node_id: str,
        beat: float,
        lobby_grace: float,
    ) -> None:
        self.store = store
        self.metrics = metrics
        self.health = health
        self.node_id = node_id
        self.beat = beat
        self.lobby_grace_ms = round(lobby_grace * 1000)
        self._task: asyncio.Task[None] | None = None
        #: The players with a connection on this node.
        self._here: set[str] = set()

    @property
    def silent_ms(self) -> int:
        """How long a node may go without a heartbeat and still count as alive."""
        return round(self.beat * SILENT_BEATS * 1000)

    async def start(self) -> None:
        await self.store.nodes.beat(self.node_id, _now_ms(), self.silent_ms)
        self._task = asyncio.create_task(self._keep_beating(), name="node-heartbeat")

    async def stop(self) -> None:
        """Stop beating and leave the list (the node's connections are closed by now)."""
        if self._task is not None:
            await cancel_and_wait([self._task])
        try:
            await self.store.nodes.forget(self.node_id)
        except Exception as exc:  # Redis away: the others will take this node for dead
            log.warning("leaving the list of nodes failed", extra={"reason": repr(exc)})

    async def arrived(self, player_id: str) -> bool:
        """A session of the player said who it is (written once, for the first); whether
        it is the player's first session on this node."""
        if player_id in self._here:
            return False
        await self.store.nodes.arrived(self.node_id, [player_id])
        self._here.add(player_id)  # once written: a failed write is tried again
        return True

    async def left(self, player_id: str) -> None:
        self._here.discard(player_id)
        await self.store.nodes.left(self.node_id, player_id)

    async def live_nodes(self) -> list[str]:
        return await self.store.nodes.live(_now_ms(), self.silent_ms, self.health.back_at_ms)

    async def _keep_beating(self) -> None:
        while True:
            await asyncio.sleep(self.beat)
            try:
                await self.beat_once()
                self.health.succeeded()
                await self.bury_the_dead()
            except Exception as exc:  # Redis away: tried again next beat
                if self.health.is_outage(exc):
                    self.health.failed(exc)
                log.warning("the node's heartbeat failed", extra={"reason": repr(exc)})

    async def beat_once(self) -> None:
        """One heartbeat. A node the others took for dead (Redis out of its reach for
        longer than they waited) writes its players again, and takes them off the gone
        list: they are still here."""
        if await self.store.nodes.beat(self.node_id, _now_ms(), self.silent_ms):
            log.warning("this node was taken for dead: it is back", extra={"node_id": self.node_id})
            here = sorted(self._here)
            await self.store.nodes.arrived(self.node_id, here)
            await self.store.players.came_back(here)

    async def bury_the_dead(self) -> int:
        """Record the players of every node found dead as gone, then take the node off
        the list; how many nodes this node took off. Two nodes doing it at once record
        the players twice, which frees no seat twice; a node that dies halfway leaves
        the dead one listed, for the next look to deal with. The dead node's spectators
        leave the counts of the races they watched."""
        now = _now_ms()
        heard_since = self.health.back_at_ms
        dead = await self.store.nodes.silent(now, self.silent_ms, heard_since)
        live = await self.live_nodes() if dead else []
        buried = 0
        for node_id, last_beat in dead:
            players = await self.store.nodes.players(node_id)
            elsewhere = await self.store.nodes.connected_elsewhere(players, live)
            # Gone as of now: a hello before now may have been on the dead node itself.
            # Their grace counts from the last beat this node could have heard.
            due = max(now, max(last_beat, heard_since) + self.lobby_grace_ms)
            await self.store.players.went_away([p for p in players if p not in elsewhere], now, due)
            if not await self.store.nodes.forget(node_id):
                continue  # another node took it off first
            # Its spectators' entries would only expire unseen: the racers' count must drop.
            await self.store.watching.forget_node(node_id, now)
            buried += 1
            self.metrics.dead_nodes.inc()
            log.warning(
                "a node stopped beating: its players count as gone",
                extra={"node_id": node_id, "players": len(players), "last_beat": last_beat},
            )
        return buried

"""Quick match: one queue per game pairs waiting players into two-seat races.

A player waits in at most one queue, and not while racing. A queued player holds a
lease that their node renews while they wait. When a node dies, its waiting players'
leases run out and the queue drops them instead of pairing someone with a player who
is no longer there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from server.config import Settings
from server.errors import ArenaError
from server.features.context import Caller, Identity, Reply
from server.features.events import EventKind, pack_event
from server.features.lobby import Lobby
from server.store import RaceStatus, Store
from server.timesource import TimeSource
from shared.protocol import CancelQuickMatch, ErrorCode, GameName, MatchFound, Ok, Queued, QuickMatch

log = logging.getLogger("arena.match")

#: How long a queued player stays matchable without their node renewing the lease.
LEASE_MS = 30_000
#: How often a node renews its waiting players' leases.
RENEW_EVERY = LEASE_MS / 1000 / 3


class QuickMatchmaker:
    def __init__(self, store: Store, lobby: Lobby, settings: Settings, time: TimeSource) -> None:
        self.store = store
        self.lobby = lobby
        self.time_limit = settings.quick_match_time_limit
        self.time = time
        #: ``(game, player id)`` of the players this node keeps in a queue.
        self.waiting: set[tuple[str, str]] = set()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._renew_leases(), name="quick-match-leases")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    # ----- handlers --------------------------------------------------------------------

    async def quick_match(self, caller: Caller, message: QuickMatch) -> Reply:
        await self.enqueue(caller.player, message.game)
        return Reply(Queued(id=message.id, game=message.game))

    async def cancel_quick_match(self, caller: Caller, message: CancelQuickMatch) -> Reply:
        await self.cancel(caller.player.player_id)
        return Reply(Ok(id=message.id))

    # ----- queues ----------------------------------------------------------------------

    async def enqueue(self, player: Identity, game: GameName) -> str | None:
        """Queue the player, or pair them with a waiting one; the race id when paired."""
        player_id = player.player_id
        racing = await self.lobby.active_races(player_id, (RaceStatus.COUNTDOWN, RaceStatus.RUNNING))
        if racing:
            raise ArenaError(
                ErrorCode.ALREADY_RACING,
                f"you are racing in race {racing[0].race_id}: finish it before queueing again",
            )
        other_game = await self.store.queues.claim(player_id, game, LEASE_MS)
        if other_game is not None:
            raise ArenaError(
                ErrorCode.ALREADY_QUEUED,
                f"you are queued for {other_game}: cancel that quick match before queueing for {game}",
            )
        now = self.time.now_ms()
        other = await self.store.queues.match(game, player_id, now, now + LEASE_MS)
        if other is None:
            self.waiting.add((game, player_id))
            log.info("queued for quick match", extra={"player_id": player_id, "game": game})
            return None
        await self.store.queues.release([other, player_id])
        other_name, other_bot = await self.store.players.profile(other) or ("?", False)
        meta = await self.lobby.create(
            Identity(other, other_name, bot=other_bot), game, 2, self.time_limit, ready=True
        )
        await self.lobby.join(player, meta.code, ready=True)
        await self.lobby.begin_countdown(meta.race_id)
        log.info("quick match", extra={"race_id": meta.race_id, "player_id": player_id})
        for racer in (other, player_id):
            info = await self.lobby.info(meta.race_id, racer)
            await self.store.events.publish_player(
                racer, pack_event(EventKind.MATCH_FOUND, MatchFound(race=info))
            )
        return meta.race_id

    def matched(self, player_id: str, game: str) -> None:
        """A player of this node was paired (by any node): no lease to renew."""
        self.waiting.discard((game, player_id))

    async def cancel(self, player_id: str) -> None:
        """The player leaves the queue they wait in, if any."""
        game = await self.store.queues.queued_game(player_id)
        for entry in [w for w in self.waiting if w[1] == player_id]:
            self.waiting.discard(entry)
            await self.store.queues.unqueue(entry[0], player_id)
        if game is not None:
            await self.store.queues.unqueue(game, player_id)

    async def _renew_leases(self) -> None:
        while True:
            await asyncio.sleep(RENEW_EVERY)
            if not self.waiting:
                continue
            try:
                await self.store.queues.renew(sorted(self.waiting), self.time.now_ms() + LEASE_MS, LEASE_MS)
            except Exception as exc:
                # The next round tries again, well before the leases run out.
                log.warning("renewing quick-match leases failed", extra={"reason": repr(exc)})

"""Quick match: per game, a rated queue for accounts (paired by rating, the accepted gap
widening with the wait) and a casual queue for guests pair waiting players into
two-seat races.

A player waits in at most one queue, and not while racing. A queued player holds a
lease that their node renews while they wait. When a node dies, its waiting players'
leases run out and the queue drops them instead of pairing someone with a player who
is no longer there.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Final

from server.background import cancel_and_wait
from server.config import Settings
from server.errors import ArenaError
from server.features.context import Caller, Identity, Reply
from server.features.events import EventKind, pack_event
from server.features.lobby import Lobby
from server.features.ratings import current
from server.store import RaceStatus, Store
from server.store.queues import Left
from server.timesource import TimeSource
from shared.protocol import CancelQuickMatch, ErrorCode, GameName, MatchFound, Ok, Queued, QuickMatch

log = logging.getLogger("arena.match")

#: How long a queued player stays matchable without their node renewing the lease.
LEASE_MS = 30_000
#: How often a node renews its waiting players' leases.
RENEW_EVERY = LEASE_MS / 1000 / 3


#: The rating gap two accounts may have to pair at once, the gap added for each second the
#: longer waiting of the two has waited, and the wait after which anyone pairs (ms).
RATED_GAP: Final = 100.0
RATED_WIDEN: Final = 50.0
RATED_ANYONE_MS: Final = 10_000
#: How often a node tries again to pair its waiting accounts (the gap widens meanwhile).
SWEEP_EVERY: Final = 1.0
#: How long after finding one of its waiting accounts paired elsewhere a node looks for
#: the race the pairing made (ms); with none, the account is queued again.
PAIRED_GRACE_MS = 5_000


class QuickMatchmaker:
    def __init__(self, store: Store, lobby: Lobby, settings: Settings, time: TimeSource) -> None:
        self.store = store
        self.lobby = lobby
        self.time_limit = settings.quick_match_time_limit
        self.node_id = settings.node_id
        self.time = time
        #: ``(game, player id)`` of the players this node keeps in a queue, with the
        #: rating they wait with (None: a guest in the casual queue).
        self.waiting: dict[tuple[str, str], float | None] = {}
        #: ``(game, player id)`` of accounts this node kept waiting that left the rated pool
        #: elsewhere (paired by another node, or cancelled from another session) before
        #: this node heard why: no longer tried or renewed, but still caught up after a
        #: pub/sub gap, as a pairing's ``match_found`` may be the event that was missed.
        #: A paired one maps to their rating and when to look for the race the pairing
        #: made (None once looked for, or for a cancel).
        self.left_elsewhere: dict[tuple[str, str], tuple[float, int] | None] = {}
        self.curve: tuple[float, float, int] = (RATED_GAP, RATED_WIDEN, RATED_ANYONE_MS)
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._keep_waiting(), name="quick-match-leases")

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait([self._task])

    # ----- handlers --------------------------------------------------------------------

    async def quick_match(self, caller: Caller, message: QuickMatch) -> Reply:
        await self.enqueue(caller.player, message.game, message.share_commitment or "")
        return Reply(Queued(id=message.id, game=message.game, rated=caller.player.account))

    async def cancel_quick_match(self, caller: Caller, message: CancelQuickMatch) -> Reply:
        await self.cancel(caller.player.player_id)
        return Reply(Ok(id=message.id))

    # ----- queues ----------------------------------------------------------------------

    async def enqueue(self, player: Identity, game: GameName, share_commitment: str = "") -> str | None:
        """Queue the player (with the commitment to their seed share, if any), or pair them
        with a waiting one; the race id when paired. Accounts wait in the game's rated
        queue and pair by rating; guests in the casual one."""
        player_id = player.player_id
        racing = await self.lobby.active_races(player_id, (RaceStatus.COUNTDOWN, RaceStatus.RUNNING))
        if racing:
            raise ArenaError(
                ErrorCode.ALREADY_RACING,
                f"you are racing in race {racing[0].race_id}: finish it before queueing again",
            )
        other_game = await self.store.queues.claim(player_id, game, LEASE_MS, share_commitment, self.node_id)
        if other_game is not None:
            raise ArenaError(
                ErrorCode.ALREADY_QUEUED,
                f"you are queued for {other_game}: cancel that quick match before queueing for {game}",
            )
        now = self.time.now_ms()
        rating: float | None = None
        other: str | Left | None
        if player.account:
            stored = (await self.store.ratings.ratings(game, [player_id]))[player_id]
            rating = current(stored, now).rating
            other = await self._try_rated(game, player_id, rating, stay=False)
        else:
            other = await self.store.queues.match(game, player_id, now, now + LEASE_MS)
        assert not isinstance(other, Left)  # only trying again (``stay``) answers why one left
        if other is None:
            self.waiting[(game, player_id)] = rating
            self.left_elsewhere.pop((game, player_id), None)
            log.info(
                "queued for quick match",
                extra={"player_id": player_id, "game": game, "rated": player.account},
            )
            return None
        return await self._pair(game, other, player, rated=player.account)

    async def _pair(self, game: GameName, other: str, player: Identity, rated: bool) -> str:
        """Seat ``other`` (who waited) and ``player`` in a new race, each with the seed share
        commitment they queued with, and count it down: they reveal their shares during
        the countdown, and the start mixes those revealed by then."""
        other_share, player_share = await self.store.queues.share_commitments([other, player.player_id])
        await self.store.queues.release([other, player.player_id])
        other_name, other_bot = await self.store.players.profile(other) or ("?", False)
        meta = await self.lobby.create(
            Identity(other, other_name, bot=other_bot, account=rated),
            game,
            2,
            self.time_limit,
            ready=True,
            rated=rated,
            share_commitment=other_share,
        )
        await self.lobby.join(player, meta.code, ready=True, share_commitment=player_share)
        await self.lobby.begin_countdown(meta.race_id)
        log.info(
            "quick match", extra={"race_id": meta.race_id, "player_id": player.player_id, "rated": rated}
        )
        for racer in (other, player.player_id):
            info = await self.lobby.info(meta.race_id, racer)
            await self.store.events.publish_player(
                racer, pack_event(EventKind.MATCH_FOUND, MatchFound(race=info))
            )
        return meta.race_id

    def waiting_games(self, player_id: str) -> set[str]:
        """The games this node keeps ``player_id`` waiting for."""
        return {game for game, waiting in (*self.waiting, *self.left_elsewhere) if waiting == player_id}

    def matched(self, player_id: str, game: str) -> None:
        """A player of this node was paired (by any node): no lease to renew."""
        self.waiting.pop((game, player_id), None)
        self.left_elsewhere.pop((game, player_id), None)

    async def cancel(self, player_id: str) -> None:
        """The player leaves the queue they wait in, if any."""
        await self._leave(player_id, await self.store.queues.queued(player_id))

    async def went_away(self, player_id: str) -> None:
        """The player's last connection on this node closed: they leave the queue this node
        keeps them in, unless a connection on another node queued them since (a client
        that resumed there before this node noticed the old connection close)."""
        queued = await self.store.queues.queued(player_id)
        if queued is not None and queued[1] not in ("", self.node_id):
            self._forget(player_id)
            return
        await self._leave(player_id, queued)

    async def _leave(self, player_id: str, queued: tuple[str, str] | None) -> None:
        """Take the player out of the queue their marker names (``queued``: game, holder)
        and of those this node keeps them waiting in."""
        games = {game for game, waiting in self.waiting if waiting == player_id}
        if queued is not None:
            games.add(queued[0])
        self._forget(player_id)
        for game in sorted(games):
            await self.store.queues.unqueue(game, player_id)

    def _forget(self, player_id: str) -> None:
        """This node no longer keeps the player waiting."""
        for entry in [w for w in self.waiting if w[1] == player_id]:
            self.waiting.pop(entry, None)
        for entry in [w for w in self.left_elsewhere if w[1] == player_id]:
            self.left_elsewhere.pop(entry, None)

    async def _keep_waiting(self) -> None:
        """Every second, try again to pair this node's waiting accounts (their allowed gap
        has widened); every :data:`RENEW_EVERY` seconds, renew every waiting lease."""
        renewed = self.time.now_ms()
        while True:
            await asyncio.sleep(min(SWEEP_EVERY, RENEW_EVERY))
            try:
                await self._sweep()
                await self._look_for_paired_races()
                if self.waiting and self.time.now_ms() - renewed >= RENEW_EVERY * 1000:
                    renewed = self.time.now_ms()
                    entries = sorted((g, p, r is not None) for (g, p), r in self.waiting.items())
                    await self.store.queues.renew(entries, renewed + LEASE_MS, LEASE_MS)
            except Exception as exc:
                # The next round tries again, well before the leases run out.
                log.warning("keeping quick-match players waiting failed", extra={"reason": repr(exc)})

    async def _sweep(self) -> None:
        for (game, player_id), rating in list(self.waiting.items()):
            if rating is None or (game, player_id) not in self.waiting:
                continue
            other = await self._try_rated(game, player_id, rating, stay=True)
            if isinstance(other, Left):
                if (game, player_id) not in self.waiting:
                    continue  # cancelled here meanwhile
                if not await self._lease_ran_out(game, player_id, other):
                    # Paired, or cancelled, elsewhere: putting them back would pair them
                    # twice, or against their wish.
                    self.waiting.pop((game, player_id), None)
                    look_at = self.time.now_ms() + PAIRED_GRACE_MS
                    self.left_elsewhere[(game, player_id)] = (
                        (rating, look_at) if other is Left.PAIRED else None
                    )
                    continue
                log.warning("a waiting account's lease ran out: queued again", extra={"player_id": player_id})
                await self._queue_again(game, player_id, rating)
            elif isinstance(other, str):
                await self._pair_waiting(game, player_id, other)

    async def _queue_again(self, game: str, player_id: str, rating: float) -> None:
        """Put an account this node keeps waiting back in the rated pool (paired at once
        if someone fits)."""
        self.waiting[(game, player_id)] = rating
        other = await self._try_rated(game, player_id, rating, stay=False)
        if isinstance(other, str):
            await self._pair_waiting(game, player_id, other)

    async def _pair_waiting(self, game: str, player_id: str, other: str) -> None:
        """Pair ``player_id``, an account this node kept waiting, with ``other``."""
        self.waiting.pop((game, player_id), None)
        name, bot = await self.store.players.profile(player_id) or ("?", False)
        identity = Identity(player_id, name, bot=bot, account=True)
        await self._pair(game, other, identity, rated=True)  # type: ignore[arg-type]  # a GameName key

    async def _look_for_paired_races(self) -> None:
        """A pairing whose race was never made (the node pairing them lost Redis midway)
        leaves its waiting player out of the pool: once :data:`PAIRED_GRACE_MS` have
        passed, such a player with no race of the game is queued again."""
        now = self.time.now_ms()
        for (game, player_id), paired in list(self.left_elsewhere.items()):
            if paired is None or paired[1] > now:
                continue
            races = await self.lobby.current_races(player_id)  # failing, looked for next round
            if (game, player_id) not in self.left_elsewhere:
                continue  # heard of meanwhile, or gone
            self.left_elsewhere[(game, player_id)] = None
            if any(meta.game == game for meta in races):
                continue  # the race exists: its match_found comes, or the catch-up sends it
            self.left_elsewhere.pop((game, player_id), None)
            if await self.store.queues.claim(player_id, game, LEASE_MS, holder=self.node_id) is not None:
                continue  # queued for another game since
            log.warning("a pairing made no race: queued again", extra={"player_id": player_id, "game": game})
            await self._queue_again(game, player_id, paired[0])

    async def _try_rated(self, game: str, player_id: str, rating: float, stay: bool) -> str | Left | None:
        now = self.time.now_ms()
        return await self.store.queues.match_rated(
            game, player_id, rating, now, now + LEASE_MS, self.curve, stay=stay
        )

    async def _lease_ran_out(self, game: str, player_id: str, why: Left) -> bool:
        """Whether an account that left the rated pool was dropped only because their
        lease ran out while they still queue for ``game`` (not paired or cancelled)."""
        return why is Left.GONE and await self.store.queues.queued_game(player_id) == game

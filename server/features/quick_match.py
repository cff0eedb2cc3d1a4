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
from collections.abc import Collection
from dataclasses import dataclass
from typing import Final

from server.background import cancel_and_wait
from server.config import Settings
from server.errors import ArenaError
from server.features.context import Caller, Identity, Reply
from server.features.events import EventKind, pack_event
from server.features.lobby import Lobby, RacingElsewhere
from server.features.ratings import current
from server.store import Store
from server.store.queues import Left, Marker
from server.timesource import TimeSource
from shared.protocol import (
    CancelQuickMatch,
    ErrorCode,
    GameName,
    MatchFound,
    Ok,
    Queued,
    QueueLeftReason,
    QuickMatch,
    QuickMatchLeft,
)

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
#: How long after finding one of its waiting players paired elsewhere a node looks for
#: the race the pairing made (ms); with none, the player is queued again.
PAIRED_GRACE_MS = 5_000

#: What each reason for leaving a queue tells the player.
LEFT_WORDS: Final = {
    QueueLeftReason.CANCELLED: "you cancelled the quick match",
    QueueLeftReason.DISCONNECTED: "your connection to the server that kept you waiting closed",
    QueueLeftReason.EXPIRED: "your place lapsed while the server could not reach its store: queue again",
    QueueLeftReason.RACING: "a race of yours began elsewhere: queue again once it is over",
}


#: Why a quick match that another session cancelled while it was being queued is refused.
CANCELLED_WHILE_QUEUEING: Final = (
    "you cancelled this quick match from another session before it was queued: ask again to wait"
)


def _in_the_other_queue(game: str, waiting_rated: bool) -> ArenaError:
    """The refusal of a quick match of ``game`` to an account waiting in its other queue."""
    waiting, asked = ("rated", "casual") if waiting_rated else ("casual", "rated")
    return ArenaError(
        ErrorCode.ALREADY_QUEUED,
        f"you wait in {game}'s {waiting} queue: cancel that quick match before a {asked} one",
    )


def left_event(game: str, ticket: str, reason: QueueLeftReason) -> QuickMatchLeft:
    """What a player is told of a stay in ``game``'s queue that ended for ``reason``."""
    return QuickMatchLeft(game=game, ticket=ticket, reason=reason, message=LEFT_WORDS[reason])  # type: ignore[arg-type]  # a GameName key


@dataclass(slots=True)
class Waiting:
    """A player this node keeps in a queue."""

    #: The rating they wait with (None: a guest in the casual queue).
    rating: float | None
    #: Their stay's ticket (``queued``).
    ticket: str
    #: When their lease and queue marker lapse unless renewed (ms).
    leased_until: int


@dataclass(slots=True)
class Away:
    """A player this node kept waiting who left the pool elsewhere before this node heard
    why (paired by another node, or cancelled from another session)."""

    rating: float | None
    ticket: str
    #: When to look for the race a pairing made (ms; None: nothing to look for).
    look_at: int | None = None
    #: Their lease may have lapsed first: with no race by ``look_at``, they are told their
    #: place expired (else, with none, queued again).
    lapsed: bool = False


class QuickMatchmaker:
    def __init__(self, store: Store, lobby: Lobby, settings: Settings, time: TimeSource) -> None:
        self.store = store
        self.lobby = lobby
        self.time_limit = settings.quick_match_time_limit
        self.node_id = settings.node_id
        self.time = time
        #: ``(game, player id)`` of the players this node keeps in a queue.
        self.waiting: dict[tuple[str, str], Waiting] = {}
        #: ``(game, player id)`` of players this node kept waiting that left the pool
        #: elsewhere before this node heard why: no longer tried or renewed, but still
        #: caught up after a pub/sub gap, as a pairing's ``match_found`` may be the event
        #: that was missed.
        self.left_elsewhere: dict[tuple[str, str], Away] = {}
        self.curve: tuple[float, float, int] = (RATED_GAP, RATED_WIDEN, RATED_ANYONE_MS)
        #: When this node last renewed its waiting leases (ms).
        self._renewed = time.now_ms()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._keep_waiting(), name="quick-match-leases")

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait([self._task])

    # ----- handlers --------------------------------------------------------------------

    async def quick_match(self, caller: Caller, message: QuickMatch) -> Reply:
        share, casual = message.share_commitment or "", message.casual
        ticket, rated = await self.enqueue(caller.player, message.game, share, casual)
        return Reply(Queued(id=message.id, game=message.game, rated=rated, ticket=ticket))

    async def cancel_quick_match(self, caller: Caller, message: CancelQuickMatch) -> Reply:
        await self.cancel(caller.player.player_id)
        return Reply(Ok(id=message.id))

    # ----- queues ----------------------------------------------------------------------

    async def enqueue(
        self, player: Identity, game: GameName, share_commitment: str = "", casual: bool = False
    ) -> tuple[str, bool]:
        """Queue the player (with the commitment to their seed share, if any), or pair them
        with a waiting one; the stay's ticket, and whether it is in the rated queue.
        Accounts wait in the game's rated queue and pair by rating, unless ``casual``;
        guests (and casual accounts) in the casual one."""
        rated = player.account and not casual
        player_id = player.player_id
        racing = await self.lobby.racing_in(player_id)
        if racing is not None:
            raise ArenaError(
                ErrorCode.ALREADY_RACING,
                f"you are racing in race {racing.race_id}: finish it before queueing again",
            )
        now = self.time.now_ms()
        if player.account:
            await self._refuse_the_other_queue(game, player_id, rated)
        claim = await self.store.queues.claim(
            player_id, game, LEASE_MS, share_commitment, self.node_id, rated=rated
        )
        if claim.other_game is not None:
            raise ArenaError(
                ErrorCode.ALREADY_QUEUED,
                f"you are queued for {claim.other_game}: cancel that quick match before queueing for {game}",
            )
        if claim.other_queue_rated is not None:
            raise _in_the_other_queue(game, claim.other_queue_rated)
        rating: float | None = None
        if rated:
            stored = (await self.store.ratings.ratings(game, [player_id]))[player_id]
            rating = current(stored, now).rating
        other = await self._match_now(game, player_id, rating)
        await self._refuse_if_cancelled(game, player_id, claim.ticket)
        while other is not None and await self._pair(game, other, player, rated=rated) is None:
            # The one who waited races elsewhere by now (told so, out of the queue): the next.
            await self._mark_again(game, player_id, claim.ticket, rated)
            other = await self._match_now(game, player_id, rating)
            await self._refuse_if_cancelled(game, player_id, claim.ticket)
        now = self.time.now_ms()
        if other is None:
            self.waiting[(game, player_id)] = Waiting(rating, claim.ticket, now + LEASE_MS)
            self.left_elsewhere.pop((game, player_id), None)
            log.info(
                "queued for quick match",
                extra={"player_id": player_id, "game": game, "rated": rated},
            )
        return claim.ticket, rated

    async def _refuse_if_cancelled(self, game: str, player_id: str, ticket: str) -> None:
        """Refuse a quick match whose stay (``ticket``) a cancel from another session ended
        while it was being queued: the cancel took the marker before the queue script put
        the player in the pool (the two keys live in different slots, so no one script
        sees both). The player leaves the pool again (unless another ask queued them since),
        and a player the script paired them with is left out of the pool as if that
        pairing's race had failed: their node queues them again after its grace."""
        marker = await self.store.queues.queued(player_id)
        if marker is not None and marker.ticket == ticket:
            return
        if marker is None:
            await self.store.queues.unqueue(game, player_id)
        log.info("a quick match was cancelled while it was queued", extra={"player_id": player_id})
        raise ArenaError(ErrorCode.QUICK_MATCH_CANCELLED, CANCELLED_WHILE_QUEUEING)

    async def _match_now(self, game: str, player_id: str, rating: float | None) -> str | None:
        """The player waiting in ``game``'s queue that ``player_id`` pairs with now (in the
        rated pool by ``rating``, or the casual queue without one), or None: then
        ``player_id`` waits in it."""
        now = self.time.now_ms()
        if rating is None:
            return await self.store.queues.match(game, player_id, now, now + LEASE_MS)
        other = await self._try_rated(game, player_id, rating, stay=False)
        assert not isinstance(other, Left)  # only trying again (``stay``) answers why one left
        return other

    async def _mark_again(self, game: str, player_id: str, ticket: str, rated: bool) -> None:
        """Put back the queue marker of a player this node keeps waiting (it lapsed, or a
        pairing that made no race released it)."""
        await self.store.queues.mark_again(player_id, Marker(game, self.node_id, ticket, rated), LEASE_MS)

    async def _refuse_the_other_queue(self, game: str, player_id: str, rated: bool) -> None:
        """An account asking again for ``game``'s quick match keeps its place in the queue
        it waits in: the other one (rated, or casual) only once that one is cancelled."""
        if await self.store.queues.in_rated_pool(game, player_id) == rated:
            return
        if rated and not await self.store.queues.in_casual_queue(game, player_id):
            return  # in neither yet: a first ask
        raise _in_the_other_queue(game, waiting_rated=not rated)

    async def _pair(self, game: GameName, other: str, player: Identity, rated: bool) -> str | None:
        """Seat ``other`` (who waited) and ``player`` in a new race, each with the seed share
        commitment they queued with, and count it down: they reveal their shares during
        the countdown, and the start mixes those revealed by then. None when ``other``
        turned out to race elsewhere (a lobby race begun while they waited): they leave the
        queue, told why, and ``player`` is paired with nobody yet. A pairing that fails
        midway unseats both from its race (cancelled): nothing half-made stays open."""
        if await self.lobby.racing_in(other) is not None:
            await self._left_racing(game, other)
            return None
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
            quick=True,
        )
        try:
            await self.lobby.join(player, meta.code, ready=True, share_commitment=player_share)
            await self.lobby.begin_countdown(meta.race_id)
        except BaseException as exc:
            await self.lobby.unseat_all(meta.race_id, [other, player.player_id])
            if not isinstance(exc, RacingElsewhere):
                raise
            busy = {seat.player_id for seat in exc.seats}
            if player.player_id in busy:
                raise  # the asker races elsewhere: their quick match is refused so
            await self._left_racing(game, other)
            return None
        log.info(
            "quick match", extra={"race_id": meta.race_id, "player_id": player.player_id, "rated": rated}
        )
        for racer in (other, player.player_id):
            info = await self.lobby.info(meta.race_id, racer)
            await self.store.events.publish_player(
                racer, pack_event(EventKind.MATCH_FOUND, MatchFound(race=info))
            )
        return meta.race_id

    async def _left_racing(self, game: str, player_id: str) -> None:
        """A player a pairing took out of ``game``'s queue races elsewhere: their stay is
        over, and every session of theirs is told why."""
        marker = await self.store.queues.queued(player_id)
        kept = self.waiting.get((game, player_id))
        ticket = marker.ticket if marker is not None and marker.game == game else kept.ticket if kept else ""
        self._forget(player_id)
        await self.store.queues.unqueue(game, player_id)
        log.info("a paired player races elsewhere", extra={"player_id": player_id, "game": game})
        await self._tell_left(player_id, game, ticket, QueueLeftReason.RACING)

    async def started_racing(self, player_ids: list[str]) -> None:
        """A race of these players began (not a quick match): any of them still waiting in
        a queue leaves it, told why (a player races one race at a time)."""
        for player_id in player_ids:
            marker = await self.store.queues.queued(player_id)
            if marker is not None or any(who == player_id for _game, who in self.waiting):
                await self._leave(player_id, marker, QueueLeftReason.RACING)

    def waiting_games(self, player_id: str) -> set[str]:
        """The games this node keeps ``player_id`` waiting for."""
        return {game for game, waiting in (*self.waiting, *self.left_elsewhere) if waiting == player_id}

    def matched(self, player_id: str, game: str) -> None:
        """A player of this node was paired (by any node): no lease to renew."""
        self.waiting.pop((game, player_id), None)
        self.left_elsewhere.pop((game, player_id), None)

    def heard_left(self, player_id: str, game: str, ticket: str) -> None:
        """The player's stay in ``game``'s queue that ``ticket`` names ended (their channel
        said so, from any node): this node no longer keeps it."""
        for entries in (self.waiting, self.left_elsewhere):
            entry = entries.get((game, player_id))
            if entry is not None and entry.ticket == ticket:
                del entries[(game, player_id)]

    async def ended_unheard(self, player_id: str, seated_in: Collection[str]) -> list[QuickMatchLeft]:
        """The player's stays this node keeps that were cancelled from another node while
        this one could not hear it (a pub/sub gap), each as the event that was missed; this
        node keeps them no longer. A stay ended when the player's marker no longer names it;
        it was cancelled unless a pairing took it (a race in one of ``seated_in``, the games
        a race of theirs was found for, or the queue's record of the pairing: its race is
        looked for) or its lease ran out (the renewals see to that)."""
        now = self.time.now_ms()
        kept: list[tuple[tuple[str, str], Waiting | Away]] = [
            *self.waiting.items(),
            *self.left_elsewhere.items(),
        ]
        stays = [(game, entry) for (game, who), entry in kept if who == player_id and game not in seated_in]
        if not stays:
            return []
        marker = await self.store.queues.queued(player_id)
        ended = []
        for game, entry in stays:
            if marker is not None and (marker.game, marker.ticket) == (game, entry.ticket):
                continue
            if isinstance(entry, Waiting) and entry.leased_until < now:
                continue
            if isinstance(entry, Away) and (entry.look_at is not None or entry.lapsed):
                continue
            if await self.store.queues.paired(game, player_id, now, rated=entry.rating is not None):
                continue
            key = (game, player_id)
            if self.waiting.get(key) is not entry and self.left_elsewhere.get(key) is not entry:
                continue  # heard of, or queued again, meanwhile
            self.waiting.pop(key, None)
            self.left_elsewhere.pop(key, None)
            ended.append(left_event(game, entry.ticket, QueueLeftReason.CANCELLED))
        return ended

    async def cancel(self, player_id: str) -> None:
        """The player leaves the queue they wait in, if any; their sessions are told."""
        await self._leave(player_id, await self.store.queues.queued(player_id), QueueLeftReason.CANCELLED)

    async def went_away(self, player_id: str) -> None:
        """The player's last connection on this node closed: they leave the queue this node
        keeps them in, unless a connection on another node queued them since (a client
        that resumed there before this node noticed the old connection close)."""
        queued = await self.store.queues.queued(player_id)
        if queued is not None and queued.holder not in ("", self.node_id):
            self._forget(player_id)
            return
        await self._leave(player_id, queued, QueueLeftReason.DISCONNECTED)

    async def _leave(self, player_id: str, queued: Marker | None, reason: QueueLeftReason) -> None:
        """Take the player out of the queue their marker names (``queued``) and of those
        this node keeps them waiting in, and tell their sessions why."""
        stays = {
            game: entry.ticket for (game, waiting), entry in self.waiting.items() if waiting == player_id
        }
        if queued is not None:
            stays[queued.game] = queued.ticket
        self._forget(player_id)
        for game, ticket in sorted(stays.items()):
            await self.store.queues.unqueue(game, player_id)
            if await self._paired_before(game, player_id):
                continue  # not left: its match_found is on its way
            await self._tell_left(player_id, game, ticket, reason)

    async def _paired_before(self, game: str, player_id: str) -> bool:
        """Whether a pairing took the player out of ``game``'s pool before they were taken
        out of it (the pairing is recorded in the same script that takes them out): asked
        after, it is decided, as no pairing finds them in the pool any more."""
        now = self.time.now_ms()
        return await self.store.queues.paired(game, player_id, now) or await self.store.queues.paired(
            game, player_id, now, rated=True
        )

    async def _tell_left(self, player_id: str, game: str, ticket: str, reason: QueueLeftReason) -> None:
        """Tell every session of the player, on every node, that a stay of theirs ended."""
        told = left_event(game, ticket, reason)
        try:
            await self.store.events.publish_player(player_id, pack_event(EventKind.QUEUE_LEFT, told))
        except Exception as exc:
            # The queue was left all the same; only the player's other screens lag.
            log.warning(
                "a player was not told they left a queue", extra={"player_id": player_id, "reason": repr(exc)}
            )

    def _forget(self, player_id: str) -> None:
        """This node no longer keeps the player waiting."""
        for entry in [w for w in self.waiting if w[1] == player_id]:
            self.waiting.pop(entry, None)
        for entry in [w for w in self.left_elsewhere if w[1] == player_id]:
            self.left_elsewhere.pop(entry, None)

    async def _keep_waiting(self) -> None:
        """Every second, try again to pair this node's waiting accounts (their allowed gap
        has widened); every :data:`RENEW_EVERY` seconds, renew every waiting lease (every
        second while renewing fails)."""
        while True:
            await asyncio.sleep(min(SWEEP_EVERY, RENEW_EVERY))
            try:
                await self._sweep()
                await self._look_for_paired_races()
                await self._renew_due()
            except Exception as exc:
                # The next round tries again, well before the leases run out.
                log.warning("keeping quick-match players waiting failed", extra={"reason": repr(exc)})

    async def _renew_due(self) -> None:
        """Renew the waiting leases when due; a player found gone from the casual pool, or
        whose marker lapsed, is seen to."""
        now = self.time.now_ms()
        if not self.waiting or now - self._renewed < RENEW_EVERY * 1000:
            return
        entries = sorted(self.waiting.items())
        found = await self.store.queues.renew(
            [(game, player_id, entry.rating is not None) for (game, player_id), entry in entries],
            now + LEASE_MS,
            LEASE_MS,
        )
        self._renewed = now
        for ((game, player_id), entry), renewed in zip(entries, found, strict=True):
            if self.waiting.get((game, player_id)) is not entry:
                continue  # left, or queued again, meanwhile
            if renewed.in_pool:
                entry.leased_until = now + LEASE_MS
                if not renewed.marked:  # it lapsed, though nobody dropped them from the pool
                    await self._mark_again(game, player_id, entry.ticket, entry.rating is not None)
            elif entry.rating is None:  # the rated pool's leavers are the sweep's
                if entry.leased_until < now:
                    await self._gone_from_pool(game, player_id, entry, now)
                    continue
                # Paired, or cancelled, elsewhere: match_found or quick_match_left comes. A
                # pairing's race is looked for later, as its node may have failed to make it.
                paired = await self.store.queues.paired(game, player_id, now)
                if self.waiting.get((game, player_id)) is entry:
                    del self.waiting[(game, player_id)]
                    look_at = now + PAIRED_GRACE_MS if paired else None
                    self.left_elsewhere[(game, player_id)] = Away(None, entry.ticket, look_at)

    async def _sweep(self) -> None:
        for (game, player_id), entry in list(self.waiting.items()):
            if entry.rating is None or self.waiting.get((game, player_id)) is not entry:
                continue
            other = await self._try_rated(game, player_id, entry.rating, stay=True)
            if self.waiting.get((game, player_id)) is not entry:
                continue  # cancelled here meanwhile
            if other is Left.PAIRED:
                # Paired elsewhere: putting them back would pair them twice.
                del self.waiting[(game, player_id)]
                look_at = self.time.now_ms() + PAIRED_GRACE_MS
                self.left_elsewhere[(game, player_id)] = Away(entry.rating, entry.ticket, look_at)
            elif other is Left.GONE:
                await self._gone_from_pool(game, player_id, entry, self.time.now_ms())
            elif isinstance(other, str):
                await self._pair_waiting(game, player_id, other, entry)

    async def _gone_from_pool(self, game: str, player_id: str, entry: Waiting, now: int) -> None:
        """A player this node keeps waiting is no longer in the pool, and no pairing took
        them. Their marker still naming the game, they were dropped because their lease
        ran out: queued again. Else they cancelled elsewhere, or, when their lease may
        have lapsed with the marker, are told their place expired unless a race of theirs
        turns up (a pairing whose match_found this node missed)."""
        marker = await self.store.queues.queued(player_id)
        if self.waiting.get((game, player_id)) is not entry:
            return
        if marker is not None and marker.game == game:
            log.warning("a waiting player's lease ran out: queued again", extra={"player_id": player_id})
            await self._queue_again(game, player_id, entry)
            return
        del self.waiting[(game, player_id)]
        lapsed = marker is None and entry.leased_until < now
        look_at = now + PAIRED_GRACE_MS if lapsed else None
        self.left_elsewhere[(game, player_id)] = Away(entry.rating, entry.ticket, look_at, lapsed)

    async def _queue_again(self, game: str, player_id: str, entry: Waiting) -> None:
        """Put a player this node keeps waiting back in the pool (paired at once if someone
        fits)."""
        now = self.time.now_ms()
        entry.leased_until = now + LEASE_MS
        self.waiting[(game, player_id)] = entry
        other = await self._match_now(game, player_id, entry.rating)
        if other is not None:
            await self._pair_waiting(game, player_id, other, entry)

    async def _pair_waiting(self, game: str, player_id: str, other: str, entry: Waiting) -> None:
        """Pair ``player_id``, a player this node kept waiting (``entry``), with ``other``;
        back in the pool if ``other`` turned out to race elsewhere."""
        self.waiting.pop((game, player_id), None)
        rated = entry.rating is not None
        name, bot = await self.store.players.profile(player_id) or ("?", False)
        identity = Identity(player_id, name, bot=bot, account=rated)
        if await self._pair(game, other, identity, rated=rated) is None:  # type: ignore[arg-type]  # a GameName key
            await self._mark_again(game, player_id, entry.ticket, rated)
            await self._queue_again(game, player_id, entry)

    async def _look_for_paired_races(self) -> None:
        """A player who left the pool without this node hearing why is looked for in a race
        of the game once :data:`PAIRED_GRACE_MS` have passed. With none, a pairing's
        race was never made (the node pairing them lost Redis midway): queued again; or
        their place lapsed: told so."""
        now = self.time.now_ms()
        for (game, player_id), away in list(self.left_elsewhere.items()):
            if away.look_at is None or away.look_at > now:
                continue
            races = await self.lobby.current_races(player_id)  # failing, looked for next round
            if self.left_elsewhere.get((game, player_id)) is not away:
                continue  # heard of meanwhile, or gone
            away.look_at = None
            if any(meta.game == game for meta in races):
                continue  # the race exists: its match_found comes, or the catch-up sends it
            del self.left_elsewhere[(game, player_id)]
            if away.lapsed:
                log.warning("a waiting player's place lapsed", extra={"player_id": player_id, "game": game})
                await self._tell_left(player_id, game, away.ticket, QueueLeftReason.EXPIRED)
                continue
            claim = await self.store.queues.claim(
                player_id,
                game,
                LEASE_MS,
                holder=self.node_id,
                ticket=away.ticket,
                rated=away.rating is not None,
            )
            if claim.other_game is not None or claim.other_queue_rated is not None:
                continue  # queued for another game, or this game's other queue, since
            log.warning("a pairing made no race: queued again", extra={"player_id": player_id, "game": game})
            await self._queue_again(game, player_id, Waiting(away.rating, claim.ticket, now + LEASE_MS))

    async def _try_rated(self, game: str, player_id: str, rating: float, stay: bool) -> str | Left | None:
        now = self.time.now_ms()
        return await self.store.queues.match_rated(
            game, player_id, rating, now, now + LEASE_MS, self.curve, stay=stay
        )

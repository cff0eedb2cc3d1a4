"""Quick-match queues: one per game, with leases, and each player's one queue."""

from __future__ import annotations

import enum
import secrets
from typing import Any, NamedTuple

from server.store import keys, scripts

#: How long each queue keeps who it paired (ms).
PAIRED_KEPT_MS = 60_000


class Left(enum.Enum):
    """Why an account a node keeps waiting is no longer in the rated pool."""

    #: A pairing took them out (within the last minute): its ``match_found`` is on its way.
    PAIRED = 1
    #: They left otherwise: cancelled from another session, or dropped when the lease ran out.
    GONE = 2


class Marker(NamedTuple):
    """A player's queue marker: the game, the node that keeps them waiting ('' for none
    named), the ticket of this stay in the queue ('' for none) and which of the game's
    queues it is in (None: not said, a marker from before the two queues)."""

    game: str
    holder: str
    ticket: str
    rated: bool | None = None


class Claim(NamedTuple):
    #: The stay's ticket: the one already running when asking again for the same game.
    ticket: str
    #: The other game the player is already queued for (nothing changed), or None.
    other_game: str | None = None
    #: Queued for this game's other queue already (nothing changed): whether that one is
    #: the rated queue; None when not.
    other_queue_rated: bool | None = None


class Renewed(NamedTuple):
    """What a lease renewal found of one waiting entry."""

    #: Still in the game's pool (its lease extended).
    in_pool: bool
    #: The player's queue marker was still there (its expiry extended).
    marked: bool


class QueueStore:
    def __init__(self, client: Any) -> None:
        self.redis = client
        self._match = client.register_script(scripts.MATCH.source)
        self._match_rated = client.register_script(scripts.MATCH_RATED.source)

    async def claim(
        self,
        player_id: str,
        game: str,
        lease_ms: int,
        share_commitment: str = "",
        holder: str = "",
        ticket: str = "",
        rated: bool = False,
    ) -> Claim:
        """Mark the player as queued for ``game``'s rated (or casual) queue by the node
        ``holder`` (which keeps them waiting), with the seed share commitment they sent
        ('' for none; asking again replaces it). A new stay gets ``ticket`` (a new one when
        ''); asking again for the same queue keeps the running one. Queued for another game,
        or for this game's other queue, already: nothing changes. The marker is the one
        place both asks meet, so of two asks at once only one queue is ever claimed."""
        key = keys.player_queue(player_id)
        ticket = ticket or secrets.token_hex(6)
        if not await self.redis.set(key, _marker(game, holder, ticket, rated), nx=True, px=lease_ms):
            current = _queued_of(await self.redis.get(key))
            if current is not None and current.game != game:
                return Claim(current.ticket, current.game)
            if current is not None and current.rated is not None and current.rated != rated:
                return Claim(current.ticket, other_queue_rated=current.rated)
            if current is not None and current.ticket:
                ticket = current.ticket
            await self.redis.set(key, _marker(game, holder, ticket, rated), px=lease_ms)
        share_key = keys.player_queue_share(player_id)
        if share_commitment:
            await self.redis.set(share_key, share_commitment, px=lease_ms)
        else:
            await self.redis.delete(share_key)
        return Claim(ticket)

    async def mark_again(self, player_id: str, marker: Marker, lease_ms: int) -> bool:
        """Put back a waiting player's marker that expired (their node could not renew it
        in time); False when the player has another by now."""
        value = _marker(marker.game, marker.holder, marker.ticket, marker.rated)
        return bool(await self.redis.set(keys.player_queue(player_id), value, nx=True, px=lease_ms))

    async def share_commitments(self, player_ids: list[str]) -> list[str]:
        """The seed share commitment each queued player sent ('' for none)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.get(keys.player_queue_share(player_id))
            found: list[str | None] = await pipe.execute()
        return [value or "" for value in found]

    async def queued(self, player_id: str) -> Marker | None:
        """The player's queue marker, or None."""
        return _queued_of(await self.redis.get(keys.player_queue(player_id)))

    async def in_rated_pool(self, game: str, player_id: str) -> bool:
        """Whether the player waits in ``game``'s rated pool."""
        return await self.redis.zscore(keys.rated_pool(game), player_id) is not None

    async def in_casual_queue(self, game: str, player_id: str) -> bool:
        """Whether the player waits in ``game``'s casual queue."""
        return await self.redis.lpos(keys.queue(game), player_id) is not None

    async def match(self, game: str, player_id: str, now: int, lease_until: int) -> str | None:
        """The player waiting for ``game`` to pair with, or None (now queued until
        ``lease_until`` unless the lease is renewed)."""
        other: str | None = await self._match(
            keys=[keys.queue(game), keys.queue_leases(game), keys.queue_paired(game)],
            args=[player_id, now, lease_until, PAIRED_KEPT_MS],
        )
        return other or None

    async def paired(self, game: str, player_id: str, now: int, rated: bool = False) -> bool:
        """Whether the casual (or ``rated``) queue of ``game`` paired the player in the
        minute before ``now`` (and they have not queued since)."""
        record = keys.rated_paired(game) if rated else keys.queue_paired(game)
        at = await self.redis.zscore(record, player_id)
        return at is not None and at >= now - PAIRED_KEPT_MS

    async def match_rated(
        self,
        game: str,
        player_id: str,
        rating: float,
        now: int,
        lease_until: int,
        curve: tuple[float, float, int],
        stay: bool = False,
    ) -> str | Left | None:
        """The account waiting for a rated ``game`` to pair with (see
        :data:`scripts.MATCH_RATED`; ``curve`` is the gap at first, the gap added per
        second and the wait after which any gap goes), or None: waiting until ``lease_until``.
        With ``stay`` (trying again for an account already queued), an account no longer
        in the pool is not queued again: why it left instead."""
        base, widen, anyone = curve
        answer: str | int | None = await self._match_rated(
            keys=[
                keys.rated_pool(game),
                keys.rated_since(game),
                keys.rated_leases(game),
                keys.rated_paired(game),
            ],
            args=[
                player_id,
                rating,
                now,
                lease_until,
                base,
                widen,
                anyone,
                "stay" if stay else "join",
                PAIRED_KEPT_MS,
            ],
        )
        if isinstance(answer, int):
            return Left(answer)
        return answer or None

    async def renew(
        self, entries: list[tuple[str, str, bool]], lease_until: int, lease_ms: int
    ) -> list[Renewed]:
        """Extend the leases of waiting ``(game, player id, rated)`` entries (gone ones
        stay gone), and say what was found of each."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for game, player_id, rated in entries:
                leases = keys.rated_leases(game) if rated else keys.queue_leases(game)
                pipe.zadd(leases, {player_id: lease_until}, xx=True, ch=True)
                pipe.pexpire(keys.player_queue(player_id), lease_ms)
                pipe.pexpire(keys.player_queue_share(player_id), lease_ms)
            found: list[Any] = await pipe.execute()
        return [Renewed(bool(found[i]), bool(found[i + 1])) for i in range(0, len(found), 3)]

    async def release(self, player_ids: list[str]) -> None:
        """The players left their queue (paired): they may queue again."""
        await self.redis.delete(
            *(key for p in player_ids for key in (keys.player_queue(p), keys.player_queue_share(p)))
        )

    async def unqueue(self, game: str, player_id: str) -> None:
        # The player's marker goes first, in a round trip of its own (a cluster pipeline
        # does not keep order across slots): a node that finds them gone from the pool
        # then never finds the marker still naming the game, and does not queue them again.
        await self.release([player_id])
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.lrem(keys.queue(game), 0, player_id)
            pipe.zrem(keys.queue_leases(game), player_id)
            pipe.zrem(keys.rated_pool(game), player_id)
            pipe.hdel(keys.rated_since(game), player_id)
            pipe.zrem(keys.rated_leases(game), player_id)
            await pipe.execute()


#: How a marker names each of a game's queues.
_QUEUE_WORDS = {True: "rated", False: "casual"}


def _marker(game: str, holder: str, ticket: str, rated: bool | None) -> str:
    words = [game, holder, ticket] + ([] if rated is None else [_QUEUE_WORDS[rated]])
    return " ".join(words)


def _queued_of(marker: str | None) -> Marker | None:
    """A player's queue marker as read (one from before the two queues does not say which,
    one from before tickets has no ticket, one from before holders no holder)."""
    if marker is None:
        return None
    game, holder, ticket, queue = (*marker.split(" ", 3), "", "", "")[:4]
    rated = {"rated": True, "casual": False}.get(queue)
    return Marker(game, holder, ticket, rated)

"""Quick-match queues: one per game, with leases, and each player's one queue."""

from __future__ import annotations

import enum
from typing import Any

from server.store import keys, scripts


class Left(enum.Enum):
    """Why an account a node keeps waiting is no longer in the rated pool."""

    #: A pairing took them out (within the last minute): its ``match_found`` is on its way.
    PAIRED = 1
    #: They left otherwise: cancelled from another session, or dropped when the lease ran out.
    GONE = 2


class QueueStore:
    def __init__(self, client: Any) -> None:
        self.redis = client
        self._match = client.register_script(scripts.MATCH.source)
        self._match_rated = client.register_script(scripts.MATCH_RATED.source)

    async def claim(
        self, player_id: str, game: str, lease_ms: int, share_commitment: str = "", holder: str = ""
    ) -> str | None:
        """Mark the player as queued for ``game`` by the node ``holder`` (which keeps them
        waiting), with the seed share commitment they sent ('' for none; asking again
        replaces it). Returns the other game they are already queued for (and changes
        nothing), or None."""
        key = keys.player_queue(player_id)
        marker = f"{game} {holder}"
        if not await self.redis.set(key, marker, nx=True, px=lease_ms):
            current = _queued_of(await self.redis.get(key))
            if current is not None and current[0] != game:
                return current[0]
            await self.redis.set(key, marker, px=lease_ms)
        share_key = keys.player_queue_share(player_id)
        if share_commitment:
            await self.redis.set(share_key, share_commitment, px=lease_ms)
        else:
            await self.redis.delete(share_key)
        return None

    async def share_commitments(self, player_ids: list[str]) -> list[str]:
        """The seed share commitment each queued player sent ('' for none)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.get(keys.player_queue_share(player_id))
            found: list[str | None] = await pipe.execute()
        return [value or "" for value in found]

    async def queued(self, player_id: str) -> tuple[str, str] | None:
        """The game the player is queued for and the node that queued them ('' for none
        named), or None."""
        return _queued_of(await self.redis.get(keys.player_queue(player_id)))

    async def queued_game(self, player_id: str) -> str | None:
        queued = await self.queued(player_id)
        return queued[0] if queued is not None else None

    async def match(self, game: str, player_id: str, now: int, lease_until: int) -> str | None:
        """The player waiting for ``game`` to pair with, or None (now queued until
        ``lease_until`` unless the lease is renewed)."""
        other: str | None = await self._match(
            keys=[keys.queue(game), keys.queue_leases(game)], args=[player_id, now, lease_until]
        )
        return other or None

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
            args=[player_id, rating, now, lease_until, base, widen, anyone, "stay" if stay else "join"],
        )
        if isinstance(answer, int):
            return Left(answer)
        return answer or None

    async def renew(self, entries: list[tuple[str, str, bool]], lease_until: int, lease_ms: int) -> None:
        """Extend the leases of waiting ``(game, player id, rated)`` entries (gone ones
        stay gone)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for game, player_id, rated in entries:
                leases = keys.rated_leases(game) if rated else keys.queue_leases(game)
                pipe.zadd(leases, {player_id: lease_until}, xx=True)
                pipe.pexpire(keys.player_queue(player_id), lease_ms)
                pipe.pexpire(keys.player_queue_share(player_id), lease_ms)
            await pipe.execute()

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


def _queued_of(marker: str | None) -> tuple[str, str] | None:
    """(game, holder) of a player's queue marker."""
    if marker is None:
        return None
    game, _, holder = marker.partition(" ")
    return game, holder

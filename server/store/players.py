"""Players: identity, tokens (kept only as a SHA-256), hello times, their races."""

from __future__ import annotations

import hashlib
from typing import Any

from server.store import keys, scripts
from shared.games import GAMES


def token_digest(token: str) -> str:
    """What the store keeps of a token: its SHA-256, never the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()


#: How long a guest's renames are counted, seconds from the first.
RENAME_WINDOW = 60 * 60
#: How long a gone player taken from the gone list by a node that then failed to look at
#: them (it lost Redis, or died) waits before any node takes them again (ms).
GONE_RETRY_MS = 30_000


class PlayerStore:
    def __init__(self, client: Any) -> None:
        self.redis = client
        self._rename = client.register_script(scripts.RENAME.source)
        self._count = client.register_script(scripts.COUNT.source)
        self._claim_racing = client.register_script(scripts.CLAIM_RACING.source)
        self._release_racing = client.register_script(scripts.RELEASE_RACING.source)
        self._take_due = client.register_script(scripts.TAKE_DUE.source)

    async def create(
        self, player_id: str, name: str, token: str, now: int, ttl: int, bot: bool = False
    ) -> None:
        """A new guest, kept ``ttl`` seconds (0: forever) unless :meth:`keep` is called."""
        digest = token_digest(token)
        fields: dict[str, Any] = {"name": name, "created_at": now, "token_sha": digest}
        if bot:
            fields["bot"] = 1
        # The player first, then the token that finds it (different cluster slots).
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(keys.player(player_id), mapping=fields)
            if ttl > 0:
                pipe.expire(keys.player(player_id), ttl)
            await pipe.execute()
        await self.redis.set(keys.token(digest), player_id, ex=ttl if ttl > 0 else None)

    async def claim_racing(self, player_id: str, race_id: str, lasting_ms: int, over: str = "") -> str:
        """Claim the player for ``race_id`` for ``lasting_ms`` (again: renewed), taking the
        claim over from ``over`` (a race found over) if that one holds it; '' when the
        race holds it now, else the race that does."""
        holder: str = await self._claim_racing(
            keys=[keys.player_racing(player_id)], args=[race_id, max(1, lasting_ms), over]
        )
        return holder

    async def release_racing(self, player_id: str, race_id: str) -> None:
        """Drop ``race_id``'s claim on the player (a claim another race holds stays)."""
        await self._release_racing(keys=[keys.player_racing(player_id)], args=[race_id])

    async def keep(self, player_id: str, ttl: int) -> None:
        """The guest was just here: every key of theirs expires ``ttl`` seconds from now
        (0: never). An account's keys never expire. The markers of what races' ends
        wrote to a guest's counts go with them (an account's lapse after 8 days)."""
        digest, username = await self.redis.hmget(keys.player(player_id), ["token_sha", "username"])
        counted = [keys.player_recent(player_id), *(keys.player_stats(player_id, game) for game in GAMES)]
        names = [
            keys.player(player_id),
            keys.player_active(player_id),
            *counted,
        ]
        if digest:
            names.append(keys.token(digest))
        if username:
            ttl = 0
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.delete(keys.legacy_player_races(player_id))
            for name in names:
                if ttl > 0:
                    pipe.expire(name, ttl)
                else:
                    pipe.persist(name)
            if ttl > 0:
                for name in counted:
                    pipe.expire(keys.applied(name), ttl)
            await pipe.execute()

    async def for_token(self, token: str) -> tuple[str, str, bool] | None:
        """(player id, name, bot) of a token, or None."""
        player_id: str | None = await self.redis.get(keys.token(token_digest(token)))
        if player_id is None:
            return None
        found = await self.profile(player_id)
        return (player_id, *found) if found is not None else None

    async def profile(self, player_id: str) -> tuple[str, bool] | None:
        """(name, bot) of a player, or None."""
        name, bot = await self.redis.hmget(keys.player(player_id), ["name", "bot"])
        return (name, bot == "1") if name is not None else None

    async def profiles(self, player_ids: list[str]) -> dict[str, tuple[str, bool]]:
        """(name, bot) of each player that exists, in one round trip."""
        if not player_ids:
            return {}
        async with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.hmget(keys.player(player_id), ["name", "bot"])
            rows = await pipe.execute()
        return {
            p: (name, bot == "1") for p, (name, bot) in zip(player_ids, rows, strict=True) if name is not None
        }

    async def rename(self, player_id: str, name: str) -> str:
        """``ok`` (the guest goes by ``name`` now), ``registered`` (an account keeps its
        username) or ``no_player``."""
        word: str = await self._rename(keys=[keys.player(player_id)], args=[name])
        return word

    async def rename_tried(self, player_id: str, most: int) -> int:
        """Count one rename of the guest: 0 when counted, else the seconds until it may
        rename again (``most`` within :data:`RENAME_WINDOW` of the first)."""
        wait: int = await self._count(keys=[keys.player_renames(player_id)], args=[most, RENAME_WINDOW])
        return wait

    async def mark_hello(self, player_id: str, now: int) -> None:
        """The player said hello (new or resumed) at ``now``."""
        await self.redis.hset(keys.player(player_id), "hello_at", now)

    async def went_away(self, player_ids: list[str], since: int, due: int) -> None:
        """The players' last connection on a node closed at ``since`` (or the node died);
        their open races' seats are looked at from ``due`` (the lobby grace), by any node."""
        if player_ids:
            await self.redis.zadd(keys.LOBBY_GONE, {f"{p}:{since}": due for p in player_ids})

    async def came_back(self, player_ids: list[str]) -> None:
        """These players are connected after all (their node was taken for dead while it
        could not reach Redis): off the gone list, whenever their grace ends."""
        back = set(player_ids)
        if not back:
            return
        members = [
            member
            async for member, _due in self.redis.zscan_iter(keys.LOBBY_GONE, count=1000)
            if member.rpartition(":")[0] in back
        ]
        if members:
            await self.redis.zrem(keys.LOBBY_GONE, *members)

    async def gone_due(self, now: int, limit: int = 100) -> list[tuple[str, int]]:
        """(player id, when gone) of the players whose lobby grace ended by ``now``, each
        taken for :data:`GONE_RETRY_MS`: only the node that takes one looks at it, and drops
        it once done (:meth:`gone_seen`); one it never drops is due again after that."""
        due: list[str] = await self._take_due(keys=[keys.LOBBY_GONE], args=[now, limit, GONE_RETRY_MS])
        found, unreadable = [], []
        for member in due:
            player_id, _, since = member.rpartition(":")
            if since.isdigit():
                found.append((player_id, int(since)))
            else:
                unreadable.append(member)
        if unreadable:
            await self.redis.zrem(keys.LOBBY_GONE, *unreadable)
        return found

    async def gone_seen(self, seen: list[tuple[str, int]]) -> None:
        """These players taken from the gone list were looked at: off it."""
        if seen:
            await self.redis.zrem(keys.LOBBY_GONE, *(f"{p}:{since}" for p, since in seen))

    async def last_hello(self, player_id: str) -> int:
        """When the player last said hello (ms; 0 if never recorded)."""
        value: str | None = await self.redis.hget(keys.player(player_id), "hello_at")
        return int(value) if value else 0

    async def name(self, player_id: str) -> str | None:
        name: str | None = await self.redis.hget(keys.player(player_id), "name")
        return name

    async def count_creation(self, player_id: str, now: int) -> int:
        """Count one race created by the player in the minute of ``now``; the count of
        that minute so far."""
        key = keys.player_created(player_id, now // 60_000)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.incr(key)
            pipe.expire(key, 120)
            count, _ = await pipe.execute()
        return int(count)

    async def active_races(self, player_id: str) -> list[str]:
        """The player's races that are not over (a small set, whatever their history)."""
        races: set[str] = await self.redis.smembers(keys.player_active(player_id))
        return sorted(races)

    async def forget_active(self, player_id: str, race_ids: list[str]) -> None:
        """These races are over (or gone): no longer the player's active ones."""
        if race_ids:
            await self.redis.srem(keys.player_active(player_id), *race_ids)

    async def forget_active_race(self, player_ids: list[str], race_id: str) -> None:
        """These players were told the race is over: one round trip for them all."""
        if player_ids:
            async with self.redis.pipeline(transaction=False) as pipe:
                for player_id in player_ids:
                    pipe.srem(keys.player_active(player_id), race_id)
                await pipe.execute()

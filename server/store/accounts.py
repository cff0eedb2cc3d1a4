"""Accounts: usernames (unique by skeleton), password hashes, the tokens of each account,
the counts of wrong passwords (per account and client address, and per account), the
addresses each account logged in from lately, failed logins (per client address) and
password changes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from server.store import keys, scripts
from server.store.players import token_digest

#: How long a name is held for a registration under way, ms.
CLAIM_MS = 30_000
#: How long wrong passwords are remembered, seconds.
FAILURE_WINDOW = 15 * 60
#: How long an account's password changes are counted, seconds from the first.
CHANGE_WINDOW = 60 * 60
#: How long an address stays known to an account after its latest login there, ms.
KNOWN_FOR_MS = 30 * 24 * 3600 * 1000
#: The most addresses known to one account (the latest ones).
KNOWN_KEPT = 20


@dataclass(frozen=True, slots=True)
class Lockout:
    """Why a password may not be checked now."""

    #: ``account_address`` (too many from this address for this account) or ``account``
    #: (too many for this account from everywhere, and the address is not known to it).
    limit: str
    #: Seconds until the counter that refuses it lapses.
    wait: int


class AccountStore:
    def __init__(self, client: Any) -> None:
        self.redis = client
        self._register = client.register_script(scripts.REGISTER.source)
        self._count = client.register_script(scripts.COUNT.source)
        self._uncount = client.register_script(scripts.UNCOUNT.source)
        self._guess = client.register_script(scripts.GUESS.source)
        self._logged_in = client.register_script(scripts.LOGGED_IN.source)
        self._known_at = client.register_script(scripts.KNOWN_AT.source)

    async def register(self, player_id: str, username: str, skeleton: str, password_hash: str) -> str:
        """``ok``, ``registered`` (already an account), ``taken`` or ``no_player``.

        The name, the player and their tokens lie in different cluster slots, so this is
        three steps: the name is claimed for :data:`CLAIM_MS` (a claim left by a node
        that died midway lapses), the player becomes an account, and the claim is made
        permanent. A second attempt by the same player picks up where one stopped.
        """
        name_key, player_key = keys.account(skeleton), keys.player(player_id)
        if not await self.redis.exists(player_key):
            return "no_player"
        claimed_now = bool(await self.redis.set(name_key, player_id, nx=True, px=CLAIM_MS))
        if not claimed_now and await self.redis.get(name_key) != player_id:
            return "taken"
        digest: str | None = await self.redis.hget(player_key, "token_sha")
        if digest:
            await self.redis.sadd(keys.player_tokens(player_id), digest)
        word: str = await self._register(keys=[player_key], args=[username, password_hash])
        if word == "ok":
            await self.redis.persist(name_key)
        elif claimed_now and await self.redis.get(name_key) == player_id:
            await self.redis.delete(name_key)
        return word

    async def keep_name(self, player_id: str, skeleton: str) -> str:
        """Finish a register of the player that stopped after making them an account: the
        name's claim (lapsed, or about to) is made theirs for good. ``ok``, or ``taken``
        when someone else claimed the name once it lapsed."""
        name_key = keys.account(skeleton)
        await self.redis.set(name_key, player_id, nx=True)
        if await self.redis.get(name_key) != player_id:
            return "taken"
        await self.redis.persist(name_key)
        return "ok"

    async def claim_register(self, player_id: str) -> bool:
        """Whether this is now the player's one register under way, on every node
        together (held for :data:`CLAIM_MS` at most, in case a node dies midway; given
        back by :meth:`release_register`). False while another holds it."""
        return bool(await self.redis.set(keys.player_registering(player_id), "1", nx=True, px=CLAIM_MS))

    async def release_register(self, player_id: str) -> None:
        await self.redis.delete(keys.player_registering(player_id))

    async def find(self, *skeletons: str) -> tuple[str, str, bool] | None:
        """(player id, password hash, bot) of the account stored under the first of
        ``skeletons`` that has one (a name's skeleton, then its former one:
        :func:`shared.usernames.username_keys`), or None."""
        player_id: str | None = None
        for skeleton in skeletons:
            player_id = await self.redis.get(keys.account(skeleton))
            if player_id is not None:
                break
        if player_id is None:
            return None
        stored, bot = await self.redis.hmget(keys.player(player_id), ["password", "bot"])
        return (player_id, stored, bot == "1") if stored else None

    async def username_like(self, skeleton: str) -> str | None:
        """The username of the account whose skeleton is ``skeleton``, or None (also
        while a register of it is under way)."""
        player_id: str | None = await self.redis.get(keys.account(skeleton))
        return await self.username(player_id) if player_id is not None else None

    async def username(self, player_id: str) -> str | None:
        name: str | None = await self.redis.hget(keys.player(player_id), "username")
        return name

    async def accounts_among(self, player_ids: list[str]) -> set[str]:
        """Those of ``player_ids`` that are accounts (not guests), in one round trip."""
        if not player_ids:
            return set()
        async with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.hexists(keys.player(player_id), "username")
            found = await pipe.execute()
        return {player_id for player_id, account in zip(player_ids, found, strict=True) if account}

    async def password_hash(self, player_id: str) -> str | None:
        stored: str | None = await self.redis.hget(keys.player(player_id), "password")
        return stored

    async def set_password(self, player_id: str, password_hash: str) -> None:
        await self.redis.hset(keys.player(player_id), "password", password_hash)

    async def add_token(self, player_id: str, token: str, most: int, ttl: int) -> list[str]:
        """A new token for the account (a login on some device). It works until revoked
        by a logout, a password change or this cap, or until it lies unused for ``ttl``
        seconds (0: never; see :meth:`touch_token`). An account holds at most ``most``
        tokens: past that, others are revoked (chosen at random: the set keeps no order)
        and their digests returned, so that logging in in a loop cannot grow the store
        without end (the digests of lapsed tokens go with that cap too)."""
        digest = token_digest(token)
        # Listed first, so a token that works can always be revoked.
        await self.redis.sadd(keys.player_tokens(player_id), digest)
        await self.redis.set(keys.token(digest), player_id, ex=ttl or None)
        excess = int(await self.redis.scard(keys.player_tokens(player_id))) - most
        if excess <= 0:
            return []
        picked: list[str] = await self.redis.srandmember(keys.player_tokens(player_id), excess + 1)
        evicted = [d for d in picked if d != digest][:excess]
        await self.revoke(player_id, evicted)
        return evicted

    async def replace_token(
        self, player_id: str, old_digest: str, token: str, most: int, ttl: int
    ) -> list[str]:
        """A new token for the account in place of the one whose digest is ``old_digest``
        (a register or a password change: whoever copied the old one loses it). The new
        one works first, then the old one is revoked, so the caller is never left without
        one; the digests revoked to keep ``most`` (see :meth:`add_token`) are returned.
        The player's guest token field goes too: an account's tokens are its list's."""
        evicted = await self.add_token(player_id, token, most, ttl)
        await self.revoke(player_id, [old_digest])
        await self.redis.hdel(keys.player(player_id), "token_sha")
        return evicted

    async def touch_token(self, digest: str, ttl: int) -> None:
        """The token was just used: it lapses ``ttl`` seconds from now (0: never). A
        token revoked meanwhile stays revoked."""
        if ttl > 0:
            await self.redis.expire(keys.token(digest), ttl)
        else:
            await self.redis.persist(keys.token(digest))

    async def revoke(self, player_id: str, digests: list[str]) -> None:
        if not digests:
            return
        # Tokens die first; the list is tidied after (the keys lie in different slots).
        async with self.redis.pipeline(transaction=False) as pipe:
            for digest in digests:
                pipe.delete(keys.token(digest))
            await pipe.execute()
        await self.redis.srem(keys.player_tokens(player_id), *digests)

    async def revoked(self, digests: list[str]) -> list[str]:
        """Those of the account tokens (digests) that no longer work."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for digest in digests:
                pipe.exists(keys.token(digest))
            alive: list[int] = await pipe.execute()
        return [digest for digest, found in zip(digests, alive, strict=True) if not found]

    async def tokens(self, player_id: str) -> list[str]:
        """The digests of every token of the account."""
        digests: set[str] = await self.redis.smembers(keys.player_tokens(player_id))
        return sorted(digests)

    async def guess_at(
        self, player_id: str, address: str, most: int, account_most: int, now_ms: int
    ) -> Lockout | None:
        """Count one password about to be checked for the account from a client address,
        per (account, address) and per account: None when counted, else the
        :class:`Lockout` that refuses it (and counts nothing). The pair may have ``most``
        counted within :data:`FAILURE_WINDOW` of its first; past ``account_most`` for the
        account (0: no bound), only addresses it logged in from within
        :data:`KNOWN_FOR_MS` may try. A right password clears the pair's count and makes
        the address known (:meth:`succeeded`); one never checked gives its counts back
        (:meth:`not_a_guess_at`)."""
        known_since = now_ms - KNOWN_FOR_MS
        args = [most, account_most, FAILURE_WINDOW, address, known_since]
        limit, wait = await self._guess(keys=keys.login_keys(player_id, address), args=args)
        return Lockout(limit, int(wait)) if limit else None

    async def not_a_guess_at(self, player_id: str, address: str) -> None:
        pair, account, _ = keys.login_keys(player_id, address)
        await self._uncount(keys=[pair, account])

    async def succeeded(self, player_id: str, address: str, now_ms: int) -> None:
        """The account's password was given right from ``address`` (a login, a change, or
        the register that set it): the pair's count is cleared, the account's gets this
        guess back, and the address is known to the account for :data:`KNOWN_FOR_MS`
        (the latest :data:`KNOWN_KEPT` addresses only)."""
        args = [address, now_ms, KNOWN_FOR_MS, KNOWN_KEPT]
        await self._logged_in(keys=keys.login_keys(player_id, address), args=args)

    async def resumed(self, player_id: str, address: str, now_ms: int) -> None:
        """The account's sign-in was resumed with its token from ``address``: the address
        is known to the account, as after a login there (:meth:`succeeded`), but no
        password was checked, so no count changes."""
        args = [address, now_ms, KNOWN_FOR_MS, KNOWN_KEPT]
        await self._known_at(keys=[keys.known_addresses(player_id)], args=args)

    async def guess_from(self, address: str, most: int) -> int:
        """Count one password about to be checked for a login from a client address, on
        every node together: 0 when counted, else the seconds until the address may try
        again (it has ``most`` counted within :data:`FAILURE_WINDOW` of its first; this
        one is not counted). Counting before the check lets no more than ``most`` checks
        through, however many arrive at once."""
        counter = keys.address_login_failures(address)
        wait: int = await self._count(keys=[counter], args=[most, FAILURE_WINDOW])
        return wait

    async def not_a_failure_from(self, address: str) -> None:
        """Give back a count of :meth:`guess_from`: the password was right, or never checked."""
        await self._uncount(keys=[keys.address_login_failures(address)])

    async def change_tried(self, player_id: str, most: int) -> int:
        """Count one password change tried by the account: 0 when counted, else the
        seconds until it may try again (``most`` within :data:`CHANGE_WINDOW`)."""
        wait: int = await self._count(keys=[keys.password_changes(player_id)], args=[most, CHANGE_WINDOW])
        return wait

"""Accounts: ``register`` (a guest claims a username), ``login`` (instead of hello, on any
device), ``logout``, ``change_password``, and a guest's ``rename``.

Password hashes (scrypt, :mod:`server.passwords`) run in one worker thread: OpenSSL
releases the interpreter lock while hashing, so moves go on meanwhile, and one thread
leaves the other core to the event loop. Beyond :data:`MAX_QUEUED` hashes waiting, the
node answers ``unavailable``.

Guessing is limited on every node together (counts in Redis), each limit refusing with
``rate_limited`` before any hash, so that a login sprayed over many connections, nodes and
accounts, or ``change_password`` sent again and again, cannot keep the hashing thread busy:

- wrong passwords per account *and* client address (:data:`PAIR_FAILURES` within 15
  minutes of the first): an address that guesses locks itself out of that account, not
  the owner elsewhere;
- wrong passwords per account from every address (``login_failures_per_account`` within 15
  minutes of the first): past it, only addresses the account logged in (or registered)
  from in the last 30 days may try, each within its own pair limit, so guessing from many
  addresses stays bounded and still does not lock the owner out where they logged in before;
- failed logins (wrong passwords and unknown usernames) per client address, whatever the
  account (``login_failures_per_address`` within 15 minutes of the first);
- password changes tried per account (:data:`PASSWORD_CHANGES` an hour).

A wrong old password in ``change_password`` counts as a wrong password from the caller's
address (pair and account counts), and the pair limit refuses a change too; the
account-wide bound does not, as the caller holds a session of the account. Wrong logins
are also limited per connection (:data:`CONNECTION_FAILURES`, this node only). The
address is the one a trusted proxy names, as for the other per-address limits.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
import secrets
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Final, TypeVar

from server.errors import ArenaError
from server.features.context import Caller, Identity, Reply
from server.features.events import EventKind, pack_event
from server.features.lobby import Lobby
from server.features.presence import Presence, refuse_an_accounts_name
from server.metrics import Metrics
from server.passwords import dummy_hash, hash_password, verify_password
from server.store import Answer, Store
from server.store.accounts import Lockout
from server.store.players import token_digest
from server.timesource import TimeSource
from shared.password_rules import check_password
from shared.protocol import (
    Account,
    ChangePassword,
    ErrorCode,
    Login,
    Logout,
    Ok,
    Register,
    Rename,
    Renamed,
    to_wire,
)
from shared.usernames import check_username, username_key, username_keys

log = logging.getLogger("arena.accounts")

#: Wrong passwords one client address may give for one account within 15 minutes: a
#: person's typos fit, and a rival guessing at an account locks out only themselves.
PAIR_FAILURES: Final = 5
CONNECTION_FAILURES: Final = 5
MAX_QUEUED: Final = 32
#: Password changes an account may try in an hour (the store's ``CHANGE_WINDOW``): each
#: costs up to two hashes; a person changes theirs rarely, and retries after a typo fit.
PASSWORD_CHANGES: Final = 5
#: Renames a guest may make in an hour (the store's ``RENAME_WINDOW``): each is shown in
#: every race the guest sits in, so a stream of them must not flood those races' lobbies.
RENAMES: Final = 10
#: Tokens one account holds at most (devices logged in); a login past that revokes others.
MAX_TOKENS: Final = 100
_CONNECTIONS_KEPT: Final = 10_000
BAD_LOGIN: Final = "wrong username or password"
#: Why the account's other sessions close when its password changes (a close reason).
PASSWORD_CHANGED: Final = "signed out: the account's password was changed"
ALREADY_REGISTERED: Final = "you already have an account: log in with it"
#: Why a register is refused while another of the same player is under way.
REGISTERING: Final = "a register of yours is under way on another connection: wait for its answer"
#: Why an account cannot ``rename`` (checked on the session, and again in the store).
ACCOUNTS_KEEP_THEIR_NAME: Final = "an account goes by its username"
#: Why a connection closes when its token was revoked by a login past :data:`MAX_TOKENS`.
TOO_MANY_TOKENS: Final = "signed out: too many devices logged in to this account"
#: Why the other connections with a guest's token close when it registers (its account
#: has a new token: the guest's is revoked).
REGISTERED: Final = "signed out: this player registered an account on another device or page"
#: Why the other connections with a token close when it logs out.
LOGGED_OUT: Final = "signed out: logged out on another device or page"

T = TypeVar("T")


class Accounts:
    def __init__(
        self,
        store: Store,
        presence: Presence,
        lobby: Lobby,
        metrics: Metrics,
        time: TimeSource,
        address_failures: int,
        account_failures: int,
    ) -> None:
        self.store = store
        self.metrics = metrics
        self.presence = presence
        self.lobby = lobby
        self.time = time
        #: Failed logins one client address may make in 15 minutes (0: no limit).
        self.address_failures = address_failures
        #: Wrong passwords for one account in 15 minutes past which only the addresses it
        #: is known at may try (0: no bound).
        self.account_failures = account_failures
        self._hasher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="password")
        self._queued = 0
        #: Wrong passwords per connection (by its remote address and port).
        self._connection_failures: OrderedDict[str, int] = OrderedDict()

    def stop(self) -> None:
        self._hasher.shutdown(wait=False, cancel_futures=True)

    # ----- handlers --------------------------------------------------------------------

    async def register(self, caller: Caller, message: Register) -> Reply:
        identity = caller.player
        try:
            username = check_username(message.username)
        except ValueError as exc:
            raise ArenaError(ErrorCode.BAD_USERNAME, str(exc)) from None
        _refuse_a_weak_password(message.password, username)
        # Refusals known before hashing cost no scrypt: a register sent again and again
        # must not keep the node's one hashing thread busy for everyone's logins.
        if identity.account:
            raise ArenaError(ErrorCode.ALREADY_REGISTERED, ALREADY_REGISTERED)
        # One register of a player at a time, on every node: the same guest's registers
        # sent at once on many connections (each session still a guest) hash once.
        if not await self.store.accounts.claim_register(identity.player_id):
            raise ArenaError(ErrorCode.ALREADY_REGISTERED, REGISTERING)
        try:
            word = await self._register(identity.player_id, username, message.password)
        finally:
            await self.store.accounts.release_register(identity.player_id)
        if word == "taken":
            raise ArenaError(ErrorCode.USERNAME_TAKEN, _taken(username))
        if word == "registered":
            raise ArenaError(ErrorCode.ALREADY_REGISTERED, ALREADY_REGISTERED)
        if word != "ok":
            raise ArenaError(ErrorCode.BAD_TOKEN, "your guest is gone: say hello again")
        await self.store.players.keep(identity.player_id, 0)
        # The guest's token may have been copied: the account gets a new one, and the
        # guest's is revoked (its other connections are signed out).
        token, digest = await self._new_token(caller, identity, REGISTERED)
        log.info("registered", extra={"player_id": identity.player_id})
        await self._known_at(caller, identity.player_id)
        await self._spread_new_name(identity.player_id, username, account=True)
        account = dataclasses.replace(identity, name=username, account=True, token_sha=digest)
        reply = Account(
            id=message.id, player_id=identity.player_id, username=username, bot=identity.bot, token=token
        )
        return Reply(reply, identify=account)

    async def _register(self, player_id: str, username: str, password: str) -> str:
        """The store's answer to the register (see ``AccountStore.register``), while the
        player's claim is held; refusals known from the store come before the hash."""
        registered = await self.store.accounts.username(player_id)
        if registered is not None:  # a register that came first
            if username_key(registered) == username_key(username):
                stored = await self.store.accounts.password_hash(player_id)
                if stored is not None and await self._hashing(verify_password, password, stored):
                    # Its own retry: a step after the account was made failed (the
                    # store away a moment), and the name's claim would lapse. Finish it.
                    return await self.store.accounts.keep_name(player_id, username_key(registered))
            raise ArenaError(ErrorCode.ALREADY_REGISTERED, ALREADY_REGISTERED)
        if await self.store.accounts.find(*username_keys(username)) is not None:
            raise ArenaError(ErrorCode.USERNAME_TAKEN, _taken(username))
        hashed = await self._hashing(hash_password, password)
        return await self.store.accounts.register(player_id, username, username_key(username), hashed)

    async def _new_token(self, caller: Caller, identity: Identity, reason: str) -> tuple[str, str]:
        """A new token (and its digest) for the caller's session, in place of the one it
        said hello with, which is revoked: the connections open with that one, on every
        node, are signed out for ``reason`` (this one stays, and goes on with the new)."""
        token = secrets.token_urlsafe(32)
        player_id, old = identity.player_id, identity.token_sha
        evicted = await self.store.accounts.replace_token(
            player_id, old, token, MAX_TOKENS, self.presence.sign_in_ttl
        )
        if evicted:
            await self._sign_out(player_id, evicted, TOO_MANY_TOKENS)
        await self._sign_out(player_id, [old], reason, keep=caller.connection)
        return token, token_digest(token)

    async def rename(self, caller: Caller, message: Rename) -> Reply:
        identity = caller.player
        if identity.account:
            raise ArenaError(ErrorCode.ALREADY_REGISTERED, ACCOUNTS_KEEP_THEIR_NAME)
        if message.name == identity.name:
            return Reply(Renamed(id=message.id, name=message.name))
        await refuse_an_accounts_name(self.store.accounts, message.name)
        wait = await self.store.players.rename_tried(identity.player_id, RENAMES)
        if wait:
            raise ArenaError(ErrorCode.RATE_LIMITED, f"too many renames: try again in {_minutes(wait)}")
        word = await self.store.players.rename(identity.player_id, message.name)
        if word == "registered":  # a register on another connection came first
            raise ArenaError(ErrorCode.ALREADY_REGISTERED, ACCOUNTS_KEEP_THEIR_NAME)
        if word != "ok":
            raise ArenaError(ErrorCode.BAD_TOKEN, "your guest is gone: say hello again")
        log.info("renamed", extra={"player_id": identity.player_id})
        await self._spread_new_name(identity.player_id, message.name, account=False)
        renamed = dataclasses.replace(identity, name=message.name)
        return Reply(Renamed(id=message.id, name=message.name), identify=renamed)

    async def _known_at(self, caller: Caller, player_id: str) -> None:
        """The new account's address is known to it (logins from there pass the
        account-wide bound). The account exists whatever happens here: a failure is
        logged, and the address becomes known at its first login."""
        try:
            await self.store.accounts.succeeded(player_id, caller.address, self.time.now_ms())
        except Exception as exc:
            log.warning(
                "a new account's address is not known to it",
                extra={"player_id": player_id, "reason": repr(exc)},
            )

    async def _spread_new_name(self, player_id: str, name: str, account: bool) -> None:
        """The player's other sessions, on every node, go by its new name (a new
        account's, or a guest's), and its races that are not over show it to everyone in
        them from now on (their results too). The name is the player's whatever happens
        here: a failure is logged, and those sessions and races keep the old one until
        their next hello."""
        try:
            told = to_wire(Renamed(name=name, username=name if account else None))
            renamed = {"player_id": player_id, "name": name, "account": account, "event": told}
            await self.store.events.publish_player(player_id, pack_event(EventKind.RENAMED, renamed))
            for race_id in await self.store.players.active_races(player_id):
                if await self.store.races.rename_seat(race_id, player_id, name) is Answer.OK:
                    await self.lobby.announce(race_id)
        except Exception as exc:
            log.warning(
                "a player's seats kept the old name",
                extra={"player_id": player_id, "reason": repr(exc)},
            )

    async def login(self, caller: Caller, message: Login) -> Reply:
        if caller.identity is not None:
            raise ArenaError(ErrorCode.INVALID_MESSAGE, "this connection already said hello")
        if self._connection_failures.get(caller.remote, 0) >= CONNECTION_FAILURES:
            raise self._refused("connection", "too many wrong passwords on this connection")
        most = self.address_failures
        if not most:
            return await self._login(caller, message)
        wait = await self.store.accounts.guess_from(caller.address, most)
        if wait:
            raise self._refused(
                "address", f"too many failed logins from your address: try again in {_minutes(wait)}"
            )
        # Counted before the hash (so guesses sent at once cannot all slip under the
        # limit); given back unless the answer is bad_login.
        try:
            reply = await self._login(caller, message)
        except ArenaError as exc:
            if exc.code is not ErrorCode.BAD_LOGIN:
                await self.store.accounts.not_a_failure_from(caller.address)
            raise
        await self.store.accounts.not_a_failure_from(caller.address)
        return reply

    async def _login(self, caller: Caller, message: Login) -> Reply:
        found = await self.store.accounts.find(*username_keys(message.username))
        if found is None:
            await self._hashing(verify_password, message.password, dummy_hash())  # the same time
            self._failed_here(caller.remote)
            raise ArenaError(ErrorCode.BAD_LOGIN, BAD_LOGIN)
        player_id, stored, bot = found
        await self._check_password(
            caller, player_id, message.password, stored, BAD_LOGIN, self.account_failures
        )
        token = secrets.token_urlsafe(32)
        evicted = await self.store.accounts.add_token(player_id, token, MAX_TOKENS, self.presence.sign_in_ttl)
        if evicted:
            await self._sign_out(player_id, evicted, TOO_MANY_TOKENS)
        username = await self.store.accounts.username(player_id) or message.username
        identity = dataclasses.replace(
            await self.presence.identity_of(player_id, username, bot, token),
            legal_moves=message.legal_moves,
            changed_piles=message.changed_piles,
        )
        log.info("logged in", extra={"player_id": player_id, "remote": caller.remote})
        return await self.presence.welcome(caller, message.id, identity, token, resumed=True)

    async def logout(self, caller: Caller, message: Logout) -> Reply:
        identity = caller.player
        await self.store.accounts.revoke(identity.player_id, [identity.token_sha])
        # Other connections with the same token (another tab of the same browser) go too;
        # this one closes after its reply.
        await self._sign_out(identity.player_id, [identity.token_sha], LOGGED_OUT, keep=caller.connection)
        log.info("logged out", extra={"player_id": identity.player_id})
        return Reply(Ok(id=message.id), close="logged out")

    async def change_password(self, caller: Caller, message: ChangePassword) -> Reply:
        identity = caller.player
        stored = await self.store.accounts.password_hash(identity.player_id) if identity.account else None
        if stored is None:
            raise ArenaError(ErrorCode.NOT_REGISTERED, "a guest has no password: register first")
        _refuse_a_weak_password(message.new_password, identity.name)
        wait = await self.store.accounts.change_tried(identity.player_id, PASSWORD_CHANGES)
        if wait:
            raise self._refused(
                "changes", f"too many password changes for this account: try again in {_minutes(wait)}"
            )
        wrong = "the old password is wrong"
        # The caller holds a session of the account: the account-wide bound (for
        # addresses it is not known at) does not apply, the pair limit does.
        await self._check_password(caller, identity.player_id, message.old_password, stored, wrong, 0)
        await self.store.accounts.set_password(
            identity.player_id, await self._hashing(hash_password, message.new_password)
        )
        others = [d for d in await self.store.accounts.tokens(identity.player_id) if d != identity.token_sha]
        await self.store.accounts.revoke(identity.player_id, others)
        if others:
            await self._sign_out(identity.player_id, others, PASSWORD_CHANGED)
        # This session's token too (a copy of it must not outlive the change): it goes on
        # with a new one, and other connections with the old one are signed out.
        token, digest = await self._new_token(caller, identity, PASSWORD_CHANGED)
        log.info("password changed", extra={"player_id": identity.player_id, "revoked": len(others) + 1})
        renewed = dataclasses.replace(identity, token_sha=digest)
        return Reply(Ok(id=message.id, token=token), identify=renewed)

    async def _sign_out(self, player_id: str, tokens: list[str], reason: str, keep: str = "") -> None:
        """Revoked tokens stop working at the next hello: the connections open with them
        are closed now, on every node, rather than at their next reconnection."""
        signed_out = {"tokens": tokens, "reason": reason, "keep": keep}
        await self.store.events.publish_player(player_id, pack_event(EventKind.SIGNED_OUT, signed_out))

    # ----- passwords -------------------------------------------------------------------

    async def _check_password(
        self, caller: Caller, player_id: str, password: str, stored: str, wrong: str, account_most: int
    ) -> None:
        # Counted before the hash, as for an address: guesses sent at once cannot all
        # read a count under the limit.
        accounts = self.store.accounts
        now = self.time.now_ms()
        lockout = await accounts.guess_at(player_id, caller.address, PAIR_FAILURES, account_most, now)
        if lockout is not None:
            raise self._refused(lockout.limit, _locked_out(lockout))
        try:
            right = await self._hashing(verify_password, password, stored)
        except BaseException:
            await accounts.not_a_guess_at(player_id, caller.address)
            raise
        if not right:
            self._failed_here(caller.remote)
            raise ArenaError(ErrorCode.BAD_LOGIN, wrong)
        await accounts.succeeded(player_id, caller.address, self.time.now_ms())

    def _refused(self, limit: str, reason: str) -> ArenaError:
        """A ``rate_limited`` refusal by one of the guessing limits, counted by ``limit``
        (an operator sees guessing in ``arena_login_refusals_total``)."""
        self.metrics.login_refusals.labels(limit=limit).inc()
        return ArenaError(ErrorCode.RATE_LIMITED, reason)

    def _failed_here(self, remote: str) -> None:
        failures = self._connection_failures
        failures[remote] = failures.pop(remote, 0) + 1
        while len(failures) > _CONNECTIONS_KEPT:
            failures.popitem(last=False)

    async def _hashing(self, work: Callable[..., T], *args: str) -> T:
        if self._queued >= MAX_QUEUED:
            raise ArenaError(ErrorCode.UNAVAILABLE, "too many logins at once: try again in a moment")
        self._queued += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._hasher, work, *args)
        finally:
            self._queued -= 1


def _minutes(seconds: int) -> str:
    """A wait for a person, in whole minutes rounded up.

    >>> _minutes(900), _minutes(61), _minutes(5)
    ('15 minutes', '2 minutes', '1 minute')
    """
    minutes = max(1, math.ceil(seconds / 60))
    return "1 minute" if minutes == 1 else f"{minutes} minutes"


def _locked_out(lockout: Lockout) -> str:
    """Why a password is not checked, for a person.

    >>> _locked_out(Lockout("account_address", 840))
    'too many wrong passwords for this account from your address: try again in 14 minutes'
    >>> _locked_out(Lockout("account", 60))
    'too many wrong passwords for this account: try again in 1 minute, or from a network you used before'
    """
    wait = _minutes(lockout.wait)
    if lockout.limit == "account_address":
        return f"too many wrong passwords for this account from your address: try again in {wait}"
    elsewhere = "or from a network you used before"
    return f"too many wrong passwords for this account: try again in {wait}, {elsewhere}"


def _refuse_a_weak_password(password: str, username: str) -> None:
    """``invalid_message`` for a new password too easy to guess (before any hash)."""
    try:
        check_password(password, username)
    except ValueError as exc:
        raise ArenaError(ErrorCode.INVALID_MESSAGE, str(exc)) from None


def _taken(username: str) -> str:
    return f"{username!r} is taken, or too like a name that is: choose another"

"""Who is here: ``hello`` (a new guest or a resumed one), ``ping``, and going away."""

from __future__ import annotations

import dataclasses
import logging
import re
import secrets

from server.admission import Admission
from server.errors import ArenaError
from server.features.context import Caller, Identity, Reply
from server.features.lobby import Lobby, queue_stay
from server.features.node_watch import NodeWatch
from server.features.quick_match import QuickMatchmaker
from server.features.rematch import Rematches
from server.features.results import RaceResults
from server.store import RaceStatus, Store
from server.store.accounts import AccountStore
from server.store.players import token_digest
from server.timesource import TimeSource
from shared.protocol import PROTOCOL_VERSION, ErrorCode, Hello, Ping, Pong, RequestId, Welcome
from shared.protocol.base import name_fold
from shared.usernames import name_keys

log = logging.getLogger("arena.presence")

#: The shape of every token the server hands out (``secrets.token_urlsafe(32)``).
_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{16,128}")
_ACTIVE = (RaceStatus.OPEN, RaceStatus.COUNTDOWN, RaceStatus.RUNNING, RaceStatus.ENDING)


async def refuse_an_accounts_name(accounts: AccountStore, name: str) -> None:
    """A guest may not go by an account's username, or by a name too like one (the
    look-alikes ``register`` tells apart, spaces and punctuation left out or read as
    ``_``): ``username_taken`` says whose."""
    for skeleton in sorted(name_keys(name)):
        username = await accounts.username_like(skeleton)
        if username is not None:
            break
    else:
        return
    like = "" if name_fold(name) == name_fold(username) else f" too like {username},"
    raise ArenaError(
        ErrorCode.USERNAME_TAKEN,
        f"{name} is{like} an account's username: pick another name, or log in as {username}",
    )


class Presence:
    def __init__(
        self,
        store: Store,
        lobby: Lobby,
        quick_match: QuickMatchmaker,
        rematches: Rematches,
        nodes: NodeWatch,
        time: TimeSource,
        admission: Admission,
        guest_ttl: int,
        results: RaceResults,
        sign_in_ttl: int,
    ) -> None:
        self.results = results
        self.admission = admission
        self.guest_ttl = guest_ttl
        self.sign_in_ttl = sign_in_ttl
        self.store = store
        self.lobby = lobby
        self.quick_match = quick_match
        self.rematches = rematches
        self.nodes = nodes
        self.time = time

    async def ping(self, caller: Caller, message: Ping) -> Reply:
        return Reply(Pong(id=message.id, server_time=self.time.now_ms()))

    async def hello(self, caller: Caller, message: Hello) -> Reply:
        # A second hello is refused as one, whatever it says (its protocol too).
        if caller.identity is not None:
            raise ArenaError(ErrorCode.INVALID_MESSAGE, "this connection already said hello")
        if message.protocol != PROTOCOL_VERSION:
            raise ArenaError(
                ErrorCode.UNSUPPORTED_PROTOCOL,
                f"this server speaks protocol {PROTOCOL_VERSION}, not {message.protocol}",
            )
        if message.viewer:
            return self._viewer(message)
        if message.token is not None and message.name is not None:
            raise ArenaError(
                ErrorCode.INVALID_MESSAGE,
                "hello takes a name (a new player) or a token (to resume), not both",
            )
        if message.token is not None:
            identity = await self._resume(message.token)
            token = message.token
            if identity.account:
                # The token proves the owner as a password would: their address is known
                # to the account from now on (for its account-wide bound of wrong passwords).
                await self.store.accounts.resumed(identity.player_id, caller.address, self.time.now_ms())
                await self.store.accounts.touch_token(identity.token_sha, self.sign_in_ttl)
        elif message.name is not None:
            await refuse_an_accounts_name(self.store.accounts, message.name)
            if not self.admission.allow_new_player(caller.address):
                raise ArenaError(
                    ErrorCode.RATE_LIMITED,
                    "too many new players from your address: resume with your token, or try again later",
                )
            token = secrets.token_urlsafe(32)
            identity = Identity(
                f"p_{secrets.token_hex(8)}", message.name, bot=message.bot, token_sha=token_digest(token)
            )
            now = self.time.now_ms()
            await self.store.players.create(
                identity.player_id, identity.name, token, now, self.guest_ttl, bot=identity.bot
            )
        else:
            raise ArenaError(ErrorCode.INVALID_MESSAGE, "hello needs a name (new) or a token")
        if message.legal_moves or message.changed_piles:
            identity = dataclasses.replace(
                identity, legal_moves=message.legal_moves, changed_piles=message.changed_piles
            )
        return await self.welcome(caller, message.id, identity, token, resumed=message.token is not None)

    def _viewer(self, message: Hello) -> Reply:
        """A session with no player, to read and watch: nothing stored, nothing counted
        against the address's new guests, gone with its connection."""
        if message.name is not None or message.token is not None or message.bot:
            raise ArenaError(ErrorCode.INVALID_MESSAGE, "a viewer's hello takes no name, token or bot")
        identity = Identity(f"v_{secrets.token_hex(8)}", "", legal_moves=message.legal_moves, viewer=True)
        welcome = Welcome(
            id=message.id, player_id=identity.player_id, name="", server_time=self.time.now_ms(), viewer=True
        )
        return Reply(welcome, identify=identity)

    async def welcome(
        self, caller: Caller, request_id: RequestId, identity: Identity, token: str, resumed: bool
    ) -> Reply:
        """The ``welcome`` of a player on this connection (hello or login): their races,
        and the end of those that ended while they were away."""
        player_id = identity.player_id
        await self.store.players.mark_hello(player_id, self.time.now_ms())
        if resumed:
            await self.store.players.keep(player_id, self.guest_ttl)
        metas = await self.lobby.current_races(player_id)
        active = [m.race_id for m in metas if m.status in _ACTIVE]
        # Races that ended while the player was away: listed too, and their end follows
        # the welcome.
        over = [m for m in metas if m.status.is_over]
        missed = await self.results.news(over)
        marker = await self.store.queues.queued(player_id)
        queued = await queue_stay(self.store, marker, identity) if marker else None
        log.info(
            "hello",
            extra={
                "player_id": player_id,
                "remote": caller.remote,
                "status": "resumed" if resumed else "new",
            },
        )
        welcome = Welcome(
            id=request_id,
            player_id=player_id,
            name=identity.name,
            token=token,
            resumed=resumed,
            races=sorted(active + [m.race_id for m in missed]),
            server_time=self.time.now_ms(),
            username=identity.name if identity.account else None,
            queued=queued,
            lobby_grace=self.lobby.settings.lobby_grace,
        )
        if over:
            await self.results.told_player(player_id, [m.race_id for m in over])
        return Reply(welcome, follow=tuple(sorted(active)), identify=identity, after=tuple(missed))

    async def identity_of(self, player_id: str, name: str, bot: bool, token: str) -> Identity:
        """The identity of a player who proved who they are with ``token`` (or a login)."""
        account = await self.store.accounts.username(player_id) is not None
        return Identity(player_id, name, bot=bot, account=account, token_sha=token_digest(token))

    async def _resume(self, token: str) -> Identity:
        found = await self.store.players.for_token(token) if _TOKEN_SHAPE.fullmatch(token) else None
        if found is None:
            raise ArenaError(
                ErrorCode.BAD_TOKEN,
                (
                    "that token no longer works (revoked, lapsed unused, or never given): "
                    "log in, or say hello with a name"
                ),
            )
        player_id, name, bot = found
        return await self.identity_of(player_id, name, bot, token)

    async def signed_in_left(self, identity: Identity) -> None:
        """A connection of an account closed: its sign-in lasts ``sign_in_ttl`` from now."""
        if identity.account and identity.token_sha:
            await self.store.accounts.touch_token(identity.token_sha, self.sign_in_ttl)

    async def arrived(self, player_id: str, followed: tuple[str, ...]) -> None:
        """A connection of the player on this node said who they are, and follows the
        races ``followed`` (those its welcome listed as not over): the others in the open
        ones, told the player was away, are told they are back."""
        if await self.nodes.arrived(player_id):
            await self.lobby.announce_open(list(followed), player_id)

    async def gone(self, player_id: str, followed: list[str], ended: list[str]) -> None:
        """The player's last connection on this node closed; it followed the races
        ``followed`` and saw those of ``ended`` end."""
        await self.nodes.left(player_id)
        await self.lobby.went_away(player_id, followed)
        await self.quick_match.went_away(player_id)
        await self.rematches.went_away(player_id, ended)
        # Idle time counts from here: a guest kept past their last connection.
        await self.store.players.keep(player_id, self.guest_ttl)

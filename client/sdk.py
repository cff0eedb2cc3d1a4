"""An async client for the Solitaire Arena protocol.

    async def play() -> None:
        async with await ArenaClient.connect("ws://127.0.0.1:8765") as client:
            await client.hello(name="ada")
            race = await client.create_race("eight-off", seats=2, time_limit=300)
            print(race.code)

(the README's example, run by the test suite, is the same as a whole script).

Replies are matched to requests by ``id``; events (progress, countdown, start, end)
go to a queue read with :meth:`ArenaClient.next_event` or ``async for`` over
:meth:`ArenaClient.events`. Error replies raise the :class:`~client.errors.ArenaError`
subclass of their code (``IllegalMoveError``, ``RaceOverError``, …).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from types import TracebackType
from typing import Any, Self, TypeVar

from pydantic import BaseModel
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from client.credentials import Credential, TokenStore
from client.errors import (
    AlreadyRacingError,
    BadTokenError,
    ConnectionLostError,
    PlayedElsewhereError,
    QueueLeftError,
    UnexpectedReplyError,
    error_for,
)
from client.errors import (
    ArenaError as ArenaError,  # re-exported: ``from client.sdk import ArenaError`` keeps working
)
from client.shares import ShareKeeper
from shared.fairness import share_commitment
from shared.protocol import (
    PROTOCOL_VERSION,
    Account,
    AnswerRematch,
    BoardState,
    BoardView,
    CancelQuickMatch,
    ChangePassword,
    CreateRace,
    Dailies,
    DailyBoard,
    DailyGhosts,
    DailyStandings,
    DailyStarted,
    Error,
    Finish,
    GameName,
    GetDailies,
    GetDailyBoard,
    GetDailyStandings,
    GetHint,
    GetLeaderboard,
    GetMoveLog,
    GetProfile,
    GetRace,
    GetRecord,
    GetReplay,
    GetResults,
    Ghosts,
    Hello,
    Hint,
    JoinRace,
    Leaderboard,
    LeaveRace,
    ListLive,
    ListMyRaces,
    ListRaces,
    LiveRace,
    LiveRaces,
    Login,
    Logout,
    MakeMove,
    MatchFound,
    MoveAck,
    MoveLog,
    MyRaces,
    OfferRematch,
    Ok,
    Ping,
    PlayerProfile,
    Pong,
    Profile,
    ProtocolError,
    Queued,
    QuickMatch,
    QuickMatchLeft,
    Race,
    RaceCountdown,
    RaceEnded,
    RaceInfo,
    RaceList,
    RaceStarted,
    RaceSummary,
    Ready,
    RecordText,
    Register,
    Rematch,
    RematchInfo,
    RematchStarted,
    Rename,
    Renamed,
    Replay,
    Results,
    RevealShare,
    ServerMessage,
    StartDaily,
    StartRace,
    Unwatch,
    Watch,
    Watching,
    Welcome,
    decode_server,
    encode,
)

M = TypeVar("M", bound=BaseModel)

#: Refusals after which a move may still have been played (docs/protocol.md): sent again
#: with its seq, it is acked once.
_MAYBE_PLAYED = frozenset({"connection_lost", "unavailable", "internal_error"})

#: Seconds a dropped connection is retried before the client gives up.
RESUME_PATIENCE = 60.0
#: Seconds a resume refused for its token waits for a newer one from ``token_source``.
NEWER_TOKEN_WAIT = 3.0
#: Seconds a request sent waits for its reply.
REQUEST_TIMEOUT = 10.0
#: Seconds between the keepalive pings the client sends (``ping_interval`` of
#: ``websockets.connect``), and how long it waits for each pong before it takes the link
#: for dead (``ping_timeout``), then for the close handshake (``close_timeout``): a link
#: that stalls (nothing more arrives, though nobody closed it) is dropped, and resumed,
#: within their sum (25 s) of its last pong.
PING_INTERVAL = 10.0
PING_TIMEOUT = 10.0
CLOSE_TIMEOUT = 5.0
#: Seconds a ping sent when a request got no answer waits for its pong before the
#: connection is taken for dead and dropped (and resumed).
LINK_CHECK_TIMEOUT = 5.0
#: What a request raises (:class:`ConnectionLostError`) once the client gave up resuming.
GAVE_UP = "the connection is down, and the client gave up reconnecting"
#: Why a guest's resume was refused when nothing had signed it out: the server has no
#: such guest any more, and no login brings one back (a new hello makes a new guest).
GUEST_GONE = "this server no longer knows your guest (unused too long, or its data was reset)"
#: Why an account's resume was refused when the close said nothing of it.
SIGN_IN_GONE = "signed out: this server no longer knows your sign-in (ended elsewhere, or its data was reset)"


@dataclass(frozen=True, slots=True)
class ConnectionEnded:
    """Why a client's connection ended for good (:attr:`ArenaClient.ended`)."""

    #: The close code of the connection that ended (1000 for a close the server meant,
    #: 1006 for a drop without a close; None: unknown).
    code: int | None
    #: The server's close reason ("" when it gave none), such as "signed out: the
    #: account's password was changed".
    reason: str
    #: Whether the player's token no longer works: a resume was refused ``bad_token``
    #: (the token was revoked by a logout, a password change or too many logins, here or
    #: on another device). Only a new login (or hello) comes back.
    signed_out: bool = False
    #: The server's words refusing the resume (with :attr:`signed_out`).
    refusal: str = ""
    #: Whether the player was a guest (no account) when the connection dropped.
    guest: bool = False

    @property
    def guest_gone(self) -> bool:
        """A guest's token refused though nothing signed it out (the close said nothing
        of it): the server no longer knows the guest, its races are lost to it, and only
        a new guest plays on."""
        return self.signed_out and self.guest and not self.reason.startswith("signed out")

    @property
    def words(self) -> str:
        """Why the player could not be resumed, for a person (with :attr:`signed_out`).

        >>> ConnectionEnded(1000, "signed out: logged out", signed_out=True).words
        'signed out: logged out'
        >>> ConnectionEnded(1001, "server shutting down", True, "token refused").words == SIGN_IN_GONE
        True
        >>> ConnectionEnded(1006, "", True, "token refused", guest=True).words
        'this server no longer knows your guest (unused too long, or its data was reset)'
        """
        if self.reason.startswith("signed out"):
            return self.reason
        return GUEST_GONE if self.guest else SIGN_IN_GONE

    @classmethod
    def of(cls, ws: ClientConnection) -> ConnectionEnded:
        """How ``ws`` closed (as far as it is closed)."""
        return cls(ws.close_code, ws.close_reason or "")


class ArenaClient:
    """One player's connection to a server. ``binary`` picks msgpack frames (else JSON).

    With ``reconnect``, a connection that drops after ``hello`` is opened again (with a
    growing pause, for up to ``resume_patience`` seconds, :data:`RESUME_PATIENCE` by
    default) and resumed with the token: the new ``welcome`` arrives as an event, before
    whatever followed it (the end of any race that ended meanwhile); a move in flight is
    sent again with its seq (safe: the server acks it once); a player waiting for a quick
    match is queued again, or, when the queue paired them while the connection was down
    (the ``match_found`` was lost with it), gets a ``match_found`` event made from the
    race they now race in (``get_race``); other requests in flight raise
    :class:`ConnectionLostError`. A request made while the connection is being resumed
    waits for it as long as the client keeps trying, and raises
    :class:`ConnectionLostError` once it gives up.

    A dead link is noticed two ways. Keepalive pings go every :data:`PING_INTERVAL`
    seconds, and a pong not back within :data:`PING_TIMEOUT` seconds drops the connection
    (after at most :data:`CLOSE_TIMEOUT` seconds more for the close): a connection that
    stalls is resumed within 25 s (``ping_interval``, ``ping_timeout`` and
    ``close_timeout`` of :meth:`connect` change these). And a request sent waits
    ``request_timeout`` seconds for its reply: then it raises ``TimeoutError`` ("no
    answer within 10 s") and the client pings at once; no pong within
    ``link_check_timeout`` seconds (:data:`LINK_CHECK_TIMEOUT`) drops the connection.

    A move whose request timed out may have been played all the same: its ack may come
    late. A late ack arrives as an event (``MoveAck``, with the request's id), and
    :attr:`seqs` follows it. :meth:`move` then takes the same move, asked again next,
    for the retry the timeout invited: it is answered with that ack (``resent``), nothing
    played twice. Before a different move after a move left without an ack (it timed out,
    or its connection dropped and was not resumed), :meth:`move` reads the race's seq
    again (``get_race``), so the new move goes after whatever the board holds.

    ``kept_shares`` keeps the seed shares this client commits beyond its own memory (the
    CLI's :class:`~client.shares.ShareFile`), so that a later client of the same player
    given the same keeper reveals them with :meth:`ready`.
    """

    def __init__(
        self,
        ws: ClientConnection,
        binary: bool = True,
        url: str | None = None,
        reconnect: bool = False,
        options: dict[str, Any] | None = None,
        kept_shares: ShareKeeper | None = None,
        request_timeout: float = REQUEST_TIMEOUT,
        resume_patience: float | None = None,
        link_check_timeout: float = LINK_CHECK_TIMEOUT,
    ) -> None:
        self.ws = ws
        self.binary = binary
        self.url = url
        self.reconnect = reconnect and url is not None
        self.request_timeout = request_timeout
        #: Seconds the ping sent after a request got no answer waits for its pong.
        self.link_check_timeout = link_check_timeout
        self._link_check: asyncio.Task[None] | None = None
        #: Seconds a dropped connection is retried (None: :data:`RESUME_PATIENCE`).
        self.resume_patience = resume_patience
        self.player_id: str | None = None
        self.token: str | None = None
        self.name: str | None = None
        #: The account's username (None: a guest, or no hello said yet).
        self.username: str | None = None
        #: A session that only reads and watches (``hello`` with ``viewer``): resumed as a
        #: new viewer, having no token.
        self.viewer = False
        #: Where a resume refused for its token looks for a newer one of the same player
        #: (None: nowhere). The command line reads its credentials file, which a register
        #: or password change made in another terminal of this machine wrote: the screen
        #: that runs here goes on as the account instead of being signed out.
        self.token_source: Callable[[], str | None] | None = None
        #: Seconds the server keeps a gone racer's seat before a race starts, as its
        #: ``welcome`` said (None: not said).
        self.lobby_grace: float | None = None
        self.seqs: dict[str, int] = {}
        #: Per race, the seq and move of the last move sent whose ack never came: sent again
        #: (a retry), an ack ``resent`` for it is this client's own move.
        self._unacked: dict[str, tuple[int, str]] = {}
        #: The move requests that timed out, by request id, until the connection closes:
        #: an ack that comes for one late is still this client's (``_late_reply``).
        self._timed_out: dict[int | str, MakeMove] = {}
        #: Per race, the seq and move whose ack came after its request timed out, until
        #: the next move: asked again, that move is the retry, and gets that ack.
        self._acked_late: dict[str, tuple[int, str]] = {}
        #: The id of the ``hello`` that resumes the connection, until its ``welcome``.
        self._resume_hello: int | str | None = None
        #: The race of the last ``match_found`` (sent, or made after a resume).
        self._matched: str | None = None
        #: This client's seed share of each race it created, joined or was seated in.
        self.shares: dict[str, str] = {}
        self.kept_shares = kept_shares
        #: The seed share committed with ``quick_match``, by game, until the match.
        self._queue_shares: dict[str, str] = {}
        #: The game whose queue this client waits in (and whether with a seed share):
        #: queued again once a dropped connection is resumed, since disconnecting left it.
        #: The game, share and casual of the quick match this client waits for.
        self._queued: tuple[GameName, bool, bool] | None = None
        #: The ticket of that stay in the queue (None until ``queued`` says it).
        self._queue_ticket: str | None = None
        #: The ``quick_match_left`` that ended this client's last stay in a queue.
        self._queue_left: QuickMatchLeft | None = None
        #: The seed share committed with a rematch offer or acceptance, by the race that
        #: ended, until the rematch starts.
        self._rematch_shares: dict[str, str] = {}
        #: The races that ended whose rematch this client offered or accepted, until its
        #: ``rematch_started`` comes (made again after a resume, if it was lost).
        self._rematch_asked: set[str] = set()
        #: Seed shares being revealed in the background (a quick match's countdown).
        self._reveals: set[asyncio.Task[None]] = set()
        #: The races whose seed share this client revealed (or is revealing).
        self._revealed: set[str] = set()
        self.stray_errors: list[Error] = []
        #: Called with each event as it arrives, before it is queued for :meth:`events`
        #: (whoever reads the queue may skip it): from the connection's reader, so it must
        #: not block; a request it makes is sent from a task it starts.
        self.on_event: Callable[[ServerMessage], None] | None = None
        #: How many times the connection was resumed.
        self.resumes = 0
        #: Why the connection ended for good, once :meth:`events` ended (None until then):
        #: the server's close code and reason, and whether the player was signed out.
        self.ended: ConnectionEnded | None = None
        self._options = options or {}
        self._legal_moves = False
        #: The last whole view of this player's board in each race it plays, with its seq:
        #: the server's acks carry only the piles a move changed (``changed_piles``), and
        #: :meth:`move` lays them over it, so every ack it returns has the whole view.
        self._views: dict[str, tuple[int, BoardView]] = {}
        self._closing = False
        self._connected = asyncio.Event()
        self._connected.set()
        self._ids = itertools.count(1)
        self._pending: dict[int | str, asyncio.Future[ServerMessage]] = {}
        self._events: asyncio.Queue[ServerMessage | None] = asyncio.Queue()
        self._reader = asyncio.create_task(self._read(ws))
        self._resuming: asyncio.Task[None] | None = None

    @classmethod
    async def connect(
        cls,
        url: str,
        binary: bool = True,
        reconnect: bool = False,
        kept_shares: ShareKeeper | None = None,
        request_timeout: float = REQUEST_TIMEOUT,
        resume_patience: float | None = None,
        link_check_timeout: float = LINK_CHECK_TIMEOUT,
        **kwargs: Any,
    ) -> Self:
        """Open a connection (``kwargs`` go to ``websockets.connect``; its keepalive
        defaults to :data:`PING_INTERVAL`, :data:`PING_TIMEOUT` and :data:`CLOSE_TIMEOUT`)."""
        kwargs.setdefault("ping_interval", PING_INTERVAL)
        kwargs.setdefault("ping_timeout", PING_TIMEOUT)
        kwargs.setdefault("close_timeout", CLOSE_TIMEOUT)
        ws = await connect(url, compression=None, **kwargs)
        return cls(
            ws,
            binary,
            url=url,
            reconnect=reconnect,
            options=kwargs,
            kept_shares=kept_shares,
            request_timeout=request_timeout,
            resume_patience=resume_patience,
            link_check_timeout=link_check_timeout,
        )

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def close(self) -> None:
        self._closing = True
        for task in self._reveals:
            task.cancel()
        if self._link_check is not None:
            self._link_check.cancel()
        if self._resuming is not None:
            self._resuming.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._resuming
        await self.ws.close()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._reader
        await self._events.put(None)

    # ----- plumbing -------------------------------------------------------------------

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for frame in ws:
                try:
                    message = decode_server(frame)
                except ProtocolError:
                    continue
                request_id = getattr(message, "id", None)
                if request_id is None and isinstance(message, Error) and self._pending:
                    # An error without an id answers a frame the server did not read (rate
                    # limited): replies come in order, so it is the oldest request's.
                    request_id = next(iter(self._pending))
                future = self._pending.pop(request_id, None) if request_id is not None else None
                if future is not None and not future.done():
                    if isinstance(message, Welcome) and request_id == self._resume_hello:
                        # Queued here, before the frames that follow it are read.
                        self._resumed(message)
                    future.set_result(message)
                else:
                    late = self._timed_out.pop(request_id, None) if request_id is not None else None
                    if late is not None:
                        message = self._late_reply(late, message)
                    self._deliver(message)
        except ConnectionClosed:
            pass
        finally:
            lost = ConnectionLostError("connection_lost", "the connection closed before the reply")
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(lost)
            self._pending.clear()
            self._timed_out.clear()  # their replies come on this connection or never
            # A connection opened by a resume under way is that resume's to retry.
            if ws is self.ws and self._connected.is_set():
                if self.reconnect and not self._closing and (self.token is not None or self.viewer):
                    self._connected.clear()
                    self._resuming = asyncio.create_task(self._resume(ConnectionEnded.of(ws)))
                else:
                    self.ended = ConnectionEnded.of(ws)
                    await self._events.put(None)

    def _deliver(self, event: ServerMessage) -> None:
        """Take in an event (or a reply nobody waits for any more) and queue it."""
        if isinstance(event, Error):
            self.stray_errors.append(event)
        if isinstance(event, MatchFound):
            self._matched = event.race.race_id
            self._queued = self._queue_ticket = None
            self._seated(event.race, self._queue_shares.pop(event.race.game, None))
        if isinstance(event, RematchStarted):
            self._rematch_asked.discard(event.race_id)
            self._seated(event.race, self._rematch_shares.pop(event.race_id, None))
        if isinstance(event, RaceCountdown):
            self._reveal_kept(event.race_id)
        if isinstance(event, RaceStarted):
            self._views[event.race_id] = (0, event.view)
        if isinstance(event, RaceEnded):
            self._views.pop(event.race_id, None)
        if isinstance(event, Renamed):  # renamed on another connection
            self.name = event.name
        if isinstance(event, QuickMatchLeft):
            self._left_queue(event)
        if self.on_event is not None:
            self.on_event(event)
        self._events.put_nowait(event)

    def _late_reply(self, sent: MakeMove, reply: ServerMessage) -> ServerMessage:
        """The reply to a move whose request timed out: an ack says the move was played
        (``seqs`` follows it, and the same move asked again is its retry); a refusal
        other than one after which it may still have been played says it was not. The
        reply to deliver: an ack with its whole view when the view before it is known
        here (else as it came, ``changed_only``)."""
        race_id = sent.race_id
        if isinstance(reply, MoveAck):
            self.seqs[race_id] = max(self.seqs.get(race_id, 0), reply.seq)
            whole = self._laid_over(reply)
            if whole is None:
                self._views.pop(race_id, None)  # read whole with the next move's ack
            reply = whole or reply
        if self._unacked.get(race_id) != (sent.seq, sent.move):
            return reply  # another move was sent since: that one is in doubt, if any
        if isinstance(reply, MoveAck):
            del self._unacked[race_id]
            self._acked_late[race_id] = (reply.seq, sent.move)
        elif isinstance(reply, Error) and reply.code.value not in _MAYBE_PLAYED:
            del self._unacked[race_id]
        return reply

    def _resumed(self, welcome: Welcome) -> None:
        """The ``welcome`` of a resume came: the connection is back (from the reader, so
        that the event is queued before whatever the server sent after it)."""
        self._resume_hello = None
        self.resumes += 1
        self.username = welcome.username
        self.name = welcome.name  # renamed while away, maybe
        self._connected.set()
        if self.on_event is not None:
            self.on_event(welcome)
        self._events.put_nowait(welcome)

    async def _resume(self, dropped: ConnectionEnded) -> None:
        """Open the connection again and resume the player, or give up (events end, and
        :attr:`ended` says why: how the connection ``dropped``, and whether the resume
        found the player signed out)."""
        assert self.url is not None and (self.token is not None or self.viewer)
        loop = asyncio.get_running_loop()
        patience = RESUME_PATIENCE if self.resume_patience is None else self.resume_patience
        deadline = loop.time() + patience
        pause = 0.1
        refused_tokens: set[str] = set()
        while not self._closing and loop.time() < deadline:
            try:
                ws = await connect(self.url, compression=None, **self._options)
            except (OSError, TimeoutError, InvalidHandshake):
                await asyncio.sleep(pause)
                pause = min(pause * 2, 2.0)
                continue
            self.ws = ws
            self._reader = asyncio.create_task(self._read(ws))
            hello = Hello(
                id=self.next_id(),
                token=None if self.viewer else self.token,
                legal_moves=self._legal_moves,
                changed_piles=True,
                viewer=self.viewer,
            )
            self._resume_hello = hello.id
            try:
                welcome = await self._send_and_wait(hello, self.request_timeout)
            except BadTokenError as refused:
                if self.token is not None:
                    refused_tokens.add(self.token)
                newer = await self._newer_token(refused_tokens)
                if newer is not None:
                    self.token = newer  # the player's token was replaced here: resumed with it
                    await ws.close()
                    continue
                # Signed out (the token was revoked) or gone (an expired guest): nothing
                # to resume.
                guest = self.username is None
                dropped = replace(dropped, signed_out=True, refusal=refused.message, guest=guest)
                break
            except (ArenaError, TimeoutError, ConnectionClosed):
                # A server still starting (``unavailable``), or a drop mid-hello: again.
                await ws.close()
                await asyncio.sleep(pause)
                pause = min(pause * 2, 2.0)
                continue
            if not isinstance(welcome, Welcome):
                break
            # The reader took the welcome in already (``_resumed``).
            self.lobby_grace = welcome.lobby_grace
            await self._queue_again(welcome)
            await self._rematches_meanwhile(welcome)
            return
        self._resume_hello = None
        self.ended = dropped
        await self._events.put(None)

    async def _newer_token(self, refused: set[str]) -> str | None:
        """A token of this player from :attr:`token_source` that was not ``refused``,
        looked for during :data:`NEWER_TOKEN_WAIT` seconds (what revoked the token, a
        register in another terminal, say, writes the new one just after); None when
        there is no source, or it gives none."""
        if self.token_source is None:
            return None
        loop = asyncio.get_running_loop()
        until = loop.time() + NEWER_TOKEN_WAIT
        while True:
            newer = self.token_source()
            if newer is not None and newer not in refused:
                return newer
            if loop.time() >= until or self._closing:
                return None
            await asyncio.sleep(0.1)

    def _left_queue(self, left: QuickMatchLeft) -> None:
        """A stay in a queue ended (cancelled from another session, say): no longer queued,
        when it is the one this client waits on."""
        if self._queue_ticket is not None and left.ticket == self._queue_ticket:
            self._queued = self._queue_ticket = None
            self._queue_shares.pop(left.game, None)
            self._queue_left = left

    async def _queue_again(self, welcome: Welcome) -> None:
        """After a resume: back in the queue the dropped connection left (with the same
        seed share's commitment), so that a ``match_found`` awaited still comes. Refused
        ``already_racing``, the queue paired the player while the connection was down:
        the ``match_found`` lost with it is made again from the race they race in."""
        if self._queued is None:
            return
        game, share, casual = self._queued
        try:
            await self.quick_match(game, share, casual)
        except ConnectionLostError:
            pass  # dropped again: the next resume queues again
        except AlreadyRacingError:
            self._queued = None
            with contextlib.suppress(ArenaError, TimeoutError):
                await self._found_meanwhile(game, welcome.races)
        except ArenaError:
            self._queued = None

    async def _rematches_meanwhile(self, welcome: Welcome) -> None:
        """After a resume: a rematch this client offered or accepted that started while the
        connection was down (its ``rematch_started`` lost with it) is delivered, made from
        the races, and its seed share revealed as the event would have."""
        for ended in sorted(self._rematch_asked):
            try:
                offer = (await self.get_race(ended)).rematch
                if offer is None or offer.status != "started" or offer.new_race_id not in welcome.races:
                    if offer is not None and offer.status in ("declined", "expired", "failed"):
                        self._rematch_asked.discard(ended)
                    continue
                race = await self.get_race(offer.new_race_id)
            except (ArenaError, TimeoutError, ConnectionLostError):
                continue  # asked again at the next resume
            if ended in self._rematch_asked:  # its rematch_started did not come meanwhile
                self._deliver(RematchStarted(race_id=ended, race=race))

    async def _found_meanwhile(self, game: GameName, race_ids: list[str]) -> None:
        """Deliver a ``match_found`` for the race of ``game`` among ``race_ids`` that this
        player races in now (counting down or running): the quick match's pairing, whose
        ``match_found`` was lost with the connection."""
        for race_id in race_ids:
            if race_id == self._matched:
                continue  # its match_found came after all
            race = await self.get_race(race_id)
            mine = next((r for r in race.racers if r.player_id == self.player_id), None)
            playing = mine is not None and not mine.finished
            if playing and race.game == game and race.status in ("countdown", "running"):
                self._deliver(MatchFound(race=race))
                return

    @property
    def reconnecting(self) -> bool:
        """Whether the connection dropped and is being resumed (requests wait for it);
        False again once the client gave up (:attr:`gave_up`)."""
        return not self._connected.is_set() and not self.gave_up

    @property
    def gave_up(self) -> bool:
        """Whether the connection dropped and the client stopped trying to resume it (or
        was closed meanwhile): every request raises :class:`ConnectionLostError`."""
        return not self._connected.is_set() and (self._resuming is None or self._resuming.done())

    def next_id(self) -> int:
        return next(self._ids)

    async def send_raw(self, frame: bytes | str) -> None:
        """Send a frame as is (for tests of bad input)."""
        await self.ws.send(frame)

    async def request(self, message: BaseModel, timeout: float | None = None) -> ServerMessage:
        """Send a request and wait ``timeout`` seconds (``request_timeout`` by default) for
        the reply with its id; an ``error`` reply raises its typed :class:`ArenaError`.
        While the connection is being resumed, the request is sent once it is back."""
        await self._until_connected()
        return await self._send_and_wait(message, self.request_timeout if timeout is None else timeout)

    async def _until_connected(self) -> None:
        """Return once the connection is up: at once, or when the resume under way
        succeeds; raise :class:`ConnectionLostError` once the client gave up resuming."""
        while not self._connected.is_set():
            resuming = self._resuming
            if self.gave_up or resuming is None:
                ended = self.ended
                why = ended.words if ended is not None and ended.signed_out else GAVE_UP
                raise ConnectionLostError("connection_lost", why)
            back = asyncio.ensure_future(self._connected.wait())
            try:
                await asyncio.wait({back, resuming}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                back.cancel()

    async def _send_and_wait(self, message: BaseModel, timeout: float) -> ServerMessage:
        request_id = getattr(message, "id")  # noqa: B009
        future: asyncio.Future[ServerMessage] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        ws = self.ws
        try:
            try:
                await ws.send(encode(message, self.binary))
            except ConnectionClosed:
                raise ConnectionLostError("connection_lost", "the connection is closed") from None
            try:
                reply = await asyncio.wait_for(future, timeout)
            except TimeoutError:
                if isinstance(message, MakeMove):
                    self._timed_out[request_id] = message
                self._check_link(ws)
                raise TimeoutError(f"no answer within {timeout:g} s") from None
        finally:
            # Answered, timed out or failed to send: nothing waits for this id any more.
            self._pending.pop(request_id, None)
        if isinstance(reply, Error):
            raise error_for(reply.code.value, reply.message)
        return reply

    def _check_link(self, ws: ClientConnection) -> None:
        """A request on ``ws`` got no answer in time: ping it in the background (once at a
        time), and drop it when no pong comes back (:meth:`_ping_or_drop`)."""
        if self._closing or (self._link_check is not None and not self._link_check.done()):
            return
        self._link_check = asyncio.create_task(self._ping_or_drop(ws))

    async def _ping_or_drop(self, ws: ClientConnection) -> None:
        """Drop ``ws`` when a ping gets no pong within ``link_check_timeout`` seconds: a
        dead link (nothing arrives, though nobody closed it), resumed as any drop. A pong
        says the link is alive, the server only slow."""
        try:
            async with asyncio.timeout(self.link_check_timeout):
                pong = await ws.ping()
                await pong
        except TimeoutError:
            if ws is self.ws and not self._closing:
                ws.transport.abort()
        except ConnectionClosed:
            pass  # closed meanwhile: the reader resumes it

    async def _expect(self, message: BaseModel, kind: type[M]) -> M:
        reply = await self.request(message)
        if not isinstance(reply, kind):
            raise UnexpectedReplyError("unexpected_reply", f"expected {kind.__name__}, got {reply!r}")
        return reply

    def _seated(self, race: RaceInfo, share: str | None) -> None:
        """Seated in ``race`` with the commitment to ``share``: reveal it in the background
        during the countdown (the reader cannot wait for the reply itself)."""
        mine = next((r for r in race.racers if r.player_id == self.player_id), None)
        if share is None or mine is None or not mine.share_committed or mine.share_revealed:
            return
        self._keep_share(race.race_id, share)
        self._start_reveal(race.race_id)

    def _reveal_kept(self, race_id: str) -> None:
        """A race this client sits in counts down: when it keeps the race's share and has
        not revealed it (the player got ready on another device or page, which has none),
        reveal it now, before the start, rather than leave it out of the deal."""
        if race_id not in self._revealed and self.share_of(race_id) is not None:
            self._start_reveal(race_id)

    def _start_reveal(self, race_id: str) -> None:
        self._revealed.add(race_id)
        task = asyncio.create_task(self._reveal_quietly(race_id))
        self._reveals.add(task)
        task.add_done_callback(self._reveals.discard)

    async def _reveal_quietly(self, race_id: str) -> None:
        # A reveal refused (too late, the connection lost) leaves the share out of the
        # deal: the race goes on, and its record lists the shares that are in.
        with contextlib.suppress(ArenaError, TimeoutError):
            await self.reveal_share(race_id)

    # ----- events ---------------------------------------------------------------------

    async def next_event(self, timeout: float = 10.0) -> ServerMessage:
        event = await asyncio.wait_for(self._events.get(), timeout)
        if event is None:
            raise ConnectionError("connection closed")
        return event

    async def wait_for(
        self,
        kind: type[M],
        predicate: Callable[[M], bool] | None = None,
        timeout: float = 10.0,
    ) -> M:
        """The next event of ``kind`` (matching ``predicate``); others are skipped."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            event = await self.next_event(max(0.0, deadline - loop.time()))
            if isinstance(event, kind) and (predicate is None or predicate(event)):
                return event

    async def events(self) -> AsyncIterator[ServerMessage]:
        """Every event until the connection closes."""
        while True:
            event = await self._events.get()
            if event is None:
                return
            yield event

    # ----- requests -------------------------------------------------------------------

    async def hello(
        self,
        name: str | None = None,
        token: str | None = None,
        legal_moves: bool = False,
        bot: bool = False,
        viewer: bool = False,
    ) -> Welcome:
        """A new guest (``name``) or a returning one (``token``). ``legal_moves`` asks for
        each view's legal moves; ``bot`` marks a new guest as a program. ``viewer`` (with
        neither a name nor a token) opens a session that only reads and watches: it has
        no token, and a drop is resumed as a new viewer (what it watched is asked again by
        whoever reads the ``welcome`` event)."""
        hello = Hello(
            id=self.next_id(),
            protocol=PROTOCOL_VERSION,
            name=name,
            token=token,
            legal_moves=legal_moves,
            changed_piles=True,
            bot=bot,
            viewer=viewer,
        )
        welcome = self._welcomed(await self._expect(hello, Welcome), legal_moves)
        self.viewer = welcome.viewer
        return welcome

    async def sign_in(
        self, name: str, store: TokenStore | None = None, legal_moves: bool = False, bot: bool = False
    ) -> Welcome:
        """Resume ``name`` on this server with the token kept in ``store`` (the user's
        credentials file by default), or, when there is none or it expired, say hello as
        a new guest and keep its token."""
        store = store or TokenStore()
        server = self.url or ""
        saved = store.get(server, name)
        if saved is not None:
            try:
                return await self.hello(token=saved.token, legal_moves=legal_moves)
            except BadTokenError:
                store.forget(server, name)
        welcome = await self.hello(name=name, legal_moves=legal_moves, bot=bot)
        store.put(server, Credential(welcome.player_id, name, player_token(welcome)))
        return welcome

    async def register(self, username: str, password: str) -> Account:
        """Make this guest an account (after :meth:`hello`): the player and their races
        stay; the name becomes ``username``. The account has a new token (the guest's
        stops working): kept in ``token``, and used to resume after a dropped connection."""
        account = await self._expect(
            Register(id=self.next_id(), username=username, password=password), Account
        )
        self.name = self.username = account.username
        if account.token is not None:
            self.token = account.token
        return account

    async def rename(self, name: str) -> str:
        """A guest's new name (an account keeps its username): shown from now on in the
        races it sits in that are not over. The name as the server keeps it."""
        renamed = await self._expect(Rename(id=self.next_id(), name=name), Renamed)
        self.name = renamed.name
        return renamed.name

    async def login(self, username: str, password: str, legal_moves: bool = False) -> Welcome:
        """Instead of :meth:`hello`: the account's player here, with a new token for this
        device (kept in ``token``, and used to resume after a dropped connection)."""
        message = Login(
            id=self.next_id(),
            username=username,
            password=password,
            legal_moves=legal_moves,
            changed_piles=True,
        )
        return self._welcomed(await self._expect(message, Welcome), legal_moves)

    def _welcomed(self, welcome: Welcome, legal_moves: bool) -> Welcome:
        """Who this session is now, as ``welcome`` says (after hello or login)."""
        self.player_id, self.token, self.name = welcome.player_id, welcome.token, welcome.name
        self.lobby_grace, self.username = welcome.lobby_grace, welcome.username
        self._legal_moves = legal_moves
        return welcome

    async def logout(self) -> None:
        """Revoke this connection's token; the server then closes the connection."""
        self._closing = True  # the close that follows is no drop to resume from
        try:
            await self._expect(Logout(id=self.next_id()), Ok)
        except BaseException:
            self._closing = False
            raise
        self.token = None

    async def change_password(self, old_password: str, new_password: str) -> str | None:
        """A new password; every token of the account stops working, this one's too: this
        connection goes on with the new token the server gives (kept in ``token``, used to
        resume after a dropped connection, and returned; None from an older server)."""
        message = ChangePassword(id=self.next_id(), old_password=old_password, new_password=new_password)
        ok = await self._expect(message, Ok)
        if ok.token is not None:
            self.token = ok.token
        return ok.token

    async def leaderboard(self, game: GameName, offset: int = 0, limit: int = 100) -> Leaderboard:
        """A page of ``game``'s leaderboard, best first, with this player's own place."""
        message = GetLeaderboard(id=self.next_id(), game=game, offset=offset, limit=limit)
        return await self._expect(message, Leaderboard)

    async def profile(self, player_id: str | None = None, username: str | None = None) -> PlayerProfile:
        """A player's profile by id or username; this player's own with neither."""
        message = GetProfile(id=self.next_id(), player_id=player_id, username=username)
        return (await self._expect(message, Profile)).profile

    async def dailies(self, date: str | None = None) -> Dailies:
        """Today's daily deals (or a past ``date``'s, YYYY-MM-DD) with their commitments."""
        return await self._expect(GetDailies(id=self.next_id(), date=date), Dailies)

    async def start_daily(self, game: GameName, practice: bool = False) -> DailyStarted:
        """Play today's deal of ``game``: the first attempt is the scored one (accounts);
        ``practice`` plays it again afterwards. Moves go through :meth:`move` as in a race."""
        message = StartDaily(id=self.next_id(), game=game, practice=practice)
        started = await self._expect(message, DailyStarted)
        self.seqs[started.race.race_id] = 0
        return started

    async def daily_board(
        self, game: GameName, date: str | None = None, offset: int = 0, limit: int = 50
    ) -> DailyBoard:
        """A page of a day's board for ``game`` (today's by default)."""
        message = GetDailyBoard(id=self.next_id(), game=game, date=date, offset=offset, limit=limit)
        return await self._expect(message, DailyBoard)

    async def daily_standings(self, date: str | None = None) -> DailyStandings:
        """The daily tournament: the day's standing, the week's and all-time tables (the top
        20 of each), my streak, and my own entry in each table wherever I stand in it
        (``me_day``, ``me_week``, ``me_all_time``; None where I have no points)."""
        return await self._expect(GetDailyStandings(id=self.next_id(), date=date), DailyStandings)

    async def daily_ghosts(self, race_id: str, on: bool = True) -> Ghosts:
        """Race (or stop racing) the day's best attempts as ``ghost`` events, during one's
        own scored daily attempt ``race_id``."""
        return await self._expect(DailyGhosts(id=self.next_id(), race_id=race_id, on=on), Ghosts)

    async def ping(self) -> Pong:
        return await self._expect(Ping(id=self.next_id()), Pong)

    async def create_race(
        self,
        game: GameName,
        seats: int = 2,
        time_limit: float = 600.0,
        hints: bool | None = None,
        rated: bool = False,
        share: bool = True,
    ) -> RaceInfo:
        """A new race, the caller seated. ``rated`` (accounts only) changes its racers'
        ratings; ``hints`` lets its racers ask for hints (by default: in a casual race).
        With ``share``, a random seed share goes into the deal (docs/deals.md): its
        commitment now, the share itself with :meth:`ready`."""
        secret = secrets.token_hex(32) if share else None
        message = CreateRace(
            id=self.next_id(),
            game=game,
            seats=seats,
            time_limit=time_limit,
            hints=hints,
            rated=rated,
            share_commitment=share_commitment(secret) if secret else None,
        )
        race = (await self._expect(message, Race)).race
        if secret:
            self._keep_share(race.race_id, secret)
        return race

    async def join_race(self, code: str, share: bool = True) -> RaceInfo:
        """Sit in the race with this short code (with a seed share, as :meth:`create_race`)."""
        secret = secrets.token_hex(32) if share else None
        message = JoinRace(
            id=self.next_id(), code=code, share_commitment=share_commitment(secret) if secret else None
        )
        race = (await self._expect(message, Race)).race
        if secret:
            self._keep_share(race.race_id, secret)
        return race

    async def list_races(
        self, game: GameName | None = None, offset: int = 0, limit: int = 20
    ) -> list[RaceInfo]:
        """One page of open races (:meth:`race_page` also gives ``next_offset``)."""
        return (await self.race_page(game, offset, limit)).races

    async def race_page(self, game: GameName | None = None, offset: int = 0, limit: int = 20) -> RaceList:
        """A page of open races with its ``next_offset`` (None on the last page)."""
        message = ListRaces(id=self.next_id(), game=game, offset=offset, limit=limit)
        return await self._expect(message, RaceList)

    async def leave(self, race_id: str) -> None:
        await self._expect(LeaveRace(id=self.next_id(), race_id=race_id), Ok)

    async def ready(self, race_id: str, ready: bool = True) -> None:
        """Ready (or not); a ready reveals this client's seed share of the race, if it has
        one (:meth:`share_of`). Without one (the share was committed on another device)
        the racer is ready all the same, and the deal is mixed without that share."""
        share = self.share_of(race_id) if ready else None
        await self._expect(Ready(id=self.next_id(), race_id=race_id, ready=ready, share=share), Ok)
        if share is not None:
            self._revealed.add(race_id)

    async def reveal_share(self, race_id: str) -> None:
        """Reveal this client's seed share of a race before its start (a quick match's is
        revealed by itself when the match is found); ``KeyError`` when it has none."""
        share = self.share_of(race_id)
        if share is None:
            raise KeyError(f"no seed share of race {race_id} is kept here")
        await self._expect(RevealShare(id=self.next_id(), race_id=race_id, share=share), Ok)
        self._revealed.add(race_id)

    def share_of(self, race_id: str) -> str | None:
        """This client's seed share of ``race_id``: committed by this client, or by an
        earlier one of the same player whose share ``kept_shares`` kept."""
        share = self.shares.get(race_id)
        if share is None and self.kept_shares is not None and self.player_id is not None:
            share = self.kept_shares.kept(self.player_id, race_id)
        return share

    def _keep_share(self, race_id: str, share: str) -> None:
        self.shares[race_id] = share
        if self.kept_shares is not None and self.player_id is not None:
            self.kept_shares.keep(self.player_id, race_id, share)

    async def start(self, race_id: str) -> None:
        """The creator starts the race now: a casual one with whoever sits, ready or not;
        a rated one with its ready racers only (2 at least, the creator among them, else
        ``not_enough_racers``), those not ready unseated (their ``RaceUpdate.left_out``)."""
        await self._expect(StartRace(id=self.next_id(), race_id=race_id), Ok)

    async def my_races(self) -> MyRaces:
        """The races this player sits in that are not over and the quick match they wait
        in, whichever of their sessions (another terminal, a browser tab) joined them."""
        return await self._expect(ListMyRaces(id=self.next_id()), MyRaces)

    async def get_race(self, race_id: str) -> RaceInfo:
        race = (await self._expect(GetRace(id=self.next_id(), race_id=race_id), Race)).race
        if race.board is not None:
            self.seqs[race_id] = race.board.seq
            self._views[race_id] = (race.board.seq, race.board.view)
        return race

    async def races_in_play(self, race_ids: list[str]) -> list[RaceInfo]:
        """The races of ``race_ids`` (``welcome.races``) that are not over and in which this
        player sits and has not finished: what a client that went away left behind."""
        found = []
        for race_id in race_ids:
            try:
                info = await self.get_race(race_id)
            except ArenaError:
                continue  # gone meanwhile
            mine = next((r for r in info.racers if r.player_id == self.player_id), None)
            if mine is not None and not mine.finished and info.status in ("open", "countdown", "running"):
                found.append(info)
        return found

    async def board(self, race_id: str) -> BoardState | None:
        return (await self.get_race(race_id)).board

    async def move(self, race_id: str, move: str, seq: int | None = None) -> MoveAck:
        """Play ``move``; ``seq`` defaults to the next one this client knows of. Then an
        ack ``resent`` for a seq under which this client had not sent ``move`` before
        means that another session of this player played it: nothing was played now, and
        :class:`~client.errors.PlayedElsewhereError` says so (``client.seqs`` follows the
        ack; ``get_race`` gives the board as it is now)."""
        late = self._acked_late.pop(race_id, None)
        if seq is None and late is not None and late == (self.seqs.get(race_id), move):
            # The retry of a move whose ack came after its request timed out: sent again
            # with its seq, it gets that ack (resent), and nothing is played twice.
            next_seq, sent_before = late[0], True
        else:
            if seq is None:
                await self._settle(race_id, move)
            next_seq = self.seqs.get(race_id, 0) + 1 if seq is None else seq
            sent_before = self._unacked.get(race_id) == (next_seq, move)
        message = MakeMove(id=self.next_id(), race_id=race_id, seq=next_seq, move=move)
        self._unacked[race_id] = (next_seq, move)
        try:
            try:
                ack = await self._expect(message, MoveAck)
            except ConnectionLostError:
                if not self.reconnect:
                    raise
                # Resent with the same seq once the connection is resumed: acked once, applied once.
                sent_before = True
                ack = await self._expect(message.model_copy(update={"id": self.next_id()}), MoveAck)
        except ArenaError as exc:
            if exc.code not in _MAYBE_PLAYED:
                self._unacked.pop(race_id, None)
            raise
        self._unacked.pop(race_id, None)
        self.seqs[race_id] = max(self.seqs.get(race_id, 0), ack.seq)
        ack = await self._whole(ack)
        if ack.resent and seq is None and not sent_before:
            raise PlayedElsewhereError(
                "played_elsewhere",
                f"seq {ack.seq} already holds the move {ack.result.move!r}, played on another session "
                "of this player: nothing was played now",
                ack,
            )
        return ack

    def _laid_over(self, ack: MoveAck) -> MoveAck | None:
        """``ack`` with its whole view (kept for the next one), or None when its view holds
        only the changed piles and the view of the seq before it is not known here."""
        race_id = ack.race_id
        if ack.changed_only:
            before = self._views.get(race_id)
            if before is None or before[0] != ack.seq - 1:
                return None
            piles = {**before[1].piles, **ack.view.piles}
            view = ack.view.model_copy(update={"piles": piles})
            ack = ack.model_copy(update={"view": view, "changed_only": False})
        self._views[race_id] = (ack.seq, ack.view)
        return ack

    async def _whole(self, ack: MoveAck) -> MoveAck:
        """``ack`` with its whole view: laid over the one before, or the board as the server
        has it now when that one is not known here (a move played after another session's)."""
        whole = self._laid_over(ack)
        if whole is not None:
            return whole
        board = await self.board(ack.race_id)
        if board is None:
            raise ArenaError("not_a_racer", f"the server has no board of this player in {ack.race_id}")
        return ack.model_copy(update={"view": board.view, "changed_only": False})

    async def _settle(self, race_id: str, move: str) -> None:
        """Before ``move``: when the last move sent in the race is another one, left
        without an ack (its request timed out, or its connection dropped), it may have
        been played: the board's seq is read again (``get_race``), so that ``move`` goes
        after it rather than into its seq (``seq_conflict``)."""
        unacked = self._unacked.get(race_id)
        if unacked is None or unacked[1] == move:
            return  # nothing in doubt, or the retry of the move in doubt (sent with its seq)
        await self.get_race(race_id)
        self._unacked.pop(race_id, None)

    async def undo(self, race_id: str) -> MoveAck:
        """Take the last move back: the move ``undo``, with the next seq like any move. A
        move that turned up a hidden card stays (``illegal_move``, docs/rules.md "Undo")."""
        return await self.move(race_id, "undo")

    async def hint(self, race_id: str) -> Hint:
        """A good next move for this racer's board (``hints_off`` where the race forbids)."""
        return await self._expect(GetHint(id=self.next_id(), race_id=race_id), Hint)

    async def offer_rematch(self, race_id: str, share: bool = True) -> RematchInfo:
        """Offer the racers of ``race_id`` (ended) a rematch on a new deal. With ``share``,
        a random seed share goes into its deal: the commitment now, the share by itself
        when ``rematch_started`` comes (as in :meth:`quick_match`)."""
        secret = self._rematch_share(race_id, share)
        message = OfferRematch(
            id=self.next_id(), race_id=race_id, share_commitment=share_commitment(secret) if secret else None
        )
        return (await self._rematch_request(race_id, message)).rematch

    async def answer_rematch(self, race_id: str, accept: bool, share: bool = True) -> RematchInfo:
        """Accept or decline the rematch offered after ``race_id``; once every answer is in,
        a ``rematch_started`` event seats the accepted racers in the new race. An
        acceptance with ``share`` adds a seed share, as :meth:`offer_rematch`."""
        secret = self._rematch_share(race_id, share and accept)
        message = AnswerRematch(
            id=self.next_id(),
            race_id=race_id,
            accept=accept,
            share_commitment=share_commitment(secret) if secret else None,
        )
        return (await self._rematch_request(race_id, message)).rematch

    def _rematch_share(self, race_id: str, share: bool) -> str | None:
        """A new seed share for the rematch of ``race_id``, kept before asking: the
        ``rematch_started`` an answer causes may overtake its reply."""
        self._rematch_shares.pop(race_id, None)
        if not share:
            return None
        secret = secrets.token_hex(32)
        self._rematch_shares[race_id] = secret
        return secret

    async def _rematch_request(self, race_id: str, message: OfferRematch | AnswerRematch) -> Rematch:
        joins = isinstance(message, OfferRematch) or message.accept
        if joins:
            self._rematch_asked.add(race_id)  # before sending: rematch_started may overtake the reply
        try:
            reply = await self._expect(message, Rematch)
        except ConnectionLostError:
            raise  # maybe made before the drop: a resume looks for its rematch
        except ArenaError:
            self._rematch_shares.pop(race_id, None)
            self._rematch_asked.discard(race_id)
            raise
        if not joins or reply.rematch.status in ("declined", "expired", "failed"):
            self._rematch_asked.discard(race_id)
        return reply

    async def finish(self, race_id: str) -> None:
        await self._expect(Finish(id=self.next_id(), race_id=race_id), Ok)

    async def results(self, race_id: str) -> RaceSummary:
        return (await self._expect(GetResults(id=self.next_id(), race_id=race_id), Results)).summary

    async def move_log(self, race_id: str) -> MoveLog:
        return await self._expect(GetMoveLog(id=self.next_id(), race_id=race_id), MoveLog)

    async def replay(self, race_id: str, player_id: str, offset: int = 0, limit: int = 100) -> Replay:
        """A racer's views move by move in a race that ended (a page of them)."""
        message = GetReplay(
            id=self.next_id(), race_id=race_id, player_id=player_id, offset=offset, limit=limit
        )
        return await self._expect(message, Replay)

    async def live_races(self, game: GameName | None = None, limit: int = 20) -> list[LiveRace]:
        """The races being played now, best first (docs/protocol.md, "Spectating")."""
        return (await self._expect(ListLive(id=self.next_id(), game=game, limit=limit), LiveRaces)).races

    async def watch(self, race_id: str | None = None) -> Watching:
        """Watch a race (or, without ``race_id``, the featured one, following the next
        whenever it ends): ``watch_move``, ``watch_held`` (a board held back for cards
        another racer has not seen), ``progress``, ``race_started``, ``race_ended`` and
        ``spectators`` events follow; :class:`client.watching.WatchedRace` keeps the
        boards from them."""
        return await self._expect(Watch(id=self.next_id(), race_id=race_id), Watching)

    async def unwatch(self) -> None:
        await self._expect(Unwatch(id=self.next_id()), Ok)

    async def record(self, race_id: str) -> str:
        """A finished race's record as text (docs/record.md)."""
        return (await self._expect(GetRecord(id=self.next_id(), race_id=race_id), RecordText)).text

    async def quick_match(self, game: GameName, share: bool = True, casual: bool = False) -> Queued:
        """Wait in ``game``'s queue (an account's: the rated one, unless ``casual``). With
        ``share``, a random seed share goes into the deal: its commitment now (the same one
        when asking again while queued), the share itself as soon as ``match_found``
        comes, during the countdown."""
        before = self._queue_shares.pop(game, None)
        secret = (before or secrets.token_hex(32)) if share else None
        message = QuickMatch(
            id=self.next_id(),
            game=game,
            share_commitment=share_commitment(secret) if secret else None,
            casual=casual,
        )
        if secret:
            self._queue_shares[game] = secret  # before sending: match_found may overtake the reply
        queued_before, self._queued = self._queued, (game, share, casual)
        # Until the reply names the stay, no quick_match_left ends it (one of a stay that
        # ended before this request is not about it).
        ticket_before, self._queue_ticket = self._queue_ticket, None
        try:
            queued = await self._expect(message, Queued)
        except ArenaError:
            self._queued, self._queue_ticket = queued_before, ticket_before
            if before is None:
                self._queue_shares.pop(game, None)
            else:
                self._queue_shares[game] = before
            raise
        if self._queued == (game, share, casual):  # not paired already (match_found may overtake the reply)
            self._queue_ticket = queued.ticket
        return queued

    @property
    def queued_for(self) -> GameName | None:
        """The game whose queue this player waits in, as far as this client knows: a
        ``match_found`` or a ``quick_match_left`` of the stay (from any session) ends it."""
        return self._queued[0] if self._queued is not None else None

    async def wait_for_match(self, timeout: float = 60.0) -> MatchFound:
        """After :meth:`quick_match`: the ``match_found`` that pairs this player. Raises
        :class:`client.errors.QueueLeftError` when the stay ends otherwise first (a cancel
        from another session, the place lapsed: see ``quick_match_left``), and
        ``TimeoutError`` after ``timeout`` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            event = await self.next_event(max(0.0, deadline - loop.time()))
            if isinstance(event, MatchFound):
                return event
            if isinstance(event, QuickMatchLeft) and event is self._queue_left:
                raise QueueLeftError(event)

    async def cancel_quick_match(self) -> None:
        await self._expect(CancelQuickMatch(id=self.next_id()), Ok)
        self._queue_shares.clear()
        self._queued = self._queue_ticket = None


def player_token(welcome: Welcome) -> str:
    """The token of a player's ``welcome`` (a viewer's, which has none, is a wrong reply
    where a player was asked for)."""
    if welcome.token is None:
        raise UnexpectedReplyError("unexpected_reply", "a welcome without a token, for a player's hello")
    return welcome.token

"""The lobby: creating, joining, listing, leaving and starting races; reading one.

Open races do not wait for players who went away: when a player's last connection on
a node closes while they sit in a race that has not started, they get ``lobby_grace``
seconds to come back (a dropped connection, a page reload). If they have not said
hello anywhere since, they leave their open races as if they had sent ``leave_race``;
the last one out cancels a race. Who went away, and when, is kept in Redis, and every
node looks for graces that ended: a node stopped or restarted meanwhile (its
connections closing as it stops) leaves none of those seats taken for good.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Final

from server.background import cancel_and_wait
from server.config import Settings
from server.errors import ArenaError, answer_error, race_not_found, race_not_open
from server.features.context import Caller, Identity, Reply
from server.features.daily_close import seed_out
from server.features.daily_rules import attempt_kind
from server.features.events import EventKind, pack_event
from server.features.node_watch import NodeWatch
from server.features.one_race import RacingClaims, racing
from server.features.race_rules import race_window, racer_info, view_of
from server.features.ratings import current, provisional
from server.features.rematch_info import rematch_info
from server.metrics import Metrics
from server.store import Answer, BoardRecord, PlayerRating, RaceMeta, RaceStatus, Seat, Store
from server.store.queues import Marker
from server.timesource import TimeSource
from shared import from_position, new_game
from shared.fairness import commitment, mixed_seed, share_commitment
from shared.protocol import (
    BoardState,
    BoardView,
    CreateRace,
    ErrorCode,
    GameName,
    GetRace,
    JoinRace,
    LeaveRace,
    ListMyRaces,
    ListRaces,
    MyRaces,
    Ok,
    QueueStay,
    Race,
    RaceCountdown,
    RaceInfo,
    RaceList,
    RacerInfo,
    RaceUpdate,
    Ready,
    RevealShare,
    StartRace,
)

log = logging.getLogger("arena.lobby")

#: The longest wait between a node's looks for players whose lobby grace ended (a
#: shorter grace is looked at more often: a third of it, 0.1 s at least).
GONE_LOOK_EVERY: Final = 1.0
#: Players gone taken off the list at a time.
GONE_BATCH: Final = 100


class RacingElsewhere(ArenaError):
    """A start refused: these racers race in another race (one race at a time)."""

    def __init__(self, seats: list[Seat]) -> None:
        names = ", ".join(seat.name for seat in seats)
        verb = "is" if len(seats) == 1 else "are"
        super().__init__(
            ErrorCode.ALREADY_RACING,
            f"{names} {verb} racing in another race: a player races one race at a time",
        )
        self.seats = seats


_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
_CODE_LENGTH = 6


def new_code() -> str:
    return "".join(secrets.choice(_CODE_ALPHABET) for _ in range(_CODE_LENGTH))


def random_seed() -> int:
    return secrets.randbits(63)


def board_state(record: BoardRecord, legal: bool = False) -> BoardState:
    """A racer's own board as they may see it (with its legal moves when asked)."""
    game = from_position(record.position, move_count=record.move_count)
    view = BoardView.model_validate(view_of(game, legal, record.can_undo))
    return BoardState(seq=record.seq, view=view, finished=record.finished)


def race_info(
    meta: RaceMeta,
    seats: list[Seat],
    boards: dict[str, BoardRecord],
    board: BoardState | None,
    now: int,
    ratings: dict[str, PlayerRating | None] | None = None,
    accounts: set[str] | frozenset[str] = frozenset(),
    *,
    seed_out: bool,
) -> RaceInfo:
    """A race as a viewer may see it, from what the store holds: the viewer's own
    ``board`` only, the commitment from the start (before any seed share is revealed),
    the seed at the end when ``seed_out`` (:func:`server.features.daily_close.seed_out`:
    a daily attempt's once its day is closed), and each racer's rating in the game when ``ratings`` has it (an
    account among ``accounts`` without one yet: 1500, provisional; a guest: none)."""
    started_at = (meta.starts_at or 0) if meta.status.is_started else 0
    racers = [racer_info(s, boards.get(s.player_id), meta.game, started_at) for s in seats]
    if ratings is not None:
        racers = [_rated(r, ratings.get(r.player_id), r.player_id in accounts, now) for r in racers]
    over = meta.status is RaceStatus.FINISHED and seed_out
    return RaceInfo(
        race_id=meta.race_id,
        code=meta.code,
        game=meta.game,
        seats=meta.seats,
        time_limit=meta.time_limit,
        hints=meta.hints,
        rated=meta.rated,
        status=meta.status.value,
        creator=meta.creator,
        racers=racers,
        server_time=now,
        starts_at=meta.starts_at,
        ends_at=meta.ends_at,
        commitment=meta.commitment,
        board=board,
        seed=meta.seed if over else None,
        salt=meta.salt if over else None,
        daily=meta.daily or None,
        attempt=attempt_kind(meta.daily, meta.daily_scored, meta.practice),
    )


RATED_FOR_ACCOUNTS = "rated races are for accounts: register or log in first"
RATED_STARTS_READY = "a rated race starts with its ready racers"


async def queue_stay(store: Store, marker: Marker, player: Identity) -> QueueStay:
    """The quick-match stay the player's queue marker names: its queue as the marker says
    it (one from before markers named their queue: rated for an account, unless it waits
    in the game's casual queue)."""
    if marker.rated is not None:
        return QueueStay(game=marker.game, ticket=marker.ticket, rated=marker.rated)
    rated = player.account and not await store.queues.in_casual_queue(marker.game, player.player_id)
    return QueueStay(game=marker.game, ticket=marker.ticket, rated=rated)


def not_enough_ready(ready: int) -> str:
    """The refusal of a rated start with fewer than 2 ready racers.

    >>> not_enough_ready(1)
    'a rated race starts with its ready racers, at least 2: 1 is ready'
    """
    return f"{RATED_STARTS_READY}, at least 2: {ready} {'is' if ready == 1 else 'are'} ready"


def _rated(racer: RacerInfo, stored: PlayerRating | None, account: bool, now: int) -> RacerInfo:
    if stored is None and not account:
        return racer
    rating = current(stored, now)
    return racer.model_copy(update={"rating": round(rating.rating), "provisional": provisional(rating.rd)})


class Lobby:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        time: TimeSource,
        metrics: Metrics,
        nodes: NodeWatch,
        seed_source: Callable[[], int] = random_seed,
        mix_shares: bool = True,
    ) -> None:
        self.store = store
        self.mix_shares = mix_shares
        self.metrics = metrics
        self.nodes = nodes
        self.settings = settings
        self.time = time
        self.seed_source = seed_source
        self.claims = RacingClaims(store)
        #: Called with the racers of a race that began (not a quick match): the quick
        #: match's, which takes those still waiting in a queue out of it (set at wiring).
        self.racers_leave_queues: Callable[[list[str]], Awaitable[None]] | None = None
        self._sweeper: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._sweeper = asyncio.create_task(self._keep_freeing_seats(), name="lobby-gone-players")

    async def stop(self) -> None:
        if self._sweeper is not None:
            await cancel_and_wait([self._sweeper])

    # ----- handlers --------------------------------------------------------------------

    async def create_race(self, caller: Caller, message: CreateRace) -> Reply:
        await self._refuse_too_many_open(caller.player.player_id)
        await self._refuse_too_many_created(caller.player.player_id)
        if message.rated and message.hints:
            raise ArenaError(ErrorCode.INVALID_MESSAGE, "a rated race has no hints")
        hints = not message.rated if message.hints is None else message.hints
        meta = await self.create(
            caller.player,
            message.game,
            message.seats,
            message.time_limit,
            hints=hints,
            rated=message.rated,
            share_commitment=message.share_commitment or "",
        )
        info = await self.info(meta.race_id, caller.player.player_id)
        return Reply(Race(id=message.id, race=info), follow=(meta.race_id,))

    async def join_race(self, caller: Caller, message: JoinRace) -> Reply:
        await self._refuse_too_many_open(caller.player.player_id)
        race_id = await self.join(
            caller.player, message.code, share_commitment=message.share_commitment or ""
        )
        info = await self.info(race_id, caller.player.player_id)
        return Reply(Race(id=message.id, race=info), follow=(race_id,))

    async def list_races(self, caller: Caller, message: ListRaces) -> Reply:
        now = self.time.now_ms()
        page, more = await self.store.races.open_page(message.game, message.offset, message.limit, now)
        # Open races: none is finished, no seed is out.
        infos = [race_info(meta, seats, {}, None, now, seed_out=False) for meta, seats in page]
        next_offset = message.offset + message.limit if more else None
        return Reply(RaceList(id=message.id, races=infos, next_offset=next_offset))

    async def list_my_races(self, caller: Caller, message: ListMyRaces) -> Reply:
        """The races the sender sits in that are not over, and their quick-match queue:
        what another session of theirs (a tab, a device) joined, started or queued for."""
        player = caller.player
        metas = await self.current_races(player.player_id)
        races = sorted(m.race_id for m in metas if not m.status.is_over)
        marker = await self.store.queues.queued(player.player_id)
        queued = await queue_stay(self.store, marker, player) if marker else None
        return Reply(MyRaces(id=message.id, races=races, queued=queued))

    async def leave_race(self, caller: Caller, message: LeaveRace) -> Reply:
        await self.leave(caller.player.player_id, message.race_id)
        return Reply(Ok(id=message.id), unfollow=(message.race_id,))

    async def ready(self, caller: Caller, message: Ready) -> Reply:
        race_id, player_id = message.race_id, caller.player.player_id
        share = ""
        if message.ready:
            share = await self._checked_share(race_id, player_id, message.share)
            elsewhere = await self.racing_in(player_id, but=race_id)
            if elsewhere is not None:
                raise ArenaError(
                    ErrorCode.ALREADY_RACING,
                    f"you are racing in race {elsewhere.race_id}: finish it before getting ready for another",
                )
        answer = await self.store.races.set_ready(race_id, player_id, message.ready, share)
        if answer is Answer.ALL_READY:
            await self._count_down_all_ready(race_id, player_id)
        elif answer is Answer.OK:
            await self.announce(race_id)
        elif answer is Answer.NOT_OPEN:
            raise race_not_open(await self._status(race_id))
        else:
            raise answer_error(answer)
        return Reply(Ok(id=message.id))

    async def _status(self, race_id: str) -> RaceStatus | None:
        meta = await self.store.races.meta(race_id)
        return meta.status if meta is not None else None

    async def _count_down_all_ready(self, race_id: str, player_id: str) -> None:
        """``player_id``'s ready found every racer ready: the countdown begins, unless a join
        or an unready came first (then the race waits on, its seats told), or it already
        began (another ready got there first). A racer found racing elsewhere is not ready
        here any more (they say so again once back), and only they are told why."""
        try:
            started = await self.begin_countdown(race_id, all_ready=True)
        except RacingElsewhere as exc:
            for seat in exc.seats:
                await self.store.races.set_ready(race_id, seat.player_id, False)
            await self.announce(race_id)
            if any(seat.player_id == player_id for seat in exc.seats):
                raise
            return
        if not started:
            meta = await self.store.races.meta(race_id)
            if meta is not None and meta.status is RaceStatus.OPEN:
                await self.announce(race_id)

    async def reveal_share(self, caller: Caller, message: RevealShare) -> Reply:
        """A racer seated with a commitment (a quick match, a rematch) reveals the share
        before the start; the start mixes every share revealed by then."""
        race_id, player_id = message.race_id, caller.player.player_id
        share = await self._checked_share(race_id, player_id, message.share)
        answer = await self.store.races.reveal_share(race_id, player_id, share)
        if answer is Answer.NOT_OPEN:
            status = await self._status(race_id)
            if status is RaceStatus.CANCELLED:
                raise race_not_open(status)  # never dealt: no deal to be in or out of
            if share and await self._share_dealt(race_id, player_id, share):
                return Reply(Ok(id=message.id))  # revealed before the start: it is in the deal
            raise ArenaError(
                ErrorCode.RACE_NOT_OPEN, "the race has started: its deal was dealt without your seed share"
            )
        if answer is not Answer.OK:
            raise answer_error(answer)
        return Reply(Ok(id=message.id))

    async def _share_dealt(self, race_id: str, player_id: str, share: str) -> bool:
        """Whether the racer's seat holds ``share``, revealed: only before the start can
        it be, so the race's deal was mixed with it."""
        seats = await self.store.races.seats(race_id)
        return any(s.player_id == player_id and s.share == share for s in seats)

    async def _checked_share(self, race_id: str, player_id: str, share: str | None) -> str:
        """The seed share a ready or a reveal_share reveals: it must match the commitment
        sent with the seat. A ready without one is taken even after a commitment: the
        racer's session that kept the share may be gone (another device, a restarted
        client), and a share not revealed by the start is left out of the deal anyway.
        Not kept ('') by a node that does not mix shares (tests)."""
        if share is None:
            return ""
        seat = next((s for s in await self.store.races.seats(race_id) if s.player_id == player_id), None)
        if seat is None:
            return ""  # the store answers: no such race, or not a racer
        if not seat.share_commitment:
            raise ArenaError(
                ErrorCode.BAD_SHARE, "no seed share commitment came with your seat: send no share"
            )
        if share_commitment(share) != seat.share_commitment:
            raise ArenaError(
                ErrorCode.BAD_SHARE, "that seed share does not match the commitment you sent for this race"
            )
        return share if self.mix_shares else ""

    async def start_race(self, caller: Caller, message: StartRace) -> Reply:
        meta = await self.store.races.meta(message.race_id)
        if meta is None:
            raise race_not_found(message.race_id)
        if meta.creator != caller.player.player_id:
            raise ArenaError(ErrorCode.NOT_CREATOR, "only the race's creator can start it")
        if meta.rated:
            await self._start_with_the_ready(message.race_id, caller.player.player_id)
        else:
            await self.begin_countdown(message.race_id)
        return Reply(Ok(id=message.id))

    async def _start_with_the_ready(self, race_id: str, creator: str) -> None:
        """A rated race starts with its ready racers only: a rated result involves only
        racers who agreed to race. Every seat not ready is unseated (and told why) in the
        step that checks it, so a racer who gets ready meanwhile stays; the countdown then
        begins only while every seat left is ready, and all this is done again when the
        seats changed in between."""
        for _attempt in range(5):
            race = await self.store.races.race(race_id)
            if race is None:
                raise race_not_found(race_id)
            meta, seats = race
            if meta.status is not RaceStatus.OPEN:
                raise race_not_open(meta.status)
            ready = [s for s in seats if s.ready]
            if not any(s.player_id == creator for s in ready):
                raise ArenaError(ErrorCode.NOT_ENOUGH_RACERS, f"{RATED_STARTS_READY}: get ready first")
            if len(ready) < 2:
                raise ArenaError(ErrorCode.NOT_ENOUGH_RACERS, not_enough_ready(len(ready)))
            await self._refuse_racers_elsewhere(race_id, ready)
            await self._leave_out_unready(race_id, [s for s in seats if not s.ready])
            try:
                if await self.begin_countdown(race_id, all_ready=True):
                    return
            except ArenaError as exc:
                if exc.code is not ErrorCode.NOT_ENOUGH_RACERS:
                    raise  # too few seats left: read again, to say how many are ready
        raise ArenaError(ErrorCode.RACE_NOT_OPEN, "the seats kept changing: try again")

    async def _leave_out_unready(self, race_id: str, unready: list[Seat]) -> None:
        """Unseat those of ``unready`` still not ready, each in one atomic step; the race's
        followers are told in one ``race_update`` naming them in ``left_out`` (their own
        sessions too, which stop following the race)."""
        left_out = []
        for seat in unready:
            answer = await self.store.races.leave(race_id, seat.player_id, self.settings.race_ttl, True)
            if answer is Answer.OK:
                left_out.append(seat.player_id)
                log.info(
                    "unready racer left out of a rated start",
                    extra={"race_id": race_id, "player_id": seat.player_id},
                )
        if left_out:
            await self.announce(race_id, left_out=left_out)

    async def get_race(self, caller: Caller, message: GetRace) -> Reply:
        player_id = caller.player.player_id
        info = await self.info(message.race_id, player_id, caller.player.legal_moves)
        racing = any(r.player_id == player_id for r in info.racers)
        follow = (message.race_id,) if racing and info.status not in ("finished", "cancelled") else ()
        if racing and info.status == "finished":
            info = await self._with_rematch(info, player_id)
        return Reply(Race(id=message.id, race=info), follow=follow)

    async def _with_rematch(self, info: RaceInfo, player_id: str) -> RaceInfo:
        """``info`` of a finished race with its latest rematch offer, if one invited
        ``player_id``: a client that opens the race after the offer was made sees it."""
        record = await self.store.rematches.get(info.race_id)
        if record is None or player_id not in record.answers:
            return info
        names = {r.player_id: r.name for r in info.racers}
        return info.model_copy(update={"rematch": rematch_info(record, names)})

    # ----- setting races up ------------------------------------------------------------

    async def create(
        self,
        player: Identity,
        game: GameName,
        seats: int,
        time_limit: float,
        ready: bool = False,
        hints: bool = False,
        rated: bool = False,
        seed: int | None = None,
        salt: str | None = None,
        daily: str = "",
        daily_scored: bool = False,
        practice: bool = False,
        share_commitment: str = "",
        quick: bool = False,
    ) -> RaceMeta:
        if rated and not player.account:
            raise ArenaError(ErrorCode.NOT_REGISTERED, RATED_FOR_ACCOUNTS)
        now = self.time.now_ms()
        seed = self.seed_source() if seed is None else seed
        salt = secrets.token_hex(16) if salt is None else salt
        for _attempt in range(10):
            meta = RaceMeta(
                race_id=secrets.token_hex(6),
                code=new_code(),
                game=game,
                seats=seats,
                time_limit=time_limit,
                status=RaceStatus.OPEN,
                creator=player.player_id,
                seed=seed,
                salt=salt,
                commitment=commitment(game, seed, salt),
                created_at=now,
                starts_at=None,
                ends_at=None,
                ended_at=None,
                hints=hints and not rated,
                rated=rated,
                daily=daily,
                daily_scored=daily_scored,
                practice=practice,
                quick=quick,
                server_seed=seed,
            )
            seat = Seat(player.player_id, player.name, ready, now, player.bot, share_commitment)
            if await self.store.races.create(meta, seat):
                log.info("race created", extra={"race_id": meta.race_id, "player_id": player.player_id})
                return meta
        raise ArenaError(ErrorCode.INTERNAL_ERROR, "could not find a free race code")

    async def join(self, player: Identity, code: str, ready: bool = False, share_commitment: str = "") -> str:
        race_id = await self.store.races.race_for_code(code.strip().upper())
        if race_id is None:
            raise ArenaError(ErrorCode.RACE_NOT_FOUND, f"no race has the code {code[:12]!r}")
        if not player.account:
            meta = await self.store.races.meta(race_id)
            if meta is not None and meta.rated:
                if meta.status is not RaceStatus.OPEN:
                    raise race_not_open(meta.status)  # the first reason: nobody may join it
                raise ArenaError(ErrorCode.NOT_REGISTERED, RATED_FOR_ACCOUNTS)
        seat = Seat(player.player_id, player.name, ready, self.time.now_ms(), player.bot, share_commitment)
        answer, status = await self.store.races.join(race_id, seat)
        if answer is Answer.NOT_OPEN:
            raise race_not_open(status)
        if answer not in (Answer.OK, Answer.ALREADY):
            raise answer_error(answer)
        log.info("racer joined", extra={"race_id": race_id, "player_id": player.player_id})
        await self.announce(race_id, mover=player.player_id)
        return race_id

    async def unseat_all(self, race_id: str, player_ids: list[str]) -> None:
        """Unseat ``player_ids`` (in the order they were seated, the last first) from a race
        the server set up that could not start (a quick match's or a rematch's: one of them
        races elsewhere, or the store failed midway): the last one out cancels it, so no
        open race nobody asked for stays behind, seated, ready and joinable by anyone. Best
        effort: one not seated, or the store away, does not keep the others seated."""
        for player_id in reversed(player_ids):
            try:
                await self.leave(player_id, race_id)
            except Exception as exc:
                log.warning(
                    "unseating a race that could not start", extra={"race_id": race_id, "reason": repr(exc)}
                )

    async def leave(self, player_id: str, race_id: str, tell_them: bool = False) -> None:
        """The player leaves the open race; its followers are told, the player only with
        ``tell_them`` (no reply of theirs says it: the lobby's sweep unseated them)."""
        answer = await self.store.races.leave(race_id, player_id, self.settings.race_ttl)
        if answer is Answer.NOT_OPEN:
            status = await self._status(race_id)
            if status in (RaceStatus.COUNTDOWN, RaceStatus.RUNNING):
                raise ArenaError(
                    ErrorCode.RACE_NOT_OPEN, "the race has started: send 'finish' to give up instead"
                )
            raise race_not_open(status)
        if answer not in (Answer.OK, Answer.CANCELLED):
            raise answer_error(answer)
        log.info("racer left", extra={"race_id": race_id, "player_id": player_id})
        if answer is Answer.OK:
            await self.announce(race_id, mover="" if tell_them else player_id)
            await self._start_if_all_ready(race_id)

    async def _start_if_all_ready(self, race_id: str) -> None:
        """A racer left: the last one not ready may have gone, and the racers still
        seated (two at least) all ready then start as a ready would have started them."""
        race = await self.store.races.race(race_id)
        if race is None:
            return
        meta, seats = race
        if meta.status is RaceStatus.OPEN and len(seats) >= 2 and all(s.ready for s in seats):
            await self._count_down_all_ready(race_id, "")

    async def announce(self, race_id: str, mover: str = "", left_out: list[str] | None = None) -> None:
        """Tell the race's followers who sits in it now. ``mover``, the player who just
        joined or left, is left out: the reply says it, and whether the event would
        reach them otherwise depends on when their following starts or stops. The
        players ``left_out`` were unseated as not ready by a rated start: their sessions
        are told, then stop following the race."""
        info = await self.info(race_id, None)
        if left_out:
            event = pack_event(EventKind.UNSEATED, RaceUpdate(race=info, left_out=left_out))
        else:
            event = pack_event(EventKind.BROADCAST, RaceUpdate(race=info), skip=mover)
        await self.store.events.publish_race(race_id, event)

    async def current_races(self, player_id: str) -> list[RaceMeta]:
        """The player's races that are not over, and those that ended without the player
        being told (they were away)."""
        race_ids = await self.store.players.active_races(player_id)
        metas = await self.store.races.metas(race_ids)
        known = {m.race_id for m in metas}
        # A race whose keys expired before the player came back is dropped here.
        await self.store.players.forget_active(player_id, [r for r in race_ids if r not in known])
        return metas

    async def active_races(self, player_id: str, statuses: tuple[RaceStatus, ...]) -> list[RaceMeta]:
        """The player's races whose status is one of ``statuses``."""
        return [m for m in await self.current_races(player_id) if m.status in statuses]

    async def _refuse_too_many_created(self, player_id: str) -> None:
        """A player creates at most ``create_rate`` races a minute (on every node together):
        creating and leaving in a loop would otherwise fill Redis with cancelled races."""
        most, now = self.settings.create_rate, self.time.now_ms()
        if most and await self.store.players.count_creation(player_id, now) > most:
            wait = -(-(60_000 - now % 60_000) // 1000)  # the count starts again each minute
            raise ArenaError(
                ErrorCode.RATE_LIMITED,
                f"a player may create {most} races a minute: one more in {wait} s, or join one",
            )

    async def _refuse_too_many_open(self, player_id: str) -> None:
        """A player sits in at most ``max_open_races`` races that have not started."""
        most = self.settings.max_open_races
        if len(await self.active_races(player_id, (RaceStatus.OPEN,))) >= most:
            raise ArenaError(
                ErrorCode.TOO_MANY_RACES,
                f"you sit in {most} open race{'' if most == 1 else 's'} already: "
                "start or leave one before another",
            )

    async def racing_in(self, player_id: str, but: str = "") -> RaceMeta | None:
        """A race other than ``but`` that the player races now (see ``one_race``)."""
        for meta in await self.active_races(player_id, (RaceStatus.COUNTDOWN, RaceStatus.RUNNING)):
            if meta.race_id != but and await racing(self.store, meta, player_id):
                return meta
        return None

    async def _refuse_racers_elsewhere(self, race_id: str, seats: list[Seat]) -> None:
        """One race at a time per player: racers already racing elsewhere block the start."""
        busy = [seat for seat in seats if await self.racing_in(seat.player_id, but=race_id) is not None]
        if busy:
            raise RacingElsewhere(busy)

    async def begin_countdown(self, race_id: str, solo: bool = False, all_ready: bool = False) -> bool:
        """Deal and count down (a ``solo`` race, a daily attempt, has one racer and starts
        at once); True when this call began it. With ``all_ready`` (a ready found every
        racer ready) only while every racer still is and the race is still open: False
        otherwise, and nothing starts. Racers another race holds block the start:
        :class:`RacingElsewhere`."""
        for _attempt in range(5):
            race = await self.store.races.race(race_id)
            if race is None:
                raise race_not_found(race_id)
            meta, seats = race
            if all_ready and (meta.status is not RaceStatus.OPEN or not all(s.ready for s in seats)):
                return False
            if meta.status is not RaceStatus.OPEN:
                raise race_not_open(meta.status)
            if len(seats) < (1 if solo else 2):
                raise ArenaError(ErrorCode.NOT_ENOUGH_RACERS, "a race needs at least 2 racers")
            await self._refuse_racers_elsewhere(race_id, seats)
            busy = await self.claims.claim(race_id, seats)
            if busy:
                raise RacingElsewhere(busy)
            player_ids = [s.player_id for s in seats]
            seed = mixed_seed(meta.game, meta.server_seed, {s.player_id: s.share for s in seats if s.share})
            game = new_game(meta.game, seed)
            now = self.time.now_ms()
            starts_at, ends_at = race_window(now, 0.0 if solo else self.settings.countdown, meta.time_limit)
            if meta.daily and not meta.practice:
                # Before the countdown is stored: the day closes no sooner than this end
                # (the start may still move it later: Racing.go keeps that one too).
                await self.store.dailies.attempt_ends(meta.daily, race_id, ends_at)
            event = RaceCountdown(
                race_id=race_id,
                starts_at=starts_at,
                ends_at=ends_at,
                commitment=meta.commitment,
                server_time=now,
            )
            answer = await self.store.races.start_countdown(
                race_id,
                meta.game,
                player_ids,
                starts_at,
                ends_at,
                dict(game.position()),
                game.score,
                pack_event(EventKind.BROADCAST, event),
                seed,
                live=not meta.daily,
                all_ready=all_ready,
            )
            if answer is Answer.OK:
                await self.claims.hold(race_id, player_ids, ends_at, now)
                self.metrics.races_started.inc()
                log.info("race countdown", extra={"race_id": race_id})
                if not meta.quick and self.racers_leave_queues is not None:
                    await self._leave_queues(player_ids)
                return True
            await self.claims.release(race_id, player_ids)
            if all_ready and answer in (Answer.NOT_READY, Answer.NOT_OPEN):
                return False
            if answer is not Answer.CHANGED:
                raise answer_error(answer)
        raise ArenaError(ErrorCode.RACE_NOT_OPEN, "the seats kept changing: try again")

    async def _leave_queues(self, player_ids: list[str]) -> None:
        """Racers of a race that began still waiting for a quick match leave its queue."""
        assert self.racers_leave_queues is not None
        try:
            await self.racers_leave_queues(player_ids)
        except Exception as exc:  # the race began all the same; a pairing then finds them racing
            log.warning("racers were not taken out of the queues", extra={"reason": repr(exc)})

    # ----- reading ---------------------------------------------------------------------

    async def info(self, race_id: str, viewer: str | None, legal: bool = False) -> RaceInfo:
        """The race as ``viewer`` may see it: their own board only, the seed only at the end."""
        race = await self.store.races.race(race_id)
        if race is None:
            raise race_not_found(race_id)
        meta, seats = race
        return await self.info_of(meta, seats, viewer, legal)

    async def info_of(
        self, meta: RaceMeta, seats: list[Seat], viewer: str | None, legal: bool = False
    ) -> RaceInfo:
        """:meth:`info` of a race already read from the store."""
        race_id = meta.race_id
        boards: dict[str, BoardRecord] = {}
        if meta.status.is_dealt:
            records = await self.store.boards.boards(race_id, [s.player_id for s in seats])
            boards = {b.player_id: b for b in records}
        board = None
        if viewer is not None and viewer in boards and meta.status.is_started:
            own = await self.store.boards.board(race_id, viewer)
            if own is not None:
                board = board_state(own, legal)
        ids = [s.player_id for s in seats]
        ratings = await self.store.ratings.ratings(meta.game, ids)
        accounts = await self.store.accounts.accounts_among(ids)
        now = self.time.now_ms()
        out = await seed_out(self.store, meta, now, self.settings.daily_time_limit)
        info = race_info(meta, seats, boards, board, now, ratings, accounts, seed_out=out)
        if meta.status is RaceStatus.OPEN:
            info = await self._with_the_away(info)
        if meta.status.is_dealt:
            (watching,) = await self.store.watching.spectators([race_id], now)
            info = info.model_copy(update={"spectators": watching})
        return info

    # ----- players who went away -------------------------------------------------------

    async def _with_the_away(self, info: RaceInfo) -> RaceInfo:
        """An open race's ``info`` with the racers who have no connection on a live node
        marked away."""
        ids = [r.player_id for r in info.racers]
        here = await self.store.nodes.connected_elsewhere(ids, await self.nodes.live_nodes())
        if all(p in here for p in ids):
            return info
        racers = [r if r.player_id in here else r.model_copy(update={"away": True}) for r in info.racers]
        return info.model_copy(update={"racers": racers})

    async def went_away(self, player_id: str, race_ids: list[str]) -> None:
        """The player's last connection on this node closed; it followed ``race_ids``.
        Kept in Redis, so any node frees their open races' seats once the grace is over;
        the others in those still open are told the player is away meanwhile."""
        if race_ids:
            since = self.time.now_ms()
            due = since + round(self.settings.lobby_grace * 1000)
            await self.store.players.went_away([player_id], since, due)
            await self.announce_open(race_ids, player_id)

    async def announce_open(self, race_ids: list[str], player_id: str) -> None:
        """Tell the others following those of ``race_ids`` still open who sits in them now:
        ``player_id`` went away or came back (their own sessions are not told)."""
        for meta in await self.store.races.metas(race_ids):
            if meta.status is RaceStatus.OPEN:
                await self.announce(meta.race_id, mover=player_id)

    async def _keep_freeing_seats(self) -> None:
        every = min(GONE_LOOK_EVERY, max(self.settings.lobby_grace / 3, 0.1))
        # A node just started frees no seat for a whole grace: players whose connections
        # dropped because no node was up (a restart, an upgrade longer than the grace)
        # get that grace to come back, counted from the start, as after a Redis outage.
        await asyncio.sleep(self.settings.lobby_grace)
        while True:
            await asyncio.sleep(every)
            try:
                await self.free_seats_of_the_gone()
            except Exception as exc:  # Redis away: looked at again next time
                log.warning("freeing gone players' seats failed", extra={"reason": repr(exc)})

    async def free_seats_of_the_gone(self) -> int:
        """Each player whose lobby grace ended, who has not said hello anywhere since and
        has no connection on a live node leaves their open races; how many seats were
        freed. Every player due is looked at, a batch at a time (a dead node's players
        are due all at once)."""
        freed = 0
        while True:
            due = await self.store.players.gone_due(self.time.now_ms(), GONE_BATCH)
            if due:
                freed += await self._free_seats(due)
            if len(due) < GONE_BATCH:
                return freed

    async def _free_seats(self, due: list[tuple[str, int]]) -> int:
        """Free the open seats of the gone players ``due``; each one looked at is dropped
        from the gone list, and the others, should this fail midway, are taken again later."""
        freed = 0
        seen: list[tuple[str, int]] = []
        try:
            live = await self.nodes.live_nodes()
            here = await self.store.nodes.connected_elsewhere([p for p, _ in due], live)
            for player_id, since in due:
                if player_id not in here and await self.store.players.last_hello(player_id) <= since:
                    freed += await self._leave_open_races(player_id)
                seen.append((player_id, since))  # else back, or never gone from another node
        finally:
            await self.store.players.gone_seen(seen)
        return freed

    async def _leave_open_races(self, player_id: str) -> int:
        """A gone player leaves every open race they sit in: how many."""
        freed = 0
        for meta in await self.active_races(player_id, (RaceStatus.OPEN,)):
            try:
                await self.leave(player_id, meta.race_id, tell_them=True)
            except ArenaError:
                continue  # left, started or cancelled meanwhile
            freed += 1
            log.info("gone player left an open race", extra={"race_id": meta.race_id, "player_id": player_id})
        return freed

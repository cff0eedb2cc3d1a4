"""Races: seats, readiness, the countdown, the end and its results.

Moves live in :mod:`server.moves`; both work through :class:`server.store.Store`.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable

from server.config import Settings
from server.errors import ArenaError, not_a_racer, race_not_found, script_error
from server.fanout import Fanout, envelope
from server.metrics import Metrics
from server.ranking import commitment, standings
from server.store import BoardRecord, RaceMeta, Seat, Store
from shared import new_game
from shared.protocol import (
    BoardState,
    ErrorCode,
    GameName,
    RaceCountdown,
    RaceEnded,
    RaceInfo,
    RacerInfo,
    RaceStarted,
    RaceSummary,
    RaceUpdate,
)

log = logging.getLogger("arena.races")

_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
_CODE_LENGTH = 6
_CARDS = 52
_STARTED = ("running", "ending", "finished")


def now_ms() -> int:
    """The server's clock, in milliseconds since the epoch: it decides."""
    return int(time.time() * 1000)


def new_code() -> str:
    return "".join(secrets.choice(_CODE_ALPHABET) for _ in range(_CODE_LENGTH))


def random_seed() -> int:
    return secrets.randbits(63)


class Races:
    def __init__(
        self,
        store: Store,
        fanout: Fanout,
        settings: Settings,
        metrics: Metrics,
        seed_source: Callable[[], int] = random_seed,
        on_end: Callable[[str], None] | None = None,
    ) -> None:
        self.store = store
        self.fanout = fanout
        self.settings = settings
        self.metrics = metrics
        self.seed_source = seed_source
        self.on_end = on_end

    # ----- setup -----------------------------------------------------------------------

    async def create(
        self,
        player_id: str,
        name: str,
        game: GameName,
        seats: int,
        time_limit: float,
        ready: bool = False,
    ) -> RaceMeta:
        now = now_ms()
        seed = self.seed_source()
        salt = secrets.token_hex(16)
        for _attempt in range(10):
            meta = RaceMeta(
                race_id=secrets.token_hex(6),
                code=new_code(),
                game=game,
                seats=seats,
                time_limit=time_limit,
                status="open",
                creator=player_id,
                seed=seed,
                salt=salt,
                commitment=commitment(game, seed, salt),
                created_at=now,
                starts_at=None,
                ends_at=None,
                ended_at=None,
            )
            if await self.store.create_race(meta, Seat(player_id, name, ready, now)):
                log.info("race created", extra={"race_id": meta.race_id, "player_id": player_id})
                return meta
        raise ArenaError(ErrorCode.INTERNAL_ERROR, "could not find a free race code")

    async def join(self, player_id: str, name: str, code: str, ready: bool = False) -> str:
        race_id = await self.store.race_for_code(code.strip().upper())
        if race_id is None:
            raise ArenaError(ErrorCode.RACE_NOT_FOUND, f"no race has the code {code[:12]!r}")
        result = await self.store.join(race_id, Seat(player_id, name, ready, now_ms()))
        if result not in ("ok", "already"):
            raise script_error(result)
        log.info("racer joined", extra={"race_id": race_id, "player_id": player_id})
        await self.announce(race_id)
        return race_id

    async def leave(self, player_id: str, race_id: str) -> None:
        result = await self.store.leave(race_id, player_id, self.settings.race_ttl)
        if result == "not_open":
            raise ArenaError(
                ErrorCode.RACE_NOT_OPEN, "the race has started: send 'finish' to give up instead"
            )
        if result not in ("ok", "cancelled"):
            raise script_error(result)
        log.info("racer left", extra={"race_id": race_id, "player_id": player_id})
        if result == "ok":
            await self.announce(race_id)

    async def ready(self, player_id: str, race_id: str, ready: bool) -> None:
        result = await self.store.set_ready(race_id, player_id, ready)
        if result == "all_ready":
            await self.begin_countdown(race_id)
        elif result == "ok":
            await self.announce(race_id)
        else:
            raise script_error(result)

    async def start(self, player_id: str, race_id: str) -> None:
        meta = await self.store.meta(race_id)
        if meta is None:
            raise race_not_found(race_id)
        if meta.creator != player_id:
            raise ArenaError(ErrorCode.NOT_CREATOR, "only the race's creator can start it")
        await self.begin_countdown(race_id)

    async def announce(self, race_id: str) -> None:
        info = await self.info(race_id, None)
        await self.store.publish_race(race_id, envelope(RaceUpdate(race=info)))

    async def begin_countdown(self, race_id: str) -> None:
        for _attempt in range(5):
            race = await self.store.race(race_id)
            if race is None:
                raise race_not_found(race_id)
            meta, seats = race
            if meta.status != "open":
                raise script_error("not_open")
            if len(seats) < 2:
                raise ArenaError(ErrorCode.NOT_ENOUGH_RACERS, "a race needs at least 2 racers")
            game = new_game(meta.game, meta.seed)
            starts_at = now_ms() + int(self.settings.countdown * 1000)
            ends_at = starts_at + int(meta.time_limit * 1000)
            event = RaceCountdown(
                race_id=race_id,
                starts_at=starts_at,
                ends_at=ends_at,
                commitment=meta.commitment,
                server_time=now_ms(),
            )
            result = await self.store.start(
                race_id,
                [s.player_id for s in seats],
                starts_at,
                ends_at,
                game.position(),
                game.score,
                envelope(event),
            )
            if result == "ok":
                self.metrics.races_started.inc()
                log.info("race countdown", extra={"race_id": race_id})
                return
            if result != "changed":
                raise script_error(result)
        raise ArenaError(ErrorCode.RACE_NOT_OPEN, "the seats kept changing: try again")

    # ----- the clock's side ------------------------------------------------------------

    async def go(self, meta: RaceMeta) -> None:
        assert meta.starts_at is not None and meta.ends_at is not None
        view = new_game(meta.game, meta.seed).view()
        event = RaceStarted(race_id=meta.race_id, starts_at=meta.starts_at, ends_at=meta.ends_at, view=view)
        if await self.store.go(meta.race_id, now_ms(), envelope(event), meta.ends_at):
            log.info("race started", extra={"race_id": meta.race_id})

    async def end(self, race_id: str) -> None:
        """End a race (time limit, or everyone finished): rank, store, reveal the seed."""
        # Due now: if this node dies before the results are stored, any clock finishes it.
        await self.store.set_deadline(race_id, now_ms())
        if not await self.store.begin_end(race_id, now_ms()):
            return
        race = await self.store.race(race_id)
        if race is None:
            return
        meta, seats = race
        player_ids = [s.player_id for s in seats]
        boards = await self.store.boards(race_id, player_ids)
        started_at = meta.starts_at or meta.created_at
        summary = RaceSummary(
            race_id=race_id,
            game=meta.game,  # type: ignore[arg-type]
            started_at=started_at,
            ended_at=meta.ended_at or now_ms(),
            seed=meta.seed,
            salt=meta.salt,
            commitment=meta.commitment,
            standings=standings(seats, boards, started_at),
        )
        done = await self.store.complete_end(
            race_id,
            meta.code,
            player_ids,
            summary.model_dump_json(),
            envelope(RaceEnded(race_id=race_id, summary=summary)),
            self.settings.race_ttl,
        )
        if done:
            self.metrics.races_finished.inc()
            log.info("race ended", extra={"race_id": race_id})
        if self.on_end is not None:
            self.on_end(race_id)

    # ----- reading ---------------------------------------------------------------------

    async def info(self, race_id: str, viewer: str | None) -> RaceInfo:
        """The race as ``viewer`` may see it: their own board only, the seed only at the end."""
        race = await self.store.race(race_id)
        if race is None:
            raise race_not_found(race_id)
        meta, seats = race
        boards: dict[str, BoardRecord] = {}
        if meta.status in _STARTED or meta.status == "countdown":
            records = await self.store.boards(race_id, [s.player_id for s in seats])
            boards = {b.player_id: b for b in records}
        board_state = None
        if viewer is not None and viewer in boards and meta.status in _STARTED:
            own = await self.store.board(race_id, viewer)
            if own is not None:
                board_state = board_view(meta.game, own)
        over = meta.status == "finished"
        return RaceInfo(
            race_id=meta.race_id,
            code=meta.code,
            game=meta.game,  # type: ignore[arg-type]
            seats=meta.seats,
            time_limit=meta.time_limit,
            status=meta.status,  # type: ignore[arg-type]
            creator=meta.creator,
            racers=[racer_info(s, boards.get(s.player_id)) for s in seats],
            server_time=now_ms(),
            starts_at=meta.starts_at,
            ends_at=meta.ends_at,
            commitment=meta.commitment if meta.status != "open" else None,
            board=board_state,
            seed=meta.seed if over else None,
            salt=meta.salt if over else None,
        )

    async def summary(self, race_id: str) -> RaceSummary:
        raw = await self.store.summary(race_id)
        if raw is None:
            meta = await self.store.meta(race_id)
            if meta is None:
                raise race_not_found(race_id)
            raise ArenaError(ErrorCode.RACE_NOT_OVER, "the race has no results until it ends")
        return RaceSummary.model_validate_json(raw)

    async def require_racer(self, race_id: str, player_id: str) -> RaceMeta:
        race = await self.store.race(race_id)
        if race is None:
            raise race_not_found(race_id)
        meta, seats = race
        if all(s.player_id != player_id for s in seats):
            raise not_a_racer(race_id)
        return meta


def board_view(game_name: str, record: BoardRecord) -> BoardState:
    from shared import from_position

    game = from_position(record.position)
    game.move_count = record.move_count
    return BoardState(seq=record.seq, view=game.view(), finished=record.finished)


def racer_info(seat: Seat, board: BoardRecord | None) -> RacerInfo:
    if board is None:
        return RacerInfo(player_id=seat.player_id, name=seat.name, ready=seat.ready)
    return RacerInfo(
        player_id=seat.player_id,
        name=seat.name,
        ready=seat.ready,
        score=board.score,
        cards_left=_CARDS - board.score,
        move_count=board.move_count,
        finished=board.finished,
        won=board.won,
    )

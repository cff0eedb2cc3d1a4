"""A race's end: ranking the racers, storing the results, revealing the seed; and reading
results and move logs afterwards."""

from __future__ import annotations

import asyncio
import logging

from server.archive import Archive
from server.background import Background
from server.config import Settings
from server.errors import ArenaError, race_not_found
from server.features.archived_races import ArchivedRace, logged_moves, read_archived
from server.features.context import Caller, Reply
from server.features.daily_close import closes_at, is_closed, words
from server.features.daily_rules import attempt_kind, board_score
from server.features.events import EventKind, pack_event
from server.features.race_records import race_record
from server.features.race_rules import standings
from server.features.ratings import new_ratings, racer_records, with_ratings
from server.metrics import Metrics
from server.store import PlayerRating, RaceMeta, RaceStatus, Store
from server.timesource import TimeSource
from shared import new_game
from shared.protocol import (
    BoardView,
    ErrorCode,
    GetMoveLog,
    GetRecord,
    GetReplay,
    GetResults,
    LoggedMove,
    MoveLog,
    RaceCancelled,
    RaceEnded,
    RaceSummary,
    RecordText,
    Replay,
    Results,
    Standing,
)
from shared.record import RecordSyntaxError, read_record, write_record

log = logging.getLogger("arena.results")

#: Races archived at a time by a sweep, and how long a race not archivable yet waits.
ARCHIVE_BATCH = 100
ARCHIVE_RETRY_MS = 60_000

#: Times an end computes ratings again when a racer's rating changed meanwhile.
_STALE_RETRIES = 5

#: What racers of a race voided by downtime are told.
MISSED = "the server was down for the whole time of this race: it is void and has no results"


def missed_race(race_id: str) -> RaceCancelled:
    """The event of a race voided because its whole window passed unplayed."""
    return RaceCancelled(race_id=race_id, reason="missed", message=MISSED)


def _seed_waits(when: str) -> ArenaError:
    """The refusal of a daily attempt's record before its day closes (``when``: in words)."""
    return ArenaError(ErrorCode.NOT_YET, f"a daily attempt's record waits for its seed, revealed {when}")


def daily_entry(meta: RaceMeta, lines: list[Standing]) -> tuple[str, str, int, bool] | None:
    """(day, player, board score, gave up) of a scored daily attempt's end, or None."""
    if not meta.daily or not meta.daily_scored or not lines:
        return None
    line = lines[0]
    return (
        meta.daily,
        line.player_id,
        board_score(line.won, line.time_ms, line.score, line.score_reached_ms or 0),
        line.gave_up,
    )


class RaceResults:
    def __init__(self, store: Store, settings: Settings, time: TimeSource, metrics: Metrics) -> None:
        self.store = store
        self.settings = settings
        self.time = time
        self.metrics = metrics
        self.background = Background()
        self.archive = Archive(settings.archive_dir, metrics) if settings.archive_dir else None

    async def stop(self) -> None:
        await self.background.stop()

    # ----- handlers --------------------------------------------------------------------

    async def get_results(self, caller: Caller, message: GetResults) -> Reply:
        try:
            summary = await self.summary(message.race_id, caller.player.player_id)
        except ArenaError as exc:
            summary = (await self._archived(message.race_id, exc)).summary
        return Reply(Results(id=message.id, summary=summary))

    async def get_move_log(self, caller: Caller, message: GetMoveLog) -> Reply:
        summary, moves = await self._finished(message.race_id, caller.player.player_id)
        return Reply(
            MoveLog(
                id=message.id,
                race_id=message.race_id,
                game=summary.game,
                seed=summary.seed,
                salt=summary.salt,
                commitment=summary.commitment,
                moves=moves,
            )
        )

    async def get_replay(self, caller: Caller, message: GetReplay) -> Reply:
        """A racer's views move by move, from the revealed seed and the move log."""
        summary, log = await self._finished(message.race_id, caller.player.player_id)
        if all(s.player_id != message.player_id for s in summary.standings):
            raise ArenaError(
                ErrorCode.NOT_A_RACER,
                f"player {message.player_id!r} did not race in race {message.race_id!r}",
            )
        logged = [m for m in log if m.player_id == message.player_id]
        moves = [m.move for m in logged]
        first, last = message.offset, min(len(moves) + 1, message.offset + message.limit)
        game = new_game(summary.game, await self._deal_seed(message.race_id, summary))
        views: list[BoardView] = []
        for step in range(last):
            if step > 0:
                game.play(moves[step - 1])
            if step >= first:
                views.append(BoardView.model_validate(game.view()))
        return Reply(
            Replay(
                id=message.id,
                race_id=message.race_id,
                player_id=message.player_id,
                game=summary.game,
                total=len(moves) + 1,
                offset=first,
                views=views,
                moves=[moves[step - 1] if step else "" for step in range(first, max(first, last))],
                times=[
                    logged[step - 1].at - summary.started_at if step else 0
                    for step in range(first, max(first, last))
                ],
            )
        )

    async def _finished(self, race_id: str, viewer: str) -> tuple[RaceSummary, list[LoggedMove]]:
        """A race that is over, as ``viewer`` may read it: its results and its move log;
        from the archive once Redis no longer has the race."""
        try:
            summary = await self.summary(race_id, viewer)  # once it is over
        except ArenaError as exc:
            archived = await self._archived(race_id, exc)
            return archived.summary, logged_moves(archived.record)
        log = await self.store.boards.move_log(race_id)
        return summary, [LoggedMove(player_id=m.player_id, seq=m.seq, move=m.move, at=m.at) for m in log]

    async def _deal_seed(self, race_id: str, summary: RaceSummary) -> int:
        """The seed of the deal ``summary``'s racers were dealt: its own, once revealed
        (always, for an archived race), else the race's (one's own daily attempt before its
        day closes, whose boards its player may replay)."""
        if summary.seed is not None:
            return summary.seed
        meta = await self.store.races.meta(race_id)
        if meta is None:
            raise race_not_found(race_id)
        return meta.seed

    async def _archived(self, race_id: str, missing: ArenaError) -> ArchivedRace:
        """The race Redis let go (``missing``, its ``race_not_found``) from the archive;
        ``missing`` raised again when the archive has not got it (or there is none)."""
        if missing.code is not ErrorCode.RACE_NOT_FOUND or self.archive is None:
            raise missing
        archived = await read_archived(self.archive, race_id)
        if archived is None:
            raise missing
        return archived

    async def get_record(self, caller: Caller, message: GetRecord) -> Reply:
        """The race's record (docs/record.md): once it is over and its seed revealed; from
        the archive once Redis no longer has the race."""
        text = await self.record_text(message.race_id, caller.player.player_id)
        return Reply(RecordText(id=message.id, race_id=message.race_id, text=text))

    async def record_text(self, race_id: str, viewer: str | None = None) -> str:
        """The text of a race's record as ``viewer`` may have it (None: the server's own
        look), from Redis, or from the archive once the race's keys expired."""
        try:
            return await self._stored_record(race_id, viewer)
        except ArenaError as exc:
            if exc.code is not ErrorCode.RACE_NOT_FOUND or self.archive is None:
                raise
            text = await self.archive.read(race_id)
            if text is None:
                raise
        try:
            daily = (await asyncio.to_thread(read_record, text)).daily
        except RecordSyntaxError as error:
            log.warning("an archived record does not read", extra={"race_id": race_id, "reason": str(error)})
            raise race_not_found(race_id) from None
        limit = self.settings.daily_time_limit
        if daily is not None and not await is_closed(self.store, daily, self.time.now_ms(), limit):
            # Archived before the day closed only by a node whose clock was ahead.
            raise _seed_waits(await words(self.store, daily, limit))
        return text

    async def _stored_record(self, race_id: str, viewer: str | None) -> str:
        summary = await self.summary(race_id, viewer)
        race = await self.store.races.race(race_id)
        if race is None:
            raise race_not_found(race_id)
        meta, seats = race
        if summary.seed is None:
            raise _seed_waits(await words(self.store, meta.daily, self.settings.daily_time_limit))
        record = race_record(meta, seats, summary, await self.store.boards.move_log(race_id))
        return write_record(record)

    async def archive_race(self, race_id: str) -> bool:
        """Keep a finished race's record in the archive (once), when there is one: whether
        the race is settled (archived now or before, or without a record to keep: gone,
        cancelled), and so off the queue of races due (``archive:due``). A daily attempt's
        record waits for its day's close (its seed); a failed write is tried again."""
        if self.archive is None:
            return True
        settled = await self.archive.has(race_id)
        if not settled:
            try:
                text = await self.record_text(race_id)  # once the seed is out
                results = (await self.summary(race_id)).model_dump_json(exclude_none=True)
                settled = await self.archive.write(race_id, text, results)
            except ArenaError as exc:
                # Not over or not out yet (a daily attempt before its day's close): later.
                settled = exc.code in (ErrorCode.RACE_NOT_FOUND, ErrorCode.RACE_CANCELLED)
        if settled:
            await self.store.archive_due.drop(race_id)
        return settled

    async def archive_due(self, limit: int = ARCHIVE_BATCH) -> int:
        """Archive the races due by now (the queue a node's end adds each race to); those
        not settled are due again in :data:`ARCHIVE_RETRY_MS`. How many were settled."""
        now = self.time.now_ms()
        settled = 0
        for race_id, _due in await self.store.archive_due.due_at(now, limit):
            if await self.archive_race(race_id):
                settled += 1
            else:
                await self.store.archive_due.set(race_id, now + ARCHIVE_RETRY_MS)
        return settled

    def archive_soon(self, race_id: str) -> None:
        """Archive a race's record in the background: a slow or failing disk never holds
        up the race's end."""
        if self.archive is not None:
            self.background.spawn(self._archive_now(race_id), f"archiving race {race_id}")

    async def _archive_now(self, race_id: str) -> None:
        await self.archive_race(race_id)  # not settled: the race stays due, for the sweep

    # ----- the end ---------------------------------------------------------------------

    def end_soon(self, race_id: str) -> None:
        """End a race now, in the background (everyone finished)."""
        self.background.spawn(self.end(race_id), f"ending race {race_id}")

    async def end(self, race_id: str) -> None:
        """End a race (time limit, or everyone finished): rank, store, reveal the seed."""
        races = self.store.races
        # Due now: if this node dies before the results are stored, any clock finishes it.
        await self.store.deadlines.set(race_id, self.time.now_ms())
        if not await races.begin_end(race_id, self.time.now_ms()):
            return
        race = await races.race(race_id)
        if race is None:
            return
        meta, seats = race
        player_ids = [s.player_id for s in seats]
        boards = await self.store.boards.boards(race_id, player_ids)
        started_at = meta.starts_at or meta.created_at
        ended_at = meta.ended_at or self.time.now_ms()
        ranked = standings(seats, boards, started_at)
        # A daily run's day closes (its seed out) then; read once for all that follows.
        reveals_at = await self._day_closes(meta.daily) if meta.daily else None
        if self.archive is not None:
            # Queued before the race is finished: a node that dies after the end, or a
            # disk that fails the write, leaves it to the sweep (ArchiveSweep).
            await self.store.archive_due.set(race_id, self._archive_at(reveals_at))
        for _attempt in range(_STALE_RETRIES):
            stored = await self.store.ratings.ratings(meta.game, player_ids) if meta.rated else {}
            after, lines = self._rated(meta, ranked, stored, ended_at) if meta.rated else ({}, ranked)
            # Always, but a daily run's only once its day is closed (an end that late: a
            # node that was down past the close).
            out = reveals_at is None or self.time.now_ms() >= reveals_at
            summary = RaceSummary(
                race_id=race_id,
                game=meta.game,
                started_at=started_at,
                ended_at=ended_at,
                seed=meta.seed if out else None,
                salt=meta.salt if out else None,
                commitment=meta.commitment,
                reveals_at=reveals_at,
                rated=meta.rated,
                standings=lines,
                daily=meta.daily or None,
                attempt=attempt_kind(meta.daily, meta.daily_scored, meta.practice),
            )
            racers = racer_records(
                meta, lines, stored, after, set(player_ids) if meta.rated else set(), ended_at
            )
            answer = await races.complete_end(
                meta,
                player_ids,
                summary.model_dump_json(),
                pack_event(EventKind.RACE_ENDED, RaceEnded(race_id=race_id, summary=summary)),
                self._kept_for(reveals_at),
                racers,
                self.time.now_ms(),
                daily_entry(meta, lines),
            )
            if answer == 1:
                self.metrics.races_finished.inc()
                log.info("race ended", extra={"race_id": race_id, "rated": meta.rated})
                self.archive_soon(race_id)
            if answer >= 0:
                return
        log.error("a racer's rating kept changing while the race ended", extra={"race_id": race_id})

    def _rated(
        self, meta: RaceMeta, ranked: list[Standing], stored: dict[str, PlayerRating | None], ended_at: int
    ) -> tuple[dict[str, PlayerRating], list[Standing]]:
        """The racers' new ratings and the standings that show them. The arithmetic on the
        stored ratings fails the same way on every attempt (as a division by zero once
        did), and the race would stay 'ending' for good, retried on every clock tick:
        should it fail, the race ends with every rating as it was."""
        try:
            after = new_ratings(ranked, stored, ended_at)
            return after, with_ratings(ranked, stored, after, ended_at)
        except Exception:
            log.exception(
                "the ratings could not be computed: the race ends without changing them",
                extra={"race_id": meta.race_id},
            )
            return {}, ranked

    def _archive_at(self, reveals_at: int | None) -> int:
        """When the sweep looks at a race's record, unless its end archived it already:
        a daily attempt's once its day is closed (``reveals_at``: its seed is out),
        another's a little after its end."""
        if reveals_at is not None:
            return reveals_at
        return self.time.now_ms() + ARCHIVE_RETRY_MS

    def _kept_for(self, reveals_at: int | None) -> int:
        """Seconds an ended race's keys stay in Redis: ``SA_RACE_TTL``, but with an archive
        a daily attempt's stay until its day is closed (``reveals_at``: its record is
        archived then), and ``SA_RACE_TTL`` more."""
        ttl = self.settings.race_ttl
        if self.archive is None or reveals_at is None or ttl <= 0:
            return ttl
        return ttl + max(0, -(-(reveals_at - self.time.now_ms()) // 1000))

    async def _day_closes(self, daily: str) -> int:
        """When the day of a daily attempt (``YYYY-MM-DD``) is closed, its seed out."""
        return await closes_at(self.store, daily, self.settings.daily_time_limit)

    async def void(self, meta: RaceMeta, now: int) -> None:
        """Cancel a race whose whole window passed before it could start: nobody could
        play it, so it has no results and nobody's record counts it."""
        seats = await self.store.races.seats(meta.race_id)
        event = missed_race(meta.race_id)
        voided = await self.store.races.void(
            meta.race_id,
            meta.code,
            [s.player_id for s in seats],
            now,
            "missed",
            pack_event(EventKind.RACE_ENDED, event),
            self.settings.race_ttl,
        )
        if voided:
            log.warning("race void: its window passed before it could start", extra={"race_id": meta.race_id})

    async def told(self, race_id: str, player_ids: list[str]) -> None:
        """These racers were sent the race's end (or cancellation): it is no longer
        one to tell them about when they come back."""
        await self.store.players.forget_active_race(player_ids, race_id)

    async def told_player(self, player_id: str, race_ids: list[str]) -> None:
        """The player is being sent the end of each of ``race_ids``."""
        await self.store.players.forget_active(player_id, race_ids)

    async def news(self, metas: list[RaceMeta]) -> list[RaceEnded | RaceCancelled]:
        """What a returning racer missed of ``metas`` (races that are over): each one's
        results, or why it was cancelled."""
        missed: list[RaceEnded | RaceCancelled] = []
        for meta in metas:
            if meta.status is RaceStatus.FINISHED:
                raw = await self.store.races.summary(meta.race_id)
                if raw is not None:
                    summary = RaceSummary.model_validate_json(raw)
                    missed.append(RaceEnded(race_id=meta.race_id, summary=summary))
            elif meta.status is RaceStatus.CANCELLED and meta.cancel_reason == "missed":
                missed.append(missed_race(meta.race_id))
        return missed

    async def summary(self, race_id: str, viewer: str | None = None) -> RaceSummary:
        """A race's results. A daily attempt's are its own player's (``viewer``) until its
        day is closed, then everyone's, with its seed: nobody reads another's attempt of a
        deal that can still be played, whatever their own attempt (a second identity would
        read it for the first)."""
        raw = await self.store.races.summary(race_id)
        if raw is None:
            meta = await self.store.races.meta(race_id)
            if meta is None:
                raise race_not_found(race_id)
            if meta.status is RaceStatus.CANCELLED:
                raise ArenaError(ErrorCode.RACE_CANCELLED, "the race was cancelled: it has no results")
            raise ArenaError(ErrorCode.RACE_NOT_OVER, "the race has no results until it ends")
        summary = RaceSummary.model_validate_json(raw)
        if summary.seed is not None and (summary.reveals_at is None or summary.attempt is not None):
            return summary
        meta = await self.store.races.meta(race_id)
        if meta is None or not meta.daily:
            return summary
        reveals_at = await self._day_closes(meta.daily)
        # (A daily run's summary stored before ``daily`` and ``attempt`` gets them here.)
        attempt = attempt_kind(meta.daily, meta.daily_scored, meta.practice)
        what = {"reveals_at": reveals_at, "daily": meta.daily, "attempt": attempt}
        summary = summary.model_copy(update=what)
        if summary.seed is not None:
            return summary
        if self.time.now_ms() >= reveals_at:
            return summary.model_copy(update={"seed": meta.seed, "salt": meta.salt})
        if viewer is not None and all(s.player_id != viewer for s in summary.standings):
            raise ArenaError(
                ErrorCode.NOT_YET,
                f"that is someone's attempt at the daily {meta.game} deal of {meta.daily}: it opens "
                f"{await words(self.store, meta.daily, self.settings.daily_time_limit)}, to everyone at once",
            )
        return summary

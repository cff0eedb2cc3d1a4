"""Daily challenges: each UTC day's deal per game (prepared ahead, proven winnable by the
solver), one scored attempt per account per game per day (a race of one: the race path
takes its moves, its clock ends it), practice afterwards, the day's boards (their race
ids, so the attempts' moves, each player's own until the day is closed), and ghosts.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import secrets
from typing import Final

from server.background import cancel_and_wait
from server.config import Settings
from server.errors import ArenaError, answer_error, not_a_racer, race_not_found
from server.features.context import Caller, Reply
from server.features.daily_close import closes_at
from server.features.daily_rules import (
    DAY_MS,
    GhostPoint,
    board_result,
    day_countable,
    day_of,
    day_start,
    ghost_timeline,
    iso_week,
    points,
    prove_day,
)
from server.features.events import EventKind, pack_event
from server.features.lobby import Lobby
from server.features.one_race import racing
from server.features.racing import Racing
from server.features.timed_cache import TimedCache
from server.store import Answer, RaceStatus, Store
from server.store.records import DailyDeal
from server.timesource import TimeSource
from server.worker import Worker
from shared.fairness import commitment
from shared.games import GAMES
from shared.protocol import (
    Dailies,
    DailyAttempt,
    DailyBoard,
    DailyEntry,
    DailyGhosts,
    DailyInfo,
    DailyStandings,
    DailyStarted,
    ErrorCode,
    GameName,
    GetDailies,
    GetDailyBoard,
    GetDailyStandings,
    Ghost,
    GhostInfo,
    Ghosts,
    StartDaily,
    Streak,
    TableEntry,
    TournamentEntry,
)
from shared.ranking import tie_ranks

log = logging.getLogger("arena.daily")

#: Positions the solver may expand per candidate, and candidates tried per day and game.
SOLVER_BUDGET: Final = 200_000
CANDIDATES: Final = 40
#: How many of the day's best attempts race as ghosts, and how often their progress is sent.
GHOSTS: Final = 3
GHOST_TICK: Final = 0.05
#: Rows of each tournament table.
TABLE_TOP: Final = 20
STANDING_CACHE_SECONDS: Final = 5.0
#: How long a page of a day's board is kept before Redis is read again.
PAGE_CACHE_SECONDS: Final = 2.0
#: How often a node checks that today's and tomorrow's deals are prepared.
PREPARE_EVERY: Final = 60.0
#: How many days back a node looks for days no node counted (all nodes down that long).
CATCH_UP_DAYS: Final = 31


def _misses(
    player_id: str, index: int, rows: list[tuple[str, float]], total: int, offset: int, limit: int
) -> bool:
    """Whether a board page (``rows`` from place ``offset``, of ``total``) leaves out the
    player who is at place ``index`` of the board: it is older than their attempt's end.

    >>> _misses("p_a", 1, [("p_b", 5.0)], 1, 0, 1), _misses("p_a", 1, [("p_b", 5.0)], 2, 0, 1)
    (True, False)
    >>> _misses("p_a", 0, [("p_b", 5.0)], 2, 0, 1), _misses("p_a", 0, [("p_a", 5.0)], 2, 0, 1)
    (True, False)
    """
    if index >= total:
        return True
    return offset <= index < offset + limit and all(row[0] != player_id for row in rows)


class Daily:
    def __init__(
        self,
        store: Store,
        lobby: Lobby,
        racing: Racing,
        settings: Settings,
        time: TimeSource,
    ) -> None:
        self.store = store
        self.lobby = lobby
        self.racing = racing
        self.settings = settings
        self.time = time
        self.worker = Worker("daily deals")
        self.budget = SOLVER_BUDGET
        self.tries = CANDIDATES
        self._task: asyncio.Task[None] | None = None
        self._preparing: dict[str, asyncio.Task[None]] = {}
        #: The ghosts racing each (player, attempt) on this node.
        self._ghosts: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._standing: TimedCache[str, tuple[dict[str, int], dict[str, dict[str, int]]]] = TimedCache(
            STANDING_CACHE_SECONDS, most=8
        )
        self._pages: TimedCache[
            tuple[str, str, int, int, bool], tuple[int, list[tuple[str, float]], list[DailyEntry]]
        ] = TimedCache(PAGE_CACHE_SECONDS)

    def start(self) -> None:
        self._task = asyncio.create_task(self._keep_prepared(), name="daily-deals")

    async def stop(self) -> None:
        tasks = [*self._preparing.values(), *self._ghosts.values()]
        await cancel_and_wait([self._task, *tasks] if self._task is not None else tasks)
        self.worker.stop()

    # ----- the day's deals --------------------------------------------------------------

    async def secret(self) -> bytes:
        if self.settings.daily_secret:
            return self.settings.daily_secret.encode()
        return await self.store.dailies.secret()

    def prepare_soon(self, day: dt.date) -> asyncio.Task[None]:
        """Prepare ``day``'s deals in the background (once at a time per day)."""
        key = day.isoformat()
        task = self._preparing.get(key)
        if task is None or task.done():
            task = asyncio.create_task(self.prepare(day), name=f"daily-{key}")
            self._preparing[key] = task
        return task

    async def prepare(self, day: dt.date) -> None:
        """Find and keep ``day``'s deal of every game that has none yet."""
        date = day.isoformat()
        for game in GAMES:
            if await self.store.dailies.deal(date, game) is not None:
                continue
            started = self.time.now_ms()
            candidate, seed, length = await self.worker.run(
                prove_day, await self.secret(), game, date, self.budget, self.tries
            )
            salt = secrets.token_hex(16)
            deal = DailyDeal(
                seed, candidate, salt, commitment(game, seed, salt), length is not None, length or 0
            )
            if await self.store.dailies.put_deal(date, game, deal):
                log.info(
                    "daily deal prepared",
                    extra={"day": date, "game": game, "candidate": candidate, "proven": deal.proven,
                           "ms": self.time.now_ms() - started},
                )  # fmt: skip

    async def _keep_prepared(self) -> None:
        while True:
            today = day_of(self.time.now_ms())
            try:
                await self.prepare_soon(today)
                await self.prepare_soon(today + dt.timedelta(days=1))
                await self.close_due()
            except Exception as exc:
                log.warning("preparing the daily deals failed", extra={"reason": repr(exc)})
            await asyncio.sleep(PREPARE_EVERY)

    async def _deal(self, day: dt.date, game: str) -> DailyDeal:
        deal = await self.store.dailies.deal(day.isoformat(), game)
        if deal is None:
            if day < day_of(self.time.now_ms()):
                raise ArenaError(ErrorCode.NO_DAILY, f"there was no {game} daily on {day}")
            self.prepare_soon(day)
            raise ArenaError(
                ErrorCode.DAILY_NOT_READY, f"the {game} daily of {day} is being prepared: try again shortly"
            )
        return deal

    def _day(self, text: str | None) -> dt.date:
        today = day_of(self.time.now_ms())
        if text is None:
            return today
        try:
            day = dt.date.fromisoformat(text)
        except ValueError:
            raise ArenaError(ErrorCode.INVALID_MESSAGE, f"{text!r} is not a date (YYYY-MM-DD)") from None
        if day > today:
            raise ArenaError(ErrorCode.NOT_YET, f"{day} has not begun (UTC)")
        return day

    # ----- handlers --------------------------------------------------------------------

    async def get_dailies(self, caller: Caller, message: GetDailies) -> Reply:
        day = self._day(message.date)
        now, date = self.time.now_ms(), day.isoformat()
        reveals_at = await closes_at(self.store, date, self.settings.daily_time_limit)
        out = now >= reveals_at
        deals: list[DailyInfo] = []
        for game in GAMES:
            try:
                deal = await self._deal(day, game)
            except ArenaError as exc:
                if deals or exc.code is not ErrorCode.NO_DAILY:
                    raise
                # The days are dealt whole: a past day without its first deal had none.
                raise ArenaError(ErrorCode.NO_DAILY, f"there were no daily challenges on {date}") from None
            attempt = await self.store.dailies.attempt(date, game, caller.player.player_id)
            deals.append(
                DailyInfo(
                    game=game,
                    commitment=deal.commitment,
                    proven=deal.proven,
                    seed=deal.seed if out else None,
                    salt=deal.salt if out else None,
                    attempt=DailyAttempt(race_id=attempt[0], scored=attempt[1]) if attempt else None,
                )
            )
        opens = day_start(day)
        return Reply(
            Dailies(
                id=message.id,
                date=date,
                opens_at=opens,
                closes_at=opens + DAY_MS,
                reveals_at=reveals_at,
                server_time=now,
                deals=deals,
            )
        )

    async def start_daily(self, caller: Caller, message: StartDaily) -> Reply:
        player, game = caller.player, message.game
        day = day_of(self.time.now_ms())
        date = day.isoformat()
        deal = await self._deal(day, game)
        attempt = await self.store.dailies.attempt(date, game, player.player_id)
        if message.practice:
            if attempt is None:
                raise ArenaError(
                    ErrorCode.DAILY_NOT_ATTEMPTED, f"play today's {game} attempt first, then practise it"
                )
            if not await self._over_for(attempt[0], player.player_id):
                raise ArenaError(
                    ErrorCode.DAILY_NOT_ATTEMPTED,
                    f"your {game} attempt of today (race {attempt[0]}) is still on: finish it first, "
                    "then practise it",
                )
        elif attempt is not None:
            return await self._resume(caller, message, date, attempt[0], attempt[1])
        await self._refuse_racing_elsewhere(player.player_id, game)
        scored = player.account and not message.practice
        meta = await self.lobby.create(
            player,
            game,
            1,
            self.settings.daily_time_limit,
            ready=True,
            hints=not scored,
            seed=deal.seed,
            salt=deal.salt,  # the race's commitment is the one published for the day
            daily=date,
            daily_scored=scored,
            practice=message.practice,
        )
        if not message.practice and not await self.store.dailies.claim_attempt(
            date, game, player.player_id, meta.race_id, scored
        ):
            # Another request claimed the day's attempt meanwhile: that one is the attempt.
            await self.lobby.leave(player.player_id, meta.race_id)
            claimed = await self.store.dailies.attempt(date, game, player.player_id)
            if claimed is None:
                raise ArenaError(ErrorCode.DAILY_ATTEMPTED, f"you have had today's {game} attempt")
            return await self._resume(caller, message, date, claimed[0], claimed[1])
        await self._run(meta.race_id)
        log.info("daily attempt", extra={"player_id": player.player_id, "game": game, "scored": scored})
        info = await self.lobby.info(meta.race_id, player.player_id, player.legal_moves)
        reply = DailyStarted(id=message.id, date=date, scored=scored, race=info)
        return Reply(reply, follow=(meta.race_id,))

    async def _over_for(self, race_id: str, player_id: str) -> bool:
        """Whether the player's attempt of the day is over (practice waits for it): its
        race ended, or their board is finished while the race of one is still being closed."""
        meta = await self.store.races.meta(race_id)
        if meta is None or meta.status is RaceStatus.OPEN:
            return False
        return meta.status.is_over or not await racing(self.store, meta, player_id)

    async def _run(self, race_id: str) -> None:
        """Start an attempt's race of one at once (from open or from its countdown)."""
        meta = await self.store.races.meta(race_id)
        if meta is not None and meta.status is RaceStatus.OPEN:
            try:
                await self.lobby.begin_countdown(race_id, solo=True)
            except ArenaError as exc:
                if exc.code is not ErrorCode.RACE_NOT_OPEN:
                    raise  # else another request started it meanwhile
            meta = await self.store.races.meta(race_id)
        # Started here, not by the clock: the reply then carries the running board, and no
        # race_started can pass before this connection follows the race.
        if meta is not None and meta.status is RaceStatus.COUNTDOWN:
            await self.racing.go(meta)

    async def _resume(
        self, caller: Caller, message: StartDaily, date: str, race_id: str, scored: bool
    ) -> Reply:
        """``start_daily`` for a day's attempt already claimed: the same ``daily_started``
        while it is still on for the player (a client that went away comes back to it,
        its clock running from its start), ``daily_attempted`` once it is over."""
        player, game = caller.player, message.game
        meta = await self.store.races.meta(race_id)
        on = meta is not None and meta.status in (RaceStatus.OPEN, RaceStatus.COUNTDOWN, RaceStatus.RUNNING)
        if on:
            board = await self.store.boards.board(race_id, player.player_id)
            on = board is None or not board.finished
        if not on:
            raise ArenaError(
                ErrorCode.DAILY_ATTEMPTED,
                f"your {game} attempt of today is over: practise the deal (unscored) or come back tomorrow",
            )
        if meta is not None and meta.status is RaceStatus.OPEN:
            # Claimed but never started (the start was refused): it starts now.
            await self._refuse_racing_elsewhere(player.player_id, game, race_id)
        await self._run(race_id)
        who = {"player_id": player.player_id, "game": game, "race_id": race_id}
        log.info("daily attempt resumed", extra=who)
        info = await self.lobby.info(race_id, player.player_id, player.legal_moves)
        reply = DailyStarted(id=message.id, date=date, scored=scored, race=info, resumed=True)
        return Reply(reply, follow=(race_id,))

    async def _refuse_racing_elsewhere(self, player_id: str, game: GameName, race_id: str = "") -> None:
        """An attempt starts at once: not while the player races another race (its race
        would stay open, the day's attempt claimed and never started)."""
        busy = await self.lobby.racing_in(player_id, but=race_id)
        if busy is not None:
            raise ArenaError(
                ErrorCode.ALREADY_RACING,
                f"you are racing in race {busy.race_id}: finish it before today's {game} daily",
            )

    async def get_daily_board(self, caller: Caller, message: GetDailyBoard) -> Reply:
        day = self._day(message.date)
        date, game, viewer = day.isoformat(), message.game, caller.player.player_id
        # Everyone's race ids once the day is closed; before, only the reader's own (the
        # moves of a deal still being played are nobody else's to read).
        reveals_at = await closes_at(self.store, date, self.settings.daily_time_limit)
        looking = self.time.now_ms() >= reveals_at
        mine = await self.store.dailies.board_place(date, game, viewer)
        total, rows, entries = await self._page(date, game, message.offset, message.limit, looking)
        if total == 0:
            await self._deal(day, game)  # a day that had no deal of this game is said so, not shown empty
        if mine is not None and _misses(viewer, mine[1], rows, total, message.offset, message.limit):
            # A page kept from before the reader's own attempt ended: they would not find
            # themselves on it (or be placed beyond its count), so it is read again.
            self._pages.drop((date, game, message.offset, message.limit, looking))
            total, rows, entries = await self._page(date, game, message.offset, message.limit, looking)
        me = None
        if mine is not None:
            (me,) = await self._entries(date, game, [(viewer, mine[0])], looking)
            if not looking:  # their own attempt's race id, on their own line too
                own = await self.store.dailies.attempt(date, game, viewer)
                mark = {"race_id": own[0] if own else None}
                me = me.model_copy(update=mark)
                entries = [e.model_copy(update=mark) if e.player_id == viewer else e for e in entries]
        more = message.offset + len(rows) < total
        board = DailyBoard(
            id=message.id,
            date=date,
            game=game,
            total=total,
            entries=entries,
            me=me,
            next_offset=message.offset + message.limit if more else None,
            reveals_at=reveals_at,
        )
        return Reply(board)

    async def _page(
        self, date: str, game: GameName, offset: int, limit: int, looking: bool
    ) -> tuple[int, list[tuple[str, float]], list[DailyEntry]]:
        """A page of a board, kept :data:`PAGE_CACHE_SECONDS` (one copy with race ids, once
        the day is closed, and one without)."""
        key = (date, game, offset, limit, looking)
        cached = self._pages.get(key)
        if cached is not None:
            return cached
        rows = await self.store.dailies.board(date, game, offset, limit)
        total = await self.store.dailies.board_size(date, game)
        entries = await self._entries(date, game, rows, looking, offset)
        self._pages.put(key, (total, rows, entries))
        return total, rows, entries

    async def _entries(
        self, date: str, game: GameName, rows: list[tuple[str, float]], looking: bool, offset: int = 0
    ) -> list[DailyEntry]:
        """Board rows (``rows[0]`` at place ``offset``) as entries. Only the first row's rank
        needs Redis (equal results may reach back into the page before); after it, a new
        result's rank is its place."""
        if not rows:
            return []
        players = [p for p, _ in rows]
        names = await self.store.players.profiles(players)
        races = await self.store.dailies.attempt_races(date, game, players) if looking else {}
        gave_up = await self.store.dailies.gave_up(date, game, players)
        entries: list[DailyEntry] = []
        rank, previous = await self.store.dailies.rank_of(date, game, rows[0][1]), rows[0][1]
        for index, (player_id, value) in enumerate(rows):
            if value != previous:
                rank, previous = offset + index + 1, value
            won, time_ms, score = board_result(value)
            name, bot = names.get(player_id, ("?", False))
            entries.append(
                DailyEntry(
                    rank=rank,
                    player_id=player_id,
                    name=name,
                    bot=bot,
                    won=won,
                    score=score,
                    time_ms=time_ms,
                    race_id=races.get(player_id),
                    gave_up=player_id in gave_up,
                )
            )
        return entries

    # ----- ghosts ------------------------------------------------------------------------

    async def daily_ghosts(self, caller: Caller, message: DailyGhosts) -> Reply:
        player_id, race_id = caller.player.player_id, message.race_id
        meta = await self.store.races.meta(race_id)
        if meta is None:
            raise race_not_found(race_id)
        if meta.creator != player_id:
            raise not_a_racer(race_id)
        if not meta.daily or not meta.daily_scored:
            raise ArenaError(ErrorCode.INVALID_MESSAGE, "ghosts race a scored daily attempt, not this race")
        running = self._ghosts.pop((player_id, race_id), None)
        if running is not None:
            running.cancel()
        if not message.on:
            return Reply(Ghosts(id=message.id, race_id=race_id, ghosts=[]))
        if meta.status is not RaceStatus.RUNNING:
            raise answer_error(Answer.OVER)
        infos, timelines = await self._best(meta.daily, meta.game, player_id)
        task = asyncio.create_task(self._race_ghosts(player_id, race_id, timelines), name=f"ghosts-{race_id}")
        self._ghosts[(player_id, race_id)] = task
        task.add_done_callback(lambda _t: self._ghosts.pop((player_id, race_id), None))
        return Reply(Ghosts(id=message.id, race_id=race_id, ghosts=infos))

    async def _best(
        self, date: str, game: GameName, player_id: str
    ) -> tuple[list[GhostInfo], dict[str, list[GhostPoint]]]:
        """The day's best three finished attempts but the player's own, and their timelines."""
        rows = [r for r in await self.store.dailies.board(date, game, 0, GHOSTS + 1) if r[0] != player_id][
            :GHOSTS
        ]
        entries = await self._entries(date, game, rows, looking=True)
        infos, timelines = [], {}
        for entry in entries:
            if entry.race_id is None:
                continue
            ghost_meta = await self.store.races.meta(entry.race_id)
            if ghost_meta is None or not ghost_meta.status.is_over or ghost_meta.starts_at is None:
                continue  # only ever a finished attempt
            moves = [
                (m.move, m.at)
                for m in await self.store.boards.move_log(entry.race_id)
                if m.player_id == entry.player_id
            ]
            ended_at = ghost_meta.ended_at or ghost_meta.starts_at
            timelines[entry.player_id] = ghost_timeline(
                game, ghost_meta.seed, moves, ghost_meta.starts_at, ended_at
            )
            infos.append(
                GhostInfo(
                    player_id=entry.player_id,
                    name=entry.name,
                    rank=entry.rank,
                    won=entry.won,
                    time_ms=entry.time_ms,
                    gave_up=entry.gave_up,
                )
            )
        return infos, timelines

    async def _race_ghosts(
        self, player_id: str, race_id: str, timelines: dict[str, list[GhostPoint]]
    ) -> None:
        """Send each ghost's progress when this attempt's clock reaches the elapsed time it
        had then; stop when every ghost is done or the attempt is over."""
        meta = await self.store.races.meta(race_id)
        if meta is None or meta.starts_at is None:
            return
        started_at, sent = meta.starts_at, dict.fromkeys(timelines, 0)
        checked = self.time.now_ms()
        while any(sent[g] < len(timeline) for g, timeline in timelines.items()):
            now = self.time.now_ms()
            elapsed = now - started_at
            for ghost, timeline in timelines.items():
                while sent[ghost] < len(timeline) and timeline[sent[ghost]].elapsed_ms <= elapsed:
                    point = timeline[sent[ghost]]
                    sent[ghost] += 1
                    event = Ghost(
                        race_id=race_id,
                        player_id=ghost,
                        elapsed_ms=point.elapsed_ms,
                        score=point.score,
                        cards_left=52 - point.score,
                        move_count=point.move_count,
                        finished=point.finished,
                        won=point.won,
                    )
                    await self.store.events.publish_player(player_id, pack_event(EventKind.BROADCAST, event))
            if now - checked >= 1000:
                checked = now
                current = await self.store.races.meta(race_id)
                if current is None or current.status.is_over:
                    return
            await asyncio.sleep(GHOST_TICK)

    # ----- the tournament ----------------------------------------------------------------

    async def day_points(self, date: str) -> tuple[dict[str, int], dict[str, dict[str, int]]]:
        """Each player's points for the day, and their place on each game's board (read
        whole, so a live standing is kept :data:`STANDING_CACHE_SECONDS`)."""
        cached = self._standing.get(date)
        if cached is not None:
            return cached
        totals: dict[str, int] = {}
        places: dict[str, dict[str, int]] = {}
        for game in GAMES:
            board = await self.store.dailies.whole_board(date, game)
            for rank, (player_id, _value) in zip(tie_ranks([v for _p, v in board]), board, strict=True):
                totals[player_id] = totals.get(player_id, 0) + points(rank)
                places.setdefault(player_id, {})[game] = rank
        self._standing.put(date, (totals, places))
        return totals, places

    async def close_due(self) -> list[str]:
        """Count the tournament points of every day that is closed (:func:`day_closes`: its
        end plus the setting's time limit, and no sooner than the latest end of an attempt
        begun that day, plus a minute) and whose every attempt has ended, and that no node
        counted yet, oldest first: once per day, on whichever node. A day with an attempt
        still unended waits (the race clock ends one whose time is up; the next pass
        counts), and the days after it wait for it: days are counted in order. It looks
        back to the last day counted (every node may have been down for days),
        :data:`CATCH_UP_DAYS` at most."""
        now = self.time.now_ms()
        today = day_of(now)
        due: list[dt.date] = []
        for back in range(1, CATCH_UP_DAYS + 1):
            day = today - dt.timedelta(days=back)
            if await self.store.dailies.closed(day.isoformat()):
                break  # counted in order: the days before it were counted before it
            due.append(day)
        closed = []
        for day in reversed(due):
            date = day.isoformat()
            if not await self._countable(date, now):
                break
            self._standing.drop(date)  # count from the boards as they are now
            totals, _places = await self.day_points(date)
            days = (day - dt.date(1970, 1, 1)).days
            if await self.store.dailies.close(date, days, iso_week(day), totals, now):
                closed.append(date)
                # A day nobody played (a new server's first look back) is not worth a line.
                level = logging.INFO if totals else logging.DEBUG
                log.log(level, "daily tournament day counted", extra={"day": date, "players": len(totals)})
        return closed

    async def _countable(self, date: str, now: int) -> bool:
        """Whether the day's points may be counted now (:func:`day_countable`): it is closed,
        and every attempt of it has ended, its board entry written (a race is finished only
        after its entry is). An attempt whose time is up but which is not ended yet (its
        node went down, the clocks have not come to it) is given a deadline, should it
        have none, so that a race clock ends it and a later pass counts the day."""
        limit = self.settings.daily_time_limit
        last_end = await self.store.dailies.last_end(date)
        if not day_countable(date, now, limit, last_end, 0):
            return False
        kept = await self.store.dailies.unended(date)
        if not kept:
            return True
        metas = {meta.race_id: meta for meta in await self.store.races.metas([r for r, _ in kept])}
        over = [r for r, _ in kept if r not in metas or metas[r].status.is_over]
        await self.store.dailies.forget_ended(date, over)
        # Open (claimed, never started): not on, and not over either: any start keeps it again.
        on = [meta for meta in metas.values() if meta.status.is_dealt and not meta.status.is_over]
        for meta in on:
            due = meta.starts_at if meta.status is RaceStatus.COUNTDOWN else meta.ends_at
            await self.store.deadlines.ensure(meta.race_id, due or now)
        if on:
            log.info(
                "daily tournament day waits for its last attempts to end",
                extra={"day": date, "attempts": len(on)},
            )
        return day_countable(date, now, limit, last_end, len(on))

    async def get_daily_standings(self, caller: Caller, message: GetDailyStandings) -> Reply:
        day = self._day(message.date)
        date, week = day.isoformat(), iso_week(day)
        totals, places = await self.day_points(date)
        reader = caller.player.player_id
        if await self.store.dailies.boards_of(date, GAMES, reader) - places.get(reader, {}).keys():
            # A standing kept from before the reader's own attempt ended: read it again,
            # so that they find that attempt's points in it.
            self._standing.drop(date)
            totals, places = await self.day_points(date)
        ordered = sorted(totals.items(), key=lambda item: (-item[1], item[0]))
        top = ordered[:TABLE_TOP]
        mine = totals.get(reader)
        names = await self.store.players.profiles(
            [p for p, _ in top] + ([reader] if mine is not None else [])
        )
        day_table = [
            _tournament_entry(rank, player_id, total, places[player_id], names)
            for rank, (player_id, total) in zip(tie_ranks([t for _p, t in top]), top, strict=True)
        ]
        me_day = None
        if mine is not None:
            # The tables' rule: one more than the players with strictly more points.
            rank = 1 + sum(1 for total in totals.values() if total > mine)
            me_day = _tournament_entry(rank, reader, mine, places[reader], names)
        week_table, me_week = await self._table(week, reader)
        all_time, me_all_time = await self._table(None, reader)
        streak = await self.store.dailies.streak(reader)
        current = 0
        if streak is not None:
            # A run is current while it reaches the latest day counted: yesterday, or the
            # day before while yesterday's points are not counted yet.
            last, run, _best = streak
            yesterday = day_of(self.time.now_ms()) - dt.timedelta(days=1)
            counted = (
                yesterday
                if await self.store.dailies.closed(yesterday.isoformat())
                else yesterday - dt.timedelta(days=1)
            )
            current = run if last >= (counted - dt.date(1970, 1, 1)).days else 0
        return Reply(
            DailyStandings(
                id=message.id,
                date=date,
                week=week,
                counted=await self.store.dailies.closed(date),
                counts_at=await closes_at(self.store, date, self.settings.daily_time_limit),
                day=day_table,
                week_table=week_table,
                all_time=all_time,
                streak=Streak(current=current, best=streak[2]) if streak else None,
                me_day=me_day,
                me_week=me_week,
                me_all_time=me_all_time,
            )
        )

    async def _table(self, week: str | None, reader: str) -> tuple[list[TableEntry], TableEntry | None]:
        """The top of the week's table (or the all-time one, ``week`` None), and the
        reader's own entry in it (None without points there)."""
        rows = await self.store.dailies.table(week, TABLE_TOP)
        place = await self.store.dailies.table_place(week, reader)
        names = await self.store.players.profiles(
            [p for p, _ in rows] + ([reader] if place is not None else [])
        )
        table = [
            _table_entry(rank, player_id, int(value), names)
            for rank, (player_id, value) in zip(tie_ranks([v for _p, v in rows]), rows, strict=True)
        ]
        if place is None:
            return table, None
        points_there, rank = place
        return table, _table_entry(rank, reader, points_there, names)


def _table_entry(rank: int, player_id: str, points: int, names: dict[str, tuple[str, bool]]) -> TableEntry:
    name, bot = names.get(player_id, ("?", False))
    return TableEntry(rank=rank, player_id=player_id, name=name, bot=bot, points=points)


def _tournament_entry(
    rank: int, player_id: str, points: int, places: dict[str, int], names: dict[str, tuple[str, bool]]
) -> TournamentEntry:
    name, bot = names.get(player_id, ("?", False))
    return TournamentEntry.model_validate(
        {"rank": rank, "player_id": player_id, "name": name, "bot": bot, "points": points, "places": places}
    )

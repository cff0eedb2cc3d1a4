"""Spectating: the live races, who may watch which, the featured race, opening a hub.

The spectators' sessions and the hubs' delivery live in the transport
(:mod:`server.transport.spectators`); this feature decides and reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from server.config import Settings
from server.errors import ArenaError, race_not_found
from server.features.context import Caller, Reply, WatchTarget
from server.features.daily_close import is_closed, seed_out, words
from server.features.lobby import race_info
from server.features.race_rules import CARDS
from server.features.spectating import RaceHub
from server.features.timed_cache import TimedCache
from server.store import RaceMeta, RaceStatus, Seat, Store
from server.timesource import TimeSource
from shared import new_game
from shared.protocol import (
    LIVE_LIMIT_MAX,
    BoardView,
    ErrorCode,
    ListLive,
    LiveRace,
    LiveRaces,
    Ok,
    Progress,
    RaceEnded,
    RacerInfo,
    RaceStarted,
    RaceSummary,
    Unwatch,
    Watch,
    to_wire,
)

#: How many listed races the live list looks at (newest first) before ranking them.
_LIVE_SCAN = 200
_WATCHABLE = (RaceStatus.COUNTDOWN, RaceStatus.RUNNING, RaceStatus.ENDING)


@dataclass(frozen=True, slots=True)
class _Live:
    race: LiveRace
    best: int
    seated: frozenset[str]


class Watching:
    def __init__(self, store: Store, settings: Settings, time: TimeSource) -> None:
        self.store = store
        self.settings = settings
        self.time = time
        self._live: TimedCache[str, list[_Live]] = TimedCache(seconds=1.0, most=8)

    def delay_ms(self, rated: bool) -> int:
        return round(self.settings.spectator_delay * 1000) if rated else 0

    # ----- handlers --------------------------------------------------------------------

    async def list_live(self, caller: Caller, message: ListLive) -> Reply:
        caller.player  # noqa: B018  # hello first
        races = [entry.race for entry in await self.live(message.game)][: message.limit]
        return Reply(LiveRaces(id=message.id, races=races))

    async def watch(self, caller: Caller, message: Watch) -> Reply:
        viewer = caller.player.player_id
        if message.race_id is not None:
            await self.check_watchable(message.race_id, viewer)
        return Reply(None, watch=WatchTarget(message.id, message.race_id))

    async def unwatch(self, caller: Caller, message: Unwatch) -> Reply:
        caller.player  # noqa: B018  # hello first
        return Reply(Ok(id=message.id), watch=WatchTarget(message.id, None, stop=True))

    # ----- deciding --------------------------------------------------------------------

    async def check_watchable(self, race_id: str, viewer: str) -> RaceMeta:
        """The race's meta when ``viewer`` may watch it now; else the reason, as an error.
        A race over says so first, to its racers too: its replay is the answer."""
        race = await self.store.races.race(race_id)
        if race is None:
            raise race_not_found(race_id)
        meta, seats = race
        seated = any(s.player_id == viewer for s in seats)
        if meta.daily:
            raise ArenaError(ErrorCode.NOT_YET, await self._daily_refusal(meta, seated))
        if meta.status is RaceStatus.CANCELLED:
            raise ArenaError(ErrorCode.RACE_CANCELLED, "the race was cancelled")
        ended = meta.ended_at or 0
        if meta.status is RaceStatus.FINISHED and ended + self.delay_ms(meta.rated) <= self.time.now_ms():
            raise ArenaError(ErrorCode.RACE_OVER, "the race is over: replay it instead")
        if seated:
            raise ArenaError(
                ErrorCode.OWN_RACE,
                "you race in that race: another racer's board would show you your own hidden cards",
            )
        if meta.status is RaceStatus.OPEN:
            raise ArenaError(
                ErrorCode.RACE_NOT_STARTED, "the race is still in its lobby: watch it once it counts down"
            )
        return meta

    async def _daily_refusal(self, meta: RaceMeta, seated: bool) -> str:
        """Why a daily attempt is not shown, and when its replay opens: once the attempt
        is over and its day closed, for its own player too (a replay re-deals from the
        seed, secret until the day's last attempts are over)."""
        assert meta.daily is not None
        finished = meta.status is RaceStatus.FINISHED
        time_limit = self.settings.daily_time_limit
        if await is_closed(self.store, meta.daily, self.time.now_ms(), time_limit):
            when = "replay it instead" if finished else "replay it once it is over"
        elif seated and finished:
            return (
                "your daily attempt is over, but attempts are never shown live: its replay "
                f"opens {await words(self.store, meta.daily, time_limit)}"
            )
        else:
            when = f"replay it {await words(self.store, meta.daily, time_limit)}"
        never = "daily challenge attempts are never shown live (the deal is everyone's for the whole day)"
        return f"{never}: {when}"

    async def featured(self, viewer: str, after: str | None = None) -> str | None:
        """The race to feature for ``viewer``: the best live one they may watch (and not
        ``after``, the one that just ended). The list is a second old at most, so each
        candidate is checked afresh."""
        for entry in await self.live(None):
            race_id = entry.race.race_id
            if race_id == after or viewer in entry.seated:
                continue
            try:
                meta = await self.check_watchable(race_id, viewer)
            except ArenaError:
                continue
            if meta.status in _WATCHABLE:
                return race_id
        return None

    async def live(self, game: str | None) -> list[_Live]:
        """The races being played, best first (highest rated racer, most spectators,
        newest), kept a second."""
        key = game or ""
        cached = self._live.get(key)
        if cached is not None:
            return cached
        now = self.time.now_ms()
        ids = await self.store.watching.live(_LIVE_SCAN)
        races = await self.store.races.races(ids)
        gone = [m.race_id for m, _seats in races if m.status not in _WATCHABLE]
        await self.store.watching.remove_live(gone + sorted(set(ids) - {m.race_id for m, _seats in races}))
        playing = [
            (m, seats)
            for m, seats in races
            if m.status in _WATCHABLE and not m.daily and (not game or m.game == game)
        ]
        entries = await self._live_entries(playing, now)
        entries.sort(key=lambda e: (-e.best, -e.race.spectators, -(e.race.starts_at or 0), e.race.race_id))
        entries = entries[: LIVE_LIMIT_MAX * 2]
        self._live.put(key, entries)
        return entries

    async def _live_entries(self, playing: list[tuple[RaceMeta, list[Seat]]], now: int) -> list[_Live]:
        """The live list's entries of these races: their spectators, boards and racers'
        ratings read in one round trip each, whatever the number of races."""
        metas = [meta for meta, _seats in playing]
        ids = [[s.player_id for s in seats] for _meta, seats in playing]
        counts = await self.store.watching.spectators([m.race_id for m in metas], now)
        boards = await self.store.boards.boards_of_races(
            [(m.race_id, i) for m, i in zip(metas, ids, strict=True)]
        )
        ratings = await self.store.ratings.ratings_in_games(
            [(m.game, i) for m, i in zip(metas, ids, strict=True)]
        )
        accounts = await self.store.accounts.accounts_among([p for racer_ids in ids for p in racer_ids])
        entries: list[_Live] = []
        for (meta, seats), racer_ids, count, race_boards, race_ratings in zip(
            playing, ids, counts, boards, ratings, strict=True
        ):
            by_player = {b.player_id: b for b in race_boards}
            out = await seed_out(self.store, meta, now, self.settings.daily_time_limit)
            info = race_info(meta, seats, by_player, None, now, race_ratings, accounts, seed_out=out)
            best = max((r.rating for r in info.racers if r.rating is not None), default=-1)
            race = self._live_race(meta, info.racers, count, info.status)
            entries.append(_Live(race, best, frozenset(racer_ids)))
        return entries

    def _live_race(self, meta: RaceMeta, racers: list[RacerInfo], spectators: int, status: str) -> LiveRace:
        return LiveRace(
            race_id=meta.race_id,
            game=meta.game,
            status=status,  # type: ignore[arg-type]  # a watchable status
            rated=meta.rated,
            starts_at=meta.starts_at,
            ends_at=meta.ends_at,
            racers=racers,
            spectators=spectators,
            delay_ms=self.delay_ms(meta.rated),
        )

    # ----- opening a hub ---------------------------------------------------------------

    async def open_hub(self, race_id: str) -> RaceHub:
        """The spectators' copy of a race, as of now: replayed from its log, with what
        happened within the delay still waiting in it, and those watching on other nodes."""
        now = self.time.now_ms()
        race = await self.store.races.race(race_id)
        if race is None:
            raise race_not_found(race_id)
        meta, seats = race
        ids = [s.player_id for s in seats]
        ratings = await self.store.ratings.ratings(meta.game, ids)
        accounts = await self.store.accounts.accounts_among(ids)
        out = await seed_out(self.store, meta, now, self.settings.daily_time_limit)
        info = race_info(meta, seats, {}, None, now, ratings, accounts, seed_out=out)
        # Read after the node listens to the race's channel: the counts published from
        # now on come after this one. This node's own spectators are counted by the hub.
        watchers = await self.store.watching.watchers(race_id, now)
        elsewhere = sum(count for node, count in watchers.items() if node != self.settings.node_id)
        live = self._live_race(meta, info.racers, elsewhere, "countdown")
        hub = RaceHub(live, meta.seed, self.delay_ms(meta.rated), daily=bool(meta.daily))
        await self._fill(hub, meta, ids, now)
        hub.release(now)
        return hub

    async def refill_hub(self, race_id: str, hub: RaceHub) -> None:
        """Give ``hub`` what the store holds of its race now (its start, every logged move,
        who gave up, its end, the names the racers go by), after the node did not hear
        the race's channels for a while: a hub ignores what it already has, and a racer's
        moves after a gap in their seqs were ignored until now. The caller releases what
        is due."""
        race = await self.store.races.race(race_id)
        if race is not None:
            meta, seats = race
            for seat in seats:
                hub.receive_name(seat.player_id, seat.name)
            await self._fill(hub, meta, [s.player_id for s in seats], self.time.now_ms())

    async def _fill(self, hub: RaceHub, meta: RaceMeta, ids: list[str], now: int) -> None:
        race_id = meta.race_id
        if meta.status.is_started and meta.starts_at is not None and meta.ends_at is not None:
            view = BoardView.model_validate(new_game(meta.game, meta.seed).view())
            started = RaceStarted(race_id=race_id, starts_at=meta.starts_at, ends_at=meta.ends_at, view=view)
            # With its deal: a hub that missed the start may hold the countdown's.
            hub.receive_event(to_wire(started), meta.starts_at, meta.seed)
        for move in await self.store.boards.move_log(race_id):
            hub.receive_move(move.player_id, move.seq, move.move, move.at)
        for board in await self.store.boards.boards(race_id, ids):
            if board.finished and not board.won:
                gave_up = Progress(
                    race_id=race_id,
                    player_id=board.player_id,
                    score=board.score,
                    cards_left=CARDS - board.score,
                    move_count=board.move_count,
                    finished=True,
                    won=False,
                )
                hub.receive_event(to_wire(gave_up), board.finished_at)
        if meta.status is RaceStatus.FINISHED:
            raw = await self.store.races.summary(race_id)
            if raw is not None:
                ended = RaceEnded(race_id=race_id, summary=RaceSummary.model_validate_json(raw))
                hub.receive_event(to_wire(ended), meta.ended_at or now)

"""Leaderboards and profiles: reads only (a race's end writes what they show).

A leaderboard page is the sorted set's range (O(log n + page)) with each player's name
and rating; the pages a busy front page asks for are kept :data:`PAGE_CACHE_SECONDS`, so
a flood of readers costs Redis one read per page per node in that time. Equal ratings (in
whole points, as shown) share a rank, 1 + how many show higher (1, 2, 2, 4): one
``ZCOUNT`` for a page's first entry, the next ones' follow from it. The reader's own
place is a ``ZREVRANK`` and their rank a ``ZCOUNT`` (O(log n) each).
"""

from __future__ import annotations

from typing import Final

from server.errors import ArenaError
from server.features.context import Caller, Reply
from server.features.daily_rules import race_id_shown
from server.features.ratings import current, provisional
from server.features.timed_cache import TimedCache
from server.store import Store
from server.timesource import TimeSource
from shared.games import GAMES
from shared.protocol import (
    ErrorCode,
    GameName,
    GameRating,
    GameStats,
    GetLeaderboard,
    GetProfile,
    Leaderboard,
    LeaderboardEntry,
    PlayerProfile,
    Profile,
    RatingPoint,
    RecentRace,
)
from shared.ranking import tie_ranks
from shared.usernames import username_keys

PAGE_CACHE_SECONDS: Final = 2.0
HISTORY_SHOWN: Final = 20
RECENT_SHOWN: Final = 20


def _stale(
    me: LeaderboardEntry, place: int, entries: list[LeaderboardEntry], total: int, offset: int, limit: int
) -> bool:
    """Whether a leaderboard page (``entries`` from place ``offset + 1``, of ``total``)
    disagrees with the reader's own entry ``me`` at ``place`` in the order, read just now:
    it is older than their latest rated race."""
    if place > total:
        return True
    shown = [entry for entry in entries if entry.player_id == me.player_id]
    if offset < place <= offset + limit:
        return shown != [me]
    return bool(shown)


class Profiles:
    def __init__(self, store: Store, time: TimeSource, daily_time_limit: float) -> None:
        self.store = store
        self.time = time
        self.daily_time_limit = daily_time_limit
        self.pages: TimedCache[tuple[str, int, int], tuple[int, list[LeaderboardEntry]]] = TimedCache(
            PAGE_CACHE_SECONDS
        )

    async def get_leaderboard(self, caller: Caller, message: GetLeaderboard) -> Reply:
        mine = await self._entry(message.game, caller.player.player_id)
        me = mine[1] if mine else None
        total, entries = await self._page(message.game, message.offset, message.limit)
        if mine is not None and _stale(mine[1], mine[0], entries, total, message.offset, message.limit):
            # A page kept from before the reader's latest rated race: it would show them
            # elsewhere than ``me`` does, so it is read again.
            self.pages.drop((message.game, message.offset, message.limit))
            total, entries = await self._page(message.game, message.offset, message.limit)
        more = message.offset + len(entries) < total
        return Reply(
            Leaderboard(
                id=message.id,
                game=message.game,
                total=total,
                entries=entries,
                me=me,
                next_offset=message.offset + message.limit if more else None,
            )
        )

    async def get_profile(self, caller: Caller, message: GetProfile) -> Reply:
        player_id = message.player_id
        if message.username is not None:
            found = await self.store.accounts.find(*username_keys(message.username))
            if found is None:
                raise ArenaError(ErrorCode.PLAYER_NOT_FOUND, f"no account is named {message.username[:64]!r}")
            player_id = found[0]
        player_id = player_id or caller.player.player_id
        return Reply(Profile(id=message.id, profile=await self.profile(player_id, caller.player.player_id)))

    async def profile(self, player_id: str, reader: str) -> PlayerProfile:
        """``player_id``'s profile as ``reader`` may have it: a daily run's race id is left
        out until its day is closed, but for the player themselves (as on the day's board)."""
        found = await self.store.players.profile(player_id)
        if found is None:
            raise ArenaError(ErrorCode.PLAYER_NOT_FOUND, f"there is no player {player_id[:64]!r}")
        name, bot = found
        now = self.time.now_ms()
        ratings = []
        for game, stored in (await self.store.ratings.all_games(player_id, GAMES)).items():
            if stored is None:
                continue
            rating = current(stored, now)
            history = await self.store.ratings.history(player_id, game, HISTORY_SHOWN)
            ratings.append(
                GameRating.model_validate(
                    {
                        "game": game,
                        "rating": round(rating.rating),
                        "rd": round(rating.rd),
                        "provisional": provisional(rating.rd),
                        "games": stored.games,
                        "history": [RatingPoint.model_validate(point) for point in history],
                    }
                )
            )
        stats = [
            GameStats.model_validate({"game": game, **row})
            for game, row in (await self.store.ratings.stats(player_id, GAMES)).items()
            if row
        ]
        recent = []
        for entry in await self.store.ratings.recent(player_id, RECENT_SHOWN):
            race = RecentRace.model_validate(entry)
            last_end = None
            if race.daily and reader != player_id:  # the day's close as the store has it
                last_end = await self.store.dailies.last_end(race.daily)
            if not race_id_shown(race.daily, player_id, reader, now, self.daily_time_limit, last_end):
                race = race.model_copy(update={"race_id": None})
            recent.append(race)
        return PlayerProfile(
            player_id=player_id,
            name=name,
            username=await self.store.accounts.username(player_id),
            bot=bot,
            ratings=ratings,
            stats=stats,
            recent=recent,
        )

    async def _page(self, game: GameName, offset: int, limit: int) -> tuple[int, list[LeaderboardEntry]]:
        key = (game, offset, limit)
        cached = self.pages.get(key)
        if cached is not None:
            return cached
        rows = await self.store.ratings.top(game, offset, limit)
        total = await self.store.ratings.listed(game)
        shown = [round(rating) for _pid, rating in rows]
        ranks = tie_ranks(shown)  # within the page; its first rank is counted in the whole
        if rows:
            first = 1 + await self.store.ratings.shown_above(game, shown[0])
            ranks = [first if rank == 1 else offset + rank for rank in ranks]
        entries = await self._entries(
            game, [(rank, pid) for rank, (pid, _rating) in zip(ranks, rows, strict=True)]
        )
        self.pages.put(key, (total, entries))
        return total, entries

    async def _entry(self, game: GameName, player_id: str) -> tuple[int, LeaderboardEntry] | None:
        """The player's place in the leaderboard's order and entry (with their rank)."""
        found = await self.store.ratings.place(game, player_id)
        if found is None:
            return None
        place, rating = found
        rank = 1 + await self.store.ratings.shown_above(game, round(rating))
        entries = await self._entries(game, [(rank, player_id)])
        return (place, entries[0]) if entries else None

    async def _entries(self, game: GameName, ranked: list[tuple[int, str]]) -> list[LeaderboardEntry]:
        ids = [pid for _rank, pid in ranked]
        names = await self.store.players.profiles(ids)
        ratings = await self.store.ratings.ratings(game, ids)
        now = self.time.now_ms()
        entries = []
        for rank, pid in ranked:
            stored, who = ratings.get(pid), names.get(pid)
            if stored is None or who is None:
                continue
            rating = current(stored, now)
            entries.append(
                LeaderboardEntry(
                    rank=rank,
                    player_id=pid,
                    name=who[0],
                    bot=who[1],
                    rating=round(rating.rating),
                    rd=round(rating.rd),
                    games=stored.games,
                )
            )
        return entries

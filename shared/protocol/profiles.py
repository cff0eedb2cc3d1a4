"""Leaderboards (per game, rated accounts with a settled rating) and player profiles."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from shared.game import GameName
from shared.protocol.base import Reply, Request, RequestId

#: The longest leaderboard page.
LEADERBOARD_LIMIT_MAX = 100


class GetLeaderboard(Request):
    """A page of a game's leaderboard, best first, and the sender's own place on it."""

    type: Literal["get_leaderboard"] = "get_leaderboard"
    id: RequestId
    game: GameName
    offset: Annotated[int, Field(ge=0, le=1_000_000)] = 0
    limit: Annotated[int, Field(ge=1, le=LEADERBOARD_LIMIT_MAX)] = LEADERBOARD_LIMIT_MAX


class LeaderboardEntry(Reply):
    rank: int
    player_id: str
    name: str
    bot: bool = False
    rating: int
    rd: int
    games: int


class Leaderboard(Reply):
    """``total`` players are listed; ``me`` is the sender's entry (absent when not listed:
    a guest, or a provisional rating); ``next_offset`` asks for the next page."""

    type: Literal["leaderboard"] = "leaderboard"
    id: RequestId | None = None
    game: GameName
    total: int
    entries: list[LeaderboardEntry]
    me: LeaderboardEntry | None = None
    next_offset: int | None = None


class GetProfile(Request):
    """A player's profile, by ``player_id`` or ``username`` (the sender's own with neither)."""

    type: Literal["get_profile"] = "get_profile"
    id: RequestId
    player_id: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    username: Annotated[str, Field(min_length=1, max_length=64)] | None = None


class RatingPoint(Reply):
    race_id: str
    at: int
    rating: int
    rd: int


class GameRating(Reply):
    """A rating in one game; ``provisional`` ones are shown with a ``?``."""

    game: GameName
    rating: int
    rd: int
    provisional: bool
    games: int
    #: The ratings after the latest rated races, newest first.
    history: list[RatingPoint] = Field(default_factory=list)


class GameStats(Reply):
    game: GameName
    races: int = 0
    wins: int = 0
    #: The fastest win, in ms from the start.
    best_ms: int | None = None


class RecentRace(Reply):
    """One of the player's latest races; its results and move log are ``get_results`` and
    ``get_move_log`` with its ``race_id`` (while the race is kept)."""

    #: Absent for another player's daily run until its day is closed (as on the board).
    race_id: str | None = None
    game: GameName
    rated: bool
    rank: int
    racers: int
    #: Others in the race share ``rank`` (equal results; everyone when nobody scored).
    #: False in races stored before the field.
    tied: bool = False
    won: bool
    score: int
    time_ms: int | None = None
    ended_at: int
    rating_change: int | None = None
    #: A daily challenge attempt's day (``YYYY-MM-DD``): raced alone, it is placed on
    #: that day's board (``get_daily_board``), not among ``racers``.
    daily: str | None = None
    #: The player gave up (sent ``finish``) without having won; false for a win and for
    #: a race whose time ran out (and for races stored before the field).
    gave_up: bool = False
    #: A practice of the ``daily`` deal after the attempt: unscored, and not counted in
    #: the player's ``stats``.
    practice: bool = False


class PlayerProfile(Reply):
    player_id: str
    name: str
    #: Absent for a guest.
    username: str | None = None
    bot: bool = False
    ratings: list[GameRating] = Field(default_factory=list)
    stats: list[GameStats] = Field(default_factory=list)
    recent: list[RecentRace] = Field(default_factory=list)


class Profile(Reply):
    type: Literal["profile"] = "profile"
    id: RequestId | None = None
    profile: PlayerProfile


Requests = GetLeaderboard | GetProfile
Replies = Leaderboard | Profile

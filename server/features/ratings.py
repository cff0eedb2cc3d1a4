"""What a race's end means for each racer, without I/O: new Glicko-2 ratings from the
final ranking (a race of n racers is n - 1 games for each, ties are draws), and the
lines the racer's history, counts and recent races get.

Each rated race is one Glicko-2 rating period of its own, however soon after the last
(:func:`new_ratings` calls :func:`rate` once per racer per race, against everyone's rating
from just before it). Idle time counts between races only: before a race counts, a
rating's deviation grows as over one period without games for each whole day (24 hours)
since its last rated race ended, a part day dropped (:func:`current`, which profiles and
leaderboards show too). A rating is *provisional* while its deviation is above
:data:`PROVISIONAL_RD`: shown with a ``?`` and kept off the leaderboards (a listed rating
that turns provisional again is swept off them: :mod:`server.features.leaderboard_sweep`).
"""

from __future__ import annotations

import orjson

from server.features.glicko2 import Rating, decay, pairwise_results, rate
from server.store.records import PlayerRating, RaceMeta, RacerRecord
from shared.protocol import Standing
from shared.ranking import shares_rank

PROVISIONAL_RD = 110.0
DAY_MS = 86_400_000


def current(stored: PlayerRating | None, now: int) -> Rating:
    """The rating as it stands ``now``: a new player's, or the stored one with its
    deviation grown for every whole day without a rated race."""
    if stored is None:
        return Rating()
    rating = Rating(stored.rating, stored.rd, stored.volatility)
    days = max(0, (now - stored.last_at) // DAY_MS)
    return decay(rating, periods=days) if days else rating


def provisional(rd: float) -> bool:
    return rd > PROVISIONAL_RD


def unsettled(
    listed: list[tuple[str, float]], stored: dict[str, PlayerRating | None], now: int
) -> list[tuple[str, float]]:
    """The ``listed`` (player, leaderboard score) whose rating, as it stands ``now``, is
    provisional again: whole days without a rated race grew its deviation past
    :data:`PROVISIONAL_RD`. A settled rating of deviation 60 turns provisional on its
    79th idle day:

    >>> ada = {"p_ada": PlayerRating(1700.0, 60.0, 0.06, 30, 0)}
    >>> unsettled([("p_ada", 1700.0)], ada, 78 * DAY_MS), unsettled([("p_ada", 1700.0)], ada, 79 * DAY_MS)
    ([], [('p_ada', 1700.0)])
    """
    return [(player, score) for player, score in listed if provisional(current(stored.get(player), now).rd)]


def new_ratings(
    standings: list[Standing], stored: dict[str, PlayerRating | None], now: int
) -> dict[str, PlayerRating]:
    """Every racer's rating after a rated race ranked as ``standings``."""
    before = [current(stored.get(s.player_id), now) for s in standings]
    games = pairwise_results([s.rank for s in standings])
    after: dict[str, PlayerRating] = {}
    for index, standing in enumerate(standings):
        results = [(before[other], score) for other, score in games[index]]
        new = rate(before[index], results)
        old = stored.get(standing.player_id)
        after[standing.player_id] = PlayerRating(
            new.rating, new.rd, new.volatility, (old.games if old else 0) + 1, now
        )
    return after


def with_ratings(
    standings: list[Standing],
    stored: dict[str, PlayerRating | None],
    after: dict[str, PlayerRating],
    now: int,
) -> list[Standing]:
    """``standings`` with each racer's new rating, its change (whole points) and whether
    it is still provisional."""
    lines = []
    for standing in standings:
        new = after[standing.player_id]
        old = current(stored.get(standing.player_id), now).rating
        lines.append(
            standing.model_copy(
                update={
                    "rating": round(new.rating),
                    "rating_change": round(new.rating) - round(old),
                    "provisional": provisional(new.rd),
                }
            )
        )
    return lines


def racer_records(
    meta: RaceMeta,
    standings: list[Standing],
    stored: dict[str, PlayerRating | None],
    after: dict[str, PlayerRating],
    accounts: set[str],
    now: int,
) -> list[RacerRecord]:
    """What the end writes for each racer: the race among their recent ones, and in a
    rated race the new rating (listed on the leaderboard once not provisional)."""
    records = []
    for standing in standings:
        recent = {
            "race_id": meta.race_id,
            "game": meta.game,
            "rated": meta.rated,
            "rank": standing.rank,
            "racers": len(standings),
            "tied": shares_rank(standing.rank, [other.rank for other in standings]),
            "won": standing.won,
            "score": standing.score,
            "time_ms": standing.time_ms,
            "ended_at": now,
            "rating_change": standing.rating_change,
            "gave_up": standing.gave_up,
        }
        if meta.daily:
            recent["daily"] = meta.daily
        if meta.practice:
            recent["practice"] = True
        new = after.get(standing.player_id)
        old = stored.get(standing.player_id)
        history = ""
        if new is not None:
            history = orjson.dumps(
                {"race_id": meta.race_id, "at": now, "rating": round(new.rating), "rd": round(new.rd)}
            ).decode()
        records.append(
            RacerRecord(
                player_id=standing.player_id,
                won=standing.won,
                time_ms=standing.time_ms,
                recent=orjson.dumps(recent).decode(),
                rating=new,
                expect=old.games if old else 0,
                listed=new is not None and standing.player_id in accounts and not provisional(new.rd),
                history=history,
                counted=not meta.practice,
            )
        )
    return records

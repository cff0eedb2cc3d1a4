"""Quick match by skill: accounts pair by rating in a rated queue (the accepted gap widens
with the wait), guests in a casual one; the rated match updates both ratings."""

from __future__ import annotations

import time

import pytest

from server.app import ArenaServer
from server.features.glicko2 import Rating, rate
from tests.server.rawclient import Racer, racers
from tests.server.test_profiles import seed_ratings
from tests.server.test_ratings import accounts, close, foundation_moves, play


async def queue(racer: Racer, game: str = "eight-off") -> dict[str, object]:
    return await racer.request({"type": "quick_match", "game": game})


async def test_a_rated_quick_match_pairs_two_accounts_and_updates_both_ratings(arena: ArenaServer) -> None:
    ada, bob = await accounts(arena.url, "ada", "bob")
    assert await queue(ada) == {"type": "queued", "id": ada._next, "game": "eight-off", "rated": True}
    await queue(bob)
    found = await ada.event("match_found")
    assert found["race"]["rated"] is True and found["race"]["hints"] is False
    race_id = found["race"]["race_id"]
    await ada.event("race_started")
    await bob.event("race_started")
    await play(ada, race_id, foundation_moves(1))
    await ada.request({"type": "finish", "race_id": race_id})
    await bob.request({"type": "finish", "race_id": race_id})
    ended = await bob.event("race_ended")
    lines = {s["player_id"]: s for s in ended["summary"]["standings"]}
    assert lines[ada.player_id]["rating"] == round(rate(Rating(), [(Rating(), 1.0)]).rating)
    assert lines[bob.player_id]["rating"] == round(rate(Rating(), [(Rating(), 0.0)]).rating)
    await close(ada, bob)


async def test_a_guest_and_an_account_wait_in_different_queues(arena: ArenaServer) -> None:
    (account,) = await accounts(arena.url, "member")
    (guest,) = await racers(arena.url, "guest")
    assert (await queue(account))["rated"] is True
    assert (await queue(guest))["rated"] is False
    with pytest.raises(TimeoutError):
        await account.event("match_found", timeout=1.5)
    (other_guest,) = await racers(arena.url, "guest2")
    await queue(other_guest)
    found = await guest.event("match_found")
    assert found["race"]["rated"] is False
    await close(account, guest, other_guest)


async def test_far_apart_ratings_pair_only_once_the_gap_has_widened(
    arena: ArenaServer, clean_redis: str
) -> None:
    assert arena.features is not None
    arena.features.quick_match.curve = (100.0, 400.0, 60_000)  # 100 points, +400 a second
    strong, weak = await accounts(arena.url, "strong", "weak")
    now = arena.time.now_ms()
    await seed_ratings(clean_redis, {strong.player_id: ("strong_acct", 2000.0, 60.0)}, now)
    await seed_ratings(clean_redis, {weak.player_id: ("weak_acct", 1500.0, 60.0)}, now)
    started = time.monotonic()
    await queue(strong)
    await queue(weak)
    found = await weak.event("match_found", timeout=10)
    waited = time.monotonic() - started
    # 500 apart: the gap reaches 500 after 1 s of waiting, not before.
    assert 0.9 <= waited < 5, waited
    assert {r["player_id"] for r in found["race"]["racers"]} == {strong.player_id, weak.player_id}
    assert {r["rating"] for r in found["race"]["racers"]} == {2000, 1500}
    await close(strong, weak)


async def test_the_nearest_rating_is_chosen_among_those_close_enough(
    arena: ArenaServer, clean_redis: str
) -> None:
    assert arena.features is not None
    arena.features.quick_match.curve = (120.0, 0.0, 60_000)  # 120 points, never wider
    low, high, middle = await accounts(arena.url, "low", "high", "middle")
    now = arena.time.now_ms()
    ratings = {
        low.player_id: ("low_acct", 1400.0, 60.0),
        high.player_id: ("high_acct", 1610.0, 60.0),
        middle.player_id: ("middle_acct", 1500.0, 60.0),
    }
    await seed_ratings(clean_redis, ratings, now)
    await queue(low)
    await queue(high)  # 210 apart: they wait
    with pytest.raises(TimeoutError):
        await low.event("match_found", timeout=1.2)
    await queue(middle)  # 100 from low, 110 from high: both close enough, low nearer
    found = await middle.event("match_found")
    assert {r["player_id"] for r in found["race"]["racers"]} == {low.player_id, middle.player_id}
    with pytest.raises(TimeoutError):
        await high.event("match_found", timeout=0.5)
    await close(low, high, middle)


async def test_a_player_cannot_wait_in_two_queues(arena: ArenaServer, connect: object) -> None:
    (ada,) = await accounts(arena.url, "ada")
    await queue(ada, "treize")
    second = await queue(ada, "eagle-wing")
    assert second["type"] == "error" and second["code"] == "already_queued"
    await close(ada)

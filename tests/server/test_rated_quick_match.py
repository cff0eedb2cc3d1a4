"""Quick match by skill: accounts pair by rating in a rated queue (the accepted gap widens
with the wait), guests in a casual one; the rated match updates both ratings."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.asyncio.client import connect as ws_connect

from server.app import ArenaServer
from server.features.glicko2 import Rating, rate
from server.features.quick_match import SWEEP_EVERY
from server.store import keys
from tests.redis_direct import async_redis
from tests.server.conftest import running_node
from tests.server.rawclient import Racer, racers, resumed
from tests.server.test_profiles import seed_ratings
from tests.server.test_ratings import PASSWORD, accounts, close, foundation_moves, play

#: Long enough for a node to try its waiting accounts again at least once.
AFTER_A_SWEEP = SWEEP_EVERY * 1.6


class _Ticket(str):
    """Equal to any queue ticket: 12 hex digits."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and re.fullmatch(r"[0-9a-f]{12}", other) is not None

    def __hash__(self) -> int:
        return 0


ANY_TICKET = _Ticket()


def rated_queued(racer: Racer) -> dict[str, object]:
    """The ``queued`` frame answering the racer's last request: Eight Off's rated queue."""
    return {"type": "queued", "id": racer._next, "game": "eight-off", "rated": True, "ticket": ANY_TICKET}


async def queue(racer: Racer, game: str = "eight-off") -> dict[str, object]:
    return await racer.request({"type": "quick_match", "game": game})


async def test_an_account_asking_for_a_casual_quick_match_waits_with_the_guests_and_races_unrated(
    arena: ArenaServer,
) -> None:
    (ada,) = await accounts(arena.url, "ada")
    (bot,) = await racers(arena.url, "bot-search-1")
    queued = await ada.request({"type": "quick_match", "game": "treize", "casual": True})
    assert queued == {
        "type": "queued",
        "id": queued["id"],
        "game": "treize",
        "rated": False,
        "ticket": ANY_TICKET,
    }
    mine = await ada.request({"type": "list_my_races"})
    assert mine["queued"] == {"game": "treize", "ticket": queued["ticket"], "rated": False}
    await queue(bot, "treize")  # a guest (the bots are guests): the casual queue pairs them
    found = await ada.event("match_found")
    assert found["race"]["rated"] is False
    assert sorted(r["name"] for r in found["race"]["racers"]) == ["ada_acct", "bot-search-1"]
    assert (await bot.event("match_found"))["race"]["race_id"] == found["race"]["race_id"]
    await close(ada, bot)


async def test_an_account_waiting_in_one_queue_of_a_game_is_refused_the_other_until_it_cancels(
    arena: ArenaServer,
) -> None:
    (ada,) = await accounts(arena.url, "ada")
    casual = await ada.request({"type": "quick_match", "game": "treize", "casual": True})
    again = await ada.request({"type": "quick_match", "game": "treize", "casual": True})
    assert again["ticket"] == casual["ticket"]  # asking again keeps the place
    rated = await ada.request({"type": "quick_match", "game": "treize"})
    assert rated == {
        "type": "error",
        "id": rated["id"],
        "code": "already_queued",
        "message": "you wait in treize's casual queue: cancel that quick match before a rated one",
    }
    assert (await ada.request({"type": "cancel_quick_match"}))["type"] == "ok"
    assert (await ada.request({"type": "quick_match", "game": "treize"}))["rated"] is True
    back = await ada.request({"type": "quick_match", "game": "treize", "casual": True})
    assert back["message"] == "you wait in treize's rated queue: cancel that quick match before a casual one"
    await close(ada)


async def test_an_account_asking_for_both_queues_of_a_game_at_once_waits_in_exactly_one(
    arena: ArenaServer,
) -> None:
    (ada,) = await accounts(arena.url, "ada")
    other = await resumed(arena.url, ada)
    for _ in range(5):  # each time both asks come together, from two sessions
        rated, casual = await asyncio.gather(
            ada.request({"type": "quick_match", "game": "treize"}),
            other.request({"type": "quick_match", "game": "treize", "casual": True}),
        )
        answers = sorted([rated["type"], casual["type"]])
        assert answers == ["error", "queued"], (rated, casual)
        refused = rated if rated["type"] == "error" else casual
        assert refused["code"] == "already_queued"
        mine = await ada.request({"type": "list_my_races"})
        assert mine["queued"]["rated"] is (casual["type"] == "error")
        assert (await ada.request({"type": "cancel_quick_match"}))["type"] == "ok"
    await close(ada, other)


async def test_a_rated_quick_match_pairs_two_accounts_and_updates_both_ratings(arena: ArenaServer) -> None:
    ada, bob = await accounts(arena.url, "ada", "bob")
    assert await queue(ada) == rated_queued(ada)
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


async def test_an_account_paired_before_its_node_hears_of_it_is_not_queued_again(
    arena: ArenaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert arena.features is not None
    # The node never hears that Bob was paired, as a node elsewhere does not until the
    # pairing's match_found reaches it: it goes on trying to pair him every second.
    monkeypatch.setattr(arena.features.quick_match, "matched", lambda player_id, game: None)
    bob, ada, cleo = await accounts(arena.url, "bob", "ada", "cleo")
    await queue(bob)
    await queue(ada)
    found = await bob.event("match_found")
    await asyncio.sleep(AFTER_A_SWEEP)
    # Bob is racing Ada: Cleo waits rather than being paired with him a second time.
    assert await queue(cleo) == rated_queued(cleo)
    with pytest.raises(TimeoutError):
        await cleo.event("match_found", timeout=AFTER_A_SWEEP)
    with pytest.raises(TimeoutError):
        await bob.event("match_found", timeout=0.1)
    assert {r["player_id"] for r in found["race"]["racers"]} == {ada.player_id, bob.player_id}
    await close(bob, ada, cleo)


@contextlib.asynccontextmanager
async def bob_waiting_on_a_node(clean_redis: str) -> AsyncIterator[tuple[Racer, Racer, Racer]]:
    """Two nodes: Bob waits in the rated queue on node A, and is also signed in on node B;
    Cleo, on node A, has not queued. Yields Bob on A, Bob on B and Cleo."""
    async with running_node(clean_redis) as node_a, running_node(clean_redis) as node_b:
        bob, cleo = await accounts(node_a.url, "bob", "cleo")
        await queue(bob)
        on_b = Racer(await ws_connect(node_b.url, compression=None))
        welcome = await on_b.request({"type": "login", "username": "bob_acct", "password": PASSWORD})
        assert welcome["player_id"] == bob.player_id
        try:
            yield bob, on_b, cleo
        finally:
            await close(bob, on_b, cleo)


async def test_a_quick_match_cancelled_from_a_session_on_another_node_stays_cancelled(
    clean_redis: str,
) -> None:
    async with bob_waiting_on_a_node(clean_redis) as (bob, elsewhere, cleo):
        cancelled = await elsewhere.request({"type": "cancel_quick_match"})
        assert cancelled == {"type": "ok", "id": elsewhere._next}
        await asyncio.sleep(AFTER_A_SWEEP)  # node A tries its waiting accounts again
        await queue(cleo)
        with pytest.raises(TimeoutError):
            await cleo.event("match_found", timeout=AFTER_A_SWEEP)
        with pytest.raises(TimeoutError):
            await bob.event("match_found", timeout=0.1)


async def test_an_account_dropped_when_its_lease_ran_out_is_queued_again_by_its_node(
    arena: ArenaServer, clean_redis: str
) -> None:
    bob, cleo = await accounts(arena.url, "bob", "cleo")
    await queue(bob)
    client = async_redis(clean_redis)
    try:  # as if Bob's node had not renewed his lease for 30 s (Redis out of its reach)
        await client.zadd(keys.rated_leases("eight-off"), {bob.player_id: 1})
    finally:
        await client.aclose()
    await queue(cleo)  # drops Bob, whose lease ran out, rather than pair with him
    # Bob still queues (his node keeps him waiting): it puts him back, and he is paired.
    found = await cleo.event("match_found", timeout=AFTER_A_SWEEP + 2)
    assert {r["player_id"] for r in found["race"]["racers"]} == {bob.player_id, cleo.player_id}
    assert (await bob.event("match_found"))["race"]["race_id"] == found["race"]["race_id"]
    await close(bob, cleo)


async def test_a_connection_closing_on_one_node_leaves_the_queue_its_player_rejoined_on_another(
    clean_redis: str,
) -> None:
    async with bob_waiting_on_a_node(clean_redis) as (bob, resumed, cleo):
        # Bob's connection to node A drops; his client resumes on node B and queues again
        # there before node A notices the old connection is gone.
        assert (await queue(resumed))["type"] == "queued"
        await bob.ws.close()  # node A: Bob's last connection there is gone
        await asyncio.sleep(AFTER_A_SWEEP)
        await queue(cleo)
        found = await resumed.event("match_found", timeout=AFTER_A_SWEEP + 2)
        assert {r["player_id"] for r in found["race"]["racers"]} == {bob.player_id, cleo.player_id}


def race_creation_fails_once(arena: ArenaServer, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The node's next race creation fails as if Redis went away (a pairing that makes no
    race); the list returned says "create" once it has."""
    assert arena.features is not None
    lobby = arena.features.lobby
    create = lobby.create
    failed: list[str] = []

    async def unreachable_once(*args: Any, **kwargs: Any) -> Any:
        if not failed:
            failed.append("create")
            raise ConnectionError("Redis went away")
        return await create(*args, **kwargs)

    monkeypatch.setattr(lobby, "create", unreachable_once)
    return failed


async def test_an_account_whose_pairing_failed_before_its_race_was_made_is_queued_again(
    arena: ArenaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert arena.features is not None
    monkeypatch.setattr("server.features.quick_match.PAIRED_GRACE_MS", 500)
    failed = race_creation_fails_once(arena, monkeypatch)
    bob, ada, cleo = await accounts(arena.url, "bob", "ada", "cleo")
    await queue(bob)
    refused = await queue(ada)  # pairs Ada with Bob, but no race could be made
    assert refused["type"] == "error" and failed == ["create"], refused
    await asyncio.sleep(AFTER_A_SWEEP + 0.5)  # the node finds Bob paired, then no race of his
    await queue(cleo)
    found = await cleo.event("match_found", timeout=AFTER_A_SWEEP + 2)
    assert {r["player_id"] for r in found["race"]["racers"]} == {bob.player_id, cleo.player_id}
    await close(bob, ada, cleo)

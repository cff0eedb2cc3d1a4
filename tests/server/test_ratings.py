"""Rated races: only accounts race them, their end updates Glicko-2 ratings pairwise by
the final ranking, exactly once however many nodes end them; casual races change none.
Checked on raw frames and on what Redis holds."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from server.app import ArenaServer
from server.features import ratings
from server.features.glicko2 import Rating, decay, pairwise_results, rate
from shared import new_game
from tests.redis_direct import async_redis
from tests.server.conftest import WINNABLE_SEED, running_node
from tests.server.rawclient import Racer, racers
from tests.server.solver import solve

PASSWORD = "a long password"


async def accounts(url: str, *names: str) -> list[Racer]:
    out = await racers(url, *names)
    for racer, name in zip(out, names, strict=True):
        reply = await racer.request({"type": "register", "username": f"{name}_acct", "password": PASSWORD})
        assert reply["type"] == "account"
        racer.token = reply["token"]  # the guest's stopped working
    return out


async def close(*connections: Racer) -> None:
    for racer in connections:
        await racer.ws.close()


async def seated(creator: Racer, others: list[Racer], **settings: Any) -> str:
    created = await creator.request(
        {"type": "create_race", "game": "eight-off", "seats": 1 + len(others), **settings}
    )
    assert created["type"] == "race", created
    race_id: str = created["race"]["race_id"]
    for other in others:
        joined = await other.request({"type": "join_race", "code": created["race"]["code"]})
        assert joined["type"] == "race", joined
    for racer in (creator, *others):
        await racer.request({"type": "ready", "race_id": race_id})
    for racer in (creator, *others):
        await racer.event("race_started")
    return race_id


def foundation_moves(cards: int) -> list[str]:
    """The start of deal 2's winning line that takes at least ``cards`` cards home."""
    winning = solve("eight-off", WINNABLE_SEED)
    assert winning is not None
    game, line = new_game("eight-off", WINNABLE_SEED), []
    for move in winning:
        if game.score >= cards:
            break
        game.play(move)
        line.append(move)
    return line


async def play(racer: Racer, race_id: str, moves: list[str]) -> None:
    for seq, move in enumerate(moves, start=1):
        ack = await racer.request({"type": "move", "race_id": race_id, "seq": seq, "move": move})
        assert ack["type"] == "move_ack", ack


async def stored_rating(redis_url: str, player_id: str, game: str = "eight-off") -> dict[str, str]:
    client = async_redis(redis_url)
    try:
        return await client.hgetall(f"player:{player_id}:rating:{game}")
    finally:
        await client.aclose()


async def test_guests_cannot_create_or_join_a_rated_race(arena: ArenaServer) -> None:
    guest, member = await racers(arena.url, "guest", "member")
    await member.request({"type": "register", "username": "member_acct", "password": PASSWORD})
    refused = await guest.request({"type": "create_race", "game": "treize", "rated": True})
    assert refused == {
        "type": "error",
        "id": refused["id"],
        "code": "not_registered",
        "message": "rated races are for accounts: register or log in first",
    }
    created = await member.request({"type": "create_race", "game": "treize", "rated": True})
    assert created["race"]["rated"] is True and created["race"]["hints"] is False
    join = await guest.request({"type": "join_race", "code": created["race"]["code"]})
    assert join["code"] == "not_registered"
    # In a casual race too, an account without a rating in the game shows the one it
    # would start from, provisional; a guest shows none.
    casual = await guest.request({"type": "create_race", "game": "treize"})
    joined = await member.request({"type": "join_race", "code": casual["race"]["code"]})
    shown = {r["name"]: (r.get("rating"), r.get("provisional")) for r in joined["race"]["racers"]}
    assert shown == {"guest": (None, False), "member_acct": (1500, True)}
    hinted = await member.request({"type": "create_race", "game": "treize", "rated": True, "hints": True})
    assert hinted["code"] == "invalid_message" and hinted["message"] == "a rated race has no hints"
    await close(guest, member)


async def test_a_rated_race_of_two_updates_both_by_the_glicko2_numbers(
    arena: ArenaServer, clean_redis: str
) -> None:
    ada, bob = await accounts(arena.url, "ada", "bob")
    race_id = await seated(ada, [bob], rated=True)
    refused = await bob.request({"type": "get_hint", "race_id": race_id})
    assert (refused["code"], refused["message"]) == (
        "hints_off",
        "hints are off in this race: rated races never have them",
    )
    # A guest joining it is told first that it has started (an account could not join it either).
    (eve,) = await racers(arena.url, "eve")
    code = (await ada.request({"type": "get_race", "race_id": race_id}))["race"]["code"]
    late = await eve.request({"type": "join_race", "code": code})
    assert (late["code"], late["message"]) == ("race_not_open", "that race is no longer open: it has started")
    await close(eve)
    await play(ada, race_id, foundation_moves(2))
    await ada.request({"type": "finish", "race_id": race_id})
    await bob.request({"type": "finish", "race_id": race_id})
    ended = await ada.event("race_ended")
    winner, loser = rate(Rating(), [(Rating(), 1.0)]), rate(Rating(), [(Rating(), 0.0)])
    lines = {s["player_id"]: s for s in ended["summary"]["standings"]}
    assert ended["summary"]["rated"] is True
    assert lines[ada.player_id]["rank"] == 1 and lines[bob.player_id]["rank"] == 2
    assert lines[ada.player_id]["rating"] == round(winner.rating)
    assert lines[ada.player_id]["rating_change"] == round(winner.rating) - 1500
    assert lines[bob.player_id]["rating"] == round(loser.rating)
    assert lines[ada.player_id]["provisional"] is True and lines[bob.player_id]["provisional"] is True
    stored = await stored_rating(clean_redis, ada.player_id)
    assert float(stored["rating"]) == pytest.approx(winner.rating)
    assert float(stored["rd"]) == pytest.approx(winner.rd) and stored["games"] == "1"
    # The rating shows beside the name, provisional after one race.
    again = await ada.request({"type": "create_race", "game": "eight-off", "rated": True})
    racer = again["race"]["racers"][0]
    assert racer["rating"] == round(winner.rating) and racer["provisional"] is True
    await close(ada, bob)


async def test_a_three_racer_rated_race_is_two_games_for_each(arena: ArenaServer, clean_redis: str) -> None:
    ada, bob, cyd = await accounts(arena.url, "ada", "bob", "cyd")
    race_id = await seated(ada, [bob, cyd], rated=True)
    line = foundation_moves(3)
    await play(ada, race_id, line)  # 3 cards home: first
    await play(cyd, race_id, line[:1])  # 1 card home: second
    for racer in (ada, bob, cyd):
        await racer.request({"type": "finish", "race_id": race_id})
    ended = await bob.event("race_ended")
    ranks = {s["player_id"]: s["rank"] for s in ended["summary"]["standings"]}
    order = [ada.player_id, cyd.player_id, bob.player_id]
    assert [ranks[p] for p in order] == [1, 2, 3]
    games = pairwise_results([1, 2, 3])
    for index, player_id in enumerate(order):
        expected = rate(Rating(), [(Rating(), score) for _other, score in games[index]])
        stored = await stored_rating(clean_redis, player_id)
        assert float(stored["rating"]) == pytest.approx(expected.rating), player_id
        assert float(stored["rd"]) == pytest.approx(expected.rd)
    await close(ada, bob, cyd)


async def test_a_casual_race_changes_no_rating(arena: ArenaServer, clean_redis: str) -> None:
    ada, bob = await accounts(arena.url, "ada", "bob")
    race_id = await seated(ada, [bob])
    await play(ada, race_id, foundation_moves(1))
    await ada.request({"type": "finish", "race_id": race_id})
    await bob.request({"type": "finish", "race_id": race_id})
    ended = await ada.event("race_ended")
    assert ended["summary"]["rated"] is False
    assert all("rating" not in s for s in ended["summary"]["standings"])
    assert await stored_rating(clean_redis, ada.player_id) == {}
    await close(ada, bob)


async def test_a_race_ended_by_two_nodes_at_once_is_rated_once(arena: ArenaServer, clean_redis: str) -> None:
    ada, bob = await accounts(arena.url, "ada", "bob")
    race_id = await seated(ada, [bob], rated=True)
    await play(ada, race_id, foundation_moves(1))
    async with running_node(clean_redis) as other:
        assert arena.features is not None and other.features is not None
        await asyncio.gather(
            arena.features.results.end(race_id),
            other.features.results.end(race_id),
            arena.features.results.end(race_id),
        )
    for racer in (ada, bob):
        stored = await stored_rating(clean_redis, racer.player_id)
        assert stored["games"] == "1"
    expected = rate(Rating(), [(Rating(), 1.0)])
    assert float((await stored_rating(clean_redis, ada.player_id))["rating"]) == pytest.approx(
        expected.rating
    )
    await close(ada, bob)


async def test_an_end_cut_short_by_a_dead_node_is_finished_by_another_and_rated_once(
    arena: ArenaServer, clean_redis: str
) -> None:
    ada, bob = await accounts(arena.url, "ada", "bob")
    race_id = await seated(ada, [bob], rated=True)
    assert arena.store is not None and arena.features is not None
    # This node began the end and died before completing it: the race is left 'ending',
    # due now on the clock's list (as end() leaves it), and this node's clock is gone.
    await arena.features.clock.stop()
    now = arena.time.now_ms()
    await arena.store.deadlines.set(race_id, now)
    assert await arena.store.races.begin_end(race_id, now)
    async with running_node(clean_redis) as other:  # its clock finds the race due
        ended = await ada.event("race_ended", timeout=5)
        assert ended["race_id"] == race_id
        assert other.features is not None
        await other.features.results.end(race_id)  # once more: nothing changes
    for racer in (ada, bob):
        assert (await stored_rating(clean_redis, racer.player_id))["games"] == "1"
    await close(ada, bob)


async def test_hints_are_refused_in_a_rated_race(arena: ArenaServer) -> None:
    ada, bob = await accounts(arena.url, "ada", "bob")
    race_id = await seated(ada, [bob], rated=True)
    refused = await ada.request({"type": "get_hint", "race_id": race_id})
    assert refused["type"] == "error" and refused["code"] == "hints_off"
    await close(ada, bob)


async def test_a_race_whose_ratings_cannot_be_computed_still_ends_with_ratings_unchanged(
    arena: ArenaServer, clean_redis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As glicko2.rate once did for ratings far apart: the same failure on every attempt
    # left the race 'ending' for good, retried on every clock tick.
    def fails(*_args: object) -> None:
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr("server.features.results.new_ratings", fails)
    ada, bob = await accounts(arena.url, "ada", "bob")
    race_id = await seated(ada, [bob], rated=True)
    await play(ada, race_id, foundation_moves(1))
    for racer in (ada, bob):
        await racer.request({"type": "finish", "race_id": race_id})
    ended = await ada.event("race_ended", timeout=5)
    assert ended["summary"]["rated"] is True
    assert [(s["rank"], "rating" in s, "rating_change" in s) for s in ended["summary"]["standings"]] == [
        (1, False, False),
        (2, False, False),
    ]
    assert await stored_rating(clean_redis, ada.player_id) == {}
    await close(ada, bob)


async def test_each_rated_race_is_a_rating_period_and_each_whole_idle_day_widens_the_deviation_before_it(
    arena: ArenaServer, clean_redis: str
) -> None:
    ada, bob = await accounts(arena.url, "ada", "bob")
    now = arena.time.now_ms()
    client = async_redis(clean_redis)
    try:
        # ada's last rated race ended two and a half days ago, bob's an hour ago.
        for racer, rating, rd, ago in (
            (ada, 1600.0, 80.0, 5 * ratings.DAY_MS // 2),
            (bob, 1550.0, 90.0, 3_600_000),
        ):
            await client.hset(
                f"player:{racer.player_id}:rating:eight-off",
                mapping={"rating": rating, "rd": rd, "volatility": 0.06, "games": 20, "last_at": now - ago},
            )
    finally:
        await client.aclose()

    async def race(winner: Racer) -> None:
        race_id = await seated(ada, [bob], rated=True)
        await play(winner, race_id, foundation_moves(1))
        for racer in (ada, bob):
            await racer.request({"type": "finish", "race_id": race_id})
        await ada.event("race_ended")

    async def rating(racer: Racer) -> Rating:
        stored = await stored_rating(clean_redis, racer.player_id)
        return Rating(float(stored["rating"]), float(stored["rd"]), float(stored["volatility"]))

    # ada's deviation first grows by two idle periods (the half day is dropped), bob's by none.
    ada_before, bob_before = decay(Rating(1600, 80), periods=2), Rating(1550, 90)
    await race(ada)
    ada_first, bob_first = rate(ada_before, [(bob_before, 1.0)]), rate(bob_before, [(ada_before, 0.0)])
    for racer, expected in ((ada, ada_first), (bob, bob_first)):
        assert (await rating(racer)).rating == pytest.approx(expected.rating)
        assert (await rating(racer)).rd == pytest.approx(expected.rd)
    # The next race, moments later, is a period of its own: from the first one's ratings,
    # not with the first one's game in one period of the day.
    await race(bob)
    for racer, expected in (
        (ada, rate(ada_first, [(bob_first, 0.0)])),
        (bob, rate(bob_first, [(ada_first, 1.0)])),
    ):
        assert (await rating(racer)).rating == pytest.approx(expected.rating)
        assert (await rating(racer)).rd == pytest.approx(expected.rd)
    day = rate(bob_before, [(ada_before, 0.0), (ada_first, 1.0)])
    assert (await rating(bob)).rating != pytest.approx(day.rating)
    await close(ada, bob)


def test_the_docs_say_a_rated_race_is_a_rating_period_not_a_day() -> None:
    protocol = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    section = protocol.split("\n## Ratings\n")[1].split("\n## ")[0]
    for text in (section, ratings.__doc__ or ""):
        words = " ".join(text.split())
        assert "Each rated race is one Glicko-2 rating period" in words
        assert "for each whole day (24 hours) since" in words
        assert "period is a day" not in words


async def lobby(creator: Racer, others: list[Racer], ready: list[Racer], **settings: Any) -> str:
    """A race ``creator`` made with ``others`` seated; those of ``ready`` said ready."""
    created = await creator.request(
        {"type": "create_race", "game": "eight-off", "seats": 1 + len(others), **settings}
    )
    race_id: str = created["race"]["race_id"]
    for other in others:
        assert (await other.request({"type": "join_race", "code": created["race"]["code"]}))["type"] == "race"
    for racer in ready:
        assert (await racer.request({"type": "ready", "race_id": race_id}))["type"] == "ok"
    return race_id


async def test_a_rated_start_leaves_out_the_racers_not_ready_and_tells_them(
    arena: ArenaServer, clean_redis: str
) -> None:
    """The cheat: dan joined, never got ready and went away (still seated in his lobby
    grace); the creator starts, scores a little and gives up. A rated race starts with its
    ready racers only: dan and cyd (connected, not ready) are unseated, told why in the
    race_update, and hear nothing more of the race; nobody's rating moves for them."""
    ada, bob, cyd, dan = await accounts(arena.url, "ada", "bob", "cyd", "dan")
    race_id = await lobby(ada, [bob, cyd, dan], ready=[ada, bob], rated=True)
    await close(dan)
    assert (await ada.request({"type": "start_race", "race_id": race_id}))["type"] == "ok"
    update = await cyd.event("race_update")
    while "left_out" not in update:
        update = await cyd.event("race_update")
    assert sorted(update["left_out"]) == sorted([cyd.player_id, dan.player_id])
    assert [r["name"] for r in update["race"]["racers"]] == ["ada_acct", "bob_acct"]
    assert update["race"]["status"] == "open"  # told before the countdown
    await bob.event("race_started")
    await play(ada, race_id, foundation_moves(2))
    for racer in (ada, bob):
        await racer.request({"type": "finish", "race_id": race_id})
    ended = await bob.event("race_ended")
    assert [s["player_id"] for s in ended["summary"]["standings"]] == [ada.player_id, bob.player_id]
    assert await stored_rating(clean_redis, dan.player_id) == {}
    assert await stored_rating(clean_redis, cyd.player_id) == {}
    mine = await cyd.request({"type": "list_my_races"})  # the frames before its reply kept
    assert mine["races"] == []
    heard = [e["type"] for e in cyd.events]
    assert not any(kind in heard for kind in ("race_countdown", "race_started", "progress", "race_ended"))
    await close(ada, bob, cyd)


async def test_a_rated_start_needs_two_ready_racers_the_creator_among_them(arena: ArenaServer) -> None:
    ada, bob, cyd = await accounts(arena.url, "ada", "bob", "cyd")
    race_id = await lobby(ada, [bob, cyd], ready=[ada], rated=True)
    refused = await ada.request({"type": "start_race", "race_id": race_id})
    assert sorted(refused) == ["code", "id", "message", "type"] and refused["type"] == "error"
    assert (refused["code"], refused["message"]) == (
        "not_enough_racers",
        "a rated race starts with its ready racers, at least 2: 1 is ready",
    )
    await ada.request({"type": "ready", "race_id": race_id, "ready": False})
    await bob.request({"type": "ready", "race_id": race_id})
    await cyd.request({"type": "ready", "race_id": race_id})
    refused = await ada.request({"type": "start_race", "race_id": race_id})
    assert (refused["code"], refused["message"]) == (
        "not_enough_racers",
        "a rated race starts with its ready racers: get ready first",
    )
    info = (await bob.request({"type": "get_race", "race_id": race_id}))["race"]
    assert info["status"] == "open" and len(info["racers"]) == 3  # nobody unseated
    await close(ada, bob, cyd)


async def test_a_racer_who_gets_ready_during_a_rated_start_races(arena: ArenaServer) -> None:
    """cyd gets ready just as the start unseats those not ready: the step that unseats
    checks readiness itself, so she stays and races."""
    ada, bob, cyd = await accounts(arena.url, "ada", "bob", "cyd")
    race_id = await lobby(ada, [bob, cyd], ready=[ada, bob], rated=True)
    races = arena.features.lobby.store.races
    leave = races.leave

    async def ready_first(race: str, player_id: str, ttl: int, only_unready: bool = False) -> Any:
        await races.set_ready(race, player_id, True)
        return await leave(race, player_id, ttl, only_unready)

    races.leave = ready_first  # type: ignore[method-assign]
    try:
        assert (await ada.request({"type": "start_race", "race_id": race_id}))["type"] == "ok"
    finally:
        races.leave = leave  # type: ignore[method-assign]
    started = await cyd.event("race_started")
    assert started["race_id"] == race_id
    info = (await ada.request({"type": "get_race", "race_id": race_id}))["race"]
    assert sorted(r["name"] for r in info["racers"]) == ["ada_acct", "bob_acct", "cyd_acct"]
    await close(ada, bob, cyd)

"""Leaderboards and profiles, on raw frames: order, the reader's own rank, provisional
ratings kept off, and a profile after a few races."""

from __future__ import annotations

import json

import pytest

from server.app import ArenaServer
from server.features.glicko2 import Rating, rate
from server.store import keys
from tests.redis_direct import async_redis
from tests.server.rawclient import racers
from tests.server.test_ratings import accounts, close, foundation_moves, play, seated


async def seed_ratings(redis_url: str, players: dict[str, tuple[str, float, float]], now: int) -> None:
    """Accounts with settled ratings in eight off, written as a race's end writes them."""
    client = async_redis(redis_url)
    try:
        for player_id, (name, rating, rd) in players.items():
            await client.hset(f"player:{player_id}", mapping={"name": name, "username": name})
            await client.hset(
                f"player:{player_id}:rating:eight-off",
                mapping={"rating": rating, "rd": rd, "volatility": 0.06, "games": 30, "last_at": now},
            )
            await client.zadd("leaderboard:eight-off", {player_id: rating})
    finally:
        await client.aclose()


async def test_the_leaderboard_is_best_first_with_pages_and_my_own_rank(
    arena: ArenaServer, clean_redis: str
) -> None:
    (me,) = await accounts(arena.url, "reader")
    now = arena.time.now_ms()
    field = {f"p_{i:02d}": (f"player{i:02d}", 1400.0 + 10 * i, 60.0) for i in range(30)}
    field[me.player_id] = ("reader_acct", 1655.0, 70.0)
    await seed_ratings(clean_redis, field, now)
    first = await me.request({"type": "get_leaderboard", "game": "eight-off", "limit": 10})
    assert first["type"] == "leaderboard" and first["total"] == 31 and first["next_offset"] == 10
    assert [e["rank"] for e in first["entries"]] == list(range(1, 11))
    assert [e["name"] for e in first["entries"][:3]] == ["player29", "player28", "player27"]
    top = {"rank": 1, "player_id": "p_29", "name": "player29", "bot": False, "rating": 1690, "rd": 60}
    assert first["entries"][0] == {**top, "games": 30}
    # 1655 comes after 1690, 1680, 1670 and 1660: fifth place.
    assert first["me"]["rank"] == 5 and first["me"]["rating"] == 1655
    assert [e["name"] for e in first["entries"]][4] == "reader_acct"
    last = await me.request({"type": "get_leaderboard", "game": "eight-off", "offset": 30, "limit": 10})
    assert [e["name"] for e in last["entries"]] == ["player00"] and "next_offset" not in last
    empty = await me.request({"type": "get_leaderboard", "game": "treize"})
    assert empty["total"] == 0 and empty["entries"] == [] and "me" not in empty
    await close(me)


async def test_equal_ratings_share_a_rank_on_every_page_and_in_my_own(
    arena: ArenaServer, clean_redis: str
) -> None:
    (me,) = await accounts(arena.url, "reader")
    field = {
        "p_a": ("ann", 1700.0, 60.0),
        "p_b": ("ben", 1650.0, 60.0),
        "p_c": ("cat", 1650.0, 60.0),  # the same rating exactly: listed by player id, last first
        "p_d": ("dan", 1649.7, 60.0),  # shows 1650 too
        "p_e": ("eve", 1601.5, 60.0),  # shows 1602 (round() takes a half to the even neighbour)
        "p_f": ("fay", 1600.5, 60.0),  # shows 1600
        me.player_id: ("reader_acct", 1600.0, 60.0),
        "p_g": ("gus", 1599.6, 60.0),  # shows 1600
        "p_h": ("hal", 1599.4, 60.0),  # shows 1599
    }
    await seed_ratings(clean_redis, field, arena.time.now_ms())
    pages = []
    for offset, limit in ((0, 3), (3, 3), (6, 3), (2, 2), (8, 1), (0, 9)):
        page = await me.request(
            {"type": "get_leaderboard", "game": "eight-off", "offset": offset, "limit": limit}
        )
        assert page["me"]["rank"] == 6 and page["me"]["rating"] == 1600, page
        pages.append([(e["rank"], e["name"], e["rating"]) for e in page["entries"]])
    assert pages[-1] == [
        (1, "ann", 1700),
        (2, "cat", 1650),
        (2, "ben", 1650),
        (2, "dan", 1650),
        (5, "eve", 1602),
        (6, "fay", 1600),
        (6, "reader_acct", 1600),
        (6, "gus", 1600),
        (9, "hal", 1599),
    ]
    # Each page alone ranks its entries as the whole board does, a tie across pages too.
    assert pages[:3] == [pages[-1][0:3], pages[-1][3:6], pages[-1][6:9]]
    assert pages[3:5] == [pages[-1][2:4], pages[-1][8:9]]
    await close(me)


async def test_a_rated_race_puts_every_racers_new_rating_on_the_leaderboard(
    arena: ArenaServer, clean_redis: str
) -> None:
    ada, bob, cyd = await accounts(arena.url, "ada", "bob", "cyd")
    settled = {
        r.player_id: (f"{n}_acct", 1600.0, 50.0) for r, n in ((ada, "ada"), (bob, "bob"), (cyd, "cyd"))
    }
    await seed_ratings(clean_redis, settled, arena.time.now_ms())
    race_id = await seated(ada, [bob, cyd], rated=True)
    await play(cyd, race_id, foundation_moves(1))
    for racer in (ada, bob, cyd):
        await racer.request({"type": "finish", "race_id": race_id})
    await ada.event("race_ended")
    client = async_redis(clean_redis)
    try:
        listed = dict(await client.zrange("leaderboard:eight-off", 0, -1, withscores=True))
        for racer in (ada, bob, cyd):
            rating = float(await client.hget(f"player:{racer.player_id}:rating:eight-off", "rating"))
            assert listed[racer.player_id] == pytest.approx(rating) and rating != 1600.0, racer.player_id
    finally:
        await client.aclose()
    await close(ada, bob, cyd)


async def test_the_leaderboard_read_just_after_a_rated_race_shows_the_new_ratings_on_its_page(
    arena: ArenaServer, clean_redis: str
) -> None:
    ada, bob = await accounts(arena.url, "ada", "bob")
    now = arena.time.now_ms()
    await seed_ratings(
        clean_redis,
        {ada.player_id: ("ada_acct", 1600.0, 50.0), bob.player_id: ("bob_acct", 1610.0, 50.0)},
        now,
    )
    before = await ada.request({"type": "get_leaderboard", "game": "eight-off"})
    assert [e["name"] for e in before["entries"]] == ["bob_acct", "ada_acct"]
    race_id = await seated(ada, [bob], rated=True)
    await play(ada, race_id, foundation_moves(1))
    for racer in (ada, bob):
        await racer.request({"type": "finish", "race_id": race_id})
    ended = await ada.event("race_ended")
    new = {s["name"]: s["rating"] for s in ended["summary"]["standings"]}
    after = await ada.request({"type": "get_leaderboard", "game": "eight-off"})  # at once
    assert [(e["name"], e["rating"]) for e in after["entries"]] == [
        ("ada_acct", new["ada_acct"]),
        ("bob_acct", new["bob_acct"]),
    ]
    assert after["me"]["rank"] == 1 and after["me"]["rating"] == new["ada_acct"]
    await close(ada, bob)


async def test_provisional_ratings_stay_off_the_leaderboard(arena: ArenaServer) -> None:
    ada, bob = await accounts(arena.url, "ada", "bob")
    race_id = await seated(ada, [bob], rated=True)
    await play(ada, race_id, foundation_moves(1))
    await ada.request({"type": "finish", "race_id": race_id})
    await bob.request({"type": "finish", "race_id": race_id})
    await ada.event("race_ended")
    board = await ada.request({"type": "get_leaderboard", "game": "eight-off"})
    assert board["total"] == 0 and "me" not in board
    await close(ada, bob)


async def test_a_profile_after_a_few_races(arena: ArenaServer) -> None:
    ada, bob = await accounts(arena.url, "ada", "bob")
    rated = await seated(ada, [bob], rated=True)
    await play(ada, rated, foundation_moves(2))
    for racer in (ada, bob):
        await racer.request({"type": "finish", "race_id": rated})
    await ada.event("race_ended")
    casual = await seated(bob, [ada])
    for racer in (ada, bob):
        await racer.request({"type": "finish", "race_id": casual})
    await ada.event("race_ended")
    reply = await bob.request({"type": "get_profile", "username": "ADA_ACCT"})
    profile = reply["profile"]
    assert (
        profile["player_id"] == ada.player_id
        and profile["username"] == "ada_acct"
        and profile["bot"] is False
    )
    winner = rate(Rating(), [(Rating(), 1.0)])
    (rating,) = profile["ratings"]
    assert rating["game"] == "eight-off" and rating["rating"] == round(winner.rating)
    assert rating["rd"] == round(winner.rd) and rating["provisional"] is True and rating["games"] == 1
    assert [p["race_id"] for p in rating["history"]] == [rated]
    assert profile["stats"] == [{"game": "eight-off", "races": 2, "wins": 0}]
    assert [r["race_id"] for r in profile["recent"]] == [casual, rated]
    assert profile["recent"][1]["rated"] is True and profile["recent"][1]["rank"] == 1
    assert profile["recent"][1]["rating_change"] == round(winner.rating) - 1500
    assert "rating_change" not in profile["recent"][0]
    own = await ada.request({"type": "get_profile"})
    assert own["profile"]["player_id"] == ada.player_id
    await close(ada, bob)


async def test_recent_races_say_who_gave_up_apart_from_who_won_or_played_to_the_time_limit(
    arena: ArenaServer,
) -> None:
    """ada wins, bob gives up, cyd is still playing when the time runs out: only bob's
    recent race says ``gave_up``."""
    ada, bob, cyd = await racers(arena.url, "ada", "bob", "cyd")
    race_id = await seated(ada, [bob, cyd], time_limit=1.5)
    assert (await bob.request({"type": "finish", "race_id": race_id}))["type"] == "ok"
    await play(ada, race_id, foundation_moves(52))
    for racer in (cyd, ada, bob):  # read every event, so each connection closes at once
        await racer.event("race_ended", timeout=5)
    for racer, won, gave_up in ((ada, True, False), (bob, False, True), (cyd, False, False)):
        profile = (await cyd.request({"type": "get_profile", "player_id": racer.player_id}))["profile"]
        (recent,) = profile["recent"]
        assert (recent["race_id"], recent["won"], recent["gave_up"]) == (race_id, won, gave_up), profile[
            "name"
        ]
    await close(ada, bob, cyd)


async def test_a_recent_race_says_when_its_rank_is_shared(arena: ArenaServer) -> None:
    """ada takes a card home, bob and cyd give up at 0: ada is 1st alone, bob and cyd tied
    2nd. Then nobody scores: all three tied 1st (not a win)."""
    ada, bob, cyd = await accounts(arena.url, "ada", "bob", "cyd")
    for scorer in (ada, None):
        race_id = await seated(ada, [bob, cyd], rated=True)
        if scorer is not None:
            await play(scorer, race_id, foundation_moves(1))
        for racer in (ada, bob, cyd):
            await racer.request({"type": "finish", "race_id": race_id})
        for racer in (ada, bob, cyd):
            await racer.event("race_ended")
    places = {}
    for racer in (ada, bob, cyd):
        profile = (await ada.request({"type": "get_profile", "player_id": racer.player_id}))["profile"]
        places[profile["name"]] = [(r["rank"], r["racers"], r["tied"], r["won"]) for r in profile["recent"]]
    assert places == {  # the latest first
        "ada_acct": [(1, 3, True, False), (1, 3, False, False)],
        "bob_acct": [(1, 3, True, False), (2, 3, True, False)],
        "cyd_acct": [(1, 3, True, False), (2, 3, True, False)],
    }
    await close(ada, bob, cyd)


async def test_a_recent_race_stored_before_gave_up_was_recorded_reads_as_not_given_up(
    arena: ArenaServer, clean_redis: str
) -> None:
    (ada,) = await racers(arena.url, "ada")
    old = {"race_id": "r_old", "game": "treize", "rated": False, "rank": 2, "racers": 2}
    client = async_redis(clean_redis)
    try:
        row = {**old, "won": False, "score": 4, "ended_at": 1_000}
        await client.lpush(keys.player_recent(ada.player_id), json.dumps(row))
    finally:
        await client.aclose()
    (recent,) = (await ada.request({"type": "get_profile"}))["profile"]["recent"]
    assert recent["race_id"] == "r_old" and recent["gave_up"] is False and recent["tied"] is False
    await close(ada)


async def test_a_guest_has_a_profile_without_a_username_and_no_one_else_is_found(arena: ArenaServer) -> None:
    (guest,) = await racers(arena.url, "wanderer")
    reply = await guest.request({"type": "get_profile"})
    assert reply["profile"]["name"] == "wanderer" and "username" not in reply["profile"]
    assert reply["profile"]["ratings"] == [] and reply["profile"]["recent"] == []
    missing = await guest.request({"type": "get_profile", "username": "nobody_at_all"})
    assert (
        missing["code"] == "player_not_found" and missing["message"] == "no account is named 'nobody_at_all'"
    )
    unknown = await guest.request({"type": "get_profile", "player_id": "p_0000"})
    assert unknown["code"] == "player_not_found"
    await close(guest)


@pytest.mark.parametrize("limit", [0, 101])
async def test_a_leaderboard_page_is_1_to_100_long(arena: ArenaServer, limit: int) -> None:
    (reader,) = await racers(arena.url, "reader")
    reply = await reader.request({"type": "get_leaderboard", "game": "treize", "limit": limit})
    assert reply["code"] == "invalid_message"
    await close(reader)

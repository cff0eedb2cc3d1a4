"""The open-race list: capped per player, filtered before it is cut, paged, cheap; and a
player's own races, whichever of their sessions joined them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from websockets.asyncio.client import connect as ws_connect

from client.sdk import ArenaClient, ArenaError
from server.app import ArenaServer
from server.timesource import ManualTime
from tests.redis_direct import ON_CLUSTER, async_redis
from tests.server.conftest import Connect, running_node
from tests.server.rawclient import Racer, racers
from tests.server.test_ratings import seated


async def named(connect: Connect, url: str, name: str) -> ArenaClient:
    client = await connect(url)
    await client.hello(name=name)
    return client


async def test_a_player_sits_in_at_most_three_open_races(arena: ArenaServer, connect: Connect) -> None:
    ada = await named(connect, arena.url, "ada")
    for _ in range(3):
        await ada.create_race("treize")
    async with ws_connect(arena.url, compression=None) as ws:
        await ws.send(json.dumps({"type": "hello", "id": 1, "token": ada.token}))
        await ws.recv()
        await ws.send(json.dumps({"type": "create_race", "id": 2, "game": "treize"}))
        reply = json.loads(await ws.recv())
    assert reply["type"] == "error" and reply["code"] == "too_many_races"
    assert reply["message"] == "you sit in 3 open races already: start or leave one before another"
    bob = await named(connect, arena.url, "bob")
    other = await bob.create_race("eight-off")
    try:
        await ada.join_race(other.code)
        raise AssertionError("a fourth open race was joined")
    except ArenaError as exc:
        assert exc.code == "too_many_races"


async def test_creating_and_leaving_in_a_loop_is_cut_at_the_creation_rate(clean_redis: str) -> None:
    clock = ManualTime(1_800_000_045_500)  # 45.5 s into a minute: the count starts again in 14.5 s
    node_running = running_node(clean_redis, create_rate=5, time=clock)
    async with node_running as node, ws_connect(node.url, compression=None) as ws:
        await ws.send(json.dumps({"type": "hello", "id": 0, "name": "looper"}))
        await ws.recv()
        for n in range(5):
            await ws.send(json.dumps({"type": "create_race", "id": n, "game": "treize"}))
            created = json.loads(await ws.recv())
            assert created["type"] == "race"
            await ws.send(
                json.dumps({"type": "leave_race", "id": f"l{n}", "race_id": created["race"]["race_id"]})
            )
            assert json.loads(await ws.recv())["type"] == "ok"
        await ws.send(json.dumps({"type": "create_race", "id": 9, "game": "treize"}))
        refused = json.loads(await ws.recv())
        assert refused == {
            "type": "error",
            "id": 9,
            "code": "rate_limited",
            "message": "a player may create 5 races a minute: one more in 15 s, or join one",
        }


async def test_the_list_is_filtered_by_game_before_it_is_cut(arena: ArenaServer, connect: Connect) -> None:
    for name in ("ada", "bob", "cy"):
        player = await named(connect, arena.url, name)
        for _ in range(3):
            await player.create_race("treize")
    dee = await named(connect, arena.url, "dee")
    mine = await dee.create_race("eight-off")
    listed = await dee.list_races("eight-off", limit=5)
    assert [r.race_id for r in listed] == [mine.race_id]
    assert len(await dee.list_races("treize", limit=50)) == 9


async def test_the_list_comes_in_pages_oldest_first(arena: ArenaServer, connect: Connect) -> None:
    created = []
    for name in ("ada", "bob"):
        player = await named(connect, arena.url, name)
        for _ in range(3):
            created.append((await player.create_race("eagle-wing")).race_id)
    seen: list[str] = []
    offset: int | None = 0
    pages = 0
    while offset is not None:
        page = await player.race_page("eagle-wing", offset=offset, limit=4)
        seen += [r.race_id for r in page.races]
        offset, pages = page.next_offset, pages + 1
    assert seen == created and pages == 2


@pytest.mark.skipif(ON_CLUSTER, reason="counts the commands of one Redis server")
async def test_a_listing_reads_one_index_and_each_listed_race_once(
    arena: ArenaServer, connect: Connect
) -> None:
    ada = await named(connect, arena.url, "ada")
    for _ in range(3):
        await ada.create_race("treize")
    client = async_redis(arena.settings.redis_url)

    async def calls() -> dict[str, int]:
        stats = await client.info("commandstats")
        return {name: int(value["calls"]) for name, value in stats.items()}

    async def listing() -> dict[str, int]:
        before = await calls()
        assert len(await ada.list_races()) == 3
        after = await calls()
        spent = {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)}
        # The test's own INFO, and a connection the node opened or checked meanwhile (its
        # handshake and health-check PING are not the listing's reads).
        # The node's clocks poll their due sets (deadlines, rematches, lobby seats to free)
        # by score several times a second; a listing reads by rank and never so.
        for other in (
            "cmdstat_info", "cmdstat_hello", "cmdstat_ping", "cmdstat_client|setinfo", "cmdstat_zrangebyscore"
        ):  # fmt: skip
            spent.pop(other, None)
        return spent

    # A clock's other reads (when something falls due) may also fall within a listing: a
    # few listings, and one of them must read exactly this. Reads the listing itself did
    # beyond it would be in every one.
    wanted = {"cmdstat_zrange": 1, "cmdstat_hgetall": 6}
    spent = [await listing() for _ in range(5)]
    await client.aclose()
    assert wanted in spent, spent


async def my_races(racer: Racer) -> dict[str, Any]:
    """The player's ``my_races`` reply, without its request id."""
    reply = await racer.request({"type": "list_my_races"})
    del reply["id"]
    return reply


async def test_a_player_lists_the_races_they_sit_in_and_their_queue_whichever_session_joined(
    arena: ArenaServer,
) -> None:
    """Another session of the player (a tab, a device) creates, queues, joins and races:
    ``list_my_races`` on this one says where they sit until each race is over."""
    here, bob = await racers(arena.url, "ada", "bob")
    there = Racer(await ws_connect(arena.url, compression=None))
    await there.request({"type": "hello", "token": here.token})
    assert await my_races(here) == {"type": "my_races", "races": []}
    created = (await there.request({"type": "create_race", "game": "treize"}))["race"]["race_id"]
    queued = await there.request({"type": "quick_match", "game": "eight-off"})
    assert await my_races(here) == {
        "type": "my_races",
        "races": [created],
        "queued": {"game": "eight-off", "ticket": queued["ticket"], "rated": False},
    }
    await there.request({"type": "cancel_quick_match"})
    raced = await seated(bob, [there])
    assert await my_races(here) == {"type": "my_races", "races": sorted([created, raced])}
    for racer in (there, bob):
        await racer.request({"type": "finish", "race_id": raced})
    await bob.event("race_ended")
    assert await my_races(here) == {"type": "my_races", "races": [created]}
    for racer in (here, there, bob):
        await racer.ws.close()


async def test_a_viewer_has_no_races_of_its_own_to_list(arena: ArenaServer) -> None:
    async with ws_connect(arena.url, compression=None) as ws:
        await ws.send(json.dumps({"type": "hello", "id": 1, "viewer": True}))
        await ws.recv()
        await ws.send(json.dumps({"type": "list_my_races", "id": 2}))
        refused = json.loads(await ws.recv())
    assert (refused["type"], refused["code"]) == ("error", "hello_required")

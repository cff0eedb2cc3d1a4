"""Nodes that die without closing their connections: the others notice the missing
heartbeat, and the dead node's players leave their open races after the lobby grace,
unless they are connected to a live node. Real processes, SIGKILL, raw frames."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from pathlib import Path

import pytest
import redis.exceptions
from websockets.asyncio.client import connect as ws_connect

from server.app import ArenaServer
from server.redis_embedded import EmbeddedRedis
from tests.redis_direct import sync_redis
from tests.server.conftest import NodeProcess, running_node, start_node
from tests.server.rawclient import Frame, Racer, racers
from tests.server.test_spectating import raw_race

BEAT = 0.1
GRACE = 1.0
#: The heartbeat and grace of the node processes, as the in-process nodes have them.
FAST_ENV = {"SA_NODE_BEAT": str(BEAT), "SA_LOBBY_GRACE": str(GRACE)}


async def open_race(creator: Racer, *joiners: Racer) -> Frame:
    race = await creator.request({"type": "create_race", "game": "treize", "seats": 4, "time_limit": 60})
    assert race["type"] == "race", race
    for joiner in joiners:
        joined = await joiner.request({"type": "join_race", "code": race["race"]["code"]})
        assert joined["type"] == "race", joined
    await racers_once(creator, 1 + len(joiners))  # the last join's update, and those before
    creator.events.clear()
    return race["race"]


async def racers_once(watcher: Racer, count: int, timeout: float = 10.0) -> list[str]:
    """The racers of the first ``race_update`` the watcher gets with ``count`` of them."""
    async with asyncio.timeout(timeout):
        while True:
            update = await watcher.event("race_update", timeout=timeout)
            seated = [r["player_id"] for r in update["race"]["racers"]]
            if len(seated) == count:
                return seated


async def player(url: str, name: str) -> tuple[Racer, str]:
    """A new guest's connection, and their token."""
    racer = Racer(await ws_connect(url, compression=None))
    welcome = await racer.request({"type": "hello", "name": name})
    assert welcome["type"] == "welcome", welcome
    racer.player_id = welcome["player_id"]
    return racer, welcome["token"]


async def again(url: str, token: str, player_id: str) -> Racer:
    """Another connection of the player with ``token``."""
    racer = Racer(await ws_connect(url, compression=None))
    welcome = await racer.request({"type": "hello", "token": token})
    assert welcome["player_id"] == player_id, welcome
    racer.player_id = player_id
    return racer


async def until(check: Callable[[], bool], timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.02)


async def received(racer: Racer) -> list[Frame]:
    """Every frame the racer was sent so far, those kept while waiting for replies first."""
    frames, racer.events = racer.events, []
    while True:
        try:
            frames.append(json.loads(await asyncio.wait_for(racer.ws.recv(), 0.3)))
        except TimeoutError:
            return frames


async def killed(node: NodeProcess) -> None:
    await asyncio.to_thread(node.kill)


async def test_a_sigkilled_nodes_player_leaves_the_open_race_after_the_grace(clean_redis: str) -> None:
    async with running_node(clean_redis, node_beat=BEAT, lobby_grace=GRACE, node_id="alive") as live:
        doomed = await asyncio.to_thread(start_node, None, clean_redis, None, FAST_ENV)
        try:
            (ada,) = await racers(live.url, "ada")
            (bob,) = await racers(doomed.url, "bob")
            race = await open_race(ada, bob)
            await killed(doomed)  # bob's connection is never closed by his node
            assert await racers_once(ada, 1) == [ada.player_id]
            listed = await ada.request({"type": "get_race", "race_id": race["race_id"]})
            assert [r["player_id"] for r in listed["race"]["racers"]] == [ada.player_id]
            probe = sync_redis(clean_redis, decode_responses=True)
            assert probe.zrange("nodes", 0, -1) == ["alive"]
            assert list(probe.scan_iter(match="node:*:players")) == ["node:alive:players"]
            assert "arena_dead_nodes_total 1.0" in live.metrics.render().decode()
            probe.close()
            await ada.ws.close()
        finally:
            doomed.kill()


async def test_the_racers_count_of_spectators_drops_those_of_a_sigkilled_node(clean_redis: str) -> None:
    async with running_node(clean_redis, node_beat=BEAT, lobby_grace=GRACE, node_id="alive") as live:
        doomed = await asyncio.to_thread(start_node, None, clean_redis, None, FAST_ENV)
        try:
            ada, bob = await racers(live.url, "ada", "bob")
            (sam,) = await racers(doomed.url, "sam")
            race_id, _ = await raw_race(ada, bob)
            assert (await sam.request({"type": "watch", "race_id": race_id}))["type"] == "watching"
            assert (await ada.event("spectators"))["count"] == 1
            await killed(doomed)  # sam's node never says he left
            assert await ada.event("spectators") == {"type": "spectators", "race_id": race_id, "count": 0}
            info = await bob.request({"type": "get_race", "race_id": race_id})
            assert info["race"]["spectators"] == 0
            await ada.ws.close()
            await bob.ws.close()
        finally:
            doomed.kill()


async def test_a_dead_nodes_player_still_connected_to_a_live_node_keeps_the_seat(clean_redis: str) -> None:
    async with running_node(clean_redis, node_beat=BEAT, lobby_grace=GRACE) as live:
        doomed = await asyncio.to_thread(start_node, None, clean_redis, None, FAST_ENV)
        try:
            (ada,) = await racers(live.url, "ada")
            bob, bob_token = await player(live.url, "bob")
            (carl,) = await racers(doomed.url, "carl")
            bob_there = await again(doomed.url, bob_token, bob.player_id)
            race = await open_race(ada, bob_there, carl)
            await killed(doomed)
            # carl, on the dead node alone, leaves; bob, on the live one too, stays (two
            # more of the lobby's sweeps looked at everyone gone).
            assert await racers_once(ada, 2) == [ada.player_id, bob.player_id]
            await asyncio.sleep(GRACE)
            assert not [e for e in ada.events if e["type"] == "race_update"]
            listed = await ada.request({"type": "get_race", "race_id": race["race_id"]})
            assert [r["player_id"] for r in listed["race"]["racers"]] == [ada.player_id, bob.player_id]
            await ada.ws.close()
            await bob.ws.close()
        finally:
            doomed.kill()


async def test_a_player_gone_from_one_node_but_connected_to_another_keeps_the_seat(clean_redis: str) -> None:
    async with (
        running_node(clean_redis, node_beat=BEAT, lobby_grace=0.3) as one,
        running_node(clean_redis, node_beat=BEAT, lobby_grace=0.3) as two,
    ):
        ada, carl = await racers(one.url, "ada", "carl")
        bob, bob_token = await player(one.url, "bob")
        bob_on_two = await again(two.url, bob_token, bob.player_id)
        race = await open_race(ada, bob, carl)
        probe = sync_redis(clean_redis, decode_responses=True)
        await bob.ws.close()  # bob's last connection on node one: gone from it
        # bob's grace ends first, so he is looked at no later than carl.
        await until(lambda: probe.zcard("lobby:gone") == 1)
        probe.close()
        await carl.ws.close()  # carl's only one
        assert await racers_once(ada, 2) == [ada.player_id, bob.player_id]
        listed = await ada.request({"type": "get_race", "race_id": race["race_id"]})
        assert [r["player_id"] for r in listed["race"]["racers"]] == [ada.player_id, bob.player_id]
        await ada.ws.close()
        await bob_on_two.ws.close()


async def test_a_node_of_a_quick_beat_does_not_take_a_slower_beating_node_for_dead(clean_redis: str) -> None:
    """Each node is judged by its own beat: one beating every 2 s is alive to a node that
    beats every 0.1 s (which waits 0.4 s for its own kind) while its beats come."""
    async with (
        running_node(clean_redis, node_beat=2.0, lobby_grace=GRACE, node_id="slow") as slow,
        running_node(clean_redis, node_beat=BEAT, lobby_grace=0.3, node_id="quick") as quick,
    ):
        (ada,) = await racers(slow.url, "ada")
        (bob,) = await racers(quick.url, "bob")
        race = await open_race(ada, bob)
        await asyncio.sleep(3.0)  # past 4 of the quick node's beats, within the slow one's 4
        assert not [e for e in ada.events if e["type"] == "race_update"]
        listed = await bob.request({"type": "get_race", "race_id": race["race_id"]})
        assert [r["player_id"] for r in listed["race"]["racers"]] == [ada.player_id, bob.player_id]
        assert "arena_dead_nodes_total 0.0" in quick.metrics.render().decode()
        await ada.ws.close()
        await bob.ws.close()


async def test_a_node_taken_for_dead_writes_its_players_again_at_its_next_beat(clean_redis: str) -> None:
    async with running_node(clean_redis, node_beat=BEAT, node_id="slow") as node:
        (ada,) = await racers(node.url, "ada")
        probe = sync_redis(clean_redis, decode_responses=True)
        assert probe.smembers("node:slow:players") == {ada.player_id}
        # What another node does to one it found silent: off the list, its players gone.
        probe.zrem("nodes", "slow")
        probe.delete("node:slow:players")
        probe.zadd("lobby:gone", {f"{ada.player_id}:1": node.time.now_ms() + 60_000})
        await until(lambda: probe.smembers("node:slow:players") == {ada.player_id})
        assert probe.zscore("nodes", "slow") is not None
        await until(lambda: probe.zcard("lobby:gone") == 0)  # she never went: no sweep may unseat her
        await ada.ws.close()  # her last connection there: off the set at once
        await until(lambda: not probe.smembers("node:slow:players"))
        probe.close()


async def test_a_redis_outage_longer_than_the_silence_allowed_buries_no_node(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """No node could beat while Redis was away: whichever beats first after it gives the
    others their whole allowance again, so nobody is taken for dead and no connected
    racer loses her seat."""
    private = EmbeddedRedis(tmp_path / "r")
    url = private.start()
    caplog.set_level(logging.WARNING)
    try:
        async with (
            running_node(url, node_beat=BEAT, lobby_grace=0.3, node_id="one") as one,
            running_node(url, node_beat=1.3 * BEAT, lobby_grace=0.3, node_id="two") as two,
        ):
            (lena,) = await racers(one.url, "lena")
            (milo,) = await racers(two.url, "milo")
            race = await open_race(lena, milo)
            private.stop()
            await asyncio.sleep(1.5)  # past the silence allowed (0.4 s, 0.52 s) and the 0.3 s grace
            await asyncio.to_thread(private.start)  # the nodes beat on as they would
            probe = sync_redis(url, decode_responses=True)
            both = ("node:one:players", "node:two:players")
            await until(lambda: all(probe.smembers(key) for key in both))
            await asyncio.sleep(1.0)  # ten beats and lobby sweeps of each node
            assert sorted(probe.zrange("nodes", 0, -1)) == ["one", "two"]
            probe.close()
            messages = [r.getMessage() for r in caplog.records]
            assert "a node stopped beating: its players count as gone" not in messages
            assert "this node was taken for dead: it is back" not in messages
            for node in (one, two):
                assert "arena_dead_nodes_total 0.0" in node.metrics.render().decode()
            seated = [lena.player_id, milo.player_id]
            for racer in (lena, milo):
                updates = [e for e in await received(racer) if e["type"] == "race_update"]
                assert all([r["player_id"] for r in u["race"]["racers"]] == seated for u in updates)
            listed = await lena.request({"type": "get_race", "race_id": race["race_id"]})
            assert [r["player_id"] for r in listed["race"]["racers"]] == seated
            await lena.ws.close()
            await milo.ws.close()
    finally:
        private.stop()


async def test_a_connected_player_the_sweep_unseats_is_told(arena: ArenaServer) -> None:
    """Her node was taken for dead while she stayed connected to it: the race_update that
    tells the others she left reaches her sessions too (no reply of hers says it)."""
    assert arena.store is not None and arena.features is not None
    ada, bob = await racers(arena.url, "ada", "bob")
    race = await open_race(ada, bob)
    probe = sync_redis(arena.settings.redis_url, decode_responses=True)
    probe.srem(f"node:{arena.settings.node_id}:players", bob.player_id)  # as a node burying this one
    probe.close()
    now = arena.time.now_ms()
    await arena.store.players.went_away([bob.player_id], now, now)
    await arena.features.lobby.free_seats_of_the_gone()  # unless the lobby's own sweep came first
    update = await bob.event("race_update")
    assert update["race"]["race_id"] == race["race_id"]
    assert [r["player_id"] for r in update["race"]["racers"]] == [ada.player_id]
    await ada.ws.close()
    await bob.ws.close()


async def test_one_look_frees_every_player_due_not_only_the_first_batch(arena: ArenaServer) -> None:
    """A dead node's players are all due at once: one look of the lobby takes them all,
    a batch at a time (here 150 who sit nowhere come before the one who does)."""
    assert arena.features is not None and arena.store is not None
    ada, bob = await racers(arena.url, "ada", "bob")
    race = await open_race(ada, bob)
    await bob.ws.close()
    probe = sync_redis(arena.settings.redis_url, decode_responses=True)
    await until(lambda: probe.zcard("lobby:gone") == 1)  # his own grace: 30 s from now
    now = arena.time.now_ms()
    nobody = [f"p_gone{n:03d}" for n in range(150)]
    await arena.store.players.went_away(nobody, 0, now - 1_000)
    await arena.store.players.went_away([bob.player_id], now, now - 1)
    await arena.features.lobby.free_seats_of_the_gone()
    listed = await ada.request({"type": "get_race", "race_id": race["race_id"]})
    assert [r["player_id"] for r in listed["race"]["racers"]] == [ada.player_id]
    assert probe.zrangebyscore("lobby:gone", "-inf", now) == []
    probe.close()
    await ada.ws.close()


async def test_a_look_that_loses_redis_midway_leaves_the_players_it_did_not_free_due_again(
    clean_redis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bob and Dan leave, and the lobby's look at them once their grace ends fails on the
    first seat's leave (Redis lost for a moment): neither is dropped from the gone list,
    and a look after the retry delay frees both seats."""
    monkeypatch.setattr("server.store.players.GONE_RETRY_MS", 200)
    async with running_node(clean_redis, lobby_grace=0.3) as node:
        assert node.store is not None
        ada, bob, cy, dan = await racers(node.url, "ada", "bob", "cy", "dan")
        races = [await open_race(ada, bob), await open_race(cy, dan)]
        leave = node.store.races.leave
        failed: list[str] = []

        async def lost_once(*args: object, **kwargs: object) -> object:
            if not failed:
                failed.append("leave")
                raise redis.exceptions.ConnectionError("Redis went away")
            return await leave(*args, **kwargs)

        monkeypatch.setattr(node.store.races, "leave", lost_once)
        await asyncio.gather(bob.ws.close(), dan.ws.close())
        for creator in (ada, cy):
            assert await racers_once(creator, 1, timeout=5.0) == [creator.player_id]
        assert failed == ["leave"]
        for creator, race in zip((ada, cy), races, strict=True):
            listed = await creator.request({"type": "get_race", "race_id": race["race_id"]})
            assert [r["player_id"] for r in listed["race"]["racers"]] == [creator.player_id]
        await asyncio.gather(ada.ws.close(), cy.ws.close())


async def test_a_join_retried_after_the_store_failed_midway_counts_the_seat_as_the_players(
    clean_redis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gina's join takes her seat, then the store fails before it is written among her
    races (she is answered ``unavailable``); her retry writes it: her races list it, and
    her seat is freed after her lobby grace like any other."""
    async with running_node(clean_redis, lobby_grace=0.3) as node:
        assert node.store is not None
        hana, gina = await racers(node.url, "hana", "gina")
        created = await hana.request({"type": "create_race", "game": "treize", "seats": 2})
        race = created["race"]
        seat = node.store.races._join
        failed: list[str] = []

        async def lost_after_the_seat(**call: object) -> object:
            answer = await seat(**call)
            if not failed:
                failed.append("join")
                raise redis.exceptions.ConnectionError("Redis went away")
            return answer

        monkeypatch.setattr(node.store.races, "_join", lost_after_the_seat)
        refused = await gina.request({"type": "join_race", "code": race["code"]})
        assert (refused["type"], refused["code"]) == ("error", "unavailable")
        joined = await gina.request({"type": "join_race", "code": race["code"]})
        assert joined["type"] == "race"
        mine = await gina.request({"type": "list_my_races"})
        assert mine["races"] == [race["race_id"]]
        await gina.ws.close()
        assert await racers_once(hana, 1, timeout=5.0) == [hana.player_id]
        await hana.ws.close()

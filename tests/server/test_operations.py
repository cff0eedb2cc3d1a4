"""Operations: HTTP endpoints, real server processes, SIGKILL and SIGTERM, two nodes."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import redis
import redis.asyncio

from client.sdk import ArenaClient, ArenaError
from server.app import ArenaServer
from server.config import Settings
from server.store.keys import race_channel
from shared.protocol import Progress, RaceEnded, RaceStarted
from tests.redis_direct import listening
from tests.server.conftest import Connect, running_node, start_node
from tests.server.helpers import start_race


def http_get(url: str, header: str = "Content-Type") -> tuple[int, str, str]:
    """The status, the ``header`` asked for and the body of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.headers[header], response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers[header], exc.read().decode()


async def test_healthz_and_metrics_are_served_on_the_websocket_port(
    arena: ArenaServer, connect: Connect
) -> None:
    base = f"http://127.0.0.1:{arena.port}"
    status, _kind, body = await asyncio.to_thread(http_get, f"{base}/healthz")
    assert (status, body) == (200, "ok\n")
    race = await start_race(await connect(arena.url), await connect(arena.url))
    await race.ada.move(race.race_id, "t4>f1")
    for _ in range(2):  # sent again (a client unsure it arrived): its ack again, no new move
        assert (await race.ada.move(race.race_id, "t4>f1", seq=1)).resent
    status, kind, body = await asyncio.to_thread(http_get, f"{base}/metrics")
    assert status == 200 and kind.startswith("text/plain")
    assert "arena_connections 2.0" in body
    assert 'arena_moves_total{result="accepted"} 1.0' in body
    assert 'arena_moves_total{result="resent"} 2.0' in body
    assert "arena_move_latency_seconds_count 1.0" in body
    assert "arena_move_latency_seconds_bucket" in body
    assert "arena_races_started_total 1.0" in body
    assert "arena_races_subscribed 1.0" in body
    for path in ("/healthz", "/metrics"):  # about this moment: never cached
        assert (await asyncio.to_thread(http_get, base + path, "Cache-Control"))[1] == "no-store"


async def test_a_node_on_an_ipv6_host_gives_an_address_clients_can_use(clean_redis: str) -> None:
    async with running_node(clean_redis, host="::1") as node:
        assert node.url == f"ws://[::1]:{node.port}"
        client = await ArenaClient.connect(node.url)
        assert (await client.hello(name="ada")).name == "ada"
        await client.close()


async def test_healthz_says_503_when_redis_is_gone(tmp_path: Path) -> None:
    from server.redis_embedded import EmbeddedRedis

    private = EmbeddedRedis(tmp_path / "r")
    url = private.start()
    node = ArenaServer(Settings.from_env({}, redis_url=url, port=0, log_level="CRITICAL"))
    await node.start()
    try:
        private.stop()
        url = f"http://127.0.0.1:{node.port}/healthz"
        status, cache, body = await asyncio.to_thread(http_get, url, "Cache-Control")
        assert status == 503 and "redis" in body and cache == "no-store"
    finally:
        await node.stop()


def test_embedded_redis_keeps_its_aof_in_the_data_dir(tmp_path: Path) -> None:
    from server.redis_embedded import EmbeddedRedis

    private = EmbeddedRedis(tmp_path / "data")
    url = private.start()
    client = redis.Redis.from_url(url)
    assert client.config_get("appendonly")["appendonly"] == "yes"
    client.set("k", "v")
    client.close()
    private.stop()
    again = EmbeddedRedis(tmp_path / "data")
    client = redis.Redis.from_url(again.start())
    assert client.get("k") == b"v"
    client.close()
    again.stop()


async def test_a_node_starts_its_embedded_redis_again_when_it_is_killed_and_its_data_stays(
    tmp_path: Path, connect: Connect
) -> None:
    async with running_node("", data_dir=str(tmp_path / "data"), redis_fsync="always") as node:
        assert node.embedded is not None
        ada = await connect(node.url)
        await ada.hello(name="ada")
        race = await ada.create_race("treize", seats=2, time_limit=60)
        killed = node.embedded.pid
        assert killed is not None
        os.kill(killed, 9)
        for _ in range(100):  # the node looks every second
            if node.embedded.pid != killed:
                break
            await asyncio.sleep(0.1)
        assert node.embedded.pid not in (None, killed)
        for _ in range(100):  # unavailable until it answers again
            try:
                info = await ada.get_race(race.race_id)
                break
            except ArenaError:
                await asyncio.sleep(0.1)
        assert info.code == race.code and [r.name for r in info.racers] == ["ada"]


def test_a_second_node_on_a_data_dir_in_use_is_refused_at_once(tmp_path: Path) -> None:
    from server.redis_embedded import EmbeddedRedis, EmbeddedRedisError

    first = EmbeddedRedis(tmp_path / "data")
    first.start()
    try:
        started = time.monotonic()
        with pytest.raises(EmbeddedRedisError) as refused:
            EmbeddedRedis(tmp_path / "data").start(timeout=10)
        assert time.monotonic() - started < 5  # not the 10 s wait meant for a killed node's Redis
        assert str(refused.value) == (
            f"another node (pid {os.getpid()}) is serving from {(tmp_path / 'data').resolve()}: "
            "stop it first, or give this one its own data directory (--data-dir, SA_DATA_DIR)"
        )
        assert redis.Redis.from_url(first.url).ping()  # the first one's Redis is untouched
    finally:
        first.stop()


def test_of_two_nodes_started_at_the_same_moment_on_one_data_dir_one_is_refused(tmp_path: Path) -> None:
    """Each checks the directory before either's Redis wrote its pid file: only the lock on
    the directory tells them apart (the second used to start too, deleting the first's
    socket, both writing one append-only file)."""
    from server.redis_embedded import EmbeddedRedis, EmbeddedRedisError

    nodes = [EmbeddedRedis(tmp_path / "data") for _ in range(2)]
    together = threading.Barrier(len(nodes) + 1)
    checked = threading.Event()
    outcomes: list[str | EmbeddedRedisError] = []

    def start(node: EmbeddedRedis) -> None:
        together.wait()
        try:
            outcomes.append(node.start(timeout=10))
        except EmbeddedRedisError as exc:
            outcomes.append(exc)
        together.wait()
        # The parent-death signal follows the thread that spawned Redis, not the process:
        # the starting thread lives until the winner's Redis has been checked.
        checked.wait(30)

    threads = [threading.Thread(target=start, args=(node,)) for node in nodes]
    try:
        for thread in threads:
            thread.start()
        together.wait(20)
        together.wait(20)
        urls = [o for o in outcomes if isinstance(o, str)]
        refusals = [str(o) for o in outcomes if isinstance(o, EmbeddedRedisError)]
        assert len(urls) == 1 and refusals == [
            f"another node (pid {os.getpid()}) is serving from {(tmp_path / 'data').resolve()}: "
            "stop it first, or give this one its own data directory (--data-dir, SA_DATA_DIR)"
        ]
        assert redis.Redis.from_url(urls[0]).ping()  # the winner's socket is still its own
    finally:
        for node in nodes:
            node.stop()
        checked.set()
        for thread in threads:
            thread.join(20)


async def test_sigkill_mid_race_then_restart_resumes_at_the_acked_position(
    tmp_path: Path,
) -> None:
    data_dir = str(tmp_path / "data")
    node = await asyncio.to_thread(start_node, None, "", data_dir)
    port = node.port
    try:
        ada, bob = await ArenaClient.connect(node.url), await ArenaClient.connect(node.url)
        race = await start_race(ada, bob, "treize", time_limit=6.0)
        acks = [await ada.move(race.race_id, "deal") for _ in range(3)]
        await bob.move(race.race_id, "deal")
        tokens = (ada.token, bob.token)
        node.kill()
        await ada.close()
        await bob.close()

        node = await asyncio.to_thread(start_node, port, "", data_dir)
        ada2, bob2 = await ArenaClient.connect(node.url), await ArenaClient.connect(node.url)
        assert tokens[0] and tokens[1]
        welcome = await ada2.hello(token=tokens[0])
        assert welcome.races == [race.race_id]
        await bob2.hello(token=tokens[1])
        info = await ada2.get_race(race.race_id)
        assert info.status == "running" and info.ends_at == race.ends_at
        assert info.board is not None and info.board.seq == 3
        assert info.board.view == acks[-1].view
        bob_board = await bob2.board(race.race_id)
        assert bob_board is not None and bob_board.seq == 1
        ack = await ada2.move(race.race_id, "deal")
        assert ack.seq == 4 and ack.view.piles["stock"].count == 20
        assert (await bob2.wait_for(Progress)).move_count == 4

        ended = await ada2.wait_for(RaceEnded, timeout=10)  # the restarted clock ends it
        assert race.ends_at <= ended.summary.ended_at <= race.ends_at + 2000
        scores = {s.player_id: s.move_count for s in ended.summary.standings}
        assert scores == {ada.player_id: 4, bob.player_id: 1}
        await ada2.close()
        await bob2.close()
    finally:
        node.kill()


async def test_sigterm_shuts_down_gracefully(tmp_path: Path) -> None:
    node = await asyncio.to_thread(start_node, None, "", str(tmp_path / "data"))
    client = await ArenaClient.connect(node.url)
    await client.hello(name="ada")
    code = await asyncio.to_thread(node.terminate)
    assert code == 0
    await asyncio.wait_for(client.ws.wait_closed(), 5)
    assert (client.ws.close_code, client.ws.close_reason) == (1001, "server shutting down")
    await client.close()
    assert not (tmp_path / "data" / "redis.pid").exists()  # its redis shut down cleanly


async def test_two_nodes_on_one_redis_fan_progress_out_to_each_other(clean_redis: str) -> None:
    one = await asyncio.to_thread(start_node, None, clean_redis)
    two = await asyncio.to_thread(start_node, None, clean_redis)
    try:
        ada = await ArenaClient.connect(one.url)
        bob = await ArenaClient.connect(two.url, binary=False)
        await ada.hello(name="ada")
        await bob.hello(name="bob")
        race = await ada.create_race("treize", seats=2, time_limit=30)
        await bob.join_race(race.code)
        await ada.ready(race.race_id)
        await bob.ready(race.race_id)
        await ada.wait_for(RaceStarted)
        await bob.wait_for(RaceStarted)
        await ada.move(race.race_id, "deal")
        seen_by_bob = await bob.wait_for(Progress)
        assert seen_by_bob.player_id == ada.player_id and seen_by_bob.move_count == 1
        await bob.move(race.race_id, "deal")
        await bob.move(race.race_id, "deal")
        seen_by_ada = await ada.wait_for(Progress, lambda p: p.move_count == 2)
        assert seen_by_ada.player_id == bob.player_id
        await ada.finish(race.race_id)
        await bob.finish(race.race_id)
        ended = [await c.wait_for(RaceEnded) for c in (ada, bob)]
        assert ended[0].summary == ended[1].summary
        await ada.close()
        await bob.close()
    finally:
        one.kill()
        two.kill()


def test_settings_come_from_the_environment_and_the_command_line_wins() -> None:
    env = {"SA_HOST": "0.0.0.0", "SA_PORT": "9000", "REDIS_URL": "redis://r:6379/0", "SA_COUNTDOWN": "1.5"}
    settings = Settings.from_env(env, port=8000)
    assert (settings.host, settings.port, settings.redis_url) == ("0.0.0.0", 8000, "redis://r:6379/0")
    assert settings.countdown == 1.5


async def test_a_move_is_published_only_while_another_node_follows_the_race(
    arena: ArenaServer, connect: Connect
) -> None:
    race = await start_race(await connect(arena.url), await connect(arena.url))
    assert arena.store is not None
    async with listening(arena.settings.redis_url, race_channel(race.race_id)) as pubsub:

        async def published() -> list[str]:
            seen = []
            while (
                message := await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.3)
            ) is not None:
                seen.append(message["data"].decode())
            return seen

        await race.ada.move(race.race_id, "t4>f1")
        assert await race.bob.wait_for(Progress)  # delivered by the node itself
        assert await published() == []  # both racers on this node: nobody else to tell
        await arena.store.events.follow_race(race.race_id, "another-node")
        await race.ada.move(race.race_id, "t1>r5")
        events = await published()
        assert len(events) == 1 and '"type":"progress"' in events[0]
        await arena.store.events.unfollow_race(race.race_id, "another-node")
        await race.ada.move(race.race_id, "r5>r6")
        assert await published() == []


async def test_after_a_redis_restart_the_next_move_is_acked_not_answered_unavailable(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The connections a node held to a Redis that restarted are opened again as they are
    used: the move that finds one dropped is sent again on a new one, not refused."""
    from server.redis_embedded import EmbeddedRedis

    private = EmbeddedRedis(tmp_path / "r")
    url = private.start()
    caplog.set_level(logging.WARNING)
    async with running_node(url) as node:
        ada, bob = await ArenaClient.connect(node.url), await ArenaClient.connect(node.url)
        race = await start_race(ada, bob, "treize", time_limit=60.0)
        await ada.move(race.race_id, "deal")  # the node's connections are open and idle
        private.stop()
        private.start()  # back before anything asked for it
        ack = await ada.move(race.race_id, "deal")
        assert ack.seq == 2 and not ack.resent
        assert not [r for r in caplog.records if r.getMessage().startswith("redis unreachable")]
        assert "arena_redis_outages_total 0.0" in node.metrics.render().decode()
        await ada.close()
        await bob.close()
    private.stop()


async def test_a_redis_outage_answers_unavailable_and_logs_one_line_each_way(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from server.redis_embedded import EmbeddedRedis

    private = EmbeddedRedis(tmp_path / "r")
    url = private.start()
    caplog.set_level(logging.WARNING)
    async with running_node(url) as node:
        client = await ArenaClient.connect(node.url)
        await client.hello(name="ada")
        private.stop()
        for _ in range(3):
            with pytest.raises(ArenaError) as caught:
                await client.create_race("treize")
            assert caught.value.code == "unavailable" and "retry" in caught.value.message
        assert (await client.ping()).server_time > 0  # the connection is fine
        await asyncio.sleep(1.0)  # the clock keeps trying (with back-off)
        down = [r for r in caplog.records if r.getMessage().startswith("redis unreachable")]
        assert len(down) == 1
        assert not [r for r in caplog.records if r.exc_info]
        metrics = node.metrics.render().decode()
        assert "arena_redis_outages_total 1.0" in metrics
        private.start()
        # The clock's next look, at most 2 s away, finds it back (within the 2.5 s the test
        # used to sleep for).
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 2.5
        while not [r for r in caplog.records if r.getMessage() == "redis is reachable again"]:
            assert loop.time() < deadline, "the node did not log that redis is back within 2.5 s"
            await asyncio.sleep(0.02)
        race = await client.create_race("treize")
        assert race.status == "open"
        await client.close()
    private.stop()


async def test_a_move_answered_unavailable_is_counted_by_its_result(tmp_path: Path) -> None:
    from server.redis_embedded import EmbeddedRedis

    private = EmbeddedRedis(tmp_path / "r")
    url = private.start()
    try:
        async with running_node(url, log_level="CRITICAL") as node:
            ada, bob = await ArenaClient.connect(node.url), await ArenaClient.connect(node.url)
            race = await start_race(ada, bob, "treize", time_limit=60.0)
            private.stop()
            with pytest.raises(ArenaError) as caught:
                await ada.move(race.race_id, "deal")
            assert caught.value.code == "unavailable"
            metrics = node.metrics.render().decode()
            assert 'arena_moves_total{result="unavailable"} 1.0' in metrics
            assert 'arena_errors_total{code="unavailable"} 1.0' in metrics
            await ada.close()
            await bob.close()
    finally:
        private.stop()

"""The service on a real Redis Cluster: three masters (each with a replica) started from
the same ``redis-server`` binary, three nodes over them. Racers and spectators spread
over the nodes, a quick match across nodes, a daily attempt, a rated race's end written
once, a node SIGKILLed mid-race, a master SIGKILLed mid-race failing over to its
replica with no acknowledged move lost, while events still cross nodes, and a race's
slot moved to another master mid-race. Raw frames.

Each test that starts a cluster runs twice: on the embedded Redis 6.2, where the nodes
pass events by classic pub/sub, and on Redis 7 (Debian's ``redis-server``, installed
by ``.ci/run``), where they pick sharded pub/sub by themselves."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from websockets.asyncio.client import connect as ws_connect

from server.app import ArenaServer, StartupError
from server.local_cluster import ClusterServer, LocalCluster, redis_7_server
from server.redis_client import is_cluster_url
from server.store import keys
from server.timesource import ManualTime
from tests.server.conftest import WINNABLE_SEED, node_settings, running_node, start_node
from tests.server.rawclient import Racer, racers
from tests.server.test_daily import DAY, T0, deal_of, play_line, start, winning_line
from tests.server.test_ratings import PASSWORD, foundation_moves, play, seated

#: Fast failure detection: a master unreachable for this long (ms) fails over.
NODE_TIMEOUT = 1000


@pytest.fixture(scope="module", params=["classic", "sharded"])
def pubsub(request: pytest.FixtureRequest) -> str:
    """How the nodes pass events: the Redis the cluster runs decides (``SA_PUBSUB=auto``)."""
    return str(request.param)


@pytest.fixture(scope="module")
def redis_binary(pubsub: str) -> str | None:
    """The ``redis-server`` of the cluster: the embedded 6.2, or a Redis 7."""
    if pubsub == "classic":
        return None
    binary = redis_7_server()
    if binary is None:
        pytest.skip("no Redis 7 redis-server on PATH (apt-get install redis-server; .ci/run does)")
    return binary


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, redis_binary: str | None) -> Iterator[LocalCluster]:
    local = LocalCluster(
        tmp_path_factory.mktemp("cluster"),
        masters=3,
        replicas=1,
        node_timeout=NODE_TIMEOUT,
        binary=redis_binary,
    )
    local.start()
    yield local
    local.stop()


@pytest.fixture
def cluster_url(cluster: LocalCluster) -> str:
    cluster.flush()
    return cluster.url


@contextlib.asynccontextmanager
async def three_nodes(url: str, **overrides: Any) -> AsyncIterator[list[ArenaServer]]:
    async with (
        running_node(url, node_id="one", **overrides) as one,
        running_node(url, node_id="two", **overrides) as two,
        running_node(url, node_id="three", **overrides) as three,
    ):
        yield [one, two, three]


async def accounts(url: str, *names: str) -> list[Racer]:
    out = await racers(url, *names)
    for racer, name in zip(out, names, strict=True):
        reply = await racer.request({"type": "register", "username": f"{name}_cl", "password": PASSWORD})
        assert reply["type"] == "account", reply
    return out


async def close(*connections: Racer) -> None:
    for racer in connections:
        await racer.ws.close()


def cluster_client(cluster: LocalCluster) -> redis.RedisCluster:
    nodes = [redis.cluster.ClusterNode("127.0.0.1", s.port) for s in cluster.servers if s.alive()]
    return redis.RedisCluster(startup_nodes=nodes, decode_responses=True)


async def reconnect(url: str, token: str) -> Racer:
    racer = Racer(await ws_connect(url, compression=None))
    welcome = await racer.request({"type": "hello", "token": token, "legal_moves": True})
    assert welcome["type"] == "welcome", welcome
    racer.player_id = welcome["player_id"]
    return racer


async def hello(url: str, name: str) -> tuple[Racer, str]:
    racer = Racer(await ws_connect(url, compression=None))
    welcome = await racer.request({"type": "hello", "name": name, "legal_moves": True})
    racer.player_id = welcome["player_id"]
    return racer, welcome["token"]


async def race_on(cluster: LocalCluster, master: ClusterServer, creator: Racer, other: Racer) -> str:
    """A running race of Eight Off whose keys lie on ``master``."""
    for _attempt in range(50):
        created = await creator.request(
            {"type": "create_race", "game": "eight-off", "seats": 2, "time_limit": 120}
        )
        race_id: str = created["race"]["race_id"]
        if cluster.master_of(keys.race_meta(race_id)) is master:
            await other.request({"type": "join_race", "code": created["race"]["code"]})
            for racer in (creator, other):
                await racer.request({"type": "ready", "race_id": race_id})
            for racer in (creator, other):
                await racer.event("race_started")
            return race_id
        await creator.request({"type": "leave_race", "race_id": race_id})
    raise AssertionError("no race landed on that master")


def masters_holding(cluster: LocalCluster, *names: str) -> set[str]:
    return {cluster.master_of(name).address for name in names}


def shard_channels(server: ClusterServer) -> set[str]:
    """The race channels someone subscribed to with ``SSUBSCRIBE`` on ``server``."""
    with server.client() as client:
        return set(client.execute_command("PUBSUB", "SHARDCHANNELS", "race:*"))


def race_channels(cluster: LocalCluster, kind: str) -> set[str]:
    """The race channels subscribed to on any server, by shard or classic pub/sub."""
    found: set[str] = set()
    for server in cluster.servers:
        if kind == "sharded":
            found |= shard_channels(server)
        else:
            with server.client() as client:
                found |= set(client.execute_command("PUBSUB", "CHANNELS", "race:*"))
    return found


async def test_racers_and_a_spectator_on_three_nodes_race_with_keys_spread_over_the_masters(
    cluster: LocalCluster, cluster_url: str, pubsub: str
) -> None:
    async with three_nodes(cluster_url) as (one, two, three):
        (ada,) = await racers(one.url, "ada")
        (bob,) = await racers(two.url, "bob")
        (eve,) = await racers(three.url, "eve")
        race_id = await seated(ada, [bob])
        watching = await eve.request({"type": "watch", "race_id": race_id})
        assert watching["type"] == "watching" and watching["race"]["race_id"] == race_id
        # The nodes pass the race's events by the pub/sub the cluster allows: on Redis 7 a
        # shard channel, on the master of the race's slot alone; on 6.2 a classic channel.
        channels = {keys.race_channel(race_id), keys.watch_channel(race_id)}  # moves, and for spectators
        if pubsub == "sharded":
            assert race_channels(cluster, "sharded") == channels
            assert shard_channels(cluster.master_of(keys.race_meta(race_id))) == channels
            assert race_channels(cluster, "classic") == set()
        else:
            assert race_channels(cluster, "classic") == channels
        line = foundation_moves(2)
        await play(ada, race_id, line)
        progress = await bob.event("progress")
        assert progress["player_id"] == ada.player_id
        seen = [await eve.event("watch_move") for _ in line]
        assert [m["move"] for m in seen] == line and {m["player_id"] for m in seen} == {ada.player_id}
        await ada.request({"type": "finish", "race_id": race_id})
        await bob.request({"type": "finish", "race_id": race_id})
        ended = [await racer.event("race_ended") for racer in (ada, bob, eve)]
        assert ended[0]["summary"] == ended[1]["summary"] == ended[2]["summary"]
        assert ended[0]["summary"]["standings"][0]["player_id"] == ada.player_id
        # Each race's keys stay in one slot; players and races lie on different masters.
        written = [keys.race_meta(race_id)]
        for player_id in (ada.player_id, bob.player_id, eve.player_id):
            written += [keys.player(player_id), keys.player_recent(player_id)]
            written += [keys.player_stats(player_id, "eight-off")]
        assert len(masters_holding(cluster, *written)) >= 2
        assert masters_holding(cluster, *keys.race_keys(race_id, None, [ada.player_id, bob.player_id])) == {
            cluster.master_of(keys.race_meta(race_id)).address
        }
        profile = await ada.request({"type": "get_profile", "player_id": bob.player_id})
        assert profile["type"] == "profile", profile
        assert [r["race_id"] for r in profile["profile"]["recent"]] == [race_id]
        await close(ada, bob, eve)


async def test_a_quick_match_pairs_players_on_different_nodes(cluster_url: str) -> None:
    async with three_nodes(cluster_url) as (one, two, _three):
        (ada,) = await racers(one.url, "ada")
        (bob,) = await racers(two.url, "bob")
        first = await ada.request({"type": "quick_match", "game": "treize"})
        assert first["type"] == "queued", first
        second = await bob.request({"type": "quick_match", "game": "treize"})
        assert second["type"] == "queued", second
        matched = [await ada.event("match_found"), await bob.event("match_found")]
        assert matched[0]["race"]["race_id"] == matched[1]["race"]["race_id"]
        race_id = matched[0]["race"]["race_id"]
        await ada.event("race_started")
        ack = await ada.request({"type": "move", "race_id": race_id, "seq": 1, "move": "deal"})
        assert ack["type"] == "move_ack", ack
        assert (await bob.event("progress"))["move_count"] == 1
        await close(ada, bob)


async def test_a_daily_attempt_is_played_scored_and_boarded_on_the_cluster(cluster_url: str) -> None:
    clock = ManualTime(T0)
    nodes = [
        ArenaServer(
            node_settings(cluster_url, node_id=name, rate_limit=10_000.0, rate_burst=10_000),
            seed_source=lambda: WINNABLE_SEED,
            time=clock,
        )
        for name in ("one", "two")
    ]
    for node in nodes:
        await node.start()
    try:
        assert nodes[0].features is not None
        await nodes[0].features.daily.prepare(DAY)
        (ada,) = await accounts(nodes[0].url, "ada")
        (bob,) = await racers(nodes[1].url, "bob")
        game = "eight-off"
        deal = await deal_of(nodes[1], game)
        started = await start(ada, game)
        assert started["scored"] is True, started
        race_id = started["race"]["race_id"]
        await play_line(ada, race_id, winning_line(game, deal.seed), clock, 1.0)
        ended = await ada.event("race_ended")
        assert ended["summary"]["standings"][0]["won"] is True
        board = await bob.request({"type": "get_daily_board", "date": DAY.isoformat(), "game": game})
        assert board["type"] == "daily_board", board
        assert [row["player_id"] for row in board["entries"]] == [ada.player_id]
        await close(ada, bob)
    finally:
        for node in nodes:
            await node.stop()


async def test_a_rated_race_ends_once_on_the_cluster_however_many_nodes_complete_it(
    cluster: LocalCluster, cluster_url: str
) -> None:
    async with three_nodes(cluster_url) as (one, two, three):
        (ada,) = await accounts(one.url, "ada")
        (bob,) = await accounts(two.url, "bob")
        race_id = await seated(ada, [bob], rated=True)
        await play(ada, race_id, foundation_moves(2))
        await ada.request({"type": "finish", "race_id": race_id})
        await bob.request({"type": "finish", "race_id": race_id})
        ended = await ada.event("race_ended")
        lines = {s["player_id"]: s for s in ended["summary"]["standings"]}
        assert lines[ada.player_id]["rating_change"] > 0 > lines[bob.player_id]["rating_change"]
        # Another node ends the same race again (its clock, late): nothing is written twice.
        assert two.features is not None and three.features is not None
        await asyncio.gather(three.features.results.end(race_id), two.features.results.end(race_id))
        client = cluster_client(cluster)
        try:
            assert client.hget(keys.player_rating(ada.player_id, "eight-off"), "games") == "1"
            assert client.llen(keys.player_rating_history(ada.player_id, "eight-off")) == 1
            assert client.hget(keys.player_stats(bob.player_id, "eight-off"), "races") == "1"
            assert client.llen(keys.player_recent(bob.player_id)) == 1
        finally:
            client.close()
        profile = await bob.request({"type": "get_profile", "player_id": ada.player_id})
        (eight_off,) = profile["profile"]["ratings"]
        assert eight_off["rating"] == lines[ada.player_id]["rating"] and eight_off["games"] == 1
        await close(ada, bob)


async def test_a_node_killed_mid_race_its_racers_resume_on_another_node(cluster_url: str) -> None:
    one = await asyncio.to_thread(start_node, None, cluster_url)
    two = await asyncio.to_thread(start_node, None, cluster_url)
    try:
        (ada, ada_token), (bob, bob_token) = await hello(one.url, "ada"), await hello(one.url, "bob")
        race_id = await seated(ada, [bob], game="treize")
        acks = []
        for seq in (1, 2, 3):
            ack = await ada.request({"type": "move", "race_id": race_id, "seq": seq, "move": "deal"})
            assert ack["type"] == "move_ack", ack
            acks.append(ack)
        one.kill()
        ada2, bob2 = await reconnect(two.url, ada_token), await reconnect(two.url, bob_token)
        race = await ada2.request({"type": "get_race", "race_id": race_id})
        assert race["race"]["status"] == "running" and race["race"]["board"]["seq"] == 3
        assert race["race"]["board"]["view"] == acks[-1]["view"]
        ack = await ada2.request({"type": "move", "race_id": race_id, "seq": 4, "move": "deal"})
        assert ack["type"] == "move_ack" and ack["seq"] == 4, ack
        assert (await bob2.event("progress"))["move_count"] == 4
        await close(ada2, bob2)
    finally:
        one.kill()
        two.kill()


async def test_a_master_killed_mid_race_fails_over_answering_unavailable_and_loses_no_acked_move(
    tmp_path: Path, redis_binary: str | None
) -> None:
    local = LocalCluster(
        tmp_path / "cluster", masters=3, replicas=1, node_timeout=NODE_TIMEOUT, binary=redis_binary
    )
    await asyncio.to_thread(local.start)
    try:
        # The race and the first node's own channel both on the master that dies; the other
        # racer on a second node, which hears of the first one's moves through Redis.
        master = local.masters_alive()[0]
        node_id = next(f"n{n}" for n in range(1000) if local.master_of(keys.node_channel(f"n{n}")) is master)
        settings = {"rate_limit": 10_000.0, "rate_burst": 10_000, "ack_replicas": 1}
        async with (
            running_node(local.url, node_id=node_id, **settings) as node,
            running_node(local.url, node_id="other", **settings) as other,
        ):
            (ada,) = await racers(node.url, "ada")
            (bob,) = await racers(other.url, "bob")
            race_id = await race_on(local, master, ada, bob)
            meta = keys.race_meta(race_id)
            acked: list[int] = []
            answers: list[str] = []
            seq = 0
            killed_at = restarted = None
            deadline = time.monotonic() + 40
            while time.monotonic() < deadline:
                # A card to a free cell, then its undo, over and over: a racer who never stops.
                move = "t1>r5" if seq % 2 == 0 else "undo"
                reply = await asyncio.wait_for(
                    ada.request({"type": "move", "race_id": race_id, "seq": seq + 1, "move": move}), 10
                )
                answers.append(reply["type"] if reply["type"] != "error" else reply["code"])
                if reply["type"] == "move_ack":
                    seq = reply["seq"]
                    acked.append(seq)
                else:
                    assert reply["code"] == "unavailable" and "retry" in reply["message"], reply
                    await asyncio.sleep(0.1)
                if killed_at is None and len(acked) == 20:
                    local.kill(master)
                    killed_at = len(answers)
                elif (
                    killed_at is not None and restarted is None and local.owner_of(meta) not in (None, master)
                ):
                    # Failed over: the promoted replica has no replica of its own to confirm
                    # moves until the lost server comes back, as its replica.
                    await asyncio.to_thread(local.restart, master)
                    restarted = len(acked)
                if killed_at is not None and len(acked) >= 40:
                    break
            assert killed_at is not None and len(acked) >= 40, answers[-10:]
            assert "unavailable" in answers[killed_at:], "the failover was never seen"
            assert restarted == 20 and local.master_of(meta) is not master
            # Events still cross the nodes on the promoted master: ada giving up reaches bob.
            await ada.request({"type": "finish", "race_id": race_id})
            while not (gave_up := await bob.event("progress", timeout=10))["finished"]:
                pass
            assert gave_up["player_id"] == ada.player_id and not gave_up["won"]
            await bob.request({"type": "finish", "race_id": race_id})
            await bob.event("race_ended", timeout=10)
            log = await bob.request({"type": "get_move_log", "race_id": race_id})
            logged = [m["seq"] for m in log["moves"] if m["player_id"] == ada.player_id]
            assert logged == list(range(1, seq + 1)) and set(acked) <= set(logged)
            await close(ada, bob)
    finally:
        await asyncio.to_thread(local.stop)


async def test_a_move_no_replica_confirms_is_answered_unavailable_and_its_retry_is_acked(
    clean_redis: str,
) -> None:
    # One server without replicas: WAIT 1 never gets its confirmation.
    async with running_node(clean_redis, ack_replicas=1) as node:
        ada, bob = await racers(node.url, "ada", "bob")
        race_id = await seated(ada, [bob], game="treize")
        move = {"type": "move", "race_id": race_id, "seq": 1, "move": "deal"}
        for _attempt in range(2):  # the move is written, but its retry is never confirmed either
            refused = await ada.request(move)
            assert refused.get("code") == "unavailable" and "retry" in refused["message"], refused
        board = await ada.request({"type": "get_race", "race_id": race_id})
        assert board["race"]["board"]["seq"] == 1
        await close(ada, bob)


async def test_sa_pubsub_is_checked_against_the_cluster_and_classic_is_kept_when_asked(
    cluster: LocalCluster, cluster_url: str, pubsub: str
) -> None:
    if pubsub == "classic":  # the cluster runs Redis 6.2
        refused = (
            r"--pubsub \(SA_PUBSUB\): sharded pub/sub needs Redis 7 or newer: 127\.0\.0\.1:\d+ runs 6\.2\."
        )
        with pytest.raises(StartupError, match=refused):
            async with running_node(cluster_url, pubsub="sharded"):
                pass
        return
    # Redis 7, and every node told to stay classic (as during an upgrade from 6.2).
    async with (
        running_node(cluster_url, node_id="c1", pubsub="classic") as one,
        running_node(cluster_url, node_id="c2", pubsub="classic") as two,
    ):
        (ada,) = await racers(one.url, "ada")
        (bob,) = await racers(two.url, "bob")
        race_id = await seated(ada, [bob], game="treize")
        assert race_channels(cluster, "classic") == {keys.race_channel(race_id)}
        assert race_channels(cluster, "sharded") == set()
        ack = await ada.request({"type": "move", "race_id": race_id, "seq": 1, "move": "deal"})
        assert ack["type"] == "move_ack", ack
        assert (await bob.event("progress"))["move_count"] == 1
        await close(ada, bob)


async def test_sharded_pubsub_on_one_server_is_refused_at_start(clean_redis: str) -> None:
    if is_cluster_url(clean_redis):
        pytest.skip("the suite runs on a cluster (SA_TEST_REDIS)")
    with pytest.raises(StartupError, match=r"--pubsub \(SA_PUBSUB\): sharded pub/sub is for a Redis Cluster"):
        async with running_node(clean_redis, pubsub="sharded"):
            pass


async def test_a_race_goes_on_across_nodes_after_its_slot_moves_to_another_master(
    cluster: LocalCluster, cluster_url: str, pubsub: str
) -> None:
    async with (
        running_node(cluster_url, node_id="m1") as one,
        running_node(cluster_url, node_id="m2") as two,
    ):
        (ada,) = await racers(one.url, "ada")
        (bob,) = await racers(two.url, "bob")
        race_id = await seated(ada, [bob], game="treize")
        ack = await ada.request({"type": "move", "race_id": race_id, "seq": 1, "move": "deal"})
        assert ack["type"] == "move_ack", ack
        assert (await bob.event("progress"))["move_count"] == 1
        meta = keys.race_meta(race_id)
        source = cluster.master_of(meta)
        target = next(m for m in cluster.masters_alive() if m is not source)
        bob.events.clear()
        await asyncio.to_thread(cluster.move_slot, meta, target)  # a resharding of its slot
        assert cluster.master_of(meta) is target
        if pubsub == "sharded":
            # The old master dropped the race's shard channel; both nodes subscribe it on
            # the new one by themselves.
            channel = keys.race_channel(race_id)
            with target.client() as client:
                for _ in range(250):
                    if client.execute_command("PUBSUB", "SHARDNUMSUB", channel)[1] == 2:
                        break
                    await asyncio.sleep(0.02)
                assert client.execute_command("PUBSUB", "SHARDNUMSUB", channel)[1] == 2
            # Heard again after a gap: Bob's node catches him up from the store.
            update = await bob.event("race_update", timeout=10)
            assert update["race"]["race_id"] == race_id
            assert [r["move_count"] for r in update["race"]["racers"] if r["player_id"] == ada.player_id] == [
                1
            ]
        ack = await ada.request({"type": "move", "race_id": race_id, "seq": 2, "move": "deal"})
        assert ack["type"] == "move_ack" and ack["seq"] == 2, ack
        assert (await bob.event("progress", timeout=10))["move_count"] == 2
        await close(ada, bob)

"""Downtime around a race: no node runs while a race should start or end. Each test
stops the node, moves a manual clock, starts a new node on the same Redis and checks
the fair rule of docs/protocol.md ("Downtime around a race") on the raw frames."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect

from client.sdk import ArenaClient
from server.app import ArenaServer
from server.timesource import ManualTime
from shared import new_game
from shared.protocol import RaceCountdown, RaceEnded, RaceStarted
from tests.server.conftest import WINNABLE_SEED, node_settings

T0 = 1_800_000_000_000
TIME_LIMIT = 30.0
COUNTDOWN = 0.15


def node(redis_url: str, clock: ManualTime) -> ArenaServer:
    return ArenaServer(
        node_settings(redis_url), seed_source=lambda: WINNABLE_SEED, time=clock, mix_shares=False
    )


async def countdown(url: str) -> tuple[ArenaClient, ArenaClient, RaceCountdown]:
    """ada and bob in a race whose countdown began (the clock is not moved)."""
    ada, bob = await ArenaClient.connect(url), await ArenaClient.connect(url)
    await ada.hello(name="ada")
    await bob.hello(name="bob")
    race = await ada.create_race("eight-off", seats=2, time_limit=TIME_LIMIT)
    await bob.join_race(race.code)
    await ada.ready(race.race_id)
    await bob.ready(race.race_id)
    return ada, bob, await ada.wait_for(RaceCountdown)


@contextlib.asynccontextmanager
async def running(redis_url: str, clock: ManualTime) -> AsyncIterator[ArenaServer]:
    arena = node(redis_url, clock)
    await arena.start()
    try:
        yield arena
    finally:
        await arena.stop()


async def countdown_then_downtime(redis_url: str, clock: ManualTime) -> tuple[RaceCountdown, list[str]]:
    """A race's countdown begins on a node that then stops, its racers disconnected; the
    countdown event and the racers' tokens."""
    first = node(redis_url, clock)
    await first.start()
    ada, bob, counting = await countdown(first.url)
    tokens = [t for t in (ada.token, bob.token) if t is not None]
    await first.stop()
    await ada.close()
    await bob.close()
    return counting, tokens


async def request(ws: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
    await ws.send(json.dumps(message))
    data: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 5))
    return data


async def next_frame(ws: ClientConnection, timeout: float = 5) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), timeout))
    return data


async def no_frame(ws: ClientConnection) -> None:
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(ws.recv(), 0.3)


async def until_status(arena: ArenaServer, race_id: str, status: str) -> None:
    assert arena.store is not None
    for _ in range(250):
        meta = await arena.store.races.meta(race_id)
        if meta is not None and meta.status.value == status:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"race {race_id} never became {status}")


async def test_a_race_whose_whole_window_passed_while_no_node_ran_is_void(clean_redis: str) -> None:
    clock = ManualTime(T0)
    counting, (token, _) = await countdown_then_downtime(clean_redis, clock)

    clock.set(counting.ends_at + 5_000)  # back after the announced end: nobody could play
    async with running(clean_redis, clock) as second:
        await until_status(second, counting.race_id, "cancelled")
        async with ws_connect(second.url, compression=None) as ws:
            welcome = await request(ws, {"type": "hello", "id": 1, "token": token})
            assert welcome["type"] == "welcome" and welcome["races"] == [counting.race_id]
            cancelled = await next_frame(ws)
            assert cancelled == {
                "type": "race_cancelled",
                "race_id": counting.race_id,
                "reason": "missed",
                "message": "the server was down for the whole time of this race: it is void and has no "
                "results",
            }
            results = await request(ws, {"type": "get_results", "id": 2, "race_id": counting.race_id})
            assert results["type"] == "error" and results["code"] == "race_cancelled"
            info = await request(ws, {"type": "get_race", "id": 3, "race_id": counting.race_id})
            assert info["race"]["status"] == "cancelled"
            assert "seed" not in json.dumps(info)
        async with ws_connect(second.url, compression=None) as ws:  # told once, not twice
            again = await request(ws, {"type": "hello", "id": 1, "token": token})
            assert again["races"] == []
            await no_frame(ws)


async def test_a_race_whose_start_was_missed_starts_late_with_its_whole_time_limit(clean_redis: str) -> None:
    clock = ManualTime(T0)
    counting, (token, _) = await countdown_then_downtime(clean_redis, clock)

    late = counting.starts_at + 12_000  # 12 s into the 30 s window
    clock.set(late)
    async with running(clean_redis, clock) as second:
        await until_status(second, counting.race_id, "running")
        async with ws_connect(second.url, compression=None) as ws:
            welcome = await request(ws, {"type": "hello", "id": 1, "token": token})
            assert welcome["races"] == [counting.race_id]
            info = await request(ws, {"type": "get_race", "id": 2, "race_id": counting.race_id})
            assert info["race"]["starts_at"] == late
            assert info["race"]["ends_at"] == late + int(TIME_LIMIT * 1000)
            # Playing time runs from the real start: 25 s after it, moves still count.
            clock.set(late + 25_000)
            first_move = str(new_game("eight-off", WINNABLE_SEED).legal_moves()[0])
            ack = await request(
                ws, {"type": "move", "id": 3, "race_id": counting.race_id, "seq": 1, "move": first_move}
            )
            assert ack["type"] == "move_ack"


async def test_racers_watching_a_late_start_are_told_its_real_window(clean_redis: str) -> None:
    clock = ManualTime(T0)
    async with running(clean_redis, clock) as arena:
        ada, bob, counting = await countdown(arena.url)
        clock.set(counting.starts_at + 4_000)
        started = await ada.wait_for(RaceStarted)
        assert (started.starts_at, started.ends_at) == (counting.starts_at + 4_000, counting.ends_at + 4_000)
        await ada.close()
        await bob.close()


async def test_a_race_whose_end_passed_while_no_node_ran_ends_at_its_end_and_absent_racers_learn_it(
    clean_redis: str,
) -> None:
    clock = ManualTime(T0)
    first = node(clean_redis, clock)
    await first.start()
    ada, bob, counting = await countdown(first.url)
    clock.set(counting.starts_at)
    started = await ada.wait_for(RaceStarted)
    first_move = str(new_game("eight-off", WINNABLE_SEED).legal_moves()[0])
    await ada.move(started.race_id, first_move, seq=1)
    tokens = [ada.token, bob.token]
    await first.stop()
    await ada.close()
    await bob.close()

    clock.set(started.ends_at + 60_000)  # a minute after the end
    async with running(clean_redis, clock) as second:
        await until_status(second, started.race_id, "finished")
        for token in tokens:
            async with ws_connect(second.url, compression=None) as ws:
                welcome = await request(ws, {"type": "hello", "id": 1, "token": token})
                assert welcome["races"] == [started.race_id]
                ended = await next_frame(ws)
                assert ended["type"] == "race_ended" and ended["race_id"] == started.race_id
                assert ended["summary"]["ended_at"] == started.ends_at
                assert [s["move_count"] for s in ended["summary"]["standings"]] == [1, 0]
            async with ws_connect(second.url, compression=None) as ws:
                assert (await request(ws, {"type": "hello", "id": 1, "token": token}))["races"] == []
                await no_frame(ws)


async def test_a_racer_connected_at_the_end_is_not_told_it_again_at_the_next_hello(clean_redis: str) -> None:
    clock = ManualTime(T0)
    async with running(clean_redis, clock) as arena:
        ada, bob, counting = await countdown(arena.url)
        clock.set(counting.starts_at)
        started = await ada.wait_for(RaceStarted)
        clock.set(started.ends_at + 1)
        await ada.wait_for(RaceEnded)
        await bob.wait_for(RaceEnded)
        await asyncio.sleep(0.2)  # the node notes who was told
        async with ws_connect(arena.url, compression=None) as ws:
            welcome = await request(ws, {"type": "hello", "id": 1, "token": ada.token})
            assert welcome["races"] == []
            await no_frame(ws)
        await ada.close()
        await bob.close()

"""A viewer's session (``hello`` with ``viewer``): it reads and watches, stores nothing in
Redis, takes nothing from the address's new-guest allowance, and cannot play. Raw frames
over real sockets and a real Redis."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect

from client.errors import HelloRequiredError, InvalidMessageError
from client.sdk import ArenaClient
from tests.redis_direct import sync_redis
from tests.server.conftest import running_node
from tests.server.rawclient import racers

VIEWER_HELLO = {"type": "hello", "id": 1, "viewer": True}
NOT_A_PLAYER = "this session only watches: play on a new connection that says hello as a player"


async def request(ws: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
    await ws.send(json.dumps(message))
    data: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 5))
    return data


def redis_keys(url: str) -> set[bytes]:
    client = sync_redis(url)
    try:
        return set(client.keys("*"))
    finally:
        client.close()


async def test_a_viewers_welcome_has_no_token_and_no_name_and_the_server_stores_nothing(
    clean_redis: str,
) -> None:
    async with running_node(clean_redis) as node:
        before = redis_keys(clean_redis)
        async with ws_connect(node.url, compression=None) as ws:
            welcome = await request(ws, VIEWER_HELLO)
            assert re.fullmatch(r"v_[0-9a-f]{16}", welcome.pop("player_id"))
            assert isinstance(welcome.pop("server_time"), int)
            assert welcome == {
                "type": "welcome",
                "id": 1,
                "protocol": 1,
                "name": "",
                "resumed": False,
                "races": [],
                "viewer": True,
            }
            listed = await request(ws, {"type": "list_races", "id": 2})
            assert listed["type"] == "race_list" and listed["races"] == []
        assert redis_keys(clean_redis) == before


async def test_a_viewer_reads_the_lobby_live_list_leaderboard_and_a_race_and_watches_it(
    clean_redis: str,
) -> None:
    async with running_node(clean_redis) as node:
        ada, bob = await racers(node.url, "ada", "bob")
        created = await ada.request({"type": "create_race", "game": "treize", "seats": 2, "time_limit": 60})
        race_id, code = created["race"]["race_id"], created["race"]["code"]
        async with ws_connect(node.url, compression=None) as ws:
            assert (await request(ws, VIEWER_HELLO))["viewer"] is True
            listed = await request(ws, {"type": "list_races", "id": 2})
            assert [r["race_id"] for r in listed["races"]] == [race_id]
            got = await request(ws, {"type": "get_race", "id": 3, "race_id": race_id})
            assert got["type"] == "race" and [r["name"] for r in got["race"]["racers"]] == ["ada"]
            board = await request(ws, {"type": "get_leaderboard", "id": 4, "game": "treize"})
            assert board["type"] == "leaderboard"
            await bob.request({"type": "join_race", "code": code})
            await ada.request({"type": "ready", "race_id": race_id, "ready": True})
            await bob.request({"type": "ready", "race_id": race_id, "ready": True})
            await ada.event("race_started", timeout=10)
            live = await request(ws, {"type": "list_live", "id": 5})
            assert [r["race_id"] for r in live["races"]] == [race_id]
            watching = await request(ws, {"type": "watch", "id": 6, "race_id": race_id})
            assert watching["type"] == "watching" and watching["race"]["race_id"] == race_id
            watched = sorted(b["player_id"] for b in watching["boards"])
            assert watched == sorted([ada.player_id, bob.player_id])
        await ada.ws.close()
        await bob.ws.close()


async def test_a_viewer_cannot_create_join_queue_register_or_start_a_daily(clean_redis: str) -> None:
    async with running_node(clean_redis) as node:
        (ada,) = await racers(node.url, "ada")
        created = await ada.request({"type": "create_race", "game": "treize", "seats": 2, "time_limit": 60})
        async with ws_connect(node.url, compression=None) as ws:
            await request(ws, VIEWER_HELLO)
            refusals = [
                {"type": "create_race", "id": 2, "game": "treize", "seats": 2, "time_limit": 60},
                {"type": "join_race", "id": 3, "code": created["race"]["code"]},
                {"type": "quick_match", "id": 4, "game": "treize"},
                {"type": "register", "id": 5, "username": "viewer_1", "password": "a long password"},
                {"type": "start_daily", "id": 6, "game": "treize"},
                {"type": "hello", "id": 7, "name": "again"},
            ]
            for message in refusals[:-1]:
                refused = await request(ws, message)
                assert refused == {
                    "type": "error",
                    "id": message["id"],
                    "code": "hello_required",
                    "message": NOT_A_PLAYER,
                }
            for again in (refusals[-1], {"type": "hello", "id": 8, "viewer": True, "protocol": 2}):
                assert await request(ws, again) == {
                    "type": "error",
                    "id": again["id"],
                    "code": "invalid_message",
                    "message": "this connection already said hello",
                }
        got = await ada.request({"type": "get_race", "race_id": created["race"]["race_id"]})
        assert [r["name"] for r in got["race"]["racers"]] == ["ada"]
        await ada.ws.close()


async def test_viewers_take_nothing_from_the_addresss_new_guest_allowance(clean_redis: str) -> None:
    async with running_node(clean_redis, new_player_rate=0.01, new_player_burst=1) as node:
        for _ in range(5):
            async with ws_connect(node.url, compression=None) as ws:
                assert (await request(ws, VIEWER_HELLO))["type"] == "welcome"
        async with ws_connect(node.url, compression=None) as ws:
            welcome = await request(ws, {"type": "hello", "id": 1, "name": "cleo"})
            assert welcome["type"] == "welcome" and welcome["name"] == "cleo" and welcome["token"]


async def test_a_viewers_hello_takes_no_name_token_or_bot(clean_redis: str) -> None:
    async with running_node(clean_redis) as node:
        for extra in ({"name": "ada"}, {"token": "x" * 43}, {"bot": True}):
            async with ws_connect(node.url, compression=None) as ws:
                refused = await request(ws, {**VIEWER_HELLO, **extra})
                assert refused == {
                    "type": "error",
                    "id": 1,
                    "code": "invalid_message",
                    "message": "a viewer's hello takes no name, token or bot",
                }


async def test_the_sdk_says_hello_as_a_viewer_which_stays_one(clean_redis: str) -> None:
    async with running_node(clean_redis) as node, await ArenaClient.connect(node.url) as client:
        welcome = await client.hello(viewer=True)
        assert welcome.viewer and welcome.token is None and welcome.player_id.startswith("v_")
        assert await client.list_races() == []
        with pytest.raises(HelloRequiredError, match="only watches"):
            await client.create_race("treize")
        with pytest.raises(InvalidMessageError, match="already said hello"):
            await client.hello(name="ada")

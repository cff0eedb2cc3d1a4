"""Legal moves for clients that ask for them at hello, and bots marked as bots: checked
on the raw frames."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect

from client.sdk import ArenaClient
from server.app import ArenaServer
from shared import new_game
from shared.protocol import RaceEnded
from tests.server.conftest import WINNABLE_SEED, Connect
from tests.server.helpers import start_race


async def request(ws: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
    await ws.send(json.dumps(message))
    while True:
        data: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 5))
        if data.get("id") == message["id"]:
            return data


async def resumed(url: str, token: str | None, **hello: object) -> ClientConnection:
    ws = await ws_connect(url, compression=None)
    welcome = await request(ws, {"type": "hello", "id": "h", "token": token, **hello})
    assert welcome["type"] == "welcome"
    return ws


async def test_a_session_that_asked_gets_the_legal_moves_with_every_view(
    arena: ArenaServer, connect: Connect
) -> None:
    race = await start_race(await connect(arena.url), await connect(arena.url))
    game = new_game("eight-off", WINNABLE_SEED)
    move = game.legal_moves()[0]
    ws = await resumed(arena.url, race.ada.token, legal_moves=True)
    try:
        ack = await request(ws, {"type": "move", "id": 1, "race_id": race.race_id, "seq": 1, "move": move})
        game.play(move)
        assert ack["type"] == "move_ack" and ack["view"]["legal_moves"] == game.legal_moves()
        again = await request(ws, {"type": "move", "id": 2, "race_id": race.race_id, "seq": 1, "move": move})
        assert again["type"] == "move_ack" and again["view"]["legal_moves"] == game.legal_moves()
        info = await request(ws, {"type": "get_race", "id": 3, "race_id": race.race_id})
        assert info["race"]["board"]["view"]["legal_moves"] == game.legal_moves()
    finally:
        await ws.close()


async def test_a_session_that_did_not_ask_gets_no_legal_moves(arena: ArenaServer, connect: Connect) -> None:
    race = await start_race(await connect(arena.url), await connect(arena.url))
    move = new_game("eight-off", WINNABLE_SEED).legal_moves()[0]
    ws = await resumed(arena.url, race.bob.token)
    try:
        ack = await request(ws, {"type": "move", "id": 1, "race_id": race.race_id, "seq": 1, "move": move})
        assert ack["type"] == "move_ack" and "legal_moves" not in ack["view"]
        info = await request(ws, {"type": "get_race", "id": 2, "race_id": race.race_id})
        assert "legal_moves" not in info["race"]["board"]["view"]
    finally:
        await ws.close()


async def test_race_started_carries_the_opening_legal_moves(clean_redis: str, arena: ArenaServer) -> None:
    async with (
        ws_connect(arena.url, compression=None) as ada,
        ws_connect(arena.url, compression=None) as bob,
    ):
        await request(ada, {"type": "hello", "id": 1, "name": "ada"})
        await request(bob, {"type": "hello", "id": 1, "name": "bob"})
        created = await request(ada, {"type": "create_race", "id": 2, "game": "treize"})
        await request(bob, {"type": "join_race", "id": 2, "code": created["race"]["code"]})
        await request(ada, {"type": "ready", "id": 3, "race_id": created["race"]["race_id"]})
        await request(bob, {"type": "ready", "id": 3, "race_id": created["race"]["race_id"]})
        while (started := json.loads(await asyncio.wait_for(bob.recv(), 5)))["type"] != "race_started":
            pass
        assert started["view"]["legal_moves"] == new_game("treize", WINNABLE_SEED).legal_moves()


async def test_a_bot_is_shown_as_a_bot_to_everyone_and_stays_one_when_it_resumes(
    arena: ArenaServer, connect: Connect
) -> None:
    robo = await connect(arena.url)
    await robo.hello(name="robo", bot=True)
    race = await start_race(robo, await connect(arena.url))
    ws = await resumed(arena.url, race.bob.token)
    try:
        info = await request(ws, {"type": "get_race", "id": 1, "race_id": race.race_id})
        assert {r["name"]: r["bot"] for r in info["race"]["racers"]} == {"robo": True, "bob": False}
    finally:
        await ws.close()
    back = await ArenaClient.connect(arena.url)
    await back.hello(token=robo.token)
    await robo.close()
    for client in (back, race.bob):
        await client.finish(race.race_id)
    ended = await race.bob.wait_for(RaceEnded)
    assert {s.name: s.bot for s in ended.summary.standings} == {"robo": True, "bob": False}
    await back.close()

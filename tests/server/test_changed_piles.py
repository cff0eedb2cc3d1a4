"""Acks with only the piles their move changed, for sessions that ask at hello or login
(``changed_piles``): checked on the raw frames, against the rules engine's own views."""

from __future__ import annotations

import pytest
from websockets.asyncio.client import connect as ws_connect

import client.sdk
from server.app import ArenaServer
from shared import new_game
from shared.protocol import MoveAck, ServerMessage, decode_server
from shared.views import merged_view
from tests.server.conftest import WINNABLE_SEED, Connect
from tests.server.helpers import start_race
from tests.server.test_legal_moves import request, resumed


async def test_an_ack_carries_only_the_changed_piles_and_laid_over_the_last_view_gives_the_board(
    arena: ArenaServer, connect: Connect
) -> None:
    race = await start_race(await connect(arena.url), await connect(arena.url))
    game = new_game("eight-off", WINNABLE_SEED)
    ws = await resumed(arena.url, race.ada.token, changed_piles=True, legal_moves=True)
    try:
        view = dict(game.view())
        for seq in range(1, 9):
            move = game.legal_moves()[0]
            ack = await request(
                ws, {"type": "move", "id": seq, "race_id": race.race_id, "seq": seq, "move": move}
            )
            game.play(move)
            assert ack["type"] == "move_ack" and ack["changed_only"] is True, ack
            assert list(ack["view"]["piles"]) == list(game.last_changed), move
            assert len(ack["view"]["piles"]) < len(game.pile_names)
            assert ack["view"]["legal_moves"] == game.legal_moves()  # every other field whole
            assert ack["view"]["move_count"] == seq and ack["view"]["score"] == game.score
            view = merged_view(view, ack["view"])
            assert {**view, "legal_moves": None, "can_undo": None} == {
                **game.view(),
                "legal_moves": None,
                "can_undo": None,
            }
        # A move sent again is answered with the stored ack: its view is whole.
        again = await request(ws, {"type": "move", "id": 99, "race_id": race.race_id, "seq": 8, "move": move})
        assert again["resent"] is True and "changed_only" not in again
        assert again["view"]["piles"] == game.view()["piles"]
    finally:
        await ws.close()


async def test_a_session_that_did_not_ask_gets_whole_views_without_the_flag(
    arena: ArenaServer, connect: Connect
) -> None:
    race = await start_race(await connect(arena.url), await connect(arena.url))
    game = new_game("eight-off", WINNABLE_SEED)
    move = game.legal_moves()[0]
    ws = await resumed(arena.url, race.bob.token)
    try:
        ack = await request(ws, {"type": "move", "id": 1, "race_id": race.race_id, "seq": 1, "move": move})
        game.play(move)
        assert "changed_only" not in ack and ack["view"] == game.view()
    finally:
        await ws.close()


async def test_an_account_logging_in_can_ask_for_changed_piles_too(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, bob = await connect(arena.url), await connect(arena.url)
    await ada.hello(name="ada")
    await ada.register("ada_changes", "correct horse battery")
    race = await start_race(ada, bob)
    ws = await ws_connect(arena.url, compression=None)
    try:
        welcome = await request(
            ws,
            {
                "type": "login",
                "id": "l",
                "username": "ada_changes",
                "password": "correct horse battery",
                "changed_piles": True,
            },
        )
        assert welcome["type"] == "welcome"
        move = new_game("eight-off", WINNABLE_SEED).legal_moves()[0]
        ack = await request(ws, {"type": "move", "id": 1, "race_id": race.race_id, "seq": 1, "move": move})
        assert ack["changed_only"] is True
    finally:
        await ws.close()


async def test_the_sdk_asks_for_changed_piles_and_returns_acks_with_whole_views(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    ada = await connect(arena.url)
    race = await start_race(ada, await connect(arena.url))
    game = new_game("eight-off", WINNABLE_SEED)
    acks_heard: list[MoveAck] = []

    def heard(frame: bytes | str) -> ServerMessage:
        message = decode_server(frame)
        if isinstance(message, MoveAck):
            acks_heard.append(message)
        return message

    monkeypatch.setattr(client.sdk, "decode_server", heard)
    for seq in range(1, 6):
        move = game.legal_moves()[0]
        ack = await ada.move(race.race_id, move)
        game.play(move)
        assert ack.seq == seq and not ack.changed_only
        assert ack.view.model_dump(exclude_none=True) == game.view()
        assert acks_heard[-1].changed_only and set(acks_heard[-1].view.piles) == set(game.last_changed)
    # A client that does not hold the view before an ack (here: forgotten) reads the board.
    ada._views.clear()
    move = game.legal_moves()[0]
    ack = await ada.move(race.race_id, move)
    game.play(move)
    assert ack.view.model_dump(exclude_none=True) == game.view()
    assert acks_heard[-1].changed_only

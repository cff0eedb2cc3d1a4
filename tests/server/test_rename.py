"""A guest's rename: the reply, the seats of its races not over, its results kept, a
resumed session, and the refusals; checked on raw frames of real connections."""

from __future__ import annotations

import asyncio
import json

import pytest
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from client.sdk import ArenaClient
from server.app import ArenaServer
from shared.protocol import Renamed
from tests.server.test_accounts import PASSWORD, Frame, ask, connected, guest


async def next_frame(ws: ClientConnection, kind: str, first_racer: str | None = None) -> Frame:
    """The next frame of type ``kind`` (a ``race_update``: whose first racer goes by
    ``first_racer``)."""
    while True:
        frame: Frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if frame["type"] == kind and (
            first_racer is None or frame["race"]["racers"][0]["name"] == first_racer
        ):
            return frame


async def seated_as(ws: ClientConnection, names: list[str]) -> None:
    """Wait for the ``race_update`` that seats the racers under ``names``."""
    while [r["name"] for r in (await next_frame(ws, "race_update"))["race"]["racers"]] != names:
        pass


async def test_a_renamed_guest_is_seated_under_the_new_name_and_resumes_with_it(arena: ArenaServer) -> None:
    ada, welcome = await guest(arena.url, "ada")
    bob, _ = await guest(arena.url, "bob")
    created = await ask(ada, {"type": "create_race", "id": 1, "game": "treize"})
    race_id, code = created["race"]["race_id"], created["race"]["code"]
    assert (await ask(bob, {"type": "join_race", "id": 1, "code": code}))["type"] == "race"
    reply = await ask(ada, {"type": "rename", "id": 2, "name": "Zoe\u0308 L"})
    assert reply == {"type": "renamed", "id": 2, "name": "Zo\u00eb L"}  # as kept: NFC
    update = await next_frame(bob, "race_update", "Zo\u00eb L")  # bob is told
    assert [r["name"] for r in update["race"]["racers"]] == ["Zo\u00eb L", "bob"]
    info = await ask(bob, {"type": "get_race", "id": 2, "race_id": race_id})
    assert [r["name"] for r in info["race"]["racers"]] == ["Zo\u00eb L", "bob"]
    # A seat renamed onto another racer's name (in any case) is numbered there; bob's own
    # name is the one he chose, and a name no other seat has goes back to plain.
    reply = await ask(bob, {"type": "rename", "id": 3, "name": "ZO\u00cb L"})
    assert reply == {"type": "renamed", "id": 3, "name": "ZO\u00cb L"}
    await seated_as(ada, ["Zo\u00eb L", "ZO\u00cb L (2)"])
    assert (await ask(bob, {"type": "rename", "id": 4, "name": "bob two"}))["type"] == "renamed"
    await seated_as(ada, ["Zo\u00eb L", "bob two"])
    # This session goes by it from now on (a race created next), and so does a resumed one.
    again = await ask(ada, {"type": "create_race", "id": 3, "game": "eight-off"})
    assert [r["name"] for r in again["race"]["racers"]] == ["Zo\u00eb L"]
    other = await connected(arena.url)
    resumed = await ask(other, {"type": "hello", "id": "r", "token": welcome["token"]})
    assert resumed["name"] == "Zo\u00eb L" and resumed["player_id"] == welcome["player_id"]
    for conn in (ada, bob, other):
        await conn.close()


async def test_a_finished_race_keeps_the_name_it_was_raced_under(arena: ArenaServer) -> None:
    ada, _ = await guest(arena.url, "ada")
    bob, _ = await guest(arena.url, "bob")
    created = await ask(ada, {"type": "create_race", "id": 1, "game": "treize", "seats": 2})
    race_id, code = created["race"]["race_id"], created["race"]["code"]
    await ask(bob, {"type": "join_race", "id": 1, "code": code})
    for ws in (ada, bob):
        assert (await ask(ws, {"type": "ready", "id": 2, "race_id": race_id}))["type"] == "ok"
    await next_frame(ada, "race_started")
    for ws in (ada, bob):
        assert (await ask(ws, {"type": "finish", "id": 3, "race_id": race_id}))["type"] == "ok"
    await next_frame(ada, "race_ended")
    assert (await ask(ada, {"type": "rename", "id": 4, "name": "ada later"}))["type"] == "renamed"
    results = await ask(bob, {"type": "get_results", "id": 4, "race_id": race_id})
    assert sorted(s["name"] for s in results["summary"]["standings"]) == ["ada", "bob"]
    for ws in (ada, bob):
        await ws.close()


async def test_renames_are_refused_to_accounts_bad_names_accounts_names_and_past_ten_an_hour(
    arena: ArenaServer,
) -> None:
    ws, _ = await guest(arena.url, "cy")
    bad = await ask(ws, {"type": "rename", "id": 1, "name": " cy"})
    assert bad["type"] == "error" and bad["code"] == "invalid_message"
    assert bad["message"] == (
        "name: a name starts with a letter or digit and uses only letters, digits, spaces, '_', '-' and '.'"
    )
    same = await ask(ws, {"type": "rename", "id": 2, "name": "cy"})  # no change: not counted
    assert same == {"type": "renamed", "id": 2, "name": "cy"}
    for n in range(10):
        assert (await ask(ws, {"type": "rename", "id": 10 + n, "name": f"cy {n}"}))["type"] == "renamed"
    refused = await ask(ws, {"type": "rename", "id": 20, "name": "cy again"})
    assert refused == {
        "type": "error",
        "id": 20,
        "code": "rate_limited",
        "message": "too many renames: try again in 60 minutes",
    }
    early, before = await guest(arena.url, "Cy_Account")  # a guest of that name before the account
    register = await ask(ws, {"type": "register", "id": 21, "username": "cy_account", "password": PASSWORD})
    assert register["type"] == "account"
    # From now on a guest may not take the username (in any case), nor a name too like it.
    new = await connected(arena.url)
    hello = await ask(new, {"type": "hello", "id": "h", "name": "CY_ACCOUNT"})
    assert hello == {
        "type": "error",
        "id": "h",
        "code": "username_taken",
        "message": "CY_ACCOUNT is an account's username: pick another name, or log in as cy_account",
    }
    assert (await ask(new, {"type": "hello", "id": "h2", "name": "dee"}))["type"] == "welcome"
    alike = await ask(new, {"type": "rename", "id": "r", "name": "cy_acc0unt"})
    assert alike == {
        "type": "error",
        "id": "r",
        "code": "username_taken",
        "message": "cy_acc0unt is too like cy_account, an account's username: pick another name, "
        "or log in as cy_account",
    }
    # A guest who had the name before keeps it.
    again = await connected(arena.url)
    resumed = await ask(again, {"type": "hello", "id": "t", "token": before["token"]})
    assert resumed["name"] == "Cy_Account"
    account = await ask(ws, {"type": "rename", "id": 22, "name": "someone else"})
    assert account == {
        "type": "error",
        "id": 22,
        "code": "already_registered",
        "message": "an account goes by its username",
    }
    for conn in (ws, early, new, again):
        await conn.close()


async def test_the_guests_other_sessions_are_told_the_new_name_and_go_by_it(arena: ArenaServer) -> None:
    ada, welcome = await guest(arena.url, "ada")
    tab = await connected(arena.url)  # the same guest in another tab
    assert (await ask(tab, {"type": "hello", "id": "t", "token": welcome["token"]}))["name"] == "ada"
    assert (await ask(ada, {"type": "rename", "id": 1, "name": "ada two"}))["type"] == "renamed"
    # The other session is told (an event: no id), and its next race seats it so.
    assert await next_frame(tab, "renamed") == {"type": "renamed", "name": "ada two"}
    created = await ask(tab, {"type": "create_race", "id": 2, "game": "treize"})
    assert [r["name"] for r in created["race"]["racers"]] == ["ada two"]
    # A register on one session gives the account a new token: the others, with the
    # guest's, are signed out (and resume with the new one, as the account).
    registered = await ask(ada, {"type": "register", "id": 3, "username": "Ada_L", "password": PASSWORD})
    assert registered["type"] == "account"
    with pytest.raises(ConnectionClosed):
        await next_frame(tab, "never sent")
    assert tab.close_reason == "signed out: this player registered an account on another device or page"
    back = await connected(arena.url)
    resumed = await ask(back, {"type": "hello", "id": "t", "token": registered["token"]})
    assert (resumed["name"], resumed["username"]) == ("Ada_L", "Ada_L")
    refused = await ask(back, {"type": "register", "id": 4, "username": "Ada_M", "password": PASSWORD})
    assert refused["code"] == "already_registered"  # known before any hash, from the session
    for ws in (ada, tab, back):
        await ws.close()


async def test_the_sdk_follows_a_rename_made_on_another_connection(arena: ArenaServer) -> None:
    first, second = await ArenaClient.connect(arena.url), await ArenaClient.connect(arena.url)
    welcome = await first.hello(name="sol")
    await second.hello(token=welcome.token)
    assert await first.rename("sol two") == "sol two" and first.name == "sol two"
    told = await second.wait_for(Renamed)
    assert told.name == "sol two" and told.id is None and second.name == "sol two"
    for client in (first, second):
        await client.close()

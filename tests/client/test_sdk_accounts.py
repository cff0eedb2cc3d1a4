"""The SDK's account calls against a real server: register, login, change password, logout."""

from __future__ import annotations

import pytest

from client.errors import BadLoginError, BadTokenError, BadUsernameError, UsernameTakenError
from client.sdk import ConnectionEnded
from server.app import ArenaServer
from tests.server.conftest import Connect


async def test_register_then_login_elsewhere_then_logout(arena: ArenaServer, connect: Connect) -> None:
    guest = await connect(arena.url)
    welcome = await guest.hello(name="ada")
    account = await guest.register("ada_sdk", "a long password")
    assert (account.player_id, account.username, guest.name) == (welcome.player_id, "ada_sdk", "ada_sdk")
    device = await connect(arena.url, reconnect=True)
    logged_in = await device.login("ADA_SDK", "a long password")
    assert logged_in.player_id == welcome.player_id and logged_in.username == "ada_sdk"
    token = device.token
    await device.logout()
    assert device.token is None
    probe = await connect(arena.url)
    with pytest.raises(BadTokenError):
        await probe.hello(token=token)


async def test_typed_refusals_for_names_and_passwords(arena: ArenaServer, connect: Connect) -> None:
    first = await connect(arena.url)
    await first.hello(name="bob")
    await first.register("bob_sdk", "a long password")
    second = await connect(arena.url)
    await second.hello(name="bob2")
    with pytest.raises(UsernameTakenError):
        await second.register("BOB-SDK", "another password")
    with pytest.raises(BadUsernameError, match="one script"):
        await second.register("b\u043eb_two", "another password")
    wrong = await connect(arena.url)
    with pytest.raises(BadLoginError, match="wrong username or password"):
        await wrong.login("bob_sdk", "not it at all")


async def test_change_password_keeps_this_device_and_drops_the_others(
    arena: ArenaServer, connect: Connect
) -> None:
    main = await connect(arena.url)
    await main.hello(name="cy")
    await main.register("cy_sdk", "first password")
    other = await connect(arena.url, reconnect=True)
    await other.login("cy_sdk", "first password")
    assert other.ended is None
    await main.change_password("first password", "second password")
    assert (await main.ping()).type == "pong"
    # The other device's connection closes; resuming it is refused, and it says why.
    assert [event async for event in other.events()] == []
    reason = "signed out: the account's password was changed"
    assert other.ended == ConnectionEnded(1000, reason, signed_out=True)
    assert not other.reconnecting
    again = await connect(arena.url)
    with pytest.raises(BadTokenError):
        await again.hello(token=other.token)
    fresh = await connect(arena.url)
    assert (await fresh.login("cy_sdk", "second password")).username == "cy_sdk"

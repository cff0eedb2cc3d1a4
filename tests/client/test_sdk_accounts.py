"""The SDK's account calls against a real server: register, login, change password, logout."""

from __future__ import annotations

import pytest

from client.errors import (
    BadLoginError,
    BadTokenError,
    BadUsernameError,
    ConnectionLostError,
    UsernameTakenError,
)
from client.sdk import ConnectionEnded
from server.app import ArenaServer
from server.store import keys
from server.store.players import token_digest
from shared.protocol import Welcome
from tests.redis_direct import sync_redis
from tests.server.conftest import Connect

GUEST_GONE = "this server no longer knows your guest (unused too long, or its data was reset)"
#: The server's refusal of a token it does not know.
TOKEN_REFUSED = (
    "that token no longer works (revoked, lapsed unused, or never given): log in, or say hello with a name"
)


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
    assert other.ended == ConnectionEnded(1000, reason, signed_out=True, refusal=TOKEN_REFUSED)
    assert not other.reconnecting
    again = await connect(arena.url)
    with pytest.raises(BadTokenError):
        await again.hello(token=other.token)
    fresh = await connect(arena.url)
    assert (await fresh.login("cy_sdk", "second password")).username == "cy_sdk"


async def test_register_keeps_the_accounts_new_token_and_a_drop_resumes_with_it(
    arena: ArenaServer, connect: Connect
) -> None:
    dora = await connect(arena.url, reconnect=True)
    welcome = await dora.hello(name="dora")
    account = await dora.register("dora_sdk", "a long password")
    assert dora.token == account.token and dora.token not in (None, welcome.token)
    probe = await connect(arena.url)
    with pytest.raises(BadTokenError):  # the guest's token stopped working
        await probe.hello(token=welcome.token)
    assert welcome.token is not None
    dora.ws.transport.abort()  # the network drops
    resumed = await dora.wait_for(Welcome)
    assert resumed.resumed and resumed.username == "dora_sdk"
    assert dora.resumes == 1 and dora.ended is None


async def test_change_password_keeps_the_new_token_and_a_drop_resumes_with_it(
    arena: ArenaServer, connect: Connect
) -> None:
    eve = await connect(arena.url, reconnect=True)
    await eve.hello(name="eve")
    await eve.register("eve_sdk", "first password")
    before = eve.token
    copy = await connect(arena.url, reconnect=True)  # the same token, elsewhere
    await copy.hello(token=before)
    token = await eve.change_password("first password", "second password")
    assert token is not None and eve.token == token and token != before
    # The copy of the old token is signed out, and cannot resume.
    assert [event async for event in copy.events()] == []
    reason = "signed out: the account's password was changed"
    assert copy.ended == ConnectionEnded(1000, reason, signed_out=True, refusal=TOKEN_REFUSED)
    probe = await connect(arena.url)
    with pytest.raises(BadTokenError):
        await probe.hello(token=before)
    # This client stays signed in, and resumes a dropped connection with the new token.
    assert (await eve.ping()).type == "pong"
    eve.ws.transport.abort()  # the network drops
    resumed = await eve.wait_for(Welcome)
    assert resumed.resumed and resumed.username == "eve_sdk"
    assert eve.resumes == 1 and eve.ended is None and eve.token == token
    assert (await eve.ping()).type == "pong"


def forget_token(arena: ArenaServer, token: str | None) -> None:
    """The server loses the player's sign-in, as a reset of its data would."""
    assert token is not None
    redis = sync_redis(arena.settings.redis_url)
    assert redis.delete(keys.token(token_digest(token))) == 1
    redis.close()


async def test_a_guest_the_server_no_longer_knows_ends_as_gone_not_as_signed_out_by_the_drop(
    arena: ArenaServer, connect: Connect
) -> None:
    """The drop was a restart ("server shutting down"): that is not why the resume failed,
    and no login brings a guest back."""
    gus = await connect(arena.url, reconnect=True)
    await gus.hello(name="gus")
    forget_token(arena, gus.token)
    await gus.ws.close(1001, "server shutting down")
    assert [event async for event in gus.events()] == []
    assert gus.ended == ConnectionEnded(1001, "server shutting down", True, TOKEN_REFUSED, guest=True)
    assert gus.ended.guest_gone
    assert gus.ended.words == GUEST_GONE
    with pytest.raises(ConnectionLostError) as lost:
        await gus.ping()
    assert lost.value.message == gus.ended.words


async def test_an_account_the_server_no_longer_knows_is_signed_out_for_that_not_for_the_drop(
    arena: ArenaServer, connect: Connect
) -> None:
    ivy = await connect(arena.url, reconnect=True)
    await ivy.hello(name="ivy")
    await ivy.register("ivy_sdk", "a long password")
    forget_token(arena, ivy.token)
    ivy.ws.transport.abort()
    assert [event.type async for event in ivy.events()] == ["renamed"]  # the register's own
    assert ivy.ended is not None and ivy.ended.signed_out and not ivy.ended.guest_gone
    assert ivy.ended.words == (
        "signed out: this server no longer knows your sign-in (ended elsewhere, or its data was reset)"
    )

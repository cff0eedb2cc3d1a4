"""Accounts: register, login on another connection, wrong passwords, look-alike names,
logout and password changes; checked on raw frames of real connections."""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from server.app import ArenaServer
from server.passwords import hash_password, verify_password
from server.store import keys
from server.timesource import ManualTime
from tests.redis_direct import async_redis, sync_redis
from tests.server.conftest import running_node

Frame = dict[str, Any]
PASSWORD = "correct horse battery"


async def ask(ws: ClientConnection, message: Frame) -> Frame:
    await ws.send(json.dumps(message))
    while True:
        data: Frame = json.loads(await asyncio.wait_for(ws.recv(), 5))
        if data.get("id") == message["id"]:
            return data


async def connected(url: str, address: str | None = None) -> ClientConnection:
    """A connection, through a proxy (the node must trust 127.0.0.1) for a client at
    ``address`` when one is given."""
    headers = {"X-Forwarded-For": address} if address else None
    return await ws_connect(url, compression=None, additional_headers=headers)


async def guest(url: str, name: str, address: str | None = None) -> tuple[ClientConnection, Frame]:
    ws = await connected(url, address)
    return ws, await ask(ws, {"type": "hello", "id": "h", "name": name})


async def registered(url: str, username: str, address: str | None = None) -> tuple[ClientConnection, Frame]:
    """A new account's connection, and its guest's welcome with the account's token (the
    guest's stopped working at the register)."""
    ws, welcome = await guest(url, "someone", address)
    reply = await ask(ws, {"type": "register", "id": 1, "username": username, "password": PASSWORD})
    assert reply["type"] == "account", reply
    return ws, {**welcome, "token": reply["token"]}


async def login(url: str, username: str, password: str = PASSWORD) -> tuple[ClientConnection, Frame]:
    ws = await ws_connect(url, compression=None)
    return ws, await ask(ws, {"type": "login", "id": "l", "username": username, "password": password})


async def logins_at_once(
    url: str, attempts: list[tuple[str, str]], addresses: list[str] | None = None
) -> list[str]:
    """Each (username, password) sent as a login on a connection of its own (from the
    client address of the same rank, if given), all at once: the answers' codes, sorted."""
    sockets = [await connected(url, address) for address in addresses or [None] * len(attempts)]
    try:
        guesses = [
            ask(ws, {"type": "login", "id": n, "username": username, "password": password})
            for n, (ws, (username, password)) in enumerate(zip(sockets, attempts, strict=True))
        ]
        return sorted(reply["code"] for reply in await asyncio.gather(*guesses))
    finally:
        for ws in sockets:
            await ws.close()


async def test_a_guest_registers_and_logs_in_on_another_connection_as_the_same_player(
    arena: ArenaServer,
) -> None:
    ws, welcome = await guest(arena.url, "ada")
    created = await ask(ws, {"type": "create_race", "id": 1, "game": "treize"})
    reply = await ask(ws, {"type": "register", "id": 2, "username": "Ada_L", "password": PASSWORD})
    assert reply == {
        "type": "account",
        "id": 2,
        "player_id": welcome["player_id"],
        "username": "Ada_L",
        "bot": False,
        "token": reply["token"],
    }
    other, logged_in = await login(arena.url, "ada_l")  # any case
    assert logged_in["type"] == "welcome"
    assert logged_in["player_id"] == welcome["player_id"] and logged_in["username"] == "Ada_L"
    assert logged_in["name"] == "Ada_L" and logged_in["token"] != welcome["token"]
    assert created["race"]["race_id"] in logged_in["races"]  # the guest's races stay theirs
    # The new token resumes on a third connection, like any token.
    third = await ws_connect(arena.url, compression=None)
    resumed = await ask(third, {"type": "hello", "id": 1, "token": logged_in["token"]})
    assert resumed["player_id"] == welcome["player_id"] and resumed["username"] == "Ada_L"
    for conn in (ws, other, third):
        await conn.close()


async def test_a_guest_who_registers_in_an_open_race_is_seated_under_the_new_name(arena: ArenaServer) -> None:
    ada, _ = await guest(arena.url, "ada")
    bob, _ = await guest(arena.url, "bob")
    created = await ask(ada, {"type": "create_race", "id": 1, "game": "treize"})
    race_id, code = created["race"]["race_id"], created["race"]["code"]
    assert (await ask(bob, {"type": "join_race", "id": 1, "code": code}))["type"] == "race"
    reply = await ask(ada, {"type": "register", "id": 2, "username": "Ada_L", "password": PASSWORD})
    assert reply["type"] == "account"
    # Bob is told: the race's racers, with ada's seat under her username.
    while True:
        update: Frame = json.loads(await asyncio.wait_for(bob.recv(), 5))
        if update["type"] == "race_update" and update["race"]["racers"][0]["name"] == "Ada_L":
            break
    assert [r["name"] for r in update["race"]["racers"]] == ["Ada_L", "bob"]
    info = await ask(bob, {"type": "get_race", "id": 2, "race_id": race_id})
    assert [r["name"] for r in info["race"]["racers"]] == ["Ada_L", "bob"]
    for conn in (ada, bob):
        await conn.close()


async def test_the_password_is_stored_only_as_an_scrypt_hash(arena: ArenaServer, clean_redis: str) -> None:

    ws, welcome = await registered(arena.url, "hashed_one")
    client = async_redis(clean_redis)
    try:
        stored = await client.hget(f"player:{welcome['player_id']}", "password")
        everything = [await client.dump(k) async for k in client.scan_iter("*")]
    finally:
        await client.aclose()
    assert stored.startswith("scrypt$15$8$1$") and verify_password(PASSWORD, stored)
    assert not any(PASSWORD.encode() in (blob or b"") for blob in everything)
    await ws.close()


async def login_from(
    url: str, address: str, username: str, password: str = PASSWORD
) -> tuple[ClientConnection, Frame]:
    """A login through a proxy (the node must trust 127.0.0.1) for a client at ``address``."""
    ws = await connected(url, address)
    return ws, await ask(ws, {"type": "login", "id": "l", "username": username, "password": password})


async def code_from(url: str, address: str, username: str, password: str = PASSWORD) -> str:
    """The answer's type (``welcome``) or error code to a login from ``address``."""
    ws, reply = await login_from(url, address, username, password)
    await ws.close()
    return str(reply["code"] if reply["type"] == "error" else reply["type"])


def hashes_spent(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The passwords the nodes of this process hash for accounts from now on (still for real)."""
    spent: list[str] = []

    def verifying(password: str, stored: str) -> bool:
        spent.append(password)
        return verify_password(password, stored)

    def hashing(password: str) -> str:
        spent.append(password)
        return hash_password(password)

    monkeypatch.setattr("server.features.accounts.verify_password", verifying)
    monkeypatch.setattr("server.features.accounts.hash_password", hashing)
    return spent


async def test_a_wrong_password_and_an_unknown_name_get_the_same_refusal(arena: ArenaServer) -> None:
    ws, _ = await registered(arena.url, "bob_b")
    wrong, refused = await login(arena.url, "bob_b", "not the password")
    assert refused == {
        "type": "error",
        "id": "l",
        "code": "bad_login",
        "message": "wrong username or password",
    }
    unknown, nobody = await login(arena.url, "nobody_here")
    assert nobody == {
        "type": "error",
        "id": "l",
        "code": "bad_login",
        "message": "wrong username or password",
    }
    for conn in (ws, wrong, unknown):
        await conn.close()


PROXIED: dict[str, object] = {"trusted_proxies": "127.0.0.1"}
HOME, RIVAL, CAFE, HOTEL = "198.51.100.10", "203.0.113.66", "192.0.2.44", "192.0.2.99"
LOCKED_HERE = "too many wrong passwords for this account from your address: try again in 15 minutes"
LOCKED_AWAY = (
    "too many wrong passwords for this account: try again in 15 minutes, or from a network you used before"
)


async def test_wrong_passwords_from_one_address_lock_out_that_address_and_not_the_owner_elsewhere(
    clean_redis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    spent = hashes_spent(monkeypatch)
    async with running_node(clean_redis, **PROXIED) as node:
        owner, _ = await registered(node.url, "carol", HOME)
        for attempt in range(5):
            assert await code_from(node.url, RIVAL, "carol", f"guess number {attempt}") == "bad_login"
        checked = len(spent)
        rival, locked = await login_from(node.url, RIVAL, "carol")  # even the right password waits now
        assert locked == {"type": "error", "id": "l", "code": "rate_limited", "message": LOCKED_HERE}
        assert len(spent) == checked
        # The owner logs in from a new device on another network, one never used before.
        assert await code_from(node.url, CAFE, "carol") == "welcome"
        assert 'arena_login_refusals_total{limit="account_address"} 1.0' in node.metrics.render().decode()
        await rival.close()
        await owner.close()


async def test_past_the_account_wide_bound_only_addresses_the_account_logged_in_from_may_try(
    clean_redis: str,
) -> None:
    async with running_node(clean_redis, **PROXIED, login_failures_per_account=3) as node:
        owner, _ = await registered(node.url, "uma_u", HOME)  # known by its register
        assert await code_from(node.url, CAFE, "uma_u") == "welcome"  # known by a login
        for guesser in ("203.0.113.1", "203.0.113.2", "203.0.113.3"):
            assert await code_from(node.url, guesser, "uma_u", "a wrong guess") == "bad_login"
        ws, refused = await login_from(node.url, HOTEL, "uma_u")  # right, but never from here
        assert refused == {"type": "error", "id": "l", "code": "rate_limited", "message": LOCKED_AWAY}
        assert await code_from(node.url, HOME, "uma_u") == "welcome"
        assert await code_from(node.url, CAFE, "uma_u") == "welcome"
        # A known address keeps its own allowance of wrong passwords, no more.
        for attempt in range(5):
            assert await code_from(node.url, CAFE, "uma_u", f"typo {attempt}") == "bad_login"
        assert await code_from(node.url, CAFE, "uma_u") == "rate_limited"
        assert await code_from(node.url, HOME, "uma_u") == "welcome"
        refusals = node.metrics.render().decode()
        assert 'arena_login_refusals_total{limit="account"} 1.0' in refusals
        assert 'arena_login_refusals_total{limit="account_address"} 1.0' in refusals
        await ws.close()
        await owner.close()


async def test_a_sign_in_resumed_with_its_token_makes_the_address_known_to_the_account(
    clean_redis: str,
) -> None:
    async with running_node(clean_redis, **PROXIED, login_failures_per_account=3) as node:
        owner, welcome = await registered(node.url, "tia_t", HOME)
        # The owner's phone resumes its sign-in from a hotel's network, never logged in from.
        phone = await connected(node.url, HOTEL)
        resume = {"type": "hello", "id": "h", "token": welcome["token"]}
        assert (await ask(phone, resume))["type"] == "welcome"
        for guesser in ("203.0.113.1", "203.0.113.2", "203.0.113.3"):
            assert await code_from(node.url, guesser, "tia_t", "a wrong guess") == "bad_login"
        assert await code_from(node.url, CAFE, "tia_t") == "rate_limited"  # never used
        assert await code_from(node.url, HOTEL, "tia_t") == "welcome"  # known by the resume
        await phone.close()
        await owner.close()


async def test_wrong_counts_lapse_15_minutes_after_the_first_and_a_known_address_30_days_after_its_login(
    clean_redis: str,
) -> None:
    clock = ManualTime(1_800_000_000_000)
    async with running_node(clean_redis, **PROXIED, login_failures_per_account=5, time=clock) as node:
        owner, welcome = await registered(node.url, "vera_v", HOME)
        player_id = welcome["player_id"]
        for attempt in range(5):
            assert await code_from(node.url, CAFE, "vera_v", f"typo {attempt}") == "bad_login"
        assert await code_from(node.url, CAFE, "vera_v") == "rate_limited"
        assert await code_from(node.url, HOME, "vera_v") == "welcome"
        pair, account, known = keys.login_keys(player_id, CAFE)
        probe = sync_redis(clean_redis, decode_responses=True)
        try:
            assert [895 <= probe.ttl(key) <= 900 for key in (pair, account)] == [True, True]
            assert probe.zrange(known, 0, -1) == [HOME]
            assert 30 * 86400 - 5 <= probe.ttl(known) <= 30 * 86400
            clock.advance(30 * 86400 + 1)  # HOME's latest login is 30 days old now
            assert await code_from(node.url, HOME, "vera_v") == "rate_limited"
            probe.pexpire(pair, 1)
            probe.pexpire(account, 1)  # as 15 minutes after the first typo
            await asyncio.sleep(0.01)
            assert await code_from(node.url, CAFE, "vera_v") == "welcome"
            assert await code_from(node.url, HOME, "vera_v") == "welcome"
            assert probe.zrange(known, 0, -1) == [CAFE, HOME]
        finally:
            probe.close()
        await owner.close()


async def test_wrong_passwords_are_limited_per_connection(arena: ArenaServer) -> None:
    for name in ("dave1", "dave2", "dave3", "dave4", "dave5", "dave6"):
        conn, _ = await registered(arena.url, name)
        await conn.close()
    ws = await ws_connect(arena.url, compression=None)
    for index, name in enumerate(("dave1", "dave2", "dave3", "dave4", "dave5")):
        refused = await ask(ws, {"type": "login", "id": index, "username": name, "password": "nope nope"})
        assert refused["code"] == "bad_login"
    blocked = await ask(ws, {"type": "login", "id": 9, "username": "dave6", "password": PASSWORD})
    assert (
        blocked["code"] == "rate_limited"
        and blocked["message"] == "too many wrong passwords on this connection"
    )
    await ws.close()


SPRAYER = "203.0.113.7"


async def test_failed_logins_from_one_address_are_limited_over_its_connections_and_nodes_without_hashing(
    clean_redis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    spent = hashes_spent(monkeypatch)
    settings: dict[str, object] = {"trusted_proxies": "127.0.0.1", "login_failures_per_address": 3}
    async with (
        running_node(clean_redis, **settings) as first,
        running_node(clean_redis, **settings) as second,
    ):
        owner, _ = await registered(first.url, "ruth_r")
        # A guess at each of several accounts (real or not), each on its own connection.
        for node, username in ((first, "ruth_r"), (second, "nobody_1"), (first, "nobody_2")):
            ws, refused = await login_from(node.url, SPRAYER, username, "a wrong guess")
            assert refused["code"] == "bad_login"
            await ws.close()
        checked = len(spent)
        ws, limited = await login_from(second.url, SPRAYER, "ruth_r")  # even the right password
        assert limited == {
            "type": "error",
            "id": "l",
            "code": "rate_limited",
            "message": "too many failed logins from your address: try again in 15 minutes",
        }
        assert len(spent) == checked
        elsewhere, welcome = await login_from(second.url, "198.51.100.8", "ruth_r")
        assert welcome["type"] == "welcome"
        for conn in (owner, ws, elsewhere):
            await conn.close()


async def test_guesses_sent_at_once_from_one_address_get_no_more_checks_than_its_limit(
    clean_redis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    spent = hashes_spent(monkeypatch)
    async with running_node(clean_redis, login_failures_per_address=3) as node:
        codes = await logins_at_once(node.url, [(f"nobody_{n}", "a wrong guess") for n in range(6)])
        assert codes == ["bad_login"] * 3 + ["rate_limited"] * 3
        assert len(spent) == 3
        assert 'arena_login_refusals_total{limit="address"} 3.0' in node.metrics.render().decode()


async def test_guesses_sent_at_once_from_one_address_at_one_account_get_no_more_checks_than_its_limit(
    clean_redis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_node(clean_redis, login_failures_per_address=0) as node:
        owner, _ = await registered(node.url, "tia_t")
        spent = hashes_spent(monkeypatch)
        codes = await logins_at_once(node.url, [("tia_t", f"wrong guess {n}") for n in range(8)])
        assert codes == ["bad_login"] * 5 + ["rate_limited"] * 3
        assert len(spent) == 5
        refusals = node.metrics.render().decode()
        assert 'arena_login_refusals_total{limit="account_address"} 3.0' in refusals
        assert 'limit="address"' not in refusals  # that limit is off here
        await owner.close()


async def test_guesses_sent_at_once_from_many_addresses_get_no_more_checks_than_the_account_wide_bound(
    clean_redis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_node(clean_redis, **PROXIED, login_failures_per_account=3) as node:
        owner, _ = await registered(node.url, "una_u", HOME)
        spent = hashes_spent(monkeypatch)
        guessers = [f"203.0.113.{n}" for n in range(1, 7)]
        codes = await logins_at_once(node.url, [("una_u", f"wrong guess {n}") for n in range(6)], guessers)
        assert codes == ["bad_login"] * 3 + ["rate_limited"] * 3
        assert len(spent) == 3
        assert 'arena_login_refusals_total{limit="account"} 3.0' in node.metrics.render().decode()
        await owner.close()


async def test_a_failed_login_counts_against_its_address_for_15_minutes_and_a_right_one_does_not(
    arena: ArenaServer, clean_redis: str
) -> None:
    owner, _ = await registered(arena.url, "sam_s")
    wrong, refused = await login(arena.url, "sam_s", "not the password")
    assert refused["code"] == "bad_login"
    right, welcome = await login(arena.url, "sam_s")
    assert welcome["type"] == "welcome"
    probe = sync_redis(clean_redis, decode_responses=True)
    counter = keys.address_login_failures("127.0.0.1")
    try:
        assert probe.get(counter) == "1"
        assert 895 <= probe.ttl(counter) <= 900
    finally:
        probe.close()
    for conn in (owner, wrong, right):
        await conn.close()


async def test_password_changes_are_limited_per_account_before_any_hashing(
    arena: ArenaServer, clean_redis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("server.features.accounts.PASSWORD_CHANGES", 1)
    ws, welcome = await registered(arena.url, "tess_t")
    spent = hashes_spent(monkeypatch)
    change = {"type": "change_password", "id": 1, "old_password": PASSWORD, "new_password": "staple 2 horses"}
    changed = await ask(ws, change)
    assert changed == {"type": "ok", "id": 1, "token": changed["token"]}
    back = {**change, "id": 2, "old_password": "staple 2 horses", "new_password": PASSWORD}
    assert await ask(ws, back) == {
        "type": "error",
        "id": 2,
        "code": "rate_limited",
        "message": "too many password changes for this account: try again in 60 minutes",
    }
    assert spent == [PASSWORD, "staple 2 horses"]  # the first change's two hashes only
    probe = sync_redis(clean_redis, decode_responses=True)
    try:
        assert 3595 <= probe.ttl(keys.password_changes(welcome["player_id"])) <= 3600
    finally:
        probe.close()
    await ws.close()


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("erin_x", "ERIN_X"),  # case
        ("erin_x", "erin-x"),  # - and _ read alike
        ("erin_x", "er1n_x"),  # 1 and i read alike
        ("bob_b", "b0b_b"),  # 0 and o
        ("zoe_b", "zo\u0308e_b"),  # accents: a decomposed e with its diaeresis
        ("paypa_x", "\u0440\u0430\u0443\u0440\u0430_\u0445"),  # all Cyrillic look-alikes
    ],
)
async def test_a_username_too_like_a_taken_one_is_refused(
    arena: ArenaServer, first: str, second: str
) -> None:
    taken, _ = await registered(arena.url, first)
    ws, _ = await guest(arena.url, "imitator")
    reply = await ask(ws, {"type": "register", "id": 1, "username": second, "password": PASSWORD})
    assert reply["type"] == "error" and reply["code"] == "username_taken", (second, reply)
    await taken.close()
    await ws.close()


@pytest.mark.parametrize(
    ("username", "reason"),
    [
        ("ab", "a username has 3 to 20 characters"),
        ("ada lovelace", "a username has letters, digits, _ and - only, not ' '"),
        ("ad\u0430m", "a username uses one script, not cyrillic and latin mixed"),
        ("12345", "a username needs at least one letter"),
    ],
)
async def test_a_bad_username_is_refused_with_its_reason(
    arena: ArenaServer, username: str, reason: str
) -> None:
    ws, _ = await guest(arena.url, "frank")
    reply = await ask(ws, {"type": "register", "id": 1, "username": username, "password": PASSWORD})
    assert reply == {"type": "error", "id": 1, "code": "bad_username", "message": reason}
    await ws.close()


async def test_registering_twice_is_refused(arena: ArenaServer) -> None:
    ws, _ = await registered(arena.url, "gina")
    again = await ask(ws, {"type": "register", "id": 2, "username": "gina2", "password": PASSWORD})
    assert again["code"] == "already_registered"
    await ws.close()


async def test_logout_revokes_that_token_and_closes_the_connections_open_with_it(arena: ArenaServer) -> None:
    first, _ = await registered(arena.url, "henry")
    phone, on_phone = await login(arena.url, "henry")
    laptop, on_laptop = await login(arena.url, "henry")
    other_tab = await ws_connect(arena.url, compression=None)
    assert (await ask(other_tab, {"type": "hello", "id": 1, "token": on_phone["token"]}))["type"] == "welcome"
    assert await ask(phone, {"type": "logout", "id": 5}) == {"type": "ok", "id": 5}
    with pytest.raises(ConnectionClosed):
        await asyncio.wait_for(phone.recv(), 5)
    assert phone.close_code == 1000 and phone.close_reason == "logged out"
    # Another connection with that token is signed out at once; the account's others stay.
    with pytest.raises(ConnectionClosed):
        await asyncio.wait_for(other_tab.recv(), 5)
    assert (other_tab.close_code, other_tab.close_reason) == (
        1000,
        "signed out: logged out on another device or page",
    )
    assert (await ask(laptop, {"type": "ping", "id": 6}))["type"] == "pong"
    again = await ws_connect(arena.url, compression=None)
    revoked = await ask(again, {"type": "hello", "id": 1, "token": on_phone["token"]})
    assert revoked["code"] == "bad_token"
    still = await ws_connect(arena.url, compression=None)
    assert (await ask(still, {"type": "hello", "id": 1, "token": on_laptop["token"]}))["type"] == "welcome"
    for conn in (first, laptop, other_tab, again, still):
        await conn.close()


async def test_an_accounts_sign_in_lapses_unused_for_sign_in_ttl_from_its_last_connections_end(
    clean_redis: str,
) -> None:
    async with running_node(clean_redis, sign_in_ttl=2) as node:
        first, welcome = await registered(node.url, "henry")
        token = welcome["token"]
        phone, on_phone = await login(node.url, "henry")
        probe = sync_redis(clean_redis, decode_responses=True)
        digest = hashlib.sha256(on_phone["token"].encode()).hexdigest()
        assert 0 < probe.ttl(keys.token(digest)) <= 2  # a login's token lapses too
        await asyncio.sleep(1.2)
        await first.close()  # the clock starts again from here
        await asyncio.sleep(1.2)  # 2.4 s after the register: kept by the connection's end
        back = await ws_connect(node.url, compression=None)
        assert (await ask(back, {"type": "hello", "id": 1, "token": token}))["type"] == "welcome"
        await back.close()
        await asyncio.sleep(2.6)
        late = await ws_connect(node.url, compression=None)
        lapsed = await ask(late, {"type": "hello", "id": 2, "token": token})
        assert lapsed == {
            "type": "error",
            "id": 2,
            "code": "bad_token",
            "message": (
                "that token no longer works (revoked, lapsed unused, or never given): "
                "log in, or say hello with a name"
            ),
        }
        # The account itself is untouched: its password signs it in again.
        again = await ask(late, {"type": "login", "id": 3, "username": "henry", "password": PASSWORD})
        assert again["type"] == "welcome" and again["player_id"] == welcome["player_id"]
        for conn in (phone, late):
            await conn.close()


async def test_a_new_password_revokes_every_other_token_and_closes_their_sessions_on_every_node(
    arena: ArenaServer,
) -> None:
    first, _ = await registered(arena.url, "iris")
    laptop, on_laptop = await login(arena.url, "iris")
    same_token = await ws_connect(arena.url, compression=None)
    welcome = await ask(same_token, {"type": "hello", "id": 1, "token": on_laptop["token"]})
    assert welcome["type"] == "welcome"
    async with running_node(arena.settings.redis_url) as other_node:
        phone, on_phone = await login(other_node.url, "iris")
        wrong = await ask(
            laptop,
            {"type": "change_password", "id": 1, "old_password": "nope", "new_password": "new secret!"},
        )
        assert wrong["code"] == "bad_login" and wrong["message"] == "the old password is wrong"
        changed = await ask(
            laptop,
            {"type": "change_password", "id": 2, "old_password": PASSWORD, "new_password": "new secret!"},
        )
        assert changed == {"type": "ok", "id": 2, "token": changed["token"]}
        # The sessions of the revoked tokens close at once, here and on the other node, and
        # so does one with the changer's own old token; the changer's stays.
        for revoked in (first, phone, same_token):
            with pytest.raises(ConnectionClosed):
                await asyncio.wait_for(revoked.recv(), 5)
            assert revoked.close_code == 1000
            assert revoked.close_reason == "signed out: the account's password was changed"
        assert (await ask(laptop, {"type": "ping", "id": 3}))["type"] == "pong"
    check = await ws_connect(arena.url, compression=None)
    assert (await ask(check, {"type": "hello", "id": 1, "token": on_phone["token"]}))["code"] == "bad_token"
    check2 = await ws_connect(arena.url, compression=None)
    assert (await ask(check2, {"type": "hello", "id": 1, "token": changed["token"]}))["type"] == "welcome"
    old, refused = await login(arena.url, "iris")
    assert refused["code"] == "bad_login"
    new, accepted = await login(arena.url, "iris", "new secret!")
    assert accepted["type"] == "welcome"
    for conn in (first, phone, laptop, same_token, check, check2, old, new):
        await conn.close()


async def test_a_new_password_revokes_the_changers_own_token_and_gives_it_a_new_one(
    arena: ArenaServer,
) -> None:
    # A guest's token copied before the register, and the account's after it: neither
    # outlives the password change.
    ws, welcome = await guest(arena.url, "carol")
    attacker = await connected(arena.url)
    assert (await ask(attacker, {"type": "hello", "id": "h", "token": welcome["token"]}))["type"] == "welcome"
    account = await ask(ws, {"type": "register", "id": 1, "username": "carol_c", "password": PASSWORD})
    copy = await connected(arena.url)
    assert (await ask(copy, {"type": "hello", "id": "h", "token": account["token"]}))["type"] == "welcome"
    change = {"type": "change_password", "id": 2, "old_password": PASSWORD, "new_password": "staple 2 horses"}
    changed = await ask(ws, change)
    assert changed == {"type": "ok", "id": 2, "token": changed["token"]}
    assert changed["token"] not in (welcome["token"], account["token"])
    with pytest.raises(ConnectionClosed):
        await asyncio.wait_for(copy.recv(), 5)
    assert (copy.close_code, copy.close_reason) == (1000, "signed out: the account's password was changed")
    for old in (welcome["token"], account["token"]):
        again = await connected(arena.url)
        refused = await ask(again, {"type": "hello", "id": "h", "token": old})
        assert refused["type"] == "error" and refused["code"] == "bad_token", refused
        await again.close()
    # The changer stays signed in, and its new token resumes the account anywhere.
    assert (await ask(ws, {"type": "ping", "id": 3}))["type"] == "pong"
    fresh = await connected(arena.url)
    resumed = await ask(fresh, {"type": "hello", "id": "h", "token": changed["token"]})
    assert resumed["type"] == "welcome" and resumed["username"] == "carol_c"
    assert resumed["player_id"] == welcome["player_id"]
    for conn in (ws, attacker, copy, fresh):
        await conn.close()


async def test_a_register_revokes_the_guests_token_and_gives_the_account_a_new_one(
    arena: ArenaServer, clean_redis: str
) -> None:
    ws, welcome = await guest(arena.url, "dora")
    attacker = await connected(arena.url)  # a copy of the guest's token, resumed elsewhere
    assert (await ask(attacker, {"type": "hello", "id": "h", "token": welcome["token"]}))["type"] == "welcome"
    account = await ask(ws, {"type": "register", "id": 1, "username": "dora_d", "password": PASSWORD})
    assert account["type"] == "account" and account["token"] != welcome["token"]
    with pytest.raises(ConnectionClosed):
        await asyncio.wait_for(attacker.recv(), 5)
    assert (attacker.close_code, attacker.close_reason) == (
        1000,
        "signed out: this player registered an account on another device or page",
    )
    again = await connected(arena.url)
    refused = await ask(again, {"type": "hello", "id": "h", "token": welcome["token"]})
    assert refused["type"] == "error" and refused["code"] == "bad_token", refused
    # The registering session goes on; the new token resumes the account.
    assert (await ask(ws, {"type": "ping", "id": 2}))["type"] == "pong"
    fresh = await connected(arena.url)
    resumed = await ask(fresh, {"type": "hello", "id": "h", "token": account["token"]})
    assert resumed["type"] == "welcome" and resumed["player_id"] == welcome["player_id"]
    assert resumed["username"] == "dora_d"
    # The store lists the account's one token, and the guest's is gone from it.
    direct = async_redis(clean_redis)
    try:
        digests = await direct.smembers(keys.player_tokens(welcome["player_id"]))
        assert await direct.hget(keys.player(welcome["player_id"]), "token_sha") is None
    finally:
        await direct.aclose()
    assert digests == {hashlib.sha256(account["token"].encode()).hexdigest()}
    for conn in (ws, attacker, again, fresh):
        await conn.close()


async def test_a_wrong_old_password_counts_against_its_address_and_the_account_wide_bound_refuses_no_change(
    clean_redis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("server.features.accounts.PAIR_FAILURES", 2)
    async with running_node(clean_redis, **PROXIED, login_failures_per_account=1) as node:
        owner, welcome = await registered(node.url, "wes_w", HOME)
        assert await code_from(node.url, RIVAL, "wes_w", "a wrong guess") == "bad_login"  # the bound
        hotel, cafe = await connected(node.url, HOTEL), await connected(node.url, CAFE)
        assert (await ask(hotel, {"type": "hello", "id": "h", "token": welcome["token"]}))[
            "type"
        ] == "welcome"
        change = {
            "type": "change_password",
            "id": 1,
            "old_password": PASSWORD,
            "new_password": "staple 2 horses",
        }
        changed = await ask(hotel, change)  # from an address never logged in from
        assert changed["type"] == "ok", changed
        assert (await ask(cafe, {"type": "hello", "id": "h", "token": changed["token"]}))["type"] == "welcome"
        wrong = {**change, "old_password": "not the password"}
        for attempt in range(2):
            assert (await ask(cafe, {**wrong, "id": attempt}))["code"] == "bad_login"
        fixed = {**change, "id": 3, "old_password": "staple 2 horses", "new_password": PASSWORD}
        assert await ask(cafe, fixed) == {
            "type": "error",
            "id": 3,
            "code": "rate_limited",
            "message": LOCKED_HERE,
        }
        assert await code_from(node.url, CAFE, "wes_w", "staple 2 horses") == "rate_limited"
        for conn in (owner, hotel, cafe):
            await conn.close()


async def test_a_guest_has_no_password_to_change(arena: ArenaServer) -> None:
    ws, _ = await guest(arena.url, "jack")
    reply = await ask(
        ws, {"type": "change_password", "id": 1, "old_password": "x", "new_password": "whatever1"}
    )
    assert reply == {
        "type": "error",
        "id": 1,
        "code": "not_registered",
        "message": "a guest has no password: register first",
    }
    await ws.close()


async def test_a_short_password_is_refused_before_any_hashing(arena: ArenaServer) -> None:
    ws, _ = await guest(arena.url, "kate")
    reply = await ask(ws, {"type": "register", "id": 1, "username": "kate_k", "password": "short"})
    assert reply["type"] == "error" and reply["code"] == "invalid_message" and "password" in reply["message"]
    await ws.close()


async def test_login_on_a_connection_that_said_hello_is_refused(arena: ArenaServer) -> None:
    first, _ = await registered(arena.url, "leo_l")
    ws, _ = await guest(arena.url, "leo")
    reply = await ask(ws, {"type": "login", "id": 1, "username": "leo_l", "password": PASSWORD})
    assert reply["code"] == "invalid_message" and reply["message"] == "this connection already said hello"
    await first.close()
    await ws.close()


async def test_logging_in_again_and_again_keeps_at_most_max_tokens_and_signs_out_the_revoked(
    arena: ArenaServer, clean_redis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("server.features.accounts.MAX_TOKENS", 3, raising=False)
    first, welcome = await registered(arena.url, "nina_n")
    player_id = welcome["player_id"]
    sessions = [first]
    for _ in range(6):
        ws, reply = await login(arena.url, "nina_n")
        assert reply["type"] == "welcome" and reply["player_id"] == player_id, reply
        sessions.append(ws)
    direct = async_redis(clean_redis)
    try:
        digests = await direct.smembers(f"player:{player_id}:tokens")
        tokens = [key async for key in direct.scan_iter(match="token:*")]
    finally:
        await direct.aclose()
    assert len(digests) == 3
    assert sorted(tokens) == sorted(f"token:{d}" for d in digests)
    # The newest session always keeps its token; the connections whose tokens went are
    # closed with the reason, and 3 stay open.
    closed: list[str] = []
    for ws in sessions:
        try:
            await asyncio.wait_for(ws.recv(), 0.5)
        except ConnectionClosed as exc:
            assert exc.rcvd is not None and exc.rcvd.code == 1000
            closed.append(exc.rcvd.reason)
        except TimeoutError:
            pass
    assert closed == ["signed out: too many devices logged in to this account"] * 4
    newest = sessions[-1]
    pong = await ask(newest, {"type": "ping", "id": 1})
    assert pong["type"] == "pong"
    for ws in sessions:
        await ws.close()


async def test_register_sent_again_by_an_account_or_with_a_taken_name_is_refused_without_hashing(
    arena: ArenaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    owner, _ = await registered(arena.url, "omar_o")
    hashed: list[str] = []

    def counting_hash(password: str) -> str:
        hashed.append(password)
        return "scrypt$not-a-real-hash"

    monkeypatch.setattr("server.features.accounts.hash_password", counting_hash)
    again = {"type": "register", "id": 2, "username": "omar_p", "password": PASSWORD}
    assert await ask(owner, again) == {
        "type": "error",
        "id": 2,
        "code": "already_registered",
        "message": "you already have an account: log in with it",
    }
    ws, _ = await guest(arena.url, "pia")
    taken = {"type": "register", "id": 3, "username": "Omar-0", "password": PASSWORD}
    assert await ask(ws, taken) == {
        "type": "error",
        "id": 3,
        "code": "username_taken",
        "message": "'Omar-0' is taken, or too like a name that is: choose another",
    }
    assert hashed == []
    await owner.close()
    await ws.close()


async def test_registers_of_one_guest_sent_at_once_on_many_connections_hash_once(
    arena: ArenaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, welcome = await guest(arena.url, "quinn")
    sockets = [first] + [await connected(arena.url) for _ in range(19)]
    for ws in sockets[1:]:
        assert (await ask(ws, {"type": "hello", "id": "h", "token": welcome["token"]}))["type"] == "welcome"
    spent = hashes_spent(monkeypatch)
    replies = await asyncio.gather(
        *(
            ask(ws, {"type": "register", "id": n, "username": f"quinn_{n}", "password": PASSWORD})
            for n, ws in enumerate(sockets)
        )
    )
    accounts = [reply for reply in replies if reply["type"] == "account"]
    refused = [reply for reply in replies if reply["type"] == "error"]
    assert len(accounts) == 1 and len(refused) == 19, replies
    assert {reply["code"] for reply in refused} == {"already_registered"}, refused
    assert len(spent) == 1  # the one register that became an account
    for ws in sockets:
        await ws.close()


@pytest.mark.parametrize(
    ("imitation", "code"),
    [
        ("\u0251lice", "bad_username"),  # LATIN SMALL LETTER ALPHA: phonetic
        ("a\u01c0ice", "bad_username"),  # LATIN LETTER DENTAL CLICK
        ("al\u0661ce", "bad_username"),  # ARABIC-INDIC DIGIT ONE
        ("al\u0131ce", "username_taken"),  # Turkish dotless i: a letter, too like alice's i
    ],
)
async def test_a_username_imitating_a_taken_one_with_look_alike_characters_is_refused(
    arena: ArenaServer, imitation: str, code: str
) -> None:
    taken, _ = await registered(arena.url, "Alice")
    ws, _ = await guest(arena.url, "imitator")
    reply = await ask(ws, {"type": "register", "id": 1, "username": imitation, "password": PASSWORD})
    assert reply["type"] == "error" and reply["code"] == code, (imitation, reply)
    await taken.close()
    await ws.close()


@pytest.mark.parametrize("name", ["alice.", "a l i c e", "Alice_", "al.ice", "\u0251lice", "al\u0661ce"])
async def test_a_guest_name_too_like_an_accounts_but_for_spaces_punctuation_or_look_alikes_is_refused(
    arena: ArenaServer, name: str
) -> None:
    taken, _ = await registered(arena.url, "Alice")
    ws = await connected(arena.url)
    hello = await ask(ws, {"type": "hello", "id": "h", "name": name})
    assert hello == {
        "type": "error",
        "id": "h",
        "code": "username_taken",
        "message": f"{name} is too like Alice, an account's username: pick another name, or log in as Alice",
    }
    await taken.close()
    await ws.close()


@pytest.mark.parametrize(
    ("password", "reason"),
    [
        ("password", "that password is one of the most common: choose another"),
        ("12345678", "that password is one of the most common: choose another"),
        ("aaaaaaaa", "a password is not one character repeated"),
        ("Rosa_Weak", "a password does not hold the username"),
        ("my rosa_weak 2024", "a password does not hold the username"),
    ],
)
async def test_a_weak_password_is_refused_with_its_reason_before_any_hashing(
    arena: ArenaServer, monkeypatch: pytest.MonkeyPatch, password: str, reason: str
) -> None:
    spent = hashes_spent(monkeypatch)
    ws, _ = await guest(arena.url, "rosa")
    reply = await ask(ws, {"type": "register", "id": 1, "username": "rosa_weak", "password": password})
    assert reply == {"type": "error", "id": 1, "code": "invalid_message", "message": reason}
    assert spent == []
    await ws.close()


async def test_a_weak_new_password_is_refused_and_the_old_one_kept(arena: ArenaServer) -> None:
    ws, _ = await registered(arena.url, "sam_weak")
    for n, (new, reason) in enumerate(
        [
            ("Sam_Weak", "a password does not hold the username"),
            ("iloveyou", "that password is one of the most common: choose another"),
            ("11111111", "a password is not one character repeated"),
        ]
    ):
        change = {"type": "change_password", "id": n, "old_password": PASSWORD, "new_password": new}
        refused = {"type": "error", "id": n, "code": "invalid_message", "message": reason}
        assert await ask(ws, change) == refused
    again, welcome = await login(arena.url, "sam_weak")
    assert welcome["type"] == "welcome"
    await ws.close()
    await again.close()


async def test_an_account_stored_under_the_skeleton_of_before_the_look_alikes_grew_still_logs_in(
    arena: ArenaServer,
) -> None:
    """Accounts registered before the skeleton read a Turkish dotless i (and other
    scripts' digits) as look-alikes lie under the skeleton of then: login and profiles
    still find them."""
    ws, welcome = await registered(arena.url, "I\u015f\u0131k")
    redis = async_redis(arena.settings.redis_url)
    try:  # as a release before the change stored it
        assert await redis.rename(keys.account("lslk"), keys.account("ls\u0131k"))
    finally:
        await redis.aclose()
    other, logged_in = await login(arena.url, "i\u015f\u0131k")
    assert logged_in["type"] == "welcome" and logged_in["player_id"] == welcome["player_id"]
    profile = await ask(other, {"type": "get_profile", "id": 2, "username": "I\u015f\u0131k"})
    assert profile["type"] == "profile" and profile["profile"]["player_id"] == welcome["player_id"]
    for conn in (ws, other):
        await conn.close()


async def test_a_register_whose_last_step_failed_is_finished_by_its_retry_so_the_name_stays_the_accounts(
    arena: ArenaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store fails the step that keeps the name's claim (30 s) for good: the guest is an
    account already, but its name would lapse, its login fail, and a stranger take it. The
    client retries, as ``unavailable`` asks: the register is finished."""
    assert arena.store is not None
    client = arena.store.accounts.redis
    persist = client.persist
    failures = [ConnectionError("the store went away for a moment")]

    async def fails_once(name: str) -> bool:
        if name.startswith("account:") and failures:
            raise failures.pop()
        return bool(await persist(name))

    monkeypatch.setattr(client, "persist", fails_once)
    ws, welcome = await guest(arena.url, "carl")
    register = {"type": "register", "id": 1, "username": "carlos", "password": PASSWORD}
    first = await ask(ws, register)
    assert (first["type"], first["code"]) == ("error", "unavailable")
    again = await ask(ws, {**register, "id": 2})
    finished = (again["type"], again["username"], again["player_id"])
    assert finished == ("account", "carlos", welcome["player_id"])
    assert await client.pttl(keys.account("carlos")) == -1  # kept for good: it never lapses
    other, logged_in = await login(arena.url, "carlos")
    assert (logged_in["type"], logged_in["player_id"]) == ("welcome", welcome["player_id"])
    # The name is the account's: a stranger cannot register it.
    stranger, _ = await guest(arena.url, "mallory")
    taken = await ask(stranger, {**register, "id": 3})
    assert taken["code"] == "username_taken"
    for connection in (ws, other, stranger):
        await connection.close()

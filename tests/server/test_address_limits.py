"""Per-address limits (open connections, new connections per second, new guests per
second), trusted proxies, and the guest expiry: each over real sockets and a real Redis."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidMessage, InvalidStatus

from client.sdk import ArenaClient
from server.store import keys
from server.store.players import token_digest
from server.transport.gate import HOLD_SECONDS
from shared.protocol import RaceEnded
from tests.redis_direct import sync_redis
from tests.server.conftest import running_node
from tests.server.helpers import start_race

HONEST = ("127.0.0.1", 0)
OTHER = ("127.0.0.2", 0)


@contextlib.asynccontextmanager
async def opened(
    url: str, local: tuple[str, int] = HONEST, **headers: str
) -> AsyncIterator[ClientConnection]:
    async with ws_connect(
        url, compression=None, local_addr=local, additional_headers=headers or None, open_timeout=5
    ) as ws:
        yield ws


async def refused_status(url: str, local: tuple[str, int] = HONEST, **headers: str) -> int:
    """The HTTP status a refused handshake got (fails the test if it was accepted)."""
    with pytest.raises(InvalidStatus) as refused:
        async with opened(url, local, **headers):
            pass
    return refused.value.response.status_code


async def request(ws: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
    await ws.send(json.dumps(message))
    reply = await asyncio.wait_for(ws.recv(), 5)
    data: dict[str, Any] = json.loads(reply)
    return data


async def test_an_address_over_its_open_connections_is_refused_with_429_and_others_are_not(
    clean_redis: str,
) -> None:
    async with running_node(clean_redis, max_connections_per_address=3, connect_rate=0) as node:
        async with contextlib.AsyncExitStack() as stack:
            for _ in range(3):
                await stack.enter_async_context(opened(node.url))
            assert await refused_status(node.url) == 429
            async with opened(node.url, OTHER) as other:  # another address is not affected
                assert (await request(other, {"type": "ping", "id": 1}))["type"] == "pong"
        # Closed connections give their places back (after the second in which a
        # refused address is dropped at the door).
        await asyncio.sleep(1.1)
        async with opened(node.url) as again:
            assert (await request(again, {"type": "ping", "id": 2}))["type"] == "pong"


async def test_new_connections_beyond_the_connect_burst_are_refused_until_the_rate_refills(
    clean_redis: str,
) -> None:
    async with running_node(clean_redis, connect_rate=2.0, connect_burst=3) as node:
        for _ in range(3):
            async with opened(node.url):
                pass
        assert await refused_status(node.url) == 429
        await asyncio.sleep(1.1)  # tokens back at 2/s, and past the quiet second after a refusal
        async with opened(node.url) as ws:
            assert (await request(ws, {"type": "ping", "id": 1}))["type"] == "pong"


async def flood_until_shut(url: str) -> None:
    async with opened(url) as flooder:
        with pytest.raises(ConnectionClosed) as closed:
            for n in range(200):
                await flooder.send(msgpack.packb({"type": "ping", "id": n}))
            async for _ in flooder:
                pass
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008


async def test_a_connection_shut_for_flooding_empties_its_address_connect_burst(clean_redis: str) -> None:
    settings: dict[str, object] = {"connect_rate": 0.5, "connect_burst": 50, "abuse_ban": 0}
    async with running_node(clean_redis, rate_limit=1.0, rate_burst=1, **settings) as node:
        await flood_until_shut(node.url)
        # The burst of 50 would have let this in; the flood spent it.
        assert await refused_status(node.url) == 429
        async with opened(node.url, OTHER) as other:
            assert (await request(other, {"type": "ping", "id": 1}))["type"] == "pong"


async def test_an_address_whose_connection_was_shut_for_abuse_is_banned_then_let_back(
    clean_redis: str,
) -> None:
    async with running_node(clean_redis, rate_limit=1.0, rate_burst=1, connect_rate=0, abuse_ban=3.0) as node:
        await flood_until_shut(node.url)
        with pytest.raises(InvalidStatus) as refused:
            async with opened(node.url):
                pass
        response = refused.value.response
        assert response.status_code == 429 and int(response.headers["Retry-After"]) >= 1
        assert b"closed for abuse" in response.body
        # Told once; hammering right after is held unread at the door, then dropped.
        loop = asyncio.get_running_loop()
        knocked = loop.time()
        with pytest.raises(InvalidMessage):
            async with opened(node.url):
                pass
        assert loop.time() - knocked >= HOLD_SECONDS - 0.1
        async with opened(node.url, OTHER) as other:
            assert (await request(other, {"type": "ping", "id": 1}))["type"] == "pong"
        await asyncio.sleep(node.admission.ban_left("127.0.0.1") + 0.1)
        async with opened(node.url) as back:
            assert (await request(back, {"type": "ping", "id": 2}))["type"] == "pong"
        metrics = node.metrics.render().decode()
        assert 'arena_refused_connections_total{reason="banned"} 1.0' in metrics
        assert 'arena_refused_connections_total{reason="dropped"} 1.0' in metrics


async def test_new_guests_beyond_the_burst_get_rate_limited_and_resuming_is_not_limited(
    clean_redis: str,
) -> None:
    async with running_node(clean_redis, new_player_rate=0.01, new_player_burst=2) as node:
        tokens = []
        for n in range(2):
            async with opened(node.url) as ws:
                welcome = await request(ws, {"type": "hello", "id": n, "name": f"guest{n}"})
                assert welcome["type"] == "welcome"
                tokens.append(welcome["token"])
        async with opened(node.url) as ws:
            refused = await request(ws, {"type": "hello", "id": 9, "name": "guest3"})
            assert refused["type"] == "error" and refused["code"] == "rate_limited" and refused["id"] == 9
            assert "new players from your address" in refused["message"]
            resumed = await request(ws, {"type": "hello", "id": 10, "token": tokens[0]})
            assert resumed["type"] == "welcome" and resumed["resumed"] is True
        async with opened(node.url, OTHER) as other:  # another address has its own allowance
            assert (await request(other, {"type": "hello", "id": 1, "name": "elsewhere"}))[
                "type"
            ] == "welcome"


async def test_behind_a_trusted_proxy_limits_count_the_forwarded_address(clean_redis: str) -> None:
    settings: dict[str, object] = {"max_connections_per_address": 1, "connect_rate": 0}
    async with (
        running_node(clean_redis, trusted_proxies="127.0.0.1", **settings) as node,
        opened(node.url, **{"X-Forwarded-For": "203.0.113.9, 198.51.100.1"}),
        opened(node.url, **{"X-Forwarded-For": "198.51.100.2"}),
    ):
        assert await refused_status(node.url, **{"X-Forwarded-For": "198.51.100.1"}) == 429


async def test_ipv6_clients_count_by_their_64_network_so_a_new_address_in_it_is_no_new_allowance(
    clean_redis: str,
) -> None:
    settings: dict[str, object] = {"max_connections_per_address": 2, "connect_rate": 0}
    async with (
        running_node(clean_redis, trusted_proxies="127.0.0.1", **settings) as node,
        opened(node.url, **{"X-Forwarded-For": "2001:db8:7:1::10"}),
        opened(node.url, **{"X-Forwarded-For": "2001:db8:7:1:ffff:1:2:3"}),
    ):
        assert await refused_status(node.url, **{"X-Forwarded-For": "2001:db8:7:1:abcd::99"}) == 429
        async with opened(node.url, **{"X-Forwarded-For": "2001:db8:7:2::10"}) as neighbour:
            welcome = await request(neighbour, {"type": "hello", "id": 1, "name": "next-network"})
            assert welcome["type"] == "welcome"


async def test_an_untrusted_peer_cannot_pick_its_address_with_x_forwarded_for(clean_redis: str) -> None:
    settings: dict[str, object] = {"max_connections_per_address": 1, "connect_rate": 0}
    async with (
        running_node(clean_redis, trusted_proxies="10.9.9.9", **settings) as node,
        opened(node.url, **{"X-Forwarded-For": "198.51.100.1"}),
    ):
        assert await refused_status(node.url, **{"X-Forwarded-For": "198.51.100.2"}) == 429


async def test_a_guest_expires_after_the_idle_time_and_their_results_stay(clean_redis: str) -> None:
    probe = sync_redis(clean_redis, decode_responses=True)
    # 3 s: the race below is played well within it, on a loaded machine too.
    async with running_node(clean_redis, guest_ttl=3) as node:
        ada, bob = await ArenaClient.connect(node.url), await ArenaClient.connect(node.url)
        race = await start_race(ada, bob)
        await ada.finish(race.race_id)
        await bob.finish(race.race_id)
        await ada.wait_for(RaceEnded)
        player_id, token = ada.player_id, ada.token
        assert player_id is not None and token is not None
        await ada.close()
        # Disconnected: every key of the guest counts down from their last connection.
        guest_keys = [keys.player(player_id), keys.token(token_digest(token))]
        # Their counts too, and the markers of what the race's end wrote to them.
        counted = [keys.player_recent(player_id), keys.player_stats(player_id, "eight-off")]
        guest_keys += [*counted, *(keys.applied(k) for k in counted)]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 2
        while not all(1 <= probe.ttl(k) <= 3 for k in guest_keys):  # once the node has seen her go
            assert loop.time() < deadline, [probe.ttl(k) for k in guest_keys]
            await asyncio.sleep(0.02)
        await asyncio.sleep(3.3)
        assert [probe.exists(k) for k in guest_keys] == [0] * 6
        async with opened(node.url) as ws:
            gone = await request(ws, {"type": "hello", "id": 3, "token": token})
            assert gone["type"] == "error" and gone["code"] == "bad_token"
        # The race's results outlive the guest, with their name in the standings.
        results = await bob.results(race.race_id)
        assert {s.name for s in results.standings} == {"ada", "bob"}
        await bob.close()
    probe.close()


async def new_guest(url: str, name: str) -> dict[str, Any]:
    """The welcome of a guest who said hello and left."""
    async with opened(url) as ws:
        return await request(ws, {"type": "hello", "id": 1, "name": name})


async def test_resuming_keeps_a_guest_for_the_whole_idle_time_again(clean_redis: str) -> None:
    probe = sync_redis(clean_redis, decode_responses=True)
    async with running_node(clean_redis, guest_ttl=100) as node:
        welcome = await new_guest(node.url, "back")
        player_key = keys.player(welcome["player_id"])
        await asyncio.sleep(0.1)
        probe.expire(player_key, 5)  # as if most of the idle time had passed
        async with opened(node.url) as ws:
            assert (await request(ws, {"type": "hello", "id": 2, "token": welcome["token"]}))[
                "resumed"
            ] is True
            assert 95 <= probe.ttl(player_key) <= 100
    probe.close()


async def test_guests_are_kept_forever_when_the_idle_time_is_zero(clean_redis: str) -> None:
    probe = sync_redis(clean_redis, decode_responses=True)
    async with running_node(clean_redis, guest_ttl=0) as node:
        welcome = await new_guest(node.url, "stays")
        await asyncio.sleep(0.2)
        assert probe.ttl(keys.player(welcome["player_id"])) == -1
        assert probe.ttl(keys.token(token_digest(welcome["token"]))) == -1
    probe.close()

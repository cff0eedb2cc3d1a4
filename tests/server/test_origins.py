"""The WebSocket handshake's ``Origin``: a page of another site is refused (403) before
any frame and before its address's limits are touched; clients that send no origin, the
server's own page and the operator's allowed origins connect. Real sockets, real Redis."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidStatus

from client.sdk import ArenaClient
from server.app import ArenaServer
from server.config import SettingError, Settings
from tests.server.conftest import running_node

FOREIGN = "https://games.example"


@contextlib.asynccontextmanager
async def opened(
    node: ArenaServer, origin: str | None = None, host: str = "", **headers: str
) -> AsyncIterator[ClientConnection]:
    """A raw JSON connection to ``node`` from a page of ``origin`` (None: no ``Origin``,
    as native clients send), with ``host`` as its ``Host`` header (the node's own
    ``127.0.0.1:port`` when empty)."""
    async with ws_connect(
        f"ws://{host or f'127.0.0.1:{node.port}'}/",
        host="127.0.0.1",  # the socket goes to the node whatever the Host header says
        port=node.port,
        origin=origin,  # type: ignore[arg-type]  # websockets' Origin is a NewType of str
        compression=None,
        additional_headers=headers or None,
        open_timeout=5,
    ) as ws:
        yield ws


async def ping(ws: ClientConnection) -> str:
    await ws.send(json.dumps({"type": "ping", "id": 1}))
    reply: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 5))
    return str(reply["type"])


async def refusal(node: ArenaServer, origin: str, host: str = "", **headers: str) -> tuple[int, str]:
    """The status and body of a handshake that must be refused."""
    with pytest.raises(InvalidStatus) as refused:
        async with opened(node, origin, host, **headers):
            pass
    response = refused.value.response
    return response.status_code, response.body.decode()


def read(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as response:
        return str(response.read().decode())


def own_origin(node: ArenaServer) -> str:
    return f"http://127.0.0.1:{node.port}"


async def test_a_page_of_another_site_is_refused_with_403_before_any_frame(clean_redis: str) -> None:
    async with running_node(clean_redis) as node:
        status, body = await refusal(node, FOREIGN)
        assert (status, body) == (
            403,
            "WebSocket connections from pages of other sites are refused (Origin not allowed)\n",
        )
        # Same host, another port: another site's page all the same.
        assert (await refusal(node, "http://127.0.0.1:3000"))[0] == 403
        # The same site on another scheme's default port is another origin too.
        assert (await refusal(node, "https://127.0.0.1"))[0] == 403
        # A sandboxed page or a file says "null": refused.
        assert (await refusal(node, "null"))[0] == 403
        metrics = await asyncio.to_thread(read, node.url.replace("ws://", "http://") + "/metrics")
        assert 'arena_refused_connections_total{reason="origin"} 4.0' in metrics


async def test_refused_pages_spend_none_of_the_address_limits(clean_redis: str) -> None:
    """A foreign page open in a user's browser cannot use up the user's connections:
    its handshakes are refused before the per-address limits count them."""
    async with running_node(clean_redis, connect_rate=1.0, connect_burst=3) as node:
        for _ in range(10):
            assert (await refusal(node, FOREIGN))[0] == 403
        async with opened(node) as ws:
            assert await ping(ws) == "pong"


async def test_clients_that_send_no_origin_connect_as_before(clean_redis: str, tmp_path: Any) -> None:
    async with running_node(clean_redis) as node:
        async with opened(node) as ws:
            assert await ping(ws) == "pong"
        # The SDK (which the terminal client and bots are built on) sends no Origin.
        client = await ArenaClient.connect(node.url)
        try:
            welcome = await client.hello(name="ada")
            assert welcome.player_id
        finally:
            await client.close()


async def test_the_servers_own_page_connects(clean_redis: str) -> None:
    async with running_node(clean_redis) as node:
        async with opened(node, own_origin(node)) as ws:
            assert await ping(ws) == "pong"
        async with opened(node, own_origin(node).upper().replace("HTTP", "http")) as ws:
            assert await ping(ws) == "pong"  # a host is the same in any case


async def test_behind_a_tls_proxy_the_page_on_https_matches_the_host_it_forwards(clean_redis: str) -> None:
    """HAProxy terminates TLS and passes ``Host`` on: the page on ``https://arena.example``
    reaches the node over plain HTTP with ``Host: arena.example``."""
    async with running_node(clean_redis) as node:
        async with opened(node, "https://arena.example", host="arena.example") as ws:
            assert await ping(ws) == "pong"
        assert (await refusal(node, FOREIGN, host="arena.example"))[0] == 403


async def test_a_trusted_proxy_that_rewrites_host_names_the_site_in_x_forwarded_host(
    clean_redis: str,
) -> None:
    forwarded = {"X-Forwarded-Host": "arena.example"}
    async with running_node(clean_redis, trusted_proxies="127.0.0.1") as node:
        async with opened(node, "https://arena.example", host="node-1", **forwarded) as ws:
            assert await ping(ws) == "pong"
        assert (await refusal(node, FOREIGN, host="node-1", **forwarded))[0] == 403
    async with running_node(clean_redis) as node:  # nobody trusted: the header means nothing
        assert (await refusal(node, "https://arena.example", host="node-1", **forwarded))[0] == 403


async def test_an_operator_allows_the_origins_of_pages_hosted_elsewhere(clean_redis: str) -> None:
    allowed = "https://play.arena.example, http://localhost:5173"
    async with running_node(clean_redis, allowed_origins=allowed) as node:
        for origin in (
            "https://play.arena.example",
            "https://play.arena.example:443",
            "http://localhost:5173",
        ):
            async with opened(node, origin) as ws:
                assert await ping(ws) == "pong"
        async with opened(node, own_origin(node)) as ws:  # its own page still connects
            assert await ping(ws) == "pong"
        assert (await refusal(node, "http://play.arena.example"))[0] == 403
        assert (await refusal(node, FOREIGN))[0] == 403
    async with running_node(clean_redis, allowed_origins="*") as node, opened(node, FOREIGN) as ws:
        assert await ping(ws) == "pong"


async def test_a_refused_origin_is_logged_once_not_at_every_attempt(
    clean_redis: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_node(clean_redis) as node:
        with caplog.at_level(logging.WARNING, logger="arena.origins"):
            for origin in (FOREIGN, FOREIGN, FOREIGN, "https://other.example"):
                await refusal(node, origin)
    logged = [getattr(r, "origin", None) for r in caplog.records if r.name == "arena.origins"]
    assert logged == [FOREIGN, "https://other.example"]


async def test_with_public_hosts_set_a_page_on_another_name_that_reaches_the_server_is_refused(
    clean_redis: str,
) -> None:
    """DNS rebinding: ``rebound.example`` made to resolve to the server's address sends a
    ``Host`` that matches its own origin. With the server's names set, only a page on one
    of them is its own; unset, such a page cannot be told apart (and connects)."""
    async with running_node(clean_redis, public_hosts="arena.example, 127.0.0.1") as node:
        rebound = f"rebound.example:{node.port}"
        assert await refusal(node, f"http://{rebound}", host=rebound) == (
            403,
            "WebSocket connections from pages of other sites are refused (Origin not allowed)\n",
        )
        async with opened(node, "https://arena.example", host="arena.example") as ws:
            assert await ping(ws) == "pong"
        async with opened(node, own_origin(node)) as ws:
            assert await ping(ws) == "pong"
    async with running_node(clean_redis) as node:
        rebound = f"rebound.example:{node.port}"
        async with opened(node, f"http://{rebound}", host=rebound) as ws:
            assert await ping(ws) == "pong"


@pytest.mark.parametrize("bad", ["arena.example:443", "https://arena.example", "two words"])
def test_public_hosts_take_bare_host_names(bad: str) -> None:
    with pytest.raises(SettingError) as refused:
        Settings.from_env({"SA_PUBLIC_HOSTS": f"ok.example, {bad}"})
    assert str(refused.value) == (
        "--public-hosts (SA_PUBLIC_HOSTS) takes host names (arena.example) or addresses, without a "
        "scheme or a port, "
        f"separated by commas, not {bad!r}"
    )

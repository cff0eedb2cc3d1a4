"""The SDK's request bookkeeping, against a real WebSocket server that never answers."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.protocol import State

from client.sdk import ArenaClient
from shared.protocol import Ping


@pytest.fixture
async def silent_url() -> AsyncIterator[str]:
    async def swallow(ws: ServerConnection) -> None:
        async for _frame in ws:
            pass

    async with serve(swallow, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        yield f"ws://127.0.0.1:{port}"


async def test_a_request_that_times_out_leaves_nothing_pending(silent_url: str) -> None:
    client = await ArenaClient.connect(silent_url)
    try:
        for request_id in (1, 2):
            with pytest.raises(TimeoutError):
                await client.request(Ping(id=request_id), timeout=0.1)
        assert client._pending == {}
    finally:
        await client.close()


async def test_a_request_that_times_out_on_a_live_link_keeps_the_connection(silent_url: str) -> None:
    """The server is slow, not gone: the ping sent after the timeout gets its pong."""
    client = await ArenaClient.connect(silent_url, reconnect=True, ping_interval=None)
    try:
        with pytest.raises(TimeoutError, match=r"^no answer within 0\.1 s$"):
            await client.request(Ping(id=1), timeout=0.1)
        assert client._link_check is not None
        await client._link_check
        assert client.ws.state is State.OPEN and not client.reconnecting
    finally:
        await client.close()


async def test_a_request_on_a_closed_connection_leaves_nothing_pending(silent_url: str) -> None:
    client = await ArenaClient.connect(silent_url)
    await client.ws.close()
    with pytest.raises(Exception):  # noqa: B017  # websockets' ConnectionClosed
        await client.request(Ping(id=7), timeout=0.5)
    assert client._pending == {}
    await client.close()

"""Frames written straight to the socket: the same bytes websockets would write, in order
with its own frames, never on a closed connection, and with its backpressure."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosedOK
from websockets.frames import Frame, Opcode

from server.transport.frames import broadcast_frame, send_frame, server_frame
from server.transport.writer import HeldWritesConnection

Handler = Callable[[ServerConnection], Awaitable[None]]

#: Each test runs on websockets' own connection and on the node's, whose frames wait for
#: the end of the moment (server/transport/writer.py).
CONNECTIONS = pytest.mark.parametrize(
    "connection_class", [ServerConnection, HeldWritesConnection], ids=["websockets'", "held writes"]
)


@asynccontextmanager
async def served(
    handler: Handler, connection_class: type[ServerConnection] = ServerConnection, **options: object
) -> AsyncIterator[str]:
    async with serve(
        handler,
        "127.0.0.1",
        0,
        compression=None,
        create_connection=connection_class,
        **options,  # type: ignore[arg-type]
    ) as server:
        port = server.sockets[0].getsockname()[1]
        yield f"ws://127.0.0.1:{port}"


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65_535, 65_536, 70_000])
def test_a_built_frame_is_byte_for_byte_the_one_websockets_writes(size: int) -> None:
    payload = bytes(range(256)) * (size // 256 + 1)
    binary = payload[:size]
    text = ("é" * size)[: size // 2] if size else ""
    assert server_frame(binary) == Frame(Opcode.BINARY, binary).serialize(mask=False, extensions=[])
    assert server_frame(text) == Frame(Opcode.TEXT, text.encode()).serialize(mask=False, extensions=[])


@CONNECTIONS
async def test_frames_written_at_once_arrive_whole_and_in_order_with_websockets_own(
    connection_class: type[ServerConnection],
) -> None:
    async def handler(ws: ServerConnection) -> None:
        await send_frame(ws, b"\x00" * 200)
        await ws.send("from websockets")
        await ws.ping()
        await send_frame(ws, "à bientôt")
        broadcast_frame([ws], b"x" * 70_000)
        await ws.wait_closed()

    async with served(handler, connection_class) as url, connect(url, compression=None) as client:
        got = [await client.recv() for _ in range(4)]
    assert got == [b"\x00" * 200, "from websockets", "à bientôt", b"x" * 70_000]


@CONNECTIONS
async def test_a_frame_sent_on_a_closed_connection_raises_connection_closed_as_websockets_does(
    connection_class: type[ServerConnection],
) -> None:
    outcome: asyncio.Future[BaseException | None] = asyncio.get_running_loop().create_future()

    async def handler(ws: ServerConnection) -> None:
        await ws.close()
        broadcast_frame([ws], b"skipped")  # not open: skipped, never raised
        try:
            await send_frame(ws, b"too late")
        except BaseException as exc:
            outcome.set_result(exc)
        else:
            outcome.set_result(None)

    async with served(handler, connection_class) as url, connect(url, compression=None) as client:
        with pytest.raises(ConnectionClosedOK):
            await client.recv()
        assert isinstance(await outcome, ConnectionClosedOK)


@CONNECTIONS
async def test_a_send_waits_while_the_peer_reads_nothing_and_goes_on_once_it_reads(
    connection_class: type[ServerConnection],
) -> None:
    sent = 0
    frame = b"y" * 65_536

    async def handler(ws: ServerConnection) -> None:
        nonlocal sent
        for _ in range(400):  # 26 MB: far past any socket buffer
            await send_frame(ws, frame)
            sent += 1
        await ws.wait_closed()

    async with served(handler, connection_class, write_limit=65_536) as url:
        client: ClientConnection
        async with connect(url, compression=None, max_queue=1, max_size=None) as client:
            await asyncio.sleep(0.5)
            stalled_at = sent
            assert stalled_at < 400, "the sends ran on although the client read nothing"
            for _ in range(400):
                assert await client.recv() == frame
            assert sent == 400

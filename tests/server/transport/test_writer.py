"""Frames held for the rest of the moment: those made together for one connection leave in
one write, in order, never overtaken by websockets' own frames (ping, message, close),
and a big frame or a burst is not held."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

from server.transport.frames import send_frame, server_frame, write_frame
from server.transport.writer import HOLD_MAX_BYTES, HeldWritesConnection
from tests.server.transport.test_reader import close_code, opened
from tests.server.transport.test_reader import server_frame as read_frame

Handler = Callable[[HeldWritesConnection], Awaitable[None]]


class CountedWrites:
    """The connection's transport, with every write it is asked for kept in a list."""

    def __init__(self, transport: Any) -> None:
        self._transport = transport
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))
        self._transport.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)

    @property
    def data_writes(self) -> list[bytes]:
        """The writes but the close frame the server sends as the test ends."""
        return [data for data in self.writes if data[0] != 0x88]


@asynccontextmanager
async def served(handler: Handler) -> AsyncIterator[tuple[int, list[CountedWrites]]]:
    counted: list[CountedWrites] = []

    async def counting(ws: ServerConnection) -> None:
        assert isinstance(ws, HeldWritesConnection)
        writes = CountedWrites(ws.transport)
        ws.transport = writes  # type: ignore[assignment]
        counted.append(writes)
        await handler(ws)
        await ws.wait_closed()

    async with serve(
        counting, "127.0.0.1", 0, compression=None, create_connection=HeldWritesConnection
    ) as server:
        yield server.sockets[0].getsockname()[1], counted


async def test_frames_made_in_one_moment_for_one_connection_leave_in_one_write() -> None:
    async def handler(ws: HeldWritesConnection) -> None:
        for message in (b"ack", "progress", b"x" * 300):
            await send_frame(ws, message)

    async with served(handler) as (port, counted):
        reader, writer = await opened(port)
        got = [await read_frame(reader) for _ in range(3)]
        writer.close()
    assert got == [(0x82, b"ack"), (0x81, b"progress"), (0x82, b"x" * 300)]
    assert counted[0].data_writes == [
        server_frame(b"ack") + server_frame("progress") + server_frame(b"x" * 300)
    ]


async def test_frames_from_two_handlers_resumed_together_share_one_write() -> None:
    """The ack of a move and the opponent's progress: two tasks, one connection."""

    async def handler(ws: HeldWritesConnection) -> None:
        await asyncio.gather(send_frame(ws, b"my ack"), send_frame(ws, b"their progress"))

    async with served(handler) as (port, counted):
        reader, writer = await opened(port)
        got = [await read_frame(reader) for _ in range(2)]
        writer.close()
    assert got == [(0x82, b"my ack"), (0x82, b"their progress")]
    assert len(counted[0].data_writes) == 1


async def test_frames_made_in_one_moment_for_several_connections_leave_in_one_write_each() -> None:
    """One reply from Redis resumes many moves: each connection still gets one write,
    with its own frames in the order they were made, a big frame among them included."""
    opened_so_far: list[HeldWritesConnection] = []

    async def handler(ws: HeldWritesConnection) -> None:
        opened_so_far.append(ws)
        if len(opened_so_far) < 2:
            return
        first, second = opened_so_far
        for frame in (b"a1", b"b1", b"a2", b"x" * HOLD_MAX_BYTES, b"b2", b"a3"):
            write_frame(first if frame[0] in b"ax" else second, server_frame(frame))

    async with served(handler) as (port, counted):
        first_reader, first_writer = await opened(port)
        second_reader, second_writer = await opened(port)
        got_first = [await asyncio.wait_for(read_frame(first_reader), 5) for _ in range(4)]
        got_second = [await asyncio.wait_for(read_frame(second_reader), 5) for _ in range(2)]
        first_writer.close()
        second_writer.close()
    assert [payload for _, payload in got_first] == [b"a1", b"a2", b"x" * HOLD_MAX_BYTES, b"a3"]
    assert [payload for _, payload in got_second] == [b"b1", b"b2"]
    big = server_frame(b"a1") + server_frame(b"a2") + server_frame(b"x" * HOLD_MAX_BYTES)
    assert counted[0].data_writes == [big, server_frame(b"a3")]
    assert counted[1].data_writes == [server_frame(b"b1") + server_frame(b"b2")]


async def test_frames_made_in_different_moments_leave_in_their_own_writes() -> None:
    async def handler(ws: HeldWritesConnection) -> None:
        await send_frame(ws, b"first")
        await asyncio.sleep(0.05)
        await send_frame(ws, b"second")

    async with served(handler) as (port, counted):
        reader, writer = await opened(port)
        got = [await read_frame(reader) for _ in range(2)]
        writer.close()
    assert got == [(0x82, b"first"), (0x82, b"second")]
    assert counted[0].data_writes == [server_frame(b"first"), server_frame(b"second")]


async def test_websockets_own_frames_never_overtake_the_frames_held_before_them() -> None:
    async def handler(ws: HeldWritesConnection) -> None:
        await send_frame(ws, b"held 1")
        await ws.ping(b"p")
        await send_frame(ws, b"held 2")
        await ws.send("websockets' own")
        await send_frame(ws, b"held 3")
        await ws.close(1000, "bye")

    async with served(handler) as (port, _counted):
        reader, writer = await opened(port)
        got = [await read_frame(reader) for _ in range(5)]
        code = await close_code(reader)
        writer.close()
    assert got == [
        (0x82, b"held 1"),
        (0x89, b"p"),
        (0x82, b"held 2"),
        (0x81, b"websockets' own"),
        (0x82, b"held 3"),
    ]
    assert code == 1000


@pytest.mark.parametrize("size", [HOLD_MAX_BYTES, 100_000])
async def test_a_frame_at_the_holding_limit_is_written_at_once_with_those_held_before(size: int) -> None:
    written_before_the_moment_ended: list[int] = []

    async def handler(ws: HeldWritesConnection) -> None:
        await send_frame(ws, b"small")
        await send_frame(ws, b"b" * size)
        written_before_the_moment_ended.append(len(counted[0].writes))
        await send_frame(ws, b"after")

    async with served(handler) as (port, counted):
        reader, writer = await opened(port)
        got = [await read_frame(reader) for _ in range(3)]
        writer.close()
    assert got == [(0x82, b"small"), (0x82, b"b" * size), (0x82, b"after")]
    assert written_before_the_moment_ended == [1]
    assert counted[0].data_writes == [
        server_frame(b"small") + server_frame(b"b" * size),
        server_frame(b"after"),
    ]


async def test_frames_held_when_the_connection_is_lost_are_dropped_without_an_error() -> None:
    failures: list[BaseException] = []
    held = asyncio.Event()

    async def handler(ws: HeldWritesConnection) -> None:
        try:
            await send_frame(ws, b"never sent")
            ws.transport.abort()  # the socket goes before the moment ends
            held.set()
            await asyncio.sleep(0.05)
        except BaseException as exc:  # pragma: no cover (what the test fails on)
            failures.append(exc)
            raise

    async with served(handler) as (port, counted):
        reader, writer = await opened(port)
        await asyncio.wait_for(held.wait(), 5)
        assert await reader.read() == b""
        writer.close()
    assert failures == []
    assert counted[0].data_writes == []


def test_a_closed_event_loop_is_not_kept_alive_by_the_frames_it_held() -> None:
    async def one_frame() -> None:
        async def handler(ws: HeldWritesConnection) -> None:
            await send_frame(ws, b"ack")

        async with served(handler) as (port, _counted):
            reader, writer = await opened(port)
            assert await read_frame(reader) == (0x82, b"ack")
            writer.close()

    loop = asyncio.new_event_loop()
    loop.run_until_complete(one_frame())
    loop.close()
    closed = weakref.ref(loop)
    del loop
    gc.collect()
    assert closed() is None

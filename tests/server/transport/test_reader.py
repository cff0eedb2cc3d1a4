"""Client frames read straight off the socket: whole messages in order however the bytes
are split, control frames and everything unusual left to websockets (with its close
codes), and websockets' flow control kept."""

from __future__ import annotations

import asyncio
import os
import struct
from base64 import b64encode
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import cast

import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.frames import Opcode
from websockets.utils import apply_mask

from server.transport.reader import DirectReadConnection

MAX_SIZE = 100_000


@dataclass
class EchoServer:
    """Echoes every message in kind; keeps each connection so tests can look inside."""

    port: int = 0
    connections: list[DirectReadConnection] = field(default_factory=list)
    start_reading: asyncio.Event = field(default_factory=asyncio.Event)
    closed: list[BaseException] = field(default_factory=list)
    received: list[bytes | str] = field(default_factory=list)

    async def handler(self, ws: ServerConnection) -> None:
        connection = cast(DirectReadConnection, ws)
        self.connections.append(connection)
        await self.start_reading.wait()
        try:
            while True:
                message = await connection.next_message()
                self.received.append(message)
                if message == "close now":
                    await ws.close()
                    continue
                await ws.send(message)
        except ConnectionClosed as exc:
            self.closed.append(exc)


@asynccontextmanager
async def echo_server(
    read_at_once: bool = True, max_queue: int = 16, ping_interval: float | None = None
) -> AsyncIterator[EchoServer]:
    echo = EchoServer()
    if read_at_once:
        echo.start_reading.set()
    async with serve(
        echo.handler,
        "127.0.0.1",
        0,
        compression=None,
        create_connection=DirectReadConnection,
        max_size=MAX_SIZE,
        max_queue=max_queue,
        ping_interval=ping_interval,
        ping_timeout=0.3,
    ) as server:
        echo.port = server.sockets[0].getsockname()[1]
        yield echo


def upgrade_request() -> bytes:
    key = b64encode(os.urandom(16)).decode()
    return (
        f"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()


async def opened(port: int, with_request: bytes = b"") -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A raw socket past the opening handshake; ``with_request``: bytes written in the same
    write as the HTTP request."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(upgrade_request() + with_request)
    assert b" 101 " in await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    return reader, writer


def client_frame(
    opcode: Opcode, data: bytes, fin: bool = True, rsv1: bool = False, mask: bool = True, key: bytes = b""
) -> bytes:
    """A client frame built by hand (websockets refuses to build the invalid ones)."""
    first = (0x80 if fin else 0) | (0x40 if rsv1 else 0) | opcode.value
    mask_bit = 0x80 if mask else 0
    size = len(data)
    if size < 126:
        header = struct.pack("!BB", first, mask_bit | size)
    elif size < 0x10000:
        header = struct.pack("!BBH", first, mask_bit | 126, size)
    else:
        header = struct.pack("!BBQ", first, mask_bit | 127, size)
    if not mask:
        return header + data
    key = key or os.urandom(4)
    return header + key + apply_mask(data, key)


def text(message: str) -> bytes:
    return client_frame(Opcode.TEXT, message.encode())


def binary(message: bytes) -> bytes:
    return client_frame(Opcode.BINARY, message)


async def server_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """The next frame from the server (never masked): its first byte and its payload."""
    first, second = await asyncio.wait_for(reader.readexactly(2), 5)
    length = second & 0x7F
    if length == 126:
        (length,) = struct.unpack("!H", await reader.readexactly(2))
    elif length == 127:
        (length,) = struct.unpack("!Q", await reader.readexactly(8))
    return first, await reader.readexactly(length)


async def close_code(reader: asyncio.StreamReader) -> int:
    first, payload = await server_frame(reader)
    assert first == 0x88, f"expected a close frame, got {first:#x} {payload[:40]!r}"
    code: int = struct.unpack("!H", payload[:2])[0]
    return code


async def test_whole_frames_split_at_every_byte_arrive_as_the_messages_sent() -> None:
    messages: list[bytes | str] = ["", "a" * 125, "é" * 63, b"\x00" * 126, b"\xff" * 65_535, "z" * 65_536]
    wire = b"".join(text(m) if isinstance(m, str) else binary(m) for m in messages)
    async with echo_server() as echo:
        reader, writer = await opened(echo.port)
        for byte in range(200):  # the first two frames and part of the third, a byte a write
            writer.write(wire[byte : byte + 1])
            await writer.drain()
            await asyncio.sleep(0.001)
        for start in range(200, len(wire), 7_001):  # the rest in odd-sized pieces
            writer.write(wire[start : start + 7_001])
            await writer.drain()
        for sent in messages:
            first, payload = await server_frame(reader)
            if isinstance(sent, str):
                assert (first, payload.decode()) == (0x81, sent)
            else:
                assert (first, payload) == (0x82, sent)
        assert echo.connections[0].reads_directly
        writer.close()


async def test_a_frame_in_many_pieces_is_read_once_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its pieces are gathered, not joined and parsed again each time one comes: a frame
    trickled a byte at a time would otherwise cost its whole length per byte."""
    reads: list[int] = []
    read_frames = DirectReadConnection._read_frames

    def counted(connection: DirectReadConnection, data: bytes) -> None:
        reads.append(len(data))
        read_frames(connection, data)

    monkeypatch.setattr(DirectReadConnection, "_read_frames", counted)
    frame = binary(b"p" * 60_000)
    async with echo_server() as echo:
        reader, writer = await opened(echo.port)
        for start in range(0, len(frame), 500):
            writer.write(frame[start : start + 500])
            await writer.drain()
            await asyncio.sleep(0.001)
        assert await server_frame(reader) == (0x82, b"p" * 60_000)
        assert echo.connections[0].reads_directly
        assert len(reads) <= 2, f"the frame was parsed {len(reads)} times"
        writer.close()


async def test_many_frames_in_one_write_arrive_in_order() -> None:
    async with echo_server(max_queue=4) as echo:
        reader, writer = await opened(echo.port)
        writer.write(b"".join(binary(b"%d" % n) for n in range(500)))
        got = [(await server_frame(reader))[1] for _ in range(500)]
        assert got == [b"%d" % n for n in range(500)]
        assert echo.connections[0].reads_directly
        writer.close()


async def test_a_ping_between_messages_is_answered_and_reading_stays_direct() -> None:
    async with echo_server() as echo:
        reader, writer = await opened(echo.port)
        writer.write(text("before") + client_frame(Opcode.PING, b"are you there") + text("after"))
        got = {await server_frame(reader) for _ in range(3)}
        assert got == {(0x81, b"before"), (0x8A, b"are you there"), (0x81, b"after")}
        assert echo.connections[0].reads_directly
        writer.close()


async def test_the_servers_keepalive_pings_are_answered_by_pongs_read_here() -> None:
    """websockets pings every interval and closes (1011) a connection whose pong does not
    come within its timeout: the pongs, read here among the messages, must reach it."""
    async with echo_server(ping_interval=0.05) as echo:
        reader, writer = await opened(echo.port)
        loop = asyncio.get_running_loop()
        until, pings, echoes = loop.time() + 1.0, 0, []
        while loop.time() < until:
            first, payload = await server_frame(reader)
            if first == 0x89:
                pings += 1
                writer.write(client_frame(Opcode.PONG, payload) + text(f"after pong {pings}"))
            else:
                assert first == 0x81, f"expected a ping or an echo, got {first:#x} {payload[:40]!r}"
                echoes.append(payload.decode())
        assert pings >= 5
        assert echoes == [f"after pong {n}" for n in range(1, len(echoes) + 1)]
        assert len(echoes) >= pings - 1
        assert echo.connections[0].reads_directly
        writer.close()


async def test_a_fragmented_message_is_handed_to_websockets_after_the_messages_before_it() -> None:
    async with echo_server() as echo:
        reader, writer = await opened(echo.port)
        writer.write(
            text("one")
            + client_frame(Opcode.TEXT, b"tw", fin=False)
            + client_frame(Opcode.PING, b"")
            + client_frame(Opcode.CONT, b"o")
            + text("three")
        )
        got = [await server_frame(reader) for _ in range(4)]
        assert [f for f in got if f[0] == 0x81] == [(0x81, b"one"), (0x81, b"two"), (0x81, b"three")]
        assert (0x8A, b"") in got
        assert not echo.connections[0].reads_directly
        writer.close()


async def test_a_frame_sent_with_the_http_request_is_read_by_websockets() -> None:
    async with echo_server() as echo:
        reader, writer = await opened(echo.port, with_request=text("early") + text("bird"))
        assert [await server_frame(reader) for _ in range(2)] == [(0x81, b"early"), (0x81, b"bird")]
        writer.write(text("later"))
        assert await server_frame(reader) == (0x81, b"later")
        assert not echo.connections[0].reads_directly
        writer.close()


async def test_part_of_a_frame_sent_with_the_http_request_is_read_by_websockets() -> None:
    """websockets' parser takes a frame's two-byte head as soon as it has it: the rest of
    that frame must go to websockets too, not be read as a frame of its own."""
    # Its mask key reads as the head of an empty text frame: read here, the rest of the
    # frame would be taken for frames of its own.
    first = client_frame(Opcode.TEXT, b"split across the handshake", key=b"\x81\x80\x00\x00")
    async with echo_server() as echo:
        reader, writer = await opened(echo.port, with_request=first[:2])
        writer.write(first[2:] + text("next"))
        assert await server_frame(reader) == (0x81, b"split across the handshake")
        assert await server_frame(reader) == (0x81, b"next")
        assert not echo.connections[0].reads_directly
        writer.close()


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (client_frame(Opcode.TEXT, b"bare", mask=False), 1002),
        (client_frame(Opcode.TEXT, b"\xc3\x28 not utf-8"), 1007),
        (client_frame(Opcode.BINARY, b"x" * (MAX_SIZE + 1)), 1009),
        (client_frame(Opcode.BINARY, b"x", rsv1=True), 1002),
        (bytes([0x83, 0x80]) + b"mask", 1002),  # opcode 3 is reserved
        (client_frame(Opcode.PING, b"p" * 126), 1002),  # a control frame over 125 bytes
    ],
    ids=["unmasked", "bad-utf-8", "over-max-size", "reserved-bit", "reserved-opcode", "long-ping"],
)
async def test_a_frame_against_the_protocol_closes_with_websockets_own_code(frame: bytes, code: int) -> None:
    async with echo_server() as echo:
        reader, writer = await opened(echo.port)
        writer.write(text("fine"))
        assert await server_frame(reader) == (0x81, b"fine")
        assert echo.connections[0].reads_directly
        writer.write(frame)
        assert await close_code(reader) == code
        writer.close()
        await asyncio.wait_for(_handler_ended(echo), 5)


async def _handler_ended(echo: EchoServer) -> None:
    while not echo.closed:
        await asyncio.sleep(0.01)


async def test_a_close_from_the_client_is_answered_and_ends_the_handler() -> None:
    async with echo_server() as echo:
        reader, writer = await opened(echo.port)
        writer.write(text("last"))
        assert await server_frame(reader) == (0x81, b"last")
        writer.write(client_frame(Opcode.CLOSE, struct.pack("!H", 1000) + b"bye") + text("ignored"))
        assert await close_code(reader) == 1000
        writer.close()
        await _handler_ended(echo)
        assert isinstance(echo.closed[0], ConnectionClosed)
        assert echo.closed[0].rcvd is not None and echo.closed[0].rcvd.code == 1000
        assert echo.received == ["last"]  # nothing after the close frame is a message


async def test_a_frame_begun_before_the_server_closes_is_ended_on_websockets_side() -> None:
    """The start of a frame read here, its end after the server began to close: websockets
    gets the whole frame, then the client's close, and the closing handshake completes."""
    async with echo_server() as echo:
        reader, writer = await opened(echo.port)
        late = text("finished after the close began")
        writer.write(text("close now") + late[:9])
        assert await close_code(reader) == 1000
        writer.write(late[9:] + client_frame(Opcode.CLOSE, struct.pack("!H", 1000)))
        assert await asyncio.wait_for(reader.read(), 5) == b""  # the handshake over, the server's end
        writer.close()
        await asyncio.wait_for(_handler_ended(echo), 5)
        closed = echo.closed[0]
        assert closed.rcvd is not None and closed.rcvd.code == 1000, closed


async def test_a_connection_lost_mid_frame_ends_the_handler() -> None:
    async with echo_server() as echo:
        reader, writer = await opened(echo.port)
        writer.write(text("whole") + text("cut short")[:5])
        assert await server_frame(reader) == (0x81, b"whole")
        writer.transport.abort()
        await asyncio.wait_for(_handler_ended(echo), 5)
        assert isinstance(echo.closed[0], ConnectionClosed)


async def ten_messages_with_reading_paused(
    echo: EchoServer,
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, DirectReadConnection]:
    """Ten messages written at once to a server whose handler reads nothing yet: more than
    its queue of four, so reading is paused."""
    reader, writer = await opened(echo.port)
    writer.write(b"".join(text(f"m{n}") for n in range(10)))
    await writer.drain()

    async def paused() -> None:
        while not echo.connections or echo.connections[0].transport.is_reading():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(paused(), 5)
    return reader, writer, echo.connections[0]


async def ten_echoes(reader: asyncio.StreamReader) -> list[bytes]:
    return [(await server_frame(reader))[1] for _ in range(10)]


TEN = [b"m%d" % n for n in range(10)]


async def test_reading_pauses_past_max_queue_waiting_messages_and_resumes_as_they_are_read() -> None:
    async with echo_server(read_at_once=False, max_queue=4) as echo:
        reader, writer, connection = await ten_messages_with_reading_paused(echo)
        echo.start_reading.set()
        assert await ten_echoes(reader) == TEN
        assert connection.transport.is_reading()
        writer.close()


async def test_a_connection_whose_reading_was_stopped_stays_paused_after_its_messages_are_read() -> None:
    async with echo_server(read_at_once=False, max_queue=4) as echo:
        reader, _writer, connection = await ten_messages_with_reading_paused(echo)
        connection.stop_reading()
        echo.start_reading.set()
        assert await ten_echoes(reader) == TEN
        await asyncio.sleep(0.05)
        assert not connection.transport.is_reading()
        connection.transport.abort()  # as a shut connection is dropped after its grace

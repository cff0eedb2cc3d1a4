"""Server frames written straight to a connection's socket: the hot path of every reply.

websockets' ``send`` enters an async context manager, builds a ``Frame`` object, hands
it to its Sans-I/O protocol, and drains: about 10 us a frame, and a move sends two (its
ack, and its opponent's progress). A server's data frame is only a header and the
payload (RFC 6455 section 5.2: never masked; the node negotiates no extension, as it
serves with ``compression=None``), so it is built here in one step and written to the
transport when websockets itself would write it: while the connection is open. Anything
else (a closing connection, a closed one) takes websockets' own ``send``, which raises
:class:`~websockets.exceptions.ConnectionClosed` as it always did.

Frames go out in the order they are written. On the node's connections
(:class:`~server.transport.writer.HeldWritesConnection`) a frame waits for the end of the
moment, to leave in one write with the others made for that connection meanwhile, and
websockets' own frames (pings, pongs, the close) go out after the frames held before
them; on any other connection a frame is written at once, as websockets writes its own.
The two never interleave within a frame.
"""

from __future__ import annotations

import struct
from collections.abc import Awaitable, Iterable

from websockets.asyncio.server import ServerConnection
from websockets.protocol import State

from server.transport.writer import HeldWritesConnection

_FIN_TEXT = 0x81
_FIN_BINARY = 0x82
_SHORT = struct.Struct("!BB")
_MEDIUM = struct.Struct("!BBH")
_LONG = struct.Struct("!BBQ")


def server_frame(data: bytes | str) -> bytes:
    """One whole unmasked frame: binary for bytes, text (UTF-8) for a str.

    >>> server_frame(b"hi")
    b'\\x82\\x02hi'
    >>> server_frame("é")[:2]
    b'\\x81\\x02'
    """
    if isinstance(data, str):
        payload, first = data.encode(), _FIN_TEXT
    else:
        payload, first = data, _FIN_BINARY
    size = len(payload)
    if size < 126:
        header = _SHORT.pack(first, size)
    elif size < 0x10000:
        header = _MEDIUM.pack(first, 126, size)
    else:
        header = _LONG.pack(first, 127, size)
    return header + payload


def write_frame(ws: ServerConnection, frame: bytes) -> bool:
    """Write a built frame if the connection is open; False when it was not written."""
    if ws.protocol.state is not State.OPEN or ws.send_in_progress is not None:
        return False
    transport = ws.transport
    if transport.is_closing():
        return False
    if isinstance(ws, HeldWritesConnection):
        ws.write_soon(frame)
        return True
    try:
        transport.write(frame)
    except Exception:  # as websockets' broadcast: a failed write is the connection's end
        return False
    return True


async def send_frame(ws: ServerConnection, data: bytes | str) -> None:
    """``ws.send(data)``, written at once while the connection is open, then waiting as
    websockets does while the socket's write buffer is over its high-water mark."""
    rest = start_frame(ws, data)
    if rest is not None:
        await rest


def start_frame(ws: ServerConnection, data: bytes | str) -> Awaitable[None] | None:
    """:func:`send_frame` without a coroutine when it has nothing to wait for (the hot
    path: most replies are written at once): None once written, else what is left to
    await (websockets' own ``send`` for a connection not open, which raises
    :class:`~websockets.exceptions.ConnectionClosed`, or the wait for the write buffer)."""
    if not write_frame(ws, server_frame(data)):
        return ws.send(data)
    if ws.paused:
        return ws.drain()
    return None


def broadcast_frame(connections: Iterable[ServerConnection], data: bytes | str) -> None:
    """The same message to every open connection, built once (as ``websockets.broadcast``
    does it: no waiting on a full write buffer; a connection not open is skipped)."""
    write_to_all(connections, server_frame(data))


def write_to_all(connections: Iterable[ServerConnection], frame: bytes) -> None:
    """A built frame to every open connection (those not open are skipped)."""
    for ws in connections:
        write_frame(ws, frame)

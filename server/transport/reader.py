"""Client frames read straight off the socket: the hot path of every request.

websockets feeds every byte received to its Sans-I/O protocol (a generator per frame,
a ``Frame`` object, an event list), puts each frame in its ``Assembler`` and wakes the
reader through a queue: about as much Python per frame received as a move's own rules.
Almost every frame a client sends is one whole, masked text or binary message with no
extension data (the node negotiates none): :class:`DirectReadConnection` reads those
itself, unmasks them with websockets' own compiled ``apply_mask``, and queues the
message for the connection's handler.

Everything else still goes through websockets, so it keeps doing what it always did:

- a control frame (ping, pong, close) is handed to websockets' protocol whole, and the
  protocol's parser, which only ever sees whole frames, stays at a frame boundary;
- a frame this reader does not take (a fragment, reserved bits set, an unmasked frame,
  a message over ``max_size``, a text that is not UTF-8, an unknown opcode), any byte
  once the connection is no longer open, and any byte that came with the HTTP request
  or before its answer: from there on the connection is read by websockets alone, which
  fails the connection with the close code it always used. Messages read here before
  are handed out first, so the order holds.

Flow control is websockets' own: reading pauses while more than ``max_queue`` messages
wait for the handler, and resumes once they fall to a quarter of that.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from websockets.protocol import State

from server.transport.writer import HeldWritesConnection

try:  # websockets' compiled unmasking, as its own frame parser uses
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover (a platform without the wheel's extension)
    from websockets.utils import apply_mask

_TEXT = 0x81  # FIN, no reserved bit, opcode 1
_BINARY = 0x82  # FIN, no reserved bit, opcode 2
_CONTROL = frozenset((0x88, 0x89, 0x8A))  # FIN close, ping, pong
_MASKED = 0x80
_CONTROL_MAX = 125
_END_OF_HEADERS = b"\r\n\r\n"


class DirectReadConnection(HeldWritesConnection):
    """A websockets server connection whose whole data frames are read without websockets'
    parser and queue. Read its messages with :meth:`next_message`, not ``recv``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._inbox: deque[bytes | str] = deque()
        #: The start of a frame not yet whole, and how many bytes it needs at least.
        self._rest = bytearray()
        self._needed = 0
        self._waiter: asyncio.Future[None] | None = None
        #: False once websockets reads this connection's frames (for good).
        self._direct = True
        self._request_tail = b""
        self._request_ended = False
        self._inbox_paused = False
        self._reading_stopped = False

    @property
    def reads_directly(self) -> bool:
        """Whether frames are still read here rather than by websockets."""
        return self._direct

    def data_received(self, data: bytes) -> None:
        if not self._direct:
            super().data_received(data)
            return
        state = self.protocol.state
        if state is State.CONNECTING:
            self._watch_request(data)
            super().data_received(data)
            return
        if state is not State.OPEN or self.protocol.reader.buffer:
            self._hand_over(bytes(self._rest) + data)  # with the start of a frame kept here
            return
        rest = self._rest
        if rest:
            # A frame arriving in many small pieces is gathered (each piece appended in
            # place) and read once whole: never copied again per piece.
            rest += data
            if len(rest) < self._needed:
                return
            data, self._rest = bytes(rest), bytearray()
        self._read_frames(data)

    def _watch_request(self, data: bytes) -> None:
        """Read websockets' way for good if a byte arrives after the HTTP request's headers
        and before the connection is open: websockets' parser may hold part of a frame."""
        if self._request_ended:
            self._direct = False
            return
        seen = self._request_tail + data
        end = seen.find(_END_OF_HEADERS)
        if end == -1:
            self._request_tail = seen[-(len(_END_OF_HEADERS) - 1) :]
            return
        self._request_ended = True
        if end + len(_END_OF_HEADERS) < len(seen):
            self._direct = False

    def _read_frames(self, data: bytes) -> None:
        size = len(data)
        limit = self.protocol.max_message_size
        start = 0
        needed = 2
        queued = len(self._inbox)
        while start + 2 <= size:
            first, second = data[start], data[start + 1]
            length = second & 0x7F
            head = start + 2
            if length >= 126:  # the length follows: in 2 bytes (126) or 8 (127)
                extra = 2 if length == 126 else 8
                if head + extra > size:
                    needed = 2 + extra
                    break
                length = int.from_bytes(data[head : head + extra], "big")
                head += extra
            whole_data = first in (_TEXT, _BINARY)
            if (
                not second & _MASKED
                or not (whole_data or (first in _CONTROL and length <= _CONTROL_MAX))
                or (limit is not None and length > limit)
            ):
                self._hand_over(data[start:])
                start = size
                break
            end = head + 4 + length
            if end > size:
                needed = end - start
                break
            if not whole_data:
                super().data_received(data[start:end])
                start = end
                if self.protocol.state is not State.OPEN:  # a close frame
                    self._hand_over(data[start:])
                    start = size
                    break
                continue
            payload = apply_mask(data[head + 4 : end], data[head : head + 4])
            if first == _TEXT:
                try:
                    self._inbox.append(payload.decode())
                except UnicodeDecodeError:
                    self._hand_over(data[start:])
                    start = size
                    break
            else:
                self._inbox.append(payload)
            start = end
        if start < size:
            self._rest = bytearray(data[start:])
            self._needed = needed
        if len(self._inbox) > queued:
            self._wake()
            high = self.max_queue_high
            if high is not None and len(self._inbox) > high and not self._inbox_paused:
                self._inbox_paused = True
                self.transport.pause_reading()

    def _hand_over(self, data: bytes) -> None:
        """From now on websockets reads this connection, starting with ``data``."""
        self._direct = False
        self._rest = bytearray()
        if data:
            super().data_received(data)
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        self._direct = False
        super().connection_lost(exc)
        self._wake()

    def stop_reading(self) -> None:
        """Read nothing more from the socket, ever (the connection is being shut)."""
        self._reading_stopped = True
        self.transport.pause_reading()
        # websockets resumes reading once its queue of received frames drains.
        self.recv_messages.resume = _stay_paused

    async def next_message(self) -> bytes | str:
        """The next message: bytes for a binary one, str for a text one. Raises
        :class:`~websockets.exceptions.ConnectionClosed` once the connection is closed."""
        while True:
            if self._inbox:
                message = self._inbox.popleft()
                if self._inbox_paused and len(self._inbox) <= (self.max_queue_low or 0):
                    self._inbox_paused = False
                    # Once websockets reads the connection, its own queue may hold reading
                    # paused too.
                    if not self._reading_stopped and not self.recv_messages.paused:
                        self.transport.resume_reading()
                return message
            if not self._direct:
                return await self.recv()
            self._waiter = self.loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None


def _stay_paused() -> None:
    """Replaces websockets' resume-reading callback on a connection being shut."""

"""Server frames held for the rest of the moment, then written to the socket at once.

Each write to a socket is a system call, and on a busy node it is the dearest part of
sending a frame. A racer's frames often come in pairs: the ack of their move and their
opponent's progress, made by two handlers resumed by the same reply from Redis. So a
frame is not written when it is made: :meth:`HeldWritesConnection.write_soon` keeps it,
and the frames a connection got meanwhile go out together in one write once the event
loop has run everything that was ready (``call_soon``: run before the loop next sleeps,
so a frame is never held while the node is idle). One callback per moment writes every
connection that holds frames (a reply from Redis resumes hundreds of moves at once).

Order holds: websockets' own writes (a pong, a close) go through ``send_data``, which
first writes the frames held before them. A frame too big to be worth holding, and
everything held with it, is written at once, as are the held frames once they reach
:data:`HOLD_MAX_BYTES`: a burst to one connection is never copied into one huge buffer.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from websockets.asyncio.server import ServerConnection

#: Held frames of one connection are written once they reach this many bytes.
HOLD_MAX_BYTES = 16 * 1024


class _Moment:
    """The connections of one event loop holding frames in this moment, each written by
    the one callback the moment's first frame scheduled. (It keeps no reference to its
    loop: the registry of moments must not keep a closed loop alive.)"""

    def __init__(self) -> None:
        self.holding: list[HeldWritesConnection] = []

    def hold(self, connection: HeldWritesConnection) -> None:
        if not self.holding:
            connection.loop.call_soon(self.write_all)
        self.holding.append(connection)

    def write_all(self) -> None:
        holding, self.holding = self.holding, []
        for connection in holding:
            connection.write_held()


_MOMENTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Moment] = weakref.WeakKeyDictionary()


def _moment_of(loop: asyncio.AbstractEventLoop) -> _Moment:
    moment = _MOMENTS.get(loop)
    if moment is None:
        moment = _MOMENTS[loop] = _Moment()
    return moment


class HeldWritesConnection(ServerConnection):
    """A websockets server connection whose frames wait for the end of the moment, to
    leave in one write with the others made for it meanwhile."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._outgoing: list[bytes] = []
        self._outgoing_bytes = 0
        self._moment = _moment_of(self.loop)

    def write_soon(self, frame: bytes) -> None:
        """Write ``frame`` (a whole frame) with the others of this moment."""
        outgoing = self._outgoing
        if not outgoing:
            self._moment.hold(self)
        outgoing.append(frame)
        self._outgoing_bytes += len(frame)
        if self._outgoing_bytes >= HOLD_MAX_BYTES:
            self.write_held()

    def write_held(self) -> None:
        """Write the frames held, in one write (nothing when none are)."""
        outgoing = self._outgoing
        if not outgoing:
            return
        self._outgoing = []
        self._outgoing_bytes = 0
        if self.transport.is_closing():
            return  # lost meanwhile: as a write into a closed socket
        try:
            self.transport.write(outgoing[0] if len(outgoing) == 1 else b"".join(outgoing))
        except Exception:  # as websockets' broadcast: a failed write is the connection's end
            return

    def send_data(self) -> None:
        self.write_held()  # the frames made before websockets' own go out before it
        super().send_data()

    def connection_lost(self, exc: Exception | None) -> None:
        self._outgoing = []
        self._outgoing_bytes = 0
        super().connection_lost(exc)

"""The door before HTTP: a TCP connection from an address that was just refused is
held unread for a few seconds and then dropped, before its request is read.

A refused attacker that reconnects in a tight loop would otherwise cost the server a
whole HTTP exchange (about a quarter of a millisecond) per attempt. Held at the door, an
attempt costs an accept and a timer, and the attacker's loop waits on it instead of
spinning: one address gets at most one new attempt per few seconds per connection it
keeps trying. At most :data:`HELD_MAX` connections are held at once (each is a file
descriptor); past that they are closed at once.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

from server.admission import Admission
from server.metrics import Metrics
from server.transport.reader import DirectReadConnection

#: Seconds a connection is held unread at the door before it is closed.
HOLD_SECONDS = 3.0
#: Connections held at once, all addresses together.
HELD_MAX = 1024


def gated_connection(admission: Admission, metrics: Metrics) -> type[DirectReadConnection]:
    """A websockets connection class that consults ``admission`` when a socket is accepted."""
    dropped = metrics.refused_connections.labels(reason="dropped")
    held = [0]

    class GatedConnection(DirectReadConnection):
        _dropped = False
        _held = False

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            peer: Any = transport.get_extra_info("peername")
            host = str(peer[0]) if isinstance(peer, tuple) else ""
            if host and admission.drop_silently(host):
                self._dropped = True
                dropped.inc()
                door = cast(asyncio.Transport, transport)
                if held[0] >= HELD_MAX:
                    door.abort()
                    return
                held[0] += 1
                self._held = True
                door.pause_reading()
                asyncio.get_running_loop().call_later(HOLD_SECONDS, door.abort)
                return
            super().connection_made(transport)

        def connection_lost(self, exc: Exception | None) -> None:
            if self._dropped:
                if self._held:
                    held[0] -= 1
                return  # never set up: nothing to tear down
            super().connection_lost(exc)

    return GatedConnection

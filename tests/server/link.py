"""A TCP link between a node and Redis (or a client and a node) that a test can cut and
mend, or stall: a network fault between the two, with everything else (the node, Redis,
the clients) left running."""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit


class Link:
    """Relays every connection made to :attr:`url` on to Redis at ``redis_url`` (or to a
    node at a ``ws://`` address: :attr:`url` is then one too).

    :meth:`cut` drops every relayed connection and refuses new ones (they are closed as
    soon as they are accepted) until :meth:`mend`. :meth:`stall` stops forwarding on the
    connections open then, closing none (a link gone silent), until :meth:`unstall`;
    :meth:`stall_replies` stops only what comes back to whoever connected.
    """

    def __init__(self, redis_url: str) -> None:
        parts = urlsplit(redis_url)
        #: A Unix socket's path, or a TCP address.
        self._socket = parts.path if parts.scheme == "unix" else ""
        self._address = (parts.hostname or "127.0.0.1", parts.port or 6379)
        self._scheme = "redis" if parts.scheme == "unix" else parts.scheme
        self._server: asyncio.Server | None = None
        self._pipes: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        #: Per relayed connection, whether each way flows: (there, back).
        self._valves: set[tuple[asyncio.Event, asyncio.Event]] = set()
        self.is_cut = False
        self.url = ""

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"{self._scheme}://127.0.0.1:{port}"
        return self.url

    def stall(self) -> None:
        """The connections open now forward nothing more either way (bytes already read
        are held), though none is closed; new connections flow."""
        for there, back in self._valves:
            there.clear()
            back.clear()

    def stall_replies(self) -> None:
        """As :meth:`stall`, but only the way back: what is sent still arrives."""
        for _there, back in self._valves:
            back.clear()

    def unstall(self) -> None:
        """What was held flows on."""
        for there, back in self._valves:
            there.set()
            back.set()

    async def stop(self) -> None:
        self._drop_all()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for pipe in list(self._pipes):
            pipe.cancel()
        await asyncio.gather(*self._pipes, return_exceptions=True)

    def cut(self) -> None:
        self.is_cut = True
        self._drop_all()
        self.unstall()  # what was held is dropped with its connection

    def mend(self) -> None:
        self.is_cut = False

    def _drop_all(self) -> None:
        for writer in list(self._writers):
            if writer.transport is not None:
                writer.transport.abort()
        self._writers.clear()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.is_cut:
            writer.transport.abort()
            return
        try:
            if self._socket:
                upstream_reader, upstream_writer = await asyncio.open_unix_connection(self._socket)
            else:
                upstream_reader, upstream_writer = await asyncio.open_connection(*self._address)
        except OSError:
            writer.transport.abort()
            return
        self._writers.update((writer, upstream_writer))
        valves = (asyncio.Event(), asyncio.Event())
        for valve in valves:
            valve.set()
        self._valves.add(valves)
        ways = ((reader, upstream_writer, valves[0]), (upstream_reader, writer, valves[1]))
        for source, sink, valve in ways:
            pipe = asyncio.create_task(self._pipe(source, sink, valve))
            self._pipes.add(pipe)
            pipe.add_done_callback(self._pipes.discard)
            pipe.add_done_callback(lambda _pipe: self._valves.discard(valves))

    async def _pipe(
        self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, valve: asyncio.Event
    ) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while chunk := await source.read(65536):
                await valve.wait()
                if sink.transport.is_closing():
                    break
                sink.write(chunk)
                await sink.drain()
        sink.transport.abort()
        self._writers.discard(sink)

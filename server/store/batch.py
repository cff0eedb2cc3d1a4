"""Script calls made in the same moment go to Redis as one batch: one round trip.

The hot path of every move; the rest of the store uses redis-py's pipelines.
"""

from __future__ import annotations

import asyncio
from typing import Any

from redis.exceptions import NoScriptError, ResponseError


class ScriptBatcher:
    """Runs the script calls made in the same moment as one batch: one round trip.

    Moves from many racers arrive together; writing their ``EVALSHA`` commands in one
    packed write, then reading the replies in order, saves most of redis-py's
    per-command cost (its pipeline object, command stack and per-argument encoder).
    At most ``max_inflight`` batches run at once, each on one of the batcher's own
    connections (made from the client's pool settings, outside its pool: no pool
    locking and checks per batch); calls made meanwhile wait and go together in the
    next one. Redis runs each script atomically on its own, exactly as in a
    non-transactional pipeline. A connection that failed or was interrupted mid-batch
    is disconnected (it reconnects on its next use), so no reply is ever read twice.
    """

    def __init__(self, client: Any, max_inflight: int = 2, max_batch: int = 256) -> None:
        self.client = client
        self.max_inflight = max_inflight
        self.max_batch = max_batch
        self._pending: list[tuple[Any, list[Any], list[Any], asyncio.Future[Any]]] = []
        self._inflight = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._idle: list[Any] = []
        self._connections: list[Any] = []

    async def aclose(self) -> None:
        """Disconnect the batcher's own connections."""
        for connection in self._connections:
            await connection.disconnect()

    async def call(self, script: Any, keys: list[Any], args: list[Any]) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending.append((script, keys, args, future))
        self._kick()
        return await future

    def _kick(self) -> None:
        while self._pending and self._inflight < self.max_inflight:
            batch = self._pending[: self.max_batch]
            del self._pending[: self.max_batch]
            self._inflight += 1
            task = asyncio.create_task(self._flush(batch))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _flush(self, batch: list[tuple[Any, list[Any], list[Any], asyncio.Future[Any]]]) -> None:
        try:
            results = await self._run(batch)
            for (script, keys, args, future), result in zip(batch, results, strict=True):
                if isinstance(result, NoScriptError):
                    # Redis lost its script cache (restart): this call did not run.
                    try:
                        result = await script(keys=keys, args=args)
                    except Exception as exc:
                        result = exc
                if future.done():
                    continue
                if isinstance(result, Exception):
                    future.set_exception(result)
                else:
                    future.set_result(result)
        except Exception as exc:
            for _script, _keys, _args, future in batch:
                if not future.done():
                    future.set_exception(exc)
        finally:
            self._inflight -= 1
            self._kick()

    async def _run(self, batch: list[tuple[Any, list[Any], list[Any], asyncio.Future[Any]]]) -> list[Any]:
        """Send every call of the batch in one write; the replies (or errors) in order."""
        packed = b"".join(_pack_evalsha(script.sha, keys, args) for script, keys, args, _f in batch)
        if self._idle:
            connection = self._idle.pop()
        else:
            connection = self.client.connection_pool.make_connection()
            self._connections.append(connection)
        try:
            # Retried on a connection error as redis-py retries a pipeline (the
            # connection's own retry policy): a script that did run before the failure
            # answers 'dup' the second time, which the caller turns into the stored ack.
            results: list[Any] = await connection.retry.call_with_retry(
                lambda: self._exchange(connection, packed, len(batch)),
                lambda error: connection.disconnect(),
            )
            return results
        except BaseException:
            # A reply may still be on its way: never hand this connection out again as is.
            await connection.disconnect()
            raise
        finally:
            self._idle.append(connection)

    @staticmethod
    async def _exchange(connection: Any, packed: bytes, count: int) -> list[Any]:
        await connection.send_packed_command(packed)
        results: list[Any] = []
        for _ in range(count):
            try:
                results.append(await connection.read_response())
            except ResponseError as exc:
                results.append(exc)
        return results


def _arg(value: Any) -> bytes:
    """One command argument as Redis protocol bytes (as redis-py's encoder does it)."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    return _number(value).encode()


def _number(value: Any) -> str:
    if isinstance(value, bool):
        raise TypeError("a bool is not a Redis argument: pass '1' or '0'")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    raise TypeError(f"cannot send {type(value).__name__} to Redis")


def _pack_evalsha(sha: str, keys: list[Any], args: list[Any]) -> bytes:
    """``EVALSHA sha numkeys keys... args...`` in the Redis protocol (RESP).

    Built as text and encoded once: when every argument is ASCII text or a number, a
    length in characters is the length in bytes. Anything else takes the exact path.
    """
    items = [sha, str(len(keys)), *keys, *args]
    parts = [f"*{len(items) + 1}\r\n$7\r\nEVALSHA\r\n"]
    for item in items:
        if type(item) is not str:
            if isinstance(item, bytes):
                return _pack_exact(items)
            item = _number(item)
        parts.append(f"${len(item)}\r\n{item}\r\n")
    text = "".join(parts)
    return text.encode() if text.isascii() else _pack_exact(items)


def _pack_exact(items: list[Any]) -> bytes:
    encoded = [b"EVALSHA", *map(_arg, items)]
    parts = [b"*%d\r\n" % len(encoded)]
    for item in encoded:
        parts.append(b"$%d\r\n%b\r\n" % (len(item), item))
    return b"".join(parts)

"""Script calls made in the same moment go to Redis as one batch: one round trip.

The hot path of every move; the rest of the store uses redis-py's pipelines.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from typing import Any

import hiredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import AskError, ConnectionError, NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

try:  # redis-py's marker for "no whole reply read yet", as it sets up hiredis's reader
    from redis._parsers.hiredis import NOT_ENOUGH_DATA
except ImportError:  # pragma: no cover (another redis-py: every reply is read its own way)
    NOT_ENOUGH_DATA = None

#: One script call waiting for its batch: the script, its keys, its arguments, its answer,
#: whether it runs again after Redis had lost the script, and what reads its reply.
Call = tuple[Any, Sequence[Any], list[Any], asyncio.Future[Any], bool, Callable[[Any], Any] | None]

#: How long a batch waits for its replicas (``WAIT``) before its calls fail as an outage.
WAIT_MS = 1000


class ReplicasBehind(RedisTimeoutError):
    """The replicas did not confirm a batch's writes in time: its calls are answered as an
    outage (retryable), and a retry finds each write done (``dup``)."""


class ScriptBatcher:
    """Runs the script calls made in the same moment as one batch: one round trip.

    Moves from many racers arrive together; writing their ``EVALSHA`` commands in one
    packed write (each packed by hiredis in C), then reading the replies in order, saves
    most of redis-py's per-command cost (its pipeline object and command stack).
    At most ``max_inflight`` batches run at once, each on one of the batcher's own
    connections (made from the client's pool settings, outside its pool: no pool
    locking and checks per batch); calls made meanwhile wait and go together in the
    next one. Redis runs each script atomically on its own, exactly as in a
    non-transactional pipeline. A connection that failed or was interrupted mid-batch
    is disconnected (it reconnects on its next use), so no reply is ever read twice.
    """

    def __init__(
        self, client: Any, max_inflight: int = 2, max_batch: int = 256, ack_replicas: int = 0
    ) -> None:
        self.client = client
        self.max_inflight = max_inflight
        self.max_batch = max_batch
        #: Replicas that must hold a batch's writes before its calls return (``WAIT``).
        self.ack_replicas = ack_replicas
        self._pending: list[Call] = []
        self._inflight = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._idle: list[Any] = []
        self._connections: list[Any] = []
        #: Seconds a whole batch may take (the client's socket timeout; None: no limit).
        self._batch_timeout: float | None = None

    async def aclose(self) -> None:
        """Disconnect the batcher's own connections."""
        for connection in self._connections:
            await connection.disconnect()

    def call(
        self, script: Any, keys: Sequence[Any], args: list[Any], read: Callable[[Any], Any] | None = None
    ) -> asyncio.Future[Any]:
        """The script's answer once the batch it goes in has run (``read(reply)`` when
        given: the caller needs no coroutine of its own to read it): await it. A script
        Redis lost from its cache (a restart; a promoted replica on Redis 7) is loaded
        again and the call runs in a later batch, once more."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending.append((script, keys, args, future, False, read))
        self._kick()
        return future

    def _kick(self) -> None:
        while self._pending and self._inflight < self.max_inflight:
            batch = self._pending[: self.max_batch]
            del self._pending[: self.max_batch]
            self._inflight += 1
            task = asyncio.create_task(self._flush(batch))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _flush(self, batch: list[Call]) -> None:
        try:
            results = await self._run(batch)
            unloaded: list[Call] = []
            for call, result in zip(batch, results, strict=True):
                future = call[3]
                if future.done():
                    continue
                if isinstance(result, NoScriptError) and not call[4]:
                    unloaded.append(call)
                elif isinstance(result, Exception):
                    future.set_exception(result)
                else:
                    _answer(future, result, call[5])
            if unloaded:
                await self._load_again(unloaded)
        except Exception as exc:
            for call in batch:
                if not call[3].done():
                    call[3].set_exception(exc)
        finally:
            self._inflight -= 1
            self._kick()

    async def _load_again(self, calls: list[Call]) -> None:
        """The calls did not run (Redis had lost their scripts): load the scripts again,
        and the calls wait for the next batch, where they run like any other (their
        answers wait for the replicas as every answer does)."""
        for script in {id(call[0]): call[0] for call in calls}.values():
            await self.client.script_load(script.script)
        self._pending.extend(
            (script, keys, args, future, True, read)
            for script, keys, args, future, _, read in calls
            if not future.done()  # its caller gave up meanwhile
        )

    async def _run(self, batch: list[Call]) -> list[Any]:
        """Send every call of the batch in one write; the replies (or errors) in order."""
        packed = self._packed(batch)
        connection = self._idle.pop() if self._idle else self._new_connection()
        try:
            # Retried on a connection error as redis-py retries a pipeline (the
            # connection's own retry policy): a script that did run before the failure
            # answers 'dup' the second time, which the caller turns into the stored ack.
            results: list[Any] = await connection.retry.call_with_retry(
                lambda: self._timed_exchange(connection, packed, len(batch)),
                lambda error: connection.disconnect(),
            )
            return results
        except BaseException:
            # A reply may still be on its way: never hand this connection out again as is.
            await connection.disconnect()
            raise
        finally:
            self._idle.append(connection)

    def _new_connection(self) -> Any:
        connection = self.client.connection_pool.make_connection()
        # The socket timeout becomes one deadline per batch (_timed_exchange): with it set,
        # redis-py arms a timer for every reply it reads and runs every write in a task of
        # its own. Connecting keeps its own timeout.
        self._batch_timeout = connection.socket_timeout
        connection.socket_timeout = None
        self._connections.append(connection)
        return connection

    async def _timed_exchange(self, connection: Any, packed: bytes, count: int) -> list[Any]:
        try:
            async with asyncio.timeout(self._batch_timeout):
                return await self._exchange(connection, packed, count, self.ack_replicas)
        except TimeoutError:  # the deadline (Python's own: redis-py's is another class)
            await connection.disconnect(nowait=True)
            message = f"Redis did not answer {count} calls within {self._batch_timeout:g} s"
            raise RedisTimeoutError(message) from None

    def _packed(self, batch: list[Call]) -> bytes:
        packed = b"".join(_pack_evalsha(script.sha, keys, args) for script, keys, args, *_ in batch)
        if self.ack_replicas:
            packed += _pack(("WAIT", self.ack_replicas, WAIT_MS))
        return packed

    @staticmethod
    async def _exchange(connection: Any, packed: bytes, count: int, ack_replicas: int) -> list[Any]:
        await connection.send_packed_command(packed)
        results: list[Any] = []
        gets = _reply_reader(connection)
        for _ in range(count):
            reply = gets() if gets is not None else NOT_ENOUGH_DATA
            if type(reply) is not list or (reply and isinstance(reply[0], ConnectionError)):
                reply = await _settled(connection, reply)  # what is not a script's usual answer
            results.append(reply)
        if ack_replicas:
            held = int(await connection.read_response())
            if held < ack_replicas:
                behind = ReplicasBehind(f"{held} of {ack_replicas} replicas confirmed within {WAIT_MS} ms")
                return [behind if not isinstance(r, Exception) else r for r in results]
        return results


class PipelineBatcher(ScriptBatcher):
    """The same batching on redis-py's own non-transactional pipeline.

    For a Redis Cluster, whose pipeline sends each call to the master of its slot and
    follows redirections; on one server, the baseline the packed batches are measured
    against (``bench/load.py``).
    """

    async def _run(self, batch: list[Call]) -> list[Any]:
        pipe = self.client.pipeline(transaction=False)
        for script, keys, args, *_ in batch:
            pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
        results: list[Any] = await pipe.execute(raise_on_error=False)
        return results


class ClusterBatcher(ScriptBatcher):
    """The same packed batches on a Redis Cluster: one per master, on one of that
    master's connections, each with its own ``WAIT`` when replicas must confirm.

    A call answered ``MOVED`` or ``ASK`` (the slot moved: a failover, a resharding) makes
    the client learn the topology again, and runs once more in a batch of its own; a
    master that cannot be reached fails its calls with the connection error, which the
    node answers as ``unavailable``.
    """

    async def _run(self, batch: list[Call]) -> list[Any]:
        results = await self._by_master(batch)
        moved = [i for i, r in enumerate(results) if isinstance(r, AskError | ConnectionError | OSError)]
        if moved:
            with contextlib.suppress(Exception):
                await self.client.nodes_manager.initialize()
            again = await self._by_master([batch[i] for i in moved])
            for index, result in zip(moved, again, strict=True):
                results[index] = result
        return results

    async def _by_master(self, batch: list[Call]) -> list[Any]:
        groups: dict[str, tuple[Any, list[int]]] = {}
        for index, (_script, keys, *_) in enumerate(batch):
            node = self.client.get_node_from_key(keys[0])
            groups.setdefault(node.name, (node, []))[1].append(index)
        results: list[Any] = [None] * len(batch)

        async def one_master(node: Any, indexes: list[int]) -> None:
            answers = await self._on_master(node, [batch[i] for i in indexes])
            for index, answer in zip(indexes, answers, strict=True):
                results[index] = answer

        await asyncio.gather(*(one_master(node, indexes) for node, indexes in groups.values()))
        return results

    async def _on_master(self, node: Any, batch: list[Call]) -> list[Any]:
        connection = node.acquire_connection()
        try:
            return await self._exchange(connection, self._packed(batch), len(batch), self.ack_replicas)
        except (ConnectionError, OSError) as exc:
            await connection.disconnect()
            return [exc] * len(batch)
        except BaseException:
            await connection.disconnect()  # a reply may still be on its way
            raise
        finally:
            node.release(connection)


def batcher_for(client: Any, ack_replicas: int = 0) -> ScriptBatcher:
    """Packed batches: on one server, or per master on a Redis Cluster."""
    if isinstance(client, RedisCluster):
        return ClusterBatcher(client, ack_replicas=ack_replicas)
    return ScriptBatcher(client, ack_replicas=ack_replicas)


def _answer(future: asyncio.Future[Any], reply: Any, read: Callable[[Any], Any] | None) -> None:
    """Settle ``future`` with ``reply``, read by ``read`` when given (what it raises is the
    call's error)."""
    if read is None:
        future.set_result(reply)
        return
    try:
        future.set_result(read(reply))
    except Exception as exc:
        future.set_exception(exc)


def _reply_reader(connection: Any) -> Any:
    """hiredis's ``gets`` on the reader redis-py keeps for ``connection``: the next reply
    already read off the socket, with no read of the socket and no coroutine. A batch's
    replies mostly arrive together, and ``read_response`` (three coroutines deep, with
    its timeout checks) costs more than a move's own reply is worth. None: the parser is
    not hiredis's, and every reply is read by ``read_response``."""
    reader = getattr(getattr(connection, "_parser", None), "_reader", None)
    return reader.gets if reader is not None and NOT_ENOUGH_DATA is not None else None


async def _settled(connection: Any, reply: Any) -> Any:
    """What ``read_response`` makes of ``reply`` (what :func:`_reply_reader` gave, when
    not a plain list): read from the socket when no whole reply was there yet, raised
    when a connection error (or a list starting with one), handed to redis-py's handler
    when a push message (RESP3) and the next reply read instead; an error reply is
    returned, never raised."""
    if reply is NOT_ENOUGH_DATA:
        try:
            return await connection.read_response()
        except ResponseError as exc:
            return exc
    if isinstance(reply, ConnectionError):
        raise reply  # as read_response raises it (Redis still loading its data, say)
    if type(reply) is list:
        raise reply[0]
    parser = connection._parser
    push = getattr(parser, "_hiredis_PushNotificationType", None)
    if push is not None and isinstance(reply, push):
        await parser.handle_push_response(reply)
        return await _settled(connection, parser._reader.gets())
    return reply


def _pack_evalsha(sha: str, keys: Sequence[Any], args: list[Any]) -> bytes:
    """``EVALSHA sha numkeys keys... args...`` in the Redis protocol (RESP): the bytes
    redis-py's encoder writes (text as UTF-8, numbers as their decimal text), packed by
    hiredis in C. A bool is refused (TypeError): the scripts take "1" or "0"."""
    return _pack(("EVALSHA", sha, len(keys), *keys, *args))


def _pack(command: tuple[Any, ...]) -> bytes:
    """One command in RESP (hiredis's stub leaves its result untyped)."""
    packed: bytes = hiredis.pack_command(command)
    return packed

"""CPU-heavy pure Python (a hint's search, a daily deal's solver) off the event loop.

A :class:`Worker` runs calls in one process of its own, spawned on first use: in a
thread, pure Python would hold the interpreter lock and stall every racer's moves. Where
no process can start (standard error is not a real file, as when the server runs inside
a terminal UI), it runs them in a thread instead, and says so once in the log. A worker
ends with its node, even one that is SIGKILLed (Linux).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

log = logging.getLogger("arena.worker")

T = TypeVar("T")


def _die_with_parent(parent: int) -> None:  # pragma: no cover - runs in the worker
    """Let the worker end with the node: a SIGKILLed node cannot shut its pool down, and
    its workers would otherwise run on, orphaned, one set more after every crash."""
    if sys.platform.startswith("linux"):
        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)
    if os.getppid() != parent:  # the node died before the line above
        os._exit(1)


@contextlib.contextmanager
def _spawned_ignoring_ctrl_c() -> Iterator[None]:
    """A worker process spawned meanwhile never sees SIGINT: Ctrl-C in a terminal reaches
    the whole process group, the node shuts its pool down, and the worker's own
    KeyboardInterrupt would only print a traceback. SIGINT is blocked meanwhile, and the
    worker keeps the blocked mask across its exec; the node only holds a Ctrl-C pressed
    meanwhile, which reaches it as the block lifts (ignoring it instead lost it: a node
    told Ctrl-C while it spawned its worker ran on)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


class WorkerDied(RuntimeError):
    """The worker process died during the call (a new one starts for the next)."""


class Worker:
    def __init__(self, name: str) -> None:
        self.name = name
        self._pool: ProcessPoolExecutor | None = None
        self._in_thread = False

    def stop(self) -> None:
        """Ends the worker process now, a call still running in it included: the node's
        exit would otherwise wait for that call (a day's deal search takes seconds)."""
        if self._pool is not None:
            # Python 3.14's ProcessPoolExecutor.terminate_workers does this; 3.11 has only
            # the pool's own table of its processes.
            processes = list(self._pool._processes.values()) if self._pool._processes else []
            self._pool.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()
            self._pool = None

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in the worker; ``work`` must be importable (a module's function)."""
        if self._in_thread:
            return await asyncio.to_thread(work, *args)
        pool = self._pool
        try:
            if pool is None:
                # spawn: a fresh interpreter, not a fork of this one and its loop's threads.
                pool = self._pool = ProcessPoolExecutor(
                    max_workers=1,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_die_with_parent,
                    initargs=(os.getpid(),),
                )
            with _spawned_ignoring_ctrl_c():  # the pool spawns its process on a call
                done = asyncio.get_running_loop().run_in_executor(pool, work, *args)
            return await done
        except BrokenProcessPool:
            if self._pool is pool:  # not ended by stop()
                log.error("a worker process died; a new one starts next time", extra={"worker": self.name})
                self._pool = None
            raise WorkerDied(self.name) from None
        except (OSError, ValueError) as exc:
            log.warning(
                "no worker process can start: running in a thread",
                extra={"worker": self.name, "reason": repr(exc)},
            )
            self._pool, self._in_thread = None, True
            return await asyncio.to_thread(work, *args)

"""The worker process that runs CPU-heavy calls off the event loop."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from server import worker as worker_module

ROOT = Path(__file__).resolve().parents[2]

#: A process that starts a worker, prints the worker's pid and waits to be killed.
_NODE = """
import asyncio, os
from server.worker import Worker

async def main():
    worker = Worker("test")
    print(await worker.run(os.getpid), flush=True)
    await asyncio.sleep(60)

asyncio.run(main())
"""


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_a_sigkilled_node_takes_its_worker_process_with_it() -> None:
    node = subprocess.Popen(
        [sys.executable, "-c", _NODE], cwd=ROOT, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    worker_pid = 0
    try:
        assert node.stdout is not None
        worker_pid = int(node.stdout.readline())
        assert worker_pid != node.pid and _alive(worker_pid)
        node.send_signal(signal.SIGKILL)
        node.wait(10)
        deadline = time.monotonic() + 10
        while _alive(worker_pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(worker_pid), "the worker outlived its SIGKILLed node"
    finally:
        node.kill()
        node.wait()
        if worker_pid and _alive(worker_pid):
            os.kill(worker_pid, signal.SIGKILL)


#: A process whose worker is in a long call when the node stops it, then returns.
_STOPPING_NODE = """
import asyncio, logging, time
from server.worker import Worker, WorkerDied

async def main():
    worker = Worker("test")
    call = asyncio.ensure_future(worker.run(time.sleep, 60))
    await asyncio.sleep(1)  # the call is running in the worker
    worker.stop()
    try:
        await call
    except WorkerDied:
        print("the call ended", flush=True)

logging.basicConfig()
asyncio.run(main())
"""


def test_a_node_stopping_its_worker_mid_call_exits_without_waiting_for_the_call() -> None:
    """A day's deal search takes seconds, more on a busy machine: Ctrl-C or SIGTERM then
    must not wait for it (the process pool's exit would join the worker's call, 60 s
    here, past the run's timeout), nor log the ended call as a worker that died."""
    node = subprocess.run(
        [sys.executable, "-c", _STOPPING_NODE], cwd=ROOT, capture_output=True, text=True, timeout=50,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert node.stdout == "the call ended\n" and node.returncode == 0 and node.stderr == "", node.stderr


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
def test_ctrl_c_while_the_worker_is_spawned_is_held_for_the_node_not_lost() -> None:
    """The worker is spawned deaf to SIGINT; a Ctrl-C that comes meanwhile still reaches
    the node once the spawn is done (it used to be ignored: the node never stopped)."""
    told: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: told.append(signum))
    try:
        with worker_module._spawned_ignoring_ctrl_c():
            os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # the handler runs at the next look for signals
        assert told == [signal.SIGINT]
    finally:
        signal.signal(signal.SIGINT, previous)

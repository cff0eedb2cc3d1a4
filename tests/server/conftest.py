"""Fixtures: a real redis-server for the session, real nodes in-process or as processes."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from client.sdk import ArenaClient
from server.app import ArenaServer
from server.config import Settings
from server.redis_embedded import free_port
from server.timesource import ManualTime

ROOT = Path(__file__).resolve().parents[2]

#: A deal of Eight Off with a short winning line (found by tests/server/solver.py).
WINNABLE_SEED = 2


def node_settings(redis_url: str, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "redis_url": redis_url,
        "port": 0,
        "countdown": 0.15,
        "clock_tick": 0.02,
        "log_format": "text",
        "log_level": "WARNING",
        "daily_prepare": False,
    }
    values.update(overrides)
    return Settings.from_env({}, **values)


@contextlib.asynccontextmanager
async def running_node(redis_url: str, **overrides: object) -> AsyncIterator[ArenaServer]:
    """An in-process node on ``redis_url`` dealing :data:`WINNABLE_SEED` (racers' seed
    shares checked, not mixed in, unless ``mix_shares=True``; on the system clock unless
    ``time=`` a :class:`ManualTime`), stopped after."""
    mix_shares = bool(overrides.pop("mix_shares", False))
    clock = overrides.pop("time", None)
    assert clock is None or isinstance(clock, ManualTime)
    settings = node_settings(redis_url, **overrides)
    node = ArenaServer(settings, seed_source=lambda: WINNABLE_SEED, time=clock, mix_shares=mix_shares)
    await node.start()
    try:
        yield node
    finally:
        await node.stop()


Connect = Callable[..., Awaitable[ArenaClient]]


@contextlib.asynccontextmanager
async def client_opener() -> AsyncIterator[Connect]:
    """What :func:`connect` yields: opens clients, and closes them on the way out."""
    clients: list[ArenaClient] = []

    async def open_client(url: str, binary: bool = True, **kwargs: Any) -> ArenaClient:
        client = await ArenaClient.connect(url, binary=binary, **kwargs)
        clients.append(client)
        return client

    try:
        yield open_client
    finally:
        for client in clients:
            await client.close()


@dataclass
class NodeProcess:
    """A real ``solitaire-arena serve`` process."""

    process: subprocess.Popen[str]
    port: int
    #: The line it printed once it listened.
    banner: str = ""

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(10)

    def terminate(self) -> int:
        self.process.terminate()
        return self.process.wait(15)


def start_node(
    port: int | None = None,
    redis_url: str = "",
    data_dir: str | None = None,
    extra_env: dict[str, str] | None = None,
) -> NodeProcess:
    """Start a server process and wait until it prints its address."""
    port = port or free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SA_") and k != "REDIS_URL"}
    env.update(
        {
            "SA_COUNTDOWN": "0.15",
            "SA_CLOCK_TICK": "0.02",
            "SA_LOG_LEVEL": "WARNING",
            "PYTHONPATH": str(ROOT),
        }
    )
    env.update(extra_env or {})
    args = [sys.executable, "-m", "server.cli", "serve", "--port", str(port)]
    if redis_url:
        args += ["--redis-url", redis_url]
    if data_dir:
        args += ["--data-dir", data_dir]
    process = subprocess.Popen(
        args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert process.stdout is not None
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if "listening on" in line:
            return NodeProcess(process, port, line.rstrip("\n"))
        if not line and process.poll() is not None:
            break
    process.kill()
    raise RuntimeError("the server process did not start")

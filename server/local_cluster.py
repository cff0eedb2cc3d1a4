"""A Redis Cluster on loopback, made of ``redis-server`` processes: for tests and benchmarks.

Each server runs in cluster mode in a folder of its own; ``redis-cli --cluster create``
splits the 16,384 slots over the masters and gives each master its replicas. The
cluster's URL (:attr:`LocalCluster.url`) is the ``redis+cluster://`` form the server
takes. Servers die with the process that started them.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import redis

from server.redis_embedded import EmbeddedRedisError, redis_server_binary, spawn_redis


def redis_cli_binary(server_binary: str | None = None) -> str:
    """The ``redis-cli`` next to ``server_binary`` (by default :func:`redis_server_binary`)."""
    server_binary = server_binary or redis_server_binary()
    cli = Path(server_binary).with_name("redis-cli")
    if not cli.is_file():
        raise EmbeddedRedisError(f"no redis-cli beside {server_binary}")
    return str(cli)


@dataclass
class ClusterServer:
    """One ``redis-server`` of the cluster."""

    port: int
    folder: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2, decode_responses=True)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


class LocalCluster:
    """``masters`` masters (at least 3) with ``replicas`` replicas each; :meth:`start`,
    then :meth:`stop`.

    ``node_timeout`` (ms) is how long a master may be unreachable before its replica
    takes over. ``binary`` is the ``redis-server`` to run (by default
    :func:`~server.redis_embedded.redis_server_binary`), with its ``redis-cli`` beside it.
    """

    def __init__(
        self,
        folder: str | Path,
        masters: int = 3,
        replicas: int = 0,
        node_timeout: int = 1000,
        fsync: str = "everysec",
        binary: str | None = None,
    ) -> None:
        self.binary = binary or redis_server_binary()
        self.folder = Path(folder).resolve()
        self.masters = masters
        self.replicas = replicas
        self.node_timeout = node_timeout
        self.fsync = fsync
        self.servers: list[ClusterServer] = []

    @property
    def url(self) -> str:
        """``redis+cluster://`` with every server as a startup node."""
        return "redis+cluster://" + ",".join(server.address for server in self.servers)

    def start(self, timeout: float = 30.0) -> str:
        count = self.masters * (1 + self.replicas)
        for index in range(count):
            folder = self.folder / f"server{index}"
            folder.mkdir(parents=True, exist_ok=True)
            server = ClusterServer(_cluster_port({s.port for s in self.servers}), folder)
            self._launch(server)
            self.servers.append(server)
        try:
            for server in self.servers:
                _wait_ping(server, timeout)
            created = subprocess.run(
                [
                    redis_cli_binary(self.binary),
                    "--cluster",
                    "create",
                    *(server.address for server in self.servers),
                    "--cluster-replicas",
                    str(self.replicas),
                    "--cluster-yes",
                ],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
            if created.returncode != 0:
                raise EmbeddedRedisError(f"redis-cli --cluster create failed: {created.stdout[-500:]}")
            self.wait_healthy(timeout)
        except BaseException:
            self.stop()
            raise
        return self.url

    def _launch(self, server: ClusterServer) -> None:
        args = [
            self.binary,
            "--port", str(server.port),
            "--bind", "127.0.0.1",
            "--dir", str(server.folder),
            "--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", str(self.node_timeout),
            "--appendonly", "yes",
            "--appendfsync", self.fsync,
            "--save", "",
            "--daemonize", "no",
            "--loglevel", "warning",
            "--logfile", str(server.folder / "redis.log"),
        ]  # fmt: skip
        server.process = spawn_redis(args)

    def wait_healthy(self, timeout: float = 30.0) -> None:
        """Until every live server says ``cluster_state:ok`` and every slot has a live master."""
        deadline = time.monotonic() + timeout
        while True:
            if self._healthy():
                return
            if time.monotonic() > deadline:
                raise EmbeddedRedisError("the cluster did not become healthy in time")
            time.sleep(0.05)

    def _healthy(self) -> bool:
        covered = 0
        for server in self.servers:
            if not server.alive():
                continue
            with server.client() as client:
                try:
                    if client.cluster("info").get("cluster_state") != "ok":
                        return False
                    if client.info("replication").get("role") == "master":
                        covered += _own_slots(client.execute_command("CLUSTER", "NODES"))
                except (redis.RedisError, OSError):
                    return False
        return covered == 16384

    def master_of(self, key: str) -> ClusterServer:
        """The live server that holds ``key``'s slot now."""
        owner = self.owner_of(key)
        if owner is None:
            raise EmbeddedRedisError(f"no live server answers for {key!r}")
        return owner

    def owner_of(self, key: str) -> ClusterServer | None:
        """The live server that holds ``key``'s slot now; None while none does (a failover
        under way)."""
        for server in self.servers:
            if not server.alive():
                continue
            with server.client() as client, contextlib.suppress(redis.RedisError, OSError):
                slot = int(client.execute_command("CLUSTER", "KEYSLOT", key))
                for start, end, host_port in _slot_owners(client.execute_command("CLUSTER", "SLOTS")):
                    owner = next(s for s in self.servers if s.address == host_port)
                    if start <= slot <= end and owner.alive():  # a view not yet past a failover
                        return owner
        return None

    def masters_alive(self) -> list[ClusterServer]:
        found = []
        for server in self.servers:
            if not server.alive():
                continue
            with server.client() as client, contextlib.suppress(redis.RedisError, OSError):
                if client.info("replication").get("role") == "master":
                    found.append(server)
        return found

    def kill(self, server: ClusterServer) -> None:
        """SIGKILL one server: no goodbye, as when its machine dies."""
        if server.process is not None:
            server.process.kill()
            server.process.wait(10)

    def restart(self, server: ClusterServer, timeout: float = 30.0) -> None:
        """Start a killed server again on its port and folder: it rejoins the cluster (a
        master that failed over comes back as its successor's replica)."""
        self._launch(server)
        _wait_ping(server, timeout)

    def move_slot(self, key: str, to: ClusterServer) -> None:
        """Move ``key``'s slot, with its keys, to the master ``to`` (a resharding of one
        slot, as ``redis-cli --cluster reshard`` does it): importing and migrating marks,
        ``MIGRATE`` of every key, then the new owner told to every master."""
        source = self.master_of(key)
        if source is to:
            return
        with source.client() as old, to.client() as new:
            slot = int(old.execute_command("CLUSTER", "KEYSLOT", key))
            old_id, new_id = old.execute_command("CLUSTER", "MYID"), new.execute_command("CLUSTER", "MYID")
            new.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", old_id)
            old.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", new_id)
            while moving := old.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 100):
                old.execute_command("MIGRATE", "127.0.0.1", to.port, "", 0, 5000, "KEYS", *moving)
            new.execute_command("CLUSTER", "SETSLOT", slot, "NODE", new_id)
            old.execute_command("CLUSTER", "SETSLOT", slot, "NODE", new_id)
        for master in self.masters_alive():
            if master not in (source, to):
                with master.client() as client:
                    client.execute_command("CLUSTER", "SETSLOT", slot, "NODE", new_id)

    def flush(self) -> None:
        """Remove every key from every master."""
        for server in self.masters_alive():
            with server.client() as client:
                client.flushall()

    def stop(self, grace: float = 3.0) -> None:
        """SIGTERM every server at once, and SIGKILL those still running ``grace``
        seconds later: a server writing its first append-only file (a replica just
        synced) refuses to exit meanwhile, and the cluster's data is thrown away."""
        running = []
        for server in self.servers:
            process, server.process = server.process, None
            if process is not None and process.poll() is None:
                process.terminate()
                running.append(process)
        deadline = time.monotonic() + grace
        for process in running:
            try:
                process.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.servers = []


def _cluster_port(taken: set[int]) -> int:
    """A free port whose cluster bus port (10,000 higher) is free too."""
    for _ in range(200):
        port = random.randrange(20000, 45000)
        if port in taken or port + 10000 in taken or port - 10000 in taken:
            continue
        try:
            for candidate in (port, port + 10000):
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
                    sock.bind(("127.0.0.1", candidate))
        except OSError:
            continue
        return port
    raise EmbeddedRedisError("no free pair of ports for a cluster server")


def _wait_ping(server: ClusterServer, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if not server.alive():
            raise EmbeddedRedisError(f"redis-server on {server.port} exited; see {server.folder}/redis.log")
        with server.client() as client, contextlib.suppress(redis.RedisError, OSError):
            if client.ping():
                return
        if time.monotonic() > deadline:
            raise EmbeddedRedisError(f"redis-server on {server.port} did not answer in time")
        time.sleep(0.02)


def _slot_owners(reply: list[list[object]]) -> list[tuple[int, int, str]]:
    """``CLUSTER SLOTS`` as (first slot, last slot, master host:port)."""
    owners = []
    for entry in reply:
        start, end, master = int(str(entry[0])), int(str(entry[1])), entry[2]
        assert isinstance(master, list)
        owners.append((start, end, f"{master[0]}:{master[1]}"))
    return owners


def _own_slots(nodes: str) -> int:
    """The slots the server answering ``CLUSTER NODES`` (its ``myself`` line) holds."""
    for line in nodes.splitlines():
        fields = line.split()
        if len(fields) > 8 and "myself" in fields[2]:
            total = 0
            for part in fields[8:]:
                if part.startswith("["):
                    continue  # a slot being migrated
                first, _, last = part.partition("-")
                total += int(last or first) - int(first) + 1
            return total
    return 0


def redis_7_server() -> str | None:
    """A ``redis-server`` of Redis 7 or newer (sharded pub/sub) with its ``redis-cli``
    beside it: ``$SA_REDIS_7`` or the one on PATH (Debian's package); None when there is
    none (the embedded one is 6.2)."""
    candidates = [os.environ.get("SA_REDIS_7", ""), shutil.which("redis-server") or ""]
    for binary in filter(None, candidates):
        try:
            printed = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10).stdout
        except OSError:
            continue
        found = re.search(r"v=(\d+)\.", printed)
        if found and int(found.group(1)) >= 7 and Path(binary).with_name("redis-cli").is_file():
            return binary
    return None

"""What acking a move only after ``WAIT 1`` would cost: the MOVE script's batches on a
master with one replica, with and without ``WAIT 1`` after each batch.

    .venv/bin/python bench/wait.py --seconds 10

Starts a Redis Cluster of three masters with a replica each on loopback (the same
``redis-server`` as everywhere else), seeds running races on one master, and drives the
store's own MOVE script the way a node does: ``--writers`` concurrent writers, each
batch packed in one write on one connection per writer, flat out. Each run prints
batches/s, moves/s and the batch latency; the ``WAIT`` run adds the replica's
acknowledgement to every batch. It also samples the replica's lag in bytes during the
plain run (how far behind an ack can be).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import redis.asyncio as aioredis  # noqa: E402

from server.local_cluster import LocalCluster  # noqa: E402
from server.store import keys, scripts  # noqa: E402
from server.store.batch import _pack_evalsha  # noqa: E402

POSITION = "x" * 400  # about the size of a stored position


def move_args(player: str, seq: int, now: int) -> list[str | int]:
    """The MOVE script's ARGV for a plain move (a fake position of the usual size)."""
    ack = f'{{"type":"move_ack","seq":{seq}}}'
    return [player, seq, "t1>r5", POSITION, seq, 0, "0", now, ack, "{}", "ch", "n1", "t1>r5", "1", "wch"]


async def seed(client: Any, prefix: str, races: int) -> list[str]:
    """Running races of one racer each (a MOVE call's keys) on the master ``client`` talks
    to, their ids."""
    ids: list[str] = []
    now = int(time.time() * 1000)
    myself = await client.execute_command("CLUSTER", "MYID")
    slots = [
        (int(s[0]), int(s[1])) for s in await client.execute_command("CLUSTER", "SLOTS") if s[2][2] == myself
    ]
    for number in itertools.count():
        if len(ids) == races:
            break
        race_id = f"{prefix}-{number}"
        slot = int(await client.execute_command("CLUSTER", "KEYSLOT", keys.race_meta(race_id)))
        if not any(first <= slot <= last for first, last in slots):
            continue
        await seed_race(client, race_id, now)
        ids.append(race_id)
    return ids


async def seed_race(client: Any, race_id: str, now: int) -> None:
    """A running race of one racer, ``p``, at seq 0: what a MOVE call needs."""
    await client.hset(
        keys.race_meta(race_id),
        mapping={"status": "running", "starts_at": now, "ends_at": now + 3_600_000, "racer_count": 1},
    )
    await client.hset(keys.race_board(race_id, "p"), mapping={"seq": 0, "position": POSITION})


async def writer(
    port: int,
    sha: str,
    races: list[str],
    batch: int,
    wait: bool,
    stop_at: float,
    out: list[float],
) -> int:
    """One connection writing batches of moves flat out; the moves written."""
    connection = aioredis.Redis(host="127.0.0.1", port=port)
    raw = await connection.connection_pool.get_connection()  # type: ignore[no-untyped-call]
    seqs = dict.fromkeys(races, 0)
    moves = 0
    try:
        while time.monotonic() < stop_at:
            now = int(time.time() * 1000)
            packed = []
            for race_id in races[:batch]:
                seqs[race_id] += 1
                script_keys = keys.move_keys(race_id, "p")
                packed.append(_pack_evalsha(sha, script_keys, move_args("p", seqs[race_id], now)))
            count = len(packed)
            if wait:
                packed.append(b"*3\r\n$4\r\nWAIT\r\n$1\r\n1\r\n$3\r\n100\r\n")
            started = time.perf_counter()
            await raw.send_packed_command(b"".join(packed))
            for _ in range(len(packed)):
                reply = await raw.read_response()
            out.append(time.perf_counter() - started)
            if wait and reply != 1:
                raise RuntimeError(f"WAIT answered {reply}: the replica did not confirm in time")
            moves += count
    finally:
        await connection.connection_pool.release(raw)
        await connection.aclose()
    return moves


async def run(master: tuple[str, int], replica: tuple[str, int], args: argparse.Namespace, wait: bool) -> str:
    client = aioredis.Redis(host=master[0], port=master[1], decode_responses=True)
    sha = await client.script_load(scripts.MOVE.source)
    per_writer = [await seed(client, f"{int(wait)}-{index}", args.batch) for index in range(args.writers)]
    lags: list[int] = []
    latencies: list[float] = []
    stop_at = time.monotonic() + args.seconds

    async def sample_lag() -> None:
        replica_client = aioredis.Redis(host=replica[0], port=replica[1], decode_responses=True)
        while time.monotonic() < stop_at:
            master_offset = int((await client.info("replication"))["master_repl_offset"])
            replica_offset = int((await replica_client.info("replication"))["slave_repl_offset"])
            lags.append(max(0, master_offset - replica_offset))
            await asyncio.sleep(0.05)
        await replica_client.aclose()

    sampler = asyncio.create_task(sample_lag())
    counts = await asyncio.gather(
        *(writer(master[1], sha, races, args.batch, wait, stop_at, latencies) for races in per_writer)
    )
    await sampler
    await client.aclose()
    moves = sum(counts)
    latencies.sort()
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[int(len(latencies) * 0.99)] * 1000
    lag = f"{statistics.median(lags):.0f} / {max(lags)}" if lags else "-"
    name = "WAIT 1 after each batch" if wait else "ack when the master has it"
    return (
        f"| {name:<28} | {len(latencies) / args.seconds:9.0f} | {moves / args.seconds:9.0f} "
        f"| {p50:6.2f} | {p99:6.2f} | {lag:>13} |"
    )


def replica_port(master_port: int, cluster: LocalCluster) -> int:
    for server in cluster.servers:
        with server.client() as client:
            info = client.info("replication")
            if info.get("role") == "slave" and int(info["master_port"]) == master_port:
                return server.port
    raise RuntimeError("the master has no replica")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--writers", type=int, default=2, help="concurrent batches (a node runs 2)")
    parser.add_argument("--batch", type=int, default=32, help="moves per batch")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="arena-wait-") as tmp:
        cluster = LocalCluster(tmp, masters=3, replicas=1)
        cluster.start()
        try:
            master = next(s for s in cluster.servers if s in cluster.masters_alive())
            replica = next(s for s in cluster.servers if s.port == replica_port(master.port, cluster))
            rows = [
                asyncio.run(run(("127.0.0.1", master.port), ("127.0.0.1", replica.port), args, wait))
                for wait in (False, True)
            ]
        finally:
            cluster.stop()
    print(f"MOVE script, {args.writers} writers x {args.batch} moves per batch, {args.seconds:g} s each\n")
    print("| run                          | batches/s |   moves/s | p50 ms | p99 ms | lag B p50/max |")
    print("|------------------------------|-----------|-----------|--------|--------|---------------|")
    for line in rows:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Load benchmark: N simulated racers against a real server, then a bare echo baseline.

    .venv/bin/python bench/load.py --racers 1000 --seconds 10

Starts a private redis-server and a ``solitaire-arena serve`` process (loopback
only), seats the racers two by two in Eight Off races, and lets each play random
legal moves (one in flight per racer) for a fixed time. Then it starts a bare
``websockets`` echo server process and drives it with the same client loop. Prints
accepted moves/s, ack latency p50/p99, and the ratio to the echo baseline.
Everything is bounded in time and stops by itself.

All races start at the same instant, so the first ``--warmup`` seconds (default
2; every racer's first move loads its board into the node's cache) are not counted.
Options: ``--think S`` makes each racer pause 0.5-1.5 x S seconds after each ack
(latency at a given load instead of flat out); ``--server-metrics`` prints the server's own move
latency histogram; ``--redis-stats`` prints Redis command counts and latency events;
``--profile PATH`` runs the server under cProfile. ``BENCH_FSYNC`` sets the private
Redis's appendfsync (default everysec). Racers keep a game going by playing random
legal moves and, when those would fill the reserve, moving a reserve card between
empty cells (legal, and it exercises the same path as any other move).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from server.redis_embedded import EmbeddedRedis, free_port  # noqa: E402
from shared import Game, from_position  # noqa: E402

_RANKS = "A23456789TJQK"
_RESERVE = tuple(f"r{i}" for i in range(1, 9))
#: Seconds between two moves of one racer (0: as fast as the acks come back).
THINK = [0.0]
#: Seconds after the start not counted: every racer's first move misses the board cache.
WARMUP = [0.0]

ECHO_SERVER = """
import asyncio, sys
from websockets.asyncio.server import serve

async def echo(ws):
    async for message in ws:
        await ws.send(message)

async def main():
    async with serve(echo, "127.0.0.1", int(sys.argv[1]), compression=None):
        print("ready", flush=True)
        await asyncio.get_running_loop().create_future()

asyncio.run(main())
"""


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    accepted: int = 0
    rejected: int = 0
    #: Moves sent before this moment (the warm-up) are not counted.
    counting_from: float = 0.0


def board_from_view(view: dict[str, Any]) -> Game:
    """An Eight Off game from a view: every card is face up; foundations show their top."""
    piles: dict[str, list[str]] = {}
    for name, pile in view["piles"].items():
        cards = list(pile["cards"])
        if name.startswith("f") and cards:
            top = cards[-1]
            cards = [rank + top[1] for rank in _RANKS[: _RANKS.index(top[0]) + 1]]
        piles[name] = cards
    game = from_position({"game": view["game"], "piles": piles})
    game.move_count = int(view.get("move_count", 0))
    return game


class Wire:
    """A lean msgpack client: requests by id, events kept aside."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.ids = itertools.count(1)
        self.events: list[dict[str, Any]] = []

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        message["id"] = next(self.ids)
        await self.ws.send(msgpack.packb(message))
        while True:
            reply: dict[str, Any] = msgpack.unpackb(await self.ws.recv())
            if reply.get("id") == message["id"]:
                if reply.get("type") == "error" and message["type"] != "move":
                    raise RuntimeError(f"{message['type']}: {reply['code']}: {reply['message']}")
                return reply
            self.events.append(reply)

    async def event(self, kind: str, timeout: float = 30.0) -> dict[str, Any]:
        for event in self.events:
            if event.get("type") == kind:
                self.events.remove(event)
                return event
        async with asyncio.timeout(timeout):
            while True:
                event = msgpack.unpackb(await self.ws.recv())
                if event.get("type") == kind:
                    return dict(event)


async def new_race(wires: list[Wire], time_limit: float) -> list[tuple[Wire, str, Game]]:
    """Seat both racers of a pair in a new race; returns once both saw the start."""
    race = (
        await wires[0].request(
            {"type": "create_race", "game": "eight-off", "seats": 2, "time_limit": time_limit}
        )
    )["race"]
    await wires[1].request({"type": "join_race", "code": race["code"]})
    for wire in wires:
        await wire.request({"type": "ready", "race_id": race["race_id"]})
    seated = []
    for wire in wires:
        started = await wire.event("race_started")
        seated.append((wire, race["race_id"], board_from_view(started["view"])))
    return seated


def pick_move(game: Game, rng: random.Random) -> str | None:
    """A random legal move that keeps the game going: real moves while they do not fill
    the reserve, otherwise a reserve card shuffled between empty cells (always legal)."""
    moves = game.legal_moves()
    free = sum(1 for name in _RESERVE if not game.piles[name])
    shuffles = [m for m in moves if m[0] == "r" and ">r" in m]
    real = [m for m in moves if m not in shuffles and not (">r" in m and free <= 2)]
    if real and (not shuffles or rng.random() < 0.5):
        return rng.choice(real)
    return rng.choice(shuffles) if shuffles else None


async def play(
    wire: Wire, race_id: str, game: Game, stop_at: float, tally: Tally, rng: random.Random
) -> None:
    """Random legal moves until stuck (then give up), won, or out of time."""
    seq = 0
    pace = THINK[0]
    if pace:
        await asyncio.sleep(rng.random() * pace)  # spread the racers over the period
    while time.perf_counter() < stop_at:
        if pace:
            await asyncio.sleep(pace * (0.5 + rng.random()))  # a racer thinks between moves
        move = pick_move(game, rng)
        if move is None:
            break
        game.play(move)
        seq += 1
        sent = time.perf_counter()
        reply = await wire.request({"type": "move", "race_id": race_id, "seq": seq, "move": move})
        if reply.get("type") == "move_ack":
            if sent >= tally.counting_from:
                tally.accepted += 1
                tally.latencies.append(time.perf_counter() - sent)
            if reply.get("finished"):
                return
        else:
            tally.rejected += 1
            break
    if time.perf_counter() < stop_at:  # stuck: give up and race again (at the end: just stop)
        await wire.request({"type": "finish", "race_id": race_id})


async def pair_loop(
    url: str,
    index: int,
    ready: asyncio.Event,
    clock: list[float],
    tally: Tally,
    count: list[int],
    opened: list[Wire],
) -> None:
    """Two racers racing each other again and again until the time is up."""
    wires = [Wire(await connect(url, compression=None, max_queue=None)) for _ in range(2)]
    try:
        for i, wire in enumerate(wires):
            await wire.request({"type": "hello", "name": f"bot{index}-{i}"})
        seated = await new_race(wires, 600)  # the first race is set up before the clock runs
        count[0] += 1
        await ready.wait()
        rng = random.Random(index)
        while time.perf_counter() < clock[0]:
            await asyncio.gather(
                *(play(w, r, g, clock[0], tally, random.Random(rng.random())) for w, r, g in seated)
            )
            for wire in wires:
                wire.events.clear()
            if time.perf_counter() < clock[0]:
                seated = await new_race(wires, 600)
    finally:
        opened.extend(wires)  # closed once every racer stopped, not during the run


async def echo_loop(ws: ClientConnection, stop_at: float, tally: Tally) -> None:
    wire = Wire(ws)
    seq = 0
    while time.perf_counter() < stop_at:
        seq += 1
        sent = time.perf_counter()
        await wire.request({"type": "move", "race_id": "r", "seq": seq, "move": "t1>r5"})
        tally.accepted += 1
        tally.latencies.append(time.perf_counter() - sent)


async def run_server_bench(url: str, racers: int, seconds: float) -> tuple[Tally, float]:
    tally = Tally()
    ready = asyncio.Event()
    clock = [float("inf")]
    seated = [0]
    opened: list[Wire] = []
    tasks = []
    for start in range(0, racers // 2, 50):  # connect in batches to bound the burst
        tasks += [
            asyncio.create_task(pair_loop(url, i, ready, clock, tally, seated, opened))
            for i in range(start, min(start + 50, racers // 2))
        ]
        await asyncio.sleep(0.05)
    setup_deadline = time.perf_counter() + 120
    while seated[0] < len(tasks) and time.perf_counter() < setup_deadline:
        await asyncio.sleep(0.1)
    began = time.perf_counter()
    tally.counting_from = began + WARMUP[0]
    clock[0] = tally.counting_from + seconds
    ready.set()
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - tally.counting_from
    await asyncio.gather(*(wire.ws.close() for wire in opened))
    return tally, elapsed


async def run_echo_bench(url: str, clients: int, seconds: float) -> tuple[Tally, float]:
    sockets = [await connect(url, compression=None) for _ in range(clients)]
    tally = Tally()
    began = time.perf_counter()
    await asyncio.gather(*(echo_loop(ws, began + seconds, tally) for ws in sockets))
    elapsed = time.perf_counter() - began
    for ws in sockets:
        await ws.close()
    return tally, elapsed


def wait_line(process: subprocess.Popen[str], needle: str, timeout: float = 30) -> None:
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if needle in line:
            return
        if not line and process.poll() is not None:
            break
    raise RuntimeError(f"process did not print {needle!r}")


def row(name: str, tally: Tally, elapsed: float) -> dict[str, float]:
    lat = sorted(tally.latencies) or [0.0]
    return {
        "name": name,  # type: ignore[dict-item]
        "rate": tally.accepted / elapsed,
        "p50": statistics.median(lat) * 1000,
        "p99": lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000,
        "count": tally.accepted,
        "rejected": tally.rejected,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--racers", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument(
        "--think", type=float, default=0.0, help="a racer's mean pause after each ack (0: flat out)"
    )
    parser.add_argument("--server-metrics", action="store_true", help="print the server's move latency")
    parser.add_argument(
        "--warmup", type=float, default=2.0, help="seconds of racing not counted at the start"
    )
    parser.add_argument("--redis-stats", action="store_true", help="print Redis command counts")
    parser.add_argument("--server-log", help="write the server's log here")
    parser.add_argument("--profile", help="write a cProfile of the server process here")
    args = parser.parse_args(argv)
    racers = max(2, args.racers - args.racers % 2)
    THINK[0] = max(0.0, args.think)
    WARMUP[0] = min(max(0.0, args.warmup), 30.0)
    seconds = min(max(args.seconds, 1.0), 120.0)

    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        redis_server = EmbeddedRedis(Path(tmp) / "redis", fsync=os.environ.get("BENCH_FSYNC", "everysec"))
        redis_url = redis_server.start()
        if args.redis_stats:
            import redis as redis_sync

            redis_sync.Redis.from_url(redis_url).config_set("latency-monitor-threshold", 20)
        port = free_port()
        log_file = open(args.server_log or os.devnull, "w")  # noqa: SIM115
        env = {
            **os.environ,
            "SA_RATE_LIMIT": "100000",
            "SA_RATE_BURST": "100000",
            "SA_COUNTDOWN": "0",
            "SA_CLOCK_TICK": "0.01",
            "SA_LOG_LEVEL": "WARNING",
            "PYTHONPATH": str(ROOT),
        }
        node = subprocess.Popen(
            [sys.executable, *(["-m", "cProfile", "-o", args.profile] if args.profile else []),
             "-m", "server.cli", "serve", "--port", str(port),
             "--redis-url", redis_url],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=log_file, text=True,
        )  # fmt: skip
        try:
            wait_line(node, "listening on")
            arena, arena_time = asyncio.run(run_server_bench(f"ws://127.0.0.1:{port}", racers, seconds))
            if args.server_metrics:
                import urllib.request

                with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
                    for line in reply.read().decode().splitlines():
                        if line.startswith("arena_move_latency_seconds_bucket"):
                            print(line)
            if args.redis_stats:
                import redis as redis_sync

                probe = redis_sync.Redis.from_url(redis_url)
                latest = probe.execute_command("LATENCY", "LATEST")  # type: ignore[no-untyped-call]
                print("redis latency events:", latest)
                print("redis slowlog:", probe.slowlog_get(5))
                stats = probe.info("commandstats")
                for name, value in sorted(stats.items(), key=lambda kv: -kv[1]["calls"])[:12]:
                    print(f"{name:28s} {value['calls']:>8}")
        finally:
            node.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                node.wait(15)
            redis_server.stop()

    echo_port = free_port()
    echo = subprocess.Popen(
        [sys.executable, "-c", ECHO_SERVER, str(echo_port)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        wait_line(echo, "ready")
        baseline, echo_time = asyncio.run(run_echo_bench(f"ws://127.0.0.1:{echo_port}", racers, seconds))
    finally:
        echo.kill()
        echo.wait()

    rows = [row("arena (server + redis)", arena, arena_time),
            row("bare websockets echo", baseline, echo_time)]  # fmt: skip
    pace = f"each racer thinks ~{THINK[0]:g} s between moves" if THINK[0] else "one move in flight per racer"
    print(f"\n{racers} connected racers, {seconds:.0f} s after {WARMUP[0]:g} s warm-up, {pace}\n")
    print(f"| {'run':<24} | {'moves/s':>9} | {'p50 ms':>7} | {'p99 ms':>7} | {'moves':>8} |")
    print(f"|{'-' * 26}|{'-' * 11}|{'-' * 9}|{'-' * 9}|{'-' * 10}|")
    for r in rows:
        print(f"| {r['name']:<24} | {r['rate']:>9.0f} | {r['p50']:>7.2f} | {r['p99']:>7.2f} "
              f"| {r['count']:>8.0f} |")  # fmt: skip
    ratio = rows[0]["rate"] / rows[1]["rate"] if rows[1]["rate"] else 0.0
    print(f"\nratio to echo: {ratio:.2f}   (rejected moves: {arena.rejected})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

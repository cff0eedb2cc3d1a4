"""Load benchmark: N simulated racers against a real server, then a bare echo baseline.

    .venv/bin/python bench/load.py --racers 1000 --seconds 10

Starts a private redis-server and a ``solitaire-arena serve`` process (loopback
only), seats the racers two by two in Eight Off races, and runs two scenarios
against that one server process, each with every racer connected:

- **flat out**: one move in flight per racer, sent as soon as the last ack came
  back. Its moves/s is the server's capacity; its latency is mostly queueing.
- **paced**: each racer thinks 0.5-1.5 x T seconds between moves, with T chosen so
  the offered load is ``--load`` (default 0.5) of the flat-out capacity just
  measured (or ``--think T``). Its p99 is the ack latency at a load the server
  sustains, the figure the p99 target is about.

Then it starts a bare ``websockets`` echo server process and drives it flat out with
the same client code (the same connection options, event loop and request loop).
Prints one table with the three runs, the ratio of the flat-out move rate to the echo
rate, and the targets. Everything is bounded in time and stops by itself.

All races of a scenario start at the same instant, so the first ``--warmup`` seconds
(default 2; every racer's first move loads its board into the node's cache) are not
counted. The client is kept lean so that it measures the server, not itself: it uses
uvloop when installed (for the echo run too), and the two racers of a race share one
precomputed script of random legal moves for their identical deal (random legal moves
while they do not fill the reserve, otherwise a reserve card moved between empty cells:
legal, and the same path as any other move), so move generation mostly happens before
the clock runs. The client pauses its own garbage collector while it measures (its
pauses would otherwise count as server latency). Options: ``--bots N`` then runs N of
the project's bots (``client/bots``, random strategy) racing each other by quick match
and prints their races, moves/s and ack latency; ``--legal-moves`` adds a
flat-out run whose racers ask for legal moves with every view (its CPU per move against
the plain flat-out run is their cost); ``--server-metrics`` prints
the server's own move latency histogram; ``--redis-stats`` prints Redis command counts
and latency events; ``--profile PATH`` runs the server under cProfile; ``--spectators N``
first runs one race's two racers alone, then with N spectators watching it (from a
process of their own), and prints the racers' ack latency both ways and the server's
memory per spectator (``--only-spectators``: that alone); ``--echo uvloop`` runs the
echo server on uvloop, as the node runs, instead of asyncio's own loop, and ``--echo
sans-io`` on websockets' Sans-I/O protocol (what a leaner transport could gain);
``--rounds N`` runs N - 1 more flat-out runs, each followed by an echo run of its own,
and prints each round's ratio and their median (a machine whose speed drifts compares a
node and an echo measured side by side); each of those runs waits until the node is idle
(it takes a second or more over 1,000 racers leaving), and the table says how busy the
node was during each echo run. ``BENCH_FSYNC`` sets the private Redis's
appendfsync (default everysec); it never rewrites its append-only file during the runs
unless ``BENCH_AOF_REWRITE`` is set.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import itertools
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import msgpack
from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from client.bots import Bot, RandomStrategy  # noqa: E402
from client.sdk import ArenaClient  # noqa: E402
from server.cli import loop_factory  # noqa: E402
from server.redis_embedded import EmbeddedRedis, free_port  # noqa: E402
from shared import Game, from_position  # noqa: E402
from shared.protocol import MoveAck  # noqa: E402

_RANKS = "A23456789TJQK"
_RESERVE = tuple(f"r{i}" for i in range(1, 9))
#: Moves per racer computed before the clock runs (more are computed when needed): enough
#: for a whole run here (about 130 a racer flat out over warm-up and 8 s, 70 paced), as a
#: move computed while the clock runs takes the load generator's CPU from the node on a
#: small machine, and delays the acks it reads meanwhile.
_SCRIPT_AHEAD_FLAT = 250
_SCRIPT_AHEAD_PACED = 120
#: How a progress event's msgpack begins after its map's one-byte header: its first field
#: (the node writes ``type`` first). The load generator skips these unread, as a move's
#: request waits for its ack: on a 2-core machine its CPU is taken from the node.
_PROGRESS = msgpack.packb("type") + msgpack.packb("progress")

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

if sys.argv[2:] == ["uvloop"]:
    import uvloop
    uvloop.run(main())
else:
    asyncio.run(main())
"""

#: The same echo on websockets' Sans-I/O protocol, driven straight from an asyncio
#: protocol on uvloop: no task, queue or lock per message. What a leaner transport than
#: websockets' asyncio connection could gain.
SANS_IO_ECHO_SERVER = """
import asyncio, sys
import uvloop
from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.server import ServerProtocol

class Echo(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport = transport
        self.ws = ServerProtocol()

    def data_received(self, data):
        ws = self.ws
        ws.receive_data(data)
        for event in ws.events_received():
            if isinstance(event, Request):
                ws.send_response(ws.accept(event))
            elif isinstance(event, Frame) and event.opcode is Opcode.BINARY:
                ws.send_binary(event.data)
            elif isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                ws.send_text(event.data)
        for chunk in ws.data_to_send():
            if chunk:
                self.transport.write(chunk)
            else:
                self.transport.close()

async def main():
    await asyncio.get_running_loop().create_server(Echo, "127.0.0.1", int(sys.argv[1]), backlog=2048)
    print("ready", flush=True)
    await asyncio.get_running_loop().create_future()

uvloop.run(main())
"""


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    accepted: int = 0
    rejected: int = 0
    #: Moves sent before this moment (the warm-up) are not counted.
    counting_from: float = 0.0
    #: CPU seconds the server process used while moves were counted (None: unknown).
    server_cpu: float | None = None
    #: Races set up after the clock started (a game got stuck or won): per-race work
    #: (create, join, ready, deal, end) the server did besides moves.
    races: int = 0


@dataclass(frozen=True)
class Scenario:
    name: str
    #: A racer's mean pause after each ack (0: flat out).
    think: float
    seconds: float
    warmup: float
    #: Racers ask at hello for each view's legal moves.
    legal_moves: bool = False
    #: Racers ask at hello for acks with only the piles their move changed (as every
    #: client of the project does).
    changed_piles: bool = True


#: A node under load from one address: no per-address or per-connection limits, races
#: start at once, and the clock looks often.
BENCH_NODE_ENV = {
    "SA_RATE_LIMIT": "100000",
    "SA_RATE_BURST": "100000",
    "SA_MAX_CONNECTIONS_PER_ADDRESS": "0",
    "SA_CONNECT_RATE": "0",
    "SA_NEW_PLAYER_RATE": "0",
    "SA_CREATE_RATE": "0",
    "SA_COUNTDOWN": "0",
    "SA_CLOCK_TICK": "0.01",
    "SA_LOG_LEVEL": "WARNING",
}


def start_bench_node(
    redis_url: str, extra_env: dict[str, str] | None = None, entry: tuple[str, ...] = ("-m", "server.cli")
) -> tuple[subprocess.Popen[str], int]:
    """A ``solitaire-arena serve`` process on ``redis_url`` with :data:`BENCH_NODE_ENV`
    (and ``extra_env``), once it listens: the process and its port. ``entry`` is what
    Python runs, given ``serve`` and its options. Its log goes to
    ``$BENCH_SERVER_LOG.<port>`` when that variable is set."""
    port = free_port()
    env = {**os.environ, **BENCH_NODE_ENV, **(extra_env or {}), "PYTHONPATH": str(ROOT)}
    log_to = os.environ.get("BENCH_SERVER_LOG")
    log_file = open(f"{log_to}.{port}" if log_to else os.devnull, "w")  # noqa: SIM115
    node = subprocess.Popen(
        [sys.executable, *entry, "serve", "--port", str(port), "--redis-url", redis_url],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=log_file,
        text=True,
    )
    log_file.close()  # the child has its own copy
    wait_line(node, "listening on")
    return node, port


def stop_bench_node(node: subprocess.Popen[str]) -> None:
    node.terminate()
    with contextlib.suppress(subprocess.TimeoutExpired):
        node.wait(15)


def process_cpu(pid: int | None) -> float | None:
    """CPU seconds (user + system) a process has used so far; None where /proc is not."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


R = TypeVar("R")


def run_client(coro: Coroutine[Any, Any, R]) -> R:
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(coro)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The client's own garbage collector off while it measures: its pauses (up to a
    tenth of a second with a thousand racers) would count as server latency. What it
    allocates in one bounded run is freed by reference counting or collected after."""
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()


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
            frame = await self.ws.recv()
            if isinstance(frame, bytes) and frame.startswith(_PROGRESS, 1):
                continue  # an opponent's progress (no racer here reads them): not unpacked
            reply: dict[str, Any] = msgpack.unpackb(frame)
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


def connect_options() -> dict[str, Any]:
    """One set of connection options for the arena and the echo runs."""
    return {"compression": None, "max_queue": None}


class Script:
    """The moves both racers of a race play on their identical deal, computed once
    (by :func:`pick_move`) and extended as the racers need more."""

    def __init__(self, game: Game, rng: random.Random) -> None:
        self.game = game
        self.rng = rng
        self.moves: list[str] = []
        self.over = False

    def move(self, index: int) -> str | None:
        while len(self.moves) <= index and not self.over:
            move = pick_move(self.game, self.rng)
            if move is None:
                self.over = True
                break
            if self.game.play(move).won:
                self.over = True
            self.moves.append(move)
        return self.moves[index] if index < len(self.moves) else None


async def new_race(wires: list[Wire], time_limit: float) -> tuple[str, Game]:
    """Seat both racers of a pair in a new race; returns once both saw the start."""
    race = (
        await wires[0].request(
            {"type": "create_race", "game": "eight-off", "seats": 2, "time_limit": time_limit}
        )
    )["race"]
    await wires[1].request({"type": "join_race", "code": race["code"]})
    for wire in wires:
        await wire.request({"type": "ready", "race_id": race["race_id"]})
    views = [(await wire.event("race_started"))["view"] for wire in wires]
    return race["race_id"], board_from_view(views[0])


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
    wire: Wire, race_id: str, script: Script, stop_at: float, tally: Tally, think: float, rng: random.Random
) -> None:
    """The script's moves until it runs out (then give up), won, or out of time."""
    seq = 0
    if think:
        await asyncio.sleep(rng.random() * think)  # spread the racers over the period
    while time.perf_counter() < stop_at:
        if think:
            await asyncio.sleep(think * (0.5 + rng.random()))  # a racer thinks between moves
        move = script.move(seq)
        if move is None:
            break
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
    url: str | tuple[str, str],
    index: int,
    scenario: Scenario,
    ready: asyncio.Event,
    clock: list[float],
    tally: Tally,
    count: list[int],
    opened: list[Wire],
) -> None:
    """Two racers racing each other again and again until the time is up (both on the
    node at ``url``, or one on each of two nodes)."""
    urls = (url, url) if isinstance(url, str) else url
    wires = [Wire(await connect(address, **connect_options())) for address in urls]
    try:
        for i, wire in enumerate(wires):
            hello = {
                "type": "hello",
                "name": f"bot{index}-{i}",
                "legal_moves": scenario.legal_moves,
                "changed_piles": scenario.changed_piles,
            }
            await wire.request(hello)
        rng = random.Random(index)
        # The first race is set up, and its first moves computed, before the clock runs.
        race_id, game = await new_race(wires, 600)
        script = Script(game, random.Random(rng.random()))
        script.move((_SCRIPT_AHEAD_PACED if scenario.think else _SCRIPT_AHEAD_FLAT) - 1)
        count[0] += 1
        await ready.wait()
        while time.perf_counter() < clock[0]:
            await asyncio.gather(
                *(
                    play(wire, race_id, script, clock[0], tally, scenario.think, random.Random(rng.random()))
                    for wire in wires
                )
            )
            for wire in wires:
                wire.events.clear()
            if time.perf_counter() < clock[0]:
                race_id, game = await new_race(wires, 600)
                tally.races += 1
                script = Script(game, random.Random(rng.random()))
    finally:
        opened.extend(wires)  # closed once every racer stopped, not during the run


async def echo_loop(wire: Wire, stop_at: float, tally: Tally) -> None:
    seq = 0
    while time.perf_counter() < stop_at:
        seq += 1
        sent = time.perf_counter()
        await wire.request({"type": "move", "race_id": "r", "seq": seq, "move": "t1>r5"})
        tally.accepted += 1
        tally.latencies.append(time.perf_counter() - sent)


async def run_server_bench(
    url: str | list[str],
    racers: int,
    scenario: Scenario,
    server_pid: int | None = None,
    when_counting: Callable[[], object] | None = None,
    across: bool = False,
) -> tuple[Tally, float]:
    """The racers of ``scenario`` on the node at ``url`` (or spread over several nodes:
    both racers of pair ``i`` on the ``i``-th, round the list; ``across``: its first
    racer there and its second on the next, so every move crosses nodes by pub/sub).
    ``when_counting`` is called as the counted seconds begin (after the warm-up)."""
    urls = [url] if isinstance(url, str) else url
    tally = Tally()
    ready = asyncio.Event()
    clock = [float("inf")]
    seated = [0]
    opened: list[Wire] = []
    tasks = []
    for start in range(0, racers // 2, 50):  # connect in batches to bound the burst
        tasks += [
            asyncio.create_task(
                pair_loop(
                    (urls[i % len(urls)], urls[(i + 1) % len(urls)]) if across else urls[i % len(urls)],
                    i,
                    scenario,
                    ready,
                    clock,
                    tally,
                    seated,
                    opened,
                )
            )
            for i in range(start, min(start + 50, racers // 2))
        ]
        await asyncio.sleep(0.05)
    setup_deadline = time.perf_counter() + 120
    while seated[0] < len(tasks) and time.perf_counter() < setup_deadline:
        await asyncio.sleep(0.1)
    print(f"{scenario.name}: {seated[0] * 2} racers seated, racing", file=sys.stderr, flush=True)
    began = time.perf_counter()
    tally.counting_from = began + scenario.warmup
    clock[0] = tally.counting_from + scenario.seconds
    cpu: list[float | None] = []
    loop = asyncio.get_running_loop()
    for moment in (scenario.warmup, scenario.warmup + scenario.seconds):
        loop.call_later(moment, lambda: cpu.append(process_cpu(server_pid)))
    if when_counting is not None:
        loop.call_later(scenario.warmup, when_counting)
    with collector_paused():
        ready.set()
        await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - tally.counting_from
    if len(cpu) == 2 and cpu[0] is not None and cpu[1] is not None:
        tally.server_cpu = cpu[1] - cpu[0]
    await asyncio.gather(*(wire.ws.close() for wire in opened))
    return tally, elapsed


async def run_echo_bench(
    url: str, clients: int, seconds: float, server_pid: int | None = None
) -> tuple[Tally, float]:
    wires = [Wire(await connect(url, **connect_options())) for _ in range(clients)]
    print("echo: racing", file=sys.stderr, flush=True)
    tally = Tally()
    began = time.perf_counter()
    cpu = process_cpu(server_pid)
    with collector_paused():
        await asyncio.gather(*(echo_loop(wire, began + seconds, tally) for wire in wires))
    elapsed = time.perf_counter() - began
    after = process_cpu(server_pid)
    if cpu is not None and after is not None:
        tally.server_cpu = after - cpu
    await asyncio.gather(*(wire.ws.close() for wire in wires))
    return tally, elapsed


def measure_echo(clients: int, seconds: float, kind: str = "asyncio") -> tuple[Tally, float]:
    """A bare websockets echo server, in a process of its own, driven flat out by
    ``clients`` connections. ``kind``: websockets' asyncio server on asyncio's own loop
    (its default), the same on uvloop, or its Sans-I/O protocol on uvloop (``sans-io``)."""
    port = free_port()
    script = SANS_IO_ECHO_SERVER if kind == "sans-io" else ECHO_SERVER
    echo = subprocess.Popen(
        [sys.executable, "-c", script, str(port), kind],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        wait_line(echo, "ready")
        return run_client(run_echo_bench(f"ws://127.0.0.1:{port}", clients, seconds, echo.pid))
    finally:
        echo.kill()
        echo.wait()


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


@dataclass(frozen=True)
class Row:
    name: str
    offered: str
    rate: float
    p50: float
    p99: float
    count: int
    #: Server CPU microseconds per counted move ("-": not measured).
    cpu_us: str


def row(name: str, offered: str, tally: Tally, elapsed: float) -> Row:
    lat = sorted(tally.latencies) or [0.0]
    return Row(
        name=name,
        offered=offered,
        rate=tally.accepted / elapsed,
        p50=statistics.median(lat) * 1000,
        p99=lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000,
        count=tally.accepted,
        cpu_us=f"{tally.server_cpu / tally.accepted * 1e6:.0f}"
        if tally.server_cpu is not None and tally.accepted
        else "-",
    )


def print_report(
    racers: int, seconds: float, warmup: float, rows: list[Row], rejected: int, races: tuple[int, int]
) -> None:
    flat, paced, echo = rows[0], rows[-2], rows[-1]
    print(f"\n{racers} connected racers in every run; {seconds:g} s measured per run "
          f"(arena runs after {warmup:g} s warm-up); one server process, loopback\n")  # fmt: skip
    head = ("run", "offered", "moves/s", "p50 ms", "p99 ms", "moves", "server CPU us/move")
    print(f"| {head[0]:<42} | {head[1]:>13} | {head[2]:>8} | {head[3]:>7} | {head[4]:>7} "
          f"| {head[5]:>7} | {head[6]:>18} |")  # fmt: skip
    print(f"|{'-' * 44}|{'-' * 15}|{'-' * 10}|{'-' * 9}|{'-' * 9}|{'-' * 9}|{'-' * 20}|")
    for r in rows:
        print(f"| {r.name:<42} | {r.offered:>13} | {r.rate:>8.0f} | {r.p50:>7.2f} | {r.p99:>7.2f} "
              f"| {r.count:>7} | {r.cpu_us:>18} |")  # fmt: skip
    ratio = flat.rate / echo.rate if echo.rate else 0.0
    print(f"\nratio to echo (flat out): {ratio:.2f}   (rejected moves: {rejected}; "
          f"new races during the runs: {races[0]} flat out, {races[1]} paced)")  # fmt: skip

    def verdict(ok: bool) -> str:
        return "met" if ok else "NOT met"

    print(
        "targets: "
        f">= 5000 moves/s flat out: {flat.rate:.0f} {verdict(flat.rate >= 5000)}; "
        f"p99 < 25 ms paced: {paced.p99:.1f} ms {verdict(paced.p99 < 25)}; "
        f"ratio >= 0.5: {ratio:.2f} {verdict(ratio >= 0.5)}"
    )


@dataclass
class SpectatorRun:
    spectators: int
    without: Tally
    with_them: Tally
    seconds: float
    rss_before_kib: int
    rss_after_kib: int
    frames: int
    dropped: int


def process_rss_kib(pid: int | None) -> int:
    """A process's resident memory in KiB (0 where /proc is not)."""
    if pid is None:
        return 0
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


async def spectate(url: str, race_id: str, frames: list[int], stop: asyncio.Event, ready: list[int]) -> None:
    """One spectator: hello, watch the race, then read (and count) every frame."""
    ws = await connect(url, **connect_options())
    try:
        wire = Wire(ws)
        await wire.request({"type": "hello", "name": "spectator"})
        answer = await wire.request({"type": "watch", "race_id": race_id})
        if answer.get("type") != "watching":
            raise RuntimeError(f"watch: {answer}")
        ready[0] += 1
        while not stop.is_set():
            try:
                await asyncio.wait_for(ws.recv(), 0.5)
            except TimeoutError:
                continue
            frames[0] += 1
    except Exception:  # closed by the server (a slow spectator dropped): counted from /metrics
        return
    finally:
        await ws.close()


async def watched_pair(url: str) -> tuple[list[Wire], str, Game]:
    """Two racers seated in a new race that has started: their wires, the race, its deal."""
    wires = [Wire(await connect(url, **connect_options())) for _ in range(2)]
    for i, wire in enumerate(wires):
        await wire.request({"type": "hello", "name": f"watched-{i}"})
    race_id, game = await new_race(wires, 3600)
    return wires, race_id, game


async def race_pair(
    wires: list[Wire], race_id: str, game: Game, think: float, seconds: float, tally: Tally
) -> None:
    """Both racers move, each thinking ~``think`` s between moves, for ``seconds``."""
    tally.counting_from = time.perf_counter()
    script = Script(game, random.Random(7))
    stop_at = time.perf_counter() + seconds
    with collector_paused():
        await asyncio.gather(
            *(
                play(wire, race_id, script, stop_at, tally, think, random.Random(i))
                for i, wire in enumerate(wires)
            )
        )


async def racers_of_one_race(url: str, think: float, seconds: float, tally: Tally) -> str:
    """Two racers in one race, each thinking ~``think`` s between moves, for ``seconds``."""
    wires, race_id, game = await watched_pair(url)
    await race_pair(wires, race_id, game, think, seconds, tally)
    await asyncio.gather(*(wire.ws.close() for wire in wires))
    return race_id


async def run_spectator_bench(
    url: str, count: int, seconds: float, think: float, pid: int | None
) -> SpectatorRun:
    """The ack latency of one race's racers without spectators, then with ``count``
    spectators watching that race, and the server's memory per spectator."""
    without = Tally()
    await racers_of_one_race(url, think, seconds, without)
    # The watched race: racers set up, spectators connected and watching, then measured.
    wires, race_id, game = await watched_pair(url)
    await asyncio.sleep(1.0)
    rss_before = process_rss_kib(pid)
    # The spectators run in a process of their own: reading a thousand frames per move
    # in this one would delay the racers' acks here and count as server latency.
    watchers = subprocess.Popen(
        [sys.executable, __file__, "--spectator-client", url, race_id, str(count)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert watchers.stdin is not None and watchers.stdout is not None
    await asyncio.to_thread(wait_line, watchers, "watching", 120)
    await asyncio.sleep(2.0)  # the hub opened, counts written
    rss_after = process_rss_kib(pid)
    print(f"spectators: {count} watching, racing", file=sys.stderr, flush=True)
    with_them = Tally()
    await race_pair(wires, race_id, game, think, seconds, with_them)
    await asyncio.sleep(0.5)
    watchers.stdin.close()
    frames = int((await asyncio.to_thread(watchers.stdout.read)).split()[-1])
    watchers.wait(30)
    await asyncio.gather(*(wire.ws.close() for wire in wires))
    return SpectatorRun(
        count, without, with_them, seconds, rss_before, rss_after, frames, slow_spectators(url)
    )


async def spectator_client(url: str, race_id: str, count: int) -> None:
    """The spectators' process: ``count`` spectators watch the race; prints "watching"
    once all do, and the frames they received when its stdin closes."""
    os.nice(10)  # a load generator: the server under test comes first on shared cores
    frames, ready, stop = [0], [0], asyncio.Event()
    tasks = []
    for start in range(0, count, 100):
        batch = range(start, min(start + 100, count))
        tasks += [asyncio.create_task(spectate(url, race_id, frames, stop, ready)) for _ in batch]
        await asyncio.sleep(0.1)
    while ready[0] < count:
        await asyncio.sleep(0.1)
    print("watching", flush=True)
    await asyncio.to_thread(sys.stdin.read)
    stop.set()
    await asyncio.gather(*tasks)
    print(f"frames {frames[0]}", flush=True)


def slow_spectators(url: str) -> int:
    """Spectators the server dropped as too slow, from its /metrics."""
    import urllib.request

    with urllib.request.urlopen(f"http://{url[5:]}/metrics", timeout=5) as reply:
        for line in reply.read().decode().splitlines():
            if line.startswith("arena_slow_spectators_total"):
                return int(float(line.split()[1]))
    return 0


def print_spectators(run: SpectatorRun, think: float) -> None:
    alone = row("2 racers, nobody watching", f"~{2 / think:.0f}/s", run.without, run.seconds)
    watched = row(f"2 racers, {run.spectators} spectators", f"~{2 / think:.0f}/s", run.with_them, run.seconds)
    print(
        f"\nspectators: one race of 2 racers (a move every ~{think:g} s each), {run.seconds:g} s each run\n"
    )
    print(f"| {'run':<34} | {'moves':>6} | {'p50 ms':>7} | {'p99 ms':>7} |")
    print(f"|{'-' * 36}|{'-' * 8}|{'-' * 9}|{'-' * 9}|")
    for r in (alone, watched):
        print(f"| {r.name:<34} | {r.count:>6} | {r.p50:>7.2f} | {r.p99:>7.2f} |")
    per = (run.rss_after_kib - run.rss_before_kib) / max(1, run.spectators)
    worse = (watched.p99 / alone.p99 - 1) * 100 if alone.p99 else 0.0
    print(
        f"\nframes received by spectators: {run.frames} ({run.frames / max(1, run.spectators):.0f} each); "
        f"dropped as slow: {run.dropped}; server memory: {run.rss_before_kib / 1024:.1f} MiB -> "
        f"{run.rss_after_kib / 1024:.1f} MiB, {per:.1f} KiB per spectator"
    )
    verdict = "met" if worse < 10 else "NOT met"
    print(f"target: racers' p99 under 10% worse with spectators: {worse:+.1f}% {verdict}")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--spectator-client"]:
        run_client(spectator_client(argv[1], argv[2], int(argv[3])))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--racers", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds of each run")
    parser.add_argument(
        "--load",
        type=float,
        default=0.5,
        help="paced run: offered load as a fraction of the flat-out moves/s (default 0.5)",
    )
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="paced run: a racer's mean pause after each ack (overrides --load)",
    )
    parser.add_argument("--server-metrics", action="store_true", help="print the server's move latency")
    parser.add_argument(
        "--bots", type=int, default=0, help="then run this many of the project's bots (client/bots) racing"
    )
    parser.add_argument(
        "--legal-moves",
        action="store_true",
        help="also run flat out with racers that ask for legal moves (their cost per move)",
    )
    parser.add_argument(
        "--warmup", type=float, default=2.0, help="seconds of racing not counted at the start of a run"
    )
    parser.add_argument("--redis-stats", action="store_true", help="print Redis command counts")
    parser.add_argument(
        "--spectators", type=int, default=0, help="also run one race watched by this many spectators"
    )
    parser.add_argument(
        "--only-spectators", action="store_true", help="run the spectators scenario alone (no capacity runs)"
    )
    parser.add_argument(
        "--spectator-think",
        type=float,
        default=0.25,
        help="spectators scenario: a racer's mean pause between moves",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="flat-out runs, each beside an echo run of its own (the first: the usual runs); "
        "prints each round's ratio and their median",
    )
    parser.add_argument("--server-log", help="write the server's log here")
    parser.add_argument("--profile", help="write a cProfile of the server process here")
    parser.add_argument(
        "--echo",
        choices=("asyncio", "uvloop", "sans-io"),
        default="asyncio",
        help="the echo server: websockets on asyncio's own loop (its default), on uvloop, "
        "or its Sans-I/O protocol on uvloop",
    )
    args = parser.parse_args(argv)
    racers = max(2, args.racers - args.racers % 2)
    warmup = min(max(0.0, args.warmup), 30.0)
    seconds = min(max(args.seconds, 1.0), 120.0)

    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        redis_server = EmbeddedRedis(Path(tmp) / "redis", fsync=os.environ.get("BENCH_FSYNC", "everysec"))
        redis_url = redis_server.start()
        import redis as redis_sync

        if not os.environ.get("BENCH_AOF_REWRITE"):
            # A rewrite of the append-only file forks a child that takes a core for a
            # second or so: on a machine whose 2 cores the node, the load generator and
            # Redis share, it lands in some runs and not others (paced p99 10 - 13 ms
            # without it, 21 - 38 ms with it). Redis has a host of its own in a deployment.
            redis_sync.Redis.from_url(redis_url).config_set("auto-aof-rewrite-percentage", 0)
        if args.redis_stats:
            redis_sync.Redis.from_url(redis_url).config_set("latency-monitor-threshold", 20)
        port = free_port()
        log_file = open(args.server_log or os.devnull, "w")  # noqa: SIM115
        env = {**os.environ, **BENCH_NODE_ENV, "PYTHONPATH": str(ROOT)}
        node = subprocess.Popen(
            [sys.executable, *(["-m", "cProfile", "-o", args.profile] if args.profile else []),
             "-m", "server.cli", "serve", "--port", str(port),
             "--redis-url", redis_url],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=log_file, text=True,
        )  # fmt: skip
        url = f"ws://127.0.0.1:{port}"
        try:
            wait_line(node, "listening on")
            if args.spectators:
                watched = run_client(
                    run_spectator_bench(url, args.spectators, seconds, args.spectator_think, node.pid)
                )
                print_spectators(watched, args.spectator_think)
                if args.only_spectators:
                    return 0
            flat, flat_time = run_client(
                run_server_bench(url, racers, Scenario("flat out", 0.0, seconds, warmup), node.pid)
            )
            capacity = flat.accepted / flat_time if flat_time else 0.0
            with_legal = None
            if args.legal_moves:
                legal_scenario = Scenario("flat out, legal moves", 0.0, seconds, warmup, legal_moves=True)
                with_legal = run_client(run_server_bench(url, racers, legal_scenario, node.pid))
            if args.think > 0:
                think = args.think
            else:
                think = racers / max(1.0, capacity * min(max(args.load, 0.05), 1.0))
            think = min(think, 5.0)
            paced, paced_time = run_client(
                run_server_bench(url, racers, Scenario("paced", think, seconds, warmup), node.pid)
            )
            # More flat-out rounds, each right before an echo run of its own: on a machine
            # whose speed drifts, a node and an echo measured side by side compare fairly.
            # Each run starts once the node has finished with the racers of the run before
            # (1,000 disconnects keep it busy for a second or more): an echo run beside a
            # node still at work would measure the echo on a shared core.
            rounds: list[Round] = []
            for _round in range(max(0, args.rounds - 1)):
                wait_quiet(node.pid)
                again = run_client(
                    run_server_bench(url, racers, Scenario("flat out", 0.0, seconds, warmup), node.pid)
                )
                wait_quiet(node.pid)
                node_before = process_cpu(node.pid)
                echoed = measure_echo(racers, seconds, args.echo)
                node_after = process_cpu(node.pid)
                node_busy = None
                if node_before is not None and node_after is not None and echoed[1]:
                    node_busy = (node_after - node_before) / echoed[1]
                rounds.append(
                    Round(row("arena flat out", "max", *again), row("echo", "max", *echoed), node_busy)
                )
            if args.bots:
                bot_races, bot_moves, bot_latencies = run_client(run_bots(url, args.bots, seconds))
                ordered = sorted(bot_latencies) or [0.0]
                p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000
                print(
                    f"bots: {args.bots} of the project's bots (random strategy) racing by quick match "
                    f"for {seconds:g} s: {bot_races} races finished, {bot_moves / seconds:.0f} moves/s, "
                    f"ack p50 {statistics.median(ordered) * 1000:.2f} ms, p99 {p99:.2f} ms",
                    flush=True,
                )
            if args.server_metrics:
                import urllib.request

                with urllib.request.urlopen(f"http://{url[5:]}/metrics", timeout=5) as reply:
                    for line in reply.read().decode().splitlines():
                        if line.startswith("arena_move_latency_seconds_bucket"):
                            print(line)
            if args.redis_stats:
                import redis as redis_sync

                probe = redis_sync.Redis.from_url(redis_url)
                latest = probe.execute_command("LATENCY", "LATEST")  # type: ignore[no-untyped-call]
                print("redis latency events:", latest)
                print("redis slowlog:", probe.slowlog_get(5))
                persistence = probe.info("persistence")
                aof = ("aof_current_size", "aof_base_size", "aof_last_rewrite_time_sec", "aof_delayed_fsync")
                print("redis AOF:", {name: persistence.get(name) for name in aof})
                stats = probe.info("commandstats")
                for name, value in sorted(stats.items(), key=lambda kv: -kv[1]["calls"])[:12]:
                    print(f"{name:28s} {value['calls']:>8}")
        finally:
            node.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                node.wait(15)
            redis_server.stop()

    baseline, echo_time = measure_echo(racers, seconds, args.echo)

    offered = racers / (think + paced_latency(paced))
    rows = [
        row("arena flat out (1 move in flight)", "max", flat, flat_time),
        *([row("arena flat out, legal moves in every ack", "max", *with_legal)] if with_legal else []),
        row(f"arena paced (think ~{think:.2f} s)", f"~{offered:.0f}/s", paced, paced_time),
        row(f"bare websockets echo ({args.echo}), flat out", "max", baseline, echo_time),
    ]
    print_report(racers, seconds, warmup, rows, flat.rejected + paced.rejected, (flat.races, paced.races))
    if rounds:
        print_rounds([Round(rows[0], rows[-1], None), *rounds])
    return 0


@dataclass(frozen=True)
class Round:
    """A flat-out run, the echo run after it, and the share of a core the node (idle
    by then, its racers gone) used during that echo run (None: the node was stopped)."""

    arena: Row
    echo: Row
    node_busy: float | None


def wait_quiet(pid: int | None, busy: float = 0.05, window: float = 0.5, timeout: float = 30.0) -> None:
    """Wait until process ``pid`` uses less than ``busy`` of a core over ``window``
    seconds (at most ``timeout`` seconds)."""
    deadline = time.perf_counter() + timeout
    before = process_cpu(pid)
    while before is not None and time.perf_counter() < deadline:
        time.sleep(window)
        after = process_cpu(pid)
        if after is None or after - before < busy * window:
            return
        before = after


def print_rounds(rounds: list[Round]) -> None:
    """Each round's flat-out node against the echo run beside it, and their median ratio."""
    print(f"\n{len(rounds)} rounds, each a flat-out run and an echo run after it (round 1: the runs above)\n")
    heads = (
        "arena moves/s",
        "arena CPU us/move",
        "echo msgs/s",
        "echo CPU us/msg",
        "ratio",
        "node CPU in echo",
    )
    print("| round | " + " | ".join(heads) + " |")
    print("|---:" * (len(heads) + 1) + "|")
    ratios = []
    for number, run in enumerate(rounds, start=1):
        arena, echo = run.arena, run.echo
        ratio = arena.rate / echo.rate if echo.rate else 0.0
        ratios.append(ratio)
        busy = "stopped" if run.node_busy is None else f"{run.node_busy:.1%}"
        cells = (f"{arena.rate:.0f}", arena.cpu_us, f"{echo.rate:.0f}", echo.cpu_us, f"{ratio:.2f}", busy)
        print(f"| {number} | " + " | ".join(cells) + " |")
    print(f"\nratio to echo over the rounds: median {statistics.median(ratios):.2f}, "
          f"from {min(ratios):.2f} to {max(ratios):.2f}")  # fmt: skip


class TimedClient(ArenaClient):
    """The SDK client, timing each move from send to ack."""

    latencies: list[float]

    async def move(self, race_id: str, move: str, seq: int | None = None) -> MoveAck:
        started = time.perf_counter()
        ack = await super().move(race_id, move, seq)
        self.latencies.append(time.perf_counter() - started)
        return ack


async def run_bots(url: str, count: int, seconds: float) -> tuple[int, int, list[float]]:
    """``count`` of the project's bots (random strategy) race each other by quick match
    for ``seconds``: (races finished, moves acked, ack latencies)."""
    clients = [await TimedClient.connect(url) for _ in range(count)]
    summaries: list[int] = []
    for number, client in enumerate(clients, start=1):
        client.latencies = []
        await client.hello(name=f"bot-random-{number}", bot=True)

    async def race_on(number: int, client: TimedClient) -> None:
        bot = Bot(client, "eight-off", lambda: RandomStrategy(seed=number), number=number, max_moves=200)
        while True:
            if await bot.race() is not None:
                summaries.append(number)

    tasks = [asyncio.create_task(race_on(n, c)) for n, c in enumerate(clients, start=1)]
    await asyncio.sleep(seconds)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for client in clients:
        await client.close()
    latencies = [lat for client in clients for lat in client.latencies]
    return len(summaries) // 2, len(latencies), latencies


def paced_latency(tally: Tally) -> float:
    """The mean ack latency of a run, in seconds (part of a paced racer's cycle)."""
    return statistics.fmean(tally.latencies) if tally.latencies else 0.0


if __name__ == "__main__":
    sys.exit(main())

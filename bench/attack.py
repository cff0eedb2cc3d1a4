"""Attack benchmark: honest racers' move-ack latency while hostile connections attack.

    .venv/bin/python bench/attack.py                    # 100 racers, 50 attackers, 10 s each
    .venv/bin/python bench/attack.py --seconds 5 --racers 40
    .venv/bin/python bench/attack.py --per-pattern      # then each attack pattern alone

Starts a private redis-server and one ``solitaire-arena serve`` process (loopback only)
with the server's default limits (per-connection rate limit and strikes, frame size,
hello timeout, per-address limits; see below for the only exceptions), connects
``--racers`` honest racers from 127.0.0.1 and seats them two by two in Eight Off races
with the racer, seating and move-script code of ``bench/load.py``. Each racer is paced:
it sends a legal move, waits for the ack, then thinks 0.5-1.5 x ``--think`` (default
75 ms). The same connections race through every scenario, each ``--warmup`` (default
2 s, not counted: new races, boards loaded) plus ``--seconds`` (default 10) long:

1. **no attackers**: the baseline.
2. **under attack**: ``--attackers`` hostile connections (default 50) from another
   loopback address, 127.0.0.2. They are spread evenly over five patterns, and each
   one reconnects at once whenever its connection is refused or closed, until the
   scenario ends:

   - raw sockets that do the WebSocket handshake, then send 16 KB ping frames (JSON
     padded with spaces: as big as a frame may be) as fast as they can, never reading;
   - small-frame flooders: hello, then as many ``ping`` frames as they can send;
   - bursts of 48 pings every 20 ms after hello;
   - garbage: ``"[" * 5000``, a lone surrogate in a JSON id, random bytes;
   - idle connections that never say hello.

   Flooders and bursters say hello as a new guest the first time and resume that guest
   with its token when they reconnect (new guests per address are limited).
3. with ``--per-pattern``: one more scenario per pattern, alone, with the attackers it
   has in the mix, each from an address of its own (127.0.0.3 to 127.0.0.7, so that no
   scenario inherits another's per-address state).

The attackers of each scenario run in a process of their own (so that they do not slow
the honest client's event loop), started ahead and lowered to ``--attacker-nice``
(default 10): on one machine they compete with the server for the CPU, and at equal
priority part of what the table shows would be the machine's scheduler, not the server.
``--attacker-nice 0`` measures that case too.

How to read it. The first table has a row per scenario: the honest moves acked in the
measured seconds, their ack latency p50 and p99 (from sending a move to reading its ack,
on the client), the ratio of the p99 under attack to the baseline p99, and whether it
meets the target (under 2x). Under it, each scenario's honest moves/s and the CPU the
server and the attacker process used. The second table says, per attack pattern, how
many connections the attackers tried, how many the server refused (HTTP 429 from the
per-address limits), accepted and closed (with the close codes the attackers saw:
1008 policy, 1006 dropped without a close frame), and how many frames they sent; then
the server's own counters for the scenario (``refused_connections``,
``shut_connections``, ``errors``). With ``--per-pattern``, a last table gives the
latency columns for each pattern alone.

The per-address limits count every honest racer against 127.0.0.1, and the default
allowance (64 open connections, bursts of 60 new connections and of 20 new guests) does
not fit 100 racers on one address: ``SA_MAX_CONNECTIONS_PER_ADDRESS``,
``SA_CONNECT_BURST`` and ``SA_NEW_PLAYER_BURST`` are raised to the number of racers
plus 8 when their default is smaller (the header line says which were). The rates stay
at their defaults, and every other setting of the node is the default except a
countdown of 0 and a clock tick of 0.02 s (for quick race set-ups). The limits are the
same for every address, so the attackers get the raised allowance too: if anything, the
attack is stronger than the defaults would let it be. Honest pairs take turns creating
their races (a player may create only so many a minute). Bounded in time; stops by
itself and cleans up.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import multiprocessing
import os
import random
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event
from pathlib import Path
from typing import Any, Final

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException
from websockets.frames import CloseCode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from load import (  # noqa: E402
    Script,
    Tally,
    Wire,
    collector_paused,
    connect_options,
    new_race,
    play,
    process_cpu,
    row,
)

from server.cli import loop_factory  # noqa: E402
from server.config import ENV_VARS, Settings  # noqa: E402
from server.redis_embedded import EmbeddedRedis  # noqa: E402
from tests.server.conftest import NodeProcess, start_node  # noqa: E402

#: The server listens here; honest racers connect from the same address.
SERVER_HOST: Final = "127.0.0.1"
HONEST_ADDRESS: Final = "127.0.0.1"
ATTACKER_ADDRESS: Final = "127.0.0.2"
#: Per-address settings that must fit every honest racer (all on one address).
HONEST_SETTINGS: Final = ("max_connections_per_address", "connect_burst", "new_player_burst")
#: Room left above the honest racers' own needs in those settings.
HONEST_HEADROOM: Final = 8
#: The p99 under attack should stay under this multiple of the baseline p99.
TARGET_RATIO: Final = 2.0
#: Honest races last longer than any run; a stuck game is given up and raced again.
RACE_TIME_LIMIT: Final = 600
#: Seconds an attacker waits for a TCP connection or a handshake answer.
CONNECT_TIMEOUT: Final = 5.0
#: Frames a burster sends at once, and the pause between bursts.
BURST_FRAMES: Final = 48
BURST_PAUSE: Final = 0.02
#: Frames a flooder sends between two looks at its incoming data.
FLOOD_BATCH: Final = 16
GARBAGE: Final = ("[" * 5000, '{"type":"ping","id":"\\ud800"}')


@dataclass
class PatternTally:
    """What the attackers of one pattern did, and what the server did to them."""

    tried: int = 0
    #: HTTP 429 from a per-address limit.
    refused: int = 0
    #: Other failed attempts (timeouts, resets during the handshake, no free port).
    failed: int = 0
    opened: int = 0
    #: Open connections that the server closed (or dropped).
    closed: int = 0
    frames: int = 0
    hellos_refused: int = 0
    close_codes: Counter[int] = field(default_factory=Counter)

    def as_dict(self) -> dict[str, Any]:
        """A plain dict, to send back to the parent process."""
        return {**vars(self), "close_codes": dict(self.close_codes)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PatternTally:
        return cls(**{**data, "close_codes": Counter(data["close_codes"])})


@dataclass
class Attacker:
    """One hostile client: its target, its tally, and the guest it resumes (if any)."""

    url: str
    port: int
    #: The source address of its connections.
    address: str
    frame_bytes: int
    tally: PatternTally
    token: str | None = None
    name: str = "mallory"


# --- the attack patterns: each one runs a single connection until it is closed -------


async def big_frames_never_read(attacker: Attacker) -> None:
    """A raw socket: WebSocket handshake, then 16 KB pings as fast as the socket takes
    them, never reading what the server sends."""
    tally = attacker.tally
    tally.tried += 1
    try:
        async with asyncio.timeout(CONNECT_TIMEOUT):
            reader, writer = await asyncio.open_connection(
                SERVER_HOST, attacker.port, local_addr=(attacker.address, 0)
            )
    except (OSError, TimeoutError):
        tally.failed += 1
        return
    opened = False
    try:
        writer.write(upgrade_request(attacker.port))
        async with asyncio.timeout(CONNECT_TIMEOUT):
            status = await read_status(reader)
        if status != 101:
            count_refusal(tally, status)
            return
        opened = True
        tally.opened += 1
        for n in range(1, sys.maxsize):
            writer.write(masked_text_frame(padded_ping(n, attacker.frame_bytes)))
            tally.frames += 1
            await writer.drain()
            await asyncio.sleep(0)  # drain does not yield while the buffer has room
    except (OSError, TimeoutError, asyncio.IncompleteReadError, ValueError):
        if opened:
            tally.closed += 1
            tally.close_codes[CloseCode.ABNORMAL_CLOSURE] += 1
        else:
            tally.failed += 1
    finally:
        writer.transport.abort()


async def flood_small_frames(ws: ClientConnection, attacker: Attacker) -> None:
    """Hello, then as many small pings as the connection takes."""
    await say_hello(ws, attacker)
    for n in range(1, sys.maxsize):
        await ws.send(msgpack.packb({"type": "ping", "id": n}))
        attacker.tally.frames += 1
        if n % FLOOD_BATCH == 0:
            await asyncio.sleep(0)


async def burst_under_strikes(ws: ClientConnection, attacker: Attacker) -> None:
    """Hello, then bursts of 48 pings every 20 ms: just under the server's old rule (50
    rate-limited frames in a row shut a connection; the pause lets one frame through,
    which started the count again), which its strike bucket has replaced."""
    await say_hello(ws, attacker)
    n = 0
    while True:
        for _ in range(BURST_FRAMES):
            n += 1
            await ws.send(msgpack.packb({"type": "ping", "id": n}))
        attacker.tally.frames += BURST_FRAMES
        await asyncio.sleep(BURST_PAUSE)


async def send_garbage(ws: ClientConnection, attacker: Attacker) -> None:
    """Deep nesting, a lone surrogate in a JSON id, random bytes, over and over."""
    rng = random.Random()
    while True:
        for text in GARBAGE:
            await ws.send(text)
        await ws.send(rng.randbytes(rng.randint(1, 256)))
        attacker.tally.frames += len(GARBAGE) + 1
        await asyncio.sleep(0)


async def hold_idle(ws: ClientConnection, attacker: Attacker) -> None:
    """Say nothing; hold the connection until the server closes it."""
    await ws.wait_closed()


Behaviour = Callable[[ClientConnection, Attacker], Awaitable[None]]


def over_websocket(behave: Behaviour) -> Callable[[Attacker], Awaitable[None]]:
    """A pattern over a websockets client connection from the attackers' address."""

    async def one_connection(attacker: Attacker) -> None:
        ws = await open_attacker_connection(attacker)
        if ws is None:
            return
        try:
            await behave(ws, attacker)  # returns, or raises ConnectionClosed, once closed
            code = ws.close_code
        except ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd is not None else None
        finally:
            ws.transport.abort()
        attacker.tally.closed += 1
        attacker.tally.close_codes[code or CloseCode.ABNORMAL_CLOSURE] += 1  # no close frame

    return one_connection


@dataclass(frozen=True)
class Pattern:
    """One way to attack: ``run`` opens one connection and abuses it until it is closed."""

    name: str
    run: Callable[[Attacker], Awaitable[None]]


PATTERNS: Final = (
    Pattern("16 KB frames, never reads (raw socket)", big_frames_never_read),
    Pattern("small-frame flood after hello", over_websocket(flood_small_frames)),
    Pattern(f"bursts of {BURST_FRAMES} every {BURST_PAUSE * 1000:g} ms", over_websocket(burst_under_strikes)),
    Pattern("garbage (nesting, surrogate, bytes)", over_websocket(send_garbage)),
    Pattern("idle, never says hello", over_websocket(hold_idle)),
)


# --- the attackers' wire, by hand -----------------------------------------------------


def upgrade_request(port: int) -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    return (
        f"GET / HTTP/1.1\r\nHost: {SERVER_HOST}:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()


async def read_status(reader: asyncio.StreamReader) -> int:
    """The status code of the handshake's answer (its headers read and dropped)."""
    head = await reader.readuntil(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1])


def padded_ping(n: int, size: int) -> bytes:
    """A valid JSON ping, padded with spaces to ``size`` bytes."""
    ping = b'{"type":"ping","id":%d}' % n
    return ping + b" " * max(0, size - len(ping))


def masked_text_frame(payload: bytes) -> bytes:
    """A client text frame. Its mask key is zero (so the payload goes out as is): legal,
    and cheap for the attacker; the server unmasks it all the same."""
    length = len(payload)
    if length < 126:
        header = bytes([0x81, 0x80 | length])
    elif length < 1 << 16:
        header = bytes([0x81, 0x80 | 126]) + length.to_bytes(2, "big")
    else:
        header = bytes([0x81, 0x80 | 127]) + length.to_bytes(8, "big")
    return header + b"\x00\x00\x00\x00" + payload


def count_refusal(tally: PatternTally, status: int) -> None:
    """Count a handshake answered with ``status`` instead of 101."""
    if status == 429:
        tally.refused += 1
    else:
        tally.failed += 1


async def open_attacker_connection(attacker: Attacker) -> ClientConnection | None:
    """A websockets connection from the attacker's address, or None (refused or failed:
    counted either way)."""
    tally = attacker.tally
    tally.tried += 1
    try:
        ws = await connect(
            attacker.url,
            local_addr=(attacker.address, 0),
            compression=None,
            max_queue=None,  # read every reply, so the server never waits on this client
            open_timeout=CONNECT_TIMEOUT,
            ping_interval=None,
            close_timeout=1,
        )
    except InvalidStatus as exc:
        count_refusal(tally, exc.response.status_code)
        return None
    except (OSError, TimeoutError, WebSocketException):
        tally.failed += 1
        return None
    tally.opened += 1
    return ws


async def say_hello(ws: ClientConnection, attacker: Attacker) -> None:
    """Hello as a new guest the first time, then resume that guest with its token."""
    hello: dict[str, Any] = {"type": "hello", "id": 0}
    if attacker.token is None:
        hello["name"] = attacker.name
    else:
        hello["token"] = attacker.token
    await ws.send(msgpack.packb(hello))
    async with asyncio.timeout(CONNECT_TIMEOUT):
        reply = msgpack.unpackb(await ws.recv())
    if reply.get("type") == "welcome":
        attacker.token = reply.get("token", attacker.token)
    else:
        attacker.tally.hellos_refused += 1


# --- the attacker processes ------------------------------------------------------------


@dataclass(frozen=True)
class AttackPlan:
    """The attackers of one scenario: their source address, and the patterns (indices
    in :data:`PATTERNS`) they take in turn."""

    name: str
    address: str
    patterns: tuple[int, ...]
    attackers: int


async def keep_attacking(pattern: Pattern, attacker: Attacker, stopping: asyncio.Event) -> None:
    """One connection after another, with no pause, until ``stopping`` is set (and the
    current connection cancelled)."""
    while not stopping.is_set():
        try:
            await pattern.run(attacker)
        except (OSError, TimeoutError, WebSocketException):
            attacker.tally.failed += 1
        await asyncio.sleep(0)


async def attack(url: str, port: int, plan: AttackPlan, stop: Event, longest: float) -> dict[str, Any]:
    """Run the attackers until ``stop`` is set (or ``longest`` seconds): their tallies."""
    frame_bytes = Settings().max_message_bytes
    tallies = {PATTERNS[k].name: PatternTally() for k in plan.patterns}
    stopping = asyncio.Event()
    tasks = []
    for i in range(plan.attackers):
        pattern = PATTERNS[plan.patterns[i % len(plan.patterns)]]
        attacker = Attacker(url, port, plan.address, frame_bytes, tallies[pattern.name], name=f"mallory{i}")
        tasks.append(asyncio.create_task(keep_attacking(pattern, attacker, stopping)))
    deadline = time.monotonic() + longest
    while not stop.is_set() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    stopping.set()
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=5)
    return {name: tally.as_dict() for name, tally in tallies.items()}


def attacker_process(
    url: str,
    port: int,
    plan: AttackPlan,
    nice: int,
    go: Event,
    stop: Event,
    longest: float,
    results: Connection,
) -> None:
    """Entry point of an attacker process: say it is ready, wait for ``go``, attack until
    ``stop``, send the tallies."""
    if nice:
        os.nice(nice)
    results.send("ready")
    if not go.wait(longest):
        results.send({})
        return
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        results.send(runner.run(attack(url, port, plan, stop, longest)))


class AttackerProcess:
    """The attackers of one scenario in a process of their own (so that they do not slow
    the honest racers' event loop), started ahead and waiting for :meth:`go`."""

    def __init__(self, url: str, port: int, plan: AttackPlan, nice: int, longest: float) -> None:
        spawn = multiprocessing.get_context("spawn")
        self.plan = plan
        self._go, self._stop = spawn.Event(), spawn.Event()
        self._results, sender = spawn.Pipe(duplex=False)
        self.process = spawn.Process(
            target=attacker_process,
            args=(url, port, plan, nice, self._go, self._stop, longest, sender),
            daemon=True,
        )
        self.process.start()
        #: CPU seconds the process used while it attacked (None: unknown).
        self.cpu: float | None = None
        self._cpu_at_go: float | None = None

    def wait_ready(self, timeout: float = 60) -> None:
        try:
            ready = self._results.poll(timeout) and self._results.recv() == "ready"
        except EOFError:  # the process died
            ready = False
        if not ready:
            raise RuntimeError(f"the attacker process of {self.plan.name!r} did not start")

    def go(self) -> None:
        self._cpu_at_go = process_cpu(self.process.pid)
        self._go.set()

    def stop(self) -> dict[str, PatternTally]:
        """Stop attacking; the tallies (empty if none came within 30 s)."""
        self._stop.set()
        after = process_cpu(self.process.pid)
        if self._cpu_at_go is not None and after is not None:
            self.cpu = after - self._cpu_at_go
        try:
            sent = self._results.recv() if self._results.poll(30) else {}
        except EOFError:  # the process died
            sent = {}
        return {name: PatternTally.from_dict(data) for name, data in sent.items()}

    def close(self) -> None:
        self._go.set()
        self._stop.set()
        self.process.join(15)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


def attack_plans(attackers: int, per_pattern: bool) -> list[AttackPlan]:
    """Every pattern at once from 127.0.0.2; with ``per_pattern``, then each pattern
    alone (with as many attackers as it has in the mix) from an address of its own."""
    everyone = tuple(range(len(PATTERNS)))
    plans = [
        AttackPlan(f"{attackers} attackers from {ATTACKER_ADDRESS}", ATTACKER_ADDRESS, everyone, attackers)
    ]
    if per_pattern:
        for k, pattern in enumerate(PATTERNS):
            address = f"127.0.0.{3 + k}"
            plans.append(AttackPlan(pattern.name, address, (k,), len(range(k, attackers, len(PATTERNS)))))
    return plans


# --- the honest racers -----------------------------------------------------------------


async def connect_racers(url: str, racers: int) -> list[list[Wire]]:
    """Connect the racers from 127.0.0.1, two by two, and say hello."""

    async def pair(index: int) -> list[Wire]:
        wires = []
        for i in range(2):
            ws = await connect(url, local_addr=(HONEST_ADDRESS, 0), **connect_options())
            wire = Wire(ws)
            await wire.request({"type": "hello", "name": f"bot{index}-{i}"})
            wires.append(wire)
        return wires

    pairs: list[list[Wire]] = []
    for start in range(0, racers // 2, 25):  # in batches, to bound the burst
        pairs += await asyncio.gather(*(pair(i) for i in range(start, min(start + 25, racers // 2))))
    return pairs


async def race_pair(
    wires: list[Wire], stop_at: float, tally: Tally, think: float, rng: random.Random
) -> None:
    """Two racers racing each other (a new race whenever one ends) until ``stop_at``.
    They take turns creating the race (a player may create only so many a minute)."""
    turn = 0
    while time.perf_counter() < stop_at:
        race_id, game = await new_race(wires[::-1] if turn % 2 else wires, RACE_TIME_LIMIT)
        turn += 1
        tally.races += 1
        script = Script(game, random.Random(rng.random()))
        await asyncio.gather(
            *(
                play(wire, race_id, script, stop_at, tally, think, random.Random(rng.random()))
                for wire in wires
            )
        )
        await end_race(wires, race_id)


async def end_race(wires: list[Wire], race_id: str) -> None:
    """Both racers give up (if they have not finished yet) and see the race end: a
    player races one race at a time, so the next race starts only after this one ended."""
    for wire in wires:
        with contextlib.suppress(RuntimeError):  # already finished
            await wire.request({"type": "finish", "race_id": race_id})
    for wire in wires:
        with contextlib.suppress(TimeoutError):
            await wire.event("race_ended", timeout=10)
        wire.events.clear()


@dataclass
class PhaseResult:
    """One scenario: the honest racers' tally, and what the attackers (if any) did."""

    name: str
    tally: Tally
    elapsed: float
    server_cpu: float | None
    attacker_cpu: float | None = None
    lost_pairs: list[BaseException] = field(default_factory=list)
    tallies: dict[str, PatternTally] = field(default_factory=dict)
    #: The server's counters of refused and shut connections and errors, during the phase.
    counters: dict[str, float] = field(default_factory=dict)


async def honest_phase(
    name: str, pairs: list[list[Wire]], args: argparse.Namespace, server_pid: int, seed: int
) -> PhaseResult:
    """Every pair races for ``--warmup`` + ``--seconds``; moves sent in the warm-up are
    not counted. Pairs that fail are dropped from ``pairs`` and reported."""
    tally = Tally()
    tally.counting_from = time.perf_counter() + args.warmup
    stop_at = tally.counting_from + args.seconds
    cpu: list[float | None] = []
    loop = asyncio.get_running_loop()
    for moment in (args.warmup, args.warmup + args.seconds):
        loop.call_later(moment, lambda: cpu.append(process_cpu(server_pid)))
    rng = random.Random(seed)
    with collector_paused():
        outcomes = await asyncio.gather(
            *(race_pair(wires, stop_at, tally, args.think, random.Random(rng.random())) for wires in pairs),
            return_exceptions=True,
        )
    elapsed = time.perf_counter() - tally.counting_from
    lost = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
    pairs[:] = [wires for wires, outcome in zip(pairs, outcomes, strict=True) if outcome is None]
    used = cpu[1] - cpu[0] if len(cpu) == 2 and cpu[0] is not None and cpu[1] is not None else None
    return PhaseResult(name, tally, elapsed, used, lost_pairs=lost)


async def attacked_phase(
    attackers: AttackerProcess,
    pairs: list[list[Wire]],
    args: argparse.Namespace,
    node: NodeProcess,
    seed: int,
) -> PhaseResult:
    """A scenario with the honest racers racing while ``attackers`` attack."""
    print(f"attacking: {attackers.plan.name}", file=sys.stderr, flush=True)
    before = await asyncio.to_thread(server_counters, node.port)
    attackers.go()
    phase = await honest_phase(attackers.plan.name, pairs, args, node.process.pid, seed)
    phase.tallies = await asyncio.to_thread(attackers.stop)
    phase.attacker_cpu = attackers.cpu
    after = await asyncio.to_thread(server_counters, node.port)
    phase.counters = {key: value - before.get(key, 0.0) for key, value in after.items()}
    return phase


async def run_scenarios(
    node: NodeProcess, args: argparse.Namespace, attackers: list[AttackerProcess]
) -> list[PhaseResult]:
    """The baseline, then one scenario per attacker process, on the same honest racers."""
    pairs = await connect_racers(node.url, args.racers)
    print(f"{len(pairs) * 2} honest racers connected", file=sys.stderr, flush=True)
    try:
        phases = [await honest_phase("no attackers (baseline)", pairs, args, node.process.pid, 0)]
        for seed, process in enumerate(attackers, 1):
            phases.append(await attacked_phase(process, pairs, args, node, seed))
    finally:
        for wires in pairs:
            for wire in wires:
                wire.ws.transport.abort()
    return phases


# --- set-up, report, main --------------------------------------------------------------


def honest_headroom(racers: int) -> dict[str, str]:
    """Per-address settings raised so that every honest racer fits on 127.0.0.1 (only
    those whose default is smaller; settings this server does not have are skipped)."""
    defaults = Settings()
    need = racers + HONEST_HEADROOM
    raised = {}
    for name in HONEST_SETTINGS:
        default = getattr(defaults, name, None)
        if name in ENV_VARS and isinstance(default, int) and 0 < default < need:
            raised[ENV_VARS[name]] = str(need)
    return raised


def server_counters(port: int) -> dict[str, float]:
    """The node's counters of refused and shut connections and of error replies."""
    wanted = ("arena_refused_connections_total", "arena_shut_connections_total", "arena_errors_total")
    counters: dict[str, float] = {}
    with urllib.request.urlopen(f"http://{SERVER_HOST}:{port}/metrics", timeout=5) as reply:
        for line in reply.read().decode().splitlines():
            if line.startswith(wanted):
                key, value = line.rsplit(" ", 1)
                counters[key.removeprefix("arena_")] = float(value)
    return counters


def latency_cells(phase: PhaseResult, baseline: PhaseResult) -> str:
    """scenario | honest moves acked | p50 ms | p99 ms | ratio | target | met?"""
    r, base = row(phase.name, "", phase.tally, phase.elapsed), row("", "", baseline.tally, baseline.elapsed)
    if phase is baseline:
        ratio, target, met = "1.00", "(baseline)", "-"
    else:
        value = r.p99 / base.p99 if base.p99 else float("inf")
        ratio, target = f"{value:.2f}", f"< {TARGET_RATIO:g}x"
        met = "yes" if value < TARGET_RATIO else "NO"
    return f"| {phase.name} | {r.count} | {r.p50:.2f} | {r.p99:.2f} | {ratio} | {target} | {met} |"


LATENCY_HEAD: Final = (
    "| scenario | honest moves acked | p50 ms | p99 ms | p99 / baseline p99 "
    f"| target (under {TARGET_RATIO:g}x) | met? |"
)


def print_latency_table(phases: list[PhaseResult]) -> None:
    print(LATENCY_HEAD)
    print("|---|---:|---:|---:|---:|---|---|")
    for phase in phases:
        print(latency_cells(phase, phases[0]))


def print_pattern_table(tallies: dict[str, PatternTally], attackers: int) -> None:
    print(
        "\n| attack pattern | attackers | connects tried | refused (429) | other failures "
        "| accepted | closed by server (codes) | frames sent | hellos refused |"
    )
    print("|---|---:|---:|---:|---:|---:|---|---:|---:|")
    for i, pattern in enumerate(PATTERNS):
        t = tallies.get(pattern.name, PatternTally())
        count = len(range(i, attackers, len(PATTERNS)))
        codes = ", ".join(f"{code}: {n}" for code, n in sorted(t.close_codes.items()))
        print(
            f"| {pattern.name} | {count} | {t.tried} | {t.refused} | {t.failed} | {t.opened} "
            f"| {t.closed} ({codes or '-'}) | {t.frames} | {t.hellos_refused} |"
        )


def print_alone_table(phases: list[PhaseResult], baseline: PhaseResult) -> None:
    """Each pattern alone: the latency columns, then what happened to its connections."""
    print("\neach pattern alone (its attackers of the mix, from an address of its own):\n")
    print(LATENCY_HEAD + " connects tried | refused (429) | closed by server |")
    print("|---|---:|---:|---:|---:|---|---|---:|---:|---:|")
    for phase in phases:
        t = next(iter(phase.tallies.values()), PatternTally())
        print(f"{latency_cells(phase, baseline)} {t.tried} | {t.refused} | {t.closed} |")


def print_cpu(phase: PhaseResult, seconds: float) -> None:
    rate = phase.tally.accepted / phase.elapsed if phase.elapsed > 0 else 0.0
    server = f"{phase.server_cpu / seconds:.0%}" if phase.server_cpu is not None else "-"
    attacker = f"{phase.attacker_cpu / phase.elapsed:.0%}" if phase.attacker_cpu is not None else "-"
    lost = ""
    if phase.lost_pairs:
        lost = f"; honest pairs lost: {len(phase.lost_pairs)} (first: {phase.lost_pairs[0]!r})"
    print(
        f"{phase.name}: {rate:.0f} honest moves/s, {phase.tally.rejected} rejected; "
        f"server CPU {server} of a core, attacker process {attacker}{lost}"
    )


def print_report(args: argparse.Namespace, phases: list[PhaseResult], raised: dict[str, str]) -> None:
    print(
        f"\n{args.racers} honest racers from {HONEST_ADDRESS} (think ~{args.think * 1000:.0f} ms), "
        f"{args.attackers} attackers from {ATTACKER_ADDRESS} (niceness {args.attacker_nice}); "
        f"{args.seconds:g} s measured per scenario after {args.warmup:g} s warm-up; one server "
        "process, loopback, default limits"
        + (" except " + ", ".join(f"{k}={v}" for k, v in raised.items()) if raised else "")
        + "\n"
    )
    print_latency_table(phases[:2])
    print()
    for phase in phases[:2]:
        print_cpu(phase, args.seconds)
    if len(phases) < 2:
        return
    mixed = phases[1]
    print_pattern_table(mixed.tallies, args.attackers)
    refused = sum(t.refused for t in mixed.tallies.values())
    closed = sum(t.closed for t in mixed.tallies.values())
    print(f"\nattacker connections refused (HTTP 429): {refused}; closed by the server: {closed}")
    print("server counters: " + ", ".join(f"{k} {v:.0f}" for k, v in sorted(mixed.counters.items()) if v))
    if len(phases) > 2:
        print_alone_table(phases[2:], phases[0])


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--racers", type=int, default=100, help="honest racers (default 100)")
    parser.add_argument("--attackers", type=int, default=50, help="hostile connections (default 50)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per scenario")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds not counted at each start")
    parser.add_argument("--think", type=float, default=0.075, help="a racer's mean pause after an ack")
    parser.add_argument(
        "--attacker-nice",
        type=int,
        default=10,
        help="niceness of the attacker processes (default 10; 0: they share the CPU evenly)",
    )
    parser.add_argument(
        "--per-pattern",
        action="store_true",
        help="then one more scenario per attack pattern, alone (adds five scenarios)",
    )
    args = parser.parse_args(argv)
    args.racers = max(2, args.racers - args.racers % 2)
    args.attackers = max(0, args.attackers)
    args.seconds = min(max(args.seconds, 1.0), 120.0)
    args.warmup = min(max(args.warmup, 0.0), 30.0)
    args.think = min(max(args.think, 0.0), 5.0)
    args.attacker_nice = min(max(args.attacker_nice, 0), 19)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    raised = honest_headroom(args.racers)
    plans = attack_plans(args.attackers, args.per_pattern) if args.attackers else []
    # How long an attacker process may wait and attack: every scenario, and slack.
    longest = (len(plans) + 1) * (args.warmup + args.seconds + 15) + 120
    with tempfile.TemporaryDirectory(prefix="arena-attack-") as tmp:
        redis_server = EmbeddedRedis(Path(tmp) / "redis")
        node = start_node(None, redis_server.start(), None, {"SA_COUNTDOWN": "0", **raised})
        attackers: list[AttackerProcess] = []
        try:
            attackers += [AttackerProcess(node.url, node.port, p, args.attacker_nice, longest) for p in plans]
            for process in attackers:
                process.wait_ready()
            with asyncio.Runner(loop_factory=loop_factory()) as runner:
                phases = runner.run(run_scenarios(node, args, attackers))
        finally:
            for process in attackers:
                process.close()
            node.terminate()
            redis_server.stop()
    print_report(args, phases, raised)
    return 0


if __name__ == "__main__":
    sys.exit(main())

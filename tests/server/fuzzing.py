"""Frames for fuzzing the server: random bytes, and every client message mutated.

Shared by the fuzz test (a bounded run in ``make test``) and ``bench/fuzz.py`` (long runs).
"""

from __future__ import annotations

import asyncio
import collections
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

import msgpack
from websockets.asyncio.client import connect

#: Server messages that answer a request (events are the others).
REPLY_TYPES = frozenset(
    {"welcome", "error", "ok", "pong", "race", "race_list", "move_ack", "queued", "results", "move_log"}
)

#: Values of every type a field could wrongly hold.
ODD_VALUES: list[Any] = [
    None, True, False, 0, -1, 1, 2**63, -(2**63), 3.5, float("1e-300"), "", "x" * 300, "\u202e\u0000",
    "Zoë", [], [1, "a"], {}, {"a": {"b": [None]}}, "t1>f1", "deal", "A>f", "p1+p2", "wt",
]  # fmt: skip


def templates(race_id: str, code: str, seq: int) -> list[dict[str, Any]]:
    """One well-formed message of every client type, aimed at a live race."""
    return [
        {"type": "hello", "id": 1, "protocol": 1, "name": "fuzz"},
        {"type": "ping", "id": 2},
        {"type": "create_race", "id": 3, "game": "treize", "seats": 2, "time_limit": 60},
        {"type": "join_race", "id": 4, "code": code},
        {"type": "list_races", "id": 5, "game": "eight-off", "offset": 0, "limit": 5},
        {"type": "leave_race", "id": 6, "race_id": race_id},
        {"type": "ready", "id": 7, "race_id": race_id, "ready": True},
        {"type": "start_race", "id": 8, "race_id": race_id},
        {"type": "move", "id": 9, "race_id": race_id, "seq": seq, "move": "t1>f1"},
        # Aimed just off the race: a fuzzer that gave up would leave nothing to replay.
        {"type": "finish", "id": 10, "race_id": race_id + "0"},
        {"type": "get_race", "id": 11, "race_id": race_id},
        {"type": "get_results", "id": 12, "race_id": race_id},
        {"type": "get_move_log", "id": 13, "race_id": race_id},
        {"type": "quick_match", "id": 14, "game": "eagle-wing"},
        {"type": "cancel_quick_match", "id": 15},
    ]


def mutate(rng: random.Random, message: dict[str, Any]) -> dict[str, Any]:
    """The message with one to three of: a field dropped, retyped or added; the type renamed."""
    data = dict(message)
    for _ in range(rng.randint(1, 3)):
        roll = rng.random()
        if not data:
            data["type"] = "ping"
        field = rng.choice(list(data))
        if roll < 0.3:
            data[field] = rng.choice(ODD_VALUES)
        elif roll < 0.45:
            data.pop(field, None)
        elif roll < 0.6:
            data[rng.choice(["x", "id2", "view", "seed", ""])] = rng.choice(ODD_VALUES)
        elif roll < 0.7:
            data["type"] = rng.choice(["", "MOVE", "move ", "teleport", "welcome", "error"])
        elif roll < 0.85 and "seq" in data:
            data["seq"] = rng.choice([0, 1, 2, 3, 5, 100, -3])
        elif "move" in data:
            data["move"] = rng.choice(["t1>f1", "t2>r1", "r1>t3", "t4:2>t5", "deal", "A>f", "t9>f1", "f1>t1"])
    return data


def frame(rng: random.Random, race_id: str, code: str, seq: int) -> bytes | str:
    """One fuzz frame: a mutated (or intact) message as msgpack or JSON, or random bytes."""
    roll = rng.random()
    if roll < 0.08:
        return rng.randbytes(rng.randint(0, 64))
    if roll < 0.12:
        return "".join(rng.choice('{}[]":,0123456789abc\\u') for _ in range(rng.randint(0, 40)))
    message = rng.choice(templates(race_id, code, seq))
    if roll > 0.25:
        message = mutate(rng, message)
    if rng.random() < 0.5:
        packed: bytes = msgpack.packb(message, use_bin_type=True)
        return packed
    return json.dumps(message)


@dataclass(frozen=True)
class FuzzPlan:
    """How many frames, from which seed; how often a good move goes in instead; how many
    seconds to wait for the last replies."""

    frames: int
    seed: int
    good_rate: float
    patience: float


@dataclass
class FuzzRun:
    """What came back from a fuzz run: replies counted, error codes tallied."""

    frames: int
    replies: int = 0
    codes: collections.Counter[str] = field(default_factory=collections.Counter)


async def fuzz_race(
    url: str,
    token: str,
    race: tuple[str, str],
    line: list[str],
    plan: FuzzPlan,
) -> FuzzRun:
    """Send the plan's fuzz frames as the racer holding ``token`` at ``race`` (its id and
    code), now and then instead the next move of the winning ``line`` with its right seq."""
    race_id, code = race
    rng = random.Random(plan.seed)
    frames = plan.frames
    run = FuzzRun(frames)
    async with connect(url, compression=None, max_queue=None, max_size=None) as ws:
        await ws.send(msgpack.packb({"type": "hello", "id": 0, "token": token}))
        if msgpack.unpackb(await ws.recv())["type"] != "welcome":
            raise RuntimeError("the fuzzing racer was not welcomed")

        async def read() -> None:
            async for data in ws:
                message = msgpack.unpackb(data) if isinstance(data, bytes) else json.loads(data)
                if message["type"] in REPLY_TYPES:
                    run.replies += 1
                if message["type"] == "error":
                    run.codes[message["code"]] += 1

        reader = asyncio.create_task(read())
        played = 0
        for index in range(frames):
            if played < len(line) and rng.random() < plan.good_rate:
                good = {"type": "move", "id": f"good{played}", "race_id": race_id, "seq": played + 1}
                await ws.send(msgpack.packb({**good, "move": line[played]}))
                played += 1
            else:
                await ws.send(frame(rng, race_id, code, seq=1 + played + index % 3))
            if index % 50 == 0:
                await asyncio.sleep(0)
        waited_until = time.perf_counter() + plan.patience
        while run.replies < frames and time.perf_counter() < waited_until:
            await asyncio.sleep(0.05)
        reader.cancel()
    return run

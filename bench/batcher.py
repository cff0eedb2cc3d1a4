"""The moves' batcher against redis-py's own pipeline: the same MOVE calls, both ways.

    .venv/bin/python bench/batcher.py --seconds 5

A node sends every move as one MOVE script call, and calls made in the same moment go to
Redis together (``server/store/batch.py``). The store packs them itself (one
``hiredis.pack_command`` per call, on connections of its own); redis-py's
non-transactional pipeline does the same job with its general machinery. This drives
both with ``--callers`` concurrent callers (each one move in flight, like racers flat
out) against a private redis-server, one after the other in this one process, and
prints calls/s and this process's CPU per call (Redis's share excluded): the
client-side cost a node pays per move for each.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.wait import move_args, seed_race  # noqa: E402
from server.cli import loop_factory  # noqa: E402
from server.redis_client import open_redis  # noqa: E402
from server.redis_embedded import EmbeddedRedis  # noqa: E402
from server.store import keys, scripts  # noqa: E402
from server.store.batch import PipelineBatcher, ScriptBatcher  # noqa: E402


async def caller(
    batcher: ScriptBatcher, script: Any, race_id: str, stop_at: float, counts: list[int]
) -> None:
    script_keys = keys.move_keys(race_id, "p")
    seq = 0
    while time.monotonic() < stop_at:
        seq += 1
        args = move_args("p", seq, int(time.time() * 1000))
        reply = await batcher.call(script, script_keys, args)
        if reply[0] != "ok":
            raise RuntimeError(f"the MOVE script answered {reply}")
        counts[0] += 1


async def one_way(url: str, kind: str, callers: int, seconds: float) -> tuple[float, float]:
    client = open_redis(url, 64)
    script = client.register_script(scripts.MOVE.source)
    await client.script_load(scripts.MOVE.source)
    batcher = ScriptBatcher(client) if kind == "packed" else PipelineBatcher(client)
    races = [f"{kind}-{n}" for n in range(callers)]
    for race_id in races:
        await seed_race(client, race_id, int(time.time() * 1000))
    counts = [0]
    began, cpu = time.perf_counter(), time.process_time()
    stop_at = time.monotonic() + seconds
    await asyncio.gather(*(caller(batcher, script, race_id, stop_at, counts) for race_id in races))
    elapsed, used = time.perf_counter() - began, time.process_time() - cpu
    await batcher.aclose()
    await client.aclose()
    return counts[0] / elapsed, used / counts[0] * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--callers", type=int, default=500)
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="arena-batcher-") as tmp:
        redis_server = EmbeddedRedis(Path(tmp) / "redis")
        url = redis_server.start()
        try:
            for kind in ("packed", "pipeline", "packed", "pipeline"):
                with asyncio.Runner(loop_factory=loop_factory()) as runner:
                    rows.append((kind, *runner.run(one_way(url, kind, args.callers, args.seconds))))
        finally:
            redis_server.stop()
    print(f"MOVE calls, {args.callers} callers with one call in flight each, {args.seconds:g} s per run\n")
    print("| batcher | calls/s | client CPU us/call |")
    print("|---|---|---|")
    for kind, rate, cpu_us in rows:
        name = (
            "store's batcher (ScriptBatcher)" if kind == "packed" else "redis-py pipeline (PipelineBatcher)"
        )
        print(f"| {name} | {rate:.0f} | {cpu_us:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Long fuzz run: many fuzzed frames at a live race on a real server process.

    .venv/bin/python bench/fuzz.py --frames 100000

Starts a private redis-server and a ``solitaire-arena serve`` process (loopback only),
seats two racers in an Eight Off race, and sends ``--frames`` frames from the generator
of ``tests/server/fuzzing.py`` (random bytes, and every client message mutated), with
the next move of a winning line now and then. Prints one table: frames, replies, error
codes, frames per second, whether the server is still alive, whether its log holds a
traceback, and whether each racer's board replays exactly from the move log.
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

from client.sdk import ArenaClient  # noqa: E402
from server.redis_embedded import EmbeddedRedis  # noqa: E402
from shared import replay  # noqa: E402
from shared.protocol import BoardView, RaceEnded  # noqa: E402
from tests.server.conftest import WINNABLE_SEED, start_node  # noqa: E402
from tests.server.fuzzing import FuzzPlan, fuzz_race  # noqa: E402
from tests.server.helpers import start_race  # noqa: E402
from tests.server.solver import solve  # noqa: E402


async def run(frames: int, seed: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as data:
        redis = EmbeddedRedis(Path(data) / "redis")
        url = redis.start()
        env = {
            "SA_RATE_LIMIT": "1000000",
            "SA_RATE_BURST": "1000000",
            "SA_CONNECT_RATE": "0",
        }
        node = await asyncio.to_thread(start_node, None, url, None, env)
        try:
            return await fuzz_node(node.url, frames, seed) | {"alive": node.process.poll() is None}
        finally:
            node.terminate()
            redis.stop()


async def fuzz_node(url: str, frames: int, seed: int) -> dict[str, Any]:
    ada, bob = await ArenaClient.connect(url), await ArenaClient.connect(url)
    race = await start_race(ada, bob, time_limit=3600)
    line = solve("eight-off", WINNABLE_SEED) or []
    started = time.perf_counter()
    assert ada.token is not None
    run = await fuzz_race(url, ada.token, (race.race_id, race.code), line, FuzzPlan(frames, seed, 0.002, 600))
    seconds = time.perf_counter() - started
    views = {c.player_id: (await c.get_race(race.race_id)).board for c in (ada, bob)}
    for client in (ada, bob):
        await client.finish(race.race_id)
    ended = await ada.wait_for(RaceEnded, timeout=10)
    log = await ada.move_log(race.race_id)
    assert ended.summary.seed is not None  # a race's seed is revealed at its end
    replays_ok = all(
        state is not None
        and BoardView.model_validate(
            replay(log.game, ended.summary.seed, [m.move for m in log.moves if m.player_id == pid]).view()
        )
        == state.view
        for pid, state in views.items()
    )
    await ada.close()
    await bob.close()
    return {
        "frames": frames,
        "replies": run.replies,
        "seconds": seconds,
        "codes": run.codes,
        "replays": replays_ok,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--frames", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    result = asyncio.run(run(args.frames, args.seed))
    print("| frames | replies | frames/s | server alive | replays exactly |")
    print("|---|---|---|---|---|")
    rate = result["frames"] / result["seconds"]
    print(
        f"| {result['frames']} | {result['replies']} | {rate:.0f} | {result['alive']} | {result['replays']} |"
    )
    print("error codes:", ", ".join(f"{code} {n}" for code, n in result["codes"].most_common()))


if __name__ == "__main__":
    main()

"""Soak benchmark: the project's bots race for a long time; memory, tasks and keys sampled.

    .venv/bin/python bench/soak.py --minutes 30 --bots 40

Starts a private redis-server and one ``solitaire-arena serve`` process (loopback only)
with short lifetimes for finished races and idle guests (``--ttl`` seconds, default 60),
then runs ``--bots`` of the project's bots (``client/bots``, random strategy, thinking
0.05-0.35 s before each move) racing each other by quick match. Every few races a bot
leaves and comes back as a new guest, so connections, guests and races keep coming and
going. Every ``--every`` seconds it
samples the node's resident memory, its asyncio tasks and connections (``/metrics``),
and Redis's memory and keys by family, printing one line per sample.

At the end the bots stop, the node is given a moment to close their sessions, and the
report says whether the run held up:

- **memory**: the node's RSS at the end against its RSS a third of the way in (after
  caches and pools warmed up): flat means within 10%;
- **tasks**: the node's asyncio tasks once the bots are gone against the count before
  they came (a leaked task per connection or race would show);
- **keys**: the key count's mean over the last quarter against the third quarter
  (races and guests expire, so it levels off: within 10%), and every key of a race, a
  guest, a token or a race code carrying an expiry (one without is a leak: it would
  stay forever).

Not part of the test suite: it runs for as long as asked (``--minutes``, default 30).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import statistics
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402

from bench.load import process_rss_kib, start_bench_node, stop_bench_node  # noqa: E402
from client.bots import Bot, RandomStrategy  # noqa: E402
from client.sdk import ArenaClient  # noqa: E402
from server.redis_embedded import EmbeddedRedis  # noqa: E402
from shared.protocol import MoveAck  # noqa: E402

#: Key families and whether their keys must carry an expiry once their race or guest is gone.
FAMILIES = (
    ("race", re.compile(r"^race:\{"), True),
    ("code", re.compile(r"^code:"), True),
    ("token", re.compile(r"^token:"), True),
    ("player", re.compile(r"^player:"), True),
    ("marker", re.compile(r":applied$"), True),
    ("queue", re.compile(r"^queue:\{"), False),
    ("other", re.compile(r""), False),
)
#: Races a bot plays before it leaves and comes back as a new guest.
RACES_PER_GUEST = 3


@dataclass
class Sample:
    at: float
    rss_kib: int
    tasks: int
    connections: int
    redis_kib: int
    keys: dict[str, int]
    races: int

    @property
    def total_keys(self) -> int:
        return sum(self.keys.values())


def family(key: str) -> str:
    for name, pattern, _expires in FAMILIES:
        if pattern.search(key):
            return name
    return "other"


def metric(url: str, name: str) -> int:
    with urllib.request.urlopen(f"{url}/metrics", timeout=5) as response:
        text = response.read().decode()
    found = re.search(rf"^{name} ([0-9.e+]+)$", text, re.MULTILINE)
    return int(float(found.group(1))) if found else 0


def count_keys(client: redis.Redis) -> tuple[dict[str, int], list[str]]:
    """Keys by family, and the keys of families that must expire but carry no expiry."""
    counts = {name: 0 for name, _p, _e in FAMILIES}
    must_expire = {name for name, _p, expires in FAMILIES if expires}
    forever: list[str] = []
    for key in client.scan_iter(count=1000):
        name = family(key)
        counts[name] += 1
        if name in must_expire and client.pttl(key) == -1:
            forever.append(key)
    return counts, forever


class ThinkingClient(ArenaClient):
    """A bot that thinks a little before each move, as people do (0.05-0.35 s)."""

    async def move(self, race_id: str, move: str, seq: int | None = None) -> MoveAck:
        await asyncio.sleep(random.uniform(0.05, 0.35))
        return await super().move(race_id, move, seq)


async def bot_life(url: str, number: int, stop: asyncio.Event, finished: list[int]) -> None:
    """One seat at the table: a guest races a few times, leaves, and a new guest sits down."""
    generation = 0
    while not stop.is_set():
        generation += 1
        client = await ThinkingClient.connect(url)
        try:
            await client.hello(name=f"soak-{number}-{generation}", bot=True)
            bot = Bot(client, "eight-off", lambda: RandomStrategy(seed=number), number=number, max_moves=120)
            for _ in range(RACES_PER_GUEST):
                if stop.is_set():
                    break
                if await bot.race() is not None:
                    finished.append(number)
        except Exception as exc:  # a bot's failure is reported, the soak goes on
            print(f"bot {number}: {exc!r}", file=sys.stderr)
            await asyncio.sleep(1)
        finally:
            await client.close()


async def soak(url: str, http: str, node_pid: int, client: redis.Redis, args: argparse.Namespace) -> int:
    stop = asyncio.Event()
    finished: list[int] = []
    idle_tasks = metric(http, "arena_tasks")
    bots = [asyncio.create_task(bot_life(url, n, stop, finished)) for n in range(1, args.bots + 1)]
    samples: list[Sample] = []
    started = time.monotonic()
    end = started + args.minutes * 60
    print(f"{'min':>6} {'rss MiB':>8} {'tasks':>6} {'conns':>6} {'redis MiB':>10} {'keys':>7} {'races':>7}")
    while time.monotonic() < end:
        await asyncio.sleep(min(args.every, max(0.0, end - time.monotonic())))
        counts, _forever = await asyncio.to_thread(count_keys, client)
        memory = await asyncio.to_thread(client.info, "memory")
        sample = Sample(
            at=time.monotonic() - started,
            rss_kib=process_rss_kib(node_pid),
            tasks=await asyncio.to_thread(metric, http, "arena_tasks"),
            connections=await asyncio.to_thread(metric, http, "arena_connections"),
            redis_kib=int(memory["used_memory"]) // 1024,
            keys=counts,
            races=len(finished) // 2,
        )
        samples.append(sample)
        print(
            f"{sample.at / 60:6.1f} {sample.rss_kib / 1024:8.1f} {sample.tasks:6d} {sample.connections:6d} "
            f"{sample.redis_kib / 1024:10.1f} {sample.total_keys:7d} {sample.races:7d}",
            flush=True,
        )
    stop.set()
    await asyncio.wait(bots, timeout=30)
    for task in bots:
        task.cancel()
    await asyncio.sleep(3)  # the node closes the sessions
    after_tasks = metric(http, "arena_tasks")
    _counts, forever = await asyncio.to_thread(count_keys, client)
    return report(samples, idle_tasks, after_tasks, forever)


def report(samples: list[Sample], idle_tasks: int, after_tasks: int, forever: list[str]) -> int:
    if len(samples) < 3:
        print("too short to judge: run for longer")
        return 1
    third, last = samples[len(samples) // 3], samples[-1]
    growth = (last.rss_kib - third.rss_kib) / third.rss_kib
    # Races and guests come and go, so the count swings; a leak shows as a trend: the
    # last quarter's mean against the third quarter's.
    count = len(samples)
    third_quarter = statistics.fmean(s.total_keys for s in samples[count // 2 : 3 * count // 4])
    last_quarter = statistics.fmean(s.total_keys for s in samples[3 * count // 4 :])
    key_growth = last_quarter / third_quarter - 1 if third_quarter else 0.0
    keys_ok = key_growth < 0.10
    print()
    print("| check | measured | verdict |")
    print("|---|---|---|")
    print(
        f"| node memory | {third.rss_kib / 1024:.1f} MiB at {third.at / 60:.0f} min -> "
        f"{last.rss_kib / 1024:.1f} MiB at {last.at / 60:.0f} min ({growth:+.1%}) | "
        f"{'flat' if abs(growth) < 0.10 else 'GROWS'} |"
    )
    tasks_ok = after_tasks <= idle_tasks + 2
    print(
        f"| asyncio tasks | {idle_tasks} before the bots, {after_tasks} after they left "
        f"(peak {max(s.tasks for s in samples)}) | {'none leaked' if tasks_ok else 'LEAK'} |"
    )
    print(
        f"| Redis keys, third quarter -> last quarter (mean) | {third_quarter:.0f} -> "
        f"{last_quarter:.0f} ({key_growth:+.1%}) | {'level' if keys_ok else 'GROWS'} |"
    )
    print(
        f"| keys that should expire but never will | {len(forever)} | {'none' if not forever else 'LEAK'} |"
    )
    print(f"\nraces finished: {last.races}; by family at the end: {last.keys}")
    for key in forever[:10]:
        print(f"  never expires: {key}")
    healthy = abs(growth) < 0.10 and tasks_ok and keys_ok and not forever
    return 0 if healthy else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--bots", type=int, default=40)
    parser.add_argument("--every", type=float, default=30.0, help="seconds between samples")
    parser.add_argument("--ttl", type=int, default=60, help="seconds finished races and idle guests are kept")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="arena-soak-") as tmp:
        redis_server = EmbeddedRedis(Path(tmp) / "redis")
        redis_url = redis_server.start()
        ttl = str(args.ttl)
        soak_env = {
            "SA_COUNTDOWN": "0.5",
            "SA_RACE_TTL": ttl,
            "SA_GUEST_TTL": ttl,
            "SA_QUICK_MATCH_TIME_LIMIT": "120",
            "SA_RATE_LIMIT": "50",
            "SA_RATE_BURST": "100",
        }
        node, port = start_bench_node(redis_url, soak_env)
        client = redis.Redis.from_url(redis_url, decode_responses=True)
        try:
            url, http = f"ws://127.0.0.1:{port}", f"http://127.0.0.1:{port}"
            print(f"soak: {args.bots} bots for {args.minutes:g} min, races and guests kept {args.ttl} s")
            return asyncio.run(soak(url, http, node.pid, client, args))
        finally:
            client.close()
            stop_bench_node(node)
            redis_server.stop()


if __name__ == "__main__":
    sys.exit(main())

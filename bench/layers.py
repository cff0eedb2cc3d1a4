"""Where a node's CPU goes in a flat-out run, layer by layer: sampled with py-spy.

    .venv/bin/python bench/layers.py --racers 1000 --seconds 8

Runs the flat-out scenario of ``bench/load.py`` (the same racers, client and private
Redis) against one node and samples that node with py-spy while the moves are counted.
Each sample is charged to the layer whose code it was running: the innermost frame that
belongs to the project or to one of its libraries (a frame of the standard library, say
an ``asyncio.Lock`` or a dataclass's ``__init__``, counts for the code that called it).
A sample that ends in the frame running the event loop (or has no such frame) was in
the loop's own native code: uvloop's scheduling and the sockets' system calls.

Only where a sample *was* is used, never the chain of callers above it: a coroutine
resumed by the event loop has no callers in a sample, which is what makes a sampling
profiler's inclusive times unreliable for an asyncio server (``bench/breakdown.py``
measures parts by taking them away instead). Prints each layer's share and its
microseconds of node CPU per move (the share times the CPU per move measured in the
same run), then the functions that cost most. py-spy attaches to the node with ptrace:
in a container that needs the ``SYS_PTRACE`` capability.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load import Scenario, row, run_client, run_server_bench, start_bench_node, stop_bench_node  # noqa: E402
from server.redis_embedded import EmbeddedRedis  # noqa: E402

#: The layers, each with the starts of the paths (as py-spy prints them: relative to
#: the project or to site-packages) of its code. The first match wins.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("websockets: connections and frames", ("websockets/",)),
    ("wire codec: shared/protocol, msgpack, pydantic", ("shared/protocol/", "msgpack/", "pydantic")),
    ("rules engine: shared/", ("shared/",)),
    ("features: server/features", ("server/features/",)),
    ("store: server/store, redis-py", ("server/store/", "redis/", "hiredis/")),
    ("server: transport, fan-out, app", ("server/",)),
    ("metrics: prometheus_client", ("prometheus_client/",)),
)
EVENT_LOOP = "event loop: uvloop, sockets (no Python frame)"
#: The file of the frame that runs the event loop: callbacks and coroutines the loop
#: runs show above it, and a sample that ends in it was in the loop's native code.
_LOOP_ENTRY = "asyncio/runners.py"


@dataclass(frozen=True)
class Frame:
    function: str
    path: str

    @classmethod
    def parse(cls, text: str) -> Frame:
        """``function (path:line)`` as py-spy writes it.

        >>> Frame.parse("Racing._move (server/features/racing.py:184)")
        Frame(function='Racing._move', path='server/features/racing.py')
        """
        function, _, where = text.rpartition(" (")
        return cls(function or text, where.rpartition(":")[0] if where else "")


def layer_of(path: str) -> str | None:
    """The layer a file belongs to; None for the standard library.

    >>> layer_of("shared/eight_off.py"), layer_of("shared/protocol/codec.py")
    ('rules engine: shared/', 'wire codec: shared/protocol, msgpack, pydantic')
    >>> layer_of("asyncio/locks.py") is None
    True
    """
    for name, starts in LAYERS:
        if path.startswith(starts):
            return name
    return None


def owner(stack: list[Frame]) -> tuple[str, str]:
    """The layer and function a sample is charged to: the innermost frame of a layer.

    >>> owner([Frame("Racing._move", "server/features/racing.py"), Frame("Lock.acquire", "asyncio/locks.py")])
    ('features: server/features', 'Racing._move (server/features/racing.py)')

    The loop's own frame ends the search: below it, the sample was in uvloop's code.

    >>> owner([Frame("main", "server/cli.py"), Frame("Runner.run", "asyncio/runners.py")])
    ('event loop: uvloop, sockets (no Python frame)', 'Runner.run (asyncio/runners.py)')
    """
    for frame in reversed(stack):
        if frame.path == _LOOP_ENTRY:
            break
        layer = layer_of(frame.path)
        if layer is not None:
            return layer, f"{frame.function} ({frame.path})"
    leaf = stack[-1] if stack else Frame("?", "?")
    return EVENT_LOOP, f"{leaf.function} ({leaf.path})"


@dataclass
class Profile:
    samples: int
    layers: Counter[str]
    functions: Counter[str]


def read_raw(lines: Iterable[str]) -> Profile:
    """py-spy's ``--format raw`` output: one stack per line (frames joined by ``;``,
    outermost first) and its sample count."""
    layers: Counter[str] = Counter()
    functions: Counter[str] = Counter()
    samples = 0
    for line in lines:
        stack_text, _, count_text = line.rstrip("\n").rpartition(" ")
        if not stack_text or not count_text.isdigit():
            continue
        count = int(count_text)
        layer, function = owner([Frame.parse(part) for part in stack_text.split(";")])
        layers[layer] += count
        functions[function] += count
        samples += count
    return Profile(samples, layers, functions)


def py_spy() -> str:
    found = shutil.which("py-spy") or shutil.which("py-spy", path=str(Path(sys.executable).parent))
    if found is None:
        raise SystemExit("py-spy is not installed: pip install -e '.[dev]'")
    return found


def profile_flat_out(racers: int, seconds: int, warmup: float, rate: int) -> tuple[Profile, float, float]:
    """The profile of a node flat out, its moves/s and its CPU microseconds per move."""
    sampler: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory(prefix="arena-layers-") as tmp:
        raw = Path(tmp) / "samples.txt"
        redis_server = EmbeddedRedis(Path(tmp) / "redis")
        redis_url = redis_server.start()
        try:
            node, port = start_bench_node(redis_url)
            command = [py_spy(), "record", "--pid", str(node.pid), "--format", "raw", "--rate", str(rate),
                       "--duration", str(seconds), "--nonblocking", "--output", str(raw)]  # fmt: skip

            def start_sampling() -> None:
                sampler.append(subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))

            try:
                scenario = Scenario("flat out, sampled", 0.0, seconds, warmup)
                tally, elapsed = run_client(
                    run_server_bench(f"ws://127.0.0.1:{port}", racers, scenario, node.pid, start_sampling)
                )
                if not sampler:
                    raise SystemExit("the run ended before its counted seconds began")
                _, errors = sampler[0].communicate(timeout=60)
                if sampler[0].returncode != 0 or not raw.exists():
                    raise SystemExit(f"py-spy failed: {errors.decode(errors='replace').strip()}")
            finally:
                stop_bench_node(node)
        finally:
            redis_server.stop()
        profile = read_raw(raw.read_text().splitlines())
    measured = row("flat out", "max", tally, elapsed)
    if measured.cpu_us == "-":
        raise SystemExit("the node's CPU time could not be read (no /proc?)")
    return profile, measured.rate, float(measured.cpu_us)


def print_layers(profile: Profile, rate: float, cpu_us: float, racers: int, seconds: int, top: int) -> None:
    print(f"\n{racers} racers flat out, {seconds} s sampled: {rate:.0f} moves/s, "
          f"{cpu_us:.0f} us of node CPU per move, {profile.samples} samples\n")  # fmt: skip
    print(f"| {'layer':<48} | {'share':>6} | {'us/move':>7} |")
    print(f"|{'-' * 50}|{'-' * 8}|{'-' * 9}|")
    for layer, count in profile.layers.most_common():
        share = count / profile.samples
        print(f"| {layer:<48} | {share:>6.1%} | {share * cpu_us:>7.1f} |")
    print(f"\nthe {top} functions that cost most (each with what it calls in the standard library)\n")
    print(f"| {'function':<72} | {'share':>6} | {'us/move':>7} |")
    print(f"|{'-' * 74}|{'-' * 8}|{'-' * 9}|")
    for function, count in profile.functions.most_common(top):
        share = count / profile.samples
        print(f"| {function[:72]:<72} | {share:>6.1%} | {share * cpu_us:>7.1f} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--racers", type=int, default=1000)
    parser.add_argument("--seconds", type=int, default=8, help="seconds sampled (whole seconds)")
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--rate", type=int, default=250, help="samples per second")
    parser.add_argument("--top", type=int, default=15, help="how many functions to list")
    args = parser.parse_args(argv)
    racers = max(2, args.racers - args.racers % 2)
    seconds = min(max(args.seconds, 1), 120)
    profile, rate, cpu_us = profile_flat_out(racers, seconds, args.warmup, max(10, args.rate))
    if not profile.samples:
        raise SystemExit("py-spy took no samples")
    print_layers(profile, rate, cpu_us, racers, seconds, args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where a move's time goes in a node, measured by taking its parts away one at a time.

    .venv/bin/python bench/breakdown.py --racers 1000 --seconds 8

A sampling profiler splits an asyncio server's time poorly: a coroutine resumed from
the event loop is often charged to whatever ran before it. This measures instead. It
runs the flat-out scenario of ``bench/load.py`` (the same racers, client and private
Redis) against nodes with less and less of a move's work, each in a process of its own,
then the bare websockets echo, and prints each node's CPU per move and its ratio to the
echo. The differences between rows are what the parts cost in place, with the event
loop, the garbage collector and a thousand connections around them:

1. the node as it is;
2. its garbage collector off (what collections cost);
3. no Redis: the move's MOVE call answers ``ok`` at once (everything else is done,
   the call's arguments encoded included);
4. no Redis and no opponent's progress frame;
5. no move handler at all: each move is answered with a ready ack carrying a fresh
   view of a dealt game (what is left is receiving, decoding, routing, encoding and
   sending: the framework around a move).

Only 1 is a node anyone would run: the others exist to be measured, here.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402

from bench.load import (  # noqa: E402
    Row,
    Scenario,
    measure_echo,
    row,
    run_client,
    run_server_bench,
    start_bench_node,
    stop_bench_node,
)
from server.redis_embedded import EmbeddedRedis  # noqa: E402


def _collector_off() -> None:
    from server.app import ArenaServer

    start = ArenaServer.start

    async def start_then_stop_collecting(self: ArenaServer) -> None:
        await start(self)
        gc.disable()

    ArenaServer.start = start_then_stop_collecting  # type: ignore[method-assign]


def _no_redis() -> None:
    from server.store import Answer, MoveOutcome
    from server.store.boards import BoardStore

    async def stored_at_once(
        self: BoardStore, race_id: str, player_id: str, seq: int, **kwargs: Any
    ) -> MoveOutcome:
        if kwargs["won"]:  # the race must still end when its racers are done
            return await self.finish(race_id, player_id, kwargs["now"], kwargs["event"])
        return MoveOutcome(Answer.OK, all_finished=False)

    BoardStore.apply_move = stored_at_once  # type: ignore[method-assign,assignment]


def _no_progress() -> None:
    from server.transport.fanout import Fanout

    Fanout.deliver_local = lambda self, event: None  # type: ignore[method-assign]


def _no_handler() -> None:
    from server.features.context import Caller, Reply
    from server.features.race_rules import view_of
    from server.features.racing import Racing
    from shared import new_game
    from shared.protocol import MakeMove

    dealt = new_game("eight-off", 1)
    result = {"move": "t1>r5", "steps": [["3H", "t1", "r5"]], "score_delta": 0, "score": 0, "won": False}

    async def ready_ack(self: Racing, caller: Caller, message: MakeMove) -> Reply:
        ack = {
            "type": "move_ack",
            "id": message.id,
            "race_id": message.race_id,
            "seq": message.seq,
            "result": result,
            "view": view_of(dealt, False),
            "finished": False,
        }
        return Reply(ack)

    Racing.make_move = ready_ack  # type: ignore[method-assign]


#: The variants, in order: what the row says, what is taken away, and the variant it is
#: compared with (the one with just that part more).
VARIANTS: dict[str, tuple[str, tuple[Callable[[], None], ...], str | None]] = {
    "full": ("1. the node as it is", (), None),
    "no-gc": ("2. garbage collector off", (_collector_off,), "full"),
    "no-redis": ("3. no Redis call", (_no_redis,), "full"),
    "no-progress": ("4. and no progress frame", (_no_redis, _no_progress), "no-redis"),
    "no-handler": ("5. a ready ack: no move handler", (_no_handler,), "no-progress"),
}


def serve_variant(variant: str, cli_args: list[str]) -> int:
    """This process becomes a node with ``variant``'s parts taken away."""
    for take_away in VARIANTS[variant][1]:
        take_away()
    from server.cli import main

    return main(cli_args)


def measure_variants(variants: list[str], racers: int, seconds: float, warmup: float) -> dict[str, Row]:
    """Each variant's node flat out, one after the other on one private Redis."""
    rows: dict[str, Row] = {}
    with tempfile.TemporaryDirectory(prefix="arena-breakdown-") as tmp:
        redis_server = EmbeddedRedis(Path(tmp) / "redis")
        redis_url = redis_server.start()
        try:
            for variant in variants:
                with redis.Redis.from_url(redis_url) as fresh:
                    fresh.flushall()  # each node starts from nothing: no racer still seated
                node, port = start_bench_node(redis_url, entry=(__file__, "--node", variant))
                try:
                    scenario = Scenario(variant, 0.0, seconds, warmup)
                    tally, elapsed = run_client(
                        run_server_bench(f"ws://127.0.0.1:{port}", racers, scenario, node.pid)
                    )
                finally:
                    stop_bench_node(node)
                rows[variant] = row(VARIANTS[variant][0], "max", tally, elapsed)
        finally:
            redis_server.stop()
    return rows


def print_breakdown(racers: int, seconds: float, rows: dict[str, Row], echo: Row) -> None:
    print(f"\n{racers} racers flat out, {seconds:g} s measured per node; one process each, loopback\n")
    head = ("node", "moves/s", "CPU us/move", "the part costs", "ratio to echo")
    print(f"| {head[0]:<36} | {head[1]:>8} | {head[2]:>11} | {head[3]:>16} | {head[4]:>13} |")
    print(f"|{'-' * 38}|{'-' * 10}|{'-' * 13}|{'-' * 18}|{'-' * 15}|")
    for variant, measured in [*rows.items(), ("echo", echo)]:
        base = VARIANTS[variant][2] if variant in VARIANTS else None
        part = ""
        if base in rows and measured.cpu_us != "-" and rows[base].cpu_us != "-":
            part = f"{float(rows[base].cpu_us) - float(measured.cpu_us):.0f} us (vs {VARIANTS[base][0][0]})"
        print(f"| {measured.name:<36} | {measured.rate:>8.0f} | {measured.cpu_us:>11} | {part:>16} "
              f"| {measured.rate / echo.rate:>13.2f} |")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--node"]:
        return serve_variant(argv[1], argv[2:])
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--racers", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--only", nargs="+", choices=list(VARIANTS), help="run these variants only")
    args = parser.parse_args(argv)
    racers = max(2, args.racers - args.racers % 2)
    rows = measure_variants(args.only or list(VARIANTS), racers, args.seconds, args.warmup)
    echo = row("bare websockets echo", "max", *measure_echo(racers, args.seconds))
    print_breakdown(racers, args.seconds, rows, echo)
    return 0


if __name__ == "__main__":
    sys.exit(main())

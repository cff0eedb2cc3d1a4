"""``solitaire-arena serve``: run a node.

Every option has an environment variable (see :data:`server.config.ENV_VARS`); an
option given on the command line wins over the environment.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
from collections.abc import Callable

from server import logs
from server.app import ArenaServer
from server.config import Settings


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="solitaire-arena", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run a race server node")
    serve.add_argument("--host", help="address to listen on (SA_HOST, default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (SA_PORT, default 8765; 0 picks one)")
    serve.add_argument(
        "--redis-url",
        help="Redis to use (REDIS_URL); without it a private redis-server runs in --data-dir",
    )
    serve.add_argument("--data-dir", help="embedded Redis data directory (SA_DATA_DIR, ./data)")
    serve.add_argument("--countdown", type=float, help="seconds before a race starts")
    serve.add_argument("--log-level", help="DEBUG, INFO, WARNING (SA_LOG_LEVEL)")
    serve.add_argument("--log-format", choices=("json", "text"), help="SA_LOG_FORMAT")
    return parser


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's faster event loop when it is installed (Linux, macOS); else asyncio's."""
    try:
        import uvloop
    except ImportError:
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    settings = Settings.from_env(
        host=args.host,
        port=args.port,
        redis_url=args.redis_url,
        data_dir=args.data_dir,
        countdown=args.countdown,
        log_level=args.log_level,
        log_format=args.log_format,
    )
    logs.configure(settings.log_level, settings.log_format)

    def ready(node: ArenaServer) -> None:
        gc.freeze()  # what startup allocated is never garbage: keep it out of collections
        print(f"solitaire-arena listening on {node.url}", flush=True)

    # The collector's pauses are the server's latency tail (bench/load.py). A young
    # generation of 5,000 objects keeps each pause to a few milliseconds (a move waiting
    # on Redis holds few objects, but a burst of new connections brings many); a middle
    # generation collected every 5 young ones keeps those short too; full collections,
    # which walk every board and connection, wait for 1,000 middle ones.
    gc.set_threshold(5_000, 5, 1_000)

    try:
        with asyncio.Runner(loop_factory=loop_factory()) as runner:
            runner.run(ArenaServer(settings).run(ready))
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        print(f"solitaire-arena: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

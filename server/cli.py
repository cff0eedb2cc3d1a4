"""``solitaire-arena``: the command line of Solitaire Arena."""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import sys
import textwrap
from collections.abc import Callable
from dataclasses import fields
from typing import TYPE_CHECKING, NoReturn

from client import cli as player_commands
from server import logs
from server.config import CHOICES, ENV_VARS, HELP, SettingError, Settings, unknown_variables

if TYPE_CHECKING:
    from server.app import ArenaServer

_DESCRIPTION = (
    "Race other people on the same solitaire deal: Eagle Wing, Treize and Eight Off. "
    "'serve' runs a server; 'play' and 'replay' are for players."
)
_SERVE_DESCRIPTION = (
    "Run a race server node. Without --redis-url it starts its own redis-server with "
    "append-only persistence in --data-dir. Every option has an environment variable; "
    "an option given on the command line wins over the environment."
)
#: Flags the parser checks itself (log levels are checked in any case by the settings).
_CHOICES = {name: CHOICES[name] for name in ("log_format", "redis_fsync", "pubsub")}


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _unless_empty(kind: type) -> Callable[[str], object]:
    """A flag's conversion to ``kind`` where an empty value is None: not given, as an
    empty environment variable is (``--host ""`` listened on every address, ``SA_HOST=``
    on the default)."""

    def convert(raw: str) -> object:
        return None if raw == "" else kind(raw)

    convert.__name__ = kind.__name__  # argparse's "invalid float value: 'abc'"
    return convert


class _Choices(tuple[str, ...]):
    """A flag's choices, which also let an empty value (None) through."""

    def __contains__(self, value: object) -> bool:
        return value is None or super().__contains__(value)


def _environment_table() -> str:
    width = max(len(v) for v in ENV_VARS.values())
    lines = [f"  {var.ljust(width)}  {HELP[name]}" for name, var in ENV_VARS.items()]
    return "environment variables:\n" + "\n".join(lines)


class _OneLineParser(argparse.ArgumentParser):
    """A command line it cannot read is one line on stderr (exit 2), as every other failure
    of the commands is, not the whole usage before it. Its sub-commands' parsers are of
    this class too (``add_subparsers`` makes them of the parent's)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _OneLineParser(prog="solitaire-arena", description=_DESCRIPTION)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve = commands.add_parser(
        "serve",
        help="run a race server node",
        description=textwrap.fill(_SERVE_DESCRIPTION, 80),
        epilog=_environment_table(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    defaults = Settings()
    kinds = {f.name: f.type for f in fields(Settings)}
    for name, var in ENV_VARS.items():
        default = getattr(defaults, name)
        shown = repr(default) if default == "" else default
        kind = {"int": int, "float": float}.get(str(kinds[name]), str)
        choices = _CHOICES.get(name)
        serve.add_argument(
            _flag(name),
            dest=name,
            type=_unless_empty(kind),
            choices=None if choices is None else _Choices(choices),
            help=f"{HELP[name]} (env {var}, default {shown})",
        )
    player_commands.add_commands(commands)
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
    if args.command != "serve":
        return player_commands.run(args)
    try:
        settings = Settings.from_env(**{name: getattr(args, name) for name in ENV_VARS})
    except ValueError as exc:  # a SettingError: one line naming the setting
        print(f"solitaire-arena: {exc}", file=sys.stderr)
        return 2
    logs.configure(settings.log_level, settings.log_format)
    for variable in unknown_variables(os.environ):
        logging.getLogger("arena.config").warning("not a setting: ignored", extra={"variable": variable})
    # Only a node needs the server (players' commands start faster without it).
    from server.app import ArenaServer, StartupError
    from server.redis_embedded import EmbeddedRedisError

    def ready(node: ArenaServer) -> None:
        gc.freeze()  # what startup allocated is never garbage: keep it out of collections
        browser = node.url.replace("ws://", "http://", 1) + "/"
        print(f"solitaire-arena listening on {node.url} (in a browser: {browser})", flush=True)

    # The collector's pauses are the server's latency tail (bench/load.py), and its
    # collections a few microseconds of every move: each young collection walks every
    # move then waiting on Redis (a thousand racers flat out: some 20,000 objects),
    # whatever the threshold, so the fewer the better. A young generation of 10,000
    # objects keeps each pause to about 10 ms with a thousand racers flat out (a quarter
    # of the collections of 5,000, and some 2 us per move less), and shorter at a paced
    # load; a middle generation collected every 5 young ones keeps those short too; full
    # collections, which walk every board and connection, wait for 1,000 middle ones.
    gc.set_threshold(10_000, 5, 1_000)

    try:
        with asyncio.Runner(loop_factory=loop_factory()) as runner:
            runner.run(ArenaServer(settings).run(ready))
    except KeyboardInterrupt:
        pass
    except SettingError as exc:  # one only the start could find (SA_ARCHIVE_DIR, SA_DATA_DIR)
        print(f"solitaire-arena: {exc}", file=sys.stderr)
        return 2
    except (OSError, ValueError, StartupError, EmbeddedRedisError) as exc:
        print(f"solitaire-arena: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

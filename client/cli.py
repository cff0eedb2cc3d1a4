"""The player's commands of ``solitaire-arena``: ``play``, ``replay`` and ``bot``.
``server/cli.py`` builds the command line and hands these over; this module uses the
SDK, the terminal UI and the bots only.

Every failure is one readable line on stderr and a non-zero exit status.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import os
import random
import re
import sys
from collections.abc import Callable, Coroutine
from typing import Any

from websockets.exceptions import InvalidHandshake, InvalidStatus

from client.credentials import TokenStore
from client.errors import ArenaError, RateLimitedError
from client.sdk import ArenaClient
from shared.games import GAMES
from shared.protocol import MatchFound, RaceSummary

#: Where the commands connect unless told otherwise.
DEFAULT_SERVER = "ws://127.0.0.1:8765"
#: Seconds ``play`` waits for a quick-match opponent by default.
DEFAULT_WAIT = 300.0
_GAME_NAMES = sorted(GAMES)


def default_server() -> str:
    return os.environ.get("SOLITAIRE_ARENA_SERVER", DEFAULT_SERVER)


def default_name() -> str:
    """The account's login name, trimmed to what the server accepts as a guest name."""
    try:
        login = getpass.getuser()
    except (KeyError, OSError):
        login = ""
    cleaned = re.sub(r"[^\w .-]", "", login)[:24].strip(" ._-")
    return cleaned or "player"


def add_commands(commands: Any) -> None:
    """Add the player's commands to the ``solitaire-arena`` sub-command parser."""
    play = commands.add_parser(
        "play",
        help="race in the terminal: quick match, or create or join a race",
        description=(
            "Race in the terminal. By default you are quick-matched with the next player "
            "who wants the same game; --create opens a race for friends (its code is "
            "printed) and --join CODE sits in one. Your guest token is kept in your "
            "credentials file, so the same --name resumes the same player. In the race, "
            "type a move in the notation, or 'undo' (key u) to take the last one back, "
            "or 'hint' (key h) for a suggested move where the race allows hints (races "
            "you create do unless --no-hints; quick matches never do). After the end, "
            "'rematch' (key r) offers the same racers a new deal, and 'yes'/'no' (keys "
            "y/n) answer someone else's offer; ctrl+g gives up, ctrl+r replays, ctrl+q quits."
        ),
    )
    play.add_argument("game", nargs="?", default="eight-off", choices=_GAME_NAMES, help="default eight-off")
    way = play.add_mutually_exclusive_group()
    way.add_argument("--create", action="store_true", help="open a new race and print its code")
    way.add_argument("--join", metavar="CODE", help="sit in the race with this code")
    play.add_argument("--seats", type=int, default=2, help="seats of a created race (default 2)")
    play.add_argument(
        "--time-limit", type=float, default=600.0, help="seconds of a created race (default 600)"
    )
    play.add_argument(
        "--no-hints",
        dest="hints",
        action="store_false",
        help="a created race allows no hints for anyone (default: hints allowed)",
    )
    play.add_argument(
        "--wait", type=float, default=DEFAULT_WAIT, help="seconds to wait for an opponent (default 300)"
    )
    _common(play)

    replay = commands.add_parser(
        "replay",
        help="step through a finished race, or print its move log",
        description=(
            "Step through a finished race in the terminal (every racer's moves from the "
            "deal), or with --json print its results and move log for scripts."
        ),
    )
    replay.add_argument("race", help="the race id")
    replay.add_argument("--json", action="store_true", help="print results and moves as JSON and exit")
    _common(replay)

    bot = commands.add_parser(
        "bot",
        help="run bots that wait in quick-match queues and race whoever comes",
        description=(
            "Run bots that queue for quick matches and race whoever comes, again and "
            "again, until interrupted (or --races each). They are marked as bots, see only "
            "what any racer sees, and print one line per race."
        ),
    )
    bot.add_argument("--count", type=int, default=1, help="how many bots (default 1)")
    bot.add_argument(
        "--strategy", choices=("random", "search"), default="search", help="how they choose (default search)"
    )
    bot.add_argument("--game", default="eight-off", choices=_GAME_NAMES, help="default eight-off")
    bot.add_argument("--races", type=int, help="races per bot, then stop (default: until interrupted)")
    bot.add_argument("--json", action="store_true", help="print each race's result as a JSON line")
    bot.add_argument("--server", default=default_server(), help=f"server address (default {DEFAULT_SERVER})")


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server",
        default=default_server(),
        help=f"server address (env SOLITAIRE_ARENA_SERVER, default {DEFAULT_SERVER})",
    )
    parser.add_argument("--name", default=default_name(), help="your player name (default: your login)")


def run(args: argparse.Namespace) -> int:
    """Run one player command; its exit status."""
    commands: dict[str, Callable[[argparse.Namespace], Coroutine[Any, Any, int]]] = {
        "play": play,
        "replay": replay,
        "bot": bots,
    }
    try:
        return asyncio.run(commands[args.command](args))
    except KeyboardInterrupt:
        return 130
    except ArenaError as exc:
        return fail(f"{exc.code}: {exc.message}")
    except InvalidStatus as exc:
        body = exc.response.body.decode(errors="replace").strip()
        return fail(f"the server refused the connection ({exc.response.status_code}): {body}")
    except (OSError, InvalidHandshake) as exc:
        return fail(f"cannot reach {args.server}: {exc}")
    except TimeoutError:
        return fail("timed out waiting for the server")


def fail(line: str) -> int:
    print(f"solitaire-arena: {line}", file=sys.stderr)
    return 1


async def _signed_in(args: argparse.Namespace, legal_moves: bool = False) -> ArenaClient:
    client = await ArenaClient.connect(args.server, reconnect=True, open_timeout=10)
    try:
        await client.sign_in(args.name, TokenStore(), legal_moves=legal_moves)
    except BaseException:
        await client.close()
        raise
    return client


async def play(args: argparse.Namespace) -> int:
    from client.tui.app import run_play  # textual loads only for the commands that draw

    if not args.hints and not args.create:
        return fail("--no-hints is for --create: a joined race has its own setting, a quick match none")
    # With legal moves, every view also says whether an undo would be accepted (key u).
    client = await _signed_in(args, legal_moves=True)
    try:
        if args.join:
            race = await client.join_race(args.join.strip().upper())
            race_id = race.race_id
        elif args.create:
            race = await client.create_race(
                args.game, seats=args.seats, time_limit=args.time_limit, hints=args.hints
            )
            race_id = race.race_id
            join = f"solitaire-arena play --join {race.code}"
            hints = "hints on" if race.hints else "hints off"
            print(f"race {race.code} created ({hints}): others join with  {join}")
        else:
            await client.quick_match(args.game)
            print(f"waiting for someone to race at {args.game} (up to {args.wait:g} s)…", flush=True)
            try:
                found = await client.wait_for(MatchFound, timeout=args.wait)
            except TimeoutError:
                await client.cancel_quick_match()
                return fail(f"nobody else wanted {args.game} within {args.wait:g} s; try again later")
            race_id = found.race.race_id
        if args.join or args.create:
            await client.ready(race_id)
        await run_play(client, race_id)
    finally:
        await client.close()
    return 0


async def replay(args: argparse.Namespace) -> int:
    client = await _signed_in(args)
    try:
        log = await client.move_log(args.race)
        summary = await client.results(args.race)
        if args.json:
            document = {
                "summary": summary.model_dump(mode="json"),
                "moves": [m.model_dump(mode="json") for m in log.moves],
            }
            print(json.dumps(document, indent=2))
            return 0
        from client.tui.app import run_replay

        await run_replay(client, args.race)
    finally:
        await client.close()
    return 0


async def bots(args: argparse.Namespace) -> int:
    if args.count < 1:
        return fail("--count must be at least 1")
    store = TokenStore()
    fleet = [asyncio.create_task(_run_bot(args, number, store)) for number in range(1, args.count + 1)]
    try:
        await asyncio.gather(*fleet)
    finally:
        for task in fleet:
            task.cancel()
        await asyncio.gather(*fleet, return_exceptions=True)
    return 0


async def _run_bot(args: argparse.Namespace, number: int, store: TokenStore) -> None:
    from client.bots import Bot, RandomStrategy, SearchStrategy, Strategy

    def new_strategy() -> Strategy:
        seed = f"{number}-{random.random()}"
        return SearchStrategy(seed=seed) if args.strategy == "search" else RandomStrategy(seed=seed)

    client = await ArenaClient.connect(args.server, reconnect=True, open_timeout=10)
    try:
        bot = Bot(client, args.game, new_strategy, number=number, wait=float("inf"))
        while True:
            try:
                await client.sign_in(bot.name, store, bot=True)
                break
            except RateLimitedError:  # new guests from one address come at a limited rate
                await asyncio.sleep(5.0)
        played = 0
        while args.races is None or played < args.races:
            summary = await bot.race()
            played += 1
            _report(bot.name, client.player_id, summary, args.json)
    finally:
        await client.close()


def _report(name: str, player_id: str | None, summary: RaceSummary | None, as_json: bool) -> None:
    if summary is None:
        line: dict[str, Any] = {"name": name, "cancelled": True}
        print(json.dumps(line) if as_json else f"{name}: race cancelled", flush=True)
        return
    mine = next(s for s in summary.standings if s.player_id == player_id)
    if as_json:
        line = {"race_id": summary.race_id, "game": summary.game, **mine.model_dump(mode="json")}
        print(json.dumps(line), flush=True)
        return
    result = (
        f"won in {mine.time_ms / 1000:.1f} s"
        if mine.won and mine.time_ms is not None
        else f"{mine.score} cards home"
    )
    rank = f"rank {mine.rank}/{len(summary.standings)}"
    print(f"{name}: race {summary.race_id} ({summary.game}) {rank}, {result}", flush=True)

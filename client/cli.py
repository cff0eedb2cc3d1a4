"""The player's commands of ``solitaire-arena``: ``play``, ``replay``, ``bot``, the
account's ``register``, ``login`` and ``logout``, ``profile`` and ``leaderboard``,
``daily`` (the day's deals, an attempt of one, its board, the daily tournament), and the
spectator's ``live`` (the races being played), ``watch`` (one of them, or the featured
one), ``export`` (a finished race's record) and ``verify`` (a record, offline).
``server/cli.py`` builds the command line and hands these over; this module uses the
SDK, the terminal UI, the bots and ``shared`` only.

Who plays: ``--name NAME`` picks the player saved under that name in the credentials file
(a guest, created on first use, or an account's username); without it, the account
logged in on the server (``register`` or ``login``), else a guest named after your login.
``profile`` only reads, and creates no guest: someone else's without signing in, your own
only once a player is saved.

Every failure is one readable line on stderr (wrapped between words on a terminal) and a
non-zero exit status.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import datetime as dt
import functools
import getpass
import hashlib
import io
import json
import math
import os
import random
import re
import shlex
import shutil
import signal
import socket
import sys
import textwrap
import unicodedata
from collections import Counter
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from pydantic import ValidationError
from websockets.exceptions import InvalidHandshake, InvalidStatus, InvalidURI
from websockets.uri import parse_uri

from client.columns import clipped, clipped_name, padded, split_to_fit, width
from client.credentials import Credential, CredentialsError, TokenStore
from client.errors import (
    AlreadyQueuedError,
    AlreadyRacingError,
    ArenaError,
    BadLoginError,
    BadTokenError,
    DailyAttemptedError,
    DailyNotAttemptedError,
    QueueLeftError,
    RaceNotFoundError,
    RaceNotOverError,
    RaceOverError,
    RateLimitedError,
    UsernameTakenError,
)
from client.sdk import GAVE_UP, ArenaClient, player_token
from client.shares import ShareFile
from client.suggestions import (
    DEFAULT_SERVER,
    WIDTH,
    default_guest,
    default_name,
    default_server,
    fitted,
    glued,
    login_command,
    player_options,
    said_lines,
)
from client.watching import WatchedRace, ended_unseen, ranking_lines
from client.wording import (
    change_words,
    place_words,
    refusal_words,
    result_words,
    seconds_words,
    standing_words,
    validation_line,
)
from shared.daily_words import reveal_words, utc_minute
from shared.games import GAMES, GameName
from shared.password_rules import check_password
from shared.protocol import (
    DAILY_BOARD_LIMIT_MAX,
    LIVE_LIMIT_MAX,
    Dailies,
    DailyBoard,
    DailyInfo,
    DailyStandings,
    Leaderboard,
    LiveRace,
    MatchFound,
    MoveLog,
    PlayerProfile,
    QueueLeftReason,
    RaceCancelled,
    RaceEnded,
    RaceInfo,
    RaceSummary,
    TableEntry,
    TournamentEntry,
    Welcome,
    check_name,
)
from shared.protocol.accounts import PASSWORD_MAX, PASSWORD_MIN
from shared.protocol.base import NAME_MAX
from shared.protocol.lobby import TIME_LIMIT_MAX, TIME_LIMIT_MIN
from shared.protocol.profiles import LEADERBOARD_LIMIT_MAX
from shared.ranking import shares_rank
from shared.record import RaceRecord, RecordRejected, RecordSyntaxError, read_record, verify_record
from shared.usernames import check_username

if TYPE_CHECKING:
    from client.tui.race_state import DailyRun

#: The server's limits on a race code and a created race's seats (``JoinRace``, ``CreateRace``).
JOIN_CODE = re.compile(r"[A-Za-z0-9]{4,12}")
SEATS_MIN, SEATS_MAX = 2, 8
#: Seconds ``play`` waits for a quick-match opponent by default.
DEFAULT_WAIT = 300.0
_GAME_NAMES = sorted(GAMES)
#: Rows ``leaderboard`` prints unless told otherwise.
DEFAULT_LIMIT = 20
#: The most a bot may be told to take over a move, on average (``bot --think``).
MAX_THINK = 60.0


class CommandError(Exception):
    """A refusal of the command itself: its one line goes to stderr."""


#: What a race id is made of (as the protocol's ``RaceId``), and a race's code.
_RACE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_RACE_CODE = re.compile(r"[A-Z0-9]{6}")


def race_id_argument(text: str) -> str:
    """A command's race id, checked before anything is asked of the server.

    >>> race_id_argument("7468094893ca")
    '7468094893ca'
    >>> race_id_argument("a/b")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 'a/b' is not a race id: ids are letters, digits, _ and - (profile ...)
    """
    if not _RACE_ID.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a race id: ids are letters, digits, _ and - "
            "(profile lists your latest races with theirs)"
        )
    return text


def race_not_found_words(race_id: str, message: str) -> str:
    """The server's race_not_found, with a word on a race's code given for its id.

    >>> race_not_found_words("WF7QH9", "there is no race 'WF7QH9'")  # doctest: +NORMALIZE_WHITESPACE
    "there is no race 'WF7QH9'; WF7QH9 looks like a race's code (what friends join with):
    this command takes the race's id, which the race's end and profile give"
    """
    if not _RACE_CODE.fullmatch(race_id):
        return message
    return (
        f"{message}; {race_id} looks like a race's code (what friends join with): this command "
        "takes the race's id, which the race's end and profile give"
    )


def add_commands(commands: Any) -> None:
    """Add the player's commands to the ``solitaire-arena`` sub-command parser."""
    play = commands.add_parser(
        "play",
        help="race in the terminal: quick match, or create or join a race",
        description=(
            "Race in the terminal. By default you are quick-matched with the next player "
            "who wants the same game (rated and paired by rating when you play as an "
            "account, casual for a guest); --create opens a race for friends (its code is "
            "printed; --rated makes it change its racers' ratings, accounts only) and "
            "--join CODE sits in one. You play as the account you logged in with "
            "(register, login), else as a guest whose token is kept in your credentials "
            "file, so the same --name resumes the same player; a play while you are still "
            "racing in a race resumes that race. In the lobby of a race you created or "
            "joined, press r (or Enter) when ready: the race starts once at least two racers "
            "sit and all are ready, and you are ready by yourself once every seat is taken "
            "(ctrl+q in the lobby leaves the race). A creator may start sooner (the SDK's "
            "start): a rated race then starts with its ready racers only, and the lobby of "
            "one not ready says the race started without them. In the race, "
            "type a move in the notation, or 'undo' (key u) to take the last one back, "
            "or 'hint' (key h) for a suggested move where the race allows hints (casual "
            "races you create do unless --no-hints; quick matches and rated races never "
            "do). After the end, "
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
        "--rated",
        action="store_true",
        help="a created race changes its racers' ratings; accounts only, no hints (default: casual)",
    )
    play.add_argument(
        "--casual",
        action="store_true",
        help=(
            "an account's quick match waits in the casual queue, with guests and bots, for an "
            "unrated race (default: rated, with accounts only)"
        ),
    )
    play.add_argument(
        "--no-hints",
        dest="hints",
        action="store_false",
        help="a created race allows no hints for anyone (default: hints allowed in a casual race)",
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
            "deal), or with --json print its results and move log for scripts. When the "
            "output is not a terminal, print every move (its time and racer) and the results "
            "as plain text instead. Your own daily attempt replays before its day is closed "
            "from the server's boards (its seed comes out at the close)."
        ),
    )
    replay.add_argument("race", type=race_id_argument, help="the race id")
    replay.add_argument("--json", action="store_true", help="print results and moves as JSON and exit")
    _common(replay)

    register = commands.add_parser(
        "register",
        help="make your saved guest an account with a username and password",
        description=(
            "Turn the guest saved for --name (default: your login) on this server into an "
            "account: its player and races stay, its name becomes the username. The "
            "credentials file then keeps the account's new token under the username (the "
            "guest's stops working), and play, "
            "replay, profile and leaderboard use this account. A username has 3-20 "
            "letters and digits of one script (or Han with kana or Hangul), '_' and '-'; "
            "a password 8-128 characters. "
            "Both are asked for (the password twice, not shown) unless given by "
            "--username and --password-stdin."
        ),
    )
    _credentials(register)
    _common(register, name_help="the guest to register (default: your login)")

    login = commands.add_parser(
        "login",
        help="log in to your account on this server and keep its token",
        description=(
            "Log in with your username and password (asked for unless given by --username "
            "and --password-stdin). The new token is kept in your credentials file, and "
            "play, replay, profile and leaderboard then use this account on this server, "
            "on this device, until logout."
        ),
    )
    _credentials(login)
    login.add_argument("--server", default=default_server(), help=_SERVER_HELP)

    logout = commands.add_parser(
        "logout",
        help="revoke the token of the account logged in here and forget it",
        description=(
            "Log the account out on this server: the server revokes the token saved here "
            "(other devices keep theirs) and the credentials file forgets it. The commands "
            "then play as a guest until the next login."
        ),
    )
    logout.add_argument("--server", default=default_server(), help=_SERVER_HELP)
    logout.add_argument(
        "--name", help="the saved account to log out (default: the one logged in on the server)"
    )

    password = commands.add_parser(
        "password",
        help="change the password of the account logged in here",
        description=(
            "Change the password of the account logged in on this server (the old one is "
            "asked for and checked first, then the new one twice, not shown; with "
            "--password-stdin they are stdin's first two lines). Every token of the account "
            "stops working; the server gives this device a new one, kept here. A password has 8-128 "
            "characters."
        ),
    )
    password.add_argument("--server", default=default_server(), help=_SERVER_HELP)
    password.add_argument("--name", help="the saved account (default: the one logged in on the server)")
    password.add_argument(
        "--password-stdin",
        action="store_true",
        help="read the old password, then the new one, from stdin's first two lines (default: asked for)",
    )

    rename = commands.add_parser(
        "rename",
        help="give your saved guest a new name, keeping its races and results",
        description=(
            "Give the guest saved for --name (default: your login) on this server a new "
            "name: the same player, with its races and results; its seats in races not "
            "over show the new name, finished races keep the old one. The credentials file "
            "keeps its token under the new name: --name OLD_NAME then no longer finds it, "
            "--name NEW_NAME does, and the guest the commands play as without --name (named "
            "after your login) goes on being played as without it. An account goes by its "
            "username. Ten renames an hour at most."
        ),
    )
    rename.add_argument(
        "new_name", metavar="NEW_NAME", help="the new name (1-24 letters, digits, spaces, _ . -)"
    )
    _common(rename, name_help="the guest to rename (default: the one played as without --name)")

    profile = commands.add_parser(
        "profile",
        help="a player's ratings, race counts and latest races",
        description=(
            "Print a player's profile: name, username (or guest), bot mark, each game's "
            "rating ('1500?' while provisional) with the rated races behind it, races, deals won "
            "and fastest win per game, and the latest races with their ids (for replay). "
            "Your own without USERNAME, once you have played here (it creates no guest)."
        ),
    )
    profile.add_argument("username", nargs="?", metavar="USERNAME", help="an account's username")
    profile.add_argument("--id", dest="player_id", metavar="PLAYER_ID", help="a player by id (guests too)")
    _common(profile)

    leaderboard = commands.add_parser(
        "leaderboard",
        help="a game's best rated accounts",
        description=(
            "Print a page of a game's leaderboard: accounts with a settled rating, best "
            "first (rank, name, rating, rated races), and your own place when you are on it."
        ),
    )
    leaderboard.add_argument(
        "game", nargs="?", default="eight-off", choices=_GAME_NAMES, help="default eight-off"
    )
    leaderboard.add_argument("--offset", type=int, default=0, help="skip this many places (default 0)")
    leaderboard.add_argument(
        "--limit",
        type=int,
        default=DEFAULT_LIMIT,
        help=f"places to print, 1-{LEADERBOARD_LIMIT_MAX} (default {DEFAULT_LIMIT})",
    )
    _common(leaderboard)

    daily = commands.add_parser(
        "daily",
        help="the day's deals: list them, play one (one scored attempt a day), see its board",
        description=(
            "Every UTC day has one deal per game, the same for everyone. Without GAME, list "
            "the day's deals: each one's commitment (shortened), whether the solver proved it "
            "winnable, your attempt and its result, and the time until the next day. With "
            "GAME, play today's deal of it in the terminal, a race of one: an account's first "
            "attempt is its scored one (no hints) and goes on the day's board, a guest's is "
            "unscored; after it, --practice (or p at the end) plays it again, unscored. "
            "--board prints the day's board of GAME (rank, name, time of a win or cards "
            "home, your place and your race id; everyone's once the day closes). --date YYYY-MM-DD "
            "lists or ranks a past day, with its seeds and salts to check the commitments. "
            "--standings prints the daily tournament (points by place on each game's board): "
            "the day's standing with each player's places, its week's and the all-time "
            "tables (top 20) and your streak. In your scored attempt, g (or 'ghosts') races "
            "the day's best three finished attempts as ghosts."
        ),
    )
    daily.add_argument("game", nargs="?", choices=_GAME_NAMES, help="play (or with --board, rank) this game")
    daily.add_argument(
        "--practice", action="store_true", help="play today's deal again, unscored, after your attempt"
    )
    daily.add_argument("--board", action="store_true", help="print the day's board of GAME")
    daily.add_argument(
        "--standings",
        action="store_true",
        help="print the daily tournament: the day's standing, the week's and all-time tables, your streak",
    )
    daily.add_argument(
        "--date", metavar="YYYY-MM-DD", help="a past day (UTC) for the list, --board or --standings"
    )
    daily.add_argument(
        "--offset", type=int, default=0, help="with --board: skip this many places (default 0)"
    )
    daily.add_argument(
        "--limit",
        type=int,
        default=DEFAULT_LIMIT,
        help=f"with --board: places to print, 1-{DAILY_BOARD_LIMIT_MAX} (default {DEFAULT_LIMIT})",
    )
    _common(daily)

    live = commands.add_parser(
        "live",
        help="the races being played now, to watch",
        description=(
            "Print the races being played now (counting down or running), best first: the "
            "highest rated racer, then the most watched, then the newest. Each race has its "
            "id (for watch), game, rated or casual, status, spectators and how far behind its "
            "spectators see it (a rated race reaches them late: 30 s unless the server sets "
            "another delay), then its racers with their ratings, score and cards left. Daily "
            "challenge attempts are never listed."
        ),
    )
    live.add_argument("--game", choices=_GAME_NAMES, help="only the races of this game")
    live.add_argument(
        "--limit",
        type=int,
        default=DEFAULT_LIMIT,
        help=f"races to print, 1-{LIVE_LIMIT_MAX} (default {DEFAULT_LIMIT})",
    )
    _common(live)

    watch = commands.add_parser(
        "watch",
        help="watch a race being played, or the featured one, with every racer's board",
        description=(
            "Watch a race live in the terminal: one racer's board large, the others as "
            "compact cards (name, rating, score, cards left, last move), the clock, the "
            "spectators, and the results at the end. Tab or the keys 1-8 switch the large "
            "board, q quits. Without RACE, follow the featured race (the first of 'live' you "
            "do not race in), and the next one whenever it ends. A rated race reaches its spectators late "
            "(30 s unless the server sets another delay; the screen says how late, as "
            "'delayed 30 s'); you cannot watch a race you race in, nor a daily challenge "
            "attempt. With --plain, or when the output is not a terminal, print a "
            "line per move and event instead, and the ranking at the end: it stops when the "
            "race ends (the featured race: follows the next, until ctrl+c, unless --once)."
        ),
    )
    watch.add_argument(
        "race",
        nargs="?",
        metavar="RACE",
        type=race_id_argument,
        help="the race id (default: the featured race)",
    )
    watch.add_argument(
        "--plain", action="store_true", help="print a line per move and event instead of drawing the boards"
    )
    watch.add_argument(
        "--once",
        action="store_true",
        help="stop when the first race watched ends (default: the featured watch goes on to the next)",
    )
    _common(watch)

    export = commands.add_parser(
        "export",
        help="save a finished race's record, to check offline with verify",
        description=(
            "Fetch the record of a finished race (docs/record.md): its seed commitment, the "
            "server's seed and salt, the racers' seed shares, the racers and results, and "
            "every move with its time. Anyone can check it offline: solitaire-arena verify "
            "FILE. A daily challenge attempt's record waits for the end of its day."
        ),
    )
    export.add_argument("race", metavar="RACE", type=race_id_argument, help="the race id")
    export.add_argument("-o", "--output", metavar="FILE", help="write the record to FILE (default: stdout)")
    _common(export)

    verify = commands.add_parser(
        "verify",
        help="check a race record offline: its deal, every move and the results",
        description=(
            "Check a race record (from export) offline, without any server: that the "
            "commitment published before the race is the SHA-256 of the server's seed and "
            "salt, that the seed shares match their commitments, that the seed is their mix, "
            "that every racer's moves replay legally from that deal in time, and that the "
            "results follow from them (docs/record.md). On success prints the race and its "
            "results and exits 0; a record that fails a check exits 1 with the reason (its "
            "racer and move index); a file that is not a record exits 2 with its line."
        ),
    )
    verify.add_argument("file", metavar="FILE", help="the record ('-' reads it from stdin)")

    bot = commands.add_parser(
        "bot",
        help="run bots that wait in quick-match queues and race whoever comes",
        description=(
            "Run bots that queue for quick matches and race whoever comes, again and "
            "again, until interrupted (or --races each). They are marked as bots, see only "
            "what any racer sees, and print one line per race. After racing a person, a bot "
            "waits a few seconds for their rematch offer: it accepts while it has races left "
            "and declines after its last."
        ),
    )
    bot.add_argument("--count", type=int, default=1, help="how many bots (default 1)")
    bot.add_argument(
        "--first",
        type=int,
        default=1,
        metavar="NUMBER",
        help=(
            "the number of the first bot (default 1: bot-search-1, bot-search-2, ...); a bot "
            "command run beside another takes others, e.g. --first 5"
        ),
    )
    bot.add_argument(
        "--strategy", choices=("random", "search"), default="search", help="how they choose (default search)"
    )
    bot.add_argument("--game", default="eight-off", choices=_GAME_NAMES, help="default eight-off")
    bot.add_argument("--races", type=int, help="races per bot, then stop (default: until interrupted)")
    bot.add_argument(
        "--think",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help=(
            f"mean seconds a bot takes over each move, 0 to {MAX_THINK:g} (default 0: as fast as it "
            "chooses); 2 to 4 gives a person a race"
        ),
    )
    bot.add_argument("--json", action="store_true", help="print each race's result as a JSON line")
    bot.add_argument("--server", default=default_server(), help=_SERVER_HELP)


_SERVER_HELP = f"server address (env SOLITAIRE_ARENA_SERVER, default {DEFAULT_SERVER})"
_NAME_HELP = (
    "the saved guest or account to act as (default: the account logged in here, else a guest "
    "named after your login, or the name rename gave it)"
)


def _common(parser: argparse.ArgumentParser, name_help: str = _NAME_HELP) -> None:
    parser.add_argument("--server", default=default_server(), help=_SERVER_HELP)
    parser.add_argument("--name", help=name_help)


def _credentials(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--username", help="the account's username (default: asked for)")
    parser.add_argument(
        "--password-stdin",
        action="store_true",
        help="read the password from the first line of stdin, for scripts (default: asked for)",
    )


def draws_the_screen(args: argparse.Namespace) -> bool:
    """Whether the command, as given, opens the full-screen terminal UI."""
    if args.command == "play":
        return True
    if args.command == "daily":
        return args.game is not None and not (args.board or args.standings)
    if args.command == "replay":
        return not args.json and sys.stdout.isatty()
    if args.command == "watch":
        return not args.plain and sys.stdout.isatty()
    return False


def no_screen_here(args: argparse.Namespace) -> str | None:
    """Why this terminal cannot show the command's screen (a ``dumb`` or ``unknown`` one:
    no cursor to move, so the screen would redraw forever while a daily attempt's clock ran), said
    before anything starts; None when it can or the command draws none."""
    term = os.environ.get("TERM", "")
    if term.lower() not in ("dumb", "unknown") or not draws_the_screen(args):
        return None
    text = {"replay": ", or replay --json for text", "watch": ", or watch --plain for text"}
    return (
        f"this terminal (TERM={term}) cannot show the game's screen: run it in a terminal such as "
        f"xterm{text.get(args.command, '')}"
    )


def run(args: argparse.Namespace) -> int:
    """Run one player command; its exit status."""
    if isinstance(sys.stdout, io.TextIOWrapper):
        # An output that cannot encode a name's letters or a table's "…" (a Latin-1
        # console, a redirect on Windows) shows "?" for them, as stderr escapes them,
        # rather than end the command with a traceback.
        sys.stdout.reconfigure(errors="replace")
    if args.command == "verify":
        return verify(args)  # offline: no server, no event loop
    unfit = no_screen_here(args)
    if unfit is not None:
        return fail(unfit)
    given = getattr(args, "name", None)
    if given is not None:  # not given: the default player
        try:
            # As the server keeps it (NFC): a decomposed "Zoë" is the same player.
            args.name = _checked_name(given, "--name")
        except CommandError as exc:
            return fail(str(exc))  # before connecting, as the other options
    commands: dict[str, Callable[[argparse.Namespace], Coroutine[Any, Any, int]]] = {
        "play": play,
        "replay": replay,
        "bot": bots,
        "register": register,
        "login": login,
        "logout": logout,
        "password": change_password,
        "rename": rename_guest,
        "profile": profile,
        "leaderboard": leaderboard,
        "daily": daily,
        "live": live,
        "watch": watch,
        "export": export,
    }
    try:
        code = asyncio.run(commands[args.command](args))
        sys.stdout.flush()  # a closed pipe is found here, not at exit
        return code
    except KeyboardInterrupt:
        return 130
    except Terminated:
        return 128 + signal.SIGTERM
    except CommandError as exc:
        return fail(str(exc))
    except ArenaError as exc:  # the server's words; its code is for programs
        return fail(refusal_words(exc.code, exc.message))
    except ValidationError as exc:  # a value the protocol cannot carry, refused before sending
        return fail(validation_line(exc))
    except InvalidStatus as exc:
        body = exc.response.body.decode(errors="replace").strip()
        why = f": {body}" if body else f" (is {args.server} a solitaire-arena server?)"
        return fail(f"the server refused the connection ({exc.response.status_code}){why}")
    except InvalidURI:
        return fail(f"--server {args.server} is not a WebSocket address: ws://host:port or wss://host:port")
    except BrokenPipeError:
        # Whatever read the output stopped (``| head``): not the server's doing. Nothing
        # more is written, nor flushed at exit into the closed pipe.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except CredentialsError as exc:  # a local file, not the server: before the OSErrors
        return fail(str(exc))
    except (OSError, InvalidHandshake) as exc:
        return fail(f"cannot reach {args.server}: {unreachable(exc)}")
    except TimeoutError:
        return fail("timed out waiting for the server")


def unreachable(exc: OSError | InvalidHandshake) -> str:
    """Why a server could not be reached, in words rather than an errno.

    >>> unreachable(ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 9)"))
    'nothing listens there (is the server running?)'
    >>> unreachable(socket.gaierror(-2, "Name or service not known"))
    'no such host (Name or service not known)'
    >>> unreachable(OSError(113, "Connect call failed ('10.0.0.9', 80)"))
    "Connect call failed ('10.0.0.9', 80)"
    """
    if isinstance(exc, ConnectionRefusedError):
        return "nothing listens there (is the server running?)"
    if isinstance(exc, socket.gaierror):
        return f"no such host ({exc.strerror})"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)


#: How a player cancels a quick match another of their sessions waits in (the terminal has
#: no command of its own for it: a session's wait ends with it).
WAITING_ELSEWHERE: Final = (
    "Another of your sessions waits in it: Ctrl+C in the terminal that waits, or Cancel quick "
    "match on its page, cancels it"
)


async def quick_match(
    client: ArenaClient, game: GameName, wait: float, casual: bool = False
) -> MatchFound | str:
    """Wait in ``game``'s queue (an account's rated one, unless ``casual``) for up to
    ``wait`` seconds: the pairing, or why there is none. A place that lapsed (the server
    lost its store for a while) is taken again. A wait that ends otherwise (Ctrl+C,
    SIGTERM, a lost connection) leaves the queue first: the server would keep the player
    queued while another of their sessions is connected."""
    try:
        queued = await client.quick_match(game, casual=casual)
    except AlreadyQueuedError as exc:
        raise CommandError(f"{exc.message}. {WAITING_ELSEWHERE}") from None
    kind = "rated" if queued.rated else "casual"
    print(f"waiting for someone to race at {game} ({kind}, up to {wait:g} s)…", flush=True)
    try:
        with _terminate_stops_waiting(), _saying_connection(client):
            return await _wait_for_match(client, game, wait, casual)
    except ConnectionError:
        signed_out = _signed_out_error(client)
        if signed_out is not None:  # not a server out of reach: a session ended elsewhere
            raise signed_out from None
        raise
    finally:
        if client.queued_for is not None and _signed_out_error(client) is None:
            print(f"stopped waiting: {await _left_queue(client)}", flush=True)


def _signed_out_error(client: ArenaClient) -> CommandError | None:
    """Why the client's connection ended for good when the server refused to resume its
    player (signed out elsewhere, or a guest it no longer knows), and what to type next;
    None when it ended otherwise."""
    ended = client.ended
    if ended is None or not ended.signed_out:
        return None
    if ended.guest_gone:
        options = "" if client.url is None else player_options(client.url, client.name)
        return CommandError(f"{ended.words}: solitaire-arena play{options} plays as a new guest")
    return CommandError(f"{ended.words}: {login_command(client.url)} signs you in again")


#: Said while a wait goes on over a dropped connection that the client resumes, and once
#: it is back (as the race screen and the browser say it).
RECONNECTING = "connection lost: reconnecting…"
CONNECTED_AGAIN = "connected again"
#: Seconds between looks at the connection while the command waits.
CONNECTION_LOOK_EVERY = 0.2


@contextlib.contextmanager
def _saying_connection(client: ArenaClient) -> Iterator[None]:
    """Meanwhile, print :data:`RECONNECTING` when the connection drops and the client
    resumes it, and :data:`CONNECTED_AGAIN` once it is back, at the latest as the wait
    ends (a wait would say nothing of it otherwise, until the client gave up)."""
    said = False  # RECONNECTING, and not yet what became of it

    def look() -> None:
        nonlocal said
        if client.reconnecting and not said:
            print(RECONNECTING, flush=True)
            said = True
        elif said and not client.reconnecting:
            said = False
            if not client.gave_up:  # else the wait ends saying why
                print(CONNECTED_AGAIN, flush=True)

    async def follow() -> None:
        while True:
            await asyncio.sleep(CONNECTION_LOOK_EVERY)
            look()

    task = asyncio.create_task(follow())
    try:
        yield
    finally:
        task.cancel()
        look()


async def _wait_for_match(client: ArenaClient, game: GameName, wait: float, casual: bool) -> MatchFound | str:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    while True:
        try:
            return await client.wait_for_match(timeout=max(0.0, deadline - loop.time()))
        except TimeoutError:
            await client.cancel_quick_match()
            return f"nobody else wanted {game} within {wait:g} s; try again later"
        except QueueLeftError as ended:
            if ended.left.reason is not QueueLeftReason.EXPIRED:
                return f"no longer waiting for {game}: {ended.left.message}"
            print(f"your place in the {game} queue lapsed: queueing again", flush=True)
            await client.quick_match(game, casual=casual)


#: Seconds a stopped quick match tries to leave its queue before the command exits anyway.
LEAVE_QUEUE_PATIENCE = 5.0


async def _left_queue(client: ArenaClient) -> str:
    """Cancel the quick match this client waits in, for at most
    :data:`LEAVE_QUEUE_PATIENCE` seconds: what became of it, in words."""
    try:
        async with asyncio.timeout(LEAVE_QUEUE_PATIENCE):
            await client.cancel_quick_match()
    except ArenaError as exc:  # a ConnectionLostError too
        return f"the quick match could not be cancelled: {refusal_words(exc.code, exc.message)}"
    except (ConnectionError, TimeoutError):
        return "the quick match could not be cancelled: the server did not answer"
    return "quick match cancelled"


class Terminated(Exception):
    """SIGTERM stopped the command, once it had cleaned up."""


@contextlib.contextmanager
def _terminate_stops_waiting() -> Iterator[None]:
    """SIGTERM stops the wait as Ctrl+C does (the task is cancelled, so that ``finally``
    blocks still run), then raises :class:`Terminated`; by default it would end the
    process at once."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    terminated = False

    def stop() -> None:
        nonlocal terminated
        terminated = True
        task.cancel()

    loop.add_signal_handler(signal.SIGTERM, stop)
    try:
        yield
    except asyncio.CancelledError:
        if not terminated:
            raise
        task.uncancel()
        raise Terminated from None
    finally:
        loop.remove_signal_handler(signal.SIGTERM)


def fail(line: str, status: int = 1) -> int:
    """Say why the command failed on stderr; its exit status. At a terminal the line is
    wrapped between words to the terminal's width (the terminal would cut words apart);
    to a file or a pipe it stays one line, for programs."""
    text = f"solitaire-arena: {line}"
    if sys.stderr.isatty():
        text = wrapped_failure(text, shutil.get_terminal_size().columns)
    print(text, file=sys.stderr)
    return status


def wrapped_failure(text: str, columns: int) -> str:
    """``text`` in lines of at most ``columns`` (a word longer than that, such as an
    address, keeps a line of its own), the further lines indented by two.

    >>> print(wrapped_failure("solitaire-arena: you are racing in eight-off race QX4KDA: finish it", 40))
    solitaire-arena: you are racing in
      eight-off race QX4KDA: finish it
    """
    return textwrap.fill(
        text,
        max(columns, 20),
        subsequent_indent="  ",
        break_long_words=False,
        break_on_hyphens=False,
    )


def _player(args: argparse.Namespace, store: TokenStore) -> tuple[str, Credential | None]:
    """Who the command plays as: the name, and the account's credential when it is one."""
    if args.name:
        saved = store.get(args.server, args.name)
        return args.name, saved if saved is not None and saved.account else None
    account = store.account(args.server)
    if account is not None:
        return account.name, account
    return default_guest(args.server, store), None


async def _signed_in(args: argparse.Namespace, legal_moves: bool = False) -> ArenaClient:
    """A connection that said hello as the player :func:`_player` picks: an account with
    its saved token (an account whose token no longer works is an error, never a guest of
    the same name), or a guest resumed or created by ``sign_in``."""
    client, _welcome = await _sign_in(args, legal_moves)
    return client


async def _sign_in(args: argparse.Namespace, legal_moves: bool = False) -> tuple[ArenaClient, Welcome]:
    """:func:`_signed_in`, with the ``welcome`` (its ``races``: those the player is in)."""
    store = TokenStore()
    name, account = _player(args, store)
    # The seed shares committed here are kept beside the credentials: a restarted play
    # reveals the one its first run committed (docs/deals.md).
    shares = ShareFile(store.path, args.server)
    client = await ArenaClient.connect(args.server, reconnect=True, kept_shares=shares, open_timeout=10)
    client.token_source = lambda: _token_kept_for(store, args.server, client.player_id)
    try:
        if account is None:
            welcome = await _guest_signed_in(client, name, store, args.server, legal_moves)
        else:
            try:
                welcome = await client.hello(token=account.token, legal_moves=legal_moves)
            except BadTokenError:
                # Kept: the next command says so again, rather than play as a new guest.
                raise _login_gone(account.name, args.server) from None
    except BaseException:
        await client.close()
        raise
    return client, welcome


def _token_kept_for(store: TokenStore, server: str, player_id: str | None) -> str | None:
    """The token this machine keeps now for the player ``player_id`` on ``server``: the
    one a register or password change in another terminal wrote, after it revoked the
    one a running command resumes with (None: none kept, or the file cannot be read)."""
    if player_id is None:
        return None
    try:
        saved = store.of_player(server, player_id)
    except OSError:
        return None
    return saved.token if saved is not None else None


async def _guest_signed_in(
    client: ArenaClient, name: str, store: TokenStore, server: str, legal_moves: bool = False
) -> Welcome:
    """``sign_in`` as the guest ``name``; a new guest whose name the server keeps for an
    account is refused in one line that says how to play as someone else here."""
    try:
        return await client.sign_in(name, store, legal_moves=legal_moves)
    except UsernameTakenError as refused:
        # The server's reason up to its advice (names hold no colon): whose name it is.
        why = refused.message.partition(": ")[0]
        login = " (your login name, the guest played as without --name)" if name == default_name() else ""
        raise CommandError(
            f"{why}{login}: choose a guest name with --name NAME, or log in to that account "
            f"(solitaire-arena login{player_options(server)})"
        ) from None


def _saved(args: argparse.Namespace, store: TokenStore) -> tuple[str, Credential | None]:
    """The player :func:`_player` picks, and their credential saved here (None: nobody of
    that name is saved for the server yet)."""
    name, account = _player(args, store)
    return name, account or store.get(args.server, name)


async def _viewer(args: argparse.Namespace) -> ArenaClient:
    """A viewer's connection (it reads and watches, and is resumed after a drop): nobody
    need be, or become, a player."""
    client = await ArenaClient.connect(args.server, reconnect=True, open_timeout=10)
    try:
        await client.hello(viewer=True)
    except BaseException:
        await client.close()
        raise
    return client


async def _reader(args: argparse.Namespace) -> ArenaClient:
    """A connection for a command that only reads or watches: as the player :func:`_player`
    picks when one is saved here (their own daily attempts are theirs to read), else as a
    viewer, so that reading creates no guest. Both resume after a drop."""
    if _saved(args, TokenStore())[1] is not None:
        return await _signed_in(args)
    return await _viewer(args)


def _login_gone(username: str, server: str) -> CommandError:
    """The saved login of ``username`` no longer works: it stays saved, so that every
    command says so until the player logs in again (or out, to play as a guest)."""
    options = player_options(server)
    return CommandError(
        f"the saved login of {username} no longer works (logged out, the password changed on "
        f"another device, or unused for too long): solitaire-arena login{options} signs you in "
        f"again, or solitaire-arena logout{options} plays as a guest here"
    )


async def _saved_player(args: argparse.Namespace) -> ArenaClient:
    """A connection that said hello as the player :func:`_player` picks, when one is saved
    here: unlike :func:`_signed_in`, it never creates a guest (a command that only reads
    what the player has, of a player who has nothing yet)."""
    parse_uri(args.server)  # an address that is no WebSocket one is said first (InvalidURI)
    store = TokenStore()
    name, saved = _saved(args, store)
    if saved is None:
        raise CommandError(_nobody_saved(args, store, name))
    client = await ArenaClient.connect(args.server, open_timeout=10)
    try:
        await client.hello(token=saved.token)
    except BadTokenError:
        await client.close()
        if saved.account:  # kept, as _sign_in keeps it
            raise _login_gone(saved.name, args.server) from None
        store.forget(args.server, saved.name)
        raise CommandError(f"the guest {name} is gone (it was not used for too long)") from None
    except BaseException:
        await client.close()
        raise
    return client


def _nobody_saved(args: argparse.Namespace, store: TokenStore, name: str) -> str:
    """Why there is nobody to act as, and how to get someone: nobody is saved for the
    server yet, or nobody of ``name``."""
    where = player_options(args.server)  # --server unless the default one
    if args.name:
        return (
            f"no player named {name} is saved here for {args.server}: solitaire-arena play{where} "
            f"--name {shlex.quote(name)} makes that guest, register or login an account"
        )
    if store.names(args.server):
        return f"no player named {name} is saved here for {args.server} (--name picks one)"
    return (
        f"no player is saved here for {args.server} yet: solitaire-arena play{where} makes a guest, "
        "register or login an account"
    )


def utc_date(ms: int) -> str:
    """The UTC day (YYYY-MM-DD) of a server time in ms: the day a daily deal belongs to.

    >>> utc_date(1_773_446_399_999), utc_date(1_773_446_400_000)
    ('2026-03-13', '2026-03-14')
    """
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).date().isoformat()


async def daily_resumption(client: ArenaClient, race: RaceInfo) -> tuple[DailyRun, bool] | None:
    """How ``play`` goes back to ``race`` when it is a daily run (a race of one; the races
    one creates or is matched into have 2 seats or more): its ``DailyRun``, named by the
    day of its deal (the day it started, not today: a run may go on past midnight), and
    whether ``start_daily`` resumes it (only today's first attempt: it would start a new
    attempt for any other). None for any other race."""
    from client.tui.race_state import DailyRun

    if race.seats != 1:
        return None
    date = utc_date(race.starts_at if race.starts_at is not None else race.server_time)
    dailies = await client.dailies(date)
    attempts = [d.attempt for d in dailies.deals if d.attempt is not None]
    attempt = next((a for a in attempts if a.race_id == race.race_id), None)
    if attempt is None:
        return DailyRun(race.game, date, practice=True), False
    return DailyRun(race.game, date, scored=attempt.scored), date == utc_date(race.server_time)


async def daily_run_left(
    client: ArenaClient, race_ids: list[str], game: str
) -> tuple[RaceInfo, DailyRun] | None:
    """A daily run of ``game`` the player left running (``race_ids``: ``welcome.races``)
    that ``start_daily`` would not resume (a practice, or an attempt begun before
    midnight), with how to show it; None when there is none."""
    for race in await client.races_in_play(race_ids):
        resumption = await daily_resumption(client, race) if race.game == game else None
        if resumption is not None and not resumption[1]:
            return race, resumption[0]
    return None


async def _resume(client: ArenaClient, race: RaceInfo, note: str) -> None:
    """Play on in ``race``, a race the player is racing in: today's daily attempt on the
    daily screen as ``start_daily`` resumes it, any other daily run (a practice, or an
    attempt begun before midnight) on the daily screen as it is, anything else on the race
    screen. ``note`` (why this race opens) opens the screen's status line."""
    from client.tui.app import run_daily, run_play

    resumption = await daily_resumption(client, race)
    if resumption is None:
        await run_play(client, race.race_id, resumed=note)
        return
    daily, by_start_daily = resumption
    if by_start_daily:
        await run_daily(client, await client.start_daily(race.game), resumed=note)
    else:
        await run_play(client, race.race_id, daily=daily, resumed=note)


def join_command(code: str, server: str) -> str:
    """What friends type to join the race ``code`` on ``server``: with ``--server`` unless
    it is the default one.

    >>> join_command("K7QX2M", DEFAULT_SERVER)
    'solitaire-arena play --join K7QX2M'
    >>> join_command("K7QX2M", "ws://arena.example:8765")
    'solitaire-arena play --join K7QX2M --server ws://arena.example:8765'
    """
    where = "" if server == DEFAULT_SERVER else f" --server {server}"
    return f"solitaire-arena play --join {code}{where}"


def _seated(race: RaceInfo) -> str:
    return f"{len(race.racers)}/{race.seats} seated"


def _play_options_problem(args: argparse.Namespace) -> str:
    """What is wrong with ``play``'s options, by the server's own limits, before anything
    is sent ("" when nothing is)."""
    if args.join is not None and not JOIN_CODE.fullmatch(args.join.strip()):
        return f"--join {args.join!r} is not a race code: 4 to 12 letters or digits"
    if not SEATS_MIN <= args.seats <= SEATS_MAX:
        return f"--seats is {SEATS_MIN} to {SEATS_MAX}"
    if not TIME_LIMIT_MIN <= args.time_limit <= TIME_LIMIT_MAX:
        return f"--time-limit is {TIME_LIMIT_MIN:g} to {TIME_LIMIT_MAX:g} seconds"
    if not 0 < args.wait < math.inf:
        return "--wait is a number of seconds above 0"
    return ""


def _rated_for_a_new_guest(args: argparse.Namespace) -> str | None:
    """The refusal of a rated race for a player not saved yet, said before connecting: the
    server would refuse a guest anyway, and the guest made to ask would stay saved. A saved
    player asks the server, which knows whether it has become an account since."""
    if not args.rated:
        return None
    store = TokenStore()
    name, account = _player(args, store)
    if account is not None or store.get(args.server, name) is not None:
        return None
    return (
        "rated races are for accounts: register or log in first (solitaire-arena register"
        f"{player_options(args.server)} makes one)"
    )


async def play(args: argparse.Namespace) -> int:
    from client.tui.app import run_play  # textual loads only for the commands that draw

    problem = _play_options_problem(args)
    if problem:
        return fail(problem)
    if not args.hints and not args.create:
        return fail("--no-hints is for --create: a joined race has its own setting, a quick match none")
    if args.rated and not args.create:
        return fail(
            "--rated is for --create: a joined race has its own setting, and a quick match "
            "is rated for accounts"
        )
    if args.casual and (args.create or args.join is not None):
        return fail(
            "--casual is for a quick match: a joined race has its own setting, a created one is "
            "casual unless --rated"
        )
    unsaved = _rated_for_a_new_guest(args)
    if unsaved is not None:
        return fail(unsaved)
    # With legal moves, every view also says whether an undo would be accepted (key u).
    client, welcome = await _sign_in(args, legal_moves=True)
    joining = functools.partial(join_command, server=args.server)  # the lobby says it
    try:
        # A race the player is still in (the last client went away) comes first: a race is
        # raced to its end, and an open one's lobby reopens rather than leaving it behind.
        races = await client.races_in_play(welcome.races)
        racing = next((r for r in races if r.status != "open"), None)
        if racing is not None:
            # Printed, and said on the screen that takes the terminal at once.
            # By its code, as friends know it; its id is what replay and export take.
            name = f"{racing.code} ({racing.status}, id {racing.race_id})" if racing.code else racing.race_id
            note = f"you are still racing in {racing.game} race {name}"
            note += ": resuming it"
            if args.join is not None:
                note += f", not joining {args.join.strip().upper()}"
            _print_said(note)
            await _resume(client, racing, note)
            return 0
        waiting = next((r for r in races if r.status == "open"), None)
        if waiting is not None and args.join is None:  # a join goes on: the same race, or one more
            note = (
                f"you sit in {waiting.game} race {waiting.code} ({_seated(waiting)}) already: reopening its "
                "lobby (ctrl+q there leaves the race)"
            )
            _print_said(note)
            await run_play(client, waiting.race_id, join_command=joining, resumed=note)
            return 0
        if args.join is not None:
            race = await client.join_race(args.join.strip().upper())
            race_id = race.race_id
        elif args.create:
            # A rated race never has hints: leave the setting to the server's default (off).
            hints = None if args.rated else args.hints
            race = await client.create_race(
                args.game, seats=args.seats, time_limit=args.time_limit, hints=hints, rated=args.rated
            )
            race_id = race.race_id
            join = join_command(race.code, args.server)
            setting = ("rated, " if race.rated else "") + ("hints on" if race.hints else "hints off")
            _print_said(f"race {race.code} created ({setting}): others join with {glued(join)}")
        else:
            found = await quick_match(client, args.game, args.wait, args.casual)
            if isinstance(found, str):
                return fail(found)
            race_id = found.race.race_id
        # A racer who fills the last seat is ready at once; the others ready in the lobby
        # (r), or by themselves once every seat is taken.
        if args.join is not None and len(race.racers) >= race.seats:
            try:
                await client.ready(race_id)
            except ArenaError:
                # Refused (a racer races elsewhere, say): nobody waits for a seat left taken.
                with contextlib.suppress(ArenaError, ConnectionError, TimeoutError):
                    await client.leave(race_id)
                raise
        await run_play(client, race_id, join_command=joining)
    finally:
        await client.close()
    return 0


async def replay(args: argparse.Namespace) -> int:
    client = await _reader(args)
    try:
        try:
            log = await client.move_log(args.race)
        except RaceNotFoundError as exc:
            raise CommandError(race_not_found_words(args.race, exc.message)) from None
        summary = await client.results(args.race)
        if args.json:
            document = {
                "summary": summary.model_dump(mode="json"),
                "moves": [m.model_dump(mode="json") for m in log.moves],
            }
            print(json.dumps(document, indent=2))
            return 0
        # One's own daily attempt before its day is closed has no seed yet: the screen
        # replays it from the server's views (hidden cards hidden), as the browser does.
        if not sys.stdout.isatty():  # nothing to draw on: the moves and results as text
            print(replay_text(log, summary))
            return 0
        from client.tui.app import run_replay

        await run_replay(client, args.race)
    finally:
        await client.close()
    return 0


def replay_text(log: MoveLog, summary: RaceSummary) -> str:
    """A finished race as ``replay`` prints it when its output is not a terminal: every
    move in the order played, with its time from the start and its racer, then the results.

    >>> from shared.protocol import LoggedMove, Standing
    >>> log = MoveLog(race_id="r1", game="treize", seed=7, commitment="c", moves=[
    ...     LoggedMove(player_id="p_a", seq=1, move="KS", at=1_500),
    ...     LoggedMove(player_id="p_b", seq=1, move="5H 8C", at=62_250)])
    >>> summary = RaceSummary(race_id="r1", game="treize", started_at=0, ended_at=70_000,
    ...     commitment="c", standings=[
    ...     Standing(rank=1, player_id="p_a", name="ada", won=False, score=4, move_count=1),
    ...     Standing(rank=2, player_id="p_b", name="bob", won=False, score=2, move_count=1)])
    >>> print(replay_text(log, summary))
    treize race r1, seed 7: 2 moves
       0:01.5  ada  KS
       1:02.2  bob  5H 8C
    results
      1. ada  4 cards removed, 1 move
      2. bob  2 cards removed, 1 move
    >>> print(replay_text(log.model_copy(update={"seed": None}), summary.model_copy(update={
    ...     "reveals_at": 1_805_070_660_000})).splitlines()[0])
    treize race r1, seed revealed once the day's last attempts are over (2027-03-15
    """
    names = {s.player_id: clipped_name(s.name, NAME_COLUMNS) for s in summary.standings}
    names |= {m.player_id: m.player_id for m in log.moves if m.player_id not in names}
    pad = max((width(name) for name in names.values()), default=0)
    # One's own daily attempt before its day is closed: no seed yet, said when it comes.
    seed = f"seed {log.seed}" if log.seed is not None else f"seed revealed {reveal_words(summary.reveals_at)}"
    lines = fitted("", f"{log.game} race {log.race_id}, {seed}: {_plural(len(log.moves), 'move')}")
    for logged in log.moves:
        at = max(0, logged.at - summary.started_at) // 100  # tenths of a second
        minutes, tenths = divmod(at, 600)
        when = f"{minutes}:{tenths // 10:02}.{tenths % 10}"
        lines.append(f"  {when:>7}  {padded(names[logged.player_id], pad)}  {logged.move}")
    return "\n".join([*lines, "results", *ranking_lines(summary)])


# ----- spectating -----------------------------------------------------------------------


async def live(args: argparse.Namespace) -> int:
    if not 1 <= args.limit <= LIVE_LIMIT_MAX:
        raise CommandError(f"--limit is 1 to {LIVE_LIMIT_MAX}")
    client = await _reader(args)
    try:
        races = await client.live_races(args.game, limit=args.limit)
    finally:
        await client.close()
    print(live_text(races, args.game, player_options(args.server, args.name)))
    return 0


def _rating(rating: int | None, provisional: bool) -> str:
    return "-" if rating is None else f"{rating}{'?' if provisional else ''}"


def live_text(races: list[LiveRace], game: str | None = None, options: str = "") -> str:
    """The live races as ``live`` prints them (``game``: those of that game only), the
    commands it suggests with ``options`` (:func:`player_options`), in 80 columns.

    >>> from shared.protocol import RacerInfo
    >>> racers = [RacerInfo(player_id="p_a", name="ada", rating=1712, score=9, cards_left=43),
    ...           RacerInfo(player_id="p_b", name="bob", bot=True, rating=1500, provisional=True,
    ...                     score=52, cards_left=0, finished=True, won=True)]
    >>> print(live_text([LiveRace(race_id="7468094893ca", game="eight-off", status="running",
    ...     rated=True, racers=racers, spectators=14, delay_ms=30_000)]))
    race          game        kind    status     spectators  delay
    7468094893ca  eight-off   rated   running            14  30 s
        ada                        1712  score  9  43 left
        bob [bot]                 1500?  score 52   0 left  won
    watch one: solitaire-arena watch RACE; the featured race: solitaire-arena watch
    >>> print(live_text([]))
    nobody is racing now: solitaire-arena watch follows the next race to start
    >>> print(live_text([], "treize"))
    nobody is racing treize now: solitaire-arena live lists every game's races
    >>> print(live_text([], options=" --server ws://arena.example:8765"))
    nobody is racing now: solitaire-arena watch --server ws://arena.example:8765
        follows the next race to start
    """
    if not races and game is not None:
        return "\n".join(
            said_lines(f"nobody is racing {game} now: solitaire-arena live{options} lists every game's races")
        )
    if not races:
        return "\n".join(
            said_lines(f"nobody is racing now: solitaire-arena watch{options} follows the next race to start")
        )
    lines = [f"{'race':<12}  {'game':<10}  {'kind':<6}  {'status':<9}  spectators  delay"]
    for race in races:
        kind = "rated" if race.rated else "casual"
        delay = f"{race.delay_ms / 1000:g} s" if race.delay_ms > 0 else "live"
        head = f"{race.race_id:<12}  {race.game:<10}  {kind:<6}  {race.status:<9}"
        lines.append(f"{head}  {race.spectators:>10}  {delay}")
        for racer in race.racers:
            state = "won" if racer.won else ("gave up" if racer.finished else "")
            rating = _rating(racer.rating, racer.provisional)
            name = name_column(racer.name, racer.bot)
            line = f"    {name}  {rating:>5}  score {racer.score:>2}  {racer.cards_left:>2} left  {state}"
            lines.append(line.rstrip())
    watch = f"solitaire-arena watch RACE{options}; the featured race: solitaire-arena watch{options}"
    lines += said_lines(f"watch one: {watch}")
    return "\n".join(lines)


async def watch(args: argparse.Namespace) -> int:
    plain = args.plain or not sys.stdout.isatty()
    client = await _reader(args)
    try:
        if plain:
            # A race asked for by its id ends the watch when it ends; the featured one goes on.
            return await _watch_plain(client, args.race, once=args.once or args.race is not None)
        from client.tui.app import run_watch  # textual loads only for the commands that draw

        await run_watch(client, args.race)
    except RaceOverError:
        replay = f"solitaire-arena replay {args.race}{player_options(args.server)}"
        raise CommandError(f"race {args.race} is over: {replay} replays it") from None
    finally:
        await client.close()
    return 0


def _say(lines: list[str]) -> None:
    for line in lines:
        print(line, flush=True)


async def _watch_plain(client: ArenaClient, race_id: str | None, once: bool) -> int:
    """Print a line per event of the watched race until it ends (``once``), or for ever."""
    watching = await client.watch(race_id)
    watched = WatchedRace(watching)
    _say(watched.describe(watching))
    async for event in client.events():
        if isinstance(event, Welcome):  # the SDK resumed a dropped connection
            try:
                watching = await client.watch(race_id)
            except RaceOverError:
                assert race_id is not None  # the featured watch never is over
                summary = await client.results(race_id)
                _say([f"race {race_id} over while the connection was down", *ranking_lines(summary)])
                return 0
            over_meanwhile = await ended_unseen(client, watched, watching)
            over = []
            if over_meanwhile is not None:  # a featured race followed until the drop, over since
                over = [f"race {over_meanwhile.race_id} over while the connection was down"]
                over += ranking_lines(over_meanwhile)
                if once:
                    _say(["reconnected", *over])
                    return 0
            watched.reset(watching)
            _say(["reconnected", *over, *watched.describe(watching)])
            continue
        if not watched.apply(event):
            continue
        _say(watched.describe(event))
        if once and isinstance(event, RaceEnded | RaceCancelled):
            return 0
    ended = client.ended
    if ended is not None and ended.guest_gone:
        raise CommandError(f"{ended.words}: the same command watches again")
    raise _signed_out_error(client) or CommandError("the server closed the connection")


async def export(args: argparse.Namespace) -> int:
    client = await _reader(args)
    try:
        text = await client.record(args.race)
    except RaceNotFoundError as exc:
        raise CommandError(race_not_found_words(args.race, exc.message)) from None
    finally:
        await client.close()
    if args.output is None or args.output == "-":
        sys.stdout.write(text)
        return 0
    try:
        Path(args.output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    check = f"solitaire-arena verify {args.output}"
    check = glued(check) if len(check) <= WIDTH - 4 else check  # on one line when it fits
    _said(f"record of race {args.race} written to {args.output}; check it offline: {check}")
    return 0


def verify(args: argparse.Namespace) -> int:
    """Check a record file offline: 0 when it holds, 1 when a check fails, 2 when the
    file is not a record (or cannot be read)."""
    path = "stdin" if args.file == "-" else args.file
    try:
        if args.file == "-":
            text = sys.stdin.buffer.read().decode("utf-8")  # UTF-8 whatever the locale, as a file
        else:
            text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return fail(f"{path} is not a race record: not UTF-8 text", 2)
    except OSError as exc:
        return fail(f"cannot read {path}: {exc.strerror or exc}", 2)
    try:
        record = read_record(text)
    except RecordSyntaxError as exc:
        return fail(f"{path} is not a race record: {exc}", 2)
    try:
        verify_record(record)
    except RecordRejected as exc:
        return fail(f"{path} does not verify: {rejection_text(record, exc)}")
    print(record_text(record))
    return 0


def daily_run_words(day: str, attempt: str | None) -> str:
    """What a daily challenge run was, as ``verify`` says it (``attempt``: the record's
    ``Attempt``, None in a record written before it).

    >>> daily_run_words("2026-11-25", "scored")
    'scored attempt at the daily challenge of 2026-11-25'
    >>> daily_run_words("2026-11-25", "practice")
    'practice (unscored) of the daily challenge of 2026-11-25'
    >>> daily_run_words("2026-11-25", None)
    'daily challenge of 2026-11-25 (scored or practice: not recorded)'
    """
    if attempt == "scored":
        return f"scored attempt at the daily challenge of {day}"
    if attempt == "unscored":
        return f"a guest's unscored attempt at the daily challenge of {day}"
    if attempt == "practice":
        return f"practice (unscored) of the daily challenge of {day}"
    return f"daily challenge of {day} (scored or practice: not recorded)"


def record_text(record: RaceRecord) -> str:
    """A record that verified, as ``verify`` prints it: lines of at most :data:`WIDTH`
    columns, racers by name (:func:`racer_names`).

    >>> from shared.fairness import commitment
    >>> from shared.record import RecordMove, RecordRacer, RecordResult
    >>> record = RaceRecord(
    ...     game="treize", deal_version=1, race_id="r1", started_at=1_700_000_000_000,
    ...     ended_at=1_700_000_060_000, time_limit_ms=60_000, rated=False, daily=None,
    ...     server_seed=42, salt="00", commitment=commitment("treize", 42, "00"), shares=(),
    ...     seed=42, racers=(RecordRacer("p_1", "Ada"), RecordRacer("p_2", "Bob", bot=True)),
    ...     results=(RecordResult(1, "p_1", False, 0, 1, None, 0),
    ...              RecordResult(1, "p_2", False, 0, 0, None, 0)),
    ...     moves=(("p_1", (RecordMove(1, "deal", 1_500),)), ("p_2", ())),
    ... )
    >>> print(record_text(record))
    treize race r1, casual
    started 2023-11-14T22:13:20.000Z, time limit 60 s
    commitment 031b64d20b6116cda77d76f7ef42e286f8dedb734e183ad66145c4c5b4b6e4b5
    seed 42: the server seed (no racer sent a seed share)
    results
      1. Ada        0 cards removed, 1 move
      1. Bob [bot]  0 cards removed, 0 moves
    verified: the commitment, 0 seed shares, the seed and 1 move check out
    """
    kind = "rated" if record.rated else "casual"
    daily = f", {daily_run_words(record.daily, record.attempt)}" if record.daily else ""
    started = dt.datetime.fromtimestamp(record.started_at / 1000, dt.UTC)
    when = started.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    lines = [
        *fitted("", f"{record.game} race {record.race_id}, {kind}{daily}"),
        f"started {when}, time limit {record.time_limit_ms / 1000:g} s",
        *fitted("", f"commitment {record.commitment}"),
    ]
    if record.shares:
        shares = glued(_plural(len(record.shares), "seed share"))
        seed = f"seed {record.seed}: the server seed {record.server_seed} mixed with {shares}"
    else:
        seed = f"seed {record.seed}: the server seed (no racer sent a seed share)"
    lines += fitted("", seed, indent=2)
    rated = any(racer.rating is not None for racer in record.racers)
    # The record keeps each rating from before the race (replay gives the new ones).
    lines.append(RATED_RESULTS if rated else "results")
    outcomes = {}
    for result in record.results:
        outcome = f"{result_words(record.game, result.won, result.score, result.time_ms)}, "
        outcomes[result.player_id] = outcome + _plural(result.move_count, "move")
    marks = {}
    for racer in record.racers:
        rating = f" {racer.rating}" if racer.rating is not None else ""
        marks[racer.player_id] = f"{' [bot]' if racer.bot else ''}{rating}"
    # "  1. " before the name, two spaces between it and the outcome.
    room = WIDTH - 7 - max(map(width, outcomes.values()), default=0) - max(map(width, marks.values()))
    names = racer_names(record, max(room, _NAME_LEAST))
    shown = {player: names[player] + marks[player] for player in names}
    columns = max(width(name) for name in shown.values())
    for result in record.results:
        name = shown.get(result.player_id, result.player_id)
        line = f"  {result.rank}. {padded(name, columns)}  {outcomes[result.player_id]}"
        lines.append(clipped(line, WIDTH))
    moves = sum(len(moves) for _player, moves in record.moves)
    shares = _plural(len(record.shares), "seed share")
    lines += fitted(
        "", f"verified: the commitment, {shares}, the seed and {_plural(moves, 'move')} check out"
    )
    return "\n".join(lines)


#: The results' heading in the record of a rated race: the rating beside each name.
RATED_RESULTS = "results (beside each name: the rating before the race)"
#: The fewest columns a racer's name is cut to, however long the rest of its line.
_NAME_LEAST = 8
#: The most a racer's name takes in the line saying why a record does not verify (a
#: server's longest name with a player id fits).
_NAME_IN_A_REJECTION = 48


def racer_names(record: RaceRecord, most: int = 24) -> dict[str, str]:
    """Each racer's name (by player id) as ``verify`` writes it: cut to ``most`` columns
    with an ellipsis, and with the player id after it where two racers' names would show
    alike.

    >>> from shared.record import RecordRacer
    >>> racers = (RecordRacer("p_1", "Ada"), RecordRacer("p_2", "Ada"),
    ...           RecordRacer("p_3", "Bartholomew Cubbins the Fifth"))
    >>> record = RaceRecord(
    ...     game="treize", deal_version=1, race_id="r1", started_at=0, ended_at=0,
    ...     time_limit_ms=60_000, rated=False, daily=None, server_seed=1, salt="00",
    ...     commitment="", shares=(), seed=1, racers=racers, results=(), moves=())
    >>> racer_names(record, 12)
    {'p_1': 'Ada (p_1)', 'p_2': 'Ada (p_2)', 'p_3': 'Bartholomew…'}
    """
    cut = {racer.player_id: clipped_name(racer.name, most) for racer in record.racers}
    alike = Counter(cut.values())
    names = {}
    for racer in record.racers:
        player = racer.player_id
        if alike[cut[player]] > 1:
            name = clipped(racer.name, max(most - width(player) - 3, 1))
            names[player] = clipped(f"{name} ({player})", most)
        else:
            names[player] = cut[player]
    return names


def rejection_text(record: RaceRecord, exc: RecordRejected) -> str:
    """Why a record does not verify, naming the racer as :func:`racer_names` does.

    >>> from shared.record import RecordRacer
    >>> record = RaceRecord(
    ...     game="treize", deal_version=1, race_id="r1", started_at=0, ended_at=0,
    ...     time_limit_ms=60_000, rated=False, daily=None, server_seed=1, salt="00",
    ...     commitment="", shares=(), seed=1, racers=(RecordRacer("p_1", "Ada"),), results=(),
    ...     moves=())
    >>> rejection_text(record, RecordRejected("illegal move 't1>t1'", "p_1", 0))
    "racer Ada, move 1: illegal move 't1>t1'"
    >>> rejection_text(record, RecordRejected("two results for one racer", "p_9"))
    'racer p_9: two results for one racer'
    """
    if exc.player_id is None:
        return exc.reason
    where = [f"racer {racer_names(record, _NAME_IN_A_REJECTION).get(exc.player_id, exc.player_id)}"]
    if exc.move_index is not None:
        where.append(f"move {exc.move_index + 1}")
    return f"{', '.join(where)}: {exc.reason}"


# ----- accounts -------------------------------------------------------------------------


@contextlib.contextmanager
def _interruptible() -> Iterator[None]:
    """Ctrl+C stops a question asked on the terminal at once. The event loop's own handler
    would only ask the command to stop, which a prompt waiting for its line never hears:
    the first Ctrl+C did nothing and it took a second one."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    except KeyboardInterrupt:
        print(file=sys.stderr)  # off the prompt's line (a password's ^C is not echoed)
        raise
    finally:
        signal.signal(signal.SIGINT, previous)


def _ask_username(args: argparse.Namespace) -> str:
    username: str | None = args.username
    if username is None:
        if args.password_stdin:
            raise CommandError("--password-stdin needs --username")
        try:
            with _interruptible():
                username = input("username: ")
        except EOFError:
            username = ""
    username = username.strip()
    if not username:
        raise CommandError("no username given")
    return username


def _terminal() -> bool:
    """Whether there is a terminal to ask for a password on (where ``getpass`` asks)."""
    try:
        with open("/dev/tty"):
            return True
    except OSError:
        return sys.stdin.isatty()


def _ask_password(args: argparse.Namespace, new: bool, what: str = "password", username: str = "") -> str:
    """The password: stdin's next line with ``--password-stdin``, else asked for without
    echo (a ``new`` one twice, and checked by the server's rules for ``username``'s new
    password before it is sent)."""
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    elif not _terminal():
        raise CommandError(f"no terminal to ask for the {what} on: give it with --password-stdin")
    else:
        try:
            with _interruptible():
                password = getpass.getpass(f"{what}: ")
                if new and password and getpass.getpass(f"{what} again: ") != password:
                    raise CommandError("the two passwords differ")
        except EOFError:
            password = ""
    if not password:
        raise CommandError(f"no {what} given")
    if new and not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise CommandError(f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters")
    if new:
        try:
            check_password(password, username)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
    return password


async def register(args: argparse.Namespace) -> int:
    store = TokenStore()
    signed_in = store.account(args.server)
    if signed_in is not None and not args.name:
        raise CommandError(
            f"you are logged in as {signed_in.name} on {args.server}: register turns a guest into "
            f"an account (solitaire-arena logout{player_options(args.server)} first, or --name GUEST)"
        )
    name = args.name or default_guest(args.server, store)
    saved = store.get(args.server, name)
    if saved is not None and saved.account:
        raise CommandError(f"{name} is an account already; register turns a guest into one")
    username = _ask_username(args)
    try:
        check_username(username)  # the server's own rule, before the password is asked for
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    password = _ask_password(args, new=True, username=username)
    client = await ArenaClient.connect(args.server, open_timeout=10)
    try:
        await _guest_signed_in(client, name, store, args.server)
        account = await client.register(username, password)
        token = client.token
    finally:
        await client.close()
    assert token is not None
    # The account's new token (the guest's stopped working): kept under the username only.
    store.forget(args.server, name)
    store.set_account(args.server, Credential(account.player_id, account.username, token, account=True))
    _said(
        f"{name} is now the account {account.username} (player {account.player_id}) on {args.server}; "
        "play, replay, profile and leaderboard use it"
    )
    return 0


async def login(args: argparse.Namespace) -> int:
    username = _ask_username(args)
    password = _ask_password(args, new=False)
    client = await ArenaClient.connect(args.server, open_timeout=10)
    try:
        welcome = await client.login(username, password)
    finally:
        await client.close()
    name = welcome.username or welcome.name
    credential = Credential(welcome.player_id, name, player_token(welcome), account=True)
    TokenStore().set_account(args.server, credential)
    _said(
        f"logged in as {name} (player {welcome.player_id}) on {args.server}; "
        "play, replay, profile and leaderboard use this account"
    )
    return 0


def _saved_account(args: argparse.Namespace, store: TokenStore) -> Credential:
    """The account kept here that ``--name`` names (default: the one logged in)."""
    saved = store.get(args.server, args.name) if args.name else store.account(args.server)
    if saved is None or not saved.account:
        who = f"no account named {args.name}" if args.name else "no account"
        raise CommandError(f"{who} is logged in on {args.server} here")
    return saved


@contextlib.asynccontextmanager
async def _signed_in_as(
    args: argparse.Namespace, store: TokenStore, saved: Credential, forget: bool = True
) -> AsyncIterator[ArenaClient | None]:
    """A connection that said hello with the saved account's token, or None when the
    server no longer knows the token (it is then forgotten here, with ``forget``: a
    logout's, a rename's)."""
    client = await ArenaClient.connect(args.server, open_timeout=10)
    try:
        try:
            await client.hello(token=saved.token)
        except BadTokenError:
            if forget:
                store.forget(args.server, saved.name)
            yield None
        else:
            yield client
    finally:
        await client.close()


async def change_password(args: argparse.Namespace) -> int:
    store = TokenStore()
    saved = _saved_account(args, store)
    old = _ask_password(args, new=False, what="old password")
    if not args.password_stdin:  # a person: the old one is checked before the new one is asked
        await _check_old_password(args, store, saved, old)
    new = _ask_password(args, new=True, what="new password", username=saved.name)
    async with _signed_in_as(args, store, saved, forget=False) as client:
        if client is None:
            raise _logged_out_here(saved)
        token = await client.change_password(old, new)
    if token is not None:  # the saved token stopped working: this device keeps the new one
        store.put(args.server, dataclasses.replace(saved, token=token))
    _said(f"the password of {saved.name} on {args.server} is changed; other devices must log in again")
    return 0


def _print_said(sentence: str) -> None:
    """Print ``sentence`` as :func:`said_lines` lays it out (before the screen takes the
    terminal: flushed)."""
    print("\n".join(said_lines(sentence)), flush=True)


def _said(sentence: str) -> None:
    """Print ``sentence`` in lines of at most :data:`WIDTH` columns, the next ones indented."""
    print("\n".join(fitted("", sentence, indent=4)))


def _logged_out_here(saved: Credential) -> CommandError:
    return CommandError(f"{saved.name} is logged out here (its token no longer works): log in again")


async def _check_old_password(
    args: argparse.Namespace, store: TokenStore, saved: Credential, old: str
) -> None:
    """Refuse a wrong ``old`` password before the new one is typed (twice). The protocol
    checks a password only with ``login`` (``change_password`` checks the old one together
    with the new): a login on a connection of its own, its new token revoked at once by a
    logout. The saved token is tried first, so a device logged out says so now as well.
    Connections are not held open meanwhile: the questions block the event loop."""
    async with _signed_in_as(args, store, saved, forget=False) as client:
        if client is None:
            raise _logged_out_here(saved)
    checker = await ArenaClient.connect(args.server, open_timeout=10)
    try:
        await checker.login(saved.name, old)
        await checker.logout()
    except BadLoginError:
        raise CommandError("the old password is wrong") from None  # as the server says it
    finally:
        await checker.close()


def _new_name(given: str) -> str:
    """``rename``'s NEW_NAME as the server takes it (NFC), checked by the server's own
    rule before connecting: a refusal in the words of the options' checks."""
    return _checked_name(given, "NEW_NAME")


def _checked_name(given: str, option: str) -> str:
    """``given`` (the value of ``option``) as the server takes a name (NFC), checked by the
    server's own rule: a refusal in the words of the options' checks.

    >>> _checked_name("Zoe\u0308", "--name")
    'Zoë'
    >>> _checked_name("x" * 25, "--name")
    Traceback (most recent call last):
    ...
    client.cli.CommandError: --name 'xxxxxxxxxxxxxxxxxxxxxxxxx' is not a name: 1 to 24 characters
    """
    if not 1 <= len(unicodedata.normalize("NFC", given)) <= NAME_MAX:
        raise CommandError(f"{option} {given!r} is not a name: 1 to {NAME_MAX} characters")
    try:
        return check_name(given)
    except ValueError as exc:
        raise CommandError(f"{option} {given!r} is not a name: {exc}") from None


async def rename_guest(args: argparse.Namespace) -> int:
    new_name = _new_name(args.new_name)
    store = TokenStore()
    name, account = _player(args, store)
    if account is not None:
        raise CommandError(f"{name} is an account: it goes by its username")
    saved = store.get(args.server, name)
    if saved is None:
        raise CommandError(f"no guest named {name} is kept here for {args.server} (--name picks one)")
    if new_name != name and store.get(args.server, new_name) is not None:
        raise CommandError(f"a player named {new_name} is kept here already: choose another name")
    async with _signed_in_as(args, store, saved) as client:
        if client is None:
            raise CommandError(f"the guest {name} is gone (it was not used for too long)")
        kept = await client.rename(new_name)
    played_by_default = name == default_guest(args.server, store)
    store.forget(args.server, name)
    store.put(args.server, Credential(saved.player_id, kept, saved.token))
    renamed = f"{name} is now {kept} (player {saved.player_id}) on {args.server}"
    if played_by_default:  # it still is, under its new name
        store.set_guest(args.server, kept)
        _said(f"{renamed}; the commands play as it without --name")
    else:
        _said(f"{renamed}; play as it with {glued(f'--name {shlex.quote(kept)}')}")
    return 0


async def logout(args: argparse.Namespace) -> int:
    store = TokenStore()
    saved = _saved_account(args, store)
    async with _signed_in_as(args, store, saved) as client:
        if client is None:
            print(f"{saved.name} was logged out already; the token kept here is forgotten")
            return 0
        await client.logout()
    store.forget(args.server, saved.name)
    _said(f"logged out {saved.name} on {args.server}: the token kept here no longer works")
    return 0


# ----- profiles and leaderboards -------------------------------------------------------------


async def profile(args: argparse.Namespace) -> int:
    if args.username and args.player_id:
        raise CommandError("give a USERNAME or --id, not both")
    if args.username or args.player_id:
        client = await _viewer(args)  # anyone's profile is a read a viewer may make
        try:
            found = await client.profile(player_id=args.player_id, username=args.username)
        finally:
            await client.close()
    else:
        client = await _saved_player(args)
        try:
            found = await client.profile()
        finally:
            await client.close()
    print(profile_text(found))
    return 0


async def leaderboard(args: argparse.Namespace) -> int:
    if not 1 <= args.limit <= LEADERBOARD_LIMIT_MAX:
        raise CommandError(f"--limit is 1 to {LEADERBOARD_LIMIT_MAX}")
    if args.offset < 0:
        raise CommandError("--offset is 0 or more")
    client = await _reader(args)
    try:
        board = await client.leaderboard(args.game, offset=args.offset, limit=args.limit)
    finally:
        await client.close()
    print(leaderboard_text(board))
    return 0


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _seconds(ms: int) -> str:
    return f"{seconds_words(ms)} s"


def _when(at_ms: int, now: datetime | None = None) -> str:
    """When something happened, in local time and at most 8 columns: the time today, the
    day this year, else the month.

    >>> now = datetime(2027, 3, 14, 18, 30)
    >>> [_when(int(datetime(*day).timestamp() * 1000), now) for day in
    ...     [(2027, 3, 14, 9, 5), (2027, 1, 2, 23, 59), (2026, 12, 31, 12, 0)]]
    ['09:05', '02 Jan', 'Dec 2026']
    """
    at, now = datetime.fromtimestamp(at_ms / 1000), now or datetime.now()
    if at.date() == now.date():
        return at.strftime("%H:%M")
    return at.strftime("%d %b" if at.year == now.year else "%b %Y")


def profile_text(found: PlayerProfile, now: datetime | None = None) -> str:
    """A profile as ``profile`` prints it (``now``: the local time its dates are told from),
    in 80 columns.

    >>> from shared.protocol.profiles import GameRating, GameStats, RecentRace
    >>> print(profile_text(PlayerProfile(
    ...     player_id="p_1", name="ada_acct", username="ada_acct",
    ...     ratings=[GameRating(game="eight-off", rating=1662, rd=290, provisional=True, games=1),
    ...              GameRating(game="treize", rating=1612, rd=60, provisional=False, games=30)],
    ...     stats=[GameStats(game="eight-off", races=2, wins=1, best_ms=95012)],
    ...     recent=[RecentRace(race_id="7468094893ca", game="eight-off", rated=True, rank=1,
    ...                        racers=2, won=True, score=52, time_ms=95012,
    ...                        ended_at=0, rating_change=162),
    ...             RecentRace(race_id="0be1d2c3a4f5", game="treize", rated=False, rank=1,
    ...                        racers=1, won=False, score=30, ended_at=0, daily="2027-03-14"),
    ...             RecentRace(race_id="5f4a3b2c1d0e", game="eight-off", rated=True, rank=2,
    ...                        racers=2, won=False, score=12, ended_at=0, rating_change=-9,
    ...                        gave_up=True),
    ...             RecentRace(race_id="1a2b3c4d5e6f", game="treize", rated=False, rank=1,
    ...                        racers=1, won=False, score=40, ended_at=0, daily="2027-03-14",
    ...                        practice=True)])))
    ... # doctest: +ELLIPSIS
    ada_acct  account ada_acct
    player p_1
    ratings
      eight-off   1662?  1 rated race
      treize      1612   30 rated races
    races (practice runs of a daily deal not counted)
      eight-off   2 races, 1 deal won, best 95.0 s
    latest races
      7468094893ca  eight-off   rated   1st of 2    won in 95.0 s     +162  ...
      0be1d2c3a4f5  treize      daily   2027-03-14  30 cards removed        ...
      5f4a3b2c1d0e  eight-off   rated   2nd of 2    gave up with 12     -9  ...
                                                    cards home
      1a2b3c4d5e6f  treize      daily   practice    40 cards removed        ...

    Another player's daily run of a day not yet closed comes without its race id:

    >>> print(profile_text(PlayerProfile(player_id="p_3", name="cy", recent=[
    ...     RecentRace(game="treize", rated=False, rank=1, racers=1, won=False, score=3,
    ...                ended_at=0, daily="2027-03-14")])).splitlines()[-1])
    ... # doctest: +ELLIPSIS
      -             treize      daily   2027-03-14  3 cards removed ...
    >>> print(profile_text(PlayerProfile(player_id="p_2", name="zoe", bot=True)))
    zoe  guest [bot]
    player p_2
    ratings
      none (rated races are for accounts)
    races
      none yet
    """
    who = f"account {found.username}" if found.username else "guest"
    head = [found.name, f"{who}{' [bot]' if found.bot else ''}"]
    # A wide name and username (of two columns a letter) need a line each.
    lines = ["  ".join(head)] if width("  ".join(head)) <= WIDTH else head
    lines += [f"player {found.player_id}", "ratings"]
    for rating in found.ratings:
        shown = f"{rating.rating}{'?' if rating.provisional else ''}"
        lines.append(f"  {rating.game:<10}  {shown:<5}  {_plural(rating.games, 'rated race')}")
    if not found.ratings:
        lines.append("  none yet" if found.username else "  none (rated races are for accounts)")
    lines.append("races (practice runs of a daily deal not counted)" if found.stats else "races")
    for stats in found.stats:
        # A racer who solves the deal wins it, first or not: a race's place is in the
        # latest races below.
        won = f"{stats.wins} deal{'' if stats.wins == 1 else 's'} won"
        line = f"  {stats.game:<10}  {_plural(stats.races, 'race')}, {won}"
        if stats.best_ms is not None:
            line += f", best {_seconds(stats.best_ms)}"
        lines.append(line)
    if not found.stats:
        lines.append("  none yet")
    if found.recent:
        lines.append("latest races")
    # A daily run's place is its day's board (the day), or none: a practice.
    places = [
        "practice" if race.practice else race.daily or place_words(race.rank, race.racers, race.tied)
        for race in found.recent
    ]
    # A tie's place ("tied 1st of 8") takes its columns from the result's, to keep 80.
    wide = max([10, *map(len, places)])
    for race, place in zip(found.recent, places, strict=True):
        change = change_words(race.rating_change) if race.rating_change is not None else ""
        when = _when(race.ended_at, now)
        kind = "daily" if race.daily else "rated" if race.rated else "casual"
        # Another's daily run has no race id until its day is closed: a dash holds its place.
        row = f"  {race.race_id or '-':<12}  {race.game:<10}  {kind:<6}  {place:<{wide}}  "
        result = standing_words(race.game, race)
        lines += cell_lines(row, result, RESULT_COLUMNS + 10 - wide, f"  {change:>4}  {when}")
    return "\n".join(line.rstrip() for line in lines)


def leaderboard_text(board: Leaderboard) -> str:
    """A leaderboard page as ``leaderboard`` prints it.

    >>> from shared.protocol import LeaderboardEntry
    >>> def entry(rank, name, rating, games=30):
    ...     return LeaderboardEntry(rank=rank, player_id=f"p_{rank}", name=name, rating=rating,
    ...                             rd=60, games=games)
    >>> print(leaderboard_text(Leaderboard(game="treize", total=31, next_offset=2,
    ...     entries=[entry(1, "zoe", 1690), entry(2, "ada", 1680)], me=entry(5, "me_acct", 1655, 12))))
    treize leaderboard: 31 accounts with a settled rating
    rank  name                      rating  games
       1  zoe                         1690     30
       2  ada                         1680     30
    you: #5  me_acct  1655, 12 games
    more: --offset 2
    >>> print(leaderboard_text(Leaderboard(game="eagle-wing", total=0, entries=[])))
    nobody is on the eagle-wing leaderboard yet: ratings settle in about 10 - 20
        rated races
    """
    if board.total == 0:
        return "\n".join(
            said_lines(
                f"nobody is on the {board.game} leaderboard yet: ratings settle in about 10 - 20 rated races"
            )
        )
    lines = [
        f"{board.game} leaderboard: {_plural(board.total, 'account')} with a settled rating",
        f"rank  {NAME_HEADING}  rating  games",
    ]
    mine = board.me.player_id if board.me is not None else None
    for entry in board.entries:
        you = "  <- you" if entry.player_id == mine else ""
        name = name_column(entry.name, entry.bot)
        lines.append(f"{entry.rank:>4}  {name}  {entry.rating:>6}  {entry.games:>5}{you}")
    if not board.entries:
        lines.append("  (no one this far down)")
    if board.me is not None:
        me = board.me
        lines.append(f"you: #{me.rank}  {me.name}  {me.rating}, {_plural(me.games, 'game')}")
    else:
        lines.append("you: not listed (accounts are, once their rating settles)")
    if board.next_offset is not None:
        lines.append(f"more: --offset {board.next_offset}")
    return "\n".join(lines)


# ----- daily challenges ----------------------------------------------------------------------


async def daily(args: argparse.Namespace) -> int:
    if args.date is not None:
        try:
            dt.date.fromisoformat(args.date)
        except ValueError:
            raise CommandError(f"--date {args.date} is not a date (YYYY-MM-DD)") from None
    if args.standings:
        if args.game is not None or args.board or args.practice:
            raise CommandError(
                "--standings is the whole day's tournament: no GAME, --board or --practice with it"
            )
        return await _daily_standings(args)
    if args.game is None:
        if args.board or args.practice:
            option = "--board" if args.board else "--practice"
            where = player_options(args.server, args.name)
            raise CommandError(f"{option} needs a GAME: solitaire-arena daily eight-off {option}{where}")
        return await _list_dailies(args)
    if args.board:
        if args.practice:
            raise CommandError("--practice plays the deal; --board prints its board: one at a time")
        return await _daily_board(args)
    if args.date is not None:
        raise CommandError("--date is for the list and --board: only today's deal can be played")
    return await _play_daily(args)


async def _list_dailies(args: argparse.Namespace) -> int:
    client = await _reader(args)
    try:
        found = await client.dailies(args.date)
        attempts: dict[str, str] = {
            info.game: await _attempt_text(client, found.date, info) for info in found.deals if info.attempt
        }
    finally:
        await client.close()
    print(dailies_text(found, attempts, player_options(args.server, args.name)))
    return 0


async def _attempt_text(client: ArenaClient, date: str, info: DailyInfo) -> str:
    """The player's attempt of a daily deal: scored or not, its result (in the words of a
    race's results: "gave up with ..." when it was given up) and board place."""
    attempt = info.attempt
    assert attempt is not None
    if attempt.scored:
        # The board has the attempt once it is over (written in the step that ends it).
        board = await client.daily_board(info.game, date=date, limit=1)
        if board.me is None:
            return f"scored: in progress (race {attempt.race_id}; {glued(f'daily {info.game} resumes it')})"
        try:
            result = await _own_result(client, info.game, attempt.race_id)
        except RaceNotFoundError:  # its results no longer kept: the board's entry says the rest
            result = standing_words(info.game, board.me)
        return f"scored: {result}, #{board.me.rank} of {board.total} (race {attempt.race_id})"
    try:
        result = await _own_result(client, info.game, attempt.race_id)
    except RaceNotOverError:
        resumes = glued(f"daily {info.game} resumes it")
        return f"unscored (guest): in progress (race {attempt.race_id}; {resumes})"
    return f"unscored (guest): {result} (race {attempt.race_id})"


async def _own_result(client: ArenaClient, game: str, race_id: str) -> str:
    """The player's own result in the race ``race_id``, over, as its results say it."""
    summary = await client.results(race_id)
    mine = next((s for s in summary.standings if s.player_id == client.player_id), None)
    return standing_words(game, mine) if mine is not None else "over"


async def _daily_board(args: argparse.Namespace) -> int:
    if not 1 <= args.limit <= DAILY_BOARD_LIMIT_MAX:
        raise CommandError(f"--limit is 1 to {DAILY_BOARD_LIMIT_MAX}")
    if args.offset < 0:
        raise CommandError("--offset is 0 or more")
    client = await _reader(args)
    try:
        # A past day that had no deal of the game is refused (no_daily) by the server.
        board = await client.daily_board(args.game, date=args.date, offset=args.offset, limit=args.limit)
    finally:
        await client.close()
    print(daily_board_text(board, over=_past_day(args.date), viewer=client.viewer))
    return 0


def _past_day(date: str | None) -> bool:
    """Whether ``date`` (``--date``; None: today) is a day already over (UTC)."""
    return date is not None and date < utc_date(int(dt.datetime.now(dt.UTC).timestamp() * 1000))


async def _daily_standings(args: argparse.Namespace) -> int:
    client = await _reader(args)
    try:
        standings = await client.daily_standings(args.date)
        if not standings.day and _past_day(args.date):
            # A past day may have had no dailies at all: said as the list of the day says it.
            await client.dailies(standings.date)
        me = client.player_id
    finally:
        await client.close()
    print(daily_standings_text(standings, me))
    return 0


async def _play_daily(args: argparse.Namespace) -> int:
    from client.tui.app import run_daily, run_play  # textual loads only for the commands that draw

    # With legal moves, every view also says whether an undo would be accepted (key u).
    client, welcome = await _sign_in(args, legal_moves=True)
    try:
        left = await daily_run_left(client, welcome.races, args.game)
        if left is not None:  # a practice left running: starting another would be refused
            race, daily = left
            kind = "practice" if daily.practice else "attempt"
            note = f"your {race.game} {kind} of {daily.date} is still on: resuming race {race.race_id}"
            print(note, flush=True)
            await run_play(client, race.race_id, daily=daily, resumed=note)
            return 0
        # Started before the screen opens: a refusal (daily_attempted, ...) is one line.
        where = player_options(args.server, args.name)
        try:
            started = await client.start_daily(args.game, practice=args.practice)
        except DailyAttemptedError:
            # The server's text speaks of practising: say which option does it.
            raise CommandError(
                f"you have had today's {args.game} attempt: solitaire-arena daily "
                f"{args.game} --practice{where} plays it again (unscored), or come back tomorrow"
            ) from None
        except DailyNotAttemptedError as exc:  # practice before the scored attempt is over
            raise CommandError(
                f"{exc.message}; your attempt: solitaire-arena daily {args.game}{where}"
            ) from None
        except AlreadyRacingError as exc:
            refusal = await named_by_code(client, exc.message)
            raise CommandError(f"{refusal} (solitaire-arena play{where} resumes it)") from None
        note = ""
        if started.resumed:
            race = started.race
            note = f"your {race.game} attempt of {started.date} is still on: resuming race {race.race_id}"
            print(note, flush=True)
        await run_daily(client, started, practice=args.practice, resumed=note)
    finally:
        await client.close()
    return 0


#: A race id as the server deals them, in a refusal's words.
_DEALT_RACE_ID = re.compile(r"\b[0-9a-f]{12}\b")


async def named_by_code(client: ArenaClient, refusal: str) -> str:
    """An ``already_racing`` refusal with the race it names by id named as the screens
    name it, by its game and code (``eight-off race QX4KDA``); as it was when it names no
    race or the race cannot be read."""
    found = _DEALT_RACE_ID.search(refusal)
    if found is None:
        return refusal
    try:
        race = await client.get_race(found.group())
    except ArenaError:
        return refusal
    return refusal.replace(f"race {found.group()}", f"{race.game} race {race.code}", 1)


def _until(ms: int) -> str:
    """A time to wait, to the minute.

    >>> _until(5 * 3_600_000 + 12 * 60_000 + 999), _until(59_000)
    ('5 h 12 min', '0 h 00 min')
    """
    minutes = max(0, ms) // 60_000
    return f"{minutes // 60} h {minutes % 60:02d} min"


#: How to check a past day's deals, one line.
VERIFY_NOTE = (
    'verify: sha256("solitaire-arena:<game>:<seed>:<salt>") is the commitment published when '
    "the day opened; a board's move logs replay with shared.replay(game, seed, moves) (docs/daily.md)"
)


#: The columns of a table's names: a name's most characters, each of one column (a wider
#: name is cut, with an ellipsis).
NAME_COLUMNS = NAME_MAX
#: The name column's heading.
NAME_HEADING = "name".ljust(NAME_COLUMNS)


def name_column(name: str, bot: bool = False) -> str:
    """A player's name in a table's column of :data:`NAME_COLUMNS`, marked when a bot's:
    cut to fit with its mark and padded, counted in terminal columns, so that the columns
    after it line up whatever the name's letters.

    >>> for name, bot in (("ada", False), ("bob", True), ("李小龍李小龍李小龍李小龍", False),
    ...                   ("李小龍李小龍李小龍李小龍", True), ("x" * 24, True)):
    ...     print(name_column(name, bot) + "|")
    ada                     |
    bob [bot]               |
    李小龍李小龍李小龍李小龍|
    李小龍李小龍李小… [bot] |
    xxxxxxxxxxxxxxxxx… [bot]|
    """
    mark = " [bot]" if bot else ""
    return padded(clipped_name(name, NAME_COLUMNS - len(mark)) + mark, NAME_COLUMNS)


#: The columns of a table's results ("won in 101.6 s", "30 cards removed"); a longer one
#: ("gave up with 30 cards removed") goes on under it, in lines of its own.
RESULT_COLUMNS = 16


def cell_lines(head: str, cell: str, columns: int, tail: str = "") -> list[str]:
    """A table's row: ``head``, then ``cell`` in its column of ``columns``, then ``tail``;
    a cell too long for its column is wrapped, its further lines under the column.

    >>> for line in cell_lines("   3  bob  ", "gave up with 30 cards removed", 16, "  r3"):
    ...     print(line + "|")
       3  bob  gave up with 30   r3|
               cards removed|
    """
    first, *more = textwrap.wrap(cell, columns) or [""]
    under = " " * width(head)
    return [f"{head}{first:<{columns}}{tail}".rstrip(), *(under + line for line in more)]


def dailies_text(found: Dailies, attempts: dict[str, str], options: str = "") -> str:
    """The day's deals as ``daily`` lists them (``attempts``: the player's, by game), the
    commands it suggests with ``options`` (:func:`player_options`).

    >>> deals = [DailyInfo(game="eagle-wing", commitment="9c1e" * 16, proven=False),
    ...          DailyInfo(game="treize", commitment="51ab" * 16, proven=True)]
    >>> print(dailies_text(Dailies(date="2027-03-14", opens_at=0, closes_at=86_400_000,
    ...     reveals_at=88_260_000, server_time=68_000_000, deals=deals),
    ...     {"treize": "scored: won in 95.0 s, #2 of 14 (race r1)"}))
    daily deals of 2027-03-14 (UTC): the next day opens in 5 h 06 min
    game        commitment     proven  your attempt
    eagle-wing  9c1e9c1e9c1e…  no      none yet
    treize      51ab51ab51ab…  yes     scored: won in 95.0 s, #2 of 14 (race r1)
    play: solitaire-arena daily GAME; its board: solitaire-arena daily GAME --board

    Attempts begun before midnight still run after it: the seeds wait for them.

    >>> print(dailies_text(Dailies(date="1970-01-01", opens_at=0, closes_at=86_400_000,
    ...     reveals_at=88_260_000, server_time=86_500_000, deals=deals[1:]), {}))
    daily deals of 1970-01-01 (UTC): over, its last attempts still on
    game        commitment     proven  your attempt
    treize      51ab51ab51ab…  yes     none
    seeds and salts: revealed once the day's last attempts are over (1970-01-02
      00:31 UTC)

    A past day's deals come with their seeds and salts, checked against the commitments:

    >>> salt = "5a17" * 8
    >>> digest = hashlib.sha256(f"solitaire-arena:treize:42:{salt}".encode()).hexdigest()
    >>> past = DailyInfo(game="treize", commitment=digest, proven=True, seed=42, salt=salt)
    >>> print(dailies_text(Dailies(date="2027-03-13", opens_at=0, closes_at=1, reveals_at=2,
    ...     server_time=2, deals=[past]), {}))  # doctest: +ELLIPSIS
    daily deals of 2027-03-13 (UTC): over, seeds revealed
    game        commitment     proven  your attempt
    treize      ...  yes     none
    seeds and salts
      treize      seed 42  salt 5a175a175a175a175a175a175a175a17
                  sha256 matches the commitment
    verify: sha256("solitaire-arena:<game>:<seed>:<salt>") is the commitment
      published when the day opened; a board's move logs replay with
      shared.replay(game, seed, moves) (docs/daily.md)
    """
    over = found.server_time >= found.closes_at
    out = found.server_time >= found.reveals_at
    left = _until(found.closes_at - found.server_time)
    when = f"the next day opens in {left}"
    if over:
        when = "over, seeds revealed" if out else "over, its last attempts still on"
    lines = [
        f"daily deals of {found.date} (UTC): {when}",
        f"game        {'commitment':<13}  proven  your attempt",
    ]
    for info in found.deals:
        proven = "yes" if info.proven else "no"
        attempt = attempts.get(info.game, "none" if over else "none yet")
        lines += fitted(f"{info.game:<10}  {info.commitment[:12]}…  {proven:<6}  ", attempt)
    revealed = [info for info in found.deals if info.seed is not None and info.salt is not None]
    if revealed:
        lines.append("seeds and salts")
        for info in revealed:
            text = f"solitaire-arena:{info.game}:{info.seed}:{info.salt}"
            checks = hashlib.sha256(text.encode()).hexdigest() == info.commitment
            check = "sha256 matches the commitment" if checks else "sha256 does NOT match the commitment"
            lines += fitted(f"  {info.game:<10}  ", f"seed {info.seed}  salt {info.salt}  {glued(check)}")
        lines += fitted("", VERIFY_NOTE, indent=2)
    elif over:
        lines += fitted("", f"seeds and salts: revealed {reveal_words(found.reveals_at)}", indent=2)
    else:
        play, board = f"solitaire-arena daily GAME{options}", f"solitaire-arena daily GAME --board{options}"
        lines += said_lines(f"play: {play}; its board: {board}")
    return "\n".join(lines)


def daily_board_text(board: DailyBoard, over: bool = False, viewer: bool = False) -> str:
    """A page of a day's board as ``daily GAME --board`` prints it.

    >>> from shared.protocol import DailyEntry
    >>> def entry(rank, name, won, score, time_ms=None, race_id=None, gave_up=False):
    ...     return DailyEntry(rank=rank, player_id=f"p_{name}", name=name, won=won, score=score,
    ...                       time_ms=time_ms, race_id=race_id, gave_up=gave_up)
    >>> page = DailyBoard(date="2027-03-14", game="treize", total=14, next_offset=3,
    ...     entries=[entry(1, "zoe", True, 52, 95012, "a1b2c3d4e5f6"),
    ...              entry(2, "ada", True, 52, 101654, "0f1e2d3c4b5a"),
    ...              entry(3, "bob", False, 30, None, "9e8d7c6b5a4f", gave_up=True)],
    ...     me=entry(2, "ada", True, 52, 101654, "0f1e2d3c4b5a"))
    >>> print(daily_board_text(page))
    treize daily board of 2027-03-14 (UTC): 14 finished scored attempts
    rank  name                      result            race
       1  zoe                       won in 95.0 s     a1b2c3d4e5f6
       2  ada                       won in 101.6 s    0f1e2d3c4b5a  <- you
       3  bob                       gave up with 30   9e8d7c6b5a4f
                                    cards removed
    you: #2  won in 101.6 s
    more: --offset 3
    >>> hidden = page.model_copy(update={"entries": [entry(1, "zoe", False, 31)], "me": None,
    ...                                  "next_offset": None, "reveals_at": 1_805_070_660_000})
    >>> print(daily_board_text(hidden))
    treize daily board of 2027-03-14 (UTC): 14 finished scored attempts
    rank  name                      result
       1  zoe                       31 cards removed
    you: not on this board (it lists finished scored attempts)
    others' race ids show
      once the day's last attempts are over (2027-03-15 00:31 UTC)
    >>> given_up = hidden.model_copy(update={"me": entry(9, "me", False, 2, gave_up=True)})
    >>> print(daily_board_text(given_up).splitlines()[3])
    you: #9  gave up with 2 cards removed

    Read by a viewer (no player saved here), the board has no line of "you":

    >>> print(daily_board_text(hidden, viewer=True).splitlines()[3])
    others' race ids show
    """
    if board.total == 0:
        if over:
            return f"nobody finished a scored {board.game} attempt of {board.date}"
        return f"nobody has finished a scored {board.game} attempt of {board.date} yet"
    races = any(entry.race_id for entry in board.entries)
    head = f"rank  {NAME_HEADING}  {'result':<16}  race" if races else f"rank  {NAME_HEADING}  result"
    lines = [
        f"{board.game} daily board of {board.date} (UTC): {_plural(board.total, 'finished scored attempt')}",
        head,
    ]
    mine = board.me.player_id if board.me is not None else None
    for entry in board.entries:
        head = f"{entry.rank:>4}  {name_column(entry.name, entry.bot)}  "
        tail = f"  {entry.race_id or ''}".rstrip() + ("  <- you" if entry.player_id == mine else "")
        lines += cell_lines(head, standing_words(board.game, entry), RESULT_COLUMNS, tail)
    if not board.entries:
        lines.append("  (no one this far down)")
    if board.me is not None:
        lines.append(f"you: #{board.me.rank}  {standing_words(board.game, board.me)}")
    elif not viewer:
        lines.append("you: not on this board (it lists finished scored attempts)")
    if any(entry.race_id is None for entry in board.entries):  # the day is not closed
        lines += split_to_fit("others' race ids show", reveal_words(board.reveals_at), WIDTH, indent="  ")
    if board.next_offset is not None:
        lines.append(f"more: --offset {board.next_offset}")
    return "\n".join(lines)


#: How the daily tournament scores a place on a game's board, one line.
POINTS_NOTE = (
    "points: 25 18 15 12 10 8 6 4 2 1 for places 1-10 on each game's board,\n"
    "        1 for any other finished scored attempt"
)


#: The day's standing's columns: a player's place on each game's board ('-': none).
PLACES_HEADER = "  ".join(GAMES)


def _places(places: dict[GameName, int]) -> str:
    """A player's places on the day's boards, a column each in the games' order, so that
    a row fits 80 columns with all three.

    >>> _places({"eight-off": 97, "treize": 140})
    '         -     140         97'
    """
    return "  ".join(f"{places.get(game, '-'):>{len(game)}}" for game in GAMES)


#: Between a table's rows and the player's own row further down.
GAP_LINE = "   …"


def _own_row(row: str | None, shown: bool) -> list[str]:
    """The player's own ``row`` (None: no place there) under a table that leaves it out
    (not ``shown``), after a gap line; nothing when the table shows it."""
    return [GAP_LINE, row] if row is not None and not shown else []


def _points_row(entry: TableEntry | TournamentEntry, me: str | None) -> str:
    """One row of a table of points (of the day's standing: with the places), marked
    when it is ``me``'s."""
    places = f"  {_places(entry.places)}" if isinstance(entry, TournamentEntry) else ""
    you = "  <- you" if entry.player_id == me else ""
    return f"{entry.rank:>4}  {name_column(entry.name, entry.bot)}  {entry.points:>6}{places}{you}"


def _table_lines(entries: list[TableEntry], own: TableEntry | None, me: str | None, empty: str) -> list[str]:
    """A table of points with its column names, the player's row marked, and their own
    row (``own``) under it when the table leaves it out."""
    lines = [f"rank  {NAME_HEADING}  points", *(_points_row(entry, me) for entry in entries)]
    if not entries:
        lines.append(f"  {empty}")
    shown = any(entry.player_id == me for entry in entries)
    return lines + _own_row(_points_row(own, me) if own is not None else None, shown)


def daily_standings_text(standings: DailyStandings, me: str | None = None) -> str:
    """The daily tournament as ``daily --standings`` prints it (``me``: whose rows are
    marked; their own row follows a table that leaves it out).

    >>> from shared.protocol import Streak, TournamentEntry
    >>> day = [TournamentEntry(rank=1, player_id="p_b", name="bob", points=43,
    ...                        places={"eight-off": 2, "treize": 1}),
    ...        TournamentEntry(rank=2, player_id="p_a", name="ada", points=25, places={"eight-off": 1})]
    >>> all_time = [TableEntry(rank=1, player_id="p_a", name="ada", points=2410)]
    >>> print(daily_standings_text(DailyStandings(date="2027-03-14", week="2027-W10", day=day,
    ...     counted=False, counts_at=1_805_070_660_000,
    ...     week_table=[], all_time=all_time, streak=Streak(current=6, best=19), me_day=day[1],
    ...     me_all_time=all_time[0]), me="p_a"))
    daily tournament of 2027-03-14 (UTC)
    live: final soon after 2027-03-15 00:31 UTC
    rank  name                      points  eagle-wing  treize  eight-off
       1  bob                           43           -       1          2
       2  ada                           25           -       -          1  <- you
    week 2027-W10 (days counted once they are over)
    rank  name                      points
      no day of this week counted yet
    all time
    rank  name                      points
       1  ada                         2410  <- you
    your streak: 6 days (best 19)
    points: 25 18 15 12 10 8 6 4 2 1 for places 1-10 on each game's board,
            1 for any other finished scored attempt

    A player below the top 20 (a top of one row here, for short) finds their own row under it:

    >>> top = [TableEntry(rank=1, player_id="p_z", name="zoe", points=120)]
    >>> text = daily_standings_text(DailyStandings(date="2027-03-14", week="2027-W10",
    ...     counted=True, counts_at=1_805_070_660_000,
    ...     day=[TournamentEntry(rank=1, player_id="p_z", name="zoe", points=50, places={"treize": 1})],
    ...     week_table=top, all_time=top,
    ...     me_day=TournamentEntry(rank=143, player_id="p_a", name="ada", points=2,
    ...                            places={"treize": 140, "eight-off": 97}),
    ...     me_week=TableEntry(rank=37, player_id="p_a", name="ada", points=9)), me="p_a")
    >>> for line in text.splitlines()[:12]:
    ...     print(line)
    daily tournament of 2027-03-14 (UTC)
    final: counted into the week's and all-time tables
    rank  name                      points  eagle-wing  treize  eight-off
       1  zoe                           50           -       1          -
       …
     143  ada                            2           -     140         97  <- you
    week 2027-W10 (days counted once they are over)
    rank  name                      points
       1  zoe                          120
       …
      37  ada                            9  <- you
    all time
    >>> print(daily_standings_text(DailyStandings(date="2027-03-14", week="2027-W10", day=[],
    ...     counted=False, counts_at=1_805_070_660_000, week_table=[], all_time=[])).splitlines()[3])
      nobody has finished a scored attempt of 2027-03-14 yet
    >>> print(daily_standings_text(DailyStandings(date="2027-03-14", week="2027-W10", day=[],
    ...     counted=True, counts_at=1_805_070_660_000, week_table=[], all_time=[])).splitlines()[3])
      nobody finished a scored attempt of 2027-03-14

    Without a counted day (``streak`` left out) there is no streak line:

    >>> "streak" in daily_standings_text(DailyStandings(date="2027-03-14", week="2027-W10",
    ...     day=[], counted=False, counts_at=1_805_070_660_000, week_table=[], all_time=[]))
    False
    """
    status = (
        "final: counted into the week's and all-time tables"
        if standings.counted
        else f"live: final soon after {utc_minute(standings.counts_at)}"
    )
    lines = [
        f"daily tournament of {standings.date} (UTC)",
        status,
        f"rank  {NAME_HEADING}  points  {PLACES_HEADER}",
    ]
    lines += [_points_row(entry, me) for entry in standings.day]
    if not standings.day:
        nobody = (
            f"nobody finished a scored attempt of {standings.date}"  # final: not "yet"
            if standings.counted
            else f"nobody has finished a scored attempt of {standings.date} yet"
        )
        lines.append(f"  {nobody}")
    shown = any(entry.player_id == me for entry in standings.day)
    own = standings.me_day
    lines += _own_row(_points_row(own, me) if own is not None else None, shown)
    lines.append(f"week {standings.week} (days counted once they are over)")
    lines += _table_lines(standings.week_table, standings.me_week, me, "no day of this week counted yet")
    lines.append("all time")
    lines += _table_lines(standings.all_time, standings.me_all_time, me, "no day counted yet")
    # No streak line without a counted day (a viewer, or nothing scored yet): the server
    # leaves ``streak`` out then.
    if standings.streak is not None:
        streak = standings.streak
        lines.append(f"your streak: {_plural(streak.current, 'day')} (best {streak.best})")
    lines.append(POINTS_NOTE)
    return "\n".join(lines)


async def bots(args: argparse.Namespace) -> int:
    if args.count < 1:
        return fail("--count must be at least 1")
    if args.first < 1:
        return fail("--first must be at least 1")
    if args.races is not None and args.races < 1:
        return fail("--races must be at least 1 (leave it out: until interrupted)")
    if not 0 <= args.think <= MAX_THINK:
        return fail(f"--think is 0 to {MAX_THINK:g} seconds")
    store = TokenStore()
    numbers = range(args.first, args.first + args.count)
    fleet = [asyncio.create_task(_run_bot(args, number, store)) for number in numbers]
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
        bot = Bot(client, args.game, new_strategy, number=number, wait=float("inf"), think=args.think)
        while True:
            try:
                welcome = await client.sign_in(bot.name, store, bot=True)
                break
            except RateLimitedError:  # new guests from one address come at a limited rate
                await asyncio.sleep(5.0)
        # A race an earlier run of this bot was stopped in comes first: raced to its end.
        left_behind = await client.races_in_play(welcome.races)
        played = 0
        while args.races is None or played < args.races:
            if left_behind:
                summary = await bot.race_on(left_behind.pop(0))
            else:
                try:
                    summary = await bot.race()
                except AlreadyQueuedError as exc:
                    # The same bot (its saved player) waits for another game: another bot
                    # command runs it.
                    raise CommandError(
                        f"{bot.name}: {exc.message}; a bot command beside another takes other bots: "
                        f"--first {args.first + args.count}"
                    ) from None
            played += 1
            _report(bot.name, client.player_id, summary, args.json)
        await bot.wind_down()
    except ConnectionError as exc:
        # The server went away (for longer than the client waits, or with a reply owed):
        # a run of the same command races each bot's race on, which keeps its seat.
        why = GAVE_UP if client.gave_up else getattr(exc, "message", str(exc))
        again = shlex.join(["solitaire-arena", *sys.argv[1:]])
        ended = client.ended
        if ended is not None and ended.signed_out:
            # A bot is a guest: one the server no longer knows is made again by the run.
            raise CommandError(f"{ended.words}: {again} races as new bots") from None
        raise CommandError(f"{why}: {again} resumes the bots' races") from None
    finally:
        await client.close()


def _report(name: str, player_id: str | None, summary: RaceSummary | None, as_json: bool) -> None:
    if as_json:
        line: dict[str, Any] = {"name": name, "cancelled": True}
        if summary is not None:
            mine = next(s for s in summary.standings if s.player_id == player_id)
            line = {"race_id": summary.race_id, "game": summary.game, **mine.model_dump(mode="json")}
        print(json.dumps(line), flush=True)
        return
    print(report_text(name, player_id, summary), flush=True)


def report_text(name: str, player_id: str | None, summary: RaceSummary | None) -> str:
    """A bot's line for a race it raced (``summary``: its results, None when it was
    cancelled; a rank others share is "tied"), in :data:`WIDTH` columns: the name cut to
    :data:`NAME_COLUMNS` terminal columns, and where the whole line does not fit, the
    place and result on a line of their own under it (never cut).

    >>> from shared.protocol import Standing
    >>> summary = RaceSummary(race_id="98a8fd4224e2", game="treize", started_at=0, ended_at=1,
    ...     commitment="c", standings=[Standing(rank=1, player_id="p_b", name="bot-random-1",
    ...                                         won=True, score=52, move_count=80, time_ms=95012)])
    >>> print(report_text("bot-random-1", "p_b", summary))
    bot-random-1: race 98a8fd4224e2 (treize) rank 1/1, won in 95.0 s
    >>> gave_up = summary.model_copy(update={"game": "eagle-wing", "standings": [
    ...     summary.standings[0].model_copy(update={"won": False, "score": 12, "gave_up": True})]})
    >>> print(report_text("李小龍" * 8, "p_b", gave_up))
    李小龍李小龍李小龍李小…: race 98a8fd4224e2 (eagle-wing)
        rank 1/1, gave up with 12 cards home
    >>> print(report_text("bot-random-1", "p_b", None))
    bot-random-1: race cancelled
    >>> both = summary.model_copy(update={"standings": [
    ...     Standing(rank=1, player_id=p, name=p, won=False, score=0, move_count=0, gave_up=True)
    ...     for p in ("p_a", "p_b")]})
    >>> print(report_text("bot-random-1", "p_b", both))
    bot-random-1: race 98a8fd4224e2 (treize)
        tied rank 1/2, gave up with 0 cards removed
    """
    shown = clipped_name(name, NAME_COLUMNS)
    if summary is None:
        return f"{shown}: race cancelled"
    mine = next(s for s in summary.standings if s.player_id == player_id)
    head = f"{shown}: race {summary.race_id} ({summary.game})"
    tied = "tied " if shares_rank(mine.rank, [s.rank for s in summary.standings]) else ""
    result = f"{tied}rank {mine.rank}/{len(summary.standings)}, {standing_words(summary.game, mine)}"
    return "\n".join(split_to_fit(head, result, WIDTH, indent="    "))

"""The player's commands of ``solitaire-arena``, run as real subprocesses against a real
server process: their output, their exit status, and one-line errors; the account's
commands (register, login, logout) and what they leave in the credentials file; profiles
and leaderboards as printed; the day's deals, a day's board, the daily tournament's
standings and the daily refusals; the spectator's live races, a watch printed line by
line, and a race's record exported and verified offline."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import json
import os
import pty
import re
import secrets
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from client import sdk
from client.columns import width
from client.credentials import Credential, TokenStore
from client.errors import BadLoginError, BadTokenError, DailyNotAttemptedError, DailyNotReadyError
from client.sdk import ArenaClient
from client.shares import ShareFile
from client.suggestions import default_name
from client.watching import FEATURED_NONE, ranking_lines
from server import cli as server_cli
from server.app import ArenaServer
from server.features.daily import CATCH_UP_DAYS
from server.redis_embedded import EmbeddedRedis
from server.store import Store, keys
from server.store.players import token_digest
from server.store.records import DailyDeal
from shared.fairness import commitment, mixed_seed, share_commitment
from shared.games import GAMES
from shared.protocol import Dailies, QueueLeftReason, QuickMatchLeft, RaceEnded, RaceStarted
from shared.record import RaceRecord, RecordRacer, RecordResult, RecordShare, write_record
from shared.solver import solve_deal
from tests.redis_direct import async_redis, sync_redis
from tests.server.conftest import NodeProcess, start_node
from tests.server.helpers import start_race
from tests.server.link import Link
from tests.server.test_profiles import seed_ratings

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "a long password"


@pytest.fixture(scope="module")
def node(redis_url: str) -> Iterator[NodeProcess]:
    # Every command run with a fresh credentials file is a new guest: no limit on those.
    process = start_node(redis_url=redis_url, extra_env={"SA_NEW_PLAYER_RATE": "0"})
    yield process
    process.terminate()


def test_serve_prints_its_websocket_address_and_the_browsers(node: NodeProcess) -> None:
    port = node.port
    want = f"solitaire-arena listening on ws://127.0.0.1:{port} (in a browser: http://127.0.0.1:{port}/)"
    assert node.banner == want


def run(
    *args: str, config: Path, timeout: float = 30, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SOLITAIRE_ARENA_CONFIG": str(config)}
    env.pop("SOLITAIRE_ARENA_SERVER", None)
    command = [sys.executable, "-m", "server.cli", *args]
    feed: dict[str, Any] = {"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, **feed)


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A temporary folder with a short path (pytest's grow long under pytest-xdist)."""
    with tempfile.TemporaryDirectory(prefix="sa-") as folder:
        yield Path(folder)


def unique(prefix: str) -> str:
    """A username no other test (or earlier run on the same Redis) has taken."""
    return f"{prefix}_{secrets.token_hex(4)}"


def run_register(
    node: NodeProcess, config: Path, username: str, *options: str
) -> subprocess.CompletedProcess[str]:
    """``solitaire-arena register`` for a script, the password on stdin."""
    return run(
        "register", "--username", username, "--password-stdin", "--server", node.url, *options,
        config=config, stdin=PASSWORD + "\n",
    )  # fmt: skip


def register(node: NodeProcess, config: Path, username: str, *options: str) -> dict[str, Any]:
    """``solitaire-arena register`` for a script; the credentials file it leaves."""
    result = run_register(node, config, username, *options)
    assert result.returncode == 0, result.stderr
    saved: dict[str, Any] = json.loads(config.read_text())
    return saved


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr  # no traceback
    assert lines[0].startswith("solitaire-arena: ")
    return lines[0]


async def test_replay_json_prints_the_results_and_every_move_and_into_a_pipe_a_plain_listing(
    node: NodeProcess, tmp_path: Path
) -> None:
    ada, bob = await ArenaClient.connect(node.url), await ArenaClient.connect(node.url)
    await ada.hello(name="ada", legal_moves=True)
    race = await start_race(ada, bob)
    board = await ada.board(race.race_id)
    assert board is not None and board.view.legal_moves
    opening = board.view.legal_moves[0]
    await ada.move(race.race_id, opening)
    await ada.finish(race.race_id)
    await bob.finish(race.race_id)
    ended = await ada.wait_for(RaceEnded)
    await ada.close()
    await bob.close()
    result = run(
        "replay", race.race_id, "--json", "--server", node.url, "--name", "viewer", config=tmp_path / "c.json"
    )
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    moves = [(m["player_id"], m["seq"], m["move"]) for m in document["moves"]]
    assert moves == [(ada.player_id, 1, opening)]
    assert document["summary"] == ended.summary.model_dump(mode="json")
    # Without --json, into a pipe: no screen to draw on, a plain listing, and the end.
    result = run(
        "replay",
        race.race_id,
        "--server",
        node.url,
        "--name",
        "viewer",
        config=tmp_path / "c.json",
        timeout=10,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "\x1b" not in result.stdout
    assert lines[0] == f"eight-off race {race.race_id}, seed {ended.summary.seed}: 1 move"
    assert re.fullmatch(rf" +\d:\d\d\.\d  ada  {re.escape(opening)}", lines[1])
    assert lines[2] == "results" and sorted(line.split()[1] for line in lines[3:]) == ["ada", "bob"]


def test_replay_of_an_unknown_race_is_one_line(node: NodeProcess, tmp_path: Path) -> None:
    result = run("replay", "000000000000", "--server", node.url, config=tmp_path / "c.json")
    # The server's words, without its error code.
    assert one_error_line(result) == "solitaire-arena: there is no race '000000000000'"


def test_replay_and_export_of_a_race_code_say_they_take_the_races_id(
    node: NodeProcess, tmp_path: Path
) -> None:
    for command in ("replay", "export"):
        result = run(command, "WF7QH9", "--server", node.url, config=tmp_path / "c.json")
        assert result.returncode == 1
        assert one_error_line(result) == (
            "solitaire-arena: there is no race 'WF7QH9'; WF7QH9 looks like a race's code (what friends "
            "join with): this command takes the race's id, which the race's end and profile give"
        )


def test_a_race_id_that_cannot_be_one_is_refused_before_connecting(tmp_path: Path) -> None:
    for command in ("replay", "export", "watch"):
        result = run(command, "a/b", "--server", "ws://127.0.0.1:9", config=tmp_path / "c.json")
        assert result.returncode == 2
        assert result.stderr.strip().splitlines()[-1] == (
            f"solitaire-arena {command}: argument {'RACE' if command != 'replay' else 'race'}: 'a/b' is not "
            "a race id: ids are letters, digits, _ and - (profile lists your latest races with theirs) "
            f"(see solitaire-arena {command} --help)"
        )


def _read_until(fd: int, text: str, timeout: float = 20) -> str:
    """What a terminal shows until ``text`` has come (or the timeout)."""
    seen, deadline = "", time.monotonic() + timeout
    while text not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                seen += os.read(fd, 1024).decode(errors="replace")
            except OSError:  # the other end closed
                break
    return seen


def _on_a_terminal(args: list[str], config: Path, columns: int = 80) -> tuple[int, int]:
    """A command started on a terminal of its own (``columns`` wide): its pid, and the
    terminal's fd."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SOLITAIRE_ARENA_CONFIG": str(config)}
    env["COLUMNS"] = str(columns)
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(ROOT)
        os.execve(sys.executable, [sys.executable, "-m", "server.cli", *args], env)
    return pid, fd


@pytest.mark.parametrize("answers", [[], ["somebody"]], ids=["username", "password"])
def test_ctrl_c_at_a_login_question_stops_the_command_at_once(
    node: NodeProcess, tmp_path: Path, answers: list[str]
) -> None:
    pid, fd = _on_a_terminal(["login", "--server", node.url], tmp_path / "c.json")
    done, status = 0, 0
    try:
        assert "username: " in _read_until(fd, "username: ")
        for answer in answers:
            os.write(fd, f"{answer}\n".encode())
            assert "password: " in _read_until(fd, "password: ")
        # Ctrl+C typed on that terminal (by a person: not in the instant between the prompt
        # and the read, where Python itself would only see it once the read returns).
        time.sleep(0.5)
        os.write(fd, b"\x03")
        deadline = time.monotonic() + 10
        while done != pid and time.monotonic() < deadline:
            _read_until(fd, "never shown", timeout=0.2)  # (its terminal closes before it ends)
            done, status = os.waitpid(pid, os.WNOHANG)
        assert done == pid, "the first Ctrl+C did not stop it"
        assert os.waitstatus_to_exitcode(status) == 130
    finally:
        if done != pid:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)


@pytest.mark.parametrize("term", ["dumb", "Dumb", "unknown"])
def test_a_dumb_terminal_is_told_it_cannot_show_the_screen_before_anything_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, term: str
) -> None:
    monkeypatch.setenv("TERM", term)
    config = tmp_path / "c.json"
    for command in (["play", "eight-off"], ["daily", "eagle-wing"]):
        # No server at that address: the refusal comes before connecting (no attempt started).
        result = run(*command, "--server", "ws://127.0.0.1:9", config=config)
        assert one_error_line(result) == (
            f"solitaire-arena: this terminal (TERM={term}) cannot show the game's screen: run it in a "
            "terminal such as xterm"
        )
    # What prints text runs as ever: the list of dailies, a replay into a pipe.
    result = run("replay", "abc", "--server", "ws://127.0.0.1:9", config=config)
    assert "cannot reach ws://127.0.0.1:9" in one_error_line(result)


async def test_an_output_that_cannot_encode_every_character_gets_question_marks_not_a_traceback(
    node: NodeProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await todays_dailies(node)
    monkeypatch.setenv("PYTHONIOENCODING", "latin-1")
    result = run("daily", "--server", node.url, config=tmp_path / "c.json")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "eight-off" in result.stdout and "?" in result.stdout  # the commitment cut with "…"
    assert "\u2026" not in result.stdout


def test_an_unreachable_server_is_one_line(tmp_path: Path) -> None:
    result = run("replay", "abc", "--server", "ws://127.0.0.1:9", config=tmp_path / "c.json")
    # Said in words, not as an errno and a tuple.
    assert one_error_line(result) == (
        "solitaire-arena: cannot reach ws://127.0.0.1:9: nothing listens there (is the server running?)"
    )


def test_a_server_address_that_is_not_a_websocket_one_is_one_line(tmp_path: Path) -> None:
    result = run("profile", "--server", "http://127.0.0.1:8772", config=tmp_path / "c.json")
    assert one_error_line(result) == (
        "solitaire-arena: --server http://127.0.0.1:8772 is not a WebSocket address: "
        "ws://host:port or wss://host:port"
    )


async def test_joining_an_unknown_or_a_cancelled_race_is_one_line_saying_which(
    node: NodeProcess, tmp_path: Path
) -> None:
    result = run("play", "--join", "ZZZZZZ", "--server", node.url, config=tmp_path / "c.json")
    assert one_error_line(result) == "solitaire-arena: no race has the code 'ZZZZZZ'"
    async with await ArenaClient.connect(node.url) as ada:
        await ada.hello(name="ada")
        lobby = await ada.create_race("treize", seats=2)
        await ada.leave(lobby.race_id)  # the last one out: cancelled
    cancelled = run("play", "--join", lobby.code, "--server", node.url, config=tmp_path / "c.json")
    assert one_error_line(cancelled) == ("solitaire-arena: that race is no longer open: it was cancelled")


def test_play_options_out_of_the_servers_limits_are_refused_before_connecting(tmp_path: Path) -> None:
    # No server listens: each is refused by the command itself, in the options' words.
    refusals = {
        ("--join", ""): "--join '' is not a race code: 4 to 12 letters or digits",
        ("--join", "a b"): "--join 'a b' is not a race code: 4 to 12 letters or digits",
        ("--create", "--seats", "9"): "--seats is 2 to 8",
        ("--create", "--time-limit", "0"): "--time-limit is 1 to 86400 seconds",
        ("--wait", "0"): "--wait is a number of seconds above 0",
        ("--wait", "nan"): "--wait is a number of seconds above 0",
        (
            "--name",
            "Bartholomew-the-very-long",
        ): "--name 'Bartholomew-the-very-long' is not a name: 1 to 24 characters",
        ("--name", ""): "--name '' is not a name: 1 to 24 characters",
        ("--name", "   "): (
            "--name '   ' is not a name: a name starts with a letter or digit and uses only letters, "
            "digits, spaces, '_', '-' and '.'"
        ),
    }
    for options, refusal in refusals.items():
        result = run("play", *options, "--server", "ws://127.0.0.1:9", config=tmp_path / "c.json")
        assert one_error_line(result) == f"solitaire-arena: {refusal}"
        assert result.stdout == ""  # an empty --join is no quick match


def test_rename_refuses_a_name_too_short_or_too_long_before_connecting(tmp_path: Path) -> None:
    # No server listens: the command itself refuses, in the words of the options' checks.
    for new_name in ("", "x" * 30):
        result = run("rename", new_name, "--server", "ws://127.0.0.1:9", config=tmp_path / "c.json")
        assert (
            one_error_line(result)
            == f"solitaire-arena: NEW_NAME {new_name!r} is not a name: 1 to 24 characters"
        )


def test_bots_refuse_a_number_of_races_below_one_instead_of_doing_nothing(tmp_path: Path) -> None:
    result = run("bot", "--races", "0", "--server", "ws://127.0.0.1:9", config=tmp_path / "c.json")
    assert (
        one_error_line(result)
        == "solitaire-arena: --races must be at least 1 (leave it out: until interrupted)"
    )


def test_bots_refuse_a_think_time_out_of_range_before_connecting(tmp_path: Path) -> None:
    for think in ("-1", "61", "nan"):
        result = run("bot", "--think", think, "--server", "ws://127.0.0.1:9", config=tmp_path / "c.json")
        assert one_error_line(result) == "solitaire-arena: --think is 0 to 60 seconds"


def test_daily_practice_without_a_game_names_practice_not_board(tmp_path: Path) -> None:
    result = run("daily", "--practice", "--server", "ws://127.0.0.1:9", config=tmp_path / "c.json")
    assert one_error_line(result) == (
        "solitaire-arena: --practice needs a GAME: solitaire-arena daily eight-off --practice"
        " --server ws://127.0.0.1:9"
    )


def test_register_refuses_a_bad_username_before_asking_for_the_password(tmp_path: Path) -> None:
    result = run("register", "--username", "a", "--server", "ws://127.0.0.1:9", config=tmp_path / "c.json")
    assert one_error_line(result) == "solitaire-arena: a username has 3 to 20 characters"


def test_no_hints_is_only_for_a_race_being_created(node: NodeProcess, tmp_path: Path) -> None:
    for way in (["--join", "ABCDEF"], []):
        result = run("play", *way, "--no-hints", "--server", node.url, config=tmp_path / "c.json")
        assert one_error_line(result) == (
            "solitaire-arena: --no-hints is for --create: a joined race has its own setting, "
            "a quick match none"
        )


def test_casual_is_only_for_a_quick_match(node: NodeProcess, tmp_path: Path) -> None:
    for way in (["--join", "ABCDEF"], ["--create"]):
        result = run("play", *way, "--casual", "--server", node.url, config=tmp_path / "c.json")
        assert one_error_line(result) == (
            "solitaire-arena: --casual is for a quick match: a joined race has its own setting, "
            "a created one is casual unless --rated"
        )


def test_a_quick_match_nobody_answers_gives_up_after_wait(node: NodeProcess, tmp_path: Path) -> None:
    result = run("play", "treize", "--wait", "0.5", "--server", node.url, config=tmp_path / "c.json")
    assert one_error_line(result) == (
        "solitaire-arena: nobody else wanted treize within 0.5 s; try again later"
    )
    assert "waiting for someone to race at treize" in result.stdout


async def test_a_quick_match_cancelled_from_another_session_ends_the_wait_in_one_line(
    node: NodeProcess, tmp_path: Path
) -> None:
    config = tmp_path / "c.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SOLITAIRE_ARENA_CONFIG": str(config)}
    playing = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "play", "eagle-wing", "--wait", "30", "--server", node.url,
        "--name", "ada", cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    assert playing.stdout is not None
    waiting = await asyncio.wait_for(playing.stdout.readline(), 20)
    assert waiting.decode().startswith("waiting for someone to race at eagle-wing (casual")
    token = json.loads(config.read_text())[f"{node.url} ada"]["token"]
    async with await ArenaClient.connect(node.url) as elsewhere:  # ada's other terminal
        await elsewhere.hello(token=token)
        await elsewhere.cancel_quick_match()
    _, err = await asyncio.wait_for(playing.communicate(), 20)
    assert playing.returncode == 1
    assert err.decode().strip() == (
        "solitaire-arena: no longer waiting for eagle-wing: you cancelled the quick match"
    )


async def _waiting_in_quick_match(node: NodeProcess, config: Path, game: str) -> asyncio.subprocess.Process:
    """``play GAME`` as the guest ada, once it says it waits."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SOLITAIRE_ARENA_CONFIG": str(config)}
    playing = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "play", game, "--wait", "60", "--server", node.url,
        "--name", "ada", cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    assert playing.stdout is not None
    waiting = await asyncio.wait_for(playing.stdout.readline(), 20)
    assert waiting.decode().startswith(f"waiting for someone to race at {game} (casual")
    return playing


@pytest.mark.parametrize(("stop", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
async def test_stopping_a_quick_match_leaves_the_queue_though_another_session_stays(
    node: NodeProcess, redis_url: str, tmp_path: Path, stop: signal.Signals, status: int
) -> None:
    config = tmp_path / "c.json"
    playing = await _waiting_in_quick_match(node, config, "eagle-wing")
    saved = json.loads(config.read_text())[f"{node.url} ada"]
    async with await ArenaClient.connect(node.url) as elsewhere:  # ada's lobby tab, say
        await elsewhere.hello(token=saved["token"])
        playing.send_signal(stop)
        out, err = await asyncio.wait_for(playing.communicate(), 20)
        assert playing.returncode == status, err
        assert out.decode().splitlines()[-1] == "stopped waiting: quick match cancelled"
        left = await elsewhere.next_event(10)
        assert isinstance(left, QuickMatchLeft) and left.reason is QueueLeftReason.CANCELLED
        redis = async_redis(redis_url)
        try:
            assert await Store(redis).queues.queued(saved["player_id"]) is None
        finally:
            await redis.aclose()
        async with await ArenaClient.connect(node.url) as carol:  # not paired with ada, gone
            await carol.hello(name="carol")
            await carol.quick_match("eagle-wing")
            with pytest.raises(TimeoutError):
                await carol.wait_for_match(timeout=1)
            await carol.cancel_quick_match()


def test_the_same_name_resumes_the_same_player_from_the_credentials_file(
    node: NodeProcess, tmp_path: Path
) -> None:
    config = tmp_path / "conf" / "credentials.json"
    for _ in range(2):
        run("play", "--join", "ZZZZZZ", "--server", node.url, "--name", "zoë", config=config)
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    saved = json.loads(config.read_text())
    assert list(saved) == [f"{node.url} zoë"]


def test_a_name_typed_with_its_accent_apart_is_the_same_player_as_the_one_typed_whole(
    node: NodeProcess, tmp_path: Path
) -> None:
    config = tmp_path / "credentials.json"
    for typed in ("Zoe\u0308", "Zo\u00eb"):  # as macOS pastes it, as keyboards type it
        run("play", "--join", "ZZZZZZ", "--server", node.url, "--name", typed, config=config)
    assert list(json.loads(config.read_text())) == [f"{node.url} Zo\u00eb"]
    profile = run("profile", "--name", "Zoe\u0308", "--server", node.url, config=config)
    assert profile.returncode == 0, profile.stderr
    assert profile.stdout.startswith("Zo\u00eb  guest")


def test_a_credential_kept_under_a_decomposed_name_is_still_found(node: NodeProcess, tmp_path: Path) -> None:
    """Kept by a version that keyed names as typed: found by the same name in NFC."""
    config = tmp_path / "credentials.json"
    run("play", "--join", "ZZZZZZ", "--server", node.url, "--name", "Zo\u00eb", config=config)
    saved = json.loads(config.read_text())
    config.write_text(json.dumps({f"{node.url} Zoe\u0308": saved[f"{node.url} Zo\u00eb"]}))
    profile = run("profile", "--name", "Zo\u00eb", "--server", node.url, config=config)
    assert profile.returncode == 0, profile.stderr
    assert profile.stdout.startswith("Zo\u00eb  guest")


def test_a_damaged_credentials_file_stops_the_commands_and_is_never_overwritten(
    node: NodeProcess, tmp_path: Path
) -> None:
    config = tmp_path / "credentials.json"
    damaged = '{"ws://example.org zoë": {"player_id": "p_1", "token": "t0k'  # cut short
    config.write_text(damaged)
    said = f"solitaire-arena: the credentials file {config} is damaged (not JSON): move it away, or fix it"
    assert one_error_line(run("profile", "--server", node.url, config=config)) == said
    assert one_error_line(run("play", "--join", "ZZZZZZ", "--server", node.url, config=config)) == said
    assert one_error_line(run_register(node, config, unique("ada"))) == said
    assert config.read_text() == damaged
    # The seed shares kept beside it are only shares: a damaged file of them begins anew.
    shares = ShareFile(config, node.url)
    shares.path.write_text("[1, 2")
    shares.keep("p_1", "r_1", "ab" * 32)
    assert shares.kept("p_1", "r_1") == "ab" * 32


def test_output_into_a_pipe_closed_early_ends_quietly_without_blaming_the_server(
    node: NodeProcess, tmp_path: Path
) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SOLITAIRE_ARENA_CONFIG": str(tmp_path / "c.json")}
    command = [sys.executable, "-m", "server.cli", "live", "--server", node.url]
    reader = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert reader.stdout is not None and reader.stderr is not None
    reader.stdout.close()  # as `| head -0` would, before the command writes
    errors = reader.stderr.read()
    assert reader.wait(30) == 1
    assert errors == ""


def test_live_suggests_watch_with_the_server_and_name_it_was_given(node: NodeProcess, tmp_path: Path) -> None:
    result = run("live", "--server", node.url, "--name", "zed", config=tmp_path / "c.json")
    assert result.returncode == 0, result.stderr
    assert all(len(line) <= 80 for line in result.stdout.splitlines()), result.stdout
    suggestion = " ".join(result.stdout.split())
    assert f"solitaire-arena watch --server {node.url} --name zed" in suggestion


def test_each_player_command_has_clear_help(tmp_path: Path) -> None:
    play = run("play", "--help", config=tmp_path / "c.json")
    assert play.returncode == 0
    for flag in ("--create", "--join CODE", "--server", "--name", "--wait", "eight-off", "--no-hints"):
        assert flag in play.stdout
    words = " ".join(play.stdout.split())  # argparse wraps the description
    for command in ("'undo' (key u)", "'hint' (key h)", "'rematch' (key r)", "'yes'/'no' (keys y/n)"):
        assert command in words
    replay = run("replay", "--help", config=tmp_path / "c.json")
    assert replay.returncode == 0 and "--json" in replay.stdout
    assert "--rated" in play.stdout and "accounts only" in words
    top = run("--help", config=tmp_path / "c.json")
    for command in ("register", "login", "logout", "password", "rename", "profile", "leaderboard", "daily"):
        assert re.search(rf"^    {command}\b", top.stdout, re.MULTILINE), command
    for command in ("register", "login"):
        text = run(command, "--help", config=tmp_path / "c.json").stdout
        assert "--username" in text and "--password-stdin" in text
    leaderboard = run("leaderboard", "--help", config=tmp_path / "c.json").stdout
    assert "--offset" in leaderboard and "--limit" in leaderboard and "1-100" in leaderboard
    daily = run("daily", "--help", config=tmp_path / "c.json").stdout
    for flag in ("--practice", "--board", "--standings", "--date YYYY-MM-DD", "eight-off"):
        assert flag in daily


def test_two_bots_race_each_other_and_report_each_race(node: NodeProcess, tmp_path: Path) -> None:
    result = run(
        "bot", "--count", "2", "--races", "1", "--strategy", "random", "--game", "treize", "--json",
        "--server", node.url, config=tmp_path / "c.json", timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert sorted(line["name"] for line in lines) == ["bot-random-1", "bot-random-2"]
    assert len({line["race_id"] for line in lines}) == 1  # they raced each other
    assert [(line["bot"], line["game"]) for line in lines] == [(True, "treize")] * 2
    assert sorted(line["rank"] for line in lines) in ([1, 2], [1, 1])


@contextlib.contextmanager
def queued_elsewhere(url: str, config: Path, name: str, game: str, bot: bool = False) -> Iterator[None]:
    """``name`` (saved in ``config``) waits in ``game``'s quick match from a session of its
    own while the block runs, as another command running beside does."""
    loop = asyncio.new_event_loop()

    async def queue() -> ArenaClient:
        client = await ArenaClient.connect(url)
        await client.sign_in(name, TokenStore(config), bot=bot)
        await client.quick_match(game)
        return client

    try:
        other = loop.run_until_complete(queue())
        try:
            yield
        finally:
            loop.run_until_complete(other.close())
    finally:
        loop.close()


def test_a_bot_command_beside_another_is_told_to_take_other_bots_and_does_with_first(
    node: NodeProcess, tmp_path: Path
) -> None:
    config = tmp_path / "c.json"
    with queued_elsewhere(node.url, config, "bot-random-1", "eight-off", bot=True):
        args = ["bot", "--races", "1", "--strategy", "random", "--game", "treize", "--server", node.url]
        refused = run(*args, config=config, timeout=60)
        assert refused.returncode == 1
        assert one_error_line(refused) == (
            "solitaire-arena: bot-random-1: you are queued for eight-off: cancel that quick match before "
            "queueing for treize; a bot command beside another takes other bots: --first 2"
        )
        beside = run(*args, "--count", "2", "--first", "2", "--json", config=config, timeout=120)
        assert beside.returncode == 0, beside.stderr
        names = sorted(json.loads(line)["name"] for line in beside.stdout.splitlines())
        assert names == ["bot-random-2", "bot-random-3"]


def test_play_refused_a_quick_match_while_another_session_waits_says_how_to_cancel_that_one(
    node: NodeProcess, tmp_path: Path
) -> None:
    config = tmp_path / "c.json"
    with queued_elsewhere(node.url, config, "ada", "treize"):
        refused = run("play", "eight-off", "--name", "ada", "--server", node.url, config=config, timeout=60)
        assert refused.returncode == 1
        assert one_error_line(refused) == (
            "solitaire-arena: you are queued for treize: cancel that quick match before queueing for "
            "eight-off. Another of your sessions waits in it: Ctrl+C in the terminal that waits, or "
            "Cancel quick match on its page, cancels it"
        )


def test_a_bot_stopped_mid_race_races_that_race_to_its_end_when_run_again(
    node: NodeProcess, tmp_path: Path
) -> None:
    config = tmp_path / "c.json"

    async def left_mid_race() -> str:
        """bot-random-1 (its token saved in ``config``) sits in a running race, no move
        played, its opponent gone; then its client goes away, as a killed bot run's does."""
        async with await ArenaClient.connect(node.url) as ada, await ArenaClient.connect(node.url) as bot:
            await bot.sign_in("bot-random-1", TokenStore(config), bot=True)
            race = await start_race(ada, bot)
            await ada.finish(race.race_id)
            return race.race_id

    race_id = asyncio.run(left_mid_race())
    result = run(
        "bot", "--races", "1", "--strategy", "random", "--json", "--server", node.url,
        config=config, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    (line,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert (line["name"], line["race_id"], line["gave_up"] or line["won"]) == ("bot-random-1", race_id, True)


@pytest.mark.parametrize(
    ("data_lost", "said"),
    [
        (
            False,
            "the connection is down, and the client gave up reconnecting: {again} resumes the bots' races",
        ),
        (
            True,
            "this server no longer knows your guest (unused too long, or its data was reset): "
            "{again} races as new bots",
        ),
    ],
    ids=["node-stays-away", "node-back-without-the-bot"],
)
def test_a_bot_whose_node_goes_away_says_what_running_it_again_does(
    clean_redis: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    data_lost: bool,
    said: str,
) -> None:
    """The node is killed while the bot waits in a queue: it stays away, or it comes back
    on data that lost the bot (a guest no login brings back). On a Redis of its own: a
    place left in a queue by an earlier run would pair the bot."""
    redis_url = clean_redis
    node = start_node(redis_url=redis_url)
    config = tmp_path / "c.json"
    monkeypatch.setenv("SOLITAIRE_ARENA_CONFIG", str(config))
    monkeypatch.setattr(sdk, "RESUME_PATIENCE", 20.0 if data_lost else 1.0)
    args = ["bot", "--strategy", "random", "--game", "treize", "--server", node.url]
    monkeypatch.setattr(sys, "argv", ["solitaire-arena", *args])
    restarted: list[NodeProcess] = []

    def stop_node_once_the_bot_waits() -> None:
        redis = sync_redis(redis_url, decode_responses=True)
        for _ in range(500):
            saved = TokenStore(config).get(node.url, "bot-random-1") if config.exists() else None
            if saved is not None and redis.exists(keys.player_queue(saved.player_id)):
                break
            time.sleep(0.02)
        time.sleep(0.5)  # the queue's reply on its way: the bot waits for a match
        node.kill()
        if data_lost:
            assert saved is not None
            redis.delete(keys.token(token_digest(saved.token)))
            restarted.append(start_node(node.port, redis_url))

    stopper = threading.Thread(target=stop_node_once_the_bot_waits)
    stopper.start()
    try:
        status = server_cli.main(args)
    finally:
        stopper.join()
        for process in (node, *restarted):
            process.terminate()
    assert status == 1
    again = f"solitaire-arena bot --strategy random --game treize --server {node.url}"
    assert capsys.readouterr().err.splitlines() == ["solitaire-arena: " + said.format(again=again)]


# ----- accounts, profiles, leaderboards ---------------------------------------------------------


async def saved_guest(node: NodeProcess, config: Path, name: str) -> str:
    """A guest saved in ``config`` as ``play`` saves one (the SDK's ``sign_in``): its id."""
    async with await ArenaClient.connect(node.url) as client:
        welcome = await client.sign_in(name, TokenStore(config))
    return welcome.player_id


async def players_on(redis_url: str) -> int:
    """How many players the server keeps (guests and accounts)."""
    redis = async_redis(redis_url)
    try:
        return len([key async for key in redis.scan_iter(match="player:*") if key.count(":") == 1])
    finally:
        await redis.aclose()


async def test_profile_with_no_player_saved_says_how_to_get_one_and_creates_nobody(
    node: NodeProcess, redis_url: str, tmp_path: Path
) -> None:
    async with await ArenaClient.connect(node.url) as zed:
        zed_id = (await zed.hello(name="zed")).player_id
    fresh = tmp_path / "fresh.json"
    before = await players_on(redis_url)
    own = run("profile", "--server", node.url, config=fresh)
    assert one_error_line(own) == (
        f"solitaire-arena: no player is saved here for {node.url} yet: solitaire-arena play "
        f"--server {node.url} makes a guest, register or login an account"
    )
    named = run("profile", "--name", "kim lee", "--server", node.url, config=fresh)
    assert one_error_line(named) == (
        f"solitaire-arena: no player named kim lee is saved here for {node.url}: solitaire-arena play "
        f"--server {node.url} --name 'kim lee' makes that guest, register or login an account"
    )
    # Anyone by id (a guest too) is read without becoming a player.
    looked_up = run("profile", "--id", zed_id, "--server", node.url, config=fresh)
    assert looked_up.returncode == 0, looked_up.stderr
    assert looked_up.stdout.splitlines()[:2] == ["zed  guest", f"player {zed_id}"]
    assert await players_on(redis_url) == before and not fresh.exists()
    # With another guest saved, the one played as without --name is named.
    await saved_guest(node, fresh, "kim")
    other = run("profile", "--server", node.url, config=fresh)
    assert one_error_line(other) == (
        f"solitaire-arena: no player named {default_name()} is saved here for {node.url} (--name picks one)"
    )
    # A guest the server no longer knows is forgotten here, and not made again.
    TokenStore(fresh).put(node.url, Credential("p_gone", "wanderer", "not-a-token"))
    gone = run("profile", "--name", "wanderer", "--server", node.url, config=fresh)
    assert (
        one_error_line(gone) == "solitaire-arena: the guest wanderer is gone (it was not used for too long)"
    )
    assert TokenStore(fresh).names(node.url) == ["kim"]
    assert await players_on(redis_url) == before + 1  # kim


async def test_register_keeps_the_accounts_new_token_and_the_guests_stops_working(
    node: NodeProcess, tmp_path: Path
) -> None:
    config = tmp_path / "c.json"
    async with await ArenaClient.connect(node.url) as guest:
        welcome = await guest.hello(name="gus guest")
    assert welcome.token is not None
    TokenStore(config).put(node.url, Credential(welcome.player_id, "gus guest", welcome.token))
    username = unique("gus")
    saved = register(node, config, username, "--name", "gus guest")
    kept = saved[f"{node.url} {username}"]
    assert kept["player_id"] == welcome.player_id and kept["token"] != welcome.token
    async with await ArenaClient.connect(node.url) as probe:
        with pytest.raises(BadTokenError):
            await probe.hello(token=welcome.token)
    async with await ArenaClient.connect(node.url) as probe:
        assert (await probe.hello(token=kept["token"])).username == username


def test_register_then_login_from_a_fresh_credentials_file(node: NodeProcess, tmp_path: Path) -> None:
    username = unique("ada")
    first = tmp_path / "first.json"
    registered = run_register(node, first, username, "--name", "ada guest")
    assert registered.returncode == 0, registered.stderr
    saved = json.loads(first.read_text())
    key = f"{node.url} {username}"
    # The guest became the account: its entry moved under the username, logged in.
    assert sorted(saved) == sorted(["accounts", key]) and saved["accounts"] == {node.url: username}
    assert saved[key]["account"] is True
    player_id = saved[key]["player_id"]
    # Said in lines of at most 80 columns (the server's address makes it long).
    assert unwrapped(registered.stdout) == [
        f"ada guest is now the account {username} (player {player_id}) on {node.url}; "
        "play, replay, profile and leaderboard use it"
    ]
    own = run("profile", "--server", node.url, config=first)
    assert own.returncode == 0, own.stderr
    assert own.stdout.splitlines()[:2] == [f"{username}  account {username}", f"player {player_id}"]
    # Registering again while logged in would make a second account of a new guest.
    again = run_register(node, first, unique("ada"))
    assert one_error_line(again) == (
        f"solitaire-arena: you are logged in as {username} on {node.url}: register turns a guest "
        f"into an account (solitaire-arena logout --server {node.url} first, or --name GUEST)"
    )
    assert json.loads(first.read_text()) == saved

    # Another device: a fresh file, the username in another case, the password on stdin.
    second = tmp_path / "second.json"
    logged_in = run(
        "login", "--username", username.upper(), "--password-stdin", "--server", node.url,
        config=second, stdin=PASSWORD + "\n",
    )  # fmt: skip
    assert logged_in.returncode == 0, logged_in.stderr
    assert unwrapped(logged_in.stdout) == [
        f"logged in as {username} (player {player_id}) on {node.url}; "
        "play, replay, profile and leaderboard use this account"
    ]
    other = json.loads(second.read_text())
    assert other["accounts"] == {node.url: username}
    assert other[key]["token"] != saved[key]["token"]  # a token of its own
    profile = run("profile", "--server", node.url, config=second)
    assert profile.returncode == 0, profile.stderr
    assert profile.stdout.splitlines()[:2] == [f"{username}  account {username}", f"player {player_id}"]
    assert profile.stdout.splitlines()[2:4] == ["ratings", "  none yet"]
    # Anyone can look the account up by its username, without becoming a guest.
    looked_up = run("profile", username, "--server", node.url, config=tmp_path / "third.json")
    assert looked_up.stdout.splitlines()[:2] == [f"{username}  account {username}", f"player {player_id}"]
    assert not (tmp_path / "third.json").exists()


async def test_a_profiles_latest_races_fit_80_columns_with_their_rating_change(
    node: NodeProcess, tmp_path: Path
) -> None:
    ada_name, bob_name = unique("ada"), unique("bob")
    async with await ArenaClient.connect(node.url) as ada, await ArenaClient.connect(node.url) as bob:
        for client, username in ((ada, ada_name), (bob, bob_name)):
            await client.hello(name=username)
            await client.register(username, PASSWORD)
        lobby = await ada.create_race("treize", seats=2, time_limit=60, rated=True)
        await bob.join_race(lobby.code)
        await ada.ready(lobby.race_id)
        await bob.ready(lobby.race_id)
        await ada.wait_for(RaceStarted, lambda e: e.race_id == lobby.race_id)
        await ada.finish(lobby.race_id)
        await bob.finish(lobby.race_id)
        await ada.wait_for(RaceEnded, lambda e: e.race_id == lobby.race_id)
    shown = run("profile", ada_name, "--server", node.url, config=tmp_path / "c.json")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    row, *under = lines[lines.index("latest races") + 1 :]
    # Its id, game, kind, place, result, the rating's change and the time it ended (today);
    # both gave up at 0, so they tie for 1st: said so, not read as a win (the place's
    # column wider, the result's narrower); ada gave up, which the result says, its end
    # under it in the result's column.
    assert re.fullmatch(
        rf"  {lobby.race_id}  treize      rated   tied 1st of 2  gave up with +±0  \d\d:\d\d", row
    ), row
    assert under == [" " * 51 + "0 cards", " " * 51 + "removed"]
    assert max(len(line) for line in lines) <= 80  # a standard terminal's width


async def test_refusals_are_the_servers_message_on_one_line(
    node: NodeProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    username = unique("bob")
    async with await ArenaClient.connect(node.url) as bob:
        await bob.hello(name="bob")
        await bob.register(username, PASSWORD)
    fresh = tmp_path / "fresh.json"
    wrong = run(
        "login", "--username", username, "--password-stdin", "--server", node.url,
        config=fresh, stdin="not the password\n",
    )  # fmt: skip
    assert one_error_line(wrong) == "solitaire-arena: wrong username or password"
    assert not fresh.exists()  # nothing was saved
    taken = run(
        "register", "--username", username.upper(), "--password-stdin", "--server", node.url,
        config=fresh, stdin=PASSWORD + "\n",
    )  # fmt: skip
    assert one_error_line(taken) == (
        f"solitaire-arena: {username.upper()!r} is taken, or too like a name that is: choose another"
    )
    # No new guest goes by an account's username: one named so, or after the user's login.
    login = f"solitaire-arena login --server {node.url}"
    advice = f"choose a guest name with --name NAME, or log in to that account ({login})"
    named = run(
        "register", "--username", unique("cy"), "--password-stdin", "--name", username.upper(),
        "--server", node.url, config=fresh, stdin=PASSWORD + "\n",
    )  # fmt: skip
    assert one_error_line(named) == f"solitaire-arena: {username.upper()} is an account's username: {advice}"
    monkeypatch.setenv("LOGNAME", username)
    by_login = run(
        "register", "--username", unique("cy"), "--password-stdin", "--server", node.url,
        config=fresh, stdin=PASSWORD + "\n",
    )  # fmt: skip
    assert one_error_line(by_login) == (
        f"solitaire-arena: {username} is an account's username (your login name, the guest played "
        f"as without --name): {advice}"
    )
    short = run(
        "register", "--username", unique("cy"), "--password-stdin", "--server", node.url,
        config=fresh, stdin="short\n",
    )  # fmt: skip
    assert one_error_line(short) == "solitaire-arena: a password has 8 to 128 characters"
    common = run(
        "register", "--username", unique("cy"), "--password-stdin", "--server", node.url,
        config=fresh, stdin="password\n",
    )  # fmt: skip
    most_common = "solitaire-arena: that password is one of the most common: choose another"
    assert one_error_line(common) == most_common
    nobody = run("profile", "nobody_at_all", "--server", node.url, config=fresh)
    assert one_error_line(nobody) == "solitaire-arena: no account is named 'nobody_at_all'"


async def test_a_rated_race_is_for_accounts(node: NodeProcess, tmp_path: Path) -> None:
    config = tmp_path / "c.json"
    guest = run("play", "--create", "--rated", "--name", "casual", "--server", node.url, config=config)
    assert one_error_line(guest) == (
        "solitaire-arena: rated races are for accounts: register or log in first "
        f"(solitaire-arena register --server {node.url} makes one)"
    )
    assert not config.exists()  # refused before a guest was made for it
    # A guest saved already is the server's to refuse (it may have registered elsewhere).
    async with await ArenaClient.connect(node.url) as guest:
        await guest.sign_in("casual", TokenStore(config))
    saved = run("play", "--create", "--rated", "--name", "casual", "--server", node.url, config=config)
    assert one_error_line(saved) == "solitaire-arena: rated races are for accounts: register or log in first"
    joined = run("play", "--rated", "--join", "ABCDEF", "--server", node.url, config=tmp_path / "c.json")
    assert one_error_line(joined).startswith("solitaire-arena: --rated is for --create")


async def test_the_leaderboard_prints_the_players_best_first_and_my_place(
    node: NodeProcess, redis_url: str, tmp_path: Path
) -> None:
    config = tmp_path / "c.json"
    username = unique("me")
    me = register(node, config, username)[f"{node.url} {username}"]["player_id"]
    tag = secrets.token_hex(3)
    # Higher than anyone else in this Redis, so they lead whatever other tests left; the
    # last two tie, and share their rank (listed by player id, last first).
    top = {f"p_top{tag}{i}": (f"top{tag}_{i}", 2990.0 - 10 * min(i, 1), 60.0) for i in range(3)}
    await seed_ratings(redis_url, {**top, me: (username, 2965.0, 70.0)}, int(time.time() * 1000))
    page = run("leaderboard", "eight-off", "--limit", "3", "--server", node.url, config=config)
    assert page.returncode == 0, page.stderr
    lines = page.stdout.splitlines()
    assert lines[0].startswith("eight-off leaderboard: ") and lines[1].split() == [
        "rank",
        "name",
        "rating",
        "games",
    ]
    assert [line.split() for line in lines[2:5]] == [
        ["1", f"top{tag}_0", "2990", "30"],
        ["2", f"top{tag}_2", "2980", "30"],
        ["2", f"top{tag}_1", "2980", "30"],
    ]
    assert lines[5:] == [f"you: #4  {username}  2965, 30 games", "more: --offset 3"]
    mine = run("leaderboard", "--offset", "3", "--limit", "1", "--server", node.url, config=config)
    assert mine.stdout.splitlines()[2].split() == ["4", username, "2965", "30", "<-", "you"]
    bad = run("leaderboard", "--limit", "101", "--server", node.url, config=config)
    assert one_error_line(bad) == "solitaire-arena: --limit is 1 to 100"
    # No Treize rating settled in these tests: said within 80 columns.
    empty = run("leaderboard", "treize", "--server", node.url, config=config)
    assert empty.returncode == 0, empty.stderr
    assert unwrapped(empty.stdout) == [
        "nobody is on the treize leaderboard yet: ratings settle in about 10 - 20 rated races"
    ]


async def test_logout_makes_the_saved_token_useless(node: NodeProcess, tmp_path: Path) -> None:
    config, copy = tmp_path / "c.json", tmp_path / "copy.json"
    username = unique("zed")
    key = f"{node.url} {username}"
    token = register(node, config, username)[key]["token"]
    shutil.copy(config, copy)
    out = run("logout", "--server", node.url, config=config)
    assert out.returncode == 0, out.stderr
    assert unwrapped(out.stdout) == [
        f"logged out {username} on {node.url}: the token kept here no longer works"
    ]
    assert json.loads(config.read_text()) == {"accounts": {}}
    async with await ArenaClient.connect(node.url) as probe:
        with pytest.raises(BadTokenError):
            await probe.hello(token=token)
    again = run("logout", "--server", node.url, config=config)
    assert one_error_line(again) == f"solitaire-arena: no account is logged in on {node.url} here"
    # Where the same token was kept, it no longer works: said so, never a guest of that name,
    # by every command until the player logs in again, or out.
    gone = (
        f"solitaire-arena: the saved login of {username} no longer works (logged out, the "
        f"password changed on another device, or unused for too long): solitaire-arena login "
        f"--server {node.url} signs you in again, or solitaire-arena logout --server {node.url} "
        "plays as a guest here"
    )
    for command in ("profile", "daily", "profile"):
        assert one_error_line(run(command, "--server", node.url, config=copy)) == gone
    assert key in json.loads(copy.read_text())
    forgotten = run("logout", "--server", node.url, config=copy)
    assert unwrapped(forgotten.stdout) == [
        f"{username} was logged out already; the token kept here is forgotten"
    ]
    assert key not in json.loads(copy.read_text())
    # Logged out, nobody is saved: profile says so rather than make a guest to show.
    nobody = run("profile", "--server", node.url, config=config)
    assert one_error_line(nobody).startswith(f"solitaire-arena: no player is saved here for {node.url} yet: ")
    assert json.loads(config.read_text()) == {"accounts": {}}


async def test_a_quick_match_wait_signed_out_elsewhere_says_so_and_to_log_in_not_that_the_server_is_away(
    node: NodeProcess, tmp_path: Path
) -> None:
    config = tmp_path / "c.json"
    username = unique("quin")
    register(node, config, username)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SOLITAIRE_ARENA_CONFIG": str(config)}
    waiting = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "play", "treize", "--wait", "60", "--server", node.url],
        cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert waiting.stdout is not None
        assert waiting.stdout.readline().startswith("waiting for someone to race at treize (rated")
        async with await ArenaClient.connect(node.url) as elsewhere:
            await elsewhere.login(username, PASSWORD)
            await elsewhere.change_password(PASSWORD, "a much newer secret")
        _out, err = await asyncio.to_thread(waiting.communicate, timeout=30)
    finally:
        waiting.kill()
    assert waiting.returncode == 1
    assert err.splitlines() == [
        "solitaire-arena: signed out: the account's password was changed: "
        f"solitaire-arena login --server {node.url} signs you in again"
    ]


async def test_password_changes_it_keeps_this_devices_token_and_ends_the_others(
    node: NodeProcess, tmp_path: Path
) -> None:
    config, elsewhere = tmp_path / "c.json", tmp_path / "elsewhere.json"
    username = unique("pat")
    key = f"{node.url} {username}"
    token = register(node, config, username)[key]["token"]
    logged_in = run(
        "login", "--username", username, "--password-stdin", "--server", node.url,
        config=elsewhere, stdin=PASSWORD + "\n",
    )  # fmt: skip
    assert logged_in.returncode == 0, logged_in.stderr
    new_password = "a much newer secret"
    wrong = run(
        "password", "--password-stdin", "--server", node.url, config=config,
        stdin=f"not the password\n{new_password}\n",
    )  # fmt: skip
    assert one_error_line(wrong) == "solitaire-arena: the old password is wrong"
    short = run(
        "password", "--password-stdin", "--server", node.url, config=config, stdin=f"{PASSWORD}\nshort\n"
    )
    assert one_error_line(short) == "solitaire-arena: a password has 8 to 128 characters"

    changed = run(
        "password", "--password-stdin", "--server", node.url, config=config,
        stdin=f"{PASSWORD}\n{new_password}\n",
    )  # fmt: skip
    assert changed.returncode == 0, changed.stderr
    assert unwrapped(changed.stdout) == [
        f"the password of {username} on {node.url} is changed; other devices must log in again"
    ]
    # This device keeps the new token the server gave (the old one stopped working).
    kept = json.loads(config.read_text())[key]["token"]
    assert kept != token
    async with await ArenaClient.connect(node.url) as probe:
        with pytest.raises(BadTokenError):
            await probe.hello(token=token)
    async with await ArenaClient.connect(node.url) as probe:
        assert (await probe.hello(token=kept)).username == username
    own = run("profile", "--server", node.url, config=config)  # this device's token works
    assert own.returncode == 0 and own.stdout.startswith(f"{username}  account {username}")
    stale = run(
        "password", "--password-stdin", "--server", node.url, config=elsewhere,
        stdin=f"{new_password}\n{PASSWORD}\n",
    )  # fmt: skip
    assert one_error_line(stale) == (
        f"solitaire-arena: {username} is logged out here (its token no longer works): log in again"
    )
    assert key in json.loads(elsewhere.read_text())  # kept: a play here is refused too, not a guest's
    async with await ArenaClient.connect(node.url) as probe:
        with pytest.raises(BadLoginError):
            await probe.login(username, PASSWORD)
    async with await ArenaClient.connect(node.url) as probe:
        assert (await probe.login(username, new_password)).username == username
    nobody = run("password", "--password-stdin", "--server", node.url, config=tmp_path / "none.json")
    assert one_error_line(nobody) == f"solitaire-arena: no account is logged in on {node.url} here"


def _ended(pid: int, fd: int) -> tuple[str, int]:
    """What the terminal shows until the command ends, and its exit status."""
    shown, done, status = "", 0, 0
    deadline = time.monotonic() + 10
    try:
        while done != pid and time.monotonic() < deadline:
            shown += _read_until(fd, "never shown", timeout=0.2)  # (its terminal closes as it ends)
            done, status = os.waitpid(pid, os.WNOHANG)
    finally:
        if done != pid:  # still asking: killed
            os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
        os.close(fd)
    return shown, os.waitstatus_to_exitcode(status)


def test_password_on_a_terminal_checks_the_old_one_before_asking_for_the_new_one(
    node: NodeProcess, tmp_path: Path
) -> None:
    config = tmp_path / "c.json"
    username = unique("tty")
    register(node, config, username)
    command = ["password", "--server", node.url]
    pid, fd = _on_a_terminal(command, config)
    assert "old password: " in _read_until(fd, "old password: ")
    os.write(fd, b"not the password\n")
    shown, status = _ended(pid, fd)
    assert status == 1 and "new password" not in shown
    assert "solitaire-arena: the old password is wrong" in shown

    pid, fd = _on_a_terminal(command, config)
    for prompt, answer in [("old password: ", PASSWORD), ("new password: ", "a newer secret")]:
        assert prompt in _read_until(fd, prompt)
        os.write(fd, f"{answer}\n".encode())
    assert "new password again: " in _read_until(fd, "new password again: ")
    os.write(fd, b"a newer secret\n")
    shown, status = _ended(pid, fd)
    assert status == 0, shown
    assert f"the password of {username} on {node.url}" in shown
    own = run("profile", "--server", node.url, config=config)  # the check's login left no harm
    assert own.returncode == 0 and own.stdout.startswith(f"{username}  account {username}")


async def test_rename_gives_the_saved_guest_a_new_name_and_keeps_its_player(
    node: NodeProcess, tmp_path: Path
) -> None:
    config = tmp_path / "c.json"
    player_id = await saved_guest(node, config, "kim")
    renamed = run("rename", "kim lee", "--name", "kim", "--server", node.url, config=config)
    assert renamed.returncode == 0, renamed.stderr
    assert unwrapped(renamed.stdout) == [
        f"kim is now kim lee (player {player_id}) on {node.url}; play as it with --name 'kim lee'"
    ]
    saved = json.loads(config.read_text())
    assert f"{node.url} kim" not in saved and saved[f"{node.url} kim lee"]["player_id"] == player_id
    profile = run("profile", "--name", "kim lee", "--server", node.url, config=config)
    assert profile.stdout.splitlines()[:2] == ["kim lee  guest", f"player {player_id}"]

    gone = run("rename", "kimberly", "--name", "kim", "--server", node.url, config=config)
    assert (
        one_error_line(gone)
        == f"solitaire-arena: no guest named kim is kept here for {node.url} (--name picks one)"
    )
    bad = run("rename", " kim", "--name", "kim lee", "--server", node.url, config=config)
    assert one_error_line(bad).startswith(
        "solitaire-arena: NEW_NAME ' kim' is not a name: a name starts with a letter or digit"
    )
    await saved_guest(node, config, "jo")
    taken = run("rename", "jo", "--name", "kim lee", "--server", node.url, config=config)
    assert (
        one_error_line(taken)
        == "solitaire-arena: a player named jo is kept here already: choose another name"
    )
    username = unique("acct")
    register(node, config, username, "--name", "jo")
    account = run("rename", "someone", "--server", node.url, config=config)  # the account logged in
    assert one_error_line(account) == f"solitaire-arena: {username} is an account: it goes by its username"


async def test_renaming_the_guest_played_by_default_keeps_it_the_default(
    node: NodeProcess, tmp_path: Path
) -> None:
    config = tmp_path / "c.json"
    login = default_name()  # the guest played as by default is named after the login
    player_id = await saved_guest(node, config, login)
    renamed = run("rename", "kim lee", "--server", node.url, config=config)
    assert renamed.returncode == 0, renamed.stderr
    assert unwrapped(renamed.stdout) == [
        f"{login} is now kim lee (player {player_id}) on {node.url}; the commands play as it without --name"
    ]
    again = run("profile", "--server", node.url, config=config)  # no --name: the same player
    assert again.stdout.splitlines()[:2] == ["kim lee  guest", f"player {player_id}"]
    assert f"{node.url} {login}" not in json.loads(config.read_text())
    twice = run("rename", "kim", "--server", node.url, config=config)
    assert twice.stdout.startswith(f"kim lee is now kim (player {player_id})")
    assert run("profile", "--server", node.url, config=config).stdout.startswith("kim  guest")


# ----- daily challenges ---------------------------------------------------------------------------


async def todays_dailies(node: NodeProcess) -> Dailies:
    """Today's deals, once the node (which prepares them itself on start) has them."""
    async with await ArenaClient.connect(node.url) as probe:
        await probe.hello(name="probe")
        for _ in range(300):
            try:
                return await probe.dailies()
            except DailyNotReadyError:
                await asyncio.sleep(0.1)
    raise AssertionError("the node never prepared today's daily deals")


async def daily_account(node: NodeProcess, config: Path, prefix: str) -> ArenaClient:
    """A new account playing through the SDK, logged in in ``config`` for the commands."""
    client = await ArenaClient.connect(node.url)
    await client.hello(name=prefix, legal_moves=True)
    account = await client.register(unique(prefix), PASSWORD)
    assert client.token is not None
    TokenStore(config).set_account(
        node.url, Credential(account.player_id, account.username, client.token, account=True)
    )
    return client


async def todays_seed(redis_url: str, date: str, game: str) -> int:
    """The day's seed, as the server keeps it (no client can learn it before the day ends)."""
    redis = async_redis(redis_url)
    try:
        deal = await Store(redis).dailies.deal(date, game)
    finally:
        await redis.aclose()
    assert deal is not None
    return deal.seed


async def play_to_a_win(client: ArenaClient, race_id: str, line: list[str]) -> RaceEnded:
    for move in line:
        await client.move(race_id, move)
        await asyncio.sleep(0.025)  # under the server's 50 messages a second
    return await client.wait_for(RaceEnded, lambda e: e.race_id == race_id)


def unwrapped(stdout: str) -> list[str]:
    """The printed lines, each checked to fit 80 columns, with a table's cell wrapped onto
    the next lines (indented under its column, more than 2 columns in) joined back."""
    lines: list[str] = []
    for line in stdout.splitlines():
        assert len(line) <= 80, line  # a standard terminal's width
        if lines and line.startswith("   "):
            lines[-1] += " " + line.lstrip()
        else:
            lines.append(line)
    return lines


def board_rows(stdout: str) -> dict[str, list[str]]:
    """The rows of a printed daily board by name: [rank, name, result words..., race id?]."""
    rows = {}
    for line in stdout.splitlines()[2:]:
        parts = line.split()
        if parts and parts[0].isdigit():
            rows[parts[1]] = parts
    return rows


async def test_daily_lists_the_days_three_deals_and_my_attempt(node: NodeProcess, tmp_path: Path) -> None:
    found = await todays_dailies(node)
    config = tmp_path / "c.json"
    me = await daily_account(node, config, "lister")
    listed = run("daily", "--server", node.url, config=config)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert re.fullmatch(
        rf"daily deals of {found.date} \(UTC\): the next day opens in \d+ h \d\d min", lines[0]
    ), lines[0]
    assert lines[1].split() == ["game", "commitment", "proven", "your", "attempt"]
    assert [line.split()[:2] for line in lines[2:5]] == [
        [info.game, info.commitment[:12] + "…"] for info in found.deals
    ]
    assert [info.game for info in found.deals] == ["eagle-wing", "treize", "eight-off"]
    for line, info in zip(lines[2:5], found.deals, strict=True):
        assert line.split()[2:] == ["yes" if info.proven else "no", "none", "yet"]
    assert "seed" not in listed.stdout  # not before the day is closed
    # The commands it suggests reach the same server (as the same player: the account).
    assert unwrapped(listed.stdout)[5:] == [
        f"play: solitaire-arena daily GAME --server {node.url}; its board: solitaire-arena daily GAME"
        f" --board --server {node.url}"
    ]

    # After an attempt (given up at once), the list gives its result, said to be given up
    # as a race's results say it, and its place.
    started = await me.start_daily("eagle-wing")
    race_id = started.race.race_id
    await me.finish(race_id)
    await me.wait_for(RaceEnded, lambda e: e.race_id == race_id)
    await me.close()
    again = run("daily", "--server", node.url, config=config)
    assert again.returncode == 0, again.stderr
    row = next(line for line in unwrapped(again.stdout) if line.startswith("eagle-wing"))
    assert re.search(rf"  scored: gave up with \d+ cards? home, #\d+ of \d+ \(race {race_id}\)$", row), row
    # A guest's first attempt is unscored: its result, no place.
    async with await ArenaClient.connect(node.url) as guest:
        await guest.sign_in("wanderer", TokenStore(config))
        tried = await guest.start_daily("treize")
        assert not tried.scored
        await guest.finish(tried.race.race_id)
        await guest.wait_for(RaceEnded, lambda e: e.race_id == tried.race.race_id)
    guest_list = run("daily", "--name", "wanderer", "--server", node.url, config=config)
    row = next(line for line in unwrapped(guest_list.stdout) if line.startswith("treize"))
    # Treize's score counts the cards removed, and says so.
    assert re.search(
        rf"  unscored \(guest\): gave up with \d+ cards? removed \(race {tried.race.race_id}\)$", row
    ), row
    # Its player replays it before the day's close, as the browser does: into a pipe, its
    # moves (none) and result, saying when the seed comes out (30 min, the default attempt,
    # and a minute after midnight).
    replay = run("replay", race_id, "--server", node.url, config=config)
    assert replay.returncode == 0, replay.stderr
    next_day = dt.date.fromisoformat(started.date) + dt.timedelta(days=1)
    assert " ".join(replay.stdout.split()).startswith(
        f"eagle-wing race {race_id}, seed revealed once the day's last attempts are over "
        f"({next_day} 00:31 UTC): 0 moves results 1. lister"
    ), replay.stdout


async def test_a_daily_refused_while_racing_names_that_race_by_its_game_and_code(
    node: NodeProcess, tmp_path: Path
) -> None:
    await todays_dailies(node)
    config = tmp_path / "c.json"
    me = await daily_account(node, config, "busy")
    async with await ArenaClient.connect(node.url) as bob:
        racing = await start_race(me, bob)
        refused = run("daily", "treize", "--server", node.url, config=config)
        # On a terminal 60 columns wide, the same refusal wraps between words.
        pid, fd = _on_a_terminal(["daily", "treize", "--server", node.url], config, columns=60)
        shown = _read_until(fd, "resumes it)")
        os.waitpid(pid, 0)
    await me.close()
    said = (
        f"solitaire-arena: you are racing in eight-off race {racing.code}: finish it before today's "
        f"treize daily (solitaire-arena play --server {node.url} resumes it)"
    )
    assert one_error_line(refused) == said  # to a pipe: one line, for programs
    lines = shown.replace("\r", "").strip().splitlines()
    assert len(lines) > 1 and all(len(line) <= 60 for line in lines), shown
    assert lines[0].startswith("solitaire-arena: you are racing in")
    assert all(line.startswith("  ") for line in lines[1:])
    assert " ".join(line.strip() for line in lines) == said


async def test_the_daily_board_ranks_two_accounts_and_shows_my_place(
    node: NodeProcess, redis_url: str, tmp_path: Path
) -> None:
    found = await todays_dailies(node)
    game = "eight-off"
    seed = await todays_seed(redis_url, found.date, game)
    line = solve_deal(game, seed).line
    assert line is not None
    fast_config, slow_config = tmp_path / "fast.json", tmp_path / "slow.json"
    fast = await daily_account(node, fast_config, "fast")
    slow = await daily_account(node, slow_config, "slow")
    quitter = await daily_account(node, tmp_path / "quitter.json", "quitter")
    given_up = await quitter.start_daily(game)
    await quitter.finish(given_up.race.race_id)
    await quitter.wait_for(RaceEnded, lambda e: e.race_id == given_up.race.race_id)
    await quitter.close()
    races = {}
    # slow waits 2 s before his moves: more than a busy machine's play takes (one CI run's
    # fast needed 1.2 s where slow needed 0.9)
    for client, pause in ((fast, 0.0), (slow, 2.0)):
        started = await client.start_daily(game)
        assert started.scored and started.date == found.date
        await asyncio.sleep(pause)  # slow's clock runs meanwhile
        ended = await play_to_a_win(client, started.race.race_id, line)
        assert ended.summary.standings[0].won
        races[client.name] = started.race.race_id
        await client.close()
    assert fast.name is not None and slow.name is not None

    board = run("daily", game, "--board", "--limit", "100", "--server", node.url, config=slow_config)
    assert board.returncode == 0, board.stderr
    lines = board.stdout.splitlines()
    assert re.fullmatch(
        rf"{game} daily board of {found.date} \(UTC\): \d+ finished scored attempts?", lines[0]
    )
    assert lines[1].split() == ["rank", "name", "result", "race"]
    rows = board_rows(board.stdout)
    first, second = rows[fast.name], rows[slow.name]
    assert int(first[0]) < int(second[0])
    assert board.stdout.index(fast.name) < board.stdout.index(slow.name)
    # Before the day closes slow's board carries the race id of his own attempt alone.
    for row in (first, second):
        assert row[2:4] == ["won", "in"] and row[5] == "s"
    assert second[6:] == [races[slow.name], "<-", "you"] and len(first) == 6
    assert races[fast.name] not in board.stdout
    next_day = dt.date.fromisoformat(found.date) + dt.timedelta(days=1)
    opens = f"once the day's last attempts are over ({next_day} 00:31 UTC)"
    assert f"others' race ids show\n  {opens}\n" in board.stdout  # in 80 columns
    # fast's attempt by its id (from the profile, say): slow's own attempt opens nothing of
    # it, and replay and export print the server's refusal, saying when it opens.
    refusal = (
        f"solitaire-arena: that is someone's attempt at the daily {game} deal of {found.date}: "
        f"it opens {opens}, to everyone at once"
    )
    for command in ("replay", "export"):
        refused = run(command, races[fast.name], "--server", node.url, config=slow_config)
        assert one_error_line(refused) == refusal, command
    assert float(first[4]) + 0.5 < float(second[4])  # slow waited 2 s
    assert f"you: #{second[0]}  won in {second[4]} s" in lines
    # The attempt given up says so, its cards under it in the result's column.
    assert quitter.name is not None
    gave_up = rows[quitter.name]
    assert gave_up[2:5] == ["gave", "up", "with"] and len(gave_up) == 6
    assert given_up.race.race_id not in board.stdout
    under = lines[lines.index(next(line for line in lines if quitter.name in line)) + 1]
    assert re.fullmatch(r" {32}cards? home", under), under

    # A second scored attempt is refused, in one line that says how to play it again.
    again = run("daily", game, "--server", node.url, config=slow_config)
    line = one_error_line(again)
    assert line == (
        f"solitaire-arena: you have had today's {game} attempt: solitaire-arena "
        f"daily {game} --practice --server {node.url} plays it again (unscored), or come back tomorrow"
    )

    # Someone who has not played sees the places but not the race ids.
    guest = run("daily", game, "--board", "--limit", "100", "--name", "onlooker", "--server", node.url,
                config=tmp_path / "guest.json")  # fmt: skip
    assert guest.returncode == 0, guest.stderr
    assert guest.stdout.splitlines()[1].split() == ["rank", "name", "result"]
    assert races[fast.name] not in guest.stdout and races[slow.name] not in guest.stdout
    assert board_rows(guest.stdout)[fast.name][:2] == first[:2]
    assert "you:" not in guest.stdout  # read as a viewer (nobody saved here): nobody to place
    assert f"others' race ids show\n  {opens}\n" in guest.stdout


async def test_practice_before_the_attempt_is_the_servers_refusal(node: NodeProcess, tmp_path: Path) -> None:
    await todays_dailies(node)
    async with await ArenaClient.connect(node.url) as probe:
        await probe.hello(name="early")
        with pytest.raises(DailyNotAttemptedError) as refused:
            await probe.start_daily("treize", practice=True)
    config = tmp_path / "c.json"
    result = run("daily", "treize", "--practice", "--name", "eager", "--server", node.url, config=config)
    assert one_error_line(result) == (
        "solitaire-arena: play today's treize attempt first, then practise it; "
        f"your attempt: solitaire-arena daily treize --server {node.url} --name eager"
    )
    assert refused.value.message == "play today's treize attempt first, then practise it"
    # Eager's attempt begun elsewhere (in the browser, say) and still on: practice waits for it.
    async with await ArenaClient.connect(node.url) as elsewhere:
        await elsewhere.sign_in("eager", TokenStore(config))
        race_id = (await elsewhere.start_daily("treize")).race.race_id
    result = run("daily", "treize", "--practice", "--name", "eager", "--server", node.url, config=config)
    assert one_error_line(result) == (
        f"solitaire-arena: your treize attempt of today (race {race_id}) is still on: finish it first, "
        f"then practise it; your attempt: solitaire-arena daily treize --server {node.url} --name eager"
    )


async def test_a_day_that_has_not_begun_is_not_yet(node: NodeProcess, tmp_path: Path) -> None:
    found = await todays_dailies(node)
    # Tomorrow's deals are prepared already, and still nobody may see them.
    tomorrow = (dt.date.fromisoformat(found.date) + dt.timedelta(days=1)).isoformat()
    config = tmp_path / "c.json"
    for command in (["daily"], ["daily", "treize", "--board"]):
        result = run(*command, "--date", tomorrow, "--server", node.url, config=config)
        assert one_error_line(result) == f"solitaire-arena: {tomorrow} has not begun (UTC)"
    bad = run("daily", "--date", "2027-3-4", "--server", node.url, config=config)
    assert one_error_line(bad) == "solitaire-arena: --date 2027-3-4 is not a date (YYYY-MM-DD)"
    past = run("daily", "treize", "--date", found.date, "--server", node.url, config=config)
    assert one_error_line(past) == (
        "solitaire-arena: --date is for the list and --board: only today's deal can be played"
    )


async def test_a_past_day_lists_its_seeds_and_salts_checked_against_the_commitments(
    node: NodeProcess, redis_url: str, tmp_path: Path
) -> None:
    found = await todays_dailies(node)
    # Two days back: yesterday's seeds wait until its last attempts are over (00:31 UTC).
    past_day = (dt.date.fromisoformat(found.date) - dt.timedelta(days=2)).isoformat()
    deals = {}
    redis = async_redis(redis_url)
    try:
        store = Store(redis)
        for number, game in enumerate(("eagle-wing", "treize", "eight-off"), start=1):
            seed, salt = 1000 + number, secrets.token_hex(16)
            # One published commitment that the revealed seed does not match: the check says so.
            shown = commitment(game, seed + (1 if game == "treize" else 0), salt)
            deal = DailyDeal(seed, 0, salt, shown, True, 10)
            await store.dailies.put_deal(past_day, game, deal)
            deals[game] = await store.dailies.deal(past_day, game)
    finally:
        await redis.aclose()
    result = run("daily", "--date", past_day, "--server", node.url, config=tmp_path / "c.json")
    assert result.returncode == 0, result.stderr
    lines = unwrapped(result.stdout)  # seeds, salts and the note wrapped to fit 80 columns
    assert lines[0] == f"daily deals of {past_day} (UTC): over, seeds revealed"
    assert lines[2].split()[3:] == ["none"]
    assert lines[5] == "seeds and salts"
    for line, (game, deal) in zip(lines[6:9], deals.items(), strict=True):
        assert deal is not None
        check = "does NOT match" if game == "treize" else "matches"
        want = f"{game} seed {deal.seed} salt {deal.salt} sha256 {check} the commitment"
        assert line.split() == want.split()
    assert lines[9].startswith('verify: sha256("solitaire-arena:<game>:<seed>:<salt>") is the commitment')
    empty = run(
        "daily", "eight-off", "--board", "--date", past_day, "--server", node.url, config=tmp_path / "c.json"
    )
    assert empty.stdout.strip() == f"nobody finished a scored eight-off attempt of {past_day}"  # it is over
    # A past day without dailies is said so.
    none = run(
        "daily", "treize", "--board", "--date", "2001-01-01", "--server", node.url, config=tmp_path / "c.json"
    )
    assert one_error_line(none) == "solitaire-arena: there was no treize daily on 2001-01-01"
    # And so is its tournament (no "final: counted", no one who has not finished "yet").
    standings = run(
        "daily", "--standings", "--date", "2001-01-01", "--server", node.url, config=tmp_path / "c.json"
    )
    assert one_error_line(standings) == "solitaire-arena: there were no daily challenges on 2001-01-01"


@pytest.fixture
def lone_node(tmp_path: Path) -> Iterator[tuple[NodeProcess, str]]:
    """A node on a Redis of its own: the day's standing holds only the test's players."""
    own = EmbeddedRedis(tmp_path / "redis")
    url = own.start()
    process = start_node(redis_url=url, extra_env={"SA_NEW_PLAYER_RATE": "0"})
    yield process, url
    process.terminate()
    own.stop()


def standing_rows(stdout: str, header: str) -> list[list[str]]:
    """The rows of one printed table of ``daily --standings``, split in words."""
    lines = stdout.splitlines()
    title = lines.index(header)
    start = next(at for at in range(title, len(lines)) if lines[at].startswith("rank  ")) + 1
    rows = []
    for line in lines[start:]:
        if not line.split() or not line.split()[0].isdigit():
            break
        rows.append(line.split())
    return rows


async def test_daily_standings_print_the_days_points_by_place_the_tables_and_my_streak(
    lone_node: tuple[NodeProcess, str], tmp_path: Path
) -> None:
    node, redis_url = lone_node
    found = await todays_dailies(node)
    game = "eight-off"
    line = solve_deal(game, await todays_seed(redis_url, found.date, game)).line
    assert line is not None
    fast_config, slow_config = tmp_path / "fast.json", tmp_path / "slow.json"
    fast = await daily_account(node, fast_config, "fast")
    slow = await daily_account(node, slow_config, "slow")
    ids = {}
    # slow waits 2 s: more than a busy machine's play takes (in a CI run, slow waiting
    # 0.4 s still finished the same line first)
    for client, pause in ((fast, 0.0), (slow, 2.0)):
        started = await client.start_daily(game)
        await asyncio.sleep(pause)  # slow's clock runs meanwhile: second on the board
        ended = await play_to_a_win(client, started.race.race_id, line)
        assert ended.summary.standings[0].won
        ids[client.name] = client.player_id
        await client.close()
    assert fast.name is not None and slow.name is not None

    shown = run("daily", "--standings", "--server", node.url, config=slow_config)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    day = f"daily tournament of {found.date} (UTC)"
    next_day = dt.date.fromisoformat(found.date) + dt.timedelta(days=1)
    assert lines[:3] == [
        day,
        f"live: final soon after {next_day} 00:31 UTC",  # 30-minute attempts, and a minute
        "rank  name                      points  eagle-wing  treize  eight-off",
    ]
    assert standing_rows(shown.stdout, day) == [
        ["1", fast.name, "25", "-", "-", "1"],
        ["2", slow.name, "18", "-", "-", "2", "<-", "you"],
    ]
    assert max(len(line) for line in lines) <= 80  # a standard terminal's width
    week = dt.date.fromisoformat(found.date).isocalendar()
    assert lines[5:8] == [
        f"week {week.year}-W{week.week:02d} (days counted once they are over)",
        "rank  name                      points",
        "  no day of this week counted yet",
    ]
    assert lines[8:11] == ["all time", "rank  name                      points", "  no day counted yet"]
    # No counted day yet: the server leaves the streak out, and so does the page (no
    # "your streak: 0 days (best 0)").
    assert not any("streak" in line for line in lines)
    assert lines[11:13] == [
        "points: 25 18 15 12 10 8 6 4 2 1 for places 1-10 on each game's board,",
        "        1 for any other finished scored attempt",
    ]

    # A day counted a while ago (as the server's daily task counts one): its week's table,
    # the all-time table and the streaks it left. 19 others scored more than both: slow
    # is the last of the top 20 shown, and fast's own row comes under each table.
    # Older than the days the node counts by itself on its start (empty): CATCH_UP_DAYS.
    then = dt.date.fromisoformat(found.date) - dt.timedelta(days=CATCH_UP_DAYS + 5)
    then_week = then.isocalendar()
    redis = async_redis(redis_url)
    try:
        points = {f"p_other_{index}": 100 - index for index in range(19)}
        points |= {ids[fast.name]: 25, ids[slow.name]: 43}
        week_name = f"{then_week.year}-W{then_week.week:02d}"
        days = (then - dt.date(1970, 1, 1)).days
        store = Store(redis)
        for number, game_name in enumerate(GAMES):  # the day had its dailies
            salt = secrets.token_hex(16)
            deal = DailyDeal(number, 0, salt, commitment(game_name, number, salt), True, 10)
            await store.dailies.put_deal(then.isoformat(), game_name, deal)
        assert await store.dailies.close(then.isoformat(), days, week_name, points, 0)
    finally:
        await redis.aclose()
    past = run("daily", "--standings", "--date", then.isoformat(), "--server", node.url, config=fast_config)
    assert past.returncode == 0, past.stderr
    lines = past.stdout.splitlines()
    assert lines[1:4] == [
        "final: counted into the week's and all-time tables",
        "rank  name                      points  eagle-wing  treize  eight-off",
        f"  nobody finished a scored attempt of {then}",
    ]
    for header in (f"week {week_name} (days counted once they are over)", "all time"):
        rows = standing_rows(past.stdout, header)
        assert [row[0] for row in rows] == [str(rank) for rank in range(1, 21)]
        assert rows[0][2] == "100" and rows[-1] == ["20", slow.name, "43"]
        end = lines.index(header) + 2 + len(rows)
        assert lines[end : end + 2] == [
            "   \N{HORIZONTAL ELLIPSIS}",
            f"  21  {fast.name:<24}      25  <- you",
        ]
    assert "your streak: 0 days (best 1)" in lines  # not current: weeks ago

    # GAME (or --board) with --standings is refused in one line, and so is a day to come.
    both = run("daily", game, "--standings", "--server", node.url, config=fast_config)
    assert one_error_line(both) == (
        "solitaire-arena: --standings is the whole day's tournament: no GAME, --board or --practice with it"
    )
    tomorrow = (dt.date.fromisoformat(found.date) + dt.timedelta(days=1)).isoformat()
    later = run("daily", "--standings", "--date", tomorrow, "--server", node.url, config=fast_config)
    assert one_error_line(later) == f"solitaire-arena: {tomorrow} has not begun (UTC)"


# ----- spectators: live, watch, export, verify ---------------------------------------------


async def racing(node: NodeProcess) -> tuple[ArenaClient, ArenaClient, str]:
    """ada and bob (who get their legal moves) race Eight Off; once both saw the start."""
    ada, bob = await ArenaClient.connect(node.url), await ArenaClient.connect(node.url)
    await ada.hello(name="ada", legal_moves=True)
    await bob.hello(name="bob", legal_moves=True)
    race = await start_race(ada, bob, time_limit=60)
    return ada, bob, race.race_id


async def play_moves(client: ArenaClient, race_id: str, count: int) -> list[str]:
    """``count`` moves of the racer's board (the first legal one each time, never an undo)."""
    board = await client.board(race_id)
    assert board is not None
    legal = board.view.legal_moves or []
    played = []
    for _ in range(count):
        move = next(m for m in legal if m != "undo")
        ack = await client.move(race_id, move)
        played.append(ack.result.move)
        legal = ack.view.legal_moves or []
    return played


async def finish_race(ada: ArenaClient, bob: ArenaClient, race_id: str) -> RaceEnded:
    await ada.finish(race_id)
    await bob.finish(race_id)
    ended = await ada.wait_for(RaceEnded, lambda e: e.race_id == race_id)
    await ada.close()
    await bob.close()
    return ended


def test_the_spectators_commands_have_clear_help(tmp_path: Path) -> None:
    top = run("--help", config=tmp_path / "c.json")
    for command in ("live", "watch", "export", "verify"):
        assert re.search(rf"^    {command}\b", top.stdout, re.MULTILINE), command
    watch = run("watch", "--help", config=tmp_path / "c.json")
    words = " ".join(watch.stdout.split())
    for flag in ("RACE", "--plain", "--once", "--server", "--name", "featured", "Tab or the keys 1-8"):
        assert flag in words, flag
    export = run("export", "--help", config=tmp_path / "c.json").stdout
    assert "-o FILE, --output FILE" in export
    verify = run("verify", "--help", config=tmp_path / "c.json").stdout
    assert "FILE" in verify and "--server" not in verify  # offline


async def test_live_lists_a_race_being_played_with_its_racers(node: NodeProcess, tmp_path: Path) -> None:
    ada, bob, race_id = await racing(node)
    await play_moves(ada, race_id, 2)
    result = run("live", "--game", "eight-off", "--server", node.url, config=tmp_path / "c.json")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["race", "game", "kind", "status", "spectators", "delay"]
    row = next(i for i, line in enumerate(lines) if line.startswith(race_id))
    assert lines[row].split() == [race_id, "eight-off", "casual", "running", "0", "live"]
    racers = [lines[row + 1].split(), lines[row + 2].split()]
    assert [words[0] for words in racers] == ["ada", "bob"]
    for words in racers:  # a guest has no rating
        assert words[1:3] == ["-", "score"] and words[4:] == [str(52 - int(words[3])), "left"]
    # The commands it suggests reach the same server (not the default one), in 80 columns.
    suggestion = lines[next(i for i, line in enumerate(lines) if line.startswith("watch one: ")) :]
    assert " ".join(" ".join(suggestion).split()) == (
        f"watch one: solitaire-arena watch RACE --server {node.url}; "
        f"the featured race: solitaire-arena watch --server {node.url}"
    )
    assert all(len(line) <= 80 for line in suggestion)
    # Another game's list is empty, and says so of that game only: someone is racing.
    result = run("live", "--game", "treize", "--server", node.url, config=tmp_path / "c.json")
    assert result.returncode == 0, result.stderr
    assert " ".join(result.stdout.split()) == (
        f"nobody is racing treize now: solitaire-arena live --server {node.url} lists every game's races"
    )
    await finish_race(ada, bob, race_id)


async def test_live_lines_up_wide_names_within_80_columns(node: NodeProcess, tmp_path: Path) -> None:
    # Chinese letters take two columns each: 12 of them fill the name column, 24 overflow it.
    full, wide = "李小龍" * 4, "李小龍" * 8
    one, two = await ArenaClient.connect(node.url), await ArenaClient.connect(node.url)
    await one.hello(name=full)
    await two.hello(name=wide)
    race = await start_race(one, two, game="eagle-wing", time_limit=60)
    for _ in range(5):  # a node keeps its live list a second: until it has the race
        result = run("live", "--game", "eagle-wing", "--server", node.url, config=tmp_path / "c.json")
        assert result.returncode == 0, result.stderr
        if race.race_id in result.stdout:
            break
        await asyncio.sleep(0.5)
    lines = result.stdout.splitlines()
    assert all(width(line) <= 80 for line in lines), result.stdout
    row = next(i for i, line in enumerate(lines) if line.startswith(race.race_id))
    rows = lines[row + 1 : row + 3]
    assert [line.split()[0] for line in rows] == [full, "李小龍李小龍李小龍李小…"]
    # Both ratings ("-": guests) end where the name column's 24 columns put them: after
    # 4 spaces, the name, 2 spaces and 5 columns; so does the rest of the row.
    assert [width(line[: line.index(" -") + 2]) for line in rows] == [35, 35]
    assert width(rows[0]) == width(rows[1])
    await finish_race(one, two, race.race_id)


async def plain_watch(
    node: NodeProcess, race_id: str, tmp_path: Path
) -> tuple[asyncio.subprocess.Process, str]:
    """``watch RACE --plain --once`` running, with the first line it printed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SOLITAIRE_ARENA_CONFIG": str(tmp_path / "c.json")}
    watcher = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "watch", race_id, "--plain", "--once", "--server", node.url,
        cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert watcher.stdout is not None
    first = (await asyncio.wait_for(watcher.stdout.readline(), 20)).decode().rstrip("\n")
    return watcher, first


async def test_watch_plain_says_who_gave_up_before_it_began(node: NodeProcess, tmp_path: Path) -> None:
    ada, bob, race_id = await racing(node)
    (move,) = await play_moves(ada, race_id, 1)
    await ada.finish(race_id)
    watcher, first = await plain_watch(node, race_id, tmp_path)
    assert first == f"watching race {race_id}: eight-off, casual, running; ada, bob; 1 spectator"
    assert watcher.stdout is not None
    board = (await asyncio.wait_for(watcher.stdout.readline(), 20)).decode().rstrip("\n")
    said = rf"ada: gave up, last {re.escape(move)} \(1 move, score \d+, \d+ left\)"
    assert re.fullmatch(said, board), board
    await bob.finish(race_id)
    await ada.close()
    await bob.close()
    _out, err = await asyncio.wait_for(watcher.communicate(), 20)
    assert watcher.returncode == 0, err.decode()


async def test_watch_plain_prints_every_move_then_the_ranking(node: NodeProcess, tmp_path: Path) -> None:
    ada, bob, race_id = await racing(node)
    watcher, first = await plain_watch(node, race_id, tmp_path)
    # The watch is on from here: every move after it is printed.
    assert first == f"watching race {race_id}: eight-off, casual, running; ada, bob; 1 spectator"
    played = [("ada", move) for move in await play_moves(ada, race_id, 2)]
    played += [("bob", move) for move in await play_moves(bob, race_id, 3)]
    ended = await finish_race(ada, bob, race_id)
    out, err = await asyncio.wait_for(watcher.communicate(), 20)
    assert watcher.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    moves = [line for line in lines if re.fullmatch(r"\w+: \S+ \(score \d+, \d+ left\)", line)]
    assert [tuple(line.split(" (")[0].split(": ")) for line in moves] == played
    assert [line.split(" (")[0] for line in lines if " gave up (" in line] == ["ada gave up", "bob gave up"]
    end = lines.index(f"race {race_id} over")
    ranking = [line.split() for line in lines[end + 1 :]]
    assert [(words[0], words[1]) for words in ranking] == [
        (f"{s.rank}.", s.name) for s in ended.summary.standings
    ]
    # Both gave up, and the ranking says so where a winner's time would be.
    assert all("  gave up with " in line and len(line) <= 80 for line in lines[end + 1 :])


async def test_watch_plain_of_the_featured_race_back_after_it_ended_prints_its_ranking_then_the_next(
    arena: ArenaServer, link: Link, tmp_path: Path
) -> None:
    """A plain featured watch loses its connection while its race ends: back, it prints that
    race's end and ranking before what it watches now (it used to print "reconnected" and
    the next featured race only)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SOLITAIRE_ARENA_CONFIG": str(tmp_path / "c.json")}
    env.pop("SOLITAIRE_ARENA_SERVER", None)
    watcher = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "watch", "--plain", "--server", link.url,
        cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert watcher.stdout is not None
    stdout = watcher.stdout

    async def line() -> str:
        return (await asyncio.wait_for(stdout.readline(), 30)).decode().rstrip("\n")

    try:
        assert await line() == FEATURED_NONE
        ada, bob = await ArenaClient.connect(arena.url), await ArenaClient.connect(arena.url)
        await ada.hello(name="ada")
        await bob.hello(name="bob")
        race_id = (await start_race(ada, bob, time_limit=60)).race_id
        while not (await line()).startswith(f"featured race {race_id}: eight-off, casual"):
            pass
        link.cut()  # the network drops, and stays down while the race ends
        ended = await finish_race(ada, bob, race_id)
        link.mend()
        while await line() != "reconnected":
            pass
        printed = [await line()]
        while printed[-1] != FEATURED_NONE:  # up to what it watches now
            printed.append(await line())
        assert printed == [
            f"race {race_id} over while the connection was down",
            *ranking_lines(ended.summary),
            FEATURED_NONE,
        ]
        assert [words.split()[1] for words in printed[1:3]] == [s.name for s in ended.summary.standings]
    finally:
        watcher.terminate()
        await watcher.wait()


async def test_watch_plain_of_an_account_signed_out_elsewhere_says_why_and_to_log_in_again(
    node: NodeProcess, tmp_path: Path
) -> None:
    username = unique("sam")
    register(node, tmp_path / "c.json", username)
    _ada, _bob, race_id = await racing(node)
    watcher, _first = await plain_watch(node, race_id, tmp_path)
    async with await ArenaClient.connect(node.url) as elsewhere:  # sam's other device
        await elsewhere.login(username, PASSWORD)
        await elsewhere.change_password(PASSWORD, "staple 2 horses")
    _out, err = await asyncio.wait_for(watcher.communicate(), 20)
    assert watcher.returncode == 1
    assert err.decode().splitlines() == [
        "solitaire-arena: signed out: the account's password was changed: "
        f"solitaire-arena login --server {node.url} signs you in again"
    ]


async def test_watch_plain_starts_with_the_last_move_of_each_racer_who_moved_before_it(
    node: NodeProcess, tmp_path: Path
) -> None:
    ada, bob, race_id = await racing(node)
    before = await play_moves(ada, race_id, 2)
    watcher, first = await plain_watch(node, race_id, tmp_path)
    assert first.startswith(f"watching race {race_id}: ")
    so_far = (await asyncio.wait_for(watcher.stdout.readline(), 20)).decode().rstrip("\n")
    assert re.fullmatch(rf"ada: last {re.escape(before[-1])} \(2 moves, score \d+, \d+ left\)", so_far), (
        so_far
    )
    await finish_race(ada, bob, race_id)
    _out, err = await asyncio.wait_for(watcher.communicate(), 20)
    assert watcher.returncode == 0, err.decode()


async def test_watch_plain_counts_a_racers_moves_without_their_undos(
    node: NodeProcess, tmp_path: Path
) -> None:
    ada, bob, race_id = await racing(node)
    await play_moves(ada, race_id, 3)
    await ada.move(race_id, "undo")  # seq 4, but 2 moves on the board
    watcher, _first = await plain_watch(node, race_id, tmp_path)
    so_far = (await asyncio.wait_for(watcher.stdout.readline(), 20)).decode().rstrip("\n")
    assert re.fullmatch(r"ada: last undo \(2 moves, score \d+, \d+ left\)", so_far), so_far
    await finish_race(ada, bob, race_id)
    _out, err = await asyncio.wait_for(watcher.communicate(), 20)
    assert watcher.returncode == 0, err.decode()


def test_watching_an_unknown_race_is_one_line(node: NodeProcess, tmp_path: Path) -> None:
    result = run("watch", "000000000000", "--plain", "--server", node.url, config=tmp_path / "c.json")
    assert one_error_line(result) == "solitaire-arena: there is no race '000000000000'"


async def test_watching_a_race_that_is_over_says_the_command_that_replays_it(
    node: NodeProcess, tmp_path: Path
) -> None:
    ada, bob, race_id = await racing(node)
    await finish_race(ada, bob, race_id)
    await ada.close()
    await bob.close()
    result = await asyncio.to_thread(
        run, "watch", race_id, "--plain", "--server", node.url, config=tmp_path / "c.json"
    )
    replay = f"solitaire-arena replay {race_id} --server {node.url}"
    assert one_error_line(result) == f"solitaire-arena: race {race_id} is over: {replay} replays it"


async def test_an_exported_record_verifies_offline_and_an_altered_one_does_not(
    node: NodeProcess, redis_url: str, tmp_path: Path, short_tmp: Path
) -> None:
    ada, bob, race_id = await racing(node)
    ada_id, bob_id = ada.player_id, bob.player_id
    ada_moves = await play_moves(ada, race_id, 3)
    await play_moves(bob, race_id, 2)
    ended = await finish_race(ada, bob, race_id)

    # Nobody is saved in this credentials file: reading makes no guest.
    config, record = tmp_path / "c.json", short_tmp / "race.txt"  # a path never broken, within 80
    players = await players_on(redis_url)
    exported = run("export", race_id, "-o", str(record), "--server", node.url, config=config)
    assert exported.returncode == 0, exported.stderr
    assert unwrapped(exported.stdout) == [  # in lines of at most 80 columns, as long as the path is
        f"record of race {race_id} written to {record}; check it offline: solitaire-arena verify {record}"
    ]
    text = record.read_text(encoding="utf-8")
    assert text.startswith('[Event "Solitaire Arena race"]\n') and f'[Race "{race_id}"]' in text
    assert run("export", race_id, "--server", node.url, config=config).stdout == text  # to stdout
    replayed = run("replay", race_id, "--server", node.url, config=config)  # a pipe: as text
    assert replayed.stdout.splitlines()[0] == f"eight-off race {race_id}, seed {ended.summary.seed}: 5 moves"
    for reading in (["live"], ["leaderboard"], ["daily", "--standings"]):
        assert run(*reading, "--server", node.url, config=config).returncode == 0, reading
    assert await players_on(redis_url) == players and not config.exists()

    verified = run("verify", str(record), config=config)  # no server: offline
    assert verified.returncode == 0, verified.stderr
    renamed = short_tmp / "renamed.txt"  # a name no ASCII console can show (names are not signed)
    renamed.write_text(text.replace(" ada human", " \u674e human"), encoding="utf-8")
    with pytest.MonkeyPatch.context() as ascii_console:  # "?" for what it cannot show, no traceback
        ascii_console.setenv("PYTHONIOENCODING", "ascii")
        on_ascii = run("verify", str(renamed), config=config)
        assert on_ascii.returncode == 0 and "Traceback" not in on_ascii.stderr, on_ascii.stderr
        assert on_ascii.stdout.isascii() and " ? " in on_ascii.stdout
    lines = verified.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines), verified.stdout
    assert lines[0] == f"eight-off race {race_id}, casual" and lines[1].startswith("started ")
    assert lines[2].startswith("commitment ") and lines[3].startswith("seed ")
    at = lines.index("results")
    results = [line.split() for line in lines[at + 1 : at + 3]]
    assert [(words[0], words[1]) for words in results] == [
        (f"{s.rank}.", s.name) for s in ended.summary.standings
    ]
    assert ada_id not in verified.stdout and bob_id not in verified.stdout  # names differ: no ids
    shares = len(re.findall(r"^\[Share ", text, re.MULTILINE))
    assert lines[at + 3] == (
        f"verified: the commitment, {shares} seed share{'' if shares == 1 else 's'}, the seed and "
        "5 moves check out"
    )

    # One move changed to an illegal one: the racer and the move, numbered as in the record.
    section = f"== {ada_id}\n1. {ada_moves[0]} {{"
    assert section in text
    altered = tmp_path / "altered.txt"
    altered.write_text(text.replace(section, f"== {ada_id}\n1. t1>t1 {{"), encoding="utf-8")
    rejected = run("verify", str(altered), config=config)
    assert one_error_line(rejected) == (
        f"solitaire-arena: {altered} does not verify: racer ada, move 1: "
        "illegal move 't1>t1': t1 cannot move onto itself"
    )
    assert rejected.stdout == ""

    # A result that the moves do not give.
    result_line = next(line for line in text.splitlines() if line.startswith('[Result "') and bob_id in line)
    fields = result_line[len('[Result "') : -2].split()
    fields[4] = str(int(fields[4]) + 1)  # the move count
    altered.write_text(text.replace(result_line, f'[Result "{" ".join(fields)}"]'), encoding="utf-8")
    claimed = run("verify", str(altered), config=config)
    assert one_error_line(claimed) == (
        f"solitaire-arena: {altered} does not verify: racer bob: results say "
        f"move_count={fields[4]} but the moves give move_count={int(fields[4]) - 1}"
    )

    # Not a record at all: exit status 2, and the line.
    garbage = tmp_path / "garbage.txt"
    garbage.write_text('[Event "Solitaire Arena race"]\nnot a header\n', encoding="utf-8")
    unreadable = run("verify", str(garbage), config=config)
    assert unreadable.returncode == 2
    assert unreadable.stderr.strip().startswith(f"solitaire-arena: {garbage} is not a race record: line 2: ")
    missing = run("verify", str(tmp_path / "nowhere.txt"), config=config)
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def long_named_record(move_count: int = 0) -> RaceRecord:
    """A rated race of three racers with 19-digit seeds and seed shares: two named alike,
    one with a 60-character name (a bot with a rating); nobody moved (bob's result says
    ``move_count``)."""
    game, server_seed, salt = "treize", 8_765_432_109_876_543_210, "5a17"
    racers = (
        RecordRacer("p_7a1b2c3d4e5f", "Ada Lovelace", rating=1523),
        RecordRacer("p_8a1b2c3d4e5f", "Ada Lovelace", rating=1498),
        RecordRacer("p_9a1b2c3d4e5f", "Bartholomew " * 5, bot=True, rating=1500),
    )
    shares = {racer.player_id: f"{index:x}" * 16 for index, racer in enumerate(racers, start=1)}
    return RaceRecord(
        game=game, deal_version=1, race_id="0123456789ab", started_at=1_700_000_000_000,
        ended_at=1_700_000_600_000, time_limit_ms=600_000, rated=True, daily=None,
        server_seed=server_seed, salt=salt, commitment=commitment(game, server_seed, salt),
        shares=tuple(RecordShare(p, share_commitment(share), share) for p, share in shares.items()),
        seed=mixed_seed(game, server_seed, shares), racers=racers,
        results=(
            RecordResult(1, "p_7a1b2c3d4e5f", False, 0, 0, None, 0),
            RecordResult(1, "p_8a1b2c3d4e5f", False, 0, move_count, None, 0),
            RecordResult(1, "p_9a1b2c3d4e5f", False, 0, 0, None, 0),
        ),
        moves=tuple((racer.player_id, ()) for racer in racers),
    )  # fmt: skip


def test_verify_fits_80_columns_and_names_racers_by_name(tmp_path: Path) -> None:
    config, path = tmp_path / "c.json", tmp_path / "race.txt"
    path.write_text(write_record(long_named_record()), encoding="utf-8")
    verified = run("verify", str(path), config=config)
    assert verified.returncode == 0, verified.stderr
    lines = verified.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines), "\n".join(line for line in lines if len(line) > 80)
    # A rated race's ratings are labelled: the record keeps them from before the race.
    heading = lines.index("results (beside each name: the rating before the race)")
    results = lines[heading + 1 : heading + 4]
    # Alike names carry their player id; a long one is cut with an ellipsis, its marks kept.
    assert [line.split("  ")[1].strip() for line in results] == [
        "1. Ada Lovelace (p_7a1b2c3d4e5f) 1523",
        "1. Ada Lovelace (p_8a1b2c3d4e5f) 1498",
        f"1. {'Bartholomew ' * 3}B… [bot] 1500",
    ]
    assert "p_9a1b2c3d4e5f" not in verified.stdout

    # A failed check names the racer by name too (with the id, as names clash here).
    path.write_text(write_record(long_named_record(move_count=1)), encoding="utf-8")
    rejected = run("verify", str(path), config=config)
    assert one_error_line(rejected) == (
        f"solitaire-arena: {path} does not verify: racer Ada Lovelace (p_8a1b2c3d4e5f): "
        "results say move_count=1 but the moves give move_count=0"
    )


def practice_record(attempt: str | None) -> RaceRecord:
    """alice's run of the daily Eight Off of 2026-11-25, no move made: what the run was
    (``attempt``; None: a record from before the Attempt header)."""
    game, seed, salt = "eight-off", 9_012_345_678_901_234_567, "0d"
    return RaceRecord(
        game=game, deal_version=1, race_id="ad687e76577a", started_at=1_764_064_800_000,
        ended_at=1_764_066_600_000, time_limit_ms=1_800_000, rated=False, daily="2026-11-25",
        attempt=attempt, server_seed=seed, salt=salt, commitment=commitment(game, seed, salt),
        shares=(), seed=seed, racers=(RecordRacer("p_a11ce", "alice"),),
        results=(RecordResult(1, "p_a11ce", False, 0, 0, None, 0),), moves=(("p_a11ce", ()),),
    )  # fmt: skip


def test_verify_says_whether_a_daily_run_was_the_scored_attempt_or_a_practice(tmp_path: Path) -> None:
    config = tmp_path / "c.json"
    race = "eight-off race ad687e76577a, casual"
    said = {
        "practice": f"{race}, practice (unscored) of the daily challenge of 2026-11-25",
        "scored": f"{race}, scored attempt at the daily challenge of 2026-11-25",
        "unscored": f"{race}, a guest's unscored attempt at the daily challenge of 2026-11-25",
        None: f"{race}, daily challenge of 2026-11-25 (scored or practice: not recorded)",
    }
    for attempt, first in said.items():
        text = write_record(practice_record(attempt))
        verified = run("verify", "-", config=config, stdin=text)
        assert verified.returncode == 0, verified.stderr
        assert " ".join(unwrapped(verified.stdout)[:2]).startswith(first), verified.stdout
    # Two racers in a daily run: no daily run is anything but a race of one.
    two = practice_record("scored")
    two = dataclasses.replace(
        two,
        racers=(*two.racers, RecordRacer("p_b0b", "bob")),
        results=(*two.results, RecordResult(1, "p_b0b", False, 0, 0, None, 0)),
    )
    refused = run("verify", "-", config=config, stdin=write_record(two))
    assert one_error_line(refused) == (
        "solitaire-arena: stdin does not verify: a daily challenge run has one racer, not 2"
    )


def test_verify_lines_up_wide_names_within_80_columns(tmp_path: Path) -> None:
    config, path = tmp_path / "c.json", tmp_path / "race.txt"
    record = long_named_record()
    names = ("李小龍" * 4, "李小龍" * 4, "李" * 24)  # two alike, one of 48 columns
    racers = tuple(dataclasses.replace(r, name=name) for r, name in zip(record.racers, names, strict=True))
    path.write_text(write_record(dataclasses.replace(record, racers=racers)), encoding="utf-8")
    verified = run("verify", str(path), config=config)
    assert verified.returncode == 0, verified.stderr
    lines = verified.stdout.splitlines()
    assert all(width(line) <= 80 for line in lines), verified.stdout
    heading = lines.index("results (beside each name: the rating before the race)")
    results = lines[heading + 1 : heading + 4]
    # Each outcome starts in the same column, two after the widest name and its marks.
    assert len({width(line[: line.index("0 cards removed")]) for line in results}) == 1
    assert [line.split("  ")[1].split(" ")[1] for line in results] == ["李小龍李小龍李小龍李…"] * 2 + [
        "李" * 18 + "…"
    ]


def test_verify_from_stdin_names_stdin_in_its_errors(tmp_path: Path) -> None:
    config = tmp_path / "c.json"
    garbage = run("verify", "-", config=config, stdin='[Event "Solitaire Arena race"]\nnot a header\n')
    assert garbage.returncode == 2
    assert garbage.stderr.startswith("solitaire-arena: stdin is not a race record: line 2: ")
    empty = run("verify", "-", config=config, stdin="")
    assert empty.returncode == 2 and empty.stderr.startswith("solitaire-arena: stdin is not a race record: ")
    assert "- " not in garbage.stderr + empty.stderr


def test_a_credentials_file_that_cannot_be_read_is_named_not_blamed_on_the_server(
    node: NodeProcess, tmp_path: Path
) -> None:
    result = run("live", "--server", node.url, config=tmp_path)  # a directory, not a file
    assert (
        one_error_line(result)
        == f"solitaire-arena: cannot read the credentials file {tmp_path}: it is a directory"
    )


def test_a_credentials_file_that_cannot_be_written_is_named_not_blamed_on_the_server(
    node: NodeProcess,
) -> None:
    unwritable = Path("/proc/solitaire-arena-credentials.json")  # nothing can be made there, even by root
    result = run("play", "--server", node.url, config=unwritable)
    assert one_error_line(result) == (
        f"solitaire-arena: cannot write the credentials file {unwritable}: no such file or directory"
    )

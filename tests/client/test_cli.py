"""The player's commands of ``solitaire-arena``, run as real subprocesses against a real
server process: their output, their exit status, and one-line errors; the account's
commands (register, login, logout) and what they leave in the credentials file; profiles
and leaderboards as printed."""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from client.errors import BadTokenError
from client.sdk import ArenaClient
from shared.protocol import RaceEnded
from tests.server.conftest import NodeProcess, start_node
from tests.server.helpers import start_race
from tests.server.test_profiles import seed_ratings

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "a long password"


@pytest.fixture(scope="module")
def node(redis_url: str) -> Iterator[NodeProcess]:
    # Every command run with a fresh credentials file is a new guest: no limit on those.
    process = start_node(redis_url=redis_url, extra_env={"SA_NEW_PLAYER_RATE": "0"})
    yield process
    process.terminate()


def run(
    *args: str, config: Path, timeout: float = 30, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SOLITAIRE_ARENA_CONFIG": str(config)}
    env.pop("SOLITAIRE_ARENA_SERVER", None)
    command = [sys.executable, "-m", "server.cli", *args]
    feed: dict[str, Any] = {"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, **feed)


def unique(prefix: str) -> str:
    """A username no other test (or earlier run on the same Redis) has taken."""
    return f"{prefix}_{secrets.token_hex(4)}"


def register(node: NodeProcess, config: Path, username: str, *options: str) -> dict[str, Any]:
    """``solitaire-arena register`` for a script; the credentials file it leaves."""
    result = run(
        "register", "--username", username, "--password-stdin", "--server", node.url, *options,
        config=config, stdin=PASSWORD + "\n",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    saved: dict[str, Any] = json.loads(config.read_text())
    return saved


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr  # no traceback
    assert lines[0].startswith("solitaire-arena: ")
    return lines[0]


async def test_replay_json_prints_the_results_and_every_move(node: NodeProcess, tmp_path: Path) -> None:
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


def test_replay_of_an_unknown_race_is_one_line(node: NodeProcess, tmp_path: Path) -> None:
    result = run("replay", "000000000000", "--server", node.url, config=tmp_path / "c.json")
    assert one_error_line(result).startswith("solitaire-arena: race_not_found: ")


def test_an_unreachable_server_is_one_line(tmp_path: Path) -> None:
    result = run("replay", "abc", "--server", "ws://127.0.0.1:9", config=tmp_path / "c.json")
    assert "cannot reach ws://127.0.0.1:9" in one_error_line(result)


def test_joining_an_unknown_code_is_one_line(node: NodeProcess, tmp_path: Path) -> None:
    result = run("play", "--join", "ZZZZZZ", "--server", node.url, config=tmp_path / "c.json")
    assert one_error_line(result).startswith("solitaire-arena: race_not_found: ")


def test_no_hints_is_only_for_a_race_being_created(node: NodeProcess, tmp_path: Path) -> None:
    for way in (["--join", "ABCDEF"], []):
        result = run("play", *way, "--no-hints", "--server", node.url, config=tmp_path / "c.json")
        assert one_error_line(result) == (
            "solitaire-arena: --no-hints is for --create: a joined race has its own setting, "
            "a quick match none"
        )


def test_a_quick_match_nobody_answers_gives_up_after_wait(node: NodeProcess, tmp_path: Path) -> None:
    result = run("play", "treize", "--wait", "0.5", "--server", node.url, config=tmp_path / "c.json")
    assert one_error_line(result) == (
        "solitaire-arena: nobody else wanted treize within 0.5 s; try again later"
    )
    assert "waiting for someone to race at treize" in result.stdout


def test_the_same_name_resumes_the_same_player_from_the_credentials_file(
    node: NodeProcess, tmp_path: Path
) -> None:
    config = tmp_path / "conf" / "credentials.json"
    for _ in range(2):
        run("replay", "000000000000", "--server", node.url, "--name", "zoë", config=config)
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    saved = json.loads(config.read_text())
    assert list(saved) == [f"{node.url} zoë"]


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
    for command in ("register", "login", "logout", "profile", "leaderboard"):
        assert re.search(rf"^    {command}\b", top.stdout, re.MULTILINE), command
    for command in ("register", "login"):
        text = run(command, "--help", config=tmp_path / "c.json").stdout
        assert "--username" in text and "--password-stdin" in text
    leaderboard = run("leaderboard", "--help", config=tmp_path / "c.json").stdout
    assert "--offset" in leaderboard and "--limit" in leaderboard and "1-100" in leaderboard


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


# ----- accounts, profiles, leaderboards ---------------------------------------------------------


def test_register_then_login_from_a_fresh_credentials_file(node: NodeProcess, tmp_path: Path) -> None:
    username = unique("ada")
    first = tmp_path / "first.json"
    saved = register(node, first, username, "--name", "ada guest")
    key = f"{node.url} {username}"
    # The guest became the account: its entry moved under the username, logged in.
    assert sorted(saved) == sorted(["accounts", key]) and saved["accounts"] == {node.url: username}
    assert saved[key]["account"] is True
    player_id = saved[key]["player_id"]
    own = run("profile", "--server", node.url, config=first)
    assert own.returncode == 0, own.stderr
    assert own.stdout.splitlines()[:2] == [f"{username}  account {username}", f"player {player_id}"]

    # Another device: a fresh file, the username in another case, the password on stdin.
    second = tmp_path / "second.json"
    logged_in = run(
        "login", "--username", username.upper(), "--password-stdin", "--server", node.url,
        config=second, stdin=PASSWORD + "\n",
    )  # fmt: skip
    assert logged_in.returncode == 0, logged_in.stderr
    assert logged_in.stdout.startswith(f"logged in as {username} (player {player_id})")
    other = json.loads(second.read_text())
    assert other["accounts"] == {node.url: username}
    assert other[key]["token"] != saved[key]["token"]  # a token of its own
    profile = run("profile", "--server", node.url, config=second)
    assert profile.returncode == 0, profile.stderr
    assert profile.stdout.splitlines()[:2] == [f"{username}  account {username}", f"player {player_id}"]
    assert profile.stdout.splitlines()[2:4] == ["ratings", "  none yet"]
    # Anyone can look the account up by its username.
    looked_up = run("profile", username, "--server", node.url, config=tmp_path / "third.json")
    assert looked_up.stdout.splitlines()[:2] == [f"{username}  account {username}", f"player {player_id}"]


async def test_refusals_are_the_servers_message_on_one_line(node: NodeProcess, tmp_path: Path) -> None:
    username = unique("bob")
    async with await ArenaClient.connect(node.url) as bob:
        await bob.hello(name="bob")
        await bob.register(username, PASSWORD)
    fresh = tmp_path / "fresh.json"
    wrong = run(
        "login", "--username", username, "--password-stdin", "--server", node.url,
        config=fresh, stdin="not the password\n",
    )  # fmt: skip
    assert one_error_line(wrong) == "solitaire-arena: bad_login: wrong username or password"
    assert not fresh.exists()  # nothing was saved
    taken = run(
        "register", "--username", username.upper(), "--password-stdin", "--server", node.url,
        config=fresh, stdin=PASSWORD + "\n",
    )  # fmt: skip
    assert one_error_line(taken).startswith("solitaire-arena: username_taken: ")
    short = run(
        "register", "--username", unique("cy"), "--password-stdin", "--server", node.url,
        config=fresh, stdin="short\n",
    )  # fmt: skip
    assert one_error_line(short) == "solitaire-arena: a password has 8 to 128 characters"
    nobody = run("profile", "nobody_at_all", "--server", node.url, config=fresh)
    assert one_error_line(nobody) == "solitaire-arena: player_not_found: no account is named 'nobody_at_all'"


def test_a_rated_race_is_for_accounts(node: NodeProcess, tmp_path: Path) -> None:
    guest = run(
        "play", "--create", "--rated", "--name", "casual", "--server", node.url, config=tmp_path / "c.json"
    )
    assert one_error_line(guest) == (
        "solitaire-arena: not_registered: rated races are for accounts: register or log in first"
    )
    joined = run("play", "--rated", "--join", "ABCDEF", "--server", node.url, config=tmp_path / "c.json")
    assert one_error_line(joined).startswith("solitaire-arena: --rated is for --create")


async def test_the_leaderboard_prints_the_players_best_first_and_my_place(
    node: NodeProcess, redis_url: str, tmp_path: Path
) -> None:
    config = tmp_path / "c.json"
    username = unique("me")
    me = register(node, config, username)[f"{node.url} {username}"]["player_id"]
    tag = secrets.token_hex(3)
    # Higher than anyone else in this Redis, so they lead whatever other tests left.
    top = {f"p_top{tag}{i}": (f"top{tag}_{i}", 2990.0 - 10 * i, 60.0) for i in range(3)}
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
        ["2", f"top{tag}_1", "2980", "30"],
        ["3", f"top{tag}_2", "2970", "30"],
    ]
    assert lines[5:] == [f"you: #4  {username}  2965, 30 games", "more: --offset 3"]
    mine = run("leaderboard", "--offset", "3", "--limit", "1", "--server", node.url, config=config)
    assert mine.stdout.splitlines()[2].split() == ["4", username, "2965", "30", "<-", "you"]
    bad = run("leaderboard", "--limit", "101", "--server", node.url, config=config)
    assert one_error_line(bad) == "solitaire-arena: --limit is 1 to 100"


async def test_logout_makes_the_saved_token_useless(node: NodeProcess, tmp_path: Path) -> None:
    config, copy = tmp_path / "c.json", tmp_path / "copy.json"
    username = unique("zed")
    key = f"{node.url} {username}"
    token = register(node, config, username)[key]["token"]
    shutil.copy(config, copy)
    out = run("logout", "--server", node.url, config=config)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"logged out {username} on {node.url}: the token kept here no longer works"
    assert json.loads(config.read_text()) == {"accounts": {}}
    async with await ArenaClient.connect(node.url) as probe:
        with pytest.raises(BadTokenError):
            await probe.hello(token=token)
    again = run("logout", "--server", node.url, config=config)
    assert one_error_line(again) == f"solitaire-arena: no account is logged in on {node.url} here"
    # Where the same token was kept, it no longer works: said so, never a guest of that name.
    stale = run("profile", "--server", node.url, config=copy)
    assert one_error_line(stale) == (
        f"solitaire-arena: the saved login of {username} no longer works (logged out, or the "
        "password changed on another device): solitaire-arena login"
    )
    assert key not in json.loads(copy.read_text())
    # After that, the commands play as a guest again.
    guest = run("profile", "--name", "wanderer", "--server", node.url, config=config)
    assert guest.stdout.splitlines()[0] == "wanderer  guest"

"""The player's commands of ``solitaire-arena``, run as real subprocesses against a real
server process: their output, their exit status, and one-line errors."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from client.sdk import ArenaClient
from shared.protocol import RaceEnded
from tests.server.conftest import NodeProcess, start_node
from tests.server.helpers import start_race

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def node(redis_url: str) -> Iterator[NodeProcess]:
    process = start_node(redis_url=redis_url)
    yield process
    process.terminate()


def run(*args: str, config: Path, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SOLITAIRE_ARENA_CONFIG": str(config)}
    env.pop("SOLITAIRE_ARENA_SERVER", None)
    command = [sys.executable, "-m", "server.cli", *args]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


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

"""``solitaire-arena play`` in a real terminal (tmux): the command draws the race, takes a
typed move, ``undo`` and ``hint``, creates races with or without hints, and quits on
ctrl+q; ``register`` asks for a username and password there, and ``play --create --rated``
then races as that account; ``watch`` draws someone else's race and quits on q."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from client.sdk import ArenaClient
from shared.protocol import Progress, RaceInfo, RaceStarted
from tests.server.conftest import NodeProcess, start_node
from tests.server.helpers import start_race

ROOT = Path(__file__).resolve().parents[2]
SESSION = f"arena-test-{os.getpid()}"
#: The tests' own tmux server (``tmux -L``), started without any user's configuration.
SOCKET = SESSION
#: The environment tmux and so every command in its panes get: this process's, without
#: the COLUMNS and LINES that GNU readline, once imported here (pytest's capture plugin
#: imports it), puts in the C environment as 80 and 24 when it finds no terminal. A
#: command that inherited them laid itself out for 80x24 in a 120x40 pane (Textual, like
#: ``shutil.get_terminal_size``, reads them before the terminal).
TMUX_ENV = {name: value for name, value in os.environ.items() if name not in ("COLUMNS", "LINES", "TMUX")}

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux for a real terminal")


@pytest.fixture(scope="module", autouse=True)
def tmux_server() -> Iterator[None]:
    yield
    tmux("kill-server")


@pytest.fixture(scope="module")
def node(redis_url: str) -> Iterator[NodeProcess]:
    # Every test here makes new guests from this one address, more than the default burst
    # within the file's half a minute on a fast machine: the limit is not what they test.
    process = start_node(redis_url=redis_url, extra_env={"SA_NEW_PLAYER_RATE": "0"})
    yield process
    process.terminate()


def tmux(*args: str) -> str:
    return run_tmux(*args).stdout


def run_tmux(*args: str) -> subprocess.CompletedProcess[str]:
    command = ["tmux", "-L", SOCKET, "-f", os.devnull, *args]
    return subprocess.run(command, capture_output=True, text=True, check=False, env=TMUX_ENV)


async def screen_with(pattern: str, timeout: float = 15.0) -> re.Match[str]:
    """Wait until the terminal shows ``pattern``; the match."""
    loop = asyncio.get_running_loop()
    until = loop.time() + timeout
    while loop.time() < until:
        found = re.search(pattern, tmux("capture-pane", "-p", "-t", SESSION))
        if found:
            return found
        await asyncio.sleep(0.02)
    state = "the command exited" if command_exited() else "the command still runs"
    raise AssertionError(f"never on screen: {pattern} ({state})\n{tmux('capture-pane', '-p', '-t', SESSION)}")


def new_session(command: str) -> None:
    """Run ``command`` in a new 120x40 tmux session whose pane stays when the command
    exits (what it printed last explains a failure). When a test killed the last session
    just before, the tmux server may still be exiting and refuse the new one: try again."""
    create = ["new-session", "-d", "-s", SESSION, "-x", "120", "-y", "40", command]
    for _ in range(50):
        made = run_tmux(*create, ";", "set-option", "-t", SESSION, "remain-on-exit", "on")
        if made.returncode == 0:
            return
        time.sleep(0.1)
    raise AssertionError(f"tmux did not start a session: {made.stderr}")


def start_play(node: NodeProcess, tmp_path: Path, *options: str) -> None:
    """``solitaire-arena play eight-off --create --name ada`` (and ``options``) in tmux."""
    env = (
        f"PYTHONPATH={shlex.quote(str(ROOT))} SOLITAIRE_ARENA_CONFIG={shlex.quote(str(tmp_path / 'c.json'))}"
    )
    play = f"-m server.cli play eight-off --create --name ada --server {node.url} {' '.join(options)}"
    new_session(f"{env} {shlex.quote(sys.executable)} {play}")


def type_line(text: str) -> None:
    tmux("send-keys", "-t", SESSION, "-l", text)
    tmux("send-keys", "-t", SESSION, "Enter")


def command_exited() -> bool:
    """Whether the session's command has exited (its pane stays: ``remain-on-exit``)."""
    return tmux("display-message", "-p", "-t", SESSION, "#{pane_dead}").strip() == "1"


async def quit_play(key: str = "C-q") -> None:
    tmux("send-keys", "-t", SESSION, key)
    for _ in range(250):
        if command_exited():
            break
        await asyncio.sleep(0.02)
    assert command_exited()


async def bob_races_adas_terminal(bob: ArenaClient) -> tuple[RaceInfo, RaceStarted]:
    """Bob joins the race ``play`` created in the terminal and readies: the race, and its
    start as Bob sees it."""
    code = (await screen_with(r"race ([A-Z0-9]{6}): 1/2 seated"))[1]
    await bob.hello(name="bob")
    race = await bob.join_race(code)
    await bob.ready(race.race_id)
    return race, await bob.wait_for(RaceStarted, timeout=15)


async def test_play_draws_the_race_in_a_real_terminal_and_takes_a_typed_move(
    node: NodeProcess, tmp_path: Path
) -> None:
    start_play(node, tmp_path)
    try:
        bob = await ArenaClient.connect(node.url)
        race, started = await bob_races_adas_terminal(bob)
        await screen_with(r"t1 +t2 +t3")  # the Eight Off tableau is drawn
        await screen_with(r"bob")  # the other racer's progress
        move = (started.view.legal_moves or [])[0]
        type_line(move)
        progress = await bob.wait_for(Progress, lambda p: p.player_id != bob.player_id, timeout=15)
        assert progress.move_count == 1
        await quit_play()
        # The screen is gone; the terminal keeps how to come back to the race.
        # with the server it was given, as the note is in 80 columns
        await screen_with(
            rf"you left race {race.code} while it runs: solitaire-arena play\s+"
            rf"--server {re.escape(node.url)}\s+--name ada resumes it"
        )
        await bob.close()
    finally:
        tmux("kill-session", "-t", SESSION)


async def test_play_takes_a_move_then_undo_and_hint_typed_in_the_terminal(
    node: NodeProcess, tmp_path: Path
) -> None:
    start_play(node, tmp_path)
    bob = await ArenaClient.connect(node.url)
    try:
        code = (await screen_with(r"race ([A-Z0-9]{6}): 1/2 seated"))[1]
        await bob.hello(name="bob")
        race = await bob.join_race(code)
        assert race.hints  # a created race allows hints unless told otherwise
        await bob.ready(race.race_id)
        started = await bob.wait_for(RaceStarted, timeout=15)
        legal = started.view.legal_moves or []
        await screen_with(r"hints on: h shows one")
        await screen_with(r"t1 +t2 +t3")

        type_line(legal[0])
        await screen_with(re.escape(f"✓ {legal[0]}"))
        moved = await bob.wait_for(Progress, lambda p: p.player_id != bob.player_id, timeout=15)
        assert moved.move_count == 1

        type_line("undo")
        await screen_with(r"✓ undo: ")
        undone = await bob.wait_for(Progress, lambda p: p.player_id != bob.player_id, timeout=15)
        assert undone.move_count == 0 and undone.score == 0

        type_line("hint")
        hinted = (await screen_with(r"hint: (\S+)  \(lit up on the board\)"))[1]
        assert hinted in legal  # back at the deal: a move of the deal
        shown = tmux("capture-pane", "-p", "-t", SESSION)
        assert "✗" not in shown  # the word undo took one move back, and nothing was refused
        # ada's own progress (the racers panel): back to no move.
        assert re.search(r"ada \(you\)[^\n]*\n[^\n]*\n[^\n]*score +0 +moves +0", shown), shown
        await quit_play()
    finally:
        await bob.close()
        tmux("kill-session", "-t", SESSION)


async def test_play_create_no_hints_makes_a_race_without_hints(node: NodeProcess, tmp_path: Path) -> None:
    start_play(node, tmp_path, "--no-hints")
    bob = await ArenaClient.connect(node.url)
    try:
        code = (await screen_with(r"race ([A-Z0-9]{6}): 1/2 seated"))[1]
        await bob.hello(name="bob")
        race = await bob.join_race(code)
        assert race.hints is False
        await screen_with(r"hints off in this race")
        await quit_play()
    finally:
        await bob.close()
        tmux("kill-session", "-t", SESSION)


def start_command(tmp_path: Path, arguments: str) -> None:
    """``solitaire-arena ARGUMENTS`` in tmux, with the credentials file in ``tmp_path``."""
    env = (
        f"PYTHONPATH={shlex.quote(str(ROOT))} SOLITAIRE_ARENA_CONFIG={shlex.quote(str(tmp_path / 'c.json'))}"
    )
    new_session(f"{env} {shlex.quote(sys.executable)} -m server.cli {arguments}")


async def test_register_asks_in_the_terminal_then_play_races_rated_as_the_account(
    node: NodeProcess, tmp_path: Path
) -> None:
    username = f"ada_{secrets.token_hex(4)}"
    # Keep the pane after the command ends, to read what it printed.
    start_command(tmp_path, f"register --name ada --server {node.url}; sleep 30")
    bob = await ArenaClient.connect(node.url)
    try:
        await screen_with(r"username:")
        type_line(username)
        await screen_with(r"password:")
        type_line("a long password")
        await screen_with(r"password again:")
        type_line("a long password")
        await screen_with(re.escape(f"ada is now the account {username}"))
        assert "a long password" not in tmux("capture-pane", "-p", "-t", SESSION)  # not echoed
        tmux("kill-session", "-t", SESSION)
        saved = json.loads((tmp_path / "c.json").read_text())
        assert saved["accounts"] == {node.url: username}

        # No --name: play is the account, so it may create a rated race.
        start_command(tmp_path, f"play eight-off --create --rated --server {node.url}")
        code = (await screen_with(r"race ([A-Z0-9]{6}): 1/2 seated"))[1]
        await screen_with(r"Rated: ratings change at the end")
        await screen_with(re.escape(f"{username} (you)  1500?"))
        await bob.hello(name="bob")
        await bob.register(f"bob_{secrets.token_hex(4)}", "a long password")
        race = await bob.join_race(code)
        assert race.rated and race.racers[0].name == username
        await screen_with(re.escape(f"{bob.name}  1500?"))
        await quit_play()
    finally:
        await bob.close()
        tmux("kill-session", "-t", SESSION)


async def test_watch_draws_a_race_in_a_real_terminal_and_quits_on_q(
    node: NodeProcess, tmp_path: Path
) -> None:
    ada, bob = await ArenaClient.connect(node.url), await ArenaClient.connect(node.url)
    try:
        await ada.hello(name="ada", legal_moves=True)
        race = await start_race(ada, bob)
        start_command(tmp_path, f"watch {race.race_id} --server {node.url}")
        await screen_with(re.escape(f"Watching race {race.race_id}  eight-off  casual"))
        await screen_with(r"t1 +t2 +t3")  # ada's board, large
        await screen_with(r"1 spectator")
        board = await ada.board(race.race_id)
        assert board is not None and board.view.legal_moves
        move = board.view.legal_moves[0]
        await ada.move(race.race_id, move)
        await screen_with(re.escape(f"ada: {move} (score"))
        await screen_with(re.escape(f"last {move}"))
        tmux("send-keys", "-t", SESSION, "Tab")
        await screen_with(r"2/2 bob")
        await quit_play("q")
    finally:
        await ada.close()
        await bob.close()
        tmux("kill-session", "-t", SESSION)


async def test_play_resumes_the_running_race_after_the_terminal_client_was_killed(
    node: NodeProcess, tmp_path: Path
) -> None:
    start_play(node, tmp_path)
    bob = await ArenaClient.connect(node.url)
    try:
        race, started = await bob_races_adas_terminal(bob)
        await screen_with(r"t1 +t2 +t3")
        move = (started.view.legal_moves or [])[0]
        type_line(move)
        await bob.wait_for(Progress, lambda p: p.player_id != bob.player_id, timeout=15)
        tmux("kill-session", "-t", SESSION)  # the terminal client is killed mid-race

        # Any play comes back to the race (here a join of another race), and the screen
        # that takes the terminal says so (what was printed before it cannot be seen).
        start_command(tmp_path, f"play --join ZZZZ99 --name ada --server {node.url}")
        await screen_with(r"t1 +t2 +t3")
        said = f"you are still racing in eight-off race {race.code} (running, id {race.race_id})"
        said += ": resuming it, not joining ZZZZ99"
        resuming = r"\s+".join(map(re.escape, said.split()))  # wrapped at 80 columns
        await screen_with(resuming + r"\s+go! type a move")
        await screen_with(r"ada \(you\)[^\n]*\n[^\n]*\n[^\n]*score +\d+ +moves +1")
        type_line("undo")  # the next move goes on from where the killed client was
        undone = await bob.wait_for(Progress, lambda p: p.player_id != bob.player_id, timeout=15)
        assert undone.move_count == 0
        await quit_play()
        shown = tmux("capture-pane", "-p", "-S", "-100", "-t", SESSION)
        assert re.search(resuming, shown), shown  # printed before the screen, kept after it
        assert "Traceback" not in shown, shown
    finally:
        await bob.close()
        tmux("kill-session", "-t", SESSION)


async def test_a_race_screen_whose_guest_registers_in_another_terminal_goes_on_as_the_account(
    node: NodeProcess, tmp_path: Path
) -> None:
    """The register revokes the guest's token and signs out its other sessions; the race
    screen resumes with the account's token, which the register kept in the same
    credentials file, instead of sending the player to log in."""
    start_play(node, tmp_path)
    bob = await ArenaClient.connect(node.url)
    try:
        _race, started = await bob_races_adas_terminal(bob)
        await screen_with(r"go! type a move")
        username = f"a{secrets.token_hex(2)}"  # short enough that the panel shows it whole beside "(you)"
        register = [sys.executable, "-m", "server.cli", "register", "--name", "ada", "--server", node.url]
        registered = await asyncio.to_thread(
            subprocess.run,
            [*register, "--username", username, "--password-stdin"],
            input="a long password\n",
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT), "SOLITAIRE_ARENA_CONFIG": str(tmp_path / "c.json")},
            check=False,
        )
        assert registered.returncode == 0, registered.stderr
        await screen_with(re.escape(f"{username} (you)"))
        move = (started.view.legal_moves or [])[0]
        type_line(move)
        progress = await bob.wait_for(Progress, lambda p: p.player_id != bob.player_id, timeout=15)
        assert progress.move_count == 1
        shown = tmux("capture-pane", "-p", "-t", SESSION)
        assert "signed out" not in shown and "login" not in shown, shown
        await quit_play()
    finally:
        await bob.close()
        tmux("kill-session", "-t", SESSION)


async def test_a_three_seat_race_created_in_the_terminal_waits_for_its_three_racers(
    node: NodeProcess, tmp_path: Path
) -> None:
    start_play(node, tmp_path, "--seats", "3")
    bob, cy = await ArenaClient.connect(node.url), await ArenaClient.connect(node.url)
    try:
        code = (
            await screen_with(r"race ([A-Z0-9]{6}): 1/3 seated, 0 ready; press r \(or Enter\) when ready")
        )[1]
        await screen_with(r"r ready")  # the footer
        tmux("send-keys", "-t", SESSION, "r")  # ready, then not ready again
        await screen_with(
            r"1/3 seated, 1 ready; you are ready \(r: not ready\);"
            r"\s+it\s+starts\s+once\s+everyone\s+seated\s+is\s+ready"
        )
        await screen_with(r"r not ready")  # the footer follows
        tmux("send-keys", "-t", SESSION, "r")
        await screen_with(r"1/3 seated, 0 ready; press r")
        await bob.hello(name="bob")
        race = await bob.join_race(code)
        await bob.ready(race.race_id)  # ada has not said ready: no start with two
        await screen_with(r"2/3 seated, 1 ready")
        await cy.hello(name="cy")
        await cy.join_race(code)  # the last seat: ada is ready by herself
        await screen_with(r"3/3 seated, 2 ready")
        tmux("send-keys", "-t", SESSION, "r")  # not ready after all: no seat left to wait for
        unready = await screen_with(r"3/3 seated, 1 ready; press r \(or Enter\) when ready(.*)")
        assert unready[1].strip() == "", unready[0]
        tmux("send-keys", "-t", SESSION, "r")
        await screen_with(r"3/3 seated, 2 ready")
        await cy.ready(race.race_id)
        await cy.wait_for(RaceStarted, timeout=15)
        await screen_with(r"t1 +t2 +t3")
        info = await cy.get_race(race.race_id)
        assert [r.name for r in info.racers] == ["ada", "bob", "cy"]
        await quit_play()
    finally:
        await bob.close()
        await cy.close()
        tmux("kill-session", "-t", SESSION)


async def test_enter_in_the_lobby_says_ready_and_the_race_starts_with_the_racers_seated(
    node: NodeProcess, tmp_path: Path
) -> None:
    start_play(node, tmp_path, "--seats", "3")
    bob = await ArenaClient.connect(node.url)
    try:
        code = (await screen_with(r"race ([A-Z0-9]{6}): 1/3 seated"))[1]
        await bob.hello(name="bob")
        race = await bob.join_race(code)
        await bob.ready(race.race_id)
        await screen_with(r"2/3 seated, 1 ready")
        tmux("send-keys", "-t", SESSION, "Enter")
        await bob.wait_for(RaceStarted, timeout=15)
        await screen_with(r"t1 +t2 +t3")
        await quit_play()
    finally:
        await bob.close()
        tmux("kill-session", "-t", SESSION)


async def test_the_join_hint_of_a_created_race_names_its_server(node: NodeProcess, tmp_path: Path) -> None:
    start_play(node, tmp_path)
    try:
        code = (await screen_with(r"race ([A-Z0-9]{6}): 1/2 seated"))[1]
        # The lobby says the whole command too (what was printed is hidden until the end), on
        # a status line that grows to two lines for it.
        said = f"others join with: solitaire-arena play --join {code} --server {node.url}"
        for _ in range(500):
            lobby = " ".join(tmux("capture-pane", "-p", "-t", SESSION).split())
            if said in lobby:
                break
            await asyncio.sleep(0.02)
        assert said in lobby, lobby
        await quit_play()
        shown = tmux("capture-pane", "-p", "-S", "-100", "-t", SESSION)
        # In lines of at most 80 columns, the command whole on one, then that the race was left.
        assert (
            f"race {code} created (hints on): others join with\n"
            f"    solitaire-arena play --join {code} --server {node.url}\n"
            f"you left race {code} before its start: nobody else sat in it, so it is cancelled\n"
        ) in shown, shown
    finally:
        tmux("kill-session", "-t", SESSION)


def kill_command() -> None:
    """Kill the session's command at once (kill -9: it leaves nothing, not even its race),
    keeping the pane."""
    pane = int(tmux("display-message", "-p", "-t", SESSION, "#{pane_pid}").strip())
    children = subprocess.run(["pgrep", "-P", str(pane)], capture_output=True, text=True, check=False)
    for pid in [*map(int, children.stdout.split()), pane]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    for _ in range(250):
        if command_exited():
            return
        time.sleep(0.02)
    raise AssertionError("the command outlived kill -9")


async def race_from_a_reopened_lobby(node: NodeProcess, config_dir: Path, revealed: bool) -> None:
    """ada's ``play`` was killed in the lobby of the race it created: ``play eight-off
    --create --name ada`` again with the credentials in ``config_dir`` reopens it, r says
    ready (with the seed share committed before, if ``revealed``), bob joins and readies,
    and the race starts."""
    tmux("kill-session", "-t", SESSION)
    start_command(config_dir, f"play eight-off --create --name ada --server {node.url}")
    code = (await screen_with(r"race ([A-Z0-9]{6}): 1/2 seated, 0 ready"))[1]
    await screen_with(r"r ready")  # the footer: the lobby takes keys
    tmux("send-keys", "-t", SESSION, "r")
    said = (
        "your seed share for this race was committed on another device: the deal is mixed without it, "
        "unless that device is still in this lobby when the countdown begins"
    )
    note = r"\s+".join(map(re.escape, said.split()))
    await screen_with(r"1/2 seated, 1 ready; you are ready")
    if not revealed:  # whole below the lobby's own note, in 80x24
        await screen_with(note)
    assert "✗" not in tmux("capture-pane", "-p", "-t", SESSION)
    async with await ArenaClient.connect(node.url) as bob:
        await bob.hello(name="bob")
        race = await bob.join_race(code)
        # The lobby's next update redraws its note: the share's stays while ada is ready.
        await screen_with(r"2/2 seated, 1 ready; you are ready")
        assert bool(re.search(note, tmux("capture-pane", "-p", "-t", SESSION))) is not revealed
        ada = next(r for r in race.racers if r.name == "ada")
        assert (ada.ready, ada.share_committed, ada.share_revealed) == (True, True, revealed)
        await bob.ready(race.race_id)
        await bob.wait_for(RaceStarted, timeout=15)
    await screen_with(r"t1 +t2 +t3")
    await quit_play()


@pytest.mark.parametrize("device", ["same", "another"])
async def test_a_lobby_reopened_after_a_kill_gets_ready_with_the_seed_share_kept_on_this_device(
    node: NodeProcess, tmp_path: Path, device: str
) -> None:
    """On the same device the restarted play reveals the share its first run committed;
    on another (ada's credentials, not the shares kept beside them) it gets ready without."""
    start_play(node, tmp_path)
    try:
        await screen_with(r"race ([A-Z0-9]{6}): 1/2 seated")
        kill_command()
        config_dir = tmp_path
        if device == "another":
            config_dir = tmp_path / "elsewhere"
            config_dir.mkdir()
            shutil.copy(tmp_path / "c.json", config_dir / "c.json")
        await race_from_a_reopened_lobby(node, config_dir, revealed=device == "same")
    finally:
        tmux("kill-session", "-t", SESSION)

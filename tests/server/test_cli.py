"""The ``solitaire-arena`` command's help and errors, run as a real subprocess."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from server.config import DECADE, ENV_VARS, SettingError, Settings
from server.redis_embedded import free_port
from shared.protocol import RaceEnded
from tests.server.conftest import Connect, running_node
from tests.server.helpers import start_race

ROOT = Path(__file__).resolve().parents[2]


def environment(env: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment without any setting of the node's, plus ``env``."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SA_") and k != "REDIS_URL"}
    return {**clean, "PYTHONPATH": str(ROOT), **(env or {})}


def run(
    *args: str, env: dict[str, str] | None = None, timeout: float = 30
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "server.cli", *args]
    return subprocess.run(
        command, cwd=ROOT, env=environment(env), capture_output=True, text=True, timeout=timeout
    )


def test_the_top_level_help_is_plain_text_and_names_the_commands() -> None:
    result = run("--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert "serve" in text and "Eight Off" in text
    assert not re.search(r":\w+:`|``", result.stdout)


def test_serve_help_gives_every_flag_its_environment_variable_and_default() -> None:
    result = run("serve", "--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    for name, var in ENV_VARS.items():
        flag = "--" + name.replace("_", "-")
        assert re.search(rf"{flag} \S+ .*?\(env {var}, default [^)]+\)", text), flag
    assert "environment variables:" in result.stdout


def test_a_bad_setting_is_one_readable_line_not_a_traceback() -> None:
    result = run("serve", env={"SA_PORT": "abc"})
    assert result.returncode != 0
    assert result.stderr.strip() == "solitaire-arena: SA_PORT='abc' is not a whole number"


def test_a_bad_variable_a_flag_overrides_is_not_read() -> None:
    """The command line wins: SA_PORT=abc stopped a node given --port (exit 2), though a
    bad word (SA_LOG_LEVEL=verbose with --log-level) did not."""
    bad = {"SA_PORT": "abc", "SA_COUNTDOWN": "soon", "SA_LOG_LEVEL": "verbose"}
    settings = Settings.from_env(bad, port=0, countdown=1.0, log_level="ERROR")
    assert (settings.port, settings.countdown, settings.log_level) == (0, 1.0, "ERROR")
    unanswered = f"redis://127.0.0.1:{free_port()}"  # past the settings, the start fails there
    flags = ("--port", "0", "--countdown", "1", "--log-level", "ERROR")
    result = run("serve", *flags, env={**bad, "REDIS_URL": unanswered})
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("solitaire-arena: Redis at redis://127.0.0.1:")


def test_a_value_out_of_range_or_not_a_choice_is_refused_at_start_naming_the_setting() -> None:
    result = run("serve", env={"SA_LOG_LEVEL": "verbose"})
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip() == (
        "solitaire-arena: --log-level (SA_LOG_LEVEL) must be one of "
        "DEBUG, INFO, WARNING, ERROR, CRITICAL, not 'verbose'"
    )
    result = run("serve", "--port", "70000")
    assert result.returncode == 2
    assert result.stderr.strip() == "solitaire-arena: --port (SA_PORT) must be from 0 to 65535, not 70000"


@pytest.mark.parametrize(
    ("env", "flag"),
    [
        ({"SA_CLOCK_TICK": "0"}, "--clock-tick (SA_CLOCK_TICK)"),
        ({"SA_RATE_LIMIT": "-5"}, "--rate-limit (SA_RATE_LIMIT)"),
        ({"SA_COUNTDOWN": "nan"}, "--countdown (SA_COUNTDOWN)"),
        ({"SA_MAX_MESSAGE_BYTES": "0"}, "--max-message-bytes (SA_MAX_MESSAGE_BYTES)"),
        ({"SA_REDIS_MAX_CONNECTIONS": "0"}, "--redis-max-connections (SA_REDIS_MAX_CONNECTIONS)"),
        ({"SA_LOG_FORMAT": "xml"}, "--log-format (SA_LOG_FORMAT)"),
        ({"SA_REDIS_FSYNC": "sometimes"}, "--redis-fsync (SA_REDIS_FSYNC)"),
        ({"SA_TRUSTED_PROXIES": "10.0.0.2,proxy"}, "--trusted-proxies (SA_TRUSTED_PROXIES)"),
        ({"SA_TRUSTED_PROXIES": "10.0.0.0/24"}, "--trusted-proxies (SA_TRUSTED_PROXIES)"),
        ({"SA_ALLOWED_ORIGINS": "arena.example"}, "--allowed-origins (SA_ALLOWED_ORIGINS)"),
        (
            {"SA_ALLOWED_ORIGINS": "https://a.example,https://b.example/play"},
            "--allowed-origins (SA_ALLOWED_ORIGINS)",
        ),
        ({"REDIS_URL": "localhost:6379"}, "--redis-url (REDIS_URL)"),
        ({"REDIS_URL": "redis://:pw@127.0.0.1:notaport/0"}, "--redis-url (REDIS_URL)"),
        ({"REDIS_URL": "redis://127.0.0.1:65536"}, "--redis-url (REDIS_URL)"),
        ({"REDIS_URL": "redis+cluster://a:7000,b:x"}, "--redis-url (REDIS_URL)"),
        ({"SA_GUEST_TTL": "99999999999999999999999"}, "--guest-ttl (SA_GUEST_TTL)"),
        ({"SA_RACE_TTL": "10000000000000000"}, "--race-ttl (SA_RACE_TTL)"),
        ({"SA_COUNTDOWN": "1e16"}, "--countdown (SA_COUNTDOWN)"),
        ({"SA_LOBBY_GRACE": "1e300"}, "--lobby-grace (SA_LOBBY_GRACE)"),
        ({"SA_HELLO_TIMEOUT": "1e300"}, "--hello-timeout (SA_HELLO_TIMEOUT)"),
        ({"SA_SPECTATOR_DELAY": "1e20"}, "--spectator-delay (SA_SPECTATOR_DELAY)"),
        ({"SA_ABUSE_BAN": "1e300"}, "--abuse-ban (SA_ABUSE_BAN)"),
    ],
)
def test_settings_a_node_cannot_run_with_are_refused(env: dict[str, str], flag: str) -> None:
    with pytest.raises(SettingError, match=re.escape(flag)):
        Settings.from_env(env)


def test_an_empty_flag_is_not_given_as_an_empty_variable_is(tmp_path: Path) -> None:
    """``--host ""`` listened on every address and ``--data-dir ""`` put Redis's files in
    the working directory, where ``SA_HOST=`` and ``SA_DATA_DIR=`` mean the defaults; an
    empty number or choice was refused."""
    port = str(free_port())
    empty = ["--host", "", "--data-dir", "", "--countdown", "", "--log-format", "", "--redis-url", ""]
    command = [sys.executable, "-m", "server.cli", "serve", "--port", port, *empty]
    env = environment({"SA_LOG_LEVEL": "WARNING"})
    node = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert node.stdout is not None
        assert node.stdout.readline().startswith(f"solitaire-arena listening on ws://127.0.0.1:{port} ")
        assert (tmp_path / "data" / "appendonly.aof").exists() and not (tmp_path / "appendonly.aof").exists()
        node.terminate()
        assert node.wait(15) == 0
    finally:
        if node.poll() is None:
            node.kill()


def test_a_ttl_redis_cannot_take_is_refused_at_start_in_one_line() -> None:
    """It passed the start, then every new guest's hello answered internal_error (Redis:
    EXPIRE value out of range)."""
    unanswered = f"redis://127.0.0.1:{free_port()}"  # refused before Redis is asked
    result = run(
        "serve", "--port", "0", env={"SA_GUEST_TTL": "99999999999999999999999", "REDIS_URL": unanswered}
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip() == (
        "solitaire-arena: --guest-ttl (SA_GUEST_TTL) must be from 0 to 315360000, not 99999999999999999999999"
    )


async def test_the_longest_ttls_and_waits_allowed_still_serve_a_hello_and_a_race(
    clean_redis: str, connect: Connect
) -> None:
    longest = {name: DECADE for name in ("guest_ttl", "race_ttl", "lobby_grace", "spectator_delay")}
    async with running_node(clean_redis, hello_timeout=DECADE, abuse_ban=DECADE, **longest) as node:
        ada, bob = await connect(node.url), await connect(node.url)
        race = await start_race(ada, bob, "treize")
        for racer in (ada, bob):
            await racer.finish(race.race_id)
        ended = await ada.wait_for(RaceEnded)
        assert {s.player_id for s in ended.summary.standings} == {ada.player_id, bob.player_id}


@pytest.mark.parametrize(
    ("url", "why"),
    [
        (
            "http://:hunter2@x",
            "must start with one of redis://, rediss://, unix://, redis+cluster://, rediss+cluster://, not http://",
        ),
        # It was exit 1 in redis-py's words ("Port could not be cast to integer value").
        (
            "redis://:hunter2@127.0.0.1:notaport",
            "must give each port as a number from 0 to 65535, not '127.0.0.1:notaport'",
        ),
    ],
)
def test_a_redis_url_no_client_opens_is_refused_at_start_naming_the_setting_not_its_password(
    url: str, why: str
) -> None:
    result = run("serve", "--port", "0", env={"REDIS_URL": url})
    assert result.returncode == 2 and "hunter2" not in result.stderr
    assert result.stderr.strip() == f"solitaire-arena: --redis-url (REDIS_URL) {why}"


@pytest.mark.parametrize(
    "url",
    ["redis://h:6379/0", "rediss://h", "unix:///tmp/r.sock", "redis+cluster://a:1,b:2", "rediss+cluster://a"],
)
def test_every_redis_url_scheme_the_readme_names_passes_the_checks(url: str) -> None:
    assert Settings.from_env({"REDIS_URL": url}).redis_url == url


def test_an_archive_dir_the_node_cannot_write_to_stops_it_at_start_naming_the_setting(tmp_path: Path) -> None:
    blocked = tmp_path / "archive"
    blocked.write_text("a file where the archive would go\n")
    for directory, why in ((blocked, "file exists"), (blocked / "records", "not a directory")):
        unanswered = f"redis://127.0.0.1:{free_port()}"  # refused before Redis is asked
        result = run("serve", "--port", "0", env={"SA_ARCHIVE_DIR": str(directory), "REDIS_URL": unanswered})
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert result.stderr.strip() == (
            "solitaire-arena: --archive-dir (SA_ARCHIVE_DIR) must be a directory the node can "
            f"write to, not {str(directory)!r} ({why})"
        )


def test_a_data_dir_the_embedded_redis_cannot_use_stops_the_node_at_start_naming_the_setting(
    tmp_path: Path,
) -> None:
    """It was exit 1 with a bare OS error ("[Errno 17] File exists"); at the default log
    level, its one line also came after a log line saying the node had stopped."""
    blocked = tmp_path / "data"
    blocked.write_text("a file where the data would go\n")
    for directory, why in ((blocked, "file exists"), (blocked / "redis", "not a directory")):
        result = run("serve", "--port", "0", env={"SA_DATA_DIR": str(directory)})
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert result.stderr.strip() == (
            "solitaire-arena: --data-dir (SA_DATA_DIR) must be a directory the node can "
            f"write to, not {str(directory)!r} ({why})"
        )
    # With a Redis of its own the node has no use for the directory.
    unanswered = f"redis://127.0.0.1:{free_port()}"
    result = run("serve", "--port", "0", env={"SA_DATA_DIR": str(blocked), "REDIS_URL": unanswered})
    assert result.returncode == 1 and "does not answer" in result.stderr


async def test_a_missing_archive_dir_is_made_at_start(clean_redis: str, tmp_path: Path) -> None:
    archive = tmp_path / "records" / "arena"
    async with running_node(clean_redis, archive_dir=str(archive)):
        assert archive.is_dir() and not list(archive.iterdir())


def test_the_defaults_pass_the_checks_and_log_levels_take_any_case() -> None:
    Settings().check()
    assert Settings.from_env({"SA_LOG_LEVEL": "debug", "SA_PORT": "0"}).log_level == "debug"
    proxies = Settings.from_env({"SA_TRUSTED_PROXIES": " 172.28.0.10, ::1 ,"}).trusted_proxies
    assert proxies == " 172.28.0.10, ::1 ,"


def test_sa_redis_url_names_the_redis_too_and_a_misspelt_setting_is_warned_of() -> None:
    unanswered = f"redis://127.0.0.1:{free_port()}/0"  # taken, not the embedded Redis started
    result = run("serve", "--port", "0", env={"SA_REDIS_URL": unanswered, "SA_COUNTDWN": "5"})
    assert result.returncode == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    warned = json.loads(lines[0])  # the default log format
    assert (warned["level"], warned["msg"]) == ("warning", "not a setting: ignored")
    assert warned["variable"] == "SA_COUNTDWN (SA_COUNTDOWN?)"
    assert lines[-1].startswith("solitaire-arena: Redis at redis://127.0.0.1:")
    assert "does not answer" in lines[-1]


def test_a_redis_that_does_not_answer_at_start_is_one_line_without_its_password() -> None:
    url = f"redis://:hunter2@127.0.0.1:{free_port()}/0"
    result = run("serve", "--port", "0", env={"REDIS_URL": url, "SA_LOG_LEVEL": "ERROR"})
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("solitaire-arena: Redis at redis://***@127.0.0.1:")
    assert "does not answer" in result.stderr and "hunter2" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_port_in_use_stops_what_started_and_exits_at_once(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        started = time.monotonic()
        env = {"SA_DATA_DIR": str(tmp_path / "data"), "SA_LOG_LEVEL": "ERROR"}
        result = run("serve", "--port", port, env=env, timeout=20)
    assert time.monotonic() - started < 15  # it used to hang, its clock and workers left running
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip() == (
        f"solitaire-arena: cannot listen on 127.0.0.1:{port} (SA_HOST, SA_PORT): "
        f"error while attempting to bind on address ('127.0.0.1', {port}): address already in use"
    )
    assert not (tmp_path / "data" / "redis.pid").exists()  # its embedded Redis was stopped


def test_a_bad_flag_value_is_refused_by_the_parser_in_one_line() -> None:
    result = run("serve", "--log-format", "xml")
    assert result.returncode == 2
    assert result.stderr == (
        "solitaire-arena serve: argument --log-format: invalid choice: 'xml' (choose from 'json', 'text') "
        "(see solitaire-arena serve --help)\n"
    )
    countdown = run("serve", "--countdown", "abc")
    assert countdown.returncode == 2
    assert countdown.stderr == (
        "solitaire-arena serve: argument --countdown: invalid float value: 'abc' "
        "(see solitaire-arena serve --help)\n"
    )


def _children(pid: int) -> list[str]:
    """The command lines of ``pid``'s child processes (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                found.append((stat.parent / "cmdline").read_text().replace("\0", " "))
        except (OSError, IndexError, ValueError):
            continue
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads child processes from /proc")
def test_ctrl_c_in_a_terminal_stops_the_node_and_its_worker_without_a_traceback(tmp_path: Path) -> None:
    """Ctrl-C signals the whole process group: the node, its Redis and its worker."""
    command = [sys.executable, "-m", "server.cli", "serve", "--port", str(free_port())]
    node = subprocess.Popen(
        [*command, "--data-dir", str(tmp_path / "data")],
        cwd=ROOT,
        env=environment({"SA_LOG_LEVEL": "WARNING"}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert node.stdout is not None and "listening on" in node.stdout.readline()
        deadline = time.monotonic() + 20  # a new data directory prepares the day's deals in the worker
        while not any("multiprocessing" in line for line in _children(node.pid)):
            assert time.monotonic() < deadline, _children(node.pid)
            time.sleep(0.05)
        os.killpg(node.pid, signal.SIGINT)
        _out, errors = node.communicate(timeout=30)
    finally:
        if node.poll() is None:
            os.killpg(node.pid, signal.SIGKILL)
    assert node.returncode == 0
    assert "Traceback" not in errors and "KeyboardInterrupt" not in errors, errors

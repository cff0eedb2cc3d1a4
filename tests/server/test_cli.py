"""The ``solitaire-arena`` command's help and errors, run as a real subprocess."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from server.config import ENV_VARS

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("SA_") and k != "REDIS_URL"}
    environment.update({"PYTHONPATH": str(ROOT), **(env or {})})
    command = [sys.executable, "-m", "server.cli", *args]
    return subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=30)


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
    assert result.stderr.strip() == "solitaire-arena: SA_PORT='abc' is not a number"


def test_a_bad_flag_value_is_refused_by_the_parser() -> None:
    result = run("serve", "--log-format", "xml")
    assert result.returncode == 2 and "invalid choice: 'xml'" in result.stderr
    assert "Traceback" not in result.stderr

"""Every ``python`` code block in README.md and docs/*.md runs.

A block whose first line starts with ``>>>`` runs as a doctest; any other block runs as
a script in a subprocess, against a real server started for the test (its address
replaces ``ws://127.0.0.1:8765``); a block marked ```` ```python no-run ```` is skipped.
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.conftest import NodeProcess, start_node

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python([^\n]*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
DEFAULT_URL = "ws://127.0.0.1:8765"


def blocks() -> list[tuple[str, str, str]]:
    found = []
    for document in DOCUMENTS:
        for index, match in enumerate(BLOCK.finditer(document.read_text())):
            found.append((f"{document.relative_to(ROOT)}#{index}", match.group(1).strip(), match.group(2)))
    return found


BLOCKS = blocks()


@pytest.fixture(scope="module")
def node(redis_url: str) -> Iterator[NodeProcess]:
    process = start_node(redis_url=redis_url)
    yield process
    process.terminate()


def test_the_readme_has_runnable_examples() -> None:
    readme = [b for b in BLOCKS if b[0].startswith("README.md") and b[1] != "no-run"]
    assert len(readme) >= 2
    assert sum(1 for b in BLOCKS if b[1] == "no-run") <= 3


@pytest.mark.parametrize(("where", "info", "code"), BLOCKS, ids=[b[0] for b in BLOCKS])
def test_the_code_block_runs(where: str, info: str, code: str, node: NodeProcess, tmp_path: Path) -> None:
    if info == "no-run":
        pytest.skip("marked no-run: a fragment")
    if code.lstrip().startswith(">>>"):
        test = doctest.DocTestParser().get_doctest(code, {}, where, where, 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test)
        assert runner.failures == 0
        return
    # Examples that keep a token write it here, not in the user's config folder.
    config = str(tmp_path / "credentials.json")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SOLITAIRE_ARENA_CONFIG": config}
    script = code.replace(DEFAULT_URL, node.url)
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr

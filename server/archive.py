"""The record archive: finished races' records (docs/record.md) kept as files, so they
outlive the race's keys in Redis (``SA_RACE_TTL``).

A record lives at ``<archive dir>/<first two characters of the race id>/<race id>.rec``,
and the race's results as the server gave them (``RaceSummary`` as JSON: what the record
does not say, such as who gave up and the ratings a race made) beside it, in
``<race id>.results.json``, written first. Each is written once, atomically (a temporary
file in the same folder, then ``os.replace``), and never changed; every disk call runs
in a thread, so the event loop never waits on the disk. With several nodes the directory
must be storage they all mount.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import tempfile
from pathlib import Path
from typing import Final

from server.config import unusable_directory
from server.metrics import Metrics

log = logging.getLogger("arena.archive")

#: A race id as docs/record.md allows it: nothing else ever names a file.
_RACE_ID: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: The extension of an archived record, and of the results kept beside it.
SUFFIX: Final = ".rec"
RESULTS_SUFFIX: Final = ".results.json"


class Archive:
    """Records in ``directory``; a failed write is logged and counted, never raised."""

    def __init__(self, directory: str | os.PathLike[str], metrics: Metrics) -> None:
        self.directory = Path(directory)
        self.metrics = metrics

    def path(self, race_id: str, suffix: str = SUFFIX) -> Path | None:
        """Where ``race_id``'s record (or, with :data:`RESULTS_SUFFIX`, its results) is
        kept; None for an id that is not a race id."""
        if not _RACE_ID.fullmatch(race_id):
            return None
        return self.directory / race_id[:2] / f"{race_id}{suffix}"

    async def has(self, race_id: str) -> bool:
        path = self.path(race_id)
        return path is not None and await asyncio.to_thread(path.exists)

    async def write(self, race_id: str, text: str, results: str | None = None) -> bool:
        """Keep ``text`` as ``race_id``'s record, and ``results`` (its summary's JSON) beside
        it first, each unless kept already: whether the archive has them now (written now,
        or by another writer before). A failure (permissions, a full disk) is logged with
        the race id, counted in ``arena_archive_failures_total``, and answered False."""
        path, results_path = self.path(race_id), self.path(race_id, RESULTS_SUFFIX)
        if path is None or results_path is None:
            raise ValueError(f"{race_id!r} is not a race id")
        try:
            if results is not None:
                await asyncio.to_thread(_write_once, results_path, results)
            await asyncio.to_thread(_write_once, path, text)
            return True
        except OSError as exc:
            self.metrics.archive_failures.inc()
            log.warning(
                "a race's record could not be archived",
                extra={"race_id": race_id, "path": str(path), "reason": repr(exc)},
            )
            return False

    async def read(self, race_id: str, suffix: str = SUFFIX) -> str | None:
        """``race_id``'s archived record (or, with :data:`RESULTS_SUFFIX`, its results), or
        None when there is none (or it cannot be read)."""
        path = self.path(race_id, suffix)
        if path is None:
            return None
        try:
            return await asyncio.to_thread(path.read_text, encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            log.warning(
                "an archived record could not be read",
                extra={"race_id": race_id, "path": str(path), "reason": repr(exc)},
            )
            return None


def make_ready(directory: str | os.PathLike[str]) -> None:
    """Create the archive ``directory`` if missing and check the node can write in it,
    at start: else every race's end would log its record's failure. Raises
    :class:`SettingError` naming the setting (a file, a directory the node cannot write)."""
    path = Path(directory)
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path, prefix=".probe."):
            pass
    except OSError as exc:
        raise unusable_directory("archive_dir", directory, exc) from None


def _write_once(path: Path, text: str) -> None:
    """Write ``text`` at ``path`` all at once, unless a file is there already."""
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise

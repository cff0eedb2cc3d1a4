"""Structured logs: one JSON object per line, with race and player ids as fields."""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable
from typing import Any, ClassVar, Final

#: What every log record has; anything else on a record came as ``extra`` and is a field.
_RECORD_ATTRIBUTES: Final = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
    "taskName",
}
#: Fields never written, whoever passes them: a log line holds no credential.
_SECRET_WORDS: Final = ("token", "password", "secret")
_PLAIN: Final = frozenset({str, int, float, bool, list, tuple, dict})


def context_fields(record: logging.LogRecord) -> dict[str, Any]:
    """The record's ``extra`` fields of plain values (race and player ids, reasons, …),
    by name; objects a library attaches (websockets' connection) are left out."""
    return {
        name: value
        for name, value in record.__dict__.items()
        if name not in _RECORD_ATTRIBUTES
        and type(value) in _PLAIN  # not isinstance: a dead weak proxy raises there
        and not any(word in name.lower() for word in _SECRET_WORDS)
    }


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        data.update(context_fields(record))
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return json.dumps(data, default=str)


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        base = super().format(record)
        extra = " ".join(f"{name}={value}" for name, value in context_fields(record).items())
        return f"{base} {extra}".rstrip()


#: Seconds a warning with a ``reason`` (a failure a background task retries: Redis away)
#: is kept quiet after it was written, when it comes again word for word.
REPEAT_QUIET_S: Final = 60.0


class RepeatsQuieted(logging.Filter):
    """Writes a failing background task's warning once, then at most once a minute while
    it keeps failing (with ``repeats``: how many were left out since): an outage of
    Redis would otherwise write a line a second for each of a node's loops. Once Redis is
    back (:func:`forget_repeats`) it starts afresh: the next outage's first warning is
    written at once, its ``repeats`` counting that outage's failures alone."""

    #: Bumped by :func:`forget_repeats`; a filter that saw another forgets what it saw.
    episode: ClassVar[int] = 0

    def __init__(self, quiet_s: float = REPEAT_QUIET_S, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.quiet_s = quiet_s
        self.clock = clock
        #: (logger, message) -> (when last written, how many left out since)
        self._seen: dict[tuple[str, str], tuple[float, int]] = {}
        self._episode = RepeatsQuieted.episode

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.WARNING or "reason" not in record.__dict__:
            return True
        if record.name == "arena.redis":
            return True  # Redis going away and coming back: each one always said
        if self._episode != RepeatsQuieted.episode:
            self._seen.clear()
            self._episode = RepeatsQuieted.episode
        key, now = (record.name, record.getMessage()), self.clock()
        written, left_out = self._seen.get(key, (float("-inf"), 0))
        if now - written < self.quiet_s:
            self._seen[key] = (written, left_out + 1)
            return False
        if left_out:
            record.repeats = left_out
        self._seen[key] = (now, 0)
        return True


def forget_repeats() -> None:
    """What failed is working again (Redis is back): every :class:`RepeatsQuieted` forgets
    the warnings it quieted (their ``repeats`` carried over into the next outage's first
    warning, which was quieted too when it came within the minute)."""
    RepeatsQuieted.episode += 1


def configure(level: str = "INFO", fmt: str = "json") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(RepeatsQuieted())
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(TextFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    logging.getLogger("websockets").setLevel(logging.WARNING)

"""Structured logs: one JSON object per line, with race and player ids as fields."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any, Final

_CONTEXT_FIELDS: Final = (
    "race_id", "player_id", "node_id", "code", "game", "remote", "redis_url", "pid",
    "address", "reason", "close_code", "seq", "status",
)  # fmt: skip


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for name in _CONTEXT_FIELDS:
            value = record.__dict__.get(name)
            if value is not None:
                data[name] = value
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return json.dumps(data, default=str)


class TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        base = super().format(record)
        extra = " ".join(
            f"{name}={record.__dict__[name]}"
            for name in _CONTEXT_FIELDS
            if record.__dict__.get(name) is not None
        )
        return f"{base} {extra}".rstrip()


def configure(level: str = "INFO", fmt: str = "json") -> None:
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(TextFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    logging.getLogger("websockets").setLevel(logging.WARNING)

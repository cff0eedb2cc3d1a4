"""Where a player's token is kept between runs: one file per user, readable by them alone.

The file is ``$SOLITAIRE_ARENA_CONFIG`` if set, else ``$XDG_CONFIG_HOME/solitaire-arena/
credentials.json`` (``~/.config/...`` without XDG), holding one entry per server URL
and player name. It is written atomically with mode 0600 in a 0700 directory: the token
resumes the player from anywhere, so nobody else may read it.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Credential:
    """What resumes a player on one server."""

    player_id: str
    name: str
    token: str


def default_path() -> Path:
    """The credentials file of the current user."""
    explicit = os.environ.get("SOLITAIRE_ARENA_CONFIG")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "solitaire-arena" / "credentials.json"


class TokenStore:
    """Read and write credentials, keyed by server URL and player name."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()

    def get(self, server: str, name: str) -> Credential | None:
        entry = self._read().get(_key(server, name))
        if not isinstance(entry, dict):
            return None
        try:
            return Credential(str(entry["player_id"]), str(entry["name"]), str(entry["token"]))
        except KeyError:
            return None

    def put(self, server: str, credential: Credential) -> None:
        data = self._read()
        data[_key(server, credential.name)] = asdict(credential)
        self._write(data)

    def forget(self, server: str, name: str) -> None:
        data = self._read()
        if data.pop(_key(server, name), None) is not None:
            self._write(data)

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, Any]) -> None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".credentials-")
        try:
            os.fchmod(descriptor, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=2, sort_keys=True)
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def _key(server: str, name: str) -> str:
    return f"{server.rstrip('/')} {name}"

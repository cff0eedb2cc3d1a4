"""Where a terminal keeps the seed shares it committed (docs/deals.md), so that the same
device reveals them after a restart: ``play`` reopening the lobby of a race it sits in
gets ready with the share its first run committed, and the deal still mixes it in.

The file sits beside the credentials file (``credentials.shares.json`` beside
``credentials.json``; with ``$SOLITAIRE_ARENA_CONFIG`` set to ``FILE``, beside it as
``FILE.shares.json`` with any suffix of ``FILE`` replaced), written atomically with mode
0600 like it: a share is secret until its race starts. Entries are keyed by server,
player and race, and only the latest :data:`SHARES_KEPT` are kept, so it never grows
without end (a race is long started, or gone, by the time its share drops out).

>>> import tempfile
>>> shares = ShareFile(Path(tempfile.mkdtemp()) / "credentials.json", "ws://h:1/")
>>> shares.path.name
'credentials.shares.json'
>>> shares.keep("p_1", "r_1", "a0" * 16)
>>> shares.kept("p_1", "r_1") == "a0" * 16, shares.kept("p_2", "r_1")
(True, None)
>>> ShareFile(shares.path.with_name("credentials.json"), "ws://h:1").kept("p_1", "r_1") == "a0" * 16
True
"""

from __future__ import annotations

from pathlib import Path
from typing import Final, Protocol

from client.credentials import default_path, read_private, write_private

#: How many seed shares the file keeps (the latest ones committed).
SHARES_KEPT: Final = 48


class ShareKeeper(Protocol):
    """Keeps the seed shares a client committed beyond its own memory (see
    ``ArenaClient(kept_shares=...)``), by player and race."""

    def keep(self, player_id: str, race_id: str, share: str) -> None: ...

    def kept(self, player_id: str, race_id: str) -> str | None: ...


class ShareFile:
    """The seed shares committed on one server from this device, in a file beside the
    credentials file ``credentials`` (by default the current user's)."""

    def __init__(self, credentials: Path | None, server: str) -> None:
        self.path = (credentials or default_path()).with_suffix(".shares.json")
        self.server = server.rstrip("/")

    def keep(self, player_id: str, race_id: str, share: str) -> None:
        """Keep ``share`` as the player's in ``race_id``, dropping the oldest beyond
        :data:`SHARES_KEPT`."""
        entries = read_private(self.path, damaged_is_empty=True)  # only shares: begun anew
        key = self._key(player_id, race_id)
        entries.pop(key, None)  # kept again: the latest
        entries[key] = share
        latest = list(entries.items())[-SHARES_KEPT:]
        write_private(self.path, dict(latest))

    def kept(self, player_id: str, race_id: str) -> str | None:
        share = read_private(self.path, damaged_is_empty=True).get(self._key(player_id, race_id))
        return share if isinstance(share, str) else None

    def _key(self, player_id: str, race_id: str) -> str:
        return f"{self.server} {player_id} {race_id}"

"""Where a player's token is kept between runs: one file per user, readable by them alone.

The file is ``$SOLITAIRE_ARENA_CONFIG`` if set, else ``$XDG_CONFIG_HOME/solitaire-arena/
credentials.json`` (``~/.config/...`` without XDG), holding one entry per server URL
and player name (a guest's name, or an account's username), and under ``accounts`` the
username of the account logged in on each server (``solitaire-arena register``/``login``),
which the commands play as unless told another name, and under ``guests`` the name of the
guest they play as otherwise, once ``solitaire-arena rename`` renamed that guest (before,
it is the user's login name). It is written atomically with mode
0600 in a 0700 directory: the token resumes the player from anywhere, so nobody else may
read it.

>>> import tempfile
>>> store = TokenStore(Path(tempfile.mkdtemp()) / "credentials.json")
>>> store.put("ws://h:1", Credential("p_1", "zoe", "guest-token"))
>>> store.account("ws://h:1") is None, store.names("ws://h:1/")
(True, ['zoe'])
>>> store.set_account("ws://h:1/", Credential("p_2", "ada_acct", "account-token", account=True))
>>> store.account("ws://h:1")
Credential(player_id='p_2', name='ada_acct', token='account-token', account=True)
>>> store.forget("ws://h:1", "ada_acct")
>>> store.account("ws://h:1") is None, store.get("ws://h:1", "zoe") is not None
(True, True)
>>> store.guest("ws://h:1") is None
True
>>> store.set_guest("ws://h:1", "zoe")
>>> store.guest("ws://h:1")
Credential(player_id='p_1', name='zoe', token='guest-token', account=False)
>>> store.forget("ws://h:1", "zoe")
>>> store.guest("ws://h:1") is None
True
"""

from __future__ import annotations

import json
import os
import tempfile
import unicodedata
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Credential:
    """What resumes a player on one server."""

    player_id: str
    name: str
    token: str
    #: An account's (``name`` is its username), not a guest's.
    account: bool = False


#: The top-level key of the file that maps each server to its logged-in account.
_ACCOUNTS = "accounts"
#: The top-level key that maps each server to the guest the commands play as by default,
#: once it was renamed from the user's login name.
_GUESTS = "guests"


def default_path() -> Path:
    """The credentials file of the current user."""
    explicit = os.environ.get("SOLITAIRE_ARENA_CONFIG")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "solitaire-arena" / "credentials.json"


class CredentialsError(OSError):
    """The credentials file cannot be read or written; the message names the file and
    says why in words (an ``OSError``, as the failure it wraps).

    >>> print(CredentialsError("read", Path("/tmp/x"), IsADirectoryError(21, "Is a directory")))
    cannot read the credentials file /tmp/x: it is a directory
    >>> print(CredentialsError("write", Path("/ro/c.json"), PermissionError(13, "Permission denied")))
    cannot write the credentials file /ro/c.json: permission denied
    """

    def __init__(self, action: str, path: Path, cause: OSError) -> None:
        super().__init__(f"cannot {action} the credentials file {path}: {_in_words(cause)}")


class DamagedCredentialsError(CredentialsError):
    """The credentials file holds something other than a JSON object. Nothing overwrites
    it: every token in it would be lost.

    >>> print(DamagedCredentialsError(Path("/tmp/c.json"), "not JSON"))
    the credentials file /tmp/c.json is damaged (not JSON): move it away, or fix it
    """

    def __init__(self, path: Path, what: str) -> None:
        OSError.__init__(self, f"the credentials file {path} is damaged ({what}): move it away, or fix it")


def _in_words(cause: OSError) -> str:
    if isinstance(cause, IsADirectoryError):
        return "it is a directory"
    reason = cause.strerror or str(cause)
    return reason[:1].lower() + reason[1:]


def _credential(entry: object) -> Credential | None:
    """A credential as the file keeps it, or None for an entry that is not one."""
    if not isinstance(entry, dict):
        return None
    try:
        player_id, name, token = str(entry["player_id"]), str(entry["name"]), str(entry["token"])
    except KeyError:
        return None
    return Credential(player_id, name, token, account=entry.get("account") is True)


class TokenStore:
    """Read and write credentials, keyed by server URL and player name; and which
    account is logged in on each server."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()

    def get(self, server: str, name: str) -> Credential | None:
        data, key = self._read(), _key(server, name)
        entry = data.get(key)
        if entry is None:  # kept before names were keyed in NFC: as typed then
            entry = next((v for k, v in data.items() if _nfc(k) == key), None)
        return _credential(entry)

    def names(self, server: str) -> list[str]:
        """The names of the players kept for ``server``, in order."""
        prefix = _key(server, "")
        return sorted(key.removeprefix(prefix) for key in self._read() if key.startswith(prefix))

    def of_player(self, server: str, player_id: str) -> Credential | None:
        """The credential kept for ``server`` of the player ``player_id`` (whatever name
        it is kept under: a guest that became an account is kept under its username)."""
        prefix, data = _key(server, ""), self._read()  # the file read once
        for key in sorted(k for k in data if k.startswith(prefix)):
            saved = _credential(data[key])
            if saved is not None and saved.player_id == player_id:
                return saved
        return None

    def put(self, server: str, credential: Credential) -> None:
        data = self._read()
        data[_key(server, credential.name)] = asdict(credential)
        self._write(data)

    def forget(self, server: str, name: str) -> None:
        """Drop the credential of ``name`` (and, when it is the logged-in account or the
        default guest, that too)."""
        data = self._read()
        pointed = False
        for table in (_ACCOUNTS, _GUESTS):
            names = data.get(table)
            if isinstance(names, dict) and names.get(_server(server)) == name:
                del names[_server(server)]
                pointed = True
        if data.pop(_key(server, name), None) is not None or pointed:
            self._write(data)

    def account(self, server: str) -> Credential | None:
        """The account logged in on ``server``, if any."""
        saved = self._pointed(server, _ACCOUNTS)
        return saved if saved is not None and saved.account else None

    def guest(self, server: str) -> Credential | None:
        """The guest the commands play as on ``server`` without a name, when one was set
        (:meth:`set_guest`) and is still kept."""
        saved = self._pointed(server, _GUESTS)
        return saved if saved is not None and not saved.account else None

    def set_guest(self, server: str, name: str) -> None:
        """Make the guest kept as ``name`` the one the commands play as on ``server``."""
        data = self._read()
        _point(data, _GUESTS, server, name)
        self._write(data)

    def _pointed(self, server: str, table: str) -> Credential | None:
        names = self._read().get(table)
        name = names.get(_server(server)) if isinstance(names, dict) else None
        return self.get(server, name) if isinstance(name, str) else None

    def set_account(self, server: str, credential: Credential) -> None:
        """Keep an account's credential and make it the one logged in on ``server``."""
        data = self._read()
        data[_key(server, credential.name)] = asdict(credential)
        _point(data, _ACCOUNTS, server, credential.name)
        self._write(data)

    def _read(self) -> dict[str, Any]:
        return read_private(self.path)

    def _write(self, data: dict[str, Any]) -> None:
        write_private(self.path, data, sort_keys=True)


def read_private(path: Path, damaged_is_empty: bool = False) -> dict[str, Any]:
    """The JSON object kept in ``path`` ({} when there is none, or the file is empty); a
    file that cannot be read raises :class:`CredentialsError`, and one that holds no JSON
    object :class:`DamagedCredentialsError`, unless ``damaged_is_empty`` (a file of what
    may be lost: {}).

    >>> import tempfile
    >>> damaged = Path(tempfile.mkdtemp()) / "c.json"
    >>> _ = damaged.write_text('{"ws://h:1 zoe": {"token": "')
    >>> read_private(damaged, damaged_is_empty=True)
    {}
    >>> read_private(damaged)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    client.credentials.DamagedCredentialsError: the credentials file ... is damaged (not JSON): ...
    """
    try:
        text = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise CredentialsError("read", path, exc) from exc
    if not text.strip():
        return {}
    try:
        data = json.loads(text)  # UTF-8 (or -16, -32) bytes
    except ValueError:
        damage = "not JSON"
    else:
        if isinstance(data, dict):
            return data
        damage = "not a JSON object"
    if damaged_is_empty:
        return {}
    raise DamagedCredentialsError(path, damage)


def write_private(path: Path, data: dict[str, Any], sort_keys: bool = False) -> None:
    """Replace ``path`` with ``data`` atomically, readable by the user alone (0600 in a
    0700 directory); a file that cannot be written raises :class:`CredentialsError`."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-")
    except OSError as exc:
        raise CredentialsError("write", path, exc) from exc
    try:
        os.fchmod(descriptor, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, sort_keys=sort_keys)
        os.replace(temporary, path)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise CredentialsError("write", path, exc) from exc
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _point(data: dict[str, Any], table: str, server: str, name: str) -> None:
    """Make ``table`` (accounts, guests) of the file's ``data`` name ``name`` for ``server``."""
    names = data.get(table)
    if not isinstance(names, dict):
        names = data[table] = {}
    names[_server(server)] = name


def _server(server: str) -> str:
    return server.rstrip("/")


def _key(server: str, name: str) -> str:
    """Where a player's credential is kept: one key for a name however its accents were
    typed (NFC, as the server keeps names: a decomposed "Zoë" is the same player)."""
    return f"{_server(server)} {_nfc(name)}"


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)

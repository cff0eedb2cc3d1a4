"""What the terminal clients tell the player to type next: a command with the options
that reach the same server as the same player, said in lines of at most :data:`WIDTH`
columns. The commands (``client/cli.py``) and the terminal UI's parting notes
(``client/tui/app.py``) write them alike."""

from __future__ import annotations

import getpass
import os
import re
import shlex

from client.columns import width, wrapped
from client.credentials import TokenStore

#: Where the commands connect unless told otherwise.
DEFAULT_SERVER = "ws://127.0.0.1:8765"
#: Where the CLI's printed tables wrap: a standard terminal's width.
WIDTH = 80
_GLUED = re.compile(r"\b(race|seed|salt) ")
NBSP = "\xa0"  # a space a line of :func:`fitted` does not break at
_OPTION = re.compile(r"--(?:server|name) (?:'[^']*'|\S+)")


def default_server() -> str:
    return os.environ.get("SOLITAIRE_ARENA_SERVER", DEFAULT_SERVER)


def default_name() -> str:
    """The account's login name, trimmed to what the server accepts as a guest name."""
    try:
        login = getpass.getuser()
    except (KeyError, OSError):
        login = ""
    cleaned = re.sub(r"[^\w .-]", "", login)[:24].strip(" ._-")
    return cleaned or "player"


def default_guest(server: str, store: TokenStore) -> str:
    """The guest played as on ``server`` without ``--name`` (and no login): the user's
    login name, or the name ``rename`` gave that guest."""
    renamed = store.guest(server)
    return renamed.name if renamed is not None else default_name()


def player_options(server: str, name: str | None = None, store: TokenStore | None = None) -> str:
    """What a command printed for the player to type next needs to reach the same server
    as the same player (each option after a space, or ""): ``--server`` unless it is the
    one the commands use by default (:func:`default_server`), ``--name`` unless ``name``
    is the player they act as without it (the account logged in there, else the default
    guest).

    >>> from pathlib import Path
    >>> store = TokenStore(Path("/nonexistent/credentials.json"))
    >>> player_options(default_server(), default_name(), store)
    ''
    >>> player_options("ws://arena.example:8765", "ada lovelace", store)
    " --server ws://arena.example:8765 --name 'ada lovelace'"
    """
    options = "" if server == default_server() else f" --server {server}"
    if name is not None:
        store = store if store is not None else TokenStore()
        account = store.account(server)
        plain = account.name if account is not None else default_guest(server, store)
        if name != plain:
            options += f" --name {shlex.quote(name)}"
    return options


def login_command(server: str | None) -> str:
    """The command that logs in again on ``server`` (None: the default one).

    >>> login_command(default_server()), login_command("ws://arena.example:8765")
    ('solitaire-arena login', 'solitaire-arena login --server ws://arena.example:8765')
    """
    return "solitaire-arena login" + ("" if server is None else player_options(server))


def glued(words: str) -> str:
    """``words`` kept on one line by :func:`fitted`."""
    return words.replace(" ", NBSP)


def fitted(head: str, text: str, indent: int | None = None) -> list[str]:
    """``head`` then ``text`` in lines of at most :data:`WIDTH` columns, the text wrapped
    under its own start (or ``indent`` columns in); a race id, seed or salt stays with the
    word before it, and so do words :func:`glued`.

    >>> for line in fitted("eight-off   6c32bb015d0c…  yes     ",
    ...     f"unscored (guest): in progress (race 98a8fd4224e2; {glued('daily eight-off resumes it')})"):
    ...     print(line)
    eight-off   6c32bb015d0c…  yes     unscored (guest): in progress
                                       (race 98a8fd4224e2;
                                       daily eight-off resumes it)
    """
    kept = _GLUED.sub(lambda found: found.group(1) + NBSP, text)
    under = " " * (width(head) if indent is None else indent)
    return [line.replace(NBSP, " ") for line in wrapped(kept, WIDTH, head, under)] or [head.rstrip()]


def said_lines(sentence: str) -> list[str]:
    """``sentence`` in lines of at most :data:`WIDTH` columns (the next ones indented),
    each ``--server`` or ``--name`` option kept on one line with its value.

    >>> for line in said_lines("you left race 6f15c8cf590b while it runs: solitaire-arena play "
    ...                        "--server ws://127.0.0.1:9772 --name 'filler with long name' resumes it"):
    ...     print(line)
    you left race 6f15c8cf590b while it runs: solitaire-arena play
        --server ws://127.0.0.1:9772 --name 'filler with long name' resumes it
    """
    return fitted("", _OPTION.sub(lambda found: glued(found.group()), sentence), indent=4)

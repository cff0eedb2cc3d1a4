"""Usernames: what a valid one is, and the key that makes look-alikes one name.

A username is 3 to 20 characters after NFC normalization: letters and digits of one
script (Latin, Cyrillic, Greek, ...), plus ``_`` and ``-``. Mixing scripts is refused,
as browsers refuse it in domain names: "paypal" with a Cyrillic "a" is not a name.

Two usernames are the same account when their *skeletons* are equal: case folded,
accents dropped, letters that look like Latin ones (a Cyrillic or Greek "o") read
as those, and the digits and letters people confuse (``0``/``o``, ``1``/``l``/``i``)
read alike, ``_`` and ``-`` too.

>>> check_username("  Ada_Lovelace ")
'Ada_Lovelace'
>>> username_key("Ada_Lovelace") == username_key("ADA-L0VELACE")
True
>>> username_key("\u0440\u0430\u0443\u0440\u0430") == username_key("paypa")  # all Cyrillic
True
>>> username_key("Ola") == username_key("0la") == username_key("OIa")
True
"""

from __future__ import annotations

import unicodedata
from typing import Final

USERNAME_MIN: Final = 3
USERNAME_MAX: Final = 20

#: Letters of other scripts that look like a Latin letter, and the letter they look like
#: (written as escapes: the letters themselves would look like Latin ones here too).
_FOREIGN: Final = {
        # Cyrillic
        "\u0430": "a", "\u0432": "b", "\u0435": "e", "\u0451": "e", "\u043a": "k", "\u043c": "m",
        "\u043d": "h", "\u043e": "o", "\u0440": "p", "\u0441": "c", "\u0442": "t", "\u0443": "y",
        "\u0445": "x", "\u0455": "s", "\u0456": "i", "\u0457": "i", "\u0458": "j", "\u04bb": "h",
        "\u0501": "d", "\u051b": "q", "\u051d": "w", "\u044c": "b",
        # Greek
        "\u03b1": "a", "\u03b2": "b", "\u03b5": "e", "\u03b7": "n", "\u03b9": "i", "\u03ba": "k",
        "\u03bd": "v", "\u03bf": "o", "\u03c1": "p", "\u03c4": "t", "\u03c5": "u", "\u03c7": "x",
        "\u03c9": "w", "\u03b6": "z",
}  # fmt: skip
#: Characters people confuse among themselves, once case is folded.
_CONFUSED: Final = {"0": "o", "1": "l", "i": "l", "-": "_"}
_LOOKALIKES: Final = str.maketrans(
    {**{char: _CONFUSED.get(latin, latin) for char, latin in _FOREIGN.items()}, **_CONFUSED}
)


def _script(char: str) -> str | None:
    """The script of a letter (the first word of its Unicode name); None for a digit,
    ``_`` or ``-``, which every script shares."""
    if char in "_-" or unicodedata.category(char) == "Nd":
        return None
    return unicodedata.name(char, "UNKNOWN").split(" ")[0]


def check_username(text: str) -> str:
    """The username as stored and shown (NFC, trimmed), or ``ValueError`` saying why not."""
    name = unicodedata.normalize("NFC", text.strip())
    if not USERNAME_MIN <= len(name) <= USERNAME_MAX:
        raise ValueError(f"a username has {USERNAME_MIN} to {USERNAME_MAX} characters")
    for char in name:
        if not (char in "_-" or unicodedata.category(char) in ("Lu", "Ll", "Lt", "Lo", "Nd")):
            raise ValueError(f"a username has letters, digits, _ and - only, not {char!r}")
    scripts = {s for s in map(_script, name) if s is not None}
    if len(scripts) > 1:
        raise ValueError(f"a username uses one script, not {' and '.join(sorted(scripts)).lower()} mixed")
    if not scripts:
        raise ValueError("a username needs at least one letter")
    return name


def username_key(name: str) -> str:
    """The skeleton two look-alike usernames share (see the module's docstring)."""
    decomposed = unicodedata.normalize("NFKD", name.strip())
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return bare.casefold().translate(_LOOKALIKES)

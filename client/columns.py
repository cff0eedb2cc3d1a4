"""Text measured in terminal columns rather than characters, for the tables the terminal
clients print.

A player's name may hold any letters (see ``check_name``), and a Chinese, Japanese or
Korean one takes two columns a character; a combining mark takes none. Tables pad and cut
names with these functions so that their columns line up and their lines keep to 80
columns whatever the names. They count as rich (which draws the terminal UI) does for
such text, but with the standard library only, so the commands that print need not load
it.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from shared.protocol.base import NUMBERED_NAME

#: Where a text was cut.
ELLIPSIS = "…"
#: Where :func:`wrapped` may break a line (not at a no-break space).
_SPACES = re.compile(r"([ \t\n\r\f\v]+)")


@lru_cache(maxsize=4096)
def _char_width(char: str) -> int:
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    if "\u1160" <= char <= "\u11ff":  # a Hangul syllable's vowel and final: part of the cell before
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def width(text: str) -> int:
    """The columns ``text`` takes in a terminal.

    >>> width("Ada"), width("李小龍"), width("ｶﾀｶﾅ"), width("\uff211")
    (3, 6, 4, 3)
    >>> width("e\u0301"), width("\u1100\u1161")  # a combining accent; a Hangul syllable in parts
    (1, 2)
    """
    if text.isascii():
        return len(text)
    return sum(map(_char_width, text))


def clipped(text: str, most: int) -> str:
    """``text`` in at most ``most`` columns, an ellipsis where it was cut.

    >>> clipped("Ada", 3), clipped("Adalbert", 4), clipped("李小龍李", 8), clipped("李小龍李", 7)
    ('Ada', 'Ada…', '李小龍李', '李小龍…')
    >>> clipped("李小龍", 4), clipped("李小龍", 1), clipped("Ada", 0)
    ('李…', '…', '')
    """
    if width(text) <= most:
        return text
    room = most - 1  # for the ellipsis
    kept = []
    for char in text:
        room -= _char_width(char)
        if room < 0:
            break
        kept.append(char)
    return "".join(kept) + ELLIPSIS if most > 0 else ""


def clipped_name(name: str, most: int) -> str:
    """A racer's ``name`` in at most ``most`` columns, as :func:`clipped`, except that a
    number the server added to tell it from a same-named racer's (``alice (2)``) is kept
    and the name before it cut: otherwise two such names would read alike.

    >>> clipped_name("alice (2)", 7), clipped_name("alice (2)", 9), clipped_name("alice (2)", 4)
    ('al… (2)', 'alice (2)', 'ali…')
    >>> clipped_name("Adalbert", 4)
    'Ada…'
    """
    numbered = NUMBERED_NAME.fullmatch(name)
    if numbered is None or width(name) <= most:
        return clipped(name, most)
    base, number = numbered.groups()
    room = most - len(number)
    if room < 2:  # no letter of the name would be left beside its ellipsis
        return clipped(name, most)
    return clipped(base, room) + number


def fewest_columns(name: str, least: int) -> int:
    """The fewest columns a racer's ``name`` is cut to where ``least`` is the rule: as many
    more as the number that tells it from a same-named racer's takes (it is kept whole),
    and never more than the name takes whole.

    >>> fewest_columns("alice (2)", 5), fewest_columns("alice", 5), fewest_columns("al", 5)
    (9, 5, 2)
    """
    numbered = NUMBERED_NAME.fullmatch(name)
    extra = len(numbered.group(2)) if numbered else 0
    return min(width(name), least + extra)


def padded(text: str, columns: int) -> str:
    """``text`` followed by spaces to fill ``columns`` (as ``f"{text:<{columns}}"`` does
    for text of one column a character); a longer text as it is.

    >>> padded("Ada", 5) + "|", padded("李小", 5) + "|", padded("李小龍", 5) + "|"
    ('Ada  |', '李小 |', '李小龍|')
    """
    return text + " " * (columns - width(text))


def split_to_fit(head: str, tail: str, columns: int, gap: str = " ", indent: str = "   ") -> list[str]:
    """``head``, ``gap`` and ``tail`` on one line, or where that does not fit in
    ``columns``, the tail on a line of its own after ``indent`` (a racer's place and name,
    then how they did; a bot's race, then its place and result), widths counted in
    terminal columns.

    >>> split_to_fit("1. ada", "won in 95.0 s", 32)
    ['1. ada won in 95.0 s']
    >>> split_to_fit("1. ada          52", "won 95.0s", 20, gap="  ")
    ['1. ada          52', '   won 95.0s']
    """
    line = f"{head}{gap}{tail}"
    return [line] if width(line) <= columns else [head, f"{indent}{tail}"]


def wrapped(text: str, columns: int, first: str = "", under: str = "") -> list[str]:
    """``text`` in lines of at most ``columns`` terminal columns, broken at spaces only
    (a no-break space holds), the first line after ``first`` and the others after
    ``under``; a word longer than a line gets a line of its own. ``textwrap`` counts one
    column a character, so its lines of Chinese, Japanese or Korean names ran over.

    >>> for line in wrapped("play --name 李小龍李小龍李小龍 resumes your race now", 24, under="  "):
    ...     print(line + "|")
    play --name|
      李小龍李小龍李小龍|
      resumes your race now|
    """
    lines: list[str] = []
    line, used, empty, gap = first, width(first), True, ""
    for index, piece in enumerate(_SPACES.split(text)):
        if index % 2:  # the spaces between two words, kept within a line
            gap = " " * len(piece)
            continue
        if not piece:
            continue
        size = width(piece)
        if not empty and used + len(gap) + size > columns:
            lines.append(line)
            line, used, empty = under, width(under), True
        if empty:
            line, used, empty = line + piece, used + size, False
        else:
            line, used = line + gap + piece, used + len(gap) + size
    if not empty:
        lines.append(line)
    return lines

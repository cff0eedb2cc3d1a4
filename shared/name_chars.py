"""The characters of names beyond plain letters and digits: combining marks, which many
scripts need inside a word (a Devanagari vowel sign, a Thai tone mark, an Arabic vowel
point), and the characters that draw nothing, which no name may hold.

>>> invisible("\\u3164"), invisible("a")  # HANGUL FILLER draws nothing
(True, False)
>>> mark_problem("\\u0930\\u093e\\u0939\\u0941\\u0932") is None  # a Hindi name with its vowel signs
True
>>> mark_problem("\\u0301ada")
'a combining mark goes after a letter, not at the start or after a digit, space or sign'
>>> mark_problem("e\\u0301\\u0301\\u0301\\u0301")
'a letter carries at most 3 combining marks'
"""

from __future__ import annotations

import unicodedata
from typing import Final

#: Letters and marks that draw nothing: Unicode's Default_Ignorable_Code_Point, the part
#: of it that is letters or marks (the Hangul fillers, variation selectors, the combining
#: grapheme joiner). The rest of that property is format characters and unassigned code
#: points, which names refuse as neither letters nor digits.
_INVISIBLE: Final = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180D),
    (0x180F, 0x180F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0xE0100, 0xE01EF),
)
#: More marks on one letter than any script's spelling needs is decoration ("zalgo" text
#: that spills over the lines around it).
MARKS_PER_LETTER: Final = 3


def invisible(char: str) -> bool:
    """Whether ``char`` draws nothing although it counts as a letter or a mark."""
    code = ord(char)
    return any(low <= code <= high for low, high in _INVISIBLE)


def is_mark(char: str) -> bool:
    """A combining mark that spells (a vowel sign, an accent, a tone mark): not an
    enclosing one, which only decorates."""
    return unicodedata.category(char) in ("Mn", "Mc")


def mark_problem(name: str) -> str | None:
    """Why the combining marks of ``name`` are out of place (each goes after a letter, at
    most :data:`MARKS_PER_LETTER` on one), or None."""
    on_letter = 0
    after_letter = False
    for char in name:
        if not is_mark(char):
            on_letter = 0
            after_letter = unicodedata.category(char).startswith("L")
            continue
        if not after_letter:
            return "a combining mark goes after a letter, not at the start or after a digit, space or sign"
        on_letter += 1
        if on_letter > MARKS_PER_LETTER:
            return f"a letter carries at most {MARKS_PER_LETTER} combining marks"
    return None


def invisible_problem(name: str, what: str = "name") -> str | None:
    """Why ``name`` (a ``what``: a name, a username) holds a character that draws
    nothing, or None."""
    for char in name:
        if invisible(char):
            return f"a {what} has no characters that draw nothing, such as U+{ord(char):04X}"
    return None

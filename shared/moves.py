"""Move notation (docs/rules.md, "Move notation"): parsed once into a small value type.

>>> parse_move("t3:2>f1")
Move(kind='move', src='t3', dst='f1', count=2)
>>> parse_move(" Waste>T3 ")
Move(kind='move', src='waste', dst='t3', count=1)
>>> parse_move("wt+p9")
Move(kind='remove', src='wt', dst='p9', count=1)
>>> str(parse_move("p25"))
'p25'
>>> parse_move("\uff54\uff17\uff1e\uff54\uff11")  # full width, as an East Asian input method types it
Move(kind='move', src='t7', dst='t1', count=1)
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Final

from shared.errors import BadNotation

_TRANSFER: Final = re.compile(r"([a-z]+[0-9]*)(?::([0-9]+))?>([a-z]+[0-9]*)")
_REMOVAL: Final = re.compile(r"([a-z]+[0-9]*)(?:\+([a-z]+[0-9]*))?")
_MAX_MOVE_TEXT: Final = 32
#: The moves written as one word.
_WORDS: Final = ("deal", "redeal", "undo")


@dataclass(frozen=True, slots=True)
class Move:
    """A parsed move.

    ``kind`` is ``"deal"``, ``"redeal"``, ``"undo"``, ``"move"`` (``count`` cards from ``src`` to
    ``dst``) or ``"remove"`` (Treize: ``src`` alone, or ``src`` paired with ``dst``).
    """

    kind: str
    src: str = ""
    dst: str = ""
    count: int = 1

    def __str__(self) -> str:
        if self.kind in _WORDS:
            return self.kind
        if self.kind == "remove":
            return f"{self.src}+{self.dst}" if self.dst else self.src
        return move_text(self.src, self.dst, self.count)


def move_text(src: str, dst: str, count: int = 1) -> str:
    """The notation of ``count`` cards moving from ``src`` to ``dst``: what a ``"move"``
    :class:`Move` writes, without building one (a game's every move names itself).

    >>> move_text("t3", "f1"), move_text("t7", "t1", 3)
    ('t3>f1', 't7:3>t1')
    """
    return f"{src}:{count}>{dst}" if count > 1 else f"{src}>{dst}"


def parse_move(text: str) -> Move:
    """Parse notation into a :class:`Move`; pile names are checked by each game."""
    if not isinstance(text, str):
        raise BadNotation(f"a move is text, not {type(text).__name__}")
    if len(text) > _MAX_MOVE_TEXT:
        raise BadNotation("that move is too long to be a move")
    # NFKC reads full-width letters, digits and signs (what a Chinese or Japanese input
    # method types) as the plain ones they stand for.
    norm = unicodedata.normalize("NFKC", text).strip().lower()
    if norm in _WORDS:
        return Move(norm)
    if ">" in norm:
        match = _TRANSFER.fullmatch(norm)
        if match is None:
            raise BadNotation(f"cannot read {text.strip()!r}: write a move as A>B or A:k>B")
        src, count_text, dst = match.groups()
        count = 1
        if count_text is not None:
            count = int(count_text)
            if count < 2:
                raise BadNotation("a group move names 2 or more cards (A:k>B with k >= 2)")
        return Move("move", src, dst, count)
    match = _REMOVAL.fullmatch(norm)
    if match is None or not norm:
        raise BadNotation(f"cannot read {text.strip()!r}: expected deal, redeal, undo, A>B, A:k>B, X or X+Y")
    first, second = match.groups()
    return Move("remove", first, second or "")

"""How one card looks on the board: rank and suit symbol, red or black.

>>> card_text("TH"), card_text("7S")
('10♥', ' 7♠')
>>> is_red("QD"), is_red("QC")
(True, False)
"""

from __future__ import annotations

import re
from typing import Final

SUIT_SYMBOLS: Final[dict[str, str]] = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
RED_SUITS: Final = frozenset("DH")
#: Width of a card's text (rank right-aligned, then the suit symbol).
CARD_TEXT_WIDTH: Final = 3


def rank_text(card: str) -> str:
    """``"10"`` for a ten, else the rank character."""
    return "10" if card[0] == "T" else card[0]


def card_text(card: str) -> str:
    """Three cells: the rank right-aligned and the suit symbol."""
    return f"{rank_text(card):>2}{SUIT_SYMBOLS[card[1]]}"


_CARD_CODE = re.compile(r"\b([A2-9TJQK])([CDHS])\b")


def cards_in_words(text: str) -> str:
    """A server's text with its card codes written as the board shows cards.

    >>> cards_in_words("9D does not fit on t2 (top KH): the tableau builds down in suit")
    '9♦ does not fit on t2 (top K♥): the tableau builds down in suit'
    >>> cards_in_words("TS on f1")
    '10♠ on f1'
    """
    return _CARD_CODE.sub(lambda m: f"{rank_text(m[1])}{SUIT_SYMBOLS[m[2]]}", text)


def is_red(card: str) -> bool:
    """Hearts and diamonds are red; clubs and spades black."""
    return card[1] in RED_SUITS

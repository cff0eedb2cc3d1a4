"""Cards as two-character strings: rank then suit, e.g. ``"TD"`` is the ten of diamonds.

>>> rank_value("QH"), suit_of("QH")
(12, 'H')
>>> len(FULL_DECK), FULL_DECK[0], FULL_DECK[-1]
(52, 'AC', 'KS')
"""

from __future__ import annotations

from typing import Final

RANKS: Final = "A23456789TJQK"
SUITS: Final = "CDHS"
FULL_DECK: Final[tuple[str, ...]] = tuple(r + s for s in SUITS for r in RANKS)
CARD_SET: Final[frozenset[str]] = frozenset(FULL_DECK)
#: Each card's name to the deck's own string of it. A board built from text (a stored
#: position, an undo record) holds these, not copies: every game a server keeps shares
#: one set of 52 (a board loaded from a stored position held its own, about 2.6 KB).
DECK_CARD: Final[dict[str, str]] = {card: card for card in FULL_DECK}

#: Rank character to value (A=1 ... K=13).
RANK_VALUE: Final[dict[str, int]] = {r: i + 1 for i, r in enumerate(RANKS)}
#: Card to rank value, the hot-path lookup.
VALUE: Final[dict[str, int]] = {c: RANK_VALUE[c[0]] for c in FULL_DECK}

ACE: Final = 1
KING: Final = 13


def rank_value(card: str) -> int:
    """The value of a card's rank, Ace 1 to King 13."""
    return VALUE[card]


def suit_of(card: str) -> str:
    """The suit letter of a card."""
    return card[1]


def rank_char(value: int) -> str:
    """The rank character for a value 1..13."""
    return RANKS[value - 1]


def is_card(text: object) -> bool:
    """Whether ``text`` names one of the 52 cards."""
    return isinstance(text, str) and text in CARD_SET

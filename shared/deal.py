"""Seeded deals: a pure function of (game, seed, deal-algorithm version).

Algorithm ``sha256-ctr`` version 1 (see ``docs/deals.md``):

1. Start from the deck in standard order: suits C, D, H, S; in each suit A, 2, ... K.
2. Random 64-bit words come from SHA-256 in counter mode: block ``n`` is
   ``sha256(b"solitaire-arena:deal:v1:" + game + b":" + seed + b":" + n)`` with the
   seed and ``n`` written in decimal ASCII; each 32-byte digest gives four big-endian
   64-bit words, in order.
3. A uniform integer below ``m`` takes words until one is below the largest multiple
   of ``m`` not above 2**64, and returns it modulo ``m`` (no modulo bias).
4. Fisher-Yates: for ``i`` from 51 down to 1, swap positions ``i`` and ``below(i + 1)``.

The result is the order in which cards are dealt, first card first. Nothing depends
on Python's ``random`` module, hash seeds or platform word size.

>>> shuffled_deck("eight-off", 1) == shuffled_deck("eight-off", 1)
True
>>> shuffled_deck("eight-off", 1) != shuffled_deck("treize", 1)
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Final

from shared.cards import FULL_DECK

DEAL_VERSION: Final = 1
SUPPORTED_DEAL_VERSIONS: Final = frozenset({1})
_WORD_SPACE: Final = 1 << 64


def _words(game: str, seed: int, version: int) -> Iterator[int]:
    prefix = f"solitaire-arena:deal:v{version}:{game}:{seed}:".encode("ascii")
    counter = 0
    while True:
        digest = hashlib.sha256(prefix + str(counter).encode("ascii")).digest()
        for offset in range(0, 32, 8):
            yield int.from_bytes(digest[offset : offset + 8], "big")
        counter += 1


def _below(words: Iterator[int], bound: int) -> int:
    limit = _WORD_SPACE - (_WORD_SPACE % bound)
    while True:
        word = next(words)
        if word < limit:
            return word % bound


def shuffled_deck(game: str, seed: int, version: int = DEAL_VERSION) -> list[str]:
    """The 52 cards in dealing order for ``game`` and ``seed``."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"a seed is a non-negative integer, not {seed!r}")
    if version not in SUPPORTED_DEAL_VERSIONS:
        raise ValueError(f"unknown deal algorithm version {version!r}")
    deck = list(FULL_DECK)
    words = _words(game, seed, version)
    for i in range(len(deck) - 1, 0, -1):
        j = _below(words, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck

"""Fair deals: the server's commitment to its seed, racers' seed shares, and the mix.

A race's deal comes from the server's secret seed, committed to before the race starts
(:func:`commitment`). Racers may add seed shares: each sends the SHA-256 of a random
share when it joins (:func:`share_commitment`) and the share itself when it says ready.
The deal's seed is then :func:`mixed_seed` of the server's seed and every revealed share,
so neither the server nor any one racer alone chooses the deal. With no shares, the
server's seed is the deal's seed. ``docs/deals.md`` tells the whole scheme.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping

#: A seed share: 16 to 64 lowercase hex digits (64 to 256 random bits).
SHARE_PATTERN = r"^[0-9a-f]{16,64}$"
#: A SHA-256 digest in lowercase hex.
DIGEST_PATTERN = r"^[0-9a-f]{64}$"

_SHARE = re.compile(SHARE_PATTERN)


def commitment(game: str, seed: int, salt: str) -> str:
    """SHA-256 hex of ``solitaire-arena:<game>:<seed>:<salt>``: the server's promise of its
    seed, published before the race starts and checked against the seed revealed at its end.

    >>> commitment("treize", 7, "00")[:16]
    '1662c9716ab1e2c4'
    """
    return hashlib.sha256(f"solitaire-arena:{game}:{seed}:{salt}".encode()).hexdigest()


def share_commitment(share: str) -> str:
    """SHA-256 hex of a seed share's text, which a racer sends before the share itself.

    >>> share_commitment("00112233445566778899aabbccddeeff")[:16]
    '5947d7c33d783f94'
    """
    return hashlib.sha256(share.encode()).hexdigest()


def is_share(text: str) -> bool:
    """Whether ``text`` is a well-formed seed share.

    >>> is_share("0123456789abcdef"), is_share("0123"), is_share("0123456789ABCDEF")
    (True, False, False)
    """
    return _SHARE.match(text) is not None


def mixed_seed(game: str, server_seed: int, shares: Mapping[str, str]) -> int:
    """The deal's seed from the server's seed and the racers' revealed ``shares`` (player id
    -> share). With no share it is the server's seed; otherwise the first 8 bytes, read
    big-endian, of SHA-256 of ``solitaire-arena:mix:v1:<game>:<server seed>`` followed by
    ``:<player id>=<share>`` for each share in player id order.

    >>> mixed_seed("eight-off", 42, {})
    42
    >>> mixed_seed("eight-off", 42, {"b": "00" * 8, "a": "ff" * 8}) == mixed_seed(
    ...     "eight-off", 42, {"a": "ff" * 8, "b": "00" * 8})
    True
    >>> mixed_seed("eight-off", 42, {"a": "ff" * 8}) != mixed_seed("eight-off", 43, {"a": "ff" * 8})
    True
    """
    if not shares:
        return server_seed
    text = f"solitaire-arena:mix:v1:{game}:{server_seed}" + "".join(
        f":{player}={shares[player]}" for player in sorted(shares)
    )
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")

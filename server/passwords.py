"""Password hashes: scrypt (memory-hard) with a per-account salt; checked in constant time.

A stored hash reads ``scrypt$<log2 n>$<r>$<p>$<salt hex>$<hash hex>``, so parameters can
grow later without breaking old hashes. With n = 2**15, r = 8, p = 1 one hash takes
32 MiB and about 60 ms of one core (``make bench-accounts``). These are blocking calls:
the server runs them in a worker thread (OpenSSL's scrypt releases the interpreter lock).

>>> stored = hash_password("correct horse")
>>> verify_password("correct horse", stored), verify_password("wrong horse", stored)
(True, False)
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
from typing import Final

LOG2_N: Final = 15
R: Final = 8
P: Final = 1
_SALT_BYTES: Final = 16
_KEY_BYTES: Final = 32
_MAXMEM: Final = 64 * 1024 * 1024


def _scrypt(password: str, salt: bytes, log2_n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        password.encode(), salt=salt, n=1 << log2_n, r=r, p=p, maxmem=_MAXMEM, dklen=_KEY_BYTES
    )


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(_SALT_BYTES)
    digest = _scrypt(password, salt, LOG2_N, R, P)
    return f"scrypt${LOG2_N}${R}${P}${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str) -> bool:
    """Whether ``password`` is the one ``stored`` was made from (constant-time compare)."""
    try:
        kind, log2_n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            return False
        computed = _scrypt(password, bytes.fromhex(salt), int(log2_n), int(r), int(p))
    except ValueError:
        return False
    return hmac.compare_digest(computed, bytes.fromhex(digest))


@functools.cache
def dummy_hash() -> str:
    """A hash checked when no account has the name, so a wrong username costs the same
    time as a wrong password (made once, on first use)."""
    return hash_password(secrets.token_hex(8))

"""The store packs a batch's EVALSHA calls (with hiredis) into exactly the bytes redis-py's
encoder writes for them."""

from __future__ import annotations

from typing import Any

import pytest
from redis.connection import Connection

from server.store.batch import _pack_evalsha

SHA = "0123456789abcdef0123456789abcdef01234567"


def redis_py_bytes(keys: list[Any], args: list[Any]) -> bytes:
    """The same command packed by redis-py (what a pipeline would send)."""
    return b"".join(Connection().pack_command("EVALSHA", SHA, len(keys), *keys, *args))


@pytest.mark.parametrize(
    ("keys", "args"),
    [
        (("race:r1:meta", "race:r1:board:p1"), ["p1", 5, "t1>f1", '{"piles":{}}', "0"]),
        (["race:r1:meta"], ["p1", 5]),
        (("k",), ["naïve é", 7]),
        (("clé",), ["ascii"]),
        (("k",), [b"\x00\xffbytes", "after"]),
        (("k",), [1.5, -3, 0, ""]),
        ((), ["no keys at all"]),
        ((b"bytes-key",), ["x"]),
    ],
    ids=[
        "tuple keys, text and numbers",
        "list keys",
        "non-ASCII argument",
        "non-ASCII key",
        "bytes argument",
        "float, negative, zero and empty",
        "no keys",
        "bytes key",
    ],
)
def test_an_evalsha_call_packs_to_the_bytes_redis_py_sends(keys: Any, args: list[Any]) -> None:
    assert _pack_evalsha(SHA, keys, args) == redis_py_bytes(list(keys), args)


def test_the_same_keys_with_another_argument_count_get_their_own_item_count() -> None:
    keys = ("race:r9:meta",)
    assert _pack_evalsha(SHA, keys, ["a"]) == redis_py_bytes(list(keys), ["a"])
    assert _pack_evalsha(SHA, keys, ["a", "b", 3]) == redis_py_bytes(list(keys), ["a", "b", 3])


def test_a_bool_argument_is_refused() -> None:
    """The scripts take "1" or "0" (redis-py refuses a bool too)."""
    with pytest.raises(TypeError, match="must be str, int, float or bytes"):
        _pack_evalsha(SHA, ("k",), [True])

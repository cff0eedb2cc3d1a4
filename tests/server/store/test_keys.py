"""Key names are built in server/store/keys.py and nowhere else."""

from __future__ import annotations

import re
from pathlib import Path

SERVER = Path(__file__).resolve().parents[3] / "server"
#: A string literal that starts like one of our key or channel names.
KEY_LITERAL = re.compile(r"""f?["'](race|player|code|token|queue|node|races|deadlines)[:{]""")


def test_no_module_but_keys_builds_a_key_name() -> None:
    offenders = [
        f"{path.relative_to(SERVER)}:{number}"
        for path in SERVER.rglob("*.py")
        if path.name != "keys.py"
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if KEY_LITERAL.search(line)
    ]
    assert offenders == []


def test_every_key_of_a_race_shares_its_hash_tag() -> None:
    from server.store import keys

    tagged = [k for k in keys.race_keys("abc", "CODE", ["p1"]) if not k.startswith("code:")]
    assert all("{abc}" in k for k in tagged) and len(tagged) == 9


def test_the_keys_of_an_accounts_login_limits_share_its_hash_tag() -> None:
    from server.store import keys

    tagged = keys.login_keys("p_1", "2001:db8::{7}")
    assert [k.split("{", 1)[1].split("}", 1)[0] for k in tagged] == ["p_1"] * 3

"""The per-address bookkeeping alone (no sockets): counting, punishing, forgetting."""

from __future__ import annotations

import time

from server.admission import AddressLimits, Admission, Refusal


def limits(**changes: float) -> AddressLimits:
    values: dict[str, float] = {
        "max_connections": 2,
        "connect_rate": 1.0,
        "connect_burst": 5,
        "new_player_rate": 1.0,
        "new_player_burst": 1,
    }
    values.update(changes)
    return AddressLimits(**values)  # type: ignore[arg-type]


def test_open_connections_are_counted_per_address_and_given_back_on_close() -> None:
    admission = Admission(limits())
    for _ in range(2):
        assert admission.refuse_connection("a") is None
        admission.opened("a")
    assert admission.refuse_connection("a") is Refusal.TOO_MANY_OPEN
    assert admission.refuse_connection("b") is None
    admission.closed("a")
    assert admission.refuse_connection("a") is None


def test_punishing_an_address_spends_its_whole_connect_burst() -> None:
    admission = Admission(limits(max_connections=0))
    admission.punish("a")
    assert admission.refuse_connection("a") is Refusal.TOO_FAST
    assert admission.refuse_connection("b") is None


def test_zero_turns_each_limit_off() -> None:
    admission = Admission(limits(max_connections=0, connect_rate=0, new_player_rate=0))
    for _ in range(100):
        assert admission.refuse_connection("a") is None
        admission.opened("a")
        assert admission.allow_new_player("a")


def test_idle_addresses_with_full_buckets_are_forgotten_once_many_are_tracked() -> None:
    admission = Admission(limits(connect_rate=1e9, new_player_rate=1e9))
    admission.opened("busy")
    for n in range(5000):
        admission.refuse_connection(f"10.0.{n // 256}.{n % 256}")
    time.sleep(0.01)
    admission.refuse_connection("newcomer")
    assert admission.tracked() < 5000
    assert admission.refuse_connection("busy") is None  # still holds a connection: kept
    admission.opened("busy")
    assert admission.refuse_connection("busy") is Refusal.TOO_MANY_OPEN

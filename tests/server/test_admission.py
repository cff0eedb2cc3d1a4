"""The per-address bookkeeping alone (no sockets): counting, punishing, forgetting."""

from __future__ import annotations

import time

from server.admission import AddressLimits, Admission, Refusal


def limits(**changes: float) -> AddressLimits:
    values: dict[str, float] = {
        "abuse_ban": 10.0,
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
    admission = Admission(limits(max_connections=0, abuse_ban=0))
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


def test_each_abuse_within_the_hour_doubles_the_ban() -> None:
    admission = Admission(limits(max_connections=0))
    admission.punish("a")
    assert 9.0 < admission.ban_left("a") <= 10.0
    assert admission.refuse_connection("a") is Refusal.BANNED
    admission.punish("a")
    assert 19.0 < admission.ban_left("a") <= 20.0
    for _ in range(10):
        admission.punish("a")
    assert admission.ban_left("a") <= 300.0
    assert admission.ban_left("b") == 0.0


def test_a_refused_address_is_dropped_at_the_door_for_a_second_but_never_a_trusted_proxy() -> None:
    admission = Admission(limits(max_connections=1, connect_rate=0), trusted_proxies=["10.0.0.1"])
    for address in ("a", "10.0.0.1"):
        admission.opened(address)
        assert admission.refuse_connection(address) is Refusal.TOO_MANY_OPEN
    assert admission.drop_silently("a")
    assert not admission.drop_silently("10.0.0.1")
    assert not admission.drop_silently("b")

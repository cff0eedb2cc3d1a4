"""Per-address limits on one node: open connections, new connections per second, and
new guests per second.

A client's address is the socket's peer, or, when that peer is a trusted reverse proxy,
the last address its ``X-Forwarded-For`` names. State is kept in memory per node (an
attacker spread over many nodes gets each node's allowance); an address that holds no
connection and whose buckets are full is forgotten.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum

from server.ratelimit import RateLimiter

#: Addresses tracked before idle ones are swept.
_SWEEP_AT = 4096


class Refusal(Enum):
    """Why a new connection is turned away (HTTP 429 before the WebSocket handshake)."""

    TOO_MANY_OPEN = "too many open connections from your address"
    TOO_FAST = "too many new connections from your address: slow down"


@dataclass(frozen=True)
class AddressLimits:
    """The per-address allowances; a rate of 0 (or a maximum of 0) is no limit."""

    max_connections: int
    connect_rate: float
    connect_burst: int
    new_player_rate: float
    new_player_burst: int


@dataclass
class _Address:
    connects: RateLimiter
    new_players: RateLimiter
    open: int = 0
    last_seen: float = field(default_factory=time.monotonic)


class Admission:
    """Decides whether an address may connect, and whether it may create a new guest."""

    def __init__(self, limits: AddressLimits, trusted_proxies: Iterable[str] = ()) -> None:
        self.limits = limits
        self.trusted_proxies = frozenset(p.strip() for p in trusted_proxies if p.strip())
        self._addresses: dict[str, _Address] = {}
        self._swept_at = 0.0

    def client_address(self, peer: str, forwarded_for: str | None) -> str:
        """The address limits apply to: the peer, or the client a trusted proxy names.

        >>> behind_proxy = Admission(AddressLimits(0, 0, 0, 0, 0), ["10.0.0.1"])
        >>> behind_proxy.client_address("10.0.0.1", "1.2.3.4, 5.6.7.8")
        '5.6.7.8'
        >>> behind_proxy.client_address("9.9.9.9", "1.2.3.4")
        '9.9.9.9'
        """
        if forwarded_for and peer in self.trusted_proxies:
            named = forwarded_for.rsplit(",", 1)[-1].strip()
            if named:
                return named
        return peer

    def refuse_connection(self, address: str) -> Refusal | None:
        """Why ``address`` may not open another connection now, or None (it may; the
        attempt spends one of its connect tokens)."""
        state = self._state(address)
        if self.limits.max_connections and state.open >= self.limits.max_connections:
            return Refusal.TOO_MANY_OPEN
        if self.limits.connect_rate and not state.connects.allow():
            return Refusal.TOO_FAST
        return None

    def opened(self, address: str) -> None:
        self._state(address).open += 1

    def closed(self, address: str) -> None:
        state = self._state(address)
        state.open = max(0, state.open - 1)

    def punish(self, address: str) -> None:
        """A connection from ``address`` was shut for abuse: its reconnects wait for the
        connect rate to refill the whole bucket."""
        self._state(address).connects.tokens = 0.0

    def allow_new_player(self, address: str) -> bool:
        """May ``address`` create one more guest now? (Spends a token when it may.)"""
        if not self.limits.new_player_rate:
            return True
        return self._state(address).new_players.allow()

    def tracked(self) -> int:
        """How many addresses are remembered (for tests and metrics)."""
        return len(self._addresses)

    def _state(self, address: str) -> _Address:
        state = self._addresses.get(address)
        if state is None:
            if len(self._addresses) >= _SWEEP_AT and time.monotonic() - self._swept_at >= 1.0:
                self._sweep()
            limits = self.limits
            state = _Address(
                RateLimiter(limits.connect_rate, limits.connect_burst),
                RateLimiter(limits.new_player_rate, limits.new_player_burst),
            )
            self._addresses[address] = state
        state.last_seen = time.monotonic()
        return state

    def _sweep(self) -> None:
        """Forget addresses with no connection whose buckets have refilled."""
        now = self._swept_at = time.monotonic()
        limits = self.limits
        refill = max(
            limits.connect_burst / limits.connect_rate if limits.connect_rate else 0.0,
            limits.new_player_burst / limits.new_player_rate if limits.new_player_rate else 0.0,
        )
        idle = [a for a, s in self._addresses.items() if s.open == 0 and now - s.last_seen >= refill]
        for address in idle:
            del self._addresses[address]

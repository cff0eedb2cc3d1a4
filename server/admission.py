"""Per-address limits on one node: open connections, new connections per second, and
new guests per second.

A client's address is the socket's peer, or, when that peer is a trusted reverse proxy,
the last address its ``X-Forwarded-For`` names; an IPv6 client counts by its /64 network
(:func:`limited_as`). State is kept in memory per node (an
attacker spread over many nodes gets each node's allowance); an address that holds no
connection and whose buckets are full is forgotten.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum

from server.ratelimit import RateLimiter

#: Addresses tracked before idle ones are swept.
_SWEEP_AT = 4096
#: The longest ban, in seconds.
BAN_MAX = 300.0
#: Abuse older than this (seconds) no longer makes the next ban longer.
_ABUSE_MEMORY = 3600.0
#: After a refusal, the address's next attempts within this many seconds are dropped
#: before their HTTP request is read (they already know why).
_QUIET_AFTER_REFUSAL = 1.0


class Refusal(Enum):
    """Why a new connection is turned away (HTTP 429 before the WebSocket handshake)."""

    TOO_MANY_OPEN = "too many open connections from your address"
    TOO_FAST = "too many new connections from your address: slow down"
    BANNED = "a connection from your address was closed for abuse: try again later"


def limited_as(address: str) -> str:
    """The name per-address limits count ``address`` by. An IPv6 host is usually given a
    whole /64 network and may take any address in it (privacy addresses change daily), so
    it counts by that network: one host cannot get a fresh allowance, or look new to an
    account it knows, by changing address. An IPv4 address written as IPv6
    (``::ffff:1.2.3.4``) counts as the IPv4 address; anything else as it is.

    >>> limited_as("2001:db8:1:2:aaaa:bbbb:cccc:dddd")
    '2001:db8:1:2::/64'
    >>> limited_as("::ffff:192.0.2.7"), limited_as("192.0.2.7"), limited_as("localhost")
    ('192.0.2.7', '192.0.2.7', 'localhost')
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return address


@dataclass(frozen=True)
class AddressLimits:
    """The per-address allowances; a rate of 0 (or a maximum of 0) is no limit."""

    max_connections: int
    connect_rate: float
    connect_burst: int
    new_player_rate: float
    new_player_burst: int
    #: Seconds an address is refused after a connection of its was shut for abuse; it
    #: doubles with each repeat within an hour, up to :data:`BAN_MAX` (0: no ban).
    abuse_ban: float = 0.0


@dataclass
class _Address:
    connects: RateLimiter
    new_players: RateLimiter
    open: int = 0
    last_seen: float = field(default_factory=time.monotonic)
    banned_until: float = 0.0
    abuses: int = 0
    last_abuse: float = float("-inf")
    refused_at: float = float("-inf")


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
        >>> behind_proxy.client_address("10.0.0.1", "2001:db8:1:2:aaaa::1")
        '2001:db8:1:2::/64'
        """
        if forwarded_for and peer in self.trusted_proxies:
            named = forwarded_for.rsplit(",", 1)[-1].strip()
            if named:
                return limited_as(named)
        return limited_as(peer)

    def refuse_connection(self, address: str) -> Refusal | None:
        """Why ``address`` may not open another connection now, or None (it may; the
        attempt spends one of its connect tokens)."""
        state = self._state(address)
        refusal = self._refusal(state)
        if refusal is not None:
            state.refused_at = time.monotonic()
        return refusal

    def _refusal(self, state: _Address) -> Refusal | None:
        if state.banned_until > time.monotonic():
            return Refusal.BANNED
        if self.limits.max_connections and state.open >= self.limits.max_connections:
            return Refusal.TOO_MANY_OPEN
        if self.limits.connect_rate and not state.connects.allow():
            return Refusal.TOO_FAST
        return None

    def drop_silently(self, peer: str) -> bool:
        """Whether a new TCP connection from ``peer`` should be dropped before its HTTP
        request is even read: the address was refused (429, which said why and for how
        long) within the last second. Never for a trusted proxy (its clients are told
        apart only by their requests)."""
        if peer in self.trusted_proxies:
            return False
        state = self._addresses.get(peer)
        return state is not None and time.monotonic() - state.refused_at < _QUIET_AFTER_REFUSAL

    def opened(self, address: str) -> None:
        self._state(address).open += 1

    def closed(self, address: str) -> None:
        state = self._state(address)
        state.open = max(0, state.open - 1)

    def punish(self, address: str) -> None:
        """A connection from ``address`` was shut for abuse: the address is banned for a
        while (longer each time within an hour), then its reconnects wait for the
        connect rate to refill the whole bucket."""
        state = self._state(address)
        state.connects.tokens = 0.0
        if not self.limits.abuse_ban:
            return
        now = time.monotonic()
        state.abuses = state.abuses + 1 if now - state.last_abuse < _ABUSE_MEMORY else 1
        state.last_abuse = now
        ban = min(BAN_MAX, self.limits.abuse_ban * 2 ** min(state.abuses - 1, 20))
        state.banned_until = max(state.banned_until, now + ban)

    def ban_left(self, address: str) -> float:
        """Seconds ``address`` stays banned (0 when it is not)."""
        state = self._addresses.get(address)
        return max(0.0, state.banned_until - time.monotonic()) if state is not None else 0.0

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
        idle = [
            a
            for a, s in self._addresses.items()
            if s.open == 0
            and now - s.last_seen >= refill
            and s.banned_until < now
            and now - s.last_abuse >= _ABUSE_MEMORY
        ]
        for address in idle:
            del self._addresses[address]

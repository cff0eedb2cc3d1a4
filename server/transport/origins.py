"""Which pages' WebSocket handshakes are accepted: the ``Origin`` a browser sends.

A browser lets any site's page open a WebSocket to any server, and says which site with
the handshake's ``Origin`` header (a page cannot leave it out or change it). Such a page
could not take over a session here (tokens travel in the first message, not in cookies),
but it would spend the per-address limits of the address it runs from: wrong logins
for the user's own account, the open connections. So a handshake is accepted when it
has no ``Origin`` (the SDK, the terminal client and bots send none), when its origin is
this server's own (the page it serves itself, see :func:`same_origin`), or when it is
among ``SA_ALLOWED_ORIGINS`` (``*``: any). Anything else is answered 403 before the
handshake, and before the address's limits are consulted, so it spends none of them.

A site whose name resolves to this server's address (DNS rebinding) sends a ``Host`` that
matches its own origin. With ``SA_PUBLIC_HOSTS`` set, only an origin on one of those names
counts as the server's own, which tells such a page apart.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from typing import Final
from urllib.parse import urlsplit

from websockets.datastructures import Headers

from server.config import DEFAULT_PORTS, Site, parse_origin, setting_name

log = logging.getLogger("arena.origins")

#: A refused origin is logged at most once in this many seconds…
_LOG_QUIET_S: Final = 3600.0
#: … and at most this many distinct origins are remembered for that (past it, refusals
#: of new ones are only counted, in ``arena_refused_connections_total{reason="origin"}``).
_LOGGED_MAX: Final = 256
#: The longest origin written to the log (the header is the client's to choose).
_LOGGED_CHARS: Final = 200


def same_origin(site: Site, host: str | None) -> bool:
    """Whether ``site`` is the one a ``Host`` header (``host[:port]``) names. The header
    has no scheme: a port it leaves out is the origin's scheme's default, so a page on
    ``https://arena.example`` behind a TLS-terminating proxy matches ``Host:
    arena.example`` on the plain-HTTP node behind it.

    >>> same_origin(("https", "arena.example", 443), "arena.example")
    True
    >>> same_origin(("http", "127.0.0.1", 8765), "127.0.0.1:8765")
    True
    >>> same_origin(("http", "127.0.0.1", 3000), "127.0.0.1:8765")
    False
    """
    if not host or "@" in host:
        return False
    try:
        parts = urlsplit(f"//{host.strip()}")
        port = parts.port
    except ValueError:
        return False
    scheme, hostname, origin_port = site
    return parts.hostname == hostname and (port or DEFAULT_PORTS[scheme]) == origin_port


class OriginPolicy:
    """Decides whether a WebSocket handshake's ``Origin`` is allowed.

    ``allowed`` are the operator's extra origins (``*`` allows any). Behind a trusted
    proxy (``trusted_proxies``, as for ``X-Forwarded-For``) the site the proxy names in
    ``X-Forwarded-Host`` counts as this server's own too, for a proxy that rewrites
    ``Host``. A page cannot set that header, so it cannot name its own site there.
    """

    def __init__(
        self,
        allowed: Iterable[str],
        trusted_proxies: Iterable[str] = (),
        public_hosts: frozenset[str] | None = None,
    ) -> None:
        #: The names this server's own page is reached by (None: any that reaches it).
        self.public_hosts = public_hosts
        entries = [a.strip() for a in allowed if a.strip()]
        self.any = "*" in entries
        self.allowed = frozenset(site for site in map(parse_origin, entries) if site is not None)
        self.trusted_proxies = frozenset(trusted_proxies)
        self._logged: dict[str, float] = {}

    def refuses(self, headers: Headers, peer: str) -> bool:
        """Whether to refuse a handshake with these headers from socket peer ``peer`` (the
        refusal is logged). Two ``Origin`` headers are refused, as websockets does."""
        origins = headers.get_all("Origin")
        if not origins or self.any:
            return False
        if len(origins) == 1 and self._allows(origins[0], headers, peer):
            return False
        self._log(", ".join(origins))
        return True

    def _allows(self, origin: str, headers: Headers, peer: str) -> bool:
        site = parse_origin(origin)
        if site is None:
            return False
        if site in self.allowed:
            return True
        if self.public_hosts is not None and site[1] not in self.public_hosts:
            return False  # another site's name that resolves to this server (DNS rebinding)
        hosts = headers.get_all("Host")
        if len(hosts) == 1 and same_origin(site, hosts[0]):
            return True
        forwarded = headers.get_all("X-Forwarded-Host")
        if forwarded and peer in self.trusted_proxies:
            return same_origin(site, forwarded[-1].rsplit(",", 1)[-1])
        return False

    def _log(self, origin: str) -> None:
        """Each refused origin once an hour at most, so a page that keeps trying (or a
        client that sends a new made-up origin each time) cannot flood the log."""
        now = time.monotonic()
        last = self._logged.get(origin)
        if last is not None and now - last < _LOG_QUIET_S:
            return
        if last is None and len(self._logged) >= _LOGGED_MAX:
            self._logged = {o: t for o, t in self._logged.items() if now - t < _LOG_QUIET_S}
            if len(self._logged) >= _LOGGED_MAX:
                return
        self._logged[origin] = now
        log.warning(
            "refused a WebSocket handshake from a page of another site "
            f"(if the page is yours, add its origin to {setting_name('allowed_origins')}, "
            f"or its host to {setting_name('public_hosts')} when that is set)",
            extra={"origin": origin[:_LOGGED_CHARS]},
        )

"""Server settings: defaults, environment variables, and command-line overrides."""

from __future__ import annotations

import difflib
import ipaddress
import math
import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Final
from urllib.parse import urlsplit

#: Another name of REDIS_URL, as every other setting's variable starts with ``SA_``.
REDIS_URL_ALIAS: Final = "SA_REDIS_URL"
#: ``SA_`` variables read by the project's tools, not by a node.
OTHER_VARIABLES: Final = frozenset({"SA_REDIS_7"})

#: Environment variable of each setting.
ENV_VARS: Final = {
    "host": "SA_HOST",
    "port": "SA_PORT",
    "redis_url": "REDIS_URL",
    "data_dir": "SA_DATA_DIR",
    "countdown": "SA_COUNTDOWN",
    "quick_match_time_limit": "SA_QUICK_MATCH_TIME_LIMIT",
    "lobby_grace": "SA_LOBBY_GRACE",
    "node_beat": "SA_NODE_BEAT",
    "max_open_races": "SA_MAX_OPEN_RACES",
    "create_rate": "SA_CREATE_RATE",
    "max_message_bytes": "SA_MAX_MESSAGE_BYTES",
    "hello_timeout": "SA_HELLO_TIMEOUT",
    "rate_limit": "SA_RATE_LIMIT",
    "rate_burst": "SA_RATE_BURST",
    "max_connections_per_address": "SA_MAX_CONNECTIONS_PER_ADDRESS",
    "connect_rate": "SA_CONNECT_RATE",
    "connect_burst": "SA_CONNECT_BURST",
    "new_player_rate": "SA_NEW_PLAYER_RATE",
    "new_player_burst": "SA_NEW_PLAYER_BURST",
    "trusted_proxies": "SA_TRUSTED_PROXIES",
    "allowed_origins": "SA_ALLOWED_ORIGINS",
    "public_hosts": "SA_PUBLIC_HOSTS",
    "abuse_ban": "SA_ABUSE_BAN",
    "login_failures_per_address": "SA_LOGIN_FAILURES_PER_ADDRESS",
    "login_failures_per_account": "SA_LOGIN_FAILURES_PER_ACCOUNT",
    "guest_ttl": "SA_GUEST_TTL",
    "sign_in_ttl": "SA_SIGN_IN_TTL",
    "daily_secret": "SA_DAILY_SECRET",
    "daily_time_limit": "SA_DAILY_TIME_LIMIT",
    "spectator_delay": "SA_SPECTATOR_DELAY",
    "spectator_buffer": "SA_SPECTATOR_BUFFER",
    "clock_tick": "SA_CLOCK_TICK",
    "race_ttl": "SA_RACE_TTL",
    "archive_dir": "SA_ARCHIVE_DIR",
    "redis_fsync": "SA_REDIS_FSYNC",
    "redis_max_connections": "SA_REDIS_MAX_CONNECTIONS",
    "ack_replicas": "SA_ACK_REPLICAS",
    "pubsub": "SA_PUBSUB",
    "log_level": "SA_LOG_LEVEL",
    "log_format": "SA_LOG_FORMAT",
}


#: What each setting means, for ``serve --help`` and the README.
HELP: Final = {
    "host": "address to listen on",
    "port": "port for WebSocket and HTTP (/healthz, /metrics); 0 picks a free one",
    "redis_url": "Redis to use; empty starts a private redis-server in the data directory",
    "data_dir": "data directory of the embedded Redis",
    "countdown": "seconds between 'all ready' and the start of a race",
    "quick_match_time_limit": "time limit of quick-match races, in seconds",
    "lobby_grace": "seconds a disconnected player keeps a seat in a race not yet started",
    "node_beat": "seconds between a node's heartbeats in Redis; a node silent for 4 is taken for dead "
    "(its players count as gone)",
    "max_open_races": "open races (not yet started) a player may sit in at once",
    "create_rate": "races a player may create per minute, on all nodes together (0: no limit)",
    "max_message_bytes": "largest frame accepted; a bigger one closes the connection with 1009",
    "hello_timeout": "seconds a new connection has to say hello before it is closed (1008)",
    "rate_limit": "messages per second per connection",
    "rate_burst": "burst of messages allowed above the rate",
    "max_connections_per_address": "open connections one address may hold on a node (0: no limit)",
    "connect_rate": "new connections per second one address may open on a node (0: no limit)",
    "connect_burst": "burst of new connections allowed above the connect rate",
    "new_player_rate": "new guests per second one address may create on a node (0: no limit)",
    "new_player_burst": "burst of new guests allowed above the new-player rate",
    "abuse_ban": "seconds an address is refused after a connection of its was closed for abuse; "
    "doubles with each repeat within an hour, up to 300 (0: no ban)",
    "login_failures_per_address": "failed logins (wrong passwords, unknown usernames) one address may make "
    "in 15 minutes, on all nodes together (0: no limit)",
    "login_failures_per_account": "wrong passwords for one account in 15 minutes, from all addresses and "
    "nodes together, past which only addresses it logged in from in 30 days may try (0: no limit)",
    "trusted_proxies": "comma-separated addresses of reverse proxies whose X-Forwarded-For is believed",
    "allowed_origins": "comma-separated origins (https://host[:port]) of pages elsewhere that may open "
    "WebSockets here, besides the server's own page and clients that send no Origin; * allows any",
    "public_hosts": "comma-separated host names the server's own page is reached by (arena.example); "
    "when set, a page counts as the server's own only on one of them, which shuts out DNS rebinding "
    "(unset: on any name that reaches it)",
    "guest_ttl": "seconds a guest is kept after their last connection ends (0: forever)",
    "sign_in_ttl": "seconds an account's sign-in on a device (its token) lasts after its last connection "
    "ends (0: until logout or a password change)",
    "daily_secret": "the secret daily deals' seeds derive from (unset: one made once, kept in Redis)",
    "daily_time_limit": "time limit of a daily attempt, in seconds",
    "spectator_delay": "seconds spectators of a rated race see each board after it was played",
    "spectator_buffer": "bytes waiting to a spectator past which it is dropped as too slow",
    "clock_tick": "seconds between the clock's looks for races to start or end",
    "race_ttl": "seconds a finished or cancelled race stays in Redis (0: forever)",
    "archive_dir": "directory each finished race's record is written to and read back from once Redis "
    "has let it go (empty: no archive); every node must mount the same one",
    "redis_fsync": "appendfsync of the embedded Redis: everysec, always or no",
    "redis_max_connections": "Redis connections per node (per server of a cluster)",
    "ack_replicas": "replicas that must hold a move before it is acknowledged (WAIT); 0: the master alone",
    "pubsub": "how nodes pass events: classic (PUBLISH), sharded (SPUBLISH: a cluster of Redis 7), "
    "or auto (sharded when the cluster can; every node must agree)",
    "log_level": "DEBUG, INFO, WARNING, ERROR or CRITICAL",
    "log_format": "json (one object per line) or text",
}


#: The longest any duration setting may be: far beyond any use, and far within what
#: Redis takes (EXPIRE and PX stop near 9.2e15 s) and what the protocol's integers carry
#: (milliseconds in 64 bits). A TTL of 1e23 s used to pass the start, then fail every
#: guest's hello or every race's end.
DECADE: Final = 10 * 365 * 24 * 3600

#: The smallest and largest value of each number setting (None: no bound).
LIMITS: Final[dict[str, tuple[float | None, float | None]]] = {
    "port": (0, 65535),
    "countdown": (0, DECADE),
    "quick_match_time_limit": (1, 24 * 3600),
    "lobby_grace": (0, DECADE),
    "node_beat": (0.05, 300),
    "max_open_races": (1, None),
    "create_rate": (0, None),
    "max_message_bytes": (1024, None),
    "hello_timeout": (0.01, DECADE),
    "rate_limit": (0.01, None),
    "rate_burst": (1, None),
    "max_connections_per_address": (0, None),
    "connect_rate": (0, None),
    "connect_burst": (1, None),
    "new_player_rate": (0, None),
    "new_player_burst": (1, None),
    "abuse_ban": (0, DECADE),
    "login_failures_per_address": (0, None),
    "login_failures_per_account": (0, None),
    "guest_ttl": (0, DECADE),
    "sign_in_ttl": (0, DECADE),
    "daily_time_limit": (1, 24 * 3600),
    "spectator_delay": (0, DECADE),
    "spectator_buffer": (1, None),
    "clock_tick": (0.001, 10),
    "race_ttl": (0, DECADE),
    "redis_max_connections": (1, None),
    "ack_replicas": (0, None),
}

#: The values each word setting takes (log levels in any case).
CHOICES: Final[dict[str, tuple[str, ...]]] = {
    "redis_fsync": ("everysec", "always", "no"),
    "log_level": ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"),
    "log_format": ("json", "text"),
    "pubsub": ("auto", "classic", "sharded"),
}


#: The schemes of a Redis Cluster's URL (``server/redis_client.py`` opens those).
CLUSTER_SCHEMES: Final = ("redis+cluster", "rediss+cluster")
#: Every scheme ``REDIS_URL`` may have: one server's (redis-py's own), then a cluster's.
REDIS_SCHEMES: Final = ("redis", "rediss", "unix", *CLUSTER_SCHEMES)


#: The schemes a page's origin may have (``SA_ALLOWED_ORIGINS``), with their default ports.
DEFAULT_PORTS: Final = {"http": 80, "https": 443}
#: (scheme, host, port), the port filled in from the scheme when the origin leaves it out.
Site = tuple[str, str, int]


def _is_host_name(name: str) -> bool:
    """Whether ``name`` is a host name (letters, digits, dots and hyphens) or an IP address.

    >>> [_is_host_name(n) for n in ("arena.example", "::1", "10.0.0.7", "a.example:80", "a b", "")]
    [True, True, True, False, False, False]
    """
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return re.fullmatch(r"[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?", name) is not None
    return True


def parse_origin(origin: str) -> Site | None:
    """The site of an origin as browsers send it (``scheme://host[:port]``, http or
    https), or None for anything else (``null``, another scheme, a path, credentials).

    >>> parse_origin("https://Arena.example"), parse_origin("http://[::1]:8765")
    (('https', 'arena.example', 443), ('http', '::1', 8765))
    >>> parse_origin("null"), parse_origin("file://"), parse_origin("https://a.example/page")
    (None, None, None)
    """
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:  # a port that is not a number from 0 to 65535
        return None
    scheme = parts.scheme.lower()
    if (
        scheme not in DEFAULT_PORTS
        or not parts.hostname
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or "@" in parts.netloc
    ):
        return None
    return scheme, parts.hostname, port or DEFAULT_PORTS[scheme]


class SettingError(ValueError):
    """A setting's value the node cannot run with; the message is one line naming it."""


def unknown_variables(environ: Mapping[str, str]) -> list[str]:
    """Each ``SA_`` variable of ``environ`` that is no setting (a typo the node would
    otherwise ignore without a word), with the setting it is nearest to, if any.

    >>> unknown_variables({"SA_COUNTDWN": "5", "SA_PORT": "1", "SA_WHATEVER": "x", "HOME": "/"})
    ['SA_COUNTDWN (SA_COUNTDOWN?)', 'SA_WHATEVER']
    """
    known = {*ENV_VARS.values(), REDIS_URL_ALIAS, *OTHER_VARIABLES}
    unknown = []
    for variable in sorted(v for v in environ if v.startswith("SA_") and v not in known):
        near = difflib.get_close_matches(variable, sorted(known), n=1)
        unknown.append(f"{variable} ({near[0]}?)" if near else variable)
    return unknown


def setting_name(name: str) -> str:
    """How an operator sets ``name``: its flag and its environment variable."""
    return f"--{name.replace('_', '-')} ({ENV_VARS[name]})"


def unusable_directory(name: str, directory: str | os.PathLike[str], exc: OSError) -> SettingError:
    """The error of a directory setting the node could not create or write in (a file is
    there, a parent is missing on a filesystem it cannot make it on, no permission)."""
    return SettingError(
        f"{setting_name(name)} must be a directory the node can write to, "
        f"not {str(directory)!r} ({(exc.strerror or repr(exc)).lower()})"
    )


@dataclass(frozen=True)
class Settings:
    """Everything a node can be told. Times are in seconds."""

    host: str = "127.0.0.1"
    port: int = 8765
    #: Redis to use; empty: start a private redis-server in ``data_dir``.
    redis_url: str = ""
    data_dir: str = "./data"
    #: Seconds between "everyone is ready" and the start of the race.
    countdown: float = 3.0
    quick_match_time_limit: float = 600.0
    #: Seconds a player who disconnected keeps their seat in a race not yet started.
    lobby_grace: float = 30.0
    #: Seconds between a node's heartbeats; a node silent for four is taken for dead and
    #: its players as gone (a SIGKILLed node's open seats are freed like anyone's).
    node_beat: float = 5.0
    #: Races not yet started that one player may sit in at once.
    max_open_races: int = 3
    #: Races one player may create per minute (0: no limit).
    create_rate: int = 20
    #: Largest frame accepted; a bigger one closes the connection with 1009.
    max_message_bytes: int = 16 * 1024
    #: Seconds a connection may stay without saying hello.
    hello_timeout: float = 10.0
    #: Messages per second per connection, with bursts up to ``rate_burst``.
    rate_limit: float = 50.0
    rate_burst: int = 100
    #: Per client address, on each node: open connections, new connections per second
    #: (bursts up to ``connect_burst``) and new guests per second (bursts up to
    #: ``new_player_burst``). 0 turns a limit off.
    max_connections_per_address: int = 64
    connect_rate: float = 5.0
    connect_burst: int = 60
    new_player_rate: float = 0.2
    new_player_burst: int = 20
    #: Seconds an address is refused after one of its connections was shut for abuse.
    abuse_ban: float = 2.0
    #: Failed logins one client address may make within 15 minutes of its first, counted
    #: in Redis for every node; then its logins are refused before any password is
    #: hashed. One NAT's or proxy's users share it (0: no limit).
    login_failures_per_address: int = 20
    #: Wrong passwords for one account within 15 minutes of the first, from every address
    #: and node together, past which only the addresses the account logged in (or
    #: registered) from in the last 30 days may try; each (account, address) pair has 5 of
    #: its own. Ten addresses at their pair limit reach it, so one rival cannot lock the
    #: owner out, and guessing from many addresses gets 200 tries an hour (0: no bound).
    login_failures_per_account: int = 50
    #: Proxies (comma-separated addresses) whose ``X-Forwarded-For`` names the client.
    trusted_proxies: str = ""
    #: Origins (comma-separated ``scheme://host[:port]``, ``*``: any) of pages served
    #: elsewhere whose WebSocket handshakes are accepted, besides this server's own page
    #: and clients that send no ``Origin`` (``server/transport/origins.py``).
    allowed_origins: str = ""
    #: Host names (comma-separated) the server's own page is reached by; when set, a
    #: page's origin is this server's own only with one of them (DNS rebinding: another
    #: site's name that resolves here is not). Empty: any name that reaches it.
    public_hosts: str = ""
    #: Seconds an idle guest (no connection) is kept; their finished races stay readable.
    guest_ttl: int = 30 * 24 * 3600
    #: Seconds an account's sign-in on a device (its token) lasts unused: from the end of
    #: its last connection (0: until revoked).
    sign_in_ttl: int = 90 * 24 * 3600
    #: The secret daily deals' seeds derive from; empty: one is made once and kept in Redis
    #: for every node. Never sent, logged or shown (it is left out of this object's repr).
    daily_secret: str = field(default="", repr=False)
    #: Time limit of a daily attempt.
    daily_time_limit: float = 1800.0
    #: Whether the node prepares today's and tomorrow's daily deals in the background
    #: (tests turn it off and prepare the days they drive).
    daily_prepare: bool = True
    #: Seconds between a node's sweeps of idle accounts (provisional again) off the
    #: leaderboards (tests shorten it).
    leaderboard_sweep: float = 3600.0
    #: Seconds between a node's sweeps of the races whose records are due in the
    #: archive (tests shorten it).
    archive_sweep: float = 30.0
    #: How far behind spectators of a rated race watch (casual races: live).
    spectator_delay: float = 30.0
    #: A spectator whose connection has this many bytes waiting to be sent is dropped.
    spectator_buffer: int = 256 * 1024
    #: How often the clock looks for races due to start or end.
    clock_tick: float = 0.05
    #: How long a finished race stays in Redis (0: forever).
    race_ttl: int = 7 * 24 * 3600
    #: Where finished races' records are kept as files (``server/archive.py``), read
    #: back once the race's keys expired; empty: nowhere. Nodes must share it.
    archive_dir: str = ""
    redis_fsync: str = "everysec"
    #: Connections to Redis per node (requests wait for a free one).
    redis_max_connections: int = 64
    #: Replicas that must confirm a move (Redis ``WAIT``) before it is acknowledged.
    ack_replicas: int = 0
    #: ``auto``, ``classic`` or ``sharded``: see :func:`server.redis_client.sharded_pubsub`.
    pubsub: str = "auto"
    log_level: str = "INFO"
    #: ``json`` (one object per line) or ``text``.
    log_format: str = "json"
    node_id: str = field(default_factory=lambda: secrets.token_hex(4))

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **overrides: Any) -> Settings:
        """Defaults, then environment variables, then non-None ``overrides``. Only the
        value used is converted and checked: a variable a flag overrides is not read (a
        bad ``SA_PORT`` stopped a node given ``--port``)."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {k: v for k, v in overrides.items() if v is not None}
        types = {f.name: f.type for f in fields(cls)}
        for name, var in ENV_VARS.items():
            if name not in values and env.get(var, "") != "":
                values[name] = _convert(types[name], env[var], var)
        if "redis_url" not in values and env.get(REDIS_URL_ALIAS, "") != "":
            values["redis_url"] = env[REDIS_URL_ALIAS]  # as the other settings are named
        settings = replace(cls(), **values)
        settings.check()
        return settings

    def check(self) -> None:
        """Raise :class:`SettingError` for the first value out of its range or choices."""
        for name, (low, high) in LIMITS.items():
            value = getattr(self, name)
            if (
                not math.isfinite(value)
                or (low is not None and value < low)
                or (high is not None and value > high)
            ):
                bounds = f"at least {low:.15g}" if high is None else f"from {low:.15g} to {high:.15g}"
                raise SettingError(f"{setting_name(name)} must be {bounds}, not {value!r}")
        for name, allowed in CHOICES.items():
            value = getattr(self, name)
            if value.upper() not in {a.upper() for a in allowed}:
                raise SettingError(f"{setting_name(name)} must be one of {', '.join(allowed)}, not {value!r}")
        self._check_redis_url()
        for proxy in filter(None, (p.strip() for p in self.trusted_proxies.split(","))):
            try:
                ipaddress.ip_address(proxy)
            except ValueError:
                # Matched against the socket's peer as written: a name or a network would
                # never match, and every client would count as the proxy.
                raise SettingError(
                    f"{setting_name('trusted_proxies')} takes IP addresses separated by commas "
                    f"(a proxy's own, as its connections come from), not {proxy!r}"
                ) from None

        for origin in filter(None, (o.strip() for o in self.allowed_origins.split(","))):
            if origin != "*" and parse_origin(origin) is None:
                raise SettingError(
                    f"{setting_name('allowed_origins')} takes origins as browsers send them, "
                    f"http:// or https:// with a host and maybe a port (https://arena.example:8443), "
                    f"or *, separated by commas, not {origin!r}"
                )
        for name in filter(None, (h.strip() for h in self.public_hosts.split(","))):
            if not _is_host_name(name.strip("[]")):
                raise SettingError(
                    f"{setting_name('public_hosts')} takes host names (arena.example) or addresses, "
                    f"without a scheme or a port, separated by commas, not {name!r}"
                )

    @property
    def public_host_names(self) -> frozenset[str] | None:
        """:attr:`public_hosts` as the names a page's origin is compared with (lower case,
        an IPv6 address without brackets); None when unset (any name)."""
        names = {h.strip().lower().strip("[]") for h in self.public_hosts.split(",")}
        names.discard("")
        return frozenset(names) if names else None

    def _check_redis_url(self) -> None:
        """A URL of a scheme no client opens would only fail at start, in redis-py's words.
        Only its scheme is shown: the rest may hold a password."""
        if not self.redis_url:
            return
        scheme, found, _ = self.redis_url.partition("://")
        if scheme not in REDIS_SCHEMES:
            schemes = ", ".join(f"{s}://" for s in REDIS_SCHEMES)
            given = f", not {scheme}://" if found else " (this one has no scheme)"
            raise SettingError(f"{setting_name('redis_url')} must start with one of {schemes}{given}")
        if scheme == "unix":
            return
        # Each host (a cluster's URL lists several) after the password, if any.
        for host in urlsplit(self.redis_url).netloc.rpartition("@")[2].split(","):
            try:
                _ = urlsplit(f"//{host}").port  # a ValueError when not a number from 0 to 65535
            except ValueError:
                raise SettingError(
                    f"{setting_name('redis_url')} must give each port as a number from 0 to 65535, "
                    f"not {host!r}"
                ) from None


def _convert(kind: Any, raw: str, var: str) -> Any:
    try:
        if kind in ("int", int):
            return int(raw)
        if kind in ("float", float):
            return float(raw)
    except ValueError:
        what = "a whole number" if kind in ("int", int) else "a number"
        raise SettingError(f"{var}={raw!r} is not {what}") from None
    return raw

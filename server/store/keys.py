"""Every Redis key and pub/sub channel name of the service, built here and nowhere else.

Keys of one race share the hash tag ``{race id}`` so a race never spans cluster slots;
the keys of a quick-match queue share ``{game}``, and those of an account's login
limits ``{player id}``. A marker of applied writes lies in its
key's slot: ``<key>:applied`` when the key has a hash tag, else ``{<key>}:applied``
(entries kept 8 days, the marker no longer than its key has left, 10 min at least).

| key | type | what |
|---|---|---|
| ``race:{id}:meta`` | hash | the race's settings, status and times |
| ``race:{id}:racers`` | hash | player id -> seat JSON |
| ``race:{id}:board:<player>`` | hash | a racer's board, seq and counters |
| ``race:{id}:log`` | stream | every accepted move |
| ``race:{id}:summary`` | string | the results JSON |
| ``race:{id}:nodes`` | set | ids of the nodes following the race |
| ``race:{id}:watchers`` | hash | node id -> ``<spectators>:<valid until ms>``: who watches, per node |
| ``race:{id}:end_plan`` | string | what the race's end writes (JSON), fixed by the first node that ends it |
| ``race:{id}:rematch`` | hash | a rematch offer after the race: status, times, ``a:<player>`` answers |
| ``<key>:applied`` | sorted set | op id -> ms: race ends and day closes applied to ``<key>`` |
| ``code:<code>`` | string | race id of a short code |
| ``races:open`` | sorted set | open races by creation time |
| ``races:open:<game>`` | sorted set | open races of one game by creation time |
| ``races:live`` | sorted set | races counting down or running (not daily attempts) by start |
| ``deadlines`` | sorted set | race id -> ms when the clock must look at it |
| ``archive:due`` | sorted set | race id -> ms when its record is to be archived (``SA_ARCHIVE_DIR``) |
| ``rematches:due`` | sorted set | ``<race id>:<expires ms>`` -> ms a rematch offer's wait is over |
| ``lobby:gone`` | sorted set | ``<player>:<ms gone>`` -> ms the lobby grace ends of a player gone |
| ``nodes`` | sorted set | node id -> ms of its latest heartbeat (a node silent too long is dead) |
| ``node:<id>:players`` | set | the players with a connection on that node |
| ``player:<id>`` | hash | name, created_at, hello_at |
| ``player:<id>:races`` | set | every race the player sat in |
| ``player:<id>:active`` | set | the player's races that are not over (open, countdown, running) |
| ``player:<id>:created:<minute>`` | string | races the player created in that minute (expires) |
| ``player:<id>:queue`` | string | ``<game> <node id> <ticket>``: queue, waiting node, stay (lease) |
| ``token:<sha256>`` | string | player id (the token itself never stored); lapses unused |
| ``player:<id>:rating:<game>`` | hash | Glicko-2 rating, rd, volatility, games, last_at |
| ``player:<id>:rating_history:<game>`` | list | ratings after the latest rated races, newest first |
| ``player:<id>:stats:<game>`` | hash | races, wins, best_ms |
| ``player:<id>:recent`` | list | the latest races, JSON, newest first |
| ``leaderboard:<game>`` | sorted set | player -> rating of accounts not provisional (idle ones swept off) |
| ``daily:secret`` | string | the daily secret (hex), unless a setting gives one |
| ``daily:{<day>}:<game>:deal`` | string | the day's deal: seed, candidate, salt, commitment, proven |
| ``daily:{<day>}:<game>:board`` | sorted set | player -> board score of a scored attempt (lower first) |
| ``daily:{<day>}:<game>:attempts`` | hash | player -> their first attempt, JSON (race id, scored) |
| ``daily:{<day>}:<game>:gave_up`` | sorted set | player -> board score of a scored attempt given up |
| ``daily:{<day>}:closed`` | string | set once the day's tournament points are counted |
| ``daily:{<day>}:unended`` | sorted set | race id -> ends_at of each attempt begun, not yet seen over |
| ``daily:{<day>}:last_end`` | string | the latest ends_at of any attempt begun that day (practice aside) |
| ``daily:points:week:<YYYY-Www>`` | sorted set | player -> tournament points that week |
| ``daily:points:all`` | sorted set | player -> tournament points ever |
| ``player:<id>:daily_streak`` | hash | last (day number), current and best streak of days played |
| ``account:<skeleton>`` | string | player id of the account whose username has that skeleton |
| ``player:<id>:registering`` | string | set while a register of the guest is under way (expires) |
| ``player:<id>:tokens`` | set | SHA-256 of every token of an account (to revoke them; at most 100) |
| ``player:{<id>}:login_failures`` | string | wrong passwords for the account, all addresses (expires) |
| ``player:{<id>}:login_failures:<address>`` | string | wrong passwords for it from one address (expires) |
| ``player:{<id>}:known_addresses`` | sorted set | address -> ms of its latest sign-in there (20, 30 days) |
| ``player:<id>:password_changes`` | string | password changes tried in the hour (expires) |
| ``player:<id>:renames`` | string | a guest's renames in the hour (expires) |
| ``address:<address>:login_failures`` | string | failed logins from a client address (expires) |
| ``queue:{<game>}`` | list | waiting players, oldest first |
| ``queue:{<game>}:leases`` | sorted set | player -> lease end ms |
| ``queue:{<game>}:paired`` | sorted set | player -> ms paired (the last minute's) |
| ``queue:{<game>}:rated`` | sorted set | accounts waiting for a rated match -> their rating |
| ``queue:{<game>}:rated:since`` | hash | player -> ms they began to wait |
| ``queue:{<game>}:rated:leases`` | sorted set | player -> lease end ms |
| ``queue:{<game>}:rated:paired`` | sorted set | player -> ms paired (the last minute's) |

Channels: ``race:{id}:events``, ``race:{id}:watch`` (moves, for spectators),
``player:<id>:events``, ``node:<id>:events``.
"""

from __future__ import annotations

import functools
from typing import Final

OPEN_RACES: Final = "races:open"
LIVE_RACES: Final = "races:live"
DAILY_SECRET: Final = "daily:secret"
DEADLINES: Final = "deadlines"
ARCHIVE_DUE: Final = "archive:due"
REMATCHES_DUE: Final = "rematches:due"
LOBBY_GONE: Final = "lobby:gone"
NODES: Final = "nodes"
#: Each node's own allowance of silence (ms) before the others take it for dead.
NODE_SILENCE: Final = "nodes:silence"

_RACE_CHANNEL_HEAD: Final = "race:{"
_RACE_CHANNEL_TAIL: Final = "}:events"


def open_races(game: str) -> str:
    """The open races of one game (:data:`OPEN_RACES` holds those of every game)."""
    return f"{OPEN_RACES}:{game}"


def node_players(node_id: str) -> str:
    return f"node:{node_id}:players"


def race_meta(race_id: str) -> str:
    return f"race:{{{race_id}}}:meta"


def race_racers(race_id: str) -> str:
    return f"race:{{{race_id}}}:racers"


def race_board(race_id: str, player_id: str) -> str:
    return f"race:{{{race_id}}}:board:{player_id}"


def race_log(race_id: str) -> str:
    return f"race:{{{race_id}}}:log"


def race_summary(race_id: str) -> str:
    return f"race:{{{race_id}}}:summary"


def race_nodes(race_id: str) -> str:
    return f"race:{{{race_id}}}:nodes"


def race_watchers(race_id: str) -> str:
    return f"race:{{{race_id}}}:watchers"


def race_rematch(race_id: str) -> str:
    return f"race:{{{race_id}}}:rematch"


def race_end_plan(race_id: str) -> str:
    return f"race:{{{race_id}}}:end_plan"


def applied(key: str) -> str:
    """The marker of the operations applied once to ``key``, in ``key``'s cluster slot:
    ``key:applied`` when ``key`` has a hash tag, else ``{key}:applied``.

    >>> applied("player:p_1:stats:treize")
    '{player:p_1:stats:treize}:applied'
    >>> applied("daily:{2026-11-23}:treize:board")
    'daily:{2026-11-23}:treize:board:applied'
    """
    opening = key.find("{")
    if opening >= 0 and key.find("}", opening + 1) > opening + 1:
        return f"{key}:applied"
    return f"{{{key}}}:applied"


def race_code(code: str) -> str:
    return f"code:{code}"


def player(player_id: str) -> str:
    return f"player:{player_id}"


def legacy_player_races(player_id: str) -> str:
    """Every race the player ever sat in, as earlier versions kept it: nothing reads it, so
    it is no longer written, and a player's next visit deletes it."""
    return f"player:{player_id}:races"


def player_active(player_id: str) -> str:
    return f"player:{player_id}:active"


def player_racing(player_id: str) -> str:
    """The race that holds the player (one race at a time): claimed before a countdown,
    kept until the race's time is up."""
    return f"player:{player_id}:racing"


def player_created(player_id: str, minute: int) -> str:
    return f"player:{player_id}:created:{minute}"


def player_queue(player_id: str) -> str:
    return f"player:{player_id}:queue"


def player_queue_share(player_id: str) -> str:
    """The seed share commitment a queued player sent with ``quick_match`` (it lives as
    long as their place in the queue)."""
    return f"player:{player_id}:queue:share"


def player_rating(player_id: str, game: str) -> str:
    return f"player:{player_id}:rating:{game}"


def player_rating_history(player_id: str, game: str) -> str:
    return f"player:{player_id}:rating_history:{game}"


def player_stats(player_id: str, game: str) -> str:
    return f"player:{player_id}:stats:{game}"


def player_recent(player_id: str) -> str:
    return f"player:{player_id}:recent"


def leaderboard(game: str) -> str:
    return f"leaderboard:{game}"


def daily_deal(day: str, game: str) -> str:
    return f"daily:{{{day}}}:{game}:deal"


def daily_board(day: str, game: str) -> str:
    return f"daily:{{{day}}}:{game}:board"


def daily_attempts(day: str, game: str) -> str:
    return f"daily:{{{day}}}:{game}:attempts"


def daily_gave_up(day: str, game: str) -> str:
    return f"daily:{{{day}}}:{game}:gave_up"


def daily_closed(day: str) -> str:
    return f"daily:{{{day}}}:closed"


def daily_unended(day: str) -> str:
    """The day's attempts that began (countdown or run) and were not yet seen over, each
    with its ends_at: the day is not counted while one of them may still be on."""
    return f"daily:{{{day}}}:unended"


def daily_last_end(day: str) -> str:
    """The latest ends_at of any attempt of the day: the day closes no sooner."""
    return f"daily:{{{day}}}:last_end"


def daily_points_week(week: str) -> str:
    return f"daily:points:week:{week}"


DAILY_POINTS_ALL: Final = "daily:points:all"


def player_daily_streak(player_id: str) -> str:
    return f"player:{player_id}:daily_streak"


def account(skeleton: str) -> str:
    return f"account:{skeleton}"


def player_registering(player_id: str) -> str:
    """Held while a register of the player is under way (so only one at a time hashes)."""
    return f"player:{player_id}:registering"


def player_tokens(player_id: str) -> str:
    return f"player:{player_id}:tokens"


def login_failures(player_id: str) -> str:
    """Wrong passwords for an account from every address (the account-wide bound)."""
    return f"player:{{{player_id}}}:login_failures"


def pair_login_failures(player_id: str, address: str) -> str:
    """Wrong passwords for an account from one client address."""
    return f"player:{{{player_id}}}:login_failures:{address}"


def known_addresses(player_id: str) -> str:
    """The client addresses an account logged in (or registered) from lately."""
    return f"player:{{{player_id}}}:known_addresses"


def login_keys(player_id: str, address: str) -> list[str]:
    """The KEYS of a GUESS or LOGGED_IN call for a password of ``player_id`` tried from
    ``address``: the pair's counter, the account's counter and its known addresses, all
    in the account's slot (hash tag ``{player id}``).

    >>> login_keys("p_1", "2001:db8::7")  # doctest: +NORMALIZE_WHITESPACE
    ['player:{p_1}:login_failures:2001:db8::7', 'player:{p_1}:login_failures',
     'player:{p_1}:known_addresses']
    """
    return [pair_login_failures(player_id, address), login_failures(player_id), known_addresses(player_id)]


def password_changes(player_id: str) -> str:
    return f"player:{player_id}:password_changes"


def player_renames(player_id: str) -> str:
    return f"player:{player_id}:renames"


def address_login_failures(address: str) -> str:
    """Wrong logins from one client address (the one per-address limits count by)."""
    return f"address:{address}:login_failures"


def token(digest: str) -> str:
    return f"token:{digest}"


def queue(game: str) -> str:
    return f"queue:{{{game}}}"


def queue_leases(game: str) -> str:
    return f"queue:{{{game}}}:leases"


def queue_paired(game: str) -> str:
    """Who the casual queue paired in the last minute (so the node keeping them waiting
    tells a pairing that made no race from a cancel)."""
    return f"queue:{{{game}}}:paired"


def rated_pool(game: str) -> str:
    return f"queue:{{{game}}}:rated"


def rated_since(game: str) -> str:
    return f"queue:{{{game}}}:rated:since"


def rated_leases(game: str) -> str:
    return f"queue:{{{game}}}:rated:leases"


def rated_paired(game: str) -> str:
    """Who the rated queue paired in the last minute (so a node that has not heard of
    the pairing yet does not put them back)."""
    return f"queue:{{{game}}}:rated:paired"


def race_channel(race_id: str) -> str:
    """The pub/sub channel of one race's events."""
    return f"{_RACE_CHANNEL_HEAD}{race_id}{_RACE_CHANNEL_TAIL}"


def race_of_channel(channel: str) -> str | None:
    """The race id of a :func:`race_channel` name (None for any other channel).

    >>> race_of_channel(race_channel("a1b2"))
    'a1b2'
    >>> race_of_channel(player_channel("p_1")) is None
    True
    """
    if channel.startswith(_RACE_CHANNEL_HEAD) and channel.endswith(_RACE_CHANNEL_TAIL):
        return channel[len(_RACE_CHANNEL_HEAD) : -len(_RACE_CHANNEL_TAIL)]
    return None


def watch_channel(race_id: str) -> str:
    """The pub/sub channel of one race's moves, published while anyone watches it."""
    return f"race:{{{race_id}}}:watch"


def player_channel(player_id: str) -> str:
    """The pub/sub channel of events for one player (quick match)."""
    return f"player:{player_id}:events"


def player_of_channel(channel: str) -> str | None:
    """The player id of a :func:`player_channel` name (None for any other channel).

    >>> player_of_channel(player_channel("p_1"))
    'p_1'
    >>> player_of_channel(race_channel("a1b2")) is None
    True
    """
    if channel.startswith("player:") and channel.endswith(":events"):
        return channel[len("player:") : -len(":events")]
    return None


def node_channel(node_id: str) -> str:
    """A node's own channel (it subscribes to it at start, to have a live subscription)."""
    return f"node:{node_id}:events"


@functools.lru_cache(maxsize=8192)
def move_keys(race_id: str, player_id: str) -> tuple[str, ...]:
    """The KEYS of a MOVE call: the race's meta, the racer's board, the log, the nodes
    following the race and its watchers. Kept for the node's latest racers (a few MB at
    most): a racer makes every move with the same five names."""
    return (
        race_meta(race_id),
        race_board(race_id, player_id),
        race_log(race_id),
        race_nodes(race_id),
        race_watchers(race_id),
    )


def race_keys(race_id: str, code: str | None, player_ids: list[str]) -> list[str]:
    """Every key a race may have, to expire them together."""
    keys = [race_meta(race_id), race_racers(race_id), race_log(race_id), race_summary(race_id)]
    keys += [
        race_nodes(race_id),
        race_watchers(race_id),
        race_rematch(race_id),
        race_end_plan(race_id),
        *(race_board(race_id, p) for p in player_ids),
    ]
    if code:
        keys.append(race_code(code))
    return keys

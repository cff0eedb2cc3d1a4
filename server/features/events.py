"""Events between nodes, typed: what to do with one is its ``kind``, never its message type.

An event travels over Redis pub/sub as JSON ``{"o": origin, "k": kind, "skip": player,
"msg": message}``. ``origin`` (a node id, optional) marks an event that node already
delivered to its own sessions: it skips the copy Redis sends back. The ``skip`` player
(the mover, for progress) does not get it. A ``spectators`` event also holds every
node's count of the race's spectators (``"n": {node id: count}``, never sent), and a
``race_started`` event the seed of the deal it starts (``"d"``, never sent: the
spectators' copies of the race deal from it).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import orjson
from pydantic import BaseModel

from shared.protocol import to_wire


class EventKind(StrEnum):
    """What a node does with an event besides sending it to the channel's sessions."""

    #: Send the message to the channel's sessions; nothing else.
    BROADCAST = "b"
    #: A rated start unseated racers who were not ready: send the message (a
    #: ``race_update`` naming them in ``left_out``) to the channel's sessions, then those
    #: players' sessions stop following the race (nothing more of it is for them).
    UNSEATED = "u"
    #: Quick match paired a player: their sessions follow the race before they are told.
    MATCH_FOUND = "m"
    #: The race is over: sessions stop following it and nodes drop what they cached of it.
    RACE_ENDED = "e"
    #: A player was seated in a race by others (a rematch): their sessions follow the
    #: message's ``race`` before they are told.
    SEATED = "s"
    #: Some of a player's tokens were revoked (a new password, a logout): their sessions
    #: that said hello or logged in with one are closed, on every node, with the message's
    #: ``reason``, except the connection ``keep`` names (the one logging out). The message
    #: (``tokens``: the digests; ``reason``; ``keep``) is never sent.
    SIGNED_OUT = "o"
    #: A player's name changed (a guest renamed, or became an account): their sessions on
    #: every node go by the message's ``name`` from now on (and are an account's when its
    #: ``account`` says so), whatever they seat themselves in next, and are sent a
    #: ``renamed`` event (the message's ``event``).
    RENAMED = "n"
    #: A player's stay in a quick-match queue ended otherwise than paired (the message, a
    #: ``quick_match_left``, names it by its ``ticket``): sent to their sessions, and
    #: every node stops keeping that stay.
    QUEUE_LEFT = "q"


@dataclass(frozen=True, slots=True)
class Event:
    kind: EventKind
    msg: dict[str, Any]
    skip: str = ""
    #: A ``spectators`` event's count on every node (its ``"n"``), when it carries one.
    nodes: dict[str, int] | None = None
    #: A ``race_started`` event's deal seed (its ``"d"``), when it carries one.
    deal: int | None = None


@dataclass(slots=True)
class LocalEvent:
    """A race event this node delivers to its own sessions itself (the mover's node).
    Every move builds one: not frozen, as :class:`~server.features.context.Reply`."""

    race_id: str
    msg: dict[str, Any]
    skip: str = ""


def pack_event(
    kind: EventKind,
    message: BaseModel | dict[str, Any],
    skip: str = "",
    origin: str = "",
    deal: int | None = None,
) -> str:
    """The published form of an event."""
    msg = message if isinstance(message, dict) else to_wire(message)
    data: dict[str, Any] = {"o": origin} if origin else {}
    data["k"] = kind.value
    data["skip"] = skip
    data["msg"] = msg
    if deal is not None:
        data["d"] = deal
    return orjson.dumps(data).decode()


def own_prefix(node_id: str) -> str:
    """How every event this node packed with itself as origin begins."""
    return orjson.dumps({"o": node_id}).decode()[:-1] + ","


def unpack_event(payload: str) -> Event:
    """An event from its published form; raises ``ValueError`` when unreadable.

    >>> unpack_event(pack_event(EventKind.RACE_ENDED, {"type": "x"}, skip="p1"))
    Event(kind=<EventKind.RACE_ENDED: 'e'>, msg={'type': 'x'}, skip='p1', nodes=None, deal=None)
    >>> unpack_event('{"k":"b","n":{"a1":2},"msg":{"type":"spectators","count":3}}').nodes
    {'a1': 2}
    """
    try:
        data = orjson.loads(payload)
        msg = data["msg"]
        if not isinstance(msg, dict):
            raise TypeError("msg")
        nodes = data.get("n")
        counts = {str(node): int(count) for node, count in nodes.items()} if isinstance(nodes, dict) else None
        deal = data.get("d")
        return Event(
            EventKind(data["k"]),
            msg,
            str(data.get("skip", "")),
            counts,
            int(deal) if deal is not None else None,
        )
    except (orjson.JSONDecodeError, KeyError, TypeError) as exc:
        raise ValueError(f"unreadable event: {exc!r}") from None

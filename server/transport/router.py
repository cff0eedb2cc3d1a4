"""The router: each client message class to its one handler.

Every request class of the protocol must have exactly one handler; :meth:`Router.check`
says which are missing, and the node refuses to start without them (a test checks it too).
"""

from __future__ import annotations

import typing
from collections.abc import Awaitable, Callable
from typing import Any, cast

from server.errors import ArenaError
from server.features.context import Caller, Handler, M, Reply
from shared.protocol import ClientMessage, ErrorCode, Request


def client_message_classes() -> list[type[Request]]:
    """Every request class of the protocol's client union."""
    union = typing.get_args(ClientMessage)[0]
    return list(typing.get_args(union))


_VIEWER_ONLY = "this session only watches: play on a new connection that says hello as a player"


class Router:
    def __init__(self) -> None:
        self._routes: dict[type[Request], Callable[[Caller, Any], Awaitable[Reply]]] = {}
        self._public: set[type[Request]] = set()
        self._viewable: set[type[Request]] = set()

    def add(self, kind: type[M], handler: Handler[M], public: bool = False, viewers: bool = False) -> None:
        """Route ``kind`` to ``handler``; only a ``public`` request may come before hello,
        and only a public or ``viewers`` one from a viewer's session."""
        if kind in self._routes:
            raise ValueError(f"{kind.__name__} has a handler already")
        self._routes[kind] = cast(Callable[[Caller, Any], Awaitable[Reply]], handler)
        if public:
            self._public.add(kind)
        if public or viewers:
            self._viewable.add(kind)

    def missing(self) -> list[str]:
        """The request classes without a handler."""
        return [k.__name__ for k in client_message_classes() if k not in self._routes]

    def check(self) -> None:
        """Raise unless every request class has its handler."""
        missing = self.missing()
        if missing:
            raise RuntimeError(f"no handler for {', '.join(missing)}")

    def route(self, caller: Caller, message: ClientMessage) -> Awaitable[Reply]:
        """The handler's work for ``message`` (raises at once when it has none, or
        when it needs a hello the caller has not said)."""
        handler = self._routes.get(type(message))
        if handler is None:
            raise ArenaError(ErrorCode.UNKNOWN_TYPE, f"no handler for {type(message).__name__}")
        identity = caller.identity
        if identity is None and type(message) not in self._public:
            raise ArenaError(ErrorCode.HELLO_REQUIRED, "say hello first")
        if identity is not None and identity.viewer and type(message) not in self._viewable:
            raise ArenaError(ErrorCode.HELLO_REQUIRED, _VIEWER_ONLY)
        return handler(caller, message)

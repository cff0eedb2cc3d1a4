"""The router: every request class has exactly one handler, and hello comes first."""

from __future__ import annotations

import pytest

from server.app import routes
from server.errors import ArenaError
from server.features.context import Caller, Reply
from server.transport.router import Router, client_message_classes
from shared.protocol import Ok, Ping, Pong, Ready


async def pong(caller: Caller, message: Ping) -> Reply:
    return Reply(Pong(id=message.id, server_time=1))


async def ok(caller: Caller, message: Ready) -> Reply:
    return Reply(Ok(id=message.id))


def test_a_router_without_every_handler_refuses_to_start() -> None:
    router = Router()
    router.add(Ping, pong, public=True)
    assert "Ping" not in router.missing() and "Hello" in router.missing()
    with pytest.raises(RuntimeError, match="no handler for Hello"):
        router.check()


def test_a_second_handler_for_one_message_is_refused() -> None:
    router = Router()
    router.add(Ping, pong)
    with pytest.raises(ValueError, match="Ping has a handler already"):
        router.add(Ping, pong)


def test_the_nodes_routes_cover_every_client_message() -> None:
    class Feature:
        def __getattr__(self, name: str) -> object:
            return pong

    class Features:
        def __getattr__(self, name: str) -> object:
            return Feature()

    router = routes(Features())  # type: ignore[arg-type]
    assert router.missing() == []
    assert len(client_message_classes()) == 37


async def test_only_public_requests_are_routed_before_hello() -> None:
    router = Router()
    router.add(Ping, pong, public=True)
    router.add(Ready, ok)
    stranger = Caller(identity=None, remote="test")
    assert isinstance((await router.route(stranger, Ping(id=1))).message, Pong)
    with pytest.raises(ArenaError) as refused:
        await router.route(stranger, Ready(id=2, race_id="r1"))
    assert refused.value.code == "hello_required"

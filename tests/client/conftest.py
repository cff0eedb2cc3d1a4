"""Fixtures of the client tests."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from textual import app as textual_app
from textual.app import App
from textual.pilot import Pilot

from server.app import ArenaServer
from tests.server.link import Link


@pytest.fixture
async def link(arena: ArenaServer) -> AsyncIterator[Link]:
    """A link to the node (its :attr:`~Link.url` a ``ws://`` address) that the test can
    stall or cut."""
    link = Link(arena.url)
    await link.start()
    yield link
    await link.stop()


#: How long a key may take to be handled, every message it brings about included.
KEY_HANDLED_WITHIN = 2.0


async def settled(app: App[object]) -> None:
    """Until no message waits in the app or in any widget of its screen: a key has been
    handled, with what it brought about (a focus moved, a binding refreshed), though not
    what waits on the server."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + KEY_HANDLED_WITHIN
    while any(pump.message_queue_size for pump in (app, *app.screen.walk_children(with_self=True))):
        if loop.time() > deadline:
            raise AssertionError("a key's messages were not handled in time")
        await asyncio.sleep(0)


@pytest.fixture(autouse=True)
def keys_without_idle_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    """``pilot.press`` hands each key over only after the whole process has looked idle
    for a moment, which an in-process node (its clock ticks every 20 ms) seldom lets it:
    100 - 300 ms a key. Here each key is handed over once the one before it has been
    handled (:func:`settled`); a test waits for what the server answers anyway."""
    press_keys = Pilot.press

    async def one_turn_of_the_loop(min_sleep: float = 0, max_sleep: float = 1) -> None:
        await asyncio.sleep(0)

    async def press_each_once_the_last_is_handled(pilot: Pilot[object], *keys: str) -> None:
        for key in keys:
            await press_keys(pilot, key)
            await settled(pilot.app)

    monkeypatch.setattr(textual_app, "wait_for_idle", one_turn_of_the_loop)
    monkeypatch.setattr(Pilot, "press", press_each_once_the_last_is_handled)

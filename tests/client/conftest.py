"""Fixtures of the client tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

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

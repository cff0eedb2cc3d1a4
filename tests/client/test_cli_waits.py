"""The waits of ``solitaire-arena play`` (run in-process, its output captured) over a
connection that drops: ada's client talks to the node through a
:class:`~tests.server.link.Link`, everybody else directly."""

from __future__ import annotations

import asyncio

import pytest

from client import cli
from client.sdk import ArenaClient
from server.app import ArenaServer
from shared.protocol import MatchFound
from tests.redis_direct import ON_CLUSTER
from tests.server.link import Link

pytestmark = pytest.mark.skipif(ON_CLUSTER, reason="one node is enough")


class Output:
    """What the command printed so far."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys
        self.lines: list[str] = []

    async def until(self, line: str) -> None:
        """Return once ``line`` was printed (a test of code that never prints it fails
        after 10 s)."""
        async with asyncio.timeout(10):
            while line not in self.lines:
                self.lines += self.capsys.readouterr().out.splitlines()
                if line not in self.lines:
                    await asyncio.sleep(0.02)


async def test_a_quick_match_wait_says_the_connection_dropped_and_came_back_and_takes_the_match_made_then(
    arena: ArenaServer, link: Link, capsys: pytest.CaptureFixture[str]
) -> None:
    output = Output(capsys)
    ada = await ArenaClient.connect(link.url, reconnect=True)
    await ada.hello(name="ada")
    waiting = asyncio.create_task(cli.quick_match(ada, "treize", 20))
    await output.until("waiting for someone to race at treize (casual, up to 20 s)…")
    link.stall()  # the node still takes ada for waiting: it pairs her with bob
    bob = await ArenaClient.connect(arena.url)
    await bob.hello(name="bob")
    await bob.quick_match("treize")
    paired = await bob.wait_for_match(timeout=10)
    link.cut()  # the match_found held by the stall is lost with the connection
    await output.until("connection lost: reconnecting…")
    link.mend()
    found = await waiting
    assert isinstance(found, MatchFound) and found.race.race_id == paired.race.race_id
    await output.until("connected again")
    assert output.lines == [
        "waiting for someone to race at treize (casual, up to 20 s)…",
        "connection lost: reconnecting…",
        "connected again",
    ]
    await ada.close()
    await bob.close()


async def test_an_accounts_casual_quick_match_stays_casual_over_a_dropped_connection_and_meets_a_guest(
    arena: ArenaServer, link: Link, capsys: pytest.CaptureFixture[str]
) -> None:
    """play --casual as an account: the wait says casual, the client queues it casual
    again once the connection is back, and a guest (as the bots are) is paired with it."""
    output = Output(capsys)
    ada = await ArenaClient.connect(link.url, reconnect=True)
    await ada.hello(name="ada")
    await ada.register("ada_casual", "a long password")
    waiting = asyncio.create_task(cli.quick_match(ada, "treize", 20, casual=True))
    await output.until("waiting for someone to race at treize (casual, up to 20 s)…")
    link.cut()  # the node takes ada out of the queue; her client puts her back, casual
    await output.until("connection lost: reconnecting…")
    link.mend()
    await output.until("connected again")
    bob = await ArenaClient.connect(arena.url)
    await bob.hello(name="bot-search-1")
    await bob.quick_match("treize")
    found = await waiting
    assert isinstance(found, MatchFound) and found.race.rated is False
    assert sorted(r.name for r in found.race.racers) == ["ada_casual", "bot-search-1"]
    await ada.close()
    await bob.close()

"""A connection that stops delivering without closing (Wi-Fi gone, a NAT's mapping timed
out, a laptop switching networks): the page loaded through a proxy that stalls, as a
tester would. The page notices by itself, closes that connection and reconnects, and a
move caught in it is played once. The page's liveness timings are shortened
(``window.solitaireArenaTiming``, read by arena.js) so a stall is noticed in about a
second, not in half a minute."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator

import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from client.sdk import ArenaClient
from server.app import ArenaServer
from shared import replay
from shared.protocol import MatchFound
from tests.server.conftest import WINNABLE_SEED
from tests.server.solver import solve
from tests.web.test_browser import create_race_on, expected, page_race_id, until_shown

#: The page's liveness timings (ms) for these tests: a request unanswered for 1 s, or a
#: connection quiet for `quiet`, is checked with a ping answered within 0.5 s.
QUICK = {"request": 1000, "quiet": 60_000, "answer": 500}


class StallingProxy:
    """A TCP proxy in front of the node, which the page is loaded through (its WebSocket
    too). :meth:`stall` makes the connections open then stop delivering, in the directions
    asked, without closing them (nor passing on a close), and takes new connections without
    ever forwarding a byte of them (a handshake that never completes); :meth:`mend` lets new
    connections through again, while the stalled ones stay dead (as a NAT's lost mapping)."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.links: list[dict[str, bool]] = []
        self.blackhole = False
        self.held = 0  # connections taken into the black hole
        self.writers: list[asyncio.StreamWriter] = []
        self.server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/"

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._accept, "127.0.0.1", 0)

    async def close(self) -> None:
        assert self.server is not None
        self.server.close()
        for writer in self.writers:
            writer.transport.abort()

    def stall(self, up: bool = True, down: bool = True) -> None:
        for link in self.links:
            link["up"] = link["up"] and not up
            link["down"] = link["down"] and not down
        self.blackhole = True

    def mend(self) -> None:
        self.blackhole = False

    def cut(self) -> None:
        """Every connection open now is dropped at once, both ends (new ones go through)."""
        for writer in self.writers:
            writer.transport.abort()
        self.writers.clear()

    async def given_up(self, page: Page, count: int) -> None:
        """Until ``count`` connections were taken into the black hole (10 s at most): the
        page gave up on each but the last (it tries again only once one is given up)."""
        for _ in range(500):
            if self.held >= count:
                return
            await page.wait_for_timeout(20)
        assert self.held >= count, f"{self.held} connections tried into the stall"

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writers.append(writer)
        if self.blackhole:
            self.held += 1
            await reader.read()  # held open, never answered, until the page gives up on it
            return
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self.writers.append(server_writer)
        link = {"up": True, "down": True}
        self.links.append(link)
        await asyncio.gather(
            self._pump(reader, server_writer, link, "up"),
            self._pump(server_reader, writer, link, "down"),
            return_exceptions=True,
        )

    @staticmethod
    async def _pump(
        source: asyncio.StreamReader, sink: asyncio.StreamWriter, link: dict[str, bool], way: str
    ) -> None:
        while data := await source.read(65536):
            if link[way]:
                sink.write(data)
                await sink.drain()
        if link[way]:
            sink.close()


@pytest_asyncio.fixture(loop_scope="session")
async def proxy(arena: ArenaServer) -> AsyncIterator[StallingProxy]:
    stalling = StallingProxy(int(arena.url.rsplit(":", 1)[1]))
    await stalling.start()
    yield stalling
    await stalling.close()


async def quick_page(browser: Browser, url: str, errors: list[str], **timing: int) -> Page:
    """A page at ``url`` whose liveness timings are QUICK's (with ``timing`` over them)."""
    context = await browser.new_context()
    await context.add_init_script(f"window.solitaireArenaTiming = {json.dumps({**QUICK, **timing})};")
    page = await context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(url)
    return page


def move_acks(page: Page) -> list[dict[str, object]]:
    """The move acks the page's connections receive, from now on, as they come."""
    acks: list[dict[str, object]] = []

    def frame(payload: str | bytes) -> None:
        message = json.loads(payload)
        if message.get("type") == "move_ack":
            acks.append(message)

    page.on("websocket", lambda ws: ws.on("framereceived", frame))
    return acks


async def racing_through(
    browser: Browser, arena: ArenaServer, proxy: StallingProxy, errors: list[str], **timing: int
) -> tuple[Page, ArenaClient]:
    """ada through the proxy, bob through the SDK (straight to the node), in a race of
    Eight Off dealt from WINNABLE_SEED that has started."""
    page = await quick_page(browser, proxy.url, errors, **timing)
    code = await create_race_on(page)
    bob = await ArenaClient.connect(arena.url)
    await bob.hello(name="bob")
    await bob.ready((await bob.join_race(code)).race_id)
    await page.click("#ready")
    await expect(page.locator("#status")).to_have_text("Go!", timeout=10_000)
    return page, bob


def winning_line() -> list[str]:
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None
    return line


def board_after(line: list[str]) -> dict[str, list[str]]:
    return expected(replay("eight-off", WINNABLE_SEED, line).view())  # type: ignore[arg-type]


async def play_typed(page: Page, move: str) -> None:
    await page.fill("#move", move)
    await page.press("#move", "Enter")


async def race_goes_on(page: Page, line: list[str], played: int) -> None:
    """The page's board has the first ``played`` moves of ``line``, its box is empty and no
    refusal shows; the next move, played, is taken (the page's seq is the server's), and
    the clock counts the race's 10 minutes down."""
    await until_shown(page, board_after(line[:played]), f"after {played} moves")
    await expect(page.locator("#refusal")).to_have_text("")
    await expect(page.locator("#move")).to_have_value("")
    await play_typed(page, line[played])
    await until_shown(page, board_after(line[: played + 1]), "the move after")
    await expect(page.locator("#refusal")).to_have_text("")
    await expect(page.locator("#clock")).to_have_text(re.compile(r"^left (9:[0-5]\d|10:00)$"))


async def test_a_move_sent_into_a_stalled_connection_is_played_once_the_page_has_reconnected(
    browser: Browser, arena: ArenaServer, proxy: StallingProxy
) -> None:
    errors: list[str] = []
    page, bob = await racing_through(browser, arena, proxy, errors)
    acks = move_acks(page)
    line = winning_line()
    proxy.stall()  # the move never reaches the server, nor anything back
    await play_typed(page, line[0])
    # Unanswered, the move has the page check the link, find it dead and reconnect: the
    # attempts into the dead network are given up too, until it is back.
    await expect(page.locator("#link")).to_have_text("reconnecting…")
    await proxy.given_up(page, 2)
    proxy.mend()
    await expect(page.locator("#link")).to_have_text("connected again", timeout=10_000)
    # The move, sent again under its seq, is played: once.
    await race_goes_on(page, line, 1)
    assert [(a["seq"], a.get("resent", False)) for a in acks] == [(1, False), (2, False)]
    race = await bob.get_race(page_race_id(page.url))
    assert next(r for r in race.racers if r.name == "ada").move_count == 2
    await bob.close()
    assert errors == []


async def test_a_move_the_server_took_whose_ack_the_stall_kept_is_not_played_twice(
    browser: Browser, arena: ArenaServer, proxy: StallingProxy
) -> None:
    errors: list[str] = []
    page, bob = await racing_through(browser, arena, proxy, errors)
    acks = move_acks(page)
    line = winning_line()
    proxy.stall(up=False)  # the move reaches the server, its ack never comes back
    await play_typed(page, line[0])
    await expect(page.locator("#link")).to_have_text("reconnecting…")
    proxy.mend()
    await expect(page.locator("#link")).to_have_text("connected again", timeout=10_000)
    # Sent again under its seq, the move is acked as the one the server holds, never
    # refused (nor said played elsewhere), and never played a second time.
    await race_goes_on(page, line, 1)
    assert [(a["seq"], a.get("resent", False)) for a in acks] == [(1, True), (2, False)]
    race = await bob.get_race(page_race_id(page.url))
    assert next(r for r in race.racers if r.name == "ada").move_count == 2
    await bob.close()
    assert errors == []


async def test_an_idle_page_notices_a_stalled_connection_by_itself_and_reconnects(
    browser: Browser, arena: ArenaServer, proxy: StallingProxy
) -> None:
    errors: list[str] = []
    # Quiet for 1 s, the connection is checked with a ping (bob's moves would keep it busy).
    page, bob = await racing_through(browser, arena, proxy, errors, quiet=1000)
    proxy.stall()
    await expect(page.locator("#link")).to_have_text("reconnecting…")
    proxy.mend()
    await expect(page.locator("#link")).to_have_text("connected again", timeout=10_000)
    await race_goes_on(page, winning_line(), 0)
    await bob.close()
    assert errors == []


#: The lobby's line while gus waits for a Treize quick match.
WAITING = "Waiting for someone to race at Treize\N{HORIZONTAL ELLIPSIS} Cancel quick match"


async def waiting_through(browser: Browser, proxy: StallingProxy, errors: list[str]) -> Page:
    """A page loaded through ``proxy`` whose guest gus waits for a Treize quick match."""
    page = await quick_page(browser, proxy.url, errors)
    await page.fill("#name", "gus")
    await page.click("text=Quick match: Treize")
    await expect(page.locator("#queue")).to_have_text(WAITING)
    return page


async def bob_paired(arena: ArenaServer) -> tuple[ArenaClient, MatchFound]:
    """bob, asking for a Treize quick match on the node directly, once paired."""
    bob = await ArenaClient.connect(arena.url)
    await bob.hello(name="bob")
    await bob.quick_match("treize")
    return bob, await bob.wait_for_match(timeout=10)


async def test_a_page_waiting_for_a_quick_match_is_queued_again_after_its_connection_dropped(
    browser: Browser, arena: ArenaServer, proxy: StallingProxy
) -> None:
    """The node takes a player whose connection closed out of the queue: the page, back,
    queues again as it was, says it waits, and is paired."""
    errors: list[str] = []
    page = await waiting_through(browser, proxy, errors)
    proxy.cut()
    await page.wait_for_timeout(1500)  # the node saw the close (gus out of the queue); the page is back
    await expect(page.locator("#queue")).to_have_text(WAITING)
    bob, found = await bob_paired(arena)  # only a gus queued again pairs with bob
    await page.wait_for_url(f"**/#/race/{found.race.race_id}")
    await bob.close()
    assert errors == []


async def test_a_page_paired_while_its_connection_was_stalled_enters_the_race_once_back(
    browser: Browser, arena: ArenaServer, proxy: StallingProxy
) -> None:
    errors: list[str] = []
    page = await waiting_through(browser, proxy, errors)
    proxy.stall()  # the node still keeps gus waiting: it pairs him; the match_found is lost
    bob, found = await bob_paired(arena)
    proxy.cut()
    proxy.mend()
    await page.wait_for_url(f"**/#/race/{found.race.race_id}", timeout=15_000)
    await bob.close()
    assert errors == []

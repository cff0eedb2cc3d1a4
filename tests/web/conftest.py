"""Browser tests: real headless Chromium (Debian's package) driven by Playwright."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, WebSocketRoute, async_playwright, expect

from server.app import ArenaServer
from tests.server.conftest import Connect, client_opener, running_node

ROOT = Path(__file__).resolve().parents[2]
#: Screenshots of every browser test land here (not committed).
ARTIFACTS = ROOT / "artifacts" / "browser"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

# What a page shows is waited for up to 10 s, not Playwright's 5: four test workers share
# two cores with the browser, and only a failing expectation ever waits that long.
expect.set_options(timeout=10_000)


# One Chromium for the whole session: starting Playwright's driver and the browser costs
# about half a second, and each test's pages get contexts of their own (no cookies,
# storage or cache shared), closed after it. Playwright is bound to the event loop it
# started on, so the browser tests, and the async fixtures they use, run on the
# session's loop.


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if item.path.is_relative_to(here) and item.get_closest_marker("asyncio") is not None:
            item.add_marker(pytest.mark.asyncio(loop_scope="session"), append=False)


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def chromium() -> AsyncIterator[Browser]:
    if CHROMIUM is None:
        pytest.skip("no chromium on this machine (.ci/run installs Debian's chromium package)")
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        await launched.close()


@pytest_asyncio.fixture(loop_scope="session")
async def browser(chromium: Browser) -> AsyncIterator[Browser]:
    """The session's Chromium; the contexts (and pages) the test opened are closed after it."""
    before = set(chromium.contexts)
    yield chromium
    for context in chromium.contexts:
        if context not in before:
            await context.close()


@pytest_asyncio.fixture(loop_scope="session")
async def arena(clean_redis: str) -> AsyncIterator[ArenaServer]:
    async with running_node(clean_redis) as node:
        yield node


@pytest_asyncio.fixture(loop_scope="session")
async def connect() -> AsyncIterator[Connect]:
    async with client_opener() as open_client:
        yield open_client


def shot_path(name: str) -> str:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return str(ARTIFACTS / f"{name}.png")


async def give_up(page: Page) -> None:
    """Give up the race the page shows: the button asks first, the second press gives up."""
    await page.click("#give-up")
    await expect(page.locator("#give-up")).to_have_text("Give up? Press again")
    await page.click("#give-up")


async def heading_is_focused(page: Page, text: str | re.Pattern[str]) -> None:
    """The page's heading says ``text`` and has the focus (as after a navigation)."""
    heading = page.locator("main h1")
    await expect(heading).to_have_text(text)
    await expect(heading).to_be_focused()
    await expect(heading).to_have_attribute("tabindex", "-1")


class HeldReplies:
    """Routes a page's WebSocket through the test: the server's messages of the given
    types are held back (in order) until :meth:`release`, so a reply comes as late as the
    test wants. Install with ``await page.route_web_socket(re.compile("^ws://"), held.route)``
    before the page connects."""

    def __init__(self, *types: str) -> None:
        self.types = set(types)
        self.held: list[tuple[WebSocketRoute, str | bytes]] = []

    def route(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def to_page(message: str | bytes) -> None:
            if isinstance(message, str) and json.loads(message).get("type") in self.types:
                self.held.append((ws, message))
            else:
                ws.send(message)

        server.on_message(to_page)

    async def wait(self, page: Page, kind: str) -> None:
        """Until a message of type ``kind`` is held (2 s at most)."""
        for _ in range(100):
            if self.holds(kind):
                return
            await page.wait_for_timeout(20)
        assert self.holds(kind), [m for _, m in self.held]

    def holds(self, kind: str) -> bool:
        return any(isinstance(m, str) and json.loads(m)["type"] == kind for _, m in self.held)

    def release(self) -> None:
        """The held messages, sent on to the page; later ones of those types too."""
        self.types = set()
        for ws, message in self.held:
            ws.send(message)
        self.held = []


async def held_page(browser: Browser, url: str, errors: list[str], *types: str) -> tuple[Page, HeldReplies]:
    """A page (in a context of its own) opened at the lobby, whose WebSocket holds back the
    server's messages of ``types`` (see :class:`HeldReplies`); its console's errors go to
    ``errors``."""
    page = await (await browser.new_context()).new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    held = HeldReplies(*types)
    await page.route_web_socket(re.compile("^ws://"), held.route)
    await page.goto(url.replace("ws://", "http://") + "/")
    return page, held

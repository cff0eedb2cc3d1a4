"""Browser tests: real headless Chromium (Debian's package) driven by Playwright."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, async_playwright, expect

ROOT = Path(__file__).resolve().parents[2]
#: Screenshots of every browser test land here (not committed).
ARTIFACTS = ROOT / "artifacts" / "browser"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    if CHROMIUM is None:
        pytest.skip("no chromium on this machine (.ci/run installs Debian's chromium package)")
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        await launched.close()


def shot_path(name: str) -> str:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return str(ARTIFACTS / f"{name}.png")


async def give_up(page: Page) -> None:
    """Give up the race the page shows: the button asks first, the second press gives up."""
    await page.click("#give-up")
    await expect(page.locator("#give-up")).to_have_text("Give up? Press again")
    await page.click("#give-up")

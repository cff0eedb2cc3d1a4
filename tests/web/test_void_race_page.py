"""A race page told why its race was cancelled keeps saying so."""

from __future__ import annotations

import json

from playwright.async_api import Browser, expect

from server.timesource import ManualTime
from tests.server.test_downtime import T0, countdown_then_downtime, running, until_status


async def test_a_race_void_after_downtime_says_why_on_its_page_after_the_page_reads_it(
    browser: Browser, clean_redis: str
) -> None:
    """ada comes back to the race's page after the node was down for its whole window: the
    welcome's race_cancelled says why, and the race read after it must not replace that
    with a bare "cancelled"."""
    errors: list[str] = []
    clock = ManualTime(T0)
    counting, (token, _) = await countdown_then_downtime(clean_redis, clock)
    clock.set(counting.ends_at + 5_000)
    async with running(clean_redis, clock) as node:
        await until_status(node, counting.race_id, "cancelled")
        # ada's page, her token saved before it loads: its one hello hears the news.
        context = await browser.new_context()
        await context.add_init_script(f"localStorage.setItem('solitaire-arena.token', {json.dumps(token)})")
        page = await context.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        await page.goto(f"{node.url.replace('ws://', 'http://')}/#/race/{counting.race_id}")
        await expect(page.locator("#status")).to_have_text(
            "This race was cancelled: the server was down for the whole time of this race: "
            "it is void and has no results"
        )
        await page.wait_for_timeout(500)  # and still, once everything the page asked is answered
        await expect(page.locator("#status")).to_contain_text("it is void and has no results")
        assert errors == []

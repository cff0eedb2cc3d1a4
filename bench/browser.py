"""Browser benchmark: a move's click-to-redraw time, measured in the page.

    .venv/bin/python bench/browser.py --races 5

Starts a private Redis and an in-process server dealing a known Eight Off deal, opens
the page in headless Chromium (Debian's ``chromium``), and plays the deal's winning line
by clicking (the card, then its target) in ``--races`` races against an SDK racer who
waits. For every move it measures, with ``performance.now()`` in the page, the time
from the first click to the moment the board is redrawn with the server's ack. Also
the lobby's first load: bytes transferred and time until the lobby is shown. Prints a
table with the targets (click to redraw p95 under 50 ms; first load under 200 KB and
1 s).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.async_api import Page, async_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from client.sdk import ArenaClient  # noqa: E402
from server.redis_embedded import EmbeddedRedis  # noqa: E402
from tests.server.conftest import WINNABLE_SEED, running_node  # noqa: E402
from tests.server.solver import solve  # noqa: E402

#: Clicks the source card and the target pile, and resolves with the milliseconds until
#: the board is redrawn without a selection (the ack arrived and was drawn).
TIMED_MOVE = """async ([source, count, target]) => {
  const board = document.getElementById('board');
  const cards = document.querySelectorAll(`.pile[data-pile="${source}"] .card[data-card]`);
  const started = performance.now();
  cards[cards.length - count].click();
  const drawn = new Promise((resolve) => {
    const watch = new MutationObserver(() => {
      if (!board.querySelector('.card.selected')) { watch.disconnect(); resolve(); }
    });
    watch.observe(board, { childList: true, subtree: true });
  });
  document.querySelector(`.pile[data-pile="${target}"]`).click();
  await drawn;
  return performance.now() - started;
}"""


async def race_once(page: Page, url: str, line: list[str]) -> list[float]:
    await page.goto(url + "/#/")
    await page.wait_for_selector("#create")
    await page.fill("#name", "ada")
    await page.click("#create")
    await page.locator("#status", has_text="share the code").wait_for()
    found = re.search(r"Race ([A-Z0-9]{6})", await page.locator("#status").inner_text())
    assert found is not None
    async with await ArenaClient.connect(url.replace("http://", "ws://")) as bob:
        await bob.hello(name="bob")
        race_id = (await bob.join_race(found[1])).race_id
        await bob.ready(race_id)
        await page.click("#ready")
        await page.locator("#status", has_text="Go!").wait_for()
        timings = []
        for move in line:
            source, target = move.split(">")
            pile, _, count = source.partition(":")
            timings.append(await page.evaluate(TIMED_MOVE, [pile, int(count or 1), target]))
        await page.locator("#status", has_text="You won").wait_for()
        await bob.finish(race_id)  # the race ends: ada may race again
        await page.locator("#results", has_text="Seed").wait_for()
    return timings


async def first_load(page: Page, url: str) -> tuple[int, float]:
    sizes: list[int] = []

    async def count(response: object) -> None:
        body = await response.body()  # type: ignore[attr-defined]
        sizes.append(len(body))

    page.on("response", lambda response: asyncio.ensure_future(count(response)))
    started = time.perf_counter()
    await page.goto(url + "/")
    await page.wait_for_selector("#create")
    elapsed = time.perf_counter() - started
    await asyncio.sleep(0.2)
    return sum(sizes), elapsed


async def run(races: int) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("needs Debian's chromium package (apt-get install chromium)")
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None
    with tempfile.TemporaryDirectory() as data:
        redis = EmbeddedRedis(Path(data) / "redis")
        redis_url = redis.start()
        try:
            async with running_node(redis_url) as node, async_playwright() as playwright:
                url = node.url.replace("ws://", "http://")
                browser = await playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
                page = await (await browser.new_context()).new_page()
                transferred, shown_after = await first_load(page, url)
                timings: list[float] = []
                for _ in range(races):
                    timings += await race_once(page, url, line)
                await browser.close()
        finally:
            redis.stop()
    ordered = sorted(timings)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    print(f"\n{races} races of {len(line)} moves, clicked in headless Chromium, loopback\n")
    print("| measure | value | target | met? |")
    print("|---|---:|---|---|")
    print(
        f"| first load, bytes | {transferred:,} | < 200 KB | {'yes' if transferred < 200 * 1024 else 'NO'} |"
    )
    print(
        f"| first load, lobby shown after | {shown_after * 1000:.0f} ms | < 1 s "
        f"| {'yes' if shown_after < 1 else 'NO'} |"
    )
    print(f"| click to redraw, p50 | {statistics.median(ordered):.1f} ms | | |")
    print(f"| click to redraw, p95 | {p95:.1f} ms | < 50 ms | {'yes' if p95 < 50 else 'NO'} |")
    print(f"| click to redraw, max | {ordered[-1]:.1f} ms | | |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--races", type=int, default=5, help="races played by clicking (default 5)")
    asyncio.run(run(parser.parse_args().races))


if __name__ == "__main__":
    main()

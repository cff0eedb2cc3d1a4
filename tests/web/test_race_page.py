"""The race page in real headless Chromium against a real server: Treize's waste played by
clicks, what a visitor who does not race in a race is offered, links to finished races,
the racers' lines, and the keys and status line of a racer."""

from __future__ import annotations

from playwright.async_api import Browser, Page

from server.app import ArenaServer
from tests.web.test_browser import running_race_page, shown
from tests.web.test_undo_hints_rematch import same_player


async def waste_names(page: Page) -> list[str]:
    """The names the page gives the waste's cards, oldest first."""
    names: list[str] = await page.locator('.pile[data-pile="waste"] .card[data-card]').evaluate_all(
        "(cards) => cards.map((c) => c.dataset.name)"
    )
    return names


async def until_waste(page: Page, cards: list[str]) -> None:
    for _ in range(100):
        if (await shown(page))["waste"] == cards:
            return
        await page.wait_for_timeout(20)
    assert (await shown(page))["waste"] == cards, await page.locator("#refusal").inner_text()


async def test_treize_waste_of_one_or_two_cards_is_named_wb_and_wt_and_plays_by_clicking(
    browser: Browser, arena: ArenaServer
) -> None:
    """Treize's seed 2 deals 5H, then KD: with one card the waste is wb (5H pairs with
    p27's 8), with two they are wb and wt (KD, a King, goes alone)."""
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors, "treize")
    stock = page.locator('.pile[data-pile="stock"]')
    await stock.click(position={"x": 5, "y": 5})
    await until_waste(page, ["5H"])
    assert await waste_names(page) == ["wb"]
    await stock.click(position={"x": 5, "y": 5})
    await until_waste(page, ["5H", "KD"])
    assert await waste_names(page) == ["wb", "wt"]
    await page.locator('.card[data-card="KD"]').click()  # wt: a King alone
    await until_waste(page, ["5H"])
    assert await waste_names(page) == ["wb"]
    await page.locator('.card[data-card="5H"]').click()
    await page.locator('.pile[data-pile="p27"] .card[data-card]').click()  # p27+wb
    await until_waste(page, [])
    racer = await same_player(page, arena.url)
    race_id = page.url.rsplit("/", 1)[1]
    board = await racer.board(race_id)
    assert board is not None and board.view.move_count == 4
    assert board.view.piles["p27"].count == 0
    await racer.close()
    await bob.close()
    assert errors == []

"""The browser client on a phone, in real headless Chromium with a touch screen: a larger
font than the browser's default, a phone held sideways, taps."""

from __future__ import annotations

import json
from typing import Any

from playwright.async_api import Browser, Page, expect

from server.app import ArenaServer
from shared import replay
from tests.server.conftest import WINNABLE_SEED, Connect
from tests.web.conftest import shot_path
from tests.web.test_browser import (
    expected,
    fits_the_screen,
    open_page,
    page_race_id,
    running_race_page,
    until_shown,
)
from tests.web.test_daily import daily_node, deal_box, open_daily
from tests.web.test_race_page import race_against_bob

PHONE: dict[str, Any] = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}

#: The pairs of piles (by name) a card of one of which covers a card of the other.
OVERLAPPING_PILES = """() => {
  const meets = (a, b) =>
    a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const cards = [...document.querySelectorAll("#board .pile")].flatMap((pile) =>
    [...pile.querySelectorAll(".card")].map((card) => [pile.dataset.pile, card.getBoundingClientRect()]));
  const pairs = new Set();
  for (const [a, boxA] of cards) {
    for (const [b, boxB] of cards) if (a < b && meets(boxA, boxB)) pairs.add(`${a} ${b}`);
  }
  return [...pairs];
}"""


async def with_font_size(page: Page, pixels: int) -> None:
    """The browser's standard font at ``pixels`` (a user's setting), the page loaded again."""
    cdp = await page.context.new_cdp_session(page)
    await cdp.send("Page.setFontSizes", {"fontSizes": {"standard": pixels}})
    await page.reload()


async def test_a_larger_browser_font_keeps_the_piles_apart_and_the_page_within_a_phones_screen(
    browser: Browser, arena: ArenaServer
) -> None:
    """Cards are sized in the user's rem: with the browser's font at 24 px the board lays
    its piles out at the cards' own size (no card over another pile's), and draws itself
    smaller where Eight Off's ten piles would not fit across a 360 px phone; the page's
    text follows that font too."""
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors, **PHONE)
    await with_font_size(page, 24)
    await expect(page.locator('#board .pile[data-pile="t8"] .card').first).to_be_visible()
    assert await page.evaluate("getComputedStyle(document.body).fontSize") == "24px"
    await page.screenshot(path=shot_path("phone-font-24"))
    assert await page.evaluate(OVERLAPPING_PILES) == []
    await fits_the_screen(page)
    t1 = await page.locator('#board .pile[data-pile="t1"]').bounding_box()
    t2 = await page.locator('#board .pile[data-pile="t2"]').bounding_box()
    assert t1 is not None and t2 is not None
    assert t1["x"] + t1["width"] < t2["x"]  # a gap between neighbours
    assert t2["x"] + t2["width"] <= 360
    await bob.close()
    assert errors == []


async def test_a_phone_held_sideways_fits_the_whole_board_in_the_screens_height(
    browser: Browser, arena: ArenaServer
) -> None:
    """740 x 360 (a phone in landscape): the cards shrink for the short screen, so Eight
    Off's whole board (its four foundations down the side, its fanned tableau) is in sight
    at once; the start scrolls the page down to it (the page's top, above it, holds the
    header, the race's settings and the racers); every move needs no scrolling."""
    errors: list[str] = []
    sideways = {"viewport": {"width": 740, "height": 360}, "is_mobile": True, "has_touch": True}
    page, bob = await running_race_page(browser, arena.url, errors, **sideways)
    board = page.locator("#board")
    await expect(board).to_be_in_viewport(ratio=1)  # by itself, at the start
    box = await board.bounding_box()
    assert box is not None
    assert box["height"] <= 360, f"the board is {box['height']}px tall on a 360px high screen"
    await expect(board).to_be_in_viewport(ratio=1)
    await page.screenshot(path=shot_path("phone-sideways"))
    await fits_the_screen(page)
    await bob.close()
    assert errors == []


async def test_tapping_a_picked_up_card_twice_puts_it_back_and_sends_nothing_home(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """A card picked up, then tapped twice in a row (the taps a double tap, to the browser):
    the first tap puts it back, the second does not pick it up again, and no double click
    sends it home (a double-click on a card not picked up still does, on a desktop)."""
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors, **PHONE)
    sent: list[dict[str, Any]] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(json.loads(frame))))
    await race_against_bob(page, connect, arena.url)
    start = replay("eight-off", WINNABLE_SEED, [])
    assert "t4>f1" in [str(m) for m in start.legal_moves()]  # t4's top card can go home
    ace = page.locator('#board .pile[data-pile="t4"] .card[data-card]').last
    card = await ace.get_attribute("data-card")
    for put_back in (ace.tap, ace.dblclick):
        await ace.focus()
        await page.keyboard.press("Enter")  # picked up
        await expect(page.locator("#board .card.selected")).to_have_attribute("data-card", str(card))
        if put_back == ace.tap:
            await ace.tap()
            await ace.tap()
        else:
            await ace.dblclick()
        await expect(page.locator("#board .card.selected")).to_have_count(0)
    # Nothing went home: the move played next is the only one the page sent.
    await page.locator('#board .pile[data-pile="t1"] .card[data-card]').last.tap()
    await page.locator('#board .pile[data-pile="r5"]').tap(position={"x": 5, "y": 5})
    await until_shown(page, expected(replay("eight-off", WINNABLE_SEED, ["t1>r5"]).view()), "t1>r5")
    assert [f["move"] for f in sent if f["type"] == "move"] == ["t1>r5"]
    assert errors == []


async def test_a_daily_play_refused_says_why_beside_its_button_in_sight_on_a_phone(
    browser: Browser, clean_redis: str
) -> None:
    """While racing a race, Play on the Daily page's last deal (scrolled down to it on a
    small screen) is refused: the reason shows under that button, in sight."""
    errors: list[str] = []
    small = {"viewport": {"width": 360, "height": 500}, "is_mobile": True, "has_touch": True}
    async with daily_node(clean_redis) as (arena, _clock):
        page, bob = await running_race_page(browser, arena.url, errors, **small)
        code = (await bob.get_race(page_race_id(page.url))).code
        await open_daily(page)
        play = deal_box(page, "treize").get_by_role("button", name="Play Treize")
        await play.scroll_into_view_if_needed()
        await play.tap()
        refusal = page.locator("#daily-error")
        await expect(refusal).to_have_text(
            f"you are racing in race {code}: finish it before today's treize daily"
        )
        await expect(refusal).to_be_in_viewport(ratio=1)
        await expect(play).to_be_in_viewport()
        await page.screenshot(path=shot_path("phone-daily-refused"))
        await bob.close()
    assert errors == []


async def test_a_touch_screen_shows_no_focus_ring_on_the_board_until_a_key_is_pressed(
    browser: Browser, arena: ArenaServer
) -> None:
    """The race page gives the board the focus (for keyboards and screen readers): on a
    touch screen its card (or empty pile) shows no ring until a key is pressed; on a desktop it does."""
    errors: list[str] = []
    ring = "() => ((s) => [s.outlineStyle, s.outlineColor])(getComputedStyle(document.activeElement))"
    for options, shown_at_once in ((PHONE, False), ({"viewport": {"width": 1280, "height": 800}}, True)):
        page, bob = await running_race_page(browser, arena.url, errors, **options)
        await page.reload()  # a race opened again: the board takes the focus
        focused = page.locator("#board :focus")
        await expect(focused).to_have_count(1)
        white = ["solid", "rgb(255, 255, 255)"]
        assert (await page.evaluate(ring) == white) == shown_at_once
        await page.keyboard.press("ArrowRight")
        await expect(page.locator("#board :focus")).to_have_count(1)
        assert await page.evaluate(ring) == white
        await bob.close()
    assert errors == []


#: The height (px) of each element ``selector`` matches, rounded down.
HEIGHTS = "(elements) => elements.map((e) => Math.floor(e.getBoundingClientRect().height))"


async def test_a_touch_screens_links_switches_and_check_boxes_are_a_fingers_size(
    browser: Browser, arena: ArenaServer
) -> None:
    """On a touch screen the header's links and switches, the lobby's check boxes and the
    Live page's links are at least 40 px tall, within a 360 px phone; a desktop's stay as
    they were."""
    errors: list[str] = []
    _racing, bob = await running_race_page(browser, arena.url, errors, **PHONE)  # a race on Live
    viewer = await open_page(browser, arena.url, errors, **PHONE)
    await expect(viewer.locator("#create")).to_be_visible()
    lobby = "header nav a:visible, header button:visible, label.check:visible"  # a guest's: no Casual box
    heights = await viewer.locator(lobby).evaluate_all(HEIGHTS)
    assert len(heights) == 9 and min(heights) >= 40, heights
    await fits_the_screen(viewer, "#app")
    await viewer.click("#nav-live")
    links = viewer.locator(".live-race a")
    await expect(links).to_have_count(3)  # Watch, and each racer's profile
    assert min(await links.evaluate_all(HEIGHTS)) >= 40
    await fits_the_screen(viewer, "#app")
    await viewer.screenshot(path=shot_path("phone-live"))
    desktop = await open_page(browser, arena.url, errors, viewport={"width": 1280, "height": 800})
    await expect(desktop.locator("#create")).to_be_visible()
    assert max(await desktop.locator(lobby).evaluate_all(HEIGHTS)) < 40
    await bob.close()
    assert errors == []


#: Each face-up ten's corner label ("10♣"): how much wider (px) than its card's inside.
TENS_SPILLING = """() => [...document.querySelectorAll('#board .card[data-card^="T"]')].map((card) => {
  const range = document.createRange();
  range.selectNodeContents(card.querySelector(".corner"));
  const style = getComputedStyle(card);
  const inside = card.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return [card.dataset.card, Math.round((range.getBoundingClientRect().width - inside) * 10) / 10];
}).filter(([, over]) => over > 0)"""


async def test_a_tens_corner_label_fits_inside_a_phones_small_card(
    browser: Browser, arena: ArenaServer
) -> None:
    """A ten's label ("10♣"), the widest, fits within its card at a phone's card sizes
    (360 and 320 px wide screens, one held sideways) as on a desktop."""
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors, **PHONE)
    for width, height in ((360, 740), (320, 740), (740, 360), (1280, 800)):
        await page.set_viewport_size({"width": width, "height": height})
        await page.reload()
        await expect(page.locator('#board .card[data-card^="T"]')).not_to_have_count(0)
        assert await page.evaluate(TENS_SPILLING) == [], (width, height)
    await bob.close()
    assert errors == []


#: Eagle Wing's base rank and redeals left: what of the board they cover (cards, pile names,
#: counts), whether they reach outside the board, and how far (px) a line runs past its box.
BOARD_INFO_PLACE = """() => {
  const info = document.querySelector("#board .board-info");
  const box = info.getBoundingClientRect();
  const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const covered = [...document.querySelectorAll("#board .card, #board .pile > .label, #board .count")]
    .filter((e) => e.getClientRects().length && meets(box, e.getBoundingClientRect()))
    .map((e) => e.closest(".pile").dataset.pile);
  const board = document.querySelector("#board").getBoundingClientRect();
  const outside = box.left < board.left || box.right > board.right
    || box.top < board.top || box.bottom > board.bottom;
  return { covered, outside, spill: info.scrollWidth - info.clientWidth, lines: info.innerText.split("\\n") };
}"""


async def test_eagle_wings_base_rank_and_redeals_left_show_whole_beside_the_foundations_on_a_phone(
    browser: Browser, arena: ArenaServer
) -> None:
    """On a 360 px phone (and 320 px, one held sideways, a desktop) Eagle Wing's base rank and
    redeals left stand in the board's top row right of f4, whole, over no card, pile name or
    count, and the page stays within the screen."""
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors, "eagle-wing", **PHONE)
    for width, height in ((360, 740), (320, 740), (740, 360), (1280, 800)):
        await page.set_viewport_size({"width": width, "height": height})
        await page.reload()
        await expect(page.locator("#board .board-info")).to_be_visible()
        place = await page.evaluate(BOARD_INFO_PLACE)
        assert place["covered"] == [] and not place["outside"] and place["spill"] <= 0, (width, place)
        assert " ".join(place["lines"]).split() == ["base:", "10", "redeals", "left:", "2"], (width, place)
        await fits_the_screen(page)
    await page.set_viewport_size({"width": 360, "height": 740})
    await page.screenshot(path=shot_path("phone-eagle-wing-info"))
    await bob.close()
    assert errors == []

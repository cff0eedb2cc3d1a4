"""Keyboard play in real headless Chromium: the board is one tab stop, arrows go between
piles, Enter picks a card up and drops it where the server's legal moves allow (the same
move a click sends), F sends a card home, Escape puts it back, and the keys u and h still
work from the board; in each of the three games."""

from __future__ import annotations

import re
from typing import Any

from playwright.async_api import Browser, Page, expect

from server.app import ArenaServer
from shared import replay
from tests.server.conftest import WINNABLE_SEED, Connect
from tests.server.solver import solve
from tests.web.conftest import held_page, shot_path
from tests.web.test_browser import create_race_on, expected, shown
from tests.web.test_race_page import racing_with_frames

#: The focused element's pile and accessible name, if the board has the focus.
FOCUSED = """() => {
  const el = document.activeElement;
  return el?.closest('#board') ? [el.closest('.pile').dataset.pile, el.getAttribute('aria-label')] : null;
}"""


async def tab_to_board(page: Page) -> None:
    await page.locator("#give-up").focus()
    for _ in range(10):
        await page.keyboard.press("Tab")
        if await page.evaluate(FOCUSED):
            return
    raise AssertionError("Tab never reached the board")


async def press(page: Page, *keys: str) -> list[str]:
    """Presses ``keys`` in turn; the pile and name of the stop focused then."""
    for key in keys:
        await page.keyboard.press(key)
    focused: list[str] | None = await page.evaluate(FOCUSED)
    assert focused is not None, f"the board lost the focus after {keys}"
    return focused


async def board_is(page: Page, line: list[str], game: str = "eight-off") -> None:
    view = replay(game, WINNABLE_SEED, line).view()  # type: ignore[arg-type]
    want = expected(view)
    if game == "treize":  # the waste shows every card (three of them named)
        want["waste"] = list(view["piles"]["waste"]["cards"])
    for _ in range(100):
        if await shown(page) == want:
            return
        await page.wait_for_timeout(20)
    assert await shown(page) == want, await page.locator("#refusal").inner_text()


def moves(sent: list[dict[str, Any]]) -> list[str]:
    return [f["move"] for f in sent if f["type"] == "move"]


async def test_a_move_is_played_with_the_keyboard_alone_and_escape_puts_a_picked_card_back(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """The deal (seed 2) has the ace of spades on t4; f1, an empty foundation, takes it."""
    errors: list[str] = []
    page, sent = await racing_with_frames(browser, connect, arena.url, errors, hints=False)
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None and line[0] == "t4>f1"
    await tab_to_board(page)
    await expect(page.locator('#board [tabindex="0"]')).to_have_count(1)  # one tab stop
    assert await page.evaluate(FOCUSED) == ["f1", "f1, empty"]
    assert await press(page, "ArrowDown", "ArrowRight") == ["t1", "jack of clubs, t1"]
    # Escape puts a picked card back: nothing lit, nothing sent.
    assert await press(page, "Enter") == ["t1", "jack of clubs, t1, picked up"]
    await expect(page.locator("#board .card.selected")).to_have_count(1)
    await expect(page.locator("#board .pile.target").first).to_be_visible()
    await press(page, "Escape")
    await expect(page.locator("#board .card.selected")).to_have_count(0)
    await expect(page.locator("#board .pile.target")).to_have_count(0)
    # t4's ace up, then left along the tableau and up to f1, which it may go to.
    ace = ["t4", "ace of spades, t4, picked up"]
    assert await press(page, *["ArrowRight"] * 3, " ") == ace  # Space picks up as Enter does
    await expect(page.locator('#board .pile[data-pile="f1"]')).to_have_class("pile target")
    assert await press(page, *["ArrowLeft"] * 4) == ["f2", "f2, empty, legal target"]
    assert await press(page, "ArrowUp") == ["f1", "f1, empty, legal target"]
    await page.keyboard.press("Enter")
    await board_is(page, line[:1])
    assert moves(sent) == ["t4>f1"]
    # The focus stays on the board, on the ace now home; the key u there takes it back.
    assert await page.evaluate(FOCUSED) == ["f1", "ace of spades, f1"]
    await expect(page.locator("#undo")).to_be_enabled()
    await page.keyboard.press("u")
    await board_is(page, [])
    assert moves(sent) == ["t4>f1", "undo"]
    assert errors == []


async def test_up_and_down_go_along_a_fanned_pile_to_a_group_that_can_move(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """After the line's first three moves (typed), t5 ends 4D 3D and t7 ends 5D: t5:2>t7."""
    errors: list[str] = []
    page, sent = await racing_with_frames(browser, connect, arena.url, errors, hints=False)
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None and line[3] == "t5:2>t7"
    for move in line[:3]:
        await page.fill("#move", move)
        await page.press("#move", "Enter")
    await board_is(page, line[:3])
    await page.keyboard.press("Shift+Tab")  # from the move box back to the board
    assert await press(page, "ArrowDown", *["ArrowRight"] * 5) == ["t5", "3 of diamonds, t5"]
    assert await press(page, "ArrowUp") == ["t5", "4 of diamonds, and 1 card on it, t5"]
    assert await press(page, "ArrowUp") == ["r5", "r5, empty"]  # no group higher: the pile above
    assert await press(page, "ArrowDown") == ["t5", "3 of diamonds, t5"]  # a pile is entered at its top
    assert await press(page, "ArrowUp", "Enter") == ["t5", "4 of diamonds, and 1 card on it, t5, picked up"]
    await expect(page.locator("#board .card.selected")).to_have_count(1)
    await page.screenshot(path=shot_path("keyboard-picked"), animations="disabled")
    assert await press(page, "ArrowRight", "ArrowRight") == ["t7", "5 of diamonds, t7, legal target"]
    await page.keyboard.press("Enter")
    await board_is(page, line[:4])
    assert moves(sent) == line[:4]
    assert errors == []


async def test_the_key_f_sends_the_focused_or_picked_card_home_or_the_server_says_why_not(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """Seed 2: t1's jack of clubs fits no foundation, t4's ace of spades goes to f1."""
    errors: list[str] = []
    page, sent = await racing_with_frames(browser, connect, arena.url, errors, hints=False)
    board = page.locator("#board")
    await expect(board).to_have_attribute("aria-keyshortcuts", "F")
    await expect(board).to_have_attribute("aria-label", re.compile("F sends home to a foundation"))
    await tab_to_board(page)
    assert await press(page, "f") == ["f1", "f1, empty"]  # nothing to send home
    assert await press(page, "ArrowDown", "ArrowRight", "f") == ["t1", "jack of clubs, t1"]
    # No foundation takes it: the shorthand goes, and the refusal is the server's reason.
    await expect(page.locator("#refusal")).to_have_text("J♣ fits no foundation")
    assert moves(sent) == ["t1>f"]
    await board_is(page, [])
    # A picked-up card goes home wherever the focus went meanwhile, as the move a
    # double-click sends (the leftmost empty foundation, explicit).
    assert await press(page, *["ArrowRight"] * 3, "Enter", "ArrowLeft") == ["t3", "3 of diamonds, t3"]
    await page.keyboard.press("F")
    await board_is(page, ["t4>f1"])
    assert moves(sent) == ["t1>f", "t4>f1"]
    await expect(page.locator("#refusal")).to_have_text("")
    assert errors == []


async def test_treize_deals_removes_a_king_and_a_pair_with_the_keyboard(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """Seed 2: the stock deals 5H, then KD, which F removes (a King goes alone); p22 (2S)
    and p24 (JS) make 13: from the waste down the pyramid's left edge to p22."""
    errors: list[str] = []
    page, sent = await racing_with_frames(browser, connect, arena.url, errors, hints=False, game="treize")
    await tab_to_board(page)
    assert await page.evaluate(FOCUSED) == ["stock", "face-down card, stock"]
    # Down from the stock is the pyramid's apex; up from it the waste, left of it the stock.
    assert await press(page, "ArrowDown") == ["p1", "10 of hearts, p1, covered by p2 and p3"]
    assert await press(page, "ArrowUp", "ArrowLeft") == ["stock", "face-down card, stock"]
    for dealt in (1, 2):
        await page.keyboard.press("Enter")  # the stock deals, as a click on it does
        await board_is(page, ["deal"] * dealt, "treize")
    assert await press(page, "ArrowRight") == ["waste", "king of diamonds, waste wt"]
    await page.keyboard.press("f")
    await board_is(page, ["deal", "deal", "wt"], "treize")
    assert await press(page, "ArrowDown") == ["p1", "10 of hearts, p1, covered by p2 and p3"]
    assert await press(page, *["ArrowDown"] * 6, "Enter") == ["p22", "2 of spades, p22, picked up"]
    assert await press(page, "ArrowRight", "ArrowRight") == ["p24", "jack of spades, p24, legal target"]
    await page.keyboard.press("Enter")
    await board_is(page, ["deal", "deal", "wt", "p22+p24"], "treize")
    assert moves(sent) == ["deal", "deal", "wt", "p22+p24"]
    assert await page.evaluate(FOCUSED) is not None  # the board keeps the focus
    assert errors == []


async def test_eagle_wing_deals_and_plays_the_waste_with_the_keyboard(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """Seed 2: the fifth card dealt, 7H, goes on t1's 8H."""
    errors: list[str] = []
    page, sent = await racing_with_frames(browser, connect, arena.url, errors, hints=False, game="eagle-wing")
    await tab_to_board(page)
    assert await page.evaluate(FOCUSED) == ["stock", "face-down card, stock, redeals left: 2"]
    for dealt in range(1, 6):
        await page.keyboard.press("Enter")  # the stock deals, as a click on it does
        await board_is(page, ["deal"] * dealt, "eagle-wing")
    assert await press(page, "ArrowRight", "Enter") == ["waste", "7 of hearts, waste, picked up"]
    assert await press(page, "ArrowDown", "ArrowLeft") == ["t1", "8 of hearts, t1, legal target"]
    await page.keyboard.press("Enter")
    await board_is(page, ["deal"] * 5 + ["waste>t1"], "eagle-wing")
    assert moves(sent) == ["deal"] * 5 + ["waste>t1"]
    assert errors == []


async def test_a_late_ack_keeps_the_same_move_typed_again_in_the_box(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """The winning line plays t1>t7, two other moves, then t1>t7 again. Typed quickly, the
    first t1>t7's ack comes only once the second is in the box: the box keeps it (it was
    typed after that move was sent), and Enter plays it."""
    errors: list[str] = []
    page, held = await held_page(browser, arena.url, errors)
    code = await create_race_on(page)
    bob = await connect(arena.url)
    await bob.hello(name="bob")
    await bob.ready((await bob.join_race(code)).race_id)
    await page.click("#ready")
    await expect(page.locator("#status")).to_have_text("Go!", timeout=10_000)
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None and line[27] == line[30] == "t1>t7"
    for move in line[:27]:
        await page.fill("#move", move)
        await page.press("#move", "Enter")
    await board_is(page, line[:27])
    held.types = {"move_ack"}
    for move in line[27:30]:
        await page.fill("#move", move)
        await page.press("#move", "Enter")
    await held.wait(page, "move_ack")
    await page.fill("#move", line[30])
    held.release()
    await board_is(page, line[:30])
    await expect(page.locator("#move")).to_have_value("t1>t7")
    await page.press("#move", "Enter")
    await board_is(page, line[:31])
    await expect(page.locator("#move")).to_have_value("")
    assert errors == []

"""Focus for keyboard and screen-reader users when the page changes, in real headless
Chromium: after a navigation (a link followed, a quick match found, the app going to a
race by itself) the focus is on the new page's heading and the tab's title names the
page; the first load takes no focus, unless it opens a race its racer is playing; when the
race starts (or a race under way is opened again) the board takes the focus from the
heading, the body or the Ready button gone, never from the move box someone types in; when
play ends (won, given up) the focus on the board or a racer's control goes to the status
line."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser, expect

from server.app import ArenaServer
from tests.server.conftest import WINNABLE_SEED, Connect
from tests.server.helpers import sdk_race
from tests.server.solver import solve
from tests.web.conftest import give_up, heading_is_focused, held_page
from tests.web.test_accounts_ratings import account, log_in
from tests.web.test_browser import create_race_on, open_page, page_race_id, running_race_page
from tests.web.test_daily import daily_node, deal_box, open_daily
from tests.web.test_keyboard import FOCUSED, board_is, press
from tests.web.test_lobby_sessions import matched_while_on_the_leaderboard
from tests.web.test_race_page import racing_with_frames

#: The focused element: its tag and id, or its text for a heading.
ACTIVE = """() => {
  const el = document.activeElement;
  return el ? `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}` : null;
}"""


async def test_a_nav_link_moves_the_focus_to_the_pages_heading_and_the_title_names_it(
    browser: Browser, arena: ArenaServer
) -> None:
    """The first load takes no focus; a nav link, a page loaded with its module (Live) and
    the brand link back to the lobby each put it on the heading, outlined for the keyboard
    only (a click shows none)."""
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    await expect(page.locator("#create")).to_be_visible()
    await expect(page).to_have_title("Lobby \N{EM DASH} Solitaire Arena")
    assert await page.evaluate(ACTIVE) == "body"  # the browser's own start: nothing taken
    await page.click("#nav-leaderboard")
    await heading_is_focused(page, "Leaderboard: Eight Off")
    await expect(page).to_have_title("Leaderboard: Eight Off \N{EM DASH} Solitaire Arena")
    outline = "() => getComputedStyle(document.activeElement).outlineStyle"
    assert await page.evaluate(outline) == "none"  # followed with the mouse
    await page.click("#nav-live")  # live.js loads first: the heading is focused once drawn
    await heading_is_focused(page, "Live races")
    await expect(page).to_have_title("Live races \N{EM DASH} Solitaire Arena")
    await page.locator("header a.brand").focus()
    await page.keyboard.press("Enter")
    await heading_is_focused(page, "Race the same deal")
    await expect(page).to_have_title("Lobby \N{EM DASH} Solitaire Arena")
    assert await page.evaluate(outline) == "solid"  # followed with the keyboard
    # Tab goes on from the top of the page: the lobby's name field.
    await page.keyboard.press("Tab")
    await expect(page.locator("#name")).to_be_focused()
    assert errors == []


async def test_a_quick_match_found_on_another_page_focuses_the_races_heading_then_its_board(
    browser: Browser, arena: ArenaServer
) -> None:
    """As test_lobby_sessions arranges one: the page goes to the race's countdown by
    itself, its heading focused and named by the race's code; at the start the board
    takes the focus, and the arrow keys move it."""
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    bob, race = await matched_while_on_the_leaderboard(page, arena.url)
    await expect(page).to_have_url(re.compile(rf"#/race/{race.race_id}$"))
    title = f"Race {race.code}"
    await expect(page.locator("#race-title")).to_have_text(title)
    await expect(page).to_have_title(f"{title} \N{EM DASH} Solitaire Arena")
    await expect(page.locator("#status")).to_have_text("Go!", timeout=10_000)
    await expect(page.locator("#board .card, #board .pile").first).to_be_visible()
    focused = await page.evaluate(FOCUSED)
    assert focused is not None, await page.evaluate(ACTIVE)
    assert focused == ["f1", "f1, empty"]
    assert await press(page, "ArrowDown") == ["f2", "f2, empty"]
    await bob.close()
    assert errors == []


async def test_the_board_takes_the_focus_from_ready_when_the_race_starts(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """Ready was pressed (it had the focus, and is gone): the racer plays with the keys at once."""
    errors: list[str] = []
    page, _ = await racing_with_frames(browser, connect, arena.url, errors, hints=False)
    await expect(page.locator("#ready")).to_be_hidden()
    assert await page.evaluate(FOCUSED) == ["f1", "f1, empty"], await page.evaluate(ACTIVE)
    assert await press(page, "ArrowDown", "ArrowRight") == ["t1", "jack of clubs, t1"]
    await expect(page.locator("#race-title")).to_have_text(re.compile(r"^Race [A-Z0-9]{6}$"))
    assert errors == []


async def test_a_start_that_comes_while_the_move_box_is_typed_in_leaves_the_focus_there(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """The page's race_started is held back: the page, gone to Live and back, reads the
    race running and shows the move box; what is typed there stays as the late start comes."""
    errors: list[str] = []
    page, held = await held_page(browser, arena.url, errors, "race_started")
    await page.fill("#name", "ada")
    await page.click("#create")
    await expect(page.locator("#status")).to_contain_text("share the code")
    code = re.search(r"Race ([A-Z0-9]{6})", await page.locator("#status").inner_text())
    assert code is not None
    bob = await connect(arena.url)
    await bob.hello(name="bob")
    await bob.ready((await bob.join_race(code[1])).race_id)
    await page.click("#ready")
    await held.wait(page, "race_started")
    await page.click("#nav-live")
    await expect(page.locator("main h1")).to_have_text("Live races")
    await page.go_back()
    await expect(page.locator("#status")).to_have_text("Go!")
    await page.click("#move")
    await page.keyboard.type("t4>")
    held.release()
    await page.wait_for_timeout(300)  # the late start, handled
    await expect(page.locator("#move")).to_be_focused()
    await expect(page.locator("#move")).to_have_value("t4>")
    await page.keyboard.type("f1")
    await page.keyboard.press("Enter")
    await expect(page.locator('.pile[data-pile="f1"] .card[data-card="AS"]')).to_be_visible()
    await page.context.close()
    assert errors == []


@pytest.mark.parametrize("how", ["won", "gave up"])
async def test_the_end_of_play_moves_the_focus_from_the_board_to_the_status_line(
    browser: Browser, arena: ArenaServer, how: str
) -> None:
    """The winning move played with the keyboard (its card picked up, dropped with Enter),
    or Give up pressed twice: the board is only shown now, its cards gone as buttons, Give
    up hidden; the focus is on the status line, which says how play ended, not on the
    body. It stays there as the results and the rematch offer come."""
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors)
    if how == "won":
        line = solve("eight-off", WINNABLE_SEED)
        assert line is not None and line[-1] == "t5:6>t1"
        for move in line[:-1]:
            await page.fill("#move", move)
            await page.press("#move", "Enter")
        await board_is(page, line[:-1])
        group = page.locator('.pile[data-pile="t5"] .card[data-card]')
        await group.nth(await group.count() - 6).focus()
        await page.keyboard.press("Enter")
        await page.locator('.pile[data-pile="t1"]').focus()  # empty: the pile is the stop
        await page.keyboard.press("Enter")
        said = "You won! Waiting for the others…"
    else:
        await page.locator("#give-up").focus()
        await page.keyboard.press("Enter")
        await page.keyboard.press("Enter")
        said = "You gave up: waiting for the others…"
    await expect(page.locator("#status")).to_have_text(said)
    await expect(page.locator("#board [tabindex]")).to_have_count(0)
    await expect(page.locator("#status")).to_be_focused()
    await bob.finish(page_race_id(page.url))
    await expect(page.locator("#offer-rematch")).to_be_visible()
    await expect(page.locator("#status")).to_be_focused()
    await bob.close()
    assert errors == []


async def test_a_race_under_way_opened_again_gives_its_racer_the_board_focus(
    browser: Browser, arena: ArenaServer
) -> None:
    """Reloaded, or followed from the lobby's "Your races": the racer still playing plays
    with the keys at once, as at the start. A racer who gave up is only shown the board."""
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors)
    await page.reload()
    await expect(page.locator("#status")).to_have_text("Go!")
    await expect(page.locator('#board [tabindex="0"]')).to_be_focused()
    assert await page.evaluate(FOCUSED) == ["f1", "f1, empty"]
    assert await press(page, "ArrowDown") == ["f2", "f2, empty"]
    race_id = page_race_id(page.url)
    await page.click("header a.brand")
    await heading_is_focused(page, "Race the same deal")
    await page.locator(f'#my-races tr[data-race="{race_id}"] a.go-to-race').focus()
    await page.keyboard.press("Enter")
    await expect(page.locator("#status")).to_have_text("Go!")
    await expect(page.locator('#board [tabindex="0"]')).to_be_focused()
    assert await page.evaluate(FOCUSED) == ["f1", "f1, empty"]
    await page.locator("#give-up").focus()
    await page.keyboard.press("Enter")
    await page.keyboard.press("Enter")
    await expect(page.locator("#status")).to_have_text("You gave up: waiting for the others…")
    await page.reload()
    await expect(page.locator("#status")).to_have_text("You gave up: waiting for the others…")
    await expect(page.locator("#board .card").first).to_be_visible()
    assert await page.evaluate(ACTIVE) == "body"  # nothing to play: the focus is left alone
    await bob.close()
    assert errors == []


# ----- redraws keep the focus: the lists refreshed every 3 s, the rematch section, a
# control busy with its request, Ready hidden by the countdown ---------------------------

#: Longer than the lobby's and the Live page's refresh (3 s): one has redrawn since.
REFRESHED_MS = 3500


async def test_a_focused_join_button_keeps_the_focus_as_the_open_races_are_redrawn(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """The lobby reads the open races every 3 s: Join stays focused in its race's row as
    the row changes (a seat taken), a race gone passes the focus to the list's heading (not
    the body), and Enter on Join then joins."""
    errors: list[str] = []
    bob, cat, dan = await connect(arena.url), await connect(arena.url), await connect(arena.url)
    for client, name in ((bob, "bob"), (cat, "cat"), (dan, "dan")):
        await client.hello(name=name)
    kept = await bob.create_race("eight-off", seats=3)
    gone = await cat.create_race("treize", seats=2)
    page = await open_page(browser, arena.url, errors)
    await page.fill("#name", "ada")
    join = page.locator(f'#open-races tr[data-race="{kept.race_id}"] button')
    await join.focus()
    await page.wait_for_timeout(REFRESHED_MS)  # redrawn the same
    await expect(join).to_be_focused()
    await dan.join_race(kept.code)
    await expect(page.locator(f'#open-races tr[data-race="{kept.race_id}"]')).to_contain_text("2/3")
    await expect(join).to_be_focused()
    await page.locator(f'#open-races tr[data-race="{gone.race_id}"] button').focus()
    await cat.leave(gone.race_id)
    await expect(page.locator(f'#open-races tr[data-race="{gone.race_id}"]')).to_have_count(0)
    await expect(page.get_by_role("heading", name="Open races")).to_be_focused()
    await join.focus()
    await page.wait_for_timeout(REFRESHED_MS)
    await page.keyboard.press("Enter")
    await expect(page).to_have_url(re.compile(rf"#/race/{kept.race_id}$"))
    await expect(page.locator("#status")).to_contain_text("share the code")
    assert errors == []


async def test_cancel_quick_match_keeps_the_focus_as_the_lobby_refreshes_and_cancels_with_enter(
    browser: Browser, arena: ArenaServer
) -> None:
    """The queue's line is drawn at every refresh: Cancel stays focused and Enter cancels;
    the focus then goes to the Quick match heading, not the body."""
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    await page.fill("#name", "ada")
    await page.click("text=Quick match: Treize")
    cancel = page.locator("#cancel-quick-match")
    await expect(cancel).to_be_visible()
    await cancel.focus()
    await page.wait_for_timeout(REFRESHED_MS)
    await expect(cancel).to_be_focused()
    await page.keyboard.press("Enter")
    await expect(page.locator("#queue")).to_be_hidden()
    await expect(page.get_by_role("heading", name="Quick match")).to_be_focused()
    assert errors == []


async def test_cancel_quick_match_answered_after_the_word_that_the_wait_ended_still_focuses_the_heading(
    browser: Browser, arena: ArenaServer
) -> None:
    """The server's quick_match_left for the page's own cancel may come before the
    cancel's ok: the line saying why takes the focus, and the ok then hides that line;
    the focus goes on to the Quick match heading, not the page's body."""
    errors: list[str] = []
    page, held = await held_page(browser, arena.url, errors, "ok")
    await page.fill("#name", "ada")
    await page.click("text=Quick match: Treize")
    cancel = page.locator("#cancel-quick-match")
    await cancel.focus()
    await page.keyboard.press("Enter")
    await held.wait(page, "ok")
    await expect(page.locator("#queue")).to_have_text(
        "No longer waiting for a quick match: you cancelled the quick match."
    )
    held.release()
    await expect(page.locator("#queue")).to_be_hidden()
    await expect(page.get_by_role("heading", name="Quick match")).to_be_focused()
    assert errors == []


async def test_a_live_races_watch_link_is_named_by_its_game_and_racers_and_keeps_the_focus(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """Watch says what it watches ("Watch Eagle Wing: eve vs finn", not the race's id); the
    list is redrawn every 3 s, and the focused link stays focused as its race changes (a
    racer gives up); once the race is over and gone, the page's heading has the focus."""
    errors: list[str] = []
    race_id, (eve, finn) = await sdk_race(connect, arena.url, "eve", "finn", game="eagle-wing")
    page = await open_page(browser, arena.url, errors)
    await page.click("#nav-live")
    watch = page.get_by_role("link", name="Watch Eagle Wing: eve vs finn", exact=True)
    await expect(watch).to_have_attribute("href", f"#/watch/{race_id}")
    await watch.focus()
    await page.wait_for_timeout(REFRESHED_MS)
    await expect(watch).to_be_focused()
    await eve.finish(race_id)
    await expect(page.locator(f'.live-race[data-race="{race_id}"]')).to_contain_text("gave up")
    await expect(watch).to_be_focused()
    await finn.finish(race_id)
    await expect(page.locator(f'.live-race[data-race="{race_id}"]')).to_have_count(0, timeout=10_000)
    await expect(page.get_by_role("heading", name="Live races")).to_be_focused()
    assert errors == []


async def test_the_rematch_section_keeps_the_focus_when_offer_or_decline_redraws_it(
    browser: Browser, arena: ArenaServer
) -> None:
    """Offer rematch pressed with the keyboard: the line saying where the offer stands has
    the focus, and keeps it as the section is drawn again (bob declines); Decline of bob's
    offer leaves it there too, never on the body."""
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors)
    race_id = page_race_id(page.url)
    await give_up(page)
    await bob.finish(race_id)
    await page.locator("#offer-rematch").focus()
    await page.keyboard.press("Enter")
    line = page.locator("#rematch-status")
    await expect(line).to_contain_text("You offered a rematch: waiting for answers")
    await expect(line).to_be_focused()
    await bob.answer_rematch(race_id, accept=False)
    await expect(line).to_have_text("You offered a rematch: declined, nobody accepted.")
    await expect(line).to_be_focused()
    await bob.offer_rematch(race_id)
    await page.locator("#decline-rematch").focus()
    await page.keyboard.press("Enter")
    await expect(line).to_have_text("bob offered a rematch: declined, nobody accepted.")
    await expect(line).to_be_focused()
    await bob.close()
    assert errors == []


async def test_the_race_ghosts_toggle_keeps_the_focus_while_its_request_runs(
    browser: Browser, clean_redis: str
) -> None:
    """The reply to daily_ghosts is held back: the toggle, busy meanwhile (a press does
    nothing), keeps the focus, and has it still once the ghosts are on."""
    errors: list[str] = []
    async with daily_node(clean_redis) as (arena, _clock):
        await account(arena.url, "focus_day")
        page, held = await held_page(browser, arena.url, errors, "ghosts")
        await log_in(page, "focus_day")
        await expect(page.locator("#who")).to_have_text("focus_day")
        await open_daily(page)
        await deal_box(page, "treize").get_by_role("button", name="Play Treize").click()
        toggle = page.get_by_role("button", name="Race ghosts", exact=True)
        await toggle.focus()
        await page.keyboard.press("Enter")
        await held.wait(page, "ghosts")
        await page.wait_for_timeout(200)  # a frame or two drawn while the request runs
        await expect(toggle).to_be_focused()
        await expect(toggle).to_have_attribute("aria-disabled", "true")
        held.release()
        await expect(toggle).to_have_attribute("aria-pressed", "true")
        await expect(toggle).not_to_have_attribute("aria-disabled", "true")
        await expect(toggle).to_be_focused()
        await page.context.close()
    assert errors == []


async def test_ready_pressed_last_gives_the_focus_to_the_status_line_for_the_countdown(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """bob is ready: ada's Ready (pressed with the keyboard) starts the countdown, which
    hides it; the status line has the focus until the start (held back here), then the board."""
    errors: list[str] = []
    page, held = await held_page(browser, arena.url, errors, "race_started")
    code = await create_race_on(page)
    bob = await connect(arena.url)
    await bob.hello(name="bob")
    await bob.ready((await bob.join_race(code)).race_id)
    await page.locator("#ready").focus()
    await page.keyboard.press("Enter")
    await expect(page.locator("#status")).to_have_text("Get ready…")
    await held.wait(page, "race_started")
    await expect(page.locator("#ready")).to_be_hidden()
    await expect(page.locator("#status")).to_be_focused()
    held.release()
    await expect(page.locator("#status")).to_have_text("Go!")
    assert await page.evaluate(FOCUSED) == ["f1", "f1, empty"], await page.evaluate(ACTIVE)
    await page.context.close()
    assert errors == []

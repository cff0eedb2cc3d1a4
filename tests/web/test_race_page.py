"""The race page in real headless Chromium against a real server: Treize's waste played by
clicks, what a visitor who does not race in a race is offered, links to finished races,
the racers' lines, and the keys and status line of a racer."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from server.app import ArenaServer
from shared import replay
from tests.server.conftest import WINNABLE_SEED, Connect, running_node
from tests.server.helpers import sdk_race
from tests.web.conftest import HeldReplies, give_up, shot_path
from tests.web.test_browser import (
    click_move,
    create_race_on,
    fits_the_screen,
    open_page,
    page_race_id,
    running_race_page,
    shown,
    until_shown,
)
from tests.web.test_spectating import finished_race, winning_line
from tests.web.test_undo_hints_rematch import after, same_player

TOKEN_KEY = "solitaire-arena.token"
#: What only a racer of the race is offered on its page.
RACER_CONTROLS = ("#ready", "#leave", "#give-up", "#move", "#undo", "#hint")


async def guest_page(browser: Browser, connect: Connect, url: str, name: str, errors: list[str]) -> Page:
    """A page signed in as a new guest ``name`` (its token saved, as the lobby saves it)."""
    guest = await connect(url)
    welcome = await guest.hello(name=name)
    await guest.close()
    page = await open_page(browser, url, errors)
    await page.evaluate("([k, t]) => localStorage.setItem(k, t)", [TOKEN_KEY, welcome.token])
    await page.reload()
    await expect(page.locator("#who")).to_have_text(f"{name} (guest)")
    return page


async def no_racer_controls(page: Page) -> None:
    for control in RACER_CONTROLS:
        assert not await page.locator(control).is_visible(), control


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
    """Treize's seed 2 deals 5H, KD, QH, 7D. With one card the waste is wb: 5H pairs with
    p27's 8 (dragged onto it), KD goes alone (a click on the waste outside its card aims at
    it); with two they are wb and wt, and 7D pairs with p25's 6."""
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors, "treize")
    stock = page.locator('.pile[data-pile="stock"]')
    await stock.click(position={"x": 5, "y": 5})
    await until_waste(page, ["5H"])
    assert await waste_names(page) == ["wb"]
    p27 = page.locator('.pile[data-pile="p27"] .card[data-card]')
    await p27.drag_to(page.locator('.card[data-card="5H"]'))
    await until_waste(page, [])  # p27+wb
    await stock.click(position={"x": 5, "y": 5})
    await until_waste(page, ["KD"])
    assert await waste_names(page) == ["wb"]
    await page.locator('.pile[data-pile="waste"] > .label').click()  # wb: a King alone
    await until_waste(page, [])
    for dealt in (["QH"], ["QH", "7D"]):
        await stock.click(position={"x": 5, "y": 5})
        await until_waste(page, dealt)
    assert await waste_names(page) == ["wb", "wt"]
    await page.locator('.card[data-card="7D"]').click()
    await page.locator('.pile[data-pile="p25"] .card[data-card]').click()  # p25+wt
    await until_waste(page, ["QH"])
    racer = await same_player(page, arena.url)
    race_id = page.url.rsplit("/", 1)[1]
    board = await racer.board(race_id)
    assert board is not None and board.view.move_count == 7
    assert board.view.piles["p27"].count == 0 and board.view.piles["p25"].count == 0
    await racer.close()
    await bob.close()
    assert errors == []


#: Each visible name tag of Treize's board (pyramid and waste) with the card it names:
#: [tag text, the tag's box, the box of the card under it].
NAME_TAGS = """() => [
  ...[...document.querySelectorAll('.pile[data-pile^="p"] > .label')].map((tag) =>
    [tag, tag.parentElement.querySelector('.card')]),
  ...[...document.querySelectorAll('.pile[data-pile="waste"] > .waste-name')].map((tag) =>
    [tag, document.querySelector(`.pile[data-pile="waste"] .card[data-name="${tag.textContent}"]`)]),
].filter(([tag]) => tag.checkVisibility()).map(([tag, card]) => {
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const at = box(tag);
  tag.style.pointerEvents = "auto"; // clicks go through a name: not this look
  const top = document.elementFromPoint((at[0] + at[2]) / 2, (at[1] + at[3]) / 2);
  tag.style.pointerEvents = "";
  return [tag.textContent, at, card ? box(card) : null, top === tag];
})"""


async def test_treizes_pyramid_and_waste_cards_show_their_names_in_the_notation(
    browser: Browser, arena: ArenaServer
) -> None:
    """The move box asks for p9+wt: every pyramid card shows its name (p1 to p28) in the
    strip the row below leaves in sight, and the waste's named cards theirs (wb, wt) under
    them; nothing covers a name. A phone's small cards have no room for them."""
    errors: list[str] = []
    page, bob = await running_race_page(
        browser, arena.url, errors, "treize", viewport={"width": 1280, "height": 900}
    )
    stock = page.locator('.pile[data-pile="stock"]')
    for dealt in (["5H"], ["5H", "KD"]):
        await stock.click(position={"x": 5, "y": 5})
        await until_waste(page, dealt)
    await page.wait_for_timeout(300)  # the dealt cards' glide over
    await page.screenshot(path=shot_path("treize-names"))
    tags = await page.evaluate(NAME_TAGS)
    assert [name for name, *_ in tags] == [f"p{n}" for n in range(1, 29)] + ["wb", "wt"]
    for name, tag, card, in_sight in tags:
        assert in_sight, f"{name} is covered"
        left, _top, right, bottom = card
        corner = (
            await page.locator(f'.pile[data-pile="{name}"] .corner').bounding_box()
            if name[0] == "p"
            else None
        )
        if corner is not None:  # on its card, under its corner index
            assert left <= tag[0] and tag[2] <= right and corner["y"] + corner["height"] <= tag[1], name
        else:  # under its card, at its left edge
            assert abs(tag[0] - left) < 1 and tag[1] >= bottom, name
    await page.set_viewport_size({"width": 360, "height": 740})
    on_a_phone = await page.evaluate(NAME_TAGS)
    assert [(name, in_sight) for name, _tag, _card, in_sight in on_a_phone] == [("wb", True), ("wt", True)]
    await bob.close()
    assert errors == []


@pytest.mark.parametrize("pace", ["at_once", "after_the_redraw"])
async def test_a_double_click_on_treizes_king_removes_that_king_only(
    browser: Browser, arena: ArenaServer, pace: str
) -> None:
    """Treize's seed 2 deals 5H then KD: a double click on KD (wt, a King that goes alone)
    is one move. Its first click plays KD; its second click (on KD again, or on what the
    redrawn board put under the pointer: the stock) and its dblclick play and pick up
    nothing."""
    errors: list[str] = []
    # No glide: KD is where the pointer aims as soon as it is dealt.
    page, bob = await running_race_page(browser, arena.url, errors, "treize", reduced_motion="reduce")
    stock = page.locator('.pile[data-pile="stock"]')
    for dealt in (["5H"], ["5H", "KD"]):
        await stock.click(position={"x": 5, "y": 5})
        await until_waste(page, dealt)
    king = await page.locator('.card[data-card="KD"]').bounding_box()
    assert king is not None
    x, y = king["x"] + king["width"] / 2, king["y"] + king["height"] / 2
    if pace == "at_once":
        await page.mouse.dblclick(x, y)
    else:  # a person's pace: the ack redrew the waste, 5H where KD was, before the second click
        await page.mouse.move(x, y)
        await page.mouse.down(click_count=1)
        await page.mouse.up(click_count=1)
        await until_waste(page, ["5H"])
        await page.mouse.down(click_count=2)
        await page.mouse.up(click_count=2)
    await until_waste(page, ["5H"])
    await page.wait_for_timeout(300)  # time for any further move to be sent and answered
    await expect(page.locator("#board .card.selected")).to_have_count(0)
    await expect(page.locator("#refusal")).to_have_text("")
    racer = await same_player(page, arena.url)
    board = await racer.board(page.url.rsplit("/", 1)[1])
    assert board is not None and board.view.move_count == 3  # deal, deal, wt
    await racer.close()
    await bob.close()
    assert errors == []


#: Treize's waste cards that play (wb, wu, wt) whose corner, their rank and suit, another
#: card covers in part: each is looked for at its corner's left, middle and right.
COVERED_CORNERS = """() => [...document.querySelectorAll('.pile[data-pile="waste"] .card[data-name^="w"]')]
  .filter((card) => card.dataset.name !== "waste").filter((card) => {
    const range = document.createRange();
    range.selectNodeContents(card.querySelector(".corner"));
    const box = range.getBoundingClientRect();
    const y = box.top + box.height / 2;
    return ![box.left + 1, (box.left + box.right) / 2, box.right - 1]
      .every((x) => document.elementFromPoint(x, y)?.closest(".card") === card);
  }).map((card) => `${card.dataset.name} ${card.querySelector(".corner").textContent}`)"""


async def test_treize_waste_shows_the_whole_rank_and_suit_of_each_card_that_plays(
    browser: Browser, arena: ArenaServer
) -> None:
    """The stock dealt out card by card: wb, wu and wt each show their corner whole ("10♥",
    not "1"), however many cards lie between, on a desktop screen and on a 360 px phone,
    where the waste of all 24 cards still fits without scrolling sideways."""
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors, "treize", reduced_motion="reduce")
    for dealt in range(1, 25):
        await page.fill("#move", "deal")
        await page.press("#move", "Enter")
        for _ in range(100):
            if len((await shown(page))["waste"]) == dealt:
                break
            await page.wait_for_timeout(20)
        assert len((await shown(page))["waste"]) == dealt, await page.locator("#refusal").inner_text()
        assert await page.evaluate(COVERED_CORNERS) == [], dealt
    # A 10 among them (each card but the last was wu once, its "10" checked then).
    assert "10" in "".join(await page.locator('.pile[data-pile="waste"] .corner').all_inner_texts())
    for width in (1920, 360):
        await page.set_viewport_size({"width": width, "height": 740})
        await expect(page.locator('.pile[data-pile="waste"] .card[data-name="wt"]')).to_be_visible()
        await page.wait_for_timeout(100)  # the board redrawn at the new card size
        assert await page.evaluate(COVERED_CORNERS) == [], width
        await fits_the_screen(page)
    await page.screenshot(path=shot_path("treize-waste-phone"))
    await bob.close()
    assert errors == []


#: Each racer's line: its name's whole text, its title, whether the name is cut (an
#: ellipsis), and how many lines the name with "(you)" and the rating takes.
RACER_NAMES = """() => [...document.querySelectorAll("#racers .racer-name")].map((name) => {
  const who = name.querySelector(".who") ?? name;
  const line = parseFloat(getComputedStyle(name).lineHeight);
  const lines = Math.round(name.getBoundingClientRect().height / line);
  return [who.textContent, who.title, who.scrollWidth > who.clientWidth, lines];
})"""


async def test_a_long_racer_name_keeps_to_one_line_cut_with_its_whole_text_kept(
    browser: Browser, arena: ArenaServer
) -> None:
    """A name as long as names go (24 letters, no space) takes one line in the racers'
    panel: whole where the screen is wide (the name's column grows with it), cut with an
    ellipsis on a 360 px phone, its whole text still there (its title, and read out),
    ada's "(you)" in sight; the page no wider than the screen."""
    errors: list[str] = []
    long = "bob" + "W" * 21
    page, bob = await running_race_page(
        browser, arena.url, errors, rival=long, viewport={"width": 1920, "height": 900}
    )
    await expect(page.locator("#racers .racer")).to_have_count(2)
    assert await page.evaluate(RACER_NAMES) == [["ada", "ada", False, 1], [long, long, False, 1]]
    await page.set_viewport_size({"width": 360, "height": 740})
    await expect(page.locator("#racers .racer-name").first).to_have_text("ada (you)")
    assert await page.evaluate(RACER_NAMES) == [["ada", "ada", False, 1], [long, long, True, 1]]
    await expect(page.locator("#racers .racer-name").first).to_be_visible()
    await fits_the_screen(page)
    await page.screenshot(path=shot_path("long-racer-name-phone"))
    await bob.close()
    assert errors == []


async def test_a_cut_racer_name_keeps_the_number_that_tells_it_from_a_same_named_racer(
    browser: Browser, arena: ArenaServer
) -> None:
    """Two racers called alike: the second is numbered (``... (2)``). On a phone both long
    names are cut, the number left whole in sight beside the cut one."""
    errors: list[str] = []
    long = "bob" + "W" * 21
    page, bob = await running_race_page(
        browser, arena.url, errors, rival=long.upper(), viewport={"width": 360, "height": 740}, name=long
    )
    await expect(page.locator("#racers .racer")).to_have_count(2)
    numbered = long.upper()[:20] + " (2)"
    rows = await page.evaluate(RACER_NAMES)
    assert [(text, title, cut) for text, title, cut, _lines in rows] == [
        (long, long, True),
        (numbered[:-4], numbered, True),
    ]
    rival = page.locator(f'#racers .racer[data-player="{bob.player_id}"] .racer-name')
    await expect(rival).to_have_text(numbered)
    name_box, who_box = await rival.bounding_box(), await rival.locator(".who").bounding_box()
    assert name_box is not None and who_box is not None
    assert who_box["x"] + who_box["width"] < name_box["x"] + name_box["width"] - 10  # " (2)" after it
    await fits_the_screen(page)
    await bob.close()
    assert errors == []


async def test_a_visitor_on_an_open_races_page_is_offered_join_and_no_racer_controls(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    errors: list[str] = []
    ada = await connect(arena.url)
    await ada.hello(name="ada")
    race = await ada.create_race("eight-off")
    page = await guest_page(browser, connect, arena.url, "cleo", errors)
    await page.evaluate(f"location.hash = '#/race/{race.race_id}'")
    await expect(page.locator("#join-race")).to_be_visible()
    await expect(page.locator("#status")).to_contain_text("1 of 2 seats taken")
    await no_racer_controls(page)
    await page.click("#join-race")
    await expect(page.locator("#ready")).to_be_visible()
    await expect(page.locator("#leave")).to_be_visible()
    await expect(page.locator("#join-race")).to_be_hidden()
    assert [r.name for r in (await ada.get_race(race.race_id)).racers] == ["ada", "cleo"]
    assert errors == []


async def test_a_visitor_on_an_open_races_page_sees_seats_taken_and_the_start_without_reloading(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """Only racers get a race's race_update: the visitor's page reads the race again."""
    errors: list[str] = []
    ada, bob = await connect(arena.url), await connect(arena.url)
    await ada.hello(name="ada")
    await bob.hello(name="bob")
    race = await ada.create_race("eight-off")
    page = await guest_page(browser, connect, arena.url, "cleo", errors)
    await page.evaluate(f"location.hash = '#/race/{race.race_id}'")
    await expect(page.locator("#status")).to_contain_text("1 of 2 seats taken")
    await bob.join_race(race.code)
    await expect(page.locator("#status")).to_contain_text("every seat is taken", timeout=8_000)
    await expect(page.locator("#join-race")).to_be_hidden()
    await ada.ready(race.race_id)
    await bob.ready(race.race_id)
    await expect(page).to_have_url(re.compile(rf"#/watch/{race.race_id}$"), timeout=8_000)
    assert errors == []


async def test_a_visitor_on_a_running_races_page_is_sent_to_watch_it(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    errors: list[str] = []
    race_id, _ = await sdk_race(connect, arena.url, "ada", "bob")
    page = await guest_page(browser, connect, arena.url, "cleo", errors)
    await page.evaluate(f"location.hash = '#/race/{race_id}'")
    await expect(page).to_have_url(re.compile(rf"#/watch/{race_id}$"))
    await expect(page.locator("#watch-spectators")).to_have_text("1 watching")
    await no_racer_controls(page)
    # Its replay waits for the end: the server's word and the way to the race, nothing else.
    await page.evaluate(f"location.hash = '#/replay/{race_id}'")
    await expect(page.locator("p.error")).to_have_text("the race has no results until it ends: see the race")
    assert await page.locator("#not-over-link").get_attribute("href") == f"#/race/{race_id}"
    await expect(page.locator("#verify-link")).to_have_count(0)
    assert errors == []


async def test_a_reply_that_comes_after_its_page_was_left_changes_nothing_on_the_next_page(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """A running race's page left before get_race answered does not send the tab on to
    watch that race, nor does a profile left before get_profile answered draw itself over
    the page shown then (both replies held back until the next page is drawn)."""
    errors: list[str] = []
    race_id, racers = await sdk_race(connect, arena.url, "ada", "bob")
    page = await (await browser.new_context()).new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    held = HeldReplies("race", "profile")
    await page.route_web_socket(re.compile("^ws://"), held.route)
    await page.goto(arena.url.replace("ws://", "http://") + f"/#/race/{race_id}")
    await held.wait(page, "race")
    await page.click("#nav-leaderboard")
    await expect(page.locator("#leaderboard")).to_be_visible()
    await page.evaluate(f"location.hash = '#/profile/{racers[0].player_id}'")
    await held.wait(page, "profile")
    await page.click("#nav-live")
    await expect(page.locator(f'.live-race[data-race="{race_id}"]')).to_be_visible()
    held.release()
    await page.wait_for_timeout(500)  # what the late replies would do, they do at once
    await expect(page).to_have_url(re.compile("#/live$"))
    await expect(page.locator("h1")).to_have_text("Live races")
    await expect(page.locator("#profile-name")).to_have_count(0)
    await page.context.close()
    assert errors == []


async def test_a_finished_races_results_and_replay_links_work_for_a_visitor_without_a_name(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    errors: list[str] = []
    race_id, line, _ = await finished_race(connect, arena.url)
    page = await open_page(browser, arena.url, errors)
    await page.evaluate(f"location.hash = '#/race/{race_id}'")
    await expect(page.locator("#results")).to_contain_text("Deal seed")
    await expect(page.locator("#standings")).to_contain_text("ada")
    await expect(page.locator("#refusal")).to_have_text("")
    await no_racer_controls(page)
    await page.click("#replay-link")
    await expect(page.locator("#step-label")).to_contain_text(f"of {len(line)} moves")
    assert await page.evaluate("localStorage.getItem('solitaire-arena.token')") is None
    # A link to a race nobody has says so, on both pages.
    await page.evaluate("location.hash = '#/race/0123456789ab'")
    await expect(page.locator("#status")).to_contain_text("There is no race with this id")
    await expect(page.locator("#refusal")).to_have_text("")  # said once, not the server's words too
    await no_racer_controls(page)
    await page.evaluate("location.hash = '#/replay/0123456789ab'")
    # Said once, with no slider, no board and no Verify link to follow.
    gone = "There is no race with this id (or it is no longer kept)."
    await expect(page.locator("p.error")).to_have_text(gone)
    for part in ("#verify-link", "#step", "#board"):
        await expect(page.locator(part)).to_have_count(0)
    assert errors == []


async def test_a_link_to_a_missing_race_opened_in_a_new_tab_says_it_is_missing_once(
    browser: Browser, arena: ArenaServer
) -> None:
    """Loaded afresh (a new tab, a reload), a link to a race nobody has says so in plain
    words once: the race page in its status line (not the server's words below it too),
    the verify page in its error line."""
    errors: list[str] = []
    gone = "There is no race with this id (or it is no longer kept)."
    page = await open_page(browser, arena.url, errors)
    home = arena.url.replace("ws://", "http://") + "/"
    for _ in range(2):  # opened, then reloaded
        await page.goto(home + "#/race/ffffffffffff")
        await expect(page.locator("#status")).to_have_text(gone)
        await page.wait_for_timeout(300)  # the connection's welcome, and what it reads again
        await expect(page.locator("#status")).to_have_text(gone)
        await expect(page.locator("#refusal")).to_have_text("")
    await page.goto(home + "#/verify/ffffffffffff")
    await expect(page.locator("#verify-error")).to_have_text(gone)
    await page.reload()
    await expect(page.locator("#verify-error")).to_have_text(gone)
    assert errors == []


async def test_the_countdown_reads_whole_seconds_rounded_up_so_never_0_00_before_go(
    browser: Browser, clean_redis: str, connect: Connect
) -> None:
    """Every text the clock shows from Ready to Go!, recorded as the page draws it: it
    counts down to 0:01 and goes from there to Go!, never saying 'starts in 0:00'."""
    errors: list[str] = []
    async with running_node(clean_redis, countdown=2.5) as node:
        page = await open_page(browser, node.url, errors)
        await page.evaluate(
            """() => { window.clockTexts = [];
                new MutationObserver(() => {
                    const text = document.getElementById('clock')?.textContent;
                    if (text && text !== window.clockTexts.at(-1)) window.clockTexts.push(text);
                }).observe(document.body, { subtree: true, childList: true, characterData: true }); }"""
        )
        await race_against_bob(page, connect, node.url)
        texts = await page.evaluate("window.clockTexts")
        counted = [t for t in texts if t.startswith("starts in")]
        assert "starts in 0:01" in counted and "starts in 0:00" not in counted, texts
        assert texts[texts.index(counted[-1]) + 1].startswith("left"), texts
        assert errors == []  # before the node stops: a page still open then fails to reconnect


async def board_fits(page: Page) -> None:
    """Waits (2 s at most) for the board to be drawn no wider than its box, then checks
    that it, and the page, fit the screen."""
    fits = "() => { const b = document.getElementById('board'); return b.scrollWidth <= b.clientWidth; }"
    try:
        await page.wait_for_function(fits, timeout=2000)
    finally:
        await fits_the_screen(page)


async def test_the_eight_off_board_refits_when_the_window_narrows_during_the_race_and_after_it(
    browser: Browser, arena: ArenaServer
) -> None:
    """From 360 to 320 px wide (smaller cards there): the board is drawn again to fit, with
    nothing moved meanwhile, while the race runs and once it is over."""
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors, viewport={"width": 360, "height": 740})
    await fits_the_screen(page)
    before = await shown(page)
    await page.set_viewport_size({"width": 320, "height": 740})
    await board_fits(page)
    await fits_the_screen(page)
    assert await shown(page) == before
    await page.click("#give-up")
    await page.click("#give-up")
    await bob.finish(page_race_id(page.url))
    await expect(page.locator("#results")).to_contain_text("Deal seed")
    await page.set_viewport_size({"width": 360, "height": 740})
    await page.set_viewport_size({"width": 320, "height": 740})
    await board_fits(page)
    await fits_the_screen(page)
    await bob.close()
    assert errors == []


@pytest.mark.parametrize("game", ["treize", "eagle-wing"])
async def test_the_pile_labels_stand_apart_on_a_320_px_phone(
    browser: Browser, arena: ArenaServer, game: str
) -> None:
    """Each pile's label shown on the board (stock, waste, f1...) is clear of the others by
    a space at least: at 320 px "stock" and "waste" no longer read as "stockwaste"."""
    errors: list[str] = []
    page, bob = await running_race_page(
        browser, arena.url, errors, game, viewport={"width": 320, "height": 740}
    )
    await fits_the_screen(page)
    boxes = await page.locator("#board .pile > .label").evaluate_all(
        """(labels) => labels.filter((l) => l.getClientRects().length).map((l) => {
            const r = l.getBoundingClientRect();
            return { text: l.innerText, left: r.left, right: r.right, top: r.top, bottom: r.bottom };
        })"""
    )
    texts = [b["text"] for b in boxes]
    assert {"stock", "waste"} <= set(texts), texts
    for a in boxes:
        for b in boxes:
            level = a["top"] < b["bottom"] and b["top"] < a["bottom"]
            if a is not b and level and a["left"] <= b["left"]:
                assert a["right"] + 3 <= b["left"], f"{a['text']!r} runs into {b['text']!r}: {boxes}"
    await bob.close()
    assert errors == []


async def test_an_open_races_racers_read_ready_or_not_ready(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    code = await create_race_on(page)
    bob = await connect(arena.url)
    bob_id = (await bob.hello(name="bob")).player_id
    race = await bob.join_race(code)
    await bob.ready(race.race_id)
    await expect(page.locator(f'.racer[data-player="{bob_id}"] .racer-state')).to_have_text("ready")
    await expect(page.locator(".racer >> nth=0").locator(".racer-state")).to_have_text("not ready")
    assert errors == []


async def racing_with_frames(
    browser: Browser, connect: Connect, url: str, errors: list[str], hints: bool, game: str = "eight-off"
) -> tuple[Page, list[dict[str, Any]]]:
    """ada in a browser (every frame her page sends recorded) and bob through the SDK, in
    a running race of ``game`` with hints on or off."""
    page = await open_page(browser, url, errors)
    sent: list[dict[str, Any]] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(json.loads(frame))))
    await race_against_bob(page, connect, url, hints, game)
    await expect(page.locator("#hints-setting")).to_have_text(f"Hints: {'on' if hints else 'off'}")
    return page, sent


async def race_against_bob(
    page: Page, connect: Connect, url: str, hints: bool = True, game: str = "eight-off"
) -> None:
    """ada, on ``page``, creates a race of ``game`` (hints on or off) that bob joins
    through the SDK, ready; she presses Ready, and the race starts."""
    await page.select_option("#game", game)
    await page.set_checked("#hints", hints)
    code = await create_race_on(page)
    bob = await connect(url)
    await bob.hello(name="bob")
    await bob.ready((await bob.join_race(code)).race_id)
    await page.click("#ready")
    await expect(page.locator("#status")).to_have_text("Go!", timeout=10_000)


async def test_eagle_wing_board_says_its_base_rank_and_redeals_left_on_resume_and_after_a_move_and_an_undo(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """Eagle Wing's board says its base rank (seed 2 deals the ten of diamonds to f1) and its
    redeals left beside its foundations, as text (and the stock says its redeals left to a
    screen reader): two at the start; none once both passes were used on another session
    and the page is loaded again; one after an undo of the last redeal, none after a
    redeal."""
    errors: list[str] = []
    page, _ = await racing_with_frames(browser, connect, arena.url, errors, hints=True, game="eagle-wing")
    info = page.locator("#board .board-info > span")
    stock = page.locator('#board .pile[data-pile="stock"]')
    await expect(info).to_have_text(["base: 10", "redeals left: 2"])
    await expect(stock).to_have_attribute("aria-label", "stock, 30 cards, redeals left: 2")
    race_id = page_race_id(page.url)
    elsewhere = await same_player(page, arena.url)
    for move in (["deal"] * 30 + ["redeal"]) * 2:
        await elsewhere.move(race_id, move)
    await page.reload()
    await expect(info).to_have_text(["base: 10", "no redeals left"])
    for move, left in (("undo", "redeals left: 1"), ("redeal", "no redeals left")):
        await page.fill("#move", move)
        await page.press("#move", "Enter")
        await expect(info).to_have_text(["base: 10", left])
    await expect(stock).to_have_attribute("aria-label", "stock, 30 cards, no redeals left")
    await elsewhere.close()
    assert errors == []


async def test_a_board_played_on_in_another_tab_is_read_again_when_the_server_refuses_its_move(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """The same player moves elsewhere (another tab or device, here the SDK with the page's
    token): the page's next move is refused for its seq, and the page shows the board as the
    server has it, says why in plain words, and its next move goes in; a hint asked for a
    board played on elsewhere is shown for the board as it is."""
    errors: list[str] = []
    page, sent = await racing_with_frames(browser, connect, arena.url, errors, hints=True)
    race_id = page_race_id(page.url)
    line = winning_line()
    elsewhere = await same_player(page, arena.url)
    await elsewhere.move(race_id, line[0])
    await click_move(page, line[1])
    await expect(page.locator("#refusal")).to_have_text(
        "This race was played on elsewhere (another tab or device): the board is shown as it is now. "
        "Play your move again."
    )
    assert await shown(page) == after(line[:1])
    await expect(page.locator(".racer[data-player] .racer-state").first).to_have_text(
        f"{52 - replay('eight-off', WINNABLE_SEED, line[:1]).score} left"
    )
    await click_move(page, line[1])
    await until_shown(page, after(line[:2]), "the move played again")
    await expect(page.locator("#refusal")).to_have_text("")
    await elsewhere.move(race_id, line[2], seq=3)
    await page.click("#hint")
    await expect(page.locator("#status")).to_have_text(re.compile(r"^Hint: \S+"))
    assert await shown(page) == after(line[:3])
    # The same move played elsewhere first: the server acks the page's as resent, and the
    # page says it was played elsewhere rather than taking it for its own.
    await elsewhere.move(race_id, line[3], seq=4)
    await click_move(page, line[3])
    await expect(page.locator("#refusal")).to_have_text(re.compile("^This race was played on elsewhere"))
    assert await shown(page) == after(line[:4])
    assert [(f["seq"], f["move"]) for f in sent if f["type"] == "move"] == [
        (1, line[1]),
        (2, line[1]),
        (4, line[3]),
    ]
    await elsewhere.close()
    assert errors == []


#: What the other session plays before giving up, and the move the page then sends (None:
#: a hint or a give-up): the page's move is refused as racer_finished, or for its seq (two
#: moves were played elsewhere), or acked as resent (the same move was played elsewhere).
GIVEN_UP_ELSEWHERE = {
    "move": ([], 0),
    "move after moves": ([0, 1], 2),
    "same move": ([0], 0),
    "hint": ([], None),
    "give up": ([], None),
}


@pytest.mark.parametrize("action", list(GIVEN_UP_ELSEWHERE))
async def test_a_race_given_up_in_another_tab_is_read_again_at_the_pages_next_move_hint_or_give_up(
    browser: Browser, arena: ArenaServer, connect: Connect, action: str
) -> None:
    """The same player gives up elsewhere (another tab or device, here the SDK with the
    page's token), maybe after moves of their own: the server tells the page nothing, and
    refuses its next move (as racer_finished or for its seq), hint or give-up; the page
    reads the race again and shows it given up, the board only shown, and says it was
    finished elsewhere (never to play the move again)."""
    errors: list[str] = []
    page, _ = await racing_with_frames(browser, connect, arena.url, errors, hints=True)
    elsewhere = await same_player(page, arena.url)
    line, (before, sent) = winning_line(), GIVEN_UP_ELSEWHERE[action]
    played = [line[i] for i in before]
    for move in played:
        await elsewhere.move(page_race_id(page.url), move)
    await elsewhere.finish(page_race_id(page.url))
    if sent is not None:
        await page.fill("#move", line[sent])
        await page.press("#move", "Enter")
    elif action == "hint":
        await page.click("#hint")
    else:
        await give_up(page)
    await expect(page.locator("#refusal")).to_have_text(
        "You finished this race in another tab or on another device: its board is only shown now."
    )
    await expect(page.locator("#status")).to_have_text("You gave up: waiting for the others…")
    await expect(page.locator(".racer[data-player] .racer-state").first).to_have_text("gave up")
    for control in ("#give-up", "#move", "#undo", "#hint"):
        await expect(page.locator(control)).to_be_hidden()
    await expect(page.locator("#board [tabindex]")).to_have_count(0)
    assert await shown(page) == after(played)
    await elsewhere.close()
    assert errors == []


async def test_the_keys_u_and_h_send_nothing_while_undo_is_disabled_or_hints_are_off(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    errors: list[str] = []
    page, sent = await racing_with_frames(browser, connect, arena.url, errors, hints=False)
    await expect(page.locator("#undo")).to_be_disabled()  # the deal: nothing to take back
    await page.keyboard.press("u")
    await page.keyboard.press("h")
    await page.evaluate("() => new Promise((done) => setTimeout(done, 300))")
    assert [f for f in sent if f["type"] in ("move", "get_hint")] == []
    await expect(page.locator("#refusal")).to_have_text("")
    assert errors == []


async def test_giving_up_clears_the_hint_and_a_refusal_from_the_status_line_and_the_board(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    errors: list[str] = []
    page, sent = await racing_with_frames(browser, connect, arena.url, errors, hints=True)
    await page.click("#hint")
    await expect(page.locator("#status")).to_have_text(re.compile(r"^Hint: \S+"))
    await expect(page.locator(".card.hinted").first).to_be_visible()
    await page.fill("#move", "t1>t1")
    await page.press("#move", "Enter")
    await expect(page.locator("#refusal")).to_have_text("t1 cannot move onto itself")
    await expect(page.locator("#status")).to_have_text("Go!")  # the hint's words went with that move
    await expect(page.locator(".card.hinted")).to_have_count(0)  # and its outline
    await expect(page.locator("#board .pile.target")).to_have_count(0)
    await page.wait_for_timeout(1_100)  # one hint a second
    await page.click("#hint")
    await expect(page.locator(".card.hinted").first).to_be_visible()
    await page.click("#give-up")  # asks first: a stray tap gives nothing up
    await expect(page.locator("#give-up")).to_have_text("Give up? Press again")
    await expect(page.locator(".card.hinted").first).to_be_visible()
    assert [f for f in sent if f["type"] == "finish"] == []
    await page.click("#give-up")
    await expect(page.locator("#give-up")).to_be_hidden()
    await expect(page.locator("#status")).not_to_contain_text("Hint")
    await expect(page.locator(".card.hinted")).to_have_count(0)
    await expect(page.locator("#refusal")).to_have_text("")
    # The board is only shown now: no tab stop, and a card clicked to a legal target
    # (seed 2: t4>f1) lights nothing and sends nothing.
    await expect(page.locator("#board [tabindex]")).to_have_count(0)
    before = len(sent)
    await page.locator('.pile[data-pile="t4"] .card[data-card]').last.click()
    await expect(page.locator("#board .card.selected")).to_have_count(0)
    await page.locator('.pile[data-pile="f1"]').click()
    await page.wait_for_timeout(200)
    assert [f for f in sent[before:] if f["type"] == "move"] == []
    # Not "Go!": the race goes on for bob only, and says so over a reload too.
    await expect(page.locator("#status")).to_have_text("You gave up: waiting for the others…")
    await page.reload()
    await expect(page.locator("#status")).to_have_text("You gave up: waiting for the others…")
    assert errors == []


async def test_hint_typed_in_the_move_box_asks_for_one_and_a_winner_waits_for_the_others(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    errors: list[str] = []
    page, sent = await racing_with_frames(browser, connect, arena.url, errors, hints=True)
    # `hint` in the move box asks for one, as `undo` there takes a move back.
    await page.fill("#move", "hint")
    await page.press("#move", "Enter")
    await expect(page.locator("#status")).to_have_text(re.compile(r"^Hint: \S+"))
    await expect(page.locator("#refusal")).to_have_text("")
    assert [f["type"] for f in sent if f["type"] in ("move", "get_hint")] == ["get_hint"]
    racer = await same_player(page, arena.url)  # ada wins from another session of hers
    race_id = page.url.rsplit("/", 1)[1]
    for move in winning_line():
        await racer.move(race_id, move)
    await page.reload()
    await expect(page.locator("#status")).to_have_text("You won! Waiting for the others…")
    await expect(page.locator(f'.racer[data-player="{racer.player_id}"] .racer-state')).to_have_text("won")
    await racer.close()
    assert errors == []


async def test_one_card_home_is_singular_on_the_results_and_the_profile(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """bob put one card home (t4>f1) and gave up, and the results say both."""
    errors: list[str] = []
    race_id, _, (_, bob) = await finished_race(connect, arena.url)
    bob_id = (await bob.get_race(race_id)).racers[1].player_id
    page = await open_page(browser, arena.url, errors)
    await page.evaluate(f"location.hash = '#/race/{race_id}'")
    await expect(page.locator(f'#standings tr[data-player="{bob_id}"]')).to_contain_text(
        "gave up with 1 card home"
    )
    await page.evaluate(f"location.hash = '#/replay/{race_id}'")
    await expect(page.locator(f'#racer-buttons button[data-player="{bob_id}"]')).to_have_text(
        "2. bob (gave up)"
    )
    await page.evaluate(f"location.hash = '#/profile/{bob_id}'")
    await expect(page.locator(f'#recent tr[data-race="{race_id}"]')).to_contain_text("1 card home")
    assert errors == []


async def test_the_watch_page_names_the_last_move_a_racer_made_before_it_watched(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    errors: list[str] = []
    race_id, (ada, bob) = await sdk_race(connect, arena.url, "ada", "bob")
    line = winning_line()
    for move in line[:2]:
        await ada.move(race_id, move)
    page = await open_page(browser, arena.url, errors)
    await page.evaluate(f"location.hash = '#/watch/{race_id}'")
    # From the snapshot's last_move, not a count ("2 moves").
    await expect(page.locator(f'.thumb[data-player="{ada.player_id}"] .last')).to_have_text(f"last {line[1]}")
    await expect(page.locator("#large-head")).to_contain_text(f"last {line[1]}")
    await expect(page.locator(f'.thumb[data-player="{bob.player_id}"] .last')).to_have_text("no move yet")
    await ada.move(race_id, line[2])
    await expect(page.locator(f'.thumb[data-player="{ada.player_id}"] .last')).to_have_text(f"last {line[2]}")
    # Bob renames mid-race: his board's name and the heading follow.
    await bob.rename("bob two")
    await expect(page.locator(f'.thumb[data-player="{bob.player_id}"] .racer-name')).to_have_text("bob two")
    await expect(page.locator("h1")).to_have_text("Watching ada vs bob two")
    # Then he registers: the account's name, with the rating it starts from, as on his race page.
    await bob.register("bob_acc", "correct horse battery")
    await expect(page.locator(f'.thumb[data-player="{bob.player_id}"] .racer-name')).to_have_text(
        "bob_acc 1500?"
    )
    await expect(page.locator("h1")).to_have_text("Watching ada vs bob_acc")
    assert errors == []

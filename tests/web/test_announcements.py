"""What a screen reader hears, in real headless Chromium against a real server: the page's
live regions (the race's status line, its news line for a screen reader only, the
refusal line, the header's connection line) say what happened once, in short words, and
the board's cards and the watch page's thumbnails are named for what they are."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser, Page, expect

from client.sdk import ArenaClient
from server.app import ArenaServer
from shared import new_game
from tests.server.conftest import WINNABLE_SEED, Connect
from tests.server.helpers import sdk_race
from tests.server.solver import solve
from tests.web.conftest import give_up
from tests.web.test_accessibility import LIVE_REGION
from tests.web.test_browser import (
    create_race_on,
    open_page,
    page_race_id,
    page_with_outage,
    running_race_page,
)
from tests.web.test_undo_hints_rematch import ended_race_page

#: Every text the status line took, with its aria-live then (null: its role's, polite).
RECORD_STATUS = """() => {
  window.said = [];
  const status = document.getElementById('status');
  new MutationObserver(() => window.said.push([status.textContent, status.getAttribute('aria-live')]))
    .observe(status, { childList: true, characterData: true, subtree: true });
}"""

#: How many times the news line changed since it was counted from.
COUNT_NEWS = """() => {
  window.newsChanges = 0;
  new MutationObserver(() => { window.newsChanges += 1; })
    .observe(document.getElementById('news'), { childList: true, characterData: true, subtree: true });
}"""


def line_of(game: str = "eight-off") -> list[str]:
    line = solve(game, WINNABLE_SEED)
    assert line is not None
    return line


async def play_in_box(page: Page, moves: list[str]) -> None:
    for move in moves:
        await page.fill("#move", move)
        await page.press("#move", "Enter")
        await expect(page.locator("#move")).to_have_value("")


# ----- D: the end of a race says your place -----------------------------------------------


@pytest.mark.parametrize("tied", [False, True])
async def test_the_end_of_a_race_says_the_racers_place_and_result(
    browser: Browser, arena: ArenaServer, tied: bool
) -> None:
    """ada puts a card home and gives up, bob gives up with none: she is 1st of 2. With no
    card home either, they tie for 1st, said as the profile says it."""
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors)
    race_id = page_race_id(page.url)
    if not tied:
        await play_in_box(page, line_of()[:1])  # t4>f1: the ace of spades home
    await give_up(page)
    await bob.finish(race_id)
    said = (
        "The race is over: you are tied 1st of 2, gave up with 0 cards home"
        if tied
        else "The race is over: you are 1st of 2, gave up with 1 card home"
    )
    await expect(page.locator("#status")).to_have_text(said)
    await expect(page.locator("#status")).to_be_focused()
    assert await page.evaluate(LIVE_REGION, "#status") == "status"
    await bob.close()
    assert errors == []


# ----- A: a rematch offer and its outcome are read out ------------------------------------


async def test_the_lobbys_news_are_gone_from_the_news_line_once_the_race_starts(
    browser: Browser, arena: ArenaServer
) -> None:
    """bob's joining and getting ready were news in the lobby; a screen reader that reads
    the page later in the race (or at its end) finds no such stale line."""
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors)
    await expect(page.locator("#news")).to_have_text("")
    await bob.close()
    assert errors == []


async def test_a_rematch_offer_is_read_out_once_and_so_is_its_outcome(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    page, bob, race_id = await ended_race_page(browser, arena.url, errors)
    assert await page.evaluate(LIVE_REGION, "#news") == "news"
    news = page.locator("#news")
    await bob.offer_rematch(race_id)
    await expect(news).to_have_text(
        re.compile(r"^bob offered a rematch: accept or decline, 0:(30|2\d) left$")
    )
    # Said once: the clock counting down on screen is not read out each second.
    await page.evaluate(COUNT_NEWS)
    await page.wait_for_timeout(2200)
    assert await page.evaluate("window.newsChanges") == 0
    await page.click("#decline-rematch")
    await expect(news).to_have_text("bob offered a rematch: declined, nobody accepted.")
    await bob.close()
    assert errors == []


# ----- B: autoplay is summed up; a hint's end is not a new "Go!" --------------------------


async def test_cards_the_autoplay_sends_home_are_read_out_after_the_move(
    browser: Browser, arena: ArenaServer
) -> None:
    """The third move of the line (t7>t6) uncovers the ace of clubs, which goes home by itself."""
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors)
    line = line_of()
    game = new_game("eight-off", WINNABLE_SEED)
    steps = [game.play(move).steps for move in line[:3]][-1]
    assert [(s.card, s.dst) for s in steps[1:]] == [("AC", "f2")]
    await play_in_box(page, line[:2])
    await page.evaluate(COUNT_NEWS)
    await play_in_box(page, line[2:3])
    await expect(page.locator("#news")).to_have_text("1 card went home: ace of clubs")
    assert await page.evaluate(LIVE_REGION, "#news") == "news"
    await bob.close()
    assert errors == []


async def test_the_move_after_a_hint_puts_go_back_without_reading_it_out(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors)
    await page.evaluate(RECORD_STATUS)
    await page.click("#hint")
    await expect(page.locator("#status")).to_have_text(re.compile(r"^Hint: \S+$"))
    move = (await page.locator("#status").inner_text()).removeprefix("Hint: ")
    await play_in_box(page, [move])
    await expect(page.locator("#status")).to_have_text("Go!")
    said = await page.evaluate("window.said")
    assert said[0][0].startswith("Hint: ") and said[0][1] != "off", said  # the hint is read out
    assert said[-1] == ["Go!", "off"], said  # "Go!" again is only shown
    # The next hint (one a second at most) is read out again.
    await page.wait_for_timeout(1100)
    await page.click("#hint")
    await expect(page.locator("#status")).to_have_text(re.compile(r"^Hint: \S+$"))
    assert (await page.evaluate("window.said"))[-1][1] is None
    await bob.close()
    assert errors == []


# ----- E: the connection back is said -----------------------------------------------------


async def test_the_connection_back_is_said_in_the_header(browser: Browser, arena: ArenaServer) -> None:
    errors: list[str] = []
    page, outage = await page_with_outage(browser, arena.url, errors)
    await page.fill("#name", "ada")
    await page.press("#name", "Enter")
    await expect(page.locator("#who")).to_have_text("ada (guest)")
    assert await page.evaluate(LIVE_REGION, "#link") == "link"
    await outage.begin()
    await expect(page.locator("#link")).to_have_text("reconnecting…")
    outage.end()
    await expect(page.locator("#link")).to_have_text("connected again", timeout=10_000)
    await expect(page.locator("#link")).to_have_text("", timeout=10_000)  # said, then gone
    assert errors == []


# ----- C: Treize's covered cards ------------------------------------------------------------


async def test_treize_covered_cards_say_so_and_enter_on_a_card_without_a_move_says_why(
    browser: Browser, arena: ArenaServer
) -> None:
    """Seed 2: p1 (10♥) lies under p2 and p3; p25 (6♠), in the last row, is free but pairs
    with nothing (the legal moves are a deal, p22+p24 and p23+p28)."""
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors, "treize")
    assert sorted(new_game("treize", WINNABLE_SEED).legal_moves()) == ["deal", "p22+p24", "p23+p28"]
    apex = page.locator('.pile[data-pile="p1"] .card')
    await expect(apex).to_have_attribute("aria-label", "10 of hearts, p1, covered by p2 and p3")
    free = page.locator('.pile[data-pile="p25"] .card')
    await expect(free).to_have_attribute("aria-label", "6 of spades, p25")
    await apex.focus()
    await page.keyboard.press("Enter")
    await expect(page.locator("#refusal")).to_have_text("p1 (10♥) is covered by p2 and p3")
    await free.focus()
    await page.keyboard.press("Enter")
    await expect(page.locator("#refusal")).to_have_text("no move for this card")
    await expect(page.locator(".card.selected")).to_have_count(0)  # nothing picked up
    await bob.close()
    assert errors == []


# ----- F: the others' progress in words; the lobby's comings and goings --------------------


async def test_a_racers_progress_bar_reads_in_words_and_the_lobby_says_who_comes_and_goes(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    code = await create_race_on(page)
    news = page.locator("#news")
    bob = await ArenaClient.connect(arena.url)
    await bob.hello(name="bob")
    race_id = (await bob.join_race(code)).race_id
    await expect(news).to_have_text("bob joined")
    await bob.ready(race_id)
    await expect(news).to_have_text("bob is ready")
    await bob.ready(race_id, ready=False)
    await expect(news).to_have_text("bob is not ready")
    # bob's connection drops: he is away, his seat kept, until he says hello again.
    token = bob.token
    await bob.close()
    await expect(news).to_have_text("bob is away (their seat is kept for a while)")
    state = page.locator(f'#racers [data-player="{bob.player_id}"] .racer-state')
    await expect(state).to_have_text("away")
    bob = await ArenaClient.connect(arena.url)
    await bob.hello(token=token)
    await expect(news).to_have_text("bob is back")
    await expect(state).to_have_text("not ready")
    await bob.leave(race_id)
    await expect(news).to_have_text("bob left")
    await bob.join_race(code)
    await bob.ready(race_id)
    await page.click("#ready")
    await expect(page.locator("#status")).to_have_text("Go!", timeout=10_000)
    bar = page.locator(f'#racers [data-player="{bob.player_id}"] .bar')
    await expect(bar).to_have_attribute("aria-valuetext", "bob: 0 cards home, 52 left")
    await expect(page.locator(f'#racers [data-player="{bob.player_id}"] .racer-state')).to_have_text(
        "52 left"
    )
    for move in line_of()[:3]:
        await bob.move(race_id, move)
    await expect(bar).to_have_attribute("aria-valuetext", "bob: 2 cards home, 50 left")
    await bob.close()
    assert errors == []


# ----- G: a hinted card says so; a watch thumbnail's short name -----------------------------


async def test_the_hinted_card_says_it_is_hinted(browser: Browser, arena: ArenaServer) -> None:
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors)
    await page.click("#hint")
    await expect(page.locator("#status")).to_have_text(re.compile(r"^Hint: \S+$"))
    hinted = page.locator(".card.hinted[tabindex]")  # the card the keyboard lands on
    await expect(hinted).to_have_count(1)
    await expect(hinted).to_have_attribute("aria-label", re.compile(r", hinted$"))
    await expect(page.locator('.card[aria-label*="hinted"]')).to_have_count(1)
    await bob.close()
    assert errors == []


async def test_a_watch_thumbnail_is_named_by_its_racer_and_game(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    errors: list[str] = []
    race_id, (_ada, bob) = await sdk_race(connect, arena.url, "ada", "bob")
    page = await open_page(browser, arena.url, errors)
    await page.evaluate("(h) => { location.hash = h; }", f"#/watch/{race_id}")
    await expect(page.locator("#thumbs .thumb")).to_have_count(2)
    thumb = page.locator(f'.thumb[data-player="{bob.player_id}"]')
    await expect(thumb).to_have_accessible_name("bob's Eight Off board")
    await expect(page.get_by_role("button", name="ada's Eight Off board")).to_have_count(1)
    assert errors == []


#: Every text the news line took since it was recorded from.
RECORD_NEWS = """() => {
  window.newsSaid = [];
  const news = document.getElementById('news');
  new MutationObserver(() => window.newsSaid.push(news.textContent))
    .observe(news, { childList: true, characterData: true, subtree: true });
}"""


async def test_a_treize_pair_removed_is_not_read_out_as_a_card_the_game_moved(
    browser: Browser, arena: ArenaServer
) -> None:
    """Both cards of a pair go to the removed pile by the racer's own move: nothing happened
    by itself, so the news line says nothing of it."""
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors, game="treize")
    game, before = new_game("treize", WINNABLE_SEED), []
    while not (pairs := [move for move in game.legal_moves() if "+" in move]):
        before.append(game.legal_moves()[0])  # a deal from the stock, say
        game.play(before[-1])
    await play_in_box(page, before)
    await page.evaluate(RECORD_NEWS)
    await play_in_box(page, pairs[:1])
    await page.wait_for_timeout(500)
    assert not [said for said in await page.evaluate("window.newsSaid") if "moved from" in said]
    await bob.close()
    assert errors == []

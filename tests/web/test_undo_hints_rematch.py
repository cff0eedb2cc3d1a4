"""Undo, hints and rematch in the browser client, in real headless Chromium against a real
server: what the page shows, checked against the engine and the server's own state."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser, Page, expect

from client.sdk import ArenaClient
from server.app import ArenaServer
from server.features import hints as hints_feature
from shared import new_game, replay
from shared.protocol import RematchUpdate
from tests.server.conftest import WINNABLE_SEED, running_node
from tests.server.solver import solve
from tests.server.test_undo_hints_rematch import STUCK_LINE, STUCK_SEED
from tests.web.conftest import give_up, shot_path
from tests.web.test_browser import (
    click_move,
    create_race_on,
    expected,
    open_page,
    page_race_id,
    page_with_outage,
    running_race_page,
    shown,
    until_shown,
)

#: The outline of a legal target (and of a hint): style.css's --accent.
ACCENT = "rgb(255, 213, 74)"


async def same_player(page: Page, url: str) -> ArenaClient:
    """A second session of the page's player (its saved token), to ask the server."""
    token = await page.evaluate("() => localStorage.getItem('solitaire-arena.token')")
    assert isinstance(token, str)
    client = await ArenaClient.connect(url)
    await client.hello(token=token, legal_moves=True)
    return client


def winning_line() -> list[str]:
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None
    return line


def after(moves: list[str]) -> dict[str, list[str]]:
    """What the page shows of the deal after ``moves``."""
    return expected(replay("eight-off", WINNABLE_SEED, moves).view())  # type: ignore[arg-type]


# ----- undo -------------------------------------------------------------------------------


async def test_undo_takes_the_last_move_back_by_button_by_key_and_from_the_move_box(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors)
    race_id = page_race_id(page.url)
    first = winning_line()[0]
    undo = page.locator("#undo")
    await expect(undo).to_have_accessible_name("Undo")
    await expect(undo).to_be_disabled()  # the deal: nothing to take back
    # The button: enabled once a move is in, and the move undone brings the deal back.
    await click_move(page, first)
    await until_shown(page, after([first]), f"after {first}")
    await expect(undo).to_be_enabled()
    await page.screenshot(path=shot_path("undo-enabled"), animations="disabled")
    await undo.focus()
    await page.keyboard.press("Enter")
    await until_shown(page, after([]), "after Undo")
    await expect(undo).to_be_disabled()
    await expect(undo).to_be_focused()  # not the page's body, with nothing left to undo
    ada = await same_player(page, arena.url)
    board = await ada.board(race_id)
    assert board is not None and board.seq == 2  # the move, then the undo: a seq each
    view = board.view.model_dump()
    assert expected(view) == after([]) and view["move_count"] == 0 and view["can_undo"] is False
    # The key u, with the focus outside any text field.
    await click_move(page, first)
    await until_shown(page, after([first]), f"{first} again")
    await expect(undo).to_be_enabled()
    await page.keyboard.press("u")
    await until_shown(page, after([]), "after the key u")
    await expect(undo).to_be_disabled()
    # In the move box the key u is only typed; "undo" and Enter sends the move undo.
    await click_move(page, first)
    await until_shown(page, after([first]), f"{first} a third time")
    await page.locator("#move").press_sequentially("u")
    await expect(page.locator("#move")).to_have_value("u")
    assert await shown(page) == after([first])
    await page.locator("#move").press_sequentially("ndo")
    await page.press("#move", "Enter")
    await until_shown(page, after([]), "after typing undo")
    await expect(undo).to_be_disabled()
    # Nothing left to take back: the server's reason, and the refused undo takes no seq.
    await page.fill("#move", "undo")
    await page.press("#move", "Enter")
    await expect(page.locator("#refusal")).to_have_text("there is no move to undo")
    board = await ada.board(race_id)
    assert board is not None and board.seq == 6 and expected(board.view.model_dump()) == after([])
    await ada.close()
    await bob.close()
    assert errors == []


# ----- hints ------------------------------------------------------------------------------


async def test_a_hint_outlines_a_legal_move_and_a_race_with_hints_off_has_no_hint_button(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors)  # the form's default: hints on
    race_id = page_race_id(page.url)
    assert (await bob.get_race(race_id)).hints is True
    await expect(page.locator("#hints-setting")).to_have_text("Hints: on")
    hint = page.locator("#hint")
    await expect(hint).to_have_accessible_name("Hint")
    await expect(page.locator(".card.hinted")).to_have_count(0)
    await hint.click()
    await expect(page.locator("#status")).to_have_text(re.compile(r"Hint: \S+"))
    move = (await page.locator("#status").inner_text()).removeprefix("Hint: ")
    deal = new_game("eight-off", WINNABLE_SEED)
    assert move in deal.legal_moves()
    # Outlined: the cards the move takes (the top k of its source) and its target pile.
    source, target = move.split(">")
    pile, _, count = source.partition(":")
    taken = list(deal.view()["piles"][pile]["cards"][-int(count or 1) :])
    hinted = page.locator(".card.hinted")
    assert await hinted.evaluate_all("cards => cards.map((c) => c.dataset.card)") == taken
    outlined = page.locator("#board .pile.target")
    assert await outlined.evaluate_all("piles => piles.map((p) => p.dataset.pile)") == [target]
    for element in (hinted.first, outlined):
        style = await element.evaluate("e => getComputedStyle(e).outline")
        assert style == f"{ACCENT} solid 3px"
    await page.screenshot(path=shot_path("hint"), animations="disabled")
    # Hint again at once: the same hint said again, not a refusal (one hint a second).
    await hint.click()
    await page.wait_for_timeout(400)
    await expect(page.locator("#refusal")).to_be_empty()
    await expect(page.locator("#status")).to_have_text(f"Hint: {move}")
    await expect(hinted).to_have_count(len(taken))
    # Another card picked up shows its own legal targets only, never the hint's (which
    # would pass for one of them); put down, the hint's outline is back.
    other = next(
        m.split(">")[0] for m in deal.legal_moves() if ":" not in m and m.split(">")[0] not in (pile, target)
    )
    targets = sorted({m.split(">")[1] for m in deal.legal_moves() if m.split(">")[0] == other})
    cards = page.locator(f'.pile[data-pile="{other}"] .card[data-card]')
    await cards.nth(await cards.count() - 1).click(position={"x": 10, "y": 5})
    await expect(hinted).to_have_count(0)
    assert sorted(await outlined.evaluate_all("piles => piles.map((p) => p.dataset.pile)")) == targets
    await page.keyboard.press("Escape")
    assert await outlined.evaluate_all("piles => piles.map((p) => p.dataset.pile)") == [target]
    # Played by clicks, the hint is done: the outlines go and the status line is back.
    await click_move(page, move)
    await until_shown(page, after([move]), f"after the hinted {move}")
    await expect(page.locator(".card.hinted")).to_have_count(0)
    await expect(page.locator("#board .pile.target")).to_have_count(0)
    await expect(page.locator("#status")).to_have_text("Go!")
    # The key h asks again, for the board as it is now (past the server's one hint a second).
    await page.wait_for_timeout(1_100)
    await page.keyboard.press("h")
    await expect(page.locator("#status")).to_have_text(re.compile(r"Hint: \S+"))
    again = (await page.locator("#status").inner_text()).removeprefix("Hint: ")
    assert again in replay("eight-off", WINNABLE_SEED, [move]).legal_moves()
    await expect(page.locator(".card.hinted").first).to_be_visible()
    # A race created with the box unticked: every racer sees hints off, and there is no
    # Hint button; the key h does nothing (test_race_page checks that it sends nothing).
    await give_up(page)
    await bob.finish(race_id)
    await expect(page.locator("#results")).to_contain_text("Deal seed")
    await page.click("header .brand")
    await expect(page.locator("#hints")).to_be_checked()
    await expect(page.locator("#hints")).to_have_accessible_name("Hints allowed")
    await page.locator("#hints").uncheck()
    await page.click("#create")
    await expect(page.locator("#status")).to_contain_text("share the code")
    await expect(page.locator("#hints-setting")).to_have_text("Hints: off")
    code = re.search(r"Race ([A-Z0-9]{6})", await page.locator("#status").inner_text())
    assert code is not None
    joined = await bob.join_race(code[1])
    assert joined.hints is False
    await bob.ready(joined.race_id)
    await page.click("#ready")
    await expect(page.locator("#status")).to_have_text("Go!", timeout=10_000)
    await expect(page.locator("#undo")).to_be_visible()
    await expect(page.locator("#hint")).to_be_hidden()
    await expect(page.locator("#hints-setting")).to_have_text("Hints: off")
    await page.keyboard.press("h")
    await page.wait_for_timeout(300)
    await expect(page.locator("#refusal")).to_have_text("")
    await expect(page.locator("#status")).to_have_text("Go!")
    await expect(page.locator(".card.hinted")).to_have_count(0)
    await page.screenshot(path=shot_path("hints-off"), animations="disabled")
    await bob.close()
    assert errors == []


async def test_a_hint_with_only_moves_back_left_shows_the_servers_reason(
    browser: Browser, arena: ArenaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hints_feature, "HINT_COOLDOWN", 0.0)
    monkeypatch.setattr(arena.features.lobby, "seed_source", lambda: STUCK_SEED)
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors)
    race_id = page_race_id(page.url)
    ada = await same_player(page, arena.url)
    for move in (STUCK_LINE[0], "undo", *STUCK_LINE):  # played elsewhere: the hint resyncs first
        await ada.move(race_id, move)
    await page.locator("#hint").click()
    await expect(page.locator("#status")).to_have_text(
        "Hint: every move left leads back to a position your board has had: undo, or give up"
    )
    await expect(page.locator(".card.hinted")).to_have_count(0)
    assert await shown(page) == expected(replay("eight-off", STUCK_SEED, [*STUCK_LINE]).view())  # type: ignore[arg-type]
    await ada.close()
    await bob.close()
    assert errors == []


# ----- rematch ----------------------------------------------------------------------------


async def two_pages_racing(browser: Browser, url: str, errors: list[str]) -> tuple[Page, Page, str]:
    """ada and bob, each in a browser, in a race that has started; its id."""
    viewport = {"viewport": {"width": 1280, "height": 900}}
    ada = await open_page(browser, url, errors, **viewport)
    bob = await open_page(browser, url, errors, **viewport)
    await ada.fill("#name", "ada")
    await ada.click("#create")
    await expect(ada.locator("#status")).to_contain_text("share the code")
    code = re.search(r"Race ([A-Z0-9]{6})", await ada.locator("#status").inner_text())
    assert code is not None
    await bob.fill("#name", "bob")
    await bob.fill("#code", code[1])
    await bob.click("#join")
    await expect(bob.locator("#status")).to_contain_text("share the code")
    await ada.click("#ready")
    await bob.click("#ready")
    for page in (ada, bob):
        await expect(page.locator("#status")).to_have_text("Go!", timeout=10_000)
    return ada, bob, page_race_id(ada.url)


async def test_a_rematch_offered_in_one_browser_and_accepted_in_another_starts_a_new_race(
    browser: Browser, clean_redis: str
) -> None:
    errors: list[str] = []
    # A countdown long enough to see: the rematch lands in it before its race starts.
    async with running_node(clean_redis, countdown=2.0) as node:
        ada, bob, old = await two_pages_racing(browser, node.url, errors)
        await expect(ada.locator("#offer-rematch")).to_be_hidden()  # not while racing
        await give_up(ada)
        await give_up(bob)
        for page in (ada, bob):
            await expect(page.locator("#results")).to_contain_text("Deal seed")
        await ada.click("#offer-rematch")
        waiting = "offered a rematch: waiting for answers"
        await expect(ada.locator("#rematch-status")).to_contain_text(f"You {waiting}")
        answers = "#rematch-racers li"
        await expect(ada.locator(answers)).to_have_text(["ada (you): offered", "bob: not answered yet"])
        await expect(ada.locator("#accept-rematch")).to_have_count(0)
        await expect(ada.locator("#offer-rematch")).to_have_count(0)  # one offer at a time
        # bob's page: who offered, each answer, the time left, and his two buttons.
        await expect(bob.locator("#rematch-status")).to_contain_text(f"ada {waiting}")
        await expect(bob.locator(answers)).to_have_text(["ada: offered", "bob (you): not answered yet"])
        await expect(bob.locator("#rematch-clock")).to_have_text(re.compile(r"0:(2\d|30)"))
        await expect(bob.locator("#accept-rematch")).to_have_accessible_name("Accept")
        await expect(bob.locator("#decline-rematch")).to_have_accessible_name("Decline")
        await bob.screenshot(path=shot_path("rematch-offered"), full_page=True)
        await bob.click("#accept-rematch")
        # Both pages go to the new race: its countdown, then the race.
        new_race = re.compile(rf"#/race/(?!{old}$)[0-9a-f]+$")
        for page in (ada, bob):
            await expect(page).to_have_url(new_race)
            await expect(page.locator("#status")).to_have_text("Get ready…")
            await expect(page.locator("#clock")).to_contain_text("starts in")
        new = page_race_id(ada.url)
        assert page_race_id(bob.url) == new and new != old
        await ada.screenshot(path=shot_path("rematch-countdown"))
        for page in (ada, bob):
            await expect(page.locator("#status")).to_have_text("Go!", timeout=10_000)
            await expect(page.locator("#results")).to_be_empty()
            await expect(page.locator("#racers")).to_contain_text("(you)")
        # The server agrees: the old race is over, the new one runs with both of them.
        server = await same_player(ada, node.url)
        race = await server.get_race(new)
        assert race.status == "running" and race.game == "eight-off" and race.hints is True
        assert sorted(r.name for r in race.racers) == ["ada", "bob"]
        # Each page committed to a seed share with its offer or acceptance, and kept the
        # share as the new race's when rematch_started came (to reveal it: reveal_share).
        assert all(r.share_committed for r in race.racers)
        for page in (ada, bob):
            kept = await page.evaluate("(k) => localStorage.getItem(k)", f"solitaire-arena.share.{new}")
            assert isinstance(kept, str) and re.fullmatch("[0-9a-f]{64}", kept)
        assert (await server.get_race(old)).status == "finished"
        # And the page plays the new race.
        first = winning_line()[0]
        await click_move(ada, first)
        await until_shown(ada, after([first]), f"{first} in the rematch")
        board = await server.board(new)
        assert board is not None and board.seq == 1
        await server.close()
        assert errors == []  # before the node stops: a page still open then fails to reconnect


async def ended_race_page(browser: Browser, url: str, errors: list[str]) -> tuple[Page, ArenaClient, str]:
    """A page (ada) and bob who raced on the node at ``url``, both given up: the race is
    over, and the page offers a rematch. The page, bob and the race's id."""
    page, bob = await running_race_page(browser, url, errors)
    race_id = page_race_id(page.url)
    await give_up(page)
    await bob.finish(race_id)
    await expect(page.locator("#offer-rematch")).to_be_visible()
    return page, bob, race_id


async def test_a_declined_and_an_expired_rematch_show_their_status(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors)
    status = page.locator("#rematch-status")
    answers = page.locator("#rematch-racers li")
    race_id = page_race_id(page.url)
    await give_up(page)
    await bob.finish(race_id)
    await expect(page.locator("#offer-rematch")).to_be_visible()
    # bob offers; the page declines: nobody accepted, so no race, and it may offer again.
    await bob.offer_rematch(race_id)
    await expect(status).to_contain_text("bob offered a rematch: waiting for answers")
    await page.click("#decline-rematch")
    await expect(page.locator("#rematch")).to_have_attribute("data-status", "declined")
    await expect(status).to_have_text("bob offered a rematch: declined, nobody accepted.")
    await expect(answers).to_have_text(["ada (you): declined", "bob: offered"])
    await expect(page.locator("#accept-rematch")).to_have_count(0)
    await page.screenshot(path=shot_path("rematch-declined"), full_page=True)
    # The page offers, bob never answers: it expires (the wait made short here).
    assert arena.features is not None
    arena.features.rematches.wait = 0.8
    await page.click("#offer-rematch")
    await expect(status).to_contain_text("You offered a rematch: waiting for answers")
    await expect(page.locator("#rematch")).to_have_attribute("data-status", "expired", timeout=5_000)
    await expect(status).to_have_text("You offered a rematch: expired, nobody answered in time.")
    await expect(answers).to_have_text(["ada (you): offered", "bob: not answered yet"])
    await expect(page.locator("#offer-rematch")).to_be_visible()
    assert page_race_id(page.url) == race_id  # no race started
    await bob.close()
    assert errors == []


async def test_a_rematch_offer_made_before_the_page_was_reloaded_shows_and_can_be_accepted(
    browser: Browser, arena: ArenaServer
) -> None:
    """The offer comes to an open page as an event only: a page reloaded after it (or a
    second tab) reads it from the race, with its clock and the buttons to answer."""
    errors: list[str] = []
    page, bob, race_id = await ended_race_page(browser, arena.url, errors)
    await bob.offer_rematch(race_id)
    await page.reload()
    status = page.locator("#rematch-status")
    await expect(status).to_contain_text("bob offered a rematch: waiting for answers")
    await expect(page.locator("#rematch-clock")).to_have_text(re.compile(r"0:(1\d|2\d|30)"))
    answers = ["ada (you): not answered yet", "bob: offered"]
    await expect(page.locator("#rematch-racers li")).to_have_text(answers)
    await expect(page.locator("#offer-rematch")).to_have_count(0)
    await page.click("#accept-rematch")
    await expect(page).to_have_url(re.compile(rf"#/race/(?!{race_id}$)[0-9a-f]+$"))  # on to the new race
    new_race = await bob.get_race(page_race_id(page.url))
    assert sorted(r.name for r in new_race.racers) == ["ada", "bob"]
    await bob.close()
    assert errors == []


async def test_a_race_ended_by_its_time_limit_says_time_ran_out(browser: Browser, arena: ArenaServer) -> None:
    """bob's race of 2 s: nobody finishes, so its time limit ends it, and the page says so
    (a race ended by everyone giving up does not: test_announcements)."""
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    bob = await ArenaClient.connect(arena.url)
    await bob.hello(name="bob")
    race = await bob.create_race("eight-off", seats=2, time_limit=2.0)
    await page.fill("#name", "ada")
    await page.fill("#code", race.code)
    await page.click("#join")
    await expect(page.locator("#status")).to_contain_text("share the code")
    await bob.ready(race.race_id)
    await page.click("#ready")
    await expect(page.locator("#status")).to_have_text(
        "The race is over: time ran out; you are tied 1st of 2, 0 cards home", timeout=10_000
    )
    await bob.close()
    assert errors == []


async def test_a_rematch_offered_here_that_started_while_the_connection_was_down_is_entered_once_back(
    browser: Browser, arena: ArenaServer
) -> None:
    """The page offers; its connection drops; bob accepts within the 5 s an offerer may be
    away, so the rematch starts and its rematch_started is lost. Back, the page reads the
    race, finds the rematch started, and goes to it as the event would have taken it."""
    errors: list[str] = []
    page, outage = await page_with_outage(browser, arena.url, errors)
    code = await create_race_on(page)
    bob = await ArenaClient.connect(arena.url)
    await bob.hello(name="bob")
    race_id = (await bob.join_race(code)).race_id
    await bob.ready(race_id)
    await page.click("#ready")
    await expect(page.locator("#status")).to_have_text("Go!", timeout=10_000)
    await give_up(page)
    await bob.finish(race_id)
    await page.click("#offer-rematch")
    await bob.wait_for(RematchUpdate, lambda u: u.rematch.race_id == race_id)
    await outage.begin()
    await expect(page.locator("#link")).to_have_text("reconnecting…")
    started = await bob.answer_rematch(race_id, accept=True)
    assert started.status == "started" and started.new_race_id is not None
    outage.end()
    await expect(page).to_have_url(re.compile(f"#/race/{started.new_race_id}$"), timeout=10_000)
    await expect(page.locator("#racers")).to_contain_text("(you)")
    await bob.close()
    await page.context.close()
    assert errors == []

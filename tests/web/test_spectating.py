"""Spectating and verifying in the browser client, in real headless Chromium against a
real server and Redis: the Live page, watching a race (one board large, the others
small, exactly the racers' views), the featured race moving on, the spectator count on a
racer's page, the Verify page re-dealing and checking a finished race's record, and the
browser's seed shares at create, join and ready."""

from __future__ import annotations

import datetime
import re
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Page, expect

from client.sdk import ArenaClient
from server.app import ArenaServer
from shared import replay
from shared.protocol import RaceEnded, RaceStarted, Spectators
from tests.server.conftest import WINNABLE_SEED, Connect, running_node
from tests.server.helpers import sdk_race
from tests.server.rawclient import racers
from tests.server.solver import solve
from tests.server.test_archive import archived, forget_race, wait_for_file
from tests.server.test_ratings import foundation_moves
from tests.web.conftest import ROOT, HeldReplies, give_up, heading_is_focused, shot_path
from tests.web.test_browser import (
    Outage,
    expected,
    fits_the_screen,
    open_page,
    page_race_id,
    running_race_page,
    shown,
)

DESKTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}
#: The note over a board held back for spectators (client/web/js/live.js).
HELD_NOTE = "Paused for spectators: it shows cards another racer has not turned up yet"


async def shown_in(page: Page, scope: str) -> dict[str, list[str]]:
    """The cards shown pile by pile inside ``scope`` (a CSS selector)."""
    result: dict[str, list[str]] = await page.evaluate(
        """(scope) => Object.fromEntries([...document.querySelectorAll(scope + ' .pile')].map((p) => [
            p.dataset.pile, [...p.querySelectorAll('.card[data-card]')].map((c) => c.dataset.card)]))""",
        scope,
    )
    return result


async def shows(page: Page, scope: str, view: Any) -> None:
    """Wait until ``scope`` shows exactly ``view`` (a BoardView)."""
    want = expected(view.model_dump())
    for _ in range(200):
        if await shown_in(page, scope) == want:
            return
        await page.wait_for_timeout(25)
    assert await shown_in(page, scope) == want


async def go(page: Page, fragment: str) -> None:
    await page.evaluate("(h) => { location.hash = h; }", fragment)


def winning_line() -> list[str]:
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None
    return line


async def watch_and_switch(
    browser: Browser, arena: ArenaServer, connect: Connect, tag: str, **options: Any
) -> None:
    errors: list[str] = []
    race_id, (ada, bob) = await sdk_race(connect, arena.url, "ada", "bob", bots=("bob",))
    page = await open_page(browser, arena.url, errors, **options)
    await go(page, f"#/watch/{race_id}")
    await expect(page.locator("#watch-status")).to_have_text("Racing")
    await expect(page.locator("#watch-kind")).to_have_text("Eight Off · casual")  # which game this is
    # The heading names the race (and has the focus, as after any navigation); the tab too.
    # Bob is a bot, marked as on the Live list.
    await heading_is_focused(page, "Watching ada vs bob \N{ROBOT FACE}")
    await expect(page).to_have_title(
        "Watching ada vs bob \N{ROBOT FACE} (Eight Off) \N{EM DASH} Solitaire Arena"
    )
    await expect(page.locator("#thumbs .thumb")).to_have_count(2)
    await expect(page.locator("#watch-spectators")).to_have_text("1 watching")
    line = winning_line()
    for move in line[:6]:
        ack = await ada.move(race_id, move)
        await shows(page, "#large-board", ack.view)  # ada's board is the large one
    await expect(page.locator("#large-head")).to_contain_text("ada")
    await expect(page.locator("#large-head")).to_contain_text(f"last {line[5]}")
    await expect(page.locator("#large-board [tabindex]")).to_have_count(0)  # shown, not played: no tab stop
    bob_ack = await bob.move(race_id, line[0])
    await shows(page, f'.thumb[data-player="{bob.player_id}"]', bob_ack.view)
    bob_name = page.locator(f'.thumb[data-player="{bob.player_id}"] .racer-name')
    await expect(bob_name).to_have_text("bob \N{ROBOT FACE}")
    await expect(page.locator(f'.thumb[data-player="{ada.player_id}"] .racer-name')).to_have_text("ada")
    await page.keyboard.press("2")  # bob's board large
    await shows(page, "#large-board", bob_ack.view)
    await expect(page.locator("#large-head .racer-name")).to_have_text("bob \N{ROBOT FACE}")
    await expect(page.locator("#large-head")).to_contain_text(f"score {bob_ack.view.score}")
    await page.screenshot(path=shot_path(f"watch-{tag}"), full_page=True, animations="disabled")
    await page.locator(f'.thumb[data-player="{ada.player_id}"]').click()  # back to ada's
    await shows(page, "#large-board", ack.view)
    await expect(page.locator(f'.thumb[data-player="{ada.player_id}"]')).to_have_attribute(
        "aria-pressed", "true"
    )
    await fits_the_screen(page, "#large-board")
    # bob gives up, ada wins: the results, with the way to verify the race.
    await bob.finish(race_id)
    await expect(page.locator(f'.thumb[data-player="{bob.player_id}"]')).to_contain_text("gave up")
    for move in line[6:]:
        await ada.move(race_id, move)
    await expect(page.locator("#watch-results")).to_contain_text("1.")
    await expect(page.locator(f'.thumb[data-player="{ada.player_id}"]')).to_contain_text("won")
    assert await page.locator("#verify-link").get_attribute("href") == f"#/verify/{race_id}"
    await expect(page.locator("#watch-spectators")).to_have_text("1 watched")  # as it ended, not now
    await page.screenshot(path=shot_path(f"watch-{tag}-results"), full_page=True, animations="disabled")
    assert errors == []


async def test_a_spectator_sees_each_racers_board_and_shows_any_of_them_large(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    await watch_and_switch(browser, arena, connect, "desktop", **DESKTOP)


async def test_the_watch_page_fits_a_phone_sized_screen(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    await watch_and_switch(browser, arena, connect, "phone", **PHONE)


async def test_a_spectator_is_told_why_a_treize_board_stops_until_it_goes_on(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """Ada turns up a stock card bob has not: her board is held back for spectators, and a
    note over it (large and small) says so and why, for a spectator arriving then too,
    until bob turns the card up as well."""
    errors: list[str] = []
    race_id, (ada, bob) = await sdk_race(connect, arena.url, "ada", "bob", game="treize")
    page = await open_page(browser, arena.url, errors, **DESKTOP)
    await go(page, f"#/watch/{race_id}")
    await expect(page.locator("#watch-status")).to_have_text("Racing")
    ada_ack = await ada.move(race_id, "deal")

    async def ada_is_held() -> None:
        await expect(page.locator("#large-head .held-note")).to_have_text(HELD_NOTE)  # ada's is large
        await expect(page.locator(f'.thumb[data-player="{ada.player_id}"] .held-note')).to_have_text(
            HELD_NOTE
        )
        await expect(page.locator(f'.thumb[data-player="{bob.player_id}"] .held-note')).to_have_count(0)
        await expect(page.locator("#large-head .last")).to_have_text("no move yet")

    await ada_is_held()  # told by watch_held
    await go(page, "#/live")
    await expect(page.locator(f'#live-races .live-race[data-race="{race_id}"]')).to_be_visible()
    await go(page, f"#/watch/{race_id}")
    await ada_is_held()  # arriving now: the snapshot's board says so
    await page.screenshot(path=shot_path("watch-held"), full_page=True, animations="disabled")
    bob_ack = await bob.move(race_id, "deal")
    await shows(page, "#large-board", ada_ack.view)
    await shows(page, f'.thumb[data-player="{bob.player_id}"]', bob_ack.view)
    await expect(page.locator(".held-note")).to_have_count(0)
    assert errors == []


async def test_a_spectator_of_the_countdown_sees_the_racers_and_no_board_until_the_start(
    browser: Browser, clean_redis: str, connect: Connect
) -> None:
    errors: list[str] = []
    async with running_node(clean_redis, countdown=3.5) as node:
        page = await open_page(browser, node.url, errors, **DESKTOP)
        ada, bob = await connect(node.url), await connect(node.url)
        await ada.hello(name="ada")
        await bob.hello(name="bob")
        race = await ada.create_race("eight-off")
        await bob.join_race(race.code)
        # Opened while the race is still in its lobby: refused, and shown by itself once
        # the racers are ready and it counts down (the page asks again every 2 s).
        await go(page, f"#/watch/{race.race_id}")
        await expect(page.locator("#watch-error")).to_have_text(
            "the race is still in its lobby: watch it once it counts down."
            " It shows here by itself once it does."
        )
        await ada.ready(race.race_id)
        await bob.ready(race.race_id)
        await expect(page.locator("#watch-deal")).to_be_visible()
        await expect(page.locator("#watch-error")).to_have_text("")
        counting = await page.evaluate(
            """() => ({status: document.querySelector('#watch-status').textContent,
                deal: document.querySelector('#watch-deal').textContent,
                racers: [...document.querySelectorAll('#thumbs .racer-name')].map((n) => n.textContent),
                cards: document.querySelectorAll('.card').length})"""
        )
        assert counting == {
            "status": "Starting…",
            "deal": "The deal is shown when the race starts.",
            "racers": ["ada", "bob"],
            "cards": 0,
        }
        await page.screenshot(path=shot_path("watch-countdown"), full_page=True, animations="disabled")
        started = await ada.wait_for(RaceStarted, lambda e: e.race_id == race.race_id)
        await shows(page, "#large-board", started.view)
        await shows(page, f'.thumb[data-player="{bob.player_id}"]', started.view)
        await expect(page.locator("#watch-deal")).to_be_hidden()
        await expect(page.locator("#watch-status")).to_have_text("Racing")
        assert errors == []  # before the node stops: a page still open then fails to reconnect


async def test_a_racer_sees_how_many_watch_and_cannot_watch_their_own_race(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    errors: list[str] = []
    ada, bob = await running_race_page(browser, arena.url, errors)
    race_id = page_race_id(ada.url)
    try:
        sam = await connect(arena.url)
        await sam.hello(name="sam")
        await sam.watch(race_id)
        await expect(ada.locator("#spectators")).to_have_text("1 watching")
        await ada.screenshot(path=shot_path("race-spectators"))
        await sam.unwatch()
        await expect(ada.locator("#spectators")).to_have_text("")
        await go(ada, f"#/watch/{race_id}")
        await expect(ada.locator("#watch-error")).to_contain_text("you race in that race")
        # Back on the race page to the end: the results link to the Verify page.
        await go(ada, f"#/race/{race_id}")
        await expect(ada.locator("#give-up")).to_be_visible()
        await sam.watch(race_id)
        await expect(ada.locator("#spectators")).to_have_text("1 watching")
        await bob.finish(race_id)
        await give_up(ada)
        await expect(ada.locator("#results")).to_contain_text("1.")
        # Once the race is over: how many watched it as it ended, whoever leaves after.
        await expect(ada.locator("#spectators")).to_have_text("1 watched")
        await sam.unwatch()
        await ada.wait_for_timeout(500)  # the count of 0 reaches the page within 0.25 s
        await expect(ada.locator("#spectators")).to_have_text("1 watched")
        await ada.screenshot(path=shot_path("race-results-verify-link"), full_page=True)
        await ada.click("#verify-link")
        await expect(ada.locator("#verdict")).to_have_text(
            "Every check made here passed. Only ada's moves were compared with the server's replay:"
            f" pick bob below to compare theirs. {UNCHECKED_HERE}"
        )
    finally:
        await bob.close()
    assert errors == []


async def watch_page_with_outage(
    browser: Browser, arena: ArenaServer, errors: list[str], fragment: str
) -> tuple[Page, Outage]:
    """The page at ``fragment`` (a watch) on a desktop, its WebSockets through an
    :class:`Outage` the test cuts and mends; its script errors go to ``errors``."""
    context = await browser.new_context(**DESKTOP)
    outage = Outage()
    await context.route_web_socket(re.compile("^ws://"), outage.route)
    page = await context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(arena.url.replace("ws://", "http://") + f"/{fragment}")
    return page, outage


async def test_a_spectator_back_after_the_race_ended_meanwhile_sees_its_results_and_last_boards(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """The connection is down while ada moves and both give up: back, the page shows the
    results and ada's last board, its clock stopped (it used to stay on the old boards,
    the clock running down, with only the refusal to watch a race that is over)."""
    errors: list[str] = []
    race_id, (ada, bob) = await sdk_race(connect, arena.url, "ada", "bob")
    page, outage = await watch_page_with_outage(browser, arena, errors, f"#/watch/{race_id}")
    await expect(page.locator("#watch-status")).to_have_text("Racing")
    await expect(page.locator("#watch-clock")).to_contain_text("left")
    await outage.begin()
    await expect(page.locator("#link")).to_have_text("reconnecting…")
    ack = await ada.move(race_id, winning_line()[0])
    await ada.finish(race_id)
    await bob.finish(race_id)
    outage.end()
    await expect(page.locator("#watch-status")).to_have_text(
        "The race is over (it ended while the connection was down)", timeout=15_000
    )
    await expect(page.locator("#watch-results")).to_contain_text("1.")
    await expect(page.locator("#watch-clock")).to_have_text("")
    await shows(page, "#large-board", ack.view)
    await expect(page.locator(f'.thumb[data-player="{ada.player_id}"]')).to_contain_text("gave up")
    await expect(page.locator("#watch-error")).to_have_text("")
    assert errors == []


async def test_the_featured_watch_follows_a_race_and_moves_on_when_it_ends(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    errors: list[str] = []
    first, (ada, bob) = await sdk_race(connect, arena.url, "ada", "bob")
    page = await open_page(browser, arena.url, errors, **DESKTOP)
    await go(page, "#/watch")
    await expect(page.locator("#featured-tag")).to_be_visible()
    await expect(page.locator("#thumbs")).to_contain_text("ada")
    await expect(page.locator("#watch-status")).to_have_text("Racing")
    await heading_is_focused(page, "Featured race: ada vs bob")
    ack = await ada.move(first, winning_line()[0])
    await shows(page, "#large-board", ack.view)
    second, (cat, dan) = await sdk_race(connect, arena.url, "cat", "dan")
    await ada.finish(first)
    await bob.finish(first)
    await expect(page.locator("#thumbs")).to_contain_text("cat", timeout=10_000)
    await expect(page.locator("#thumbs")).not_to_contain_text("ada")
    await expect(page.locator("#watch-results")).to_contain_text("The last race's results")
    # A casual race's results: every column has its header, and there is no Rating column.
    await expect(page.locator("#watch-standings thead tr > *")).to_have_count(3)
    await expect(page.locator("#watch-standings tr:not(:has(th)) > td")).to_have_count(6)
    assert await page.locator("#verify-link").get_attribute("href") == f"#/verify/{first}"
    await expect(page.locator("#featured-tag")).to_be_visible()
    await heading_is_focused(page, "Featured race: cat vs dan")  # the same heading, renamed
    await expect(page).to_have_title("Featured race: cat vs dan (Eight Off) \N{EM DASH} Solitaire Arena")
    ack = await cat.move(second, winning_line()[0])
    await shows(page, "#large-board", ack.view)
    await page.screenshot(path=shot_path("watch-featured"), full_page=True, animations="disabled")
    # Leaving the page stops the watch (unwatch): the racers hear nobody watches now.
    await go(page, "#/")
    await expect(page.locator("#create")).to_be_visible()
    await dan.wait_for(Spectators, lambda e: e.race_id == second and e.count == 0)
    assert errors == []


async def test_the_featured_watch_back_after_its_race_ended_meanwhile_keeps_its_results_and_shows_the_next(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """The featured race ends while the page's connection is down: back, the page watches
    the next race and keeps the one that ended's results as the last race's, saying it
    ended meanwhile (it used to show the next race alone, the end never seen)."""
    errors: list[str] = []
    first, (ada, bob) = await sdk_race(connect, arena.url, "ada", "bob")
    page, outage = await watch_page_with_outage(browser, arena, errors, "#/watch")
    await expect(page.locator("#thumbs")).to_contain_text("ada")
    await expect(page.locator("#watch-status")).to_have_text("Racing")
    _second, _others = await sdk_race(connect, arena.url, "cat", "dan")
    await outage.begin()
    await expect(page.locator("#link")).to_have_text("reconnecting…")
    await ada.finish(first)
    await bob.finish(first)
    await ada.wait_for(RaceEnded, lambda e: e.race_id == first)
    outage.end()
    await expect(page.locator("#thumbs")).to_contain_text("cat", timeout=15_000)
    await expect(page.locator("#thumbs")).not_to_contain_text("ada")
    await expect(page.locator("#watch-results h2")).to_have_text("The last race's results")
    await expect(page.locator("#ended-away")).to_have_text("It ended while the connection was down.")
    await expect(page.locator("#watch-standings")).to_contain_text("ada")
    await expect(page.locator("#watch-standings")).to_contain_text("bob")
    assert await page.locator("#verify-link").get_attribute("href") == f"#/verify/{first}"
    await expect(page.locator("#watch-status")).to_have_text("Racing")  # the next race's
    await expect(page.locator("#watch-error")).to_have_text("")
    assert errors == []


async def test_a_spectator_sees_each_racers_new_rating_and_change_after_a_rated_race(
    browser: Browser, clean_redis: str, connect: Connect
) -> None:
    errors: list[str] = []
    async with running_node(clean_redis, spectator_delay=0.0) as node:
        clients = []
        for name in ("ada_w", "bob_w"):
            client = await connect(node.url)
            await client.hello(name=name)
            await client.register(name, "correct horse battery")
            clients.append(client)
        ada, bob = clients
        race = await ada.create_race("eight-off", rated=True)
        await bob.join_race(race.code)
        for client in clients:
            await client.ready(race.race_id)
        for client in clients:
            await client.wait_for(RaceStarted, lambda e: e.race_id == race.race_id)
        page = await open_page(browser, node.url, errors, **DESKTOP)
        await go(page, f"#/watch/{race.race_id}")
        # The featured watch shows this race too, and its results once it moves on.
        featured = await open_page(browser, node.url, errors, **DESKTOP)
        await go(featured, "#/watch")
        await expect(featured.locator("#thumbs")).to_contain_text("ada_w")
        await expect(page.locator("#watch-kind")).to_have_text("Eight Off · rated")
        # New accounts: no rating in the game yet, shown as the one they start from.
        await expect(page.locator("#large-head .rating")).to_have_text("1500?")
        for move in foundation_moves(1):
            await ada.move(race.race_id, move)
        await ada.finish(race.race_id)
        await bob.finish(race.race_id)
        ended = await ada.wait_for(RaceEnded, lambda e: e.race_id == race.race_id)
        await expect(page.locator("#watch-results h2")).to_have_text("Results (rated)")
        await expect(page.locator('#watch-standings thead th[scope="col"]')).to_have_text(
            ["Rank", "Player", "Result", "Rating"]
        )
        for standing in ended.summary.standings:
            assert standing.rating is not None and standing.rating_change is not None
            change = (
                f"+{standing.rating_change}" if standing.rating_change > 0 else f"{standing.rating_change}"
            )
            row = page.locator(f'#watch-standings tr[data-player="{standing.player_id}"]')
            await expect(row.locator(".rating-change")).to_have_text(f"{standing.rating}? ({change})")
            row = featured.locator(f'#watch-standings tr[data-player="{standing.player_id}"]')
            await expect(row.locator(".rating-change")).to_have_text(f"{standing.rating}? ({change})")
            await expect(row).to_contain_text("gave up with")  # both gave up
            # The racer's card says the new rating too, not the one the race started with.
            card = page.locator(f'.thumb[data-player="{standing.player_id}"] .rating')
            await expect(card).to_have_text(f"{standing.rating}?")
        await expect(page.locator("#large-head .rating")).to_have_text(
            f"{ended.summary.standings[0].rating}?"
        )
        await expect(featured.locator("#watch-results h2")).to_have_text("The last race's results")
        assert errors == []  # before the node stops: a page still open then fails to reconnect


async def test_the_live_page_lists_a_running_race_with_its_spectators(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    errors: list[str] = []
    race_id, _ = await sdk_race(connect, arena.url, "ada", "bob")
    sam = await connect(arena.url)
    await sam.hello(name="sam")
    await sam.watch(race_id)
    page = await open_page(browser, arena.url, errors, **DESKTOP)
    await page.click("#nav-live")
    entry = page.locator(f'.live-race[data-race="{race_id}"]')
    await expect(entry).to_contain_text("ada")
    await expect(entry).to_contain_text("bob")
    await expect(entry).to_contain_text("1 watching", timeout=10_000)
    await expect(entry).to_contain_text("casual")
    # Each racer's bar says whose progress it is, as on the race page.
    for name in ("ada", "bob"):
        progress = entry.get_by_role("progressbar", name=f"{name}'s progress")
        await expect(progress).to_have_attribute("aria-valuenow", "0")
    await page.screenshot(path=shot_path("live"), full_page=True)
    await entry.locator(".watch-link").click()
    await expect(page.locator("#watch-status")).to_have_text("Racing")
    await expect(page.locator("#watch-spectators")).to_have_text("2 watching")
    assert errors == []


async def finished_race(connect: Connect, url: str) -> tuple[str, list[str], list[ArenaClient]]:
    """A race ada won by the solver's line, bob giving up after one move."""
    race_id, (ada, bob) = await sdk_race(connect, url, "ada", "bob")
    line = winning_line()
    await bob.move(race_id, line[0])
    await bob.finish(race_id)
    for move in line:
        await ada.move(race_id, move)
    await ada.wait_for(RaceEnded, lambda e: e.race_id == race_id)
    return race_id, line, [ada, bob]


async def test_the_replay_page_shows_the_racer_chosen_last_while_a_long_replay_still_pages(
    browser: Browser, clean_redis: str, connect: Connect
) -> None:
    errors: list[str] = []
    async with running_node(clean_redis, rate_burst=300) as node:  # ada's 201 moves at once
        race_id, (ada, bob) = await sdk_race(connect, node.url, "ada", "bob")
        for index in range(201):  # a card back and forth between reserve cells: two pages of views
            await ada.move(race_id, "r1>r5" if index % 2 == 0 else "r5>r1")
        await bob.move(race_id, winning_line()[0])
        await ada.finish(race_id)
        await bob.finish(race_id)
        await ada.wait_for(RaceEnded, lambda e: e.race_id == race_id)
        page = await open_page(browser, node.url, errors, **DESKTOP)
        await replay_switched_while_paging(page, race_id, ada.player_id, bob.player_id)
        assert errors == []  # before the node stops: a page still open then fails to reconnect


async def test_a_race_redis_let_go_shows_its_archived_results_and_replay_from_a_profiles_links(
    browser: Browser, clean_redis: str, connect: Connect, tmp_path: Path
) -> None:
    errors: list[str] = []
    async with running_node(clean_redis, archive_dir=str(tmp_path)) as node:
        race_id, line, (ada, _bob) = await finished_race(connect, node.url)
        await wait_for_file(archived(tmp_path, race_id))
        await forget_race(node, race_id)
        page = await open_page(browser, node.url, errors, **DESKTOP)
        await go(page, f"#/profile/{ada.player_id}")
        await page.click(f'#recent tr[data-race="{race_id}"] a[href="#/race/{race_id}"]')
        started = (await ada.results(race_id)).started_at
        day = datetime.datetime.fromtimestamp(started / 1000, datetime.UTC).date().isoformat()
        await expect(page.locator("h1")).to_have_text(f"Eight Off race of {day}")
        await expect(page.locator("#status")).to_have_text(
            "This race is over and its board is no longer kept; its results and replay are."
        )
        rows = page.locator("#standings tbody tr")
        await expect(rows).to_have_count(2)
        await expect(rows.nth(0)).to_contain_text("1.ada")
        await expect(rows.nth(1)).to_contain_text("2.bob")
        await expect(rows.nth(1)).to_contain_text("gave up")
        await page.screenshot(path=shot_path("archived-race"), full_page=True)
        await page.click("#replay-link")
        # It opens on the winner, ada.
        pressed = page.locator('#racer-buttons button[aria-pressed="true"]')
        await expect(pressed).to_have_attribute("data-player", ada.player_id)
        await expect(page.locator("#step-label")).to_have_text(f"the deal (of {len(line)} moves)")
        await page.locator("#step").fill(str(len(line)))
        await expect(page.locator("#step-label")).to_contain_text(f"move {len(line)}/{len(line)}: {line[-1]}")
        # Her button pressed again keeps the step shown: nothing is loaded again.
        await pressed.click()
        await page.wait_for_timeout(500)
        await expect(page.locator("#step-label")).to_contain_text(f"move {len(line)}/{len(line)}: {line[-1]}")
        assert errors == []  # before the node stops: a page still open then fails to reconnect


async def replay_switched_while_paging(page: Page, race_id: str, ada: str, bob: str) -> None:
    """ada's replay (201 moves) and bob's (1), both chosen at once, bob last."""
    await go(page, f"#/replay/{race_id}")
    label, pressed = page.locator("#step-label"), page.locator('#racer-buttons button[aria-pressed="true"]')
    # The page opens on the first racer in the results (equal results: by player id).
    first = page.locator("#racer-buttons button").first
    await expect(first).to_have_attribute("aria-pressed", "true")
    opened_on = await first.get_attribute("data-player")
    await expect(label).to_have_text(f"the deal (of {'1 move' if opened_on == bob else '201 moves'})")
    # ada's button, then bob's, in one go: ada's second page is still to come when bob's
    # replay is whole, and must not end up in it or take the page back to ada.
    await page.evaluate(
        """(ids) => { for (const id of ids) document.querySelector(
             `#racer-buttons button[data-player="${id}"]`).click(); }""",
        [ada, bob],
    )
    for _ in range(2):  # and still so once any late page of ada's would have come
        await expect(label).to_have_text("the deal (of 1 move)")
        await expect(pressed).to_have_attribute("data-player", bob)
        await page.wait_for_timeout(300)
    await page.click(f'#racer-buttons button[data-player="{ada}"]')
    await expect(label).to_have_text("the deal (of 201 moves)")
    await page.locator("#step").fill("201")
    await expect(label).to_contain_text("move 201/201: r1>r5")


async def test_the_verify_page_re_deals_a_finished_race_and_steps_through_its_moves(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    errors: list[str] = []
    race_id, line, (ada, bob) = await finished_race(connect, arena.url)
    page = await open_page(browser, arena.url, errors, **DESKTOP)
    await go(page, f"#/verify/{race_id}")
    # Named by its racers and game once its record is read (as the Replay page names it).
    await expect(page.locator("#verify-title")).to_have_text("Verify: ada vs bob (Eight Off)")
    await expect(page).to_have_title("Verify: ada vs bob (Eight Off) \N{EM DASH} Solitaire Arena")
    checks = page.locator("#checks")
    for check in (
        "commitment",
        "shares",
        "seed",
        "version",
        f"deal-{ada.player_id}",
        f"deal-{bob.player_id}",
    ):
        await expect(checks.locator(f'li[data-check="{check}"]')).to_have_class("pass")
    await expect(checks.locator(f'li[data-check="moves-{ada.player_id}"]')).to_have_class("pass")
    # The summary says whose moves were compared: ada's, bob's only once he is picked.
    await expect(page.locator("#verdict")).to_have_text(
        "Every check made here passed. Only ada's moves were compared with the server's replay:"
        f" pick bob below to compare theirs. {UNCHECKED_HERE}"
    )
    await expect(page.locator("#checks .fail")).to_have_count(0)
    await expect(page.locator("main")).to_contain_text("solitaire-arena verify FILE")
    deal = replay("eight-off", WINNABLE_SEED, []).view()  # type: ignore[arg-type]
    assert await shown_in(page, "#deal-board") == expected(deal)
    await expect(page.locator("#step-label")).to_contain_text(f"of {len(line)} moves")
    await page.locator("#step").fill(str(len(line)))
    await expect(page.locator("#step-label")).to_have_text(f"move {len(line)}/{len(line)}: {line[-1]}")
    won = replay("eight-off", WINNABLE_SEED, line).view()  # type: ignore[arg-type]
    assert await shown_in(page, "#board") == expected(won)
    await page.screenshot(path=shot_path("verify-race"), full_page=True)
    # bob's moves: his button steps through his one move.
    await page.locator(f'#racer-buttons button[data-player="{bob.player_id}"]').click()
    await expect(page.locator("#step-label")).to_have_text("the deal (of 1 move)")
    await page.locator("#step").fill("1")
    await page.locator(f'#racer-buttons button[data-player="{bob.player_id}"]').click()  # pressed again
    await page.wait_for_timeout(500)
    await expect(page.locator("#step-label")).to_have_text(f"move 1/1: {line[0]}")
    bobs_moves = checks.locator(f'li[data-check="moves-{bob.player_id}"]')
    await expect(bobs_moves).to_have_class("pass")
    await expect(bobs_moves).to_contain_text("the record's 1 move")
    await expect(page.locator("#verdict")).to_have_text(
        "Every check made here passed. Every racer's moves were compared with the server's replay."
        f" {UNCHECKED_HERE}"
    )
    # The record downloads as text, the same the server gives.
    async with page.expect_download() as waiting:
        await page.click("#download")
    saved = await (await waiting.value).path()
    assert saved.read_text() == await ada.record(race_id)
    # The race page's results and the replay page link here.
    await go(page, f"#/replay/{race_id}")
    assert await page.locator("#verify-link").get_attribute("href") == f"#/verify/{race_id}"
    assert errors == []


#: What the verify page's summary says it leaves to the Python engine.
UNCHECKED_HERE = (
    "Not checked here: each move's legality and time, and that the results follow from the moves"
    " (solitaire-arena verify FILE checks them)."
)


def documented_record() -> str:
    """The example record of docs/record.md: two racers with seed shares, mixed."""
    found = re.search(r"```text\n(\[Event.*?)```", (ROOT / "docs" / "record.md").read_text(), re.S)
    assert found is not None
    return found[1]


async def test_a_pasted_record_is_checked_and_a_wrong_commitment_fails(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors, **DESKTOP)
    await page.fill("#name", "vera")
    await page.click("#create")  # a session, and a race of the browser's own
    await expect(page.locator("#status")).to_contain_text("share the code")
    await go(page, "#/verify")
    text = documented_record()
    await page.fill("#record-text", text)
    await page.click("#verify-pasted")
    checks = page.locator("#checks")
    for check in ("commitment", "shares", "seed"):
        await expect(checks.locator(f'li[data-check="{check}"]')).to_have_class("pass")
    await expect(checks.locator('li[data-check="shares"]')).to_contain_text("2 racers added a share")
    await expect(checks.locator('li[data-check="server"]')).to_contain_text("not stepped through")
    await expect(page.locator("#deal-board .card")).to_have_count(52)
    await expect(page.locator("#verdict")).to_have_text(
        f"Every check made here passed. No racer's moves were compared with a replay. {UNCHECKED_HERE}"
    )
    await page.screenshot(path=shot_path("verify-pasted"), full_page=True)
    wrong = re.sub(r'\[Commitment "([0-9a-f])', lambda m: f'[Commitment "{"0" if m[1] != "0" else "1"}', text)
    await page.fill("#record-text", wrong)
    await page.click("#verify-pasted")
    await expect(checks.locator('li[data-check="commitment"]')).to_have_class("fail")
    await expect(checks.locator('li[data-check="commitment"]')).to_contain_text(
        "but the record's commitment is"
    )
    await expect(checks.locator('li[data-check="seed"]')).to_have_class("pass")
    await expect(page.locator("#verdict")).to_have_text(
        f"1 check failed. No racer's moves were compared with a replay. {UNCHECKED_HERE}"
    )
    # A share that does not match its commitment fails the shares check.
    tampered = text.replace("9e107d9d372bb6826bd81d3542a419d6", "9e107d9d372bb6826bd81d3542a419d7")
    await page.fill("#record-text", tampered)
    await page.click("#verify-pasted")
    await expect(checks.locator('li[data-check="shares"]')).to_have_class("fail")
    await page.screenshot(path=shot_path("verify-pasted-wrong"), full_page=True)
    # A view that is not the deal: its cards are written as the board draws them.
    difference = await page.evaluate(
        """async () => (await import("/static/js/verify.js")).dealDifference(
            { r1: ["2S", "5H"] }, { piles: { r1: { count: 2, cards: ["JC"] } } })"""
    )
    assert difference == "r1 shows J♣, the deal 5♥"
    # A record read is offered for download, one that fails its checks too; text that is
    # no record is not.
    await expect(page.locator("#download")).to_be_visible()
    for not_a_record in ("hello, this is not a record", "# only a comment"):
        await page.fill("#record-text", not_a_record)
        await page.click("#verify-pasted")
        await expect(checks.locator('li[data-check="form"]')).to_have_class("fail")
        await expect(page.locator("#verdict")).to_have_text("1 check failed.")
        await expect(page.locator("#download")).to_be_hidden()
    await page.fill("#record-text", text)
    await page.click("#verify-pasted")
    await expect(page.locator("#download")).to_be_visible()
    # The box emptied and Verify pressed: the field says what it needs, and no verdict of
    # the record before stays beside it.
    await page.fill("#record-text", "")
    await page.click("#verify-pasted")
    await expect(page.get_by_text("Paste a race record here, or open its file, first.")).to_be_visible()
    await expect(checks.locator("li")).to_have_count(0)
    await expect(page.locator("#verdict")).to_have_text("")
    for gone in ("#download", "#deal-board"):
        await expect(page.locator(gone)).to_be_hidden()
    # Its file box offers the archive's records (.rec) as well as text files.
    assert await page.locator("#record-file").get_attribute("accept") == ".rec,.txt,.pgn,text/plain"
    assert errors == []


async def test_the_verify_page_names_an_unknown_game_and_refuses_a_file_that_is_not_utf8(
    browser: Browser, arena: ArenaServer
) -> None:
    """As solitaire-arena verify does: a Game no record has is named, and a record file
    that is not UTF-8 (a Latin-1 alicé) is refused rather than read with a garbled name."""
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors, **DESKTOP)
    await go(page, "#/verify")
    text = documented_record()
    await page.fill("#record-text", text.replace('[Game "eight-off"]', '[Game "klondike"]'))
    await page.click("#verify-pasted")
    form = page.locator('#checks li[data-check="form"]')
    await expect(form).to_have_text(
        "✗ Record: failed — line 2: unknown game 'klondike' "
        "(a record's game is eight-off, eagle-wing or treize)"
    )
    await expect(page.locator("#verdict")).to_have_text("1 check failed.")
    alice = text.replace("Ada Lovelace", "alicé")
    latin1 = {"name": "race.txt", "mimeType": "text/plain", "buffer": alice.encode("latin-1")}
    await page.set_input_files("#record-file", files=[latin1])
    await expect(form).to_have_text(
        "✗ Record: failed — race.txt is not a race record: not UTF-8 text "
        "(save it as UTF-8 and open it again)"
    )
    await expect(page.locator("#verdict")).to_have_text("1 check failed.")
    await expect(page.locator("#record-text")).to_have_value("")
    utf8 = {**latin1, "buffer": alice.encode()}
    await page.set_input_files("#record-file", files=[utf8])
    await expect(page.locator("#record-text")).to_have_value(alice)
    await expect(page.locator('#checks li[data-check="seed"]')).to_have_class("pass")
    await expect(form).to_have_count(0)
    assert errors == []


async def test_a_record_verified_while_the_one_before_still_loads_shows_only_its_own_checks(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """The server's replay of the first record's race comes after a second record was
    pasted and verified: nothing of the first race joins the second's checks."""
    errors: list[str] = []
    race_id, _, (ada, _bob) = await finished_race(connect, arena.url)
    page = await (await browser.new_context(**DESKTOP)).new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    held = HeldReplies("replay")
    await page.route_web_socket(re.compile("^ws://"), held.route)
    await page.goto(arena.url.replace("ws://", "http://") + "/#/verify")
    await page.fill("#record-text", await ada.record(race_id))
    await page.click("#verify-pasted")
    await held.wait(page, "replay")  # ada's moves, held back
    await page.fill("#record-text", documented_record())  # a race of another server
    await page.click("#verify-pasted")
    checks = page.locator("#checks li")
    await expect(page.locator('#checks li[data-check="server"]')).to_contain_text("not stepped through")
    held.release()  # ada's moves come, and then the first record would ask for bob's deal
    await page.wait_for_timeout(500)
    ids = ["commitment", "shares", "seed", "version", "legality", "server"]
    assert await checks.evaluate_all("(items) => items.map((li) => li.dataset.check)") == ids
    await expect(page.locator("#steps")).to_be_hidden()
    assert errors == []


async def test_browser_racers_commit_and_reveal_seed_shares_and_the_race_starts(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    ada = await open_page(browser, arena.url, errors, **DESKTOP)
    bob = await open_page(browser, arena.url, errors, **DESKTOP)
    await ada.fill("#name", "ada")
    await ada.click("#create")
    await expect(ada.locator("#status")).to_contain_text("share the code")
    race_id = page_race_id(ada.url)
    code = re.search(r"Race ([A-Z0-9]{6})", await ada.locator("#status").inner_text())
    assert code is not None
    await bob.fill("#name", "bob")
    await bob.fill("#code", code[1])
    await bob.click("#join")
    await expect(bob.locator("#status")).to_contain_text("share the code")
    share_key = f"solitaire-arena.share.{race_id}"
    shares = [await p.evaluate("(k) => localStorage.getItem(k)", share_key) for p in (ada, bob)]
    assert all(re.fullmatch(r"[0-9a-f]{64}", s or "") for s in shares) and shares[0] != shares[1]
    # A reload before ready loses nothing: the share waits in this browser's storage.
    await ada.reload()
    await expect(ada.locator("#ready")).to_be_visible()
    # A share that is not the one committed to is refused (bad_share) …
    await bob.evaluate("(k) => localStorage.setItem(k, '00'.repeat(32))", share_key)
    await bob.click("#ready")
    await expect(bob.locator("#refusal")).to_contain_text("share")
    await bob.evaluate("([k, s]) => localStorage.setItem(k, s)", [share_key, shares[1]])
    # … and the right ones start the race.
    await ada.click("#ready")
    await bob.click("#ready")
    await expect(ada.locator("#status")).to_have_text("Go!", timeout=10_000)
    await expect(bob.locator("#status")).to_have_text("Go!", timeout=10_000)
    assert await shown(ada) == expected(replay("eight-off", WINNABLE_SEED, []).view())  # type: ignore[arg-type]
    assert errors == []


async def test_a_visitor_who_only_watched_races_under_the_name_they_choose(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """Watching needs a session, but a viewer's, not a player's: nothing is saved or
    shown as the visitor, and the lobby starts their own guest."""
    errors: list[str] = []
    race_id, _ = await sdk_race(connect, arena.url, "ada", "bob")
    page = await open_page(browser, arena.url, errors, **DESKTOP)
    await page.click("#nav-live")
    await expect(page.locator(f'.live-race[data-race="{race_id}"]')).to_contain_text("ada")
    assert await page.evaluate("localStorage.getItem('solitaire-arena.token')") is None
    await expect(page.locator("#who")).to_have_text("")
    await page.click(f'.live-race[data-race="{race_id}"] .watch-link')
    await expect(page.locator("#watch-spectators")).to_have_text("1 watching")

    await go(page, "#/")
    await page.fill("#name", "cleo")
    await page.click("#create")
    await expect(page.locator("#status")).to_contain_text("share the code")
    await expect(page.locator("#who")).to_have_text("cleo (guest)")
    assert await page.evaluate("localStorage.getItem('solitaire-arena.token')") is not None
    code = re.search(r"Race ([A-Z0-9]{6})", await page.locator("#status").inner_text())
    assert code is not None
    (observer,) = await racers(arena.url, "observer")
    listed = await observer.request({"type": "list_races", "limit": 20})
    await observer.ws.close()
    names = [[r["name"] for r in race["racers"]] for race in listed["races"] if race["code"] == code[1]]
    assert names == [["cleo"]]
    assert errors == []


async def test_a_visitor_sees_the_leaderboard_without_choosing_a_name(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors, **DESKTOP)
    await go(page, "#/leaderboard/eight-off")
    await expect(page.locator("#leaderboard")).to_contain_text("Nobody is listed at Eight Off yet.")
    await expect(page.locator("#no-session")).to_have_count(0)
    assert await page.evaluate("localStorage.getItem('solitaire-arena.token')") is None
    assert errors == []


async def test_a_visitor_following_a_link_to_what_is_gone_is_told_so_and_where_to_look(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    errors: list[str] = []
    race_id, _, (ada, bob) = await finished_race(connect, arena.url)
    page = await open_page(browser, arena.url, errors, **DESKTOP)
    # Watching a race that is over: the links to what is left of it, and no empty parts.
    await go(page, f"#/watch/{race_id}")
    await expect(page.locator("#watch-error")).to_contain_text("the race is over")
    assert await page.locator("#over-results-link").get_attribute("href") == f"#/race/{race_id}"
    assert await page.locator("#over-replay-link").get_attribute("href") == f"#/replay/{race_id}"
    await expect(page.locator(".thumbs-title")).to_be_hidden()
    await page.click("#over-results-link")
    await expect(page.locator("#results")).to_contain_text("Deal seed")
    # The replay says whose moves it shows: the winner's first, then the one chosen.
    await page.click("#replay-link")
    await heading_is_focused(page, "Replay: ada vs bob (Eight Off)")
    await expect(page).to_have_title("Replay: ada vs bob (Eight Off) \N{EM DASH} Solitaire Arena")
    chosen = page.locator('#racer-buttons button[aria-pressed="true"]')
    await expect(chosen).to_have_attribute("data-player", str(ada.player_id))
    await page.click(f'#racer-buttons button[data-player="{bob.player_id}"]')
    await expect(chosen).to_have_attribute("data-player", str(bob.player_id))
    await expect(page.locator("#step-label")).to_have_text("the deal (of 1 move)")  # bob's one move
    # A profile nobody has: the server's word, and no "Loading…" left waiting forever.
    await go(page, "#/profile/p_0123456789abcdef")
    await expect(page.locator("p.error")).to_contain_text("there is no player")
    await expect(page.get_by_text("Loading…")).to_have_count(0)
    # Verify with nothing pasted: asked for a record, not told a blank one lacks its headers.
    await go(page, "#/verify")
    await page.click("#verify-pasted")
    note = page.locator("#record-text-note")
    await expect(note).to_have_text("Paste a race record here, or open its file, first.")
    await expect(page.locator("#record-text")).to_be_focused()
    await expect(page.locator("#checks li")).to_have_count(0)
    await page.set_viewport_size({"width": 360, "height": 740})  # a phone: the file field fits
    overflow = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the verify page is {overflow}px wider than the screen"
    assert errors == []

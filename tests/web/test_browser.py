"""The browser client against a real server and Redis, in real headless Chromium: two
browsers race one deal to the end by clicking, on a desktop and a phone-sized screen."""

from __future__ import annotations

import json
import re
import secrets
from typing import Any

import pytest
from playwright.async_api import Browser, Page, WebSocketRoute, expect

from client.sdk import ArenaClient
from client.wording import result_words, seconds_words
from server.app import ArenaServer
from server.redis_embedded import free_port
from shared import replay
from shared.protocol import RaceEnded
from shared.record import read_record
from tests.server.conftest import WINNABLE_SEED, Connect, running_node
from tests.server.solver import solve
from tests.web.conftest import give_up, shot_path

#: Piles whose every face-up card the page shows (fanned); the others show their top card.
FANNED = re.compile(r"t\d")


async def open_page(browser: Browser, url: str, errors: list[str], **options: Any) -> Page:
    context = await browser.new_context(**options)
    page = await context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(url.replace("ws://", "http://") + "/")
    return page


async def create_race_on(page: Page, name: str = "ada") -> str:
    """``name`` creates a race (of the game selected) on ``page``: its code, once the
    lobby shows."""
    await page.fill("#name", name)
    await page.click("#create")
    await expect(page.locator("#status")).to_contain_text("share the code")
    code = re.search(r"Race ([A-Z0-9]{6})", await page.locator("#status").inner_text())
    assert code is not None
    return code[1]


async def shown(page: Page) -> dict[str, list[str]]:
    """The cards the page shows, pile by pile."""
    result: dict[str, list[str]] = await page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('.pile')].map((p) => [
            p.dataset.pile, [...p.querySelectorAll('.card[data-card]')].map((c) => c.dataset.card)]))"""
    )
    return result


async def until_shown(page: Page, want: dict[str, list[str]], what: str = "", seconds: float = 10.0) -> None:
    """Wait (up to ``seconds``) for the page to draw ``want``, its cards pile by pile (a
    move's redraw waits for its ack, slower on a loaded machine); fail naming ``what`` and
    the page's refusal line otherwise."""
    for _ in range(round(seconds / 0.02)):
        if await shown(page) == want:
            return
        await page.wait_for_timeout(20)
    now = await shown(page)
    differ = {pile: (cards, want.get(pile)) for pile, cards in now.items() if cards != want.get(pile)}
    refusal = await page.locator("#refusal").inner_text()
    assert now == want, f"{what}: {refusal!r}, shown (and wanted): {differ}"


def expected(view: dict[str, Any]) -> dict[str, list[str]]:
    return {
        name: list(pile["cards"]) if FANNED.fullmatch(name) else pile["cards"][-1:]
        for name, pile in view["piles"].items()
    }


async def click_move(page: Page, move: str) -> None:
    source, target = move.split(">")
    pile, _, count = source.partition(":")
    cards = page.locator(f'.pile[data-pile="{pile}"] .card[data-card]')
    # Near the top edge: all a fanned card shows of itself when others lie on it.
    await cards.nth(await cards.count() - int(count or 1)).click(position={"x": 10, "y": 5})
    # Picked up before it is dropped, as a player sees it lift: a pick that did not take
    # fails here, not as a board that never changes.
    picked = page.locator(f'.pile[data-pile="{pile}"] .card.selected')
    await expect(picked, f"{move}: {pile} picked up").to_have_count(1)
    await page.locator(f'.pile[data-pile="{target}"]').click(position={"x": 5, "y": 5})


async def fits_the_screen(page: Page, board: str = "#board") -> None:
    """Nothing on the page is wider than the screen, nor is the board wider than its box.
    The screen's width is the context's: a mobile one widens innerWidth to a wider page."""
    assert page.viewport_size is not None
    width, screen = await page.evaluate("document.documentElement.scrollWidth"), page.viewport_size["width"]
    assert width <= screen, f"the page is {width}px wide on a {screen}px screen"
    clipped = await page.locator(board).evaluate("(b) => b.scrollWidth - b.clientWidth")
    assert clipped <= 0, f"the board is {clipped}px wider than its box"


async def race_to_the_end(
    browser: Browser, arena: ArenaServer, tag: str, bob_name: str = "bob", **options: Any
) -> None:
    """ada and ``bob_name`` race Eight Off to the end; a phone (under 400 px wide) checks
    that nothing is wider than its screen: the board, the long name in the header, the
    results and the profile."""
    phone = options["viewport"]["width"] < 400
    errors: list[str] = []
    ada = await open_page(browser, arena.url, errors, **options)
    bob = await open_page(browser, arena.url, errors, **options)
    acks: list[dict[str, Any]] = []  # ada's, as the server sent them
    ada.on("websocket", lambda ws: ws.on("framereceived", lambda f: acks.append(json.loads(f))))
    await ada.fill("#name", "ada")
    await ada.click("#create")
    await expect(ada.locator("#status")).to_contain_text("share the code")
    code = re.search(r"Race ([A-Z0-9]{6})", await ada.locator("#status").inner_text())
    assert code is not None
    await expect(ada.locator("#race-game")).to_have_text("Eight Off · 10 min")  # the game, and its limit
    await bob.fill("#name", bob_name)
    await bob.fill("#code", code[1])
    await bob.click("#join")
    await expect(bob.locator("#status")).to_contain_text("share the code")
    # Who sits and who is ready, as the terminal's lobby line says it.
    await expect(ada.locator("#status")).to_have_text(
        f"Race {code[1]}: 2 of 2 seated, 0 ready; share the code, everyone presses Ready"
    )
    await ada.screenshot(path=shot_path(f"{tag}-lobby"))
    await ada.click("#ready")
    await expect(bob.locator("#status")).to_contain_text("2 of 2 seated, 1 ready;")
    await bob.click("#ready")
    await expect(ada.locator("#status")).to_have_text("Go!", timeout=10_000)
    await expect(ada.locator("#race-game")).to_have_text("Eight Off")
    if phone:
        await fits_the_screen(ada)
        await fits_the_screen(bob)  # its header's long name too
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None
    await ada.screenshot(path=shot_path(f"{tag}-start"))
    for index, move in enumerate(line):
        await click_move(ada, move)
        want = expected(replay("eight-off", WINNABLE_SEED, line[: index + 1]).view())  # type: ignore[arg-type]
        await until_shown(ada, want, f"after {move}")
        if index == 10:
            await ada.screenshot(path=shot_path(f"{tag}-mid-race"), animations="disabled")  # no glide
    await expect(ada.locator("#status")).to_contain_text("You won")
    # Each board above was drawn from an ack holding only the piles its move changed.
    acked = [f for f in acks if f["type"] == "move_ack"]
    assert len(acked) == len(line) and all(f["changed_only"] for f in acked)
    assert max(len(f["view"]["piles"]) for f in acked) < 20
    await give_up(bob)
    await expect(ada.locator("#results")).to_contain_text("1.")
    results = await ada.locator("#results").inner_text()
    assert results.index("ada") < results.index(bob_name)
    # Each racer finds themself in the results, as in the racers panel and the daily boards.
    await expect(ada.locator('#standings thead th[scope="col"]')).to_have_text(["Rank", "Player", "Result"])
    await expect(ada.locator("#standings tbody tr").first).to_contain_text("ada (you)")
    await expect(bob.locator("#standings tbody tr").nth(1)).to_contain_text(f"{bob_name} (you)")
    await expect(bob.locator("#results")).to_contain_text("Deal seed")
    await ada.screenshot(path=shot_path(f"{tag}-results"), full_page=True)
    if phone:
        await fits_the_screen(ada)  # the results' long name
        await bob.locator("#standings a.player").nth(1).click()
        await expect(bob.locator("#profile-name")).to_have_text(bob_name)
        await fits_the_screen(bob, "#app")  # the heading's long name
    # The replay: the slider at the end shows the won board, and back at 0 the deal.
    await ada.click("#replay-link")
    await expect(ada.locator("#step-label")).to_contain_text(f"of {len(line)} moves")
    await ada.locator("#step").fill(str(len(line)))
    await expect(ada.locator("#step-label")).to_have_text(
        re.compile(rf"^move {len(line)}/{len(line)}: {re.escape(line[-1])} at \d+:\d\d\.\d$")
    )
    assert await shown(ada) == expected(replay("eight-off", WINNABLE_SEED, line).view())  # type: ignore[arg-type]
    await expect(ada.locator("#board [tabindex]")).to_have_count(0)  # the replay's board: no tab stop
    await ada.screenshot(path=shot_path(f"{tag}-replay"), full_page=True)
    await ada.locator("#step").fill("0")
    assert await shown(ada) == expected(replay("eight-off", WINNABLE_SEED, []).view())  # type: ignore[arg-type]
    assert errors == []


async def test_the_browser_loads_the_page_gzipped_and_under_200_kb(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    context = await browser.new_context()
    page = await context.new_page()
    encodings: dict[str, str | None] = {}
    page.on(
        "response", lambda r: encodings.__setitem__(r.url.split("/", 3)[3], r.headers.get("content-encoding"))
    )
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(arena.url.replace("ws://", "http://") + "/")
    await expect(page.locator("#create")).to_be_visible()
    transferred = await page.evaluate(
        "() => performance.getEntriesByType('resource').concat(performance.getEntriesByType('navigation'))"
        ".reduce((sum, e) => sum + e.transferSize, 0)"
    )
    assert encodings["static/js/app.js"] == "gzip" and encodings["static/style.css"] == "gzip"
    assert 0 < transferred < 200 * 1024
    await context.close()
    assert errors == []


async def test_two_browsers_race_one_deal_to_the_end_by_clicking(
    browser: Browser, arena: ArenaServer
) -> None:
    await race_to_the_end(browser, arena, "desktop", viewport={"width": 1280, "height": 900})


async def test_a_phone_sized_screen_races_too_and_the_page_does_not_overflow(
    browser: Browser, arena: ArenaServer
) -> None:
    # 360 px, a common narrow phone; bob's name is as long as names go (24, no space).
    phone = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}
    await race_to_the_end(browser, arena, "phone", "bob" + "W" * 21, **phone)


async def test_on_a_320_px_phone_short_names_show_whole_beside_you_and_the_progress_bar(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    phone = {"viewport": {"width": 320, "height": 700}, "is_mobile": True, "has_touch": True}
    page = await open_page(browser, arena.url, errors, **phone)
    code = await create_race_on(page)
    bob = await ArenaClient.connect(arena.url, reconnect=True)
    await bob.hello(name="bob")
    await bob.register(f"bobby{secrets.token_hex(2)}", "a long password")  # shown with a rating
    await bob.ready((await bob.join_race(code)).race_id)
    await page.click("#ready")
    await expect(page.locator("#status")).to_have_text("Go!", timeout=10_000)
    names = page.locator(".racer-name.cut > .who")
    await expect(names).to_have_count(2)
    widths = await names.evaluate_all("els => els.map(e => [e.textContent, e.scrollWidth, e.clientWidth])")
    assert sorted(name for name, _, _ in widths) == ["ada", bob.name], widths
    assert all(needs <= has for _, needs, has in widths), widths  # neither cut
    await bob.close()
    assert errors == []


async def test_a_race_created_in_the_lobby_has_the_time_limit_chosen(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    await expect(page.locator("#time-limit")).to_have_value("600")  # ten minutes unless chosen
    await page.select_option("#time-limit", label="5 min")
    code = await create_race_on(page)
    await expect(page.locator("#race-game")).to_have_text("Eight Off · 5 min")
    bob = await ArenaClient.connect(arena.url)
    await bob.hello(name="bob")
    assert (await bob.join_race(code)).time_limit == 300
    await bob.close()
    assert errors == []


async def running_race_page(
    browser: Browser,
    url: str,
    errors: list[str],
    game: str = "eight-off",
    rival: str = "bob",
    name: str = "ada",
    **options: Any,
) -> tuple[Page, ArenaClient]:
    """ada (named ``name``) in a browser (its context made with ``options``) and bob
    (named ``rival``) through the SDK, in a race that has started."""
    ada = await open_page(browser, url, errors, **options)
    await ada.select_option("#game", game)
    code = await create_race_on(ada, name)
    bob = await ArenaClient.connect(url, reconnect=True)
    await bob.hello(name=rival)
    await bob.ready((await bob.join_race(code)).race_id)
    await ada.click("#ready")
    await expect(ada.locator("#status")).to_have_text("Go!", timeout=10_000)
    return ada, bob


async def test_a_refused_move_shows_the_servers_reason(browser: Browser, arena: ArenaServer) -> None:
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors, viewport={"width": 1280, "height": 800})
    before = await shown(page)
    await page.fill("#move", "t1>t1")
    await page.press("#move", "Enter")
    await expect(page.locator("#refusal")).to_have_text("t1 cannot move onto itself")
    assert await shown(page) == before
    # On a desktop screen the reason is in sight, beside the move box, which keeps the move
    # typed to be put right; a move the server takes empties it.
    await expect(page.locator("#refusal")).to_be_in_viewport(ratio=1)
    await expect(page.locator("#move")).to_have_value("t1>t1")
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None
    await page.fill("#move", line[0])
    await page.press("#move", "Enter")
    await expect(page.locator("#refusal")).to_have_text("")
    await expect(page.locator("#move")).to_have_value("")
    before = await shown(page)
    assert before == expected(replay("eight-off", WINNABLE_SEED, line[:1]).view())  # type: ignore[arg-type]

    # A refusal that names cards writes them as the board does (9♦, not 9D).
    ranks = "A23456789TJQK"
    tops = {pile: cards[-1] for pile, cards in before.items() if pile.startswith("t") and cards}
    source, target = next(
        (a, b)
        for a in tops
        for b in tops
        if a != b
        and not (tops[a][1] == tops[b][1] and ranks.index(tops[a][0]) + 1 == ranks.index(tops[b][0]))
    )
    await page.fill("#move", f"{source}>{target}")
    await page.press("#move", "Enter")
    in_words = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
    card, top = (f"{c[0].replace('T', '10')}{in_words[c[1]]}" for c in (tops[source], tops[target]))
    await expect(page.locator("#refusal")).to_have_text(
        f"{card} does not fit on {target} (top {top}): the tableau builds down in suit"
    )
    await page.screenshot(path=shot_path("refusal"))

    # A quick match while racing is refused: the lobby names the race by its code, as its
    # "Your races" table does, and links to it.
    race_id = page_race_id(page.url)
    code = (await bob.get_race(race_id)).code
    await page.evaluate("location.hash = '#/'")
    await page.click("text=Quick match: Treize")
    refusal = page.locator("p.error").first
    await expect(refusal).to_have_text(f"you are racing in race {code}: finish it before queueing again")
    assert await refusal.locator("a").get_attribute("href") == f"#/race/{race_id}"
    await expect(page.locator(f'#my-races tr[data-race="{race_id}"] td').first).to_have_text(code)
    await bob.close()
    assert errors == []


async def test_a_page_resumes_by_itself_after_a_server_restart(browser: Browser, clean_redis: str) -> None:
    errors: list[str] = []
    port = free_port()
    async with running_node(clean_redis, port=port) as first:
        ada, bob = await running_race_page(browser, first.url, errors)
    await expect(ada.locator("#link")).to_have_text("reconnecting…")
    await ada.fill("#move", "t1>t1")  # tried while the server is away: refused for that
    await ada.press("#move", "Enter")
    await expect(ada.locator("#refusal")).not_to_have_text("", timeout=10_000)
    await ada.screenshot(path=shot_path("reconnecting"))
    async with running_node(clean_redis, port=port):
        await expect(ada.locator("#link")).to_have_text("", timeout=15_000)
        await expect(ada.locator("#refusal")).to_have_text("")  # back: that line goes
        line = solve("eight-off", WINNABLE_SEED)
        assert line is not None
        await click_move(ada, line[0])
        want = expected(replay("eight-off", WINNABLE_SEED, line[:1]).view())  # type: ignore[arg-type]
        await until_shown(ada, want, "the first move")
        await ada.screenshot(path=shot_path("resumed"))
        await bob.close()
    # The page logs the failed reconnection attempts while the server is down; nothing else.
    assert [e for e in errors if "WebSocket" not in e and "ERR_CONNECTION_REFUSED" not in e] == []


class Outage:
    """Routes a context's WebSockets through the test: :meth:`begin` drops them and
    refuses new ones (the server out of reach), :meth:`end` lets them through again. The
    server itself stays up."""

    def __init__(self) -> None:
        self.down = False
        self.open: list[WebSocketRoute] = []

    async def route(self, ws: WebSocketRoute) -> None:
        if self.down:
            await ws.close()
            return
        ws.connect_to_server()
        self.open.append(ws)

    async def begin(self) -> None:
        self.down = True
        for ws in self.open:
            await ws.close()
        self.open = []

    def end(self) -> None:
        self.down = False


async def page_with_outage(browser: Browser, url: str, errors: list[str]) -> tuple[Page, Outage]:
    """A page of the node at ``url`` (its errors kept in ``errors``) whose connections an
    :class:`Outage` routes, at the home page."""
    context = await browser.new_context()
    outage = Outage()
    await context.route_web_socket(re.compile("^ws://"), outage.route)
    page = await context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(url.replace("ws://", "http://") + "/")
    return page, outage


async def test_the_leaderboard_profile_and_daily_pages_opened_offline_load_once_the_connection_is_back(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    context = await browser.new_context()
    outage = Outage()
    await context.route_web_socket(re.compile("^ws://"), outage.route)
    tabs = [await context.new_page() for _ in range(3)]
    for tab in tabs:
        tab.on("pageerror", lambda e: errors.append(str(e)))
    home = arena.url.replace("ws://", "http://") + "/"
    await tabs[0].goto(home)
    await tabs[0].fill("#name", "ada")
    await tabs[0].press("#name", "Enter")
    await expect(tabs[0].locator("#who")).to_have_text("ada (guest)")
    for tab in tabs[1:]:
        await tab.goto(home)
        await expect(tab.locator("#who")).to_have_text("ada (guest)")
    await outage.begin()
    leaderboard, profile, daily = tabs
    for tab, address in zip(tabs, ("#/leaderboard", "#/profile", "#/daily/standings"), strict=True):
        await tab.evaluate(f"location.hash = '{address}'")
    for tab in tabs:  # what they cannot read they say so (once the request is overdue)...
        await expect(tab.locator("p.error")).not_to_have_text("", timeout=15_000)
    outage.end()
    # ...and read it once the connection is back, the error gone.
    await expect(leaderboard.locator("#leaderboard tbody")).to_have_text("Nobody is listed at Eight Off yet.")
    await expect(profile.locator("#profile-name")).to_have_text("ada")
    await expect(daily.locator("#daily-tabs")).to_be_visible()  # the Standings tab, drawn
    for tab in tabs:  # "connected again" said, then gone
        await expect(tab.locator("#link")).to_have_text("", timeout=10_000)
        await expect(tab.locator("p.error")).to_have_text("")
    assert errors == []


@pytest.mark.parametrize("game", ["treize", "eagle-wing"])
async def test_each_game_is_drawn_with_every_face_up_card_and_plays_by_clicking(
    browser: Browser, arena: ArenaServer, game: str
) -> None:
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors, game)
    board = await bob.board((await bob.get_race(page_race_id(page.url))).race_id)
    assert board is not None
    view = board.view.model_dump()
    faces = await shown(page)
    for name, pile in view["piles"].items():
        if name == "waste" or FANNED.fullmatch(name):
            assert faces[name] == pile["cards"], name
        else:
            assert faces[name] == pile["cards"][-1:], name
    await page.screenshot(path=shot_path(f"{game}-start"), full_page=True)
    # Every racer starts with the deal's cards left: Eagle Wing deals one home already.
    states = page.locator(".racer[data-player] .racer-state")
    await expect(states).to_have_text([f"{52 - view['score']} left"] * 2)
    # A move by clicks: the stock deals (Treize and Eagle Wing both start with "deal").
    await page.locator('.pile[data-pile="stock"]').click(position={"x": 5, "y": 5})
    await expect(page.locator(".racer[data-player] >> nth=0")).to_contain_text("left")
    for _ in range(100):
        if (await shown(page))["waste"]:
            break
        await page.wait_for_timeout(20)
    assert (await shown(page))["waste"], "the stock did not deal"
    for width in (1280, 360):  # a pile's name is never hidden under another pile's cards
        await page.set_viewport_size({"width": width, "height": 740})
        await page.reload()
        await expect(page.locator('#board .pile[data-pile="stock"]')).to_be_visible()
        assert await labels_under_cards(page) == [], width
    await bob.close()
    assert errors == []


async def labels_under_cards(page: Page) -> list[str]:
    """The piles whose name (their label) another pile's card covers in part: a card of
    another pile is what is drawn at one of the label's corners or at its middle (a label
    drawn over cards, as Treize's pyramid names are, is not under them)."""
    covered: list[str] = await page.evaluate(
        """() => [...document.querySelectorAll("#board .pile")].filter((pile) => {
          const label = pile.querySelector(":scope > .label");
          if (!label || getComputedStyle(label).display === "none") return false;
          label.scrollIntoView({ block: "center", inline: "center" }); // what is drawn is read in sight only
          const box = label.getBoundingClientRect();
          const points = [[box.left + 1, box.top + 1], [box.right - 1, box.top + 1],
            [box.left + 1, box.bottom - 1], [box.right - 1, box.bottom - 1],
            [(box.left + box.right) / 2, (box.top + box.bottom) / 2]];
          label.style.pointerEvents = "auto"; // a name clicks go through is looked at all the same
          const drawn = points.map(([x, y]) => document.elementFromPoint(x, y));
          label.style.pointerEvents = "";
          return drawn.some((e) => e?.closest(".card") && !pile.contains(e));
        }).map((pile) => pile.dataset.pile)"""
    )
    return covered


def page_race_id(url: str) -> str:
    found = re.search(r"#/race/([0-9a-f]+)$", url)
    assert found is not None
    return found[1]


async def test_four_colour_suits_can_be_switched_on_and_are_remembered(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors)
    club = page.locator('.card[data-card$="C"]').first
    diamond = page.locator('.card[data-card$="D"]').first
    two_colours = (
        await club.evaluate("e => getComputedStyle(e).color"),
        await diamond.evaluate("e => getComputedStyle(e).color"),
    )
    await page.click("#colours")
    await expect(page.locator("#colours")).to_have_attribute("aria-pressed", "true")
    four = (
        await club.evaluate("e => getComputedStyle(e).color"),
        await diamond.evaluate("e => getComputedStyle(e).color"),
    )
    assert two_colours == ("rgb(27, 27, 27)", "rgb(192, 24, 43)")
    assert four == ("rgb(26, 127, 46)", "rgb(31, 95, 196)")
    await page.reload()
    await expect(page.locator("#colours")).to_have_attribute("aria-pressed", "true")
    await page.screenshot(path=shot_path("four-colour"))
    await bob.close()
    assert errors == []


async def test_a_card_dragged_onto_a_pile_is_moved_there(browser: Browser, arena: ArenaServer) -> None:
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors)
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None
    for index, move in enumerate(line[:3]):
        source, target = move.split(">")
        pile, _, count = source.partition(":")
        cards = page.locator(f'.pile[data-pile="{pile}"] .card[data-card]')
        card = cards.nth(await cards.count() - int(count or 1))
        await card.drag_to(
            page.locator(f'.pile[data-pile="{target}"]'),
            source_position={"x": 10, "y": 5},
            target_position={"x": 10, "y": 10},
        )
        want = expected(replay("eight-off", WINNABLE_SEED, line[: index + 1]).view())  # type: ignore[arg-type]
        await until_shown(page, want, f"after dragging {move}")
    await page.screenshot(path=shot_path("dragged"))
    await bob.close()
    assert errors == []


async def test_a_swipe_that_starts_on_a_card_scrolls_and_drops_nothing_on_the_next_tap(
    browser: Browser, arena: ArenaServer
) -> None:
    """On a touch screen a swipe that starts on a card scrolls the page (the browser cancels
    that pointer): the card is not dragged, and a tap on an empty reserve afterwards plays
    nothing there; the next move by taps is the only one played."""
    errors: list[str] = []
    phone = {"viewport": {"width": 390, "height": 500}, "is_mobile": True, "has_touch": True}
    page, bob = await running_race_page(browser, arena.url, errors, **phone)
    touch = await page.context.new_cdp_session(page)
    box = await page.locator('.pile[data-pile="t1"] .card[data-card]').first.bounding_box()
    assert box is not None
    x, y = box["x"] + 10, box["y"] + 10
    await touch.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for step in range(1, 10):
        point = {"x": x, "y": y - 15 * step}
        await touch.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
    await touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    assert await page.evaluate("scrollY") > 0  # it scrolled
    await page.locator('.pile[data-pile="r5"]').tap(position={"x": 5, "y": 5})
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None
    source, target = line[0].split(">")
    await page.locator(f'.pile[data-pile="{source}"] .card[data-card]').last.tap(position={"x": 10, "y": 5})
    await page.locator(f'.pile[data-pile="{target}"]').tap(position={"x": 5, "y": 5})
    want = expected(replay("eight-off", WINNABLE_SEED, line[:1]).view())  # type: ignore[arg-type]
    await until_shown(page, want, "the move")
    await bob.close()
    assert errors == []


async def test_the_animation_switch_is_on_remembered_and_starts_off_under_reduced_motion(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    switch = page.locator("#motion")
    await expect(page.locator("#create")).to_be_visible()  # app.js has run: the switch is set
    await expect(switch).to_have_accessible_name("Animations")
    await expect(switch).to_have_attribute("aria-pressed", "true")
    await switch.click()
    await expect(switch).to_have_attribute("aria-pressed", "false")
    await page.reload()
    await expect(page.locator("#create")).to_be_visible()
    await expect(switch).to_have_attribute("aria-pressed", "false")
    await switch.click()
    await page.reload()
    await expect(page.locator("#create")).to_be_visible()
    await expect(switch).to_have_attribute("aria-pressed", "true")
    # A system asking for reduced motion: off at every load, though it can be switched on.
    reduced = await open_page(browser, arena.url, errors, reduced_motion="reduce")
    await expect(reduced.locator("#create")).to_be_visible()
    await expect(reduced.locator("#motion")).to_have_attribute("aria-pressed", "false")
    await reduced.screenshot(path=shot_path("reduced-motion"))
    await reduced.click("#motion")
    await expect(reduced.locator("#motion")).to_have_attribute("aria-pressed", "true")
    await reduced.reload()
    await expect(reduced.locator("#create")).to_be_visible()
    await expect(reduced.locator("#motion")).to_have_attribute("aria-pressed", "false")
    assert errors == []


#: Clicks the source card and the target pile, waits for the board to be redrawn with the
#: ack (no card selected any more), and resolves with the animations running right then.
GLIDING_MOVE = """async ([source, count, target]) => {
  const board = document.getElementById('board');
  const cards = document.querySelectorAll(`.pile[data-pile="${source}"] .card[data-card]`);
  cards[cards.length - count].click();
  const drawn = new Promise((resolve) => {
    const watch = new MutationObserver(() => {
      if (!board.querySelector('.card.selected')) { watch.disconnect(); resolve(); }
    });
    watch.observe(board, { childList: true, subtree: true });
  });
  document.querySelector(`.pile[data-pile="${target}"]`).click();
  await drawn;
  return document.getAnimations().map((a) => ({
    card: a.effect.target.dataset.card ?? null, pile: a.effect.target.closest('.pile').dataset.pile,
    from: a.effect.getKeyframes()[0].transform, ms: a.effect.getTiming().duration }));
}"""


async def test_a_moved_card_glides_from_its_old_place_unless_animations_are_off(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors)
    await page.evaluate(
        """() => { window.violations = [];
          document.addEventListener('securitypolicyviolation',
            (e) => window.violations.push(e.violatedDirective)); }"""
    )
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None
    first = replay("eight-off", WINNABLE_SEED, []).play(line[0])
    source, target = line[0].split(">")
    pile, _, count = source.partition(":")
    glides = await page.evaluate(GLIDING_MOVE, [pile, int(count or 1), target])
    # The board is already redrawn as the ack says, while the moved card glides to it from
    # where it was (the animation is the transform only, from the old place to none).
    assert await shown(page) == expected(replay("eight-off", WINNABLE_SEED, line[:1]).view())  # type: ignore[arg-type]
    moved = first.steps[0]
    ours = [g for g in glides if g["card"] == moved.card]
    assert len(ours) == 1, glides
    assert ours[0]["pile"] == moved.dst and ours[0]["ms"] == 140, glides
    assert re.fullmatch(r"translate\(-?[\d.]+px, -?[\d.]+px\)", ours[0]["from"]), glides
    assert ours[0]["from"] != "translate(0px, 0px)"
    assert {g["card"] for g in glides} <= {step.card for step in first.steps}
    # Switched off: the next move is drawn with no animation at all.
    await page.click("#motion")
    await expect(page.locator("#motion")).to_have_attribute("aria-pressed", "false")
    source, target = line[1].split(">")
    pile, _, count = source.partition(":")
    assert await page.evaluate(GLIDING_MOVE, [pile, int(count or 1), target]) == []
    assert await shown(page) == expected(replay("eight-off", WINNABLE_SEED, line[:2]).view())  # type: ignore[arg-type]
    assert await page.evaluate("() => window.violations") == []  # the CSP allows element.animate
    await bob.close()
    assert errors == []


@pytest.mark.parametrize("where", ["another tab", "another browser"])
async def test_a_race_created_in_one_page_is_readied_from_another_page_of_the_same_player_and_starts(
    browser: Browser, clean_redis: str, where: str
) -> None:
    """Another tab of the same browser reveals the seed share the first page committed;
    another browser (the player's token, not the shares kept in the first) gets ready
    without it, with no error, says once that its share is left out of the deal, and it
    is."""
    errors: list[str] = []
    async with running_node(clean_redis, mix_shares=True) as node:
        first = await open_page(browser, node.url, errors)
        code = await create_race_on(first)
        if where == "another tab":
            second = await first.context.new_page()
        else:
            token = await first.evaluate("() => localStorage.getItem('solitaire-arena.token')")
            elsewhere = await browser.new_context()
            await elsewhere.add_init_script(
                f"localStorage.setItem('solitaire-arena.token', {json.dumps(token)})"
            )
            second = await elsewhere.new_page()
        second.on("pageerror", lambda e: errors.append(str(e)))
        await second.goto(first.url)
        await second.click("#ready")
        await expect(second.locator("#ready")).to_have_text("Not ready")
        await expect(second.locator("#refusal")).to_be_empty()
        if where == "another tab":
            await expect(second.locator("#share-note")).to_be_hidden()
        else:
            await expect(second.locator("#share-note")).to_have_text(
                "Your seed share for this race was committed in another browser or on another"
                " device: the deal is mixed without it, unless that one is still in this lobby when"
                " the countdown begins."
            )
            await expect(second.locator("#share-note")).to_be_visible()
        async with await ArenaClient.connect(node.url) as bob:
            await bob.hello(name="bob")
            race = await bob.join_race(code)
            ada = next(r for r in race.racers if r.name == "ada")
            assert (ada.ready, ada.share_committed, ada.share_revealed) == (
                True,
                True,
                where == "another tab",
            )
            await bob.ready(race.race_id)
            await expect(second.locator("#status")).to_have_text("Go!", timeout=10_000)
            await expect(second.locator("#share-note")).to_be_hidden()  # said till the start
        # Closed while the node runs: a page left open tries to reconnect to a node gone,
        # and its console says so.
        for page in (second, first):
            await page.close()
    assert errors == []


async def test_a_page_that_keeps_the_share_reveals_it_when_a_terminal_got_the_racer_ready(
    browser: Browser, clean_redis: str
) -> None:
    """ada created the race on the page (its share kept there), then got ready in her
    terminal, which has none; the page, still on the lobby, reveals the share as the
    countdown begins, and the deal is mixed with it."""
    errors: list[str] = []
    async with running_node(clean_redis, mix_shares=True, countdown=3.0) as node:
        page = await open_page(browser, node.url, errors)
        code = await create_race_on(page)
        token = await page.evaluate("() => localStorage.getItem('solitaire-arena.token')")
        terminal, bob = await ArenaClient.connect(node.url), await ArenaClient.connect(node.url)
        async with terminal, bob:
            await terminal.hello(token=token)
            await bob.hello(name="bob")
            race = await bob.join_race(code)
            await terminal.ready(race.race_id)
            await bob.ready(race.race_id)
            await expect(page.locator("#status")).to_have_text("Go!", timeout=10_000)
            for client in (terminal, bob):
                await client.finish(race.race_id)
            await bob.wait_for(RaceEnded, lambda e: e.race_id == race.race_id)
            record = read_record(await bob.record(race.race_id))
            kept = await page.evaluate(f"() => localStorage.getItem('solitaire-arena.share.{race.race_id}')")
            assert {s.player_id: s.share for s in record.shares} == {
                terminal.player_id: kept,
                bob.player_id: bob.shares[race.race_id],
            }
        await page.close()
    assert errors == []


async def test_a_race_page_never_writes_a_time_limit_longer_than_it_is(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    errors: list[str] = []
    bob = await connect(arena.url)
    await bob.hello(name="bob")
    page = await open_page(browser, arena.url, errors)
    for limit, said in ((59.6, "59.6 s"), (90.5, "1:30 min"), (600, "10 min")):
        race = await bob.create_race("eight-off", seats=2, time_limit=limit)
        await page.evaluate("(h) => { location.hash = h; }", f"#/race/{race.race_id}")
        await expect(page.locator("#race-game")).to_have_text(f"Eight Off · {said}")
        await bob.leave(race.race_id)
    assert errors == []


async def test_the_page_writes_a_race_time_as_the_terminal_does_cut_to_the_tenth(
    browser: Browser, arena: ArenaServer
) -> None:
    """Two racers comparing a page with a terminal read the same time: 1,599 ms is 1.5 s in
    both (cut, as the replay's clock cuts it), never 1.6 s in one of them."""
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    times = [0, 99, 1_599, 2_250, 3_250, 59_950, 95_012, 601_999]
    written = await page.evaluate(
        """async (times) => {
            const { seconds } = await import("/static/js/dom.js");
            return times.map(seconds);
        }""",
        times,
    )
    expected = ["0.0 s", "0.0 s", "1.5 s", "2.2 s", "3.2 s", "59.9 s", "95.0 s", "601.9 s"]
    assert written == expected
    assert [f"{seconds_words(ms)} s" for ms in times] == expected
    assert [result_words("eight-off", True, 52, ms) for ms in times] == [f"won in {e}" for e in expected]
    assert errors == []


async def test_the_browser_keeps_only_the_latest_seed_shares(browser: Browser, arena: ArenaServer) -> None:
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    kept = await page.evaluate(
        """async () => {
            const { keepShare, shareOf } = await import("/static/js/fairness.js");
            for (let n = 0; n < 50; n++) keepShare(`race${n}`, `${n}`.padStart(32, "0"));
            keepShare("race2", "2".padStart(32, "0"));  // kept again: the latest now
            keepShare("race50", "5".padStart(32, "0"));
            const shares = Object.keys(localStorage).filter((k) => k.startsWith("solitaire-arena.share."));
            return { count: shares.length, gone: [shareOf("race0"), shareOf("race1"), shareOf("race3")],
                     two: shareOf("race2"), last: shareOf("race50") };
        }"""
    )
    assert kept == {
        "count": 48,
        "gone": [None, None, None],
        "two": "2".rjust(32, "0"),
        "last": "5".rjust(32, "0"),
    }
    assert errors == []

"""Accessibility audit in real headless Chromium: on every page the app has (the lobby,
a race of each game, its results with and without a rematch offered, its replay, the
sign-in and account pages, the leaderboard and a profile, the daily challenges of today
and of a past day, a daily attempt and its results) every control has an accessible name,
and no page logs an error.

A control is anything a user can operate: a link, button, field or list, any element
with a widget role, and any element with a click, pointer or key listener whatever its
tag (found through Chromium's DevTools protocol, so a clickable ``div`` cannot hide).
Its name is checked twice: from the attributes that give one (``aria-label``,
``aria-labelledby``, a ``label``, the text of a button or link), and as Chromium's own
accessibility tree computes it."""

from __future__ import annotations

import asyncio
import datetime as dt
import re

from playwright.async_api import Browser, Page, expect

from client.errors import ArenaError
from client.sdk import ArenaClient
from server.app import ArenaServer
from shared.protocol import RaceEnded
from tests.server.conftest import WINNABLE_SEED
from tests.server.solver import solve
from tests.server.test_profiles import seed_ratings
from tests.web.conftest import give_up, shot_path
from tests.web.test_accounts_ratings import account, signed_in_page
from tests.web.test_browser import click_move, open_page, running_race_page
from tests.web.test_daily import DAY, daily_node, play_through

#: Events that make an element operable: an element listening for one is a control.
OPERATING_EVENTS = frozenset(
    {"click", "dblclick", "mousedown", "mouseup", "pointerdown", "pointerup", "touchstart", "touchend"}
    | {"keydown", "keyup", "keypress"}
)

#: Roles of Chromium's accessibility tree that are controls (a select is a combobox).
CONTROL_ROLES = frozenset(
    {"button", "link", "textbox", "searchbox", "combobox", "listbox", "spinbutton", "slider"}
    | {"checkbox", "switch", "radio", "tab", "menuitem", "menuitemcheckbox", "menuitemradio"}
)

#: In the page: every control, those without a name, and those inside another control.
#: Controls are found by tag, by role, by the board's card and pile classes, and by the
#: mark mark_operable() puts on every element with an operating listener. A name comes
#: from aria-label, aria-labelledby or a label, or from the text inside where ARIA takes
#: names from content (buttons, links and the like): a field's or a group's text never
#: names it. An element with no role at all (a bare div or span) cannot be named: ARIA
#: forbids naming a generic element, so a clickable one needs a role first. A control
#: inside a button or link is lost to screen readers (their content is presentational).
CONTROL_AUDIT = """() => {
  const controls = 'a[href], button, input, select, textarea, summary, [contenteditable], '
    + '[tabindex]:not([tabindex="-1"]), [role="button"], [role="link"], [role="checkbox"], '
    + '[role="switch"], [role="radio"], [role="slider"], [role="spinbutton"], [role="tab"], '
    + '[role="textbox"], [role="combobox"], [role^="menuitem"], [role="option"], '
    + '.card, .pile, [data-audit-operable]';
  const wrappers = 'a[href], button, summary, [role="button"], [role="link"], [role="checkbox"], '
    + '[role="switch"], [role="radio"], [role="tab"], [role^="menuitem"], [role="option"]';
  const fromContent = new Set(['button', 'link', 'checkbox', 'switch', 'radio', 'tab', 'option',
    'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem']);
  const words = (text) => (text ?? '').replace(/\\s+/g, ' ').trim();
  const role = (el) => el.getAttribute('role')
    ?? (el.matches('a[href]') ? 'link' : el.matches('button, summary') ? 'button' : '');
  const named = (el) => {
    if (!role(el) && !el.matches('input, select, textarea, img')) return false; // generic
    if (words(el.getAttribute('aria-label'))) return true;
    const by = (el.getAttribute('aria-labelledby') ?? '').split(/\\s+/).filter(Boolean);
    if (by.some((id) => words(document.getElementById(id)?.textContent))) return true;
    if ([...(el.labels ?? [])].some((label) => words(label.textContent))) return true;
    if (el.matches('input[type="button"], input[type="submit"], input[type="reset"]')) {
      return !!words(el.value);
    }
    if (el.matches('img[alt]')) return !!words(el.alt);
    return fromContent.has(role(el)) && !!words(el.textContent);
  };
  const found = [...document.querySelectorAll(controls)];
  return {
    checked: found.length,
    unnamed: found.filter((el) => !named(el)).map((el) => el.outerHTML),
    nested: found.filter((el) => el.parentElement?.closest(wrappers)).map((el) => el.outerHTML),
  };
}"""


async def mark_operable(page: Page) -> int:
    """Marks (``data-audit-operable``) every element in the body that listens for a click,
    pointer or key event, asking Chromium for each element's listeners; how many."""
    cdp = await page.context.new_cdp_session(page)
    marked = 0
    try:
        found = await cdp.send("Runtime.evaluate", {"expression": "[...document.body.querySelectorAll('*')]"})
        elements = await cdp.send(
            "Runtime.getProperties", {"objectId": found["result"]["objectId"], "ownProperties": True}
        )
        for entry in elements["result"]:
            handle = entry.get("value", {}).get("objectId")
            if not entry["name"].isdigit() or handle is None:
                continue
            listeners = await cdp.send("DOMDebugger.getEventListeners", {"objectId": handle})
            if any(listener["type"] in OPERATING_EVENTS for listener in listeners["listeners"]):
                marked += 1
                await cdp.send(
                    "Runtime.callFunctionOn",
                    {
                        "objectId": handle,
                        "functionDeclaration": "function () { this.dataset.auditOperable = ''; }",
                    },
                )
    finally:
        await cdp.detach()
    return marked


async def unnamed_in_accessibility_tree(page: Page) -> list[str]:
    """The controls in Chromium's accessibility tree that it gives no name, as HTML."""
    cdp = await page.context.new_cdp_session(page)
    try:
        tree = await cdp.send("Accessibility.getFullAXTree")
        unnamed: list[str] = []
        for node in tree["nodes"]:
            role = node.get("role", {}).get("value")
            name = str(node.get("name", {}).get("value", "")).strip()
            if node.get("ignored") or role not in CONTROL_ROLES or name:
                continue
            html = f"<{role} without a DOM node>"
            if "backendDOMNodeId" in node:
                resolved = await cdp.send("DOM.resolveNode", {"backendNodeId": node["backendDOMNodeId"]})
                described = await cdp.send(
                    "Runtime.callFunctionOn",
                    {
                        "objectId": resolved["object"]["objectId"],
                        "functionDeclaration": "function () { return this.outerHTML; }",
                        "returnByValue": True,
                    },
                )
                html = described["result"]["value"]
            unnamed.append(f"{role}: {html}")
        return unnamed
    finally:
        await cdp.detach()


async def audit(page: Page, where: str, at_least: int) -> None:
    """Every control on ``page`` has an accessible name; at least ``at_least`` were seen."""
    await mark_operable(page)
    found = await page.evaluate(CONTROL_AUDIT)
    assert found["unnamed"] == [], f"{where}: controls without an accessible name:\n" + "\n".join(
        found["unnamed"]
    )
    assert found["nested"] == [], f"{where}: controls inside a button or link:\n" + "\n".join(found["nested"])
    assert found["checked"] >= at_least, f"{where}: only {found['checked']} controls seen"
    unnamed = await unnamed_in_accessibility_tree(page)
    assert unnamed == [], f"{where}: Chromium's accessibility tree has unnamed controls:\n" + "\n".join(
        unnamed
    )


async def test_the_audit_finds_a_control_without_a_name(browser: Browser, arena: ArenaServer) -> None:
    """The audit can fail: unnamed controls of every kind are listed, named ones are not."""
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    await expect(page.locator("#create")).to_be_visible()
    await page.evaluate(
        """() => {
          const add = (html) => { const box = document.createElement('div'); box.innerHTML = html;
            const el = box.firstElementChild; document.getElementById('app').append(el); return el; };
          const clickable = (html) => add(html).addEventListener('click', () => {});
          add('<button class="bad"></button>');
          add('<input class="bad">');
          add('<a class="bad" href="#/"><span></span></a>');
          clickable('<div class="bad">text is no name for a generic element</div>');
          clickable('<span class="bad" aria-label="nor is a label without a role"></span>');
          add('<div class="bad" role="button"></div>');
          add('<button aria-label="fine"></button>');
          clickable('<div role="button">fine too</div>');
          add('<div role="button" aria-label="fine"><a class="inside" href="#/">but a link in it</a></div>');
        }"""
    )
    await mark_operable(page)
    found = await page.evaluate(CONTROL_AUDIT)
    assert len(found["unnamed"]) == 6 and all('class="bad"' in html for html in found["unnamed"]), found
    assert len(found["nested"]) == 1 and 'class="inside"' in found["nested"][0], found
    in_tree = await unnamed_in_accessibility_tree(page)
    assert len(in_tree) == 4 and all('class="bad"' in html for html in in_tree), in_tree  # not the div
    assert errors == []


async def test_every_control_on_every_page_has_an_accessible_name_and_a_board_fits_a_laptop_screen(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    # An open race of someone else's, so that the lobby lists one with its Join button.
    cy = await ArenaClient.connect(arena.url)
    await cy.hello(name="cy")
    await cy.create_race("eight-off", seats=3)
    bob = await ArenaClient.connect(arena.url)
    await bob.hello(name="bob")
    page = await open_page(browser, arena.url, errors, viewport={"width": 1280, "height": 900})
    await expect(page.locator("#create")).to_be_visible()
    await audit(page, "the lobby", at_least=12)
    await page.fill("#name", "ada")
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None
    for game in ("eight-off", "eagle-wing", "treize"):
        await page.select_option("#game", game)
        await page.click("#create")
        await expect(page.locator("#status")).to_contain_text("share the code")
        await audit(page, f"{game}: an open race", at_least=5)
        code = re.search(r"Race ([A-Z0-9]{6})", await page.locator("#status").inner_text())
        assert code is not None
        race_id = (await bob.join_race(code[1])).race_id
        await bob.ready(race_id)
        await page.click("#ready")
        await expect(page.locator("#status")).to_have_text("Go!", timeout=10_000)
        # On a 1280x800 laptop screen the whole board and the move box under it are in sight.
        await page.set_viewport_size({"width": 1280, "height": 800})
        await expect(page.locator("#move")).to_be_in_viewport(ratio=1)
        await page.set_viewport_size({"width": 1280, "height": 900})
        # One move by clicks (it glides), then a card selected: its targets are drawn too.
        if game == "eight-off":
            await click_move(page, line[0])
            await expect(page.locator("#board .pile.target")).to_have_count(0)
        else:
            await page.locator('.pile[data-pile="stock"]').click(position={"x": 5, "y": 5})
            await expect(page.locator('.pile[data-pile="waste"] .card[data-card]').first).to_be_visible()
        await page.locator("#board .card[data-card]").last.click()
        await audit(page, f"{game}: the race under way", at_least=30)
        await page.screenshot(path=shot_path(f"audit-{game}-race"), animations="disabled")
        await give_up(page)
        await bob.finish(race_id)
        await expect(page.locator("#results")).to_contain_text("Deal seed")
        await expect(page.locator("#offer-rematch")).to_be_visible()
        await audit(page, f"{game}: the results", at_least=5)
        # bob offers a rematch: the page shows it with its Accept and Decline buttons.
        await bob.offer_rematch(race_id)
        await expect(page.locator("#accept-rematch")).to_be_visible()
        await audit(page, f"{game}: the results with a rematch offered", at_least=6)
        if game == "eight-off":
            await page.screenshot(path=shot_path("audit-rematch-offered"), full_page=True)
        await page.click("#replay-link")
        await expect(page.locator("#step-label")).to_have_text(re.compile(r"^the deal \(of \d+ moves?\)$"))
        await audit(page, f"{game}: the replay", at_least=30)
        await page.screenshot(path=shot_path(f"audit-{game}-replay"), full_page=True)
        await page.click("header .brand")
        await expect(page.locator('#app button[aria-label^="join "]')).to_have_count(1)
        await audit(page, "the lobby, signed in", at_least=13)
    await bob.close()
    await cy.close()
    assert errors == []


async def test_every_control_on_the_account_leaderboard_and_profile_pages_has_an_accessible_name(
    browser: Browser, arena: ArenaServer, clean_redis: str
) -> None:
    """The players' pages: signing in and registering, the account's own page, the lobby of
    an account (Rated enabled), a leaderboard with its tabs, names and paging, and a
    profile with its ratings' sparkline and recent races' links."""
    errors: list[str] = []
    ada, bob = await ArenaClient.connect(arena.url), await ArenaClient.connect(arena.url)
    for client, name in ((ada, "ada_a11y"), (bob, "bob_a11y")):
        await client.hello(name="someone")
        await client.register(name, "correct horse battery")
    race = await ada.create_race("eight-off", rated=True)
    await bob.join_race(race.code)
    for client in (ada, bob):
        await client.ready(race.race_id)
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None
    for _ in range(100):  # the countdown: moves are refused until the start
        try:
            await ada.move(race.race_id, line[0])
            break
        except ArenaError:
            await asyncio.sleep(0.1)
    for client in (ada, bob):
        await client.finish(race.race_id)
    field = {f"p_{i:02d}": (f"player{i:02d}", 1400.0 + 10 * i, 60.0) for i in range(25)}
    await seed_ratings(clean_redis, field, arena.time.now_ms())
    page = await open_page(browser, arena.url, errors, viewport={"width": 1280, "height": 900})
    await page.click("#nav-account")
    await expect(page.locator("#register")).to_be_visible()
    await audit(page, "the sign-in page", at_least=12)
    await page.fill("#login-username", "ada_a11y")
    await page.fill("#login-password", "correct horse battery")
    await page.click("#login")
    await expect(page.locator("#signed-in")).to_be_visible()
    await expect(page.locator("#rated")).to_be_enabled()
    await audit(page, "the lobby of an account", at_least=14)
    await page.click("#nav-account")
    await expect(page.locator("#logout")).to_be_visible()
    await audit(page, "the account page", at_least=10)
    await page.click("#nav-leaderboard")
    await expect(page.locator("#leaderboard tbody tr")).to_have_count(20)
    await audit(page, "the leaderboard", at_least=30)
    await page.click("#next-page")
    await expect(page.locator("#page-info")).to_have_text("21\N{EN DASH}25 of 25")
    await audit(page, "the leaderboard's second page", at_least=14)
    await page.click("#nav-profile")
    await expect(page.locator("#recent a.replay-link")).to_have_count(1)
    await expect(page.locator("svg.sparkline")).to_have_count(1)
    await audit(page, "a profile", at_least=8)
    await page.screenshot(path=shot_path("audit-profile"), full_page=True)
    for client in (ada, bob):
        await client.close()
    assert errors == []


async def test_every_control_on_the_daily_pages_has_an_accessible_name(
    browser: Browser, clean_redis: str
) -> None:
    """The daily challenges: today's page of an account that has played one deal (Play,
    Practice, its result's and the board's links, the date picker, the tabs), its
    Standings tab (the tournament's tables, Refresh), a guest's first visit (the name
    form), a daily attempt under way racing two ghosts (the Race ghosts toggle; one won,
    one given up, and its line says so) and its results, and a past day's page with its
    seeds' Verify buttons and its standings."""
    errors: list[str] = []
    async with daily_node(clean_redis) as (arena, clock):
        ada = await account(arena.url, "ada_daily_a11y")
        await play_through(ada, arena, "eight-off")
        bob = await account(arena.url, "bob_daily_a11y")  # a finished attempt to race as a ghost
        bob_race = await play_through(bob, arena, "treize")
        await bob.wait_for(RaceEnded, lambda e: e.race_id == bob_race)
        cat = await account(arena.url, "cat_daily_a11y")  # an attempt given up at once: a ghost too
        cat_race = (await cat.start_daily("treize")).race.race_id
        await cat.finish(cat_race)
        await cat.wait_for(RaceEnded, lambda e: e.race_id == cat_race)
        guest = await open_page(browser, arena.url, errors, viewport={"width": 1280, "height": 900})
        await guest.click("#nav-daily")
        await expect(guest.locator("#daily-name")).to_be_visible()
        await audit(guest, "the daily page before a session", at_least=8)
        page = await signed_in_page(browser, arena.url, "ada_daily_a11y", errors)
        await page.click("#nav-daily")
        await expect(page.locator("#board-eight-off a.replay-link")).to_have_count(1)
        await expect(page.locator("button.practice")).to_have_count(1)
        await audit(page, "today's daily page", at_least=16)
        await page.click("#tab-standings")
        await expect(page.locator("#standing-day tbody tr")).to_have_count(3)
        await expect(page.locator("#standings-refresh")).to_be_visible()
        await audit(page, "today's daily standings", at_least=12)
        await page.screenshot(path=shot_path("audit-daily-standings"), full_page=True)
        await page.click("#tab-deals")
        await expect(page.locator("section.daily")).to_have_count(3)
        await page.get_by_role("button", name="Play Treize").click()
        await expect(page.locator("#daily-kind")).to_have_text("Daily \N{EM DASH} scored attempt")
        await page.get_by_role("button", name="Race ghosts").click()
        await expect(page.locator(f'.racer.ghost[data-ghost="{bob.player_id}"] .ghost-state')).to_have_text(
            re.compile(r"^won in ")
        )
        quitter = page.locator(f'.racer.ghost[data-ghost="{cat.player_id}"]')
        await expect(quitter.locator(".ghost-info")).to_have_text("rank 2 \N{MIDDLE DOT} gave up")
        await expect(quitter.locator(".ghost-state")).to_have_text(
            re.compile("^gave up \N{MIDDLE DOT} \\d+ left$")  # \N{...} in Python, not in the JS regex
        )
        await page.locator('.pile[data-pile="stock"]').click(position={"x": 5, "y": 5})
        await expect(page.locator('.pile[data-pile="waste"] .card[data-card]').first).to_be_visible()
        await audit(page, "a daily attempt under way", at_least=30)
        await give_up(page)
        await expect(page.locator("#practice-again")).to_be_visible()
        await audit(page, "a daily attempt's results", at_least=8)
        await page.screenshot(path=shot_path("audit-daily-results"), full_page=True)
        clock.advance(13 * 3600)  # into the next day, whose deals are ready
        assert arena.features is not None
        await arena.features.daily.prepare(DAY + dt.timedelta(days=1))
        await page.goto(page.url.split("#")[0] + f"#/daily/{DAY.isoformat()}")
        await expect(page.locator("button.verify")).to_have_count(3)
        await audit(page, "a past day's daily page", at_least=18)
        await page.screenshot(path=shot_path("audit-daily-past-day"), full_page=True)
        assert DAY.isoformat() in await arena.features.daily.close_due()  # its points counted
        await page.click("#tab-standings")
        await expect(page.locator("#standing-all-time tbody tr")).to_have_count(3)
        await audit(page, "a past day's daily standings", at_least=16)
        for client in (ada, bob, cat):
            await client.close()
        assert errors == []


#: The live region an element is read out from when it changes (role status, alert, log
#: and timer are live regions too), or null.
LIVE_REGION = """(selector) => document.querySelector(selector)?.closest(
  '[aria-live]:not([aria-live="off"]), [role=status], [role=alert], [role=log], [role=timer]')?.id ?? null"""


async def test_only_messages_are_read_out_as_they_change_not_the_clock_or_the_board(
    browser: Browser, arena: ArenaServer
) -> None:
    """The page is no live region as a whole (navigation moves the focus to the new page's
    heading instead): the race clock, changing every second, and the board are not read
    out at each change; the race's status line and a refused move's reason are."""
    errors: list[str] = []
    page, bob = await running_race_page(browser, arena.url, errors)
    assert await page.evaluate(LIVE_REGION, "#clock") is None
    assert await page.evaluate(LIVE_REGION, "#board") is None
    assert await page.evaluate(LIVE_REGION, "#status") == "status"
    await page.fill("#move", "t1>t1")
    await page.press("#move", "Enter")
    await expect(page.locator("#refusal")).to_have_text("t1 cannot move onto itself")
    assert await page.evaluate(LIVE_REGION, "#refusal") == "refusal"
    await bob.close()
    assert errors == []

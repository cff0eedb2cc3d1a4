"""A visitor in the browser (someone who chose no name yet): what they may read without a
name (the Daily page, its boards and its Standings tab), and a name asked for only where
they play (a daily attempt, joining a race from its page), checked against the frames the
page sends and receives. Also the ids and requests of the pages they see first."""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.async_api import Browser, Page, expect

from server.app import ArenaServer
from tests.server.conftest import Connect
from tests.web.test_accounts_ratings import PASSWORD, account, signed_in_page
from tests.web.test_browser import open_page
from tests.web.test_daily import daily_node, deal_box, play_through


class Frames:
    """Every frame the page sends and receives, on any of its connections, decoded: from a
    reload on (so from its first connection's first frame). The page is the lobby, whose
    first connection is awaited first (its list of open races shown)."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []

    @classmethod
    async def of(cls, page: Page) -> Frames:
        frames = cls()
        await expect(page.locator("#app section tbody tr").first).to_be_attached()

        def each(ws: Any) -> None:
            ws.on("framesent", lambda f: frames.sent.append(json.loads(f)))
            ws.on("framereceived", lambda f: frames.received.append(json.loads(f)))

        page.on("websocket", each)
        await page.reload()
        return frames

    def types(self, sent: bool = True, since: int = 0) -> list[str]:
        return [f["type"] for f in (self.sent if sent else self.received)[since:]]


def hellos(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The hellos among ``frames``, without their ids and protocol."""
    return [
        {k: v for k, v in f.items() if k not in ("id", "protocol")} for f in frames if f["type"] == "hello"
    ]


# ----- the Daily page --------------------------------------------------------------------------


async def test_a_visitor_reads_the_daily_deals_boards_and_standings_and_names_themselves_to_play(
    browser: Browser, clean_redis: str
) -> None:
    errors: list[str] = []
    async with daily_node(clean_redis) as (arena, _clock):
        ada = await account(arena.url, "ada_seen")
        await play_through(ada, arena, "eight-off")
        page = await open_page(browser, arena.url, errors)
        frames = await Frames.of(page)
        await page.click("#nav-daily")
        await expect(page.locator("section.daily")).to_have_count(3)
        await expect(page.locator("#board-eight-off tbody tr")).to_have_count(1)
        await expect(page.locator("#board-eight-off tbody tr td").nth(1)).to_have_text("ada_seen")
        await expect(deal_box(page, "treize").locator(".commitment")).to_be_visible()
        await expect(page.locator("#daily-name")).to_be_visible()
        await expect(page.locator("#who")).to_have_text("")
        # Read with a viewer's session: no name sent, nothing started.
        assert hellos(frames.sent) == [{"type": "hello", "viewer": True, "legal_moves": True}]
        assert [f.get("viewer") for f in frames.received if f["type"] == "welcome"] == [True]
        assert frames.types().count("get_dailies") == 1
        assert frames.types().count("get_daily_board") == 3
        assert frames.types(sent=False).count("daily_board") == 3
        # The Standings tab too.
        await page.click("#tab-standings")
        await expect(page.locator("h1")).to_have_text("Daily tournament")
        await expect(page.locator("#streak")).to_contain_text("Guests take no part in the tournament")
        await expect(page.locator("#standing-day tbody tr")).to_have_count(1)
        await expect(page.locator("#standing-day tbody")).to_contain_text("ada_seen")
        assert "get_daily_standings" in frames.types()
        assert "daily_standings" in frames.types(sent=False)
        assert len(hellos(frames.sent)) == 1
        # Play asks for the name (the server's rule, beside the field): nothing sent.
        await page.click("#tab-deals")
        await expect(page.locator("section.daily")).to_have_count(3)
        await page.fill("#daily-name", "")
        mark = len(frames.sent)
        await page.get_by_role("button", name="Play Treize (unscored)", exact=True).click()
        await expect(page.locator("#daily-name-note")).to_have_text("Choose a name first.")
        await expect(page.locator("#daily-name")).to_be_focused()
        await page.wait_for_timeout(300)
        assert frames.types(since=mark) == []
        # With a good name: a guest under it, then the attempt.
        await page.fill("#daily-name", "gus")
        await page.get_by_role("button", name="Play Treize (unscored)", exact=True).click()
        await expect(page.locator("#daily-kind")).to_have_text(
            "Daily \N{EM DASH} unscored attempt (guests are not ranked)"
        )
        await expect(page.locator("#who")).to_have_text("gus (guest)")
        sent = frames.sent[mark:]
        assert hellos(sent) == [{"type": "hello", "name": "gus", "legal_moves": True, "changed_piles": True}]
        started = [f for f in sent if f["type"] == "start_daily"]
        assert [(f["game"], f["practice"]) for f in started] == [("treize", False)]
        assert [f["type"] for f in sent].index("hello") < [f["type"] for f in sent].index("start_daily")
        assert "daily_started" in frames.types(sent=False)
        await ada.close()
        assert errors == []


# ----- a race's page ---------------------------------------------------------------------------


async def test_a_visitors_join_race_asks_for_the_name_on_the_race_page_and_joins_under_it(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    errors: list[str] = []
    ada = await connect(arena.url)
    await ada.hello(name="ada")
    race = await ada.create_race("eight-off")
    page = await open_page(browser, arena.url, errors)
    frames = await Frames.of(page)
    await page.evaluate(f"location.hash = '#/race/{race.race_id}'")
    await expect(page.locator("#status")).to_contain_text("1 of 2 seats taken")
    await expect(page.locator("#join-race")).to_be_visible()
    await expect(page.locator("#join-name")).to_be_visible()
    await page.fill("#join-name", "")
    mark = len(frames.sent)
    await page.click("#join-race")
    await expect(page.locator("#join-name-note")).to_have_text("Choose a name first.")
    await expect(page.locator("#join-name")).to_be_focused()
    await page.wait_for_timeout(300)
    assert [t for t in frames.types(since=mark) if t != "get_race"] == []  # only its refreshes
    await page.fill("#join-name", "cleo")
    await page.press("#join-name", "Enter")
    await expect(page.locator("#ready")).to_be_visible()
    await expect(page.locator("#leave")).to_be_visible()
    await expect(page.locator("#join-race")).to_be_hidden()
    await expect(page.locator("#join-name")).to_be_hidden()
    await expect(page.locator("#who")).to_have_text("cleo (guest)")
    assert page.url.endswith(f"#/race/{race.race_id}")  # not sent back to the lobby
    sent = [f for f in frames.sent[mark:] if f["type"] != "get_race"]
    assert hellos(sent) == [{"type": "hello", "name": "cleo", "legal_moves": True, "changed_piles": True}]
    joins = [f for f in sent if f["type"] == "join_race"]
    assert [f["code"] for f in joins] == [race.code]
    (reply,) = [f for f in frames.received if f.get("id") == joins[0]["id"] and f["type"] == "race"]
    assert [r["name"] for r in reply["race"]["racers"]] == ["ada", "cleo"]
    assert [r.name for r in (await ada.get_race(race.race_id)).racers] == ["ada", "cleo"]
    assert errors == []


# ----- the account page ------------------------------------------------------------------------


async def test_the_change_password_form_names_its_account_for_password_managers(
    browser: Browser, arena: ArenaServer
) -> None:
    """A username field (read-only, autocomplete="username") in the change-password form:
    Chromium then logs no notice about a password form without one, and only the passwords
    are sent."""
    errors: list[str] = []
    dee = await account(arena.url, "dee_named")
    page = await signed_in_page(browser, arena.url, "dee_named", errors)
    notices: list[str] = []
    page.on("console", lambda m: notices.append(m.text))
    frames = await Frames.of(page)
    await page.click("#nav-account")
    await expect(page.locator("#old-password")).to_be_visible()
    username = page.locator("#password-form input[autocomplete=username]")
    await expect(username).to_have_count(1)
    await expect(username).to_have_value("dee_named")
    await expect(username).to_have_attribute("readonly", "")
    await page.fill("#old-password", PASSWORD)
    await page.fill("#new-password", "staple 2 horses")
    await page.click("#change-password")
    await expect(page.locator("#password-status")).to_have_text(
        "Password changed: your other devices are signed out."
    )
    changes = [f for f in frames.sent if f["type"] == "change_password"]
    assert [sorted(f) for f in changes] == [["id", "new_password", "old_password", "type"]]
    (reply,) = [f for f in frames.received if f.get("id") == changes[0]["id"]]
    assert reply["type"] == "ok"
    assert [n for n in notices if "username" in n] == []
    await dee.close()
    assert errors == []


async def test_a_past_days_error_page_has_no_duplicate_ids(browser: Browser, clean_redis: str) -> None:
    """A day with no deals: its refusal, its day links and the way back to today, each id once."""
    errors: list[str] = []
    async with daily_node(clean_redis) as (arena, _clock):
        page = await open_page(browser, arena.url, errors)
        frames = await Frames.of(page)
        await page.evaluate("location.hash = '#/daily/2027-03-01'")
        await expect(page.locator("#daily-error")).to_have_text(
            re.compile("no daily challenges on 2027-03-01")
        )
        await expect(page.locator("#daily-today")).to_have_text("Today")
        await expect(page.locator("#daily-back-today")).to_have_text("Today's daily challenges")
        ids = await page.evaluate("() => [...document.querySelectorAll('[id]')].map((e) => e.id)")
        assert [i for i in set(ids) if ids.count(i) > 1] == []
        (asked,) = [f for f in frames.sent if f["type"] == "get_dailies"]
        assert asked["date"] == "2027-03-01"
        (refused,) = [f for f in frames.received if f.get("id") == asked["id"]]
        assert (refused["type"], refused["code"]) == ("error", "no_daily")
        assert errors == []


# ----- the lobby -------------------------------------------------------------------------------


async def test_the_lobby_asks_for_the_open_races_once_per_load(browser: Browser, arena: ArenaServer) -> None:
    """Loaded (its session's welcome reads them) or shown again (the session already
    there): one list_races each time, until its 3 s refresh."""
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    frames = await Frames.of(page)
    await expect(page.locator("#no-open-races")).to_be_visible()
    await page.wait_for_timeout(1000)
    assert frames.types().count("list_races") == 1
    assert frames.types(sent=False).count("race_list") == 1
    assert hellos(frames.sent) == [{"type": "hello", "viewer": True, "legal_moves": True}]
    await page.evaluate("location.hash = '#/leaderboard'")
    await expect(page.locator("#leaderboard")).to_be_visible()
    mark, marked = len(frames.sent), len(frames.received)
    await page.evaluate("location.hash = '#/'")
    await expect(page.locator("#no-open-races")).to_be_visible()
    await page.wait_for_timeout(1000)
    assert frames.types(since=mark).count("list_races") == 1
    assert frames.types(sent=False, since=marked).count("race_list") == 1
    assert errors == []

"""The lobby's session and the races one sits in, in real headless Chromium against a
real server: a refused hello, a quick match found on another page, cancelling and leaving,
the open races a visitor sees, and the forms' own checks."""

from __future__ import annotations

import json
import re

import pytest
from playwright.async_api import Browser, Page, WebSocket, expect

from client.errors import ArenaError, BadTokenError
from client.sdk import ArenaClient
from server.app import ArenaServer
from server.features import lobby as lobby_feature
from shared.fairness import share_commitment
from shared.protocol import MatchFound, RaceEnded, RaceInfo, RaceStarted
from shared.record import read_record, verify_record
from tests.redis_direct import sync_redis
from tests.server.conftest import running_node
from tests.web.conftest import HeldReplies, give_up
from tests.web.test_browser import fits_the_screen, open_page, page_race_id

NAME_KEY = "solitaire-arena.name"
TOKEN_KEY = "solitaire-arena.token"


async def saved(page: Page, key: str) -> str | None:
    value = await page.evaluate("(k) => localStorage.getItem(k)", key)
    assert value is None or isinstance(value, str)
    return value


async def use_up_new_guests(url: str) -> None:
    """New guests from this address until the server refuses one (rate_limited)."""
    for attempt in range(5):
        client = await ArenaClient.connect(url)
        try:
            await client.hello(name=f"filler{attempt}")
        except ArenaError as refused:
            assert refused.code == "rate_limited"
            return
        finally:
            await client.close()
    raise AssertionError("the server never refused a new guest")


# ----- a refused hello --------------------------------------------------------------------


async def test_a_refused_hello_is_not_kept_and_the_next_name_starts_the_guest(
    browser: Browser, clean_redis: str
) -> None:
    """A hello the server refuses (here rate_limited) is forgotten: the name is not saved,
    and the next press starts a guest under the name typed then."""
    errors: list[str] = []
    async with running_node(clean_redis, new_player_burst=1, new_player_rate=0.5) as node:
        page = await open_page(browser, node.url, errors)
        await expect(page.locator("#create")).to_be_visible()
        await use_up_new_guests(node.url)
        await page.fill("#name", "first")
        await page.click("#create")
        await expect(page.locator("p.error").first).to_contain_text("too many new players")
        assert await saved(page, NAME_KEY) is None
        assert await saved(page, TOKEN_KEY) is None
        await page.wait_for_timeout(2_200)  # a new guest is let in again (one every 2 s)
        await page.fill("#name", "goodname")
        await page.click("#create")
        await expect(page.locator("#status")).to_contain_text("share the code")
        await expect(page.locator("#who")).to_have_text("goodname (guest)")
        assert await saved(page, NAME_KEY) == "goodname"
        await page.reload()
        await expect(page.locator("#who")).to_have_text("goodname (guest)")
    assert [e for e in errors if "WebSocket" not in e] == []


async def test_a_saved_name_the_server_refuses_is_forgotten_and_every_page_works(
    browser: Browser, arena: ArenaServer
) -> None:
    """A name saved by an older page that the server refuses is dropped at the next load:
    not shown again, not retried, and the lobby, Daily and profile pages work."""
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    await expect(page.locator("#create")).to_be_visible()
    await page.evaluate("(k) => localStorage.setItem(k, '-bad')", NAME_KEY)
    await page.reload()
    await expect(page.locator("#create")).to_be_visible()
    await expect(page.locator("#name")).to_have_value("")
    await expect(page.locator(".error").first).to_have_text("")
    assert await saved(page, NAME_KEY) is None
    await page.evaluate("location.hash = '#/daily'")
    await expect(page.locator("h1")).to_have_text("Daily challenges")  # read by a visitor: no name asked
    await expect(page.get_by_text("Loading…")).to_have_count(0)
    await page.evaluate("location.hash = '#/profile'")
    await expect(page.locator("#no-session")).to_be_visible()
    await page.evaluate("location.hash = '#/'")
    await page.fill("#name", "goodname")
    await page.click("#create")
    await expect(page.locator("#status")).to_contain_text("share the code")
    await expect(page.locator("#who")).to_have_text("goodname (guest)")
    assert errors == []


# ----- quick match --------------------------------------------------------------------------


async def matched_while_on_the_leaderboard(page: Page, url: str) -> tuple[ArenaClient, RaceInfo]:
    """ada queues for Eight Off on the page and goes to the leaderboard; bob's quick match
    then pairs them (bob, and the race as his match_found gives it)."""
    await page.fill("#name", "ada")
    await page.click("text=Quick match: Eight Off")
    await expect(page.locator("#queue")).to_contain_text("Eight Off")
    await page.click("#nav-leaderboard")
    await expect(page.locator("#leaderboard")).to_be_visible()
    bob = await ArenaClient.connect(url)
    await bob.hello(name="bob")
    await bob.quick_match("eight-off")
    return bob, (await bob.wait_for(MatchFound)).race


async def test_a_quick_match_found_while_on_another_page_goes_to_the_races_countdown(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    bob, race = await matched_while_on_the_leaderboard(page, arena.url)
    await expect(page).to_have_url(re.compile(rf"#/race/{race.race_id}$"))
    await expect(page.locator("#status")).to_have_text(re.compile("Get ready…|Go!"))
    await expect(page.locator("#status")).to_have_text("Go!", timeout=10_000)
    await bob.close()
    assert errors == []


async def test_the_pages_quick_match_commits_to_a_seed_share_and_reveals_it_in_the_countdown(
    browser: Browser, clean_redis: str
) -> None:
    errors: list[str] = []
    sent: list[dict[str, object]] = []

    def record_frames(ws: WebSocket) -> None:
        ws.on(
            "framesent",
            lambda payload: sent.append(json.loads(payload)) if isinstance(payload, str) else None,
        )

    async with running_node(clean_redis, mix_shares=True, countdown=3.0) as node:
        page = await open_page(browser, node.url, errors)
        page.on("websocket", record_frames)
        await page.fill("#name", "ada")
        await page.click("text=Quick match: Treize")
        await expect(page.locator("#queue")).to_contain_text("Treize")
        bob = await ArenaClient.connect(node.url)
        await bob.hello(name="bob")
        await bob.quick_match("treize")
        race_id = (await bob.wait_for(MatchFound)).race.race_id
        await bob.wait_for(RaceStarted)
        ada = next(r for r in (await bob.get_race(race_id)).racers if r.name == "ada")
        assert ada.share_committed and ada.share_revealed
        queued = next(f for f in sent if f["type"] == "quick_match")
        revealed = next(f for f in sent if f["type"] == "reveal_share")
        assert revealed["race_id"] == race_id and isinstance(revealed["share"], str)
        assert share_commitment(revealed["share"]) == queued["share_commitment"]
        await bob.finish(race_id)
        await give_up(page)
        await bob.wait_for(RaceEnded)
        record = read_record(await bob.record(race_id))
        verify_record(record)
        shares = {s.player_id: s.share for s in record.shares}
        assert shares == {ada.player_id: revealed["share"], bob.player_id: bob.shares[race_id]}
        await bob.close()
        assert errors == []  # before the node stops: a page still open then fails to reconnect


async def ada_waiting_for_eight_off(browser: Browser, url: str, errors: list[str]) -> Page:
    """A page on which the guest ada waits in the Eight Off queue."""
    page = await open_page(browser, url, errors)
    await page.fill("#name", "ada")
    await page.click("text=Quick match: Eight Off")
    await expect(page.locator("#queue")).to_contain_text("Waiting for someone to race at Eight Off")
    return page


async def test_a_queued_quick_match_is_cancelled_from_the_lobby_and_another_game_queued(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    page = await ada_waiting_for_eight_off(browser, arena.url, errors)
    await page.click("text=Quick match: Treize")
    await expect(page.locator("p.error").first).to_contain_text("cancel that quick match")
    await page.click("#cancel-quick-match")
    await expect(page.locator("#queue")).to_be_hidden()
    await page.click("text=Quick match: Treize")
    await expect(page.locator("#queue")).to_contain_text("Waiting for someone to race at Treize")
    await expect(page.locator("p.error").first).to_have_text("")
    # The server has the page in the Treize queue: a Treize player is paired with it.
    bob = await ArenaClient.connect(arena.url)
    await bob.hello(name="bob")
    await bob.quick_match("treize")
    found = await bob.wait_for(MatchFound)
    assert {r.name for r in found.race.racers} == {"ada", "bob"}
    await expect(page).to_have_url(re.compile(rf"#/race/{found.race.race_id}$"))
    await bob.close()
    assert errors == []


async def test_a_quick_match_cancelled_in_another_session_is_no_longer_shown_as_waiting(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    page = await ada_waiting_for_eight_off(browser, arena.url, errors)
    token = await saved(page, TOKEN_KEY)
    assert token is not None
    # Another tab opened meanwhile shows the wait (its welcome names the queue) and cancels.
    other_tab = await page.context.new_page()
    await other_tab.goto(page.url)
    await expect(other_tab.locator("#queue")).to_have_text(
        "Waiting for someone to race at Eight Off\N{HORIZONTAL ELLIPSIS} Cancel quick match"
    )
    await other_tab.click("#cancel-quick-match")
    await expect(other_tab.locator("#queue")).to_be_hidden()
    await other_tab.close()
    elsewhere = await ArenaClient.connect(arena.url)  # ada's other device: in no queue now
    assert (await elsewhere.hello(token=token)).queued is None
    await expect(page.locator("#queue")).to_have_text(
        "No longer waiting for a quick match: you cancelled the quick match."
    )
    await expect(page.locator("#cancel-quick-match")).to_have_count(0)
    # Queueing again from the page waits again, the note gone.
    await page.click("text=Quick match: Treize")
    await expect(page.locator("#queue")).to_contain_text("Waiting for someone to race at Treize")
    await elsewhere.close()
    assert errors == []


async def test_the_lobby_links_the_open_races_one_sits_in_and_a_race_page_leaves_one(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    await page.fill("#name", "ada")
    created: list[str] = []
    for _ in range(3):
        await page.click("#create")
        await expect(page.locator("#status")).to_contain_text("share the code")
        created.append(page_race_id(page.url))
        await expect(page.locator("#leave")).to_be_visible()
        await page.evaluate("location.hash = '#/'")
    await expect(page.locator("#my-races tbody tr")).to_have_count(3)
    headers = page.locator('#my-races thead th[scope="col"]')
    await expect(headers).to_have_text(["Code", "Game", "State", "Seats", "Go to"])
    states = page.locator("#my-races tbody td:nth-child(3)")
    await expect(states).to_have_text(["waiting to start"] * 3)  # in words, not the protocol's "open"
    await page.click("#create")
    await expect(page.locator("p.error").first).to_contain_text("3 open races")
    # From the lobby's list to the first race, and out of it.
    await page.click(f'#my-races tr[data-race="{created[0]}"] a.go-to-race')
    await expect(page).to_have_url(re.compile(rf"#/race/{created[0]}$"))
    await page.click("#leave")
    await expect(page.locator("#create")).to_be_visible()
    await expect(page.locator("#my-races tbody tr")).to_have_count(2)
    await expect(page.locator(f'#my-races tr[data-race="{created[0]}"]')).to_have_count(0)
    observer = await ArenaClient.connect(arena.url)
    await observer.hello(name="observer")
    assert (await observer.get_race(created[0])).status == "cancelled"
    await observer.close()
    await page.click("#create")
    await expect(page.locator("#status")).to_contain_text("share the code")
    assert errors == []


#: How often the lobby reads its lists again (ms): what another session did shows within it.
LOBBY_REFRESH_MS = 3000


async def test_the_lobby_shows_a_quick_match_and_a_race_another_session_queued_for_and_joined(
    browser: Browser, arena: ArenaServer
) -> None:
    """ada's lobby is open; her other device (the SDK with the page's token) queues for a
    quick match, cancels it, then joins bob's race, which starts: the lobby's next refresh
    shows the wait, then the race under "Your races"."""
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    await page.fill("#name", "ada")
    await page.press("#name", "Enter")
    await expect(page.locator("#who")).to_have_text("ada (guest)")
    token = await saved(page, TOKEN_KEY)
    assert token is not None
    elsewhere, bob = await ArenaClient.connect(arena.url), await ArenaClient.connect(arena.url)
    await elsewhere.hello(token=token)
    await bob.hello(name="bob")
    await elsewhere.quick_match("treize")
    await expect(page.locator("#queue")).to_have_text(
        "Waiting for someone to race at Treize\N{HORIZONTAL ELLIPSIS} Cancel quick match",
        timeout=LOBBY_REFRESH_MS + 1000,
    )
    await elsewhere.cancel_quick_match()
    await expect(page.locator("#queue")).to_have_text(
        "No longer waiting for a quick match: you cancelled the quick match."
    )
    race = await bob.create_race("eight-off")
    await elsewhere.join_race(race.code)
    for client in (bob, elsewhere):
        await client.ready(race.race_id)
    await bob.wait_for(RaceStarted, lambda e: e.race_id == race.race_id)
    row = page.locator(f'#my-races tr[data-race="{race.race_id}"]')
    await expect(row.locator("td:nth-child(3)")).to_have_text("racing", timeout=LOBBY_REFRESH_MS + 1000)
    await row.locator("a.go-to-race").click()
    await expect(page).to_have_url(re.compile(rf"#/race/{race.race_id}$"))
    await expect(page.locator("#status")).to_have_text("Go!")
    for client in (elsewhere, bob):
        await client.close()
    assert errors == []


async def test_a_new_name_typed_for_a_guest_renames_it_in_its_open_race_and_is_kept(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    sent: list[dict[str, object]] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(json.loads(payload))))
    await page.fill("#name", "ada")
    await page.click("#create")
    await expect(page.locator("#status")).to_contain_text("share the code")
    race_id = page_race_id(page.url)
    bob = await ArenaClient.connect(arena.url)
    await bob.hello(name="bob")
    await bob.join_race((await bob.get_race(race_id)).code)
    await page.evaluate("location.hash = '#/'")
    await expect(page.locator("#name")).to_have_value("ada")
    # A name the server's rule refuses is said beside the field, and nothing is sent.
    await page.fill("#name", "-ada")
    await page.press("#name", "Enter")
    await expect(page.locator("#name-note")).to_contain_text("starts with a letter or digit")
    assert not [m for m in sent if m["type"] == "rename"]
    await page.fill("#name", "Zoe\u0308 L")
    await page.press("#name", "Enter")
    await expect(page.locator("#who")).to_have_text("Zo\u00eb L (guest)")
    assert [m["name"] for m in sent if m["type"] == "rename"] == ["Zoe\u0308 L"]
    await expect(page.locator("#name")).to_have_value("Zo\u00eb L")  # as the server keeps it
    assert await saved(page, NAME_KEY) == "Zo\u00eb L"
    assert [r.name for r in (await bob.get_race(race_id)).racers] == ["Zo\u00eb L", "bob"]
    # The same guest after a reload: the same name, and Enter on it renames nothing.
    await page.reload()
    await expect(page.locator("#who")).to_have_text("Zo\u00eb L (guest)")
    await expect(page.locator("#name")).to_have_value("Zo\u00eb L")
    await page.press("#name", "Enter")
    await page.click("#create")
    await expect(page.locator("#status")).to_contain_text("share the code")
    assert len([m for m in sent if m["type"] == "rename"]) == 1
    await bob.close()
    assert errors == []


async def test_another_tab_of_the_guest_shows_its_new_name_and_then_its_account(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    await page.fill("#name", "ada")
    await page.press("#name", "Enter")
    await expect(page.locator("#who")).to_have_text("ada (guest)")
    other = await page.context.new_page()  # the same browser: the same saved guest
    other.on("pageerror", lambda e: errors.append(str(e)))
    await other.goto(arena.url.replace("ws://", "http://") + "/")
    await expect(other.locator("#who")).to_have_text("ada (guest)")
    await expect(other.locator("#name")).to_have_value("ada")
    await page.fill("#name", "ada two")
    await page.press("#name", "Enter")
    await expect(page.locator("#who")).to_have_text("ada two (guest)")
    # Told by the server, the other tab follows without a reload: its header and its field.
    await expect(other.locator("#who")).to_have_text("ada two (guest)")
    await expect(other.locator("#name")).to_have_value("ada two")
    # A register in the first tab makes the other one the account's: "Signed in as". The
    # guest's token stopped working (the server closed the other tab's session with it):
    # that tab resumes with the account's new token, which the first one saved.
    guest_token = await saved(page, TOKEN_KEY)
    await page.click("#nav-account")
    await page.fill("#register-username", "Ada_L")
    await page.fill("#register-password", "correct horse battery")
    await page.click("#register")
    await expect(page.locator("#who")).to_have_text("Ada_L")
    await expect(other.locator("#who")).to_have_text("Ada_L")
    await expect(other.locator("#signed-in")).to_have_text("Signed in as Ada_L.")
    assert await saved(other, TOKEN_KEY) not in (None, guest_token)
    with pytest.raises(BadTokenError):
        await (await ArenaClient.connect(arena.url)).hello(token=guest_token)
    assert errors == []


# ----- open races ---------------------------------------------------------------------------


async def test_a_first_time_visitor_sees_the_open_races_or_that_there_are_none(
    browser: Browser, arena: ArenaServer, clean_redis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The widest code there can be (W, in a proportional face) still fits a phone below.
    monkeypatch.setattr(lobby_feature, "_CODE_ALPHABET", "W")
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    await expect(page.locator("#no-open-races")).to_contain_text("No open race right now")
    ada = await ArenaClient.connect(arena.url)
    await ada.hello(name="ada")
    race = await ada.create_race("treize")
    await expect(page.locator(f'tr[data-race="{race.race_id}"]')).to_contain_text(race.code, timeout=10_000)
    await expect(page.locator(f'tr[data-race="{race.race_id}"]')).to_contain_text("Treize")
    # Each column says what it holds (the button's only to a screen reader), on a phone too.
    headers = page.locator('#open-races thead th[scope="col"]')
    await expect(headers).to_have_text(["Code", "Game", "Kind", "Seats", "Join"])
    await expect(headers.last.locator(".unseen")).to_have_text("Join")
    await page.set_viewport_size({"width": 320, "height": 640})
    await fits_the_screen(page, "#open-races")
    # The header's links wrap as wholes: none is split over two lines.
    split = await page.evaluate(
        """() => [...document.querySelectorAll('header nav a')].filter((a) => {
             const text = document.createRange();
             text.selectNodeContents(a);
             return new Set([...text.getClientRects()].map((line) => Math.round(line.top))).size > 1;
           }).map((a) => a.textContent)"""
    )
    assert split == []
    # Read with a viewer's session: nobody is saved or shown as the visitor, and the
    # server made no player for it (ada's token is the only one).
    assert await saved(page, TOKEN_KEY) is None
    await expect(page.locator("#who")).to_have_text("")
    redis = sync_redis(clean_redis)
    try:
        assert len(redis.keys("token:*")) == 1
    finally:
        redis.close()
    await ada.close()
    assert errors == []


async def test_the_viewers_welcome_arriving_while_a_visitor_types_a_name_takes_no_key(
    browser: Browser, arena: ArenaServer
) -> None:
    """The viewer's session that reads the open races is welcomed while the visitor is
    typing their name (held back here until two letters are in): the field keeps the focus
    and every key after it, and Enter starts the guest under the whole name."""
    errors: list[str] = []
    page = await (await browser.new_context()).new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    sent: list[dict[str, object]] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(json.loads(payload))))
    held = HeldReplies("welcome")
    await page.route_web_socket(re.compile("^ws://"), held.route)
    await page.goto(arena.url.replace("ws://", "http://") + "/")
    await page.locator("#name").click()
    await page.keyboard.type("ad")
    await held.wait(page, "welcome")
    held.release()
    await expect(page.locator("#no-open-races")).to_be_visible()  # the welcome was taken
    await page.keyboard.type("a")
    await expect(page.locator("#name")).to_have_value("ada")
    await expect(page.locator("#name")).to_be_focused()
    await page.keyboard.press("Enter")
    await expect(page.locator("#who")).to_have_text("ada (guest)")
    assert [m.get("viewer", m.get("name")) for m in sent if m["type"] == "hello"] == [True, "ada"]
    await page.context.close()
    assert errors == []


# ----- a race made and joined from the lobby ------------------------------------------------


async def test_a_race_made_and_joined_by_keyboard_in_the_lobby_shows_its_board_once_dealt(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    ada = await open_page(browser, arena.url, errors)
    await ada.fill("#name", "ada")
    await ada.click("#create")
    await expect(ada.locator("#status")).to_contain_text("share the code")
    await expect(ada.locator("#board")).to_be_hidden()  # no empty felt before the deal
    await ada.click("#ready")
    await ada.reload()  # once pressed, the button takes it back (after a reload too)
    await expect(ada.locator(".racer .racer-state")).to_have_text("ready")
    await expect(ada.locator("#ready")).to_have_text("Not ready")
    await ada.click("#ready")
    await expect(ada.locator(".racer .racer-state")).to_have_text("not ready")
    await ada.reload()  # the server took it back
    await expect(ada.locator(".racer .racer-state")).to_have_text("not ready")
    await expect(ada.locator("#ready")).to_have_text("Ready")
    await ada.click("#ready")
    await expect(ada.locator("#ready")).to_have_text("Not ready")
    code = re.search(r"Race ([A-Z0-9]{6})", await ada.locator("#status").inner_text())
    assert code is not None
    bob = await open_page(browser, arena.url, errors)
    await bob.fill("#name", "bob")
    await expect(bob.locator('label[for="seats"]')).to_have_text("Seats")  # not a bare "2"
    await bob.fill("#code", code[1].lower())
    await bob.press("#code", "Enter")  # joins, as the button does
    await expect(bob.locator("#status")).to_contain_text("share the code")
    await bob.click("#ready")
    await expect(ada.locator("#status")).to_have_text("Go!", timeout=10_000)
    await expect(ada.locator("#board")).to_be_visible()
    assert errors == []

"""Accounts, ratings, the leaderboard and profiles in the browser client, in real headless
Chromium against a real server and Redis: what the pages show, checked against the
server's own state and the Glicko-2 numbers."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from client.errors import BadTokenError
from client.sdk import ArenaClient
from server.app import ArenaServer
from server.features.glicko2 import Rating, rate
from tests.redis_direct import async_redis
from tests.server.conftest import Connect
from tests.server.rawclient import Racer
from tests.server.test_profiles import seed_ratings
from tests.server.test_ratings import accounts as raw_accounts
from tests.server.test_ratings import foundation_moves, play, seated
from tests.web.conftest import give_up, shot_path
from tests.web.test_browser import open_page, page_race_id, until_shown
from tests.web.test_undo_hints_rematch import after, same_player

PASSWORD = "correct horse battery"
TOKEN = "() => localStorage.getItem('solitaire-arena.token')"


async def account(url: str, username: str, password: str = PASSWORD) -> ArenaClient:
    """An account made through the SDK (a guest that registered)."""
    client = await ArenaClient.connect(url)
    await client.hello(name="someone")
    await client.register(username, password)
    return client


async def log_in(page: Page, username: str, password: str = PASSWORD) -> None:
    """Signs in through the header's link and the form."""
    await page.click("#nav-account")
    await page.fill("#login-username", username)
    await page.fill("#login-password", password)
    await page.click("#login")


async def signed_in_page(browser: Browser, url: str, username: str, errors: list[str]) -> Page:
    page = await open_page(browser, url, errors, viewport={"width": 1280, "height": 900})
    await log_in(page, username)
    await expect(page.locator("#signed-in")).to_have_text(f"Signed in as {username}.")
    await expect(page.locator("#who")).to_have_text(username)
    return page


async def stored_rating(redis_url: str, player_id: str) -> float:
    client = async_redis(redis_url)
    try:
        return float(await client.hget(f"player:{player_id}:rating:eight-off", "rating"))
    finally:
        await client.aclose()


# ----- accounts -----------------------------------------------------------------------------


async def test_a_guest_registers_and_logs_in_on_another_browser_as_the_same_player(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    guest = await open_page(browser, arena.url, errors)
    await expect(guest.locator("#nav-account")).to_have_text("Sign in")
    await guest.fill("#name", "ada")
    await guest.click("#create")
    await expect(guest.locator("#status")).to_contain_text("share the code")
    race_id = page_race_id(guest.url)
    await expect(guest.locator("#who")).to_have_text("ada (guest)")
    first = await same_player(guest, arena.url)
    # A username the page refuses before sending it: said beside the field, still a guest
    # (tests/web/test_forms.py has every form's checks).
    await guest.click("#nav-account")
    await expect(guest.locator("#register-intro")).to_contain_text("Keep this guest, ada,")
    await guest.reload()  # drawn before the guest is resumed: named once it is
    await expect(guest.locator("#who")).to_have_text("ada (guest)")
    await expect(guest.locator("#register-intro")).to_contain_text("Keep this guest, ada,")
    await guest.fill("#register-username", "ada lovelace")
    await guest.fill("#register-password", PASSWORD)
    await guest.click("#register")
    await expect(guest.locator("#register-username-note")).to_have_text(
        "A username has only letters, digits, _ and -: no spaces."
    )
    await expect(guest.locator("#register-error")).to_have_text("")
    await expect(guest.locator("#who")).to_have_text("ada (guest)")
    # One the server refuses (taken by another account): its reason, word for word.
    taken = await account(arena.url, "Ada_Taken")
    await guest.fill("#register-username", "ada_taken")
    await guest.click("#register")
    await expect(guest.locator("#register-error")).to_have_text(
        "'ada_taken' is taken, or too like a name that is: choose another"
    )
    await expect(guest.locator("#who")).to_have_text("ada (guest)")
    await taken.close()
    guest_token = await guest.evaluate(TOKEN)
    await guest.fill("#register-username", "Ada_L")
    await guest.click("#register")
    await expect(guest.locator("#account-name")).to_contain_text("Signed in as Ada_L.")
    # The form gone with its focus, the account page's heading takes it (not the body).
    await expect(guest.get_by_role("heading", level=1)).to_be_focused()
    await expect(guest.locator("#who")).to_have_text("Ada_L")
    await expect(guest.locator("#nav-account")).to_have_text("Account")
    await guest.screenshot(path=shot_path("account-registered"))
    # The account has a new token, saved in place of the guest's, which stopped working:
    # the SDK's session with a copy of it is signed out, and the copy resumes nothing.
    assert await guest.evaluate(TOKEN) not in (None, guest_token)
    assert [event async for event in first.events() if event.type == "welcome"] == []
    assert first.ended is not None and first.ended.reason == (
        "signed out: this player registered an account on another device or page"
    )
    with pytest.raises(BadTokenError):
        await (await ArenaClient.connect(arena.url)).hello(token=guest_token)
    await first.close()
    first = await same_player(guest, arena.url)
    assert (await first.profile()).username == "Ada_L"
    # Another browser (its own storage): the login form, any case, the same player.
    other = await open_page(browser, arena.url, errors)
    await log_in(other, "ada_l")
    await expect(other.locator("#signed-in")).to_have_text("Signed in as Ada_L.")
    await expect(other.locator("#who")).to_have_text("Ada_L")
    await expect(other.locator("#name")).to_have_count(0)
    await expect(other.locator("#rated")).to_be_enabled()
    second = await same_player(other, arena.url)
    assert second.player_id == first.player_id
    assert await other.evaluate(TOKEN) != await guest.evaluate(TOKEN)  # a token per device
    # The race the guest created is this player's on the other browser too, its seat now
    # under the username.
    await other.goto(other.url.split("#")[0] + f"#/race/{race_id}")
    await expect(other.locator(f'.racer[data-player="{first.player_id}"]')).to_contain_text("Ada_L (you)")
    await expect(other.locator("#ready")).to_be_visible()
    # And the page resumes with the new token after a reload.
    await other.reload()
    await expect(other.locator("#who")).to_have_text("Ada_L")
    await other.screenshot(path=shot_path("account-second-browser"))
    for client in (first, second):
        await client.close()
    assert errors == []


async def test_a_wrong_password_shows_the_servers_message_and_signs_nobody_in(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    bob = await account(arena.url, "bob_b")
    page = await open_page(browser, arena.url, errors)
    await log_in(page, "bob_b", "not the password")
    await expect(page.locator("#login-error")).to_have_text("wrong username or password")
    await expect(page.locator("#who")).to_have_text("")
    await expect(page.locator("#nav-account")).to_have_text("Sign in")
    assert await page.evaluate(TOKEN) is None
    await page.screenshot(path=shot_path("account-wrong-password"))
    # The right one signs in from the same form.
    await page.fill("#login-password", PASSWORD)
    await page.click("#login")
    await expect(page.locator("#signed-in")).to_have_text("Signed in as bob_b.")
    await bob.close()
    assert errors == []


async def test_logout_returns_to_the_guest_screen_and_the_old_token_no_longer_resumes(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    cy = await account(arena.url, "cy_c")
    page = await signed_in_page(browser, arena.url, "cy_c", errors)
    token = await page.evaluate(TOKEN)
    assert isinstance(token, str)
    # A second tab of the same browser, signed in with the same saved token, on My profile.
    tab = await page.context.new_page()
    tab.on("pageerror", lambda e: errors.append(str(e)))
    await tab.goto(arena.url.replace("ws://", "http://") + "/#/profile")
    await expect(tab.locator("#who")).to_have_text("cy_c")
    await page.click("#nav-account")
    await page.click("#logout")
    await expect(page.locator("#name")).to_be_visible()
    # The other tab is signed out too, and says so, as a page signed out elsewhere does.
    await expect(tab.locator("#link")).to_have_text(
        "Signed out: logged out on another device or page. Sign in again."
    )
    await expect(tab.locator("#who")).to_have_text("")
    await expect(tab.locator("#name")).to_be_visible()
    await expect(page.locator("#name")).to_have_value("")
    await expect(page.locator("#who")).to_have_text("")
    await expect(page.locator("#nav-account")).to_have_text("Sign in")
    await expect(page.locator("#rated")).to_be_disabled()
    assert await page.evaluate(TOKEN) is None
    revoked = await ArenaClient.connect(arena.url)
    with pytest.raises(BadTokenError):
        await revoked.hello(token=token)
    await page.reload()
    await expect(page.locator("#name")).to_be_visible()
    await expect(page.locator("#signed-in")).to_have_count(0)
    await page.screenshot(path=shot_path("account-logged-out"))
    for client in (cy, revoked):
        await client.close()
    assert errors == []


async def test_a_new_password_is_checked_by_the_server_and_then_logs_in(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    dee = await account(arena.url, "dee_d")
    page = await signed_in_page(browser, arena.url, "dee_d", errors)
    laptop = await signed_in_page(browser, arena.url, "dee_d", errors)
    # Signed in from the account page: the lobby shows, and the address says so.
    await expect(laptop).to_have_url(re.compile(r"#/$"))
    await laptop.click("#nav-leaderboard")
    await expect(laptop.locator("h1")).to_have_text(re.compile("Leaderboard"))
    await page.click("#nav-account")
    await page.fill("#old-password", "not it at all")
    await page.fill("#new-password", "staple 2 horses")
    await page.click("#change-password")
    await expect(page.locator("#password-error")).to_have_text("the old password is wrong")
    await expect(page.locator("#password-status")).to_have_text("")
    before = await page.evaluate(TOKEN)
    await page.fill("#old-password", PASSWORD)
    await page.click("#change-password")
    await expect(page.locator("#password-status")).to_have_text(
        "Password changed: your other devices are signed out."
    )
    await expect(page.locator("#password-error")).to_have_text("")
    # The page keeps the new token the server gave: a copy of the old one resumes nothing.
    after_change = await page.evaluate(TOKEN)
    assert after_change not in (None, before)
    with pytest.raises(BadTokenError):
        await (await ArenaClient.connect(arena.url)).hello(token=before)
    # Another browser's token was revoked: its open page is signed out at once (the server
    # closed its session), without a reload, and says so.
    await expect(laptop.locator("#link")).to_have_text(
        "Signed out: the account's password was changed. Sign in again."
    )
    await expect(laptop.locator("#name")).to_be_visible()
    await expect(laptop).to_have_url(re.compile(r"#/$"))  # the lobby, not the leaderboard's address
    await expect(laptop.locator("#who")).to_have_text("")
    assert await laptop.evaluate(TOKEN) is None
    await laptop.screenshot(path=shot_path("account-signed-out-elsewhere"))
    # The page that changed it is still signed in, after a reload too (with the new token).
    await page.reload()
    await expect(page.locator("#who")).to_have_text("dee_d")
    assert await page.evaluate(TOKEN) == after_change
    resumed = await same_player(page, arena.url)
    assert resumed.player_id == dee.player_id
    await resumed.close()
    # The SDK's session (another device) lost its token; the new password logs in.
    with pytest.raises(BadTokenError):
        await (await ArenaClient.connect(arena.url)).hello(token=dee.token)
    again = await ArenaClient.connect(arena.url)
    assert (await again.login("dee_d", "staple 2 horses")).player_id == dee.player_id
    for client in (dee, again):
        await client.close()
    assert errors == []


async def test_a_page_signed_out_while_racing_says_why_and_that_the_race_goes_on(
    browser: Browser, arena: ArenaServer
) -> None:
    """A new password set on another device signs the racing page out: it says the
    server's reason, that its race goes on, and how to come back to it."""
    errors: list[str] = []
    eve = await account(arena.url, "eve_e")
    page = await signed_in_page(browser, arena.url, "eve_e", errors)
    await page.click("#create")
    await expect(page.locator("#status")).to_contain_text("share the code")
    code = re.search(r"Race ([A-Z0-9]{6})", await page.locator("#status").inner_text())
    assert code is not None
    async with await ArenaClient.connect(arena.url) as bob:
        await bob.hello(name="bob")
        await bob.ready((await bob.join_race(code[1])).race_id)
        await page.click("#ready")
        await expect(page.locator("#status")).to_have_text("Go!", timeout=10_000)
        await eve.change_password(PASSWORD, "staple 2 horses")
        await expect(page.locator("#link")).to_have_text(
            f"Signed out: the account's password was changed. Race {code[1]} goes on: sign in again,"
            ' then go back to it from "Your races" in the lobby.'
        )
        await expect(page.locator("#name")).to_be_visible()
        await page.set_viewport_size({"width": 320, "height": 640})  # a phone: the note wraps
        assert await page.evaluate("document.documentElement.scrollWidth") <= 320
        await page.screenshot(path=shot_path("signed-out-while-racing"))
        # The link signs in again; the lobby's "Your races" then leads back to the race.
        await page.click("#sign-in-again")
        await page.fill("#login-username", "eve_e")
        await page.fill("#login-password", "staple 2 horses")
        await page.click("#login")
        await expect(page.locator("#link")).to_have_text("")
        await page.click(f'#my-races a[aria-label="go to race {code[1]}"]')
        await expect(page.locator("#status")).to_have_text("Go!")
        await expect(page.locator("#give-up")).to_be_visible()
    await eve.close()
    assert errors == []


# ----- rated races --------------------------------------------------------------------------


async def test_a_rated_race_between_two_signed_in_pages_ends_with_ratings_and_changes(
    browser: Browser, arena: ArenaServer, clean_redis: str
) -> None:
    errors: list[str] = []
    clients = [await account(arena.url, "ada_r"), await account(arena.url, "bob_r")]
    # A guest's form: Rated is there but cannot be ticked.
    guest = await open_page(browser, arena.url, errors)
    await expect(guest.locator("#rated")).to_be_disabled()
    await expect(guest.locator("#rated")).to_have_accessible_name("Rated")
    ada = await signed_in_page(browser, arena.url, "ada_r", errors)
    bob = await signed_in_page(browser, arena.url, "bob_r", errors)
    # Ticking Rated unticks and disables Hints allowed; unticking gives it back.
    await expect(ada.locator("#hints")).to_be_checked()
    await ada.check("#rated")
    await expect(ada.locator("#hints")).not_to_be_checked()
    await expect(ada.locator("#hints")).to_be_disabled()
    await ada.uncheck("#rated")
    await expect(ada.locator("#hints")).to_be_enabled()
    await ada.check("#rated")
    await ada.click("#create")
    await expect(ada.locator("#status")).to_contain_text("share the code")
    await expect(ada.locator("#rated-setting")).to_have_text("Rated")
    await expect(ada.locator("#hints-setting")).to_have_text("Hints: off")
    race_id = page_race_id(ada.url)
    code = re.search(r"Race ([A-Z0-9]{6})", await ada.locator("#status").inner_text())
    assert code is not None
    await bob.fill("#code", code[1])
    await bob.click("#join")
    await expect(bob.locator("#rated-setting")).to_have_text("Rated")
    # Accounts with no rating yet in this game: 1500, provisional.
    ada_id, bob_id = clients[0].player_id, clients[1].player_id
    await expect(bob.locator(f'.racer[data-player="{ada_id}"] .rating')).to_have_text("1500?")
    await expect(bob.locator(f'.racer[data-player="{bob_id}"]')).to_contain_text("bob_r (you) 1500?")
    await ada.click("#ready")
    await bob.click("#ready")
    await expect(ada.locator("#status")).to_have_text("Go!", timeout=10_000)
    await expect(ada.locator("#hint")).to_be_hidden()
    moves = foundation_moves(2)
    for index, move in enumerate(moves):
        await ada.fill("#move", move)
        await ada.press("#move", "Enter")
        await until_shown(ada, after(moves[: index + 1]), f"after {move}")
    await give_up(ada)
    await give_up(bob)
    # The Glicko-2 numbers for a first rated race, one win and one loss.
    won, lost = rate(Rating(), [(Rating(), 1.0)]), rate(Rating(), [(Rating(), 0.0)])
    winner, loser = round(won.rating), round(lost.rating)
    assert winner > 1500 > loser
    for page in (ada, bob):
        await expect(page.locator("#results h2")).to_have_text("Results (rated)")
        headers = page.locator('#standings thead th[scope="col"]')
        await expect(headers).to_have_text(["Rank", "Player", "Result", "Rating"])
        first = page.locator(f'#standings tr[data-player="{ada_id}"]')
        second = page.locator(f'#standings tr[data-player="{bob_id}"]')
        await expect(first.locator(".rating-change")).to_have_text(f"{winner}? (+{winner - 1500})")
        await expect(second.locator(".rating-change")).to_have_text(f"{loser}? (-{1500 - loser})")
        await expect(first).to_contain_text("1.")
        await expect(second).to_contain_text("2.")
    # What the server stored is what the page shows, and the names beside the board too.
    assert round(await stored_rating(clean_redis, ada_id)) == winner
    assert round(await stored_rating(clean_redis, bob_id)) == loser
    await expect(ada.locator(f'.racer[data-player="{ada_id}"] .rating')).to_have_text(f"{winner}?")
    await expect(ada.locator(f'.racer[data-player="{bob_id}"] .rating')).to_have_text(f"{loser}?")
    await ada.screenshot(path=shot_path("rated-results"), full_page=True)
    # A rematch of a rated race is rated too, and both its invitation and offer say so.
    await expect(ada.locator("#rematch p")).to_have_text(
        "The same racers on a new deal, rated as this race was: everyone asked has 30 seconds to accept."
    )
    await bob.click("#offer-rematch")
    await expect(ada.locator("#rematch-status")).to_contain_text(
        "bob_r offered a rated rematch: waiting for answers"
    )
    await expect(bob.locator("#rematch-status")).to_contain_text(
        "You offered a rated rematch: waiting for answers"
    )
    # A name in the standings links to that player's profile.
    await ada.locator(f'#standings tr[data-player="{bob_id}"] a.player').click()
    await expect(ada.locator("#profile-name")).to_have_text("bob_r")
    await expect(ada.locator('#ratings tr[data-game="eight-off"] .rating')).to_have_text(f"{loser}?")
    await expect(ada.locator(f'#recent tr[data-race="{race_id}"]')).to_contain_text(f"-{1500 - loser}")
    for client in clients:
        await client.close()
    assert errors == []


async def test_an_accounts_quick_match_says_it_waits_for_another_account_in_the_rated_queue(
    browser: Browser, arena: ArenaServer
) -> None:
    """The server queues an account in the rated queue, which never pairs it with a guest
    or a bot: the lobby says so while it waits (a guest's line says someone)."""
    errors: list[str] = []
    ada = await account(arena.url, "ada_q")
    page = await open_page(browser, arena.url, errors)
    replies: list[dict[str, object]] = []  # on the connection the login opens
    page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: replies.append(json.loads(frame))))
    await log_in(page, "ada_q")
    await expect(page.locator("#signed-in")).to_have_text("Signed in as ada_q.")
    await page.click("text=Quick match: Treize")
    await expect(page.locator("#queue")).to_have_text(
        "Waiting for another account to race at Treize (a rated quick match: accounts are paired "
        "with accounts only)\N{HORIZONTAL ELLIPSIS} Cancel quick match"
    )
    assert [r["rated"] for r in replies if r["type"] == "queued"] == [True]
    guest = await open_page(browser, arena.url, errors)
    await guest.fill("#name", "gus")
    await guest.click("text=Quick match: Eagle Wing")
    await expect(guest.locator("#queue")).to_have_text(
        "Waiting for someone to race at Eagle Wing\N{HORIZONTAL ELLIPSIS} Cancel quick match"
    )
    await ada.close()
    assert errors == []


async def test_an_account_ticking_casual_quick_matches_with_a_guest_in_an_unrated_race(
    browser: Browser, arena: ArenaServer, connect: Connect
) -> None:
    """The casual box, offered to an account only, sends the quick match to the casual
    queue: the lobby says it waits for someone, and a guest (as a bot is) pairs with it."""
    errors: list[str] = []
    guest_page = await open_page(browser, arena.url, errors)
    await guest_page.fill("#name", "gus")
    await expect(guest_page.locator("#quick-casual")).to_be_hidden()  # a guest's is casual anyway
    ada = await account(arena.url, "ada_c")
    page = await signed_in_page(browser, arena.url, "ada_c", errors)
    await page.check("#quick-casual")
    await page.click("text=Quick match: Treize")
    await expect(page.locator("#queue")).to_have_text(
        "Waiting for someone to race at Treize (casual: guests and bots too)\N{HORIZONTAL ELLIPSIS} "
        "Cancel quick match"
    )
    bot = await connect(arena.url)
    await bot.hello(name="bot-search-1")
    await bot.quick_match("treize")
    found = await bot.wait_for_match(timeout=10)
    assert found.race.rated is False
    assert sorted(r.name for r in found.race.racers) == ["ada_c", "bot-search-1"]
    await expect(page.locator("#rated-setting")).to_have_text("Casual")
    await ada.close()
    assert errors == []


async def test_a_casual_race_shows_casual_and_no_rating_change(browser: Browser, arena: ArenaServer) -> None:
    errors: list[str] = []
    ada = await open_page(browser, arena.url, errors)
    await ada.fill("#name", "ada")
    await ada.click("#create")
    await expect(ada.locator("#rated-setting")).to_have_text("Casual")
    race_id = page_race_id(ada.url)
    bob = await ArenaClient.connect(arena.url)
    await bob.hello(name="bob")
    code = (await bob.get_race(race_id)).code
    await bob.join_race(code)
    await bob.ready(race_id)
    await ada.click("#ready")
    await expect(ada.locator("#status")).to_have_text("Go!", timeout=10_000)
    await expect(ada.locator(".racer .rating")).to_have_count(0)  # guests have no rating
    await give_up(ada)
    await bob.finish(race_id)
    await expect(ada.locator("#results h2")).to_have_text("Results")
    await expect(ada.locator("#standings tbody tr")).to_have_count(2)
    # No rating changed: no Rating column, and every column has its header.
    await expect(ada.locator("#standings thead tr > *")).to_have_count(3)
    await expect(ada.locator('#standings thead th[scope="col"]')).to_have_text(["Rank", "Player", "Result"])
    for row in await ada.locator("#standings tbody tr").all():
        await expect(row.locator("td")).to_have_count(3)
    await bob.close()
    assert errors == []


# ----- leaderboard and profile ----------------------------------------------------------------


async def test_the_leaderboard_lists_seeded_players_in_order_with_my_rank_and_pages(
    browser: Browser, arena: ArenaServer, clean_redis: str
) -> None:
    errors: list[str] = []
    me = await account(arena.url, "reader_acct")
    field = {f"p_{i:02d}": (f"player{i:02d}", 1400.0 + 10 * i, 60.0) for i in range(30)}
    field[me.player_id] = ("reader_acct", 1655.0, 70.0)
    field["p_25"] = ("player25", 1660.0, 60.0)  # ties player26: both 4th
    await seed_ratings(clean_redis, field, arena.time.now_ms())
    page = await signed_in_page(browser, arena.url, "reader_acct", errors)
    await page.click("#nav-leaderboard")
    await expect(page.locator("h1")).to_have_text("Leaderboard: Eight Off")
    rows = page.locator("#leaderboard tbody tr")
    await expect(rows).to_have_count(20)
    # Best first; 1655 comes after 1690, 1680, 1670 and 1660 twice: sixth, and marked as me.
    top = [f"player{i:02d}" for i in (29, 28, 27, 26, 25)] + ["reader_acct"]
    top += [f"player{i:02d}" for i in range(24, 10, -1)]
    await expect(rows.locator("td:nth-child(2)")).to_have_text(top)
    await expect(rows.nth(0)).to_have_text(re.compile(r"^1\s*player29\s*1690\s*30$"))
    await expect(rows.locator("td:nth-child(1)")).to_have_text(
        [str(n) for n in (1, 2, 3, 4, 4, *range(6, 21))]
    )
    await expect(page.locator("#leaderboard tr.me")).to_have_count(1)
    await expect(page.locator("#leaderboard tr.me")).to_contain_text("reader_acct")
    await expect(page.locator("#my-rank")).to_have_text("Your rank: 6 of 31, rated 1655.")
    await expect(page.locator("#page-info")).to_have_text("1\N{EN DASH}20 of 31")
    await expect(page.locator("#previous-page")).to_be_disabled()
    await page.screenshot(path=shot_path("leaderboard"), full_page=True)
    # The next page: the last 11, then nothing further.
    await page.click("#next-page")
    await expect(page.locator("#page-info")).to_have_text("21\N{EN DASH}31 of 31")
    await expect(rows.locator("td:nth-child(2)")).to_have_text([f"player{i:02d}" for i in range(10, -1, -1)])
    await expect(page.locator("#next-page")).to_be_disabled()
    await page.click("#previous-page")
    await expect(page.locator("#page-info")).to_have_text("1\N{EN DASH}20 of 31")
    # Another game's tab: nobody yet.
    await page.get_by_role("link", name="Treize").click()
    await expect(page.locator("h1")).to_have_text("Leaderboard: Treize")
    await expect(page.locator("#leaderboard tbody")).to_have_text("Nobody is listed at Treize yet.")
    await expect(page.locator("#my-rank")).to_contain_text("You are not listed yet")
    # A name links to the profile.
    await page.get_by_role("link", name="Eight Off").click()
    await page.get_by_role("link", name="player29").click()
    await expect(page.locator("#profile-name")).to_have_text("player29")
    await expect(page.locator("#profile-account")).to_have_text("Account player29")
    await expect(page.locator('#ratings tr[data-game="eight-off"] .rating')).to_have_text("1690")
    # A guest is told guests are not listed.
    guest = await open_page(browser, arena.url, errors)
    await guest.fill("#name", "gus")
    await guest.click("#create")
    await expect(guest.locator("#status")).to_contain_text("share the code")
    await guest.click("#nav-leaderboard")
    await expect(guest.locator("#leaderboard tbody tr")).to_have_count(20)
    await expect(guest.locator("#my-rank")).to_have_text(
        "Guests are not listed: register to race rated races."
    )
    await me.close()
    assert errors == []


async def test_the_profile_page_shows_ratings_and_recent_races_with_links(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    ada, bob = await account(arena.url, "ada_p"), await account(arena.url, "bob_p")
    # One rated race ada wins on cards home (both give up), then one casual race.
    rated = await ada.create_race("eight-off", rated=True)
    await bob.join_race(rated.code)
    for client in (ada, bob):
        await client.ready(rated.race_id)
    moves = foundation_moves(2)
    page = await signed_in_page(browser, arena.url, "ada_p", errors)
    await page.goto(page.url.split("#")[0] + f"#/race/{rated.race_id}")
    await expect(page.locator("#status")).to_have_text("Go!", timeout=10_000)
    for move in moves:
        await ada.move(rated.race_id, move)
    for client in (ada, bob):
        await client.finish(rated.race_id)
    await expect(page.locator("#results h2")).to_have_text("Results (rated)")
    casual = await bob.create_race("eight-off")
    await ada.join_race(casual.code)
    for client in (ada, bob):
        await client.ready(casual.race_id)
    await expect(page.locator("#nav-profile")).to_be_visible()
    await page.goto(page.url.split("#")[0] + f"#/race/{casual.race_id}")
    await expect(page.locator("#status")).to_have_text("Go!", timeout=10_000)
    for client in (ada, bob):
        await client.finish(casual.race_id)
    await expect(page.locator("#results h2")).to_have_text("Results")
    # My profile: the page's own player.
    await page.click("#nav-profile")
    winner = round(rate(Rating(), [(Rating(), 1.0)]).rating)
    await expect(page.locator("#profile-name")).to_have_text("ada_p")
    await expect(page.locator("#profile-account")).to_have_text("Account ada_p · this is you")
    line = page.locator('#ratings tr[data-game="eight-off"]')
    await expect(line.locator(".rating")).to_have_text(f"{winner}?")
    await expect(line.locator("td:nth-child(3)")).to_have_text("1")
    await expect(line.locator("svg.sparkline")).to_have_attribute(
        "aria-label", f"Eight Off ratings after the latest 1 rated races: {winner}"
    )
    await expect(page.locator("#stats thead th")).to_have_text(["Game", "Races", "Deals won", "Fastest win"])
    await expect(page.locator('#stats tr[data-game="eight-off"]')).to_have_text(
        re.compile("^Eight Off\\s*2\\s*0\\s*\N{EN DASH}$")
    )
    await expect(page.locator("#stats-note")).to_have_text(
        "Practice runs of a daily deal are listed among the recent races but not counted here."
    )
    recent = page.locator("#recent tbody tr")
    await expect(recent).to_have_count(2)
    # The end is the browser's local time, the daily column a UTC day: the header says which.
    await expect(page.locator("#recent thead th").first).to_have_text("Ended (your time)")
    await expect(recent.nth(0)).to_have_attribute("data-race", casual.race_id)
    await expect(recent.nth(0).locator("td:nth-child(3)")).to_have_text("Casual")
    # Nobody scored in it: a tie for 1st, not a win.
    await expect(recent.nth(0).locator("td:nth-child(4)")).to_have_text("tied 1st of 2")
    await expect(recent.nth(0).locator("td:nth-child(6)")).to_have_text("")
    await expect(recent.nth(1)).to_have_attribute("data-race", rated.race_id)
    await expect(recent.nth(1).locator("td:nth-child(3)")).to_have_text("Rated")
    await expect(recent.nth(1).locator("td:nth-child(4)")).to_have_text("1st of 2")
    await expect(recent.nth(1).locator("td:nth-child(5)")).to_have_text("gave up with 2 cards home")
    await expect(recent.nth(1).locator("td:nth-child(6)")).to_have_text(f"+{winner - 1500}")
    await page.screenshot(path=shot_path("profile"), full_page=True)
    # Its links: the race's results, and its replay.
    await recent.nth(1).locator("a.results-link").click()
    await expect(page.locator(f'#standings tr[data-player="{ada.player_id}"] .rating-change')).to_have_text(
        f"{winner}? (+{winner - 1500})"
    )
    await page.go_back()
    await page.locator(f'#recent tr[data-race="{rated.race_id}"] a.replay-link').click()
    await expect(page.locator("#step-label")).to_contain_text(f"of {len(moves)} moves")
    # Another player's profile, by its address.
    await page.goto(page.url.split("#")[0] + f"#/profile/{bob.player_id}")
    await expect(page.locator("#profile-name")).to_have_text("bob_p")
    await expect(page.locator("#profile-account")).to_have_text("Account bob_p")
    # And by its username, as the terminal's profile command takes it.
    await page.goto(page.url.split("#")[0] + "#/profile/bob_p")
    await expect(page.locator("#profile-name")).to_have_text("bob_p")
    await expect(page.locator("#profile-account")).to_have_text("Account bob_p")
    # On a phone the recent races' table scrolls in its own box: the page keeps its width.
    await page.set_viewport_size({"width": 375, "height": 740})
    overflow = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the profile is {overflow}px wider than the phone's screen"
    await page.locator("#recent tr a.replay-link").first.scroll_into_view_if_needed()
    await expect(page.locator("#recent tr a.replay-link").first).to_be_in_viewport()
    for client in (ada, bob):
        await client.close()
    assert errors == []


async def test_a_visitor_whose_registration_is_refused_is_not_left_signed_in_as_a_guest(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    taken = await account(arena.url, "zoe_taken")
    page = await open_page(browser, arena.url, errors)
    await page.click("#nav-account")
    await expect(page.locator("#register-intro")).to_contain_text("for a new player")
    await page.fill("#register-username", "zoe_taken")
    await page.fill("#register-password", PASSWORD)
    await page.click("#register")
    await expect(page.locator("#register-error")).to_contain_text("taken")
    await expect(page.locator("#who")).to_have_text("")
    await expect(page.locator("#nav-account")).to_have_text("Sign in")
    assert await page.evaluate(TOKEN) is None
    # The next username is the visitor's.
    await page.fill("#register-username", "zoe_free")
    await page.click("#register")
    await expect(page.locator("#account-name")).to_contain_text("Signed in as zoe_free.")
    await expect(page.locator("#who")).to_have_text("zoe_free")
    await taken.close()
    assert errors == []


async def rated_race_ada_wins(ada: Racer, bob: Racer) -> tuple[str, dict[str, Any]]:
    """A rated race ada wins on cards home (both give up): its id and ada's standing."""
    race_id = await seated(ada, [bob], rated=True)
    await play(ada, race_id, foundation_moves(2))
    for racer in (ada, bob):
        await racer.request({"type": "finish", "race_id": race_id})
    ended = await ada.event("race_ended")
    standing: dict[str, Any] = ended["summary"]["standings"][0]
    return race_id, standing


async def test_a_finished_rated_races_page_shows_the_ratings_it_made_beside_the_board_and_in_the_results(
    browser: Browser, arena: ArenaServer
) -> None:
    """A later rated race changes ada's rating; the first race's page still shows, in the
    racers' lines as in its results, the rating that race left her with."""
    errors: list[str] = []
    ada, bob = await raw_accounts(arena.url, "ada", "bob")
    race_id, first = await rated_race_ada_wins(ada, bob)
    _, second = await rated_race_ada_wins(ada, bob)
    assert second["rating"] != first["rating"]
    page = await open_page(browser, arena.url, errors)
    await page.goto(page.url.split("#")[0] + f"#/race/{race_id}")
    rating = f"{first['rating']}{'?' if first['provisional'] else ''}"
    await expect(
        page.locator(f'#standings tr[data-player="{first["player_id"]}"] .rating-change')
    ).to_have_text(f"{rating} (+{first['rating_change']})")
    await expect(page.locator(f'.racer[data-player="{first["player_id"]}"] .rating')).to_have_text(rating)
    for racer in (ada, bob):
        await racer.ws.close()
    assert errors == []


async def test_a_racer_not_ready_at_a_rated_start_is_told_the_race_started_without_them(
    browser: Browser, arena: ArenaServer
) -> None:
    """bob starts his rated race with cy, both ready, while ada's page sits in it not ready:
    she is unseated, and her page says why and offers no Join (nor goes to watch)."""
    errors: list[str] = []
    bob, cy = await account(arena.url, "bob_l"), await account(arena.url, "cy_l")
    await account(arena.url, "ada_l")
    race = await bob.create_race("eight-off", seats=3, time_limit=60, rated=True)
    ada = await signed_in_page(browser, arena.url, "ada_l", errors)
    await ada.fill("#code", race.code)
    await ada.click("#join")
    await expect(ada.locator("#ready")).to_be_visible()
    await cy.join_race(race.code)
    await bob.ready(race.race_id)
    await cy.ready(race.race_id)
    await bob.start(race.race_id)
    told = "The race started without you: you were not ready (rated races start with their ready racers)."
    await expect(ada.locator("#status")).to_have_text(told)
    await expect(ada.locator("#ready")).to_be_hidden()
    await expect(ada.locator("#join")).to_be_hidden()
    await ada.wait_for_timeout(3_500)  # a visitor's page would have read the race again by now
    await expect(ada.locator("#status")).to_have_text(told)
    assert page_race_id(ada.url) == race.race_id
    await bob.close()
    await cy.close()
    assert errors == []

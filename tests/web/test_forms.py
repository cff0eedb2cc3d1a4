"""Every form of the browser client checks its fields before sending, in real headless
Chromium against a real server: a wrong value gets a plain-language note beside its
field (named by the field's aria-describedby, the field focused and marked invalid) and
the page sends no frame for it; the right value goes through. What only the server can
tell (a username taken, of two scripts, a wrong password) is still the server's reason.
The limits the page checks are the server's own (the first test)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Page, expect
from pydantic import BaseModel

from client.sdk import ArenaClient
from server.app import ArenaServer
from shared.protocol.accounts import PASSWORD_MAX, PASSWORD_MIN, Login
from shared.protocol.base import NAME_MAX
from shared.protocol.lobby import CreateRace, JoinRace
from shared.protocol.racing import MakeMove
from shared.usernames import USERNAME_MAX, USERNAME_MIN, check_username
from tests.web.conftest import shot_path
from tests.web.test_accounts_ratings import PASSWORD, TOKEN, account, signed_in_page
from tests.web.test_browser import open_page
from tests.web.test_daily import daily_node

FORMS_JS = Path(__file__).resolve().parents[2] / "client" / "web" / "js" / "forms.js"
#: What a page sends by itself, whatever one types: the lobby's refreshes.
POLLING = frozenset({"list_races", "list_my_races", "get_race", "ping"})


def constraint(model: type[BaseModel], field: str, name: str) -> Any:
    """The value of one pydantic constraint (``ge``, ``max_length``...) of a model's field."""
    found = [getattr(m, name) for m in model.model_fields[field].metadata if hasattr(m, name)]
    assert len(found) == 1, (model, field, name)
    return found[0]


def test_the_limits_the_page_checks_are_the_servers() -> None:
    text = FORMS_JS.read_text()
    block = re.search(r"export const LIMITS = \{(.*?)\n\};", text, re.S)
    assert block is not None
    limits = {k: int(v) for k, v in re.findall(r"(\w+): (\d+),", block[1])}
    assert limits == {
        "nameMax": NAME_MAX,
        "usernameMin": USERNAME_MIN,
        "usernameMax": USERNAME_MAX,
        "loginUsernameMax": constraint(Login, "username", "max_length"),
        "passwordMin": PASSWORD_MIN,
        "passwordMax": PASSWORD_MAX,
        "seatsMin": constraint(CreateRace, "seats", "ge"),
        "seatsMax": constraint(CreateRace, "seats", "le"),
        "codeMin": constraint(JoinRace, "code", "min_length"),
        "codeMax": constraint(JoinRace, "code", "max_length"),
        "moveMax": constraint(MakeMove, "move", "max_length"),
    }


async def recording(page: Page) -> list[dict[str, Any]]:
    """Every frame the page sends, on any of its connections, decoded: from a reload on
    (so from its first connection's first frame)."""
    sent: list[dict[str, Any]] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(json.loads(frame))))
    await page.reload()
    return sent


async def sent_since(page: Page, sent: list[dict[str, Any]], mark: int) -> list[dict[str, Any]]:
    """What the page sent after ``mark`` besides its own refreshes, given time to send."""
    await page.wait_for_timeout(400)
    return [frame for frame in sent[mark:] if frame["type"] not in POLLING]


async def refused_here(page: Page, field: str, note: str) -> None:
    """The field's note says ``note``; the field is marked invalid, described by its
    note, and has the focus."""
    await expect(page.locator(f"#{field}-note")).to_have_text(note)
    box = page.locator(f"#{field}")
    await expect(box).to_have_attribute("aria-invalid", "true")
    await expect(box).to_have_attribute("aria-describedby", re.compile(rf"(^| ){field}-note$"))
    await expect(box).to_be_focused()


# ----- the lobby ------------------------------------------------------------------------------


async def test_the_lobby_says_what_is_wrong_with_the_name_seats_or_code_and_sends_nothing(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    sent = await recording(page)
    await expect(page.locator("#no-open-races")).to_be_visible()  # the visitor's refreshes run
    mark = len(sent)
    for name, note in (
        ("", "Choose a name first."),
        ("-ada", "A name starts with a letter or digit and has only letters, digits, spaces, _ . and -."),
        ("ada!", "A name starts with a letter or digit and has only letters, digits, spaces, _ . and -."),
        ("alice\u3164", "A name has no characters that draw nothing, such as U+3164."),  # HANGUL FILLER
        (
            "ada 7\u0301",
            "A combining mark goes after a letter, not at the start or after a digit, space or sign.",
        ),
        ("adb\u0300\u0301\u0302\u0303", "A letter carries at most 3 combining marks."),
    ):
        await page.fill("#name", name)
        await page.click("#create")
        await refused_here(page, "name", note)
        await expect(page.locator("#status")).to_have_count(0)  # still the lobby
    await page.fill("#name", "\u0930\u093e\u0939\u0941\u0932")  # Rahul: Devanagari's vowel signs are marks
    await expect(page.locator("#name")).not_to_have_attribute("aria-invalid", "true")
    await page.fill("#name", "ada")
    await expect(page.locator("#name")).not_to_have_attribute(
        "aria-invalid", "true"
    )  # checked again as typed
    await expect(page.locator("#name-note")).to_have_text("")
    for seats in ("9", "1", "2.5", ""):
        await page.fill("#seats", seats)
        await page.click("#create")
        await refused_here(page, "seats", "A race has 2 to 8 seats.")
    for code in ("", "AB", "AB-CD", "ABC DE"):
        await page.fill("#code", code)
        await page.click("#join")
        await refused_here(page, "code", "A race code is 4 to 12 letters or digits.")
    await expect(page.locator("#seats-note")).to_have_text("")  # only the action's own fields
    await page.screenshot(path=shot_path("forms-lobby-code-refused"))
    assert await sent_since(page, sent, mark) == []  # no hello as ada, no create_race, no join_race
    await expect(page.locator("#who")).to_have_text("")
    # The right values go through: a race of 3 seats.
    await page.fill("#seats", "3")
    await page.click("#create")
    await expect(page.locator("#status")).to_contain_text("share the code")
    assert [f["seats"] for f in sent if f["type"] == "create_race"] == [3]
    assert [f["name"] for f in sent[mark:] if f["type"] == "hello"] == ["ada"]
    code = re.search(r"Race ([A-Z0-9]{6})", await page.locator("#status").inner_text())
    assert code is not None
    # And a code typed as a friend might (lower case, spaces around) joins it.
    bob = await open_page(browser, arena.url, errors)
    bob_sent = await recording(bob)
    await bob.fill("#name", "bob")
    await bob.fill("#code", f" {code[1].lower()} ")
    await bob.click("#join")
    await expect(bob.locator("#status")).to_contain_text("Race")
    assert [f["code"] for f in bob_sent if f["type"] == "join_race"] == [code[1]]
    assert errors == []


async def test_enter_in_the_lobbys_name_field_takes_the_name_and_in_the_seats_field_creates(
    browser: Browser, arena: ArenaServer
) -> None:
    """The name field's Enter starts the guest under the name (checked first) and stays in
    the lobby; the seats field's Enter does what Create race does. An account's username
    is refused with the server's reason, and a saved one is forgotten, not tried again."""
    errors: list[str] = []
    iris = await account(arena.url, "iris")
    page = await open_page(browser, arena.url, errors)
    await page.evaluate("localStorage.setItem('solitaire-arena.name', 'Iris')")  # an earlier visit's
    sent = await recording(page)
    await expect(page.locator("#no-open-races")).to_be_visible()  # read as a visitor
    await expect(page.locator("#name")).to_have_value("")
    assert await page.evaluate("localStorage.getItem('solitaire-arena.name')") is None
    await page.fill("#name", "IRIS")
    await page.press("#name", "Enter")
    await expect(page.locator("#app p.error")).to_have_text(
        "IRIS is an account's username: pick another name, or log in as iris"
    )
    await expect(page.locator("#who")).to_have_text("")
    assert await page.evaluate("localStorage.getItem('solitaire-arena.name')") is None
    await iris.close()
    await page.fill("#name", "")
    mark = len(sent)
    await page.press("#name", "Enter")
    await refused_here(page, "name", "Choose a name first.")
    assert await sent_since(page, sent, mark) == []
    await page.fill("#name", "ada")
    await page.press("#name", "Enter")
    await expect(page.locator("#who")).to_have_text("ada (guest)")
    assert [(f["type"], f.get("name")) for f in await sent_since(page, sent, mark)] == [("hello", "ada")]
    assert await page.evaluate("localStorage.getItem('solitaire-arena.name')") == "ada"
    await expect(page.locator("#create")).to_be_visible()  # still the lobby: no race made
    await page.fill("#seats", "3")
    await page.press("#seats", "Enter")
    await expect(page.locator("#status")).to_contain_text("share the code")
    assert [f["seats"] for f in sent if f["type"] == "create_race"] == [3]
    assert errors == []


async def test_a_code_of_the_right_form_that_no_race_has_shows_the_servers_reason(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    await page.fill("#name", "ada")
    await page.fill("#code", "ZZZZ")
    await page.click("#join")
    await expect(page.locator("#code-note")).to_have_text("")
    await expect(page.locator("#app p.error")).not_to_have_text("")
    await expect(page.locator("#app p.error")).not_to_contain_text(
        "should"
    )  # the server's words, not pydantic's
    assert errors == []


# ----- the daily page's guest name ------------------------------------------------------------


async def test_the_daily_guest_form_says_what_is_wrong_with_the_name_and_sends_nothing(
    browser: Browser, clean_redis: str
) -> None:
    errors: list[str] = []
    async with daily_node(clean_redis) as (arena, _clock):
        page = await open_page(browser, arena.url, errors)
        sent = await recording(page)
        await page.click("#nav-daily")
        await expect(page.locator("#daily-name")).to_be_visible()
        mark = len(sent)
        for name, note in (
            ("   ", "Choose a name first."),
            ("gus?", "A name starts with a letter or digit and has only letters, digits, spaces, _ . and -."),
        ):
            await page.fill("#daily-name", name)
            await page.click("#daily-guest button[type=submit]")
            await refused_here(page, "daily-name", note)
        assert await sent_since(page, sent, mark) == []
        await page.fill("#daily-name", "gus the 2nd")
        await page.click("#daily-guest button[type=submit]")
        await expect(page.locator("section.daily")).to_have_count(3)
        await expect(page.locator("#who")).to_have_text("gus the 2nd (guest)")
        assert errors == []


# ----- the account page -----------------------------------------------------------------------


async def test_the_register_form_says_what_is_wrong_with_the_username_or_password_and_sends_nothing(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    sent = await recording(page)
    await page.click("#nav-account")
    await expect(page.locator("#register-intro")).to_contain_text("for a new player")
    mark = len(sent)
    await page.fill("#register-password", PASSWORD)
    for username, note in (
        ("", "Choose a username."),
        ("ab", "A username has 3 to 20 characters."),
        ("ada lovelace", "A username has only letters, digits, _ and -: no spaces."),
        ("ada.l", "A username has only letters, digits, _ and -: not “.”."),
        ("1234", "A username needs at least one letter."),
        ("ali\ufe0fce", "A username has no characters that draw nothing, such as U+FE0F."),
    ):
        await page.fill("#register-username", username)
        await page.click("#register")
        await refused_here(page, "register-username", note)
    await page.fill("#register-username", "ada_l")
    for password in ("", "seven 7"):
        await page.fill("#register-password", password)
        await page.click("#register")
        await refused_here(page, "register-password", "A password has 8 to 128 characters.")
    await expect(page.locator("#register-username-note")).to_have_text("")
    await page.screenshot(path=shot_path("forms-register-password-refused"))
    assert await sent_since(page, sent, mark) == []  # no guest started, no register
    await expect(page.locator("#register-error")).to_have_text("")
    # A rule only the server checks: one script (a Cyrillic "a", U+0430, among Latin letters).
    await page.fill("#register-password", PASSWORD)
    await page.fill("#register-username", "p\u0430ypal")
    await page.click("#register")
    await expect(page.locator("#register-error")).to_have_text(
        "a username uses one script, not cyrillic and latin mixed"
    )
    await expect(page.locator("#register-username-note")).to_have_text("")
    assert await page.evaluate(TOKEN) is None
    # The right values go through.
    await page.fill("#register-username", "ada_l")
    await page.click("#register")
    await expect(page.locator("#account-name")).to_contain_text("Signed in as ada_l.")
    assert [(f["username"], f["password"]) for f in sent if f["type"] == "register"][-1] == (
        "ada_l",
        PASSWORD,
    )
    assert errors == []


async def test_the_login_form_asks_for_both_fields_and_sends_nothing_without_them(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    bob = await account(arena.url, "bob_b")
    page = await open_page(browser, arena.url, errors)
    sent = await recording(page)
    await page.click("#nav-account")
    await expect(page.locator("#login-username")).to_be_visible()
    mark = len(sent)
    await page.click("#login")
    await refused_here(page, "login-username", "Enter your username.")
    await expect(page.locator("#login-password-note")).to_have_text("Enter your password.")
    await page.fill("#login-username", "  ")
    await page.fill("#login-password", PASSWORD)
    await page.click("#login")
    await refused_here(page, "login-username", "Enter your username.")
    await page.fill("#login-username", "bob_b")
    await page.fill("#login-password", "")
    await page.click("#login")
    await refused_here(page, "login-password", "Enter your password.")
    assert await sent_since(page, sent, mark) == []  # no login
    await page.fill("#login-password", PASSWORD)
    await page.click("#login")
    await expect(page.locator("#signed-in")).to_have_text("Signed in as bob_b.")
    assert [f["username"] for f in sent if f["type"] == "login"] == ["bob_b"]
    await bob.close()
    assert errors == []


async def test_the_change_password_form_checks_the_new_password_and_sends_nothing_while_wrong(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    dee = await account(arena.url, "dee_d")
    page = await signed_in_page(browser, arena.url, "dee_d", errors)
    sent = await recording(page)
    await page.click("#nav-account")
    await expect(page.locator("#old-password")).to_be_visible()
    mark = len(sent)
    await page.fill("#new-password", "staple 2 horses")
    await page.click("#change-password")
    await refused_here(page, "old-password", "Enter your password.")
    await page.fill("#old-password", PASSWORD)
    await page.fill("#new-password", "short")
    await page.click("#change-password")
    await refused_here(page, "new-password", "A password has 8 to 128 characters.")
    await page.fill("#new-password", "my Dee_D pass")
    await page.click("#change-password")
    await refused_here(page, "new-password", "A password does not hold the username.")
    await page.fill("#new-password", "xxxxxxxxx")
    await page.click("#change-password")
    await refused_here(page, "new-password", "A password is not one character repeated.")
    await expect(page.locator("#old-password-note")).to_have_text("")
    assert await sent_since(page, sent, mark) == []  # no change_password
    await page.fill("#new-password", "staple 2 horses")
    await page.click("#change-password")
    await expect(page.locator("#password-status")).to_have_text(
        "Password changed: your other devices are signed out."
    )
    assert [f["new_password"] for f in sent if f["type"] == "change_password"] == ["staple 2 horses"]
    again = await ArenaClient.connect(arena.url)
    assert (await again.login("dee_d", "staple 2 horses")).player_id == dee.player_id
    for client in (dee, again):
        await client.close()
    assert errors == []


#: Usernames the page and the server must judge alike (none mixes scripts: that rule is
#: the server's alone).
JUDGED_ALIKE = [
    "ada_l",
    "\u4f50\u3005\u6728",  # Sasaki, with the iteration mark
    "\u30b8\u30e7\u30f3\u30fb\u30b9\u30df\u30b9",  # John Smith in katakana, its words parted by a middle dot
    "\u5c71\u7530\u30fb\u305f\u308d\u3046",  # Han, dot, hiragana
    "\u30b8\u30e7\u30fc\u30fb\u30b9",  # the long-vowel mark before the dot
    "\u30fb\u30b8\u30e7\u30f3",  # a dot first
    "\u30b8\u30e7\u30f3\u30fb",  # a dot last
    "\u30b8\u30e7\u30f3\u30fb\u30fb\u30b9",  # two dots
    "abc\u30fbdef",  # a dot between Latin words
    "\u30b8\u30e7\u30f3\u30fb1",  # a dot before a digit
]


async def test_the_page_takes_the_usernames_the_server_takes_and_refuses_the_others(
    browser: Browser, arena: ArenaServer
) -> None:
    errors: list[str] = []
    page = await open_page(browser, arena.url, errors)
    problems = await page.evaluate(
        """async (names) => {
            const { usernameProblem } = await import("/static/js/forms.js");
            return names.map(usernameProblem);
        }""",
        JUDGED_ALIKE,
    )
    judged = {}
    for name, problem in zip(JUDGED_ALIKE, problems, strict=True):
        try:
            check_username(name)
        except ValueError as refused:
            judged[name] = (problem is not None, str(refused))
        else:
            judged[name] = (problem is None, "")
    assert {name: verdict for name, verdict in judged.items() if not verdict[0]} == {}
    assert problems[5] == "A username's \u30fb goes between two Japanese words."
    assert errors == []

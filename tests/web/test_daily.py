"""The daily challenges in the browser client, in real headless Chromium against a real
server and Redis with a hand-prepared day: the Daily page (the day's deals and their
commitments, your attempt, the countdown, the boards, a past day's seeds), a daily attempt
played on the race page, and what another account and a guest may see. Checked against
the server's own state."""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import re
import time
from collections.abc import AsyncIterator

from playwright.async_api import Browser, Locator, Page, expect

from client.errors import ArenaError
from client.sdk import ArenaClient
from server.app import ArenaServer
from server.features.daily_rules import DAY_MS, day_start
from server.store.records import DailyDeal
from shared import GAMES, replay
from shared.protocol import RaceEnded
from shared.solver import solve_deal
from tests.server.conftest import WINNABLE_SEED, node_settings
from tests.server.helpers import start_race
from tests.timing import tenths_of_seconds
from tests.web.conftest import give_up, shot_path
from tests.web.test_accounts_ratings import account, signed_in_page
from tests.web.test_browser import click_move, expected, open_page, page_race_id, shown

#: The day the server's clock is on (from its noon, UTC): a day of the test's choosing,
#: whatever the date on this machine.
DAY = dt.date(2027, 3, 14)
#: When the seeds of DAY's deals come out: its last attempts (30 min) over, and a minute.
OPENS = "once the day's last attempts are over (00:31 UTC on 2027-03-15)"
HOUR_MS = 3_600_000
TITLES = {"eight-off": "Eight Off", "eagle-wing": "Eagle Wing", "treize": "Treize"}


class ShiftedTime:
    """The system clock moved to ``start_ms`` and running on from there in real time (the
    page and the server's race clocks need time to pass); ``advance`` jumps it ahead."""

    def __init__(self, start_ms: int) -> None:
        self.shift = start_ms - int(time.time() * 1000)

    def now_ms(self) -> int:
        return int(time.time() * 1000) + self.shift

    def advance(self, seconds: float) -> None:
        self.shift += round(seconds * 1000)


@contextlib.asynccontextmanager
async def daily_node(redis_url: str) -> AsyncIterator[tuple[ArenaServer, ShiftedTime]]:
    """A node whose clock shows noon of :data:`DAY`, with that day's deals prepared (from a
    fixed secret: the same deals every run)."""
    clock = ShiftedTime(day_start(DAY) + 12 * HOUR_MS)
    settings = node_settings(redis_url, daily_secret="the web tests' daily secret")
    node = ArenaServer(settings, seed_source=lambda: WINNABLE_SEED, time=clock)
    await node.start()
    try:
        assert node.features is not None
        await node.features.daily.prepare(DAY)
        yield node, clock
    finally:
        await node.stop()


async def deal_of(arena: ArenaServer, game: str, day: dt.date = DAY) -> DailyDeal:
    assert arena.store is not None
    deal = await arena.store.dailies.deal(day.isoformat(), game)
    assert deal is not None
    return deal


def winning_line(game: str, seed: int) -> list[str]:
    line = solve_deal(game, seed).line
    assert line is not None
    return line


async def play_through(client: ArenaClient, arena: ArenaServer, game: str) -> str:
    """``client`` plays today's ``game`` daily to a win through the SDK: the race id."""
    deal = await deal_of(arena, game)
    started = await client.start_daily(game)  # type: ignore[arg-type]
    race_id = started.race.race_id
    for move in winning_line(game, deal.seed):
        await client.move(race_id, move)
    return race_id


async def open_daily(page: Page) -> None:
    """The Daily page through the header's link, drawn with its three deals."""
    await page.click("#nav-daily")
    await expect(page.locator("#nav-daily")).to_have_attribute("aria-current", "page")
    await expect(page.locator("section.daily")).to_have_count(3)


def deal_box(page: Page, game: str) -> Locator:
    """The section of the Daily page about ``game``'s deal."""
    return page.locator(f'section.daily[data-game="{game}"]')


async def until_board(page: Page, line: list[str], game: str, seed: int, moves: int) -> None:
    """Waits (up to 2 s) for the page to show the deal after ``line[:moves]``."""
    want = expected(replay(game, seed, line[:moves]).view())  # type: ignore[arg-type]
    for _ in range(100):
        if await shown(page) == want:
            return
        await page.wait_for_timeout(20)
    assert await shown(page) == want, await page.locator("#refusal").inner_text()


async def test_the_days_weekday_is_in_english_as_the_page_in_a_german_browser(
    browser: Browser, clean_redis: str
) -> None:
    errors: list[str] = []
    async with daily_node(clean_redis) as (arena, _clock):
        page = await open_page(browser, arena.url, errors, locale="de-DE", timezone_id="Pacific/Kiritimati")
        await open_daily(page)
        await expect(page.locator("#daily-date")).to_have_text("Sunday 2027-03-14 (UTC)")
        assert errors == []


# ----- an account's day ---------------------------------------------------------------------


async def test_an_account_plays_the_daily_to_a_win_tops_the_board_and_then_practises(
    browser: Browser, clean_redis: str
) -> None:
    errors: list[str] = []
    async with daily_node(clean_redis) as (arena, _clock):
        ada = await account(arena.url, "ada_day")
        page = await signed_in_page(browser, arena.url, "ada_day", errors)
        await open_daily(page)
        # The day, on the server's clock: its date, and about 12 hours to the next deals.
        await expect(page.locator("#daily-date time")).to_have_attribute("datetime", "2027-03-14")
        await expect(page.locator("#daily-date")).to_contain_text("2027-03-14")
        await expect(page.locator("#daily-date")).to_contain_text("(UTC)")
        await expect(page.locator("#daily-countdown")).to_have_text(re.compile(r"^11:5\d:\d\d$"))
        # Each deal with its commitment (shortened, whole on hover) and its proven mark.
        dailies = await ada.dailies()
        assert dailies.date == DAY.isoformat() and [d.game for d in dailies.deals] == list(GAMES)
        for info in dailies.deals:
            box = deal_box(page, info.game)
            stored = await deal_of(arena, info.game)
            assert info.commitment == stored.commitment
            commitment = box.locator("code.commitment")
            await expect(commitment).to_have_text(info.commitment[:12] + "\N{HORIZONTAL ELLIPSIS}")
            await expect(commitment).to_have_attribute("title", info.commitment)
            await expect(box.locator(".proven" if info.proven else ".unproven")).to_have_text(
                "\N{CHECK MARK} proven winnable" if info.proven else "not proven winnable"
            )
            if info.game != "eagle-wing":
                assert info.proven
            await expect(
                box.get_by_role("button", name=f"Play {TITLES[info.game]}", exact=True)
            ).to_be_visible()
            await expect(box.locator("button.practice")).to_have_count(0)
            await expect(box.locator(".attempt-state")).to_have_text(
                re.compile("^Your scored attempt: one try")
            )
            await expect(box.locator(f"#board-{info.game} tbody")).to_have_text(
                "No finished scored attempts yet."
            )
        await page.screenshot(path=shot_path("daily-today"), full_page=True)
        # Play: the race page, a race of one already running, labelled as the scored attempt.
        await deal_box(page, "eight-off").get_by_role("button", name="Play Eight Off").click()
        await expect(page.locator("#daily-kind")).to_have_text("Daily \N{EM DASH} scored attempt")
        await expect(page.locator("#status")).to_have_text("Go!")
        # As at a race's start, the keyboard plays at once: the board has the focus.
        await expect(page.locator("#race-title")).to_have_text("Daily challenge: Eight Off")
        await expect(page.locator('#board [tabindex="0"]')).to_be_focused()
        await expect(page.locator("#hints-setting")).to_have_text("Hints: off")
        await expect(page.locator("#hint")).to_be_hidden()
        await expect(page.locator("#ready")).to_be_hidden()
        await expect(page.locator("#rated-setting")).to_be_hidden()
        await expect(page.locator("#clock")).to_have_text(re.compile(r"^left (30:00|29:5\d)$"))
        await expect(page.locator(".racer")).to_have_count(1)
        race_id = page_race_id(page.url)
        started = await ada.get_race(race_id)
        assert started.seats == 1 and started.status == "running" and started.hints is False
        # The winning line: a few moves by clicks, the rest typed in the move box.
        deal = await deal_of(arena, "eight-off")
        line = winning_line("eight-off", deal.seed)
        for index, move in enumerate(line[:3]):
            await click_move(page, move)
            await until_board(page, line, "eight-off", deal.seed, index + 1)
        await page.screenshot(path=shot_path("daily-attempt"), animations="disabled")
        # Away to the Daily page mid-attempt: it is under way there, and Resume goes back to
        # the board as the server has it (the race page learns again what the race is).
        await open_daily(page)
        await expect(deal_box(page, "eight-off").locator(".attempt-state")).to_have_text(
            "Your scored attempt is under way."
        )
        await expect(deal_box(page, "eight-off").locator("button.play")).to_have_count(0)
        await deal_box(page, "eight-off").get_by_role("link", name="Resume Eight Off").click()
        await expect(page.locator("#daily-kind")).to_have_text("Daily \N{EM DASH} scored attempt")
        await until_board(page, line, "eight-off", deal.seed, 3)
        for move in line[3:]:
            await page.fill("#move", move)
            await page.press("#move", "Enter")
        # Said with its result and its place on the day's board.
        await expect(page.locator("#status")).to_have_text(
            re.compile(r"^Your attempt is over: won in \d+\.\d s, rank 1 of 1$"), timeout=10_000
        )
        board = await ada.daily_board("eight-off")
        assert board.total == 1
        (mine,) = board.entries
        assert mine.player_id == ada.player_id and mine.won and mine.race_id == race_id
        assert mine.time_ms is not None
        won = f"won in {tenths_of_seconds(mine.time_ms)} s"
        # The results: no seed before the day closes (reveals_at), and nothing of a race for several.
        await expect(page.locator("#standings")).to_contain_text(won)
        # A race of one tells no place (the day's board does): no Rank column, no "1."; and
        # no Rating column (a daily changes no rating).
        await expect(page.locator('#standings thead th[scope="col"]')).to_have_text(["Player", "Result"])
        await expect(page.locator("#standings tbody td")).to_have_text(["ada_day (you)", won])
        # (The race's own commitment: each attempt has its salt. Not through ada.results():
        # the SDK cannot read a summary without its seed yet.)
        commitment = (await ada.get_race(race_id)).commitment
        assert commitment is not None
        await expect(page.locator("#seed-line")).to_have_text(
            f"Commitment {commitment[:12]}\N{HORIZONTAL ELLIPSIS}; the seed is revealed {OPENS}."
        )
        await expect(page.locator("#offer-rematch")).to_have_count(0)
        await expect(page.locator("#rematch")).to_be_empty()
        assert "waiting" not in (await page.locator("#app").inner_text()).lower()
        await page.screenshot(path=shot_path("daily-results"), full_page=True)
        # Back on the Daily page: first on the board with that time, highlighted; Play has
        # given way to the result and Practice (the other games still have Play).
        await page.click("#daily-back")
        await expect(page.locator("section.daily")).to_have_count(3)
        row = page.locator("#board-eight-off tbody tr").first
        await expect(row).to_have_attribute("data-player", ada.player_id)
        await expect(row.locator("td")).to_have_text(["1", "ada_day (you)", won, "Results · Replay"])
        await expect(row).to_have_class("me")
        assert await row.evaluate("r => getComputedStyle(r).backgroundColor") == "rgb(255, 243, 196)"
        await expect(row.locator("a.results-link")).to_have_attribute("href", f"#/race/{race_id}")
        await expect(row.locator("a.player")).to_have_attribute("href", f"#/profile/{ada.player_id}")
        box = deal_box(page, "eight-off")
        await expect(box.locator(".attempt-state")).to_have_text(f"Your scored attempt: {won}, rank 1 of 1.")
        await expect(box.locator("button.play")).to_have_count(0)
        practice = box.get_by_role("button", name="Practice Eight Off", exact=True)
        await expect(practice).to_be_visible()
        await expect(deal_box(page, "treize").get_by_role("button", name="Play Treize")).to_be_visible()
        await page.screenshot(path=shot_path("daily-played"), full_page=True)
        # On a 320 px phone the board with its links fits its card, as the other tables do:
        # Treize's too, with one's own attempt given up (through the SDK, the same account),
        # its longest result in bold ("gave up with 0 cards removed").
        treize = await ada.start_daily("treize")
        await ada.finish(treize.race.race_id)
        await page.set_viewport_size({"width": 320, "height": 800})
        await page.reload()
        mine = page.locator("#board-treize tbody tr.me")
        await expect(mine.locator("td.result")).to_have_text(re.compile(r"^gave up with \d+ cards? removed$"))
        await expect(mine.locator("td.links")).to_have_text("Results \N{MIDDLE DOT} Replay")
        widths = await page.evaluate(
            "[...document.querySelectorAll('.daily-board')].map((b) => b.scrollWidth - b.clientWidth)"
        )
        assert widths == [0, 0, 0]
        await page.screenshot(path=shot_path("daily-played-phone"), full_page=True)
        await page.set_viewport_size({"width": 1280, "height": 900})
        # Practice: an unscored attempt of the same deal, hints on; not on the board.
        await practice.click()
        await expect(page.locator("#daily-kind")).to_have_text("Daily \N{EM DASH} practice (unscored)")
        await expect(page.locator("#hints-setting")).to_have_text("Hints: on")
        await expect(page.locator("#hint")).to_be_visible()
        practice_id = page_race_id(page.url)
        assert practice_id != race_id
        again = await ada.get_race(practice_id)
        assert again.seats == 1 and again.hints is True and again.status == "running"
        assert again.board is not None and again.board.seq == 0
        await until_board(page, line, "eight-off", deal.seed, 0)  # the same deal, from the start
        await give_up(page)
        await expect(page.locator("#status")).to_have_text("Practice over: gave up with 0 cards home")
        await expect(page.locator("#practice-again")).to_have_text("Practice again")
        board = await ada.daily_board("eight-off")
        assert board.total == 1 and board.entries[0].race_id == race_id
        # On the profile, the attempt is a daily one of that day (not "1 of 1").
        await page.evaluate("(h) => { location.hash = h; }", f"#/profile/{ada.player_id}")
        attempt = page.locator(f'#recent tr[data-race="{race_id}"] td')
        await expect(attempt.nth(2)).to_have_text("Daily")
        await expect(attempt.nth(3)).to_have_text(DAY.isoformat())
        await expect(attempt.nth(3).locator("a")).to_have_attribute("href", f"#/daily/{DAY.isoformat()}")
        # While racing another race, a daily is refused, naming that race by its code, linked.
        async with await ArenaClient.connect(arena.url) as bob:
            racing = await start_race(ada, bob)
            await open_daily(page)
            await deal_box(page, "eagle-wing").get_by_role("button", name="Play Eagle Wing").click()
            refusal = page.locator("#daily-error")
            await expect(refusal).to_have_text(
                f"you are racing in race {racing.code}: finish it before today's eagle-wing daily"
            )
            assert await refusal.locator("a").get_attribute("href") == f"#/race/{racing.race_id}"
        await ada.close()
        assert errors == []  # (before the node stops: the page would then reconnect)


# ----- another account -------------------------------------------------------------------------


async def test_another_account_sees_the_board_without_race_links_and_is_refused_the_results(
    browser: Browser, clean_redis: str
) -> None:
    errors: list[str] = []
    async with daily_node(clean_redis) as (arena, _clock):
        ada = await account(arena.url, "ada_first")
        ada_race = await play_through(ada, arena, "eight-off")
        bob = await account(arena.url, "bob_second")
        page = await signed_in_page(browser, arena.url, "bob_second", errors)
        await open_daily(page)
        rows = page.locator("#board-eight-off tbody tr")
        await expect(rows).to_have_count(1)
        await expect(rows.first).to_have_attribute("data-player", ada.player_id)
        await expect(rows.first.locator("td").nth(1)).to_have_text("ada_first")
        await expect(rows.first).not_to_have_class("me")
        # bob has not played: the server sends no race ids, so the page links none.
        seen = await bob.daily_board("eight-off")
        assert [e.race_id for e in seen.entries] == [None]
        await expect(page.locator("#board-eight-off a.results-link")).to_have_count(0)
        await expect(page.locator("#board-eight-off a.replay-link")).to_have_count(0)
        note = deal_box(page, "eight-off").locator(".board-note")
        await expect(note).to_have_text(f"Other attempts' results and replays open here {OPENS}.")
        await expect(deal_box(page, "eight-off").get_by_role("button", name="Play Eight Off")).to_be_visible()
        await page.screenshot(path=shot_path("daily-board-unlinked"), full_page=True)
        # The results of ada's attempt by URL: the server's refusal, word for word.
        try:
            await bob.results(ada_race)
        except ArenaError as refused:
            assert refused.code == "not_yet"
            refusal = refused.message
        else:
            raise AssertionError("the server showed bob ada's daily results")
        assert refusal.endswith("(2027-03-15 00:31 UTC), to everyone at once")
        base = page.url.split("#")[0]
        await page.goto(f"{base}#/race/{ada_race}")
        await expect(page.locator("#refusal")).to_have_text(refusal)
        await expect(page.locator("#daily-kind")).to_have_text("Daily of 2027-03-14")
        # Another's attempt: the heading, so the tab's title, says whose (and what it is).
        theirs = "Daily challenge: Eight Off \N{EM DASH} ada_first's scored attempt"
        await expect(page.locator("#race-title")).to_have_text(theirs)
        await expect(page).to_have_title(f"{theirs} \N{EM DASH} Solitaire Arena")
        await expect(page.locator("#standings")).to_have_count(0)
        await expect(page.locator("#seed-line")).to_have_count(0)
        await page.screenshot(path=shot_path("daily-results-refused"))
        await page.goto(f"{base}#/replay/{ada_race}")
        await expect(page.locator("#app .error")).to_have_text(refusal)
        # Once bob's own attempt is over (given up on the page), his own is linked, and
        # ada's is not until the day closes: his attempt opens nothing of hers.
        await page.click("#nav-daily")
        await deal_box(page, "eight-off").get_by_role("button", name="Play Eight Off").click()
        await expect(page.locator("#daily-kind")).to_have_text("Daily \N{EM DASH} scored attempt")
        await expect(page.locator("#race-title")).to_have_text("Daily challenge: Eight Off")  # his own
        bob_race = page_race_id(page.url)
        await give_up(page)
        await expect(page.locator("#status")).to_have_text(
            "Your attempt is over: gave up with 0 cards home, rank 2 of 2"
        )
        await page.click("#daily-back")
        await expect(rows).to_have_count(2)
        seen = await bob.daily_board("eight-off")
        assert [e.race_id for e in seen.entries] == [None, bob_race]
        # His own attempt's line says he gave up, as the race's results say it.
        assert seen.me is not None and not seen.me.won
        cards = f"{seen.me.score} card{'' if seen.me.score == 1 else 's'} home"
        await expect(deal_box(page, "eight-off").locator(".attempt-state")).to_have_text(
            f"Your scored attempt: gave up with {cards}, rank 2 of 2."
        )
        links = page.locator("#board-eight-off a.results-link")
        await expect(links).to_have_count(1)
        assert await links.evaluate_all("ls => ls.map((l) => l.getAttribute('href'))") == [
            f"#/race/{bob_race}"
        ]
        await expect(note).to_have_text(f"Other attempts' results and replays open here {OPENS}.")
        await expect(rows.nth(1)).to_have_class("me")
        # The board's line says it too: ada's won, bob's given up.
        assert seen.me.gave_up and [e.gave_up for e in seen.entries] == [False, True]
        await expect(rows.nth(0).locator("td.result")).to_have_text(re.compile(r"^won in \d+\.\d s$"))
        await expect(rows.nth(1).locator("td.result")).to_have_text(f"gave up with {cards}")
        await links.first.click()
        await expect(page.locator("#standings")).to_contain_text("bob_second")
        await expect(page.locator("#seed-line")).to_contain_text(f"the seed is revealed {OPENS}.")
        # ada's results, replay and record by URL: still the server's refusal, word for word.
        await page.goto(f"{base}#/race/{ada_race}")
        await expect(page.locator("#refusal")).to_have_text(refusal)
        await expect(page.locator("#standings")).to_have_count(0)
        await page.goto(f"{base}#/replay/{ada_race}")
        await expect(page.locator("#app .error")).to_have_text(refusal)
        await page.goto(f"{base}#/verify/{ada_race}")
        await expect(page.locator("#verify-error")).to_have_text(refusal)
        for client in (ada, bob):
            await client.close()
        assert errors == []


async def three_runs(arena: ArenaServer) -> tuple[ArenaClient, ArenaClient, dict[str, str]]:
    """ada_runs's scored attempt (a win) and practice (given up), and gus's (a guest's)
    attempt (given up) at the day's Eight Off, all over: ada, gus and the race ids."""
    ada = await account(arena.url, "ada_runs")
    scored = await play_through(ada, arena, "eight-off")
    await ada.wait_for(RaceEnded, lambda e: e.race_id == scored)
    practice = (await ada.start_daily("eight-off", practice=True)).race.race_id
    await ada.finish(practice)
    await ada.wait_for(RaceEnded, lambda e: e.race_id == practice)
    guest = await ArenaClient.connect(arena.url)
    await guest.hello(name="gus")
    unscored = (await guest.start_daily("eight-off")).race.race_id
    await guest.finish(unscored)
    await guest.wait_for(RaceEnded, lambda e: e.race_id == unscored)
    return ada, guest, {"scored": scored, "practice": practice, "unscored": unscored}


async def test_anothers_daily_runs_are_unlinked_on_their_profile_until_the_day_closes(
    browser: Browser, clean_redis: str
) -> None:
    """The server gives bob no race id of ada's runs of a day still open (as on the board):
    her profile lists them without links, and links them once the day is closed."""
    errors: list[str] = []
    async with daily_node(clean_redis) as (arena, clock):
        ada, guest, runs = await three_runs(arena)
        await account(arena.url, "bob_reads")
        page = await signed_in_page(browser, arena.url, "bob_reads", errors)
        base = page.url.split("#")[0]
        await page.goto(f"{base}#/profile/{ada.player_id}")
        rows = page.locator("#recent tbody tr")
        await expect(rows).to_have_count(2)
        await expect(rows.nth(0).locator("td").nth(2)).to_have_text("Practice")
        await expect(page.locator("#recent a.results-link, #recent a.replay-link")).to_have_count(0)
        await expect(rows.nth(0).locator("td.links")).to_have_text("once the day closes")
        await expect(page.locator("#recent tr[data-race]")).to_have_count(0)
        clock.advance(12 * 3600 + 31 * 60)
        await page.reload()
        await expect(page.locator("#recent a.replay-link")).to_have_count(2)
        practice = runs["practice"]
        await expect(page.locator(f'#recent tr[data-race="{practice}"] a.replay-link')).to_have_attribute(
            "href", f"#/replay/{practice}"
        )
        for client in (ada, guest):
            await client.close()
        assert errors == []


async def test_anothers_practice_and_a_guests_attempt_say_so_on_the_race_replay_and_verify_pages(
    browser: Browser, clean_redis: str
) -> None:
    """Each heading says which run it is (the scored attempt, a practice, a guest's
    unscored attempt), before the day closes and after it, as the record does."""
    errors: list[str] = []
    async with daily_node(clean_redis) as (arena, clock):
        ada, guest, runs = await three_runs(arena)
        await account(arena.url, "bob_reads")
        page = await signed_in_page(browser, arena.url, "bob_reads", errors)
        base = page.url.split("#")[0]
        headings = {
            "scored": "ada_runs's scored attempt",
            "practice": "ada_runs's practice (unscored)",
            "unscored": "gus's unscored attempt (guests are not ranked)",
        }
        for kind, whose in headings.items():
            await page.goto(f"{base}#/race/{runs[kind]}")
            await expect(page.locator("#race-title")).to_have_text(
                f"Daily challenge: Eight Off \N{EM DASH} {whose}"
            )
        clock.advance(12 * 3600 + 31 * 60)  # the day closes: replays and records open
        for kind in ("practice", "scored"):
            await page.goto(f"{base}#/replay/{runs[kind]}")
            await expect(page.locator("#replay-title")).to_have_text(
                f"Replay: {headings[kind]} \N{EM DASH} Eight Off daily of 2027-03-14"
            )
        await page.goto(f"{base}#/verify/{runs['practice']}")
        await expect(page.locator("#record-kind")).to_have_text(
            "The record says this is a practice (unscored) of the daily challenge of 2027-03-14."
        )
        await expect(page.locator("#verify-title")).to_have_text(
            "Verify: ada_runs's practice (unscored) \N{EM DASH} Eight Off daily of 2027-03-14"
        )
        await expect(page.locator("#verdict")).to_contain_text("Every check made here passed.")
        for client in (ada, guest):
            await client.close()
        assert errors == []


# ----- a guest -------------------------------------------------------------------------------


async def test_a_guests_attempt_is_labelled_unscored_and_is_not_on_the_board(
    browser: Browser, clean_redis: str
) -> None:
    errors: list[str] = []
    async with daily_node(clean_redis) as (arena, _clock):
        page = await open_page(browser, arena.url, errors, viewport={"width": 1280, "height": 900})
        await page.click("#nav-daily")
        await page.fill("#daily-name", "gus")
        await page.click("#daily-guest button[type=submit]")
        await expect(page.locator("section.daily")).to_have_count(3)
        # In the order of the lobby, the leaderboard's tabs and the Standings tab's columns.
        games = await page.locator("section.daily").evaluate_all("(ds) => ds.map((d) => d.dataset.game)")
        assert games == ["eight-off", "eagle-wing", "treize"]
        await expect(page.locator("#who")).to_have_text("gus (guest)")
        box = deal_box(page, "treize")
        await expect(box.locator(".attempt-state")).to_contain_text(
            "Unscored: a guest's attempt is not on the board"
        )
        await expect(page.get_by_role("button", name="Play Treize (unscored)", exact=True)).to_be_visible()
        await page.screenshot(path=shot_path("daily-guest"), full_page=True)
        await page.get_by_role("button", name="Play Treize (unscored)").click()
        await expect(page.locator("#daily-kind")).to_have_text(
            "Daily \N{EM DASH} unscored attempt (guests are not ranked)"
        )
        await expect(page.locator("#hints-setting")).to_have_text("Hints: on")
        race_id = page_race_id(page.url)
        # A reload asks the day's dailies what this race is: still the guest's attempt.
        await page.reload()
        await expect(page.locator("#status")).to_have_text("Go!")
        await expect(page.locator("#daily-kind")).to_have_text(
            "Daily \N{EM DASH} unscored attempt (guests are not ranked)"
        )
        await give_up(page)
        # A guest's attempt is on no board: its result, without a place.
        await expect(page.locator("#status")).to_have_text(
            "Your attempt is over: gave up with 0 cards removed"
        )
        await expect(page.locator("#seed-line")).to_contain_text(f"the seed is revealed {OPENS}.")
        guest = await ArenaClient.connect(arena.url)
        token = await page.evaluate("() => localStorage.getItem('solitaire-arena.token')")
        assert isinstance(token, str)
        await guest.hello(token=token)
        ended = await guest.get_race(race_id)
        assert ended.status == "finished" and ended.seed is None
        (racer,) = ended.racers
        assert racer.player_id == guest.player_id and racer.finished and not racer.won
        dailies = await guest.dailies()
        attempt = next(d.attempt for d in dailies.deals if d.game == "treize")
        assert attempt is not None and attempt.race_id == race_id and attempt.scored is False
        await page.click("#daily-back")
        await expect(page.locator("section.daily")).to_have_count(3)
        score = racer.score
        await expect(box.locator(".attempt-state")).to_have_text(
            f"Your attempt (unscored): gave up with {score} cards removed."  # Treize removes, never home
        )
        await expect(box.get_by_role("button", name="Practice Treize")).to_be_visible()
        await expect(page.locator("#board-treize tbody")).to_have_text("No finished scored attempts yet.")
        assert (await guest.daily_board("treize")).total == 0
        await page.screenshot(path=shot_path("daily-guest-played"), full_page=True)
        # A practice begun elsewhere (in a terminal) and left running: Practice plays it on.
        practice = await guest.start_daily("treize", practice=True)
        seed = (await deal_of(arena, "treize")).seed
        move = replay("treize", seed, []).legal_moves()[0]
        await guest.move(practice.race.race_id, move)
        await box.get_by_role("button", name="Practice Treize").click()
        await expect(page.locator("#daily-kind")).to_have_text("Daily \N{EM DASH} practice (unscored)")
        assert page_race_id(page.url) == practice.race.race_id
        await until_board(page, [move], "treize", seed, 1)
        await guest.close()
        assert errors == []


# ----- the day's end ------------------------------------------------------------------------


async def test_a_day_over_reveals_its_seeds_and_verify_on_the_results_and_on_the_past_days_page(
    browser: Browser, clean_redis: str
) -> None:
    errors: list[str] = []
    async with daily_node(clean_redis) as (arena, clock):
        ada = await account(arena.url, "ada_reveal")
        race_id = await play_through(ada, arena, "eight-off")
        page = await signed_in_page(browser, arena.url, "ada_reveal", errors)
        base = page.url.split("#")[0]
        await page.goto(f"{base}#/race/{race_id}")
        await expect(page.locator("#daily-kind")).to_have_text("Daily \N{EM DASH} scored attempt")
        await expect(page.locator("#seed-line")).to_contain_text(f"the seed is revealed {OPENS}.")
        # Nothing to verify before the seed is out: the page says when it can be.
        await expect(page.locator("#replay-link")).to_be_visible()
        await expect(page.locator("#verify-link")).to_have_count(0)
        await expect(page.locator("#verify-later")).to_have_text(f"Verify it {OPENS}.")
        await page.click("#replay-link")  # nor on the replay, where Verify would only be refused
        await expect(page.locator("#step-label")).to_contain_text("the deal (of")
        await expect(page.locator("#verify-link")).to_have_count(0)
        await expect(page.locator("#verify-later")).to_have_text(f"Verify it {OPENS}.")
        await page.go_back()
        # Midnight passes (the next day's deals prepared): attempts begun before it may
        # still run, so the seeds wait for their end, and the past day's page says when.
        clock.advance(12 * 3600 + 60)
        assert arena.features is not None
        await arena.features.daily.prepare(DAY + dt.timedelta(days=1))
        await page.reload()
        await expect(page.locator("#seed-line")).to_contain_text(f"the seed is revealed {OPENS}.")
        await expect(page.locator("#verify-later")).to_have_text(f"Verify it {OPENS}.")
        await page.goto(f"{base}#/daily/2027-03-14")
        await expect(page.locator("#daily-clock")).to_have_text(
            f"This day is over: its seeds are revealed {OPENS}."
        )
        await expect(page.locator("code.seed")).to_have_count(0)
        # The day closes (its last attempts over): the seed is out.
        clock.advance(3600)
        await page.goto(f"{base}#/race/{race_id}")
        deal = await deal_of(arena, "eight-off")
        race = await ada.get_race(race_id)
        assert race.seed == deal.seed and race.commitment is not None  # the attempt's own salt
        await page.reload()
        await expect(page.locator("#seed-line")).to_have_text(
            f"Deal seed {deal.seed} revealed; the commitment {race.commitment[:12]}\N{HORIZONTAL ELLIPSIS} "
            "is of the server's own seed, before any share was mixed in."
        )
        assert deal.seed > 2**53  # more than a number holds in the page: shown digit for digit
        await expect(page.locator("#verify-link")).to_have_attribute("href", f"#/verify/{race_id}")
        await expect(page.locator("#verify-later")).to_have_count(0)
        await expect(page.locator("#practice-again")).to_have_count(0)  # the deal is no longer today's
        await page.click("#replay-link")
        await expect(page.locator("#verify-link")).to_have_attribute("href", f"#/verify/{race_id}")
        await page.go_back()
        # Today is the next day; its Previous day link goes back to the day that is over.
        await open_daily(page)
        await expect(page.locator("#daily-date time")).to_have_attribute("datetime", "2027-03-15")
        await page.click("#previous-day")
        await expect(page.locator("#daily-date time")).to_have_attribute("datetime", "2027-03-14")
        await expect(page.locator("h1")).to_have_text("Daily challenges of a past day")
        await expect(page.locator("#daily-clock")).to_have_text(
            "This day is over: its seeds are revealed below."
        )
        await expect(page.locator("#daily-countdown")).to_have_count(0)
        await expect(page.locator("button.play, button.practice")).to_have_count(0)
        for game in GAMES:
            stored = await deal_of(arena, game)
            box = deal_box(page, game)
            await expect(box.locator("code.seed")).to_have_text(str(stored.seed))
            await expect(box.locator("code.salt")).to_have_text(stored.salt)
            preimage = f"solitaire-arena:{game}:{stored.seed}:{stored.salt}"
            await expect(box.locator(".verify-hint")).to_contain_text(f"SHA-256 of {preimage}")
            assert hashlib.sha256(preimage.encode()).hexdigest() == stored.commitment
            await box.get_by_role("button", name=f"Verify the {TITLES[game]} seed").click()
            await expect(box.locator(".verdict")).to_have_text("\N{CHECK MARK} matches the commitment")
        box = deal_box(page, "eight-off")
        await expect(box.locator(".attempt-state")).to_contain_text("Your scored attempt: won in")
        await expect(deal_box(page, "treize").locator(".attempt-state")).to_have_text(
            "You did not play this deal."
        )
        await expect(page.locator("#board-eight-off a.results-link")).to_have_attribute(
            "href", f"#/race/{race_id}"
        )
        await page.screenshot(path=shot_path("daily-past-day"), full_page=True)
        # The date picker, and the Next day link back to today.
        await page.click("#next-day")
        await expect(page.locator("#daily-date time")).to_have_attribute("datetime", "2027-03-15")
        await expect(page.locator("#daily-countdown")).to_be_visible()
        await page.fill("#daily-pick", "2027-03-14")
        await expect(page.locator("#daily-date time")).to_have_attribute("datetime", "2027-03-14")
        assert page.url.endswith("#/daily/2027-03-14")
        # Typed with the keys, the day changes with each key and shows only on Enter.
        picker = page.locator("#daily-pick")
        await picker.focus()
        await page.keyboard.press("ArrowDown")
        await page.keyboard.press("ArrowDown")
        typed = await picker.input_value()
        assert typed not in ("", "2027-03-14")
        await page.wait_for_timeout(300)
        assert page.url.endswith("#/daily/2027-03-14")
        await expect(page.locator("#daily-date time")).to_have_attribute("datetime", "2027-03-14")
        await page.keyboard.press("Enter")
        await expect(page).to_have_url(re.compile(rf"#/daily/{typed}$"))
        await page.goto(f"{base}#/daily/2027-03-14")
        # A day that has not begun: the server's refusal.
        await page.goto(f"{base}#/daily/2027-03-16")
        await expect(page.locator("#daily-error")).to_have_text("2027-03-16 has not begun (UTC)")
        # A past day nothing was dealt on (before the server's first): said, with the way on.
        await page.goto(f"{base}#/daily/2027-03-13")
        await expect(page.locator("#daily-error")).to_have_text(
            "there were no daily challenges on 2027-03-13"
        )
        await expect(page.locator("#tab-standings")).to_have_attribute("href", "#/daily/standings/2027-03-13")
        # Its Standings tab says the same, not "Final: counted" of a day that counted nothing.
        await page.click("#tab-standings")
        await expect(page.locator("h1")).to_have_text("Daily tournament")
        await expect(page.locator("#daily-error")).to_have_text(
            "there were no daily challenges on 2027-03-13"
        )
        await expect(page.locator("#standing-day-status")).to_have_count(0)
        await page.click("#tab-deals")
        await page.click("#next-day")
        await expect(page.locator("#daily-date time")).to_have_attribute("datetime", "2027-03-14")
        await ada.close()
        assert errors == []


async def test_the_countdown_reaches_the_next_day_and_the_page_moves_on_to_it(
    browser: Browser, clean_redis: str
) -> None:
    """Seconds before midnight the countdown runs out, and the page shows the next day (on
    a phone-sized screen, which it fits without scrolling sideways)."""
    errors: list[str] = []
    async with daily_node(clean_redis) as (arena, clock):
        assert arena.features is not None
        await arena.features.daily.prepare(DAY + dt.timedelta(days=1))
        page = await open_page(browser, arena.url, errors, viewport={"width": 390, "height": 844})
        await page.click("#nav-daily")
        await page.fill("#daily-name", "owl")
        await page.click("#daily-guest button[type=submit]")
        await expect(page.locator("#daily-countdown")).to_have_text(re.compile(r"^1[12]:\d\d:\d\d$"))
        # 23:59:48, then the page drawn again (by leaving it and coming back): twelve seconds
        # for that on a loaded machine, and the rest of the countdown runs on the page's own.
        clock.advance((DAY_MS - 12 * HOUR_MS - 12_000) / 1000)
        await page.click("#nav-live")
        await expect(page.locator("#daily-countdown")).to_have_count(0)
        await page.click("#nav-daily")
        await expect(page.locator("#daily-date time")).to_have_attribute("datetime", "2027-03-14")
        await expect(page.locator("#daily-countdown")).to_have_text(re.compile(r"^0:00:(0\d|1[012])$"))
        await expect(page.locator("#daily-date time")).to_have_attribute(
            "datetime", "2027-03-15", timeout=15_000
        )
        await expect(page.locator("#daily-countdown")).to_have_text(re.compile(r"^23:59:\d\d$"))
        await page.screenshot(path=shot_path("daily-phone"), full_page=True)
        assert await page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")
        assert errors == []

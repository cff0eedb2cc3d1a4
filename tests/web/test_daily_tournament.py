"""Ghosts and the daily tournament in the browser client, in real headless Chromium against
a real server and Redis on a hand-moved clock: a leader's finished attempt raced as a
ghost during another account's scored attempt (its progress at the leader's own elapsed
times, kept over a reload, gone once the attempt is over), and the Standings tab of the
Daily page (the day's standing with its places per game, the week's and the all-time
tables once the day is counted, the streak). Checked against the leader's line and the
server's own answers."""

from __future__ import annotations

import datetime as dt
import re

from playwright.async_api import Browser, Locator, Page, expect

from server.features.daily_rules import DAY_MS, day_start
from shared import replay
from shared.protocol import RaceEnded
from tests.server.test_daily import crowd_the_tables
from tests.timing import tenths_of_seconds
from tests.web.conftest import give_up, shot_path
from tests.web.test_accounts_ratings import account, signed_in_page
from tests.web.test_browser import fits_the_screen, open_page
from tests.web.test_daily import DAY, daily_node, deal_box, deal_of, open_daily, winning_line

#: Seconds of the server's clock between the leader's bursts of moves, and between the
#: steps the test moves the clock on while the second account plays: far more than the
#: page needs in real time between two steps, so each step shows exactly one more burst.
PACE = 20.0


def ghost_state(line: list[str], seed: int, moves: int) -> tuple[str, str]:
    """What a ghost's line says after ``moves`` of ``line`` (not finished), and its score."""
    then = replay("eight-off", seed, line[:moves])
    unit = "move" if moves == 1 else "moves"
    return f"{52 - then.score} left \N{MIDDLE DOT} {moves} {unit}", str(then.score)


async def row_cells(rows: Locator) -> list[list[str]]:
    """The text of each cell of each row."""
    cells: list[list[str]] = await rows.evaluate_all(
        "rs => rs.map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent.trim()))"
    )
    return cells


async def open_standings(page: Page) -> None:
    await page.get_by_role("link", name="Standings", exact=True).click()
    await expect(page.locator("#tab-standings")).to_have_attribute("aria-current", "page")
    await expect(page.locator("h1")).to_have_text("Daily tournament")


async def test_a_scored_attempt_races_the_leaders_ghost_and_the_standings_count_the_day(
    browser: Browser, clean_redis: str
) -> None:
    errors: list[str] = []
    async with daily_node(clean_redis) as (arena, clock):
        game = "eight-off"
        deal = await deal_of(arena, game)
        line = winning_line(game, deal.seed)
        # The leader wins today's deal in three bursts, PACE seconds apart: two moves, then
        # up to its first card home, then the rest.
        first_home = next(k for k in range(1, len(line) + 1) if replay(game, deal.seed, line[:k]).score)
        assert 2 < first_home < len(line)
        bursts = [line[:2], line[2:first_home], line[first_home:]]
        leader = await account(arena.url, "leader_day")
        started = await leader.start_daily(game)
        leader_race = started.race.race_id
        for burst in bursts:
            clock.advance(PACE)
            for move in burst:
                await leader.move(leader_race, move)
        await leader.wait_for(RaceEnded, lambda e: e.race_id == leader_race)
        (top,) = (await leader.daily_board(game)).entries
        assert top.player_id == leader.player_id and top.won and top.time_ms is not None
        assert 3 * PACE * 1000 <= top.time_ms < 3 * PACE * 1000 + 10_000
        # The ghost's times, as the server rebuilds them: each move's time in the log from
        # the attempt's start.
        log = await leader.move_log(leader_race)
        starts_at = (await leader.get_race(leader_race)).starts_at
        assert starts_at is not None and [m.move for m in log.moves] == line
        won_in = f"won in {tenths_of_seconds(log.moves[-1].at - starts_at)} s"

        # The second account plays the deal in the page: ghosts are off until asked for.
        chaser = await account(arena.url, "chaser_day")
        page = await signed_in_page(browser, arena.url, "chaser_day", errors)
        await open_daily(page)
        await deal_box(page, game).get_by_role("button", name="Play Eight Off").click()
        await expect(page.locator("#daily-kind")).to_have_text("Daily \N{EM DASH} scored attempt")
        toggle = page.get_by_role("button", name="Race ghosts", exact=True)
        await expect(toggle).to_be_visible()
        await expect(toggle).to_have_attribute("aria-pressed", "false")
        await expect(page.locator(".racer.ghost")).to_have_count(0)
        await toggle.click()
        await expect(toggle).to_have_attribute("aria-pressed", "true")
        await expect(page.locator("#ghosts-note")).to_have_text(re.compile(r"^Racing 1 ghost: "))
        ghost = page.locator(f'.racer.ghost[data-ghost="{leader.player_id}"]')
        await expect(page.locator(".racer.ghost")).to_have_count(1)
        await expect(ghost.locator(".racer-name")).to_contain_text("leader_day")
        await expect(ghost.locator(".ghost-tag")).to_have_text("ghost")
        await expect(ghost.locator(".ghost-info")).to_have_text(
            f"rank 1 \N{MIDDLE DOT} won in {tenths_of_seconds(top.time_ms)} s"
        )
        state = ghost.locator(".ghost-state")
        bar = ghost.get_by_role("progressbar", name="ghost leader_day's progress")
        await expect(state).to_have_text(ghost_state(line, deal.seed, 0)[0])
        # Drawn apart from the racers: translucent, italic.
        assert await ghost.locator(".bar").evaluate("b => getComputedStyle(b).opacity") == "0.6"
        assert await ghost.evaluate("g => getComputedStyle(g).fontStyle") == "italic"
        assert (
            await page.locator(".racer:not(.ghost) .bar").evaluate("b => getComputedStyle(b).opacity") == "1"
        )
        # Each PACE seconds of this attempt brings the leader's next burst, with the cards
        # left and move count its line had then.
        done = 0
        for index, burst in enumerate(bursts[:-1]):
            clock.advance(PACE)
            done += len(burst)
            text, score = ghost_state(line, deal.seed, done)
            await expect(state).to_have_text(text)
            await expect(bar).to_have_attribute("aria-valuenow", score)
            if index == 0:
                await page.screenshot(path=shot_path("daily-ghost-racing"), animations="disabled")
        assert int(ghost_state(line, deal.seed, done)[1]) > 0  # cards went home: fewer left
        # A reload keeps the ghosts on: asked for again, the server catches them up.
        await page.reload()
        await expect(page.locator("#daily-kind")).to_have_text("Daily \N{EM DASH} scored attempt")
        await expect(toggle).to_have_attribute("aria-pressed", "true")
        await expect(state).to_have_text(ghost_state(line, deal.seed, done)[0])
        clock.advance(PACE)
        await expect(state).to_have_text(won_in)
        await expect(bar).to_have_attribute("aria-valuenow", "52")
        await page.screenshot(path=shot_path("daily-ghost-won"), animations="disabled")
        # Off again: the ghost's line goes; on again: it comes back where the leader was.
        await toggle.click()
        await expect(toggle).to_have_attribute("aria-pressed", "false")
        await expect(page.locator(".racer.ghost")).to_have_count(0)
        await toggle.click()
        await expect(state).to_have_text(won_in)
        # The attempt over (given up), no ghosts and no toggle.
        await give_up(page)
        await expect(page.locator("#status")).to_have_text(
            "Your attempt is over: gave up with 0 cards home, rank 2 of 2"
        )
        await expect(toggle).to_be_hidden()
        await expect(page.locator(".racer.ghost")).to_have_count(0)

        # The Standings tab: the day live, 25 points for first place, 18 for second.
        await page.click("#daily-back")
        await expect(page.locator("section.daily")).to_have_count(3)
        await open_standings(page)
        await expect(page.locator("#standing-day-title")).to_have_text("Today's standing")
        live = await chaser.daily_standings()
        assert [(e.player_id, e.points, e.places) for e in live.day] == [
            (leader.player_id, 25, {game: 1}),
            (chaser.player_id, 18, {game: 2}),
        ]
        rows = page.locator("#standing-day tbody tr")
        await expect(rows).to_have_count(2)
        assert await row_cells(rows) == [
            ["1", "leader_day", "25", "1st", "\N{EM DASH}", "\N{EM DASH}"],
            ["2", "chaser_day (you)", "18", "2nd", "\N{EM DASH}", "\N{EM DASH}"],
        ]
        await expect(page.locator("#standing-day thead th")).to_have_text(
            ["Rank", "Player", "Points", "Eight Off", "Eagle Wing", "Treize"]
        )
        await expect(rows.nth(1)).to_have_class("me")
        await expect(rows.nth(1)).to_have_attribute("data-player", chaser.player_id)
        await expect(rows.nth(0).locator("a.player")).to_have_attribute(
            "href", f"#/profile/{leader.player_id}"
        )
        # Nothing counted yet: the week's and the all-time tables are empty, no streak.
        assert live.week == "2027-W10" and live.week_table == [] and live.all_time == []
        await expect(page.locator("#standing-week-title")).to_have_text("This week")
        await expect(page.locator("#standing-week-range")).to_contain_text(
            "2027-W10: Monday 2027-03-08 to Sunday 2027-03-14"
        )
        await expect(page.locator("#standing-week tbody")).to_have_text(
            "No day of this week has been counted yet."
        )
        await expect(page.locator("#standing-all-time tbody")).to_have_text("No day has been counted yet.")
        await expect(page.locator("#streak")).to_have_text(
            "No streak yet: it starts when a day with your scored attempt is counted."
        )
        # Live until counted, at 00:31 the next day (a 30-minute attempt begun at 23:59:59 is over).
        assert (live.counted, live.counts_at) == (False, day_start(DAY) + DAY_MS + 31 * 60_000)
        await expect(page.locator("#standing-day-status")).to_have_text(
            "Live: it changes as attempts finish. Final soon after 00:31 UTC on 2027-03-15. 2 players."
        )
        await page.screenshot(path=shot_path("daily-standings-live"), full_page=True)

        # The next day: the day before is still live until it is counted.
        clock.advance(13 * 3600)
        assert arena.features is not None
        await arena.features.daily.prepare(DAY + dt.timedelta(days=1))
        await page.evaluate("location.hash = '#/daily/standings/2027-03-14'")
        await expect(page.locator("#standing-day-title")).to_have_text("Standing of 2027-03-14")
        await expect(page.locator("#standing-day-status")).to_have_text(
            "Still live: attempts begun before the day ended may yet finish."
            " Final soon after 00:31 UTC on 2027-03-15. 2 players."
        )
        await page.evaluate("location.hash = '#/daily/standings'")
        await expect(page.locator("#standing-day-title")).to_have_text("Today's standing")
        # Once the day's last attempt is surely over, it is counted.
        assert DAY.isoformat() in await arena.features.daily.close_due()
        await page.click("#standings-refresh")
        await expect(page.locator("#daily-date time")).to_have_attribute("datetime", "2027-03-15")
        await expect(page.locator("#standing-day tbody")).to_have_text(
            "Nobody has finished a scored attempt today yet."
        )
        # Monday the 15th begins a new week; all time has the day that is over.
        await expect(page.locator("#standing-week-range")).to_contain_text("2027-W11")
        await expect(page.locator("#standing-week tbody")).to_have_text(
            "No day of this week has been counted yet."
        )
        all_time = page.locator("#standing-all-time tbody tr")
        await expect(all_time).to_have_count(2)
        assert await row_cells(all_time) == [["1", "leader_day", "25"], ["2", "chaser_day (you)", "18"]]
        mine = await chaser.daily_standings()
        assert mine.streak is not None and (mine.streak.current, mine.streak.best) == (1, 1)
        await expect(page.locator("#streak")).to_have_text("Your streak: 1 day (best 1).")
        # The day before, from the Previous day link: its standing and its week's table.
        await page.click("#previous-day")
        assert page.url.endswith("#/daily/standings/2027-03-14")
        await expect(page.locator("#standing-day-title")).to_have_text("Standing of 2027-03-14")
        await expect(page.locator("#standing-week-title")).to_have_text("Week 2027-W10")
        week = page.locator("#standing-week tbody tr")
        await expect(week).to_have_count(2)
        assert await row_cells(week) == [["1", "leader_day", "25"], ["2", "chaser_day (you)", "18"]]
        counted = await chaser.daily_standings(DAY.isoformat())
        assert [(e.player_id, e.points) for e in counted.week_table] == [
            (leader.player_id, 25),
            (chaser.player_id, 18),
        ]
        await expect(page.locator("#standing-day tbody tr")).to_have_count(2)
        await expect(page.locator("#standing-day-status")).to_have_text(
            "Final: counted into the week's and all-time tables. 2 players."
        )
        await page.screenshot(path=shot_path("daily-standings-past-day"), full_page=True)
        # The other tab keeps the day.
        await page.get_by_role("link", name="Deals and boards").click()
        assert page.url.endswith("#/daily/2027-03-14")
        await expect(page.locator("h1")).to_have_text("Daily challenges of a past day")
        for client in (leader, chaser):
            await client.close()
        assert errors == []


async def test_the_standings_show_my_own_row_under_a_table_whose_top_20_leave_me_out(
    browser: Browser, clean_redis: str
) -> None:
    """Among more players than a table shows: my row comes after a gap under the day's
    standing and the week's table (28th and 22nd, sharing those ranks), and is only marked
    where the top 20 have it (first of all time)."""
    errors: list[str] = []
    async with daily_node(clean_redis) as (arena, _clock):
        crowd = await account(arena.url, "crowd_day")
        assert crowd.player_id is not None
        await crowd_the_tables(arena, crowd.player_id)
        mine = await crowd.daily_standings()
        assert mine.me_day is not None and (mine.me_day.rank, mine.me_day.points) == (28, 1)
        page = await signed_in_page(browser, arena.url, "crowd_day", errors)
        await open_daily(page)
        await open_standings(page)
        for table, count, own in (
            ("#standing-day", 20, ["28", "crowd_day (you)", "1", "11th", "\N{EM DASH}", "\N{EM DASH}"]),
            ("#standing-week", 20, ["22", "crowd_day (you)", "29"]),
        ):
            rows = page.locator(f"{table} tbody tr")
            await expect(rows).to_have_count(count + 2)
            await expect(rows.nth(count)).to_have_class("gap")
            await expect(rows.nth(count)).to_have_text("\N{HORIZONTAL ELLIPSIS}")
            assert (await row_cells(rows))[count + 1] == own
            await expect(rows.nth(count + 1)).to_have_class("me")
            await expect(page.locator(f"{table} tr.me")).to_have_count(1)
        all_time = page.locator("#standing-all-time tbody tr")
        await expect(all_time).to_have_count(20)
        await expect(all_time.nth(0)).to_have_class("me")
        assert (await row_cells(all_time))[0] == ["1", "crowd_day (you)", "129"]
        await expect(page.locator("#standing-all-time tr.gap")).to_have_count(0)
        await page.screenshot(path=shot_path("daily-standings-own-rows"), full_page=True)
        await crowd.close()
    assert errors == []


async def test_the_days_standing_fits_a_320_px_phone_without_breaking_a_short_name(
    browser: Browser, clean_redis: str
) -> None:
    """At 320 px the day's standing (rank, player, points and a place per game) fits its
    card, with no sideways scroll to reach Treize's column, and a short name is not broken
    mid-word: "adalove" keeps to one line."""
    errors: list[str] = []
    async with daily_node(clean_redis) as (arena, _clock):
        ada = await account(arena.url, "adalove")
        assert ada.player_id is not None
        await crowd_the_tables(arena, ada.player_id)
        page = await signed_in_page(browser, arena.url, "adalove", errors)
        await page.set_viewport_size({"width": 320, "height": 740})
        await open_daily(page)
        await open_standings(page)
        mine = page.locator("#standing-day tr.me")
        await expect(mine).to_contain_text("adalove (you)")
        await expect(page.locator('#standing-day td[data-game="treize"]').first).to_be_visible()
        await fits_the_screen(page, ".standings-part.day")
        lines = await mine.locator("a.player").evaluate("(a) => a.getClientRects().length")
        assert lines == 1, f"'adalove' is broken over {lines} lines"
        await page.screenshot(path=shot_path("daily-standings-320"), full_page=True)
        await ada.close()
    assert errors == []


async def test_ghosts_are_offered_only_during_ones_own_scored_attempt(
    browser: Browser, clean_redis: str
) -> None:
    """A guest's unscored attempt and a practice have no ghosts; a scored attempt with
    nobody finished yet has the toggle, and says there is nobody to race."""
    errors: list[str] = []
    async with daily_node(clean_redis) as (arena, _clock):
        await account(arena.url, "solo_day")
        page = await signed_in_page(browser, arena.url, "solo_day", errors)
        await open_daily(page)
        await deal_box(page, "treize").get_by_role("button", name="Play Treize").click()
        await expect(page.locator("#daily-kind")).to_have_text("Daily \N{EM DASH} scored attempt")
        toggle = page.get_by_role("button", name="Race ghosts")
        await toggle.click()
        await expect(toggle).to_have_attribute("aria-pressed", "true")
        await expect(page.locator("#ghosts-note")).to_have_text(
            "No finished attempt of this deal to race yet."
        )
        await expect(page.locator(".racer.ghost")).to_have_count(0)
        await give_up(page)
        await expect(toggle).to_be_hidden()
        await page.click("#practice-again")
        await expect(page.locator("#daily-kind")).to_have_text("Daily \N{EM DASH} practice (unscored)")
        await expect(page.locator("#status")).to_have_text("Go!")
        await expect(page.locator("#ghosts-bar")).to_be_hidden()
        # A guest's attempt is unscored: no ghosts either (on a phone-sized screen).
        other = await open_page(browser, arena.url, errors, viewport={"width": 390, "height": 844})
        await other.click("#nav-daily")
        await other.fill("#daily-name", "gus")
        await other.click("#daily-guest button[type=submit]")
        await other.get_by_role("button", name="Play Treize (unscored)").click()
        await expect(other.locator("#status")).to_have_text("Go!")
        await expect(other.locator("#daily-kind")).to_contain_text("unscored attempt")
        await expect(other.locator("#ghosts-bar")).to_be_hidden()
        # The guest's standings: no streak, the solo account's attempt on the day's standing.
        await give_up(other)
        await expect(other.locator("#status")).to_have_text(
            "Your attempt is over: gave up with 0 cards removed"
        )
        await other.click("#daily-back")
        await open_standings(other)
        await expect(other.locator("#streak")).to_have_text(
            "Guests take no part in the tournament: sign in or register to score points and keep a streak."
        )
        rows = other.locator("#standing-day tbody tr")
        await expect(rows).to_have_count(1)
        assert await row_cells(rows) == [["1", "solo_day", "25", "\N{EM DASH}", "\N{EM DASH}", "1st"]]
        await other.screenshot(path=shot_path("daily-standings-phone"), full_page=True)
        assert await other.evaluate("() => document.documentElement.scrollWidth <= innerWidth")
        await other.context.close()
        assert errors == []


async def test_a_ghost_that_has_not_moved_yet_has_the_deals_cards_left(
    browser: Browser, clean_redis: str
) -> None:
    """Eagle Wing deals a card home: a ghost that has not moved yet has 51 cards left."""
    errors: list[str] = []
    async with daily_node(clean_redis) as (arena, clock):
        leader = await account(arena.url, "eagle_leader")
        started = await leader.start_daily("eagle-wing")
        clock.advance(PACE)
        await leader.finish(started.race.race_id)  # gives up PACE seconds in, with no move
        await leader.wait_for(RaceEnded, lambda e: e.race_id == started.race.race_id)
        await account(arena.url, "eagle_chaser")
        page = await signed_in_page(browser, arena.url, "eagle_chaser", errors)
        await open_daily(page)
        await deal_box(page, "eagle-wing").get_by_role("button", name="Play Eagle Wing").click()
        await page.get_by_role("button", name="Race ghosts", exact=True).click()
        ghost = page.locator(f'.racer.ghost[data-ghost="{leader.player_id}"]')
        await expect(ghost.locator(".ghost-state")).to_have_text("51 left \N{MIDDLE DOT} 0 moves")
        await expect(ghost.locator(".ghost-info")).to_have_text("rank 1")  # it gave up later, not yet
        await expect(ghost.get_by_role("progressbar")).to_have_attribute("aria-valuenow", "1")
        await expect(page.locator(".racer:not(.ghost) .racer-state")).to_have_text("51 left")
        await give_up(page)
    assert errors == []

"""``play`` going back to a daily run (a race of one) names it by its deal's day and
resumes today's attempt through ``start_daily`` only; on a hand-driven clock that crosses
midnight (UTC)."""

from __future__ import annotations

from client.cli import daily_resumption
from client.tui.race_state import DailyRun
from server.app import ArenaServer
from server.features.daily_rules import DAY_MS, day_start
from server.timesource import ManualTime
from shared.protocol import RaceEnded
from tests.server.conftest import Connect
from tests.server.helpers import start_race
from tests.server.test_daily import DAY, T0, daily_node

GAME = "treize"
LATE = day_start(DAY) + DAY_MS - 2_000  # 23:59:58 of DAY


async def test_todays_attempt_resumes_through_start_daily_as_a_scored_attempt(
    clean_redis: str, connect: Connect
) -> None:
    async with daily_node(clean_redis, ManualTime(T0)) as arena:
        ada = await connect(arena.url)
        await ada.hello(name="ada")
        await ada.register("ada_today", "a long password")
        started = await ada.start_daily(GAME)
        race = await ada.get_race(started.race.race_id)
        assert await daily_resumption(ada, race) == (DailyRun(GAME, "2027-03-14", scored=True), True)


async def test_an_attempt_begun_before_midnight_keeps_its_day_and_is_not_restarted(
    clean_redis: str, connect: Connect
) -> None:
    clock = ManualTime(LATE)
    async with daily_node(clean_redis, clock) as arena:
        ada = await connect(arena.url)
        await ada.hello(name="ada")
        await ada.register("ada_late", "a long password")
        started = await ada.start_daily(GAME)
        clock.advance(5)  # 00:00:03 of the next day: the attempt's clock still runs
        race = await ada.get_race(started.race.race_id)
        assert race.status == "running"
        # start_daily would begin the new day's attempt instead of resuming this one.
        assert await daily_resumption(ada, race) == (DailyRun(GAME, "2027-03-14", scored=True), False)


async def test_a_practice_begun_before_midnight_is_labelled_with_its_deals_day(
    clean_redis: str, connect: Connect
) -> None:
    clock = ManualTime(LATE - 60_000)
    async with daily_node(clean_redis, clock) as arena:
        ada = await connect(arena.url)
        await ada.hello(name="ada")
        await ada.register("ada_practice", "a long password")
        attempt = await ada.start_daily(GAME)
        await ada.finish(attempt.race.race_id)
        await ada.wait_for(RaceEnded, lambda e: e.race_id == attempt.race.race_id)  # practice may start
        practice = await ada.start_daily(GAME, practice=True)
        clock.set(LATE + 5_000)
        race = await ada.get_race(practice.race.race_id)
        assert race.status == "running"
        assert await daily_resumption(ada, race) == (DailyRun(GAME, "2027-03-14", practice=True), False)


async def test_a_race_of_two_is_no_daily_run(arena: ArenaServer, connect: Connect) -> None:
    ada, bob = await connect(arena.url), await connect(arena.url)
    running = await start_race(ada, bob, GAME)
    assert await daily_resumption(ada, await ada.get_race(running.race_id)) is None

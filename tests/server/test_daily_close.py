"""When a daily day closes (its seeds out) and is counted (its tournament points in): not
before every attempt of it is over, whatever the clock or the setting says. A hand-driven
clock; raw frames and the store's state."""

from __future__ import annotations

import datetime as dt

from server.features.daily_rules import DAY_MS, day_start, iso_week
from server.store import keys
from server.timesource import ManualTime
from tests.server.rawclient import racers
from tests.server.test_daily import DAY, accounts, daily_node, deal_of, start

DATE = DAY.isoformat()
MIDNIGHT = day_start(DAY) + DAY_MS


async def test_a_day_is_counted_only_once_every_attempt_of_it_has_ended(clean_redis: str) -> None:
    """With 5-minute attempts the day closes at 00:06. At 00:10 bob's attempt (begun at
    23:58, over at 00:03) is still unended: no clock came to it (every node was down, or
    the one back has not got to it yet). The day waits for it, even once its deadline is
    lost (a node that crashed), and is counted whole once the race clock has ended it."""
    clock = ManualTime(MIDNIGHT - 2 * 60_000)  # 23:58
    async with daily_node(clean_redis, clock, daily_time_limit=300.0) as arena:
        assert arena.features is not None and arena.store is not None
        daily, store = arena.features.daily, arena.store
        await daily.close_due()  # the days before, nobody's (a new server's first look back)
        ada, bob = await accounts(arena.url, "ada", "bob")
        game = "treize"
        adas = (await start(ada, game))["race"]["race_id"]
        await ada.request({"type": "finish", "race_id": adas})
        await ada.event("race_ended")
        bobs = (await start(bob, game))["race"]["race_id"]
        bobs_end = (await store.races.meta(bobs)).ends_at  # type: ignore[union-attr]
        await bob.ws.close()  # gone: only a clock ends his attempt
        await arena.features.clock.stop()  # no clock looks until told
        clock.set(MIDNIGHT + 10 * 60_000)  # 00:10: past the close (00:06)

        assert await daily.close_due() == []
        assert not await store.dailies.closed(DATE)
        assert await store.dailies.table(iso_week(DAY), 20) == []
        standing = await ada.request({"type": "get_daily_standings", "date": DATE})
        assert standing["counted"] is False and standing["week_table"] == []

        # A node died with bob's deadline gone: the next look gives it back to the clocks.
        await store.redis.zrem(keys.DEADLINES, bobs)
        assert await daily.close_due() == []
        assert await store.redis.zscore(keys.DEADLINES, bobs) == bobs_end

        await arena.features.clock.check()  # a race clock ends bob's attempt
        assert (await store.races.meta(bobs)).status.is_over  # type: ignore[union-attr]
        assert await daily.close_due() == [DATE]
        standing = await ada.request({"type": "get_daily_standings", "date": DATE})
        assert standing["counted"] is True
        day = {e["player_id"]: e["points"] for e in standing["day"]}
        week = {e["player_id"]: e["points"] for e in standing["week_table"]}
        assert set(day) == {ada.player_id, bob.player_id} and week == day
        assert {e["player_id"] for e in standing["all_time"]} == set(day)
        await ada.ws.close()


async def test_a_day_waits_for_an_attempt_begun_under_a_longer_time_limit_than_now(
    clean_redis: str,
) -> None:
    """ada begins at 23:59 with 30-minute attempts (her attempt ends at 00:29); the node
    comes back at 00:08 with 5-minute ones. The setting alone would close the day at
    00:06: the day's seeds stay hidden and the day uncounted until ada's attempt is over
    (00:30, a minute after its end), and everything says so."""
    clock = ManualTime(MIDNIGHT - 60_000)  # 23:59
    async with daily_node(clean_redis, clock, daily_time_limit=1800.0) as arena:
        assert arena.features is not None
        await arena.features.daily.close_due()  # the days before, nobody's
        (ada,) = await accounts(arena.url, "ada")
        game = "eight-off"
        deal = await deal_of(arena, game)
        adas = (await start(ada, game))["race"]["race_id"]
        await ada.ws.close()
    ends = MIDNIGHT - 60_000 + 1_800_000  # 00:29
    closes = ends + 60_000  # 00:30
    clock.set(MIDNIGHT + 8 * 60_000)  # 00:08
    async with daily_node(clean_redis, clock, daily_time_limit=300.0) as arena:
        assert arena.features is not None and arena.store is not None
        (cy,) = await racers(arena.url, "cy")
        race = (await cy.request({"type": "get_race", "race_id": adas}))["race"]
        assert race["status"] == "running" and race["ends_at"] == ends and "seed" not in race
        dailies = await cy.request({"type": "get_dailies", "date": DATE})
        assert all("seed" not in d and "salt" not in d for d in dailies["deals"])
        assert dailies["reveals_at"] == closes
        board = await cy.request({"type": "get_daily_board", "game": game, "date": DATE})
        assert board["reveals_at"] == closes
        standing = await cy.request({"type": "get_daily_standings", "date": DATE})
        assert (standing["counted"], standing["counts_at"]) == (False, closes)
        assert await arena.features.daily.close_due() == []
        assert not await arena.store.dailies.closed(DATE)

        clock.set(ends)  # the clock ends ada's attempt
        await arena.features.clock.check()
        clock.set(closes - 1)
        dailies = await cy.request({"type": "get_dailies", "date": DATE})
        assert all("seed" not in d for d in dailies["deals"])
        assert await arena.features.daily.close_due() == []
        clock.set(closes)
        dailies = await cy.request({"type": "get_dailies", "date": DATE})
        info = next(d for d in dailies["deals"] if d["game"] == game)
        assert (info["seed"], info["salt"]) == (deal.seed, deal.salt)
        assert await arena.features.daily.close_due() == [DATE]
        log = await cy.request({"type": "get_move_log", "race_id": adas})
        assert log["seed"] == deal.seed
        await cy.ws.close()


async def test_the_day_after_a_day_still_waiting_waits_for_it(clean_redis: str) -> None:
    """Days are counted in order (a streak runs from one to the next): a day whose close
    came while the day before still has an attempt unended is counted after it."""
    clock = ManualTime(MIDNIGHT - 60_000)  # 23:59 of DAY
    async with daily_node(clean_redis, clock, daily_time_limit=300.0) as arena:
        assert arena.features is not None and arena.store is not None
        await arena.features.daily.close_due()  # the days before, nobody's
        (ada,) = await accounts(arena.url, "ada")
        adas = (await start(ada, "treize"))["race"]["race_id"]
        await arena.features.clock.stop()
        clock.set(MIDNIGHT + DAY_MS + 10 * 60_000)  # 00:10 two days on
        assert await arena.features.daily.close_due() == []
        await arena.features.clock.check()  # ada's attempt ends
        assert (await arena.store.races.meta(adas)).status.is_over  # type: ignore[union-attr]
        next_day = (DAY + dt.timedelta(days=1)).isoformat()
        assert await arena.features.daily.close_due() == [DATE, next_day]
        await ada.ws.close()

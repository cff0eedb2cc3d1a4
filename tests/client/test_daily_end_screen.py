"""The end of a daily run on the race screen, on a hand-driven clock: how it ended in a
sentence, what ``p`` offers once the deal's day is over, and the parting note's replay."""

from __future__ import annotations

from client.sdk import ArenaClient
from client.tui import RaceApp
from client.tui.race_state import DailyRun
from server.timesource import ManualTime
from tests.client.test_tui import SIZE, wait_until
from tests.server.conftest import Connect
from tests.server.test_daily import DAY, T0, daily_node

GAME = "treize"


async def account(connect: Connect, url: str, username: str) -> ArenaClient:
    player = await connect(url)
    await player.hello(name=username, legal_moves=True)
    await player.register(username, "a long password")
    return player


async def test_a_daily_attempt_whose_time_ran_out_says_so_in_a_sentence(
    clean_redis: str, connect: Connect
) -> None:
    clock = ManualTime(T0)
    async with daily_node(clean_redis, clock) as arena:
        ada = await account(connect, arena.url, "ada_late")
        started = await ada.start_daily(GAME)
        app = RaceApp(ada, started.race.race_id, daily=DailyRun(GAME, started.date, scored=True))
        async with app.run_test(size=SIZE) as pilot:
            screen = app.race_screen
            await wait_until(pilot, lambda: screen.state.view is not None)
            clock.advance(arena.settings.daily_time_limit + 1)  # the server's clock ends it
            await wait_until(pilot, lambda: "#1 of 1" in screen.status.last)
            assert screen.status.last == (
                f"daily over: time ran out with 0 cards removed, #1 of 1 on the treize board of {DAY}. "
                "p practice, ctrl+q quit"
            )

"""The end of a daily run on the race screen, on a hand-driven clock: how it ended in a
sentence, what ``p`` offers once the deal's day is over, and the parting note's replay."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from textual.pilot import Pilot

from client.sdk import ArenaClient
from client.tui import RaceApp
from client.tui import app as app_module
from client.tui.board import BoardWidget
from client.tui.drawing import board_text
from client.tui.race import RaceScreen
from client.tui.race_state import DailyRun
from server.app import ArenaServer
from server.features.daily_rules import DAY_MS, day_start
from server.timesource import ManualTime
from shared.protocol import RaceEnded
from tests.client.test_tui import SIZE, _type, footer_keys, lines_of, rendered, replay_opened, wait_until
from tests.server.conftest import Connect
from tests.server.test_daily import DAY, T0, daily_node

GAME = "treize"
LATE = day_start(DAY) + DAY_MS - 60_000  # 23:59 of DAY


async def account(connect: Connect, url: str, username: str) -> ArenaClient:
    player = await connect(url)
    await player.hello(name=username, legal_moves=True)
    await player.register(username, "a long password")
    return player


@contextlib.asynccontextmanager
async def scored_screen(
    redis_url: str, connect: Connect, clock: ManualTime, username: str
) -> AsyncIterator[tuple[ArenaServer, RaceApp, Pilot[None], RaceScreen]]:
    """A node on ``clock`` and ``username``'s scored treize attempt on the race screen,
    its deal shown."""
    async with daily_node(redis_url, clock) as arena:
        player = await account(connect, arena.url, username)
        started = await player.start_daily(GAME)
        app = RaceApp(player, started.race.race_id, daily=DailyRun(GAME, started.date, scored=True))
        async with app.run_test(size=SIZE) as pilot:
            screen = app.race_screen
            await wait_until(pilot, lambda: screen.state.view is not None)
            yield arena, app, pilot, screen


async def test_a_daily_attempt_whose_time_ran_out_says_so_in_a_sentence(
    clean_redis: str, connect: Connect
) -> None:
    clock = ManualTime(T0)
    async with scored_screen(clean_redis, connect, clock, "ada_late") as (arena, _app, pilot, screen):
        clock.advance(arena.settings.daily_time_limit + 1)  # the server's clock ends it
        await wait_until(pilot, lambda: "#1 of 1" in screen.status.last)
        assert screen.status.last == (
            f"daily over: time ran out with 0 cards removed, #1 of 1 on the treize board of {DAY}. "
            "p practice, ctrl+q quit"
        )


async def test_a_daily_ended_after_midnight_no_longer_offers_to_practise_its_deal(
    clean_redis: str, connect: Connect
) -> None:
    """p would practise the new day's deal (start_daily plays today's): once the day of
    the deal just played is over, the end screen says how to play today's instead."""
    clock = ManualTime(LATE)
    async with scored_screen(clean_redis, connect, clock, "ada_midnight") as (_arena, app, pilot, screen):
        attempt = screen.race_id
        clock.set(LATE + 90_000)  # 00:00:30 of the next day
        await pilot.press("ctrl+g", "ctrl+g")  # gives up: the attempt ends after midnight
        await wait_until(pilot, lambda: "#1 of 1" in screen.status.last)
        assert screen.status.last == (
            f"daily over: you gave up with 0 cards removed, #1 of 1 on the treize board of {DAY}. "
            f"{DAY} is over too: ctrl+q, then solitaire-arena daily treize plays today's deal"
        )
        assert lines_of(rendered(screen, "#daily")) == [
            f"Board of {DAY}",
            "#1 of 1:",
            "gave up with 0 cards removed",
            "the day is over: play today's",
            "solitaire-arena daily treize",
        ]
        assert "p" not in footer_keys(app)
        await _type(pilot, "practice")
        await wait_until(pilot, lambda: screen.status.last.startswith(f"{DAY} is over:"))
        assert screen.status.last == (
            f"{DAY} is over: ctrl+q, then solitaire-arena daily treize plays today's deal"
        )
        assert screen.race_id == attempt  # no practice of another deal began


async def test_quitting_a_daily_after_its_day_says_when_its_replay_opens_as_it_is_then(
    clean_redis: str, connect: Connect
) -> None:
    """Given up after midnight, its replay waits for the day's close (00:31): the parting
    note names it. Quit after the close, it plays back now, and the note says so."""
    clock = ManualTime(LATE)
    async with scored_screen(clean_redis, connect, clock, "ada_parting") as (_arena, app, pilot, screen):
        attempt = screen.race_id
        clock.set(LATE + 90_000)  # 00:00:30 of the next day
        await pilot.press("ctrl+g", "ctrl+g")
        await wait_until(pilot, lambda: "#1 of 1" in screen.status.last)
        await pilot.press("ctrl+q")
        note = app_module.parting_text(app)
        assert note is not None and all(len(line) <= 80 for line in note.splitlines()), note
        assert " ".join(note.split()) == (
            f"your treize daily attempt (race {attempt}) is over: solitaire-arena replay {attempt} "
            "plays it back; its seed is revealed once the day's last attempts are over (2027-03-15 00:31 UTC)"
        )
        clock.set(day_start(DAY) + DAY_MS + 1_860_000)  # 00:31: the day closes
        again = RaceApp(app.client, attempt, daily=DailyRun(GAME, DAY.isoformat(), scored=True))
        async with again.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: again.race_screen.state.summary is not None)
        assert app_module.parting_text(again) == (
            f"your treize daily attempt (race {attempt}) is over: solitaire-arena replay\n"
            f"    {attempt} plays it back"
        )


async def test_ones_own_attempt_replays_before_its_day_closes_from_the_servers_boards(
    clean_redis: str, connect: Connect
) -> None:
    """No seed before the close, so nothing to re-deal: ctrl+r at the end steps through
    the server's boards of the attempt (get_replay), which show no face-down card, as the
    browser's Replay does."""
    clock = ManualTime(T0)
    async with scored_screen(clean_redis, connect, clock, "ada_replays") as (_arena, app, pilot, screen):
        assert screen.state.view is not None
        move = screen.state.view.legal_moves[0]
        await _type(pilot, move)
        await wait_until(pilot, lambda: screen.state.view is not None and screen.state.view.move_count == 1)
        await pilot.press("ctrl+g", "ctrl+g")
        await wait_until(pilot, lambda: screen.state.summary is not None)
        assert screen.state.summary is not None and screen.state.summary.seed is None
        served = await app.client.replay(screen.race_id, app.client.player_id or "")
        assert len(served.views) == 2 and served.moves == ["", move]
        await pilot.press("ctrl+r")
        replay_screen = await replay_opened(pilot, app)
        title = f"Replay  race {screen.race_id}  treize  racer ada_replays (1/1)"
        await wait_until(pilot, lambda: str(replay_screen.query_one("#replay-title").render()) == title)
        board = replay_screen.query_one("#replay-board", BoardWidget)
        assert board.plain == board_text(served.views[0])
        status = str(replay_screen.query_one("#replay-status").render())
        assert status.startswith("move 0/1: the deal (its seed is revealed once the day is closed)")
        await pilot.press("end")
        assert board.plain == board_text(served.views[1])
        status = str(replay_screen.query_one("#replay-status").render())
        assert status.startswith(f"move 1/1: {move} at ")


async def test_the_replay_command_replays_ones_own_attempt_before_its_day_closes(
    clean_redis: str, connect: Connect
) -> None:
    """solitaire-arena replay RACE on a terminal (its screen, replay_app): the attempt's
    player steps through the server's boards of it, before its seed is out."""
    async with daily_node(clean_redis, ManualTime(T0)) as arena:
        player = await account(connect, arena.url, "ada_command")
        started = await player.start_daily(GAME)
        race_id = started.race.race_id
        assert started.race.board is not None
        move = started.race.board.view.legal_moves[0]
        await player.move(race_id, move)
        await player.finish(race_id)
        await player.wait_for(RaceEnded, lambda e: e.race_id == race_id)
        served = await player.replay(race_id, player.player_id or "")
        assert len(served.views) == 2 and served.moves == ["", move]
        app = await app_module.replay_app(player, race_id)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.replay_screen
            board = screen.query_one("#replay-board", BoardWidget)
            assert board.plain == board_text(served.views[0])
            title = str(screen.query_one("#replay-title").render())
            assert title == f"Replay  race {race_id}  treize  racer ada_command (1/1)"
            await pilot.press("end")
            assert board.plain == board_text(served.views[1])
            status = str(screen.query_one("#replay-status").render())
            assert status.startswith(f"move 1/1: {move} at ")

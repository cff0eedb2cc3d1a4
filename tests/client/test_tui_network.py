"""The terminal UI on a bad network: a connection that stalls (nothing comes back, nothing
closes), drops and comes back, or stays away longer than an open race keeps a seat. Every
race is real (an in-process server, real WebSocket connections); the screen is textual's
headless pilot, and what is checked is what the screen says."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from client.sdk import ArenaClient
from client.tui import RaceApp, WatchApp
from client.tui.race import GIVE_UP_ASK, GO
from client.tui.replay import ReplayScreen
from server.app import ArenaServer
from shared import new_game
from tests.client.test_tui import SMALL, _type, until_shown, wait_until
from tests.server.conftest import WINNABLE_SEED, Connect
from tests.server.helpers import start_race

#: Seconds a request of the stalled racer waits for its answer (the SDK's own is 10).
ANSWER_WAIT = 0.5


async def quick_to_give_up(arena: ArenaServer, connect: Connect) -> tuple[ArenaClient, ArenaClient, str]:
    """ada, whose requests give up after :data:`ANSWER_WAIT` s, racing bob."""
    ada = await connect(arena.url, request_timeout=ANSWER_WAIT)
    await ada.hello(name="ada", legal_moves=True)
    bob = await connect(arena.url)
    return ada, bob, (await start_race(ada, bob)).race_id


def stall(client: ArenaClient) -> None:
    """The connection stalls: nothing the server sends reaches the client any more (the
    requests go out; no answer comes back), and nothing closes."""
    client.ws.transport.pause_reading()


def unstall(client: ArenaClient) -> None:
    client.ws.transport.resume_reading()


async def said(pilot: Pilot[None], app: RaceApp, text: str) -> None:
    """Wait until the status line says ``text``, shown whole on the terminal."""
    await wait_until(pilot, lambda: app.race_screen.status.last == text)
    await until_shown(pilot, app, text)


# ----- a stalled connection -----------------------------------------------------------


async def test_giving_up_on_a_stalled_connection_says_no_answer_came_and_the_screen_goes_on(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, _bob, race_id = await quick_to_give_up(arena, connect)
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SMALL) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: GO in screen.status.last)
        stall(ada)
        await pilot.press("ctrl+g", "ctrl+g")
        await said(pilot, app, "cannot give up: no answer from the server (ctrl+g asks again)")
        await pilot.press("ctrl+g")  # the screen still takes keys, and asks again
        await said(pilot, app, GIVE_UP_ASK)
        assert screen.playing and app.is_running
        unstall(ada)  # so that the client closes at once


async def test_a_move_on_a_stalled_connection_says_no_answer_came_and_sent_again_is_played_once(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, bob, race_id = await quick_to_give_up(arena, connect)
    move = new_game("eight-off", WINNABLE_SEED).legal_moves()[0]
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SMALL) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: GO in screen.status.last)
        stall(ada)
        await _type(pilot, move)
        await said(pilot, app, f"✗ {move}: no answer from the server; it is safe to retry")
        unstall(ada)
        await _type(pilot, move)  # as it says: played once, under the same seq
        await said(pilot, app, f"✓ {move}  +1 (score 1)")
        assert screen.state.seq == 1
        assert [r.move_count for r in (await bob.get_race(race_id)).racers if r.name == "ada"] == [1]


async def test_the_replay_asked_for_on_a_stalled_connection_says_no_answer_came_and_opens_once_back(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, bob, race_id = await quick_to_give_up(arena, connect)
    await ada.finish(race_id)
    await bob.finish(race_id)
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SMALL) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.status.last.startswith("race over"))
        stall(ada)
        await pilot.press("ctrl+r")
        await said(pilot, app, "no replay: no answer from the server (ctrl+r asks again)")
        unstall(ada)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen))


async def test_a_race_opened_on_a_stalled_connection_says_no_answer_came(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, _bob, race_id = await quick_to_give_up(arena, connect)
    stall(ada)
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SMALL) as pilot:
        await said(pilot, app, f"cannot follow race {race_id}: no answer from the server")
        unstall(ada)


async def test_a_spectator_whose_watch_stalls_once_reconnected_is_told_no_answer_came(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    _ada, _bob, race_id = await quick_to_give_up(arena, connect)
    sam = await connect(arena.url, reconnect=True, request_timeout=ANSWER_WAIT)
    await sam.hello(name="sam")
    app = WatchApp(sam, await sam.watch(race_id), target=race_id)
    watch = ArenaClient.watch

    async def watch_on_a_stalled_connection(client: ArenaClient, race_id: str | None = None) -> object:
        stall(client)  # the connection resumed stalls as the watch is asked for again
        return await watch(client, race_id)

    async with app.run_test(size=SMALL) as pilot:
        screen = app.watch_screen
        await wait_until(pilot, lambda: "q quits" in screen.status.last)
        monkeypatch.setattr(ArenaClient, "watch", watch_on_a_stalled_connection)
        sam.ws.transport.abort()  # the network drops; the client resumes
        note = "reconnected, but cannot watch again: no answer from the server"
        await wait_until(pilot, lambda: screen.status.last == note)
        await until_shown(pilot, app, note)
        unstall(sam)

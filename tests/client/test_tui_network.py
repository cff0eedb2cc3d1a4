"""The terminal UI on a bad network: a connection that stalls (nothing comes back, nothing
closes), drops and comes back, or stays away longer than an open race keeps a seat. Every
race is real (an in-process server, real WebSocket connections); the screen is textual's
headless pilot, and what is checked is what the screen says."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from client.sdk import REQUEST_TIMEOUT, ArenaClient
from client.tui import RaceApp, WatchApp
from client.tui.race import GIVE_UP_ASK, GO, RECONNECTING, RaceScreen
from client.tui.replay import ReplayScreen
from server.app import ArenaServer
from shared import new_game
from shared.protocol import Progress, RaceEnded, RaceStarted, RaceUpdate, ServerMessage, Welcome
from tests.client.test_tui import (
    SMALL,
    _type,
    away_until_set,
    footer_keys,
    rendered,
    replay_opened,
    screen_words,
    until_shown,
    wait_until,
)
from tests.server.conftest import WINNABLE_SEED, Connect, running_node
from tests.server.helpers import start_race

#: Seconds a request of the stalled racer waits for its answer (the SDK's own is 10).
ANSWER_WAIT = 0.5


async def quick_to_give_up(arena: ArenaServer, connect: Connect) -> tuple[ArenaClient, ArenaClient, str]:
    """ada racing bob (while her connection stalls, her requests give up after
    :data:`ANSWER_WAIT` s)."""
    ada = await connect(arena.url)
    await ada.hello(name="ada", legal_moves=True)
    bob = await connect(arena.url)
    return ada, bob, (await start_race(ada, bob)).race_id


def stall(client: ArenaClient, answer_wait: float = ANSWER_WAIT) -> None:
    """The connection stalls: nothing the server sends reaches the client any more (the
    requests go out; no answer comes back), and nothing closes. Meanwhile its requests
    give up after ``answer_wait`` s (before and after, a busy machine's slow answers are
    not taken for a stall)."""
    client.request_timeout = answer_wait
    client.ws.transport.pause_reading()


def unstall(client: ArenaClient) -> None:
    client.ws.transport.resume_reading()
    client.request_timeout = REQUEST_TIMEOUT


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


@pytest.mark.parametrize("then", ["ctrl+g again", "a move"])
async def test_a_give_up_whose_answer_was_lost_shows_the_racer_finished_once_the_server_says_so(
    arena: ArenaServer, connect: Connect, then: str
) -> None:
    """The give-up went through but its answer stalled: asked again, or a move tried, the
    server says the racer has finished, and the screen shows them so (not racing on)."""
    ada, _bob, race_id = await quick_to_give_up(arena, connect)
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SMALL) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: GO in screen.status.last)
        stall(ada)
        await pilot.press("ctrl+g", "ctrl+g")
        await said(pilot, app, "cannot give up: no answer from the server (ctrl+g asks again)")
        assert not screen.state.i_finished
        unstall(ada)
        if then == "ctrl+g again":
            await pilot.press("ctrl+g", "ctrl+g")
            await wait_until(pilot, lambda: screen.status.last.startswith("you gave up with score "))
        else:
            await _type(pilot, new_game("eight-off", WINNABLE_SEED).legal_moves()[0])
            await wait_until(pilot, lambda: screen.status.last.startswith("✗ "))
            assert "finished this race" in screen.status.last
        await wait_until(pilot, lambda: screen.state.i_finished and not screen.playing)


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


async def test_a_move_whose_answer_comes_after_it_timed_out_is_shown_played_without_sending_it_again(
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
        unstall(ada)  # the ack the server sent meanwhile comes now
        await said(pilot, app, f"✓ {move}  +1 (score 1) (its answer came late)")
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
        await replay_opened(pilot, app)


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
    sam = await connect(arena.url, reconnect=True)
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


# ----- back after a drop --------------------------------------------------------------


def followed_again(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the races the screen read again (once the welcome of a resume came,
    among others), each as it is done with it."""
    done: list[str] = []
    resync = RaceScreen._resync

    async def recorded(screen: RaceScreen) -> None:
        await resync(screen)
        done.append(screen.race_id)

    monkeypatch.setattr(RaceScreen, "_resync", recorded)
    return done


async def drop(pilot: Pilot[None], app: RaceApp, client: ArenaClient) -> None:
    """The network drops (and stays down while the resume is held): the screen says so. A
    stall ends with its connection: the next one's requests get the usual time (a busy
    machine's slow resume is no stall)."""
    client.ws.transport.abort()
    client.request_timeout = REQUEST_TIMEOUT
    await wait_until(pilot, lambda: app.race_screen.status.last == RECONNECTING)


async def reconnecting_racer(url: str, connect: Connect) -> ArenaClient:
    ada = await connect(url, reconnect=True)
    await ada.hello(name="ada", legal_moves=True)
    return ada


def welcome_once(monkeypatch: pytest.MonkeyPatch, ready: Callable[[], bool]) -> None:
    """The client's events hand a resume's welcome only once ``ready()`` (what comes
    meanwhile, such as an answer to a request, comes first)."""
    events = ArenaClient.events

    async def held(client: ArenaClient) -> AsyncIterator[ServerMessage]:
        async for event in events(client):
            while isinstance(event, Welcome) and not ready():
                await asyncio.sleep(0.01)
            yield event

    monkeypatch.setattr(ArenaClient, "events", held)


async def test_a_move_sent_as_the_connection_dropped_says_how_it_went_once_back_not_reconnected(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    ada, bob = await reconnecting_racer(arena.url, connect), await connect(arena.url)
    race_id = (await start_race(ada, bob)).race_id
    move = new_game("eight-off", WINNABLE_SEED).legal_moves()[0]
    welcome_once(monkeypatch, lambda: ada.seqs.get(race_id) == 1)  # the move's ack first
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SMALL) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: GO in screen.status.last)
        back = away_until_set(monkeypatch)
        # The move goes out, its ack never comes back… (its request waits as long as ever:
        # one that gave up before the drop would be another story, told above)
        stall(ada, answer_wait=REQUEST_TIMEOUT)
        await _type(pilot, move)
        await bob.wait_for(Progress, lambda p: p.player_id == ada.player_id)
        await drop(pilot, app, ada)  # …and the connection drops
        back.set()  # back: the move is sent again (its ack says it was played)
        await wait_until(pilot, lambda: screen.state.seq == 1 and ada.resumes == 1)
        # bob's move comes after the welcome: once it shows, the welcome was taken in.
        await bob.move(race_id, move)
        await wait_until(pilot, lambda: screen.state.racers[bob.player_id or ""].move_count == 1)
        assert screen.status.last == f"✓ {move}  +1 (score 1)"
        await until_shown(pilot, app, screen.status.last)


def events_in_order(monkeypatch: pytest.MonkeyPatch, first: type[ServerMessage]) -> None:
    """The client's events hand a resume's welcome and the end of a race that ended while
    away in this order, ``first`` first (the SDK may deliver either first)."""
    events = ArenaClient.events

    async def ordered(client: ArenaClient) -> AsyncIterator[ServerMessage]:
        held: dict[type[ServerMessage], ServerMessage] = {}
        async for event in events(client):
            if isinstance(event, (Welcome, RaceEnded)):
                held[type(event)] = event
                if len(held) == 2:
                    yield held.pop(first)
                    yield held.popitem()[1]
                continue
            yield event

    monkeypatch.setattr(ArenaClient, "events", ordered)


#: ada's note once a race of two she did not score in ended at its time limit.
TIED = "race over (time ran out): you tied 1st of 2. r rematch, ctrl+r replay, ctrl+q quit"
#: The same once both gave up (no time ran out).
BOTH_GAVE_UP = "race over: you tied 1st of 2. r rematch, ctrl+r replay, ctrl+q quit"


@pytest.mark.parametrize("first", [Welcome, RaceEnded])
async def test_a_race_that_ended_while_away_says_how_it_ended_once_back_not_reconnected(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch, first: type[ServerMessage]
) -> None:
    ada, bob = await reconnecting_racer(arena.url, connect), await connect(arena.url)
    race_id = (await start_race(ada, bob, time_limit=3)).race_id
    events_in_order(monkeypatch, first)
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SMALL) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: GO in screen.status.last)
        back, read_again = away_until_set(monkeypatch), followed_again(monkeypatch)
        await drop(pilot, app, ada)
        await bob.finish(race_id)  # bob gives up; ada's time runs out while she is away
        await bob.wait_for(RaceEnded, lambda e: e.race_id == race_id)
        back.set()
        await wait_until(pilot, lambda: race_id in read_again and screen.status.last.startswith("race over"))
        assert screen.state.summary is not None
        assert screen.status.last == TIED
        await wait_until(pilot, lambda: TIED in screen_words(app))


async def test_a_race_ended_while_away_on_another_device_shows_its_results_once_back(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ada's other device follows the race as it ends: the server, which told her there,
    sends her resumed session no end (only the race's status says it is over)."""
    ada, bob = await reconnecting_racer(arena.url, connect), await connect(arena.url)
    race_id = (await start_race(ada, bob)).race_id
    elsewhere = await connect(arena.url)
    await elsewhere.hello(token=ada.token)
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SMALL) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: GO in screen.status.last)
        back, read_again = away_until_set(monkeypatch), followed_again(monkeypatch)
        await drop(pilot, app, ada)
        await elsewhere.finish(race_id)  # both give up while ada's connection here is down
        await bob.finish(race_id)
        await elsewhere.wait_for(RaceEnded, lambda e: e.race_id == race_id)
        back.set()
        await wait_until(pilot, lambda: race_id in read_again and screen.status.last != RECONNECTING)
        assert screen.status.last == BOTH_GAVE_UP
        await wait_until(pilot, lambda: rendered(screen, "#ranking").startswith("Results"))


async def test_a_give_up_asked_while_the_connection_is_down_says_it_waits_for_it(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    ada = await reconnecting_racer(arena.url, connect)
    bob = await connect(arena.url)
    race_id = (await start_race(ada, bob)).race_id
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SMALL) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: GO in screen.status.last)
        back = away_until_set(monkeypatch)
        await drop(pilot, app, ada)
        await pilot.press("ctrl+g", "ctrl+g")
        await said(pilot, app, f"{RECONNECTING} you give up once it is back")
        back.set()
        await wait_until(pilot, lambda: screen.status.last.startswith("you gave up with score "))
        assert screen.state.i_finished


async def test_a_lobby_back_after_a_drop_keeps_saying_who_sits_and_how_others_join(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    ada, bob = await reconnecting_racer(arena.url, connect), await connect(arena.url)
    await bob.hello(name="bob")
    race = await ada.create_race("eight-off", seats=3, time_limit=60)
    await bob.join_race(race.code)
    app = RaceApp(ada, race.race_id)
    async with app.run_test(size=SMALL) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: "2/3 seated" in screen.status.last)
        back = away_until_set(monkeypatch)
        await drop(pilot, app, ada)
        back.set()
        note = (
            f"reconnected\neight-off race {race.code}: 2/3 seated, 0 ready; press r (or Enter) when ready\n"
            f"others join with: solitaire-arena play --join {race.code}"
        )
        await wait_until(pilot, lambda: screen.status.last == note)
        await until_shown(pilot, app, note)
        await wait_until(pilot, lambda: footer_keys(app).get("r") == ("ready", True))


# ----- a seat lost while away ---------------------------------------------------------

LOST = re.compile(
    r"you lost your seat in race (\w+): the connection was down \d+ s, longer than this server keeps "
    r"the seat of a racer gone before a race starts \(0.2 s\)(.*)"
)


async def test_a_seat_lost_while_away_says_so_and_r_joins_the_race_again(
    clean_redis: str, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_node(clean_redis, lobby_grace=0.2) as node:
        ada, bob = await reconnecting_racer(node.url, connect), await connect(node.url)
        await bob.hello(name="bob")
        race = await ada.create_race("eight-off", seats=3, time_limit=60)
        await bob.join_race(race.code)
        app = RaceApp(ada, race.race_id, ready_when_full=True)
        async with app.run_test(size=SMALL) as pilot:
            screen = app.race_screen
            await wait_until(pilot, lambda: "2/3 seated" in screen.status.last)
            back = away_until_set(monkeypatch)
            await drop(pilot, app, ada)
            # Away past the grace: the server frees ada's seat (bob is told).
            await bob.wait_for(
                RaceUpdate, lambda u: ada.player_id not in {r.player_id for r in u.race.racers}
            )
            back.set()
            await wait_until(pilot, lambda: LOST.fullmatch(screen.status.last) is not None)
            lost = LOST.fullmatch(screen.status.last)
            assert lost is not None and lost.groups() == (race.code, ". r joins it again, ctrl+q quits")
            await wait_until(pilot, lambda: screen.status.last in screen_words(app))  # whole
            await wait_until(pilot, lambda: footer_keys(app).get("r") == ("join again", True))
            assert app.parting_note() == (
                f"you lost your seat in race {race.code} while the connection was down: "
                f"solitaire-arena play --join {race.code} joins it again"
            )
            await pilot.press("r")
            await wait_until(pilot, lambda: "2/3 seated" in screen.status.last)
            assert screen.status.last.startswith(f"eight-off race {race.code}: 2/3 seated, 0 ready; press r")
            await wait_until(pilot, lambda: footer_keys(app).get("r") == ("ready", True))


async def test_a_seat_lost_while_away_in_a_race_nobody_else_sat_in_says_it_is_cancelled(
    clean_redis: str, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_node(clean_redis, lobby_grace=0.2) as node:
        ada = await reconnecting_racer(node.url, connect)
        race = await ada.create_race("eight-off", seats=3, time_limit=60)
        app = RaceApp(ada, race.race_id, ready_when_full=True)
        async with app.run_test(size=SMALL) as pilot:
            screen = app.race_screen
            await wait_until(pilot, lambda: "1/3 seated" in screen.status.last)
            back = away_until_set(monkeypatch)
            await drop(pilot, app, ada)
            looker = await connect(node.url)
            await looker.hello(name="looker")
            while (await looker.get_race(race.race_id)).status != "cancelled":
                await asyncio.sleep(0.05)  # the grace ends: ada leaves, the race is cancelled
            back.set()
            await wait_until(pilot, lambda: LOST.fullmatch(screen.status.last) is not None)
            lost = LOST.fullmatch(screen.status.last)
            cancelled = "; nobody sat in it any more, so it is cancelled. ctrl+q quits"
            assert lost is not None and lost.groups() == (race.code, cancelled)
            await wait_until(pilot, lambda: screen.status.last in screen_words(app))  # whole
            await wait_until(pilot, lambda: set(footer_keys(app)) <= {"ctrl+q", "ctrl+p"})


async def test_a_seat_lost_while_away_in_a_race_that_started_meanwhile_says_it_started_without_you(
    clean_redis: str, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_node(clean_redis, lobby_grace=0.2) as node:
        ada, bob, cy = (
            await reconnecting_racer(node.url, connect),
            await connect(node.url),
            await connect(node.url),
        )
        await bob.hello(name="bob")
        await cy.hello(name="cy")
        race = await ada.create_race("eight-off", seats=3, time_limit=60)
        await bob.join_race(race.code)
        await cy.join_race(race.code)
        app = RaceApp(ada, race.race_id)
        async with app.run_test(size=SMALL) as pilot:
            screen = app.race_screen
            await wait_until(pilot, lambda: "3/3 seated" in screen.status.last)
            back = away_until_set(monkeypatch)
            await drop(pilot, app, ada)
            await bob.wait_for(RaceUpdate, lambda u: len(u.race.racers) == 2)  # ada's seat freed
            await bob.ready(race.race_id)
            await cy.ready(race.race_id)
            await bob.wait_for(RaceStarted, lambda e: e.race_id == race.race_id)
            back.set()
            await wait_until(pilot, lambda: LOST.fullmatch(screen.status.last) is not None)
            lost = LOST.fullmatch(screen.status.last)
            assert lost is not None and lost.groups() == (
                race.code,
                "; it started without you meanwhile. ctrl+q quits",
            )
            assert GO not in screen_words(app)
            await wait_until(pilot, lambda: set(footer_keys(app)) <= {"ctrl+q", "ctrl+p"})


async def test_quitting_as_the_replay_opens_exits_cleanly_without_a_half_mounted_screen_failing(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """q pressed in the moment between the replay's screen being pushed and its widgets
    mounting: the app exits (nothing more mounts then) and the screen must not fail for
    the board it was never given."""
    ada, bob, race_id = await quick_to_give_up(arena, connect)
    await ada.finish(race_id)
    await bob.finish(race_id)
    app = RaceApp(ada, race_id)
    push_screen = RaceApp.push_screen

    def push_then_quit(self: RaceApp, screen: Any, *args: Any, **kwargs: Any) -> Any:
        pushed = push_screen(self, screen, *args, **kwargs)
        if isinstance(screen, ReplayScreen):
            self.exit()  # as a q handled before the new screen's first message
        return pushed

    monkeypatch.setattr(RaceApp, "push_screen", push_then_quit)
    async with app.run_test(size=SMALL) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.status.last.startswith("race over"))
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen))
    assert app.return_code == 0

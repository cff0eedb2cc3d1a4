"""A node that could not hear a race's channel for a while (its link to Redis cut, then
mended) catches its sessions up from the store: the end, the start, the racers'
progress, and the spectators' boards. Ada races on node A (on Redis directly); Bob and
Cleo, a spectator, are on node B, whose link to Redis is cut while things happen."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from client.sdk import ArenaClient
from server.app import ArenaServer
from server.features.catch_up import SIGNED_OUT_ELSEWHERE, Missed
from shared.protocol import MatchFound, MoveAck, RaceEnded, RaceStarted
from tests.redis_direct import ON_CLUSTER
from tests.server.conftest import running_node
from tests.server.link import Link
from tests.server.rawclient import Frame, Racer, racers

pytestmark = pytest.mark.skipif(ON_CLUSTER, reason="the link relays one Redis server")

#: Seconds a frame from the catch-up may take once the link is mended (the subscriber
#: tries again every 0.5 s).
CATCH_UP = 8.0


@pytest.fixture
async def link(clean_redis: str) -> AsyncIterator[Link]:
    link = Link(clean_redis)
    await link.start()
    yield link
    await link.stop()


@contextlib.asynccontextmanager
async def ada_and_bob(
    redis_url: str, link: Link, **overrides: object
) -> AsyncIterator[tuple[ArenaServer, ArenaClient, Racer]]:
    """Node A on Redis, node B behind ``link``: node B, Ada on A, Bob on B."""
    async with running_node(redis_url, **overrides) as a, running_node(link.url, **overrides) as b:
        ada = await ArenaClient.connect(a.url)
        (bob,) = await racers(b.url, "bob")
        try:
            yield b, ada, bob
        finally:
            await ada.close()
            await bob.ws.close()


async def seated(ada: ArenaClient, bob: Racer) -> str:
    """Ada creates a race on A, Bob joins it on B, Ada is ready: the race id."""
    await ada.hello(name="ada", legal_moves=True)
    race = await ada.create_race("eight-off", seats=2, time_limit=60)
    joined = await bob.request({"type": "join_race", "code": race.code})
    assert joined["type"] == "race", joined
    await ada.ready(race.race_id)
    return race.race_id


async def started(ada: ArenaClient, bob: Racer) -> tuple[str, RaceStarted]:
    """A race of Ada's and Bob's, started (both saw it start)."""
    race_id = await seated(ada, bob)
    assert (await bob.request({"type": "ready", "race_id": race_id, "ready": True}))["type"] == "ok"
    start = await ada.wait_for(RaceStarted, lambda e: e.race_id == race_id)
    await bob.event("race_started")
    return race_id, start


ReadRace = Callable[[str], Awaitable[list[Missed]]]


def catch_up_reads(
    node: ArenaServer,
    monkeypatch: pytest.MonkeyPatch,
    read: Callable[[ReadRace, str], Awaitable[list[Missed]]],
) -> None:
    """The node's catch-up reads a race with ``read(the store's read, race id)``."""
    assert node.features is not None
    monkeypatch.setattr(node.features.catch_up, "race", functools.partial(read, node.features.catch_up.race))


async def frame_where(
    racer: Racer, kind: str, check: Callable[[Frame], bool], timeout: float = CATCH_UP
) -> Frame:
    """The first frame of ``kind`` (kept or arriving) for which ``check(frame)`` holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        frame = await racer.event(kind, max(0.01, deadline - loop.time()))
        if check(frame):
            return frame


async def test_a_race_that_ends_while_a_node_cannot_hear_it_still_ends_for_its_racer(
    clean_redis: str, link: Link
) -> None:
    async with ada_and_bob(clean_redis, link) as (_node_b, ada, bob):
        race_id, _start = await started(ada, bob)
        assert (await bob.request({"type": "finish", "race_id": race_id}))["type"] == "ok"

        link.cut()
        await ada.finish(race_id)  # the last racer: the race ends, published while B is cut off
        ended = await ada.wait_for(RaceEnded, lambda e: e.race_id == race_id)
        link.mend()

        frame = await frame_where(bob, "race_ended", lambda f: f["race_id"] == race_id)
        assert frame["summary"]["seed"] == ended.summary.seed
        assert {s["player_id"] for s in frame["summary"]["standings"]} == {ada.player_id, bob.player_id}
        # Sent once: the catch-up ends the race for B's sessions as a heard end does.
        with pytest.raises(TimeoutError):
            await bob.event("race_ended", timeout=1.0)


async def test_a_catch_up_that_fails_is_tried_again(
    clean_redis: str, link: Link, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with ada_and_bob(clean_redis, link) as (node_b, ada, bob):
        race_id, _start = await started(ada, bob)
        failed: list[str] = []

        async def unreachable_at_first(read_race: ReadRace, race_id: str) -> list[Missed]:
            if not failed:
                failed.append(race_id)
                raise ConnectionError("Redis is not reachable yet")
            return await read_race(race_id)

        catch_up_reads(node_b, monkeypatch, unreachable_at_first)
        assert (await bob.request({"type": "finish", "race_id": race_id}))["type"] == "ok"
        link.cut()
        await ada.finish(race_id)
        await ada.wait_for(RaceEnded, lambda e: e.race_id == race_id)
        link.mend()

        await frame_where(bob, "race_ended", lambda f: f["race_id"] == race_id)
        assert failed == [race_id]


async def test_a_start_missed_by_a_node_reaches_its_racer_with_the_deal(clean_redis: str, link: Link) -> None:
    async with ada_and_bob(clean_redis, link, countdown=1.0) as (_node_b, ada, bob):
        race_id = await seated(ada, bob)
        assert (await bob.request({"type": "ready", "race_id": race_id, "ready": True}))["type"] == "ok"
        link.cut()  # before the countdown's second is over: node A starts the race
        start = await ada.wait_for(RaceStarted, lambda e: e.race_id == race_id, timeout=10)
        with pytest.raises(TimeoutError):
            await bob.event("race_started", timeout=0.3)
        link.mend()

        frame = await frame_where(bob, "race_started", lambda f: f["race_id"] == race_id)
        assert frame["starts_at"] == start.starts_at
        assert frame["ends_at"] == start.ends_at
        assert frame["view"]["piles"] == start.view.model_dump(mode="json")["piles"]


async def test_moves_missed_by_a_node_reach_its_racer_and_spectator_once_it_hears_again(
    clean_redis: str, link: Link
) -> None:
    async with ada_and_bob(clean_redis, link) as (node_b, ada, bob):
        cleo = await viewer(node_b.url)
        try:
            race_id, start = await started(ada, bob)
            watching = await cleo.request({"type": "watch", "race_id": race_id})
            assert watching["type"] == "watching", watching

            bob.events.clear()  # the race_update of the seating, say
            link.cut()
            assert start.view.legal_moves
            first = await ada.move(race_id, start.view.legal_moves[0])
            assert first.view.legal_moves
            second: MoveAck = await ada.move(race_id, first.view.legal_moves[0])
            assert await ada.rename("ada two") == "ada two"
            await asyncio.sleep(0.3)
            link.mend()

            update = await frame_where(
                bob, "race_update", lambda f: f["race"]["race_id"] == race_id, timeout=CATCH_UP
            )
            ada_now = next(r for r in update["race"]["racers"] if r["player_id"] == ada.player_id)
            assert ada_now["move_count"] == 2
            assert ada_now["score"] == second.view.score
            assert "board" not in update["race"]  # never a racer's cards to another
            # Bob had the start before the gap: it is not sent again.
            with pytest.raises(TimeoutError):
                await bob.event("race_started", timeout=0.5)

            seen = []
            for _ in range(2):
                frame = await frame_where(cleo, "watch_move", lambda f: f["player_id"] == ada.player_id)
                seen.append((frame["seq"], frame["view"]["piles"]))
            assert seen == [
                (1, first.view.model_dump(mode="json")["piles"]),
                (2, second.view.model_dump(mode="json")["piles"]),
            ]
            renamed = await cleo.event("racer_renamed", timeout=CATCH_UP)
            assert renamed == {
                "type": "racer_renamed",
                "race_id": race_id,
                "player_id": ada.player_id,
                "name": "ada two",
            }
        finally:
            await cleo.ws.close()


async def test_a_move_heard_while_its_race_is_caught_up_reaches_the_racer_after_the_catch_up(
    clean_redis: str, link: Link, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with ada_and_bob(clean_redis, link) as (node_b, ada, bob):
        race_id, start = await started(ada, bob)
        read, moved = asyncio.Event(), asyncio.Event()

        async def read_then_wait(read_race: ReadRace, race_id: str) -> list[Missed]:
            """The catch-up's read of the store, which Ada's next move then overtakes."""
            missed = await read_race(race_id)
            read.set()
            await asyncio.wait_for(moved.wait(), CATCH_UP)
            return missed

        catch_up_reads(node_b, monkeypatch, read_then_wait)
        bob.events.clear()
        link.cut()
        assert start.view.legal_moves
        first = await ada.move(race_id, start.view.legal_moves[0])
        link.mend()
        await asyncio.wait_for(read.wait(), CATCH_UP)  # the catch-up read Ada's one move
        assert first.view.legal_moves
        await ada.move(race_id, first.view.legal_moves[0])  # heard by node B at once
        await asyncio.sleep(0.3)
        moved.set()

        # Bob learns of Ada's moves in the order she made them: the second is not overtaken
        # by the catch-up's older race_update.
        counts = await ada_move_counts(bob, race_id, ada.player_id)
        assert counts == [1, 2]


async def ada_move_counts(bob: Racer, race_id: str, ada_id: str) -> list[int]:
    """Ada's move count as each frame Bob gets tells it (race updates and Ada's progress),
    until half a second after the first race_update."""
    loop = asyncio.get_running_loop()
    counts: list[int] = []
    deadline = loop.time() + CATCH_UP
    while loop.time() < deadline:
        try:
            frame = (
                bob.events.pop(0)
                if bob.events
                else json.loads(await asyncio.wait_for(bob.ws.recv(), deadline - loop.time()))
            )
        except TimeoutError:
            break
        if frame["type"] == "race_update" and frame["race"]["race_id"] == race_id:
            counts.append(next(r["move_count"] for r in frame["race"]["racers"] if r["player_id"] == ada_id))
            deadline = min(deadline, loop.time() + 0.5)
        elif frame["type"] == "progress" and frame["player_id"] == ada_id:
            counts.append(frame["move_count"])
    return counts


async def test_a_quick_match_paired_while_a_node_cannot_hear_its_player_still_seats_them(
    clean_redis: str, link: Link
) -> None:
    async with ada_and_bob(clean_redis, link) as (_node_b, ada, bob):
        await ada.hello(name="ada")
        assert (await bob.request({"type": "quick_match", "game": "treize"}))["type"] == "queued"
        link.cut()
        await ada.quick_match("treize")  # paired with Bob, who waits on node B
        found = await ada.wait_for(MatchFound)
        with pytest.raises(TimeoutError):
            await bob.event("match_found", timeout=0.3)
        link.mend()

        frame = await frame_where(bob, "match_found", lambda f: f["race"]["race_id"] == found.race.race_id)
        assert {r["player_id"] for r in frame["race"]["racers"]} == {ada.player_id, bob.player_id}
        # Seated as after a heard pairing: Bob's session follows the race, so its start reaches him.
        started = await frame_where(bob, "race_started", lambda f: f["race_id"] == found.race.race_id)
        assert started["view"]["game"] == "treize"


async def test_a_rematch_started_while_a_node_cannot_hear_its_player_still_seats_them(
    clean_redis: str, link: Link, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with ada_and_bob(clean_redis, link) as (node_b, ada, bob):
        race_id, _start = await started(ada, bob)
        assert (await bob.request({"type": "finish", "race_id": race_id}))["type"] == "ok"
        await ada.finish(race_id)
        await frame_where(bob, "race_ended", lambda f: f["race_id"] == race_id)
        offered = await bob.request({"type": "offer_rematch", "race_id": race_id})
        assert offered["type"] == "rematch", offered
        failed: list[str] = []

        async def new_race_unreachable_at_first(read_race: ReadRace, read_id: str) -> list[Missed]:
            # Bob is seated, then reading the new race fails: the next try must still read it.
            if read_id != race_id and not failed:
                failed.append(read_id)
                raise ConnectionError("Redis is not reachable yet")
            return await read_race(read_id)

        catch_up_reads(node_b, monkeypatch, new_race_unreachable_at_first)
        link.cut()
        await ada.answer_rematch(race_id, accept=True, share=False)  # starts the rematch on node A
        await asyncio.sleep(0.5)  # its countdown ends in the gap: only the catch-up tells the start
        link.mend()

        frame = await frame_where(bob, "rematch_started", lambda f: f["race_id"] == race_id)
        new_race = frame["race"]["race_id"]
        assert new_race != race_id
        assert {r["player_id"] for r in frame["race"]["racers"]} == {ada.player_id, bob.player_id}
        # Seated as after a heard rematch: Bob's session follows the new race.
        started_frame = await frame_where(bob, "race_started", lambda f: f["race_id"] == new_race)
        assert started_frame["view"]["game"] == "eight-off"
        assert failed == [new_race]


async def second_session(url: str, bob: Racer, hello: Frame) -> Racer:
    """Another session of Bob's, on the node at ``url``: a token resume or a login."""
    other = Racer(await ws_connect(url, compression=None))
    welcome = await other.request(hello)
    assert welcome["player_id"] == bob.player_id, welcome
    return other


async def test_a_new_name_given_while_a_node_cannot_hear_its_player_reaches_their_sessions_there(
    clean_redis: str, link: Link
) -> None:
    async with running_node(clean_redis) as node_a, running_node(link.url) as node_b:
        bob = Racer(await ws_connect(node_b.url, compression=None))
        welcome = await bob.request({"type": "hello", "name": "bob"})
        bob.player_id = welcome["player_id"]
        here = await second_session(node_a.url, bob, {"type": "hello", "token": welcome["token"]})
        try:
            link.cut()
            registered = await here.request(
                {"type": "register", "username": "Bob_R", "password": "a long password"}
            )
            assert registered["type"] == "account", registered
            link.mend()

            renamed = await bob.event("renamed", timeout=CATCH_UP)
            assert renamed == {"type": "renamed", "name": "Bob_R", "username": "Bob_R"}
            # The guest's token was revoked by the register (the account has a new one):
            # the session still open with it is signed out, though its node missed the word.
            with pytest.raises(ConnectionClosed):
                await bob.event("never sent", timeout=CATCH_UP)
            assert bob.ws.close_reason == SIGNED_OUT_ELSEWHERE
        finally:
            await close_all(bob, here)


@pytest.mark.parametrize("rated", [False, True], ids=["guest", "account"])
async def test_a_quick_match_cancelled_while_its_node_cannot_hear_the_player_still_tells_them(
    clean_redis: str, link: Link, rated: bool
) -> None:
    async with running_node(clean_redis) as node_a, running_node(link.url) as node_b:
        bob = Racer(await ws_connect(node_b.url, compression=None))
        welcome = await bob.request({"type": "hello", "name": "bob"})
        bob.player_id = welcome["player_id"]
        token = welcome["token"]
        if rated:
            account = await bob.request(
                {"type": "register", "username": "bob_q", "password": "a long password"}
            )
            assert account["type"] == "account"
            token = account["token"]  # the guest's stopped working
        here = await second_session(node_a.url, bob, {"type": "hello", "token": token})
        try:
            queued = await bob.request({"type": "quick_match", "game": "treize"})
            assert queued["type"] == "queued" and queued["rated"] is rated, queued
            link.cut()
            assert (await here.request({"type": "cancel_quick_match"}))["type"] == "ok"
            told_here = await here.event("quick_match_left")
            link.mend()

            told = await bob.event("quick_match_left", timeout=CATCH_UP)
            assert (
                told
                == told_here
                == {
                    "type": "quick_match_left",
                    "game": "treize",
                    "ticket": queued["ticket"],
                    "reason": "cancelled",
                    "message": "you cancelled the quick match",
                }
            )
        finally:
            await close_all(bob, here)


async def test_a_sign_out_given_while_a_node_cannot_hear_its_player_closes_their_sessions_there(
    clean_redis: str, link: Link
) -> None:
    async with running_node(clean_redis) as node_a, running_node(link.url) as node_b:
        (bob,) = await racers(node_b.url, "bob")
        password = "a long password"
        assert (await bob.request({"type": "register", "username": "bob_s", "password": password}))[
            "type"
        ] == "account"
        here = await second_session(
            node_a.url, bob, {"type": "login", "username": "bob_s", "password": password}
        )
        try:
            link.cut()
            change = {"type": "change_password", "old_password": password, "new_password": "another long one"}
            assert (await here.request(change))["type"] == "ok"  # signs out Bob's other sign-ins
            link.mend()

            with pytest.raises(ConnectionClosed):
                await bob.event("never sent", timeout=CATCH_UP)
            assert bob.ws.close_reason == SIGNED_OUT_ELSEWHERE
            # Bob's sign-in here stays.
            assert (await here.request({"type": "list_races"}))["type"] == "race_list"
        finally:
            await close_all(bob, here)


async def close_all(*racers: Racer) -> None:
    for racer in racers:
        await racer.ws.close()


async def viewer(url: str) -> Racer:
    """A raw connection that only looks on (a spectator)."""
    racer = Racer(await ws_connect(url, compression=None))
    welcome = await racer.request({"type": "hello", "viewer": True})
    assert welcome["type"] == "welcome", welcome
    return racer

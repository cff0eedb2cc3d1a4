"""Spectating live races, against real nodes and Redis, asserting on the raw frames."""

from __future__ import annotations

import asyncio
import json
import socket
import time

import pytest
from websockets.asyncio.client import connect as ws_connect

from server.app import ArenaServer
from tests.server.conftest import running_node
from tests.server.rawclient import Frame, Racer, racers

pytestmark = pytest.mark.asyncio


async def counting_race(
    a: Racer, b: Racer, game: str = "eight-off", rated: bool = False, time_limit: float = 60.0
) -> str:
    """a creates, b joins, both ready; returns the race id as its countdown begins."""
    created = await a.request({"type": "create_race", "game": game, "time_limit": time_limit, "rated": rated})
    race = created["race"]
    joined = await b.request({"type": "join_race", "code": race["code"]})
    assert joined["type"] == "race", joined
    for racer in (a, b):
        assert (await racer.request({"type": "ready", "race_id": race["race_id"]}))["type"] == "ok"
    return str(race["race_id"])


async def raw_race(
    a: Racer, b: Racer, game: str = "eight-off", rated: bool = False, time_limit: float = 60.0
) -> tuple[str, Frame]:
    """a creates, b joins, both ready; returns the race id and a's race_started."""
    race_id = await counting_race(a, b, game, rated, time_limit)
    started = await a.event("race_started")
    await b.event("race_started")
    return race_id, started


def own_view(ack: Frame) -> Frame:
    """A racer's view as a spectator must see it: the same, without the racer's own
    move list and undo flag (which only the racer asked for)."""
    return {k: v for k, v in ack["view"].items() if k not in ("legal_moves", "can_undo")}


async def play(racer: Racer, race_id: str, seq: int, legal: list[str]) -> Frame:
    """Play the first legal move that is not an undo; returns the ack."""
    move = next(m for m in legal if m != "undo")
    ack = await racer.request({"type": "move", "race_id": race_id, "seq": seq, "move": move})
    assert ack["type"] == "move_ack", ack
    return ack


async def register(racer: Racer, username: str) -> None:
    answer = await racer.request({"type": "register", "username": username, "password": "correct horse 9"})
    assert answer["type"] == "account", answer


async def test_a_spectator_on_another_node_sees_every_move_as_each_racer_sees_it(
    arena: ArenaServer, clean_redis: str
) -> None:
    ada, bob = await racers(arena.url, "ada", "bob")
    async with running_node(clean_redis) as other:
        (sam,) = await racers(other.url, "sam")
        race_id, started = await raw_race(ada, bob)
        watching = await sam.request({"type": "watch", "race_id": race_id})
        assert watching["type"] == "watching" and watching["race"]["race_id"] == race_id
        assert watching["featured"] is False and watching["delay_ms"] == 0
        assert "seed" not in watching["race"] and "salt" not in watching["race"]
        opening = {k: v for k, v in started["view"].items() if k not in ("legal_moves", "can_undo")}
        assert [b["view"] for b in watching["boards"]] == [opening, opening]
        assert {b["player_id"] for b in watching["boards"]} == {ada.player_id, bob.player_id}
        legal = {ada.player_id: started["view"]["legal_moves"], bob.player_id: started["view"]["legal_moves"]}
        for seq in range(1, 6):
            for racer in (ada, bob):
                ack = await play(racer, race_id, seq, legal[racer.player_id])
                legal[racer.player_id] = ack["view"]["legal_moves"]
                seen = await sam.event("watch_move")
                assert (seen["player_id"], seen["seq"], seen["move"]) == (
                    racer.player_id,
                    seq,
                    ack["result"]["move"],
                )
                assert seen["view"] == own_view(ack)
        for racer in (ada, bob):
            await racer.request({"type": "finish", "race_id": race_id})
        ended = await sam.event("race_ended")
        assert ended["summary"]["race_id"] == race_id and ended["summary"]["seed"] is not None
        for racer in (ada, bob):
            # A racer's connection never carries another racer's board.
            kinds = {frame["type"] for frame in racer.events}
            assert not kinds & {"watch_move", "watching"}
            assert all("view" not in frame for frame in racer.events if frame["type"] == "progress")


async def test_the_snapshot_names_each_racers_last_move_shown(arena: ArenaServer, clean_redis: str) -> None:
    ada, bob, sam, cy = await racers(arena.url, "ada", "bob", "sam", "cy")
    async with running_node(clean_redis) as other:
        (dee,) = await racers(other.url, "dee")
        race_id, started = await raw_race(ada, bob)
        before = await sam.request({"type": "watch", "race_id": race_id})
        assert [b["seq"] for b in before["boards"]] == [0, 0]
        assert all("last_move" not in b for b in before["boards"]), before["boards"]
        legal = started["view"]["legal_moves"]
        played = []
        for seq in range(1, 4):
            ack = await play(ada, race_id, seq, legal)
            legal = ack["view"]["legal_moves"]
            played.append(ack["result"]["move"])
            assert (await sam.event("watch_move"))["move"] == played[-1]
        # Ada takes her last move back: the last move is the undo, as its watch_move says.
        undone = await ada.request({"type": "move", "race_id": race_id, "seq": 4, "move": "undo"})
        assert undone["type"] == "move_ack", undone
        assert (await sam.event("watch_move"))["move"] == "undo"
        # A spectator joining this node's hub, and one on a node that replays the log.
        for spectator in (cy, dee):
            watching = await spectator.request({"type": "watch", "race_id": race_id})
            boards = {b["player_id"]: b for b in watching["boards"]}
            assert boards[ada.player_id]["seq"] == 4
            assert boards[ada.player_id]["last_move"] == "undo"
            assert "last_move" not in boards[bob.player_id]  # no move yet
        ack = await play(ada, race_id, 5, undone["view"]["legal_moves"])
        assert (await dee.event("watch_move"))["move"] == ack["result"]["move"]
        fresh = await dee.request({"type": "watch", "race_id": race_id})
        boards = {b["player_id"]: b for b in fresh["boards"]}
        assert (boards[ada.player_id]["seq"], boards[ada.player_id]["last_move"]) == (
            5,
            ack["result"]["move"],
        )


async def test_spectators_on_every_node_are_told_a_racers_new_name_and_later_ones_see_it(
    arena: ArenaServer, clean_redis: str
) -> None:
    ada, bob, sam, tom = await racers(arena.url, "ada", "bob", "sam", "tom")
    async with running_node(clean_redis) as other:
        (dee,) = await racers(other.url, "dee")
        race_id, _ = await raw_race(ada, bob)
        for spectator in (sam, dee):  # this node's hub, and another node's
            assert (await spectator.request({"type": "watch", "race_id": race_id}))["type"] == "watching"
        assert (await ada.request({"type": "rename", "name": "ada two"}))["type"] == "renamed"
        await register(bob, "bob_account")  # a guest who registers goes by the username
        for spectator in (sam, dee):
            assert [await spectator.event("racer_renamed") for _ in range(2)] == [
                {"type": "racer_renamed", "race_id": race_id, "player_id": ada.player_id, "name": "ada two"},
                {
                    "type": "racer_renamed",
                    "race_id": race_id,
                    "player_id": bob.player_id,
                    "name": "bob_account",
                    "rating": 1500,  # an account's, provisional before its first rated race
                    "provisional": True,
                },
            ]
        # Tom joins the hub that was open all along: his snapshot has the new names.
        watching = await tom.request({"type": "watch", "race_id": race_id})
        assert [r["name"] for r in watching["race"]["racers"]] == ["ada two", "bob_account"]


async def test_a_racer_cannot_watch_the_race_they_are_in(arena: ArenaServer) -> None:
    ada, bob = await racers(arena.url, "ada", "bob")
    race_id, _ = await raw_race(ada, bob)
    refused = await bob.request({"type": "watch", "race_id": race_id})
    assert refused["type"] == "error" and refused["code"] == "own_race"
    assert "hidden cards" in refused["message"]


async def test_a_racer_watching_their_race_once_it_is_over_is_told_so_as_anyone_is(
    arena: ArenaServer,
) -> None:
    ada, bob = await racers(arena.url, "ada", "bob")
    race_id, _ = await raw_race(ada, bob)
    for racer in (ada, bob):
        await racer.request({"type": "finish", "race_id": race_id})
    await ada.event("race_ended")
    refused = await ada.request({"type": "watch", "race_id": race_id})
    assert (refused["type"], refused["code"]) == ("error", "race_over")
    assert refused["message"] == "the race is over: replay it instead"


async def test_racers_see_how_many_people_watch(arena: ArenaServer) -> None:
    ada, bob, sam, tom = await racers(arena.url, "ada", "bob", "sam", "tom")
    race_id, _ = await raw_race(ada, bob)
    for spectator in (sam, tom):
        assert (await spectator.request({"type": "watch", "race_id": race_id}))["type"] == "watching"
    while (event := await ada.event("spectators"))["count"] != 2:
        pass
    assert event == {"type": "spectators", "race_id": race_id, "count": 2}
    info = await bob.request({"type": "get_race", "race_id": race_id})
    assert info["race"]["spectators"] == 2
    assert (await sam.request({"type": "unwatch"}))["type"] == "ok"
    while (await ada.event("spectators"))["count"] != 1:
        pass
    live = await tom.request({"type": "list_live"})
    assert [(r["race_id"], r["spectators"]) for r in live["races"]] == [(race_id, 1)]


async def test_the_live_list_shows_each_races_racers_boards_and_spectators_best_first(
    arena: ArenaServer,
) -> None:
    ada, bob, cy, dee, eve, fay, sam = await racers(arena.url, "ada", "bob", "cy", "dee", "eve", "fay", "sam")
    first, started = await raw_race(ada, bob)
    watched, _ = await raw_race(cy, dee, game="treize")
    newest, _ = await raw_race(eve, fay)
    ack = await play(ada, first, 1, started["view"]["legal_moves"])
    ack = await play(ada, first, 2, ack["view"]["legal_moves"])
    assert (await sam.request({"type": "watch", "race_id": watched}))["type"] == "watching"

    live = (await sam.request({"type": "list_live"}))["races"]
    # No racer is rated: the most watched first, then the newest.
    assert [r["race_id"] for r in live] == [watched, newest, first]
    assert [r["spectators"] for r in live] == [1, 0, 0]
    assert [r["game"] for r in live] == ["treize", "eight-off", "eight-off"]
    assert [[racer["name"] for racer in r["racers"]] for r in live] == [
        ["cy", "dee"],
        ["eve", "fay"],
        ["ada", "bob"],
    ]
    moved = {racer["name"]: racer for racer in live[2]["racers"]}
    assert (moved["ada"]["move_count"], moved["ada"]["score"]) == (2, ack["result"]["score"])
    assert moved["ada"]["cards_left"] == 52 - ack["result"]["score"]
    assert (moved["bob"]["move_count"], moved["bob"]["score"]) == (0, 0)

    eight_off = (await sam.request({"type": "list_live", "game": "eight-off"}))["races"]
    assert [r["race_id"] for r in eight_off] == [newest, first]


async def test_a_rated_race_reaches_spectators_only_after_the_delay(clean_redis: str) -> None:
    delay_ms = 2000  # long enough for three moves and the watch, on a loaded machine too
    async with running_node(clean_redis, spectator_delay=delay_ms / 1000) as node:
        ada, bob, sam = await racers(node.url, "ada", "bob", "sam")
        await register(ada, "ada_rated")
        await register(bob, "bob_rated")
        race_id, started = await raw_race(ada, bob, rated=True)
        legal = started["view"]["legal_moves"]
        played_at: list[float] = []
        for seq in range(1, 4):
            played_at.append(time.time() * 1000)  # before the move is sent: no later than its time
            ack = await play(ada, race_id, seq, legal)
            legal = ack["view"]["legal_moves"]
        watching = await sam.request({"type": "watch", "race_id": race_id})
        assert watching["delay_ms"] == delay_ms and watching["race"]["delay_ms"] == delay_ms
        # The moves just played are not in the snapshot: it is as of the delay ago.
        assert {b["player_id"]: b["seq"] for b in watching["boards"]} == {ada.player_id: 0, bob.player_id: 0}
        for seq in range(1, 4):
            seen = await sam.event("watch_move", timeout=10)
            received = time.time() * 1000
            assert seen["seq"] == seq
            assert received >= seen["at"] + delay_ms
            assert received >= played_at[seq - 1] + delay_ms  # by the test's own clock too


async def test_a_delayed_snapshot_names_the_last_move_as_of_the_delay_not_a_newer_one(
    clean_redis: str,
) -> None:
    delay_ms = 750
    async with running_node(clean_redis, spectator_delay=delay_ms / 1000) as node:
        ada, bob, sam = await racers(node.url, "ada", "bob", "sam")
        await register(ada, "ada_delayed")
        await register(bob, "bob_delayed")
        race_id, started = await raw_race(ada, bob, rated=True)
        legal = started["view"]["legal_moves"]
        played = []
        for seq in range(1, 3):
            ack = await play(ada, race_id, seq, legal)
            legal = ack["view"]["legal_moves"]
            played.append(ack["result"]["move"])
        await asyncio.sleep(delay_ms / 1000 + 0.4)  # moves 1 and 2 are shown by now
        newer = next(m for m in legal if m not in ("undo", played[-1]))
        ack = await ada.request({"type": "move", "race_id": race_id, "seq": 3, "move": newer})
        assert ack["type"] == "move_ack", ack
        watching = await sam.request({"type": "watch", "race_id": race_id})
        boards = {b["player_id"]: b for b in watching["boards"]}
        assert boards[ada.player_id]["seq"] == 2
        assert boards[ada.player_id]["last_move"] == played[1] != ack["result"]["move"]
        assert "last_move" not in boards[bob.player_id]
        seen = await sam.event("watch_move", timeout=10)
        assert (seen["seq"], seen["move"]) == (3, ack["result"]["move"])


async def test_the_featured_watch_follows_the_best_race_and_moves_on_when_it_ends(arena: ArenaServer) -> None:
    ada, bob, cy, dee, sam = await racers(arena.url, "ada", "bob", "cy", "dee", "sam")
    first, _ = await raw_race(ada, bob)
    second, _ = await raw_race(cy, dee)
    # The newest race is featured among equals (nobody is rated).
    featured = await sam.request({"type": "watch"})
    assert featured["type"] == "watching" and featured["featured"] is True
    assert featured["race"]["race_id"] == second
    for racer in (cy, dee):
        await racer.request({"type": "finish", "race_id": second})
    assert (await sam.event("race_ended"))["race_id"] == second
    moved = await sam.event("watching")
    assert "id" not in moved and moved["featured"] is True and moved["race"]["race_id"] == first
    for racer in (ada, bob):
        await racer.request({"type": "finish", "race_id": first})
    assert (await sam.event("race_ended"))["race_id"] == first
    waiting = await sam.event("watching")
    assert waiting["featured"] is True and "race" not in waiting
    third, _ = await raw_race(ada, bob)
    found = await sam.event("watching")
    assert found["race"]["race_id"] == third


async def test_a_spectator_that_stops_reading_is_dropped_and_racers_go_on(clean_redis: str) -> None:
    async with running_node(
        clean_redis, spectator_buffer=2_000, rate_limit=100_000, rate_burst=100_000
    ) as node:
        ada, bob = await racers(node.url, "ada", "bob")
        race_id, started = await raw_race(ada, bob)
        tiny = socket.create_connection(("127.0.0.1", node.port))
        tiny.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # the kernel holds little for it
        slow = await ws_connect(node.url, sock=tiny, compression=None, max_queue=1)
        await slow.send(json.dumps({"type": "hello", "id": 1, "name": "slow"}))
        await slow.recv()
        await slow.send(json.dumps({"type": "watch", "id": 2, "race_id": race_id}))
        await slow.recv()
        slow.transport.pause_reading()  # reads nothing more: the server's buffer to it fills
        legal = started["view"]["legal_moves"]
        seq = 0
        dropped = node.metrics.slow_spectators
        while dropped._value.get() == 0 and seq < 3000:  # prometheus' own counter
            seq += 1
            ack = await ada.request(
                {"type": "move", "race_id": race_id, "seq": seq, "move": _back_and_forth(legal, seq)}
            )
            assert ack["type"] == "move_ack", ack
            legal = ack["view"]["legal_moves"]
        assert dropped._value.get() == 1
        assert node.spectators is not None and node.spectators.count == 0
        # The racers go on as before.
        ack = await ada.request(
            {"type": "move", "race_id": race_id, "seq": seq + 1, "move": _back_and_forth(legal, seq + 1)}
        )
        assert ack["type"] == "move_ack"
        # bob never read ada's progress events: his client stopped reading, so drop the
        # connections rather than wait for closing handshakes.
        for ws in (slow, ada.ws, bob.ws):
            ws.transport.abort()


def _back_and_forth(legal: list[str], seq: int) -> str:
    """A move, then its undo, over and over (Eight Off undoes anything)."""
    if seq % 2 == 0 and "undo" in legal:
        return "undo"
    return next(m for m in legal if m != "undo")


async def test_a_watcher_is_counted_at_once_by_itself_and_everyone_watching_on_every_node(
    arena: ArenaServer, clean_redis: str
) -> None:
    ada, bob, sam, tom = await racers(arena.url, "ada", "bob", "sam", "tom")
    async with running_node(clean_redis) as other:
        (dee,) = await racers(other.url, "dee")
        race_id, _ = await raw_race(ada, bob)
        assert (await sam.request({"type": "watch", "race_id": race_id}))["race"]["spectators"] == 1
        # Tom joins sam's node: his first count has him in it, and sam and the racers
        # hear of him within a moment.
        started = time.monotonic()
        assert (await tom.request({"type": "watch", "race_id": race_id}))["race"]["spectators"] == 2
        assert (await sam.event("spectators", timeout=3.0))["count"] == 2
        assert [(await ada.event("spectators", timeout=3.0))["count"] for _ in range(2)] == [1, 2]
        # Counts go out at most every 0.25 s: "at once" is well within three seconds, even
        # on a loaded machine.
        assert time.monotonic() - started < 3.0
        # Dee joins on another node: counted there with both of them, and here at once.
        assert (await dee.request({"type": "watch", "race_id": race_id}))["race"]["spectators"] == 3
        assert (await sam.event("spectators", timeout=3.0))["count"] == 3
        assert (await tom.event("spectators", timeout=3.0))["count"] == 3  # never a stale 2 first
        assert (await ada.event("spectators", timeout=3.0))["count"] == 3
        # A departure too: dee's node and sam's node both count tom out.
        assert (await tom.request({"type": "unwatch"}))["type"] == "ok"
        assert (await sam.event("spectators", timeout=3.0))["count"] == 2
        assert (await dee.event("spectators", timeout=3.0))["count"] == 2
        while (await bob.event("spectators", timeout=3.0))["count"] != 2:
            pass
        assert not [f for f in sam.events + dee.events if f["type"] == "spectators"]


# ----- the countdown: nobody sees the deal before the start ----------------------------


async def watch_raw(spectator: Racer, race_id: str) -> None:
    await spectator.ws.send(json.dumps({"type": "watch", "id": 1, "race_id": race_id}))


async def raw_frames_until(spectator: Racer, kind: str, timeout: float = 5.0) -> list[tuple[str, float]]:
    """Every frame the spectator receives, as sent (JSON text), with when it came (ms),
    up to the first ``kind`` included."""
    frames: list[tuple[str, float]] = []
    while True:
        raw = await asyncio.wait_for(spectator.ws.recv(), timeout)
        assert isinstance(raw, str)
        frames.append((raw, time.time() * 1000))
        if json.loads(raw)["type"] == kind:
            return frames


def dealt_cards(view: Frame) -> set[str]:
    return {card for pile in view["piles"].values() for card in pile["cards"]}


def without_legal(view: Frame) -> Frame:
    return {k: v for k, v in view.items() if k not in ("legal_moves", "can_undo")}


def assert_no_deal_before_the_start(
    frames: list[tuple[str, float]], racers: list[Racer], started: Frame
) -> None:
    """The countdown's snapshot names the racers with no view, no frame before the start
    carries a card of the deal, and the start carries the deal as dealt."""
    snapshot = json.loads(frames[0][0])
    assert snapshot["type"] == "watching" and snapshot["race"]["status"] == "countdown"
    assert [r["player_id"] for r in snapshot["race"]["racers"]] == [r.player_id for r in racers]
    assert all(r["ready"] for r in snapshot["race"]["racers"])
    assert snapshot["boards"] == [
        {"player_id": r.player_id, "seq": 0, "finished": False, "won": False} for r in racers
    ]
    dealt = dealt_cards(started["view"])
    assert len(dealt) == 52  # Eight Off deals every card face up
    before = [raw for raw, _at in frames[:-1]]
    assert [raw for raw in before if '"view"' in raw or any(f'"{card}"' in raw for card in dealt)] == []
    start = json.loads(frames[-1][0])
    assert start["type"] == "race_started" and without_legal(start["view"]) == without_legal(started["view"])


async def test_a_spectator_of_the_countdown_on_any_node_gets_no_card_of_the_deal_before_the_start(
    clean_redis: str,
) -> None:
    async with (
        running_node(clean_redis, countdown=0.8) as node,
        running_node(clean_redis, countdown=0.8) as other,
    ):
        ada, bob, sam = await racers(node.url, "ada", "bob", "sam")
        (dee,) = await racers(other.url, "dee")
        race_id = await counting_race(ada, bob)
        for spectator in (sam, dee):  # this node's hub and one replaying the race elsewhere
            await watch_raw(spectator, race_id)
        seen = [await raw_frames_until(spectator, "race_started") for spectator in (sam, dee)]
        started = await ada.event("race_started")
        for frames in seen:
            assert_no_deal_before_the_start(frames, [ada, bob], started)
        # From the start a snapshot has the boards as dealt, on either node.
        opening = without_legal(started["view"])
        for spectator in (sam, dee):
            fresh = await spectator.request({"type": "watch", "race_id": race_id})
            assert [b["view"] for b in fresh["boards"]] == [opening, opening]


async def test_a_rated_races_spectators_see_the_boards_only_when_the_delayed_start_reaches_them(
    clean_redis: str,
) -> None:
    delay_ms = 1000
    async with running_node(clean_redis, countdown=0.5, spectator_delay=delay_ms / 1000) as node:
        ada, bob, sam, tom = await racers(node.url, "ada", "bob", "sam", "tom")
        await register(ada, "ada_counting")
        await register(bob, "bob_counting")
        race_id = await counting_race(ada, bob, rated=True)
        await watch_raw(sam, race_id)
        started = await ada.event("race_started")
        # Started for the racers, not yet for spectators: a new snapshot has no board either.
        late = await tom.request({"type": "watch", "race_id": race_id})
        assert late["race"]["status"] == "countdown" and all("view" not in b for b in late["boards"])
        frames = await raw_frames_until(sam, "race_started")
        assert_no_deal_before_the_start(frames, [ada, bob], started)
        assert frames[-1][1] >= started["starts_at"] + delay_ms
        fresh = await tom.request({"type": "watch", "race_id": race_id})
        assert fresh["race"]["status"] == "running"
        assert [b["view"] for b in fresh["boards"]] == [without_legal(started["view"])] * 2


# ----- the fog rule: a board ahead of the others is held, and spectators are told ------


async def watch_frames(spectator: Racer, last: Frame) -> list[Frame]:
    """The frames the spectator receives (counts left out), up to the first with every
    field of ``last``."""
    frames: list[Frame] = []
    while not frames or not last.items() <= frames[-1].items():
        raw = await asyncio.wait_for(spectator.ws.recv(), 5.0)
        assert isinstance(raw, str)
        frame = json.loads(raw)
        if frame["type"] != "spectators":
            frames.append(frame)
    return frames


async def test_spectators_are_told_when_a_treize_board_is_held_for_cards_others_have_not_seen(
    arena: ArenaServer, clean_redis: str
) -> None:
    """Ada turns up a stock card bob has not: her board stops for spectators, who are told
    so (and a spectator joining then, on this node or another, finds it in the snapshot);
    once bob turns it up too, they are told it goes on, then get her move."""
    ada, bob, sam, tom = await racers(arena.url, "ada", "bob", "sam", "tom")
    async with running_node(clean_redis) as other:
        (dee,) = await racers(other.url, "dee")
        race_id, _ = await raw_race(ada, bob, game="treize")
        assert (await sam.request({"type": "watch", "race_id": race_id}))["type"] == "watching"
        moved = await ada.request({"type": "move", "race_id": race_id, "seq": 1, "move": "deal"})
        assert moved["type"] == "move_ack", moved
        held = {"type": "watch_held", "race_id": race_id, "player_id": ada.player_id, "held": True}
        assert await watch_frames(sam, held) == [held]
        for spectator in (tom, dee):
            watching = await spectator.request({"type": "watch", "race_id": race_id})
            boards = {b["player_id"]: b for b in watching["boards"]}
            assert (boards[ada.player_id]["held"], boards[ada.player_id]["seq"]) == (True, 0)
            assert "held" not in boards[bob.player_id]
        moved = await bob.request({"type": "move", "race_id": race_id, "seq": 1, "move": "deal"})
        assert moved["type"] == "move_ack", moved
        for spectator in (sam, tom, dee):
            frames = await watch_frames(spectator, {"type": "watch_move", "player_id": bob.player_id})
            assert [(f["type"], f["player_id"], f.get("held", f.get("seq"))) for f in frames] == [
                ("watch_held", ada.player_id, False),
                ("watch_move", ada.player_id, 1),
                ("watch_move", bob.player_id, 1),
            ]
            assert frames[0] == {**held, "held": False}
        fresh = await dee.request({"type": "watch", "race_id": race_id})
        assert [("held" in b, b["seq"]) for b in fresh["boards"]] == [(False, 1), (False, 1)]

"""Races end to end: real server, real Redis, real WebSocket connections."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Callable
from typing import Any

import pytest
from websockets.asyncio.client import connect as ws_connect

from client.sdk import ArenaClient, ArenaError
from server.app import ArenaServer
from server.features import quick_match as matchmaking
from server.store.keys import race_channel
from shared import FULL_DECK, new_game, replay
from shared.protocol import (
    BoardView,
    MatchFound,
    Progress,
    RaceCountdown,
    RaceEnded,
    RaceStarted,
    RaceUpdate,
)
from shared.record import read_record, verify_record
from tests.redis_direct import listening, sync_redis
from tests.server.conftest import WINNABLE_SEED, Connect, running_node
from tests.server.helpers import start_race
from tests.server.rawclient import racers, resumed
from tests.server.solver import solve


async def test_two_racers_get_the_same_deal_and_the_winner_ranks_first(
    arena: ArenaServer, connect: Connect
) -> None:
    race = await start_race(await connect(arena.url), await connect(arena.url, binary=False))
    assert race.view == BoardView.model_validate(new_game("eight-off", WINNABLE_SEED).view())
    bob_view = (await race.bob.get_race(race.race_id)).board
    assert bob_view is not None and bob_view.view == race.view

    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None
    await race.bob.move(race.race_id, line[0])  # bob makes one move, then gives up
    for move in line[:-1]:
        ack = await race.ada.move(race.race_id, move)
        assert not ack.finished
    last = await race.ada.move(race.race_id, line[-1])
    assert last.finished and last.result.won and last.view.won

    progress = await race.bob.wait_for(Progress, lambda p: p.finished)
    assert progress.player_id == race.ada.player_id and progress.won
    assert progress.cards_left == 0 and progress.move_count == len(line)
    await race.bob.finish(race.race_id)

    ended = await race.bob.wait_for(RaceEnded)
    standings = ended.summary.standings
    assert [s.player_id for s in standings] == [race.ada.player_id, race.bob.player_id]
    assert standings[0].won and standings[0].time_ms is not None
    assert standings[0].score == 52 and standings[1].score == 1
    assert (await race.ada.results(race.race_id)) == ended.summary


async def test_racers_see_progress_but_never_each_others_cards(arena: ArenaServer, connect: Connect) -> None:
    race = await start_race(await connect(arena.url), await connect(arena.url))
    assert race.bob.token is not None
    move = new_game("eight-off", WINNABLE_SEED).legal_moves()[0]
    # Bob's frames are read raw: a model that ignores unknown fields would hide a leak.
    async with ws_connect(arena.url, compression=None) as raw:
        await raw.send(json.dumps({"type": "hello", "id": 1, "token": race.bob.token}))
        assert json.loads(await raw.recv())["type"] == "welcome"
        await race.ada.move(race.race_id, move)
        frame = await asyncio.wait_for(raw.recv(), 5)
    assert isinstance(frame, str)
    progress = json.loads(frame)
    assert set(progress) == {
        "type", "race_id", "player_id", "score", "cards_left", "move_count", "finished", "won"
    }  # fmt: skip
    assert progress["type"] == "progress" and progress["player_id"] == race.ada.player_id
    assert progress["move_count"] == 1
    assert not any(card in frame for card in FULL_DECK)
    info = await race.bob.get_race(race.race_id)
    ada = next(r for r in info.racers if r.player_id == race.ada.player_id)
    assert ada.move_count == 1
    assert info.board is not None and info.board.seq == 0  # bob's own board only
    assert info.seed is None and info.salt is None


async def test_seed_is_committed_at_the_start_and_revealed_at_the_end_so_the_log_replays(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, bob = await connect(arena.url), await connect(arena.url)
    await ada.hello(name="ada")
    await bob.hello(name="bob")
    created = await ada.create_race("eight-off")
    # Committed from the creation on, before any racer reveals a seed share.
    assert created.commitment is not None and created.seed is None
    await bob.join_race(created.code)
    await ada.ready(created.race_id)
    await bob.ready(created.race_id)
    countdown = await bob.wait_for(RaceCountdown)
    await bob.wait_for(RaceStarted)
    with pytest.raises(ArenaError) as early:
        await bob.move_log(created.race_id)
    assert early.value.code == "race_not_over"

    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None
    for move in line[:5]:
        await ada.move(created.race_id, move)
    for move in line[:3]:
        await bob.move(created.race_id, move)
    await ada.finish(created.race_id)
    await bob.finish(created.race_id)
    ended = await bob.wait_for(RaceEnded)

    summary = ended.summary
    digest = f"solitaire-arena:eight-off:{summary.seed}:{summary.salt}".encode()
    assert hashlib.sha256(digest).hexdigest() == countdown.commitment == summary.commitment
    log = await bob.move_log(created.race_id)
    assert log.seed == summary.seed
    for racer in (ada, bob):
        moves = [m.move for m in log.moves if m.player_id == racer.player_id]
        board = replay(log.game, log.seed, moves)
        standing = next(s for s in summary.standings if s.player_id == racer.player_id)
        assert board.score == standing.score and board.move_count == standing.move_count
    info = await ada.get_race(created.race_id)
    assert info.status == "finished" and info.seed == summary.seed


async def test_time_limit_ends_the_race_with_nobody_sending_anything(
    arena: ArenaServer, connect: Connect
) -> None:
    race = await start_race(await connect(arena.url), await connect(arena.url), time_limit=1.0)
    move = new_game("eight-off", WINNABLE_SEED).legal_moves()[0]
    await race.bob.move(race.race_id, move)
    ended = await race.ada.wait_for(RaceEnded, timeout=5)
    assert ended.summary.ended_at >= race.ends_at
    assert ended.summary.standings[0].player_id == race.bob.player_id
    with pytest.raises(ArenaError) as late:
        await race.ada.move(race.race_id, move)
    assert late.value.code == "race_over"


async def test_a_race_everyone_finished_ends_at_once_even_when_the_first_try_to_end_it_fails(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The node that saw the last racer finish fails to end the race (its store call
    failed): the clock, finding everyone done, ends it then, not at its time limit."""
    assert arena.store is not None
    races = arena.store.races
    begin_end = races.begin_end
    failures = [ConnectionError("the store went away for a moment")]

    async def fails_once(race_id: str, now: int) -> bool:
        if failures:
            raise failures.pop()
        return await begin_end(race_id, now)

    race = await start_race(await connect(arena.url), await connect(arena.url), time_limit=600.0)
    monkeypatch.setattr(races, "begin_end", fails_once)
    await race.ada.finish(race.race_id)
    await race.bob.finish(race.race_id)
    ended = await race.ada.wait_for(RaceEnded, timeout=5)
    assert not failures  # the first try did fail
    assert ended.summary.ended_at < race.ends_at - 500_000


async def test_the_results_say_who_gave_up_apart_from_who_played_to_the_time_limit(
    arena: ArenaServer,
) -> None:
    """ada wins, bob moves once and gives up, cyd moves once and is still playing when the
    time runs out: only bob's standing says ``gave_up``, in ``race_ended`` as in
    ``get_results``; the record (which cannot tell the two apart) still verifies."""
    ada, bob, cyd = await racers(arena.url, "ada", "bob", "cyd")
    race = (await ada.request({"type": "create_race", "game": "eight-off", "seats": 3, "time_limit": 1.5}))[
        "race"
    ]
    race_id = race["race_id"]
    for racer in (bob, cyd):
        assert (await racer.request({"type": "join_race", "code": race["code"]}))["type"] == "race"
    for racer in (ada, bob, cyd):
        assert (await racer.request({"type": "ready", "race_id": race_id}))["type"] == "ok"
    started = [await racer.event("race_started") for racer in (ada, bob, cyd)]
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None
    for racer in (bob, cyd):
        ack = await racer.request({"type": "move", "race_id": race_id, "seq": 1, "move": line[0]})
        assert ack["type"] == "move_ack"
    assert (await bob.request({"type": "finish", "race_id": race_id}))["type"] == "ok"
    for seq, move in enumerate(line, start=1):
        ack = await ada.request({"type": "move", "race_id": race_id, "seq": seq, "move": move})
        assert ack["type"] == "move_ack"
    assert ack["finished"]
    ended = await cyd.event("race_ended", timeout=5)
    standings = ended["summary"]["standings"]
    assert ended["summary"]["ended_at"] >= started[2]["ends_at"]  # cyd played on to the limit
    assert standings[0]["name"] == "ada"  # bob and cyd tie: either may come second
    assert {s["name"]: (s["won"], s["gave_up"]) for s in standings} == {
        "ada": (True, False), "bob": (False, True), "cyd": (False, False)
    }  # fmt: skip
    results = await bob.request({"type": "get_results", "race_id": race_id})
    assert results["summary"]["standings"] == standings
    text = (await cyd.request({"type": "get_record", "race_id": race_id}))["text"]
    verify_record(read_record(text))


async def test_resume_after_disconnect_with_the_token(arena: ArenaServer, connect: Connect) -> None:
    race = await start_race(await connect(arena.url), await connect(arena.url))
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None
    for move in line[:4]:
        last = await race.ada.move(race.race_id, move)
    token = race.ada.token
    assert token is not None
    await race.ada.close()

    again = await connect(arena.url)
    welcome = await again.hello(token=token)
    assert welcome.resumed and welcome.player_id == race.ada.player_id
    assert welcome.races == [race.race_id]
    board = await again.board(race.race_id)
    assert board is not None and board.seq == 4 and board.view == last.view
    resent = await again.move(race.race_id, line[3], seq=4)  # the ack that was lost
    assert resent.seq == 4 and resent.view == last.view
    ack = await again.move(race.race_id, line[4])
    assert ack.seq == 5
    assert (await race.bob.wait_for(Progress, lambda p: p.move_count == 5)).score >= 0


async def test_quick_match_pairs_two_waiting_players(arena: ArenaServer, connect: Connect) -> None:
    ada, bob = await connect(arena.url), await connect(arena.url, binary=False)
    await ada.hello(name="root")  # two guests named after their logins (the CLI's default)
    await bob.hello(name="root")
    assert (await ada.quick_match("treize")).game == "treize"
    await bob.quick_match("treize")
    found_ada = await ada.wait_for(MatchFound)
    found_bob = await bob.wait_for(MatchFound)
    assert found_ada.race.race_id == found_bob.race.race_id
    assert {r.player_id for r in found_ada.race.racers} == {ada.player_id, bob.player_id}
    assert sorted(r.name for r in found_ada.race.racers) == ["root", "root (2)"]
    assert found_ada.race.game == "treize" and found_ada.race.commitment
    started = await ada.wait_for(RaceStarted)
    await bob.wait_for(RaceStarted)
    ack = await bob.move(started.race_id, "deal")
    assert ack.seq == 1
    progress = await ada.wait_for(Progress)
    assert progress.player_id == bob.player_id


@pytest.mark.parametrize("late", [{"bob"}, {"ada", "bob"}], ids=["one_told_late", "both_told_late"])
async def test_a_quick_match_told_after_its_countdown_ended_still_gets_the_start_once(
    arena: ArenaServer, late: set[str]
) -> None:
    """A pairing delivered to a session only after the race's countdown (0.15 s) ended:
    the start was sent to the race's other session here before this one followed it, or
    was published before the node followed the race at all. Each session gets
    ``match_found``, then the start, once."""
    assert arena.fanout is not None
    fanout = arena.fanout
    ada, bob = await racers(arena.url, "ada", "bob")
    late_ids = {r.player_id for name, r in (("ada", ada), ("bob", bob)) if name in late}
    seat = fanout._seat

    async def told_late(session: Any, race: Any, msg: dict[str, Any], matched: bool) -> None:
        if session.player_id in late_ids:
            await asyncio.sleep(0.6)
        await seat(session, race, msg, matched)

    fanout._seat = told_late  # type: ignore[method-assign]
    await ada.request({"type": "quick_match", "game": "treize"})
    await bob.request({"type": "quick_match", "game": "treize"})
    for name, racer in (("ada", ada), ("bob", bob)):
        frames: list[dict[str, Any]] = []
        while len(frames) < 2:
            try:
                frames.append(json.loads(await asyncio.wait_for(racer.ws.recv(), 5)))
            except TimeoutError:
                raise AssertionError(f"{name} was sent only {frames} in time") from None
        assert [frame["type"] for frame in frames] == ["match_found", "race_started"], (name, frames)
        assert frames[1]["race_id"] == frames[0]["race"]["race_id"]
    with pytest.raises(TimeoutError):  # and no second start
        await asyncio.wait_for(ada.ws.recv(), 0.3)
    ack = await bob.request({"type": "move", "race_id": frames[1]["race_id"], "seq": 1, "move": "deal"})
    assert ack["type"] == "move_ack", ack
    await ada.ws.close()
    await bob.ws.close()


@pytest.mark.parametrize("how", ["leaves", "is_gone_past_the_grace"])
async def test_the_last_racer_not_ready_going_starts_the_racers_left_all_ready(
    clean_redis: str, how: str
) -> None:
    """Three seats: ada and bob ready, cyd not. Once cyd leaves the lobby (or stays away
    past the lobby grace), the two left are all ready: the countdown begins, as a ready
    would have begun it."""
    async with running_node(clean_redis, lobby_grace=0.3) as node:
        ada, bob, cyd = await racers(node.url, "ada", "bob", "cyd")
        race = (await ada.request({"type": "create_race", "game": "treize", "seats": 3}))["race"]
        for racer in (bob, cyd):
            assert (await racer.request({"type": "join_race", "code": race["code"]}))["type"] == "race"
        for racer in (ada, bob):
            assert (await racer.request({"type": "ready", "race_id": race["race_id"]}))["type"] == "ok"
        if how == "leaves":
            left = await cyd.request({"type": "leave_race", "race_id": race["race_id"]})
            assert left["type"] == "ok", left
        else:
            await cyd.ws.close()
        for racer in (ada, bob):
            countdown = await racer.event("race_countdown", timeout=5)
            assert countdown["race_id"] == race["race_id"]
            update = next(e for e in reversed(racer.events) if e["type"] == "race_update")
            assert [r["name"] for r in update["race"]["racers"]] == ["ada", "bob"]
            assert (await racer.event("race_started", timeout=5))["race_id"] == race["race_id"]
        for racer in (ada, bob, cyd):
            await racer.ws.close()


async def test_list_join_by_code_leave_and_creator_start(arena: ArenaServer, connect: Connect) -> None:
    ada, bob, cyd = [await connect(arena.url) for _ in range(3)]
    for client, name in ((ada, "ada"), (bob, "bob"), (cyd, "cyd")):
        await client.hello(name=name)
    race = await ada.create_race("eagle-wing", seats=3, time_limit=60)
    listed = await cyd.list_races("eagle-wing")
    assert [r.code for r in listed] == [race.code]
    await bob.join_race(race.code.lower())
    update = await ada.wait_for(RaceUpdate)
    assert len(update.race.racers) == 2
    # Before the deal every racer has the deal's cards left: Eagle Wing's base card is home.
    assert [(r.score, r.cards_left) for r in update.race.racers] == [(1, 51), (1, 51)]
    await cyd.join_race(race.code)
    await cyd.leave(race.race_id)
    with pytest.raises(ArenaError) as not_creator:
        await bob.start(race.race_id)
    assert not_creator.value.code == "not_creator"
    await ada.start(race.race_id)
    await bob.wait_for(RaceStarted)
    with pytest.raises(ArenaError) as closed:
        await cyd.join_race(race.code)
    assert closed.value.code == "race_not_open"
    assert closed.value.message == "that race is no longer open: it has started"
    assert await cyd.list_races() == []


async def test_joining_a_race_its_last_racer_left_says_it_was_cancelled(arena: ArenaServer) -> None:
    ada, bob = await racers(arena.url, "ada", "bob")
    race = (await ada.request({"type": "create_race", "game": "treize", "seats": 3}))["race"]
    assert (await ada.request({"type": "leave_race", "race_id": race["race_id"]}))["type"] == "ok"
    refused = await bob.request({"type": "join_race", "code": race["code"]})
    assert refused == {
        "type": "error",
        "id": refused["id"],
        "code": "race_not_open",
        "message": "that race is no longer open: it was cancelled",
    }


async def test_a_joiner_or_leaver_never_gets_the_race_update_of_its_own_move(arena: ArenaServer) -> None:
    """The others hear of a join or a leave; the mover has its reply. The event names the
    mover to be skipped, so whether it reaches them never depends on when their
    following starts or stops."""
    ada, bob = await racers(arena.url, "ada", "bob")
    race = (await ada.request({"type": "create_race", "game": "treize", "seats": 3}))["race"]
    async with listening(arena.settings.redis_url, race_channel(race["race_id"])) as pubsub:
        assert (await bob.request({"type": "join_race", "code": race["code"]}))["type"] == "race"
        joined = await ada.event("race_update")
        assert [r["name"] for r in joined["race"]["racers"]] == ["ada", "bob"]
        assert (await bob.request({"type": "leave_race", "race_id": race["race_id"]}))["type"] == "ok"
        left = await ada.event("race_update")
        assert [r["name"] for r in left["race"]["racers"]] == ["ada"]
        published = []
        while (message := await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.3)) is not None:
            published.append(json.loads(message["data"]))
        assert [(e["msg"]["type"], e["skip"]) for e in published] == [("race_update", bob.player_id)] * 2
    # Events of one channel keep their order: had either reached bob, it would come
    # before the update of ada's ready, the first bob hears.
    await bob.request({"type": "join_race", "code": race["code"]})
    await ada.request({"type": "ready", "race_id": race["race_id"]})
    first = await bob.event("race_update")
    assert [(r["name"], r["ready"]) for r in first["race"]["racers"]] == [("ada", True), ("bob", False)]
    assert [e for e in bob.events if e["type"] == "race_update"] == []


async def test_a_racer_whose_name_only_looks_like_anothers_is_numbered_apart(arena: ArenaServer) -> None:
    """A name with two Cyrillic o's (U+043E) beside "root": spectators could not tell them apart."""
    root, lookalike, spaced = await racers(arena.url, "root", "r\u043e\u043et", "r.o o-t")
    race = (await root.request({"type": "create_race", "game": "treize", "seats": 3}))["race"]
    for racer in (lookalike, spaced):
        assert (await racer.request({"type": "join_race", "code": race["code"]}))["type"] == "race"
    info = await root.request({"type": "get_race", "race_id": race["race_id"]})
    names = [r["name"] for r in info["race"]["racers"]]
    assert names == ["root", "r\u043e\u043et (2)", "r.o o-t (3)"]


async def test_racers_of_one_name_are_told_apart_by_a_number_in_the_race_and_its_results(
    arena: ArenaServer,
) -> None:
    """Names compare in any case; of two joins at once, only one can take the bare name
    (each seat is named in the script that writes it); the players keep their own names."""
    root, first, second = await racers(arena.url, "root", "ROOT", "ROOT")
    race = (await root.request({"type": "create_race", "game": "treize", "seats": 3}))["race"]
    race_id = race["race_id"]
    joins = [racer.request({"type": "join_race", "code": race["code"]}) for racer in (first, second)]
    assert [reply["type"] for reply in await asyncio.gather(*joins)] == ["race", "race"]
    update = await root.event("race_update")
    while len(update["race"]["racers"]) < 3:
        update = await root.event("race_update")
    names = [r["name"] for r in update["race"]["racers"]]
    assert names[0] == "root" and sorted(names[1:]) == ["ROOT (2)", "ROOT (3)"]
    for racer in (root, first, second):
        assert (await racer.request({"type": "ready", "race_id": race_id}))["type"] == "ok"
    await root.event("race_started")
    for racer in (root, first, second):
        assert (await racer.request({"type": "finish", "race_id": race_id}))["type"] == "ok"
    ended = await first.event("race_ended")
    assert sorted(s["name"] for s in ended["summary"]["standings"]) == ["ROOT (2)", "ROOT (3)", "root"]
    profile = await first.request({"type": "get_profile"})
    assert profile["profile"]["name"] == "ROOT"


async def test_a_full_race_turns_away_the_next_racer(arena: ArenaServer, connect: Connect) -> None:
    clients: list[ArenaClient] = [await connect(arena.url) for _ in range(3)]
    for i, client in enumerate(clients):
        await client.hello(name=f"racer{i}")
    race = await clients[0].create_race("treize", seats=2)
    await clients[1].join_race(race.code)
    with pytest.raises(ArenaError) as full:
        await clients[2].join_race(race.code)
    assert full.value.code == "race_full"


async def test_winners_rank_by_time_then_others_by_score_then_who_got_there_first(
    arena: ArenaServer, connect: Connect
) -> None:
    clients = [await connect(arena.url) for _ in range(3)]
    for i, client in enumerate(clients):
        await client.hello(name=f"r{i}")
    race = await clients[0].create_race("eight-off", seats=3)
    for client in clients[1:]:
        await client.join_race(race.code)
    for client in clients:
        await client.ready(race.race_id)
    for client in clients:
        await client.wait_for(RaceStarted)
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None
    scoring = next(i for i in range(len(line)) if replay("eight-off", 2, line[: i + 1]).score)
    # r2 reaches the first point before r1; both then stop at the same score.
    for move in line[: scoring + 1]:
        await clients[2].move(race.race_id, move)
    await asyncio.sleep(0.01)
    for move in line[: scoring + 1]:
        await clients[1].move(race.race_id, move)
    for move in line:
        await clients[0].move(race.race_id, move)
    await clients[1].finish(race.race_id)
    await clients[2].finish(race.race_id)
    ended = await clients[0].wait_for(RaceEnded)
    order = [s.player_id for s in ended.summary.standings]
    assert order == [clients[0].player_id, clients[2].player_id, clients[1].player_id]
    assert [s.rank for s in ended.summary.standings] == [1, 2, 3]


async def test_logs_name_races_and_players_but_never_tokens(
    arena: ArenaServer, connect: Connect, caplog: pytest.LogCaptureFixture
) -> None:
    from server.logs import JsonFormatter

    caplog.set_level("INFO")
    race = await start_race(await connect(arena.url), await connect(arena.url))
    token = race.ada.token
    assert token is not None
    await race.ada.close()
    again = await connect(arena.url)
    await again.hello(token=token)
    await again.finish(race.race_id)
    lines = [JsonFormatter().format(record) for record in caplog.records]
    assert any(race.race_id in line for line in lines)
    assert any(str(race.ada.player_id) in line for line in lines)
    assert not any(token in line for line in lines)


async def test_leaving_the_queue_by_cancel_or_disconnect_means_no_match(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, bob, cyd, dan = [await connect(arena.url) for _ in range(4)]
    for client, name in ((ada, "ada"), (bob, "bob"), (cyd, "cyd"), (dan, "dan")):
        await client.hello(name=name)
    await ada.quick_match("eight-off")
    await ada.close()
    await asyncio.sleep(0.1)
    await bob.quick_match("eight-off")
    await bob.cancel_quick_match()
    await cyd.quick_match("eight-off")
    await dan.quick_match("eight-off")
    found = await dan.wait_for(MatchFound)
    assert {r.player_id for r in found.race.racers} == {cyd.player_id, dan.player_id}


async def test_a_player_gone_past_the_lobby_grace_leaves_the_open_race(
    clean_redis: str, connect: Connect
) -> None:
    async with running_node(clean_redis, lobby_grace=0.3) as node:
        ada, bob, cyd = [await connect(node.url) for _ in range(3)]
        for client, name in ((ada, "ada"), (bob, "bob"), (cyd, "cyd")):
            await client.hello(name=name)
        race = await ada.create_race("treize", seats=3, time_limit=60)
        await bob.join_race(race.code)
        await bob.close()
        update = await ada.wait_for(RaceUpdate, lambda u: len(u.race.racers) == 1, timeout=5)
        assert [r.player_id for r in update.race.racers] == [ada.player_id]
        await ada.close()
        await asyncio.sleep(0.8)
        assert await cyd.list_races("treize") == []  # the last one gone: cancelled


async def test_seats_outlast_a_node_restart_longer_than_the_lobby_grace(
    clean_redis: str, connect: Connect
) -> None:
    """The only node stops for longer than the grace and starts again: ada and bob, back
    a second after the start, keep their seats (and the race stays open)."""
    async with running_node(clean_redis, lobby_grace=2.0) as node:
        ada, bob = await connect(node.url), await connect(node.url)
        tokens = [(await ada.hello(name="ada")).token, (await bob.hello(name="bob")).token]
        race = await ada.create_race("treize", seats=3, time_limit=60)
        await bob.join_race(race.code)
    await asyncio.sleep(2.5)  # down: past every due
    async with running_node(clean_redis, lobby_grace=2.0) as node:
        await asyncio.sleep(1.0)  # a node sweeping at once (every 0.67 s here) has freed them by now
        back = [await connect(node.url) for _ in tokens]
        for client, token in zip(back, tokens, strict=True):
            await client.hello(token=token)
        await asyncio.sleep(1.5)  # past the restarted node's first sweep
        info = await back[0].get_race(race.race_id)
        assert info.status == "open" and [r.name for r in info.racers] == ["ada", "bob"]


async def test_a_players_welcome_says_how_long_this_server_keeps_a_gone_racers_seat(clean_redis: str) -> None:
    async with running_node(clean_redis, lobby_grace=12.5) as node:
        (ada,) = await racers(node.url, "ada")
        async with ws_connect(node.url, compression=None) as ws:
            await ws.send(json.dumps({"type": "hello", "id": 1, "token": ada.token}))
            welcome = json.loads(await ws.recv())
        assert welcome["type"] == "welcome" and welcome["lobby_grace"] == 12.5
        await ada.ws.close()


async def test_a_player_back_within_the_lobby_grace_keeps_the_seat(
    clean_redis: str, connect: Connect
) -> None:
    async with running_node(clean_redis, lobby_grace=0.5) as node:
        ada, bob = await connect(node.url), await connect(node.url)
        await ada.hello(name="ada")
        welcome = await bob.hello(name="bob")
        race = await ada.create_race("treize", seats=2, time_limit=60)
        await bob.join_race(race.code)
        await bob.close()
        again = await connect(node.url)
        await again.hello(token=welcome.token)
        await again.close()  # a reconnect that closes again: the later hello still counts
        await asyncio.sleep(0.3)
        back = await connect(node.url)
        await back.hello(token=welcome.token)
        await asyncio.sleep(0.8)
        info = await back.get_race(race.race_id)
        assert {r.player_id for r in info.racers} == {ada.player_id, bob.player_id}
        assert info.status == "open"


async def test_a_racer_whose_connection_dropped_shows_away_in_the_lobby_until_back(clean_redis: str) -> None:
    """During the lobby grace the others see the gone racer marked ``away`` (a ready one
    used to look present), and no longer once they are back."""
    async with running_node(clean_redis, lobby_grace=30.0) as node:
        ada, bob = await racers(node.url, "ada", "bob")
        created = await ada.request({"type": "create_race", "game": "treize", "seats": 3, "time_limit": 60})
        joined = await bob.request({"type": "join_race", "code": created["race"]["code"]})
        assert {r["name"]: r["away"] for r in joined["race"]["racers"]} == {"ada": False, "bob": False}
        await bob.request({"type": "ready", "race_id": created["race"]["race_id"], "ready": True})
        while not all(r["ready"] for r in (await ada.event("race_update"))["race"]["racers"][1:]):
            pass  # until ada is told bob is ready
        await bob.ws.close()
        gone = await ada.event("race_update")
        assert [(r["name"], r["ready"], r["away"]) for r in gone["race"]["racers"]] == [
            ("ada", False, False),
            ("bob", True, True),
        ]
        back = await resumed(node.url, bob)
        returned = await ada.event("race_update")
        assert [r["away"] for r in returned["race"]["racers"]] == [False, False]
        info = await back.request({"type": "get_race", "race_id": created["race"]["race_id"]})
        assert [r["away"] for r in info["race"]["racers"]] == [False, False]
        await ada.ws.close()
        await back.ws.close()


async def test_a_player_gone_when_the_node_stops_leaves_the_open_race_once_another_node_runs(
    clean_redis: str, connect: Connect
) -> None:
    """The grace outlives the node: bob goes away, and the node stops before his grace is
    over (its other connections closing with it). On the next node ada comes back and bob
    never does: his seat is freed there, and the open race no longer waits for him (the
    grace is long enough for ada to be back, however slowly the next node starts)."""
    async with running_node(clean_redis, lobby_grace=2.0) as first:
        ada, bob = await connect(first.url), await connect(first.url)
        welcome = await ada.hello(name="ada")
        await bob.hello(name="bob")
        race = await ada.create_race("treize", seats=3, time_limit=60)
        await bob.join_race(race.code)
        await bob.close()
    async with running_node(clean_redis, lobby_grace=2.0) as second:
        back = await connect(second.url)
        await back.hello(token=welcome.token)
        await back.get_race(race.race_id)  # following it again
        update = await back.wait_for(RaceUpdate, lambda u: len(u.race.racers) == 1, timeout=5)
        assert [r.player_id for r in update.race.racers] == [ada.player_id]
        listed = await back.list_races("treize")
        assert [(r.race_id, len(r.racers)) for r in listed] == [(race.race_id, 1)]


async def test_a_cancelled_race_and_a_finished_race_expire_after_the_race_ttl(
    arena: ArenaServer, connect: Connect, clean_redis: str
) -> None:
    probe = sync_redis(clean_redis)
    week = arena.settings.race_ttl

    def ttls(race_id: str, code: str) -> list[int]:
        keys = [*probe.scan_iter(match=f"race:{{{race_id}}}:*"), f"code:{code}"]
        return [int(probe.ttl(key)) for key in keys]

    ada = await connect(arena.url)
    await ada.hello(name="ada")
    lonely = await ada.create_race("treize", seats=2, time_limit=30)
    assert all(ttl == -1 for ttl in ttls(lonely.race_id, lonely.code))  # open: kept
    await ada.leave(lonely.race_id)
    cancelled = ttls(lonely.race_id, lonely.code)
    assert len(cancelled) >= 2 and all(0 < ttl <= week for ttl in cancelled)

    race = await start_race(ada, await connect(arena.url))
    await race.ada.finish(race.race_id)
    await race.bob.finish(race.race_id)
    await race.ada.wait_for(RaceEnded)
    # race_ended is published by the script that finishes the race; the expiry is set
    # in the round trip right after it, so give it a moment.
    for _ in range(100):
        finished = ttls(race.race_id, race.code)
        if all(ttl != -1 for ttl in finished):
            break
        await asyncio.sleep(0.02)
    assert len(finished) >= 5 and all(0 < ttl <= week for ttl in finished)
    probe.close()


async def test_a_queued_player_whose_lease_ran_out_is_dropped_not_paired(
    arena: ArenaServer, connect: Connect
) -> None:
    assert arena.store is not None
    # What a node that died with a player in the queue leaves behind: a lease nobody renews.
    now = arena.time.now_ms()
    await arena.store.queues.match("treize", "p_ghost", now - 60_000, now - 30_000)
    ada, bob = await connect(arena.url), await connect(arena.url)
    await ada.hello(name="ada")
    await bob.hello(name="bob")
    await ada.quick_match("treize")
    await bob.quick_match("treize")
    found = await ada.wait_for(MatchFound)
    assert {r.player_id for r in found.race.racers} == {ada.player_id, bob.player_id}


async def test_a_waiting_players_node_renews_their_lease_so_they_stay_matchable(
    clean_redis: str, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(matchmaking, "LEASE_MS", 300)
    monkeypatch.setattr(matchmaking, "RENEW_EVERY", 0.05)
    async with running_node(clean_redis) as node:
        ada, bob = await connect(node.url), await connect(node.url)
        await ada.hello(name="ada")
        await bob.hello(name="bob")
        await ada.quick_match("eight-off")
        await asyncio.sleep(1.0)  # three leases long: only renewals keep ada in the queue
        await bob.quick_match("eight-off")
        found = await bob.wait_for(MatchFound)
        assert {r.player_id for r in found.race.racers} == {ada.player_id, bob.player_id}
        await ada.wait_for(MatchFound)
        assert node.features is not None and not node.features.quick_match.waiting


async def test_a_race_left_half_ended_by_a_crashed_node_is_finished_by_the_clock(
    arena: ArenaServer, connect: Connect
) -> None:
    race = await start_race(await connect(arena.url), await connect(arena.url))
    assert arena.store is not None
    store = arena.store
    # What a node that died right after "stop accepting moves" leaves behind:
    await store.deadlines.set(race.race_id, 0)
    assert await store.races.begin_end(race.race_id, 0)
    ended = await race.bob.wait_for(RaceEnded, timeout=5)
    assert {s.player_id for s in ended.summary.standings} == {race.ada.player_id, race.bob.player_id}


async def test_get_replay_gives_a_racers_views_move_by_move_after_the_end(
    arena: ArenaServer, connect: Connect
) -> None:
    race = await start_race(await connect(arena.url), await connect(arena.url))
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None
    for move in line[:3]:
        await race.ada.move(race.race_id, move)
    async with ws_connect(arena.url, compression=None) as ws:
        await ws.send(json.dumps({"type": "hello", "id": 1, "token": race.bob.token}))
        await ws.recv()
        ask = {"type": "get_replay", "id": 2, "race_id": race.race_id, "player_id": race.ada.player_id}
        await ws.send(json.dumps(ask))
        early = json.loads(await ws.recv())
        assert early["type"] == "error" and early["code"] == "race_not_over"
        await race.ada.finish(race.race_id)
        await race.bob.finish(race.race_id)
        await race.ada.wait_for(RaceEnded)
        await ws.send(json.dumps({**ask, "offset": 1, "limit": 2}))
        page = json.loads(await ws.recv())
        while page["type"] != "replay":
            page = json.loads(await ws.recv())
        assert (page["total"], page["offset"], page["moves"]) == (4, 1, line[:2])
        log = await race.bob.move_log(race.race_id)
        started = (await race.bob.results(race.race_id)).started_at
        assert page["times"] == [m.at - started for m in log.moves[:2]]  # when each was played
        assert 0 <= page["times"][0] <= page["times"][1]
        assert page["views"] == [
            json.loads(json.dumps(replay("eight-off", WINNABLE_SEED, line[:n]).view())) for n in (1, 2)
        ]
        await ws.send(json.dumps({**ask, "id": 3, "player_id": "p_nobody"}))
        refused = json.loads(await ws.recv())
        assert refused == {
            "type": "error",
            "id": 3,
            "code": "not_a_racer",
            "message": f"player 'p_nobody' did not race in race '{race.race_id}'",
        }


def test_every_extra_field_of_a_log_line_is_written_but_never_a_credential() -> None:
    from server.logs import JsonFormatter, TextFormatter

    record = logging.LogRecord("arena.daily", logging.INFO, __file__, 1, "daily deal prepared", None, None)
    extra = {"day": "2026-01-02", "game": "treize", "ms": 41, "proven": True, "token": "t0ps3cret"}
    record.__dict__.update(extra, websocket=object())
    data = json.loads(JsonFormatter().format(record))
    assert {k: data[k] for k in ("day", "game", "ms", "proven")} == {
        "day": "2026-01-02", "game": "treize", "ms": 41, "proven": True,
    }  # fmt: skip
    assert "token" not in data and "websocket" not in data
    text = TextFormatter("%(message)s").format(record)
    assert text == "daily deal prepared day=2026-01-02 game=treize ms=41 proven=True"


def test_a_background_tasks_repeated_warning_is_written_once_a_minute_with_how_many_were_left_out() -> None:
    from server.logs import RepeatsQuieted, configure

    now = [0.0]
    quiet = RepeatsQuieted(clock=lambda: now[0])

    def warning(message: str, logger: str = "arena.nodes", **extra: object) -> logging.LogRecord:
        record = logging.LogRecord(logger, logging.WARNING, __file__, 1, message, None, None)
        record.__dict__.update(extra)
        return record

    def written(record: logging.LogRecord) -> bool:
        return quiet.filter(record)

    failed = "the node's heartbeat failed"
    assert written(warning(failed, reason="ConnectionError()"))
    for second in range(1, 60):  # Redis away for a minute: a failure each second
        now[0] = float(second)
        assert not written(warning(failed, reason="ConnectionError()"))
        assert written(warning("redis unreachable: …", logger="arena.redis", reason="ConnectionError()"))
        assert written(warning("a node stopped beating: its players count as gone"))  # no reason
    assert written(warning("freeing gone players' seats failed", logger="arena.lobby", reason="x"))
    now[0] = 60.0
    again = warning(failed, reason="ConnectionError()")
    assert written(again) and again.__dict__["repeats"] == 59
    filters = _stderr_filters(configure)  # the node's own log handler has it
    assert filters and all(isinstance(f, RepeatsQuieted) for f in filters)


def test_the_repeats_of_a_quieted_warning_are_counted_afresh_after_redis_came_back() -> None:
    """The first warning of a second outage said ``"repeats": 13``, the failures of the
    outage before (or was left out, when it came within the minute)."""
    from server.logs import RepeatsQuieted
    from server.metrics import Metrics
    from server.outage import StoreHealth

    now = [0.0]
    quiet = RepeatsQuieted(clock=lambda: now[0])
    health = StoreHealth(Metrics(), (ConnectionError,))

    def failure() -> logging.LogRecord:
        health.failed(ConnectionError())
        record = logging.LogRecord("arena.nodes", logging.WARNING, __file__, 1, "beat failed", None, None)
        record.__dict__["reason"] = "ConnectionError()"
        return record

    assert quiet.filter(failure())
    for second in range(1, 14):  # the first outage: 13 more failures, quieted
        now[0] = float(second)
        assert not quiet.filter(failure())
    health.succeeded()  # Redis is back
    now[0] = 200.0  # the next outage
    first = failure()
    assert quiet.filter(first) and "repeats" not in first.__dict__
    now[0] = 201.0
    assert not quiet.filter(failure())  # and quieted from there as ever
    health.succeeded()
    now[0] = 210.0  # one more, within the minute of the last line written
    again = failure()
    assert quiet.filter(again) and "repeats" not in again.__dict__


def _stderr_filters(configure: Callable[..., None]) -> list[object]:
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        configure("INFO", "text")
        return [f for handler in root.handlers for f in handler.filters]
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)

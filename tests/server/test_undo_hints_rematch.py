"""Undo in a race, hints and rematch: checked on the raw frames of real connections."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.app import ArenaServer
from server.features import hints as hints_feature
from server.features import rematch as rematch_feature
from shared import UndoRule, new_game, replay
from tests.redis_direct import async_redis
from tests.server.conftest import WINNABLE_SEED, node_settings, running_node
from tests.server.rawclient import Racer, racers, resumed
from tests.server.test_ratings import foundation_moves

Frame = dict[str, Any]


async def running(ada: Racer, bob: Racer, game: str = "eight-off", **settings: Any) -> str:
    created = await ada.request({"type": "create_race", "game": game, **settings})
    race_id: str = created["race"]["race_id"]
    await bob.request({"type": "join_race", "code": created["race"]["code"]})
    await ada.request({"type": "ready", "race_id": race_id})
    await bob.request({"type": "ready", "race_id": race_id})
    await ada.event("race_started")
    await bob.event("race_started")
    return race_id


async def close(*connections: Racer) -> None:
    for racer in connections:
        await racer.ws.close()


@contextlib.asynccontextmanager
async def two_racers(url: str) -> AsyncIterator[tuple[Racer, Racer]]:
    """ada and bob, said hello (asking for legal moves), closed after."""
    ada, bob = await racers(url, "ada", "bob")
    try:
        yield ada, bob
    finally:
        await close(ada, bob)


# ----- undo ---------------------------------------------------------------------------


async def test_an_undo_is_a_move_with_the_next_seq_logged_and_replayed(arena: ArenaServer) -> None:
    async with two_racers(arena.url) as (ada, bob):
        race_id = await running(ada, bob)
        game = new_game("eight-off", WINNABLE_SEED)
        opening = game.view()
        first = game.legal_moves()[0]
        ack = await ada.request({"type": "move", "race_id": race_id, "seq": 1, "move": first})
        assert ack["view"]["can_undo"] is True
        undone = await ada.request({"type": "move", "race_id": race_id, "seq": 2, "move": "UNDO"})
        assert undone["type"] == "move_ack" and undone["seq"] == 2
        assert undone["result"]["move"] == "undo"
        assert {k: undone["view"][k] for k in opening} == opening  # the deal again, move_count 0
        assert undone["view"]["can_undo"] is False
        progress = await bob.event("progress")
        assert progress["player_id"] == ada.player_id and progress["move_count"] == 1
        progress = await bob.event("progress")
        assert progress["move_count"] == 0
        nothing = await ada.request({"type": "move", "race_id": race_id, "seq": 3, "move": "undo"})
        assert nothing["type"] == "error" and nothing["code"] == "illegal_move"
        assert nothing["message"] == "there is no move to undo"
        board = await ada.request({"type": "get_race", "race_id": race_id})
        assert board["race"]["board"]["seq"] == 2 and board["race"]["board"]["view"]["can_undo"] is False
        await ada.request({"type": "finish", "race_id": race_id})
        await bob.request({"type": "finish", "race_id": race_id})
        await ada.event("race_ended")
        log = await ada.request({"type": "get_move_log", "race_id": race_id})
        assert [m["move"] for m in log["moves"]] == [first, "undo"]
        replayed = await ada.request({"type": "get_replay", "race_id": race_id, "player_id": ada.player_id})
        assert replayed["moves"] == ["", first, "undo"]
        assert replayed["views"][2] == replayed["views"][0]


async def test_an_undo_that_lowers_the_score_times_the_score_it_returns_to_for_the_tie_break(
    arena: ArenaServer,
) -> None:
    """ada reaches a score first, sends one more card home and takes it back: bob, who
    reached that score between, ranks ahead of her (docs/rules.md, Undo)."""
    line = foundation_moves(2)
    prefix, scoring = line[:-1], line[-1]
    async with two_racers(arena.url) as (ada, bob):
        race_id = await running(ada, bob)
        for racer in (ada, bob):
            for seq, move in enumerate(prefix, start=1):
                ack = await racer.request({"type": "move", "race_id": race_id, "seq": seq, "move": move})
                assert ack["type"] == "move_ack", ack
        score = ack["view"]["score"]
        up = await ada.request({"type": "move", "race_id": race_id, "seq": len(prefix) + 1, "move": scoring})
        assert up["view"]["score"] > score
        back = await ada.request({"type": "move", "race_id": race_id, "seq": len(prefix) + 2, "move": "undo"})
        assert back["view"]["score"] == score
        for racer in (ada, bob):
            await racer.request({"type": "finish", "race_id": race_id})
        summary = (await ada.event("race_ended"))["summary"]
        standings, started = summary["standings"], summary["started_at"]
        log = (await ada.request({"type": "get_move_log", "race_id": race_id}))["moves"]
        at = {(m["player_id"], m["seq"]): m["at"] - started for m in log}
        assert [(s["player_id"], s["rank"], s["score"]) for s in standings] == [
            (bob.player_id, 1, score),
            (ada.player_id, 2, score),
        ]
        reached = {s["player_id"]: s["score_reached_ms"] for s in standings}
        assert reached[ada.player_id] == at[(ada.player_id, len(prefix) + 2)]  # the undo's time
        assert reached[bob.player_id] <= at[(bob.player_id, len(prefix))]


async def test_in_a_race_a_deal_that_turned_up_a_card_cannot_be_undone(arena: ArenaServer) -> None:
    async with two_racers(arena.url) as (ada, bob):
        race_id = await running(ada, bob, game="treize")
        dealt = await ada.request({"type": "move", "race_id": race_id, "seq": 1, "move": "deal"})
        assert dealt["view"]["can_undo"] is False
        refused = await ada.request({"type": "move", "race_id": race_id, "seq": 2, "move": "undo"})
        assert refused["type"] == "error" and refused["code"] == "illegal_move"
        assert "turned up a card nobody had seen" in refused["message"]
        board = await ada.request({"type": "get_race", "race_id": race_id})
        assert board["race"]["board"]["seq"] == 1  # the refused undo took no seq
        # A node that loads the board afresh (a restart, another node) says why too.
        arena.features.racing.forget_race(race_id)  # type: ignore[union-attr]
        again = await ada.request({"type": "move", "race_id": race_id, "seq": 2, "move": "undo"})
        assert again == {
            "type": "error",
            "id": again["id"],
            "code": "illegal_move",
            "message": "a move that turned up a card nobody had seen stays, and so does every move "
            "before it: a move that reveals a card cannot be undone in a race, a daily attempt or "
            "its practice",
        }


async def test_undo_works_after_the_node_lost_its_cached_board(clean_redis: str, arena: ArenaServer) -> None:
    async with two_racers(arena.url) as (ada, bob):
        race_id = await running(ada, bob)
        game = new_game("eight-off", WINNABLE_SEED, undo_rule=UndoRule.KEEP_REVEALS)
        moves = []
        for seq in range(1, 4):
            move = game.legal_moves()[0]
            game.play(move)
            moves.append(move)
            await ada.request({"type": "move", "race_id": race_id, "seq": seq, "move": move})
        arena.features.racing.forget_race(race_id)  # type: ignore[union-attr]
        for seq in (4, 5):
            ack = await ada.request({"type": "move", "race_id": race_id, "seq": seq, "move": "undo"})
            game.undo()
            assert ack["type"] == "move_ack" and ack["view"]["piles"] == json.loads(
                json.dumps(game.view()["piles"])
            )
        expected = replay("eight-off", WINNABLE_SEED, [*moves, "undo", "undo"])
        client = async_redis(clean_redis)
        try:
            keys = [k async for k in client.scan_iter(f"race:{{{race_id}}}:board:*")]
            stored = [json.loads(await client.hget(k, "position")) for k in keys]
        finally:
            await client.aclose()
        assert expected.position() in stored


async def test_a_board_read_just_before_another_sessions_move_is_read_again_and_still_undoes(
    arena: ArenaServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    assert arena.store is not None and arena.features is not None
    boards = arena.store.boards
    async with two_racers(arena.url) as (ada, bob):
        race_id = await running(ada, bob)
        game = new_game("eight-off", WINNABLE_SEED, undo_rule=UndoRule.KEEP_REVEALS)
        for seq in (1, 2):
            move = game.legal_moves()[0]
            game.play(move)
            await ada.request({"type": "move", "race_id": race_id, "seq": seq, "move": move})
            if seq == 1:
                before_the_second = await boards.board(race_id, ada.player_id)
        # The node reads the board as it was before the second move, and the log after it
        # (ada's other session moved between the two reads).
        read_board = boards.board
        stale = [before_the_second]

        async def board_then_log_moves_on(race: str, player_id: str) -> Any:
            return stale.pop() if stale else await read_board(race, player_id)

        monkeypatch.setattr(boards, "board", board_then_log_moves_on)
        arena.features.racing.forget_race(race_id)
        undone = await ada.request({"type": "move", "race_id": race_id, "seq": 3, "move": "undo"})
        game.undo()
        assert undone["type"] == "move_ack" and undone["seq"] == 3
        assert undone["view"]["piles"] == json.loads(json.dumps(game.view()["piles"]))
    assert not [r for r in caplog.records if r.levelname == "ERROR"]


# ----- hints ----------------------------------------------------------------------------


async def test_a_hint_is_a_legal_move_in_a_race_that_allows_hints(arena: ArenaServer) -> None:
    async with two_racers(arena.url) as (ada, bob):
        race_id = await running(ada, bob, hints=True)
        info = await ada.request({"type": "get_race", "race_id": race_id})
        assert info["race"]["hints"] is True
        hint = await ada.request({"type": "get_hint", "race_id": race_id})
        assert hint["type"] == "hint" and hint["seq"] == 0
        assert hint["move"] in new_game("eight-off", WINNABLE_SEED).legal_moves()
        again = await ada.request({"type": "get_hint", "race_id": race_id})
        assert again["type"] == "error" and again["code"] == "rate_limited"
        assert again["message"] == "one hint per 1 s: ask again soon"
        ack = await ada.request({"type": "move", "race_id": race_id, "seq": 1, "move": hint["move"]})
        assert ack["type"] == "move_ack"


async def test_the_hint_cooldown_runs_from_the_answer_so_a_slow_search_gives_no_second_hint_at_once(
    arena: ArenaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search takes longer than the cooldown (a busy node): a hint asked right after
    the first one's answer is still refused."""
    assert arena.features is not None
    hints = arena.features.hints
    search = hints._search

    async def slow_search(*args: Any) -> str | None:
        await asyncio.sleep(hints_feature.HINT_COOLDOWN + 0.2)
        return await search(*args)

    monkeypatch.setattr(hints, "_search", slow_search)
    async with two_racers(arena.url) as (ada, bob):
        race_id = await running(ada, bob, hints=True)
        hint = await ada.request({"type": "get_hint", "race_id": race_id})
        assert hint["type"] == "hint" and hint["move"] is not None
        again = await ada.request({"type": "get_hint", "race_id": race_id})
        assert again["type"] == "error" and again["code"] == "rate_limited"


#: An Eight Off deal whose hints, followed from the deal, leave after these 21 moves only
#: moves back to a position the board had (tests/shared/test_hint.py follows them).
STUCK_SEED = 57
STUCK_LINE = [
    "t6>r5",
    "t5>r3",
    "r4>t8",
    "r2>t4",
    "t5>r2",
    "t5>r4",
    "t1>r6",
    "r4>t1",
    "r6>t1",
    "t1:3>t4",
    "t4:5>t1",
    "t4>r4",
    "t2>t4",
    "t2>r6",
    "t2>r7",
    "t6>r5",
    "r4>t6",
    "t7>r4",
    "t7>r8",
    "r2>t7",
    "t1>r2",
]


#: Eight Off's seed 2 played to a board with no legal move: every cell full, nothing fits.
NO_MOVE_LINE = ["t3>r5", "t4>r7", "r1>r8", "r5>t5", "t6>r6", "t2>r5", "r8>r1", "t8>r8"]


async def test_a_hint_on_a_board_with_no_move_left_but_undo_says_to_undo_or_give_up(
    arena: ArenaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hints_feature, "HINT_COOLDOWN", 0.0)
    async with two_racers(arena.url) as (ada, bob):
        race_id = await running(ada, bob, hints=True)
        for seq, move in enumerate(NO_MOVE_LINE, start=1):
            ack = await ada.request({"type": "move", "race_id": race_id, "seq": seq, "move": move})
            assert ack["type"] == "move_ack", ack
        assert ack["view"]["legal_moves"] == [] and ack["view"]["can_undo"] is True
        stuck = await ada.request({"type": "get_hint", "race_id": race_id})
        assert stuck == {
            "type": "hint",
            "id": stuck["id"],
            "race_id": race_id,
            "seq": len(NO_MOVE_LINE),
            "message": "no move is left but undo: undo to try another way, or give up to end your race now",
        }


async def test_a_hint_never_leads_back_to_a_position_the_board_had_and_says_when_every_move_would(
    clean_redis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hints_feature, "HINT_COOLDOWN", 0.0)
    line = STUCK_LINE
    node = ArenaServer(node_settings(clean_redis, rate_burst=100), seed_source=lambda: STUCK_SEED)
    await node.start()
    try:
        async with two_racers(node.url) as (ada, bob):
            race_id = await running(ada, bob, hints=True)
            first = await ada.request({"type": "get_hint", "race_id": race_id})
            assert first == {"type": "hint", "id": first["id"], "race_id": race_id, "seq": 0, "move": line[0]}
            await ada.request({"type": "move", "race_id": race_id, "seq": 1, "move": line[0]})
            await ada.request({"type": "move", "race_id": race_id, "seq": 2, "move": "undo"})
            again = await ada.request({"type": "get_hint", "race_id": race_id})
            assert again["seq"] == 2 and again["move"] not in (None, line[0])  # not back where it was
            for seq, move in enumerate(line, start=3):
                ack = await ada.request({"type": "move", "race_id": race_id, "seq": seq, "move": move})
                assert ack["type"] == "move_ack"
            stuck = await ada.request({"type": "get_hint", "race_id": race_id})
            assert stuck == {
                "type": "hint",
                "id": stuck["id"],
                "race_id": race_id,
                "seq": 2 + len(line),
                "message": "every move left leads back to a position your board has had: undo, or give up",
            }
            for _ in range(2 + len(line)):  # read, so that bob's connection closes at once
                await bob.event("progress")
    finally:
        await node.stop()


async def test_a_hint_before_the_start_is_race_not_started_for_a_seated_racer(arena: ArenaServer) -> None:
    async with two_racers(arena.url) as (ada, bob):
        created = await ada.request({"type": "create_race", "game": "eight-off", "hints": True})
        race_id = created["race"]["race_id"]
        early = await ada.request({"type": "get_hint", "race_id": race_id})
        assert early == {
            "type": "error",
            "id": early["id"],
            "code": "race_not_started",
            "message": "the race has not started yet: wait for it",
        }
        stranger = await bob.request({"type": "get_hint", "race_id": race_id})
        assert stranger["code"] == "not_a_racer"


async def test_hints_are_refused_in_a_race_whose_setting_is_off(arena: ArenaServer) -> None:
    async with two_racers(arena.url) as (ada, bob):
        race_id = await running(ada, bob, hints=False)
        info = await bob.request({"type": "get_race", "race_id": race_id})
        assert info["race"]["hints"] is False  # every racer sees the setting
        refused = await ada.request({"type": "get_hint", "race_id": race_id})
        assert refused["type"] == "error" and refused["code"] == "hints_off"
        assert refused["message"] == "hints are off in this race: its creator turned them off"


async def test_quick_matches_and_their_rematches_have_no_hints_and_say_so(arena: ArenaServer) -> None:
    quick = "hints are off in this race: quick matches (and their rematches) never have them"
    async with two_racers(arena.url) as (ada, bob):
        await ada.request({"type": "quick_match", "game": "treize"})
        await bob.request({"type": "quick_match", "game": "treize"})
        found = await ada.event("match_found")
        race_id = found["race"]["race_id"]
        assert found["race"]["hints"] is False
        await ada.event("race_started")
        await bob.event("race_started")
        refused = await ada.request({"type": "get_hint", "race_id": race_id})
        assert (refused["code"], refused["message"]) == ("hints_off", quick)
        for racer in (ada, bob):
            await racer.request({"type": "finish", "race_id": race_id})
        await ada.event("race_ended")
        await ada.request({"type": "offer_rematch", "race_id": race_id})
        started = await bob.request({"type": "answer_rematch", "race_id": race_id, "accept": True})
        rematch = started["rematch"]["new_race_id"]
        await ada.event("race_started")
        refused = await ada.request({"type": "get_hint", "race_id": rematch})
        assert (refused["code"], refused["message"]) == ("hints_off", quick)


# ----- rematch --------------------------------------------------------------------------


async def ended(ada: Racer, bob: Racer, **settings: Any) -> str:
    race_id = await running(ada, bob, **settings)
    await ada.request({"type": "finish", "race_id": race_id})
    await bob.request({"type": "finish", "race_id": race_id})
    await ada.event("race_ended")
    await bob.event("race_ended")
    return race_id


async def decided(racer: Racer) -> dict[str, Any]:
    """The first rematch offer no longer open that ``racer`` is told of."""
    update = await racer.event("rematch_update")
    while update["rematch"]["status"] == "open":
        update = await racer.event("rematch_update", timeout=3.0)
    rematch: dict[str, Any] = update["rematch"]
    return rematch


async def test_a_rematch_accepted_seats_both_racers_in_a_new_deal_counting_down(arena: ArenaServer) -> None:
    async with two_racers(arena.url) as (ada, bob):
        race_id = await ended(ada, bob, time_limit=45.0, hints=False)
        early = await ada.request({"type": "answer_rematch", "race_id": race_id, "accept": True})
        assert early["type"] == "error" and early["code"] == "rematch_not_open"
        offered = await ada.request({"type": "offer_rematch", "race_id": race_id})
        assert offered["type"] == "rematch" and offered["rematch"]["status"] == "open"
        answers = {r["player_id"]: r["answer"] for r in offered["rematch"]["racers"]}
        assert answers == {ada.player_id: "offered", bob.player_id: "pending"}
        told = await bob.event("rematch_update")
        assert told["rematch"]["offered_by"] == ada.player_id
        again = await bob.request({"type": "offer_rematch", "race_id": race_id})
        assert again["type"] == "error" and again["code"] == "rematch_exists"
        accepted = await bob.request({"type": "answer_rematch", "race_id": race_id, "accept": True})
        assert accepted["rematch"]["status"] == "started"
        new_race = accepted["rematch"]["new_race_id"]
        for racer in (ada, bob):
            started = await racer.event("rematch_started")
            assert started["race_id"] == race_id and started["race"]["race_id"] == new_race
            race = started["race"]
            assert race["status"] == "countdown" and race["game"] == "eight-off"
            assert race["time_limit"] == 45.0 and race["hints"] is False and len(race["racers"]) == 2
            go = await racer.event("race_started")  # the session follows the new race
            assert go["race_id"] == new_race
        twice = await bob.request({"type": "answer_rematch", "race_id": race_id, "accept": False})
        assert twice["code"] == "rematch_not_open"


async def test_a_rematch_that_cannot_start_as_a_racer_races_elsewhere_leaves_no_race_behind(
    arena: ArenaServer,
) -> None:
    async with two_racers(arena.url) as (ada, bob):
        (cat,) = await racers(arena.url, "cat")
        race_id = await ended(ada, bob)
        assert (await ada.request({"type": "offer_rematch", "race_id": race_id}))["type"] == "rematch"
        elsewhere = await running(ada, cat)  # ada races cat meanwhile
        answer = await bob.request({"type": "answer_rematch", "race_id": race_id, "accept": True})
        assert answer["rematch"]["status"] == "failed" and "new_race_id" not in answer["rematch"]
        reason = "ada is racing in another race: a player races one race at a time"
        assert answer["rematch"]["reason"] == reason
        for racer, races in ((ada, [elsewhere]), (bob, [])):
            mine = await racer.request({"type": "list_my_races"})
            assert mine["races"] == races
        listed = await cat.request({"type": "list_races"})
        assert listed["races"] == []
        await cat.ws.close()


async def test_a_rematch_seats_a_guest_who_renamed_after_the_race_by_their_new_name(
    arena: ArenaServer,
) -> None:
    async with two_racers(arena.url) as (ada, bob):
        race_id = await ended(ada, bob)
        renamed = await bob.request({"type": "rename", "name": "robert"})
        assert renamed["type"] == "renamed" and renamed["name"] == "robert"
        await ada.request({"type": "offer_rematch", "race_id": race_id})
        await bob.request({"type": "answer_rematch", "race_id": race_id, "accept": True})
        started = await ada.event("rematch_started")
        names = {r["player_id"]: r["name"] for r in started["race"]["racers"]}
        assert names == {ada.player_id: "ada", bob.player_id: "robert"}


async def test_a_rematch_keeps_each_racers_number_when_two_share_a_name(arena: ArenaServer) -> None:
    """The first seated keeps a name another racer has too; in a rematch the offerer is
    seated first, and used to take the bare name from the other racer."""
    alice, twin = await racers(arena.url, "alice", "Alice")
    try:
        race_id = await ended(alice, twin)
        first = await alice.request({"type": "get_race", "race_id": race_id})
        names = {r["player_id"]: r["name"] for r in first["race"]["racers"]}
        assert names == {alice.player_id: "alice", twin.player_id: "Alice (2)"}
        await twin.request({"type": "offer_rematch", "race_id": race_id})  # seated first now
        await alice.request({"type": "answer_rematch", "race_id": race_id, "accept": True})
        started = await twin.event("rematch_started")
        assert {r["player_id"]: r["name"] for r in started["race"]["racers"]} == names
    finally:
        await close(alice, twin)


async def test_a_declined_rematch_starts_nothing(arena: ArenaServer) -> None:
    async with two_racers(arena.url) as (ada, bob):
        race_id = await ended(ada, bob)
        await bob.request({"type": "offer_rematch", "race_id": race_id})
        declined = await ada.request({"type": "answer_rematch", "race_id": race_id, "accept": False})
        assert declined["rematch"]["status"] == "declined" and "new_race_id" not in declined["rematch"]
        update = await bob.event("rematch_update")
        while update["rematch"]["status"] != "declined":
            update = await bob.event("rematch_update")
        assert not any(e["type"] == "rematch_started" for e in ada.events + bob.events)


async def test_a_rematch_offered_to_a_racer_connected_nowhere_is_declined_for_them_at_once(
    arena: ArenaServer,
) -> None:
    assert arena.store is not None
    async with two_racers(arena.url) as (ada, bob):
        race_id = await ended(ada, bob)
        await bob.ws.close()  # bob's program ended with the race
        for _ in range(200):
            if bob.player_id not in await arena.store.nodes.players(arena.settings.node_id):
                break
            await asyncio.sleep(0.01)
        offered = await ada.request({"type": "offer_rematch", "race_id": race_id})
        rematch = offered["rematch"]
        assert rematch["status"] == "declined" and "new_race_id" not in rematch
        assert {r["player_id"]: r["answer"] for r in rematch["racers"]} == {
            ada.player_id: "offered",
            bob.player_id: "declined",
        }
        again = await ada.request({"type": "offer_rematch", "race_id": race_id})  # bob may be back later
        assert again["type"] == "rematch" and again["rematch"]["status"] == "declined"


async def offered_by_ada(arena: ArenaServer, ada: Racer, bob: Racer, leave_grace: float) -> str:
    """A race of ada and bob ended and ada's rematch offer open, on a node that counts
    ``leave_grace`` seconds away as leaving; the race's id."""
    assert arena.features is not None
    arena.features.rematches.leave_grace = leave_grace
    race_id = await ended(ada, bob)
    offered = await ada.request({"type": "offer_rematch", "race_id": race_id})
    assert offered["rematch"]["status"] == "open"
    return race_id


async def test_a_racer_who_leaves_while_a_rematch_is_offered_declines_it_after_the_grace(
    arena: ArenaServer,
) -> None:
    async with two_racers(arena.url) as (ada, bob):
        await offered_by_ada(arena, ada, bob, leave_grace=0.2)
        await bob.ws.close()  # bob's terminal quit on the results screen
        rematch = await decided(ada)
        assert rematch["status"] == "declined" and "new_race_id" not in rematch
        assert {r["player_id"]: r["answer"] for r in rematch["racers"]} == {
            ada.player_id: "offered",
            bob.player_id: "declined",
        }


async def test_an_offerer_who_leaves_withdraws_the_rematch_and_the_others_are_told_who_left(
    arena: ArenaServer,
) -> None:
    async with two_racers(arena.url) as (ada, bob):
        race_id = await offered_by_ada(arena, ada, bob, leave_grace=0.2)
        await ada.ws.close()
        rematch = await decided(bob)
        assert rematch["status"] == "failed" and rematch["reason"] == "ada left"
        late = await bob.request({"type": "answer_rematch", "race_id": race_id, "accept": True})
        assert late["type"] == "error" and late["code"] == "rematch_not_open"
        assert not any(e["type"] == "rematch_started" for e in bob.events)


async def test_a_racer_back_within_the_grace_keeps_a_rematch_offer_open_and_may_accept_it(
    arena: ArenaServer,
) -> None:
    async with two_racers(arena.url) as (ada, bob):
        race_id = await offered_by_ada(arena, ada, bob, leave_grace=0.5)
        await bob.ws.close()  # a dropped connection, resumed at once
        back = await resumed(arena.url, bob)
        try:
            await asyncio.sleep(0.8)  # past the grace
            accepted = await back.request({"type": "answer_rematch", "race_id": race_id, "accept": True})
            assert accepted["type"] == "rematch" and accepted["rematch"]["status"] == "started"
        finally:
            await close(back)


async def test_a_rematch_is_offered_only_after_the_end_and_only_by_a_racer(arena: ArenaServer) -> None:
    ada, bob, eve = await racers(arena.url, "ada", "bob", "eve")
    try:
        race_id = await running(ada, bob)
        early = await ada.request({"type": "offer_rematch", "race_id": race_id})
        assert early["type"] == "error" and early["code"] == "race_not_over"
        await ada.request({"type": "finish", "race_id": race_id})
        await bob.request({"type": "finish", "race_id": race_id})
        await ada.event("race_ended")
        stranger = await eve.request({"type": "offer_rematch", "race_id": race_id})
        assert stranger["type"] == "error" and stranger["code"] == "not_a_racer"
    finally:
        await close(ada, bob, eve)


async def test_an_unanswered_rematch_expires(arena: ArenaServer) -> None:
    assert arena.features is not None
    arena.features.rematches.wait = 0.3
    async with two_racers(arena.url) as (ada, bob):
        race_id = await ended(ada, bob)
        await ada.request({"type": "offer_rematch", "race_id": race_id})
        assert (await decided(ada))["status"] == "expired"
        late = await bob.request({"type": "answer_rematch", "race_id": race_id, "accept": True})
        assert late["code"] == "rematch_not_open"


async def test_get_race_of_a_finished_race_carries_its_rematch_offer_to_its_racers_only(
    arena: ArenaServer,
) -> None:
    """A page reloaded (a new connection of bob) after ada offered sees the offer, and can
    answer it; a stranger reading the race sees no offer."""
    eve = (await racers(arena.url, "eve"))[0]
    try:
        async with two_racers(arena.url) as (ada, bob):
            race_id = await ended(ada, bob)
            before = (await bob.request({"type": "get_race", "race_id": race_id}))["race"]
            assert before["status"] == "finished" and "rematch" not in before
            await ada.request({"type": "offer_rematch", "race_id": race_id})
            reloaded = await resumed(arena.url, bob)
            try:
                race = (await reloaded.request({"type": "get_race", "race_id": race_id}))["race"]
                offer = race["rematch"]
                told = (offer["race_id"], offer["offered_by"], offer["status"])
                assert told == (race_id, ada.player_id, "open")
                answers = {(r["name"], r["answer"]) for r in offer["racers"]}
                assert answers == {("ada", "offered"), ("bob", "pending")}
                assert offer["expires_at"] > race["server_time"]
                answer = {"type": "answer_rematch", "race_id": race_id, "accept": True}
                accepted = await reloaded.request(answer)
                assert accepted["rematch"]["status"] == "started"
                after = (await ada.request({"type": "get_race", "race_id": race_id}))["race"]["rematch"]
                new_race_id = accepted["rematch"]["new_race_id"]
                assert (after["status"], after["new_race_id"]) == ("started", new_race_id)
            finally:
                await close(reloaded)
            seen = (await eve.request({"type": "get_race", "race_id": race_id}))["race"]
            assert seen["status"] == "finished" and "rematch" not in seen
    finally:
        await close(eve)


async def test_an_offer_whose_node_stopped_during_its_wait_is_decided_by_another_nodes_sweep(
    clean_redis: str,
) -> None:
    """ada offers on node A, which stops before the wait is over (its timer goes with it):
    node B, where bob is, finds the offer due and decides it, and bob is told it expired."""
    async with running_node(clean_redis) as node_b:
        assert node_b.features is not None
        node_b.features.rematches.sweep_every = 0.1
        async with running_node(clean_redis) as node_a:
            assert node_a.features is not None
            node_a.features.rematches.wait = 1.5
            ada = (await racers(node_a.url, "ada"))[0]
            bob = (await racers(node_b.url, "bob"))[0]
            race_id = await ended(ada, bob)
            offered = await ada.request({"type": "offer_rematch", "race_id": race_id})
            assert offered["rematch"]["status"] == "open"
            await close(ada)
        try:
            assert (await bob.event("rematch_update"))["rematch"]["status"] == "open"
            update = await bob.event("rematch_update", timeout=5.0)
            assert (update["rematch"]["race_id"], update["rematch"]["status"]) == (race_id, "expired")
            answers = {r["player_id"]: r["answer"] for r in update["rematch"]["racers"]}
            assert answers == {ada.player_id: "offered", bob.player_id: "pending"}
            # A new offer may follow it (declined for ada at once: she is connected nowhere).
            again = (await bob.request({"type": "offer_rematch", "race_id": race_id}))["rematch"]
            assert (again["offered_by"], again["status"]) == (bob.player_id, "declined")
        finally:
            await close(bob)


async def test_hints_still_work_where_no_worker_process_can_start(
    arena: ArenaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_process(*args: object, **kwargs: object) -> None:
        raise OSError("no process may start here")

    monkeypatch.setattr("server.worker.ProcessPoolExecutor", no_process)
    async with two_racers(arena.url) as (ada, bob):
        race_id = await running(ada, bob, hints=True)
        hint = await ada.request({"type": "get_hint", "race_id": race_id})
        assert hint["type"] == "hint" and hint["move"] in new_game("eight-off", WINNABLE_SEED).legal_moves()


def store_fails(
    monkeypatch: pytest.MonkeyPatch, target: object, name: str, times: int = 1
) -> list[Exception]:
    """``target.name`` (a store call) raises ConnectionError ``times`` times, then works:
    the failures still to come."""
    real = getattr(target, name)
    failures: list[Exception] = [ConnectionError("the store went away for a moment")] * times

    async def failing(*args: Any, **kwargs: Any) -> Any:
        if failures:
            raise failures.pop()
        return await real(*args, **kwargs)

    monkeypatch.setattr(target, name, failing)
    return failures


async def test_a_rematch_whose_start_loses_the_store_fails_in_words_and_leaves_no_race(
    arena: ArenaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert arena.store is not None
    async with two_racers(arena.url) as (ada, bob):
        race_id = await ended(ada, bob)
        await ada.request({"type": "offer_rematch", "race_id": race_id})
        left = store_fails(monkeypatch, arena.store.races, "start_countdown")
        accepted = await bob.request({"type": "answer_rematch", "race_id": race_id, "accept": True})
        assert not left
        rematch = accepted["rematch"]
        assert (rematch["status"], rematch["reason"]) == ("failed", rematch_feature.NOT_STARTED)
        assert (await decided(ada))["status"] == "failed"  # told too
        assert (await ada.request({"type": "list_my_races"}))["races"] == []
        assert (await ada.request({"type": "list_races"}))["races"] == []
        again = await ada.request({"type": "offer_rematch", "race_id": race_id})
        assert again["rematch"]["status"] == "open"


async def test_a_rematch_left_starting_by_a_node_that_failed_midway_is_failed_by_the_sweep(
    arena: ArenaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store fails the start and the failing of it too (as if its node died midway):
    the offer stays ``starting`` until the sweep finds it past its wait and fails it."""
    assert arena.store is not None and arena.features is not None
    arena.features.rematches.wait = 0.5
    arena.features.rematches.sweep_every = 0.1
    monkeypatch.setattr(rematch_feature, "STARTING_STUCK_MS", 300)
    async with two_racers(arena.url) as (ada, bob):
        race_id = await ended(ada, bob)
        await ada.request({"type": "offer_rematch", "race_id": race_id})
        store_fails(monkeypatch, arena.store.races, "start_countdown")
        store_fails(monkeypatch, arena.store.rematches, "failed")
        accepted = await bob.request({"type": "answer_rematch", "race_id": race_id, "accept": True})
        assert (accepted["type"], accepted["code"]) == ("error", "unavailable")
        record = await arena.store.rematches.get(race_id)
        assert record is not None and record.status == "starting"
        told = await decided(bob)
        assert (told["status"], told["reason"]) == ("failed", rematch_feature.NOT_STARTED)
        again = await bob.request({"type": "offer_rematch", "race_id": race_id})
        assert again["rematch"]["status"] == "open"

"""The store's Lua scripts and domain modules against a real Redis (no sockets, no node)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.store import Answer, Deal, RaceMeta, RacerRecord, RaceStatus, Seat, Store, keys
from server.store.accounts import KNOWN_FOR_MS, Lockout
from server.store.once import MARKER_MS, OnceWrite, OnceWriter
from server.store.queues import Marker
from tests.redis_direct import async_redis

pytestmark = pytest.mark.asyncio


@pytest.fixture
async def store(clean_redis: str) -> AsyncIterator[Store]:
    client = async_redis(clean_redis)
    store = Store(client)
    await store.load_scripts()
    yield store
    await store.aclose()
    await client.aclose()


def a_race(race_id: str = "r1", seats: int = 2, creator: str = "ada") -> RaceMeta:
    return RaceMeta(
        race_id, f"C{race_id.upper()}XX"[:6], "eight-off", seats, 60.0, RaceStatus.OPEN, creator,
        7, "salt", "commit", 1_000, None, None, None,
    )  # fmt: skip


async def open_race(store: Store, *players: str, seats: int = 2, race_id: str = "r1") -> str:
    meta = a_race(race_id, seats=seats, creator=players[0])
    assert await store.races.create(meta, Seat(players[0], players[0], False, 1))
    for index, player in enumerate(players[1:], start=2):
        assert await store.races.join(meta.race_id, Seat(player, player, False, index)) == (
            Answer.OK,
            RaceStatus.OPEN,
        )
    return meta.race_id


async def running_race(store: Store, *players: str, race_id: str = "r1") -> str:
    race_id = await open_race(store, *players, race_id=race_id)
    answer = await store.races.start_countdown(
        race_id, "eight-off", list(players), 2_000, 60_000, {"game": "x"}, 0, "{}", 7
    )
    assert answer is Answer.OK
    assert await store.races.go(race_id, "eight-off", 2_000, "{}", 60_000, Deal(7, (), players)) is Answer.OK
    return race_id


async def move(
    store: Store, race_id: str, player: str, seq: int, now: int = 3_000, won: bool = False
) -> Answer:
    outcome = await store.boards.apply_move(
        race_id, player, seq, sent="T1>F1", position='{"game":"x"}', move_count=seq,
        result='{"move":"t1>f1"}', move="t1>f1", score=seq, won=won, now=now, event="{}", node_id="n1",
    )  # fmt: skip
    return outcome.answer


async def test_join_seats_a_player_once_and_refuses_a_full_race(store: Store) -> None:
    race_id = await open_race(store, "ada", "bob")
    assert await store.races.join(race_id, Seat("bob", "bob", False, 5)) == (Answer.ALREADY, RaceStatus.OPEN)
    assert await store.races.join(race_id, Seat("cy", "cy", False, 5)) == (Answer.FULL, RaceStatus.OPEN)
    assert await store.races.join("nope", Seat("cy", "cy", False, 5)) == (Answer.NOT_FOUND, None)
    assert await store.players.active_races("bob") == [race_id]


async def test_ready_answers_all_ready_when_every_seat_is_ready(store: Store) -> None:
    race_id = await open_race(store, "ada", "bob")
    assert await store.races.set_ready(race_id, "ada", True) is Answer.OK
    assert await store.races.set_ready(race_id, "bob", True) is Answer.ALL_READY


async def test_ready_from_a_non_racer_is_not_a_racer_even_once_the_race_runs(store: Store) -> None:
    race_id = await running_race(store, "ada", "bob")
    assert await store.races.set_ready(race_id, "eve", True) is Answer.NOT_A_RACER
    assert await store.races.set_ready(race_id, "ada", True) is Answer.NOT_OPEN


async def test_a_leave_of_the_unready_only_keeps_a_ready_seat(store: Store) -> None:
    """A rated start unseats those not ready in the step that checks it: a racer who got
    ready just before stays."""
    race_id = await open_race(store, "ada", "bob", "cy", seats=3)
    assert await store.races.set_ready(race_id, "bob", True) is Answer.OK
    assert await store.races.leave(race_id, "bob", ttl=60, only_unready=True) is Answer.READY
    assert await store.races.leave(race_id, "cy", ttl=60, only_unready=True) is Answer.OK
    assert [s.player_id for s in await store.races.seats(race_id)] == ["ada", "bob"]
    assert await store.players.active_races("cy") == []


async def test_leave_passes_the_creator_on_and_the_last_one_out_cancels(store: Store) -> None:
    race_id = await open_race(store, "ada", "bob")
    assert await store.races.leave(race_id, "ada", ttl=60) is Answer.OK
    meta = await store.races.meta(race_id)
    assert meta is not None and meta.creator == "bob"
    assert await store.races.leave(race_id, "bob", ttl=60) is Answer.CANCELLED
    meta = await store.races.meta(race_id)
    assert meta is not None and meta.status is RaceStatus.CANCELLED
    # A join refused says why: the race is not open because it was cancelled.
    assert await store.races.join(race_id, Seat("cy", "cy", False, 5)) == (
        Answer.NOT_OPEN,
        RaceStatus.CANCELLED,
    )
    assert await store.races.open_races() == []
    assert 0 < await store.redis.ttl(keys.race_meta(race_id)) <= 60


async def test_a_started_race_keeps_its_deadline_when_a_clock_dropped_it_while_it_was_open(
    store: Store,
) -> None:
    race_id = await open_race(store, "ada", "bob")
    real_start = store.races._start

    async def start_after_a_clock_looked(**call: object) -> object:
        # Another node's clock saw the fresh deadline of a race still open, and dropped it.
        await store.deadlines.drop(race_id)
        return await real_start(**call)

    store.races._start = start_after_a_clock_looked  # type: ignore[method-assign]
    answer = await store.races.start_countdown(
        race_id, "eight-off", ["ada", "bob"], 2_000, 9_000, {"game": "x"}, 0, "{}", 7
    )
    assert answer is Answer.OK
    assert await store.deadlines.due_at(10_000) == [(race_id, 2_000)]


async def test_start_deals_only_the_seated_players_and_writes_the_deadline_first(store: Store) -> None:
    race_id = await open_race(store, "ada", "bob")
    changed = await store.races.start_countdown(
        race_id, "eight-off", ["ada", "cy"], 2_000, 9_000, {"game": "x"}, 0, "{}", 7
    )
    assert changed is Answer.CHANGED
    # The deadline stays for the clock to drop (the race is still open): no race can be
    # in countdown without one.
    assert [due for due, _at in await store.deadlines.due_at(10_000)] == [race_id]
    assert (
        await store.races.start_countdown(
            race_id, "eight-off", ["ada", "bob"], 2_000, 9_000, {"game": "x"}, 0, "{}", 7
        )
        is Answer.OK
    )
    meta = await store.races.meta(race_id)
    assert meta is not None and meta.status is RaceStatus.COUNTDOWN and meta.ends_at == 9_000
    board = await store.boards.board(race_id, "bob")
    assert board is not None and board.seq == 0 and board.position == {"game": "x"}
    assert await store.races.open_races() == []


async def test_go_waits_for_the_countdown_then_sets_the_time_limit_as_deadline(store: Store) -> None:
    race_id = await open_race(store, "ada", "bob")
    await store.races.start_countdown(
        race_id, "eight-off", ["ada", "bob"], 2_000, 9_000, {"game": "x"}, 0, "{}", 7
    )
    deal = Deal(7, (), ("ada", "bob"))
    assert await store.races.go(race_id, "eight-off", 1_999, "{}", 9_000, deal) is Answer.NO
    assert await store.races.go(race_id, "eight-off", 2_000, "{}", 9_000, deal) is Answer.OK
    assert await store.redis.zscore(keys.DEADLINES, race_id) == 9_000
    assert await store.races.go(race_id, "eight-off", 2_001, "{}", 9_000, deal) is Answer.NO


async def test_go_deals_again_from_the_shares_revealed_in_the_countdown_and_then_takes_none(
    store: Store,
) -> None:
    race_id = await open_race(store, "ada", "bob")
    await store.races.start_countdown(
        race_id, "eight-off", ["ada", "bob"], 2_000, 9_000, {"game": "x"}, 0, "{}", 7
    )
    assert await store.races.reveal_share(race_id, "bob", "0b" * 16) is Answer.OK
    unmixed = Deal(7, (), ("ada", "bob"))
    assert await store.races.go(race_id, "eight-off", 2_000, "{}", 9_000, unmixed) is Answer.CHANGED
    mixed = Deal(99, ("bob",), ("ada", "bob"), {"game": "y"}, 1)
    assert await store.races.go(race_id, "eight-off", 2_000, "{}", 9_000, mixed) is Answer.OK
    meta = await store.races.meta(race_id)
    assert meta is not None and meta.status is RaceStatus.RUNNING and meta.seed == 99
    for player in ("ada", "bob"):
        board = await store.boards.board(race_id, player)
        assert board is not None and board.position == {"game": "y"} and board.score == 1
    assert await store.races.reveal_share(race_id, "ada", "a0" * 16) is Answer.NOT_OPEN
    assert await store.races.reveal_share(race_id, "eve", "a0" * 16) is Answer.NOT_A_RACER


async def test_the_move_script_compares_and_sets_the_seq(store: Store) -> None:
    race_id = await running_race(store, "ada", "bob")
    assert await move(store, race_id, "ada", 1) is Answer.OK
    assert await move(store, race_id, "ada", 1) is Answer.DUP
    assert await move(store, race_id, "ada", 3) is Answer.SEQ
    assert await move(store, race_id, "eve", 1) is Answer.NOT_A_RACER
    assert await move(store, race_id, "ada", 2, now=60_001) is Answer.OVER
    board = await store.boards.board(race_id, "ada")
    assert board is not None and board.seq == 1 and board.last_move == "T1>F1"
    log = await store.boards.move_log(race_id)
    assert [(m.player_id, m.seq, m.move, m.at) for m in log] == [("ada", 1, "t1>f1", 3_000)]


async def test_a_won_move_finishes_the_racer_and_counts_toward_the_end(store: Store) -> None:
    race_id = await running_race(store, "ada", "bob")
    assert await move(store, race_id, "ada", 1, won=True) is Answer.OK
    assert await move(store, race_id, "ada", 2) is Answer.FINISHED
    outcome = await store.boards.finish(race_id, "bob", 4_000, "{}")
    assert outcome.answer is Answer.OK and outcome.all_finished
    assert (await store.boards.finish(race_id, "bob", 4_000, "{}")).answer is Answer.FINISHED


async def test_a_move_is_never_stamped_before_the_racers_last_one_nor_before_the_start(store: Store) -> None:
    """Nodes' clocks differ: a node behind stamps its move at the racer's last move (or the
    start), so a race's record never goes back in time; another racer has their own."""
    race_id = await running_race(store, "ada", "bob")  # started at 2 000
    assert await move(store, race_id, "ada", 1, now=1_500) is Answer.OK  # a node behind the start
    assert await move(store, race_id, "ada", 2, now=3_000) is Answer.OK
    assert await move(store, race_id, "ada", 3, now=2_900, won=True) is Answer.OK  # behind ada's last
    assert await move(store, race_id, "bob", 1, now=2_500) is Answer.OK
    log = await store.boards.move_log(race_id)
    assert [(m.player_id, m.seq, m.at) for m in log] == [
        ("ada", 1, 2_000), ("ada", 2, 3_000), ("ada", 3, 3_000), ("bob", 1, 2_500)
    ]  # fmt: skip
    board = await store.boards.board(race_id, "ada")
    assert board is not None and (board.score_at, board.finished_at) == (3_000, 3_000)


async def test_giving_up_after_the_time_limit_is_refused_as_over_like_a_move(store: Store) -> None:
    """A finish that comes once the time is up (before the clock ended the race) changes
    nothing: the racer played to the time limit; they did not give up."""
    race_id = await running_race(store, "ada", "bob")
    assert (await store.boards.finish(race_id, "ada", 60_001, "{}")).answer is Answer.OVER
    board = await store.boards.board(race_id, "ada")
    assert board is not None and not board.finished
    assert (await store.boards.finish(race_id, "ada", 60_000, "{}")).answer is Answer.OK  # at the limit


async def test_a_move_is_published_only_when_another_node_follows(store: Store) -> None:
    race_id = await running_race(store, "ada", "bob")
    pubsub = store.redis.pubsub()
    await pubsub.subscribe(keys.race_channel(race_id))
    await pubsub.get_message(timeout=1.0)
    await store.events.follow_race(race_id, "n1")  # the mover's own node
    await move(store, race_id, "ada", 1)
    assert await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.2) is None
    await store.events.follow_race(race_id, "n2")
    await move(store, race_id, "ada", 2)
    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
    assert message is not None and message["data"] == "{}"
    await pubsub.aclose()


async def published_counts(pubsub: Any) -> list[int]:
    """The spectator counts published on a subscribed channel so far."""
    counts = []
    while (message := await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.3)) is not None:
        counts.append(json.loads(message["data"])["msg"]["count"])
    return counts


async def test_a_spectator_count_that_expired_is_published_gone_at_the_next_write(store: Store) -> None:
    """A dead node's entry expires: the next write of any node drops it and publishes the
    lower total, even when the writer's own count is unchanged."""
    pubsub = store.redis.pubsub()
    await pubsub.subscribe(keys.race_channel("r1"))
    await pubsub.get_message(timeout=1.0)
    assert await store.watching.set_spectators("r1", "dead", 2, 1_000, 1_000) == 2
    assert await store.watching.set_spectators("r1", "live", 1, 1_500, 30_000) == 3
    assert await published_counts(pubsub) == [2, 3]
    assert await store.watching.set_spectators("r1", "live", 1, 5_000, 30_000) == 1  # dead's expired
    assert await published_counts(pubsub) == [1]
    assert await store.watching.set_spectators("r1", "live", 1, 6_000, 30_000) == 1
    assert await published_counts(pubsub) == []
    await pubsub.aclose()


async def test_forgetting_a_dead_node_takes_its_spectators_out_of_each_live_races_count(store: Store) -> None:
    pubsub = store.redis.pubsub()
    await pubsub.subscribe(keys.race_channel("r1"), keys.race_channel("r2"))
    await pubsub.get_message(timeout=1.0)
    await pubsub.get_message(timeout=1.0)
    for race_id in ("r1", "r2", "r3"):
        await store.watching.add_live(race_id, 1_000)
    await store.watching.set_spectators("r1", "dead", 2, 1_000, 30_000)
    await store.watching.set_spectators("r1", "live", 1, 1_000, 30_000)
    await store.watching.set_spectators("r2", "dead", 4, 1_000, 30_000)
    await store.watching.set_spectators("r3", "live", 5, 1_000, 30_000)
    assert await published_counts(pubsub) == [2, 3, 4]
    assert await store.watching.forget_node("dead", 2_000) == 2
    assert sorted(await published_counts(pubsub)) == [0, 1]
    assert await store.watching.spectators(["r1", "r2", "r3"], 2_000) == [1, 0, 5]
    assert await store.watching.forget_node("dead", 2_000) == 0
    await pubsub.aclose()


async def test_the_end_runs_once_and_stores_the_summary(store: Store) -> None:
    race_id = await running_race(store, "ada", "bob")
    assert await store.races.begin_end(race_id, 5_000)
    assert await store.races.begin_end(race_id, 5_001)  # a crash mid-end: any clock completes it
    meta = await store.races.meta(race_id)
    assert meta is not None
    assert (
        await store.races.complete_end(meta, ["ada", "bob"], json.dumps({"x": 1}), "{}", 60, [], 6_000) == 1
    )
    assert await store.races.complete_end(meta, ["ada", "bob"], "{}", "{}", 60, [], 6_001) == 0
    assert not await store.races.begin_end(race_id, 5_002)
    assert await store.races.summary(race_id) == '{"x": 1}'
    assert await store.deadlines.due_at(10**15) == []


async def test_the_match_script_pairs_waiting_players_and_drops_expired_leases(store: Store) -> None:
    assert await store.queues.match("treize", "ghost", 0, 100) is None  # its lease ends at 100
    assert await store.queues.match("treize", "ada", 200, 30_200) is None  # ghost dropped
    assert await store.queues.match("treize", "ada", 300, 30_300) is None  # a renewal, not a pair
    assert await store.queues.match("treize", "bob", 400, 30_400) == "ada"


async def test_the_casual_queue_keeps_who_it_paired_for_a_minute_or_until_they_queue_again(
    store: Store,
) -> None:
    queues = store.queues
    assert await queues.match("treize", "ada", 0, 30_000) is None
    assert not await queues.paired("treize", "ada", 0)  # waiting, not paired
    assert await queues.match("treize", "bob", 1_000, 31_000) == "ada"
    assert await queues.paired("treize", "ada", 1_000)
    assert not await queues.paired("treize", "bob", 1_000)  # the one who came pairs at once
    assert await queues.paired("treize", "ada", 61_000)
    assert not await queues.paired("treize", "ada", 61_001)  # a minute on
    assert not await queues.paired("eight-off", "ada", 1_000)  # each game its own
    assert await queues.match("treize", "ada", 2_000, 32_000) is None  # she queues again
    assert not await queues.paired("treize", "ada", 2_000)


async def test_a_player_claims_one_queue_at_a_time(store: Store) -> None:
    first = await store.queues.claim("ada", "treize", 30_000)
    assert first.other_game is None and len(first.ticket) == 12
    # The same queue again keeps the stay's ticket; another queue changes nothing.
    assert await store.queues.claim("ada", "treize", 30_000) == (first.ticket, None, None)
    assert await store.queues.claim("ada", "eight-off", 30_000) == (first.ticket, "treize", None)
    # The game's other queue changes nothing either, and says which one she waits in.
    assert await store.queues.claim("ada", "treize", 30_000, rated=True) == (first.ticket, None, False)
    assert (await store.queues.queued("ada")).rated is False  # type: ignore[union-attr]
    await store.queues.unqueue("treize", "ada")
    second = await store.queues.claim("ada", "eight-off", 30_000, holder="node-a")
    assert second.other_game is None and second.ticket != first.ticket
    assert await store.queues.queued("ada") == ("eight-off", "node-a", second.ticket, False)
    # Queueing again from another node: that node keeps the player waiting from now on.
    assert await store.queues.claim("ada", "eight-off", 30_000, holder="node-b") == (
        second.ticket,
        None,
        None,
    )
    assert await store.queues.queued("ada") == ("eight-off", "node-b", second.ticket, False)


async def test_a_renewal_says_what_it_found_of_each_waiting_entry(store: Store) -> None:
    queues = store.queues
    await queues.claim("ada", "treize", 30_000)
    assert await queues.match("treize", "ada", 0, 30_000) is None  # ada waits; bob does not
    entries = [("treize", "ada", False), ("treize", "bob", False)]
    assert await queues.renew(entries, 60_000, 30_000) == [(True, True), (False, False)]
    await store.redis.delete(keys.player_queue("ada"))  # her marker lapsed, her place did not
    assert await queues.renew(entries[:1], 90_000, 30_000) == [(True, False)]
    assert await queues.mark_again("ada", Marker("treize", "node-a", "t1", False), 30_000)
    assert await queues.queued("ada") == ("treize", "node-a", "t1", False)
    assert not await queues.mark_again("ada", Marker("treize", "node-b", "t2"), 30_000)


async def test_a_queue_marker_from_before_tickets_reads_without_one(store: Store, clean_redis: str) -> None:
    client = async_redis(clean_redis)
    try:
        await client.set(keys.player_queue("ada"), "treize node-a")
        assert await store.queues.queued("ada") == ("treize", "node-a", "", None)
        # Asking again for the game gives the stay a ticket, and names its queue, from then on.
        claimed = await store.queues.claim("ada", "treize", 30_000, holder="node-a", rated=True)
        assert claimed.ticket and await store.queues.queued("ada") == (
            "treize",
            "node-a",
            claimed.ticket,
            True,
        )
    finally:
        await client.aclose()


def racer(player_id: str, won: bool, recent: str) -> RacerRecord:
    return RacerRecord(player_id=player_id, won=won, time_ms=900 if won else None, recent=recent)


async def test_an_end_cut_short_after_its_plan_is_finished_from_that_plan_once(store: Store) -> None:
    race_id = await running_race(store, "ada", "bob")
    assert await store.races.begin_end(race_id, 5_000)
    meta = await store.races.meta(race_id)
    assert meta is not None
    first = [racer("ada", True, "first-ada"), racer("bob", False, "first-bob")]
    # A node fixes the plan, then dies before writing anything else.
    plan = {"summary": '{"x": 1}', "event": "{}", "racers": [], "daily": None}
    plan["racers"] = [
        {
            "player_id": r.player_id,
            "won": r.won,
            "recent": r.recent,
            **({"time_ms": r.time_ms} if r.time_ms else {}),
        }
        for r in first
    ]
    await store.races._end_plan(
        keys=[keys.race_meta(race_id), keys.race_end_plan(race_id)], args=[json.dumps(plan)]
    )
    # Two nodes finish it with their own (different) figures: the first plan is written, once.
    second = [racer("ada", False, "second-ada"), racer("bob", True, "second-bob")]
    answers = [
        await store.races.complete_end(meta, ["ada", "bob"], '{"x": 2}', "{}", 60, second, 6_000),
        await store.races.complete_end(meta, ["ada", "bob"], '{"x": 3}', "{}", 60, second, 6_001),
    ]
    assert answers == [1, 0]
    assert await store.races.summary(race_id) == '{"x": 1}'
    assert await store.redis.lrange(keys.player_recent("ada"), 0, -1) == ["first-ada"]
    assert await store.redis.hgetall(keys.player_stats("bob", meta.game)) == {"races": "1"}
    assert await store.redis.hgetall(keys.player_stats("ada", meta.game)) == {
        "races": "1",
        "wins": "1",
        "best_ms": "900",
    }


async def test_a_daily_attempt_given_up_is_marked_beside_its_board_and_an_older_plan_still_ends(
    store: Store,
) -> None:
    day = "2027-03-14"
    for player, daily in (
        ("ada", [day, "ada", 5, True]),
        ("bob", [day, "bob", 6, False]),
        ("cyd", [day, "cyd", 7]),  # a plan fixed before it said whether the attempt was given up
    ):
        race_id = await running_race(store, player, race_id=f"r_{player}")
        assert await store.races.begin_end(race_id, 5_000)
        meta = await store.races.meta(race_id)
        assert meta is not None
        plan = {"summary": "{}", "event": "{}", "racers": [], "daily": daily}
        await store.races._end_plan(
            keys=[keys.race_meta(race_id), keys.race_end_plan(race_id)], args=[json.dumps(plan)]
        )
        assert await store.races.complete_end(meta, [player], "{}", "{}", 60, [], 6_000) == 1
    assert await store.dailies.board(day, "eight-off", 0, 10) == [("ada", 5.0), ("bob", 6.0), ("cyd", 7.0)]
    assert await store.dailies.gave_up(day, "eight-off", ["ada", "bob", "cyd"]) == {"ada"}


async def test_a_days_attempts_keep_its_latest_end_and_each_ones_until_seen_over(store: Store) -> None:
    day = "2027-03-14"
    assert await store.dailies.last_end(day) is None and await store.dailies.unended(day) == []
    await store.dailies.attempt_ends(day, "r1", 5_000)  # its countdown
    await store.dailies.attempt_ends(day, "r2", 3_000)
    await store.dailies.attempt_ends(day, "r1", 4_000)  # a stale start: the later end stands
    assert await store.dailies.last_end(day) == 5_000
    await store.dailies.attempt_ends(day, "r1", 9_000)  # started late: it runs longer
    assert await store.dailies.last_end(day) == 9_000
    assert await store.dailies.unended(day) == [("r2", 3_000), ("r1", 9_000)]
    await store.dailies.forget_ended(day, ["r1"])
    assert await store.dailies.unended(day) == [("r2", 3_000)]
    assert await store.dailies.last_end(day) == 9_000  # an end once kept stays


async def test_apply_once_writes_each_key_once_per_operation_and_refuses_a_moved_rating(store: Store) -> None:
    writer = OnceWriter(store.redis)
    board = keys.leaderboard("treize")
    rating = keys.player_rating("ada", "treize")
    writes = [
        OnceWrite(board, "zincrby", ("ada", 5, "bob", 3)),
        OnceWrite(rating, "rating", (0, 1600.5, 200.0, 0.06, 1, 7_000)),
        OnceWrite(keys.player_recent("ada"), "push", ("r1", 2)),
    ]
    assert await writer.apply("end r1", 10_000, writes) == [1, 1, 1]
    assert await writer.apply("end r1", 10_001, writes) == [0, 0, 0]
    assert await store.redis.zrange(board, 0, -1, withscores=True) == [("bob", 3.0), ("ada", 5.0)]
    assert await store.redis.hget(rating, "games") == "1"
    # Another race computed from games = 0 comes too late: its rating is not written.
    stale = OnceWrite(rating, "rating", (0, 1400.0, 200.0, 0.06, 1, 8_000))
    assert await writer.apply("end r2", 10_002, [stale]) == [-1]
    assert await store.redis.hget(rating, "rating") == "1600.5"
    # The marker lives beside its key (same slot) and forgets after its time.
    assert keys.applied(rating) == "{" + rating + "}:applied"
    assert 0 < await store.redis.pttl(keys.applied(rating)) <= MARKER_MS


async def test_a_move_after_redis_lost_its_scripts_loads_them_again_and_runs_once(store: Store) -> None:
    race_id = await running_race(store, "ada", "bob")
    await store.redis.script_flush()  # as after a restart, or on a promoted replica of Redis 7
    assert await move(store, race_id, "ada", 1) is Answer.OK
    assert [m.seq for m in await store.boards.move_log(race_id)] == [1]
    assert await move(store, race_id, "ada", 2) is Answer.OK


async def test_an_account_knows_its_20_latest_addresses_each_for_30_days_from_its_latest_login(
    store: Store,
) -> None:
    for n in range(25):
        await store.accounts.succeeded("p_1", f"10.0.0.{n}", 1_000 + n)
    known = keys.known_addresses("p_1")
    assert await store.redis.zrange(known, 0, -1) == [f"10.0.0.{n}" for n in range(5, 25)]
    await store.accounts.succeeded("p_1", "10.0.1.1", 1_010 + KNOWN_FOR_MS)
    assert await store.redis.zrange(known, 0, -1) == [*(f"10.0.0.{n}" for n in range(10, 25)), "10.0.1.1"]
    assert KNOWN_FOR_MS - 5_000 <= await store.redis.pttl(known) <= KNOWN_FOR_MS


async def test_a_guess_refused_counts_nothing_and_one_given_back_leaves_no_count(store: Store) -> None:
    for _ in range(2):
        assert await store.accounts.guess_at("p_1", "10.0.0.1", 2, 0, 1_000) is None
    assert await store.accounts.guess_at("p_1", "10.0.0.1", 2, 0, 1_000) == Lockout("account_address", 900)
    assert await store.accounts.guess_at("p_1", "10.0.0.2", 5, 2, 1_000) == Lockout("account", 900)
    pair, account, _ = keys.login_keys("p_1", "10.0.0.1")
    assert [await store.redis.get(key) for key in (pair, account)] == ["2", "2"]
    await store.accounts.not_a_guess_at("p_1", "10.0.0.1")
    await store.accounts.not_a_guess_at("p_1", "10.0.0.1")
    assert await store.redis.exists(pair, account) == 0


async def test_a_join_retried_after_its_seat_was_taken_writes_the_players_races_it_missed(
    store: Store,
) -> None:
    race_id = await open_race(store, "ada", "bob")
    await store.redis.srem(keys.player_active("bob"), race_id)  # the write the store lost
    assert await store.races.join(race_id, Seat("bob", "bob", False, 5)) == (Answer.ALREADY, RaceStatus.OPEN)
    assert await store.players.active_races("bob") == [race_id]


async def test_a_leave_retried_after_its_seat_went_drops_the_race_from_the_players_races(
    store: Store,
) -> None:
    race_id = await open_race(store, "ada", "bob")
    assert await store.races.leave(race_id, "bob", ttl=60) is Answer.OK
    await store.redis.sadd(keys.player_active("bob"), race_id)  # the write the store lost
    assert await store.races.leave(race_id, "bob", ttl=60) is Answer.NOT_A_RACER
    assert await store.players.active_races("bob") == []


async def test_a_leave_retried_after_the_last_one_out_cancelled_unlists_the_race_and_sets_it_to_expire(
    store: Store,
) -> None:
    race_id = await open_race(store, "ada")
    assert await store.races.leave(race_id, "ada", ttl=60) is Answer.CANCELLED
    # The writes after the cancelling script, as if the store was lost before them.
    await store.redis.zadd(keys.OPEN_RACES, {race_id: 1_000})
    await store.redis.zadd(keys.open_races("eight-off"), {race_id: 1_000})
    await store.redis.sadd(keys.player_active("ada"), race_id)
    await store.redis.persist(keys.race_meta(race_id))
    assert await store.races.leave(race_id, "ada", ttl=60) is Answer.NOT_OPEN
    assert await store.redis.zrange(keys.OPEN_RACES, 0, -1) == []
    assert await store.redis.zrange(keys.open_races("eight-off"), 0, -1) == []
    assert await store.players.active_races("ada") == []
    assert 0 < await store.redis.ttl(keys.race_meta(race_id)) <= 60


async def test_a_page_of_open_races_leaves_out_and_unlists_those_no_longer_open_or_long_gone(
    store: Store,
) -> None:
    await open_race(store, "ada", race_id="r1")
    cancelled = await open_race(store, "bob", race_id="r2")
    await store.redis.hset(keys.race_meta(cancelled), "status", "cancelled")  # its unlisting lost
    # Listed without keys: one made a minute ago and gone since, and one being made now.
    await store.redis.zadd(keys.OPEN_RACES, {"gone": 1_000, "unmade": 61_500})
    page, more = await store.races.open_page(None, 0, 10, now=62_000)
    assert [meta.race_id for meta, _ in page] == ["r1"] and not more
    assert await store.redis.zrange(keys.OPEN_RACES, 0, -1) == ["r1", "unmade"]
    assert await store.redis.zrange(keys.open_races("eight-off"), 0, -1) == ["r1"]


async def test_races_no_longer_go_into_a_players_every_race_set_and_a_visit_deletes_the_old_one(
    store: Store,
) -> None:
    await open_race(store, "ada", "bob")
    await store.races.leave("r1", "bob", ttl=60)
    assert await store.redis.exists(keys.legacy_player_races("ada"), keys.legacy_player_races("bob")) == 0
    await store.redis.sadd(keys.legacy_player_races("ada"), "r0", "r1")  # as earlier versions kept it
    await store.players.keep("ada", ttl=0)
    assert await store.redis.exists(keys.legacy_player_races("ada")) == 0

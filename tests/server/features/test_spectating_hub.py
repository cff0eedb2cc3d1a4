"""The spectators' hub: what it releases is each racer's own view (never a face-down
card), in order, never before the delay, whatever the races (property tests)."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from server.features.spectating import RaceHub
from shared import GAMES, UndoRule, new_game
from shared.knowledge import known_piles
from shared.protocol import LiveRace, RacerInfo


def hub_for(game: str, seed: int, players: list[str], delay_ms: int = 0, status: str = "running") -> RaceHub:
    race = LiveRace(
        race_id="r1",
        game=game,  # type: ignore[arg-type]  # one of GAMES
        status=status,  # type: ignore[arg-type]  # a watchable status
        rated=delay_ms > 0,
        racers=[RacerInfo(player_id=p, name=p) for p in players],
    )
    return RaceHub(race, seed, delay_ms)


def face_down_cards(position_pile: list[str], shown: list[str]) -> list[str]:
    return [card for card in position_pile if card not in shown]


@settings(max_examples=40, deadline=None)
@given(
    game=st.sampled_from(sorted(GAMES)),
    seed=st.integers(min_value=0, max_value=2**63 - 1),
    choices=st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=60),
)
def test_every_released_board_is_exactly_what_its_racer_sees_and_no_card_a_racer_has_not(
    game: str, seed: int, choices: list[int]
) -> None:
    hub = hub_for(game, seed, ["a", "b"])
    racers = {p: new_game(game, seed, undo_rule=UndoRule.KEEP_REVEALS) for p in ("a", "b")}
    seen = {p: known_cards(racers[p].view()) for p in racers}
    seqs = {"a": 0, "b": 0}
    boards: dict[tuple[str, int], tuple[dict[str, Any], dict[str, list[str]]]] = {}
    shown = {"a": 0, "b": 0}
    paused: set[str] = set()  # the boards spectators were told are held

    def check(released: list[dict[str, Any]], ended: bool = False) -> None:
        for message in released:
            if message["type"] == "watch_held":
                # Told once as a board stops and once as it goes on, never twice alike.
                assert message["held"] is (message["player_id"] not in paused)
                paused.symmetric_difference_update({message["player_id"]})
                continue
            if message["type"] != "watch_move":
                continue
            player, other = message["player_id"], "b" if message["player_id"] == "a" else "a"
            assert player not in paused  # a board said to be held moves only once said to go on
            assert message["seq"] == shown[player] + 1  # each racer's moves in order
            shown[player] = message["seq"]
            view, position = boards[(player, message["seq"])]
            assert message["view"] == view
            for name, pile in view["piles"].items():
                hidden = face_down_cards(position[name], pile["cards"])
                assert len(hidden) == pile["count"] - len(pile["cards"])
                assert not set(hidden) & set(pile["cards"])  # a hidden card is never shown
            if not ended and not racers[other].is_won:
                assert known_cards(view) <= seen[other]  # no card the other has not seen

    for step, choice in enumerate(choices):
        player = "ab"[step % 2]
        board = racers[player]
        moves = board.legal_moves() + (["undo"] if board.can_undo() else [])
        if not moves or board.is_won:
            continue
        move = board.play(moves[choice % len(moves)]).move
        seqs[player] += 1
        seen[player] |= known_cards(board.view())
        boards[(player, seqs[player])] = (board.view(), board.position()["piles"])
        hub.receive_move(player, seqs[player], move, at=1_000 + step)
        check(hub.release(now=1_000 + step))
    hub.receive_event({"type": "race_ended", "race_id": "r1"}, at=5_000)
    check(hub.release(now=5_000), ended=True)
    assert {b["player_id"]: b["seq"] for b in hub.snapshot()} == seqs == shown
    assert not paused and not [b for b in hub.snapshot() if "held" in b]


def known_cards(view: dict[str, Any]) -> set[str]:
    return {card for pile in known_piles(view).values() for card in pile if card}


@settings(max_examples=30, deadline=None)
@given(
    delay=st.integers(min_value=1, max_value=60_000),
    gaps=st.lists(st.integers(min_value=0, max_value=20_000), min_size=1, max_size=30),
    ticks=st.lists(st.integers(min_value=0, max_value=90_000), min_size=1, max_size=30),
)
def test_nothing_is_released_before_the_delay(delay: int, gaps: list[int], ticks: list[int]) -> None:
    hub = hub_for("eight-off", 5, ["a"], delay_ms=delay)
    board = new_game("eight-off", 5, undo_rule=UndoRule.KEEP_REVEALS)
    rng = random.Random(len(gaps))
    at = 1_000
    for seq, gap in enumerate(gaps, start=1):
        at += gap
        moves = board.legal_moves() or ["undo"]  # Eight Off can always take a move back
        hub.receive_move("a", seq, board.play(rng.choice(moves)).move, at)
    released = []
    for now in [*sorted(1_000 + t for t in ticks), at + delay]:
        for message in hub.release(now):
            assert now >= message["at"] + delay
            released.append(message["seq"])
    assert released == list(range(1, len(gaps) + 1))


def test_a_move_seen_twice_or_out_of_order_is_played_once() -> None:
    hub = hub_for("eight-off", 5, ["a"])
    board = new_game("eight-off", 5)
    first = board.play(board.legal_moves()[0]).move
    second = board.play(board.legal_moves()[0]).move
    hub.receive_move("a", 1, first, 10)
    hub.receive_move("a", 1, first, 10)  # from the log and from the channel
    hub.receive_move("a", 3, "t1>t2", 12)  # a gap: ignored
    hub.receive_move("a", 2, second, 11)
    assert [m["seq"] for m in hub.release(100)] == [1, 2]
    assert hub.snapshot()[0]["view"] == board.view()


def test_a_spectator_count_is_the_other_nodes_as_published_and_this_nodes_as_it_is_now() -> None:
    hub = hub_for("eight-off", 5, ["a"], delay_ms=30_000)
    board = new_game("eight-off", 5)
    hub.receive_move("a", 1, board.play(board.legal_moves()[0]).move, 1_000)
    hub.count_elsewhere(7)
    assert hub.recount(2) == 9 and hub.live_race().spectators == 9  # no wait behind the boards
    hub.receive_event({"type": "spectators", "race_id": "r1", "count": 1}, 1_001)  # not its way in
    assert hub.recount(3) == 10
    assert [m["seq"] for m in hub.release(31_000)] == [1]


def test_the_snapshot_names_the_last_move_released_never_one_still_waiting() -> None:
    hub = hub_for("eight-off", 5, ["a", "b"], delay_ms=30_000)
    assert [b.get("last_move") for b in hub.snapshot()] == [None, None]
    assert all("last_move" not in b for b in hub.snapshot())  # left out, as on the wire
    board = new_game("eight-off", 5)
    first = board.play(board.legal_moves()[0]).move
    second = board.play(next(m for m in board.legal_moves() if m != first)).move
    hub.receive_move("a", 1, first, 1_000)
    hub.receive_move("a", 2, second, 2_000)
    hub.release(31_500)  # the first is shown, the second still waits
    a, b = hub.snapshot()
    assert (a["seq"], a["last_move"]) == (1, first) and "last_move" not in b
    (released,) = hub.release(32_000)
    assert released["move"] == second == hub.snapshot()[0]["last_move"]


def test_a_start_on_another_deal_deals_the_boards_again_before_the_first_move() -> None:
    """Seed shares revealed during the countdown change the deal at the start: a hub opened
    during the countdown plays the racers' moves on the deal they started with."""
    hub = hub_for("treize", 5, ["a", "b"], delay_ms=1_000, status="countdown")
    started = {"type": "race_started", "race_id": "r1", "starts_at": 2_000, "ends_at": 9_000}
    hub.receive_event(started, 2_000, deal=6)
    played = new_game("treize", 6, undo_rule=UndoRule.KEEP_REVEALS)
    first = played.legal_moves()[0]
    played.play(first)
    hub.receive_move("a", 1, first, at=2_100)
    hub.receive_move("b", 1, first, at=2_200)  # b has seen every card a's board shows
    assert not [b for b in hub.snapshot() if "view" in b]  # the start is not released yet
    kinds = [m["type"] for m in hub.release(now=3_200)]
    assert kinds == ["race_started", "watch_move", "watch_move"]
    views = {b["player_id"]: b["view"] for b in hub.snapshot()}
    assert views == {"a": played.view(), "b": played.view()}


def test_a_board_ahead_waits_until_the_others_have_turned_up_its_cards_or_stopped_racing() -> None:
    """Treize's racers turn up the same stock cards in the same order: a spectator (the
    racer too, in another session) sees a board only as far as every racer still racing
    has seen its cards."""
    hub = hub_for("treize", 5, ["a", "b"])
    hub.receive_move("a", 1, "deal", at=1_000)
    # b has not turned that card up: spectators are told a's board is held.
    assert hub.release(now=1_000) == [held("a", True)]
    assert [b.get("held") for b in hub.snapshot()] == [True, None]  # and so is a newcomer
    hub.receive_move("b", 1, "deal", at=1_100)
    assert [(m["type"], m["player_id"], m.get("seq")) for m in hub.release(now=1_100)] == [
        ("watch_held", "a", None),
        ("watch_move", "a", 1),
        ("watch_move", "b", 1),
    ]
    assert all("held" not in b for b in hub.snapshot())
    hub.receive_move("a", 2, "deal", at=1_200)
    assert hub.release(now=1_200) == [held("a", True)]
    hub.receive_move("a", 3, "deal", at=1_300)
    assert hub.release(now=1_300) == [] and hub.waiting  # still held: nothing new to say
    gave_up = {"type": "progress", "race_id": "r1", "player_id": "b", "finished": True, "won": False}
    hub.receive_event(gave_up, at=1_400)  # b no longer races: nothing is kept from b
    released = hub.release(now=1_400)
    assert released[0] == held("a", False)
    assert [(m["type"], m.get("seq")) for m in released[1:]] == [
        ("watch_move", 2),
        ("watch_move", 3),
        ("progress", None),
    ]


def held(player_id: str, is_held: bool) -> dict[str, Any]:
    return {"type": "watch_held", "race_id": "r1", "player_id": player_id, "held": is_held}


def test_the_races_end_lets_out_every_board_kept_back() -> None:
    hub = hub_for("eagle-wing", 5, ["a", "b"], delay_ms=1_000)
    hub.receive_move("a", 1, "deal", at=1_000)
    assert hub.release(now=2_000) == [held("a", True)]
    hub.receive_event({"type": "race_ended", "race_id": "r1"}, at=2_000)
    released = hub.release(now=3_000)
    assert released[0] == held("a", False)  # before the end: the board goes on first
    assert [m["type"] for m in released[1:]] == ["watch_move", "race_ended"]
    assert all("held" not in b for b in hub.snapshot())


def test_a_hub_opened_in_the_countdown_shows_no_board_until_the_start_is_released() -> None:
    """Nobody sees the deal before the race starts: the snapshot names each racer with no
    view, whatever the delay, until the start comes out of the hub."""
    hub = hub_for("eight-off", 5, ["a", "b"], delay_ms=30_000, status="countdown")
    counting = [{"player_id": p, "seq": 0, "finished": False, "won": False} for p in ("a", "b")]
    assert hub.snapshot() == counting
    started = {"type": "race_started", "race_id": "r1", "starts_at": 2_000, "ends_at": 9_000}
    hub.receive_event(started, 2_000, deal=5)
    assert hub.release(now=31_999) == [] and hub.snapshot() == counting
    assert hub.release(now=32_000) == [started]
    assert [b["view"] for b in hub.snapshot()] == [new_game("eight-off", 5).view()] * 2


def test_a_racer_giving_up_read_twice_is_released_once() -> None:
    # A hub reads the race again after a pub/sub gap: what it already had comes again.
    hub = hub_for("eight-off", 7, ["a", "b"])
    gave_up = {"type": "progress", "race_id": "r1", "player_id": "a", "finished": True, "won": False}
    hub.receive_event(dict(gave_up), at=1_000)
    hub.receive_event(dict(gave_up), at=1_000)
    hub.receive_event({**gave_up, "player_id": "b"}, at=1_001)
    released = hub.release(now=2_000)
    assert [(m["type"], m["player_id"]) for m in released] == [("progress", "a"), ("progress", "b")]


def test_a_racers_new_name_is_released_at_once_while_their_moves_wait_for_the_delay() -> None:
    """A name is not a board: a rename (the seats of a ``race_update``) goes out at the next
    release, ahead of a move still waiting, and the snapshot's racers take it; the rest of
    the ``race_update`` (live progress) never reaches spectators."""
    hub = hub_for("eight-off", 5, ["a", "b"], delay_ms=30_000)
    board = new_game("eight-off", 5)
    move = board.play(board.legal_moves()[0]).move
    hub.receive_move("a", 1, move, 1_000)
    racers = [
        {"player_id": "a", "name": "ada two", "score": 3, "move_count": 1},
        {"player_id": "b", "name": "b", "score": 0, "move_count": 0},
    ]
    update = {"type": "race_update", "race": {"race_id": "r1", "racers": racers}}
    hub.receive_event(update, 1_001)
    hub.receive_event(update, 1_002)  # the same names again: nothing new
    assert hub.release(now=1_050) == [
        {"type": "racer_renamed", "race_id": "r1", "player_id": "a", "name": "ada two"}
    ]
    assert [(r.name, r.move_count) for r in hub.live_race().racers] == [("ada two", 0), ("b", 0)]
    assert [m["type"] for m in hub.release(now=31_000)] == ["watch_move"]

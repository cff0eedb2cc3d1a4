"""Undo: the move stack restores the exact position, and the race rule keeps reveals."""

from __future__ import annotations

import gc
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared import GAMES, Game, IllegalMove, MoveResult, RuleViolation, UndoRule, new_game, replay

PLAYOUT = settings(
    max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


def snapshot(game: Game) -> tuple[Any, ...]:
    """Everything a player or the rules could tell apart."""
    return (game.position(), game.move_count, game.score, game.is_won, game.view(), game.legal_moves())


@PLAYOUT
@given(game_id=st.sampled_from(GAMES), seed=st.integers(0, 2**40), walk=st.integers(0, 2**32))
def test_play_then_undo_is_the_identity_after_every_move_of_a_random_playout(
    game_id: str, seed: int, walk: int
) -> None:
    game, rng = new_game(game_id, seed), random.Random(walk)
    seen = [snapshot(game)]
    for _ in range(rng.randrange(20, 160)):
        legal = game.legal_moves()
        if not legal:
            break
        game.play(rng.choice(legal))
        seen.append(snapshot(game))
        if rng.random() < 0.2:  # an undo mid-game, then play on
            game.undo()
            seen.pop()
            assert snapshot(game) == seen[-1]
    while len(seen) > 1:
        result = game.play("undo")
        seen.pop()
        assert snapshot(game) == seen[-1]
        assert result.move == "undo"
    assert snapshot(game) == snapshot(new_game(game_id, seed))
    assert not game.can_undo()


def _play_until(game: Game, wanted: str) -> None:
    """Play random legal moves until the last move's result names ``wanted``."""
    rng = random.Random(0)
    for _ in range(2000):
        legal = game.legal_moves()
        if wanted in legal:
            game.play(wanted)
            return
        game.play(rng.choice(legal))
    raise AssertionError(f"{wanted} never became legal")


def random_moves(game: Game, seed: int, moves: int) -> Iterator[tuple[tuple[Any, ...], MoveResult]]:
    """Play up to ``moves`` random legal moves, yielding the snapshot before each and its result."""
    rng = random.Random(seed)
    for _ in range(moves):
        legal = game.legal_moves()
        if not legal:
            return
        before = snapshot(game)
        yield before, game.play(rng.choice(legal))


@pytest.mark.parametrize("game_id", GAMES)
def test_undo_of_each_move_kind_restores_score_and_move_count(game_id: str) -> None:
    for seed in range(25):
        game = new_game(game_id, seed)
        for before, result in random_moves(game, seed, 120):
            after = snapshot(game)
            undone = game.undo()
            assert snapshot(game) == before
            assert undone.score_delta == -result.score_delta
            assert undone.to_dict()["steps"] == [[s.card, s.dst, s.src] for s in reversed(result.steps)]
            game.play(result.move)
            assert snapshot(game) == after


def test_eagle_wing_redeal_and_reserve_auto_fill_are_undone_exactly() -> None:
    redeal_seen = fill_seen = False
    for seed in range(40):
        game = new_game("eagle-wing", seed)
        for before, result in random_moves(game, seed, 300):
            redeal_seen |= result.move == "redeal"
            fill_seen |= any(step.src == "reserve" for step in result.steps[1:])
            if result.move == "redeal" or any(step.src == "reserve" for step in result.steps[1:]):
                game.undo()
                assert snapshot(game) == before
                game.play(result.move)
    assert redeal_seen and fill_seen


def test_nothing_to_undo_at_the_deal_is_refused_with_a_reason() -> None:
    game = new_game("treize", 1)
    with pytest.raises(RuleViolation, match="no move to undo"):
        game.play("undo")
    assert snapshot(game) == snapshot(new_game("treize", 1))


def test_undo_is_notation_in_any_case_and_spacing() -> None:
    game = new_game("eight-off", 2)
    game.play(game.legal_moves()[0])
    assert game.play(" UNDO ").move == "undo"
    assert game.move_count == 0


def test_replay_reproduces_a_log_with_undos() -> None:
    game, rng, log = new_game("eight-off", 9), random.Random(3), []
    for i in range(60):
        legal = game.legal_moves()
        if (i % 5 == 4 or not legal) and game.can_undo():
            log.append(game.play("undo").move)
        elif legal:
            log.append(game.play(rng.choice(legal)).move)
    assert log.count("undo") >= 10
    assert snapshot(replay("eight-off", 9, log)) == snapshot(game)


def test_a_copy_keeps_the_moves_to_undo_and_is_independent() -> None:
    game = new_game("eight-off", 5)
    start = snapshot(game)
    game.play(game.legal_moves()[0])
    twin = game.copy()
    twin.undo()
    assert snapshot(twin) == start
    assert game.move_count == 1 and game.can_undo()


# ----- the race rule: a move that turned up a hidden card stays ------------------------


@pytest.mark.parametrize("game_id", ["treize", "eagle-wing"])
def test_in_a_race_a_deal_cannot_be_undone(game_id: str) -> None:
    game = new_game(game_id, 4, undo_rule=UndoRule.KEEP_REVEALS)
    before = snapshot(game)
    game.play("deal")
    assert not game.can_undo()
    with pytest.raises(RuleViolation, match="turned up a card nobody had seen"):
        game.play("undo")
    after = snapshot(game)
    assert after != before and snapshot(game) == after
    free = new_game(game_id, 4)  # casual play: anything goes back
    free.play("deal")
    free.play("undo")
    assert snapshot(free) == before


def test_in_a_race_moves_before_a_reveal_stay_too() -> None:
    game = new_game("eight-off", 4)
    game.undo_rule = UndoRule.KEEP_REVEALS
    game.play(game.legal_moves()[0])
    assert game.can_undo()  # eight off hides nothing: every move can be taken back
    tz = new_game("treize", 11, undo_rule=UndoRule.KEEP_REVEALS)
    tz.play("deal")
    removal = next((m for m in tz.legal_moves() if m != "deal"), None)
    if removal is None:
        pytest.skip("deal 11 has no removal after one deal")
    tz.play(removal)
    tz.play("undo")  # the removal goes back ...
    with pytest.raises(RuleViolation):
        tz.play("undo")  # ... the deal before it does not


def test_in_a_race_an_auto_fill_from_a_hidden_reserve_stays_but_the_last_reserve_card_may_go_back() -> None:
    hidden_fill = last_card_fill = False
    for seed in range(300):
        game = new_game("eagle-wing", seed, undo_rule=UndoRule.KEEP_REVEALS)
        rng = random.Random(seed)
        for _ in range(300):
            legal = game.legal_moves()
            if not legal:
                break
            emptying = [m for m in legal if m.startswith("t") and ">f" in m]  # these fill from the reserve
            result = game.play(rng.choice(emptying or legal))
            if not any(step.src == "reserve" for step in result.steps[1:]):
                continue
            if game.piles["reserve"]:
                hidden_fill = True
                before = snapshot(game)
                with pytest.raises(IllegalMove, match="turned up a card"):
                    game.undo()
                assert snapshot(game) == before
            else:
                last_card_fill = True
                game.undo()
                game.play(result.move)
        if hidden_fill and last_card_fill:
            return
    pytest.fail(f"not both kinds of auto-fill met: hidden {hidden_fill}, last card {last_card_fill}")


@pytest.mark.parametrize("game_id", GAMES)
def test_the_moves_kept_for_undo_leave_the_garbage_collector_at_its_first_look(game_id: str) -> None:
    """A server holds a thousand games, each with every move kept for undo: records the
    collector went on tracking would be walked again by every older collection."""
    game, rng = new_game(game_id, 11), random.Random(5)
    for _ in range(30):
        legal = game.legal_moves()
        if not legal:
            break
        game.play(rng.choice(legal))
    kept = list(game._history)
    assert len(kept) >= 8
    gc.collect(0)
    assert [gc.is_tracked(record) for record in kept] == [False] * len(kept)
    while game.can_undo():  # and they still take every move back
        game.undo()
    assert game.position() == new_game(game_id, 11).position()

"""Hints: a legal move chosen from the view alone, so hidden cards never change it."""

from __future__ import annotations

import random

import pytest
from enginekit import played, with_hidden_shuffled

from shared import new_game
from shared.knowledge import view_key
from shared.strategies import hint, reached_keys


@pytest.mark.parametrize("game_id", ["eagle-wing", "treize"])
def test_two_deals_differing_only_in_hidden_cards_get_the_same_hint(game_id: str) -> None:
    differing = 0
    for seed in range(12):
        game = played(game_id, seed, seed * 3)
        twin = with_hidden_shuffled(game, random.Random(seed))
        assert twin.view() == game.view()
        differing += twin.position() != game.position()
        assert hint(twin.view()) == hint(game.view())
    assert differing >= 10  # the twins really hide other cards


@pytest.mark.parametrize("game_id", ["eagle-wing", "treize", "eight-off"])
def test_a_hint_is_one_of_the_legal_moves_and_the_same_when_asked_again(game_id: str) -> None:
    for seed in range(8):
        game = played(game_id, seed, 10)
        legal = game.legal_moves()
        first = hint(game.view(), legal)
        assert first in legal if legal else first is None
        assert hint(game.view(), legal) == first


def test_following_the_hints_wins_a_winnable_eight_off_deal() -> None:
    game = played("eight-off", 2, 0)
    while not game.is_won:  # the search's own line on a winnable deal: each hint moves on
        move = hint(game.view(), game.legal_moves())
        assert move is not None
        game.play(move)
        if game.move_count > 300:
            pytest.fail("hints did not win deal 2 of eight off in 300 moves")


#: An Eight Off deal on which following the hints once went round in circles after 21
#: moves: then every move left leads back to a position the board had.
STUCK_SEED = 57


def test_following_the_hints_never_comes_back_to_a_position_and_ends_with_no_hint() -> None:
    game = new_game("eight-off", STUCK_SEED)
    reached, played = {view_key(game.view())}, []
    while (move := hint(game.view(), game.legal_moves(), reached)) is not None:
        game.play(move)
        played.append(move)
        key = view_key(game.view())
        assert key not in reached, f"hint {move} (move {game.move_count}) came back to a position"
        reached.add(key)
    assert game.move_count == 21 and game.legal_moves() and not game.is_won
    # The server's list of where a board has been: from the deal and the moves, undo included.
    assert reached_keys("eight-off", STUCK_SEED, [*played, "undo"]) == reached

"""A move's changed view: laid over the view before the move, it is the whole view after
it, for every game, every move (autoplay and redeals included) and every undo."""

from __future__ import annotations

import random
from typing import Any

import pytest
from enginekit import move_or_undo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared import GAMES, Game, new_game
from shared.views import merged_view

PLAYOUT = settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


def playout(game: Game, rng: random.Random, moves: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(view before, changed view) of each move or undo of a random playout."""
    seen = []
    for _ in range(moves):
        before = dict(game.view())
        if not move_or_undo(game, rng, 0.15):
            break
        seen.append((before, dict(game.changed_view())))
        assert merged_view(before, seen[-1][1]) == game.view()
    return seen


@PLAYOUT
@given(
    game_id=st.sampled_from(GAMES), seed=st.integers(min_value=0, max_value=2**40), walk=st.integers(0, 2**32)
)
def test_the_changed_view_laid_over_the_view_before_is_the_view_after(
    game_id: str, seed: int, walk: int
) -> None:
    playout(new_game(game_id, seed), random.Random(walk), moves=120)


@pytest.mark.parametrize("game_id", GAMES)
def test_the_changed_view_holds_only_the_piles_a_move_changed(game_id: str) -> None:
    game = new_game(game_id, 7)
    total = 0
    for before, changed in playout(game, random.Random(1), moves=60):
        total += len(changed["piles"])
        unchanged = [n for n, pile in changed["piles"].items() if before["piles"][n] == pile]
        # A pile is in the changed view only when a step moved a card onto or off it: its
        # count always changes, unless a card left and another came (a card moved twice).
        assert len(unchanged) <= 1, unchanged
        assert {k for k in changed if k != "piles"} == {k for k in before if k != "piles"}
    assert 0 < total < 60 * len(game.pile_names) / 2  # far fewer piles than whole views


@pytest.mark.parametrize("game_id", GAMES)
def test_every_pile_shows_in_pile_views_as_in_the_whole_view(game_id: str) -> None:
    game = new_game(game_id, 11)
    rng = random.Random(3)
    for _ in range(80):
        assert game.pile_views(game.pile_names) == game.view()["piles"]
        legal = game.legal_moves()
        if not legal:
            break
        game.play(rng.choice(legal))

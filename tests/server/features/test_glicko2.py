"""Glicko-2: Glickman's worked example, and the properties a rating system must have."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.features.glicko2 import SCALE, Rating, decay, pairwise_results, rate

ratings = st.builds(
    Rating,
    rating=st.floats(800, 2400),
    rd=st.floats(50, 350),
    volatility=st.floats(0.03, 0.09),
)
PROPERTIES = settings(max_examples=300, deadline=None, derandomize=True)


def test_glickmans_worked_example_to_the_published_precision() -> None:
    player = Rating(1500, 200, 0.06)
    games = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    new = rate(player, games, tau=0.5)
    # The paper publishes mu' = -0.2069, phi' = 0.8722, sigma' = 0.05999, and r' = 1464.06,
    # RD' = 151.52 computed from those rounded values.
    assert round((new.rating - 1500) / SCALE, 4) == -0.2069
    assert round(new.rd / SCALE, 4) == 0.8722
    assert new.volatility == pytest.approx(0.05999, abs=0.00001)
    assert new.rating == pytest.approx(1464.06, abs=0.01)
    assert round(new.rd, 2) == 151.52


def test_a_period_without_games_widens_the_deviation_only() -> None:
    player = Rating(1700, 100, 0.06)
    later = rate(player, [])
    assert later.rating == 1700 and later.volatility == 0.06
    assert later.rd == pytest.approx(SCALE * ((100 / SCALE) ** 2 + 0.06**2) ** 0.5)
    assert decay(Rating(1500, 349), periods=50).rd == 350.0


@PROPERTIES
@given(player=ratings, opponent=ratings)
def test_a_win_never_lowers_a_rating_and_a_loss_never_raises_it(player: Rating, opponent: Rating) -> None:
    assert rate(player, [(opponent, 1.0)]).rating >= player.rating
    assert rate(player, [(opponent, 0.0)]).rating <= player.rating


@PROPERTIES
@given(player=ratings, opponents=st.lists(st.tuples(ratings, st.sampled_from([0.0, 0.5, 1.0])), min_size=1))
def test_games_leave_the_deviation_below_what_a_quiet_period_would(
    player: Rating, opponents: list[tuple[Rating, float]]
) -> None:
    new = rate(player, opponents)
    quiet = SCALE * ((player.rd / SCALE) ** 2 + new.volatility**2) ** 0.5
    assert new.rd < quiet


@PROPERTIES
@given(player=ratings, games=st.integers(1, 12))
def test_the_deviation_shrinks_as_games_are_played(player: Rating, games: int) -> None:
    opponent = Rating(player.rating, 80, 0.06)
    after = rate(player, [(opponent, 0.5)] * games)
    more = rate(player, [(opponent, 0.5)] * (games + 1))
    assert more.rd < after.rd


@PROPERTIES
@given(rating_a=st.floats(1000, 2000), rating_b=st.floats(1000, 2000), rd=st.floats(60, 300))
def test_one_game_between_equally_certain_players_about_conserves_their_sum(
    rating_a: float, rating_b: float, rd: float
) -> None:
    a, b = Rating(rating_a, rd), Rating(rating_b, rd)
    new_a, new_b = rate(a, [(b, 1.0)]), rate(b, [(a, 0.0)])
    assert new_a.rating + new_b.rating == pytest.approx(rating_a + rating_b, abs=1.0)


def test_a_race_of_n_racers_is_n_minus_one_games_each_with_ties_as_draws() -> None:
    games = pairwise_results([2, 1, 2, 4])
    assert [len(row) for row in games] == [3, 3, 3, 3]
    assert games[1] == [(0, 1.0), (2, 1.0), (3, 1.0)]
    assert games[0] == [(1, 0.0), (2, 0.5), (3, 1.0)]
    assert games[3] == [(0, 0.0), (1, 0.0), (2, 0.0)]


def test_a_score_outside_0_to_1_is_refused() -> None:
    with pytest.raises(ValueError, match="a score is"):
        rate(Rating(), [(Rating(), 2.0)])


far_apart = st.builds(
    Rating,
    rating=st.floats(-1e6, 1e6),
    rd=st.floats(1, 350),
    volatility=st.floats(0.01, 0.2),
)


def test_a_sure_win_far_above_the_opponent_leaves_both_about_where_they_were() -> None:
    # The expected score rounds to 1.0 here: the exact v = 1 / (g^2 E (1 - E)) divided by zero.
    winner, loser = (
        rate(Rating(8000, 50), [(Rating(1500, 50), 1.0)]),
        rate(Rating(1500, 50), [(Rating(8000, 50), 0.0)]),
    )
    assert winner.rating == pytest.approx(8000) and loser.rating == pytest.approx(1500)
    upset = rate(Rating(1500, 50), [(Rating(8000, 50), 1.0)])
    assert 1500 < upset.rating < 1500 + upset.rd**2 / SCALE  # at most g phi'^2 on the internal scale


@PROPERTIES
@given(
    player=far_apart, opponents=st.lists(st.tuples(far_apart, st.sampled_from([0.0, 0.5, 1.0])), min_size=1)
)
def test_ratings_however_far_apart_rate_to_finite_numbers(
    player: Rating, opponents: list[tuple[Rating, float]]
) -> None:
    new = rate(player, opponents)
    assert all(math.isfinite(x) for x in (new.rating, new.rd, new.volatility)), new
    assert new.rd > 0 and new.volatility > 0

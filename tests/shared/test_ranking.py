"""The race ranking rule (shared.ranking), which the server's standings and the record
verifier share."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.ranking import rank_results, result_key, tie_ranks


def test_the_faster_winner_ranks_first_and_every_winner_above_every_other_racer() -> None:
    ranked = rank_results(
        [
            ("slow", result_key(True, 90_000, 52, 90_000)),
            ("close", result_key(False, None, 51, 10_000)),
            ("fast", result_key(True, 60_000, 52, 60_000)),
        ]
    )
    assert ranked == [(1, "fast"), (2, "slow"), (3, "close")]


def test_among_non_winners_the_higher_score_ranks_first_whenever_it_was_reached() -> None:
    ranked = rank_results(
        [("early", result_key(False, None, 20, 1_000)), ("late", result_key(False, None, 30, 99_000))]
    )
    assert ranked == [(1, "late"), (2, "early")]


def test_equal_scores_go_to_who_reached_the_score_first() -> None:
    ranked = rank_results(
        [("b", result_key(False, None, 30, 5_000)), ("a", result_key(False, None, 30, 6_000))]
    )
    assert ranked == [(1, "b"), (2, "a")]


def test_equal_results_share_a_rank_are_listed_by_player_id_and_the_next_rank_skips() -> None:
    same = result_key(False, None, 30, 5_000)
    ranked = rank_results([("c", same), ("a", same), ("d", result_key(False, None, 1, 0)), ("b", same)])
    assert ranked == [(1, "a"), (1, "b"), (1, "c"), (4, "d")]


def test_a_winner_who_took_the_same_time_ties_and_the_time_of_a_non_winner_is_ignored() -> None:
    assert result_key(True, 5_000, 52, 5_000) == result_key(True, 5_000, 52, 4_000)
    assert result_key(False, 7, 10, 100) == result_key(False, None, 10, 100)


def test_a_winner_needs_a_time_to_win() -> None:
    with pytest.raises(ValueError, match="time it took to win"):
        result_key(True, None, 52, 0)


def test_tie_ranks_of_nothing_is_nothing() -> None:
    assert tie_ranks([]) == [] and rank_results([]) == []


results = st.tuples(st.booleans(), st.integers(0, 10**6), st.integers(0, 52), st.integers(0, 10**6))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.dictionaries(st.text("abcdef", min_size=1, max_size=3), results, max_size=8))
def test_ranks_never_depend_on_the_order_results_come_in(
    racers: dict[str, tuple[bool, int, int, int]],
) -> None:
    keyed = [
        (player, result_key(won, t, score, reached)) for player, (won, t, score, reached) in racers.items()
    ]
    ranked = rank_results(keyed)
    assert ranked == rank_results(reversed(keyed))
    assert [player for _rank, player in ranked] == sorted(racers, key=lambda p: (dict(keyed)[p], p))
    keys = dict(keyed)
    for rank, player in ranked:  # a rank is one more than the number of strictly better results
        assert rank == 1 + sum(key < keys[player] for key in keys.values())

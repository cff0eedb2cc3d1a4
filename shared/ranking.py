"""How a race ranks its racers: the one rule the server's standings and the record verifier share.

Winners come first, faster first; then the others, higher score first, and among equal
scores whoever reached that score first. Equal results share a rank (1, 1, 3), and are
listed in player id order.

>>> rank_results([
...     ("p_c", result_key(False, None, 30, 9_000)),
...     ("p_b", result_key(True, 52_000, 52, 52_000)),
...     ("p_a", result_key(False, None, 30, 9_000)),
...     ("p_d", result_key(False, None, 30, 4_000)),
... ])
[(1, 'p_b'), (2, 'p_d'), (3, 'p_a'), (3, 'p_c')]
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

#: A result as a sortable key: smaller is better, equal keys are equal results.
ResultKey = tuple[int, int, int]


def result_key(won: bool, time_ms: int | None, score: int, score_reached_ms: int) -> ResultKey:
    """The sort key of one racer's result: smaller is better.

    A winner sorts by ``time_ms``, the time it took to win; everyone else after every
    winner, by higher ``score``, then by smaller ``score_reached_ms`` (when that score was
    reached). A winner's ``time_ms`` is required; a non-winner's is ignored.

    >>> result_key(True, 41_000, 52, 41_000) < result_key(True, 45_000, 52, 45_000)
    True
    >>> result_key(True, 99_000, 52, 99_000) < result_key(False, None, 51, 1_000)
    True
    >>> result_key(False, None, 20, 5_000) < result_key(False, None, 20, 6_000)
    True
    >>> result_key(False, None, 30, 9_000) < result_key(False, None, 20, 1_000)
    True
    """
    if won:
        if time_ms is None:
            raise ValueError("a winner's result needs the time it took to win")
        return (0, time_ms, 0)
    return (1, -score, score_reached_ms)


def tie_ranks(values: Sequence[Hashable]) -> list[int]:
    """The rank of each of ``values``, already in order best first: equal neighbours share
    a rank, and the next different one takes its place (1, 1, 3).

    >>> tie_ranks([10, 10, 7, 5, 5]), tie_ranks([])
    ([1, 1, 3, 4, 4], [])
    """
    ranks: list[int] = []
    for place, value in enumerate(values, start=1):
        ranks.append(ranks[-1] if ranks and value == values[place - 2] else place)
    return ranks


def shares_rank(rank: int, ranks: Iterable[int]) -> bool:
    """Whether another racer of ``ranks`` (every racer's, ``rank``'s own among them) has
    ``rank`` too: a tie, said as one (a race nobody scored in is everyone's tie for 1st).

    >>> shares_rank(1, [1, 1]), shares_rank(1, [1, 2]), shares_rank(3, [1, 2, 3, 3])
    (True, False, True)
    """
    return sum(other == rank for other in ranks) > 1


def rank_results(results: Iterable[tuple[str, ResultKey]]) -> list[tuple[int, str]]:
    """``(rank, player id)`` best first, from each racer's ``(player id, result key)``:
    ordered by key, equal keys by player id, and equal keys share a rank.

    >>> rank_results([("b", (1, -5, 0)), ("a", (1, -5, 0)), ("c", (1, -9, 0))])
    [(1, 'c'), (2, 'a'), (2, 'b')]
    """
    ordered = sorted(results, key=lambda result: (result[1], result[0]))
    ranks = tie_ranks([key for _player, key in ordered])
    return [(rank, player) for rank, (player, _key) in zip(ranks, ordered, strict=True)]

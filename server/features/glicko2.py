"""Glicko-2 ratings (Mark Glickman, "Example of the Glicko-2 system", 2012): pure, no I/O.

A rating period's games update a player at once with :func:`rate`; a period without
games only widens the rating deviation (:func:`decay`). What a period is, is the caller's:
here each rated race is one, and each whole idle day one without games
(:mod:`server.features.ratings`). Ratings are kept on the familiar Glicko scale (1500,
350) and converted to the internal scale for the arithmetic.

The paper's example (it rounds as it goes, so it prints 1464.06 for the rating):

>>> new = rate(Rating(1500, 200, 0.06), [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0),
...                                       (Rating(1700, 300), 0.0)], tau=0.5)
>>> round(new.rating, 2), round(new.rd, 2), round(new.volatility, 6)
(1464.05, 151.52, 0.059996)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

#: Glicko scale to Glicko-2 scale: 400 / ln(10).
SCALE: Final = 173.7178
#: The default system constant: how much volatility may change in one period.
TAU: Final = 0.5
#: Where the volatility iteration stops.
EPSILON: Final = 0.000001
#: How close to 0 or 1 an expected score may come (see :func:`_expected`).
SURE: Final = 1e-9


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating, rating deviation (RD) and volatility, on the Glicko scale."""

    rating: float = 1500.0
    rd: float = 350.0
    volatility: float = 0.06


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    """The expected score against the opponent, kept within :data:`SURE` of 0 and 1.

    Past a gap of about 3,600 points the exact value rounds to 1.0 (or 0.0) in floating
    point, and the game's variance E(1 - E) to 0: v = 1 / sum g^2 E(1 - E) would divide
    by zero. A game that far apart tells next to nothing about either player (the exact
    update tends to none as the gap grows), so E is held at 1 - 1e-9 at most: the likely
    result then moves neither rating by a visible amount, an upset moves them by a bounded
    amount (at most g * phi'^2 on the internal scale, as for any game), and every result
    is finite. The logistic is written so that exp never overflows however far apart.
    """
    x = _g(phi_j) * (mu - mu_j)
    e = 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))
    return min(1.0 - SURE, max(SURE, e))


def _volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """The new volatility: the root of Glickman's f by the Illinois algorithm (step 5)."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (x - a) / (
            tau * tau
        )

    low = a
    if delta * delta > phi * phi + v:
        high = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        high = a - k * tau
    f_low, f_high = f(low), f(high)
    while abs(high - low) > EPSILON:
        mid = low + (low - high) * f_low / (f_high - f_low)
        f_mid = f(mid)
        if f_mid * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2.0
        high, f_high = mid, f_mid
    return math.exp(low / 2.0)


def rate(player: Rating, results: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """``player`` after one rating period of ``results``: each an opponent's rating at the
    start of the period and the score against them (1 win, 0.5 draw, 0 loss)."""
    if not results:
        return decay(player)
    mu, phi = (player.rating - 1500.0) / SCALE, player.rd / SCALE
    impacts = []
    for opponent, score in results:
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"a score is 1, 0.5 or 0, not {score!r}")
        mu_j, phi_j = (opponent.rating - 1500.0) / SCALE, opponent.rd / SCALE
        impacts.append((_g(phi_j), _expected(mu, mu_j, phi_j), score))
    v = 1.0 / sum(g * g * e * (1.0 - e) for g, e, _ in impacts)
    gained = sum(g * (score - e) for g, e, score in impacts)
    sigma = _volatility(phi, player.volatility, v * gained, v, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * gained
    return Rating(SCALE * new_mu + 1500.0, SCALE * new_phi, sigma)


def decay(player: Rating, periods: int = 1, most: float = 350.0) -> Rating:
    """``player`` after ``periods`` rating periods without a game: the RD grows (up to
    ``most``, a new player's), the rating and volatility stay."""
    phi = player.rd / SCALE
    for _ in range(periods):
        phi = math.sqrt(phi * phi + player.volatility * player.volatility)
    return Rating(player.rating, min(most, SCALE * phi), player.volatility)


def pairwise_results(ranks: Sequence[int]) -> list[list[tuple[int, float]]]:
    """For racers ranked ``ranks`` (1 is first; equal ranks tie), each racer's games: a
    race of n racers is n - 1 games for each, against every other racer.

    >>> pairwise_results([1, 2, 2])
    [[(1, 1.0), (2, 1.0)], [(0, 0.0), (2, 0.5)], [(0, 0.0), (1, 0.5)]]
    """
    games: list[list[tuple[int, float]]] = []
    for i, mine in enumerate(ranks):
        row = []
        for j, theirs in enumerate(ranks):
            if i != j:
                row.append((j, 1.0 if mine < theirs else 0.0 if mine > theirs else 0.5))
        games.append(row)
    return games

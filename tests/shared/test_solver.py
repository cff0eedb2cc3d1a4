"""The full-information solver (shared/solver.py): its winning lines replay to won games,
the lost deals it reports are lost, and it keeps to its budget."""

from __future__ import annotations

import random

import pytest

from shared import Game, new_game, replay
from shared.cards import VALUE
from shared.solver import Solution, solve, solve_deal
from shared.treize import COVERED_BY, PYRAMID

#: Deals each game's solver wins quickly.
WON_DEALS = [
    ("eight-off", 1),
    ("eight-off", 2),
    ("eight-off", 3),
    ("eagle-wing", 0),
    ("eagle-wing", 1),
    ("eagle-wing", 2),
    ("treize", 3),
    ("treize", 6),
    ("treize", 9),
]
#: Treize 48 deals TD to p2 and all four 3s to p8, p9, p12 and p13, which lie on it.
LOCKED_TREIZE = 48
#: A Treize deal that is lost for no reason as plain as a locked card: only the search
#: shows it (in about 2,000 positions).
SEARCHED_LOST_TREIZE = 293


@pytest.mark.parametrize(("game_id", "seed"), WON_DEALS)
def test_a_winning_line_replays_to_a_won_game_move_for_move(game_id: str, seed: int) -> None:
    found = solve_deal(game_id, seed)
    assert found.line is not None and not found.exhausted
    assert 0 < found.nodes <= 200_000
    assert replay(game_id, seed, found.line).is_won
    game = new_game(game_id, seed)
    for move in found.line:  # each move written canonically, as the engine reports it
        assert game.play(move).move == move


@pytest.mark.parametrize("game_id", ["eight-off", "eagle-wing", "treize"])
def test_solve_starts_from_the_games_position_and_leaves_the_game_alone(game_id: str) -> None:
    seed = dict(WON_DEALS)[game_id]
    line = solve_deal(game_id, seed).line
    assert line is not None
    game = replay(game_id, seed, line[: len(line) // 2])
    before, moves = game.position(), game.move_count
    found = solve(game)
    assert game.position() == before and game.move_count == moves
    assert found.line is not None
    for move in found.line:
        game.play(move)
    assert game.is_won


def test_a_won_game_needs_no_move() -> None:
    line = solve_deal("eight-off", 1).line
    assert line is not None
    assert solve(replay("eight-off", 1, line)) == Solution([], 0, False)


def lying_on(slot: str) -> set[str]:
    """The Treize pyramid slots whose cards lie on ``slot``'s card, however high up."""
    above: set[str] = set()
    for cover in COVERED_BY.get(slot, ()):
        above |= {cover} | lying_on(cover)
    return above


def test_a_treize_deal_with_a_locked_card_is_proved_lost() -> None:
    game = new_game("treize", LOCKED_TREIZE)
    card = game.piles["p2"][0]
    partners = [name for name in PYRAMID if VALUE[game.piles[name][0]] == 13 - VALUE[card]]
    # p2 leaves only with a card making 13, and every such card lies on it: a lost deal.
    assert len(partners) == 4 and set(partners) <= lying_on("p2")
    assert solve(game) == Solution(None, 0, True)


def test_a_lost_treize_deal_is_proved_by_exhausting_the_search() -> None:
    found = solve_deal("treize", SEARCHED_LOST_TREIZE)
    assert found.line is None and found.exhausted and 0 < found.nodes < 20_000
    # The search is deterministic: the same positions to the last one, and one fewer
    # is not enough to be sure.
    assert solve_deal("treize", SEARCHED_LOST_TREIZE, found.nodes) == found
    short = solve_deal("treize", SEARCHED_LOST_TREIZE, found.nodes - 1)
    assert short == Solution(None, found.nodes - 1, False)


@pytest.mark.parametrize(
    ("game_id", "seed", "budget"),
    [("eagle-wing", 15, 0), ("eagle-wing", 15, 40), ("eight-off", 121, 60), ("treize", 2, 500)],
)
def test_the_budget_caps_the_positions_expanded(game_id: str, seed: int, budget: int) -> None:
    found = solve_deal(game_id, seed, budget)
    assert found == Solution(None, budget, False)


def plain_search(game: Game, limit: int = 50_000) -> bool:
    """Whether ``game`` can be won, by trying every legal move of the engine itself
    (no pruning, no shortcut), depth first with undo; positions are compared whole."""
    probe = game.copy()

    def key() -> str:
        return repr(probe.position())

    seen = {key()}
    stack = [iter(probe.legal_moves())]
    while stack:
        move = next(stack[-1], None)
        if move is None:
            stack.pop()
            if stack:
                probe.undo()
            continue
        probe.play(move)
        if probe.is_won:
            return True
        if key() in seen:
            probe.undo()
            continue
        seen.add(key())
        assert len(seen) < limit, "too big for a plain search"
        stack.append(iter(probe.legal_moves()))
    return False


def random_playout(game_id: str, seed: int, moves: int) -> Game:
    """The deal of ``seed`` after ``moves`` random legal moves (chosen with ``seed`` too)."""
    rng, game = random.Random(seed), new_game(game_id, seed)
    for _ in range(moves):
        legal = game.legal_moves()
        if not legal:
            break
        game.play(rng.choice(legal))
    return game


@pytest.mark.parametrize(
    ("game_id", "seed", "moves", "winnable"),
    [
        ("treize", 3, 30, False),
        ("treize", 10, 30, False),
        ("treize", 6, 30, True),
        ("treize", 15, 30, True),
        ("eagle-wing", 24, 60, False),
        ("eagle-wing", 28, 60, False),
        ("eight-off", 7, 30, False),
    ],
)
def test_the_solver_agrees_with_a_plain_search_of_every_legal_move(
    game_id: str, seed: int, moves: int, winnable: bool
) -> None:
    game = random_playout(game_id, seed, moves)
    assert plain_search(game) is winnable
    found = solve(game)
    assert (found.line is not None) is winnable
    assert found.exhausted is not winnable

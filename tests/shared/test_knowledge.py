"""What a racer knows: games rebuilt or sampled from a view agree with the real game on
everything the view shows, and never on anything it hides (shared.knowledge)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared import FULL_DECK, GAMES, Game, new_game
from shared.knowledge import (
    HiddenCardsError,
    hidden_count,
    hidden_slots,
    known_piles,
    rebuild,
    sample_game,
    unseen_cards,
    view_key,
    view_legal_moves,
)
from shared.protocol import BoardView
from tests.shared.enginekit import played, with_hidden_shuffled

PROPERTIES = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)

seeds = st.integers(min_value=0, max_value=2**32)
games = st.sampled_from(GAMES)
lengths = st.integers(min_value=0, max_value=120)


def cards_of(game: Game) -> list[str]:
    return [card for pile in game.position()["piles"].values() for card in pile]


# ----- properties over random seeds and random play ----------------------------------------


@PROPERTIES
@given(games, seeds, lengths, seeds)
def test_a_sampled_game_shows_exactly_the_view_it_was_sampled_from(
    game_id: str, seed: int, moves: int, draw: int
) -> None:
    view = played(game_id, seed, moves).view()
    assert sample_game(view, random.Random(draw)).view() == view


@PROPERTIES
@given(games, seeds, lengths)
def test_the_wire_view_dumped_as_a_dict_samples_the_same_view(game_id: str, seed: int, moves: int) -> None:
    view = played(game_id, seed, moves).view()
    wire: dict[str, Any] = BoardView.model_validate(view).model_dump()
    assert sample_game(wire, random.Random(seed)).view() == view
    assert view_key(wire) == view_key(view)


@PROPERTIES
@given(seeds, lengths)
def test_eight_off_rebuilds_exactly_with_the_same_view_and_legal_moves(seed: int, moves: int) -> None:
    real = played("eight-off", seed, moves)
    rebuilt = rebuild(real.view())
    assert rebuilt.view() == real.view()
    assert rebuilt.legal_moves() == real.legal_moves()
    assert rebuilt.position() == real.position()


@PROPERTIES
@given(games, seeds, lengths, seeds)
def test_a_sampled_game_holds_each_card_once_and_changes_no_known_card(
    game_id: str, seed: int, moves: int, draw: int
) -> None:
    real = played(game_id, seed, moves)
    view = real.view()
    sampled = sample_game(view, random.Random(draw))
    cards = cards_of(sampled)
    assert len(cards) == len(set(cards))
    # Every card is in play in Eagle Wing and Eight Off; Treize has removed `score` cards.
    assert len(cards) == (52 - real.score if game_id == "treize" else 52)
    for name, pile in known_piles(view).items():
        for index, card in enumerate(pile):
            if card is not None:
                assert sampled.piles[name][index] == card == real.piles[name][index]
    drawn = {sampled.piles[name][index] for name, index in hidden_slots(view)}
    assert drawn <= set(unseen_cards(view))


@PROPERTIES
@given(games, seeds, lengths)
def test_legal_moves_from_the_view_alone_equal_the_real_games(game_id: str, seed: int, moves: int) -> None:
    real = played(game_id, seed, moves)
    assert view_legal_moves(real.view()) == real.legal_moves()


@PROPERTIES
@given(games, seeds, lengths, seeds)
def test_nothing_depends_on_hidden_cards_two_games_that_differ_only_there_sample_alike(
    game_id: str, seed: int, moves: int, draw: int
) -> None:
    real = played(game_id, seed, moves)
    twin = with_hidden_shuffled(real, random.Random(draw))
    assert twin.view() == real.view()
    assert sample_game(twin.view(), random.Random(draw)) == sample_game(real.view(), random.Random(draw))


@PROPERTIES
@given(games, seeds, lengths)
def test_hidden_slots_are_the_cards_the_view_does_not_show_or_imply(
    game_id: str, seed: int, moves: int
) -> None:
    real = played(game_id, seed, moves)
    view = real.view()
    slots = hidden_slots(view)
    assert len(slots) == hidden_count(view)
    assert len(unseen_cards(view)) == len(slots) + (real.score if game_id == "treize" else 0)
    if game_id == "eight-off":
        assert slots == []


# ----- examples ----------------------------------------------------------------------------


def test_a_fresh_deal_hides_the_stock_and_eagle_wings_reserve() -> None:
    eagle = hidden_slots(new_game("eagle-wing", 5).view())
    assert sorted({name for name, _ in eagle}) == ["reserve", "stock"]
    assert len(eagle) == 13 + 30
    treize = hidden_slots(new_game("treize", 5).view())
    assert treize == [("stock", i) for i in range(24)]


def test_foundations_are_rebuilt_from_their_top_card_round_the_corner() -> None:
    view: dict[str, Any] = new_game("eagle-wing", 5).view()
    view["base_rank"] = "Q"
    view["piles"]["f2"] = {"count": 4, "cards": ["2H"]}
    assert known_piles(view)["f2"] == ["QH", "KH", "AH", "2H"]
    view["piles"]["f2"] = {"count": 3, "cards": ["2H"]}
    with pytest.raises(ValueError, match="f2"):
        known_piles(view)


def test_rebuild_refuses_a_view_that_hides_cards() -> None:
    for game_id in ("eagle-wing", "treize"):
        with pytest.raises(HiddenCardsError):
            rebuild(new_game(game_id, 1).view())


def test_a_treize_view_is_exact_once_the_stock_is_dealt() -> None:
    game = new_game("treize", 3)
    while "deal" in game.legal_moves():
        game.play("deal")
    assert rebuild(game.view()) == game


def test_a_view_showing_more_cards_than_it_counts_is_refused() -> None:
    view: dict[str, Any] = new_game("eight-off", 1).view()
    view["piles"]["t1"] = {"count": 1, "cards": ["AS", "2S"]}
    with pytest.raises(ValueError, match="t1"):
        sample_game(view, random.Random(0))


def test_remembered_cards_are_placed_and_out_of_play_cards_never_drawn() -> None:
    view: dict[str, Any] = new_game("treize", 9).view()
    for name in ("p22", "p23"):  # as if removed: 26 unseen cards for 24 hidden slots
        view["piles"][name] = {"count": 0, "cards": []}
    unseen = unseen_cards(view)
    remembered = {("stock", 0): unseen[0], ("stock", 23): unseen[1]}
    for draw in range(20):
        sampled = sample_game(view, random.Random(draw), out_of_play=unseen[2:4], remembered=remembered)
        assert sampled.piles["stock"][0] == unseen[0] and sampled.piles["stock"][23] == unseen[1]
        assert not set(unseen[2:4]) & set(sampled.piles["stock"])
    with pytest.raises(ValueError, match="hidden slot"):
        sample_game(view, random.Random(0), remembered={("p1", 0): unseen[0]})
    with pytest.raises(ValueError, match="out of play"):
        sample_game(view, random.Random(0), out_of_play=unseen[:1], remembered={("stock", 0): unseen[0]})
    with pytest.raises(ValueError, match="could be there"):
        sample_game(view, random.Random(0), out_of_play=unseen)


def test_sampling_draws_different_hidden_cards_for_different_draws() -> None:
    view = new_game("eagle-wing", 2).view()
    stocks = {tuple(sample_game(view, random.Random(draw)).piles["stock"]) for draw in range(5)}
    assert len(stocks) == 5
    assert sorted(cards_of(sample_game(view, random.Random(0)))) == sorted(FULL_DECK)


def test_view_key_ignores_the_order_of_interchangeable_piles_and_the_move_count() -> None:
    view: dict[str, Any] = new_game("eight-off", 4).view()
    swapped: dict[str, Any] = {**view, "move_count": 9, "piles": dict(view["piles"])}
    swapped["piles"]["t1"], swapped["piles"]["t2"] = view["piles"]["t2"], view["piles"]["t1"]
    assert view_key(swapped) == view_key(view)
    pyramid: dict[str, Any] = new_game("treize", 4).view()
    moved: dict[str, Any] = {**pyramid, "piles": dict(pyramid["piles"])}
    moved["piles"]["p22"], moved["piles"]["p23"] = pyramid["piles"]["p23"], pyramid["piles"]["p22"]
    assert view_key(moved) != view_key(pyramid)

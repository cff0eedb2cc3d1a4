"""Eagle Wing, rule by rule (docs/rules.md, "Eagle Wing")."""

from __future__ import annotations

import pytest
from enginekit import ew_position, load, rejected, steps_of

from shared import Game, new_game, shuffled_deck

TABLEAU = [f"t{i}" for i in range(1, 9)]
#: A whole club foundation on base 7, to make room for empty foundations.
CLUBS_FROM_7 = [r + "C" for r in "789TJQKA23456"]


# ----- deal --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2, 12345])
def test_eagle_wing_deal_layout_follows_the_dealing_order(seed: int) -> None:
    deck = shuffled_deck("eagle-wing", seed)
    game = new_game("eagle-wing", seed)
    piles = game.position()["piles"]
    # 13 to the reserve, the first card dealt at the bottom.
    assert piles["reserve"] == deck[:13]
    assert piles["reserve"][0] == deck[0]
    # One card to each of t1..t8, then one to f1.
    for i, name in enumerate(TABLEAU):
        assert piles[name] == [deck[13 + i]]
    assert piles["f1"] == [deck[21]]
    assert piles["f2"] == piles["f3"] == piles["f4"] == piles["waste"] == []
    # The other 30 form the stock; card 51 on top (docs/deals.md).
    assert len(piles["stock"]) == 30
    assert sorted(piles["stock"]) == sorted(deck[22:])
    assert piles["stock"][-1] == deck[51]
    assert game.score == 1
    assert game.move_count == 0
    assert not game.is_won
    view = game.view()
    assert view["base_rank"] == deck[21][0]
    assert view["redeals_left"] == 2
    assert view["score"] == 1


def test_eagle_wing_deal_turns_the_top_stock_card_onto_the_waste() -> None:
    game = new_game("eagle-wing", 4)
    top = game.position()["piles"]["stock"][-1]
    result = game.play("deal")
    assert steps_of(result) == [(top, "stock", "waste")]
    assert game.position()["piles"]["waste"] == [top]
    assert len(game.position()["piles"]["stock"]) == 29
    assert result.score_delta == 0


def _deal_out(game: Game) -> list[str | None]:
    """Deal the whole stock; the cards in the order they were dealt."""
    dealt = []
    while "deal" in game.legal_moves():
        dealt.append(game.play("deal").steps[0].card)
    return dealt


def test_eagle_wing_redeal_restores_the_original_dealing_order() -> None:
    game = new_game("eagle-wing", 9)
    first = _deal_out(game)
    assert len(first) == 30
    assert first[0] == shuffled_deck("eagle-wing", 9)[51]
    result = game.play("redeal")
    assert len(result.steps) == 30
    assert all(step.card is None for step in result.steps)  # face down
    assert game.view()["redeals_left"] == 1
    assert game.position()["piles"]["waste"] == []
    second = _deal_out(game)
    assert second == first


def test_eagle_wing_allows_exactly_two_redeals() -> None:
    game = new_game("eagle-wing", 9)
    passes = [_deal_out(game)]
    for left in (1, 0):
        assert "redeal" in game.legal_moves()
        game.play("redeal")
        assert game.position()["redeals_used"] == 2 - left
        assert game.view()["redeals_left"] == left
        passes.append(_deal_out(game))
    assert passes[0] == passes[1] == passes[2]
    assert "redeal" not in game.legal_moves()
    assert "deal" not in game.legal_moves()
    assert "redeal" in rejected(game, "redeal")
    assert "stock is empty" in rejected(game, "deal")


def test_eagle_wing_redeal_is_rejected_while_the_stock_is_not_empty() -> None:
    game = new_game("eagle-wing", 9)
    game.play("deal")
    assert "redeal" not in game.legal_moves()
    assert "stock" in rejected(game, "redeal")


def test_eagle_wing_redeal_with_an_empty_waste_is_rejected() -> None:
    game = load(ew_position({"stock": [], "waste": [], "reserve": []}))
    assert "redeal" not in game.legal_moves()
    rejected(game, "redeal")


# ----- tableau -------------------------------------------------------------------------


def test_eagle_wing_tableau_pile_holds_at_most_three_cards() -> None:
    game = load(ew_position({"t1": ["9H", "8H", "7H"], "t2": ["9S", "8S"], "waste": ["7S"], "t3": ["6H"]}))
    assert rejected(game, "t3>t1") == "t1 holds 3 cards already"
    assert "t3>t1" not in game.legal_moves()
    assert "waste>t2" in game.legal_moves()
    game.play("waste>t2")
    assert game.position()["piles"]["t2"] == ["9S", "8S", "7S"]


def test_eagle_wing_tableau_builds_down_in_suit() -> None:
    game = load(ew_position({"t1": ["9H"], "waste": ["8S"], "t2": ["7H"], "t3": ["8H"]}))
    rejected(game, "waste>t1")  # wrong suit
    rejected(game, "t2>t1")  # two lower
    legal = game.legal_moves()
    assert "waste>t1" not in legal and "t2>t1" not in legal
    assert "t3>t1" in legal and "t2>t3" in legal
    result = game.play("t3>t1")
    assert result.move == "t3>t1"
    assert game.position()["piles"]["t1"] == ["9H", "8H"]


def test_eagle_wing_king_goes_on_an_ace_on_the_tableau() -> None:
    game = load(ew_position({"t1": ["AS"], "waste": ["KS"], "t2": ["QS"], "t3": ["KH"]}))
    assert "waste>t1" in game.legal_moves()
    rejected(game, "t2>t1")  # a Queen is not one below an Ace
    rejected(game, "t3>t1")  # a King of another suit
    game.play("waste>t1")
    assert game.position()["piles"]["t1"] == ["AS", "KS"]


def test_eagle_wing_group_to_the_tableau_is_rejected() -> None:
    game = load(ew_position({"t1": ["9H", "8H"], "t2": ["TH"]}))
    assert not any(
        m.startswith("t1:") and not m.endswith(("f1", "f2", "f3", "f4")) for m in game.legal_moves()
    )
    assert "one at a time" in rejected(game, "t1:2>t2")


def test_eagle_wing_empty_tableau_pile_takes_any_single_card_once_the_reserve_is_empty() -> None:
    game = load(ew_position({"t1": [], "t2": ["QC", "JC", "TC"], "waste": ["3D"], "reserve": []}))
    legal = game.legal_moves()
    assert "waste>t1" in legal and "t2>t1" in legal
    result = game.play("waste>t1")
    assert steps_of(result) == [("3D", "waste", "t1")]
    game2 = load(ew_position({"t1": [], "t2": ["QC", "JC", "TC"], "waste": ["3D"], "reserve": []}))
    game2.play("t2>t1")
    assert game2.position()["piles"]["t1"] == ["TC"]
    assert game2.position()["piles"]["t2"] == ["QC", "JC"]


# ----- foundations ---------------------------------------------------------------------


def test_eagle_wing_foundation_builds_up_in_suit() -> None:
    game = load(ew_position({"f1": ["7C"], "waste": ["8C"], "t1": ["8D"], "t2": ["9C"]}))
    assert rejected(game, "t1>f1") == "8D does not fit on f1 (top 7C)"  # wrong suit
    rejected(game, "t2>f1")  # two higher
    result = game.play("waste>f1")
    assert result.score_delta == 1 and result.score == game.score
    assert game.position()["piles"]["f1"] == ["7C", "8C"]


def test_eagle_wing_ace_goes_on_a_king_on_the_foundation() -> None:
    position = ew_position(
        {"f1": ["9C"], "f2": ["9H", "TH", "JH", "QH", "KH"], "waste": ["AH"], "t1": ["2H"]}, base="9"
    )
    game = load(position)
    rejected(game, "t1>f2")  # a 2 does not go on a King
    assert "waste>f2" in game.legal_moves()
    game.play("waste>f2")
    assert game.position()["piles"]["f2"][-2:] == ["KH", "AH"]
    game.play("t1>f2")
    assert game.position()["piles"]["f2"][-1] == "2H"


def test_eagle_wing_base_rank_card_starts_any_empty_foundation() -> None:
    position = ew_position({"f1": CLUBS_FROM_7, "f2": [], "f3": [], "f4": [], "waste": ["7D"], "t1": ["7H"]})
    game = load(position)
    legal = game.legal_moves()
    assert {"waste>f2", "waste>f3", "waste>f4", "t1>f2", "t1>f3", "t1>f4"} <= set(legal)
    game.play("waste>f3")
    assert game.position()["piles"]["f3"] == ["7D"]
    assert game.position()["piles"]["f2"] == []
    # The shorthand picks the leftmost empty one.
    assert game.play("t1>f").move == "t1>f2"


def test_eagle_wing_other_ranks_cannot_start_a_foundation() -> None:
    position = ew_position({"f1": CLUBS_FROM_7, "f2": [], "f3": [], "f4": [], "waste": ["8D"], "t1": ["AS"]})
    game = load(position)
    assert "base rank" in rejected(game, "waste>f3")
    rejected(game, "t1>f2")
    rejected(game, "waste>f")
    assert not any(">f" in m for m in game.legal_moves())


def test_eagle_wing_group_of_two_goes_to_a_foundation_top_card_first() -> None:
    game = load(ew_position({"f1": ["7C", "8C"], "t1": ["TC", "9C"], "reserve": []}))
    assert "t1:2>f1" in game.legal_moves()
    result = game.play("t1:2>f1")
    assert steps_of(result) == [("9C", "t1", "f1"), ("TC", "t1", "f1")]
    assert result.score_delta == 2
    assert game.position()["piles"]["f1"] == ["7C", "8C", "9C", "TC"]


def test_eagle_wing_group_of_three_goes_to_a_foundation_top_card_first() -> None:
    game = load(ew_position({"f1": ["7C"], "f2": ["7S"], "t1": ["TS", "9S", "8S"], "reserve": []}))
    legal = game.legal_moves()
    assert {"t1>f2", "t1:2>f2", "t1:3>f2"} <= set(legal)
    result = game.play("t1:3>f")
    assert result.move == "t1:3>f2"
    assert steps_of(result) == [("8S", "t1", "f2"), ("9S", "t1", "f2"), ("TS", "t1", "f2")]
    assert result.score_delta == 3


def test_eagle_wing_group_whose_top_card_does_not_fit_is_rejected() -> None:
    game = load(ew_position({"f1": ["7C"], "t1": ["TC", "9C"], "reserve": []}))
    rejected(game, "t1:2>f1")
    rejected(game, "t1:3>f1")  # more cards than the pile holds


def test_eagle_wing_group_from_the_waste_is_rejected() -> None:
    game = load(ew_position({"f1": ["7C"], "waste": ["9C", "8C"]}))
    rejected(game, "waste:2>f1")


def test_eagle_wing_foundation_cards_never_move() -> None:
    game = load(ew_position({"f1": ["7C", "8C"], "t1": ["9D"], "t2": [], "reserve": []}))
    assert not any(m.startswith("f") for m in game.legal_moves())
    assert "never" in rejected(game, "f1>t2")
    rejected(game, "f1>t1")
    rejected(game, "f1>f2")


def test_eagle_wing_waste_top_card_moves() -> None:
    game = load(ew_position({"waste": ["2H", "9D"], "t1": ["TD"], "t2": ["3H"]}))
    assert "waste>t1" in game.legal_moves()
    assert "waste>t2" not in game.legal_moves()  # 2H is under the top
    game.play("waste>t1")
    assert game.position()["piles"]["waste"] == ["2H"]
    game.play("waste>t2")
    assert game.position()["piles"]["t2"] == ["3H", "2H"]


def test_eagle_wing_cards_cannot_go_to_stock_waste_or_reserve() -> None:
    game = load(ew_position({"waste": ["2H"], "t1": ["TD"], "reserve": ["5C", "4C"]}))
    rejected(game, "t1>waste")
    rejected(game, "t1>stock")
    rejected(game, "t1>reserve")
    rejected(game, "stock>t1")


def test_eagle_wing_score_counts_foundation_cards() -> None:
    game = load(ew_position({"f1": ["7C", "8C", "9C"], "f2": ["7H"], "f3": [], "f4": [], "waste": ["TC"]}))
    assert game.score == 4
    assert game.view()["score"] == 4
    game.play("waste>f1")
    assert game.score == 5


# ----- reserve and auto-fill ----------------------------------------------------------


def test_eagle_wing_reserve_card_is_rejected_while_two_or_more_remain() -> None:
    # The reserve's top card 8C would fit both t1 and f1, but it is face down.
    game = load(ew_position({"reserve": ["QS", "8C"], "t1": ["9C"], "f1": ["7C"]}))
    assert not any(m.startswith("reserve") for m in game.legal_moves())
    assert "face down" in rejected(game, "reserve>t1")
    rejected(game, "reserve>f1")
    rejected(game, "reserve>f")


def test_eagle_wing_last_reserve_card_plays_to_the_tableau() -> None:
    game = load(ew_position({"reserve": ["5D"], "t1": ["6D"]}))
    assert "reserve>t1" in game.legal_moves()
    result = game.play("reserve>t1")
    assert steps_of(result) == [("5D", "reserve", "t1")]
    assert game.position()["piles"]["reserve"] == []


def test_eagle_wing_last_reserve_card_plays_to_a_foundation() -> None:
    game = load(ew_position({"reserve": ["8C"], "f1": ["7C"]}))
    assert "reserve>f1" in game.legal_moves()
    result = game.play("reserve>f1")
    assert steps_of(result) == [("8C", "reserve", "f1")]
    assert result.score_delta == 1


def test_eagle_wing_emptying_a_tableau_pile_by_tableau_move_fills_it_from_the_reserve() -> None:
    game = load(ew_position({"reserve": ["QS", "JS", "2C"], "t1": ["6D"], "t2": ["7D"]}))
    result = game.play("t1>t2")
    assert steps_of(result) == [("6D", "t1", "t2"), ("2C", "reserve", "t1")]
    piles = game.position()["piles"]
    assert piles["t1"] == ["2C"]
    assert piles["reserve"] == ["QS", "JS"]


def test_eagle_wing_emptying_a_tableau_pile_by_foundation_move_fills_it_from_the_reserve() -> None:
    game = load(ew_position({"reserve": ["QS", "JS", "2C"], "t1": ["8C"], "f1": ["7C"]}))
    result = game.play("t1>f1")
    assert steps_of(result) == [("8C", "t1", "f1"), ("2C", "reserve", "t1")]
    assert game.position()["piles"]["t1"] == ["2C"]


def test_eagle_wing_group_to_a_foundation_that_empties_the_pile_fills_it_from_the_reserve() -> None:
    game = load(ew_position({"reserve": ["QS", "2C"], "t1": ["TC", "9C", "8C"], "f1": ["7C"]}))
    result = game.play("t1:3>f1")
    assert steps_of(result) == [
        ("8C", "t1", "f1"),
        ("9C", "t1", "f1"),
        ("TC", "t1", "f1"),
        ("2C", "reserve", "t1"),
    ]
    assert game.position()["piles"]["reserve"] == ["QS"]


def test_eagle_wing_group_that_leaves_cards_behind_does_not_auto_fill() -> None:
    game = load(ew_position({"reserve": ["QS", "2C"], "t1": ["TC", "9C", "8C"], "f1": ["7C"]}))
    result = game.play("t1:2>f1")
    assert steps_of(result) == [("8C", "t1", "f1"), ("9C", "t1", "f1")]
    assert game.position()["piles"]["t1"] == ["TC"]
    assert game.position()["piles"]["reserve"] == ["QS", "2C"]


def test_eagle_wing_last_reserve_card_auto_fills_an_emptied_pile() -> None:
    game = load(ew_position({"reserve": ["2C"], "t1": ["6D"], "t2": ["7D"]}))
    result = game.play("t1>t2")
    assert steps_of(result) == [("6D", "t1", "t2"), ("2C", "reserve", "t1")]
    piles = game.position()["piles"]
    assert piles["t1"] == ["2C"] and piles["reserve"] == []
    assert game.view()["piles"]["reserve"] == {"count": 0, "cards": []}


def test_eagle_wing_no_auto_fill_once_the_reserve_is_empty() -> None:
    game = load(ew_position({"reserve": [], "t1": ["6D"], "t2": ["7D"], "waste": ["KH"]}))
    result = game.play("t1>t2")
    assert steps_of(result) == [("6D", "t1", "t2")]
    assert game.position()["piles"]["t1"] == []
    # The empty pile takes any single card: from the waste, or from the tableau.
    assert "waste>t1" in game.legal_moves()
    assert "t2>t1" in game.legal_moves()
    game.play("waste>t1")
    assert game.position()["piles"]["t1"] == ["KH"]


def test_eagle_wing_waste_move_never_auto_fills() -> None:
    game = load(ew_position({"reserve": ["QS", "2C"], "waste": ["5D"], "t1": ["6D"]}))
    result = game.play("waste>t1")
    assert steps_of(result) == [("5D", "waste", "t1")]
    assert game.position()["piles"]["reserve"] == ["QS", "2C"]


def test_eagle_wing_is_won_with_all_52_on_the_foundations() -> None:
    suits = "CDHS"
    order = "789TJQKA23456"
    piles = {f"f{i + 1}": [r + s for r in order] for i, s in enumerate(suits)}
    piles["f4"] = piles["f4"][:-1]
    game = load(ew_position({**piles, "waste": ["6S"], "stock": [], "reserve": []}))
    assert not game.is_won and game.score == 51
    result = game.play("waste>f4")
    assert result.won and game.is_won and game.score == 52
    assert game.legal_moves() == []


def test_eagle_wing_a_word_that_is_no_move_is_told_every_kind_of_move_redeal_included() -> None:
    game = new_game("eagle-wing", 5)
    assert rejected(game, "blah").endswith("write A>B, A:k>B, deal or redeal")


def test_eagle_wing_a_group_bigger_than_its_pile_counts_the_cards_in_words() -> None:
    game = new_game("eagle-wing", 5)
    assert rejected(game, "t1:3>f1") == "t1 holds only 1 card"

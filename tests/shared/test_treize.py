"""Treize, rule by rule (docs/rules.md, "Treize")."""

from __future__ import annotations

import pytest
from enginekit import load, rejected, steps_of, treize_position

from shared import Game, new_game, shuffled_deck


def _present(game: Game) -> int:
    piles = game.position()["piles"]
    return sum(len(p) for p in piles.values())


# ----- deal --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2, 999])
def test_treize_deal_layout_follows_the_dealing_order(seed: int) -> None:
    deck = shuffled_deck("treize", seed)
    game = new_game("treize", seed)
    piles = game.position()["piles"]
    for i in range(28):
        assert piles[f"p{i + 1}"] == [deck[i]]
    assert len(piles["stock"]) == 24
    assert sorted(piles["stock"]) == sorted(deck[28:])
    assert piles["stock"][-1] == deck[51]
    assert piles["waste"] == []
    assert game.score == 0 and not game.is_won
    assert set(game.position()) == {"game", "piles"}


def test_treize_deal_turns_the_top_stock_card_onto_the_waste() -> None:
    game = new_game("treize", 5)
    top = game.position()["piles"]["stock"][-1]
    result = game.play("deal")
    assert steps_of(result) == [(top, "stock", "waste")]
    assert game.position()["piles"]["waste"] == [top]
    assert result.score_delta == 0


def test_treize_only_row_seven_is_available_at_the_deal() -> None:
    for seed in range(5):
        game = new_game("treize", seed)
        for move in game.legal_moves():
            if move == "deal":
                continue
            for name in move.split("+"):
                assert int(name[1:]) >= 22, move


# ----- Kings alone -----------------------------------------------------------------------


def test_treize_exposed_king_in_the_pyramid_is_removed_alone() -> None:
    game = load(treize_position({"p25": ["KH"], "p22": ["5C"], "stock": ["2D"]}))
    assert "p25" in game.legal_moves()
    result = game.play("p25")
    assert result.move == "p25"
    assert steps_of(result) == [("KH", "p25", "removed")]
    assert result.score_delta == 1
    assert game.position()["piles"]["p25"] == []


def test_treize_a_card_sent_home_as_in_the_other_games_is_refused_for_what_it_is() -> None:
    """``p10>f``, a board's "send home" key: the card's own reason, not a notation lesson."""
    game = new_game("treize", 2)  # KS on p10 under p14 and p15; 6S on p25
    assert rejected(game, "p10>f") == "p10 (KS) is covered by p14 and p15"
    assert rejected(game, "p25>f1") == "6S is not a King: only Kings are removed alone"
    assert rejected(game, "wt>f") == "the waste is empty"
    assert rejected(new_game("treize", 0), "p24>f") == "treize removes a King alone: p24, not p24>f"
    assert rejected(game, "p1>p2") == (
        "treize removes cards: a King alone (p25, wt) or a pair making 13 (p9+wt)"
    )


def test_treize_covered_king_is_rejected() -> None:
    game = load(treize_position({"p16": ["KH"], "p22": ["5C"], "p23": ["3D"]}))
    assert "p16" not in game.legal_moves()
    assert "covered" in rejected(game, "p16")


def test_treize_king_as_wb_is_removed_alone() -> None:
    game = load(treize_position({"waste": ["KH", "5C", "3D"]}))
    assert "wb" in game.legal_moves()
    result = game.play("wb")
    assert [(s.card, s.dst) for s in result.steps] == [("KH", "removed")]
    assert game.position()["piles"]["waste"] == ["5C", "3D"]


def test_treize_king_as_wt_is_removed_alone() -> None:
    game = load(treize_position({"waste": ["5C", "KS"]}))
    assert "wt" in game.legal_moves()
    game.play("wt")
    assert game.position()["piles"]["waste"] == ["5C"]


def test_treize_king_as_wu_is_not_removed_alone() -> None:
    game = load(treize_position({"waste": ["5C", "KS", "3D"]}))
    assert "wu" not in game.legal_moves()
    rejected(game, "wu")


def test_treize_non_king_alone_is_rejected() -> None:
    game = load(treize_position({"p22": ["QC"], "waste": ["5C", "3D"]}))
    assert "not a King" in rejected(game, "p22")
    rejected(game, "wb")
    rejected(game, "wt")
    assert game.legal_moves() == []


# ----- pairs -----------------------------------------------------------------------------


def test_treize_pyramid_pair_making_13_is_removed() -> None:
    game = load(treize_position({"p22": ["6H"], "p23": ["7C"], "p24": ["8C"]}))
    assert "p22+p23" in game.legal_moves()
    result = game.play("p22+p23")
    assert steps_of(result) == [("6H", "p22", "removed"), ("7C", "p23", "removed")]
    assert result.score_delta == 2


def test_treize_pair_not_making_13_is_rejected() -> None:
    game = load(treize_position({"p22": ["6H"], "p23": ["8C"]}))
    assert "14" in rejected(game, "p22+p23")


def test_treize_pyramid_card_pairs_with_wt() -> None:
    game = load(treize_position({"p22": ["JH"], "waste": ["5C", "2D"]}))
    assert "p22+wt" in game.legal_moves()
    game.play("p22+wt")
    assert game.position()["piles"]["waste"] == ["5C"]
    assert game.position()["piles"]["p22"] == []


def test_treize_pyramid_card_pairs_with_wb() -> None:
    game = load(treize_position({"p22": ["8H"], "waste": ["5C", "2D"]}))
    assert "p22+wb" in game.legal_moves()
    game.play("p22+wb")
    assert game.position()["piles"]["waste"] == ["2D"]


def test_treize_wb_pairs_with_wt() -> None:
    game = load(treize_position({"waste": ["4S", "QD", "9C"]}))
    assert "wb+wt" in game.legal_moves()
    game.play("wb+wt")
    assert game.position()["piles"]["waste"] == ["QD"]


def test_treize_wu_pairs_with_wt() -> None:
    game = load(treize_position({"waste": ["QD", "4S", "9C"]}))
    assert "wu+wt" in game.legal_moves()
    result = game.play("wu+wt")
    assert [s.card for s in result.steps] == ["4S", "9C"]
    assert game.position()["piles"]["waste"] == ["QD"]


def test_treize_wu_is_not_available_alone_nor_with_anything_but_wt() -> None:
    game = load(treize_position({"p22": ["9H"], "waste": ["9D", "4S", "TC"]}))
    # 4S (wu) + 9H (p22) and 4S + 9D (wb) make 13, but wu pairs only with wt.
    legal = game.legal_moves()
    assert not any("wu" in m for m in legal)
    assert "wu" in rejected(game, "p22+wu")
    rejected(game, "wb+wu")
    rejected(game, "wu")


def test_treize_wt_is_not_named_when_the_waste_holds_one_card() -> None:
    game = load(treize_position({"p22": ["6H"], "waste": ["7C"]}))
    assert game.legal_moves() == ["p22+wb"]
    assert "wb" in rejected(game, "p22+wt")
    king = load(treize_position({"waste": ["KC"]}))
    assert king.legal_moves() == ["wb"]
    rejected(king, "wt")


def test_treize_wu_is_named_only_with_three_or_more_cards() -> None:
    game = load(treize_position({"waste": ["6H", "7C"]}))
    assert game.legal_moves() == ["wb+wt"]
    assert "3" in rejected(game, "wu+wt")


def test_treize_removing_wb_makes_the_next_oldest_the_new_wb() -> None:
    game = load(treize_position({"p22": ["7C"], "p23": ["JD"], "waste": ["6H", "2C", "9D", "4S"]}))
    game.play("p22+wb")
    assert game.position()["piles"]["waste"] == ["2C", "9D", "4S"]
    assert "p23+wb" in game.legal_moves()
    result = game.play("p23+wb")
    assert [s.card for s in result.steps] == ["JD", "2C"]
    assert game.position()["piles"]["waste"] == ["9D", "4S"]


def test_treize_pair_where_one_card_covers_the_other_is_rejected() -> None:
    # p16 is covered by p22 and p23; p23 is gone, p22 (7C) still covers p16 (6H).
    game = load(treize_position({"p16": ["6H"], "p22": ["7C"], "p23": []}))
    assert "p16+p22" not in game.legal_moves()
    assert "covered" in rejected(game, "p16+p22")
    rejected(game, "p22+p16")


def test_treize_covered_card_is_rejected_in_a_pair() -> None:
    game = load(treize_position({"p16": ["6H"], "p22": ["2C"], "p23": ["3D"], "waste": ["7C"]}))
    assert "covered" in rejected(game, "p16+wb")
    assert "p16+wb" not in game.legal_moves()


def test_treize_card_is_exposed_once_both_covering_cards_are_gone() -> None:
    game = load(treize_position({"p16": ["6H"], "p22": ["2C"], "p23": ["JD"], "waste": ["7C"]}))
    assert "p16+wb" not in game.legal_moves()
    game.play("p22+p23")
    assert "p16+wb" in game.legal_moves()
    game.play("p16+wb")
    assert game.position()["piles"]["p16"] == []


def test_treize_removed_card_is_rejected() -> None:
    game = load(treize_position({"p22": ["6H"], "p23": [], "waste": ["7C"]}))
    assert "removed" in rejected(game, "p23+wb")


def test_treize_deal_with_an_empty_stock_is_rejected() -> None:
    game = load(treize_position({"p22": ["6H"], "waste": ["5C"], "stock": []}))
    assert "deal" not in game.legal_moves()
    assert "stock" in rejected(game, "deal")


def test_treize_has_no_redeal() -> None:
    game = load(treize_position({"p22": ["6H"], "waste": ["5C", "4D"], "stock": []}))
    assert "redeal" not in game.legal_moves()
    assert "redeal" in rejected(game, "redeal")


# ----- notation of removals ------------------------------------------------------------------


PAIRS = {"p22": ["6H"], "p23": ["7C"]}
PYRAMID_WASTE = {"p22": ["6H"], "p23": ["5C"], "waste": ["2H", "7D"]}
WB_WT = {"p22": ["6H"], "p23": ["5C"], "waste": ["4H", "QS", "9D"]}
WU_WT = {"p22": ["6H"], "p23": ["5C"], "waste": ["4H", "QS", "AD"]}


@pytest.mark.parametrize(
    ("piles", "typed", "canonical"),
    [
        (PAIRS, "p23+p22", "p22+p23"),
        (PAIRS, "p22+p23", "p22+p23"),
        (PYRAMID_WASTE, "wt+p22", "p22+wt"),
        (PYRAMID_WASTE, " P22+WT ", "p22+wt"),
        (WB_WT, "wt+wb", "wb+wt"),
        (WU_WT, "wt+wu", "wu+wt"),
        (WU_WT, "WU+WT", "wu+wt"),
    ],
)
def test_treize_pair_in_either_order_is_accepted_in_canonical_form(
    piles: dict[str, list[str]], typed: str, canonical: str
) -> None:
    game = load(treize_position(piles))
    assert canonical in game.legal_moves()
    result = game.play(typed)
    assert result.move == canonical


def test_treize_canonical_pair_puts_the_lower_pyramid_index_first_numerically() -> None:
    # p9 is exposed once p13 and p14 are gone; p21 once p27 and p28 are gone.
    game = load(treize_position({"p9": ["4H"], "p21": ["9S"]}))
    assert "p9+p21" in game.legal_moves()
    assert "p21+p9" not in game.legal_moves()
    assert game.play("p21+p9").move == "p9+p21"
    assert game.position()["piles"]["p9"] == game.position()["piles"]["p21"] == []


def test_treize_card_cannot_pair_with_itself() -> None:
    game = load(treize_position({"p22": ["6H"], "waste": ["7C"]}))
    rejected(game, "p22+p22")
    rejected(game, "wb+wb")


# ----- end of game ---------------------------------------------------------------------------


def test_treize_is_won_when_pyramid_stock_and_waste_are_empty() -> None:
    game = load(treize_position({"p1": ["KH"]}))
    assert game.score == 51 and not game.is_won
    result = game.play("p1")
    assert result.won and game.is_won
    assert game.score == 52
    assert game.legal_moves() == []


def test_treize_is_not_won_while_the_stock_or_waste_holds_cards() -> None:
    game = load(treize_position({"p1": ["KH"], "stock": ["KC"]}))
    result = game.play("p1")
    assert not result.won and not game.is_won
    game.play("deal")
    assert not game.is_won
    result = game.play("wb")
    assert result.won and game.is_won


def test_treize_score_counts_cards_removed() -> None:
    game = load(treize_position({"p1": ["KD"], "waste": ["6H", "7C"], "stock": ["2C", "3C"]}))
    assert game.score == 52 - _present(game) == 52 - 5
    game.play("wb+wt")
    assert game.score == 52 - 3
    game.play("p1")
    assert game.score == 52 - 2
    game.play("deal")
    assert game.score == 52 - 2

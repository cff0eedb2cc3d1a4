"""Eight Off, rule by rule (docs/rules.md, "Eight Off")."""

from __future__ import annotations

from typing import Any

import pytest
from enginekit import eo_position, load, rejected, steps_of

from shared import new_game, shuffled_deck

TABLEAU = [f"t{i}" for i in range(1, 9)]
RESERVE = [f"r{i}" for i in range(1, 9)]
NO_FOUNDATIONS: dict[str, list[str]] = {"f1": [], "f2": [], "f3": [], "f4": []}


def cells(*cards: str) -> dict[str, list[str]]:
    """Reserve cells r1.. holding ``cards`` in order, the others empty."""
    return {name: ([cards[i]] if i < len(cards) else []) for i, name in enumerate(RESERVE)}


def position(piles: dict[str, list[str]], dump: tuple[str, ...] = ("t5", "t6", "t7")) -> dict[str, Any]:
    """Nothing on the foundations unless given; every other card lies deep in ``dump``."""
    return eo_position({**NO_FOUNDATIONS, **cells(), **piles}, dump=dump)


# ----- deal --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2, 4242])
def test_eight_off_deal_layout_is_round_by_round_then_four_reserve_cells(seed: int) -> None:
    deck = shuffled_deck("eight-off", seed)
    piles = new_game("eight-off", seed).position()["piles"]
    for i, name in enumerate(TABLEAU):
        assert piles[name] == [deck[i + 8 * row] for row in range(6)]
    for i in range(4):
        assert piles[f"r{i + 1}"] == [deck[48 + i]]
    for name in ("r5", "r6", "r7", "r8", "f1", "f2", "f3", "f4"):
        assert piles[name] == []
    assert new_game("eight-off", seed).score == 0


def _ace_exposed_at_the_deal() -> tuple[int, str]:
    for seed in range(500):
        piles = new_game("eight-off", seed).position()["piles"]
        for name in (*RESERVE, *TABLEAU):
            if piles[name] and piles[name][-1][0] == "A":
                return seed, name
    raise AssertionError("no deal with an exposed Ace in 500 seeds")


def test_eight_off_deal_is_not_auto_played() -> None:
    seed, name = _ace_exposed_at_the_deal()
    game = new_game("eight-off", seed)
    ace = game.position()["piles"][name][-1]
    # The Ace waits: it is still there, nothing is on the foundations.
    assert game.score == 0
    assert game.position()["piles"][name][-1] == ace
    assert game.view()["piles"][name]["cards"][-1] == ace
    assert f"{name}>f1" in game.legal_moves()
    # The first move that does not touch it plays it as part of the same move.
    move = next(m for m in game.legal_moves() if not m.startswith(name + ">") and ">r" in m)
    result = game.play(move)
    moved = [s.card for s in result.steps]
    assert result.steps[0].src == move.split(">")[0]
    assert ace in moved[1:]
    piles = game.position()["piles"]
    assert ace in {piles[f][0] for f in ("f1", "f2", "f3", "f4") if piles[f]}
    assert ace not in piles[name]
    assert result.score_delta == game.score >= 1


def test_eight_off_seed_0_has_an_ace_in_r1_that_waits_for_the_first_move() -> None:
    game = new_game("eight-off", 0)
    ace = game.position()["piles"]["r1"][0]
    assert ace[0] == "A"
    result = game.play("t1>r5")
    assert result.steps[0].dst == "r5"
    assert (ace, "r1", "f1") in steps_of(result)
    assert game.position()["piles"]["f1"][0] == ace


# ----- auto-play ------------------------------------------------------------------------


def test_eight_off_auto_play_scans_reserve_then_tableau_and_repeats() -> None:
    game = load(
        position(
            {
                "f1": ["AC", "2C"],
                "f3": ["AH"],
                "r1": ["9H"],
                "r2": ["4C"],
                "r4": ["6C"],
                "t1": ["QS", "3C", "9S"],
                "t2": ["9D", "AD", "5C"],
                "t3": ["KD", "2D"],
            },
            dump=("t1", "t2", "t3"),
        )
    )
    result = game.play("t1>r3")
    assert steps_of(result) == [
        ("9S", "t1", "r3"),
        ("3C", "t1", "f1"),  # t1 is the first fit: the reserve has none yet
        ("4C", "r2", "f1"),  # a new scan starts at r1
        ("5C", "t2", "f1"),
        ("6C", "r4", "f1"),  # r4 before t2's Ace: reserve cells first
        ("AD", "t2", "f2"),  # an Ace to the leftmost empty foundation
        ("2D", "t3", "f2"),
    ]
    assert result.score_delta == 6
    assert result.score == game.score == 2 + 1 + 6
    piles = game.position()["piles"]
    assert piles["f4"] == [] and piles["r1"] == ["9H"]
    assert piles["t1"][-1] == "QS" and piles["t2"][-1] == "9D" and piles["t3"][-1] == "KD"


def test_eight_off_auto_played_ace_takes_the_leftmost_empty_foundation() -> None:
    game = load(
        position({"f2": ["AC"], "t1": ["QS", "AD", "9S"], "t2": ["KS", "AH"]}, dump=("t1", "t2", "t3"))
    )
    # AH on t2 already fits, but the deal of a position is never auto-played.
    result = game.play("t1>r1")
    assert steps_of(result) == [("9S", "t1", "r1"), ("AD", "t1", "f1"), ("AH", "t2", "f3")]


def test_eight_off_auto_play_after_a_foundation_move() -> None:
    game = load(position({"f1": ["AS"], "t1": ["QD", "3S", "2S"], "r1": ["4S"]}, dump=("t1", "t2", "t3")))
    result = game.play("t1>f1")
    assert steps_of(result) == [("2S", "t1", "f1"), ("3S", "t1", "f1"), ("4S", "r1", "f1")]
    assert result.score_delta == 3


QUEEN_HIGH_SPADES = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS"]


def test_eight_off_auto_plays_a_king_onto_a_foundation_loaded_up_to_its_queen() -> None:
    """A foundation loaded from a position with Ace to Queen takes its King by auto-play
    (the next card a suit needs is worked out from the foundations as loaded)."""
    game = load(position({"f1": QUEEN_HIGH_SPADES, "t1": ["9D", "KS", "8H"]}, dump=("t1", "t2", "t3")))
    result = game.play("t1>r1")
    assert steps_of(result) == [("8H", "t1", "r1"), ("KS", "t1", "f1")]
    assert game.position()["piles"]["f1"][-1] == "KS"


def test_eight_off_auto_play_after_an_undo_takes_the_cards_the_foundations_need_again() -> None:
    """An undo takes the foundations back: the cards they need are those of the position
    restored, so the same move auto-plays the same cards again."""
    game = load(position({"f1": QUEEN_HIGH_SPADES, "t1": ["9D", "KS", "8H"]}, dump=("t1", "t2", "t3")))
    first = game.play("t1>r1")
    game.undo()
    assert game.position()["piles"]["f1"][-1] == "QS"
    assert steps_of(game.play("t1>r1")) == steps_of(first) == [("8H", "t1", "r1"), ("KS", "t1", "f1")]


# ----- runs ------------------------------------------------------------------------------


def test_eight_off_run_of_free_cells_plus_one_is_accepted() -> None:
    # Two free cells: a run of 3 may move.
    game = load(
        position({**cells("QS", "JS", "TS", "9S", "8S", "7S"), "t1": ["QC", "8H", "7H", "6H"], "t2": ["9H"]})
    )
    assert "t1:3>t2" in game.legal_moves()
    result = game.play("t1:3>t2")
    assert steps_of(result) == [("8H", "t1", "t2"), ("7H", "t1", "t2"), ("6H", "t1", "t2")]
    assert game.position()["piles"]["t2"][-4:] == ["9H", "8H", "7H", "6H"]


def test_eight_off_run_longer_than_free_cells_plus_one_is_rejected() -> None:
    # One free cell (and empty tableau piles, which do not count): a run of 3 may not move.
    piles = {**cells("QS", "JS", "TS", "9S", "8S", "7S", "6S"), "t1": ["QC", "8H", "7H", "6H"], "t2": ["9H"]}
    game = load(position(piles))
    assert game.position()["piles"]["t8"] == []
    assert "t1:3>t2" not in game.legal_moves()
    assert rejected(game, "t1:3>t2") == "a run of 3 needs 2 free reserve cells; 1 is free"


def test_eight_off_run_of_two_with_no_free_cell_is_rejected() -> None:
    piles = {**cells("QS", "JS", "TS", "9S", "8S", "7S", "6S", "5S"), "t1": ["QC", "7H", "6H"], "t2": ["8H"]}
    game = load(position(piles))
    assert "t1:2>t2" not in game.legal_moves()
    assert rejected(game, "t1:2>t2") == "a run of 2 needs 1 free reserve cell; 0 are free"
    assert "t1>t2" not in game.legal_moves()  # 6H does not go on 8H


def test_eight_off_run_must_be_same_suit_descending() -> None:
    game = load(position({"t1": ["QC", "8H", "7S", "6H"], "t2": ["9H"], "t3": ["8S", "6S"], "t4": ["9S"]}))
    assert "not a run" in rejected(game, "t1:3>t2")
    assert "not a run" in rejected(game, "t1:2>t2")
    assert "t3:2>t4" not in game.legal_moves()
    rejected(game, "t3:2>t4")  # 8S, 6S: a gap


def test_eight_off_run_bottom_must_fit_the_target() -> None:
    game = load(position({"t1": ["QC", "8H", "7H"], "t2": ["TH"], "t3": ["9D"]}))
    rejected(game, "t1:2>t2")
    rejected(game, "t1:2>t3")
    assert not any(m.startswith("t1:") for m in game.legal_moves())


def test_eight_off_run_goes_only_to_a_tableau_pile() -> None:
    game = load(position({"t1": ["QC", "8H", "7H"], "f1": ["AH", "2H", "3H", "4H", "5H", "6H"]}))
    rejected(game, "t1:2>r1")
    rejected(game, "t1:2>f1")
    rejected(game, "r1:2>t2")


def test_eight_off_run_longer_than_the_pile_is_rejected() -> None:
    game = load(position({"t1": ["8H", "7H"], "t2": ["9H"]}, dump=("t3", "t4", "t5")))
    rejected(game, "t1:3>t2")
    assert "t1:2>t2" in game.legal_moves()


# ----- empty tableau, reserve, foundations ------------------------------------------------


def test_eight_off_empty_tableau_pile_takes_only_a_king() -> None:
    game = load(position({"t1": ["2C", "QH"], "t2": ["3C", "KH"], "r1": ["JD"], "t8": []}))
    legal = game.legal_moves()
    assert "t1>t8" not in legal and "r1>t8" not in legal
    assert "King" in rejected(game, "t1>t8")
    rejected(game, "r1>t8")
    assert "t2>t8" in legal
    game.play("t2>t8")
    assert game.position()["piles"]["t8"] == ["KH"]


def test_eight_off_empty_tableau_pile_takes_a_king_based_run() -> None:
    game = load(position({"t1": ["2C", "KH", "QH"], "t2": ["3C", "QD", "JD"], "t8": []}))
    legal = game.legal_moves()
    assert "t1:2>t8" in legal
    assert "t2:2>t8" not in legal
    rejected(game, "t2:2>t8")
    game.play("t1:2>t8")
    assert game.position()["piles"]["t8"] == ["KH", "QH"]


def test_eight_off_single_card_builds_down_in_suit() -> None:
    game = load(position({"t1": ["2C", "9H"], "t2": ["8H"], "t3": ["8S"], "r1": ["7H"]}))
    legal = game.legal_moves()
    assert "t2>t1" in legal and "t3>t1" not in legal and "r1>t2" in legal
    rejected(game, "t3>t1")
    rejected(game, "r1>t1")
    game.play("r1>t2")
    assert game.position()["piles"]["t2"][-2:] == ["8H", "7H"]


def test_eight_off_reserve_cell_holds_one_card() -> None:
    game = load(position({"r1": ["5C"], "t1": ["QH", "9D"]}))
    assert "t1>r1" not in game.legal_moves()
    assert "one card" in rejected(game, "t1>r1")
    assert "t1>r2" in game.legal_moves() and "r1>r2" in game.legal_moves()
    game.play("r1>r2")
    assert game.position()["piles"]["r2"] == ["5C"] and game.position()["piles"]["r1"] == []


def test_eight_off_foundation_takes_an_ace_when_empty() -> None:
    game = load(position({"t1": ["QH", "AD"], "t2": ["QS", "KC"], "r1": ["2D"]}))
    rejected(game, "t2>f1")  # a King does not start a foundation
    rejected(game, "r1>f1")
    result = game.play("t1>f3")  # any empty foundation
    assert steps_of(result) == [("AD", "t1", "f3"), ("2D", "r1", "f3")]


def test_eight_off_foundation_builds_up_in_suit_without_wrap() -> None:
    clubs = [r + "C" for r in "A23456789TJQK"]
    game = load(position({"f1": clubs, "f2": ["AD"], "t1": ["QH", "3D"], "r1": ["2S"], "t2": ["QS", "AH"]}))
    rejected(game, "t1>f2")  # 3D on AD
    rejected(game, "r1>f2")  # 2S on AD
    rejected(game, "t2>f1")  # no Ace on a King
    assert not any(m.endswith(">f1") for m in game.legal_moves())


def test_eight_off_foundation_cards_never_move() -> None:
    game = load(position({"f1": ["AC", "2C"], "t1": ["QH", "3D"]}))
    assert not any(m.startswith("f") for m in game.legal_moves())
    assert "never" in rejected(game, "f1>r1")
    rejected(game, "f1>t1")


def test_eight_off_shorthand_r_resolves_to_the_leftmost_empty_cell() -> None:
    game = load(position({"r1": ["5C"], "r2": ["6C"], "r4": ["7C"], "t1": ["QH", "9D"]}))
    result = game.play("t1>r")
    assert result.move == "t1>r3"
    assert game.position()["piles"]["r3"] == ["9D"]
    full = load(position({**cells("QS", "JS", "TS", "9S", "8S", "7S", "6S", "5S"), "t1": ["QH", "9D"]}))
    assert "free" in rejected(full, "t1>r")


def test_eight_off_shorthand_f_resolves_to_the_fitting_foundation() -> None:
    game = load(position({"f2": ["AC"], "t1": ["QH", "2C"], "t3": ["KD", "9S"]}))
    assert "fits no" in rejected(game, "t3>f")
    assert game.play("t1>f").move == "t1>f2"
    ace = load(position({"f2": ["AC"], "t1": ["QH", "2C"], "t2": ["QS", "AD"]}))
    result = ace.play("t2>f")
    assert result.move == "t2>f1"  # an Ace: the leftmost empty one
    assert steps_of(result) == [("AD", "t2", "f1"), ("2C", "t1", "f2")]  # then auto-play


def test_eight_off_has_no_deal_or_redeal() -> None:
    game = new_game("eight-off", 3)
    rejected(game, "deal")
    rejected(game, "redeal")


def test_eight_off_is_won_with_all_52_on_the_foundations() -> None:
    foundation = {f"f{i + 1}": [r + s for r in "A23456789TJQK"] for i, s in enumerate("CDHS")}
    foundation["f4"] = foundation["f4"][:-1]
    game = load(eo_position({**foundation, **cells("KS"), "t1": []}, dump=()))
    assert game.score == 51 and not game.is_won
    result = game.play("r1>f4")
    assert result.won and game.is_won and game.score == 52
    assert game.legal_moves() == []


def test_eight_off_rejection_names_the_card_and_the_foundation_top() -> None:
    game = load(position({"f2": ["AH", "2H", "3H", "4H", "5H"], "t1": ["QD", "8S"]}))
    assert rejected(game, "t1>f2") == "8S does not fit on f2 (top 5H)"

"""Positions (docs/rules.md): round trips and the checks of from_position."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from enginekit import eo_position, ew_position, move_or_undo

from shared import FULL_DECK, GAMES, from_position, new_game, replay


def _played(game_id: str, seed: int, count: int) -> Any:
    game = new_game(game_id, seed)
    for i in range(count):
        legal = game.legal_moves()
        if not legal:
            break
        game.play(legal[(i * 7) % len(legal)])
    return game


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("moves", [0, 5, 40])
def test_position_round_trips(game_id: str, moves: int) -> None:
    game = _played(game_id, 8, moves)
    data = game.position()
    again = from_position(copy.deepcopy(data))
    assert again.position() == data
    assert again.legal_moves() == game.legal_moves()
    assert again.score == game.score
    assert type(again) is type(game)


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("seed", range(6))
def test_the_position_text_follows_every_move_and_undo(game_id: str, seed: int) -> None:
    """Asked for once early on, the text is then kept pile by pile: after each move and
    each undo it must still read back as the whole position, piles in order."""
    game = new_game(game_id, seed)
    rng = random.Random(seed)
    assert json.loads(game.position_text()) == game.position()
    for _ in range(150):
        if not move_or_undo(game, rng, 0.2):
            break
        text = game.position_text()
        assert json.loads(text) == game.position()
        assert list(json.loads(text)["piles"]) == list(game.position()["piles"])
    assert game.move_count > 20


@pytest.mark.parametrize("game_id", GAMES)
def test_the_position_text_is_compact_json(game_id: str) -> None:
    game = _played(game_id, 2, 10)
    assert game.position_text() == json.dumps(game.position(), separators=(",", ":"))


@pytest.mark.parametrize("game_id", GAMES)
def test_position_holds_every_pile_and_only_plain_data(game_id: str) -> None:
    data = new_game(game_id, 1).position()
    assert data["game"] == game_id
    expected = {
        "eagle-wing": {
            "stock",
            "waste",
            "reserve",
            *(f"f{i}" for i in range(1, 5)),
            *(f"t{i}" for i in range(1, 9)),
        },
        "treize": {"stock", "waste", *(f"p{i}" for i in range(1, 29))},
        "eight-off": {
            *(f"f{i}" for i in range(1, 5)),
            *(f"r{i}" for i in range(1, 9)),
            *(f"t{i}" for i in range(1, 9)),
        },
    }[game_id]
    assert set(data["piles"]) == expected
    assert all(isinstance(p, list) and all(isinstance(c, str) for c in p) for p in data["piles"].values())
    assert ("redeals_used" in data) == (game_id == "eagle-wing")


@pytest.mark.parametrize("game_id", GAMES)
def test_position_is_a_copy(game_id: str) -> None:
    game = new_game(game_id, 2)
    data = game.position()
    next(p for p in data["piles"].values() if p).clear()
    assert game.position() != data
    loaded = from_position(new_game(game_id, 2).position())
    source = loaded.position()
    legal = loaded.legal_moves()
    loaded.play(legal[0])
    assert source == new_game(game_id, 2).position()


def test_eagle_wing_round_trip_keeps_redeals_used() -> None:
    game = new_game("eagle-wing", 9)
    for _ in range(30):
        game.play("deal")
    game.play("redeal")
    data = game.position()
    assert data["redeals_used"] == 1
    assert from_position(data).view()["redeals_left"] == 1


def test_move_count_is_not_part_of_the_position() -> None:
    game = replay("eagle-wing", 9, ["deal", "deal"])
    assert game.move_count == 2
    assert from_position(game.position()).move_count == 0


# ----- rejections ----------------------------------------------------------------------------


def _bad(game_id: str, change: Any) -> str:
    data = new_game(game_id, 4).position()
    change(data)
    with pytest.raises(ValueError) as caught:
        from_position(data)
    message = str(caught.value)
    assert len(message.split()) >= 3, message
    return message


@pytest.mark.parametrize(
    "data", [None, [], "eight-off", {"game": "eight-off"}, {"game": "eight-off", "piles": []}]
)
def test_from_position_rejects_a_value_that_is_not_a_position(data: Any) -> None:
    with pytest.raises(ValueError):
        from_position(data)


@pytest.mark.parametrize("game", ["klondike", "", None, 3, "Eight-Off"])
def test_from_position_rejects_an_unknown_game(game: Any) -> None:
    data = new_game("eight-off", 1).position()
    data["game"] = game
    with pytest.raises(ValueError, match="game"):
        from_position(data)


def test_from_position_rejects_a_missing_game() -> None:
    data = new_game("eight-off", 1).position()
    del data["game"]
    with pytest.raises(ValueError):
        from_position(data)


@pytest.mark.parametrize(
    ("game_id", "pile"), [("eagle-wing", "r1"), ("treize", "t1"), ("eight-off", "waste")]
)
def test_from_position_rejects_an_unknown_pile(game_id: str, pile: str) -> None:
    assert pile in _bad(game_id, lambda d: d["piles"].__setitem__(pile, []))


@pytest.mark.parametrize(
    ("game_id", "pile"), [("eagle-wing", "f3"), ("treize", "waste"), ("eight-off", "r8")]
)
def test_from_position_rejects_a_missing_pile(game_id: str, pile: str) -> None:
    assert pile in _bad(game_id, lambda d: d["piles"].pop(pile))


@pytest.mark.parametrize(
    ("game_id", "src", "dst"),
    [("eagle-wing", "stock", "waste"), ("treize", "p28", "waste"), ("eight-off", "t1", "r6")],
)
def test_from_position_rejects_a_card_twice(game_id: str, src: str, dst: str) -> None:
    def twice(d: dict[str, Any]) -> None:
        card = d["piles"][src][-1]
        d["piles"][dst].append(card)
        if game_id != "treize":  # keep 52 cards: drop another one
            d["piles"][src].pop(0)

    assert "twice" in _bad(game_id, twice)


@pytest.mark.parametrize("game_id", ["eagle-wing", "eight-off"])
def test_from_position_rejects_not_52_cards(game_id: str) -> None:
    pile = "stock" if game_id == "eagle-wing" else "t1"
    assert "51" in _bad(game_id, lambda d: d["piles"][pile].pop())


def test_from_position_accepts_fewer_cards_in_treize() -> None:
    data = new_game("treize", 4).position()
    data["piles"]["stock"].pop()
    data["piles"]["p28"].clear()
    game = from_position(data)
    assert game.score == 2


@pytest.mark.parametrize("text", ["XX", "10H", "ah", "", "AH ", "1C"])
@pytest.mark.parametrize("game_id", GAMES)
def test_from_position_rejects_a_string_that_is_not_a_card(game_id: str, text: str) -> None:
    def swap(d: dict[str, Any]) -> None:
        pile = next(p for p in d["piles"].values() if p)
        pile[-1] = text

    assert "not a card" in _bad(game_id, swap)


@pytest.mark.parametrize("game_id", GAMES)
def test_from_position_rejects_a_pile_that_is_not_a_list(game_id: str) -> None:
    def swap(d: dict[str, Any]) -> None:
        name = next(n for n, p in d["piles"].items() if p)
        d["piles"][name] = "".join(d["piles"][name])

    _bad(game_id, swap)


def test_from_position_rejects_four_cards_on_an_eagle_wing_tableau_pile() -> None:
    data = ew_position({"t1": ["9H", "8H", "7H", "6H"], "reserve": []})
    assert sum(len(p) for p in data["piles"].values()) == 52
    with pytest.raises(ValueError, match="t1"):
        from_position(data)


def test_from_position_rejects_two_cards_in_an_eight_off_reserve_cell() -> None:
    def two(d: dict[str, Any]) -> None:
        d["piles"]["r1"].append(d["piles"]["t1"].pop())

    assert "r1" in _bad("eight-off", two)


def test_from_position_rejects_two_cards_in_a_treize_pyramid_slot() -> None:
    def two(d: dict[str, Any]) -> None:
        d["piles"]["p25"].append(d["piles"]["stock"].pop())

    assert "p25" in _bad("treize", two)


def test_from_position_rejects_a_removed_treize_card_still_covered() -> None:
    assert "p1" in _bad("treize", lambda d: d["piles"]["p1"].clear())


def test_from_position_rejects_an_eagle_wing_empty_tableau_pile_while_the_reserve_holds_cards() -> None:
    with pytest.raises(ValueError, match="t4"):
        from_position(ew_position({"t4": [], "reserve": ["5C"]}))
    # Once the reserve is empty, an empty tableau pile is fine.
    assert from_position(ew_position({"t4": [], "reserve": []})).position()["piles"]["t4"] == []


@pytest.mark.parametrize("redeals", [3, -1, "1", None, True])
def test_from_position_rejects_bad_redeals_used(redeals: Any) -> None:
    assert "redeals" in _bad("eagle-wing", lambda d: d.__setitem__("redeals_used", redeals))


def test_from_position_rejects_an_eagle_wing_foundation_out_of_suit() -> None:
    with pytest.raises(ValueError, match="f1"):
        from_position(ew_position({"f1": ["7C", "8D"]}))
    with pytest.raises(ValueError, match="f2"):
        from_position(ew_position({"f1": ["7C"], "f2": ["8D"]}))


def test_from_position_rejects_an_eagle_wing_tableau_pile_out_of_order() -> None:
    with pytest.raises(ValueError, match="t2"):
        from_position(ew_position({"t2": ["9H", "TH"]}))


def test_from_position_rejects_an_eight_off_foundation_not_starting_with_an_ace() -> None:
    with pytest.raises(ValueError, match="f2"):
        from_position(eo_position({"f2": ["2D"]}, dump=("t1", "t2")))
    with pytest.raises(ValueError, match="f1"):
        from_position(eo_position({"f1": ["AD", "3D"]}, dump=("t1", "t2")))


@pytest.mark.parametrize("game_id", GAMES)
def test_copy_is_independent_and_equal(game_id: str) -> None:
    game = new_game(game_id, 6)
    clone = game.copy()
    assert clone == game and clone is not game
    move = game.legal_moves()[0]
    assert clone.is_legal(move)
    clone.play(move)
    assert game.position() == new_game(game_id, 6).position()
    assert clone.move_count == 1 and game.move_count == 0
    assert not game.is_legal("t1>t1")


def test_move_result_to_dict_is_plain_data() -> None:
    game = new_game("eagle-wing", 9)
    for _ in range(30):
        game.play("deal")
    data = game.play("redeal").to_dict()
    assert data["move"] == "redeal"
    assert len(data["steps"]) == 30
    assert data["steps"][0] == [None, "waste", "stock"]
    assert data["score_delta"] == 0 and data["score"] == 1 and data["won"] is False


def test_from_position_rejects_an_eagle_wing_position_without_redeals_used() -> None:
    assert "redeals_used" in _bad("eagle-wing", lambda d: d.pop("redeals_used"))


def _cards_on(game: Any) -> list[str]:
    return [card for cards in game.piles.values() for card in cards]


@pytest.mark.parametrize("game_id", GAMES)
def test_a_game_from_stored_text_holds_the_decks_own_card_strings(game_id: str) -> None:
    """A position read back from JSON (as a server loads a board) and the piles an undo
    restores hold the deck's 52 strings, shared by every game, not copies of them."""
    deck = {id(card) for card in FULL_DECK}
    loaded = from_position(json.loads(json.dumps(_played(game_id, 4, 12).position())))
    assert all(id(card) in deck for card in _cards_on(loaded))
    rng = random.Random(4)
    for _ in range(30):
        if not move_or_undo(loaded, rng, 0.5):
            break
    assert loaded.move_count < 30  # some moves were taken back
    assert all(id(card) in deck for card in _cards_on(loaded))

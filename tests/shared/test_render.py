"""Views (no face-down card, ever) and their plain-text rendering."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from enginekit import ew_position, load

from shared import GAMES, from_position, new_game, render_view


def _view_cards(view: dict[str, Any]) -> list[str]:
    return [c for pile in view["piles"].values() for c in pile["cards"]]


def _playout(game_id: str, seed: int, moves: int) -> Any:
    rng = random.Random(seed)
    game = new_game(game_id, seed)
    for _ in range(moves):
        legal = game.legal_moves()
        if not legal:
            break
        game.play(rng.choice(legal))
    return game


@pytest.mark.parametrize("game_id", GAMES)
def test_view_shows_counts_for_every_pile(game_id: str) -> None:
    game = _playout(game_id, 3, 25)
    view = game.view()
    position = game.position()
    assert view["game"] == game_id
    assert set(view["piles"]) == set(position["piles"])
    for name, pile in view["piles"].items():
        assert pile["count"] == len(position["piles"][name])
        assert len(pile["cards"]) <= pile["count"]
        # What is shown is the top of the pile, in order.
        if pile["cards"]:
            assert position["piles"][name][-len(pile["cards"]) :] == pile["cards"]
    assert view["score"] == game.score
    assert view["won"] == game.is_won
    assert view["move_count"] == game.move_count


def test_eagle_wing_view_hides_stock_reserve_and_waste_below_its_top() -> None:
    game = new_game("eagle-wing", 6)
    for _ in range(4):
        game.play("deal")
    view = game.view()
    piles = game.position()["piles"]
    assert view["piles"]["stock"] == {"count": 26, "cards": []}
    assert view["piles"]["reserve"] == {"count": 13, "cards": []}
    assert view["piles"]["waste"] == {"count": 4, "cards": [piles["waste"][-1]]}
    assert view["piles"]["f1"] == {"count": 1, "cards": piles["f1"]}
    for i in range(1, 9):
        assert view["piles"][f"t{i}"] == {"count": 1, "cards": piles[f"t{i}"]}
    shown = set(_view_cards(view))
    hidden = set(piles["stock"]) | set(piles["reserve"]) | set(piles["waste"][:-1])
    assert not shown & hidden
    assert view["base_rank"] == piles["f1"][0][0]
    assert view["redeals_left"] == 2


def test_eagle_wing_view_shows_the_last_reserve_card() -> None:
    view = load(ew_position({"reserve": ["5D"]})).view()
    assert view["piles"]["reserve"] == {"count": 1, "cards": ["5D"]}
    two = load(ew_position({"reserve": ["5D", "9C"]})).view()
    assert two["piles"]["reserve"] == {"count": 2, "cards": []}


def test_foundations_show_only_their_top_card() -> None:
    game = load(ew_position({"f1": ["7C", "8C", "9C"]}))
    assert game.view()["piles"]["f1"] == {"count": 3, "cards": ["9C"]}


def test_eight_off_view_shows_every_card_but_covered_foundation_cards() -> None:
    game = _playout("eight-off", 2, 30)
    view = game.view()
    piles = game.position()["piles"]
    for name, pile in piles.items():
        expected = pile[-1:] if name.startswith("f") else pile
        assert view["piles"][name]["cards"] == expected


def test_treize_view_hides_the_stock_only() -> None:
    game = new_game("treize", 4)
    for _ in range(3):
        game.play("deal")
    view = game.view()
    piles = game.position()["piles"]
    assert view["piles"]["stock"] == {"count": 21, "cards": []}
    assert view["piles"]["waste"]["cards"] == piles["waste"]
    assert not set(_view_cards(view)) & set(piles["stock"])


def _permuted(data: dict[str, Any], names: dict[str, slice], seed: int) -> dict[str, Any]:
    data = copy.deepcopy(data)
    rng = random.Random(seed)
    for name, part in names.items():
        pile = data["piles"][name]
        chunk = pile[part]
        rng.shuffle(chunk)
        pile[part] = chunk
    return data


def test_eagle_wing_deals_differing_in_face_down_cards_give_identical_views() -> None:
    game = new_game("eagle-wing", 8)
    for _ in range(5):
        game.play("deal")
    data = game.position()
    other = _permuted(data, {"stock": slice(None), "reserve": slice(None), "waste": slice(0, -1)}, 1)
    assert other != data
    assert from_position(other).view() == from_position(data).view()


def test_eagle_wing_swapping_stock_and_reserve_cards_keeps_the_view() -> None:
    data = new_game("eagle-wing", 8).position()
    other = copy.deepcopy(data)
    other["piles"]["stock"][0], other["piles"]["reserve"][5] = (
        data["piles"]["reserve"][5],
        data["piles"]["stock"][0],
    )
    assert from_position(other).view() == from_position(data).view()


def test_treize_deals_differing_in_the_stock_give_identical_views() -> None:
    data = new_game("treize", 8).position()
    other = _permuted(data, {"stock": slice(None)}, 2)
    assert other != data
    assert from_position(other).view() == from_position(data).view()


def test_views_differ_when_a_visible_card_differs() -> None:
    data = new_game("eagle-wing", 8).position()
    other = copy.deepcopy(data)
    other["piles"]["t1"], other["piles"]["stock"][0] = [data["piles"]["stock"][0]], data["piles"]["t1"][0]
    assert from_position(other).view() != from_position(data).view()


# ----- render --------------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", GAMES)
def test_render_draws_every_pile_and_no_hidden_card(game_id: str) -> None:
    game = _playout(game_id, 5, 12)
    view = game.view()
    text = render_view(view)
    lines = text.splitlines()
    assert lines[0].startswith(game_id)
    assert f"score {game.score}" in lines[0]
    assert f"moves {game.move_count}" in lines[0]
    for card in _view_cards(view):
        assert card in text
    shown = set(_view_cards(view))
    for card in {c for pile in game.position()["piles"].values() for c in pile} - shown:
        assert card not in text.split(), card


def test_render_eagle_wing_counts_hidden_cards() -> None:
    text = render_view(new_game("eagle-wing", 1).view())
    assert "base " in text.splitlines()[0] and "redeals left 2" in text
    stock = next(line for line in text.splitlines() if line.startswith("stock"))
    assert "[30]" in stock
    reserve = next(line for line in text.splitlines() if line.startswith("reserve"))
    assert "[13]" in reserve


def test_render_treize_draws_the_pyramid_in_seven_rows() -> None:
    game = new_game("treize", 1)
    text = render_view(game.view())
    lines = text.splitlines()
    piles = game.position()["piles"]
    rows = lines[-7:]
    assert rows[0].split() == piles["p1"]
    assert rows[6].split() == [piles[f"p{i}"][0] for i in range(22, 29)]


def test_render_marks_a_won_game() -> None:
    from enginekit import treize_position

    game = load(treize_position({"p1": ["KH"]}))
    game.play("p1")
    assert "WON" in render_view(game.view()).splitlines()[0]

"""The typed views and move results are the wire format: their keys, order and types are pinned."""

from __future__ import annotations

import json
import random
import typing
from typing import Any

import pytest

from shared import GAMES, GameView, MoveResultDict, PileView, new_game

COMMON_TAIL = ["score", "won", "move_count"]

#: The exact keys of ``view()``, in order, per game: the order is part of the wire format.
VIEW_KEYS: dict[str, list[str]] = {
    "eagle-wing": ["game", "piles", "base_rank", "redeals_left", *COMMON_TAIL],
    "treize": ["game", "piles", *COMMON_TAIL],
    "eight-off": ["game", "piles", *COMMON_TAIL],
}

_F = [f"f{i}" for i in range(1, 5)]
_T = [f"t{i}" for i in range(1, 9)]
PILE_KEYS: dict[str, list[str]] = {
    "eagle-wing": ["stock", "waste", *_F, *_T, "reserve"],
    "treize": ["stock", "waste", *(f"p{i}" for i in range(1, 29))],
    "eight-off": [*_F, *(f"r{i}" for i in range(1, 9)), *_T],
}

RESULT_KEYS = ["move", "steps", "score_delta", "score", "won"]


def _boards(game_id: str, seed: int, moves: int) -> typing.Iterator[tuple[GameView, MoveResultDict | None]]:
    """The views (and the result that led to each) along a random playout."""
    rng = random.Random(seed)
    game = new_game(game_id, seed)
    yield game.view(), None
    for _ in range(moves):
        legal = game.legal_moves()
        if not legal:
            return
        result = game.play(rng.choice(legal)).to_dict()
        yield game.view(), result


def _check_view(game_id: str, view: GameView) -> None:
    assert list(view) == VIEW_KEYS[game_id]
    assert view["game"] == game_id
    assert list(view["piles"]) == PILE_KEYS[game_id]
    for pile in view["piles"].values():
        assert list(pile) == ["count", "cards"]
        assert type(pile["count"]) is int and type(pile["cards"]) is list
        assert all(type(card) is str for card in pile["cards"])
    for key in ("score", "move_count"):
        assert type(view[key]) is int
    assert type(view["won"]) is bool
    if game_id == "eagle-wing":
        assert type(view["base_rank"]) is str and type(view["redeals_left"]) is int


def _check_result(result: MoveResultDict) -> None:
    assert list(result) == RESULT_KEYS
    assert type(result["move"]) is str and type(result["steps"]) is list and result["steps"]
    for step in result["steps"]:
        assert type(step) is list and len(step) == 3
        card, src, dst = step
        assert card is None or type(card) is str
        assert type(src) is str and type(dst) is str
    assert type(result["score_delta"]) is int and type(result["score"]) is int
    assert type(result["won"]) is bool


@pytest.mark.parametrize("game_id", GAMES)
def test_view_keys_and_their_order_are_pinned(game_id: str) -> None:
    for seed in range(3):
        for view, result in _boards(game_id, seed, 80):
            _check_view(game_id, view)
            if result is not None:
                _check_result(result)


def test_a_redeal_result_has_face_down_steps() -> None:
    game = new_game("eagle-wing", 1)
    while game.piles["stock"]:
        game.play("deal")
    result = game.play("redeal").to_dict()
    _check_result(result)
    assert all(step[0] is None and step[1:] == ["waste", "stock"] for step in result["steps"])


def test_the_wire_bytes_of_a_result_and_a_view_are_pinned() -> None:
    game = new_game("treize", 42)
    assert json.dumps(game.play("deal").to_dict()) == (
        '{"move": "deal", "steps": [["QC", "stock", "waste"]], "score_delta": 0, "score": 0, "won": false}'
    )
    text = json.dumps(new_game("eagle-wing", 1).view())
    assert text.startswith('{"game": "eagle-wing", "piles": {"stock": {"count": 30, "cards": []}, ')
    assert text[text.index('"base_rank"') :] == (
        '"base_rank": "7", "redeals_left": 2, "score": 1, "won": false, "move_count": 0}'
    )


def _declared(kind: Any) -> list[str]:
    return list(kind.__annotations__)


def test_the_typed_dicts_declare_the_runtime_keys() -> None:
    assert _declared(PileView) == ["count", "cards"]
    assert _declared(GameView) == VIEW_KEYS["eagle-wing"]
    assert GameView.__required_keys__ == frozenset(VIEW_KEYS["treize"])
    assert GameView.__optional_keys__ == frozenset({"base_rank", "redeals_left"})
    assert _declared(MoveResultDict) == RESULT_KEYS
    assert MoveResultDict.__required_keys__ == frozenset(RESULT_KEYS)
    hints = typing.get_type_hints(GameView)
    assert typing.get_args(hints["game"]) == GAMES

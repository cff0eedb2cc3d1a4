"""Move notation (docs/rules.md, "Move notation"): parsing, pile names, canonical forms, rejections."""

from __future__ import annotations

import pytest
from enginekit import eo_position, ew_position, load, rejected

from shared import GAMES, IllegalMove, Move, new_game, parse_move

MALFORMED = [
    "t3>>f1",
    "t3:1>f1",
    "t3:0>f1",
    "t3:>f1",
    "t3:x>f1",
    ">f1",
    "t3>",
    "t3>f1>f2",
    "x",
    "",
    "   ",
    "t3 > f1 " * 20,
    "t" * 1000,
    "p1+p2+p3",
    "+p2",
    "p1+",
    "3t>f1",
    "t3-f1",
    "t3>f1;drop",
    "dealx",
    "dea l",
    "\x00",
    "t\u00e9>f1",
]


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("text", MALFORMED)
def test_malformed_move_is_rejected_and_changes_nothing(game_id: str, text: str) -> None:
    game = new_game(game_id, 11)
    reason = rejected(game, text)
    assert reason[0].isalpha() or reason[0] in "'\""


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("value", [None, 3, 3.5, b"deal", ["deal"], {"move": "deal"}, object()])
def test_move_that_is_not_text_is_rejected(game_id: str, value: object) -> None:
    game = new_game(game_id, 11)
    before = game.position()
    with pytest.raises(IllegalMove) as caught:
        game.play(value)  # type: ignore[arg-type]
    assert "text" in caught.value.reason
    assert game.position() == before and game.move_count == 0


def test_illegal_move_is_a_value_error_with_a_reason() -> None:
    game = new_game("eight-off", 1)
    with pytest.raises(ValueError) as caught:
        game.play("t1>t1")
    assert isinstance(caught.value, IllegalMove)
    assert caught.value.reason == str(caught.value)
    assert caught.value.reason.endswith(("itself", "."))


@pytest.mark.parametrize(
    ("game_id", "text"),
    [
        ("eagle-wing", "r1>t1"),
        ("eagle-wing", "t1>r1"),
        ("eagle-wing", "t9>t1"),
        ("eagle-wing", "t0>t1"),
        ("eagle-wing", "t1>f5"),
        ("eagle-wing", "t1>r"),
        ("eagle-wing", "p1"),
        ("eagle-wing", "p22+p23"),
        ("eagle-wing", "wt"),
        ("eagle-wing", "foo>t1"),
        ("treize", "t1>t2"),
        ("treize", "waste>p1"),
        ("treize", "p29"),
        ("treize", "p0"),
        ("treize", "p22+p29"),
        ("treize", "wx"),
        ("treize", "stock"),
        ("treize", "waste"),
        ("eight-off", "waste>t1"),
        ("eight-off", "reserve>t1"),
        ("eight-off", "t9>r1"),
        ("eight-off", "t1>r9"),
        ("eight-off", "stock>t1"),
        ("eight-off", "t1>f5"),
        ("eight-off", "p25"),
        ("eight-off", "wb+wt"),
    ],
)
def test_unknown_pile_for_the_game_is_rejected(game_id: str, text: str) -> None:
    game = new_game(game_id, 5)
    reason = rejected(game, text)
    assert len(reason.split()) >= 3


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("deal", Move("deal")),
        (" DEAL ", Move("deal")),
        ("Redeal", Move("redeal")),
        ("t3>f1", Move("move", "t3", "f1", 1)),
        ("T3>F1", Move("move", "t3", "f1", 1)),
        ("\tt3:3>t5\n", Move("move", "t3", "t5", 3)),
        ("t6:2>f", Move("move", "t6", "f", 2)),
        ("reserve>t1", Move("move", "reserve", "t1", 1)),
        ("p25", Move("remove", "p25", "", 1)),
        ("P9+WT", Move("remove", "p9", "wt", 1)),
    ],
)
def test_parse_move_reads_the_notation(text: str, move: Move) -> None:
    assert parse_move(text) == move


@pytest.mark.parametrize(
    "canonical", ["deal", "redeal", "t3>f1", "t3:3>t5", "waste>t3", "reserve>t1", "p25", "p9+wt", "wu+wt"]
)
def test_canonical_move_text_survives_parse_and_print(canonical: str) -> None:
    assert str(parse_move(canonical)) == canonical
    assert str(parse_move(canonical.upper())) == canonical


def test_eight_off_move_is_read_case_and_space_insensitively() -> None:
    game = new_game("eight-off", 0)
    result = game.play("  T1>R5 ")
    assert result.move == "t1>r5"


def test_a_move_typed_in_full_width_characters_reads_as_the_plain_one() -> None:
    game = new_game("eight-off", 0)
    result = game.play("\uff34\uff11\uff1e\uff52\uff15")  # T1>r5 in full width
    assert result.move == "t1>r5"


def test_eight_off_shorthands_give_the_canonical_move() -> None:
    game = load(
        eo_position(
            {"r1": ["5C"], "r2": [], "t1": ["QH", "9D"], "f1": [], "f2": [], "f3": [], "f4": []},
            dump=("t1", "t5", "t6", "t7"),
        )
    )
    assert game.play("T1>R").move == "t1>r2"


def test_eagle_wing_move_is_read_case_and_space_insensitively() -> None:
    game = new_game("eagle-wing", 0)
    result = game.play(" Deal ")
    assert result.move == "deal"
    game2 = load(ew_position({"waste": ["5D"], "t1": ["6D"]}))
    assert game2.play("WASTE>T1").move == "waste>t1"


def test_eagle_wing_group_shorthand_to_a_foundation_is_canonical() -> None:
    game = load(ew_position({"f1": ["7C", "8C"], "t1": ["TC", "9C"], "reserve": []}))
    assert game.play("T1:2>F").move == "t1:2>f1"


@pytest.mark.parametrize("game_id", GAMES)
def test_legal_moves_are_canonical_and_sorted(game_id: str) -> None:
    for seed in range(10):
        game = new_game(game_id, seed)
        legal = game.legal_moves()
        assert legal == sorted(legal)
        assert len(set(legal)) == len(legal)
        for move in legal:
            assert move == move.strip().lower()
            assert str(parse_move(move)) == move
            assert ">f" not in move or move[-1].isdigit()
            assert not move.endswith(">r")
            probe = game.copy()
            assert probe.play(move).move == move


@pytest.mark.parametrize("game_id", GAMES)
def test_rejected_moves_keep_the_move_count(game_id: str) -> None:
    game = new_game(game_id, 3)
    for text in ("t1>t1", "zz", "p1+p1", "f1>t1", "redeal" if game_id != "eagle-wing" else "t1:9>f1"):
        rejected(game, text)
    assert game.move_count == 0

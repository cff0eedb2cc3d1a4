"""The engine's registry of games, its two kinds of rejected move, and move counts."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import typing

import pytest

from shared import (
    GAMES,
    BadNotation,
    Game,
    GameName,
    IllegalMove,
    RuleViolation,
    from_position,
    new_game,
    replay,
)
from shared.protocol import CreateRace

#: Per game: a text that is no move of it, a pile it lacks, and a well-formed move it refuses.
CASES = {
    "eagle-wing": ("fly away", "t9>f1", "f1>t1"),
    "treize": ("fly away", "q3", "p1"),
    "eight-off": ("fly away", "t9>f1", "t1>t1"),
}


def test_the_registry_holds_exactly_the_games_of_game_name() -> None:
    assert GAMES == ("eagle-wing", "treize", "eight-off")
    assert typing.get_args(GameName) == GAMES
    assert sorted(Game.registry) == sorted(GAMES) and len(Game.registry) == len(GAMES)
    for game_id, kind in Game.registry.items():
        assert issubclass(kind, Game) and kind.game_id in typing.get_args(GameName)
        assert kind.game_id == game_id and new_game(game_id, 1).game_id == game_id


def test_only_a_class_that_declares_a_game_id_registers() -> None:
    before = dict(Game.registry)
    kind = Game.registry["eight-off"]

    class Variant(kind):  # type: ignore[valid-type,misc]
        """Inherits eight-off's game_id without declaring one: not a new game."""

    assert Game.registry == before and Game.registry["eight-off"] is kind
    assert Variant.game_id == "eight-off"


def test_the_engine_and_its_types_import_without_pydantic() -> None:
    code = (
        "import sys\n"
        "from shared import GAMES, GameName, GameView, MoveResultDict, PileView\n"
        "from shared.games import GAMES as again\n"
        "assert again is GAMES\n"
        "assert 'pydantic' not in sys.modules, 'pydantic was imported'\n"
    )
    root = pathlib.Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_protocol_accepts_every_registered_game_and_no_other() -> None:
    for game_id in Game.registry:
        assert CreateRace(id=1, game=game_id).game == game_id  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="game"):
        CreateRace(id=1, game="klondike")  # type: ignore[arg-type]


@pytest.mark.parametrize("game_id", GAMES)
def test_unreadable_text_and_unknown_piles_are_bad_notation(game_id: str) -> None:
    unreadable, unknown_pile, _ = CASES[game_id]
    for text in (unreadable, unknown_pile):
        with pytest.raises(BadNotation):
            new_game(game_id, 3).play(text)


@pytest.mark.parametrize("game_id", GAMES)
def test_a_well_formed_move_against_the_rules_is_a_rule_violation(game_id: str) -> None:
    with pytest.raises(RuleViolation) as caught:
        new_game(game_id, 3).play(CASES[game_id][2])
    assert isinstance(caught.value, IllegalMove)


def test_replay_reraises_the_same_kind_with_the_index() -> None:
    with pytest.raises(BadNotation) as bad:
        replay("treize", 42, ["deal", "fly away"])
    assert bad.value.index == 1
    assert str(bad.value).startswith("move 2 ('fly away'): ")  # counted from 1, as verify does
    with pytest.raises(RuleViolation) as broken:
        replay("eight-off", 3, ["t1>t1"])
    assert broken.value.index == 0 and broken.value.move == "t1>t1"
    assert str(broken.value) == "move 1 ('t1>t1'): t1 cannot move onto itself"


def test_from_position_takes_the_move_count_in_one_place() -> None:
    game = new_game("eight-off", 5)
    game.play(game.legal_moves()[0])
    again = from_position(game.position(), move_count=game.move_count)
    assert again.move_count == 1 and again.view() == game.view()
    assert game.copy().move_count == 1
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="move count"):
            from_position(game.position(), move_count=bad)  # type: ignore[arg-type]

"""Helpers for the engine tests: build legal positions from a few piles that matter.

Each builder takes the piles a test cares about and places every other card somewhere
that keeps the position valid and out of the way.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from shared import FULL_DECK, RANKS, IllegalMove, from_position, new_game
from shared.game import Game
from shared.knowledge import hidden_slots

EW_PILES = ("stock", "waste", "f1", "f2", "f3", "f4", *(f"t{i}" for i in range(1, 9)), "reserve")
TREIZE_PILES = ("stock", "waste", *(f"p{i}" for i in range(1, 29)))
EO_PILES = (
    *(f"f{i}" for i in range(1, 5)),
    *(f"r{i}" for i in range(1, 9)),
    *(f"t{i}" for i in range(1, 9)),
)
#: Treize: each slot of rows 1-6 and the two slots of the next row that cover it.
COVERED_BY: dict[str, tuple[str, str]] = {}
_index = 0
for _row in range(1, 7):
    for _ in range(_row):
        COVERED_BY[f"p{_index + 1}"] = (f"p{_index + _row + 1}", f"p{_index + _row + 2}")
        _index += 1


def value(card: str) -> int:
    return RANKS.index(card[0]) + 1


def card(value_: int, suit: str) -> str:
    return RANKS[value_ - 1] + suit


def _used(piles: dict[str, list[str]]) -> set[str]:
    cards = [c for pile in piles.values() for c in pile]
    assert len(cards) == len(set(cards)), f"a test position names a card twice: {cards}"
    return set(cards)


def ew_position(piles: dict[str, list[str]], base: str = "7", redeals_used: int = 0) -> dict[str, Any]:
    """An Eagle Wing position: the given piles as they are; f1 starts with a base card if
    not given; leftover cards go to the foundations not given (building up from the base),
    to 3-card runs on the tableau piles not given, and the rest to the stock."""
    out: dict[str, list[str]] = {name: list(piles.get(name, [])) for name in EW_PILES}
    used = _used(out)
    if "f1" not in piles:
        out["f1"] = [next(base + s for s in "CDHS" if base + s not in used)]
        used.add(out["f1"][0])
    base_value = value(out["f1"][0])
    leftover = [c for c in FULL_DECK if c not in used]
    stock_room = 30 - len(out["stock"]) - len(out["waste"]) if "stock" not in piles else 0
    need = len(leftover) - stock_room

    def take_run(first: str, step: int, most: int) -> list[str]:
        nonlocal need
        run: list[str] = []
        v = value(first)
        while need > 0 and len(run) < most and card(v, first[1]) in leftover:
            run.append(card(v, first[1]))
            leftover.remove(card(v, first[1]))
            need -= 1
            v = (v - 1 + step) % 13 + 1
        return run

    started = {out[f][0][1] for f in ("f1", "f2", "f3", "f4") if out[f]}
    free_foundations = [f for f in ("f2", "f3", "f4") if f not in piles]
    for suit in "CDHS":
        if suit not in started and free_foundations and card(base_value, suit) in leftover:
            run = take_run(card(base_value, suit), 1, 13)
            if run:
                out[free_foundations.pop(0)] = run
    if "f1" not in piles and need > 0:
        top = out["f1"][-1]
        out["f1"] += take_run(card(value(top) % 13 + 1, top[1]), 1, 13)
    for name in EW_PILES[6:14]:
        if name in piles or not leftover:
            continue
        if need <= 0 and not out["reserve"]:
            continue
        need = max(need, 1)  # a tableau pile is never empty while the reserve holds cards
        out[name] = take_run(leftover[-1], -1, 3)
    if leftover:
        assert stock_room >= len(leftover), f"no room for {leftover}"
        out["stock"] = leftover + out["stock"]
    return {"game": "eagle-wing", "piles": out, "redeals_used": redeals_used}


def eo_position(piles: dict[str, list[str]], dump: tuple[str, ...] = ("t8",)) -> dict[str, Any]:
    """An Eight Off position: given piles as is, other piles empty; leftover cards build the
    foundations not given (from the Ace, in suit) and the rest lie at the bottom of ``dump``."""
    out: dict[str, list[str]] = {name: list(piles.get(name, [])) for name in EO_PILES}
    used = _used(out)
    started = {out[f][0][1] for f in ("f1", "f2", "f3", "f4") if out[f]}
    free_foundations = [f for f in ("f1", "f2", "f3", "f4") if f not in piles]
    for suit in "CDHS":
        if suit in started or not free_foundations:
            continue
        pile: list[str] = []
        v = 1
        while v <= 13 and card(v, suit) not in used:
            pile.append(card(v, suit))
            used.add(card(v, suit))
            v += 1
        if pile:
            out[free_foundations.pop(0)] = pile
    leftover = [c for c in FULL_DECK if c not in used]
    # Interleave suits so the dumped cards never form a run by accident.
    leftover.sort(key=lambda c: ("CHDS".index(c[1]) % 2, value(c), c[1]))
    for name in dump:
        room = 18 - len(out[name])
        chunk, leftover = leftover[:room], leftover[room:]
        out[name] = chunk + out[name]
    assert not leftover, f"no room for {leftover}"
    return {"game": "eight-off", "piles": out}


def treize_position(piles: dict[str, list[str]], filler: list[str] | None = None) -> dict[str, Any]:
    """A Treize position: given piles as is; every removed slot that a present card still
    covers is filled (from ``filler`` or the highest cards not used), so the position is valid."""
    out: dict[str, list[str]] = {name: list(piles.get(name, [])) for name in TREIZE_PILES}
    used = _used(out)
    spare = [c for c in (filler or sorted(FULL_DECK, key=lambda c: -value(c))) if c not in used]
    for index in range(21, 0, -1):
        name = f"p{index}"
        if not out[name] and any(out[c] for c in COVERED_BY[name]):
            out[name] = [spare.pop(0)]
    return {"game": "treize", "piles": out}


def load(position: dict[str, Any]) -> Game:
    return from_position(copy.deepcopy(position))


def rejected(game: Game, move: str) -> str:
    """Play ``move``, expect a rejection that changes nothing, and return its reason."""
    before = game.position()
    count = game.move_count
    try:
        game.play(move)
    except IllegalMove as exc:
        assert game.position() == before
        assert game.move_count == count
        assert isinstance(exc.reason, str) and len(exc.reason) > 3
        return exc.reason
    raise AssertionError(f"{move!r} was accepted")


def steps_of(result: Any) -> list[tuple[str | None, str, str]]:
    return [(s.card, s.src, s.dst) for s in result.steps]


def played(game_id: str, seed: int, moves: int) -> Game:
    """The deal of ``seed`` after up to ``moves`` random legal moves."""
    rng = random.Random(seed)
    game = new_game(game_id, seed)
    for _ in range(moves):
        legal = game.legal_moves()
        if not legal or game.is_won:
            break
        game.play(rng.choice(legal))
    return game


def move_or_undo(game: Game, rng: random.Random, undo_odds: float) -> bool:
    """One random legal move, or an undo (with ``undo_odds``, or when no move is left and
    one is allowed); False when neither is possible."""
    legal = game.legal_moves()
    if game.can_undo() and (not legal or rng.random() < undo_odds):
        game.undo()
    elif legal:
        game.play(rng.choice(legal))
    else:
        return False
    return True


def with_hidden_shuffled(game: Game, rng: random.Random) -> Game:
    """Another game with the same view: the cards in hidden slots trade places."""
    position = game.position()
    slots = hidden_slots(game.view())
    cards = [position["piles"][name][index] for name, index in slots]
    rng.shuffle(cards)
    for (name, index), card in zip(slots, cards, strict=True):
        position["piles"][name][index] = card
    return from_position(position, move_count=game.move_count)

"""A second, deliberately simple reading of docs/rules.md, written without looking at the engine's
data structures: given a position dict and a move in explicit notation, the next position
dict, or None when docs/rules.md forbids the move. The property tests compare it with the engine.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

RANKS = "A23456789TJQK"
_MOVE = re.compile(r"([a-z]+\d*)(?::(\d+))?>([a-z]+\d*)")
_TREIZE_COVERS: dict[str, tuple[str, str]] = {}
_i = 0
for _row in range(1, 7):
    for _ in range(_row):
        _TREIZE_COVERS[f"p{_i + 1}"] = (f"p{_i + _row + 1}", f"p{_i + _row + 2}")
        _i += 1


def v(card: str) -> int:
    return RANKS.index(card[0]) + 1


def next_position(position: dict[str, Any], move: str) -> dict[str, Any] | None:
    game = position["game"]
    new = {**position, "piles": {name: list(pile) for name, pile in position["piles"].items()}}
    if game == "eagle-wing":
        return _eagle_wing(new, move)
    if game == "treize":
        return _treize(new, move)
    return _eight_off(new, move)


# ----- Eagle Wing -------------------------------------------------------------------------------


def _ew_fits_foundation(card: str, pile: list[str], base: int) -> bool:
    if not pile:
        return v(card) == base
    return pile[-1][1] == card[1] and v(card) == v(pile[-1]) % 13 + 1


def _eagle_wing(pos: dict[str, Any], move: str) -> dict[str, Any] | None:
    p = pos["piles"]
    if move == "deal":
        if not p["stock"]:
            return None
        p["waste"].append(p["stock"].pop())
        return pos
    if move == "redeal":
        if p["stock"] or not p["waste"] or pos["redeals_used"] >= 2:
            return None
        p["stock"] = p["waste"][::-1]
        p["waste"] = []
        pos["redeals_used"] += 1
        return pos
    m = _MOVE.fullmatch(move)
    if not m:
        return None
    src, k_text, dst = m.group(1), m.group(2), m.group(3)
    k = int(k_text) if k_text else 1
    if src == dst or (src not in ("waste", "reserve") and not src.startswith("t")):
        return None
    if src not in p or dst not in p:
        return None
    pile = p[src]
    if not pile or (src == "reserve" and len(pile) != 1):
        return None
    if k > 1 and (not src.startswith("t") or not dst.startswith("f") or k > len(pile)):
        return None
    moving = [pile[-1 - i] for i in range(k)]  # top card first
    target = p[dst]
    base = v(p["f1"][0])
    if dst.startswith("t"):
        card = moving[0]
        if target and not (
            len(target) < 3 and target[-1][1] == card[1] and v(target[-1]) == v(card) % 13 + 1
        ):
            return None
    elif dst.startswith("f"):
        trial = list(target)
        for card in moving:
            if not _ew_fits_foundation(card, trial, base):
                return None
            trial.append(card)
    else:
        return None
    for card in moving:
        pile.pop()
        target.append(card)
    if src.startswith("t") and not pile and p["reserve"]:
        pile.append(p["reserve"].pop())
    return pos


# ----- Treize -----------------------------------------------------------------------------------


def _treize_card(p: dict[str, list[str]], name: str) -> str | None:
    waste = p["waste"]
    if name == "wb":
        return waste[0] if waste else None
    if name == "wt":
        return waste[-1] if len(waste) >= 2 else None
    if name == "wu":
        return waste[-2] if len(waste) >= 3 else None
    if name not in p or not name.startswith("p") or not p[name]:
        return None
    if any(p[c] for c in _TREIZE_COVERS.get(name, ())):
        return None
    return p[name][0]


def _treize(pos: dict[str, Any], move: str) -> dict[str, Any] | None:
    p = pos["piles"]
    if move == "deal":
        if not p["stock"]:
            return None
        p["waste"].append(p["stock"].pop())
        return pos
    names = move.split("+")
    if len(names) > 2 or len(set(names)) != len(names):
        return None
    found = [_treize_card(p, n) for n in names]
    cards = [c for c in found if c is not None]
    if len(cards) != len(names):
        return None
    if len(names) == 1:
        if names[0] == "wu" or v(cards[0]) != 13:
            return None
    else:
        if "wu" in names and "wt" not in names:
            return None
        if sum(v(c) for c in cards) != 13:
            return None
    waste = p["waste"]
    drop = {"wb": 0, "wu": len(waste) - 2, "wt": len(waste) - 1}
    gone = sorted((drop[n] for n in names if n in drop), reverse=True)
    for index in gone:
        del waste[index]
    for n in names:
        if n.startswith("p"):
            p[n] = []
    return pos


# ----- Eight Off --------------------------------------------------------------------------------


def _eo_foundation_for(p: dict[str, list[str]], card: str) -> str | None:
    """The foundation ``card`` goes to when played there by auto-play, or None."""
    if v(card) == 1:
        return next((f for f in ("f1", "f2", "f3", "f4") if not p[f]), None)
    for f in ("f1", "f2", "f3", "f4"):
        if p[f] and p[f][-1][1] == card[1] and v(p[f][-1]) == v(card) - 1:
            return f
    return None


def _eight_off(pos: dict[str, Any], move: str) -> dict[str, Any] | None:
    p = pos["piles"]
    m = _MOVE.fullmatch(move)
    if not m:
        return None
    src, k_text, dst = m.group(1), m.group(2), m.group(3)
    k = int(k_text) if k_text else 1
    if src == dst or src not in p or dst not in p or src.startswith("f"):
        return None
    pile = p[src]
    if len(pile) < k or not pile:
        return None
    target = p[dst]
    bottom = pile[-k]
    if k > 1:
        if not src.startswith("t") or not dst.startswith("t"):
            return None
        run = pile[-k:]
        for lower, upper in itertools.pairwise(run):
            if lower[1] != upper[1] or v(lower) != v(upper) + 1:
                return None
        free = sum(1 for r in range(1, 9) if not p[f"r{r}"])
        if k > free + 1:
            return None
    if dst.startswith("r"):
        if target:
            return None
    elif dst.startswith("f"):
        if not target:
            if v(bottom) != 1:
                return None
        elif target[-1][1] != bottom[1] or v(bottom) != v(target[-1]) + 1:
            return None
    elif not target:
        if v(bottom) != 13:
            return None
    elif target[-1][1] != bottom[1] or v(target[-1]) != v(bottom) + 1:
        return None
    moving = pile[-k:]
    del pile[-k:]
    target.extend(moving)
    while True:
        for name in [*(f"r{i}" for i in range(1, 9)), *(f"t{i}" for i in range(1, 9))]:
            if p[name]:
                home = _eo_foundation_for(p, p[name][-1])
                if home is not None:
                    p[home].append(p[name].pop())
                    break
        else:
            return pos

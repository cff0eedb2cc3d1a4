"""A plain-text board for terminals and logs, drawn from a view (never a position).

>>> from shared import new_game
>>> print(render_view(new_game("eight-off", 1).view()).splitlines()[0])
eight-off  score 0  moves 0
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_EMPTY = "--"


def _pile_text(pile: Mapping[str, Any]) -> str:
    cards: list[str] = list(pile["cards"])
    hidden = int(pile["count"]) - len(cards)
    parts = []
    if hidden:
        parts.append(f"[{hidden} hidden]" if cards else f"[{hidden}]")
    parts.extend(cards)
    return " ".join(parts) if parts else _EMPTY


def _header(view: Mapping[str, Any]) -> str:
    words = [view["game"], f"score {view['score']}", f"moves {view['move_count']}"]
    if "base_rank" in view:
        words.append(f"base {view['base_rank']}")
    if "redeals_left" in view:
        words.append(f"redeals left {view['redeals_left']}")
    if view.get("won"):
        words.append("WON")
    return "  ".join(words)


def _lines(view: Mapping[str, Any], names: list[str]) -> list[str]:
    piles = view["piles"]
    width = max(len(n) for n in names)
    return [f"{name:<{width}}  {_pile_text(piles[name])}" for name in names]


def _pyramid(view: Mapping[str, Any]) -> list[str]:
    piles = view["piles"]
    lines = []
    index = 1
    for row in range(1, 8):
        cells = []
        for _ in range(row):
            cards = piles[f"p{index}"]["cards"]
            cells.append(cards[0] if cards else "..")
            index += 1
        lines.append(" " * (2 * (7 - row)) + "  ".join(cells))
    return lines


def render_view(view: Mapping[str, Any]) -> str:
    """The view as text: one line per pile; ``[n hidden]`` counts cards not shown.

    ``view`` is a :class:`shared.GameView` (``Game.view()``), or the same dict as it
    arrives from the wire.
    """
    names = list(view["piles"])
    lines = [_header(view)]
    if view["game"] == "treize":
        lines += _lines(view, ["stock", "waste"])
        lines += _pyramid(view)
    else:
        lines += _lines(view, names)
    return "\n".join(lines)

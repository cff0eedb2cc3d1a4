"""Where each pile sits on the board, per game, following Aisleriot's rule files.

Coordinates are terminal cells: ``x`` is the column of the slot's left edge, ``y`` the line
of its label; the cards start on the line below. A slot is :data:`SLOT_WIDTH` cells wide
(a card is :data:`CARD_WIDTH`), so Aisleriot's half-slot offsets (Treize's pyramid) are
:data:`HALF_SLOT` cells.

- Eight Off (``eight_off.scm``): the four foundations in a column on the left, the eight
  reserve cells in the top row and the eight tableau columns below them, both right of
  the foundations. (Aisleriot leaves one and two blank slots before them; a terminal 80
  columns wide has no room for those beside the racers.)
- Eagle Wing (``eagle_wing.scm``): stock, waste, a blank, ``f1``-``f4`` on top; below,
  the wings ``t1``-``t4`` and ``t5``-``t8`` rise towards the middle (``t3``/``t6``
  highest, ``t1``/``t8`` lowest) and the trunk, the reserve, hangs between them.
- Treize (``treize.scm``): stock, then the waste (``wb``, its oldest card, alone, and
  the newer ones fanned to the right); below, the pyramid, each row half a slot to the
  left of the one above.

>>> [s.name for s in slots_for("eight-off")][:3]
['f1', 'f2', 'f3']
>>> board_size("eagle-wing")
(53, 12)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from shared.games import GameName

CARD_WIDTH: Final = 5
SLOT_WIDTH: Final = 6
HALF_SLOT: Final = SLOT_WIDTH // 2

#: What a slot draws: its top card, its bottom card (Treize's ``wb``), all its cards
#: fanned down one per line, or all but the bottom one fanned to the right (Treize's
#: waste after ``wb``).
Show = Literal["top", "bottom", "down", "right"]


@dataclass(frozen=True, slots=True)
class Slot:
    """One place on the board.

    ``pile`` is the view's pile it draws; ``name`` what a click on it means in the move
    notation (``t3``, ``stock``, ``wb``); ``counted`` slots print how many cards the
    pile holds under the card.
    """

    pile: str
    name: str
    x: int
    y: int
    show: Show
    counted: bool = False

    @property
    def label(self) -> str:
        return self.name


def _col(slot_index: int) -> int:
    return slot_index * SLOT_WIDTH


def _eight_off() -> tuple[Slot, ...]:
    foundations = [Slot(f"f{i + 1}", f"f{i + 1}", 0, 3 * i, "top", counted=True) for i in range(4)]
    reserve = [Slot(f"r{i + 1}", f"r{i + 1}", _col(1 + i), 0, "top") for i in range(8)]
    tableau = [Slot(f"t{i + 1}", f"t{i + 1}", _col(1 + i), 3, "down") for i in range(8)]
    return (*foundations, *reserve, *tableau)


#: Eagle Wing's wing shape: how many lines below the highest tableau label each of
#: t1..t4, the reserve, t5..t8 sits (Aisleriot raises the inner piles by 20 and 40 px
#: and drops the trunk by 50 px; here the trunk's label sits below the third card of a
#: full t4 or t5, which it would run into beside it).
_EAGLE_DROP: Final = (2, 1, 0, 1, 5, 1, 0, 1, 2)
_EAGLE_TOP: Final = 4


def _eagle_wing() -> tuple[Slot, ...]:
    top = [
        Slot("stock", "stock", _col(0), 0, "top", counted=True),
        Slot("waste", "waste", _col(1), 0, "top", counted=True),
        *(Slot(f"f{i + 1}", f"f{i + 1}", _col(3 + i), 0, "top", counted=True) for i in range(4)),
    ]
    names = ("t1", "t2", "t3", "t4", "reserve", "t5", "t6", "t7", "t8")
    wings = [
        Slot(
            name, name, _col(i), _EAGLE_TOP + drop, "top" if name == "reserve" else "down", name == "reserve"
        )
        for i, (name, drop) in enumerate(zip(names, _EAGLE_DROP, strict=True))
    ]
    return (*top, *wings)


_PYRAMID_ROWS: Final = 7
_PYRAMID_TOP: Final = 3


def _treize() -> tuple[Slot, ...]:
    slots = [
        Slot("stock", "stock", _col(0), 0, "top", counted=True),
        Slot("waste", "wb", _col(1), 0, "bottom", counted=True),
        Slot("waste", "waste", _col(2), 0, "right"),
    ]
    index = 1
    for row in range(1, _PYRAMID_ROWS + 1):
        left = (_PYRAMID_ROWS - row) * HALF_SLOT
        for k in range(row):
            name = f"p{index}"
            slots.append(Slot(name, name, left + k * SLOT_WIDTH, _PYRAMID_TOP + 2 * (row - 1), "top"))
            index += 1
    return tuple(slots)


_LAYOUTS: Final[dict[str, tuple[Slot, ...]]] = {
    "eight-off": _eight_off(),
    "eagle-wing": _eagle_wing(),
    "treize": _treize(),
}

#: The most cards a ``down`` slot may show, per game (Eight Off: six dealt and a run
#: from a King down to an Ace on top of them), used to size the board.
_DOWN_DEPTH: Final[dict[str, int]] = {"eight-off": 19, "eagle-wing": 3, "treize": 0}
#: Cards of Treize's waste fan the board is sized for: a narrow board shows this many of
#: the newest at least; a wider one shows the whole fan when it fits (:func:`fan_shown`).
FAN_SHOWN: Final = 8
#: Cells per card in the fan: three for the card and one apart.
FAN_STEP: Final = 4


def fan_shown(cards: int, room: int | None) -> int:
    """How many of the ``cards`` newest of Treize's waste fan (after ``wb``) show in ``room``
    cells (``None``: no limit): all when they fit, else as many as fit after the cells
    (:data:`FAN_STEP`) that say how many are hidden, never fewer than :data:`FAN_SHOWN`.

    >>> fan_shown(11, None), fan_shown(11, 43), fan_shown(11, 42), fan_shown(9, 35), fan_shown(23, 10)
    (11, 11, 9, 9, 8)
    """
    if room is None or cards * FAN_STEP - 1 <= room:
        return cards
    return min(cards, max(FAN_SHOWN, (room + 1 - FAN_STEP) // FAN_STEP))


def slots_for(game: GameName | str) -> tuple[Slot, ...]:
    """The slots of ``game`` in drawing order."""
    return _LAYOUTS[game]


def board_size(game: GameName | str) -> tuple[int, int]:
    """The cells (width, height) the game's board takes at most."""
    width = height = 0
    for slot in slots_for(game):
        right = slot.x + CARD_WIDTH
        bottom = slot.y + 2 + (1 if slot.counted else 0)
        if slot.show == "down":
            bottom = slot.y + 1 + _DOWN_DEPTH[game]
        elif slot.show == "right":
            right = slot.x + 3 + FAN_STEP * FAN_SHOWN
        width, height = max(width, right), max(height, bottom)
    return width, height

"""Drawing a board view into styled terminal cells, with what each cell picks.

Pure (rich text, no widget): :func:`draw_board` turns a :class:`BoardView` and the
:class:`Marks` (selection, legal targets, keyboard cursor, a hinted move) into a :class:`Drawing`: the
styled text, the cells a click may land on, and each pile's anchor for arrow keys.
Face-down cards are drawn as backs (``[▒▒▒]``) and never named; counted piles print
how many cards they hold under the card. Eagle Wing's board says, between its top row and
its wings, the redeals left (under the stock and waste) and the base rank (under the
foundations). Treize's waste shows whole where the board has the room for it, else its
newest cards after how many are hidden (``3 hidden``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text

from client.tui.cards import card_text, is_red, rank_text
from client.tui.layout import CARD_WIDTH, FAN_STEP, Slot, board_size, fan_shown, slots_for
from client.tui.selection import Pick
from shared.protocol import BoardView, PileView

BACK: Final = "[▒▒▒]"
EMPTY: Final = "[   ]"

STYLE_RED: Final = Style.parse("bold red on bright_white")
STYLE_BLACK: Final = Style.parse("bold black on bright_white")
STYLE_BACK: Final = Style.parse("bright_white on blue")
STYLE_EMPTY: Final = Style.parse("bright_black")
STYLE_LABEL: Final = Style.parse("cyan")
STYLE_COUNT: Final = Style.parse("bright_black")
STYLE_SELECTED_BG: Final = Style.parse("on yellow")
STYLE_TARGET_BG: Final = Style.parse("on green")
STYLE_TARGET_LABEL: Final = Style.parse("bold black on green")
STYLE_HINT_BG: Final = Style.parse("on magenta")
STYLE_HINT_LABEL: Final = Style.parse("bold bright_white on magenta")
STYLE_CURSOR: Final = Style.parse("bold reverse")
STYLE_INFO: Final = Style.parse("cyan")
#: The line of Eagle Wing's board (between its top row and its wings) that says its
#: redeals left (at the stock's column) and its base rank (at ``f1``'s).
EAGLE_INFO_LINE: Final = 3


@dataclass(frozen=True, slots=True)
class Marks:
    """What to highlight: the selected card(s), where they may go, the keyboard cursor,
    and a hint: the card(s) its move takes (``hint``) and where they go (``hint_to``)."""

    selected: Pick | None = None
    targets: frozenset[str] = frozenset()
    cursor: str | None = None
    hint: tuple[Pick, ...] = ()
    hint_to: frozenset[str] = frozenset()

    def hinted(self, name: str, depth: int = 1) -> bool:
        """Whether the card ``depth`` from the top of pile ``name`` is one a hint takes."""
        return any(h.name == name and depth <= h.depth for h in self.hint)


@dataclass(frozen=True, slots=True)
class Hit:
    """Cells ``x``..``x + width - 1`` of line ``y`` pick ``pick``."""

    x: int
    y: int
    width: int
    pick: Pick


@dataclass
class Drawing:
    """A drawn board: ``text`` (one line per row), click areas, arrow-key anchors."""

    text: Text
    hits: list[Hit] = field(default_factory=list)
    anchors: dict[str, tuple[int, int]] = field(default_factory=dict)

    def pick_at(self, x: int, y: int) -> Pick | None:
        """What a click on cell (``x``, ``y``) picks; the card drawn last wins."""
        for hit in reversed(self.hits):
            if hit.y == y and hit.x <= x < hit.x + hit.width:
                return hit.pick
        return None

    @property
    def plain(self) -> str:
        return self.text.plain

    @property
    def height(self) -> int:
        """The rows it takes."""
        return self.plain.count("\n") + 1

    @property
    def width(self) -> int:
        """The cells its widest line takes."""
        return max((cell_len(line) for line in self.plain.splitlines()), default=0)


class _Canvas:
    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.cells: list[list[tuple[str, Style | None]]] = [[(" ", None)] * width for _ in range(height)]

    def put(self, x: int, y: int, text: str, style: Style | None = None) -> None:
        while y >= len(self.cells):
            self.cells.append([(" ", None)] * self.width)
        row = self.cells[y]
        for i, char in enumerate(text):
            if x + i >= 0:
                while x + i >= len(row):
                    row.append((" ", None))
                row[x + i] = (char, style)

    def text(self) -> Text:
        """The rows down to the last that holds anything: an Eight Off board is as tall as
        its longest column needs, not as tall as one may grow."""
        out = Text(no_wrap=True, overflow="crop")
        rows = len(self.cells)
        while rows > 1 and all(cell == (" ", None) for cell in self.cells[rows - 1]):
            rows -= 1
        for index, row in enumerate(self.cells[:rows]):
            if index:
                out.append("\n")
            end = len(row)
            while end and row[end - 1] == (" ", None):
                end -= 1
            run, run_style = "", None
            for char, style in row[:end]:
                if style != run_style and run:
                    out.append(run, run_style)
                    run = ""
                run_style = style
                run += char
            if run:
                out.append(run, run_style)
        return out


def _card_style(card: str, selected: bool, target: bool, hint: bool = False) -> Style:
    style = STYLE_RED if is_red(card) else STYLE_BLACK
    if selected:
        return style + STYLE_SELECTED_BG
    if hint:
        return style + STYLE_HINT_BG
    if target:
        return style + STYLE_TARGET_BG
    return style


def redeals_words(left: int) -> str:
    """Eagle Wing's redeals left, as its board says them.

    >>> redeals_words(2), redeals_words(0)
    ('redeals left: 2', 'no redeals left')
    """
    return f"redeals left: {left}" if left else "no redeals left"


def base_words(rank: str) -> str:
    """Eagle Wing's base rank, as its board says it (ranks as its cards show them).

    >>> base_words("T"), base_words("Q")
    ('base: 10', 'base: Q')
    """
    return f"base: {rank_text(rank)}"


class _Painter:
    def __init__(self, view: BoardView, marks: Marks, width: int | None) -> None:
        width_at_least, height = board_size(view.game)
        #: The cells the board may take (``None``: as many as it needs).
        self.width = None if width is None else max(width, width_at_least)
        self.view = view
        self.marks = marks
        self.canvas = _Canvas(width_at_least, height)
        self.drawing = Drawing(Text())

    def label(self, slot: Slot) -> None:
        x = slot.x + (CARD_WIDTH - len(slot.name)) // 2
        self.canvas.put(x, slot.y, slot.name, self._label_style(slot.name))

    def card(self, x: int, y: int, card: str, pick: Pick | None, top: bool) -> None:
        selected = target = hint = False
        if pick is not None:
            chosen = self.marks.selected
            selected = chosen is not None and chosen.name == pick.name and pick.depth <= chosen.depth
            target = top and pick.name in self.marks.targets
            hint = self.marks.hinted(pick.name, pick.depth) or (top and pick.name in self.marks.hint_to)
        self.canvas.put(x, y, f"[{card_text(card)}]", _card_style(card, selected, target, hint))
        if pick is not None:
            self.drawing.hits.append(Hit(x, y, CARD_WIDTH, pick))

    def blank(self, x: int, y: int, text: str, name: str | None, style: Style) -> None:
        if name is not None and (self.marks.hinted(name) or name in self.marks.hint_to):
            style = STYLE_HINT_LABEL
        elif name is not None and name in self.marks.targets:
            style = STYLE_TARGET_LABEL
        self.canvas.put(x, y, text, style)
        if name is not None:
            self.drawing.hits.append(Hit(x, y, CARD_WIDTH, Pick(name)))

    def slot(self, slot: Slot) -> None:
        pile = self.view.piles.get(slot.pile)
        if pile is None:
            return
        if slot.show == "right":
            self.fan(slot, pile)
            return
        self.label(slot)
        self.drawing.anchors[slot.name] = (slot.x + CARD_WIDTH // 2, slot.y + 1)
        if slot.show == "down":
            self.column(slot, pile)
        else:
            self.single(slot, pile)
        if slot.counted:
            self.canvas.put(slot.x, slot.y + 2, f"{pile.count:^{CARD_WIDTH}}", STYLE_COUNT)

    def single(self, slot: Slot, pile: PileView) -> None:
        y = slot.y + 1
        cards = pile.cards
        if slot.show == "bottom":
            # Treize's wb: the oldest waste card, shown only when the whole waste is.
            cards = pile.cards[:1] if pile.count == len(pile.cards) else []
        if cards:
            card = cards[0] if slot.show == "bottom" else cards[-1]
            self.card(slot.x, y, card, Pick(slot.name), top=True)
        elif pile.count:
            self.blank(slot.x, y, BACK, slot.name, STYLE_BACK)
        else:
            self.blank(slot.x, y, EMPTY, slot.name, STYLE_EMPTY)
        self.drawing.hits.append(Hit(slot.x, slot.y, CARD_WIDTH, Pick(slot.name)))

    def column(self, slot: Slot, pile: PileView) -> None:
        y = slot.y + 1
        hidden = pile.count - len(pile.cards)
        if hidden:
            self.canvas.put(slot.x, y, BACK, STYLE_BACK)
            self.canvas.put(slot.x + CARD_WIDTH, y, f"{hidden}", STYLE_COUNT)
            y += 1
        if not pile.cards:
            if not hidden:
                self.blank(slot.x, y, EMPTY, slot.name, STYLE_EMPTY)
            return
        total = len(pile.cards)
        for index, card in enumerate(pile.cards):
            depth = total - index
            self.card(slot.x, y + index, card, Pick(slot.name, depth), top=depth == 1)
        self.drawing.anchors[slot.name] = (slot.x + CARD_WIDTH // 2, y + total - 1)
        self.drawing.hits.append(Hit(slot.x, slot.y, CARD_WIDTH, Pick(slot.name)))

    def fan(self, slot: Slot, pile: PileView) -> None:
        """Treize's waste after ``wb``: newer cards to the right, ``wu`` and ``wt`` named;
        the whole of it where the board has the room, else the newest ones after how many
        older ones are hidden."""
        fanned = pile.cards[1:]
        room = None if self.width is None else self.width - slot.x
        older = len(fanned) - fan_shown(len(fanned), room)
        x = slot.x
        if older:
            self.canvas.put(x, slot.y, f"{older} hidden", STYLE_COUNT)
            self.canvas.put(x + 1, slot.y + 1, "…", STYLE_COUNT)
            x += FAN_STEP
        shown = fanned[older:]
        for index, card in enumerate(shown):
            from_top = len(shown) - index
            name = {1: "wt", 2: "wu"}.get(from_top)
            cell = x + index * FAN_STEP
            style = _card_style(
                card,
                self._is_selected(name),
                name is not None and name in self.marks.targets,
                name is not None and self.marks.hinted(name),
            )
            self.canvas.put(cell, slot.y + 1, card_text(card), style)
            if name is not None:
                self.canvas.put(cell + 1, slot.y, name, self._label_style(name))
                self.drawing.hits.append(Hit(cell, slot.y + 1, 3, Pick(name)))
                self.drawing.hits.append(Hit(cell, slot.y, 3, Pick(name)))
                self.drawing.anchors[name] = (cell + 1, slot.y + 1)

    def eagle_info(self) -> None:
        """Eagle Wing's redeals left under its stock and waste, its base rank under its
        foundations."""
        view = self.view
        if view.redeals_left is not None:
            self.canvas.put(0, EAGLE_INFO_LINE, redeals_words(view.redeals_left), STYLE_INFO)
        if view.base_rank is not None:
            f1 = next(slot for slot in slots_for(view.game) if slot.name == "f1")
            self.canvas.put(f1.x, EAGLE_INFO_LINE, base_words(view.base_rank), STYLE_INFO)

    def _is_selected(self, name: str | None) -> bool:
        chosen = self.marks.selected
        return name is not None and chosen is not None and chosen.name == name

    def _label_style(self, name: str) -> Style:
        if name == self.marks.cursor:
            return STYLE_CURSOR
        if self.marks.hinted(name) or name in self.marks.hint_to:
            return STYLE_HINT_LABEL
        if name in self.marks.targets:
            return STYLE_TARGET_LABEL
        return STYLE_LABEL


def draw_board(view: BoardView, marks: Marks | None = None, width: int | None = None) -> Drawing:
    """Draw ``view`` as Aisleriot lays the game out (see :mod:`client.tui.layout`), in
    ``width`` cells (``None``: as many as it takes; never fewer than
    :func:`~client.tui.layout.board_size` says): Treize's waste shows whole where they
    are enough for it."""
    painter = _Painter(view, marks or Marks(), width)
    for slot in slots_for(view.game):
        painter.slot(slot)
    if view.game == "eagle-wing":
        painter.eagle_info()
    painter.drawing.text = painter.canvas.text()
    return painter.drawing


def board_text(view: BoardView) -> str:
    """The board as plain text (no styles, no highlight)."""
    return draw_board(view).plain

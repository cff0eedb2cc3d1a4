"""The board widget: draws a view, and turns clicks and keys into moves.

Click a card (or move the cursor with the arrow keys and press enter) to select it,
then click its target: legal targets light up. Clicking a card lower in a column
selects it with the cards above it (a group move); enter on the selected pile again
takes one more card. The stock deals. A hinted move is lit up in magenta until the board
changes. The board takes the width its area gives it, so that Treize's waste shows whole
when the area holds it (a narrower area cuts it, saying how many cards are hidden). The
widget does not play anything itself: it posts
:class:`BoardWidget.MoveChosen` and :class:`BoardWidget.Note` messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Literal

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget

from client.tui.drawing import Drawing, Marks, draw_board
from client.tui.layout import board_size
from client.tui.selection import Pick, activate, hinted, targets
from shared.protocol import BoardView

Direction = Literal["left", "right", "up", "down"]


def neighbour(anchors: dict[str, tuple[int, int]], current: str | None, direction: Direction) -> str | None:
    """The pile nearest to ``current`` in ``direction`` (the first pile when there is no
    current one); ``current`` itself when nothing lies that way.

    >>> anchors = {"a": (0, 0), "b": (6, 0), "c": (6, 5), "d": (0, 5)}
    >>> neighbour(anchors, "a", "right"), neighbour(anchors, "b", "down"), neighbour(anchors, "a", "up")
    ('b', 'c', 'a')
    """
    if not anchors:
        return None
    if current not in anchors:
        return next(iter(anchors))
    cx, cy = anchors[current]
    best: tuple[int, str] | None = None
    for name, (x, y) in anchors.items():
        dx, dy = x - cx, y - cy
        ahead, aside = {"left": (-dx, dy), "right": (dx, dy), "up": (-dy, dx), "down": (dy, dx)}[direction]
        if ahead <= 0:
            continue
        # Sideways costs more than ahead: a line across rows as much as three cells.
        score = ahead + abs(aside) * (3 if direction in ("left", "right") else 2)
        if best is None or score < best[0]:
            best = (score, name)
    return best[1] if best else current


class BoardWidget(Widget, can_focus=True):
    """One racer's board."""

    DEFAULT_CSS = """
    BoardWidget { width: auto; height: auto; padding: 0 1; }
    BoardWidget:focus { background: $boost; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "cursor('left')", "left", show=False),
        Binding("right", "cursor('right')", "right", show=False),
        Binding("up", "cursor('up')", "up", show=False),
        Binding("down", "cursor('down')", "down", show=False),
        Binding("enter,space", "pick", "pick"),
        Binding("escape", "clear", "clear"),
    ]

    class MoveChosen(Message):
        """The player built a move by picking cards."""

        def __init__(self, move: str) -> None:
            super().__init__()
            self.move = move

    class Note(Message):
        """Something to tell the player (what is selected, why nothing happened)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, *, id: str | None = None, interactive: bool = True) -> None:
        super().__init__(id=id)
        self.interactive = interactive
        self.can_focus = interactive
        self.view: BoardView | None = None
        self.legal: list[str] = []
        self.selected: Pick | None = None
        self.cursor: str | None = None
        #: A move to light up (a hint), in notation.
        self.hint: str | None = None
        self._drawing: Drawing | None = None
        #: The area's width (:attr:`room`) the board was last drawn for.
        self._drawn_room = 0

    # ----- state ------------------------------------------------------------------

    def show(self, view: BoardView, legal: Sequence[str] = (), hint: str | None = None) -> None:
        """Draw ``view``; ``legal`` are its legal moves (for highlights and picking),
        ``hint`` a move to light up."""
        if self.view is None or view.move_count != self.view.move_count or view.game != self.view.game:
            self.selected = None
        self.view = view
        self.legal = list(legal)
        self.hint = hint
        self._redraw()

    def reset(self) -> None:
        """Forget the board (a new race, before its deal)."""
        self.view = None
        self.legal = []
        self.selected = self.hint = None
        self._redraw()

    @property
    def marks(self) -> Marks:
        cursor = self.cursor if self.has_focus else None
        hint, hint_to = hinted(self.hint)
        return Marks(self.selected, targets(self.legal, self.selected), cursor, hint, hint_to)

    @property
    def drawing(self) -> Drawing | None:
        return self._drawing

    @property
    def plain(self) -> str:
        """The board as plain text, as drawn now."""
        return self._drawing.plain if self._drawing else ""

    @property
    def room(self) -> int:
        """The cells the board's area holds across, inside the board's padding (0 before
        the area is laid out: the board then takes its narrowest width)."""
        area = self.parent
        if not isinstance(area, BoardArea) or area.size.width <= 0:
            return 0
        return area.scrollable_content_region.width - 2  # a column of padding each side

    def _redraw(self) -> None:
        if self.view is None:
            self._drawing = None
        else:
            self._drawn_room = self.room
            self._drawing = draw_board(self.view, self.marks, self._drawn_room)
            # At least the game's size, whatever it holds: the area scrolls rather than
            # wrap a narrow board.
            width = max(board_size(self.view.game)[0], self._drawing.width) + 2
            if self.styles.width is None or self.styles.width.value != width:
                self.styles.width = width
            # As tall as drawn: the area around scrolls once a long Eight Off column
            # outgrows it, not before.
            if self.styles.height is None or self.styles.height.value != self._drawing.height:
                self.styles.height = self._drawing.height
        self.refresh(layout=True)

    def refit(self) -> None:
        """Draw the board again for its area's width, once that changed."""
        if self.view is not None and self._drawn_room != self.room:
            self._redraw()

    def render(self) -> Text:
        if self._drawing is None:
            return Text("waiting for the deal…", style="italic")
        return self._drawing.text

    def on_focus(self) -> None:
        self._redraw()

    def on_blur(self) -> None:
        self._redraw()

    # ----- input ------------------------------------------------------------------

    def pick(self, picked: Pick) -> None:
        """Pick a card, as a click on it does."""
        if not self.interactive or self.view is None:
            return
        step = activate(self.legal, self.selected, picked)
        self.selected = step.selected
        self.cursor = picked.name
        if step.move is not None:
            self.post_message(self.MoveChosen(step.move))
        elif step.note:
            self.post_message(self.Note(step.note))
        self._redraw()

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or self._drawing is None:
            return
        picked = self._drawing.pick_at(offset.x, offset.y)
        if picked is not None:
            self.pick(picked)

    def action_cursor(self, direction: Direction) -> None:
        if self._drawing is not None:
            self.cursor = neighbour(self._drawing.anchors, self.cursor, direction)
            self._redraw()

    def action_pick(self) -> None:
        if self.cursor is None or self._drawing is None or self.cursor not in self._drawing.anchors:
            self.action_cursor("right")
            return
        depth = self.selected.depth if self.selected and self.selected.name == self.cursor else 1
        self.pick(Pick(self.cursor, depth))

    def action_clear(self) -> None:
        self.selected = None
        self._redraw()


class BoardArea(VerticalScroll, can_focus=False):
    """Scrolls a board that does not fit; the focus goes to the board, not here."""

    DEFAULT_CSS = "BoardArea { overflow-x: auto; }"

    def on_resize(self, event: events.Resize) -> None:
        """A wider (or narrower) area: the board drawn again for its width."""
        for board in self.query_children(BoardWidget):
            board.refit()

    def width_beside(self, row_width: int, game: str, widest: int, narrowest: int) -> int:
        """How wide a panel beside the area gets in a row ``row_width`` wide: ``widest``,
        or less, down to ``narrowest``, so that ``game``'s whole board shows here (with
        the area's vertical scrollbar when the board is taller than the area)."""
        board_width, board_height = board_size(game)
        drawn = [board.drawing.height for board in self.query_children(BoardWidget) if board.drawing]
        board_height = max(drawn, default=board_height)
        scrollbar = self.styles.scrollbar_size_vertical if board_height > self.outer_size.height else 0
        room = row_width - (board_width + 2) - scrollbar  # the board's padding: a column each side
        return max(narrowest, min(widest, room))

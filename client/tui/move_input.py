"""The move input: type notation; completion and a list of legal moves help.

It also takes the race screen's commands: typed as words (``undo``, ``hint``,
``rematch``, ``yes``/``accept``, ``no``/``decline``, ``practice``, ``ghosts``), or as one
key (``u``, ``h``, ``r``, ``y``, ``n``, ``p``, ``g``) pressed while the field is empty and
the command is available (a key shown dimmed, ``u`` while the server would refuse an
undo, is not typed either: the screen says why; nor is ``h`` in a race without hints,
which says so). No move in the notation starts with one
of those letters except ``u``
(``undo``), ``r`` (``r1>t2``, ``redeal``) and ``p`` (``p9+wt``): a one-key command is
only taken when the screen offers it (``r`` and ``p`` only after the end, when no move
is played), and after one the rest of its word typed next is dropped, so typing
``undo`` in full still undoes once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, ClassVar, Final

from textual import events
from textual.binding import Binding, BindingType
from textual.suggester import Suggester
from textual.widgets import Input, Static

from client.columns import clipped

if TYPE_CHECKING:
    from client.tui.board import Direction

#: Legal moves listed under the input at most.
SHOWN_MOVES = 24
#: The one-key commands and the word each stands for.
#: Seconds after a one-key command (or a key of the rest of its word) within which the
#: next key of its word is taken as typed in the same burst and dropped.
REST_WINDOW: Final = 1.0
COMMAND_WORDS: Final = {
    "u": "undo",
    "h": "hint",
    "r": "rematch",
    "y": "yes",
    "n": "no",
    "p": "practice",
    "g": "ghosts",
}
#: Moves each game's field offers as examples while the racer plays.
MOVE_EXAMPLES: Final[dict[str, str]] = {
    "eagle-wing": "waste>t3, t2:2>f1, deal, redeal",
    "treize": "p25, p9+wt, wb+wt, deal",
    "eight-off": "t3>f1, t2:3>t5, t4>r, r1>t6",
}


def playing_placeholder(hints: bool, game: str | None = None) -> str:
    """What the field says while the racer plays: moves of the race's game, and ``hint``
    only where the race allows hints.

    >>> playing_placeholder(False, "treize")
    'type a move (p25, p9+wt, wb+wt, deal) or undo; tab completes'
    >>> playing_placeholder(True, "eight-off")
    'type a move (t3>f1, t2:3>t5, t4>r, r1>t6), undo or hint; tab completes'
    """
    examples = MOVE_EXAMPLES.get(game or "", "t3>f1, deal, p9+wt")
    commands = ", undo or hint" if hints else " or undo"
    return f"type a move ({examples}){commands}; tab completes"


def matching(legal: Sequence[str], typed: str) -> list[str]:
    """The legal moves that start with what was typed (case and spaces ignored).

    >>> matching(["t1>f1", "t1>r5", "t2>r5", "deal"], " T1")
    ['t1>f1', 't1>r5']
    """
    prefix = typed.strip().lower()
    return [move for move in legal if move.startswith(prefix)]


def nothing_starts_so(typed: str) -> str:
    """What the hints line says when no legal move starts with what was typed.

    >>> nothing_starts_so(" g ")
    "no legal move starts with 'g': clear the field to see them all"
    """
    start = clipped(typed.strip().lower(), 12)
    return f"no legal move starts with {start!r}: clear the field to see them all"


def _priority(move: str) -> int:
    if move in ("deal", "redeal"):
        return 2
    if ">" not in move:
        return 0  # a Treize removal
    return {"f": 0, "t": 1}.get(move.split(">")[1][:1], 3)


def ordered(legal: Sequence[str]) -> list[str]:
    """The legal moves, the likely useful first: to a foundation (and Treize removals),
    to the tableau, dealing, then the rest (to reserve cells).

    >>> ordered(["deal", "t1>r5", "t1>t3", "t2>f1"])
    ['t2>f1', 't1>t3', 'deal', 't1>r5']
    """
    return sorted(legal, key=_priority)


def _common_prefix(words: Sequence[str]) -> str:
    """The longest start all ``words`` share.

    >>> _common_prefix(["t1>f1", "t1>r5"]), _common_prefix([])
    ('t1>', '')
    """
    if not words:
        return ""
    first, last = min(words), max(words)
    size = 0
    while size < min(len(first), len(last)) and first[size] == last[size]:
        size += 1
    return first[:size]


class LegalMoveSuggester(Suggester):
    """Completes the typed text to the first legal move it starts."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=False)
        self.legal: list[str] = []

    async def get_suggestion(self, value: str) -> str | None:
        if not value.strip():
            return None
        found = matching(self.legal, value)
        return found[0] if found else None


class MoveInput(Input):
    """One line for a move in notation (``t3>f1``, ``t2:3>t5``, ``deal``, ``p9+wt``).

    Tab completes as far as the legal moves agree (the right arrow at the end takes the
    greyed suggestion); tab with nothing to complete moves on to the board, and so do
    the arrow keys (left and right while the field is empty), moving its cursor.

    ``command_key(key)`` says whether a key is one of the screen's commands: ``True``
    while it applies, ``None`` while it is shown but does not apply, ``False`` when it is
    not a command now. Pressed in the empty field, a command that applies is not typed
    but goes on to the screen's binding; the field leaves every shown command key to the
    screen's bindings, so that the footer shows them while it has the focus.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "complete", "complete", show=False),
        Binding("up", "to_board('up')", "board", show=False),
        Binding("down", "to_board('down')", "board", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        self.legal_suggester = LegalMoveSuggester()
        self.command_key: Callable[[str], bool | None] = lambda key: False
        #: Called with a command key pressed in the empty field while it is shown but does
        #: not apply (``command_key`` None): the screen says why; it is not typed.
        self.dimmed_key: Callable[[str], None] = lambda key: None
        #: Called with an arrow key that leaves the field (up or down, or left or right in
        #: the empty field): the screen moves the board's cursor that way and focuses it,
        #: and says whether it did (no board to pick on: the key does what it did).
        self.to_board: Callable[[Direction], bool] = lambda direction: False
        #: The rest of the word of the last one-key command, dropped if typed next (until
        #: ``_rest_until``, monotonic seconds: a key much later is a new word).
        self.rest = ""
        self._rest_until = 0.0
        # Not selected on focus: a key typed on the board brings the focus back here, and
        # the text it goes on with would be replaced by the next key.
        placeholder = playing_placeholder(False)
        suggester = self.legal_suggester
        super().__init__(placeholder=placeholder, suggester=suggester, id=id, select_on_focus=False)

    def expect_rest(self, word: str) -> None:
        """A one-key command of ``word`` was taken: drop the rest of it if typed next,
        within :data:`REST_WINDOW` seconds of each key (a word typed in a burst)."""
        self.rest = word[1:]
        self._rest_until = time.monotonic() + REST_WINDOW

    def _dropped(self, character: str) -> bool:
        now = time.monotonic()
        if self.rest and not self.value and character.lower() == self.rest[0] and now < self._rest_until:
            self.rest = self.rest[1:]
            self._rest_until = now + REST_WINDOW
            return True
        self.rest = ""
        return False

    async def _on_key(self, event: events.Key) -> None:
        character = event.character if event.is_printable else None
        if character is None:
            self.rest = ""
            return
        if self._dropped(character):
            event.stop()
            event.prevent_default()
        elif not self.value and (applies := self.command_key(event.key)) is not False:
            # Not typed: it bubbles up to the screen's binding. The rest of the word is
            # armed now, not by the binding: keys typed in a burst are here before it runs.
            self.expect_rest(COMMAND_WORDS.get(event.key, ""))
            event.prevent_default()
            if applies is None:  # its binding does not run
                self.dimmed_key(event.key)

    async def action_submit(self) -> None:
        """Send what was typed and empty the field at once, as Enter is taken: the keys of
        the next move, typed before the screen takes the submitted one, land in an empty
        field (they were wiped, or glued to the move before, when the screen emptied it)."""
        typed = self.value
        self.value = ""
        self.post_message(self.Submitted(self, typed, None))

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if self.command_key(key) is not False:
            return False  # the screen's binding stays in the chain (and in the footer)
        return super().check_consume_key(key, character)

    def feed(self, character: str) -> None:
        """Type ``character`` here as if pressed in the field (keys typed on the board)."""
        if not self._dropped(character):
            self.insert_text_at_cursor(character)

    def action_to_board(self, direction: Direction) -> None:
        self.to_board(direction)

    def action_cursor_left(self, select: bool = False) -> None:
        if select or self.value or not self.to_board("left"):
            super().action_cursor_left(select)

    def action_cursor_right(self, select: bool = False) -> None:
        if select or self.value or not self.to_board("right"):
            super().action_cursor_right(select)

    def action_complete(self) -> None:
        found = matching(self.legal_suggester.legal, self.value) if self.value.strip() else []
        common = _common_prefix(found)
        if len(common) > len(self.value.strip()):
            self.value = common
            self.cursor_position = len(common)
        else:
            self.screen.focus_next()

    def set_legal(self, legal: Sequence[str]) -> None:
        self.legal_suggester.legal = ordered(legal)


class MoveHints(Static):
    """The legal moves that match the input."""

    DEFAULT_CSS = "MoveHints { height: auto; max-height: 3; color: $text-muted; }"

    def show(self, legal: Sequence[str], typed: str, playing: bool = True) -> None:
        self.display = playing  # its line goes to the board and the side panel meanwhile
        if not playing:
            return
        if not legal:
            self.update("no legal move: give up with ctrl+g, or wait for the end")
            return
        found = matching(ordered(legal), typed)
        more = f"  (+{len(found) - SHOWN_MOVES})" if len(found) > SHOWN_MOVES else ""
        self.update("legal: " + "  ".join(found[:SHOWN_MOVES]) + more if found else nothing_starts_so(typed))

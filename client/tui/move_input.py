"""The move input: type notation; completion and a list of legal moves help."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.suggester import Suggester
from textual.widgets import Input, Static

#: Legal moves listed under the input at most.
SHOWN_MOVES = 24


def matching(legal: Sequence[str], typed: str) -> list[str]:
    """The legal moves that start with what was typed (case and spaces ignored).

    >>> matching(["t1>f1", "t1>r5", "t2>r5", "deal"], " T1")
    ['t1>f1', 't1>r5']
    """
    prefix = typed.strip().lower()
    return [move for move in legal if move.startswith(prefix)]


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
    greyed suggestion); tab with nothing to complete moves on to the board.
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("tab", "complete", "complete", show=False)]

    def __init__(self, *, id: str | None = None) -> None:
        self.legal_suggester = LegalMoveSuggester()
        super().__init__(
            placeholder="type a move (t3>f1, t2:3>t5, deal, p9+wt); tab completes",
            suggester=self.legal_suggester,
            id=id,
        )

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
        if not playing:
            self.update("")
            return
        if not legal:
            self.update("no legal move: give up with ctrl+g, or wait for the end")
            return
        found = matching(ordered(legal), typed)
        more = f"  (+{len(found) - SHOWN_MOVES})" if len(found) > SHOWN_MOVES else ""
        self.update("legal: " + "  ".join(found[:SHOWN_MOVES]) + more if found else "no legal move starts so")

"""The engine's exceptions for rejected moves: one base, two kinds."""

from __future__ import annotations


class IllegalMove(ValueError):
    """A move was malformed or breaks a rule; the game is left exactly as it was.

    ``reason`` is readable by a player. ``move`` is the text that was rejected and
    ``index`` its place in a move list (from 0) when raised by :func:`shared.replay`; the
    message counts moves from 1, as records and ``verify`` do.
    """

    def __init__(self, reason: str, move: str | None = None, index: int | None = None) -> None:
        self.reason = reason
        self.move = move
        self.index = index
        super().__init__(self._message())

    def _message(self) -> str:
        if self.index is not None:
            return f"move {self.index + 1} ({self.move!r}): {self.reason}"
        return self.reason


class BadNotation(IllegalMove):
    """The text cannot be read as a move of this game: not notation, or a pile it lacks."""


class RuleViolation(IllegalMove):
    """A well-formed move that breaks a rule of the game in this position."""

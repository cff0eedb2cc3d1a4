"""A notice across the top of a screen while the terminal is smaller than the screens
are laid out for: without it, the board's far columns or lowest cards would be cut off
without a word."""

from __future__ import annotations

from typing import Final

from textual.geometry import Size
from textual.widgets import Static

#: The terminal the race, watch and replay screens are laid out for.
MIN_COLUMNS: Final = 80
MIN_LINES: Final = 24


def too_small_text(size: Size) -> str | None:
    """What to say about a terminal of ``size`` (None: it is large enough).

    >>> too_small_text(Size(70, 20))
    'Terminal 70x20 is too small: make it at least 80x24, or part of the board may not show.'
    >>> too_small_text(Size(80, 24)) is None
    True
    """
    if size.width >= MIN_COLUMNS and size.height >= MIN_LINES:
        return None
    return (
        f"Terminal {size.width}x{size.height} is too small: make it at least {MIN_COLUMNS}x{MIN_LINES}, "
        "or part of the board may not show."
    )


class TooSmallNotice(Static):
    """Shown only while the terminal is smaller than :data:`MIN_COLUMNS` x :data:`MIN_LINES`."""

    DEFAULT_CSS = """
    TooSmallNotice { dock: top; height: auto; padding: 0 1; background: $error; color: $text; }
    """

    def fit(self, size: Size) -> None:
        """Show or hide the notice for a terminal of ``size``."""
        text = too_small_text(size)
        self.display = text is not None
        if text is not None:
            self.update(text)

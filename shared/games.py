"""The games by id: the one list the engine, the protocol and the clients use.

Plain typing only (no pydantic, no engine), so any layer can import it.

>>> GAMES
('eagle-wing', 'treize', 'eight-off')
"""

from __future__ import annotations

from typing import Final, Literal, get_args

GameName = Literal["eagle-wing", "treize", "eight-off"]
GAMES: Final[tuple[GameName, ...]] = get_args(GameName)

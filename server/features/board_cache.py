"""The boards of a node's racers, kept between moves.

A racer's board (the engine's ``Game`` and the last acked seq) is a shortcut: the store's
compare-and-set on seq is the truth, and a board not found here is loaded from Redis.
The cache holds ``size`` boards (past that, the one whose racer moved least recently
goes: a board in play stays however long ago it was loaded) and drops a race's boards
when the race ends, through an index by race: a node ending dozens of races a second
never walks the whole cache to find them.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field

from shared import Game


@dataclass
class CachedBoard:
    game: Game
    seq: int
    finished: bool
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class BoardCache:
    """Boards by race and player, the least recently used dropped past ``size``."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._boards: OrderedDict[tuple[str, str], CachedBoard] = OrderedDict()
        #: The players of each race with a board here.
        self._players: dict[str, set[str]] = {}

    def __len__(self) -> int:
        return len(self._boards)

    def get(self, race_id: str, player_id: str) -> CachedBoard | None:
        key = (race_id, player_id)
        board = self._boards.get(key)
        if board is not None:
            self._boards.move_to_end(key)
        return board

    def put(self, race_id: str, player_id: str, board: CachedBoard) -> None:
        key = (race_id, player_id)
        self._boards[key] = board
        self._boards.move_to_end(key)
        self._players.setdefault(race_id, set()).add(player_id)
        if len(self._boards) > self.size:
            (old_race, old_player), _ = self._boards.popitem(last=False)
            self._unindex(old_race, old_player)

    def drop(self, race_id: str, player_id: str) -> None:
        """Forget one racer's board (it disagreed with the store, or a move failed)."""
        if self._boards.pop((race_id, player_id), None) is not None:
            self._unindex(race_id, player_id)

    def drop_race(self, race_id: str) -> None:
        """Forget every board of a race (it ended)."""
        for player_id in self._players.pop(race_id, ()):
            del self._boards[(race_id, player_id)]

    def races(self) -> int:
        """How many races have a board here."""
        return len(self._players)

    def _unindex(self, race_id: str, player_id: str) -> None:
        players = self._players.get(race_id)
        if players is not None:
            players.discard(player_id)
            if not players:
                del self._players[race_id]

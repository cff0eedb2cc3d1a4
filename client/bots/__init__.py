"""Bots: a player that races with a strategy through :class:`client.sdk.ArenaClient`.

The strategies themselves are pure and live in :mod:`shared.strategies` (the server's
hints use the same search); they are re-exported here for bot authors:

- :class:`RandomStrategy`: a random legal move;
- :class:`SearchStrategy`: lookahead over determinized games (hidden cards guessed);
- :class:`Memory`: what a racer who watched every move remembers beyond the view;
- :class:`Bot`: quick-matches, races and finishes through :class:`client.sdk.ArenaClient`.
"""

from client.bots.player import Bot, bot_name
from shared.strategies import Memory, RandomStrategy, SearchStrategy, Strategy, distinct_moves

__all__ = ["Bot", "Memory", "RandomStrategy", "SearchStrategy", "Strategy", "bot_name", "distinct_moves"]

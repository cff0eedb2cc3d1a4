"""Bots: strategies that choose moves from a racer's view, and a player that races with one.

- :class:`RandomStrategy`: a random legal move;
- :class:`SearchStrategy`: lookahead over determinized games (hidden cards guessed);
- :class:`Memory`: what a racer who watched every move remembers beyond the view;
- :class:`Bot`: quick-matches, races and finishes through :class:`client.sdk.ArenaClient`.
"""

from client.bots.memory import Memory
from client.bots.player import Bot, bot_name
from client.bots.search import SearchStrategy
from client.bots.strategy import RandomStrategy, Strategy, distinct_moves

__all__ = ["Bot", "Memory", "RandomStrategy", "SearchStrategy", "Strategy", "bot_name", "distinct_moves"]

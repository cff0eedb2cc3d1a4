"""Choosing moves from what a racer sees, never from a hidden card: the bots' strategies
(pure, so the server can run them too) and the hint built on them.

- :class:`RandomStrategy`: a random legal move;
- :class:`SearchStrategy`: lookahead over determinized games (hidden cards guessed), and
  the solver's winning line when every card shows and the lookahead sees no win;
- :class:`Memory`: what a racer who watched every move remembers beyond the view;
- :func:`hint`: a good next move for a view, the same for the same view, never back to a
  position :func:`reached_keys` lists.
"""

from shared.strategies.hint import hint, reached_keys
from shared.strategies.memory import Memory
from shared.strategies.search import SearchStrategy
from shared.strategies.strategy import RandomStrategy, Strategy, distinct_moves

__all__ = ["Memory", "RandomStrategy", "SearchStrategy", "Strategy", "distinct_moves", "hint", "reached_keys"]

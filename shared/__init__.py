"""Solitaire Arena's rules engine and wire protocol: pure, synchronous, no I/O.

>>> from shared import new_game, IllegalMove
>>> game = new_game("eight-off", 7)
>>> move = game.legal_moves()[0]
>>> game.play(move).move == move
True
>>> try:
...     game.play("t1>t1")
... except IllegalMove as exc:
...     print(exc.reason)
t1 cannot move onto itself
"""

from shared.cards import FULL_DECK, RANKS, SUITS
from shared.deal import DEAL_VERSION, shuffled_deck
from shared.engine import dealt_home, from_position, new_game, replay
from shared.errors import BadNotation, IllegalMove, RuleViolation
from shared.game import Game, MoveResult, Step, UndoRule
from shared.games import GAMES, GameName
from shared.moves import Move, parse_move
from shared.render import render_view
from shared.views import GameView, MoveResultDict, PileView

__all__ = [
    "DEAL_VERSION",
    "FULL_DECK",
    "GAMES",
    "RANKS",
    "SUITS",
    "BadNotation",
    "Game",
    "GameName",
    "GameView",
    "IllegalMove",
    "Move",
    "MoveResult",
    "MoveResultDict",
    "PileView",
    "RuleViolation",
    "Step",
    "UndoRule",
    "dealt_home",
    "from_position",
    "new_game",
    "parse_move",
    "render_view",
    "replay",
    "shuffled_deck",
]

"""What every game shares: move results, the play/parse loop, positions and their checks."""

from __future__ import annotations

import itertools
import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Final, NamedTuple, Self

from shared.cards import CARD_SET, DECK_CARD, VALUE
from shared.errors import BadNotation, IllegalMove, RuleViolation

# Re-exported: the protocol and older callers import them from here.
from shared.games import GAMES as GAMES
from shared.games import GameName as GameName
from shared.moves import Move, parse_move
from shared.views import GameView, MoveResultDict, PileView

#: Where a card goes when Treize removes it.
REMOVED: Final = "removed"
_PARSE_CACHE_LIMIT: Final = 4096


@dataclass(frozen=True, slots=True)
class Step:
    """One card moving: ``card`` is ``None`` when it moves face down (a redeal)."""

    card: str | None
    src: str
    dst: str


@dataclass(frozen=True, slots=True)
class MoveResult:
    """What an accepted move changed: the cards moved in order and the score change.

    ``move`` is the canonical notation of the move (shorthands resolved).
    """

    move: str
    steps: tuple[Step, ...]
    score_delta: int
    score: int
    won: bool

    def to_dict(self) -> MoveResultDict:
        return {
            "move": self.move,
            "steps": [[s.card, s.src, s.dst] for s in self.steps],
            "score_delta": self.score_delta,
            "score": self.score,
            "won": self.won,
        }


#: Where :attr:`UndoRule.KEEP_REVEALS` holds, as its refusals say.
_KEEP_REVEALS_WHERE: Final = (
    "a move that reveals a card cannot be undone in a race, a daily attempt or its practice"
)


class UndoRule(StrEnum):
    """How far back ``undo`` may go (docs/rules.md, "Undo").

    - ``unlimited``: every move, back to the deal, as Aisleriot allows (solo practice);
    - ``keep_reveals``: never take back a move that turned up a card nobody had seen
      (every game on the server: races, daily attempts and their practice; a racer may
      not peek and put the card back), nor, therefore, anything played before it.
    """

    UNLIMITED = "unlimited"
    KEEP_REVEALS = "keep_reveals"


class _Undo(NamedTuple):
    """What taking one move back needs: the game's counters before it, the move itself,
    and the piles it changed as they were before it.

    The history keeps each record packed (:meth:`pack`) as one flat tuple of numbers,
    text, booleans and None: the garbage collector stops tracking such a tuple the first
    time it looks at it, so a long game's history is out of its way at once. Records of
    named tuples, dicts, dataclasses or nested tuples would be walked again by later
    collections (on a node flat out, records of those took its collections from about 5
    to about 10 us per move, and each move's record to twice the memory).
    """

    move_count: int
    move: str
    score_delta: int
    revealed: bool
    extras: tuple[int, ...]
    #: Each pile the move changed, as its cards joined by spaces.
    piles: dict[str, str]
    steps: tuple[Step, ...]

    @staticmethod
    def pack(
        before: dict[str, str],
        extras: tuple[int, ...],
        move_count: int,
        result: MoveResult,
        revealed: bool,
    ) -> tuple[Any, ...]:
        """The flat record: the first four fields, the extras (counted), the piles
        (counted, each as its name and its cards joined by spaces), then each step's
        card, source and destination."""
        flat: list[Any] = [
            move_count,
            result.move,
            result.score_delta,
            revealed,
            len(extras),
            *extras,
            len(before),
        ]
        for name, cards in before.items():
            flat += (name, cards)
        for step in result.steps:
            flat += (step.card, step.src, step.dst)
        return tuple(flat)

    @classmethod
    def unpack(cls, flat: tuple[Any, ...]) -> _Undo:
        move_count, move, score_delta, revealed, extra_count = flat[:5]
        at = 5 + extra_count
        piles_end = at + 1 + 2 * flat[at]
        names, texts = flat[at + 1 : piles_end : 2], flat[at + 2 : piles_end : 2]
        piles = dict(zip(names, texts, strict=True))
        steps = tuple(Step(*flat[i : i + 3]) for i in range(piles_end, len(flat), 3))
        return cls(move_count, move, score_delta, revealed, flat[5:at], piles, steps)


#: Where a packed record keeps ``move`` and ``revealed`` (read by every ``can_undo``).
_MOVE: Final = _Undo._fields.index("move")
_REVEALED: Final = _Undo._fields.index("revealed")


class Game(ABC):
    """One game in progress; subclasses implement the rules of one game each.

    Every accepted move is pushed on a stack, so ``undo`` (or ``play("undo")``) restores
    the exact position, score and move count before it, as python-chess's ``pop`` does.
    ``undo_rule`` says how far back that may go.
    """

    game_id: ClassVar[GameName]
    pile_names: ClassVar[tuple[str, ...]]
    #: The pile each place a step names belongs to (a place off the board has none).
    _step_piles: ClassVar[dict[str, str]]
    _parse_cache: ClassVar[dict[str, Move]]
    #: Every game class, by its ``game_id``: a class that declares one registers itself.
    registry: ClassVar[dict[str, type[Game]]] = {}

    def __init__(self, piles: dict[str, list[str]], move_count: int = 0) -> None:
        self.piles = piles
        self.move_count = move_count
        self.undo_rule = UndoRule.UNLIMITED
        self._history: list[tuple[Any, ...]] = []
        #: The piles the last move (or undo) changed, in the order its steps reached them.
        self.last_changed: tuple[str, ...] = ()
        #: Every pile as its cards joined by spaces, kept in step with ``piles`` once a move
        #: was played: what an undo record keeps of each pile a move changed.
        self._frozen: dict[str, str] | None = None
        #: The piles' part of the position's JSON text, kept in step with ``piles`` once
        #: :meth:`position_text` was asked for.
        self._piles_text: str | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._parse_cache = {}
        if "pile_names" in cls.__dict__:
            cls._step_piles = {name: name for name in cls.pile_names} | cls._step_aliases()
        if "game_id" in cls.__dict__:
            Game.registry[cls.game_id] = cls

    # ----- playing -------------------------------------------------------------

    def play(self, move: str) -> MoveResult:
        """Apply ``move`` (notation of docs/rules.md) and return what changed.

        Raises :class:`IllegalMove` with a readable reason, changing nothing, when the
        move is malformed or breaks a rule.
        """
        parsed = self._parse_cache.get(move) if isinstance(move, str) else None
        if parsed is None:
            parsed = self._parse(move)
        if parsed.kind == "undo":
            return self.undo()
        frozen = self._frozen if self._frozen is not None else self._freeze()
        extras, move_count = self._extras(), self.move_count
        result = self._apply(parsed)
        before: dict[str, str] = {}
        piles, pile_of = self.piles, self._step_piles
        for step in result.steps:
            for pile in (pile_of.get(step.src), pile_of.get(step.dst)):
                if pile is not None and pile not in before:
                    before[pile] = frozen[pile]
                    frozen[pile] = " ".join(piles[pile])
        if self._piles_text is not None:
            self._piles_text = _spliced(self._piles_text, {pile: frozen[pile] for pile in before})
        self._history.append(_Undo.pack(before, extras, move_count, result, self._reveals(result)))
        self.move_count += 1
        self.last_changed = tuple(before)
        return result

    def _freeze(self) -> dict[str, str]:
        """Every pile as its cards joined by spaces, kept from now on in step with the piles."""
        self._frozen = {name: " ".join(cards) for name, cards in self.piles.items()}
        return self._frozen

    # ----- undo ---------------------------------------------------------------------

    def can_undo(self) -> bool:
        """Whether ``undo`` would be accepted now."""
        return self._undo_refusal() is None

    def undo(self) -> MoveResult:
        """Take back the last move: the position, score and move count are exactly those
        before it. Its result reports the move ``undo``, the steps of the move taken back
        in reverse (each card going back where it came from) and the score change.

        Raises :class:`RuleViolation`, changing nothing, when there is nothing to take back
        or ``undo_rule`` forbids it.
        """
        refusal = self._undo_refusal()
        if refusal is not None:
            raise RuleViolation(refusal)
        record = _Undo.unpack(self._history.pop())
        frozen = self._frozen
        assert frozen is not None  # a move was played, so the piles are frozen
        for name, cards in record.piles.items():
            self.piles[name][:] = [DECK_CARD[card] for card in cards.split()]
            frozen[name] = cards
        if self._piles_text is not None:
            self._piles_text = _spliced(self._piles_text, record.piles)
        self._set_extras(record.extras)
        self._derive()
        self.move_count = record.move_count
        self.last_changed = tuple(record.piles)
        steps = tuple(Step(s.card, s.dst, s.src) for s in reversed(record.steps))
        return MoveResult("undo", steps, -record.score_delta, self.score, self.is_won)

    def _undo_refusal(self) -> str | None:
        if not self._history:
            if self.move_count and self.undo_rule is UndoRule.KEEP_REVEALS:
                # Rebuilt from a position: its history was cut at a move that revealed.
                return (
                    "a move that turned up a card nobody had seen stays, and so does every move "
                    f"before it: {_KEEP_REVEALS_WHERE}"
                )
            return "there is no move to undo"
        last = self._history[-1]
        if last[_REVEALED] and self.undo_rule is UndoRule.KEEP_REVEALS:
            return f"{last[_MOVE]} turned up a card nobody had seen, so it stays: {_KEEP_REVEALS_WHERE}"
        return None

    def _reveals(self, result: MoveResult) -> bool:
        """Whether ``result`` (just applied) turned up a card that was face down."""
        return False

    @classmethod
    def _step_aliases(cls) -> dict[str, str]:
        """Places steps name that are part of a pile (Treize's ``wt`` is in the waste)."""
        return {}

    def _extras(self) -> tuple[int, ...]:
        """The game's own counters that a move may change (none by default)."""
        return ()

    def _set_extras(self, extras: tuple[int, ...]) -> None:
        """Set the counters :meth:`_extras` returned."""
        return None

    def _derive(self) -> None:
        """Recompute whatever the game derives from its piles (after an undo)."""
        return None

    def _parse(self, text: str) -> Move:
        parsed = parse_move(text)
        if parsed.kind != "undo":
            self._check_names(parsed)
        cache = self._parse_cache
        if len(cache) >= _PARSE_CACHE_LIMIT:
            cache.clear()
        cache[text] = parsed
        return parsed

    def is_legal(self, move: str) -> bool:
        """Whether ``move`` would be accepted now (the game is not changed)."""
        probe = self.copy()
        try:
            probe.play(move)
        except IllegalMove:
            return False
        return True

    @classmethod
    @abstractmethod
    def deal(cls, deck: list[str]) -> Self:
        """Lay out a shuffled 52-card ``deck`` as the game's opening position."""

    @abstractmethod
    def _check_names(self, move: Move) -> None:
        """Reject a parsed move that names piles this game does not have."""

    @abstractmethod
    def _apply(self, move: Move) -> MoveResult:
        """Validate ``move`` completely, then apply it; nothing changes on rejection."""

    @abstractmethod
    def legal_moves(self) -> list[str]:
        """Every legal move in canonical notation, sorted."""

    # ----- state ----------------------------------------------------------------

    @property
    @abstractmethod
    def score(self) -> int:
        """The game's score as Aisleriot counts it."""

    @property
    @abstractmethod
    def is_won(self) -> bool:
        """Whether the game is won."""

    @abstractmethod
    def view(self) -> GameView:
        """What the player sees: no face-down card, counts for hidden ones."""

    @abstractmethod
    def pile_views(self, names: Iterable[str]) -> dict[str, PileView]:
        """The piles ``names`` as :meth:`view` shows them."""

    def changed_view(self) -> GameView:
        """:meth:`view` with only the piles the last move (or undo) changed: laid over the
        view before that move, pile by pile, it is the whole view after it."""
        return self._view_of(self.pile_views(self.last_changed))

    def _view_of(self, piles: dict[str, PileView]) -> GameView:
        """The view dict around the visible ``piles``, with the fields every game shows."""
        return {
            "game": self.game_id,
            "piles": piles,
            "score": self.score,
            "won": self.is_won,
            "move_count": self.move_count,
        }

    def position(self) -> dict[str, Any]:
        """The full-information position dict of docs/rules.md."""
        piles = {n: list(self.piles[n]) for n in self.pile_names}
        return {"game": self.game_id, "piles": piles, **self._position_extras()}

    def position_text(self) -> str:
        """:meth:`position` as compact JSON text. The piles' part is kept as text, each
        move changing the piles it moved, so writing a position out after every move (as
        the server does) reads one string, not every card and pile: those are mostly out
        of the CPU's caches on a busy server, and cost several times the rest."""
        piles = self._piles_text
        if piles is None:
            frozen = self._frozen if self._frozen is not None else self._freeze()
            piles = self._piles_text = ",".join(_pile_text(name, frozen[name]) for name in self.pile_names)
        extras = "".join(f',"{key}":{json.dumps(value)}' for key, value in self._position_extras().items())
        return f'{{"game":"{self.game_id}","piles":{{{piles}}}{extras}}}'

    def _position_extras(self) -> dict[str, Any]:
        """What a game's position holds besides its piles."""
        return {}

    def copy(self) -> Self:
        """An independent copy of this game, with the same moves to undo."""
        clone = type(self).from_position(self.position(), move_count=self.move_count)
        clone.undo_rule = self.undo_rule
        clone._history = list(self._history)
        clone._frozen = dict(self._frozen if self._frozen is not None else self._freeze())
        return clone

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.position() == other.position()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} score={self.score} moves={self.move_count}>"

    # ----- positions --------------------------------------------------------------

    @classmethod
    def from_position(cls, data: dict[str, Any], move_count: int = 0) -> Self:
        """Build a game from a position dict, rejecting a bad one with ``ValueError``.

        ``move_count`` is the number of moves already played to reach it (a position does
        not record it).
        """
        if isinstance(move_count, bool) or not isinstance(move_count, int) or move_count < 0:
            raise ValueError(f"a move count is a whole number from 0, not {move_count!r}")
        piles = cls._checked_piles(data)
        cls._check_layout(piles, data)
        game = cls._from_checked(piles, data)
        game.move_count = move_count
        return game

    @classmethod
    def _checked_piles(cls, data: dict[str, Any]) -> dict[str, list[str]]:
        if not isinstance(data, dict):
            raise ValueError("a position is a dict")
        raw = data.get("piles")
        if not isinstance(raw, dict):
            raise ValueError("a position needs a 'piles' dict")
        unknown = sorted(set(raw) - set(cls.pile_names), key=str)
        if unknown:
            raise ValueError(f"unknown pile {unknown[0]!r} for {cls.game_id}")
        missing = [n for n in cls.pile_names if n not in raw]
        if missing:
            raise ValueError(f"pile {missing[0]!r} is missing")
        seen: set[str] = set()
        piles: dict[str, list[str]] = {}
        for name in cls.pile_names:
            cards = raw[name]
            if not isinstance(cards, list):
                raise ValueError(f"pile {name!r} must be a list of cards")
            for card in cards:
                if not isinstance(card, str) or card not in CARD_SET:
                    raise ValueError(f"{card!r} in {name} is not a card")
                if card in seen:
                    raise ValueError(f"{card} appears twice")
                seen.add(card)
            piles[name] = [DECK_CARD[card] for card in cards]
        return piles

    @classmethod
    @abstractmethod
    def _check_layout(cls, piles: dict[str, list[str]], data: dict[str, Any]) -> None:
        """Game-specific checks: card count, pile sizes, foundation order."""

    @classmethod
    def _from_checked(cls, piles: dict[str, list[str]], data: dict[str, Any]) -> Self:
        return cls(piles)

    @staticmethod
    def _check_max(piles: dict[str, list[str]], names: tuple[str, ...], most: int) -> None:
        for name in names:
            if len(piles[name]) > most:
                raise ValueError(f"{name} holds {len(piles[name])} cards; it can hold {most}")

    @staticmethod
    def _check_foundations(
        piles: dict[str, list[str]],
        names: tuple[str, ...],
        first: tuple[int, str],
        follows: Callable[[int], int],
    ) -> None:
        """Each foundation starts with the ``first`` value (and its label for reasons),
        builds up in one suit by ``follows``, and no two build the same suit."""
        first_value, first_label = first
        suits: set[str] = set()
        for name in names:
            pile = piles[name]
            if not pile:
                continue
            if VALUE[pile[0]] != first_value:
                raise ValueError(f"{name} starts with {pile[0]}, not {first_label}")
            if pile[0][1] in suits:
                raise ValueError(f"two foundations build {pile[0][1]}")
            suits.add(pile[0][1])
            for lower, upper in itertools.pairwise(pile):
                if upper[1] != lower[1] or VALUE[upper] != follows(VALUE[lower]):
                    raise ValueError(f"{name} does not build up in suit at {upper}")

    @staticmethod
    def _check_total(piles: dict[str, list[str]], expected: int) -> None:
        total = sum(len(p) for p in piles.values())
        if total != expected:
            raise ValueError(f"the position holds {total} cards, not {expected}")


class FoundationGame(Game):
    """A game scored by the cards on ``f1``..``f4`` and won when all 52 are there."""

    @property
    def score(self) -> int:
        p = self.piles
        return len(p["f1"]) + len(p["f2"]) + len(p["f3"]) + len(p["f4"])

    @property
    def is_won(self) -> bool:
        return self.score == 52


def _pile_text(name: str, cards: str) -> str:
    """A pile's member of the position's JSON text, from its cards joined by spaces (a
    card's name needs no escaping: docs/rules.md).

    >>> _pile_text("t1", "KC 3D"), _pile_text("r1", "")
    ('"t1":["KC","3D"]', '"r1":[]')
    """
    return f'"{name}":["' + cards.replace(" ", '","') + '"]' if cards else f'"{name}":[]'


def _spliced(piles_text: str, changed: dict[str, str]) -> str:
    """The piles' JSON text with each pile of ``changed`` (its cards joined by spaces)
    put in place of what it held. A pile's member is found by its quoted name and ends at
    the first bracket after it: no card's name holds a quote or a bracket.

    >>> _spliced('"t1":["KC"],"t10":[],"t2":[]', {"t1": "", "t2": "AH 2H"})
    '"t1":[],"t10":[],"t2":["AH","2H"]'
    """
    for name, cards in changed.items():
        start = piles_text.index(f'"{name}":[')
        end = piles_text.index("]", start) + 1
        piles_text = piles_text[:start] + _pile_text(name, cards) + piles_text[end:]
    return piles_text


def pile_error(name: str, valid: tuple[str, ...], game_id: str) -> BadNotation:
    """The rejection for a pile name the game does not have."""
    return BadNotation(f"{game_id} has no pile {name!r} (piles: {', '.join(valid)})")


def describe_top(name: str, pile: list[str]) -> str:
    """``"f2 (top 5H)"`` or ``"f2 (empty)"``, for reasons."""
    return f"{name} (top {pile[-1]})" if pile else f"{name} (empty)"

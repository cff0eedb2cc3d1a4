"""What a racer knows about a board, and playable games that agree with it.

A view (``Game.view()``, or a wire ``BoardView`` dumped as a dict) shows each pile's
count and its face-up cards, always the top ones. Some cards it does not show still follow
from the rules: a foundation builds up in one suit from a known first rank, so its top
card and count give the whole pile. What stays unknown is the stock, Eagle Wing's waste
below its top card, and Eagle Wing's reserve while it holds two cards or more.

- :func:`known_piles`: every pile bottom to top, ``None`` where the card is unknown;
- :func:`hidden_slots`: the ``(pile, index)`` of every unknown card;
- :func:`hidden_count`: how many there are (cheaply);
- :func:`unseen_cards`: the cards the view places nowhere (hidden, or removed in Treize);
- :func:`rebuild`: the exact game when nothing is hidden (Eight Off always is);
- :func:`sample_game`: a determinization, a game showing the same view whose hidden cards
  are dealt at random from the unseen ones, so a program can search ahead without peeking;
- :func:`view_legal_moves`: the legal moves, which never depend on hidden cards;
- :func:`view_key`: a hashable summary of what the view shows, to notice a position met
  before (piles that the rules treat alike may have swapped places).

>>> import random
>>> from shared import new_game
>>> real = new_game("eagle-wing", 3)
>>> len(hidden_slots(real.view()))
43
>>> guess = sample_game(real.view(), random.Random(1))
>>> guess.view() == real.view()
True
>>> rebuild(new_game("eight-off", 3).view()) == new_game("eight-off", 3)
True
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Iterable, Mapping
from typing import Any, Final

from shared.cards import ACE, FULL_DECK, RANK_VALUE, RANKS
from shared.eagle_wing import MAX_REDEALS
from shared.engine import from_position
from shared.game import Game

#: Foundation piles have these names in every game that has foundations.
FOUNDATION_NAMES: Final = frozenset({"f1", "f2", "f3", "f4"})
#: Per game, the kinds of piles (names without their number) the rules treat alike.
INTERCHANGEABLE: Final[dict[str, tuple[str, ...]]] = {
    "eagle-wing": ("f", "t"),
    "eight-off": ("f", "r", "t"),
    "treize": (),
}
#: The seed of the determinization that :func:`view_legal_moves` plays on.
_LEGAL_PROBE_SEED: Final = 0

KnownPiles = dict[str, list[str | None]]


class HiddenCardsError(ValueError):
    """The view hides cards, so no single game matches it: use :func:`sample_game`."""


def _foundation_start(view: Mapping[str, Any]) -> int:
    """The rank value every foundation of the view's game starts with."""
    if view["game"] == "eagle-wing":
        return RANK_VALUE[str(view["base_rank"])]
    return ACE


def _foundation_cards(name: str, count: int, top: str, start: int) -> list[str | None]:
    """The whole foundation ``name`` from its top card: one suit, up from ``start``, wrapping."""
    values = [(start - 1 + i) % 13 + 1 for i in range(count)]
    if RANK_VALUE[top[0]] != values[-1]:
        raise ValueError(
            f"{name} shows {top} on {count} card(s): a foundation from {RANKS[start - 1]} cannot"
        )
    return [RANKS[v - 1] + top[1] for v in values]


def known_piles(view: Mapping[str, Any]) -> KnownPiles:
    """Every pile of ``view`` bottom to top: a card where the view shows or implies it,
    ``None`` where it is hidden. Raises ``ValueError`` for a view that makes no sense."""
    start = _foundation_start(view)
    piles: KnownPiles = {}
    for name, pile in view["piles"].items():
        count = int(pile["count"])
        cards: list[str] = list(pile["cards"])
        if len(cards) > count:
            raise ValueError(f"{name} shows {len(cards)} cards but holds {count}")
        if name in FOUNDATION_NAMES and cards and len(cards) < count:
            piles[name] = _foundation_cards(name, count, cards[-1], start)
        else:
            piles[name] = [None] * (count - len(cards)) + list(cards)
    return piles


def hidden_slots(view: Mapping[str, Any]) -> list[tuple[str, int]]:
    """The ``(pile, index)`` of every card the view hides, index 0 at the bottom, in the
    order of the view's piles."""
    return [
        (name, index)
        for name, pile in known_piles(view).items()
        for index, card in enumerate(pile)
        if card is None
    ]


def hidden_count(view: Mapping[str, Any]) -> int:
    """How many cards ``view`` hides: ``len(hidden_slots(view))``, without building them."""
    return sum(
        int(pile["count"]) - len(pile["cards"])
        for name, pile in view["piles"].items()
        if name not in FOUNDATION_NAMES or not pile["cards"]
    )


def _placed(piles: KnownPiles) -> set[str]:
    cards = [card for pile in piles.values() for card in pile if card is not None]
    placed = set(cards)
    if len(placed) != len(cards):
        raise ValueError("the view shows a card twice")
    return placed


def unseen_cards(view: Mapping[str, Any]) -> list[str]:
    """The cards the view places in no pile, in deck order: the hidden ones, and in Treize
    the removed ones too (a view cannot tell those apart)."""
    placed = _placed(known_piles(view))
    return [card for card in FULL_DECK if card not in placed]


def _game_from(view: Mapping[str, Any], piles: Mapping[str, list[str | None]]) -> Game:
    """The game of ``view`` with every slot of ``piles`` filled in."""
    full: dict[str, list[str]] = {}
    for name, pile in piles.items():
        full[name] = [card for card in pile if card is not None]
        if len(full[name]) != len(pile):
            raise HiddenCardsError(f"{name} still has a hidden card")
    position: dict[str, Any] = {"game": view["game"], "piles": full}
    if view["game"] == "eagle-wing":
        position["redeals_used"] = MAX_REDEALS - int(view["redeals_left"])
    return from_position(position, move_count=int(view["move_count"]))


def rebuild(view: Mapping[str, Any]) -> Game:
    """The one game that shows ``view``, when it hides no card (an Eight Off view, or a
    Treize view once the stock is empty); otherwise :class:`HiddenCardsError`."""
    piles = known_piles(view)
    hidden = [name for name, pile in piles.items() if None in pile]
    if hidden:
        raise HiddenCardsError(f"the view hides cards in {', '.join(hidden)}: sample a game instead")
    return _game_from(view, piles)


def sample_game(
    view: Mapping[str, Any],
    rng: random.Random,
    out_of_play: Iterable[str] = (),
    remembered: Mapping[tuple[str, int], str] | None = None,
) -> Game:
    """A game that shows exactly ``view``, its hidden cards drawn at random (with ``rng``)
    from the unseen ones: one determinization of what the racer does not know.

    A racer who watched the game knows more than its view, and may say so: ``out_of_play``
    names unseen cards they saw leave play (removed in Treize), which are not drawn;
    ``remembered`` gives the card of hidden slots they saw earlier (``("waste", 3)``: the
    Eagle Wing waste's fourth card from the bottom), which are placed as given. A
    remembered slot that is not hidden, or a card that cannot be there, is a ``ValueError``.
    The same arguments and ``rng`` state always give the same game.
    """
    piles = known_piles(view)
    placed = _placed(piles)
    pinned = dict(remembered or {})
    removed = set(out_of_play)
    gone = removed | set(pinned.values())
    for (name, index), card in pinned.items():
        if name not in piles or not 0 <= index < len(piles[name]) or piles[name][index] is not None:
            raise ValueError(f"{name}[{index}] is not a hidden slot of the view")
        if card in placed or card in removed:
            raise ValueError(f"{card} cannot be hidden in {name}: it is seen or out of play")
        piles[name][index] = card
    if len(pinned) != len(set(pinned.values())):
        raise ValueError("a remembered card is in two slots")
    pool = [card for card in FULL_DECK if card not in placed and card not in gone]
    slots = [(name, i) for name, pile in piles.items() for i, card in enumerate(pile) if card is None]
    if len(pool) < len(slots):
        raise ValueError(f"{len(slots)} hidden card(s) but only {len(pool)} card(s) could be there")
    for (name, index), card in zip(slots, rng.sample(pool, len(slots)), strict=True):
        piles[name][index] = card
    return _game_from(view, piles)


def view_legal_moves(view: Mapping[str, Any]) -> list[str]:
    """The legal moves of the board ``view`` shows, in canonical notation, sorted.

    No rule looks at a hidden card (the stock only needs a count, Eagle Wing's reserve
    plays only once its last card is face up), so any determinization gives them.
    """
    return sample_game(view, random.Random(_LEGAL_PROBE_SEED)).legal_moves()


def view_key(view: Mapping[str, Any]) -> Hashable:
    """What ``view`` shows, as a hashable value, up to the order of interchangeable piles:
    the piles (counts and face-up cards) and Eagle Wing's redeals left, not the move
    count. Two views with equal keys offer a racer the same game, so a program can use
    the key to notice it is going round in circles.

    Piles of one kind are interchangeable where the rules treat them alike (foundations,
    tableau piles and Eight Off's cells; never Treize's pyramid, where place matters):
    ``t1`` and ``t2`` swapped give the same key.
    """
    kinds = INTERCHANGEABLE[view["game"]]
    fixed: list[tuple[str, tuple[int, tuple[str, ...]]]] = []
    alike: dict[str, list[tuple[int, tuple[str, ...]]]] = {kind: [] for kind in kinds}
    for name, pile in view["piles"].items():
        entry = (int(pile["count"]), tuple(pile["cards"]))
        kind = name.rstrip("0123456789")
        if kind in alike:
            alike[kind].append(entry)
        else:
            fixed.append((name, entry))
    groups = tuple((kind, tuple(sorted(entries))) for kind, entries in alike.items())
    return tuple(sorted(fixed)), groups, view.get("redeals_left")

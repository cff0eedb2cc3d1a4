"""What the spectators of one race on one node see: a hub per watched race.

A hub replays the race itself from its seed: moves come in as ``(racer, seq, move, at)``
(from the move log when the hub opens, then from the race's watch channel), and the hub
plays each on its own copy of that racer's board, so every node with spectators
computes each view once, whatever the number of spectators, and the mover's node does
no work for them. Everything a spectator is sent waits in the hub's queue until
``delay_ms`` after it happened (rated races): a spectator never sees a board sooner.
Before the start is released the boards are the deal itself, which nobody sees before
the race starts: the snapshot then leaves every view out (``race_started`` carries the
deal). A racer's new name is no board: it goes out at the next release, ahead of what
waits for the delay. No I/O here: the transport feeds a hub and sends what it releases.

In a game whose stock hides cards (Treize, Eagle Wing) every racer turns up the same
cards in the same order, so a board ahead of the others would show a racer what their
own stock holds: to anyone, including that racer in another session. So a board reaches
spectators only as far as every racer still racing has seen its cards. The hub also
plays every move as it is received (the race as it really is, whatever the delay) and
keeps the cards each racer has seen; a move whose board shows a card that another racer
still racing has not seen waits, with that racer's later moves, until they have seen it
or finished. The race's end lets everything out. Spectators are told when a racer's
board starts being held and when it goes on (``watch_held``), and a snapshot marks a
board held (``held``), so that a board that stops is not taken for a racer who stopped.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from server.features.race_rules import CARDS, view_of
from shared import Game, GameName, IllegalMove, UndoRule, new_game
from shared.knowledge import hidden_count, known_piles
from shared.protocol import LiveRace


@dataclass
class SpectatedBoard:
    """One racer's board as spectators last saw it."""

    game: Game
    seq: int = 0
    #: The move ``seq`` (canonical notation, or ``undo``) as its ``watch_move`` carried it;
    #: None before the racer's first move.
    last_move: str | None = None
    finished: bool = False
    #: The board's view, as a wire dict (computed once per move, for every spectator).
    view: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Pending:
    release_at: int
    kind: str  # "move" or "event"
    player_id: str = ""
    seq: int = 0
    move: str = ""
    at: int = 0
    msg: dict[str, Any] | None = None
    #: A ``race_started``'s deal seed, when the event carried one.
    deal: int | None = None
    #: The cards the move's board shows (games whose stock hides cards only).
    shows: frozenset[str] = frozenset()


def _known_cards(game: Game) -> frozenset[str]:
    """The cards ``game``'s racer sees (or can tell) on their board now."""
    return frozenset(card for pile in known_piles(game.view()).values() for card in pile if card)


class RaceHub:
    """The spectators' copy of one race: boards, status, and what waits for the delay."""

    def __init__(
        self,
        race: LiveRace,
        seed: int,
        delay_ms: int,
        daily: bool = False,
    ) -> None:
        self.race_id = race.race_id
        self.game: GameName = race.game
        self.delay_ms = delay_ms
        self.daily = daily
        self.status = race.status
        self.starts_at = race.starts_at
        self.ends_at = race.ends_at
        self.rated = race.rated
        #: Everyone watching on every node, as a new spectator is told it.
        self.spectators = race.spectators
        #: Those watching on other nodes, as of the latest count read or published.
        self._elsewhere = race.spectators
        self._racers = {racer.player_id: racer for racer in race.racers}
        self.boards: dict[str, SpectatedBoard] = {}
        self._deal(seed)
        #: Whether boards can show cards some racer has not seen: the stock hides some.
        self._hidden = hidden_count(next(iter(self.boards.values())).view) > 0 if self.boards else False
        #: Each racer's board as played so far (every move received), the cards each has
        #: seen on it, and who no longer races (won, gave up): see the module's doc.
        self._played: dict[str, Game] = {}
        self._seen: dict[str, set[str]] = {}
        self._done: set[str] = set()
        #: The racers whose board spectators were last told is held (``watch_held``).
        self._held: set[str] = set()
        self._deal_played(seed)
        #: Whether spectators may see the boards: once the start is released.
        self.deal_shown = race.status != "countdown"
        #: The highest seq received of each racer (released or waiting).
        self._known_seq = dict.fromkeys(self._racers, 0)
        #: Lifecycle events received: "started", "ended", "gave_up <player id>".
        self._known: set[str] = set()
        self._queue: deque[_Pending] = deque()
        #: New names received and not released yet, by racer, with the rating a guest
        #: who registered gained (None: no news of one): they wait for no delay.
        self._new_names: dict[str, tuple[str, int | None, bool]] = {}
        #: Set once the race's end (or cancellation) was released: the hub is done.
        self.over = False

    def _deal(self, seed: int) -> None:
        """Every racer's board as the deal of ``seed`` opens, before any move."""
        self.seed = seed
        for player_id, racer in self._racers.items():
            game = new_game(self.game, seed, undo_rule=UndoRule.KEEP_REVEALS)
            self.boards[player_id] = SpectatedBoard(game, view=view_of(game, legal=False))
            self._racers[player_id] = racer.model_copy(
                update={
                    "score": game.score,
                    "cards_left": CARDS - game.score,
                    "move_count": 0,
                    "finished": False,
                    "won": False,
                }
            )

    def _deal_played(self, seed: int) -> None:
        if not self._hidden:
            return
        for player_id in self._racers:
            game = new_game(self.game, seed, undo_rule=UndoRule.KEEP_REVEALS)
            self._played[player_id] = game
            self._seen[player_id] = set(_known_cards(game))

    # ----- what comes in ---------------------------------------------------------------

    def knows(self, lifecycle: str) -> bool:
        return lifecycle in self._known

    def receive_move(self, player_id: str, seq: int, move: str, at: int) -> None:
        """A racer's move ``seq``; one already received, or one out of order, is ignored
        (the log and the channel overlap while the hub opens)."""
        if player_id not in self._known_seq or seq != self._known_seq[player_id] + 1:
            return
        self._known_seq[player_id] = seq
        shows = self._play_received(player_id, move)
        self._queue.append(_Pending(at + self.delay_ms, "move", player_id, seq, move, at, shows=shows))

    def _play_received(self, player_id: str, move: str) -> frozenset[str]:
        """Play a move as it is received: the cards its board shows, now seen by its racer."""
        game = self._played.get(player_id)
        if game is None:
            return frozenset()
        try:
            game.play(move)
        except IllegalMove:
            return frozenset()
        shows = _known_cards(game)
        self._seen[player_id] |= shows
        if game.is_won:
            self._done.add(player_id)
        return shows

    def receive_event(self, msg: dict[str, Any], at: int, deal: int | None = None) -> None:
        """A race event (its wire dict) that happened at ``at``: the start (with the seed
        of its ``deal``: seed shares revealed during the countdown change it), a racer
        giving up, the end or cancellation, and racers' names in a ``race_update`` (its
        progress is live, so the rest of it is not for spectators); anything else is
        not for spectators either."""
        kind = msg.get("type")
        if kind == "race_update":
            for racer in msg.get("race", {}).get("racers", []):
                rating = racer.get("rating")
                self.receive_name(
                    str(racer.get("player_id")),
                    str(racer.get("name")),
                    rating if isinstance(rating, int) else None,
                    racer.get("provisional") is True,
                )
            return
        if kind == "progress":
            if not msg.get("finished") or msg.get("won"):
                return  # a move's progress: the move itself comes with its board
            gave_up = f"gave_up {msg.get('player_id')}"
            if gave_up in self._known:
                return
            self._known.add(gave_up)
            self._done.add(str(msg.get("player_id")))
        elif kind == "race_started":
            if "started" in self._known:
                return
            self._known.add("started")
            if deal is not None and deal != self.seed:
                self._deal_played(deal)
        elif kind in ("race_ended", "race_cancelled"):
            if "ended" in self._known:
                return
            self._known.add("ended")
        else:
            return
        self._queue.append(_Pending(at + self.delay_ms, "event", msg=msg, deal=deal))

    def receive_name(
        self, player_id: str, name: str, rating: int | None = None, provisional: bool = False
    ) -> None:
        """The name a racer goes by now, with the rating of a guest who registered as an
        account (``rating``; None: no news of one): released at once, delay or not, when new."""
        racer = self._racers.get(player_id)
        if racer is None:
            return
        known = self._new_names.get(player_id, (racer.name, racer.rating, racer.provisional))
        if rating is None or known[1] is not None:
            rating, provisional = known[1], known[2]  # a rating changes at the end, not here
        if (name, rating, provisional) != known:
            self._new_names[player_id] = (name, rating, provisional)

    def count_elsewhere(self, elsewhere: int) -> None:
        """The spectators on the other nodes: counts go by the latest one published (in
        order), and this node's own are added as they are now, see :meth:`recount`."""
        self._elsewhere = elsewhere

    def recount(self, here: int) -> int:
        """Everyone watching, with ``here`` spectators on this node now (no delay: a count
        is not a view, so nothing waits behind the boards)."""
        self.spectators = self._elsewhere + here
        return self.spectators

    # ----- what goes out ---------------------------------------------------------------

    def release(self, now: int) -> list[dict[str, Any]]:
        """Everything whose time came, in order, as wire dicts for spectators; the boards
        and status move on with it."""
        out = [self._rename(player_id, *named) for player_id, named in self._new_names.items()]
        self._new_names.clear()
        queue, kept = self._queue, deque[_Pending]()
        held: set[str] = set()  # racers with a move kept back: their later ones wait too
        while queue:
            item = queue[0]
            if item.release_at > now or (item.kind == "event" and kept):
                break  # an event never passes what came before it
            queue.popleft()
            if item.kind == "move":
                if item.player_id in held or self._shows_unseen(item):
                    held.add(item.player_id)
                    kept.append(item)
                    out.extend(self._told_held(item.player_id, True))
                    continue
                out.extend(self._told_held(item.player_id, False))
                message = self._play(item)
                if message is not None:
                    out.append(message)
            elif item.msg is not None:
                self._apply_event(item.msg, item.deal)
                out.append(item.msg)
        kept.extend(queue)
        self._queue = kept
        return out

    def _shows_unseen(self, item: _Pending) -> bool:
        """Whether the move's board shows a card that another racer still racing has not
        seen (until the race's end is received)."""
        if not item.shows or "ended" in self._known:
            return False
        return any(
            not item.shows <= seen
            for player_id, seen in self._seen.items()
            if player_id != item.player_id and player_id not in self._done
        )

    def _told_held(self, player_id: str, held: bool) -> list[dict[str, Any]]:
        """The ``watch_held`` telling spectators that ``player_id``'s board is now held
        (or goes on), when they were told otherwise last; else nothing."""
        if (player_id in self._held) == held:
            return []
        if held:
            self._held.add(player_id)
        else:
            self._held.discard(player_id)
        return [{"type": "watch_held", "race_id": self.race_id, "player_id": player_id, "held": held}]

    @property
    def waiting(self) -> bool:
        return bool(self._queue or self._new_names)

    def _rename(self, player_id: str, name: str, rating: int | None, provisional: bool) -> dict[str, Any]:
        update: dict[str, Any] = {"name": name, "rating": rating, "provisional": provisional}
        self._racers[player_id] = self._racers[player_id].model_copy(update=update)
        renamed: dict[str, Any] = {
            "type": "racer_renamed",
            "race_id": self.race_id,
            "player_id": player_id,
            "name": name,
        }
        if rating is not None:
            renamed.update(rating=rating, provisional=provisional)
        return renamed

    def _play(self, item: _Pending) -> dict[str, Any] | None:
        board = self.boards[item.player_id]
        try:
            board.game.play(item.move)
        except IllegalMove:
            return None  # the store accepted it, so this never happens; skip rather than stop
        board.seq = item.seq
        board.last_move = item.move
        board.view = view_of(board.game, legal=False)
        board.finished = board.finished or board.game.is_won
        racer = self._racers[item.player_id]
        self._racers[item.player_id] = racer.model_copy(
            update={
                "score": board.game.score,
                "cards_left": CARDS - board.game.score,
                "move_count": board.game.move_count,
                "finished": board.finished,
                "won": board.game.is_won,
            }
        )
        return {
            "type": "watch_move",
            "race_id": self.race_id,
            "player_id": item.player_id,
            "seq": item.seq,
            "move": item.move,
            "at": item.at,
            "view": board.view,
        }

    def _apply_event(self, msg: dict[str, Any], deal: int | None) -> None:
        kind = msg.get("type")
        if kind == "race_started":
            if deal is not None and deal != self.seed:
                self._deal(deal)  # no move comes before the start
            self.deal_shown = True
            self.status = "running"
            self.starts_at = msg.get("starts_at", self.starts_at)
            self.ends_at = msg.get("ends_at", self.ends_at)
        elif kind == "progress":
            player_id = str(msg.get("player_id"))
            if player_id in self.boards:
                self.boards[player_id].finished = True
                self._racers[player_id] = self._racers[player_id].model_copy(update={"finished": True})
        elif kind in ("race_ended", "race_cancelled"):
            self.status = "finished"
            self.over = True

    # ----- what a new spectator is given -----------------------------------------------

    def live_race(self) -> LiveRace:
        """The race as spectators see it now (progress as of the delay)."""
        return LiveRace(
            race_id=self.race_id,
            game=self.game,
            status=self.status,
            rated=self.rated,
            starts_at=self.starts_at,
            ends_at=self.ends_at,
            racers=list(self._racers.values()),
            spectators=self.spectators,
            delay_ms=self.delay_ms,
        )

    def snapshot(self) -> list[dict[str, Any]]:
        """Every racer's board as spectators see it now, as wire dicts, each with its
        last released move (``last_move``, left out before the first): in a delayed race
        the last move of the board shown, never one still waiting for the delay. Before
        the start is released, no ``view``: that would be the deal. A board held back for
        showing cards another racer has not seen says so (``held``)."""
        return [
            _board_dict(player_id, board, self.deal_shown, player_id in self._held)
            for player_id, board in self.boards.items()
        ]

    def racer_ids(self) -> list[str]:
        return list(self._racers)


def _board_dict(player_id: str, board: SpectatedBoard, with_view: bool, held: bool) -> dict[str, Any]:
    """A ``SpectatorBoard`` as a wire dict (``None`` fields left out, as on the wire, and
    ``held`` unless true)."""
    out: dict[str, Any] = {
        "player_id": player_id,
        "seq": board.seq,
        "finished": board.finished,
        "won": board.game.is_won,
    }
    if with_view:
        out["view"] = board.view
    if board.last_move is not None:
        out["last_move"] = board.last_move
    if held:
        out["held"] = True
    return out

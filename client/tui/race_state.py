"""What the race screen knows about a race, updated from replies and events (pure).

>>> from shared.protocol import Progress
>>> state = RaceState(race_id="r1", me="p_a")
>>> state.racers["p_b"] = Racer("p_b", "bob")
>>> state.apply(Progress(race_id="r1", player_id="p_b", score=3, cards_left=49,
...                      move_count=4, finished=False, won=False))
True
>>> [(rank, racer.name, racer.score) for rank, racer in state.ranking()]
[(1, 'bob', 3)]

Views are ordered by ``seq``, not by move count: an undo's view has fewer moves than the
one before it and still replaces it.

>>> from shared.protocol import BoardView
>>> view = BoardView(game="treize", piles={}, score=0, won=False, move_count=0)
>>> state.set_view(view.model_copy(update={"move_count": 1, "can_undo": True}), seq=1)
True
>>> state.set_view(view, seq=2), state.view.move_count, state.can_undo
(True, 0, False)
>>> state.set_view(view.model_copy(update={"move_count": 1}), seq=1)  # an older one
False
"""

from __future__ import annotations

import datetime as dt
import itertools
from dataclasses import dataclass, field, replace
from typing import Final

from client.columns import clipped_name
from client.wording import left_out_of
from shared import dealt_home
from shared.games import GameName
from shared.protocol import (
    BoardView,
    DailyEntry,
    Ghost,
    GhostInfo,
    MoveAck,
    Progress,
    RaceCancelled,
    RaceCountdown,
    RaceEnded,
    RaceInfo,
    RacerInfo,
    RaceStarted,
    RaceSummary,
    RaceUpdate,
    RematchInfo,
    RematchUpdate,
    Renamed,
    ServerMessage,
    Spectators,
    Standing,
)

CARDS: Final = 52
#: Ghosts the server races at most (the day's best three finished attempts).
GHOSTS_SHOWN: Final = 3


@dataclass(frozen=True, slots=True)
class Racer:
    """One racer's progress as everyone may see it."""

    player_id: str
    name: str
    bot: bool = False
    score: int = 0
    cards_left: int = CARDS
    move_count: int = 0
    finished: bool = False
    won: bool = False
    #: The racer's rating in the race's game (an account that has one), and whether it
    #: is still provisional (shown with a ``?``).
    rating: int | None = None
    provisional: bool = False
    #: After a rated race (final standings only): the change it made to ``rating``.
    rating_change: int | None = None
    #: Whether the racer said they are ready (a race that has not started).
    ready: bool = False
    #: Whether the racer committed to a seed share when seated (docs/deals.md).
    share_committed: bool = False
    #: In the lobby: the racer has no connection now (their seat kept for the grace).
    away: bool = False

    @classmethod
    def from_info(cls, info: RacerInfo) -> Racer:
        return cls(
            info.player_id,
            info.name,
            info.bot,
            info.score,
            info.cards_left,
            info.move_count,
            info.finished,
            info.won,
            info.rating,
            info.provisional,
            ready=info.ready,
            share_committed=info.share_committed,
            away=info.away,
        )


@dataclass(frozen=True, slots=True)
class GhostRacer:
    """A ghost: a finished attempt of the day's deal replayed at its own elapsed times, its
    progress as the last ``ghost`` event gave it (never its cards)."""

    player_id: str
    name: str
    #: Its place on the day's board (0 while only its events are known).
    rank: int = 0
    elapsed_ms: int = -1
    score: int = 0
    cards_left: int = CARDS
    move_count: int = 0
    finished: bool = False
    won: bool = False
    #: The attempt was given up (``GhostInfo.gave_up``): once finished, it ended so.
    gave_up: bool = False


@dataclass(frozen=True, slots=True)
class DailyRun:
    """A daily attempt the screen plays, a race of one: its game, its day (None until
    ``start_daily`` answered), and whether it counts on the day's board.

    >>> DailyRun("treize", "2027-03-14", scored=True).label
    'Daily — scored attempt'
    >>> DailyRun("treize", "2027-03-14", practice=True).label
    'Daily — practice (unscored)'
    >>> DailyRun("treize", "2027-03-14").label  # a guest's first attempt
    'Daily — guest attempt (unscored)'
    >>> DailyRun("treize").label  # not started yet
    'Daily — attempt'
    """

    game: GameName
    date: str | None = None
    scored: bool = False
    practice: bool = False

    @property
    def label(self) -> str:
        if self.practice:
            return "Daily — practice (unscored)"
        if self.date is None:
            return "Daily — attempt"
        return "Daily — scored attempt" if self.scored else "Daily — guest attempt (unscored)"


#: How far along a race's status is: it only ever moves to a later stage.
STATUS_STAGES: Final = {"open": 0, "countdown": 1, "running": 2, "ending": 3, "finished": 4, "cancelled": 4}


@dataclass
class RaceState:
    """The race as this racer follows it. ``status`` mirrors the server's race status."""

    race_id: str
    me: str | None
    game: str | None = None
    #: The code others join with (``play --join CODE``).
    code: str | None = None
    seats: int = 0
    status: str = "open"
    #: Whether the race allows hints (its ``hints`` setting).
    hints: bool = False
    #: Whether the race changes its racers' ratings.
    rated: bool = False
    starts_at: int | None = None
    ends_at: int | None = None
    view: BoardView | None = None
    seq: int = 0
    racers: dict[str, Racer] = field(default_factory=dict)
    #: Who won, in the order their wins became known (live ranking only).
    winners: list[str] = field(default_factory=list)
    summary: RaceSummary | None = None
    cancelled: str | None = None
    #: Whether a rated start unseated this racer as not ready (the race goes on without them).
    left_out: bool = False
    i_finished: bool = False
    #: The rematch offer of this race once someone made one (after the end).
    rematch: RematchInfo | None = None
    #: Set when the race is a daily attempt (no rematch then).
    daily: DailyRun | None = None
    #: After a scored daily attempt: its place on the day's board, and how many are on it.
    place: DailyEntry | None = None
    board_total: int = 0
    #: A daily run's day is over (UTC): ``start_daily`` would practise the new day's deal,
    #: so this one is no longer offered to practise (:meth:`daily_day_over`).
    day_over: bool = False
    #: Whether this racer races the day's ghosts (``daily_ghosts``), and those ghosts in
    #: board order, with their progress.
    ghosts_on: bool = False
    ghosts: dict[str, GhostRacer] = field(default_factory=dict)
    #: How many people watch the race now (``spectators`` events tell changes).
    spectators: int = 0
    #: When each racer's score became what it is, as a count of the score changes this
    #: client saw: the results break a tie of scores by who reached it first (the server's
    #: ``score_reached_ms``), and progress events carry no time, so the order this client
    #: saw them in stands in for it. Scores seen together (the start, a race read whole)
    #: share a count: their order is not known.
    reached: dict[str, int] = field(default_factory=dict)
    _changes: int = 0

    # ----- updates ------------------------------------------------------------------

    def take_ratings(self, info: RaceInfo) -> None:
        """Each racer's rating as ``info`` (a ``get_race`` after a rated race's end) has it,
        with whether it is still provisional, which the end's standings do not say."""
        for racer in info.racers:
            known = self.racers.get(racer.player_id)
            if known is not None and racer.rating is not None:
                rating = replace(known, rating=racer.rating, provisional=racer.provisional)
                self.racers[racer.player_id] = rating

    def load(self, info: RaceInfo) -> None:
        """Take in a whole race (``get_race``). The scores it changes (all of them, read
        the first time) count as reached now, in the order the server's times put them
        (those of one time, or from a server that gives none, together). A racer who has
        not moved has reached nothing: one who sat down later is level with the others; so
        has one whose moves never changed their score (the server's time for it is the
        start's, 0)."""
        before = {player_id: racer.score for player_id, racer in self.racers.items()}
        self._load(info)
        told = {racer.player_id: racer.score_reached_ms or 0 for racer in info.racers}
        at_start = {racer.player_id for racer in info.racers if racer.score_reached_ms == 0}
        changed = []
        for player_id, racer in self.racers.items():
            if racer.move_count == 0 or player_id in at_start:
                self.reached.pop(player_id, None)
            elif before.get(player_id, -1) != racer.score:
                changed.append(player_id)
        for _at, together in itertools.groupby(sorted(changed, key=told.__getitem__), key=told.__getitem__):
            self._changes += 1
            for player_id in together:
                self.reached[player_id] = self._changes

    def _score_changed(self, player_id: str, before: int, after: int) -> None:
        if before != after:
            self._changes += 1
            self.reached[player_id] = self._changes

    def _load(self, info: RaceInfo) -> None:
        self.game = info.game
        self.code = info.code
        self.seats = info.seats
        self.hints = info.hints
        self.rated = info.rated
        self.spectators = info.spectators
        self.status = info.status
        self.starts_at = info.starts_at
        self.ends_at = info.ends_at
        self.racers = {r.player_id: Racer.from_info(r) for r in info.racers}
        # Winners this client did not see win, in the order the server's times say.
        by_time = sorted(info.racers, key=lambda r: r.time_ms if r.time_ms is not None else 1 << 62)
        for told in by_time:
            self._note_win(self.racers[told.player_id])
        if info.board is not None:
            self.set_view(info.board.view, info.board.seq)
            self.i_finished = self.i_finished or info.board.finished
        if info.rematch is not None:
            self.take_rematch(info.rematch)

    def set_view(self, view: BoardView, seq: int) -> bool:
        """Show ``view``, the board after move ``seq``, unless the one shown is newer."""
        if self.view is not None and seq < self.seq:
            return False
        self.seq = seq
        self.view = view
        self.game = view.game
        if self.me in self.racers:
            self._counts(self.me, view.score, view.move_count, view.won, finished=view.won)
            self._note_win(self.racers[self.me])
        return True

    def acked(self, ack: MoveAck) -> None:
        before = self.racers[self.me].score if self.me in self.racers else None
        self.set_view(ack.view, ack.seq)
        if before is not None and self.me is not None:
            self._score_changed(self.me, before, self.racers[self.me].score)
        if ack.finished:
            self.i_finished = True

    def gave_up(self) -> None:
        self.i_finished = True
        if self.me in self.racers:
            self.racers[self.me] = replace(self.racers[self.me], finished=True)

    def behind(self, status: str) -> bool:
        """Whether a race said to be at ``status`` is older than the one followed: a
        race's status only moves on (an update sent before the countdown, read after it).

        >>> state = RaceState(race_id="r1", me="p_a", status="countdown")
        >>> state.behind("open"), state.behind("countdown"), state.behind("running")
        (True, False, False)
        """
        return STATUS_STAGES.get(status, 0) < STATUS_STAGES.get(self.status, 0)

    def apply(self, event: ServerMessage) -> bool:
        """Take in an event; ``False`` if it is not about this race, or if it tells of a
        stage the race is known to be past (sent before, read after the race was read).

        >>> from shared.protocol import RaceCountdown
        >>> state = RaceState(race_id="r1", me="p_a", status="running")
        >>> late = RaceCountdown(race_id="r1", starts_at=1, ends_at=2, commitment="c", server_time=0)
        >>> state.apply(late), state.status
        (False, 'running')
        >>> from shared.protocol import RaceStarted
        >>> over = RaceState(race_id="r1", me="p_a", status="finished")
        >>> over.apply(RaceStarted.model_construct(race_id="r1", starts_at=1, ends_at=2)), over.status
        (False, 'finished')
        """
        if isinstance(event, RematchUpdate):
            if event.rematch.race_id != self.race_id:
                return False
            self.take_rematch(event.rematch)
            return True
        if isinstance(event, RaceUpdate):
            if event.race.race_id != self.race_id or self.behind(event.race.status):
                return False
            self.left_out = self.left_out or left_out_of(event.left_out, self.me)
            self.load(event.race)
            return True
        if isinstance(event, Renamed):
            return self._renamed(event.name)
        if getattr(event, "race_id", None) != self.race_id:
            return False
        if isinstance(event, RaceCountdown):
            if self.behind("countdown"):
                return False  # read after the race was found started: old news
            self.status, self.starts_at, self.ends_at = "countdown", event.starts_at, event.ends_at
        elif isinstance(event, RaceStarted):
            if self.behind("running"):
                return False  # read after the race was found over
            self.status, self.starts_at, self.ends_at = "running", event.starts_at, event.ends_at
            # Every racer starts from the same deal (Eagle Wing's has a card home already).
            start = event.view.score
            for player_id, racer in self.racers.items():
                if racer.move_count == 0 and player_id != self.me:
                    self.racers[player_id] = replace(racer, score=start, cards_left=CARDS - start)
            self.set_view(event.view, 0)
        elif isinstance(event, Progress):
            known = self.racers.get(event.player_id, Racer(event.player_id, event.player_id))
            self._score_changed(event.player_id, known.score, event.score)
            self.racers[event.player_id] = replace(
                known,
                score=event.score,
                cards_left=event.cards_left,
                move_count=event.move_count,
                finished=event.finished,
                won=event.won,
            )
            self._note_win(self.racers[event.player_id])
        elif isinstance(event, MoveAck):  # late: its request had timed out
            if event.seq <= self.seq or event.changed_only:
                # changed_only: the client did not know the view to lay it over (it never
                # does, but for a race it could not read); the next ack brings it whole.
                return False
            self.acked(event)
        elif isinstance(event, RaceEnded):
            self.status, self.summary = "finished", event.summary
            for standing in event.summary.standings:
                self._take_standing(standing)
        elif isinstance(event, RaceCancelled):
            self.status, self.cancelled = "cancelled", event.message
        elif isinstance(event, Ghost):
            return self._ghost_moved(event)
        elif isinstance(event, Spectators):
            self.spectators = event.count
        else:
            return False
        return True

    def _take_standing(self, standing: Standing) -> None:
        """A racer's row as the results have it: its final score and moves, and whether it
        won or gave up (this player's own too: a move or give-up on another session of
        theirs is not pushed to this one)."""
        seated = self.racers.get(standing.player_id)
        if seated is None:
            return
        self._score_changed(standing.player_id, seated.score, standing.score)
        finished = standing.won or standing.gave_up
        self._counts(standing.player_id, standing.score, standing.move_count, standing.won, finished)
        if standing.rating is not None:
            self.racers[standing.player_id] = replace(self.racers[standing.player_id], rating=standing.rating)

    def _counts(self, player_id: str, score: int, move_count: int, won: bool, finished: bool) -> None:
        """A seated racer's score (and so cards left), moves and win; ``finished`` only
        ever marks them done."""
        racer = self.racers[player_id]
        self.racers[player_id] = replace(
            racer,
            score=score,
            cards_left=CARDS - score,
            move_count=move_count,
            won=won,
            finished=racer.finished or finished,
        )

    def set_ghosts(self, infos: list[GhostInfo]) -> None:
        """The ghosts now racing (``daily_ghosts``'s reply), keeping any progress already
        heard of (an event can overtake the reply); none once they are off.

        >>> state = RaceState(race_id="r1", me="p_a", ghosts_on=True)
        >>> state.apply(Ghost(race_id="r1", player_id="p_z", elapsed_ms=4000, score=3,
        ...                   cards_left=49, move_count=2, finished=False, won=False))
        True
        >>> state.set_ghosts([GhostInfo(player_id="p_z", name="zoe", rank=1, won=True, time_ms=95012)])
        >>> state.ghosts["p_z"].name, state.ghosts["p_z"].cards_left, state.ghosts["p_z"].move_count
        ('zoe', 49, 2)
        >>> state.game = "eagle-wing"  # one not heard of yet has the deal's cards left
        >>> state.set_ghosts([GhostInfo(player_id="p_y", name="yan", rank=2, won=False, time_ms=None)])
        >>> state.ghosts["p_y"].cards_left, state.ghosts["p_y"].score
        (51, 1)
        >>> state.set_ghosts([GhostInfo(player_id="p_q", name="quin", rank=3, won=False, gave_up=True)])
        >>> state.ghosts["p_q"].gave_up
        True
        >>> state.ghosts_on = False
        >>> state.apply(Ghost(race_id="r1", player_id="p_z", elapsed_ms=5000, score=4,
        ...                   cards_left=48, move_count=3, finished=False, won=False))
        False
        """
        ghosts = {}
        start = dealt_home(self.game) if self.game else 0
        for info in infos[:GHOSTS_SHOWN]:
            known = self.ghosts.get(info.player_id) or GhostRacer(
                info.player_id, info.name, score=start, cards_left=CARDS - start
            )
            ghosts[info.player_id] = replace(known, name=info.name, rank=info.rank, gave_up=info.gave_up)
        self.ghosts = ghosts

    def _ghost_moved(self, event: Ghost) -> bool:
        if not self.ghosts_on:
            return False  # turned off: a late event changes nothing
        known = self.ghosts.get(event.player_id)
        if known is None:
            if len(self.ghosts) >= GHOSTS_SHOWN:
                return False
            known = GhostRacer(event.player_id, "ghost")
        if event.elapsed_ms < known.elapsed_ms:
            return False
        self.ghosts[event.player_id] = replace(
            known,
            elapsed_ms=event.elapsed_ms,
            score=event.score,
            cards_left=event.cards_left,
            move_count=event.move_count,
            finished=event.finished,
            won=event.won,
        )
        return True

    def _renamed(self, name: str) -> bool:
        """This player took a new name on another session (``renamed`` event): their row
        shows it at once while the race is not over, as the server renames their seat
        (a race over keeps the name it was raced under). ``False`` if nothing changed.

        >>> state = RaceState(race_id="r1", me="p_a", status="running")
        >>> state.racers["p_a"] = Racer("p_a", "ada")
        >>> state.apply(Renamed(name="ada lovelace")), state.racers["p_a"].name
        (True, 'ada lovelace')
        >>> state.status = "finished"
        >>> state.apply(Renamed(name="countess")), state.racers["p_a"].name
        (False, 'ada lovelace')
        """
        mine = self.racers.get(self.me or "")
        if mine is None or self.over or mine.name == name:
            return False
        self.racers[mine.player_id] = replace(mine, name=name)
        return True

    def _note_win(self, racer: Racer) -> None:
        if racer.won and racer.player_id not in self.winners:
            self.winners.append(racer.player_id)

    # ----- reading ------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.status in ("finished", "cancelled")

    @property
    def can_undo(self) -> bool:
        """Whether the server said the move ``undo`` would be accepted now (only sessions
        that asked for legal moves at hello are told)."""
        return self.view is not None and bool(self.view.can_undo)

    @property
    def can_race_ghosts(self) -> bool:
        """Whether ghosts may race this attempt: one's own scored daily attempt, running."""
        daily = self.daily
        if daily is None or not daily.scored or daily.practice or daily.date is None:
            return False
        return self.status == "running" and not self.i_finished

    def take_rematch(self, rematch: RematchInfo) -> bool:
        """Keep ``rematch`` (an update or a reply about this race's offer) unless what is
        kept already is newer (:func:`newer_rematch`); whether it was kept."""
        if rematch.race_id != self.race_id or not newer_rematch(rematch, self.rematch):
            return False
        self.rematch = rematch
        return True

    @property
    def my_answer(self) -> str | None:
        """This racer's answer to the rematch offer (``pending`` while it waits for it)."""
        if self.rematch is None:
            return None
        return next((r.answer for r in self.rematch.racers if r.player_id == self.me), None)

    @property
    def rematch_asks_me(self) -> bool:
        """An open rematch offer waits for this racer's answer."""
        return self.rematch is not None and self.rematch.status == "open" and self.my_answer == "pending"

    @property
    def can_offer_rematch(self) -> bool:
        """The race ended and no offer of it is open or started (never a daily)."""
        if self.status != "finished" or self.daily is not None:
            return False
        return self.rematch is None or self.rematch.status in ("declined", "expired", "failed")

    def daily_day_over(self, server_now: float) -> bool:
        """Whether the day of the daily deal on screen is over at ``server_now`` (the
        server's clock, ms), or was when the run ended (the server's own stamp).

        >>> state = RaceState(race_id="r1", me="p_a", daily=DailyRun("treize", "1970-01-01"))
        >>> state.daily_day_over(86_399_999), state.daily_day_over(86_400_000)
        (False, True)
        """
        daily = self.daily
        if daily is None or daily.date is None:
            return False
        ended = self.summary.ended_at if self.summary is not None else 0
        return max(server_now, ended) >= _day_end_ms(daily.date)

    def ranking(self) -> list[tuple[int, Racer]]:
        """The seats as they stand: winners in the order they won, then by score, an
        equal score first for whoever reached it first as this client saw it (as the
        results rank them; :attr:`reached`), and equal results sharing a rank; the final
        standings once the race ended, with each racer's new rating and its change after
        a rated race.

        >>> state = RaceState(race_id="r1", me="p_g", status="running")
        >>> state.racers = {p: Racer(p, n) for p, n in (("p_g", "gina"), ("p_i", "ivy"), ("p_h", "hal"))}
        >>> [(rank, racer.name) for rank, racer in state.ranking()]  # all even at the start
        [(1, 'gina'), (1, 'ivy'), (1, 'hal')]
        >>> state.apply(Progress(race_id="r1", player_id="p_i", score=2, cards_left=50,
        ...                      move_count=1, finished=False, won=False))
        True
        >>> from shared.protocol import MoveSummary
        >>> view = BoardView(game="treize", piles={}, score=2, won=False, move_count=1)
        >>> state.acked(MoveAck(race_id="r1", seq=1, view=view, result=MoveSummary(
        ...     move="p1+p2", steps=[], score_delta=2, score=2, won=False)))
        >>> [(rank, racer.name, racer.score) for rank, racer in state.ranking()]
        [(1, 'ivy', 2), (2, 'gina', 2), (3, 'hal', 0)]
        """
        if self.summary is not None:
            ranked = []
            for standing in self.summary.standings:
                known = self.racers.get(standing.player_id, Racer(standing.player_id, standing.name))
                racer = replace(
                    known,
                    name=standing.name,
                    score=standing.score,
                    move_count=standing.move_count,
                    won=standing.won,
                    cards_left=CARDS - standing.score,
                    finished=True,
                )
                if standing.rating is not None:
                    racer = replace(racer, rating=standing.rating, rating_change=standing.rating_change)
                ranked.append((standing.rank, racer))
            return ranked

        def key(racer: Racer) -> tuple[int, int, int]:
            if racer.won and racer.player_id in self.winners:
                return (0, self.winners.index(racer.player_id), 0)
            return (1, -racer.score, self.reached.get(racer.player_id, 0))

        ordered = sorted(self.racers.values(), key=key)
        ranked = []
        for index, racer in enumerate(ordered):
            if index and key(racer) == key(ordered[index - 1]):
                ranked.append((ranked[-1][0], racer))
            else:
                ranked.append((index + 1, racer))
        return ranked


def newer_rematch(new: RematchInfo, old: RematchInfo | None) -> bool:
    """Whether ``new`` may replace ``old``: a later offer, or the same offer no less
    decided. A reply and an update can arrive in either order, and an offer once decided
    (started, declined, expired, failed) never goes back to open, nor an answer to pending.

    >>> from shared.protocol import RematchRacer
    >>> offer = RematchInfo(race_id="r1", offered_by="p_b", status="open", expires_at=10, racers=[
    ...     RematchRacer(player_id="p_b", name="bob", answer="offered"),
    ...     RematchRacer(player_id="p_a", name="ada", answer="pending")])
    >>> declined = offer.model_copy(update={"status": "declined", "racers": [
    ...     offer.racers[0], offer.racers[1].model_copy(update={"answer": "declined"})]})
    >>> newer_rematch(offer, None), newer_rematch(declined, offer), newer_rematch(offer, declined)
    (True, True, False)
    >>> newer_rematch(offer.model_copy(update={"expires_at": 20}), declined)  # offered again
    True
    """
    if old is None or (new.offered_by, new.expires_at) != (old.offered_by, old.expires_at):
        return old is None or new.expires_at >= old.expires_at

    def progress(rematch: RematchInfo) -> tuple[bool, int]:
        return rematch.status != "open", sum(r.answer != "pending" for r in rematch.racers)

    return progress(new) >= progress(old)


def rematch_note(rematch: RematchInfo, me: str | None, most: int | None = None, rated: bool = False) -> str:
    """One line on where a rematch offer stands, for this racer, each name cut to ``most``
    columns (None: whole), so that a panel that wraps it does so between words. The
    rematch of a ``rated`` race is rated too: an open offer says so.

    >>> from shared.protocol import RematchRacer
    >>> offer = RematchInfo(race_id="r1", offered_by="p_b", status="open", expires_at=0, racers=[
    ...     RematchRacer(player_id="p_b", name="bob", answer="offered"),
    ...     RematchRacer(player_id="p_a", name="ada", answer="pending")])
    >>> rematch_note(offer, "p_a")
    'bob offers a rematch: y accepts, n declines'
    >>> rematch_note(offer, "p_b")
    'rematch offered: waiting for ada'
    >>> rematch_note(offer, "p_a", rated=True), rematch_note(offer, "p_b", rated=True)
    ('bob offers a rated rematch: y accepts, n declines', 'rated rematch offered: waiting for ada')
    >>> rematch_note(offer.model_copy(update={"status": "failed", "reason": "ada races elsewhere"}), "p_b")
    'no rematch: ada races elsewhere'
    >>> declined = offer.racers[1].model_copy(update={"answer": "declined"})
    >>> rematch_note(offer.model_copy(update={"status": "started", "racers": [declined]}), "p_a")
    'the others started a rematch without you'
    >>> rematch_note(offer.model_copy(update={"status": "declined"}), "p_a", most=2)
    "no rematch: nobody accepted b…'s offer"
    """
    names = {r.player_id: r.name if most is None else clipped_name(r.name, most) for r in rematch.racers}
    offerer = "you" if rematch.offered_by == me else names.get(rematch.offered_by, "someone")
    mine = next((r.answer for r in rematch.racers if r.player_id == me), None)
    if rematch.status == "started":
        return "the others started a rematch without you" if mine == "declined" else "rematch starting…"
    if rematch.status == "declined":
        whose = "your" if offerer == "you" else f"{offerer}'s"
        return f"no rematch: nobody accepted {whose} offer"
    if rematch.status == "expired":
        return "no rematch: the offer expired unanswered"
    if rematch.status == "failed":
        return f"no rematch: {rematch.reason or 'it could not start'}"
    waiting = [names[r.player_id] for r in rematch.racers if r.answer == "pending"]
    kind = "rated rematch" if rated else "rematch"
    if mine == "pending":
        return f"{offerer} offers a {kind}: y accepts, n declines"
    if mine == "declined":
        return f"you declined the {kind}"
    who = ", ".join(waiting) or "the others"
    if offerer == "you":
        return f"{kind} offered: waiting for {who}"
    return f"you accepted {offerer}'s {kind}: waiting for {who}"


def _day_end_ms(day: str) -> int:
    """When the UTC day named ``YYYY-MM-DD`` ends, in ms since the epoch."""
    return ((dt.date.fromisoformat(day) - dt.date(1970, 1, 1)).days + 1) * 86_400_000

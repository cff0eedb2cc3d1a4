"""A spectator's picture of a watched race, kept up to date from the watch events.

watched = WatchedRace(await client.watch(race_id))
async for event in client.events():
    if watched.apply(event):
        draw(watched)

:meth:`WatchedRace.describe` tells an event in words, as ``solitaire-arena watch
--plain`` prints it and the watch screen's status line shows it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from client.columns import clipped_name, padded, width
from client.errors import ArenaError
from client.wording import DEAL_AT_START, HELD_NOTE, change_words, standing_words
from shared.protocol import (
    BoardView,
    LiveRace,
    Progress,
    RaceCancelled,
    RaceEnded,
    RacerInfo,
    RacerRenamed,
    RaceStarted,
    RaceSummary,
    Replay,
    ServerMessage,
    SpectatorBoard,
    Spectators,
    Standing,
    WatchHeld,
    Watching,
    WatchMove,
)
from shared.protocol.base import NAME_MAX

if TYPE_CHECKING:
    from client.sdk import ArenaClient

#: Cards in a deal: a racer with a score of ``s`` has ``CARDS - s`` left to play.
CARDS: Final = 52
#: The columns a ranking line keeps to (a terminal's 80).
WIDTH: Final = 80

#: What a featured watch says while no race it may show is on (it waits for the next).
FEATURED_NONE: Final = (
    "featured: no race you may watch is on now (your own races are never featured); "
    "the next to start shows here"
)


class WatchedRace:
    """Every racer's board as the watch shows it, the race, its spectators and, at the
    end, its results. A featured watch's next ``watching`` starts the picture afresh."""

    def __init__(self, watching: Watching) -> None:
        self.race: LiveRace | None = None
        self.boards: dict[str, SpectatorBoard] = {}
        self.summary: RaceSummary | None = None
        self.cancelled = False
        self.featured = False
        self.delay_ms = 0
        self.spectators = 0
        #: The name each renamed racer went by before their latest ``racer_renamed``.
        self.former_names: dict[str, str] = {}
        self.reset(watching)

    def reset(self, watching: Watching) -> None:
        self.race = watching.race
        self.featured = watching.featured
        self.delay_ms = watching.delay_ms
        self.boards = {b.player_id: b for b in watching.boards}
        self.summary = None
        self.cancelled = False
        self.spectators = watching.race.spectators if watching.race else 0

    @property
    def last_move(self) -> dict[str, str]:
        """Each racer's last move shown (player id to move): their board's, from the
        snapshot or the latest ``watch_move``."""
        return {pid: board.last_move for pid, board in self.boards.items() if board.last_move is not None}

    @property
    def deal_hidden(self) -> bool:
        """Whether the race counts down, its deal not shown yet: the boards come with
        ``race_started``."""
        return self.race is not None and any(board.view is None for board in self.boards.values())

    def counts(self, player_id: str) -> tuple[int, int]:
        """A racer's score and moves: their board's, or before the deal is shown, the
        race's (the deal's score: in Eagle Wing one card is home from the start)."""
        board = self.boards.get(player_id)
        if board is not None and board.view is not None:
            return board.view.score, board.view.move_count
        racer = self._racer(player_id)
        return (racer.score, racer.move_count) if racer is not None else (0, 0)

    @property
    def race_id(self) -> str | None:
        return self.race.race_id if self.race else None

    def _racer(self, player_id: str) -> RacerInfo | None:
        racers = self.race.racers if self.race is not None else []
        return next((r for r in racers if r.player_id == player_id), None)

    def name(self, player_id: str) -> str:
        racer = self._racer(player_id)
        return racer.name if racer is not None else player_id

    def is_bot(self, player_id: str) -> bool:
        racer = self._racer(player_id)
        return racer is not None and racer.bot

    def apply(self, event: ServerMessage) -> bool:
        """Take one event in; True when it changed what is shown."""
        if isinstance(event, Watching):
            if event.id is None:  # a featured watch moved on
                self.reset(event)
                return True
            return False
        if getattr(event, "race_id", None) != self.race_id or self.race is None:
            return False
        match event:
            case WatchMove():
                board = self.boards.get(event.player_id)
                if board is not None and event.seq <= board.seq:
                    return False  # already in the snapshot
                won = event.view.won
                self.boards[event.player_id] = SpectatorBoard(
                    player_id=event.player_id,
                    seq=event.seq,
                    view=event.view,
                    last_move=event.move,
                    finished=won,
                    won=won,
                    held=board is not None and board.held,
                )
                return True
            case WatchHeld():
                board = self.boards.get(event.player_id)
                if board is None or board.held == event.held:
                    return False
                self.boards[event.player_id] = board.model_copy(update={"held": event.held})
                return True
            case Progress(finished=True, won=False):
                board = self.boards.get(event.player_id)
                if board is not None:
                    self.boards[event.player_id] = board.model_copy(update={"finished": True})
                return True
            case RaceStarted():
                self.race = self.race.model_copy(
                    update={"status": "running", "starts_at": event.starts_at, "ends_at": event.ends_at}
                )
                # The deal, shown from now on (the countdown's boards have none; an older
                # server's may show a deal that shares revealed in the countdown changed).
                opening = event.view.model_copy(update={"legal_moves": None, "can_undo": None})
                for player_id, board in self.boards.items():
                    if board.seq == 0:
                        self.boards[player_id] = board.model_copy(update={"view": opening})
                return True
            case RaceEnded():
                self.summary = event.summary
                self.race = self.race.model_copy(update={"status": "finished", "racers": self._rerated()})
                return True
            case RaceCancelled():
                self.cancelled = True
                return True
            case Spectators():
                self.spectators = event.count
                return True
            case RacerRenamed():
                return self._renamed(event)
        return False

    def ended_away(self, summary: RaceSummary, finals: list[Replay]) -> None:
        """The race ended while the spectator was away (a dropped connection came back to
        find it over): its results, and each racer's last board from ``finals`` (a page of
        their replay ending with it; a racer without one keeps the board last seen)."""
        if not self.apply(RaceEnded(race_id=summary.race_id, summary=summary)):
            return
        standings = {s.player_id: s for s in summary.standings}
        for replay in finals:
            standing = standings.get(replay.player_id)
            if not replay.views or standing is None:
                continue
            view = replay.views[-1]
            self.boards[replay.player_id] = SpectatorBoard(
                player_id=replay.player_id,
                seq=replay.offset + len(replay.views) - 1,
                view=view,
                last_move=replay.moves[-1] or None,
                finished=view.won or standing.gave_up,
                won=view.won,
            )

    def _rerated(self) -> list[RacerInfo]:
        """The racers with the new ratings the results give them (after a rated race)."""
        assert self.race is not None and self.summary is not None
        new = {s.player_id: s for s in self.summary.standings if s.rating is not None}
        racers = []
        for racer in self.race.racers:
            if (standing := new.get(racer.player_id)) is not None:
                racer = racer.model_copy(
                    update={"rating": standing.rating, "provisional": standing.provisional}
                )
            racers.append(racer)
        return racers

    def _renamed(self, event: RacerRenamed) -> bool:
        """A racer's new name, and the rating of a guest who registered (an account's)."""
        assert self.race is not None
        racer = self._racer(event.player_id)
        rated = event.rating is not None and racer is not None and racer.rating is None
        if racer is None or (racer.name == event.name and not rated):
            return False
        self.former_names[event.player_id] = racer.name
        update: dict[str, object] = {"name": event.name}
        if rated:
            update.update(rating=event.rating, provisional=event.provisional)
        racers = [r.model_copy(update=update) if r is racer else r for r in self.race.racers]
        self.race = self.race.model_copy(update={"racers": racers})
        return True

    def _boards_so_far(self) -> list[str]:
        """A line per racer who has moved, gave up or whose board is held back: where the
        snapshot found their board (and that its racer gave up, which the watch would
        otherwise never say: that event came before it)."""
        lines = []
        for player_id, board in self.boards.items():
            racer = self._racer(player_id)
            gave_up = (board.finished or (racer is not None and racer.finished)) and not board.won
            if board.view is None or (board.seq == 0 and not board.held and not gave_up):
                continue
            where = _board_words(board.view, board.last_move) if board.seq else "no move shown yet"
            held = f"; {HELD_NOTE}" if board.held else ""
            ended = "gave up, " if gave_up else ""
            lines.append(f"{self.name(player_id)}: {ended}{where}{held}")
        return lines

    def rating(self, player_id: str) -> str:
        """A racer's rating as shown beside their name (``1612``, ``1500?`` while
        provisional), or nothing for a guest."""
        racer = self._racer(player_id)
        if racer is None or racer.rating is None:
            return ""
        return f"{racer.rating}{'?' if racer.provisional else ''}"

    def describe(self, event: ServerMessage) -> list[str]:
        """An event :meth:`apply` took in, in words: a line (the results under the end's);
        none for an event not worth one.

        >>> from shared.protocol import BoardView, RacerInfo
        >>> race = LiveRace(race_id="r1", game="treize", status="running", rated=False,
        ...                 racers=[RacerInfo(player_id="p_a", name="ada", rating=1612)])
        >>> watched = WatchedRace(Watching(id=1, race=race))
        >>> watched.describe(Watching(id=1, race=race))
        ['watching race r1: treize, casual, running; ada 1612; 0 spectators']
        >>> bot = RacerInfo(player_id="p_b", name="bot-search-1", bot=True, rating=1500, provisional=True)
        >>> with_bot = race.model_copy(update={"racers": [*race.racers, bot]})
        >>> WatchedRace(Watching(id=1, race=with_bot)).describe(Watching(id=1, race=with_bot))[0]
        'watching race r1: treize, casual, running; ada 1612, bot-search-1 [bot] 1500?; 0 spectators'
        >>> view = BoardView(game="treize", piles={}, score=9, won=False, move_count=5)
        >>> board = SpectatorBoard(player_id="p_a", seq=5, view=view, last_move="p28")
        >>> WatchedRace(Watching(id=1, race=race, boards=[board])).describe(Watching(id=1, race=race))[1:]
        ['ada: last p28 (5 moves, score 9, 43 left)']
        >>> watched.describe(WatchMove(race_id="r1", player_id="p_a", seq=5, move="p28", at=0, view=view))
        ['ada: p28 (score 9, 43 left)']
        >>> counting = race.model_copy(update={"status": "countdown"})
        >>> dealt_later = Watching(id=1, race=counting, boards=[SpectatorBoard(player_id="p_a", seq=0)])
        >>> WatchedRace(dealt_later).describe(dealt_later)[1:]
        ['the deal is shown when the race starts']
        >>> held = WatchHeld(race_id="r1", player_id="p_a", held=True)
        >>> watched.describe(held)
        ["ada's board is paused for spectators: it shows cards another racer has not turned up yet"]
        >>> watched.describe(held.model_copy(update={"held": False}))
        ["ada's board is no longer paused for spectators"]
        >>> paused = WatchedRace(Watching(id=1, race=race, boards=[board.model_copy(update={"held": True})]))
        >>> print(paused.describe(Watching(id=1, race=race))[1])
        ada: last p28 (5 moves, score 9, 43 left); paused for spectators: it shows cards another...
        """
        race = self.race
        match event:
            case Watching():
                if race is None:
                    return [FEATURED_NONE]
                racers = ", ".join(
                    f"{r.name}{' [bot]' if r.bot else ''} {self.rating(r.player_id)}".rstrip()
                    for r in race.racers
                )
                kind = "rated" if race.rated else "casual"
                first = "featured race" if self.featured else "watching race"
                line = f"{first} {race.race_id}: {race.game}, {kind}, {race.status}; {racers}"
                line += f"; {self.spectators} spectator{'' if self.spectators == 1 else 's'}"
                if self.delay_ms > 0:
                    line += f"; delayed {self.delay_ms / 1000:g} s"
                if self.deal_hidden:
                    return [line, DEAL_AT_START]
                return [line, *self._boards_so_far()]
            case WatchMove():
                score = event.view.score
                line = f"{self.name(event.player_id)}: {event.move} (score {score}, {CARDS - score} left)"
                return [line + (" and won!" if event.view.won else "")]
            case WatchHeld():
                board = f"{self.name(event.player_id)}'s board is"
                return [f"{board} {HELD_NOTE}" if event.held else f"{board} no longer paused for spectators"]
            case Progress():
                who = self.name(event.player_id)
                return [f"{who} gave up (score {event.score}, {event.cards_left} left)"]
            case RaceStarted():
                return ["the race started"]
            case RaceEnded():
                return [f"race {event.race_id} over", *ranking_lines(event.summary)]
            case RaceCancelled():
                return [f"race {event.race_id} cancelled: {event.message}"]
            case Spectators():
                return [f"{event.count} spectator{'' if event.count == 1 else 's'} watching"]
            case RacerRenamed():
                former = self.former_names.get(event.player_id, event.player_id)
                line = (
                    f"{former} is now {event.name}" if former != event.name else f"{former} is now an account"
                )
                rating = self.rating(event.player_id) if event.rating is not None else ""
                return [f"{line} ({rating})" if rating else line]
        return []


async def ended_unseen(client: ArenaClient, watched: WatchedRace, watching: Watching) -> RaceSummary | None:
    """A featured watch that watched again after its connection came back (``watching``,
    the reply): the results of the race it followed when it moved on from that race
    without having seen its end (it ended while the connection was down). None otherwise,
    or when they cannot be read (the race goes on, no longer featured)."""
    race = watched.race
    if not watched.featured or race is None or watched.summary is not None or watched.cancelled:
        return None
    if watching.race is not None and watching.race.race_id == race.race_id:
        return None
    try:
        return await client.results(race.race_id)
    except (ArenaError, ConnectionError, TimeoutError):
        return None


def _board_words(view: BoardView, last_move: str | None) -> str:
    """Where a board stands: its last move, moves, score and cards left."""
    done = f"last {last_move}" if last_move is not None else "moved"
    count = view.move_count  # not seq: an undo is a message, not a move
    moves = f"{count} move{'' if count == 1 else 's'}"
    return f"{done} ({moves}, score {view.score}, {CARDS - view.score} left)"


def ranking_lines(summary: RaceSummary) -> list[str]:
    """The results, a line per racer, best first.

    >>> from shared.protocol import Standing
    >>> summary = RaceSummary(race_id="r1", game="treize", started_at=0, ended_at=1,
    ...     commitment="c", standings=[
    ...     Standing(rank=1, player_id="p_a", name="ada", won=True, score=52, move_count=80,
    ...              time_ms=95012, rating=1662, rating_change=12, provisional=True),
    ...     Standing(rank=2, player_id="p_b", name="bob", won=False, score=1, move_count=3),
    ...     Standing(rank=3, player_id="p_c", name="cyd", won=False, score=0, move_count=0,
    ...              gave_up=True)])
    >>> print("\\n".join(ranking_lines(summary)))
      1. ada  won in 95.0 s, 80 moves, rating 1662? +12
      2. bob  1 card removed, 3 moves
      3. cyd  gave up with 0 cards removed, 0 moves

    A line that would pass 80 columns has its rating on the next:

    >>> long = summary.standings[2].model_copy(update={"name": "x" * 24, "score": 51, "move_count": 400,
    ...                                                "rating": 1488, "rating_change": -12})
    >>> print("\\n".join(ranking_lines(summary.model_copy(update={"standings": [long]}))))
      3. xxxxxxxxxxxxxxxxxxxxxxxx  gave up with 51 cards removed, 400 moves,
         rating 1488 -12

    Names are counted in terminal columns (two a letter in Chinese), cut past 24:

    >>> wide = [summary.standings[0].model_copy(update={"name": "李小龍"}),
    ...         summary.standings[1].model_copy(update={"name": "李小龍" * 8})]
    >>> print("\\n".join(ranking_lines(summary.model_copy(update={"standings": wide}))))
      1. 李小龍                   won in 95.0 s, 80 moves, rating 1662? +12
      2. 李小龍李小龍李小龍李小…  1 card removed, 3 moves
    """
    names = [clipped_name(s.name, NAME_MAX) for s in summary.standings]
    columns = max(map(width, names), default=0)
    lines = []
    for standing, name in zip(summary.standings, names, strict=True):
        result = standing_words(summary.game, standing)
        moves = f"{standing.move_count} move{'' if standing.move_count == 1 else 's'}"
        line = f"{standing.rank:>3}. {padded(name, columns)}  {result}, {moves}"
        if standing.rating is not None and standing.rating_change is not None:
            rating = f"rating {standing_rating(standing)} {change_words(standing.rating_change)}"
            if width(line) + len(", ") + len(rating) <= WIDTH:
                line += f", {rating}"
            else:
                lines.append(f"{line},")
                line = f"{'':5}{rating}"
        lines.append(line)
    return lines


def standing_rating(standing: Standing) -> str:
    """A racer's rating after a rated race as the results show it: ``1662``, or ``1662?``
    while still provisional."""
    return f"{standing.rating}{'?' if standing.provisional else ''}"

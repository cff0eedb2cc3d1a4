"""A spectator's picture of a watched race, kept up to date from the watch events.

watched = WatchedRace(await client.watch(race_id))
async for event in client.events():
    if watched.apply(event):
        draw(watched)
"""

from __future__ import annotations

from shared.protocol import (
    LiveRace,
    Progress,
    RaceCancelled,
    RaceEnded,
    RaceStarted,
    RaceSummary,
    ServerMessage,
    SpectatorBoard,
    Spectators,
    Watching,
    WatchMove,
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
        self.last_move: dict[str, str] = {}
        self.reset(watching)

    def reset(self, watching: Watching) -> None:
        self.race = watching.race
        self.featured = watching.featured
        self.delay_ms = watching.delay_ms
        self.boards = {b.player_id: b for b in watching.boards}
        self.summary = None
        self.cancelled = False
        self.spectators = watching.race.spectators if watching.race else 0
        self.last_move = {}

    @property
    def race_id(self) -> str | None:
        return self.race.race_id if self.race else None

    def name(self, player_id: str) -> str:
        if self.race is not None:
            for racer in self.race.racers:
                if racer.player_id == player_id:
                    return racer.name
        return player_id

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
                    player_id=event.player_id, seq=event.seq, view=event.view, finished=won, won=won
                )
                self.last_move[event.player_id] = event.move
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
                return True
            case RaceEnded():
                self.summary = event.summary
                self.race = self.race.model_copy(update={"status": "finished"})
                return True
            case RaceCancelled():
                self.cancelled = True
                return True
            case Spectators():
                self.spectators = event.count
                return True
        return False

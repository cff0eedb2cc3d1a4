"""What a spectator client shows: the boards of a watched race as its events come in."""

from __future__ import annotations

from client.watching import WatchedRace
from client.wording import HELD_NOTE
from shared import new_game
from shared.protocol import BoardView, LiveRace, RacerInfo, RaceStarted, SpectatorBoard, WatchHeld, Watching


def opening(seed: int) -> BoardView:
    return BoardView.model_validate(new_game("treize", seed).view())


COUNTING = LiveRace(
    race_id="r1",
    game="treize",
    status="countdown",
    rated=False,
    racers=[RacerInfo(player_id=p, name=p) for p in ("a", "b")],
)


def test_the_start_shows_the_deal_played_on_boards_without_a_move() -> None:
    """Seed shares revealed during the countdown change the deal at the start: boards an
    older server showed during the countdown give way to race_started's."""
    boards = [SpectatorBoard(player_id=p, seq=0, view=opening(5)) for p in ("a", "b")]
    watched = WatchedRace(Watching(race=COUNTING, boards=boards))
    played = opening(6).model_copy(update={"legal_moves": ["p1+p2"], "can_undo": False})
    assert watched.apply(RaceStarted(race_id="r1", starts_at=2_000, ends_at=9_000, view=played))
    assert [b.view for b in watched.boards.values()] == [opening(6), opening(6)]


def test_a_countdown_snapshot_without_boards_shows_the_racers_then_the_deal_from_the_start() -> None:
    snapshot = Watching.model_validate(
        {"race": COUNTING.model_dump(), "boards": [{"player_id": p, "seq": 0} for p in ("a", "b")]}
    )
    watched = WatchedRace(snapshot)
    assert watched.deal_hidden and watched.counts("a") == (0, 0)
    assert watched.describe(snapshot) == [
        "watching race r1: treize, casual, countdown; a, b; 0 spectators",
        "the deal is shown when the race starts",
    ]
    played = opening(6).model_copy(update={"legal_moves": ["p1+p2"], "can_undo": False})
    assert watched.apply(RaceStarted(race_id="r1", starts_at=2_000, ends_at=9_000, view=played))
    assert not watched.deal_hidden
    assert [b.view for b in watched.boards.values()] == [opening(6), opening(6)]


def test_a_board_held_for_spectators_is_said_so_from_the_snapshot_until_it_goes_on() -> None:
    running = COUNTING.model_copy(update={"status": "running"})
    boards = [SpectatorBoard(player_id="a", seq=0, view=opening(5), held=True)]
    snapshot = Watching(race=running, boards=[*boards, SpectatorBoard(player_id="b", seq=0, view=opening(5))])
    watched = WatchedRace(snapshot)
    assert watched.describe(snapshot)[1:] == [f"a: no move shown yet; {HELD_NOTE}"]
    held = WatchHeld(race_id="r1", player_id="a", held=True)
    assert not watched.apply(held)  # the snapshot said so already
    let_go = held.model_copy(update={"held": False})
    assert watched.apply(let_go) and not watched.boards["a"].held
    assert watched.describe(let_go) == ["a's board is no longer paused for spectators"]
    assert not watched.apply(let_go) and watched.apply(held) and watched.boards["a"].held
    assert watched.describe(held) == [f"a's board is {HELD_NOTE}"]

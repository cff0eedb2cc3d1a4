"""Results: winners by time to win, then score, then who reached that score first."""

from __future__ import annotations

from server.ranking import commitment, standings
from server.store import BoardRecord, Seat


def board(player: str, score: int, score_at: int, won: bool = False, at: int = 0) -> BoardRecord:
    return BoardRecord(player, {}, 1, 10, score, won, won, score_at, at)


def seats(*players: str) -> list[Seat]:
    return [Seat(p, p.upper(), True, 0) for p in players]


def test_the_faster_winner_ranks_above_the_slower_winner_and_everyone_else() -> None:
    lines = standings(
        seats("a", "b", "c"),
        [board("a", 40, 500), board("b", 52, 900, True, 900), board("c", 52, 700, True, 700)],
        started_at=100,
    )
    assert [line.player_id for line in lines] == ["c", "b", "a"]
    assert lines[0].time_ms == 600 and lines[2].time_ms is None


def test_equal_scores_go_to_who_reached_the_score_first() -> None:
    lines = standings(
        seats("a", "b", "c"), [board("a", 10, 300), board("b", 10, 200), board("c", 12, 900)], 0
    )
    assert [line.player_id for line in lines] == ["c", "b", "a"]
    assert [line.rank for line in lines] == [1, 2, 3]


def test_the_commitment_is_the_sha256_of_game_seed_and_salt() -> None:
    import hashlib

    expected = hashlib.sha256(b"solitaire-arena:treize:42:ab").hexdigest()
    assert commitment("treize", 42, "ab") == expected

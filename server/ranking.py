"""Race results: who won, in what order, and the seed commitment that makes them checkable."""

from __future__ import annotations

import hashlib

from server.store import BoardRecord, Seat
from shared.protocol import Standing


def commitment(game: str, seed: int, salt: str) -> str:
    """SHA-256 hex of ``solitaire-arena:<game>:<seed>:<salt>``, announced at the start."""
    return hashlib.sha256(f"solitaire-arena:{game}:{seed}:{salt}".encode()).hexdigest()


def standings(seats: list[Seat], boards: list[BoardRecord], started_at: int) -> list[Standing]:
    """Winners first by time to win; then by score; then by who reached that score first."""
    names = {s.player_id: s.name for s in seats}

    def order(board: BoardRecord) -> tuple[int, int, int, int, str]:
        if board.won:
            return (0, board.finished_at - started_at, 0, 0, board.player_id)
        return (1, 0, -board.score, board.score_at, board.player_id)

    lines = []
    for rank, board in enumerate(sorted(boards, key=order), start=1):
        lines.append(
            Standing(
                rank=rank,
                player_id=board.player_id,
                name=names.get(board.player_id, "?"),
                won=board.won,
                score=board.score,
                move_count=board.move_count,
                time_ms=board.finished_at - started_at if board.won else None,
                score_reached_ms=max(0, board.score_at - started_at),
            )
        )
    return lines

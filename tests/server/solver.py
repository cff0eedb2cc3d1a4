"""A small bounded depth-first solver, used to find a winning line for the race tests."""

from __future__ import annotations

from shared import Game, IllegalMove, new_game


def _priority(move: str) -> int:
    if ">f" in move or "+" in move or move.startswith("p"):
        return 0
    if ">t" in move:
        return 1
    if move == "deal":
        return 2
    return 3


def _useless(move: str) -> bool:
    # Reserve cell to reserve cell changes nothing that matters.
    return move.startswith("r") and ">r" in move


def _key(game: Game) -> str:
    return repr(sorted((k, tuple(v)) for k, v in game.position()["piles"].items()))


def solve(game_name: str, seed: int, max_nodes: int = 4000) -> list[str] | None:
    """A move list that wins the deal, or None if none was found within ``max_nodes``."""
    seen: set[str] = set()
    line: list[str] = []
    budget = [max_nodes]

    def search(game: Game) -> bool:
        if game.is_won:
            return True
        budget[0] -= 1
        if budget[0] <= 0:
            return False
        key = _key(game)
        if key in seen:
            return False
        seen.add(key)
        moves = sorted((m for m in game.legal_moves() if not _useless(m)), key=_priority)
        for move in moves:
            child = game.copy()
            try:
                child.play(move)
            except IllegalMove:
                continue
            line.append(move)
            if search(child):
                return True
            line.pop()
        return False

    return list(line) if search(new_game(game_name, seed)) else None


def find_winnable(game_name: str, seeds: range, max_nodes: int = 4000) -> tuple[int, list[str]]:
    """The first seed in ``seeds`` with a line found by :func:`solve`."""
    for seed in seeds:
        found = solve(game_name, seed, max_nodes)
        if found is not None:
            return seed, found
    raise LookupError(f"no winnable {game_name} deal found in {seeds}")

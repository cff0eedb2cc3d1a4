"""The node's cache of racers' boards: a race's boards go when it ends, the least recently
used go past the size, and the index by race never keeps a race whose boards are gone."""

from __future__ import annotations

from server.features.board_cache import BoardCache, CachedBoard
from shared import new_game


def board(seq: int = 0) -> CachedBoard:
    return CachedBoard(new_game("eight-off", 1), seq, False)


def test_an_ended_race_loses_all_its_boards_and_no_other() -> None:
    cache = BoardCache(10)
    for race in ("r1", "r2"):
        for player in ("a", "b"):
            cache.put(race, player, board())
    cache.drop_race("r1")
    assert cache.get("r1", "a") is None and cache.get("r1", "b") is None
    assert cache.get("r2", "a") is not None and cache.get("r2", "b") is not None
    assert len(cache) == 2 and cache.races() == 1


def test_past_its_size_the_cache_drops_the_oldest_board_and_its_race_once_empty() -> None:
    cache = BoardCache(3)
    cache.put("r1", "a", board())
    cache.put("r2", "a", board())
    cache.put("r2", "b", board())
    cache.put("r3", "a", board())
    assert cache.get("r1", "a") is None
    assert len(cache) == 3
    assert cache.races() == 2  # r1 had no board left: not kept in the index
    cache.drop_race("r1")  # nothing left of it: no error
    assert len(cache) == 3


def test_past_its_size_the_cache_keeps_a_board_in_play_and_drops_the_least_recently_used() -> None:
    """r1's racer, loaded first, keeps moving (each move reads the board): the board
    dropped for a new one is r2's, untouched since it was loaded."""
    cache = BoardCache(2)
    cache.put("r1", "a", board())
    cache.put("r2", "a", board())
    assert cache.get("r1", "a") is not None
    cache.put("r3", "a", board())
    assert cache.get("r2", "a") is None
    assert cache.get("r1", "a") is not None and cache.get("r3", "a") is not None


def test_a_board_loaded_again_counts_as_just_used() -> None:
    cache = BoardCache(2)
    cache.put("r1", "a", board(seq=1))
    cache.put("r2", "a", board())
    cache.put("r1", "a", board(seq=2))  # reloaded (it disagreed with the store)
    cache.put("r3", "a", board())
    assert cache.get("r2", "a") is None
    reloaded = cache.get("r1", "a")
    assert reloaded is not None and reloaded.seq == 2


def test_one_board_dropped_leaves_the_race_other_board() -> None:
    cache = BoardCache(10)
    cache.put("r1", "a", board())
    cache.put("r1", "b", board())
    cache.drop("r1", "a")
    cache.drop("r1", "a")  # twice: nothing more to drop
    assert cache.get("r1", "a") is None and cache.get("r1", "b") is not None
    cache.drop("r1", "b")
    assert cache.races() == 0 and len(cache) == 0


def test_a_board_loaded_again_replaces_the_one_before() -> None:
    cache = BoardCache(10)
    cache.put("r1", "a", board(seq=3))
    again = board(seq=5)
    cache.put("r1", "a", again)
    assert cache.get("r1", "a") is again
    assert len(cache) == 1
    cache.drop_race("r1")
    assert len(cache) == 0 and cache.races() == 0


def test_many_races_through_a_small_cache_leave_an_index_no_bigger_than_the_cache() -> None:
    cache = BoardCache(50)
    for number in range(1_000):
        cache.put(f"r{number}", "a", board())
        cache.put(f"r{number}", "b", board())
        if number % 3 == 0:
            cache.drop_race(f"r{number}")
    assert len(cache) <= 50
    assert cache.races() <= 25

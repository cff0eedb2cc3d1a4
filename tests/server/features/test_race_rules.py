"""The race's pure rules: standings (ties share a rank), the clock's decisions, commitments."""

from __future__ import annotations

import hashlib
from dataclasses import replace

from server.features.race_rules import (
    START_GRACE_MS,
    ClockAction,
    clock_action,
    race_window,
    standings,
    window_from_go,
)
from server.store import BoardRecord, RaceMeta, RaceStatus, Seat
from shared.fairness import commitment
from shared.protocol import Standing


def board(player: str, score: int, score_at: int, won: bool = False, at: int = 0) -> BoardRecord:
    return BoardRecord(player, {}, 1, 10, score, won, won, score_at, at)


def seats(*players: str) -> list[Seat]:
    return [Seat(p, p.upper(), True, 0) for p in players]


def meta(status: RaceStatus, ends_at: int | None = 10_000) -> RaceMeta:
    return RaceMeta(
        "r1", "ABCDEF", "treize", 2, 10.0, status, "p1", 1, "s", "c", 0, 0 if ends_at else None, ends_at, None
    )


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


def test_equal_results_share_a_rank_and_the_next_rank_skips() -> None:
    lines = standings(
        seats("a", "b", "c", "d"),
        [board("a", 10, 300), board("b", 10, 300), board("c", 12, 900), board("d", 3, 100)],
        0,
    )
    assert [(line.player_id, line.rank) for line in lines] == [("c", 1), ("a", 2), ("b", 2), ("d", 4)]


def test_winners_with_the_same_time_share_first_place() -> None:
    lines = standings(seats("a", "b"), [board("a", 52, 800, True, 800), board("b", 52, 800, True, 800)], 0)
    assert [line.rank for line in lines] == [1, 1]


def test_only_a_racer_who_finished_without_winning_gave_up_and_old_results_say_nobody_did() -> None:
    gave_up = BoardRecord("b", {}, 1, 10, 12, False, True, 200, 300)
    lines = standings(seats("a", "b", "c"), [board("a", 52, 800, True, 800), gave_up, board("c", 3, 100)], 0)
    assert [(line.player_id, line.gave_up) for line in lines] == [("a", False), ("b", True), ("c", False)]
    # A summary stored before the field existed reads as nobody having given up.
    stored = lines[1].model_dump(mode="json")
    del stored["gave_up"]
    assert Standing.model_validate(stored).gave_up is False


def test_the_commitment_is_the_sha256_of_game_seed_and_salt() -> None:
    expected = hashlib.sha256(b"solitaire-arena:treize:42:ab").hexdigest()
    assert commitment("treize", 42, "ab") == expected


def test_the_race_window_starts_after_the_countdown_and_lasts_the_time_limit() -> None:
    assert race_window(1_000, 0.5, 2.0) == (1_500, 3_500)


def test_the_clock_starts_a_race_in_countdown_and_ends_one_past_its_limit() -> None:
    assert clock_action(meta(RaceStatus.COUNTDOWN), 0) is ClockAction.GO
    assert clock_action(meta(RaceStatus.RUNNING), 10_000) is ClockAction.END
    assert clock_action(meta(RaceStatus.ENDING), 0) is ClockAction.END


def test_the_clock_reschedules_a_running_race_whose_limit_is_still_ahead() -> None:
    assert clock_action(meta(RaceStatus.RUNNING), 9_999) is ClockAction.RESCHEDULE


def test_the_clock_ends_a_running_race_whose_racers_are_all_done_before_its_limit() -> None:
    done = replace(meta(RaceStatus.RUNNING), racer_count=2, finished_count=2)
    assert clock_action(done, 5_000) is ClockAction.END
    assert clock_action(replace(done, finished_count=1), 5_000) is ClockAction.RESCHEDULE


def test_the_clock_forgets_races_that_are_open_over_or_gone() -> None:
    for status in (RaceStatus.OPEN, RaceStatus.FINISHED, RaceStatus.CANCELLED):
        assert clock_action(meta(status), 0) is ClockAction.DROP
    assert clock_action(None, 0) is ClockAction.DROP


def test_the_clock_leaves_an_open_race_its_fresh_deadline_while_a_start_is_under_way() -> None:
    # The deadline is written just before the start: a clock looking in between waits.
    assert clock_action(meta(RaceStatus.OPEN), 5_000, due_at=4_990) is ClockAction.WAIT
    assert clock_action(meta(RaceStatus.OPEN), 5_000 + START_GRACE_MS, due_at=5_000) is ClockAction.DROP


def _countdown_meta(starts_at: int, ends_at: int, time_limit: float) -> RaceMeta:
    return RaceMeta(
        "r", "c", "treize", 2, time_limit, RaceStatus.COUNTDOWN, "p", 1, "s", "h", 0,
        starts_at=starts_at, ends_at=ends_at, ended_at=None,
    )  # fmt: skip


def test_a_race_started_late_keeps_its_whole_time_limit() -> None:
    meta = _countdown_meta(10_000, 70_000, 60.0)
    assert window_from_go(meta, 10_000) == (10_000, 70_000)
    assert window_from_go(meta, 69_999) == (69_999, 129_999)


def test_a_race_whose_announced_window_passed_before_its_start_is_void() -> None:
    meta = _countdown_meta(10_000, 70_000, 60.0)
    assert window_from_go(meta, 70_000) is None
    assert window_from_go(meta, 10**12) is None

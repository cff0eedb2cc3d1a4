"""Race records (docs/record.md): the text round-trips, and verification catches every lie.

Records here are built from real games: each racer's moves are played with the engine,
and the results are what those games say, ranked by ``shared.ranking``.
"""

from __future__ import annotations

import contextlib
import random
import re
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from shared import GAMES, IllegalMove, UndoRule, new_game
from shared.fairness import commitment, mixed_seed, share_commitment
from shared.games import GameName
from shared.ranking import rank_results, result_key
from shared.record import (
    LINE_WIDTH,
    MAX_RECORD_CHARS,
    RaceRecord,
    RecordMove,
    RecordRacer,
    RecordRejected,
    RecordResult,
    RecordShare,
    RecordSyntaxError,
    read_record,
    verify_record,
    write_record,
)
from shared.solver import solve_deal

DOCS = Path(__file__).resolve().parents[2] / "docs" / "record.md"
FUZZ = settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
PLAYOUT = settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
STARTED_AT = 1_717_243_200_000
TIME_LIMIT = 300_000
SHARES = {"p_ada": "0123456789abcdef0123456789abcdef", "p_bob": "fedcba9876543210"}


# ----- building records from real games ------------------------------------------------


def timed(moves: list[str], first_at: int = 1_000, step: int = 700) -> tuple[RecordMove, ...]:
    return tuple(RecordMove(i + 1, move, first_at + i * step) for i, move in enumerate(moves))


def result_of(game_id: GameName, seed: int, player: str, moves: tuple[RecordMove, ...]) -> RecordResult:
    """The result the engine gives for ``moves`` (rank 0: filled in by :func:`build`)."""
    game = new_game(game_id, seed, undo_rule=UndoRule.KEEP_REVEALS)
    reached, won_at = 0, None
    for move in moves:
        before = game.score
        game.play(move.move)
        if game.score != before:
            reached = move.at_ms
        if game.is_won:
            won_at = move.at_ms
    return RecordResult(0, player, game.is_won, game.score, game.move_count, won_at, reached)


def build(
    game_id: GameName,
    lines: dict[str, tuple[RecordMove, ...]],
    shares: dict[str, str] | None = None,
    server_seed: int = 4_242,
    salt: str = "c0ffee",
    seed: int | None = None,
) -> RaceRecord:
    """A consistent record of racers playing ``lines`` (player id -> moves)."""
    shares = shares or {}
    seed = mixed_seed(game_id, server_seed, shares) if seed is None else seed
    results = {player: result_of(game_id, seed, player, moves) for player, moves in lines.items()}
    order = rank_results(
        (p, result_key(r.won, r.time_ms, r.score, r.score_reached_ms)) for p, r in results.items()
    )
    return RaceRecord(
        game=game_id,
        deal_version=1,
        race_id="r_7f3a",
        started_at=STARTED_AT,
        ended_at=STARTED_AT + 200_000,
        time_limit_ms=TIME_LIMIT,
        rated=False,
        daily=None,
        server_seed=server_seed,
        salt=salt,
        commitment=commitment(game_id, server_seed, salt),
        shares=tuple(RecordShare(p, share_commitment(s), s) for p, s in sorted(shares.items())),
        seed=seed,
        racers=tuple(RecordRacer(p, p.removeprefix("p_").title()) for p in lines),
        results=tuple(replace(results[player], rank=rank) for rank, player in order),
        moves=tuple(lines.items()),
    )


def random_line(game_id: str, seed: int, rng: random.Random, most: int) -> list[str]:
    """Random legal moves as a racer would play them, with an undo now and then."""
    game = new_game(game_id, seed, undo_rule=UndoRule.KEEP_REVEALS)
    played: list[str] = []
    for _ in range(most):
        if game.is_won:
            break
        if game.can_undo() and rng.random() < 0.15:
            move = "undo"
        else:
            legal = game.legal_moves()
            if not legal:
                break
            move = rng.choice(legal)
        game.play(move)
        played.append(move)
    return played


def winning_line(game_id: str, seed: int) -> list[str]:
    found = solve_deal(game_id, seed)
    assert found.line is not None, "pick a server seed whose deal the solver wins"
    return found.line


def first_undoable(game_id: str, seed: int) -> list[str]:
    """The first moves of the deal up to one that can be taken back in a race, then ``undo``."""
    game, played = new_game(game_id, seed, undo_rule=UndoRule.KEEP_REVEALS), []
    for _ in range(50):
        for move in game.legal_moves():
            probe = game.copy()
            probe.play(move)
            if probe.can_undo():
                return [*played, move, "undo"]
        played.append(game.legal_moves()[0])
        game.play(played[-1])
    raise AssertionError("no undoable move early in this deal")


def race(game_id: GameName, with_shares: bool) -> RaceRecord:
    """Ada wins; Bob plays a move, takes it back and plays on; Cy never moves."""
    shares = SHARES if with_shares else {}
    server_seed = next(s for s in range(1, 50) if solve_deal(game_id, mixed_seed(game_id, s, shares)).line)
    seed = mixed_seed(game_id, server_seed, shares)
    bob = first_undoable(game_id, seed)
    game = new_game(game_id, seed, undo_rule=UndoRule.KEEP_REVEALS)
    for move in bob:
        game.play(move)
    rng = random.Random(5)
    for _ in range(6):
        bob.append(rng.choice(game.legal_moves()))
        game.play(bob[-1])
    lines = {
        "p_ada": timed(winning_line(game_id, seed)),
        "p_bob": timed(bob, first_at=1_500, step=900),
        "p_cy": (),
    }
    return build(game_id, lines, shares, server_seed=server_seed)


@pytest.fixture(scope="module")
def eight_off() -> RaceRecord:
    return race("eight-off", with_shares=True)


def rejection(record: RaceRecord) -> RecordRejected:
    with pytest.raises(RecordRejected) as caught:
        verify_record(record)
    return caught.value


def syntax_error(text: str) -> RecordSyntaxError:
    with pytest.raises(RecordSyntaxError) as caught:
        read_record(text)
    return caught.value


def with_result(record: RaceRecord, player: str, **changes: object) -> RaceRecord:
    results = tuple(replace(r, **changes) if r.player_id == player else r for r in record.results)
    return replace(record, results=results)


def with_moves(record: RaceRecord, player: str, moves: tuple[RecordMove, ...]) -> RaceRecord:
    return replace(record, moves=tuple((p, moves if p == player else m) for p, m in record.moves))


# ----- round trips ----------------------------------------------------------------------


@pytest.mark.parametrize("with_shares", [False, True], ids=["no-shares", "shares"])
@pytest.mark.parametrize("game_id", GAMES)
def test_a_record_of_real_games_round_trips_and_verifies(game_id: GameName, with_shares: bool) -> None:
    record = race(game_id, with_shares)
    assert "undo" in [m.move for m in record.moves_of("p_bob")]
    assert record.results[0].player_id == "p_ada" and record.results[0].won
    text = write_record(record)
    assert read_record(text) == record
    assert write_record(read_record(text)) == text
    verify_record(record)
    verify_record(read_record(text))


def test_a_record_lists_its_headers_in_the_documented_order(eight_off: RaceRecord) -> None:
    names = re.findall(r"^\[(\w+) ", write_record(eight_off), flags=re.M)
    assert names == [
        "Event", "Game", "DealVersion", "Race", "Date", "StartedAt", "EndedAt", "TimeLimit", "Rated",
        "ServerSeed", "Salt", "Commitment", "Share", "Share", "Seed", "Racer", "Racer", "Racer",
        "Result", "Result", "Result",
    ]  # fmt: skip


def test_a_record_without_shares_says_shares_none_and_a_daily_names_its_day() -> None:
    record = replace(race("treize", with_shares=False), daily="2024-06-01", rated=True)
    text = write_record(record)
    assert '[Shares "none"]' in text and "[Share " not in text
    assert '[Rated "yes"]\n[Daily "2024-06-01"]\n[ServerSeed' in text
    assert '[Date "2024-06-01T12:00:00.000Z"]' in text
    assert read_record(text) == record


def daily_run(attempt: str | None) -> RaceRecord:
    """A daily challenge run: one racer, the day, and what the run was (None: a record
    written before the Attempt header)."""
    three = race("treize", with_shares=False)
    solo = build("treize", {"p_ada": three.moves_of("p_ada")}, server_seed=three.server_seed)
    return replace(solo, daily="2026-11-25", attempt=attempt)


@pytest.mark.parametrize("attempt", ["scored", "unscored", "practice"])
def test_a_daily_run_says_after_its_day_whether_it_was_the_scored_attempt_or_a_practice(attempt: str) -> None:
    record = daily_run(attempt)
    text = write_record(record)
    assert f'[Rated "no"]\n[Daily "2026-11-25"]\n[Attempt "{attempt}"]\n[ServerSeed' in text
    assert read_record(text) == record and read_record(text).attempt == attempt
    verify_record(read_record(text))


def test_a_daily_record_from_before_the_attempt_header_still_reads_and_verifies() -> None:
    record = daily_run(None)
    text = write_record(record)
    assert "[Attempt " not in text
    assert read_record(text).attempt is None
    verify_record(read_record(text))


def test_an_attempt_is_only_after_a_daily_and_only_one_of_its_three_words() -> None:
    text = write_record(daily_run("practice"))
    without_day = text.replace('[Daily "2026-11-25"]\n', "")
    with pytest.raises(RecordSyntaxError, match="an Attempt comes only after a Daily header") as caught:
        read_record(without_day)
    assert caught.value.line_number == 10
    with pytest.raises(RecordSyntaxError, match="Attempt is scored, unscored or practice, not 'ranked'"):
        read_record(text.replace('[Attempt "practice"]', '[Attempt "ranked"]'))
    with pytest.raises(ValueError, match="only a daily challenge run has an Attempt"):
        write_record(replace(daily_run("practice"), daily=None))


def test_a_daily_run_with_more_than_one_racer_is_rejected() -> None:
    record = replace(race("treize", with_shares=False), daily="2026-11-25", attempt="scored")
    with pytest.raises(RecordRejected, match=r"^a daily challenge run has one racer, not 3$"):
        verify_record(record)
    verify_record(replace(record, daily=None, attempt=None))


def test_names_with_quotes_and_backslashes_and_ratings_round_trip(eight_off: RaceRecord) -> None:
    racers = (
        RecordRacer("p_ada", 'Ada "the Ace" \\ L', bot=False, rating=1612),
        RecordRacer("p_bob", "  spaced  out ", bot=True, rating=-3),
        RecordRacer("p_cy", "", bot=False, rating=None),
    )
    record = replace(eight_off, racers=racers)
    text = write_record(record)
    assert r'[Racer "p_ada Ada \"the Ace\" \\ L human 1612"]' in text
    assert read_record(text) == record
    verify_record(record)


def test_move_lines_wrap_before_the_line_width_without_splitting_a_move(eight_off: RaceRecord) -> None:
    text = write_record(eight_off)
    section = text.split("== p_ada\n")[1].split("\n\n")[0].splitlines()
    assert len(section) > 1
    assert all(len(line) <= LINE_WIDTH for line in section)
    assert all(re.fullmatch(r"(\d+\. \S+ \{\d+\})( \d+\. \S+ \{\d+\})*", line) for line in section)


def test_comments_blank_lines_crlf_and_a_bom_are_ignored(eight_off: RaceRecord) -> None:
    text = write_record(eight_off)
    noisy = "\ufeff# downloaded from a node\n" + text.replace("\n[Seed", "\n# the deal's seed\n\n[Seed")
    noisy = noisy.replace("\n== p_bob\n", "\n== p_bob\n   # Bob's moves\n").replace("\n", "\r\n")
    assert read_record(noisy) == eight_off


def test_a_racer_without_a_move_section_made_no_moves(eight_off: RaceRecord) -> None:
    record = replace(eight_off, moves=tuple((p, m) for p, m in eight_off.moves if p != "p_cy"))
    assert record.moves_of("p_cy") == ()
    assert "== p_cy" not in write_record(record)
    verify_record(read_record(write_record(record)))


# ----- verification: commitment, shares, seed -------------------------------------------


def test_a_commitment_that_does_not_match_the_server_seed_and_salt_is_rejected(eight_off: RaceRecord) -> None:
    for lie in (
        replace(eight_off, commitment=commitment("eight-off", eight_off.server_seed + 1, eight_off.salt)),
        replace(eight_off, salt=eight_off.salt + "0"),
        replace(eight_off, commitment=commitment("treize", eight_off.server_seed, eight_off.salt)),
    ):
        error = rejection(lie)
        assert error.reason == "the commitment does not match the server seed and salt"
        assert (error.player_id, error.move_index) == (None, None)


def test_a_share_that_does_not_match_its_commitment_is_rejected(eight_off: RaceRecord) -> None:
    other = share_commitment("00" * 16)
    shares = tuple(replace(s, commitment=other) if s.player_id == "p_bob" else s for s in eight_off.shares)
    error = rejection(replace(eight_off, shares=shares))
    assert (error.reason, error.player_id) == ("the share does not match its commitment", "p_bob")


def test_a_share_that_is_not_lowercase_hex_is_rejected_even_with_its_commitment(
    eight_off: RaceRecord,
) -> None:
    upper = "0123456789ABCDEF"
    shares = (RecordShare("p_ada", share_commitment(upper), upper), *eight_off.shares[1:])
    error = rejection(replace(eight_off, shares=shares))
    assert (error.reason, error.player_id) == ("the share is not 16 to 64 lowercase hex digits", "p_ada")


def test_two_shares_for_one_racer_are_rejected(eight_off: RaceRecord) -> None:
    extra = RecordShare("p_ada", share_commitment("ab" * 8), "ab" * 8)
    error = rejection(replace(eight_off, shares=(*eight_off.shares, extra)))
    assert (error.reason, error.player_id) == ("two shares for one racer", "p_ada")


def test_a_share_for_someone_who_is_not_a_racer_is_rejected(eight_off: RaceRecord) -> None:
    stranger = RecordShare("p_eve", share_commitment("ab" * 8), "ab" * 8)
    error = rejection(replace(eight_off, shares=(*eight_off.shares, stranger)))
    assert (error.reason, error.player_id) == ("a share for a player who is not a racer", "p_eve")


def test_a_racer_listed_twice_is_rejected(eight_off: RaceRecord) -> None:
    error = rejection(replace(eight_off, racers=(*eight_off.racers, RecordRacer("p_bob", "Bob again"))))
    assert (error.reason, error.player_id) == ("the racer is listed twice", "p_bob")


def test_a_seed_that_is_not_the_mix_of_the_server_seed_and_the_shares_is_rejected(
    eight_off: RaceRecord,
) -> None:
    for lie in (
        replace(eight_off, seed=eight_off.server_seed),
        replace(eight_off, seed=eight_off.seed + 1),
        replace(eight_off, shares=eight_off.shares[:1]),
    ):
        assert rejection(lie).reason == "the seed is not the mix of the server seed and the shares"


def test_without_shares_the_seed_must_be_the_server_seed() -> None:
    record = race("treize", with_shares=False)
    assert record.seed == record.server_seed
    error = rejection(replace(record, seed=record.seed + 1))
    assert error.reason == "the seed is not the server seed (the record has no shares)"


def test_an_unsupported_deal_version_is_rejected(eight_off: RaceRecord) -> None:
    error = rejection(replace(eight_off, deal_version=99))
    assert error.reason == "the game cannot be dealt: unknown deal algorithm version 99"


# ----- verification: moves ---------------------------------------------------------------


def test_an_illegal_move_is_rejected_with_its_racer_and_index(eight_off: RaceRecord) -> None:
    moves = list(eight_off.moves_of("p_bob"))
    moves[3] = replace(moves[3], move="t1>t1")
    error = rejection(with_moves(eight_off, "p_bob", tuple(moves)))
    assert (error.player_id, error.move_index) == ("p_bob", 3)
    assert error.reason == "illegal move 't1>t1': t1 cannot move onto itself"
    # The text counts as the record numbers its moves: from 1.
    assert str(error) == "racer p_bob, move 4: illegal move 't1>t1': t1 cannot move onto itself"


@pytest.mark.parametrize("game_id", GAMES)
def test_the_engine_reason_of_an_illegal_move_is_reported(game_id: GameName) -> None:
    record = race(game_id, with_shares=False)
    seed, moves = record.seed, list(record.moves_of("p_ada"))
    game = new_game(game_id, seed, undo_rule=UndoRule.KEEP_REVEALS)
    for move in moves[:5]:
        game.play(move.move)
    bad = "undo" if not game.can_undo() else "deal" if game_id == "eight-off" else "t9>t1"
    with pytest.raises(IllegalMove) as engine:
        game.play(bad)
    moves[5] = replace(moves[5], move=bad)
    error = rejection(with_moves(record, "p_ada", tuple(moves)))
    assert (error.player_id, error.move_index) == ("p_ada", 5)
    assert error.reason == f"illegal move {bad!r}: {engine.value.reason}"


def test_a_race_may_not_undo_a_move_that_turned_up_a_card() -> None:
    record = build("treize", {"p_ada": timed(["deal"])})
    error = rejection(with_moves(record, "p_ada", timed(["deal", "undo"])))
    assert (error.player_id, error.move_index) == ("p_ada", 1)
    assert "cannot be undone" in error.reason


def test_moves_past_the_time_limit_are_rejected(eight_off: RaceRecord) -> None:
    bob = eight_off.moves_of("p_bob")
    limit = bob[4].at_ms - 1
    faster_ada = tuple(replace(m, at_ms=min(m.at_ms, limit)) for m in eight_off.moves_of("p_ada"))
    error = rejection(with_moves(replace(eight_off, time_limit_ms=limit), "p_ada", faster_ada))
    assert (error.player_id, error.move_index) == ("p_bob", 4)
    assert error.reason == f"played at {bob[4].at_ms} ms, after the time limit of {limit} ms"


def test_a_move_exactly_at_the_time_limit_counts(eight_off: RaceRecord) -> None:
    last = max(m.at_ms for _p, moves in eight_off.moves for m in moves)
    verify_record(replace(eight_off, time_limit_ms=last))


def test_times_that_go_backwards_are_rejected(eight_off: RaceRecord) -> None:
    moves = list(eight_off.moves_of("p_bob"))
    moves[2] = replace(moves[2], at_ms=moves[1].at_ms - 1)
    error = rejection(with_moves(eight_off, "p_bob", tuple(moves)))
    assert (error.player_id, error.move_index) == ("p_bob", 2)
    assert error.reason.startswith("time goes backwards")


def test_a_move_before_the_start_is_rejected(eight_off: RaceRecord) -> None:
    early = (RecordMove(1, "t1>t2", -40),)
    error = rejection(with_moves(eight_off, "p_cy", early))
    assert (error.player_id, error.move_index, error.reason) == (
        "p_cy",
        0,
        "played at -40 ms, before the race started",
    )


def test_seqs_must_count_from_one_without_gaps(eight_off: RaceRecord) -> None:
    moves = list(eight_off.moves_of("p_bob"))
    moves[2] = replace(moves[2], seq=4)
    error = rejection(with_moves(eight_off, "p_bob", tuple(moves)))
    assert (error.player_id, error.move_index, error.reason) == ("p_bob", 2, "the move's seq is 4, not 3")


def test_a_move_after_the_racer_won_is_rejected(eight_off: RaceRecord) -> None:
    ada = eight_off.moves_of("p_ada")
    after = RecordMove(len(ada) + 1, "undo", ada[-1].at_ms + 10)
    error = rejection(with_moves(eight_off, "p_ada", (*ada, after)))
    assert (error.player_id, error.move_index) == ("p_ada", len(ada))
    assert error.reason == "a move after the racer won"


def test_moves_of_someone_who_is_not_a_racer_are_rejected(eight_off: RaceRecord) -> None:
    error = rejection(replace(eight_off, moves=(*eight_off.moves, ("p_eve", ()))))
    assert (error.reason, error.player_id) == ("moves for a player who is not a racer", "p_eve")


# ----- verification: results -------------------------------------------------------------


@pytest.mark.parametrize(
    ("player", "changes", "reason"),
    [
        ("p_ada", {"rank": 2}, "results say rank=2 but the moves give rank=1"),
        ("p_bob", {"score": 40}, "results say score=40 but the moves give score="),
        ("p_bob", {"won": True, "time_ms": 9_000}, "results say won=True but the moves do not win"),
        ("p_ada", {"won": False, "time_ms": None}, "results say won=False but the moves win"),
        ("p_ada", {"time_ms": 1}, "results say time_ms=1 but the moves give time_ms="),
        ("p_bob", {"move_count": 999}, "results say move_count=999 but the moves give move_count="),
        (
            "p_cy",
            {"score_reached_ms": 5},
            "results say score_reached_ms=5 but the moves give score_reached_ms=0",
        ),
    ],
    ids=["rank", "score", "won-not-won", "not-won-won", "time", "move-count", "score-reached"],
)
def test_a_result_that_does_not_follow_from_the_moves_is_rejected(
    eight_off: RaceRecord, player: str, changes: dict[str, object], reason: str
) -> None:
    error = rejection(with_result(eight_off, player, **changes))
    assert error.player_id == player and error.move_index is None
    assert error.reason.startswith(reason)


def test_results_in_the_wrong_order_are_rejected(eight_off: RaceRecord) -> None:
    ada, bob, cy = eight_off.results
    error = rejection(replace(eight_off, results=(bob, ada, cy)))
    assert error.player_id == "p_bob"
    assert error.reason.startswith("results list the racer in place 1, where p_ada belongs")


def test_results_must_list_exactly_the_racers(eight_off: RaceRecord) -> None:
    ada, bob, cy = eight_off.results
    missing = rejection(replace(eight_off, results=(ada, bob)))
    assert (missing.reason, missing.player_id) == ("the racer has no result", "p_cy")
    twice = rejection(replace(eight_off, results=(ada, bob, cy, cy)))
    assert (twice.reason, twice.player_id) == ("two results for one racer", "p_cy")
    stranger = rejection(replace(eight_off, results=(ada, bob, cy, replace(cy, player_id="p_eve"))))
    assert (stranger.reason, stranger.player_id) == ("a result for a player who is not a racer", "p_eve")


def test_equal_results_share_a_rank_and_are_listed_in_player_id_order() -> None:
    line = timed(winning_line("eight-off", 3)[:12])
    record = build("eight-off", {"p_b": line, "p_a": line, "p_c": ()}, server_seed=3)
    assert record.results[0].score > 0
    assert [(r.rank, r.player_id) for r in record.results] == [(1, "p_a"), (1, "p_b"), (3, "p_c")]
    verify_record(record)
    a, b, c = record.results
    assert rejection(replace(record, results=(b, a, c))).reason.startswith(
        "results list the racer in place 1"
    )


def test_the_score_is_reached_by_the_last_move_that_changed_it() -> None:
    game = new_game("treize", 11, undo_rule=UndoRule.KEEP_REVEALS)
    game.play("deal")
    scoring = next(m for m in game.legal_moves() if m != "deal")
    line = (RecordMove(1, "deal", 1_000), RecordMove(2, scoring, 2_000), RecordMove(3, "deal", 3_000))
    record = build("treize", {"p_a": line, "p_b": line[:1]}, server_seed=11)
    assert [(r.player_id, r.score_reached_ms) for r in record.results] == [("p_a", 2_000), ("p_b", 0)]
    verify_record(record)
    assert rejection(with_result(record, "p_a", score_reached_ms=3_000)).player_id == "p_a"


# ----- reading: malformed texts ------------------------------------------------------------


def lines_of(record: RaceRecord) -> list[str]:
    return write_record(record).split("\n")


def edited(record: RaceRecord, line: int, new: str | None) -> str:
    """The record's text with line ``line`` (from 1) replaced, or removed when ``new`` is None."""
    lines = lines_of(record)
    lines[line - 1 : line] = [] if new is None else [new]
    return "\n".join(lines)


#: Where the move sections of the ``eight_off`` record start, as offsets from a section line.
SECTION_LINES = {"ada": "== p_ada", "bob": "== p_bob"}


def line_number(record: RaceRecord, line: int | str) -> int:
    """A line of ``record``'s text: a number, or ``"ada"``/``"bob"`` (their section's line),
    ``"ada+1"`` (the line after it)."""
    if isinstance(line, int):
        return line
    name, _plus, offset = line.partition("+")
    return lines_of(record).index(SECTION_LINES[name]) + 1 + int(offset or 0)


@pytest.mark.parametrize(
    ("line", "new", "reason"),
    [
        (1, '[Event "Chess game"]', 'this is not a race record: its Event is not "Solitaire Arena race"'),
        (2, '[Game "spider"]', "unknown game 'spider'"),
        (3, '[DealVersion "01"]', "DealVersion is a whole number from 0"),
        (4, '[Race "r 1"]', "Race is 1 to 64 letters"),
        (5, None, "expected the [Date] header here, not [StartedAt]"),
        (5, '[Date "2024-06-01T12:00:00Z"]', "Date is not the time of StartedAt, 2024-06-01T12:00:00.000Z"),
        (6, '[StartedAt "-5"]', "StartedAt is a whole number from 0"),
        (9, '[Rated "maybe"]', "Rated is 'yes' or 'no'"),
        (9, '[Rated "no"] ', None),
        (9, '[Rated  "no"]', 'cannot read this header: write it [Name "value"]'),
        (9, '[Rated "n\\o"]', "unknown escape \\o"),
        (11, '[Salt "a\tb"]', "Salt is at most 200 characters without control characters"),
        (12, '[Commitment "ABC"]', "Commitment is 64 lowercase hex digits"),
        (13, '[Share "p_ada 00"]', 'a Share is "<player id> <commitment> <share>", one space apart'),
        (13, '[Shares "some"]', '[Shares] is only ever "none"'),
        (15, '[Seed "1.5"]', "Seed is a whole number"),
        (16, '[Racer "p_ada Ada robot -"]', "this Racer needs 'bot' or 'human'"),
        (16, '[Racer "p_ada"]', 'a Racer is "<player id> <name> <bot|human> <rating|->"'),
        (16, '[Racer "p_ada Ada human 15OO"]', "this Racer needs a rating"),
        (19, '[Result "1 p_ada yes 52 38 5000 5000"]', "this Result needs 'won' or '-'"),
        (
            19,
            '[Result "first p_ada won 52 38 5000 5000"]',
            "this Result needs a whole number instead of 'first'",
        ),
        (19, '[Winner "p_ada"]', "unexpected [Winner] header"),
        (16, "Racer: p_ada", 'expected a header [Name "value"], a section "== <player id>" or a # comment'),
        ("ada", "== p_ada!", 'a move section starts "== <player id>"'),
        ("ada+1", "1. t1>f1 {100} 2.", "incomplete move '2.'"),
        ("ada+1", "1 t1>f1 {100}", "expected a move number such as '12.', not '1'"),
        ("ada+1", "1. t1>f1 100", "expected a time in ms such as '{1500}', not '100'"),
        ("ada+1", "1. t1>f1 {-100}", "expected a time in ms such as '{1500}', not '{-100}'"),
        ("ada+1", "1. t1{f1 {100}", "'t1{f1' cannot be a move"),
        ("ada+1", '[Seed "1"]', "a header after the move sections"),
        ("bob", "== p_ada", "a second move section for p_ada"),
    ],
)
def test_a_malformed_record_raises_a_syntax_error_with_its_line(
    eight_off: RaceRecord, line: int | str, new: str | None, reason: str | None
) -> None:
    assert lines_of(eight_off)[18].startswith("[Result "), "the header layout changed: renumber"
    line = line_number(eight_off, line)
    text = edited(eight_off, line, new)
    if reason is None:  # a control case: the edit keeps the record valid
        assert read_record(text) == eight_off
        return
    error = syntax_error(text)
    assert error.line_number == line
    assert error.reason.startswith(reason)
    assert str(error).startswith(f"line {line}: ")


def test_an_empty_text_lacks_the_event_header() -> None:
    error = syntax_error("")
    assert (error.line_number, error.reason) == (1, "the [Event] header is missing")


def test_a_record_cut_short_names_the_first_missing_header(eight_off: RaceRecord) -> None:
    text = "\n".join(lines_of(eight_off)[:10])
    error = syntax_error(text)
    assert (error.line_number, error.reason) == (10, "the [Salt] header is missing")


def test_a_record_without_racers_is_malformed(eight_off: RaceRecord) -> None:
    lines = [line for line in lines_of(eight_off)[:22] if not line.startswith(("[Racer", "[Result"))]
    error = syntax_error("\n".join(lines))
    assert error.reason == "the [Racer] header is missing"


def test_an_over_long_record_is_refused_before_it_is_read() -> None:
    error = syntax_error("#" * (MAX_RECORD_CHARS + 1))
    assert (error.line_number, error.reason) == (
        1,
        f"the record is longer than {MAX_RECORD_CHARS} characters",
    )


def test_absurd_counts_are_refused(eight_off: RaceRecord) -> None:
    share = '[Share "p_x ' + "0" * 64 + ' 00"]\n'
    text = write_record(eight_off).replace("\n[Seed", "\n" + share * 120 + "[Seed")
    error = syntax_error(text)
    assert (error.reason, error.line_number) == ("more than 100 [Share] headers", 13 + 100)
    huge = write_record(eight_off).replace("== p_cy", "== p_cy\n" + "1. deal {1}\n" * 100_001)
    assert syntax_error(huge).reason == "more than 100000 moves for p_cy"
    many_digits = write_record(eight_off).replace(f'[Seed "{eight_off.seed}"]', f'[Seed "{"9" * 61}"]')
    assert syntax_error(many_digits).reason.startswith("Seed is a whole number from 0 (at most 60 digits)")


def test_write_refuses_values_the_format_cannot_hold(eight_off: RaceRecord) -> None:
    racers = (RecordRacer("p ada", "Ada"), *eight_off.racers[1:])
    for bad in (
        replace(eight_off, racers=racers),
        with_moves(eight_off, "p_cy", (RecordMove(1, "t1 > f1", 5),)),
        with_moves(eight_off, "p_cy", (RecordMove(1, "t1>f1", -5),)),
        replace(eight_off, racers=(RecordRacer("p_ada", "line\nbreak"), *eight_off.racers[1:])),
        replace(eight_off, daily="2024-02-30"),
        replace(eight_off, racers=()),
    ):
        with pytest.raises(ValueError):
            write_record(bad)


# ----- properties ---------------------------------------------------------------------------


@PLAYOUT
@given(
    game_id=st.sampled_from(GAMES),
    server_seed=st.integers(0, 2**63 - 1),
    racers=st.integers(1, 3),
    with_shares=st.booleans(),
    walk=st.integers(0, 2**32),
)
def test_records_of_random_races_round_trip_and_verify(
    game_id: GameName, server_seed: int, racers: int, with_shares: bool, walk: int
) -> None:
    rng = random.Random(walk)
    players = [f"p_{rng.getrandbits(32):08x}" for _ in range(racers)]
    assume(len(set(players)) == racers)
    shares = {p: f"{rng.getrandbits(128):032x}" for p in players if with_shares and rng.random() < 0.7}
    seed = mixed_seed(game_id, server_seed, shares)
    lines = {}
    for player in players:
        moves = random_line(game_id, seed, rng, rng.randrange(0, 60))
        times = sorted(rng.randrange(0, TIME_LIMIT + 1) for _ in moves)
        lines[player] = tuple(
            RecordMove(i + 1, m, t) for i, (m, t) in enumerate(zip(moves, times, strict=True))
        )
    record = build(game_id, lines, shares, server_seed=server_seed, salt=f"{rng.getrandbits(64):x}")
    text = write_record(record)
    assert read_record(text) == record
    verify_record(read_record(text))


names = st.text(st.characters(codec="utf-8", exclude_categories=["Cc", "Cs"]), max_size=30)
ids = st.from_regex(r"[A-Za-z0-9_-]{1,12}", fullmatch=True)
naturals = st.integers(0, 2**70)
moves = st.builds(
    RecordMove,
    st.integers(0, 10**6),
    st.from_regex(r"[a-z0-9:>+]{1,12}", fullmatch=True)
    | st.sampled_from(["undo", "deal", "t3:2>f", "P9+WT"]),
    naturals,
)
records = st.builds(
    RaceRecord,
    game=st.sampled_from(GAMES),
    deal_version=naturals,
    race_id=ids,
    started_at=st.integers(0, 253_402_300_799_999),
    ended_at=naturals,
    time_limit_ms=naturals,
    rated=st.booleans(),
    daily=st.none() | st.dates().map(lambda day: day.isoformat()),
    server_seed=naturals,
    salt=names,
    commitment=st.from_regex(r"[0-9a-f]{64}", fullmatch=True),
    shares=st.lists(
        st.builds(
            RecordShare,
            ids,
            st.from_regex(r"[0-9a-f]{64}", fullmatch=True),
            st.from_regex(r"[A-Za-z0-9]{1,64}", fullmatch=True),
        ),
        max_size=3,
    ).map(tuple),
    seed=naturals,
    racers=st.lists(
        st.builds(RecordRacer, ids, names, st.booleans(), st.none() | st.integers(-5000, 5000)),
        min_size=1,
        max_size=3,
    ).map(tuple),
    results=st.lists(
        st.builds(
            RecordResult, naturals, ids, st.booleans(), naturals, naturals, st.none() | naturals, naturals
        ),
        max_size=3,
    ).map(tuple),
    moves=st.dictionaries(ids, st.lists(moves, max_size=40).map(tuple), max_size=3).map(
        lambda sections: tuple(sections.items())
    ),
)


@FUZZ
@given(record=records)
def test_whatever_write_record_accepts_reads_back_equal(record: RaceRecord) -> None:
    text = write_record(record)
    assert read_record(text) == record
    assert write_record(read_record(text)) == text


def read_and_verify(text: str) -> None:
    """Reading raises nothing but RecordSyntaxError; verifying what was read raises
    nothing but RecordRejected."""
    try:
        record = read_record(text)
    except RecordSyntaxError:
        return
    with contextlib.suppress(RecordRejected):
        verify_record(record)


@FUZZ
@given(text=st.text(max_size=400))
def test_random_text_raises_nothing_but_a_syntax_error(text: str) -> None:
    read_and_verify(text)


@FUZZ
@given(data=st.binary(max_size=400), errors=st.sampled_from(["replace", "surrogateescape", "ignore"]))
def test_random_bytes_decoded_raise_nothing_but_a_syntax_error(data: bytes, errors: str) -> None:
    read_and_verify(data.decode("utf-8", errors=errors))


_VALID_TEXT = write_record(
    build(
        "eight-off",
        {"p_ada": timed(["t1>r", "undo", "t2>r", "t3>r"]), "p_bob": timed(["t4>r"])},
        {"p_ada": SHARES["p_ada"]},
        server_seed=9,
    )
)
fragments = st.sampled_from(
    [
        "[",
        "]",
        '"',
        "\\",
        "\n",
        "{",
        "}",
        " ",
        ".",
        "==",
        "#",
        "-",
        "0",
        "9" * 70,
        "undo",
        "\ud800",
        "\x00",
        "é",
    ]
)


@FUZZ
@given(
    edits=st.lists(
        st.tuples(st.integers(0, len(_VALID_TEXT)), st.integers(0, 6), fragments | st.text(max_size=8)),
        min_size=1,
        max_size=6,
    )
)
def test_mutations_of_a_valid_record_raise_nothing_but_syntax_errors_or_rejections(
    edits: list[tuple[int, int, str]],
) -> None:
    text = _VALID_TEXT
    for at, cut, insert in edits:
        text = text[:at] + insert + text[at + cut :]
    read_and_verify(text)


def test_the_valid_record_the_mutations_start_from_verifies() -> None:
    verify_record(read_record(_VALID_TEXT))


# ----- the documentation ---------------------------------------------------------------------


def test_the_example_in_docs_record_md_reads_and_verifies() -> None:
    docs = DOCS.read_text(encoding="utf-8")
    example = docs.split("## Example", 1)[1]
    block = re.search(r"```text\n(.*?)```", example, flags=re.S)
    assert block is not None, "docs/record.md has a fenced ```text block under ## Example"
    record = read_record(block.group(1))
    verify_record(record)
    assert write_record(record) == block.group(1), "the example is exactly what write_record writes"
    assert record.shares and any(m.move == "undo" for _p, moves in record.moves for m in moves)
    assert any(result.won for result in record.results)

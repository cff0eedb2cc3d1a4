"""Terminal lines that name players keep to their columns whatever the names' letters: a
bot's report of a race within 80 columns, the ghosts' rows and the watch screen's racer
cards lined up, names counted in terminal columns (a CJK letter takes two)."""

from __future__ import annotations

from client.cli import WIDTH, report_text
from client.columns import width
from client.suggestions import fitted, said_lines
from client.tui.panels import ghosts_lines
from client.tui.race_state import GhostRacer
from client.tui.watch import card_text, focus_text
from client.watching import WatchedRace
from shared.protocol import LiveRace, RacerInfo, RaceSummary, Standing, Watching

LONG_ASCII = "Bartholomew-the-Unbeaten-Racer-of-Eagle-Wing"
LONG_CJK = "李小龍" * 8  # 48 columns


def eight_racer_summary(name: str) -> RaceSummary:
    """An Eagle Wing race of eight where the bot (``p_bot``) gave up last: the longest
    report there is."""
    others = [
        Standing(rank=rank, player_id=f"p_{rank}", name=f"racer {rank}", won=False, score=30, move_count=9)
        for rank in range(1, 8)
    ]
    mine = Standing(rank=8, player_id="p_bot", name=name, won=False, score=12, move_count=40, gave_up=True)
    return RaceSummary(
        race_id="98a8fd4224e2", game="eagle-wing", started_at=0, ended_at=1, commitment="c",
        standings=[*others, mine],
    )  # fmt: skip


def test_a_bots_report_keeps_to_80_columns_with_a_long_ascii_or_cjk_name_and_keeps_its_result() -> None:
    for name in (LONG_ASCII, LONG_CJK):
        text = report_text(name, "p_bot", eight_racer_summary(name))
        lines = text.splitlines()
        assert all(width(line) <= WIDTH for line in lines), lines
        assert "rank 8/8, gave up with 12 cards home" in text  # the result, never cut
        assert "race 98a8fd4224e2 (eagle-wing)" in text
        assert lines[0].startswith(name[:10]) and "…" in lines[0]  # the name cut, with its ellipsis
    cancelled = report_text(LONG_CJK, "p_bot", None)
    assert width(cancelled) <= WIDTH and cancelled.endswith(": race cancelled")


def test_a_bots_report_that_fits_stays_on_one_line() -> None:
    summary = eight_racer_summary("bot-search-7")
    mine = summary.standings[-1].model_copy(update={"gave_up": False})
    summary = summary.model_copy(update={"standings": [*summary.standings[:-1], mine]})
    text = report_text("bot-search-7", "p_bot", summary)
    assert text == "bot-search-7: race 98a8fd4224e2 (eagle-wing) rank 8/8, 12 cards home"


def test_ghost_rows_with_an_ascii_and_a_cjk_name_mark_the_ghost_in_the_same_column() -> None:
    ghosts = [
        GhostRacer("p_z", "zoe_the_fast", rank=1, cards_left=40, move_count=9),
        GhostRacer("p_l", "李小龍", rank=2, cards_left=50, move_count=3, finished=True),
        GhostRacer("p_k", "김", rank=3, cards_left=0, move_count=80, finished=True, won=True),
    ]
    firsts = [rows[0] for rows in ghosts_lines(ghosts)]
    assert firsts == ["zoe_the_fast  ghost #1", "李小龍        ghost #2", "김            ghost #3"]
    assert {width(first[: first.index("  ghost")]) for first in firsts} == {width("zoe_the_fast")}
    # A narrowed panel (20 columns) says how each ended by the mark where it fits, else
    # beside the bar in place of the cards left: the names keep their columns.
    rows = ghosts_lines(ghosts, bar_width=12, columns=20)
    firsts = [first for first, _bar, _moves in rows]
    assert firsts == ["zoe_the_f…  ghost #1", "李小龍      ghost #2", "김          ghost #3"]
    assert [bar for _first, bar, _moves in rows] == [
        "███░░░░░░░░░ 40 left",
        "░░░░░░░░░░░░ done",
        "████████████ won",
    ]

    # A name too wide for the panel is cut, by columns, and the marks still line up.
    wide = [GhostRacer("p_l", LONG_CJK, rank=1), GhostRacer("p_a", "ada", rank=2)]
    firsts = [rows[0] for rows in ghosts_lines(wide, 12, 20)]
    assert len({width(first[: first.index("  ghost")]) for first in firsts}) == 1
    assert all(width(first) <= 20 for first in firsts) and "…" in firsts[0]


def watched_race(*names: str) -> WatchedRace:
    racers = [
        RacerInfo(player_id=f"p_{number}", name=name, rating=1500 + number, provisional=number % 2 == 0)
        for number, name in enumerate(names, start=1)
    ]
    race = LiveRace(race_id="r1", game="treize", status="running", rated=True, racers=racers)
    return WatchedRace(Watching(race=race))


def test_the_watch_cards_line_up_the_ratings_after_ascii_and_cjk_names() -> None:
    watched = watched_race("ada", "李小龍", "bob")
    firsts = [card_text(watched, f"p_{n}", n, 33).plain.splitlines()[0] for n in (1, 2, 3)]
    assert firsts == ["1 ada     1501", "2 李小龍  1502?", "3 bob     1503"]
    starts = {width(first[: first.index("150")]) for first in firsts}
    assert starts == {width("1 李小龍  ")}


def test_the_watch_cards_and_focus_cut_a_long_cjk_name_by_columns() -> None:
    watched = watched_race(LONG_CJK, "ada")
    for columns in (33, 19):  # a side panel as wide as it gets, and narrowed
        firsts = [card_text(watched, f"p_{n}", n, columns).plain.splitlines()[0] for n in (1, 2)]
        assert all(width(first) <= columns for first in firsts), firsts
        assert firsts[0].startswith("1 李小龍") and "…" in firsts[0]
        assert firsts[0].endswith("  1501") and firsts[1].endswith("  1502?")
        assert len({width(first[: first.index("  150")]) for first in firsts}) == 1
    over_board = focus_text(watched, "p_1", 1).plain.splitlines()[0]
    assert over_board.startswith("1/2 李小龍") and width(over_board) <= len("1/2 ") + 24 + len(" 1501")


def test_a_suggested_command_naming_a_cjk_player_keeps_to_80_columns_and_its_options_whole() -> None:
    """The parting notes and hints the CLI prints wrap in terminal columns: a line with a
    Chinese name once ran to 92 columns, as wrapping counted one a character."""
    name = "李小龍" * 4  # 24 columns in 12 characters
    sentence = (
        "you left race 6f15c8cf590b while it runs: solitaire-arena play "
        f"--server ws://arena.example:8765 --name {name} resumes it, and solitaire-arena replay "
        f"6f15c8cf590b --server ws://arena.example:8765 --name {name} shows it once it is over"
    )
    lines = said_lines(sentence)
    assert all(width(line) <= WIDTH for line in lines), [(width(line), line) for line in lines]
    assert " ".join(line.strip() for line in lines) == sentence
    assert [line for line in lines if f"--name {name}" in line] != []
    assert all(line.count("--server") == line.count("--server ws://arena.example:8765") for line in lines)


def test_a_table_row_with_cjk_text_wraps_under_its_head_within_80_columns() -> None:
    head = "eight-off   6c32bb015d0c…  yes     "
    lines = fitted(head, "unscored: " + "龍 " * 40 + "done")
    assert lines[0].startswith(head)
    assert all(width(line) <= WIDTH for line in lines)
    assert all(line.startswith(" " * len(head)) for line in lines[1:])

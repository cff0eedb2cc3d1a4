"""The terminal UI: board drawing, local legal moves, picking, and whole races driven
headless with textual's pilot against a real in-process server (undo, hints, rematches,
a rated race's ratings, a daily attempt, and spectators watching a race included)."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import random
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from textual import events
from textual.app import App
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget

from client import sdk as sdk_module
from client.bots import Bot, RandomStrategy
from client.cli import daily_run_left
from client.errors import ArenaError, UnavailableError
from client.sdk import ArenaClient, ConnectionEnded
from client.tui import RaceApp, ReplayApp, WatchApp
from client.tui import app as app_module
from client.tui import move_input as move_input_module
from client.tui import race as race_module
from client.tui.board import BoardArea, BoardWidget, Direction, neighbour
from client.tui.cards import SUIT_SYMBOLS, card_text, cards_in_words, rank_text
from client.tui.clock import ServerClock
from client.tui.drawing import Drawing, Marks, board_text, draw_board
from client.tui.legal import legal_moves
from client.tui.panels import RacersPanel, clock_text
from client.tui.race import (
    BEFORE_THE_START,
    CANCELLED_FIELD,
    CLOCK_GONE,
    DONE_WAITING,
    GIVE_UP_ASK,
    GIVE_UP_LAPSED,
    GO,
    NO_MOVES_HERE,
    RECONNECTED,
    RECONNECTING,
    STORE_BACK,
    RaceScreen,
    left_elsewhere_note,
)
from client.tui.race_state import DailyRun, RaceState
from client.tui.replay import ReplayScreen, Timeline
from client.tui.selection import Pick, activate, hinted, targets
from client.tui.watch import WatchScreen
from client.watching import FEATURED_NONE
from client.wording import DEAL_AT_START, LEFT_OUT, PAUSED, PAUSED_NOTE
from server.app import ArenaServer
from server.features import hints as hints_feature
from server.features.daily_rules import day_of
from server.features.glicko2 import Rating, rate
from server.redis_embedded import EmbeddedRedis, free_port
from shared import GAMES, Game, GameName, new_game, replay
from shared.protocol import (
    BoardView,
    LoggedMove,
    MoveLog,
    Progress,
    RaceCountdown,
    RaceEnded,
    RaceInfo,
    RacerInfo,
    RaceStarted,
    RematchInfo,
    RematchStarted,
    RematchUpdate,
    ServerMessage,
)
from shared.protocol.codec import load_frame
from shared.solver import solve_deal
from tests.client.test_sdk_accounts import forget_token
from tests.server.conftest import WINNABLE_SEED, Connect, running_node
from tests.server.helpers import sdk_race, start_race
from tests.server.link import Link
from tests.server.rawclient import racers
from tests.server.solver import solve
from tests.server.test_ratings import foundation_moves, play, seated
from tests.server.test_undo_hints_rematch import STUCK_LINE, STUCK_SEED
from tests.timing import tenths_of_seconds

SIZE = (120, 44)


def view_of(game: Game) -> BoardView:
    return BoardView.model_validate(game.view())


def lines_of(text: str) -> list[str]:
    return text.splitlines()


def line_with(text: str, word: str) -> int:
    return next(i for i, line in enumerate(lines_of(text)) if word in line.split())


async def wait_until(pilot: Pilot[None], check: Callable[[], bool], timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        if loop.time() > deadline:
            raise AssertionError("timed out waiting for the UI")
        await pilot.pause(0.01)


async def replay_opened(pilot: Pilot[None], app: App[None]) -> ReplayScreen:
    """The replay screen once mounted: ``app.screen`` is the new screen from the moment it
    is pushed, and a test that ends before its widgets mount leaves the app exiting with
    half a screen (its widgets are not mounted once the app exits)."""
    await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.is_mounted)
    assert isinstance(app.screen, ReplayScreen)
    return app.screen


# ----- drawing ------------------------------------------------------------------------


def test_eight_off_has_its_foundations_on_the_left_and_its_tableau_under_the_reserve() -> None:
    game = new_game("eight-off", WINNABLE_SEED)
    text = board_text(view_of(game))
    lines = lines_of(text)
    # Foundations in a column on the left, reserve cells on top, tableau below them.
    assert lines[0].split() == ["f1", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8"]
    assert lines[3].split() == ["f2", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8"]
    assert [line_with(text, f) for f in ("f1", "f2", "f3", "f4")] == [0, 3, 6, 9]
    # Each tableau column under a reserve cell (Aisleriot's blank slots left out: 80 columns).
    assert [lines[3].index(f"t{i}") for i in range(1, 9)] == [lines[0].index(f"r{i}") for i in range(1, 9)]
    # Every card is face up: the 48 tableau cards and the 4 in the cells.
    for name in ("r1", "r2", "r3", "r4", *(f"t{i}" for i in range(1, 9))):
        for card in game.piles[name]:
            assert f"[{card_text(card)}]" in text
    # t1's six cards go down its column, bottom card first.
    column = lines[3].index("t1") - 1
    shown = [line[column : column + 5] for line in lines[4:10]]
    assert shown == [f"[{card_text(c)}]" for c in game.piles["t1"]]


def test_eagle_wing_full_wings_beside_the_reserve_keep_clear_of_its_label() -> None:
    """A wing holds three cards: t4's and t5's third, on either side of the trunk, end
    above the reserve's label, which never runs into a card ("reserve[ Q♠]")."""
    view = view_of(new_game("eagle-wing", 3)).model_dump()
    for pile, cards in (("t4", ["QS", "JH", "TS"]), ("t5", ["QD", "JC", "TD"])):
        view["piles"][pile] = {"count": 3, "cards": cards}
    text = board_text(BoardView.model_validate(view))
    label = line_with(text, "reserve")
    for pile in ("t4", "t5"):
        assert line_with(text, pile) + 3 < label
    assert re.search(r"\S reserve|reserve\S", lines_of(text)[label]) is None


def test_eagle_wing_hides_face_down_cards_and_shows_counts() -> None:
    game = new_game("eagle-wing", 3)
    game.play("deal")
    text = board_text(view_of(game))
    lines = lines_of(text)
    assert lines[0].split() == ["stock", "waste", "f1", "f2", "f3", "f4"]
    # The wings rise towards the trunk: t3 and t6 highest, t1 and t8 lowest, the
    # reserve below them all.
    rows = {name: line_with(text, name) for name in ("t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8")}
    assert rows["t3"] == rows["t6"] < rows["t2"] == rows["t4"] == rows["t5"] == rows["t7"] < rows["t1"]
    assert rows["t1"] == rows["t8"] < line_with(text, "reserve")
    hidden = [*game.piles["stock"], *game.piles["reserve"], *game.piles["waste"][:-1]]
    for card in hidden:
        assert card_text(card) not in text
    assert card_text(game.piles["waste"][-1]) in text
    counts = lines[2].split()
    assert counts[:2] == ["29", "1"]  # stock, waste
    # Between the top row and the wings: the redeals left (both, at the deal) and the base rank.
    assert lines[3].split() == ["redeals", "left:", "2", "base:", rank_text(game.piles["f1"][0])]
    assert "13" in lines_of(text)[line_with(text, "reserve") + 2]


def test_treize_pyramid_rows_and_the_waste_fan() -> None:
    game = new_game("treize", 1)
    for _ in range(4):
        game.play("deal")
    view = view_of(game)
    text = board_text(view)
    first = line_with(text, "p1")
    for row, start in enumerate((1, 2, 4, 7, 11, 16, 22)):
        names = [f"p{i}" for i in range(start, start + row + 1)]
        assert lines_of(text)[first + 2 * row].split() == names
    # Each row starts half a card to the left of the one above.
    lefts = [lines_of(text)[first + 2 * row + 1].index("[") for row in range(7)]
    assert lefts == [18, 15, 12, 9, 6, 3, 0]
    waste = game.piles["waste"]
    top_line = lines_of(text)[0].split()
    assert top_line == ["stock", "wb", "wu", "wt"]
    assert f"[{card_text(waste[0])}]" in lines_of(text)[1]
    for card in waste[1:]:
        assert card_text(card) in lines_of(text)[1]


def test_highlights_mark_the_selection_and_its_targets() -> None:
    game = new_game("eight-off", WINNABLE_SEED)
    legal = game.legal_moves()
    source = next(m.split(">")[0] for m in legal if m.startswith("t") and ">r" in m)
    pick = Pick(source)
    drawing = draw_board(view_of(game), Marks(pick, targets(legal, pick)))
    top_hit = next(h for h in drawing.hits if h.pick == pick)
    styles = {span.style for span in drawing.text.spans}
    assert any("yellow" in str(style) for style in styles)
    assert any("green" in str(style) for style in styles)
    assert drawing.pick_at(top_hit.x + 2, top_hit.y) == pick


# ----- legal moves and picking ----------------------------------------------------------


@pytest.mark.parametrize("game_name", GAMES)
def test_legal_moves_worked_out_from_views_match_the_engine(game_name: GameName) -> None:
    for seed in range(6):
        game = new_game(game_name, seed)
        rng = random.Random(seed)
        for _ in range(120):
            expected = game.legal_moves()
            assert legal_moves(view_of(game)) == expected
            if not expected:
                break
            game.play(rng.choice(expected))


def test_a_view_with_legal_moves_is_taken_at_its_word() -> None:
    view = view_of(new_game("treize", 1)).model_copy(update={"legal_moves": ["deal"]})
    assert legal_moves(view) == ["deal"]


def test_picking_cards_builds_moves() -> None:
    legal = ["deal", "t1>f1", "t1>r5", "t3:2>t4", "t3>r5", "t3>t6"]
    first = activate(legal, None, Pick("t3"))
    assert first.selected == Pick("t3") and targets(legal, first.selected) == {"r5", "t6"}
    # Enter on the selected pile again takes one more card, then drops the selection.
    grown = activate(legal, first.selected, Pick("t3"))
    assert grown.selected == Pick("t3", 2) and targets(legal, grown.selected) == {"t4"}
    assert activate(legal, grown.selected, Pick("t4")).move == "t3:2>t4"
    assert activate(legal, grown.selected, Pick("t3", 2)).selected is None
    # A click lower in the column picks the group at once.
    assert activate(legal, None, Pick("t3", 2)).selected == Pick("t3", 2)
    # Another movable card replaces the selection; an unmovable one says why.
    assert activate(legal, first.selected, Pick("t1")).selected == Pick("t1")
    assert "nothing can move from t2" in activate(legal, None, Pick("t2")).note
    assert activate(legal, None, Pick("stock")).move == "deal"
    assert activate(["redeal"], None, Pick("stock")).move == "redeal"


def test_picking_in_treize_pairs_and_removes_kings() -> None:
    legal = ["deal", "p22+p25", "p23", "p24+wt"]
    assert activate(legal, None, Pick("p23")).move == "p23"
    chosen = activate(legal, None, Pick("wt")).selected
    assert chosen == Pick("wt") and targets(legal, chosen) == {"p24"}
    assert activate(legal, chosen, Pick("p24")).move == "p24+wt"
    assert activate(legal, Pick("p25"), Pick("p22")).move == "p22+p25"


def test_arrow_keys_find_the_nearest_pile() -> None:
    drawing = draw_board(view_of(new_game("eight-off", WINNABLE_SEED)))
    anchors = drawing.anchors
    steps: list[tuple[str, Direction, str]] = [
        ("r1", "right", "r2"),
        ("r1", "left", "f1"),
        ("r2", "down", "t2"),
        ("t1", "up", "r1"),
        ("t8", "right", "t8"),
    ]
    for start, direction, end in steps:
        assert neighbour(anchors, start, direction) == end, (start, direction)


# ----- replay -----------------------------------------------------------------------------


def test_a_timeline_replays_like_shared_replay() -> None:
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None
    timeline = Timeline.play("eight-off", WINNABLE_SEED, "p_a", line)
    assert timeline.error is None and timeline.last == len(line)
    assert timeline.views[-1] == view_of(replay("eight-off", WINNABLE_SEED, line))
    assert timeline.views[5] == view_of(replay("eight-off", WINNABLE_SEED, line[:5]))
    broken = Timeline.play("eight-off", WINNABLE_SEED, "p_a", [line[0], "t1>t1"])
    assert broken.last == 1 and broken.error is not None and "t1 cannot move onto itself" in broken.error


def _log(game: GameName, seed: int, moves: dict[str, list[str]]) -> MoveLog:
    logged = [
        LoggedMove(player_id=player, seq=seq, move=move, at=1000 + 1500 * seq)
        for player, line in moves.items()
        for seq, move in enumerate(line, start=1)
    ]
    return MoveLog(race_id="r1", game=game, seed=seed, salt="s", commitment="c", moves=logged)


async def test_the_replay_screen_steps_through_each_racer() -> None:
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None
    other = new_game("eight-off", WINNABLE_SEED)
    other_moves = []
    for _ in range(3):
        move = other.legal_moves()[-1]
        other.play(move)
        other_moves.append(move)
    log = _log("eight-off", WINNABLE_SEED, {"p_a": line, "p_b": other_moves})
    app = ReplayApp(log, {"p_a": "ada", "p_b": "bob"}, me="p_a", started_at=1000)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.replay_screen
        board = screen.query_one("#replay-board", BoardWidget)
        assert board.plain == board_text(view_of(new_game("eight-off", WINNABLE_SEED)))
        await pilot.press("right", "right")
        assert board.plain == board_text(view_of(replay("eight-off", WINNABLE_SEED, line[:2])))
        # Each move with the time it was played, counted from the race's start.
        assert "at 0:03.0" in str(screen.query_one("#replay-status").render())
        assert "0:01.5" in str(screen.query_one("#replay-moves").render())
        await pilot.press("left")
        assert board.plain == board_text(view_of(replay("eight-off", WINNABLE_SEED, line[:1])))
        await pilot.press("end")
        final = replay("eight-off", WINNABLE_SEED, line)
        assert final.is_won
        assert board.view == view_of(final)
        assert board.plain == board_text(view_of(final))
        assert "WON" in str(screen.query_one("#replay-status").render())
        await pilot.press("tab")  # bob
        assert "racer bob (2/2)" in str(screen.query_one("#replay-title").render())
        assert board.view == view_of(replay("eight-off", WINNABLE_SEED, other_moves))
        await pilot.press("home")
        assert board.view == view_of(new_game("eight-off", WINNABLE_SEED))


async def test_the_replay_counts_a_card_moved_then_played_home_once() -> None:
    """Move 39 of the line moves six cards, and autoplay then sends cards home, some of
    them among those six: each card is counted once."""
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None
    game = new_game("eight-off", WINNABLE_SEED)
    results = [game.play(move) for move in line[:39]]
    steps = results[-1].steps
    assert len(steps) > len({step.card for step in steps})
    app = ReplayApp(_log("eight-off", WINNABLE_SEED, {"p_a": line}), {"p_a": "ada"})
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(39):
            await pilot.press("right")
        status = str(app.replay_screen.query_one("#replay-status").render())
        assert f"move 39/{len(line)}: {line[38]} ({len({step.card for step in steps})} cards moved)" in status


async def test_a_viewer_who_did_not_race_replays_only_the_racers() -> None:
    log = _log("treize", 7, {"p_a": [], "p_b": []})
    app = ReplayApp(log, {"p_a": "ada", "p_b": "bob"}, me="p_watcher")
    async with app.run_test(size=SIZE):
        screen = app.replay_screen
        assert [t.player_id for t in screen.timelines] == ["p_a", "p_b"]
        assert "racer ada (1/2)" in str(screen.query_one("#replay-title").render())


async def test_a_terminal_smaller_than_80x24_is_told_so_and_the_notice_goes_once_it_is_large_enough() -> None:
    app = ReplayApp(_log("eight-off", 4, {"p_a": []}), {"p_a": "ada"})
    async with app.run_test(size=(70, 20)) as pilot:
        notice = app.replay_screen.query_one("#too-small")
        assert notice.display
        assert str(notice.render()) == (
            "Terminal 70x20 is too small: make it at least 80x24, or part of the board may not show."
        )
        await pilot.resize_terminal(80, 23)
        await pilot.pause()
        assert notice.display and "Terminal 80x23 is too small" in str(notice.render())
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert not notice.display


@pytest.mark.parametrize("game_name", GAMES)
async def test_every_game_draws_in_the_app(game_name: GameName) -> None:
    first = new_game(game_name, 4).legal_moves()[0]
    app = ReplayApp(_log(game_name, 4, {"p_a": [first]}), {"p_a": "ada"})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        board = app.replay_screen.query_one("#replay-board", BoardWidget)
        assert board.plain == board_text(view_of(replay(game_name, 4, [first])))
        assert board.size.width >= max(len(line) for line in board.plain.splitlines())


# ----- whole races against a real server ---------------------------------------------------


async def _type(pilot: Pilot[None], move: str) -> None:
    await pilot.press(*move, "enter")


async def _click(pilot: Pilot[None], board: BoardWidget, pick: Pick) -> None:
    drawing = board.drawing
    assert drawing is not None
    hit = next(h for h in reversed(drawing.hits) if h.pick == pick)
    # The middle of the card; the board has one cell of padding on the left.
    assert await pilot.click("#board", offset=(1 + hit.x + hit.width // 2, hit.y))


async def _go_to(pilot: Pilot[None], board: BoardWidget, name: str) -> None:
    """Press arrow keys until the board's cursor is on ``name``."""
    directions: list[Direction] = ["left", "right", "up", "down"]
    for _ in range(40):
        drawing = board.drawing
        assert drawing is not None
        if board.cursor == name:
            return
        target = drawing.anchors[name]
        here = drawing.anchors.get(board.cursor or "", (-100, -100))
        best = min(
            directions,
            key=lambda d: _distance(
                drawing.anchors.get(neighbour(drawing.anchors, board.cursor, d) or "", here), target
            ),
        )
        await pilot.press(best)
    raise AssertionError(f"the cursor never reached {name}")


def _distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    return abs(a[0] - b[0]) + 3 * abs(a[1] - b[1])


async def test_a_whole_race_played_in_the_tui(arena: ArenaServer, connect: Connect) -> None:
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None
    # The first move is played with the mouse and the second with the keyboard: both
    # move one card.
    assert all(":" not in move and ">" in move for move in line[:2])
    ada, bob = await connect(arena.url), await connect(arena.url)
    race = await start_race(ada, bob)
    # Bob is a bot: random legal moves while ada plays, then it gives up.
    opponent = Bot(bob, "eight-off", lambda: RandomStrategy(seed=7), max_moves=30)
    bot_racing = asyncio.create_task(opponent.play(race.race_id, race.view))
    app = RaceApp(ada, race.race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        board = screen.query_one("#board", BoardWidget)
        await wait_until(pilot, lambda: screen.state.view is not None)
        opening = board.plain
        assert opening == board_text(race.view)
        assert "ada (you)" in str(screen.query_one("#racers").render())
        assert "left" in str(screen.query_one("#clock").render())
        # The bot races meanwhile: its progress shows, then it gives up.
        await bot_racing
        await wait_until(pilot, lambda: screen.state.racers[bob.player_id or ""].finished)
        quitter = screen.state.racers[bob.player_id or ""]
        assert quitter.move_count > 0
        # The racers panel says how bob ended, as the results will.
        assert f"  score {quitter.score:>2}  moves {quitter.move_count:>3}  gave up" in (
            rendered(screen, "#racers").splitlines()
        )

        def played(count: int) -> Callable[[], bool]:
            return lambda: screen.state.view is not None and screen.state.view.move_count == count

        for index, move in enumerate(line):
            if index == 0:
                # The mouse: the card, then its target.
                src, dst = move.split(">")
                await _click(pilot, board, Pick(src))
                assert board.selected == Pick(src)
                assert dst in targets(board.legal, board.selected)
                await _click(pilot, board, Pick(dst))
            elif index == 1:
                # The keyboard: tab to the board, arrows, enter on the card and its target.
                src, dst = move.split(">")
                screen.move_input.focus()
                await pilot.press("tab")
                assert board.has_focus
                await _go_to(pilot, board, src)
                await pilot.press("enter")
                await _go_to(pilot, board, dst)
                await pilot.press("enter")
            elif index == 2:
                # Typed key by key, with tab completing as far as the legal moves agree.
                field = screen.move_input
                field.focus()
                source = move.split(">")[0].split(":")[0]
                await pilot.press("z")  # no pile is called z: the hints say what to do
                assert "no legal move starts with 'z': clear the field" in rendered(screen, "#hints")
                await pilot.press("backspace", *source)
                assert move in str(screen.query_one("#hints").render())
                await pilot.press("tab")
                assert field.value.startswith(source) and move.startswith(field.value)
                assert len(field.value) > len(source)
                await pilot.press(*move[len(field.value) :], "enter")
            elif index < 6:
                await _type(pilot, move)
            else:
                # The rest pasted into the input (a key press costs the pilot ~50 ms).
                screen.move_input.post_message(events.Paste(move))
                await pilot.press("enter")
            await wait_until(pilot, played(index + 1))
            expected = view_of(replay("eight-off", WINNABLE_SEED, line[: index + 1]))
            assert board.plain == board_text(expected), f"after {move}"
            assert board.plain != opening
        assert screen.state.view is not None and screen.state.view.won
        lines = lines_of(board.plain)
        for foundation in ("f1", "f2", "f3", "f4"):
            assert lines[line_with(board.plain, foundation) + 2].split()[0] == "13"
        assert "won" in str(screen.query_one("#racers").render())

        # The bot had played its moves and given up: ada's win ends the race.
        await wait_until(pilot, lambda: screen.state.summary is not None)
        ranking = str(screen.query_one("#ranking").render())
        assert "Results" in ranking
        assert ranking.index("1. ada") < ranking.index("2. bob")
        assert "you placed 1st of 2" in screen.status.last
        assert "race over" in str(screen.query_one("#clock").render())

        # The replay opens on the same race and steps to the final position.
        await pilot.press("ctrl+r")
        replay_screen = await replay_opened(pilot, app)
        await pilot.press("end")
        final = replay("eight-off", WINNABLE_SEED, line)
        replay_board = replay_screen.query_one("#replay-board", BoardWidget)
        assert "racer ada (1/2)" in str(replay_screen.query_one("#replay-title").render())
        assert replay_board.view == view_of(final)
        assert replay_board.plain == board_text(view_of(final))
        await pilot.press("escape")
        assert isinstance(app.screen, RaceScreen)


async def test_a_refused_move_shows_the_servers_reason(arena: ArenaServer, connect: Connect) -> None:
    ada, bob = await connect(arena.url), await connect(arena.url)
    await ada.hello(name="ada")
    await bob.hello(name="bob")
    race = await ada.create_race("eight-off", seats=2, time_limit=30)
    await bob.join_race(race.code)
    # The app opens before the start: the deal arrives with race_started.
    app = RaceApp(ada, race.race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: len(screen.state.racers) == 2)
        assert screen.state.view is None
        await ada.ready(race.race_id)
        await bob.ready(race.race_id)
        await wait_until(pilot, lambda: screen.state.view is not None)
        board = screen.query_one("#board", BoardWidget)
        before = board.plain
        assert screen.legal == new_game("eight-off", WINNABLE_SEED).legal_moves()
        await _type(pilot, "t1>t1")
        await wait_until(pilot, lambda: "✗" in screen.status.last)
        assert screen.status.last == "✗ t1>t1: t1 cannot move onto itself"
        await _type(pilot, "t9>f1")
        await wait_until(pilot, lambda: "t9" in screen.status.last)
        assert "eight-off has no pile 't9'" in screen.status.last
        # Several moves pasted at once are more than the protocol carries: said, not sent.
        pasted = " ".join(["t1>r5", "t2>r6", "t3>r7", "t4>r8", "t5>t6", "t6>t7"])
        await _type(pilot, pasted)
        await wait_until(pilot, lambda: "✗" in screen.status.last and "t1>r5" in screen.status.last)
        assert screen.status.last == (
            "✗ t1>r5 t2>r6 t3>r7 t4>r8…: move: String should have at most 32 characters"
        )
        # A refusal naming cards writes them as the board does.
        deal = new_game("eight-off", WINNABLE_SEED)
        pairs = [(f"t{a}", f"t{b}") for a in range(1, 9) for b in range(1, 9) if a != b]
        source, target = next(p for p in pairs if f"{p[0]}>{p[1]}" not in deal.legal_moves())
        await _type(pilot, f"{source}>{target}")
        await wait_until(pilot, lambda: f"{source}>{target}" in screen.status.last)
        card, top = (
            c.replace("T", "10").replace("D", "♦").replace("H", "♥").replace("S", "♠").replace("C", "♣")
            for c in (deal.piles[source][-1], deal.piles[target][-1])
        )
        assert screen.status.last == (
            f"✗ {source}>{target}: {card} does not fit on {target} (top {top}): "
            "the tableau builds down in suit"
        )
        assert board.plain == before
        assert screen.state.view is not None and screen.state.view.move_count == 0
        # Bob's progress shows up in the racers panel.
        await bob.move(race.race_id, new_game("eight-off", WINNABLE_SEED).legal_moves()[0])
        await wait_until(pilot, lambda: screen.state.racers[bob.player_id or ""].move_count == 1)
        assert "moves   1" in str(screen.query_one("#racers").render())


# ----- undo, hints and rematch ---------------------------------------------------------------


def styles_at(drawing: Drawing, x: int, y: int) -> str:
    """The styles drawn on cell (``x``, ``y``) of a drawing, as text."""
    line = drawing.text.split("\n")[y]
    return " ".join(str(span.style) for span in line.spans if span.start <= x < span.end)


def cells_of(drawing: Drawing, pick: Pick) -> list[tuple[int, int]]:
    """Where the card(s) ``pick`` names are drawn (not the pile's label)."""
    hits = [h for h in drawing.hits if h.pick == pick]
    top = max(h.y for h in hits)
    return [(h.x + 1, h.y) for h in hits if h.y == top]


def test_a_hint_is_lit_up_on_the_cards_it_moves_and_where_they_go() -> None:
    game = new_game("eight-off", WINNABLE_SEED)
    move = next(m for m in game.legal_moves() if m.startswith("t") and ">t" in m)
    src, dst = move.split(">")
    hint, hint_to = hinted(move)
    drawing = draw_board(view_of(game), Marks(hint=hint, hint_to=hint_to))
    for pick in (Pick(src), Pick(dst)):
        for x, y in cells_of(drawing, pick):
            assert "on magenta" in styles_at(drawing, x, y), pick
    # The card under the hinted one, and the other piles, are not lit up.
    for x, y in [*cells_of(drawing, Pick(src, 2)), *cells_of(drawing, Pick("t8"))]:
        assert "magenta" not in styles_at(drawing, x, y)
    assert "magenta" not in str([span.style for span in draw_board(view_of(game)).text.spans])


def test_a_race_past_its_start_time_but_not_started_runs_down_no_clock() -> None:
    """The server was away at the start: the race starts late with its whole time limit,
    so the clock says it is starting, not a time left that would jump back up."""
    clock = ServerClock()
    now = round(clock.now())
    state = RaceState(race_id="r1", me="p_a", status="countdown")
    state.starts_at, state.ends_at = now + 2_500, now + 62_500  # mid-second: no edge to round at
    assert clock_text(state, clock) == "starts in 0:03"
    state.starts_at, state.ends_at = now - 11_500, now + 48_500
    assert clock_text(state, clock) == "starting…"
    state.status = "running"  # started at last
    assert clock_text(state, clock) == "⏱ 0:49 left"


def test_an_undo_view_replaces_the_newer_looking_one() -> None:
    game = new_game("eight-off", WINNABLE_SEED)
    state = RaceState(race_id="r1", me="p_a")
    opening = view_of(game)
    game.play(game.legal_moves()[0])
    assert state.set_view(view_of(game), seq=1)
    game.undo()
    assert state.set_view(view_of(game), seq=2)  # one move fewer, but later
    assert state.view == opening and state.seq == 2
    assert not state.set_view(view_of(replay("eight-off", WINNABLE_SEED, ["t4>f1"])), seq=1)
    assert state.view == opening


async def test_a_race_opened_under_way_ranks_its_winners_in_the_order_they_won_not_by_seat(
    arena: ArenaServer,
) -> None:
    """cy (third seat) wins before bob (second); ada, who sat first and has not won, opens
    the race afresh (a restarted terminal): the ranking is cy, bob, ada, as the results
    will be, from the times get_race gives each racer."""
    ada, bob, cy = await racers(arena.url, "ada", "bob", "cy")
    race_id = await seated(ada, [bob, cy])
    line = solve("eight-off", WINNABLE_SEED)
    assert line is not None
    for racer in (cy, bob):
        await play(racer, race_id, line)
    read = await ada.request({"type": "get_race", "race_id": race_id})
    times = {r["name"]: (r.get("time_ms"), r.get("score_reached_ms")) for r in read["race"]["racers"]}
    assert times["ada"] == (None, 0)
    assert times["cy"][0] is not None and times["bob"][0] is not None
    assert times["cy"][0] < times["bob"][0] and times["cy"] == (times["cy"][0], times["cy"][0])
    state = RaceState(race_id=race_id, me=ada.player_id)
    state.load(RaceInfo.model_validate(read["race"]))
    assert [(rank, racer.name) for rank, racer in state.ranking()] == [(1, "cy"), (2, "bob"), (3, "ada")]
    for racer in (ada, bob, cy):
        await racer.ws.close()


@pytest.mark.parametrize("game", ["eight-off", "eagle-wing"])
async def test_racers_who_sat_down_one_by_one_share_the_first_rank_until_someone_moves(
    arena: ArenaServer, connect: Connect, game: str
) -> None:
    """Seen by ada's terminal: bob, then cy, join her lobby (each a race_update read
    whole); the race starts (Eagle Wing's deal has a card home for everyone). Nobody has
    reached anything, so nobody ranks below anybody, as the results would have it."""
    ada, bob, cy = await connect(arena.url), await connect(arena.url), await connect(arena.url)
    for client, name in ((ada, "ada"), (bob, "bob"), (cy, "cy")):
        await client.hello(name=name)
    race = await ada.create_race(game, seats=3, time_limit=60)
    state = RaceState(race_id=race.race_id, me=ada.player_id)
    state.load(await ada.get_race(race.race_id))
    for joining in (bob, cy):
        await joining.join_race(race.code)
        state.load(await ada.get_race(race.race_id))
    assert [(rank, racer.name) for rank, racer in state.ranking()] == [(1, "ada"), (1, "bob"), (1, "cy")]
    for client in (ada, bob, cy):
        await client.ready(race.race_id)
    state.apply(await ada.wait_for(RaceStarted, lambda e: e.race_id == race.race_id))
    assert [rank for rank, _racer in state.ranking()] == [1, 1, 1]
    assert {racer.score for _rank, racer in state.ranking()} == {1 if game == "eagle-wing" else 0}


async def test_the_lobby_note_gives_way_to_the_countdowns_when_the_last_racer_gets_ready_elsewhere(
    clean_redis: str, connect: Connect
) -> None:
    async with running_node(clean_redis, countdown=5) as node:
        ada, bob = await connect(node.url), await connect(node.url)
        await ada.hello(name="ada")
        await bob.hello(name="bob")
        race = await ada.create_race("treize", seats=2, time_limit=60)
        await bob.join_race(race.code)
        app = RaceApp(ada, race.race_id)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.race_screen
            await wait_until(pilot, lambda: "2/2 seated, 0 ready" in screen.status.last)
            await pilot.press("r")
            await wait_until(pilot, lambda: "2/2 seated, 1 ready; you are ready" in screen.status.last)
            await bob.ready(race.race_id)  # the last one, from another client
            await wait_until(pilot, lambda: app.race_screen.state.status == "countdown")
            await wait_until(
                pilot,
                lambda: (
                    screen.status.last
                    == f"treize race {race.code}: 2 racing; the deal comes when the countdown ends"
                ),
            )


async def test_a_racer_whose_moves_never_scored_stays_level_with_one_who_has_not_moved_when_read_whole(
    arena: ArenaServer, connect: Connect
) -> None:
    """A terminal that opens the race under way (a resume, a second device) reads ada's
    deal from Treize's stock (no card home) and bob's nothing as the tie the results make."""
    ada, _bob, race_id = await _race(arena, connect, game="treize")
    assert (await ada.move(race_id, "deal")).result.score == 0
    state = RaceState(race_id=race_id, me=ada.player_id)
    state.load(await ada.get_race(race_id))
    assert [(rank, racer.name, racer.move_count) for rank, racer in state.ranking()] == [
        (1, "ada", 1),
        (1, "bob", 0),
    ]


async def test_the_lobby_status_line_follows_the_racers_who_join(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, bob, cy = await connect(arena.url), await connect(arena.url), await connect(arena.url)
    await ada.hello(name="ada")
    await bob.hello(name="bob")
    await cy.hello(name="cy")
    race = await ada.create_race("eight-off", seats=3, time_limit=60)
    app = RaceApp(ada, race.race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: "1/3 seated" in screen.status.last)
        # The whole command friends type, as the command line prints it.
        assert screen.status.last.endswith(f"others join with: solitaire-arena play --join {race.code}")
        await bob.join_race(race.code)
        await wait_until(pilot, lambda: "2/3 seated" in screen.status.last)
        await cy.join_race(race.code)
        await wait_until(pilot, lambda: "3/3 seated" in screen.status.last)
        await bob.leave(race.race_id)
        await wait_until(pilot, lambda: "2/3 seated" in screen.status.last)
        assert screen.status.last.startswith("bob left; eight-off race"), screen.status.last
        await cy.ready(race.race_id)  # a lobby update that is no leave says no more
        await wait_until(pilot, lambda: "2/3 seated, 1 ready" in screen.status.last)
        assert screen.status.last.startswith("eight-off race"), screen.status.last
        # cy's connection drops: cy is away (no longer shown ready) until back.
        token = cy.token
        await cy.close()
        back = await connect(arena.url)
        await wait_until(pilot, lambda: screen.status.last.startswith("cy is away (their seat is kept"))
        cy_rows = "\ncy\n" + "░" * 16 + " 52 left\n  score  0  moves   0"
        assert rendered(screen, "#racers").endswith(cy_rows + "  away")
        await back.hello(token=token)
        await wait_until(pilot, lambda: screen.status.last.startswith("cy is back; eight-off race"))
        assert rendered(screen, "#racers").endswith(cy_rows + "  ready")
    # Quitting the lobby leaves the race, and the terminal is told.
    await app.leave_if_open()
    assert (
        app.parting_note()
        == f"you left race {race.code} before its start: the others sitting in it go on without you"
    )
    assert [r.name for r in (await back.get_race(race.race_id)).racers] == ["cy"]


async def lobby_of_ada(arena: ArenaServer, connect: Connect) -> tuple[ArenaClient, RaceInfo]:
    """ada, a guest, sits alone in the Eight Off race of 3 seats she created."""
    ada = await connect(arena.url)
    await ada.hello(name="ada")
    return ada, await ada.create_race("eight-off", seats=3, time_limit=60)


async def test_the_lobby_footer_says_what_r_does_now_ready_or_not_ready(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, race = await lobby_of_ada(arena, connect)
    app = RaceApp(ada, race.race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: "1/3 seated" in screen.status.last)
        await wait_until(pilot, lambda: footer_keys(app).get("r") == ("ready", True))
        assert screen.move_input.placeholder == BEFORE_THE_START  # not an invitation to type moves
        await pilot.press("r")
        await wait_until(pilot, lambda: "(r: not ready)" in screen.status.last)
        await wait_until(pilot, lambda: footer_keys(app).get("r") == ("not ready", True))
        # The footer's bindings change before it is drawn again (on a loaded machine, later).
        await wait_until(pilot, lambda: "r not ready" in screen_lines(app)[-1])
        await pilot.press("r")
        await wait_until(pilot, lambda: "press r (or Enter) when ready" in screen.status.last)
        await wait_until(pilot, lambda: footer_keys(app).get("r") == ("ready", True))
        await pilot.press("enter")  # enter says ready too
        await wait_until(pilot, lambda: footer_keys(app).get("r") == ("not ready", True))
        # Another session of ada leaves the race (the last racer: it is cancelled), which
        # nothing tells this one: pressing r finds out, says so and offers r no more.
        elsewhere = await connect(arena.url)
        await elsewhere.hello(token=ada.token)
        await elsewhere.leave(race.race_id)
        await pilot.press("r")
        left = left_elsewhere_note(race.code, cancelled=True)
        await wait_until(pilot, lambda: screen.status.last == left)
        await wait_until(pilot, lambda: "r" not in footer_keys(app))
        assert "others join with" not in "\n".join(screen_lines(app))
        assert screen.move_input.placeholder == CANCELLED_FIELD and screen.move_input.disabled


async def test_quitting_a_lobby_while_the_server_is_out_of_reach_ends_soon_and_says_the_seat_waits(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ctrl+q in a lobby while the connection is down: the leave is tried a few seconds,
    not for the client's whole resume (a minute of a blank terminal), and the parting note
    says the server frees the seat after its grace."""
    monkeypatch.setattr(race_module, "LEAVE_PATIENCE", 0.5)
    ada = await connect(arena.url, reconnect=True)
    await ada.hello(name="ada")
    race = await ada.create_race("eight-off", seats=3, time_limit=60)
    app = RaceApp(ada, race.race_id)
    away = away_until_set(monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: "1/3 seated" in screen.status.last)
        ada.ws.transport.abort()  # the network drops, and stays down
        await wait_until(pilot, lambda: ada.reconnecting)
    loop = asyncio.get_running_loop()
    began = loop.time()
    await app.leave_if_open()
    assert loop.time() - began < 3.0
    assert ada.lobby_grace is not None
    assert app.parting_note() == (
        f"you quit race {race.code}'s lobby while the server was out of reach: it frees your seat "
        f"once you have been away as long as it keeps one ({ada.lobby_grace:g} s)"
    )
    away.set()


async def test_a_lobby_left_on_another_session_says_so_by_itself(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    ada, bob = await connect(arena.url), await connect(arena.url)
    await ada.hello(name="ada")
    await bob.hello(name="bob")
    race = await ada.create_race("eight-off", seats=3, time_limit=60)
    await bob.join_race(race.code)
    monkeypatch.setattr(RaceScreen, "LOBBY_CHECK", 0.2)
    app = RaceApp(ada, race.race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: "2/3 seated" in screen.status.last)
        elsewhere = await connect(arena.url)
        await elsewhere.hello(token=ada.token)
        await elsewhere.leave(race.race_id)  # bob still sits in it
        left = left_elsewhere_note(race.code, cancelled=False)
        await wait_until(pilot, lambda: screen.status.last == left)
        assert left == f"you left race {race.code} on another session: it goes on without you. ctrl+q quits"
        await wait_until(pilot, lambda: "r" not in footer_keys(app))  # the footer redraws after the status
        assert screen.move_input.placeholder == NO_MOVES_HERE and screen.move_input.disabled


async def test_a_lobby_left_out_of_a_rated_start_says_the_race_started_without_you(
    arena: ArenaServer, connect: Connect
) -> None:
    """ada sits in bob's rated race, not ready, when bob starts it with cy: the race goes
    on without her, and the lobby says why (not that she left it elsewhere)."""
    ada, bob, cy = await connect(arena.url), await connect(arena.url), await connect(arena.url)
    for client, name in ((ada, "ada"), (bob, "bob"), (cy, "cy")):
        await client.hello(name=name)
        await client.register(f"{name}_acct", "a long password")
    race = await bob.create_race("eight-off", seats=3, time_limit=60, rated=True)
    await ada.join_race(race.code)
    await cy.join_race(race.code)
    app = RaceApp(ada, race.race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: "3/3 seated" in screen.status.last)
        await bob.ready(race.race_id)
        await cy.ready(race.race_id)
        await bob.start(race.race_id)
        note = f"{LEFT_OUT}. ctrl+q quits"
        await wait_until(pilot, lambda: screen.status.last == note)
        assert note == (
            "the race started without you: you were not ready (rated races start with their "
            "ready racers). ctrl+q quits"
        )
        await wait_until(pilot, lambda: "r" not in footer_keys(app))
        # The clock no longer waits for racers: the race went on without her.
        assert rendered(screen, "#clock") == "started without you"
    await app.leave_if_open()
    assert app.parting_note() == f"race {race.code}: {LEFT_OUT}"


def sent_types(client: ArenaClient) -> list[str]:
    """The type of every frame ``client`` sends from now on, as they go out."""
    sent: list[str] = []
    send = client.ws.send

    async def counted(frame: bytes | str) -> None:
        sent.append(str(load_frame(frame).get("type")))
        await send(frame)

    client.ws.send = counted  # type: ignore[method-assign,assignment]
    return sent


def said_lines(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text a status line says from now on, in order (each replaces the one before)."""
    said: list[str] = []
    say = race_module.StatusLine.say

    def recorded(line: race_module.StatusLine, text: str, error: bool = False) -> None:
        said.append(text)
        say(line, text, error)

    monkeypatch.setattr(race_module.StatusLine, "say", recorded)
    return said


async def test_joining_the_last_seat_readies_once_and_a_lobby_update_read_late_says_nothing(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    carol, alice = await connect(arena.url), await connect(arena.url)
    await carol.hello(name="carol")
    await alice.hello(name="alice", legal_moves=True)
    race = await carol.create_race("eight-off", seats=2, time_limit=60)
    sent = sent_types(alice)
    await alice.join_race(race.code)
    await carol.ready(race.race_id)
    await alice.ready(race.race_id)  # as play --join does for the last seat, before the screen
    await carol.wait_for(RaceCountdown, lambda e: e.race_id == race.race_id)
    # alice's events still hold the lobby updates sent before the countdown: the screen
    # reads the race (counting down) first, then those.
    said = said_lines(monkeypatch)
    app = RaceApp(alice, race.race_id, ready_when_full=True)
    async with app.run_test(size=SMALL) as pilot:
        screen = app.race_screen
        try:
            await wait_until(pilot, lambda: GO in screen.status.last)
        except AssertionError:
            raise AssertionError(f"never said go: {said} (race {screen.state.status})") from None
        await pilot.pause(0.2)  # the lobby's updates are all read by now
    assert [text for text in said if "✗" in text] == []
    assert sent.count("ready") == 1


async def test_a_screen_opened_after_the_start_says_go_and_a_countdown_read_late_takes_nothing_back(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race has started before ada's screen opens, and her session still holds the
    countdown event: read after the race (running), it is old news. It once set the race
    back to counting down and replaced go! with the countdown's note, for good."""
    ada, bob, race_id = await _counting_race(arena.url, connect)
    await bob.wait_for(RaceStarted, lambda e: e.race_id == race_id)  # ada's events stay queued
    said = said_lines(monkeypatch)
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SMALL) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: GO in screen.status.last)
        await pilot.pause(0.3)  # the queued countdown and start are read by now
        assert screen.state.status == "running"
        assert GO in screen.status.last, said
    assert [text for text in said if "counting down" in text or "✗" in text] == []


async def test_a_rename_on_another_session_shows_in_the_racers_panel_at_once(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    ada, _bob, race_id = await _race(arena, connect)
    assert arena.features is not None

    async def unannounced(race_id: str, mover: str = "") -> None:
        """The race's followers are not told (the server logs it and goes on): only the
        player's own sessions hear the ``renamed`` event."""

    monkeypatch.setattr(arena.features.accounts.lobby, "announce", unannounced)
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: "ada (you)" in rendered(screen, "#racers"))
        elsewhere = await connect(arena.url)
        await elsewhere.hello(token=ada.token)
        await elsewhere.rename("ada lovelace")
        await wait_until(pilot, lambda: "ada lovelace (you)" in rendered(screen, "#racers"))
        assert ada.name == "ada lovelace"


async def _counting_race(
    url: str,
    connect: Connect,
    hints: bool = True,
    game: GameName = "eight-off",
    bot: bool = False,
    reconnect: bool = False,
    name: str = "ada",
) -> tuple[ArenaClient, ArenaClient, str]:
    """ada (who asks for legal moves and, with ``reconnect``, resumes a dropped connection,
    as ``play`` does; named ``name``) and bob (a bot with ``bot``), both ready to race
    Eight Off (or ``game``), seed 2: its countdown has begun."""
    ada, bob = await connect(url, reconnect=reconnect), await connect(url)
    await ada.hello(name=name, legal_moves=True)
    await bob.hello(name="bob", bot=bot)
    race = await ada.create_race(game, seats=2, time_limit=60, hints=hints)
    await bob.join_race(race.code)
    await ada.ready(race.race_id)
    await bob.ready(race.race_id)
    return ada, bob, race.race_id


async def _race(
    arena: ArenaServer,
    connect: Connect,
    hints: bool = True,
    game: GameName = "eight-off",
    bot: bool = False,
    reconnect: bool = False,
    name: str = "ada",
) -> tuple[ArenaClient, ArenaClient, str]:
    """ada (who asks for legal moves and resumes with ``reconnect``, as ``play`` does;
    named ``name``) and bob (a bot with ``bot``) race Eight Off (or ``game``), seed 2."""
    ada, bob, race_id = await _counting_race(arena.url, connect, hints, game, bot, reconnect, name)
    await ada.wait_for(RaceStarted, lambda e: e.race_id == race_id)
    await bob.wait_for(RaceStarted, lambda e: e.race_id == race_id)
    return ada, bob, race_id


def footer_keys(app: RaceApp) -> dict[str, tuple[str, bool]]:
    """The keys the footer shows: key -> (description, enabled; False is drawn dimmed)."""
    shown = {}
    for key in app.screen.query("FooterKey"):
        name, description = getattr(key, "key"), getattr(key, "description")  # noqa: B009
        shown[name] = (description, not key.has_class("-disabled"))
    return shown


def rendered(screen: RaceScreen, selector: str) -> str:
    return str(screen.query_one(selector).render())


OPENING = board_text(view_of(new_game("eight-off", WINNABLE_SEED)))


async def test_the_race_screen_in_a_terminal_too_narrow_for_its_board_says_so(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, _bob, race_id = await _race(arena, connect)
    app = RaceApp(ada, race_id)
    async with app.run_test(size=(72, 30)) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.view is not None)
        assert rendered(screen, "#too-small").startswith("Terminal 72x30 is too small")
        await pilot.resize_terminal(*SMALL)
        await pilot.pause()
        assert not screen.query_one("#too-small").display


async def test_keys_typed_before_the_screen_takes_a_submitted_move_stay_for_the_next_one(
    arena: ArenaServer, connect: Connect
) -> None:
    """Two moves typed fast: Enter empties the field at once, so the next move's first
    keys, typed while the screen had not yet taken the first, are neither wiped nor glued
    onto it (``t4>f4deal``)."""
    ada, _bob, race_id = await _race(arena, connect)
    sent = sent_types(ada)
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.view is not None)
        field = screen.move_input
        first, second = new_game("eight-off", WINNABLE_SEED).legal_moves()[:2]
        field.value = first
        await field.action_submit()
        assert field.value == ""  # at once, before the screen runs
        field.insert_text_at_cursor(second[:2])
        await wait_until(pilot, lambda: screen.state.seq == 1)
        assert field.value == second[:2]
        assert sent.count("move") == 1


@pytest.mark.parametrize("word", ["no", "yes", "rematch"])
async def test_a_rematch_word_typed_while_the_race_runs_is_said_not_to_be_a_move_and_sends_nothing(
    arena: ArenaServer, connect: Connect, word: str
) -> None:
    ada, _bob, race_id = await _race(arena, connect)
    sent = sent_types(ada)
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.view is not None)
        await _type(pilot, word)
        await wait_until(pilot, lambda: "not a move" in screen.status.last)
        assert screen.status.last == (
            f"✗ {word}: not a move; rematches are offered and answered once the race is over"
        )
        await pilot.pause(0.2)
    assert not {"offer_rematch", "answer_rematch", "move"} & set(sent)


async def test_u_and_the_word_undo_take_the_last_move_back(arena: ArenaServer, connect: Connect) -> None:
    ada, bob, race_id = await _race(arena, connect)
    game = new_game("eight-off", WINNABLE_SEED)
    first = game.legal_moves()[0]
    game.play(first)
    steps = game.play("undo").to_dict()["steps"]
    undone = "✓ undo: " + ", ".join(f"{cards_in_words(card)} {src}>{dst}" for card, src, dst in steps)
    assert not any(card in undone for card, _src, _dst in steps)  # 9♠ as on the board, not 9S
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        board = screen.board
        await wait_until(pilot, lambda: screen.state.view is not None)
        assert board.plain == OPENING
        # Nothing to take back at the deal: the key is shown dimmed.
        await wait_until(pilot, lambda: "u" in footer_keys(app))
        assert footer_keys(app)["u"] == ("undo", False)
        # The key that quits always applies; no command palette (none of its commands are a race's).
        assert footer_keys(app)["ctrl+q"] == ("quit", True) and "ctrl+p" not in footer_keys(app)

        await _type(pilot, first)
        await wait_until(pilot, lambda: screen.state.seq == 1)
        assert board.plain == board_text(view_of(replay("eight-off", WINNABLE_SEED, [first])))
        await wait_until(pilot, lambda: footer_keys(app).get("u") == ("undo", True))
        await pilot.press("u")
        await wait_until(pilot, lambda: screen.state.seq == 2)
        assert board.plain == OPENING
        assert screen.status.last.startswith(undone)
        assert screen.move_input.value == ""
        seen = await bob.wait_for(Progress, lambda p: p.player_id == ada.player_id and p.move_count == 0)
        assert seen.score == 0
        await wait_until(pilot, lambda: footer_keys(app).get("u") == ("undo", False))

        # Typed in full with nothing to take back: the move goes out and is refused.
        await _type(pilot, "undo")
        await wait_until(pilot, lambda: "✗" in screen.status.last)
        assert screen.status.last == "✗ undo: there is no move to undo"
        assert screen.state.seq == 2 and board.plain == OPENING

        # Typed in full while it applies: u takes the move back, the rest of the word is
        # dropped, and the enter sends nothing more.
        await _type(pilot, first)
        await wait_until(pilot, lambda: screen.state.seq == 3 and screen.command_key("u") is True)
        await _type(pilot, "undo")
        await wait_until(pilot, lambda: screen.state.seq == 4)
        await pilot.pause(0.2)
        assert screen.move_input.value == ""
        assert board.plain == OPENING
        assert screen.status.last.startswith(undone)
        assert ada.seqs[race_id] == 4 and screen.state.seq == 4


async def test_a_key_typed_long_after_a_one_key_command_is_typed_not_dropped(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """u takes the move back and the rest of the word "undo" typed in the same burst is
    dropped; an n pressed later (a rematch's decline, say) is a key of its own."""
    monkeypatch.setattr(move_input_module, "REST_WINDOW", 0.2)
    ada, _bob, race_id = await _race(arena, connect)
    first = new_game("eight-off", WINNABLE_SEED).legal_moves()[0]
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.view is not None)
        await _type(pilot, first)
        await wait_until(pilot, lambda: screen.state.seq == 1 and screen.command_key("u") is True)
        await pilot.press("u")
        await wait_until(pilot, lambda: screen.state.seq == 2)
        await pilot.pause(0.4)  # past the burst: n is not the rest of "undo"
        await pilot.press("n")
        await wait_until(pilot, lambda: screen.move_input.value == "n")


async def test_h_shows_a_hint_and_lights_it_up(arena: ArenaServer, connect: Connect) -> None:
    ada, bob, race_id = await _race(arena, connect, hints=True)
    legal = new_game("eight-off", WINNABLE_SEED).legal_moves()
    # The server starts its hint worker process on the first hint. Here it shares the
    # test's process with the app, whose stand-in stderr has no file descriptor for
    # multiprocessing to hand over: start the worker first (bob asks; ada's own hint
    # pacing is untouched).
    assert (await bob.hint(race_id)).move in legal
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        board = screen.board
        await wait_until(pilot, lambda: screen.state.view is not None)
        assert "hints on" in rendered(screen, "#race-info")
        await wait_until(pilot, lambda: footer_keys(app).get("h") == ("hint", True))
        await pilot.press("h")
        await wait_until(pilot, lambda: screen.status.last.startswith("hint: "))
        move = screen.status.last.split()[1]
        assert move in legal
        assert screen.move_input.value == ""  # the key was not typed
        assert board.hint == move
        # h again at once: the hint is said again, not asked for (the server allows one a
        # second, and its refusal used to replace the hint's text).
        said = screen.status.last
        await pilot.press("h")
        await asyncio.sleep(0.5)
        await pilot.pause()
        assert screen.status.last == said == f"hint: {move}  (lit up on the board)"
        drawing = board.drawing
        assert drawing is not None
        picks, _ = hinted(move)
        for x, y in cells_of(drawing, picks[0]):
            assert "on magenta" in styles_at(drawing, x, y)
        # Once the board changes the hint is gone.
        await _type(pilot, move)
        await wait_until(pilot, lambda: screen.state.seq == 1)
        assert board.hint is None and board.drawing is not None
        assert "magenta" not in str([span.style for span in board.drawing.text.spans])
        # A move played on another session of ada's: the next hint reads the board again and
        # is for the board as it is (never "an earlier position").
        elsewhere = await connect(arena.url)
        await elsewhere.hello(token=ada.token)
        there = await elsewhere.move(race_id, (screen.state.view.legal_moves or [])[0], seq=2)
        await asyncio.sleep(1.0)  # one hint a second
        await pilot.press("h")
        await wait_until(pilot, lambda: screen.status.last.startswith("hint: "))
        assert screen.status.last.endswith("(lit up; the board was played on elsewhere: shown as it is now)")
        assert screen.state.seq == 2 and screen.board.plain == board_text(there.view)
        assert board.hint == screen.status.last.split()[1]


async def test_h_with_only_moves_back_left_says_the_servers_reason(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hints_feature, "HINT_COOLDOWN", 0.0)
    monkeypatch.setattr(arena.features.lobby, "seed_source", lambda: STUCK_SEED)
    ada, _, race_id = await _race(arena, connect, hints=True)
    assert (await ada.hint(race_id)).move == STUCK_LINE[0]  # starts the hint worker (see above)
    for move in (STUCK_LINE[0], "undo", *STUCK_LINE):
        await ada.move(race_id, move)
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: footer_keys(app).get("h") == ("hint", True))
        await pilot.press("h")
        await wait_until(pilot, lambda: screen.status.last.startswith("hint: "))
        assert screen.status.last == (
            "hint: every move left leads back to a position your board has had: undo, or give up"
            " (ctrl+g gives up)"
        )
        assert screen.board.hint is None


async def test_a_race_without_hints_says_so_and_shows_the_refusal(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, _, race_id = await _race(arena, connect, hints=False)
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.view is not None)
        await wait_until(pilot, lambda: "u" in footer_keys(app))
        assert "hints off in this race" in rendered(screen, "#race-info")
        assert "h" not in footer_keys(app)
        # h is not typed into the empty field (no move starts with it): it says at once,
        # as the word does, what the server says.
        await pilot.press("h")
        await wait_until(pilot, lambda: "✗" in screen.status.last)
        assert screen.status.last.startswith("✗ hint: hints are off in this race")
        assert screen.move_input.value == ""
        # The word typed next asks again (it is not taken for a move 'hhint').
        screen.status.say("")
        await _type(pilot, "hint")
        await wait_until(pilot, lambda: "✗" in screen.status.last)
        assert screen.status.last.startswith("✗ hint: hints are off in this race")
        assert screen.board.hint is None and screen.state.seq == 0
        # Pressed on the board, the same.
        screen.status.say("")
        screen.board.focus()
        await pilot.press("h")
        await wait_until(pilot, lambda: "✗" in screen.status.last)
        assert screen.status.last.startswith("✗ hint: hints are off in this race")
        assert screen.move_input.value == ""


async def test_u_pressed_while_undo_is_refused_says_why_and_types_nothing(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, _, race_id = await _race(arena, connect, hints=False, game="treize")
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.view is not None)
        assert "hint" not in screen.move_input.placeholder  # hints are off in this race
        await _type(pilot, "deal")
        await wait_until(pilot, lambda: screen.state.seq == 1)
        await wait_until(pilot, lambda: footer_keys(app).get("u") == ("undo", False))
        await pilot.press("u")
        await wait_until(pilot, lambda: screen.status.last.startswith("✗ undo: "))
        with pytest.raises(ArenaError) as refused:
            await ada.move(race_id, "undo")
        assert screen.status.last == f"✗ undo: {refused.value.message}"  # as typing undo says
        assert screen.move_input.value == ""
        assert "no legal move starts with" not in rendered(screen, "#hints")
        assert screen.state.seq == 1

        # ada plays on in another session (a browser tab): this screen is not told. The
        # same move typed here under the same seq is acked as a resend of that one: not
        # shown as played, the board read again.
        elsewhere = await connect(arena.url)
        await elsewhere.hello(token=ada.token)
        there = await elsewhere.move(race_id, "deal", seq=2)
        await _type(pilot, "deal")
        await wait_until(pilot, lambda: "elsewhere" in screen.status.last)
        assert screen.status.last == (
            "✗ deal not played: this race was played on elsewhere (another window or device). "
            "The board is shown as it is now: play your move again."
        )
        assert screen.state.seq == 2 and screen.board.plain == board_text(there.view)
        stored = await ada.board(race_id)
        assert stored is not None and stored.seq == 2  # nothing of this screen's was played
        # Another move typed under a seq played elsewhere: the same words, not the server's.
        there = await elsewhere.move(race_id, "deal", seq=3)
        await _type(pilot, "undo")
        await wait_until(pilot, lambda: screen.status.last.startswith("✗ undo not played"))
        assert screen.status.last == (
            "✗ undo not played: this race was played on elsewhere (another window or device). "
            "The board is shown as it is now: play your move again."
        )
        assert screen.state.seq == 3 and screen.board.plain == board_text(there.view)
        await _type(pilot, "deal")
        await wait_until(pilot, lambda: screen.state.seq == 4)
        assert screen.status.last == "✓ deal"


async def test_the_footer_shows_give_up_during_the_race_and_replay_after_it(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, bob, race_id = await _race(arena, connect)
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: "ctrl+g" in footer_keys(app))
        assert "ctrl+r" not in footer_keys(app)
        await _both_finish(pilot, screen, bob, race_id)
        await wait_until(pilot, lambda: "ctrl+r" in footer_keys(app))
        assert footer_keys(app)["ctrl+r"] == ("replay", True) and "ctrl+g" not in footer_keys(app)


async def test_an_arrow_key_in_the_empty_move_field_goes_to_the_board(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, _, race_id = await _race(arena, connect)
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        board, field = screen.board, screen.move_input
        await wait_until(pilot, lambda: screen.state.view is not None and screen.playing)
        assert field.has_focus and board.cursor is None
        await pilot.press("down")
        assert board.has_focus and board.cursor is not None  # a pile to pick, shown
        await pilot.press("t")  # typing goes back to the field
        assert field.has_focus and field.value == "t"
        await pilot.press("left")  # within the text it moves the text's cursor
        assert field.has_focus and field.cursor_position == 0
        await pilot.press("delete", "right")
        assert board.has_focus


async def daily_player(arena: ArenaServer, connect: Connect, name: str = "ada") -> ArenaClient:
    """Today's daily deals prepared, and a new guest said hello (with legal moves) to play them."""
    assert arena.features is not None
    await arena.features.daily.prepare(day_of(arena.time.now_ms()))
    player = await connect(arena.url)
    await player.hello(name=name, legal_moves=True)
    return player


async def scored_attempt(player: ArenaClient, username: str, game: GameName) -> RaceApp:
    """``player`` registered as ``username`` starts its scored daily attempt of ``game``:
    the screen that plays it."""
    await player.register(username, "a long password")
    started = await player.start_daily(game)
    return RaceApp(player, started.race.race_id, daily=DailyRun(game, started.date, scored=True))


async def test_quitting_a_daily_run_under_way_says_how_to_come_back_to_it(
    arena: ArenaServer, connect: Connect
) -> None:
    ada = await daily_player(arena, connect)
    started = await ada.start_daily("treize")
    app = RaceApp(ada, started.race.race_id, daily=DailyRun("treize", started.date))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.race_screen.state.view is not None)
    race_id = started.race.race_id
    assert app.parting_note() == (
        f"you left your treize daily attempt (race {race_id}) while it runs, and its clock with it: "
        "solitaire-arena play resumes it"
    )
    await ada.finish(race_id)
    await ada.wait_for(RaceEnded, lambda e: e.race_id == race_id)  # practice may start
    practice = await ada.start_daily("treize", practice=True)
    app = RaceApp(ada, practice.race.race_id, daily=DailyRun("treize", practice.date, practice=True))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.race_screen.state.view is not None)
        await pilot.press("ctrl+g", "ctrl+g")  # given up: nothing to come back to
        await wait_until(pilot, lambda: app.race_screen.state.i_finished)
        # The attempt's own result says it was given up, in the words of a race's results.
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.status.last.startswith("daily over"))
        assert screen.state.summary is not None
        removed = screen.state.summary.standings[0].score
        assert screen.status.last == (
            f"daily over: you gave up with {removed} card{'' if removed == 1 else 's'} removed, "
            "not on the board (practice). p practice, ctrl+q quit"
        )
        assert lines_of(rendered(screen, "#ranking"))[0] == "Your practice"
    # Quit then, it says how to replay it, as after a race (now, from the server's boards:
    # the daily deal's seed comes out once its day closes, 30 min and a minute after
    # midnight UTC).
    text = app_module.parting_text(app)
    assert text is not None and all(len(line) <= 80 for line in text.splitlines()), text
    next_day = dt.date.fromisoformat(practice.date) + dt.timedelta(days=1)
    assert " ".join(text.split()) == (
        f"your treize daily practice (race {practice.race.race_id}) is over: solitaire-arena replay "
        f"{practice.race.race_id} plays it back; its seed is revealed once the day's last attempts are over "
        f"({next_day} 00:31 UTC)"
    )


async def parting_after_the_board(app: RaceApp, renamed: str | None = None) -> str:
    """The note ``app`` leaves after it was quit once its board showed (and its player
    was ``renamed`` then), in 80 columns."""
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.race_screen.state.view is not None)
        if renamed is not None:
            await app.client.rename(renamed)
    return parting_in_80_columns(app)


def parting_in_80_columns(app: RaceApp) -> str:
    """The note ``app`` leaves after it was quit, checked to keep to 80 columns."""
    text = app_module.parting_text(app)
    assert text is not None and all(len(line) <= 80 for line in text.splitlines()), text
    return text


async def test_the_parting_notes_name_the_server_and_player_and_keep_to_80_columns(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SOLITAIRE_ARENA_CONFIG", str(tmp_path / "credentials.json"))
    monkeypatch.delenv("SOLITAIRE_ARENA_SERVER", raising=False)
    ada = await daily_player(arena, connect, "ada lovelace")  # not the default guest
    started = await ada.start_daily("treize")
    race_id = started.race.race_id
    text = await parting_after_the_board(
        RaceApp(ada, race_id, daily=DailyRun("treize", started.date), options=app_module._options(ada))
    )
    assert " ".join(text.split()) == (
        f"you left your treize daily attempt (race {race_id}) while it runs, and its clock with it: "
        f"solitaire-arena play --server {arena.url} --name 'ada lovelace' resumes it"
    )
    assert f"--server {arena.url}" in text and "--name 'ada lovelace'" in text  # each on one line
    await ada.finish(race_id)
    await ada.wait_for(RaceEnded, lambda e: e.race_id == race_id)
    ada2, _bob, race_id = await _race(arena, connect)
    # Renamed mid-race: the note names the player as they are called now.
    text = await parting_after_the_board(
        RaceApp(ada2, race_id, options=app_module._options(ada2)), "ada byron"
    )
    code = (await ada2.get_race(race_id)).code  # the race as the screen named it
    assert " ".join(text.split()) == (
        f"you left race {code} while it runs: "
        f"solitaire-arena play --server {arena.url} --name 'ada byron' resumes it"
    )


async def test_a_give_up_not_confirmed_in_time_stops_asking_for_a_second_ctrl_g(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(race_module, "GIVE_UP_WINDOW", 0.3)
    ada, _, race_id = await _race(arena, connect)
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.view is not None)
        # Every line said, as the 0.3 s may lapse between two looks at the status line.
        said: list[str] = []
        say = screen.status.say
        monkeypatch.setattr(
            screen.status, "say", lambda text, error=False: (said.append(text), say(text, error))
        )
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: GIVE_UP_LAPSED in said)
        assert said == [GIVE_UP_ASK, GIVE_UP_LAPSED]  # asked, then the ask lapsed
        assert "again within" not in rendered(screen, "#status")
        await pilot.press("ctrl+g")  # asks again, as it says
        await wait_until(pilot, lambda: said.count(GIVE_UP_ASK) == 2)
        assert not screen.state.i_finished


async def _both_finish(pilot: Pilot[None], screen: RaceScreen, bob: ArenaClient, race_id: str) -> None:
    await pilot.press("ctrl+g")  # ada gives up in the terminal: asked first
    await wait_until(pilot, lambda: screen.status.last == GIVE_UP_ASK)
    assert not screen.state.i_finished
    await pilot.press("ctrl+g")
    await wait_until(pilot, lambda: screen.state.i_finished)
    # Done while bob races: the field no longer offers moves, undo or hints.
    await wait_until(pilot, lambda: screen.move_input.disabled)
    assert screen.move_input.placeholder == DONE_WAITING
    await bob.finish(race_id)
    await wait_until(pilot, lambda: screen.state.summary is not None)


async def test_r_offers_a_rematch_and_the_screen_follows_the_new_race(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, bob, race_id = await _race(arena, connect)
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.view is not None)
        assert "r" not in footer_keys(app)  # not before the end
        await _both_finish(pilot, screen, bob, race_id)
        assert "r rematch" in screen.status.last
        await wait_until(pilot, lambda: footer_keys(app).get("r") == ("rematch", True))
        assert "r offers one" in rendered(screen, "#rematch")
        await pilot.press("r")
        offer = await bob.wait_for(RematchUpdate, lambda u: u.rematch.race_id == race_id)
        assert offer.rematch.offered_by == ada.player_id and offer.rematch.status == "open"
        await wait_until(pilot, lambda: screen.status.last == "rematch offered: waiting for bob")
        assert "bob" in rendered(screen, "#rematch") and "pending" in rendered(screen, "#rematch")
        await wait_until(pilot, lambda: "r" not in footer_keys(app))  # one offer at a time

        answered = await bob.answer_rematch(race_id, accept=True)
        assert answered.status == "started" and answered.new_race_id is not None
        await wait_until(pilot, lambda: screen.race_id == answered.new_race_id)
        await wait_until(pilot, lambda: screen.state.status == "running" and screen.state.view is not None)
        assert screen.board.plain == OPENING  # the test server deals seed 2 again
        assert screen.state.summary is None and "Ranking" in rendered(screen, "#ranking")
        assert not screen.query_one("#rematch").display
        # Moves now go to the new race.
        move = new_game("eight-off", WINNABLE_SEED).legal_moves()[0]
        await _type(pilot, move)
        seen = await bob.wait_for(Progress, lambda p: p.race_id == answered.new_race_id)
        assert seen.player_id == ada.player_id and seen.move_count == 1
        await wait_until(pilot, lambda: screen.state.seq == 1)


async def test_on_a_small_terminal_my_rematch_row_keeps_its_answer_beside_a_long_name(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, bob, race_id = await _race(arena, connect, name="filler-with-long-name-xx")
    app = RaceApp(ada, race_id)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.view is not None)
        await _both_finish(pilot, screen, bob, race_id)
        await pilot.press("r")
        await bob.wait_for(RematchUpdate, lambda u: u.rematch.race_id == race_id)
        await bob.answer_rematch(race_id, accept=False)
        await until_shown(pilot, app, "no rematch: nobody")

        def my_rows() -> list[str]:
            return [line for line in screen_lines(app) if re.search(r"\byou\b.* offered$", line)]

        # The rows under the note can show a refresh of the screen after it.
        await wait_until(pilot, lambda: bool(my_rows()))
        assert len(my_rows()) == 1, "\n".join(screen_lines(app))


async def test_a_rematch_that_starts_during_the_replay_closes_it_and_shows_the_new_race(
    arena: ArenaServer, connect: Connect
) -> None:
    """ada offers a rematch, then opens the replay of the race that ended; bob accepts:
    the replay closes by itself and the new race shows, saying why (it used to start
    unseen under the replay, its clock running)."""
    ada, bob, race_id = await _race(arena, connect)
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.view is not None)
        await _both_finish(pilot, screen, bob, race_id)
        await pilot.press("r")
        await bob.wait_for(RematchUpdate, lambda u: u.rematch.race_id == race_id)
        await wait_until(pilot, lambda: screen.status.last == "rematch offered: waiting for bob")
        await pilot.press("ctrl+r")
        await replay_opened(pilot, app)
        await until_shown(pilot, app, f"Replay  race {race_id}")

        answered = await bob.answer_rematch(race_id, accept=True)
        assert answered.status == "started" and answered.new_race_id is not None
        closed = f"replay of race {race_id} closed: your rematch started"
        # The rematch goes through the server to ada's client first: longer on a loaded machine.
        await wait_until(
            pilot, lambda: app.screen is screen and screen.status.last.startswith(closed), timeout=15
        )
        await wait_until(pilot, lambda: screen.state.status == "running" and screen.state.view is not None)
        await wait_until(pilot, lambda: screen.status.last == f"{closed}\n{GO}")
        await until_shown(pilot, app, closed)
        assert not unseen(app, OPENING)  # the new race's board, in view
        assert not any(line.startswith("Replay  race") for line in screen_lines(app))
        await _type(pilot, new_game("eight-off", WINNABLE_SEED).legal_moves()[0])
        seen = await bob.wait_for(Progress, lambda p: p.race_id == answered.new_race_id)
        assert seen.player_id == ada.player_id and seen.move_count == 1


async def test_a_rematch_read_after_its_start_says_go_once_with_the_replay_closed(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The new race's start reaches the screen both ways: the read of the race made when
    the rematch is followed, and the start's event after it. The read came after the
    countdown (held here until bob saw the start): the status line keeps "replay …
    closed" with "Go!", said once (the event's second "Go!" used to replace it, as CI saw
    on a loaded machine)."""
    ada, bob, race_id = await _race(arena, connect)
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        resync = screen._resync
        applied: list[object] = []
        apply = RaceState.apply

        def noting(state: RaceState, event: ServerMessage) -> bool:
            applied.append(event)
            return apply(state, event)

        monkeypatch.setattr(RaceState, "apply", noting)

        async def after_the_start() -> None:
            await bob.wait_for(RaceStarted, lambda e: e.race_id == screen.race_id)
            await resync()

        await wait_until(pilot, lambda: screen.state.view is not None)
        await _both_finish(pilot, screen, bob, race_id)
        await pilot.press("r")
        await bob.wait_for(RematchUpdate, lambda u: u.rematch.race_id == race_id)
        await pilot.press("ctrl+r")
        await replay_opened(pilot, app)
        monkeypatch.setattr(screen, "_resync", after_the_start)
        answered = await bob.answer_rematch(race_id, accept=True)
        closed = f"replay of race {race_id} closed: your rematch started"
        await wait_until(pilot, lambda: screen.race_id == answered.new_race_id, timeout=15)
        await wait_until(pilot, lambda: screen.state.status == "running")
        await wait_until(
            pilot,
            lambda: any(isinstance(e, RaceStarted) and e.race_id == answered.new_race_id for e in applied),
        )
        await pilot.pause()  # the screen took the start's event in too
        assert screen.status.last == f"{closed}\n{GO}"


@contextlib.asynccontextmanager
async def race_over_on_adas_screen(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[ArenaClient, ArenaClient, str, RaceApp, Pilot[None], asyncio.Event]]:
    """ada (who resumes a drop) and bob both gave up the race ada's screen shows: ada, bob,
    the race's id, the app, its pilot, and the event that lets a drop of ada's from now on
    be resumed (:func:`away_until_set`)."""
    ada, bob, race_id = await _race(arena, connect, reconnect=True)
    app = RaceApp(ada, race_id)
    away = away_until_set(monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.view is not None)
        await _both_finish(pilot, screen, bob, race_id)
        yield ada, bob, race_id, app, pilot, away


async def test_a_rematch_offered_while_the_connection_was_down_is_said_once_it_is_back(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob offers while ada's network is down: the server declines for her at once (she is
    connected nowhere) and its events never reach her. Back, the screen reads the offer
    from the race and says where it stands, and r may offer again."""
    async with race_over_on_adas_screen(arena, connect, monkeypatch) as (ada, bob, race_id, app, pilot, away):
        screen = app.race_screen
        ada.ws.transport.abort()  # the network drops, and stays down a while
        await wait_until(pilot, lambda: ada.reconnecting)
        # Told on the screen's next tick (a quarter of a second): on a fast machine all that
        # follows could be over before it, and "reconnected" replaces only that notice.
        await wait_until(pilot, lambda: screen.status.last == RECONNECTING)
        assert arena.store is not None
        for _ in range(200):  # the server saw her go
            if ada.player_id not in await arena.store.nodes.players(arena.settings.node_id):
                break
            await asyncio.sleep(0.01)
        offered = await bob.offer_rematch(race_id)
        assert offered.status == "declined"
        away.set()
        said = f"{RECONNECTED}\nno rematch: nobody accepted bob's offer"
        await wait_until(pilot, lambda: screen.status.last == said)
        assert screen.state.rematch is not None and screen.state.rematch.status == "declined"
        assert "nobody accepted" in rendered(screen, "#rematch")
        await wait_until(pilot, lambda: footer_keys(app).get("r") == ("rematch", True))


async def test_a_rematch_that_started_while_the_connection_was_down_is_followed_once_it_is_back(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ada offers; her network drops; bob accepts within the 5 s an invited racer may be
    away, so the rematch starts while she is away and its rematch_started never reaches
    her. Back, the screen follows the new race (the client makes the lost event again,
    revealing her seed share while the race still counts down)."""
    async with race_over_on_adas_screen(arena, connect, monkeypatch) as (ada, bob, race_id, app, pilot, away):
        screen = app.race_screen
        await pilot.press("r")
        await bob.wait_for(RematchUpdate, lambda u: u.rematch.race_id == race_id)
        ada.ws.transport.abort()  # the network drops, and stays down a while
        await wait_until(pilot, lambda: ada.reconnecting)
        started = await bob.answer_rematch(race_id, accept=True)
        assert started.status == "started" and started.new_race_id is not None
        away.set()
        await wait_until(pilot, lambda: screen.race_id == started.new_race_id, timeout=10.0)
        await wait_until(pilot, lambda: screen.state.status == "running" and screen.state.view is not None)
        assert screen.board.plain == OPENING and screen.state.summary is None
        # Moves now go to the new race.
        await _type(pilot, new_game("eight-off", WINNABLE_SEED).legal_moves()[0])
        seen = await bob.wait_for(Progress, lambda p: p.race_id == started.new_race_id)
        assert seen.player_id == ada.player_id and seen.move_count == 1


async def test_a_race_ended_by_its_time_limit_says_time_ran_out(arena: ArenaServer, connect: Connect) -> None:
    ada, bob = await connect(arena.url), await connect(arena.url)
    await ada.hello(name="ada", legal_moves=True)
    await bob.hello(name="bob")
    race = await ada.create_race("eight-off", seats=2, time_limit=2.0)
    await bob.join_race(race.code)
    await ada.ready(race.race_id)
    await bob.ready(race.race_id)
    app = RaceApp(ada, race.race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.summary is not None, timeout=10.0)
        assert screen.status.last == (
            "race over (time ran out): you tied 1st of 2. r rematch, ctrl+r replay, ctrl+q quit"
        )


async def test_an_offer_from_another_racer_is_answered_with_n_and_y(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    ada, bob, race_id = await _race(arena, connect)
    offer_rematch = ada.offer_rematch

    async def declined_before_the_reply(race_id: str, share: bool = True) -> RematchInfo:
        """ada's own offer, its reply (still open) held until bob's decline reached the screen."""
        reply = await offer_rematch(race_id, share)
        await bob.answer_rematch(race_id, accept=False)
        while screen.state.rematch is None or screen.state.rematch.status != "declined":
            await asyncio.sleep(0.01)
        return reply

    app = RaceApp(ada, race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.view is not None)
        await _both_finish(pilot, screen, bob, race_id)

        await bob.offer_rematch(race_id)
        offered = "bob offers a rematch: y accepts, n declines"
        await wait_until(pilot, lambda: screen.status.last == offered)
        assert offered in rendered(screen, "#rematch")
        await wait_until(pilot, lambda: {"y", "n"} <= set(footer_keys(app)))
        assert footer_keys(app)["y"] == ("accept rematch", True) and "r" not in footer_keys(app)
        await pilot.press("n")
        declined = await bob.wait_for(RematchUpdate, lambda u: u.rematch.status == "declined")
        assert {r.name: r.answer for r in declined.rematch.racers} == {"bob": "offered", "ada": "declined"}
        await wait_until(pilot, lambda: screen.status.last == "no rematch: nobody accepted bob's offer")
        assert screen.race_id == race_id
        await wait_until(pilot, lambda: "y" not in footer_keys(app) and "r" in footer_keys(app))

        # ada offers, bob declines at once: the older open reply does not undo the decline.
        monkeypatch.setattr(ada, "offer_rematch", declined_before_the_reply)
        await pilot.press("r")
        await wait_until(pilot, lambda: screen.status.last == "no rematch: nobody accepted your offer")
        await wait_until(pilot, lambda: not any(w.is_running for w in screen.workers if w.group == "rematch"))
        assert screen.status.last == "no rematch: nobody accepted your offer"
        await wait_until(pilot, lambda: footer_keys(app).get("r") == ("rematch", True))

        await bob.offer_rematch(race_id)  # again: this time ada accepts
        await wait_until(pilot, lambda: screen.status.last == offered)
        await wait_until(pilot, lambda: "y" in footer_keys(app))
        await pilot.press("y")
        started = await bob.wait_for(RematchStarted)
        assert started.race_id == race_id
        await wait_until(pilot, lambda: screen.race_id == started.race.race_id)
        await wait_until(pilot, lambda: screen.state.status == "running" and screen.state.view is not None)
        assert screen.board.plain == OPENING
        assert screen.status.last.startswith("go!")


# ----- ratings ----------------------------------------------------------------------------------


async def test_a_rated_race_shows_ratings_beside_names_and_the_new_ones_at_the_end(
    clean_redis: str, connect: Connect
) -> None:
    async with running_node(clean_redis, spectator_delay=0.0) as arena:
        await _rated_race_raced_and_watched(arena, connect)


async def test_a_race_nobody_scored_in_ends_as_a_tie_not_a_win(arena: ArenaServer, connect: Connect) -> None:
    ada, bob = await connect(arena.url), await connect(arena.url)
    for client, name in ((ada, "ada"), (bob, "bob")):
        await client.hello(name=name)
        await client.register(f"{name}_tied", "a long password")
    race = await ada.create_race("eight-off", seats=2, time_limit=60, rated=True)
    await bob.join_race(race.code)
    app = RaceApp(ada, race.race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: len(screen.state.racers) == 2)
        await ada.ready(race.race_id)
        await bob.ready(race.race_id)
        await wait_until(pilot, lambda: screen.state.view is not None)
        await pilot.press("ctrl+g", "ctrl+g")  # both give up at 0: a draw
        await wait_until(pilot, lambda: screen.state.i_finished)
        await bob.finish(race.race_id)
        await wait_until(pilot, lambda: "race over" in screen.status.last)
        ranking = lines_of(rendered(screen, "#ranking"))
        assert [line.split()[0] for line in ranking if line.split()[1:2] in (["ada_tied"], ["bob_tied"])] == [
            "1.",
            "1.",
        ]
        assert "race over: you tied 1st of 2, rating 1500? ±0." in screen.status.last, screen.status.last


async def _rated_race_raced_and_watched(arena: ArenaServer, connect: Connect) -> None:
    """The rated race's screen, then the watch screen of sam, who watched it."""
    ada, bob, sam = await connect(arena.url), await connect(arena.url), await connect(arena.url)
    await sam.hello(name="sam")
    await ada.hello(name="ada", legal_moves=True)
    await ada.register("ada_rated", "a long password")
    await bob.hello(name="bob")
    await bob.register("bob_rated", "a long password")
    race = await ada.create_race("eight-off", seats=2, time_limit=60, rated=True)
    assert race.rated and not race.hints
    await bob.join_race(race.code)
    app = RaceApp(ada, race.race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: len(screen.state.racers) == 2)
        assert "Rated: ratings change at the end" in rendered(screen, "#race-info")
        # New accounts: no rating in eight off yet, so 1500 and provisional.
        racers = lines_of(rendered(screen, "#racers"))
        assert "ada_rated (you)  1500?" in racers and "bob_rated  1500?" in racers
        await ada.ready(race.race_id)
        await bob.ready(race.race_id)
        await wait_until(pilot, lambda: screen.state.view is not None)
        watching = await sam.watch(race.race_id)
        # Bob takes a card home, ada gives up at 0: bob ranks first.
        for move in foundation_moves(1):
            await bob.move(race.race_id, move)
        await pilot.press("ctrl+g", "ctrl+g")
        await wait_until(pilot, lambda: screen.state.i_finished)
        await bob.finish(race.race_id)
        await wait_until(pilot, lambda: screen.state.summary is not None)
        winner = round(rate(Rating(), [(Rating(), 1.0)]).rating)
        loser = round(rate(Rating(), [(Rating(), 0.0)]).rating)
        # One game played: both ratings are still provisional, in the results and the
        # racers panel alike (the end's standings do not say so: get_race does).
        await wait_until(pilot, lambda: "you placed" in screen.status.last)
        ranking = lines_of(rendered(screen, "#ranking"))
        assert ranking[0] == "Results"
        assert ranking[1].split()[:2] == ["1.", "bob_rated"]
        assert ranking[1].endswith("  gave up")  # both gave up: where a winner has the time
        assert ranking[2] == f"   rating {winner}? {winner - 1500:+d}"  # 1662? +162
        assert ranking[3].split()[:2] == ["2.", "ada_rated"]
        assert ranking[3].endswith("  gave up") and max(map(len, ranking)) <= 80
        assert ranking[4] == f"   rating {loser}? {loser - 1500:+d}"  # 1338? -162
        assert f"you placed 2nd of 2, rating {loser}? {loser - 1500:+d}." in screen.status.last
        # The racers panel gives the new ratings with their change too.
        racers = lines_of(rendered(screen, "#racers"))
        assert f"ada_rated (you)  {loser}? {loser - 1500:+d}" in racers
        assert f"bob_rated  {winner}? {winner - 1500:+d}" in racers
        # In 80x24 (the panel narrowed), the flag by the name and the rating beside the bar.
        await pilot.resize_terminal(*SMALL)
        await wait_until(pilot, lambda: screen.query_one("#racers", RacersPanel).columns < 32)
        racers = lines_of(rendered(screen, "#racers"))
        assert racers[0].startswith("ada_") and racers[0].endswith(" (you)  gave up"), racers
        assert any(line.endswith(f" {loser}? {loser - 1500:+d}") for line in racers), racers
        assert any(line.endswith(f" {winner}? {winner - 1500:+d}") for line in racers), racers
        await until_shown(pilot, app, "\n".join(racers[:2]))  # the panel is cut to my own row here
        # bob offers a rematch: rated, as the race was, and the screen says so.
        await bob.offer_rematch(race.race_id)
        offered = "bob_rated offers a rated rematch: y accepts, n declines"
        await wait_until(pilot, lambda: screen.status.last == offered)
        await pilot.press("n")
        await wait_until(pilot, lambda: screen.status.last == "no rematch: nobody accepted bob_rated's offer")
    # What `play` prints once the screen is gone.
    assert (
        app.parting_note()
        == f"race {race.race_id} is over: solitaire-arena replay {race.race_id} plays it back"
    )
    # Sam's watch screen takes in the race as sam's client heard it: the same new
    # ratings, provisional, in the results, over the large board and on the cards.
    watch = WatchApp(sam, watching, target=race.race_id)
    async with watch.run_test(size=SIZE) as pilot:
        screen = watch.watch_screen
        await wait_until(pilot, lambda: screen.watched.summary is not None)
        assert lines_of(shown(screen, "#watch-results")) == [
            "Results",
            "1. bob_rated    1 card home",
            "   gave up",
            f"   rating {winner}? {winner - 1500:+d}",
            "2. ada_rated    0 cards home",
            "   gave up",
            f"   rating {loser}? {loser - 1500:+d}",
        ]
        assert shown(screen, "#watch-focus").startswith(f"1/2 ada_rated {loser}?  gave up\n")
        assert str(screen.cards[bob.player_id or ""].render()).startswith(f"2 bob_rated  {winner}?  gave up")
        # As `watch --plain` prints the end.
        ended = RaceEnded(race_id=race.race_id, summary=screen.watched.summary)
        assert screen.watched.describe(ended)[1:] == [
            f"  1. bob_rated  gave up with 1 card home, 1 move, rating {winner}? {winner - 1500:+d}",
            f"  2. ada_rated  gave up with 0 cards home, 0 moves, rating {loser}? {loser - 1500:+d}",
        ]


async def test_a_casual_race_says_so_and_shows_known_ratings_only(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, bob, race_id = await _race(arena, connect)
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.view is not None)
        assert "Casual: no ratings change" in rendered(screen, "#race-info")
        racers = lines_of(rendered(screen, "#racers"))
        assert "ada (you)" in racers and "bob" in racers  # guests: no rating beside the name
        await _both_finish(pilot, screen, bob, race_id)
        assert "rating" not in rendered(screen, "#ranking") and "rating" not in screen.status.last


# ----- a daily attempt --------------------------------------------------------------------------


async def test_a_daily_attempt_played_to_a_win_shows_its_result_and_board_place(
    arena: ArenaServer, connect: Connect
) -> None:
    assert arena.features is not None and arena.store is not None
    today = day_of(arena.time.now_ms())
    # Prepared before the app runs: the solver's worker process cannot start from inside it.
    await arena.features.daily.prepare(today)
    deal = await arena.store.dailies.deal(today.isoformat(), "eight-off")
    assert deal is not None
    line = solve_deal("eight-off", deal.seed).line
    assert line is not None and len(line) > 6
    # bob's scored attempt is on the board first (given up at once: behind any win).
    bob = await connect(arena.url)
    await bob.hello(name="bob")
    await bob.register("bob_daily", "a long password")
    bobs = await bob.start_daily("eight-off")
    await bob.finish(bobs.race.race_id)
    ada = await connect(arena.url)
    await ada.hello(name="ada", legal_moves=True)  # as the daily command says hello
    await ada.register("ada_daily", "a long password")
    started = await ada.start_daily("eight-off")  # as the daily command starts it
    assert started.scored
    date = started.date
    app = RaceApp(ada, started.race.race_id, daily=DailyRun("eight-off", date, scored=True))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        board = screen.board
        await wait_until(pilot, lambda: screen.state.view is not None and screen.status.last.endswith(GO))
        deal_view = view_of(new_game("eight-off", deal.seed))
        assert board.plain == board_text(deal_view)
        assert lines_of(rendered(screen, "#race-info")) == [
            f"eight-off  daily {date}",
            "Daily — scored attempt",
            "hints off in this attempt",
        ]
        assert screen.status.last.startswith(f"Daily — scored attempt, eight-off of {date}: go!")
        assert "left" in rendered(screen, "#clock")
        assert "waiting" not in screen.status.last and "Rematch" not in rendered(screen, "#rematch")
        for index, move in enumerate(line):
            if index < 4:
                await _type(pilot, move)
            else:  # the rest pasted into the field (a key press costs the pilot ~50 ms)
                screen.move_input.post_message(events.Paste(move))
                await pilot.press("enter")
            await wait_until(pilot, lambda: screen.state.seq == index + 1)  # noqa: B023
        assert board.plain == board_text(view_of(replay("eight-off", deal.seed, line)))
        await wait_until(pilot, lambda: screen.status.last.startswith("daily over"))

        summary = screen.state.summary
        assert summary is not None and summary.standings[0].won
        seconds = tenths_of_seconds(summary.standings[0].time_ms or 0)
        assert screen.status.last == (
            f"daily over: you won in {seconds} s, #1 of 2 on the eight-off board of {date}. "
            "p practice, ctrl+q quit"
        )
        assert lines_of(rendered(screen, "#daily")) == [
            f"Board of {date}",
            f"#1 of 2: won in {seconds} s",
            "p practises the deal (unscored)",
        ]
        assert lines_of(rendered(screen, "#ranking"))[0] == "Your attempt"
        assert not screen.query_one("#rematch").display
        await wait_until(pilot, lambda: "p" in footer_keys(app))
        assert footer_keys(app)["p"] == ("practice", True) and "r" not in footer_keys(app)

        # The seed is secret until reveals_at, but one's own attempt replays from the
        # server's boards (as in the browser): offered, and escape comes back.
        assert footer_keys(app)["ctrl+r"] == ("replay", True)
        await pilot.press("ctrl+r")
        await replay_opened(pilot, app)
        await pilot.press("escape")
        assert isinstance(app.screen, RaceScreen) and screen.status.last.startswith("daily over")

        # p plays the same deal again, unscored, on the same screen.
        await pilot.press("p")
        await wait_until(pilot, lambda: screen.race_id != started.race.race_id)
        await wait_until(pilot, lambda: screen.state.view is not None)
        assert board.plain == board_text(deal_view)
        assert "Daily — practice (unscored)" in lines_of(rendered(screen, "#race-info"))
        assert screen.state.hints and screen.command_key("h") is True  # practice allows hints

    # The board: ada first, bob second.
    ranked = await bob.daily_board("eight-off")
    assert [(e.rank, e.name) for e in ranked.entries] == [(1, "ada_daily"), (2, "bob_daily")]

    # A second scored attempt is refused, and the screen says so.
    again = RaceApp(ada, daily=DailyRun("eight-off"))
    async with again.run_test(size=SIZE) as pilot:
        screen = again.race_screen
        await wait_until(pilot, lambda: screen.status.last.startswith("✗"))
        assert screen.status.last.startswith("✗ daily: your eight-off attempt of today is over")
        assert "daily_attempted" not in rendered(screen, "#status")  # words, no protocol code
        assert lines_of(rendered(screen, "#race-info")) == ["eight-off  daily", "Daily — attempt"]
        assert screen.state.view is None and screen.move_input.disabled


async def test_a_daily_attempt_resumed_after_the_client_went_away_plays_on_with_its_clock_from_the_start(
    arena: ArenaServer, connect: Connect
) -> None:
    first = await daily_player(arena, connect)
    await first.register("ada_resumes", "a long password")
    started = await first.start_daily("eight-off")
    assert started.race.board is not None
    opening = (started.race.board.view.legal_moves or [])[0]
    await first.move(started.race.race_id, opening)
    token = first.token
    assert token is not None
    await first.close()  # the terminal client went away mid-attempt

    ada = await connect(arena.url)
    await ada.hello(token=token, legal_moves=True)  # as the daily command says hello
    resumed = await ada.start_daily("eight-off")  # as the daily command starts it
    assert resumed.resumed and resumed.race.race_id == started.race.race_id
    daily = DailyRun("eight-off", resumed.date, scored=resumed.scored)
    app = RaceApp(ada, resumed.race.race_id, daily=daily)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.view is not None and screen.status.last.endswith(GO))
        assert screen.state.seq == 1 and screen.state.view is not None and screen.state.view.move_count == 1
        # The clock runs from the attempt's first start.
        assert screen.state.starts_at == started.race.starts_at
        assert screen.state.ends_at == started.race.ends_at
        assert "Daily — scored attempt" in lines_of(rendered(screen, "#race-info"))
        await _type(pilot, screen.legal[0])
        await wait_until(pilot, lambda: screen.state.seq == 2)
        assert screen.status.last.startswith("✓ ")


async def test_a_daily_practice_left_running_is_what_the_daily_command_resumes(
    arena: ArenaServer, connect: Connect
) -> None:
    first = await daily_player(arena, connect)
    attempt = await first.start_daily("treize")
    await first.finish(attempt.race.race_id)
    await first.wait_for(RaceEnded, lambda e: e.race_id == attempt.race.race_id)
    practice = await first.start_daily("treize", practice=True)
    token = first.token
    assert token is not None
    await first.close()  # the terminal client went away mid-practice

    ada = await connect(arena.url)
    welcome = await ada.hello(token=token, legal_moves=True)
    with pytest.raises(ArenaError) as refused:  # what `daily treize --practice` was told
        await ada.start_daily("treize", practice=True)
    assert refused.value.code == "already_racing"
    left = await daily_run_left(ada, welcome.races, "treize")
    assert left is not None and left[0].race_id == practice.race.race_id
    assert left[1] == DailyRun("treize", practice.date, practice=True)
    assert await daily_run_left(ada, welcome.races, "eight-off") is None


#: The leader's first moves, 0.15 s apart: the ghost's timeline has three seconds to show
#: (all but its last when the day's line is shorter: the deal comes from a new secret).
PACED = 20
GHOST_ROW = re.compile(r"leader_daily  ghost #1\n[█░]{16} +(\d+) left\n  moves +(\d+)(.*)")


def ghost_row(screen: RaceScreen) -> tuple[int, int, str] | None:
    """The leader's ghost row in the racers panel: cards left, moves, how it ended."""
    found = GHOST_ROW.search(rendered(screen, "#racers"))
    return (int(found[1]), int(found[2]), found[3].strip()) if found else None


async def test_g_races_the_days_best_attempt_as_a_ghost_that_advances_beside_mine(
    arena: ArenaServer, connect: Connect
) -> None:
    assert arena.features is not None and arena.store is not None
    today = day_of(arena.time.now_ms())
    await arena.features.daily.prepare(today)
    deal = await arena.store.dailies.deal(today.isoformat(), "eight-off")
    assert deal is not None
    line = solve_deal("eight-off", deal.seed).line
    assert line is not None and len(line) > 8
    paced = min(PACED, len(line) - 1)
    # The leader wins its scored attempt first: its moves' times are the ghost's timeline.
    leader = await connect(arena.url)
    await leader.hello(name="leader")
    await leader.register("leader_daily", "a long password")
    leads = await leader.start_daily("eight-off")
    # Paced so that the ghost is still partway (7 s in) once ada's screen is up and has asked
    # for it, even on a loaded machine.
    for index, move in enumerate(line):
        await leader.move(leads.race.race_id, move)
        await asyncio.sleep(0.35 if index < paced else 0.025)  # then under 50 messages a second
    ended = await leader.wait_for(RaceEnded, lambda e: e.race_id == leads.race.race_id)
    won_ms = ended.summary.standings[0].time_ms
    assert won_ms is not None and won_ms > paced * 350
    won = f"won in {tenths_of_seconds(won_ms)} s"

    ada = await connect(arena.url)
    await ada.hello(name="ada", legal_moves=True)
    app = await scored_attempt(ada, "ada_daily", "eight-off")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.status.last.endswith(GO))
        await wait_until(pilot, lambda: "g" in footer_keys(app))
        assert footer_keys(app)["g"] == ("ghosts", True)
        assert "ghost" not in rendered(screen, "#racers")

        await pilot.press("g")
        await wait_until(pilot, lambda: ghost_row(screen) is not None)
        assert screen.status.last == f"racing ghosts: leader_daily (#1, {won}); g hides them"
        # Mine first, the ghost under it; then it moves on as my clock reaches its times.
        racers = rendered(screen, "#racers")
        assert racers.index("ada_daily (you)") < racers.index("leader_daily  ghost #1")
        seen = [ghost_row(screen)]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + won_ms / 1000 + 15
        while seen[-1] is None or not seen[-1][2]:
            assert loop.time() < deadline, seen
            await pilot.pause(0.02)
            row = ghost_row(screen)
            if row != seen[-1]:
                seen.append(row)
        rows = [row for row in seen if row is not None]
        assert len(rows) == len(seen) >= 4, seen  # shown all along, and advancing
        first_left, first_moves, first_end = rows[0]
        assert first_left > 0 and first_moves < paced and first_end == "", rows  # partway at first
        moves = [m for _, m, _ in rows]
        assert moves == sorted(set(moves)), moves  # forward only
        for left, count, _ in rows:  # each as the leader's board stood after that many moves
            assert left == 52 - replay("eight-off", deal.seed, line[:count]).score
        assert rows[-1] == (0, len(line), won)

        # The word does the same: off (the rows go), on again (straight to where it is now).
        await _type(pilot, "ghosts")
        await wait_until(pilot, lambda: screen.status.last == "ghosts off")
        assert "ghost" not in rendered(screen, "#racers") and not screen.state.ghosts
        screen.move_input.post_message(events.Paste("ghosts"))
        await pilot.press("enter")
        await wait_until(pilot, lambda: ghost_row(screen) == (0, len(line), won))
        assert screen.move_input.value == ""

        # Once the attempt is over, g is gone from the footer and refused as a word.
        await pilot.press("ctrl+g", "ctrl+g")
        await wait_until(pilot, lambda: screen.status.last.startswith("daily over"))
        await wait_until(pilot, lambda: "g" not in footer_keys(app))
        screen.move_input.post_message(events.Paste("ghosts"))
        await pilot.press("enter")
        await wait_until(pilot, lambda: "ghosts race your own scored daily attempt" in screen.status.last)
        assert ghost_row(screen) == (0, len(line), won)  # the last positions stay on the panel


async def test_ghosts_raced_when_the_node_went_down_race_on_once_the_connection_is_back(
    clean_redis: str, connect: Connect
) -> None:
    """ada races the day's leader as a ghost; the node goes down (and the ghost's feed
    with it) and comes back: the ghost races on to its end (it used to stay frozen where
    the drop found it, the screen still saying it raced it)."""
    port, paced = free_port(), 10
    async with contextlib.AsyncExitStack() as first_node:
        node = await first_node.enter_async_context(running_node(clean_redis, port=port))
        assert node.features is not None and node.store is not None
        today = day_of(node.time.now_ms())
        await node.features.daily.prepare(today)
        deal = await node.store.dailies.deal(today.isoformat(), "eight-off")
        assert deal is not None
        line = solve_deal("eight-off", deal.seed).line
        assert line is not None and len(line) > paced
        leader = await connect(node.url)
        await leader.hello(name="leader")
        await leader.register("leader_daily", "a long password")
        leads = await leader.start_daily("eight-off")
        for move in line[:paced]:  # half a second apart: the ghost takes 5 s to give up
            await leader.move(leads.race.race_id, move)
            await asyncio.sleep(0.5)
        await leader.finish(leads.race.race_id)
        await leader.wait_for(RaceEnded, lambda e: e.race_id == leads.race.race_id)

        ada = await connect(node.url, reconnect=True, resume_patience=30)
        await ada.hello(name="ada", legal_moves=True)
        app = await scored_attempt(ada, "ada_daily", "eight-off")
        async with app.run_test(size=SIZE) as pilot:
            screen = app.race_screen
            await wait_until(pilot, lambda: screen.status.last.endswith(GO))
            await pilot.press("g")
            await wait_until(pilot, lambda: ghost_row(screen) is not None)
            row = ghost_row(screen)
            assert row is not None and row[1] < paced and row[2] == "", row  # partway
            await first_node.aclose()  # the node goes down, the ghost's feed with it
            await wait_until(pilot, lambda: screen.status.last == RECONNECTING)
            async with running_node(clean_redis, port=port):
                await wait_until(pilot, lambda: screen.status.last == RECONNECTED, timeout=15)
                await wait_until(pilot, lambda: (ghost_row(screen) or (0, 0, ""))[2] == "gave up", timeout=15)
                left, moves, _ = ghost_row(screen) or (0, 0, "")
                assert moves == paced and left == 52 - replay("eight-off", deal.seed, line[:paced]).score
                assert "leader_daily  ghost #1" in rendered(screen, "#racers")


# ----- spectators ------------------------------------------------------------------------------


def spectators_view(view: BoardView) -> BoardView:
    """A racer's view as a spectator gets it: without the racer's own legal moves."""
    return view.model_copy(update={"legal_moves": None, "can_undo": None})


async def sam_watching(url: str, connect: Connect, race_id: str) -> WatchApp:
    """The watch screen of sam, a spectator of ``race_id``."""
    sam = await connect(url)
    await sam.hello(name="sam")
    return WatchApp(sam, await sam.watch(race_id), target=race_id)


def shown(screen: WatchScreen, selector: str) -> str:
    return str(screen.query_one(selector).render())


def away_until_set(monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """From now on a dropped connection is resumed only once the event returned is set:
    the network stays down until then."""
    back = asyncio.Event()
    resume = ArenaClient._resume

    async def resume_once_back(client: ArenaClient, dropped: ConnectionEnded) -> None:
        await back.wait()
        await resume(client, dropped)

    monkeypatch.setattr(ArenaClient, "_resume", resume_once_back)
    return back


async def test_the_watch_screen_in_a_terminal_too_short_for_its_boards_says_so(
    arena: ArenaServer, connect: Connect
) -> None:
    _ada, _bob, race_id = await _race(arena, connect)
    app = await sam_watching(arena.url, connect, race_id)
    async with app.run_test(size=(100, 22)) as pilot:
        screen = app.watch_screen
        await wait_until(pilot, lambda: "left" in shown(screen, "#watch-clock"))
        assert shown(screen, "#too-small").startswith("Terminal 100x22 is too small")
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert not screen.query_one("#too-small").display


async def test_a_spectator_back_after_the_race_ended_meanwhile_sees_its_results_and_last_boards(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """sam's connection is down while ada moves and both give up: back, the watch shows
    the results, ada's last board and a stopped clock (it used to stay on the old boards
    with the clock running down, saying only that the race is over)."""
    ada, bob, race_id = await _race(arena, connect)
    sam = await connect(arena.url, reconnect=True)
    await sam.hello(name="sam")
    app = WatchApp(sam, await sam.watch(race_id), target=race_id)
    away = away_until_set(monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.watch_screen
        await wait_until(pilot, lambda: "left" in shown(screen, "#watch-clock"))
        sam.ws.transport.abort()  # the network drops, and stays down a while
        await wait_until(pilot, lambda: sam.reconnecting)
        ack = await ada.move(race_id, new_game("eight-off", WINNABLE_SEED).legal_moves()[0])
        await ada.finish(race_id)
        await bob.finish(race_id)
        await ada.wait_for(RaceEnded, lambda e: e.race_id == race_id)  # its end stored: over meanwhile
        away.set()
        await wait_until(
            pilot, lambda: screen.status.last.startswith("reconnected: the race ended meanwhile; ")
        )
        assert screen.status.last == (
            "reconnected: the race ended meanwhile; race over: ada first, gave up with 1 card home. q quits"
        )
        assert shown(screen, "#watch-clock") == "race over"
        assert screen.shown_racer == ada.player_id and screen.board.view == spectators_view(ack.view)
        results = shown(screen, "#watch-results")
        assert "ada" in results and "bob" in results, results


async def test_a_spectator_sees_each_racers_board_as_they_see_it_and_switches_with_tab(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, bob, race_id = await _race(arena, connect, bot=True)
    app = await sam_watching(arena.url, connect, race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.watch_screen
        board = screen.board
        assert screen.shown_racer == ada.player_id and board.plain == OPENING
        assert shown(screen, "#watch-title") == f"Watching race {race_id}  eight-off  casual"
        assert "left" in shown(screen, "#watch-clock")
        assert "1 spectator" in shown(screen, "#watch-spectators")
        assert shown(screen, "#watch-focus").startswith("1/2 ada\n")

        # Ada's move reaches the large board exactly as her own view has it.
        deal = new_game("eight-off", WINNABLE_SEED)
        ada_move, bob_move = deal.legal_moves()[0], deal.legal_moves()[-1]
        ada_ack = await ada.move(race_id, ada_move)
        await wait_until(pilot, lambda: board.view is not None and board.view.move_count == 1)
        assert board.view == spectators_view(ada_ack.view)
        assert board.plain == board_text(ada_ack.view)
        assert f"last {ada_move}" in shown(screen, "#watch-focus")
        assert screen.status.last.startswith(f"ada: {ada_move} (score {ada_ack.view.score}")

        # Bob's shows on his card beside it; the large board stays ada's.
        bob_ack = await bob.move(race_id, bob_move)
        await wait_until(pilot, lambda: screen.watched.last_move.get(bob.player_id or "") == bob_move)
        card = screen.cards[bob.player_id or ""]
        assert card.display and not screen.cards[ada.player_id or ""].display
        assert str(card.render()).startswith("2 bob [bot]\n")  # marked, as the race screen marks a bot
        assert f"last {bob_move}" in str(card.render())
        assert board.view == spectators_view(ada_ack.view)

        # Tab puts bob on the large board (and ada on a card); 1 brings ada back.
        await pilot.press("tab")
        assert screen.shown_racer == bob.player_id
        assert board.view == spectators_view(bob_ack.view)
        assert board.plain == board_text(bob_ack.view)
        assert shown(screen, "#watch-focus").startswith("2/2 bob [bot]\n")
        assert screen.cards[ada.player_id or ""].display and not card.display
        await pilot.press("1")
        assert screen.shown_racer == ada.player_id and board.plain == board_text(ada_ack.view)
        await pilot.press("tab", "tab")
        assert screen.shown_racer == ada.player_id

        # The end: the results under the cards.
        await ada.finish(race_id)
        await bob.finish(race_id)
        await wait_until(pilot, lambda: screen.watched.summary is not None)
        results = shown(screen, "#watch-results")
        assert results.startswith("Results") and "ada" in results and "bob" in results
        assert shown(screen, "#watch-clock") == "race over"
        assert screen.status.last.startswith("race over")
        await pilot.press("q")
    assert app.return_code == 0


async def test_a_watch_started_after_moves_names_each_racers_last_move_from_the_snapshot(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, bob, race_id = await _race(arena, connect)
    game = new_game("eight-off", WINNABLE_SEED)
    for _ in range(3):
        last = game.legal_moves()[-1]
        game.play(last)
        await ada.move(race_id, last)
    app = await sam_watching(arena.url, connect, race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.watch_screen
        assert screen.shown_racer == ada.player_id
        assert f"moves 3  last {last}" in shown(screen, "#watch-focus")
        assert str(screen.cards[bob.player_id or ""].render()).endswith("last -")  # no move yet
        # Bob renames mid-race: his card and the status line say so at once.
        assert await bob.rename("bob two") == "bob two"
        await wait_until(pilot, lambda: screen.status.last == "bob is now bob two")
        assert str(screen.cards[bob.player_id or ""].render()).startswith("2 bob two")
        # Then he registers: the account's name, and the rating an account starts from.
        await bob.register("bob_acc", "correct horse battery")
        await wait_until(pilot, lambda: screen.status.last == "bob two is now bob_acc (1500?)")
        assert str(screen.cards[bob.player_id or ""].render()).startswith("2 bob_acc  1500?")
        await pilot.press("q")
    assert app.return_code == 0


async def test_a_featured_watch_waits_for_a_race_and_follows_it(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    sam = await connect(arena.url)
    await sam.hello(name="sam")
    waiting = await sam.watch()
    assert waiting.featured and waiting.race is None
    app = WatchApp(sam, waiting)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.watch_screen
        # Every status line said, as the watch may find the race in its countdown and
        # then say "the race started" after "now watching".
        said: list[str] = []
        say = screen.status.say
        monkeypatch.setattr(
            screen.status, "say", lambda text, error=False: (said.append(text), say(text, error))
        )
        assert shown(screen, "#watch-title") == "Watching the featured race"  # "featured" once
        assert screen.status.last == f"{FEATURED_NONE}. q quits"
        assert screen.board.view is None
        ada, bob, race_id = await _race(arena, connect)
        await wait_until(pilot, lambda: screen.watched.race_id == race_id)
        assert shown(screen, "#watch-title") == f"Watching race {race_id}  eight-off  casual  featured"
        assert f"now watching race {race_id} (eight-off), featured" in said
        await wait_until(pilot, lambda: screen.board.view is not None)  # at the start, if joined before
        assert screen.board.plain == OPENING
        assert set(screen.cards) == {ada.player_id, bob.player_id}
        # When it ends the watch waits for the next race; the status line keeps who came
        # first, and the side panel the results (ranks and results, as they were shown).
        await ada.finish(race_id)
        await bob.finish(race_id)
        ended = await ada.wait_for(RaceEnded, lambda e: e.race_id == race_id)
        await wait_until(pilot, lambda: screen.watched.race is None)
        assert screen.status.last.startswith(f"race {race_id} over: ")
        assert screen.status.last.endswith("; featured: waiting for the next race to start")
        assert screen.board.view is None and not screen.cards
        assert screen.query_one("#watch-results").display
        first, second = ended.summary.standings
        assert shown(screen, "#watch-results").splitlines() == [
            "Last race's results",  # as README says, and in a narrowed panel too
            f"{first.rank}. {first.name}          0 cards home",
            "   gave up",
            f"{second.rank}. {second.name}          0 cards home",
            "   gave up",
        ]
        # Until the next race starts.
        _ada, _bob, next_id = await _race(arena, connect)
        await wait_until(pilot, lambda: screen.watched.race_id == next_id and screen.board.view is not None)
        assert not screen.query_one("#watch-results").display


async def test_a_featured_watch_back_after_its_race_ended_meanwhile_shows_its_results_and_waits_for_the_next(
    arena: ArenaServer, connect: Connect, link: Link
) -> None:
    """sam's featured watch loses its connection; the race ends meanwhile: back, it says so
    and keeps that race's results in view ("Last race's results") while it waits for the
    next race, as when the end comes in sight (it used to say only "reconnected")."""
    sam = await connect(link.url, reconnect=True)
    await sam.hello(name="sam")
    app = WatchApp(sam, await sam.watch())
    async with app.run_test(size=SIZE) as pilot:
        screen = app.watch_screen
        ada, bob, race_id = await _race(arena, connect)
        await wait_until(pilot, lambda: screen.watched.race_id == race_id and screen.board.view is not None)
        link.cut()  # the network drops, and stays down a while
        await wait_until(pilot, lambda: sam.reconnecting)
        await ada.finish(race_id)
        await bob.finish(race_id)
        ended = await ada.wait_for(RaceEnded, lambda e: e.race_id == race_id)
        link.mend()
        said = "reconnected: the race ended meanwhile; "
        await wait_until(pilot, lambda: screen.status.last.startswith(said), timeout=15)
        first, second = ended.summary.standings
        assert screen.status.last == (
            f"{said}race {race_id} over: {first.name} first, gave up with 0 cards home; "
            "featured: waiting for the next race to start"
        )
        assert shown(screen, "#watch-title") == "Watching the featured race"
        assert screen.query_one("#watch-results").display
        assert shown(screen, "#watch-results").splitlines() == [
            "Last race's results",
            f"{first.rank}. {first.name}          0 cards home",
            "   gave up",
            f"{second.rank}. {second.name}          0 cards home",
            "   gave up",
        ]
        await until_shown(pilot, app, "Last race's results")


async def test_a_spectator_of_the_countdown_sees_the_racers_and_no_board_until_the_start(
    clean_redis: str, connect: Connect
) -> None:
    async with running_node(clean_redis, countdown=2.5) as node:
        _ada, bob, race_id = await _counting_race(node.url, connect)
        app = await sam_watching(node.url, connect, race_id)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.watch_screen
            waiting = screen.query_one("#watch-deal")
            assert screen.watched.race is not None and screen.watched.race.status == "countdown"
            assert waiting.display and shown(screen, "#watch-deal") == DEAL_AT_START
            assert screen.board.view is None and screen.board.plain == ""
            assert shown(screen, "#watch-focus").startswith("1/2 ada\n")
            assert str(screen.cards[bob.player_id or ""].render()).startswith("2 bob")
            assert shown(screen, "#watch-clock").startswith("starts in")
            await until_shown(pilot, app, DEAL_AT_START)
            terminal = "\n".join(screen_lines(app))
            assert not [suit for suit in SUIT_SYMBOLS.values() if suit in terminal]  # no card shown
            # The start brings the deal, and the line goes.
            await wait_until(pilot, lambda: screen.board.view is not None)
            assert screen.board.plain == OPENING and not waiting.display
            assert screen.status.last == "the race started"
            await pilot.press("q")
        assert app.return_code == 0


async def test_a_racer_sees_how_many_people_watch_the_race(arena: ArenaServer, connect: Connect) -> None:
    ada, _bob, race_id = await _race(arena, connect)
    sam, tom = await connect(arena.url), await connect(arena.url)
    await sam.hello(name="sam")
    await tom.hello(name="tom")
    await sam.watch(race_id)
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        # Counted when the screen opened (the race's spectators)...
        await wait_until(pilot, lambda: screen.state.view is not None)
        assert rendered(screen, "#race-info").splitlines()[-1] == "1 spectator watching"
        # ...and as people come and go (spectators events).
        await tom.watch(race_id)
        await wait_until(pilot, lambda: "2 spectators watching" in rendered(screen, "#race-info"))
        await sam.unwatch()
        await tom.unwatch()
        await wait_until(pilot, lambda: "spectator" not in rendered(screen, "#race-info"))


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_a_dropped_connection_is_said_on_the_status_line_until_it_is_back(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    ada, bob = await connect(arena.url, reconnect=True), await connect(arena.url)
    race = await start_race(ada, bob)
    app = RaceApp(ada, race.race_id)
    async with app.run_test(size=size) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.view is not None and GO in screen.status.last)
        # While the client resumes (a server restarting can take seconds), the racer is told.
        monkeypatch.setattr(ArenaClient, "reconnecting", property(lambda client: True))
        await wait_until(pilot, lambda: screen.status.last == RECONNECTING)
        monkeypatch.undo()
        ada.ws.transport.abort()  # the network drops, and the client resumes
        await wait_until(pilot, lambda: screen.status.last == "reconnected")
        # A drop the client gives up resuming (a server away longer than its patience):
        # the clock stops, no key that needs the server is offered, and it says what to do.
        monkeypatch.setattr(sdk_module, "RESUME_PATIENCE", 0.0)
        screen.options = lambda: " --server ws://arena.example:8765"
        ada.ws.transport.abort()
        await wait_until(pilot, lambda: screen.status.last.startswith("connection lost for good"))
        assert screen.status.last == (
            "connection lost for good: ctrl+q, then "
            "solitaire-arena play --server ws://arena.example:8765 resumes the race"
        )
        assert rendered(screen, "#clock") == CLOCK_GONE
        await until_shown(pilot, app, CLOCK_GONE)  # whole, in 80x24 as well
        await wait_until(pilot, lambda: set(footer_keys(app)) <= {"ctrl+q", "ctrl+p"})
        assert screen.move_input.disabled


PASSWORD = "correct horse battery"


async def _change_password_elsewhere(arena: ArenaServer, connect: Connect, ada: ArenaClient) -> str:
    """ada's account changes its password on another device; the reason ada is told."""
    elsewhere = await connect(arena.url)
    await elsewhere.login("ada_lovelace", PASSWORD)
    await elsewhere.change_password(PASSWORD, "staple 2 horses")
    return "signed out: the account's password was changed"


async def _log_out_elsewhere(arena: ArenaServer, connect: Connect, ada: ArenaClient) -> str:
    """ada's token logs out on another connection (``solitaire-arena logout`` with the
    same credentials file); the reason ada is told."""
    elsewhere = await connect(arena.url)
    await elsewhere.hello(token=ada.token)
    await elsewhere.logout()
    return "signed out: logged out on another device or page"


def screen_words(app: App[None]) -> str:
    """What the terminal shows, its lines joined and its spaces collapsed."""
    return " ".join(" ".join(screen_lines(app)).split())


@pytest.mark.parametrize("sign_out", [_change_password_elsewhere, _log_out_elsewhere])
async def test_a_racer_signed_out_elsewhere_is_told_why_and_to_log_in_again(
    arena: ArenaServer,
    connect: Connect,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    sign_out: Callable[[ArenaServer, Connect, ArenaClient], Awaitable[str]],
) -> None:
    monkeypatch.setenv("SOLITAIRE_ARENA_CONFIG", str(tmp_path / "credentials.json"))
    monkeypatch.delenv("SOLITAIRE_ARENA_SERVER", raising=False)
    ada, bob = await connect(arena.url, reconnect=True), await connect(arena.url)
    await ada.hello(name="ada")
    await ada.register("ada_lovelace", PASSWORD)
    race = await start_race(ada, bob)
    app = RaceApp(ada, race.race_id, options=app_module._options(ada))
    async with app.run_test(size=SMALL) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.view is not None and GO in screen.status.last)
        reason = await sign_out(arena, connect, ada)
        login = f"solitaire-arena login --server {arena.url}"
        note = f"{reason}. ctrl+q, then {login} signs you in again"
        await wait_until(pilot, lambda: screen.status.last == note)
        await wait_until(pilot, lambda: note in screen_words(app))
        assert "resumes" not in screen_words(app)
        assert rendered(screen, "#clock") == CLOCK_GONE
    # What `play` prints after ctrl+q: log in, then play comes back to the race.
    assert " ".join(parting_in_80_columns(app).split()) == (
        f"{reason}, while race {race.race_id} runs: {login} signs you in again, "
        f"then solitaire-arena play --server {arena.url} resumes it"
    )


async def test_a_guest_racer_the_server_no_longer_knows_is_told_to_play_as_a_new_guest_not_to_log_in(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SOLITAIRE_ARENA_CONFIG", str(tmp_path / "credentials.json"))
    monkeypatch.delenv("SOLITAIRE_ARENA_SERVER", raising=False)
    ada, bob = await connect(arena.url, reconnect=True), await connect(arena.url)
    await ada.hello(name="ada")
    race = await start_race(ada, bob)
    app = RaceApp(ada, race.race_id, options=app_module._options(ada))
    async with app.run_test(size=SMALL) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.view is not None and GO in screen.status.last)
        forget_token(arena, ada.token)  # the server's data was reset
        ada.ws.transport.abort()
        gone = "this server no longer knows your guest (unused too long, or its data was reset)"
        again = f"solitaire-arena play --server {arena.url} --name ada"
        note = f"{gone}. ctrl+q, then {again} plays as a new guest"
        await wait_until(pilot, lambda: screen.status.last == note)
        assert "login" not in screen_words(app)
    assert " ".join(parting_in_80_columns(app).split()) == (
        f"{gone}, and race {race.race_id} with it: {again} plays as a new guest"
    )


async def test_a_spectator_signed_out_elsewhere_is_told_why_and_to_log_in_again(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SOLITAIRE_ARENA_SERVER", raising=False)
    _ada, _bob, race_id = await _race(arena, connect, bot=True)
    sam = await connect(arena.url, reconnect=True)
    await sam.hello(name="sam")
    await sam.register("ada_lovelace", PASSWORD)
    app = WatchApp(sam, await sam.watch(race_id), target=race_id)
    async with app.run_test(size=SMALL) as pilot:
        screen = app.watch_screen
        reason = await _change_password_elsewhere(arena, connect, sam)
        note = f"{reason}. q, then solitaire-arena login --server {arena.url} signs you in again"
        await wait_until(pilot, lambda: screen.status.last == note)
        await wait_until(pilot, lambda: note in screen_words(app))


async def test_a_guest_spectator_the_server_no_longer_knows_is_told_so_not_to_log_in(
    arena: ArenaServer, connect: Connect
) -> None:
    _ada, _bob, race_id = await _race(arena, connect, bot=True)
    sam = await connect(arena.url, reconnect=True)
    await sam.hello(name="sam")
    app = WatchApp(sam, await sam.watch(race_id), target=race_id)
    async with app.run_test(size=SMALL) as pilot:
        screen = app.watch_screen
        forget_token(arena, sam.token)
        sam.ws.transport.abort()
        note = (
            "this server no longer knows your guest (unused too long, or its data was reset). "
            "q, then the same command watches again"
        )
        await wait_until(pilot, lambda: screen.status.last == note)


async def same_player(arena: ArenaServer, connect: Connect, player: ArenaClient) -> ArenaClient:
    """Another session of ``player`` (their other device): nothing it does is pushed to
    ``player``'s session."""
    session = await connect(arena.url)
    await session.hello(token=player.token)
    return session


async def test_the_end_shows_the_own_row_and_board_as_another_session_left_them(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, bob, race_id = await _race(arena, connect)
    elsewhere = await same_player(arena, connect, ada)  # ada's other device
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SMALL) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.board.plain == OPENING)
        # It puts a card home and gives up: nothing of it is pushed here.
        await elsewhere.move(race_id, "t4>f1")
        await elsewhere.finish(race_id)
        await bob.finish(race_id)
        await wait_until(
            pilot, lambda: screen.state.status == "finished" and "race over" in screen.status.last
        )
        after = board_text(view_of(replay("eight-off", WINNABLE_SEED, ["t4>f1"])))
        await wait_until(pilot, lambda: screen.board.plain == after)
        # ada's row takes the results' numbers, as the results beside it have them.
        ada_row = rendered(screen, "#racers").splitlines()[:3]
        assert ada_row[0] == "ada (you)  gave up" and ada_row[1].endswith(" 51 left")
        assert ada_row[2] == "score  1 moves   1"
        assert "1. ada 1 gave up" in screen_words(app)


async def test_giving_up_says_the_score_of_a_board_moved_on_another_session(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, _bob, race_id = await _race(arena, connect)
    other_device = await same_player(arena, connect, ada)
    async with (app := RaceApp(ada, race_id)).run_test(size=SMALL) as pilot:
        await wait_until(pilot, lambda: GO in app.race_screen.status.last)
        await other_device.move(race_id, "t4>f1")  # a card home, not pushed here
        await pilot.press("ctrl+g", "ctrl+g")
        await wait_until(pilot, lambda: app.race_screen.status.last.startswith("you gave up"))
        assert app.race_screen.status.last == "you gave up with score 1"
        after = board_text(view_of(replay("eight-off", WINNABLE_SEED, ["t4>f1"])))
        assert app.race_screen.board.plain == after


async def _racing_ada(url: str, connect: Connect, resume_patience: float) -> tuple[ArenaClient, str]:
    """ada (who asks for legal moves, as ``play`` does, and resumes a drop within
    ``resume_patience`` seconds) racing bob on the node at ``url``, and the race's id."""
    ada = await connect(url, reconnect=True, resume_patience=resume_patience)
    await ada.hello(name="ada", legal_moves=True)
    return ada, (await start_race(ada, await connect(url), time_limit=120)).race_id


async def test_a_move_typed_while_the_node_is_down_waits_for_it_under_the_reconnecting_notice(
    clean_redis: str, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = free_port()
    move = new_game("eight-off", WINNABLE_SEED).legal_moves()[0]
    async with contextlib.AsyncExitStack() as first_node:
        node = await first_node.enter_async_context(running_node(clean_redis, port=port))
        ada, race_id = await _racing_ada(node.url, connect, resume_patience=30)
        app = RaceApp(ada, race_id)
        async with app.run_test(size=SMALL) as pilot:
            screen = app.race_screen
            await wait_until(pilot, lambda: screen.state.view is not None and GO in screen.status.last)
            said: list[str] = []
            say = screen.status.say
            monkeypatch.setattr(
                screen.status, "say", lambda text, error=False: (said.append(text), say(text, error))
            )
            # From here requests time out after 1 s (not before: the screen's start-up reads
            # may be slow on a loaded machine): the node stays down 3 s, longer than twice
            # that (a move is sent once more after a drop), within the reconnect window.
            ada.request_timeout = 1.0
            await first_node.aclose()  # the node goes down
            await wait_until(pilot, lambda: said == [RECONNECTING])
            await _type(pilot, move)
            waiting = f"{RECONNECTING} {move} is sent once it is back"
            await wait_until(pilot, lambda: said == [RECONNECTING, waiting])
            await until_shown(pilot, app, waiting)
            await pilot.pause(3.0)
            assert said == [RECONNECTING, waiting] and screen.state.seq == 0
            async with running_node(clean_redis, port=port):
                await wait_until(pilot, lambda: screen.state.seq == 1, timeout=15)
                assert f"✓ {move}  +1 (score 1)" in said
                assert screen.board.plain == board_text(view_of(replay("eight-off", WINNABLE_SEED, [move])))
                assert not any("connection is down" in text for text in said)


async def test_a_move_waiting_when_the_client_gives_up_reconnecting_is_said_not_sent(
    clean_redis: str, connect: Connect
) -> None:
    move = new_game("eight-off", WINNABLE_SEED).legal_moves()[0]
    async with contextlib.AsyncExitStack() as node_up:
        node = await node_up.enter_async_context(running_node(clean_redis))
        ada, race_id = await _racing_ada(node.url, connect, resume_patience=2.5)
        app = RaceApp(ada, race_id)
        async with app.run_test(size=SMALL) as pilot:
            screen = app.race_screen
            await wait_until(pilot, lambda: screen.state.view is not None and GO in screen.status.last)
            ada.request_timeout = 1.0  # once the screen is up
            await node_up.aclose()  # the node goes down, for longer than the client tries
            await wait_until(pilot, lambda: screen.status.last == RECONNECTING)
            await _type(pilot, move)
            await wait_until(pilot, lambda: screen.gone, timeout=10)
            gone = "connection lost for good: ctrl+q, then solitaire-arena play resumes the race"
            unsent = f"✗ {move} not sent: {gone}"
            await wait_until(pilot, lambda: screen.status.last == unsent)
            await pilot.pause(0.3)  # nothing says otherwise after it
            assert screen.status.last == unsent
            lines = screen_lines(app)
            at = next(i for i, line in enumerate(lines) if line.strip().startswith(f"✗ {move} not sent"))
            assert " ".join(lines[at : at + 2]).split() == unsent.split()  # two lines of 80 columns


async def test_a_move_refused_while_redis_is_down_is_said_in_words_and_the_board_is_read_when_it_is_back(
    tmp_path: Path, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The board is asked for again every 3 s meanwhile: time for Redis to come back and
    # for ada's move to be stored (as the store may do for a move it could not answer).
    monkeypatch.setattr(RaceScreen, "CATCH_UP_PAUSE", 3.0)
    first, second = new_game("eight-off", WINNABLE_SEED).legal_moves()[0], ""
    async with node_on_own_redis(tmp_path) as (store, node):
        ada, race_id = await _racing_ada(node.url, connect, resume_patience=30)
        second = new_game_after(first).legal_moves()[0]
        # Another session's move stands for the refused move the store kept. A board read
        # that gets through before it (Redis back, that move not yet played) is read again
        # after it: the screen rightly showed seq 0 then, which is not what this test is about.
        stored, read_board = asyncio.Event(), ada.get_race

        async def board_read_once_stored(race_id: str) -> RaceInfo:
            await read_board(race_id)  # unavailable while Redis is down
            await stored.wait()
            return await read_board(race_id)

        app = RaceApp(ada, race_id)
        async with app.run_test(size=SMALL) as pilot:
            screen = app.race_screen
            await wait_until(pilot, lambda: screen.state.view is not None and GO in screen.status.last)
            monkeypatch.setattr(ada, "get_race", board_read_once_stored)
            store.stop()
            await _type(pilot, first)
            refused = f"✗ {first}: the server lost its store for a moment: try the move again shortly"
            await wait_until(pilot, lambda: screen.status.last == refused)
            await until_shown(pilot, app, refused)
            store.start()
            elsewhere = await connect(node.url)  # the move stored all the same, under seq 1
            await elsewhere.hello(token=ada.token)
            await _until_stored(elsewhere, race_id, first)
            stored.set()
            await wait_until(pilot, lambda: screen.state.seq == 1, timeout=10)
            assert screen.board.plain == board_text(view_of(replay("eight-off", WINNABLE_SEED, [first])))
            assert screen.status.last == "the server is back: the board is shown as it is now"
            await _type(pilot, second)  # played on the board as it is: not "played elsewhere"
            await wait_until(pilot, lambda: screen.state.seq == 2)
            assert screen.status.last.startswith(f"✓ {second}")


@contextlib.asynccontextmanager
async def node_on_own_redis(tmp_path: Path) -> AsyncIterator[tuple[EmbeddedRedis, ArenaServer]]:
    """A node on a Redis of its own, which the test may stop and start again."""
    store = EmbeddedRedis(tmp_path / "redis")
    redis_url = store.start()
    try:
        async with running_node(redis_url) as node:
            yield store, node
    finally:
        store.stop()


async def said_whole(pilot: Pilot[None], app: RaceApp, text: str) -> None:
    """Wait until the status line says ``text`` and the terminal shows it whole."""
    await wait_until(pilot, lambda: app.race_screen.status.last == text, timeout=10)
    await until_shown(pilot, app, text)


async def test_ready_hint_and_give_up_refused_while_redis_is_down_say_so_in_words(
    tmp_path: Path, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(RaceScreen, "CATCH_UP_PAUSE", 0.5)
    lost = "the server lost its store for a moment: try again shortly"
    async with node_on_own_redis(tmp_path) as (store, node):
        ada, lobby = await lobby_of_ada(node, connect)
        app = RaceApp(ada, lobby.race_id)
        async with app.run_test(size=SMALL) as pilot:
            screen = app.race_screen
            await wait_until(pilot, lambda: "1/3 seated" in screen.status.last)
            store.stop()
            await pilot.press("r")
            await said_whole(pilot, app, f"✗ ready: {lost}")
            store.start()
            await wait_until(pilot, lambda: screen.status.last.startswith("the server is back\n"), timeout=10)
            assert "1/3 seated, 0 ready" in screen.status.last
        ada, race_id = await _racing_ada(node.url, connect, resume_patience=30)
        app = RaceApp(ada, race_id)
        async with app.run_test(size=SMALL) as pilot:
            screen = app.race_screen
            await wait_until(pilot, lambda: screen.state.view is not None and GO in screen.status.last)
            store.stop()
            await pilot.press("h")
            await said_whole(pilot, app, f"✗ hint: {lost}")
            await pilot.press("ctrl+g", "ctrl+g")
            await said_whole(pilot, app, f"cannot give up: {lost}")
            store.start()
            await wait_until(pilot, lambda: screen.status.last == STORE_BACK, timeout=10)
            assert screen.playing  # not given up


def new_game_after(move: str) -> Game:
    game = new_game("eight-off", WINNABLE_SEED)
    game.play(move)
    return game


async def _until_stored(client: ArenaClient, race_id: str, move: str) -> None:
    """``move`` played as seq 1, once the node reaches its store again."""
    for _ in range(100):
        try:
            await client.move(race_id, move, seq=1)
            return
        except UnavailableError:
            await asyncio.sleep(0.05)
    raise AssertionError("the node never reached its store again")


def test_every_racer_starts_an_eagle_wing_race_from_the_deals_score() -> None:
    view = view_of(new_game("eagle-wing", 3))
    assert view.score == 1  # the deal puts a card home
    state = RaceState(race_id="r1", me="p_a")
    state.load(
        RaceInfo(race_id="r1", code="ABCDEF", game="eagle-wing", seats=2, time_limit=60, status="countdown",
                 creator="p_a", server_time=0, racers=[RacerInfo(player_id="p_a", name="ada"),
                                                       RacerInfo(player_id="p_b", name="bob")])
    )  # fmt: skip
    assert state.apply(RaceStarted(race_id="r1", starts_at=0, ends_at=60_000, view=view))
    assert [(r.name, r.score, r.cards_left) for r in state.racers.values()] == [
        ("ada", 1, 51),
        ("bob", 1, 51),
    ]
    assert [(rank, racer.name) for rank, racer in state.ranking()] == [(1, "ada"), (1, "bob")]


# ----- a standard 80x24 terminal -----------------------------------------------------------------

SMALL = (80, 24)


def screen_lines(app: App[None]) -> list[str]:
    """What the terminal shows, line by line."""
    return [strip.text.rstrip() for strip in app.screen._compositor.render_strips()]


def unseen(app: App[None], text: str) -> list[str]:
    """The lines of ``text`` the terminal does not show whole (cut off, wrapped, or out of
    sight below the others)."""
    shown = "\n".join(screen_lines(app))
    return [line.rstrip() for line in text.splitlines() if line.strip() and line.rstrip() not in shown]


async def until_shown(pilot: Pilot[None], app: App[None], text: str) -> None:
    """Wait until every line of ``text`` shows whole on the terminal."""
    try:
        await wait_until(pilot, lambda: not unseen(app, text), timeout=5)
    except AssertionError:
        screen = "\n".join(screen_lines(app))
        raise AssertionError(f"not shown: {unseen(app, text)}\n{screen}") from None


@pytest.mark.parametrize("game_name", GAMES)
async def test_in_80x24_the_whole_board_and_the_ranking_show_during_and_after_the_race(
    arena: ArenaServer, connect: Connect, game_name: GameName
) -> None:
    ada, bob, race_id = await _race(arena, connect, game=game_name)
    # Resumed after a join: the status line's note takes three lines.
    resumed = f"you are still racing in {game_name} race {race_id} (running): resuming it, not joining K7QX2M"
    app = RaceApp(ada, race_id, resumed=resumed)
    async with app.run_test(size=SMALL) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.view is not None)
        await wait_until(pilot, lambda: screen.status.last == f"{resumed}\n{GO}")
        # The whole board shows (Treize's lowest row, the cards played from, too), the
        # status line cut to the lines left under it.
        await until_shown(pilot, app, screen.board.plain)
        shown = screen_lines(app)
        opening = f" you are still racing in {game_name} race {race_id} (running): resuming"
        assert any(line.startswith(opening) for line in shown)
        area = screen.query_one("#board-area", BoardArea)
        await wait_until(pilot, lambda: not area.show_horizontal_scrollbar)  # once the side panel narrowed
        # Nothing scrolls up and down either: no column has grown long yet.
        assert not area.show_vertical_scrollbar
        view = screen.state.view
        assert view is not None
        if game_name == "eight-off":  # a column grown long (t1 holding t2's cards too): it scrolls
            piles = dict(view.piles)
            piles["t1"] = piles["t1"].model_copy(update={"cards": [*piles["t1"].cards, *piles["t2"].cards]})
            screen.board.show(view.model_copy(update={"piles": piles}))
            await wait_until(pilot, lambda: area.show_vertical_scrollbar)
            screen.board.show(view)
            await wait_until(pilot, lambda: not area.show_vertical_scrollbar)
        # The racers panel beside it, each racer's bar and cards left on one line.
        shown = screen_lines(app)
        assert sum(" 52 left" in line or " 51 left" in line for line in shown) == 2
        assert any("ada (you)" in line for line in shown)
        # Under it the ranking, every racer's place and name, in sight.
        ranking = rendered(screen, "#ranking")
        assert lines_of(ranking)[0] == "Ranking" and "1. ada" in ranking and "1. bob" in ranking
        await until_shown(pilot, app, ranking)
        # Over them the race panel, each line whole (the hint key in words that fit).
        info = rendered(screen, "#race-info")
        assert lines_of(info)[1:] == NARROW_RACE_INFO[game_name]
        await until_shown(pilot, app, info)

        await _both_finish(pilot, screen, bob, race_id)
        results = rendered(screen, "#ranking")
        assert lines_of(results)[0] == "Results" and "1. ada" in results and "1. bob" in results
        await until_shown(pilot, app, results)
        await until_shown(pilot, app, screen.board.plain)
        # Each racer's rows keep to one line each, ada's flag beside her name where the
        # counts would not leave room for it (Treize's side panel).
        racers = rendered(screen, "#racers")
        await until_shown(pilot, app, racers)


#: The race panel's lines under the first at 80x24 (narrowed beside a wide board).
NARROW_RACE_INFO: dict[GameName, list[str]] = {
    "eight-off": ["Casual, h for hints"],
    "eagle-wing": ["Casual, h for hints"],
    "treize": ["Casual: no ratings change", "hints on: h shows one"],
}


async def all_ready(
    arena: ArenaServer, connect: Connect, names: list[str], seats: int
) -> tuple[list[ArenaClient], RaceInfo]:
    """A guest per name, the first creating an Eight Off race of ``seats``, the others
    joining it, all ready: their clients and the race."""
    racers = [await connect(arena.url) for _ in names]
    for client, name in zip(racers, names, strict=True):
        await client.hello(name=name)
    race = await racers[0].create_race("eight-off", seats=seats, time_limit=60)
    for client in racers[1:]:
        await client.join_race(race.code)
    for client in racers:
        await client.ready(race.race_id)
    return racers, race


async def test_in_80x24_five_racers_keep_the_ranking_and_the_players_own_row_in_sight(
    arena: ArenaServer, connect: Connect
) -> None:
    names = ["ada", "bob", "cyd", "Hank the Tank", "Ivy Verylongname-Player"]
    racers, race = await all_ready(arena, connect, names, seats=len(names))
    app = RaceApp(racers[-1], race.race_id)  # the last seat: the first a cut would drop
    async with app.run_test(size=SMALL) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.view is not None)
        # The racers panel gives up its score lines (and its last racers) for the ranking.
        # Every name is cut to one width there, so that the scores line up.
        ranking = rendered(screen, "#ranking")
        assert lines_of(ranking) == [
            "Ranking",
            "1. ada              0",
            "1. bob              0",
            "1. cyd              0",
            "1. Hank the Tank    0",
            "1. Ivy Verylongna…  0",
        ]
        await until_shown(pilot, app, ranking)
        # The player's own row keeps to one line, the long name cut.
        await wait_until(pilot, lambda: lines_of(rendered(screen, "#racers"))[0] == "Ivy Verylongna… (you)")
        await until_shown(pilot, app, rendered(screen, "#racers"))
        # bob takes a card home, then ada: an equal score ranks first whoever reached it
        # first, live as in the results.
        ada, bob = racers[0], racers[1]
        for mover in (bob, ada):
            for move in foundation_moves(1):
                await mover.move(race.race_id, move)
            await wait_until(pilot, lambda mover=mover: screen.state.racers[mover.player_id or ""].score == 1)
        assert lines_of(rendered(screen, "#ranking"))[1:] == [
            "1. bob              1",
            "2. ada              1",
            "3. cyd              0",
            "3. Hank the Tank    0",
            "3. Ivy Verylongna…  0",
        ]
        await pilot.press("ctrl+g", "ctrl+g")
        for client in racers[:-1]:
            await client.finish(race.race_id)
        await wait_until(pilot, lambda: screen.state.summary is not None)
        results = rendered(screen, "#ranking")
        # Then a tie (the others gave up with nothing home), listed in player id order:
        # names cut alike for every result to stay on its line.
        assert lines_of(results)[:3] == ["Results", "1. bob     1  gave up", "2. ada     1  gave up"]
        assert sorted(lines_of(results)[3:]) == [
            "3. Hank …  0  gave up",
            "3. Ivy V…  0  gave up",
            "3. cyd     0  gave up",
        ]
        await until_shown(pilot, app, results)


async def test_in_80x24_seven_racers_with_long_names_keep_the_players_own_row_and_a_line_each_in_the_ranking(
    arena: ArenaServer, connect: Connect
) -> None:
    names = [f"filler-with-long-name-{n:02}" for n in range(6)] + ["eve"]  # 24 characters each
    racers, race = await all_ready(arena, connect, names, seats=8)
    app = RaceApp(racers[-1], race.race_id)  # the last seat: the first a cut would drop
    async with app.run_test(size=SMALL) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.view is not None)
        await wait_until(pilot, lambda: screen.state.status == "running")
        ranking = rendered(screen, "#ranking")
        # Every racer on one line of the ranking: the long names cut with an ellipsis.
        assert len(lines_of(ranking)) == 1 + len(names)
        assert sum("filler-with-" in line and "…" in line for line in lines_of(ranking)) == 6
        await until_shown(pilot, app, ranking)
        await wait_until(pilot, lambda: any("eve (you)" in line for line in screen_lines(app)))
        await pilot.press("ctrl+g", "ctrl+g")  # the results, after giving up, fit alike
        for client in racers[:-1]:
            await client.finish(race.race_id)
        await wait_until(pilot, lambda: screen.state.summary is not None)
        results = rendered(screen, "#ranking")
        assert lines_of(results)[0] == "Results" and len(lines_of(results)) == 1 + len(names)
        await until_shown(pilot, app, results)
        assert any("eve (you)" in line for line in screen_lines(app))


@pytest.mark.parametrize("game_name", GAMES)
async def test_in_80x24_the_replay_shows_the_whole_board_its_moves_and_its_keys(game_name: GameName) -> None:
    seed = 12_345_678_901_234_567_890  # a seed as long as they get
    game, moves = new_game(game_name, seed), []
    while len(moves) < 30 and (legal := game.legal_moves()):
        moves.append("deal" if "deal" in legal else legal[0])  # Treize's waste fans out to the right
        game.play(moves[-1])
    app = ReplayApp(
        _log(game_name, seed, {"p_a": moves, "p_b": moves[:3]}), {"p_a": "ada", "p_b": "bob"}, me="p_a"
    )
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("end")
        screen = app.replay_screen
        await until_shown(pilot, app, screen.board.plain)
        area = screen.query_one("#replay-board-area", BoardArea)
        await wait_until(pilot, lambda: not area.show_horizontal_scrollbar)  # once the side panel narrowed
        moves_list = str(screen.query_one("#replay-moves").render())
        assert f"{len(moves)}" in lines_of(moves_list)[-1] and moves[-1] in lines_of(moves_list)[-1]
        await until_shown(pilot, app, moves_list)  # with the times they were played at
        await until_shown(pilot, app, str(screen.query_one("#replay-status").render()))
        assert screen_lines(app)[0].endswith("racer ada (1/2)")
        footer = screen_lines(app)[-1]
        for key in ("tab next racer", "←→ move", "home deal", "end last move", "esc close"):
            assert key in footer, footer


async def test_in_80x24_the_replay_title_keeps_to_one_line_and_the_seed_shows_at_the_deal() -> None:
    """A 20-digit seed and a second racer's name do not fit one line of 80 columns: the
    title leaves the seed out (the status line gives it at the deal) rather than wrap and
    take a line from the board."""
    seed = 17_180_775_478_973_134_212
    log = _log("treize", seed, {"p_b": ["deal"], "p_a": ["deal"]}).model_copy(
        update={"race_id": "9b9f7e6c4bea"}
    )
    app = ReplayApp(log, {"p_b": "bob", "p_a": "alice"})
    async with app.run_test(size=SMALL) as pilot:
        screen = app.replay_screen
        await pilot.press("tab")
        title = "Replay  race 9b9f7e6c4bea  treize  racer alice (2/2)"
        await wait_until(pilot, lambda: screen_lines(app)[0].strip() == title)
        assert screen.query_one("#replay-title").region.height == 1
        await until_shown(pilot, app, screen.board.plain)  # its last row too
        status = screen.query_one("#replay-status")
        assert " ".join(shown_words(app, status)).startswith(f"move 0/1: the deal of seed {seed}")
        await pilot.press("right")
        await wait_until(pilot, lambda: str(seed) not in " ".join(screen_lines(app)))


@pytest.mark.parametrize("game_name", GAMES)
async def test_in_80x24_a_spectator_sees_the_whole_board_the_other_racer_and_the_results(
    arena: ArenaServer, connect: Connect, game_name: GameName
) -> None:
    ada, bob, race_id = await _race(arena, connect, game=game_name)
    app = await sam_watching(arena.url, connect, race_id)
    async with app.run_test(size=SMALL) as pilot:
        screen = app.watch_screen
        await until_shown(pilot, app, screen.board.plain)
        area = screen.query_one("#watch-board-area", BoardArea)
        await wait_until(pilot, lambda: not area.show_horizontal_scrollbar)  # once the side panel narrowed
        await until_shown(pilot, app, str(screen.cards[bob.player_id or ""].render()))
        if game_name != "eight-off":  # a stock that hides cards
            await a_board_held_for_spectators_says_so_until_it_goes_on(pilot, app, ada, bob, race_id)
        await ada.finish(race_id)
        await bob.finish(race_id)
        await wait_until(pilot, lambda: screen.watched.summary is not None)
        results = shown(screen, "#watch-results")
        assert lines_of(results)[0] == "Results" and "1. ada" in results and "1. bob" in results
        assert lines_of(results).count("   gave up") == 2  # both did, each on a line of its own
        await until_shown(pilot, app, results)
        await until_shown(pilot, app, screen.board.plain)


async def a_board_held_for_spectators_says_so_until_it_goes_on(
    pilot: Pilot[None], app: WatchApp, ada: ArenaClient, bob: ArenaClient, race_id: str
) -> None:
    """Ada (on the large board) turns up a stock card bob has not: her board is held back,
    and the screen says so and why, the whole board still in sight, until bob turns the
    card up too."""
    screen = app.watch_screen
    ada_id, bob_id = ada.player_id or "", bob.player_id or ""
    await ada.move(race_id, "deal")
    await wait_until(pilot, lambda: screen.status.last == f"ada's board is {PAUSED}")
    assert screen.watched.boards[ada_id].seq == 0  # her move waits
    assert lines_of(shown(screen, "#watch-focus"))[0] == "1/2 ada  paused"
    held = screen.query_one("#watch-held")

    def under_the_cards() -> str:  # the note as the terminal shows it, its border left out
        region = held.region
        return " ".join(line[region.x :].strip() for line in screen_lines(app)[region.y + 1 : region.bottom])

    await wait_until(pilot, lambda: under_the_cards() == PAUSED_NOTE)
    await until_shown(pilot, app, screen.board.plain)  # the whole board still in sight
    await pilot.press("tab")  # bob on the large board: ada's card says it
    assert str(screen.cards[ada_id].render()).startswith("1 ada  paused\n")
    assert "paused" not in shown(screen, "#watch-focus")
    await pilot.press("1")
    await bob.move(race_id, "deal")
    await wait_until(pilot, lambda: screen.watched.boards[bob_id].seq == 1)
    assert screen.watched.boards[ada_id].seq == 1 and "paused" not in shown(screen, "#watch-focus")
    assert not held.display
    await wait_until(pilot, lambda: "paused" not in " ".join(screen_lines(app)))


async def test_in_80x24_a_spectator_sees_every_racers_card_while_several_boards_are_paused(
    arena: ArenaServer, connect: Connect
) -> None:
    """Five racers in Treize, three of whom turned up stock cards the other two have not:
    three boards are paused, and the side panel still shows every other racer's card,
    with one note saying what "paused" means."""
    names = ["ada", "bob", "cy", "dee", "eve"]
    race_id, racers = await sdk_race(connect, arena.url, *names, game="treize")
    app = await sam_watching(arena.url, connect, race_id)
    async with app.run_test(size=SMALL) as pilot:
        screen = app.watch_screen
        await until_shown(pilot, app, screen.board.plain)
        for racer in racers[:3]:
            await racer.move(race_id, "deal")
        held = [racer.player_id for racer in racers[:3]]
        await wait_until(pilot, lambda: all(screen.watched.boards[p or ""].held for p in held))
        await pilot.pause()
        for number, name in enumerate(names[1:], start=2):
            card = str(screen.cards[racers[number - 1].player_id or ""].render())
            assert lines_of(card)[0].startswith(f"{number} {name}"), card
            await until_shown(pilot, app, card)  # name, score and cards left: the whole card
        note = screen.query_one("#watch-held")
        assert " ".join(shown_words(app, note)) == PAUSED_NOTE, "\n".join(screen_lines(app))


async def test_in_80x24_a_spectator_sees_a_long_name_cut_in_the_results_as_in_the_ranking(
    arena: ArenaServer, connect: Connect
) -> None:
    filler, bob, sam = await connect(arena.url), await connect(arena.url), await connect(arena.url)
    await filler.hello(name="filler-with-long-name-00")  # 24 characters, as many as a name has
    race = await start_race(filler, bob)
    await sam.hello(name="sam")
    app = WatchApp(sam, await sam.watch(race.race_id), target=race.race_id)
    async with app.run_test(size=SMALL) as pilot:
        screen = app.watch_screen
        await until_shown(pilot, app, screen.board.plain)
        area = screen.query_one("#watch-board-area", BoardArea)
        await wait_until(pilot, lambda: not area.show_horizontal_scrollbar)  # once the side panel narrowed
        await filler.finish(race.race_id)
        await bob.finish(race.race_id)
        await wait_until(pilot, lambda: screen.watched.summary is not None)
        results = shown(screen, "#watch-results")
        # Cut as the race screen's ranking cuts it, its result kept on its line (a tie: both
        # gave up with nothing home, in either order).
        assert screen.side_columns == 23
        assert sorted(lines_of(results)) == sorted(
            ["Results", "1. filler… 0 cards home", "   gave up", "1. bob     0 cards home", "   gave up"]
        )
        await until_shown(pilot, app, results)


async def test_typing_on_the_board_goes_on_with_the_text_begun_in_the_field(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, _, race_id = await _race(arena, connect)
    move = new_game("eight-off", WINNABLE_SEED).legal_moves()[0]
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.race_screen
        board, field = screen.board, screen.move_input
        await wait_until(pilot, lambda: screen.state.view is not None and screen.playing)
        await pilot.press(*move[:2], "down")  # half a move typed, then a look at the board
        assert board.has_focus and field.value == move[:2]
        # The rest typed there goes on with it: the text is not selected, to be replaced
        # by the next key, when the field takes the focus back.
        await pilot.press(*move[2:])
        assert field.has_focus and field.value == move
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.state.view is not None and screen.state.view.move_count == 1)
        assert field.value == ""


async def test_in_80x24_a_racer_who_gave_up_keeps_their_name_and_each_row_to_one_line(
    arena: ArenaServer, connect: Connect
) -> None:
    alice = await daily_player(arena, connect, name="alice")
    app = await scored_attempt(alice, "alice", "eagle-wing")
    async with app.run_test(size=SMALL) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.status.last.endswith(GO))
        await wait_until(pilot, lambda: lines_of(rendered(screen, "#racers"))[0] == "alice (you)  1500?")
        await pilot.press("ctrl+g", "ctrl+g")
        await wait_until(pilot, lambda: screen.status.last.startswith("daily over"))
        # "gave up" does not fit by the name in the narrowed panel: it goes beside the
        # bar, in place of the cards left, and the name stays whole.
        racers = rendered(screen, "#racers")
        assert lines_of(racers)[0] == "alice (you)  1500?", racers
        assert re.fullmatch("[█░]{12,} gave up", lines_of(racers)[1]), racers
        await until_shown(pilot, app, racers)


def shown_words(app: App[None], widget: Widget) -> list[str]:
    """The words the terminal shows in ``widget``'s region, as the lines wrap them (not its
    border, nor a time left, which counts down)."""
    region = widget.region
    rows = screen_lines(app)[region.y : region.bottom]
    words = " ".join(row[region.x : region.right] for row in rows).split()
    return [word for word in words if word.strip("─▔") and not re.fullmatch(r"\d+:\d+", word)]


async def test_in_80x24_the_rematch_panel_cuts_long_names_and_wraps_between_words(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, bob = await connect(arena.url), await connect(arena.url)
    await ada.hello(name="alice_with_a_long_name", legal_moves=True)
    await bob.hello(name="bob_with_a_long_name")
    race = await start_race(ada, bob)
    app = RaceApp(ada, race.race_id)
    async with app.run_test(size=SMALL) as pilot:
        screen = app.race_screen
        panel = screen.query_one("#rematch")
        await wait_until(pilot, lambda: screen.state.view is not None)
        await _both_finish(pilot, screen, bob, race.race_id)

        def drawn_words() -> list[str]:
            """The panel's words as the panel draws them at its size (what the terminal
            shows of it, a frame before the terminal shows it)."""
            strips = panel.render_lines(Region(0, 0, *panel.outer_size))
            words = " ".join(strip.text for strip in strips).split()
            return [w for w in words if w.strip("─▔▁") and not re.fullmatch(r"\d+:\d+", w)]

        async def words_whole(*expected: str) -> None:
            """Every word the panel draws is one of its text's (none cut by a wrap)."""
            await wait_until(pilot, lambda: all(word in rendered(screen, "#rematch") for word in expected))
            await pilot.pause(0.1)
            words = set(rendered(screen, "#rematch").split())
            drawn = drawn_words()
            assert drawn and set(drawn) <= words, (drawn, rendered(screen, "#rematch"))

        await bob.offer_rematch(race.race_id)
        await words_whole("offers")
        await pilot.press("n")
        await words_whole("nobody")
        await pilot.press("r")
        await words_whole("waiting")


async def test_in_80x24_a_reopened_lobby_keeps_the_command_friends_join_with(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, race = await lobby_of_ada(arena, connect)
    # As `play` reopens the lobby of a race the player still sits in, on another server.
    reopened = (
        f"you sit in eight-off race {race.code} (1/3 seated) already: reopening its lobby "
        "(ctrl+q there leaves the race)"
    )
    app = RaceApp(
        ada,
        race.race_id,
        join_command=lambda code: f"solitaire-arena play --join {code} --server ws://arena.example:8765",
        resumed=reopened,
    )
    async with app.run_test(size=SMALL) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: "1/3 seated" in screen.status.last)
        assert screen.status.last.startswith(reopened)
        # Every line of it shows, the join command last, as in a lobby opened afresh.
        await until_shown(pilot, app, f"others join with: solitaire-arena play --join {race.code}")
        await until_shown(pilot, app, "ws://arena.example:8765")  # the line it wraps to


async def test_eagle_wing_says_its_base_rank_and_redeals_left_on_resume_and_after_a_move_and_an_undo(
    arena: ArenaServer, connect: Connect
) -> None:
    """Both passes of the waste used (two redeals) before the screen opens the race under
    way: the line between the board's top row and its wings says no redeals are left and
    the base rank (seed 2 deals the ten of diamonds to f1); an undo of the last redeal
    gives one back, and redealing again takes it."""
    ada, _bob, race_id = await _race(arena, connect, game="eagle-wing")
    passes = (["deal"] * 30 + ["redeal"]) * 2
    for move in passes:
        await ada.move(race_id, move)
    assert replay("eagle-wing", WINNABLE_SEED, passes).view()["redeals_left"] == 0
    app = RaceApp(ada, race_id)
    async with app.run_test(size=SMALL) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.view is not None and screen.state.view.move_count == 62)
        await until_shown(pilot, app, "no redeals left   base: 10")
        await _type(pilot, "undo")
        await until_shown(pilot, app, "redeals left: 1   base: 10")
        await _type(pilot, "redeal")
        await until_shown(pilot, app, "no redeals left   base: 10")


async def test_treize_shows_its_whole_waste_on_a_wide_terminal_and_says_how_many_a_narrow_one_hides(
    arena: ArenaServer, connect: Connect
) -> None:
    """Twelve cards in the waste: 140 columns show them all on the waste's line, as the
    browser does; cut down to 80 columns the board shows the newest eight after how many
    older ones are hidden."""
    ada, _bob, race_id = await _race(arena, connect, game="treize")
    for _ in range(12):
        await ada.move(race_id, "deal")
    waste = replay("treize", WINNABLE_SEED, ["deal"] * 12).piles["waste"]
    assert len(waste) == 12
    oldest = f"[{card_text(waste[0])}]"

    def waste_line() -> str:
        return next(line for line in screen_lines(app) if oldest in line)

    app = RaceApp(ada, race_id)
    async with app.run_test(size=(140, 44)) as pilot:
        screen = app.race_screen
        await wait_until(pilot, lambda: screen.state.view is not None and screen.state.view.move_count == 12)
        await until_shown(pilot, app, f"{oldest} {' '.join(card_text(card) for card in waste[1:])}")
        assert "hidden" not in " ".join(screen_lines(app))
        await pilot.resize_terminal(*SMALL)
        await until_shown(pilot, app, "3 hidden")
        newest = " ".join(card_text(card) for card in waste[-8:])
        await wait_until(pilot, lambda: f"{oldest}  …  {newest}" in waste_line())  # laid out after the resize
        assert not any(card_text(card) in waste_line() for card in waste[1:4])

"""A bounded fuzz run over a real socket, aimed at a live race: nothing crashes, every
frame gets one reply, and the race still replays exactly from its log."""

from __future__ import annotations

import logging

import pytest

from client.sdk import ArenaClient
from shared import replay
from shared.protocol import BoardView, RaceEnded
from tests.server.conftest import WINNABLE_SEED, running_node
from tests.server.fuzzing import FuzzPlan, fuzz_race
from tests.server.helpers import start_race
from tests.server.solver import solve

FRAMES = 3000
PLAN = FuzzPlan(frames=FRAMES, seed=20261123, good_rate=0.02, patience=5)


async def test_fuzzed_frames_crash_nothing_and_the_race_replays_from_its_log(
    clean_redis: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    async with running_node(clean_redis, rate_limit=1e6, rate_burst=1_000_000, max_open_races=1000) as node:
        ada, bob = await ArenaClient.connect(node.url), await ArenaClient.connect(node.url)
        race = await start_race(ada, bob, time_limit=120)
        assert ada.token is not None
        line = solve("eight-off", WINNABLE_SEED)
        assert line is not None
        run = await fuzz_race(node.url, ada.token, (race.race_id, race.code), line, PLAN)
        assert run.replies == FRAMES  # every frame, good or bad, got exactly one reply
        # Still serving: the racers' boards are what their logs say.
        boards = {}
        for client in (ada, bob):
            info = await client.get_race(race.race_id)
            assert info.board is not None
            boards[client.player_id] = info.board.view
        for client in (ada, bob):
            if not (await client.get_race(race.race_id)).board.finished:  # type: ignore[union-attr]
                await client.finish(race.race_id)
        ended = await ada.wait_for(RaceEnded, timeout=10)
        log = await ada.move_log(race.race_id)
        assert len(log.moves) >= 20  # the fuzzer's good moves went in between the bad ones
        for player_id, view in boards.items():
            moves = [m.move for m in log.moves if m.player_id == player_id]
            replayed = replay(log.game, ended.summary.seed, moves)
            assert BoardView.model_validate(replayed.view()) == view
        await ada.close()
        await bob.close()
    failures = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert failures == []

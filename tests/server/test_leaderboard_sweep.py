"""Idle accounts off the leaderboards, on raw frames: a listed rating that days without a
rated race made provisional again is swept off (total included), an active one stays, an
entry rewritten since the sweep read it stays, and every node sweeps by itself."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
import redis.exceptions

from server.app import ArenaServer
from server.features.leaderboard_sweep import BATCH
from server.features.ratings import DAY_MS
from server.store.ratings import RatingStore
from server.timesource import SystemTime
from tests.redis_direct import async_redis
from tests.server.conftest import running_node
from tests.server.rawclient import racers
from tests.server.test_profiles import seed_ratings
from tests.server.test_ratings import close

#: A settled deviation of 60 passes 110 on the 79th day without a rated race.
IDLE_DAYS = 80
SETTLED_DAYS = 78


async def seed_idle(redis_url: str, now: int) -> None:
    """Listed accounts: ``ida`` idle for :data:`IDLE_DAYS` days, ``ned`` for
    :data:`SETTLED_DAYS` and ``act`` active today, all of deviation 60 when last rated."""
    await seed_ratings(redis_url, {"p_ida": ("ida", 1700.0, 60.0)}, now - IDLE_DAYS * DAY_MS)
    await seed_ratings(redis_url, {"p_ned": ("ned", 1680.0, 60.0)}, now - SETTLED_DAYS * DAY_MS)
    await seed_ratings(redis_url, {"p_act": ("act", 1650.0, 60.0)}, now)


async def test_an_account_idle_until_provisional_leaves_the_leaderboard_and_active_ones_stay(
    arena: ArenaServer, clean_redis: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="arena.leaderboards")
    await seed_idle(clean_redis, arena.time.now_ms())
    (reader,) = await racers(arena.url, "reader")
    before = await reader.request({"type": "get_leaderboard", "game": "eight-off", "limit": 10})
    # Listed, though its deviation as it stands now (shown) is provisional.
    assert [(e["name"], e["rd"]) for e in before["entries"]] == [("ida", 111), ("ned", 110), ("act", 60)]
    assert before["total"] == 3
    assert await arena.features.leaderboard_sweep.sweep() == {"eight-off": 1}
    # Another page size: the page read above is kept for 2 s.
    after = await reader.request({"type": "get_leaderboard", "game": "eight-off", "limit": 20})
    assert [(e["rank"], e["name"]) for e in after["entries"]] == [(1, "ned"), (2, "act")]
    assert after["total"] == 2
    assert await arena.features.leaderboard_sweep.sweep() == {}
    lines = [
        (r.levelname, r.getMessage(), r.__dict__.get("removed"))
        for r in caplog.records
        if r.name == "arena.leaderboards"
    ]
    assert lines == [("INFO", "idle accounts taken off the leaderboards", {"eight-off": 1})]
    await close(reader)


async def test_an_account_rated_again_after_the_sweep_read_its_score_stays_listed(
    arena: ArenaServer, clean_redis: str
) -> None:
    now = arena.time.now_ms()
    await seed_idle(clean_redis, now)
    # ida's rated race ends after the sweep read her idle score 1700: a new rating, listed.
    await seed_ratings(clean_redis, {"p_ida": ("ida", 1712.0, 58.0)}, now)
    stale = [("p_ida", 1700.0), ("p_act", 1650.0)]
    assert await arena.store.ratings.unlist("eight-off", stale) == 1
    (reader,) = await racers(arena.url, "reader")
    board = await reader.request({"type": "get_leaderboard", "game": "eight-off"})
    assert [(e["name"], e["rating"]) for e in board["entries"]] == [("ida", 1712), ("ned", 1680)]
    assert board["total"] == 2
    await close(reader)


async def test_a_leaderboard_longer_than_a_batch_is_swept_whole(arena: ArenaServer, clean_redis: str) -> None:
    idle_since = arena.time.now_ms() - IDLE_DAYS * DAY_MS
    client = async_redis(clean_redis)
    try:
        async with client.pipeline(transaction=False) as pipe:
            for i in range(3 * BATCH):
                rating = {"rating": 1600.0 + i, "rd": 60.0, "volatility": 0.06, "games": 30}
                pipe.hset(f"player:p_{i}:rating:eight-off", mapping={**rating, "last_at": idle_since})
                pipe.zadd("leaderboard:eight-off", {f"p_{i}": 1600.0 + i})
            await pipe.execute()
    finally:
        await client.aclose()
    await seed_ratings(clean_redis, {"p_act": ("act", 1650.0, 60.0)}, arena.time.now_ms())
    assert await arena.features.leaderboard_sweep.sweep() == {"eight-off": 3 * BATCH}
    (reader,) = await racers(arena.url, "reader")
    board = await reader.request({"type": "get_leaderboard", "game": "eight-off"})
    assert [e["name"] for e in board["entries"]] == ["act"]
    assert board["total"] == 1
    await close(reader)


async def test_every_node_sweeps_by_itself_and_a_failed_sweep_is_tried_again(
    clean_redis: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    failures = [redis.exceptions.ConnectionError("redis went away")]
    unlist = RatingStore.unlist

    async def failing_once(self: RatingStore, *args: Any) -> int:
        if failures:
            raise failures.pop()
        return await unlist(self, *args)

    monkeypatch.setattr(RatingStore, "unlist", failing_once)
    caplog.set_level(logging.INFO, logger="arena.leaderboards")
    await seed_idle(clean_redis, SystemTime().now_ms())
    async with running_node(clean_redis, leaderboard_sweep=0.05) as node:
        await asyncio.wait_for(swept_off(clean_redis, "p_ida"), 2.0)
        (reader,) = await racers(node.url, "reader")
        board = await reader.request({"type": "get_leaderboard", "game": "eight-off"})
        assert [e["name"] for e in board["entries"]] == ["ned", "act"]
        assert board["total"] == 2
        await close(reader)
    lines = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "arena.leaderboards"]
    assert lines == [
        ("WARNING", "sweeping the leaderboards failed"),
        ("INFO", "idle accounts taken off the leaderboards"),
    ]


async def swept_off(redis_url: str, player_id: str) -> None:
    client = async_redis(redis_url)
    try:
        while await client.zscore("leaderboard:eight-off", player_id) is not None:
            await asyncio.sleep(0.02)
    finally:
        await client.aclose()

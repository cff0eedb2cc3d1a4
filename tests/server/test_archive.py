"""The record archive (SA_ARCHIVE_DIR), end to end on real nodes: a finished race's record
is written once, as get_record gives it; get_record answers from it once Redis let the
race go; a daily attempt's waits for its day to close; a disk that refuses the write
costs the race nothing and is counted. Raw frames."""

from __future__ import annotations

import asyncio
from pathlib import Path

import yaml

from server.app import ArenaServer
from server.features.daily_rules import day_closes
from server.store import keys
from server.timesource import ManualTime
from tests.server.conftest import ROOT, running_node
from tests.server.rawclient import Racer, racers
from tests.server.test_daily import DAY, T0, accounts, daily_node, start
from tests.server.test_operations import http_get
from tests.server.test_records import race_with_shares


def archived(directory: Path, race_id: str) -> Path:
    return directory / race_id[:2] / f"{race_id}.rec"


async def wait_for_file(path: Path, seconds: float = 3.0) -> str:
    for _ in range(int(seconds / 0.02)):
        if path.exists():
            return path.read_text(encoding="utf-8")
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} was never written")


async def close(*connections: Racer) -> None:
    for racer in connections:
        await racer.ws.close()


async def forget_race(node: ArenaServer, race_id: str) -> None:
    """What SA_RACE_TTL does in the end: every key of the race is gone from Redis."""
    assert node.store is not None
    meta = await node.store.races.meta(race_id)
    assert meta is not None
    seats = await node.store.races.seats(race_id)
    for key in keys.race_keys(race_id, meta.code, [s.player_id for s in seats]):
        await node.store.redis.delete(key)
    assert await node.store.races.meta(race_id) is None


async def test_a_finished_race_is_archived_once_as_get_record_gives_it(
    clean_redis: str, tmp_path: Path
) -> None:
    async with running_node(clean_redis, archive_dir=str(tmp_path)) as node:
        ada, bob = await racers(node.url, "ada", "bob")
        race_id, _ = await race_with_shares(ada, bob, None)
        path = archived(tmp_path, race_id)
        text = await wait_for_file(path)
        answer = await bob.request({"type": "get_record", "race_id": race_id})
        assert answer["type"] == "record" and answer["text"] == text
        assert path.name.endswith(".rec") and path.parent.name == race_id[:2]
        # The record, and the results beside it; no temporary file left.
        files = sorted(p.name for p in tmp_path.rglob("*") if p.is_file())
        assert files == [path.name, f"{race_id}.results.json"]
        written = path.stat().st_mtime_ns
        assert node.features is not None and node.features.results.archive is not None
        # Kept already: another write (a second node, the sweep) changes nothing.
        assert await node.features.results.archive.write(race_id, "another text") is True
        assert await node.features.results.archive_race(race_id) is True
        assert path.stat().st_mtime_ns == written and path.read_text(encoding="utf-8") == text
        await close(ada, bob)


async def test_get_record_answers_from_the_archive_once_redis_let_the_race_go(
    clean_redis: str, tmp_path: Path
) -> None:
    async with (
        running_node(clean_redis, archive_dir=str(tmp_path)) as keeping,
        running_node(clean_redis) as plain,
    ):
        ada, bob = await racers(keeping.url, "ada", "bob")
        race_id, _ = await race_with_shares(ada, bob, None)
        text = await wait_for_file(archived(tmp_path, race_id))
        await forget_race(keeping, race_id)
        again = await bob.request({"type": "get_record", "race_id": race_id})
        assert again == {"type": "record", "id": again["id"], "race_id": race_id, "text": text}
        (carl,) = await racers(plain.url, "carl")
        gone = await carl.request({"type": "get_record", "race_id": race_id})
        assert (gone["type"], gone["code"]) == ("error", "race_not_found")
        unknown = await bob.request({"type": "get_record", "race_id": "no_such_race"})
        assert (unknown["type"], unknown["code"]) == ("error", "race_not_found")
        await close(ada, bob, carl)


async def test_results_move_log_and_replay_answer_from_the_archive_once_redis_let_the_race_go(
    clean_redis: str, tmp_path: Path
) -> None:
    """A profile's links to a race's results and replay outlive SA_RACE_TTL with an
    archive: the same frames as before Redis let the race go."""
    async with running_node(clean_redis, archive_dir=str(tmp_path)) as node:
        ada, bob = await racers(node.url, "ada", "bob")
        race_id, played = await race_with_shares(ada, bob, None)
        await wait_for_file(archived(tmp_path, race_id))
        asks = [
            {"type": "get_results", "race_id": race_id},
            {"type": "get_move_log", "race_id": race_id},
            {"type": "get_replay", "race_id": race_id, "player_id": ada.player_id, "offset": 1, "limit": 3},
            {"type": "get_replay", "race_id": race_id, "player_id": bob.player_id},
        ]
        before = [await bob.request(ask) for ask in asks]
        assert [b["type"] for b in before] == ["results", "move_log", "replay", "replay"]
        assert [m["move"] for m in before[1]["moves"]] == played
        assert before[0]["summary"]["standings"][1]["gave_up"] is True  # not in the record
        await forget_race(node, race_id)
        after = [await bob.request(ask) for ask in asks]
        assert [{k: v for k, v in a.items() if k != "id"} for a in after] == [
            {k: v for k, v in b.items() if k != "id"} for b in before
        ]
        stranger = await bob.request(
            {"type": "get_replay", "race_id": race_id, "player_id": "p_nobody", "offset": 0, "limit": 1}
        )
        assert (stranger["type"], stranger["code"]) == ("error", "not_a_racer")
        # A race archived before its results were kept beside it has its record only.
        (tmp_path / race_id[:2] / f"{race_id}.results.json").unlink()
        gone = await bob.request(asks[0])
        assert (gone["type"], gone["code"]) == ("error", "race_not_found")
        assert (await bob.request({"type": "get_record", "race_id": race_id}))["type"] == "record"
        await close(ada, bob)


async def test_a_daily_attempt_is_archived_when_its_day_closes_and_not_before(
    clean_redis: str, tmp_path: Path
) -> None:
    clock = ManualTime(T0)
    async with daily_node(clean_redis, clock, archive_dir=str(tmp_path), archive_sweep=3600.0) as arena:
        assert arena.features is not None and arena.store is not None
        results, queue = arena.features.results, arena.store.archive_due
        closes = day_closes(DAY, arena.settings.daily_time_limit)
        ada, bob = await accounts(arena.url, "ada", "bob")
        race_id = (await start(ada, "treize"))["race"]["race_id"]
        await ada.request({"type": "finish", "race_id": race_id})
        await ada.event("race_ended")
        assert not await results.archive_race(race_id)  # what the end does: the seed is not out
        path = archived(tmp_path, race_id)
        assert not path.exists()
        assert await queue.due_at(closes) == [(race_id, closes)]  # for the sweep, at the day's close
        waiting = await bob.request({"type": "get_record", "race_id": race_id})
        assert (waiting["type"], waiting["code"]) == ("error", "not_yet")
        # Kept in Redis until the day is closed, whatever SA_RACE_TTL is.
        ttl = await arena.store.redis.ttl(keys.race_meta(race_id))
        assert ttl > (closes - clock.now_ms()) // 1000

        # Past midnight the seed is out, and the record may be archived from then on (by
        # the end's own archiving, if it runs that late); the sweep at the day's close
        # makes sure of it, and the race leaves the queue.
        clock.set(closes)
        await results.archive_due()
        assert await queue.due_at(closes + 10**9) == []
        text = path.read_text(encoding="utf-8")
        assert '[Daily "2027-03-14"]' in text
        answer = await bob.request({"type": "get_record", "race_id": race_id})
        assert answer["text"] == text
        await forget_race(arena, race_id)
        assert (await bob.request({"type": "get_record", "race_id": race_id}))["text"] == text
        await close(ada, bob)


async def test_an_unwritable_archive_costs_the_race_nothing_and_is_counted(
    clean_redis: str, tmp_path: Path
) -> None:
    blocked = tmp_path / "not-a-directory"
    async with running_node(clean_redis, archive_dir=str(blocked), archive_sweep=3600.0) as node:
        assert node.features is not None and node.store is not None
        blocked.rmdir()  # made at start: the disk goes wrong later
        blocked.write_text("a file where the archive's folders would go\n")
        ada, bob = await racers(node.url, "ada", "bob")
        race_id, _ = await race_with_shares(ada, bob, None)  # race_ended reached ada
        ended = await bob.event("race_ended")
        assert ended["race_id"] == race_id and ended["summary"]["standings"]
        base = f"http://127.0.0.1:{node.port}/metrics"
        for _ in range(150):
            body = (await asyncio.to_thread(http_get, base))[2]
            if "arena_archive_failures_total 1.0" in body:
                break
            await asyncio.sleep(0.02)
        assert "arena_archive_failures_total 1.0" in body
        answer = await bob.request({"type": "get_record", "race_id": race_id})
        assert answer["type"] == "record"  # Redis still has it
        # The race stays due: once the disk takes writes again, the sweep archives it.
        queue = node.store.archive_due
        assert [r for r, _due in await queue.due_at(node.time.now_ms() + 10**9)] == [race_id]
        blocked.unlink()
        await queue.set(race_id, 0)  # its retry's time has come
        assert await node.features.results.archive_due() == 1
        assert archived(blocked, race_id).read_text(encoding="utf-8") == answer["text"]
        assert await queue.due_at(node.time.now_ms() + 10**9) == []
        await close(ada, bob)


def test_compose_keeps_the_archive_on_a_volume_every_node_mounts() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    for name in ("server", "node-1", "node-2", "node-3"):
        service = compose["services"][name]
        directory = service["environment"]["SA_ARCHIVE_DIR"]
        volume, mounted = next(v.split(":")[:2] for v in service["volumes"] if v.endswith(f":{directory}"))
        assert volume in compose["volumes"] and mounted == directory
    assert "mkdir -p /data /archive && chown arena /data /archive" in (ROOT / "Dockerfile").read_text()

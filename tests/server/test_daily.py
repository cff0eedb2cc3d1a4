"""Daily challenges on a hand-driven clock: the day's proven deals and their commitments,
one scored attempt then practice, the clock ending an absent player's attempt, the
boards, the midnight rollover and reveal, and every early look refused. Raw frames."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import hashlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.asyncio.client import connect as ws_connect

from client.errors import ArenaError, NoDailyError
from client.sdk import ArenaClient
from server.app import ArenaServer
from server.features.daily_rules import DAY_MS, day_start, iso_week
from server.store import keys
from server.store.records import DailyDeal
from server.timesource import ManualTime
from shared import GAMES, new_game, replay
from shared.protocol import RaceEnded
from shared.record import read_record, verify_record
from shared.solver import solve_deal
from tests.server.conftest import WINNABLE_SEED, node_settings
from tests.server.rawclient import Racer, racers

DAY = dt.date(2027, 3, 14)
T0 = day_start(DAY) + 5 * 60_000  # 00:05 UTC
PASSWORD = "a long password"


@contextlib.asynccontextmanager
async def daily_node(redis_url: str, clock: ManualTime, **settings: Any) -> AsyncIterator[ArenaServer]:
    # Whole winning lines go out back to back: more than a connection's burst of messages.
    settings = {"rate_limit": 10_000.0, "rate_burst": 10_000, **settings}
    arena = ArenaServer(node_settings(redis_url, **settings), seed_source=lambda: WINNABLE_SEED, time=clock)
    await arena.start()
    try:
        assert arena.features is not None
        await arena.features.daily.prepare(DAY)
        yield arena
    finally:
        await arena.stop()


async def deal_of(arena: ArenaServer, game: str, day: dt.date = DAY) -> DailyDeal:
    assert arena.store is not None
    deal = await arena.store.dailies.deal(day.isoformat(), game)
    assert deal is not None
    return deal


async def accounts(url: str, *names: str) -> list[Racer]:
    out = await racers(url, *names)
    for racer, name in zip(out, names, strict=True):
        reply = await racer.request({"type": "register", "username": f"{name}_daily", "password": PASSWORD})
        assert reply["type"] == "account"
    return out


async def start(racer: Racer, game: str, practice: bool = False) -> dict[str, Any]:
    reply = await racer.request({"type": "start_daily", "game": game, "practice": practice})
    if reply["type"] == "daily_started":
        assert reply["race"]["status"] == "running" and reply["race"]["board"]["seq"] == 0
    return reply


async def play_line(racer: Racer, race_id: str, line: list[str], clock: ManualTime, step: float) -> None:
    for seq, move in enumerate(line, start=1):
        clock.advance(step)
        ack = await racer.request({"type": "move", "race_id": race_id, "seq": seq, "move": move})
        assert ack["type"] == "move_ack", ack


def looks(race_id: str, player_id: str) -> list[dict[str, Any]]:
    """Every request that reads ``player_id``'s finished attempt ``race_id``."""
    return [
        {"type": "get_results", "race_id": race_id},
        {"type": "get_move_log", "race_id": race_id},
        {"type": "get_replay", "race_id": race_id, "player_id": player_id},
        {"type": "get_record", "race_id": race_id},
    ]


def winning_line(game: str, seed: int) -> list[str]:
    solution = solve_deal(game, seed)
    assert solution.line is not None
    return solution.line


@pytest.fixture
def clock() -> ManualTime:
    return ManualTime(T0)


async def test_each_game_has_a_proven_deal_committed_and_winnable(
    clean_redis: str, clock: ManualTime
) -> None:
    async with daily_node(clean_redis, clock) as arena:
        (ada,) = await racers(arena.url, "ada")
        dailies = await ada.request({"type": "get_dailies"})
        assert dailies["date"] == "2027-03-14" and dailies["opens_at"] == day_start(DAY)
        assert [d["game"] for d in dailies["deals"]] == list(GAMES)
        for info in dailies["deals"]:
            deal = await deal_of(arena, info["game"])
            assert "seed" not in info and "salt" not in info  # not before the day is closed
            expected = hashlib.sha256(
                f"solitaire-arena:{info['game']}:{deal.seed}:{deal.salt}".encode()
            ).hexdigest()
            assert info["commitment"] == deal.commitment == expected
            if info["game"] != "eagle-wing":
                assert info["proven"] is True
            if info["proven"]:
                won = replay(info["game"], deal.seed, winning_line(info["game"], deal.seed))
                assert won.is_won
        await ada.ws.close()


async def test_a_day_with_several_players_one_scored_attempt_then_practice(
    clean_redis: str, clock: ManualTime
) -> None:
    async with daily_node(clean_redis, clock) as arena:
        fast, slow, quitter = await accounts(arena.url, "fast", "slow", "quitter")
        (guest,) = await racers(arena.url, "guest")
        game = "eight-off"
        deal = await deal_of(arena, game)
        line = winning_line(game, deal.seed)
        runs = {}
        for racer, step in ((fast, 1.0), (slow, 3.0)):
            started = await start(racer, game)
            assert started["scored"] is True and started["race"]["hints"] is False
            race_id = started["race"]["race_id"]
            refused = await racer.request({"type": "get_hint", "race_id": race_id})
            assert (
                refused["message"] == "hints are off in a scored daily attempt (practise the deal for hints)"
            )
            await play_line(racer, race_id, line, clock, step)
            ended = await racer.event("race_ended")
            assert ended["summary"]["standings"][0]["won"] is True
            assert "seed" not in ended["summary"]  # revealed once the day closes (reveals_at)
            runs[racer.player_id] = race_id
        gave_up = await start(quitter, game)
        await quitter.request({"type": "finish", "race_id": gave_up["race"]["race_id"]})
        await quitter.event("race_ended")
        unscored = await start(guest, game)
        assert unscored["scored"] is False and unscored["race"]["hints"] is True
        # One scored attempt: a second start is refused; practice is allowed after it.
        again = await fast.request({"type": "start_daily", "game": game})
        assert again["code"] == "daily_attempted"
        practice = await start(fast, game, practice=True)
        assert practice["scored"] is False and practice["race"]["race_id"] != runs[fast.player_id]
        await fast.request({"type": "finish", "race_id": practice["race"]["race_id"]})
        board = await slow.request({"type": "get_daily_board", "game": game})
        assert board["total"] == 3  # the guest and the practice are not on it
        names = [(e["rank"], e["name"], e["won"]) for e in board["entries"]]
        assert names == [(1, "fast_daily", True), (2, "slow_daily", True), (3, "quitter_daily", False)]
        assert [e["gave_up"] for e in board["entries"]] == [False, False, True]
        assert board["entries"][0]["time_ms"] == round(len(line) * 1000)
        assert board["me"]["rank"] == 2
        # Before the day closes only slow's own line carries its race id (and his own entry).
        assert [e.get("race_id") for e in board["entries"]] == [None, runs[slow.player_id], None]
        assert board["me"]["race_id"] == runs[slow.player_id]
        # The other two games the same day: everyone plays them too (and gives up).
        for other in ("treize", "eagle-wing"):
            for racer in (fast, slow, quitter):
                attempt = await start(racer, other)
                assert attempt["scored"] is True and attempt["race"]["game"] == other
                await racer.request({"type": "finish", "race_id": attempt["race"]["race_id"]})
                await racer.event("race_ended")
            other_board = await fast.request({"type": "get_daily_board", "game": other})
            assert other_board["total"] == 3 and {e["rank"] for e in other_board["entries"]} == {1}
        dailies = await slow.request({"type": "get_dailies"})
        assert all(d["attempt"]["scored"] for d in dailies["deals"])
        for racer in (fast, slow, quitter, guest):
            await racer.ws.close()


async def test_practice_waits_for_the_attempt_and_the_early_looks_are_refused(
    clean_redis: str, clock: ManualTime
) -> None:
    async with daily_node(clean_redis, clock) as arena:
        ada, bob = await accounts(arena.url, "ada", "bob")
        game = "treize"
        early = await bob.request({"type": "start_daily", "game": game, "practice": True})
        assert early["code"] == "daily_not_attempted"
        started = await start(ada, game)
        race_id = started["race"]["race_id"]
        await ada.request({"type": "finish", "race_id": race_id})
        await ada.event("race_ended")
        for request in (
            {"type": "get_results", "race_id": race_id},
            {"type": "get_move_log", "race_id": race_id},
            {"type": "get_replay", "race_id": race_id, "player_id": ada.player_id},
        ):
            refused = await bob.request(request)
            assert refused["type"] == "error" and refused["code"] == "not_yet", request
            assert refused["message"] == (
                f"that is someone's attempt at the daily treize deal of {started['date']}: it opens "
                "once the day's last attempts are over (2027-03-15 00:31 UTC), to everyone at once"
            ), request
        board = await bob.request({"type": "get_daily_board", "game": game})
        assert board["entries"][0]["name"] == "ada_daily" and "race_id" not in board["entries"][0]
        peek = await bob.request({"type": "get_race", "race_id": race_id})
        assert "seed" not in peek["race"] and "salt" not in peek["race"]
        own = await ada.request({"type": "get_move_log", "race_id": race_id})
        assert own["type"] == "move_log" and "seed" not in own
        # bob's own attempt, once over, is his to read; ada's still is not (it would be
        # his to copy into an attempt of another account of his).
        mine = await start(bob, game)
        await bob.request({"type": "finish", "race_id": mine["race"]["race_id"]})
        await bob.event("race_ended")
        log = await bob.request({"type": "get_move_log", "race_id": mine["race"]["race_id"]})
        assert log["type"] == "move_log" and "seed" not in log  # the seed waits for the day's close
        refused = await bob.request({"type": "get_move_log", "race_id": race_id})
        assert refused["code"] == "not_yet" and "00:31 UTC" in refused["message"]
        board = await bob.request({"type": "get_daily_board", "game": game})
        assert {e["name"]: e.get("race_id") for e in board["entries"]} == {
            "ada_daily": None, "bob_daily": mine["race"]["race_id"]
        }  # fmt: skip
        # A practice keeps the race rule of undo (its record is checked as a race's), and
        # the refusal says where that rule holds.
        practice = (await start(ada, game, practice=True))["race"]["race_id"]
        await ada.request({"type": "move", "race_id": practice, "seq": 1, "move": "deal"})
        refused = await ada.request({"type": "move", "race_id": practice, "seq": 2, "move": "undo"})
        assert refused == {
            "type": "error",
            "id": refused["id"],
            "code": "illegal_move",
            "message": "deal turned up a card nobody had seen, so it stays: a move that reveals a card "
            "cannot be undone in a race, a daily attempt or its practice",
        }
        await ada.ws.close()
        await bob.ws.close()


async def test_a_second_identity_whose_attempt_is_over_reads_nothing_of_anothers_before_the_close(
    clean_redis: str, clock: ManualTime
) -> None:
    """The cheat: winner plays each deal (Eight Off won); a throwaway guest starts its
    attempt and gives up at once, then asks for winner's attempt every way there is, to
    feed its moves to the cheater's real account. Until the day closes the guest gets the
    board without race ids and ``not_yet`` saying when it opens; its own attempt it reads."""
    async with daily_node(clean_redis, clock) as arena:
        (winner,) = await accounts(arena.url, "winner")
        (throwaway,) = await racers(arena.url, "throwaway")
        opens = "once the day's last attempts are over (2027-03-15 00:31 UTC)"
        for game in GAMES:
            deal = await deal_of(arena, game)
            won = (await start(winner, game))["race"]["race_id"]
            if game == "eight-off":
                await play_line(winner, won, winning_line(game, deal.seed), clock, 1.0)
            else:
                await play_line(winner, won, new_game(game, deal.seed).legal_moves()[:1], clock, 1.0)
                await winner.request({"type": "finish", "race_id": won})
            await winner.event("race_ended")
            own = (await start(throwaway, game))["race"]["race_id"]
            await throwaway.request({"type": "finish", "race_id": own})
            await throwaway.event("race_ended")
            board = await throwaway.request({"type": "get_daily_board", "game": game})
            assert [(e["name"], e.get("race_id")) for e in board["entries"]] == [("winner_daily", None)]
            assert board["reveals_at"] == day_start(DAY) + DAY_MS + 1_800_000 + 60_000  # when they show
            for request in looks(won, winner.player_id):
                refused = await throwaway.request(request)
                assert refused == {
                    "type": "error",
                    "id": refused["id"],
                    "code": "not_yet",
                    "message": f"that is someone's attempt at the daily {game} deal of {DAY.isoformat()}: "
                    f"it opens {opens}, to everyone at once",
                }, request
            mine = await throwaway.request({"type": "get_move_log", "race_id": own})
            assert mine["type"] == "move_log" and mine["moves"] == [] and "seed" not in mine
            replay_of_mine = await throwaway.request(
                {"type": "get_replay", "race_id": own, "player_id": throwaway.player_id}
            )
            assert replay_of_mine["type"] == "replay" and replay_of_mine["total"] == 1
        clock.set(day_start(DAY) + DAY_MS + 1_800_000 + 60_000)  # the close: everyone's, with seeds
        board = await throwaway.request(
            {"type": "get_daily_board", "game": "eight-off", "date": DAY.isoformat()}
        )
        (entry,) = board["entries"]
        log = await throwaway.request({"type": "get_move_log", "race_id": entry["race_id"]})
        assert log["type"] == "move_log" and log["seed"] == (await deal_of(arena, "eight-off")).seed
        assert replay("eight-off", log["seed"], [m["move"] for m in log["moves"]]).is_won
        for racer in (winner, throwaway):
            await racer.ws.close()


async def test_the_clock_ends_an_absent_players_attempt_at_its_limit(
    clean_redis: str, clock: ManualTime
) -> None:
    async with daily_node(clean_redis, clock, daily_time_limit=600.0) as arena:
        (ada,) = await accounts(arena.url, "ada")
        (watcher,) = await accounts(arena.url, "watcher")
        started = await start(ada, "eight-off")
        await ada.ws.close()  # gone
        clock.advance(601)
        for _ in range(200):
            board = await watcher.request({"type": "get_daily_board", "game": "eight-off"})
            if board["total"]:
                break
            await asyncio.sleep(0.02)
        assert board["total"] == 1 and board["entries"][0]["won"] is False
        assert started["race"]["race_id"]
        await watcher.ws.close()


async def test_the_board_and_recent_races_say_who_gave_up_apart_from_whose_time_ran_out(
    clean_redis: str, clock: ManualTime
) -> None:
    """quitter sends ``finish`` at once; idler's attempt is ended by the clock with the
    same cards home: only quitter's entry (on the page, as ``me``, in the profile's recent
    races, and as a ghost chaser races) says ``gave_up``."""
    async with daily_node(clean_redis, clock, daily_time_limit=600.0) as arena:
        quitter, idler, chaser = await accounts(arena.url, "quitter", "idler", "chaser")
        game = "treize"
        await start(idler, game)
        gave_up = await start(quitter, game)
        await quitter.request({"type": "finish", "race_id": gave_up["race"]["race_id"]})
        await quitter.event("race_ended")
        clock.advance(601)
        ran_out = await idler.event("race_ended", timeout=5)
        assert ran_out["summary"]["standings"][0]["gave_up"] is False
        board = await idler.request({"type": "get_daily_board", "game": game})
        assert {e["name"]: (e["won"], e["gave_up"]) for e in board["entries"]} == {
            "quitter_daily": (False, True), "idler_daily": (False, False)
        }  # fmt: skip
        assert board["me"]["gave_up"] is False
        mine = await quitter.request({"type": "get_daily_board", "game": game, "limit": 1})
        assert mine["me"]["name"] == "quitter_daily" and mine["me"]["gave_up"] is True
        for racer, expected in ((quitter, True), (idler, False)):
            profile = (await racer.request({"type": "get_profile"}))["profile"]
            assert [(r["daily"], r["gave_up"]) for r in profile["recent"]] == [(DAY.isoformat(), expected)]
        # Raced as ghosts, the two say the same as their board entries.
        race_id = (await start(chaser, game))["race"]["race_id"]
        ghosts = await chaser.request({"type": "daily_ghosts", "race_id": race_id})
        assert {g["name"]: (g["won"], g["gave_up"]) for g in ghosts["ghosts"]} == {
            "quitter_daily": (False, True), "idler_daily": (False, False)
        }  # fmt: skip
        for racer in (quitter, idler, chaser):
            await racer.ws.close()


async def test_midnight_rolls_over_and_the_days_seeds_are_revealed_and_check_out(
    clean_redis: str, clock: ManualTime
) -> None:
    async with daily_node(clean_redis, clock) as arena:
        (ada,) = await accounts(arena.url, "ada")
        game = "eight-off"
        deal = await deal_of(arena, game)
        clock.set(day_start(DAY) + DAY_MS - 2_000)  # 23:59:58
        started = await start(ada, game)
        race_id = started["race"]["race_id"]
        line = winning_line(game, deal.seed)
        await play_line(ada, race_id, line[:5], clock, 1.0)  # into the next day
        assert arena.features is not None
        await arena.features.daily.prepare(DAY + dt.timedelta(days=1))
        today = await ada.request({"type": "get_dailies"})
        assert today["date"] == "2027-03-15"
        await ada.request({"type": "finish", "race_id": race_id})
        await ada.event("race_ended")
        early = await ada.request({"type": "get_dailies", "date": "2027-03-14"})
        assert all("seed" not in d for d in early["deals"])  # not before the day closes
        clock.set(early["reveals_at"])
        past = await ada.request({"type": "get_dailies", "date": "2027-03-14"})
        info = next(d for d in past["deals"] if d["game"] == game)
        assert info["seed"] == deal.seed and info["attempt"]["race_id"] == race_id
        digest = hashlib.sha256(f"solitaire-arena:{game}:{info['seed']}:{info['salt']}".encode()).hexdigest()
        assert digest == info["commitment"]
        log = await ada.request({"type": "get_move_log", "race_id": race_id})
        assert log["seed"] == deal.seed
        replayed = replay(game, log["seed"], [m["move"] for m in log["moves"]])
        assert replayed.position() == replay(game, deal.seed, line[:5]).position()
        future = await ada.request({"type": "get_dailies", "date": "2027-03-16"})
        assert future["code"] == "not_yet"
        old_board = await ada.request({"type": "get_daily_board", "game": game, "date": "2027-03-14"})
        assert old_board["entries"][0]["player_id"] == ada.player_id
        await ada.ws.close()


async def test_an_attempt_running_past_midnight_keeps_the_days_seeds_and_attempts_hidden_until_the_close(
    clean_redis: str, clock: ManualTime
) -> None:
    """ada starts at 23:59 and plays on after midnight; bob finished before it; cy never
    played. Until the day closes (its end, the 30 min of an attempt and a minute: 00:31)
    nobody gets the day's seeds, nor bob's attempt from anyone but bob (ada neither, her own
    attempt over); then everyone does."""
    async with daily_node(clean_redis, clock) as arena:
        ada, bob, cy = await accounts(arena.url, "ada", "bob", "cy")
        game = "treize"
        deal = await deal_of(arena, game)
        closes = day_start(DAY) + DAY_MS + 1_800_000 + 60_000
        clock.set(day_start(DAY) + DAY_MS - 60_000)  # 23:59
        bobs = (await start(bob, game))["race"]["race_id"]
        await bob.request({"type": "finish", "race_id": bobs})
        await bob.event("race_ended")
        adas = (await start(ada, game))["race"]["race_id"]
        assert arena.features is not None
        await arena.features.daily.prepare(DAY + dt.timedelta(days=1))
        clock.set(day_start(DAY) + DAY_MS + 30_000)  # 00:00:30, ada's attempt still running
        move = new_game(game, deal.seed).legal_moves()[0]
        ack = await ada.request({"type": "move", "race_id": adas, "seq": 1, "move": move})
        assert ack["type"] == "move_ack", ack
        opens = "once the day's last attempts are over (2027-03-15 00:31 UTC)"
        hidden = await hidden_day((ada, cy), bob, cy, bobs)
        assert hidden == {
            "dailies": (DAY.isoformat(), day_start(DAY) + DAY_MS, closes, ()),
            "others": f"that is someone's attempt at the daily treize deal of 2027-03-14: it opens {opens}, "
            "to everyone at once",
            "record": f"a daily attempt's record waits for its seed, revealed {opens}",
            "watch": "daily challenge attempts are never shown live (the deal is everyone's for the "
            f"whole day): replay it {opens}",
        }
        own = await bob.request({"type": "get_move_log", "race_id": bobs})
        assert own["type"] == "move_log" and "seed" not in own
        clock.set(day_start(DAY) + DAY_MS + 1_800_000 - 60_000)  # 00:29: ada's clock ends it
        ended = await ada.event("race_ended", timeout=5)
        assert "seed" not in ended["summary"] and ended["summary"]["reveals_at"] == closes
        clock.set(closes - 1)
        # ada's own attempt is over: still nothing of bob's until the close.
        assert await hidden_day((ada, cy), bob, cy, bobs) == hidden
        clock.set(closes)
        past = await cy.request({"type": "get_dailies", "date": DAY.isoformat()})
        info = next(d for d in past["deals"] if d["game"] == game)
        assert (info["seed"], info["salt"]) == (deal.seed, deal.salt)
        for racer in (ada, cy):
            log = await racer.request({"type": "get_move_log", "race_id": bobs})
            assert (log["type"], log["seed"]) == ("move_log", deal.seed)
            assert (await racer.request({"type": "get_race", "race_id": bobs}))["race"]["seed"] == deal.seed
            record = await racer.request({"type": "get_record", "race_id": bobs})
            assert record["type"] == "record" and f'[ServerSeed "{deal.seed}"]' in record["text"]
            replay = await racer.request({"type": "get_replay", "race_id": bobs, "player_id": bob.player_id})
            assert replay["type"] == "replay"
        watch = await cy.request({"type": "watch", "race_id": bobs})
        assert watch["message"] == (
            "daily challenge attempts are never shown live (the deal is everyone's for the whole "
            "day): replay it instead"
        )
        for racer in (ada, bob, cy):
            await racer.ws.close()


async def test_an_attempt_ended_after_its_days_close_carries_the_seed_in_its_end(
    clean_redis: str, clock: ManualTime
) -> None:
    """An attempt whose end comes only after its day closed (the node was down past its
    limit and the close): its race_ended already carries the seed, as its results do."""
    async with daily_node(clean_redis, clock, daily_time_limit=600.0) as arena:
        (ada,) = await accounts(arena.url, "ada")
        deal = await deal_of(arena, "eight-off")
        closes = day_start(DAY) + DAY_MS + 600_000 + 60_000  # 00:11
        clock.set(day_start(DAY) + DAY_MS - 60_000)  # 23:59
        race_id = (await start(ada, "eight-off"))["race"]["race_id"]
        clock.set(closes + 60_000)  # 00:12: the attempt's end (00:09) was missed till now
        ended = await ada.event("race_ended", timeout=5)
        summary = ended["summary"]
        assert (summary["race_id"], summary["seed"], summary["salt"], summary["reveals_at"]) == (
            race_id,
            deal.seed,
            deal.salt,
            closes,
        )
        await ada.ws.close()


async def test_a_practice_and_a_guests_attempt_say_what_they_were_in_the_race_results_and_record(
    clean_redis: str, clock: ManualTime
) -> None:
    """The same deal played three ways: ada's scored attempt, her practice after it, and a
    guest's (unscored) first attempt. Each one's race, results and record say which run it
    was; the record verifies and its Attempt cannot be read without its Daily."""
    async with daily_node(clean_redis, clock) as arena:
        (ada,) = await accounts(arena.url, "ada")
        gus, bob = await racers(arena.url, "gus", "bob")
        runs = {}
        plays = (("scored", ada, False), ("practice", ada, True), ("unscored", gus, False))
        for kind, racer, practice in plays:
            race_id = (await start(racer, "treize", practice=practice))["race"]["race_id"]
            await racer.request({"type": "finish", "race_id": race_id})
            ended = await racer.event("race_ended")
            assert (ended["summary"]["daily"], ended["summary"]["attempt"]) == (DAY.isoformat(), kind)
            runs[kind] = race_id
        clock.set(day_start(DAY) + DAY_MS + 31 * 60_000)  # the day closes: records open
        for kind, race_id in runs.items():
            race = (await bob.request({"type": "get_race", "race_id": race_id}))["race"]
            results = (await bob.request({"type": "get_results", "race_id": race_id}))["summary"]
            text = (await bob.request({"type": "get_record", "race_id": race_id}))["text"]
            assert (race["daily"], race["attempt"]) == (DAY.isoformat(), kind)
            assert (results["daily"], results["attempt"]) == (DAY.isoformat(), kind)
            assert f'[Daily "{DAY.isoformat()}"]\n[Attempt "{kind}"]\n' in text
            record = read_record(text)
            assert record.attempt == kind
            verify_record(record)
        # A race that is no daily run says nothing of the kind.
        created = (await bob.request({"type": "create_race", "game": "treize"}))["race"]
        assert "daily" not in created and "attempt" not in created
        await ada.ws.close()
        await gus.ws.close()
        await bob.ws.close()


async def hidden_day(lookers: tuple[Racer, ...], bob: Racer, cy: Racer, race_id: str) -> dict[str, Any]:
    """What each of ``lookers`` (whatever their own attempt) gets of the day and of bob's
    attempt ``race_id``, bob of his own record and cy of watching it: the day's seeds, and
    each refusal (the same for every looker)."""
    days, others = set(), set()
    for racer in lookers:
        dailies = await racer.request({"type": "get_dailies", "date": DAY.isoformat()})
        revealed = tuple(key for deal in dailies["deals"] for key in ("seed", "salt") if key in deal)
        days.add((dailies["date"], dailies["closes_at"], dailies.get("reveals_at"), revealed))
        for request in looks(race_id, bob.player_id):
            refused = await racer.request(request)
            others.add(refused["message"] if refused.get("code") == "not_yet" else repr(refused))
        peek = await racer.request({"type": "get_race", "race_id": race_id})
        assert "seed" not in peek["race"] and "salt" not in peek["race"]
    record = await bob.request({"type": "get_record", "race_id": race_id})
    watch = await cy.request({"type": "watch", "race_id": race_id})
    (day,), (other,) = days, others
    return {
        "dailies": day,
        "others": other,
        "record": record.get("message", repr(record)),
        "watch": watch["message"],
    }


async def test_equal_results_share_a_rank(clean_redis: str, clock: ManualTime) -> None:
    async with daily_node(clean_redis, clock) as arena:
        ada, bob, cy = await accounts(arena.url, "ada", "bob", "cy")
        for racer in (ada, bob, cy):
            started = await start(racer, "treize")
            await racer.request({"type": "finish", "race_id": started["race"]["race_id"]})
            await racer.event("race_ended")
        board = await ada.request({"type": "get_daily_board", "game": "treize"})
        assert [e["rank"] for e in board["entries"]] == [1, 1, 1]
        for racer in (ada, bob, cy):
            await racer.ws.close()


async def test_a_player_just_finished_finds_their_attempt_on_the_board_and_standing_read_a_moment_before(
    clean_redis: str, clock: ManualTime
) -> None:
    async with daily_node(clean_redis, clock) as arena:
        ada, bob = await accounts(arena.url, "ada", "bob")
        game = "treize"
        for racer in (ada, bob):
            started = await start(racer, game)
            await racer.request({"type": "finish", "race_id": started["race"]["race_id"]})
            await racer.event("race_ended")
            # At once, as a client asks for its place at the end: ada's read is the page
            # a busy board keeps for a moment; bob's must still count and list bob.
            board = await racer.request({"type": "get_daily_board", "game": game, "limit": 1})
            assert board["me"]["player_id"] == racer.player_id
            assert board["total"] >= board["me"]["rank"]
            standing = await racer.request({"type": "get_daily_standings"})
            assert racer.player_id in [e["player_id"] for e in standing["day"]]
        # Both gave up at once with the deal's score: a tie, listed in either order.
        assert board["total"] == 2 and board["entries"][0]["player_id"] in (ada.player_id, bob.player_id)
        page = await bob.request({"type": "get_daily_board", "game": game})
        assert sorted(e["name"] for e in page["entries"]) == ["ada_daily", "bob_daily"]
        assert [e["rank"] for e in page["entries"]] == [1, 1]
        for racer in (ada, bob):
            await racer.ws.close()


async def test_ghosts_replay_the_best_attempts_at_the_same_elapsed_times_and_carry_no_cards(
    clean_redis: str, clock: ManualTime
) -> None:
    async with daily_node(clean_redis, clock) as arena:
        leader, chaser = await accounts(arena.url, "leader", "chaser")
        game = "eight-off"
        line = winning_line(game, (await deal_of(arena, game)).seed)
        first = await start(leader, game)
        await play_line(leader, first["race"]["race_id"], line, clock, 2.0)
        await leader.event("race_ended")
        mine = await start(chaser, game)
        race_id = mine["race"]["race_id"]
        on = await chaser.request({"type": "daily_ghosts", "race_id": race_id})
        assert on["ghosts"] == [
            {
                "player_id": leader.player_id,
                "name": "leader_daily",
                "rank": 1,
                "won": True,
                "time_ms": 2000 * len(line),
                "gave_up": False,
            }
        ]
        seed = (await deal_of(arena, game)).seed
        for index in range(3):
            clock.advance(2.0)
            ghost = await chaser.event("ghost", timeout=3)
            then = replay(game, seed, line[: index + 1])
            assert ghost == {
                "type": "ghost",
                "race_id": race_id,
                "player_id": leader.player_id,
                "elapsed_ms": 2000 * (index + 1),
                "score": then.score,
                "cards_left": 52 - then.score,
                "move_count": index + 1,
                "finished": False,
                "won": False,
            }
        clock.advance(2.0 * len(line))
        last = await chaser.event("ghost", timeout=3)
        while not last["finished"]:
            last = await chaser.event("ghost", timeout=3)
        assert last["won"] is True and last["elapsed_ms"] == 2000 * len(line) and last["cards_left"] == 0
        off = await chaser.request({"type": "daily_ghosts", "race_id": race_id, "on": False})
        assert off["ghosts"] == []
        practice_refused = await leader.request({"type": "daily_ghosts", "race_id": race_id})
        assert practice_refused["code"] == "not_a_racer"
        await leader.ws.close()
        await chaser.ws.close()


async def test_the_tournament_counts_points_by_place_once_per_day_with_streaks(
    clean_redis: str, clock: ManualTime
) -> None:
    async with daily_node(clean_redis, clock) as arena:
        assert arena.features is not None
        daily = arena.features.daily
        ada, bob = await accounts(arena.url, "ada", "bob")
        line = winning_line("eight-off", (await deal_of(arena, "eight-off")).seed)
        for racer, step in ((ada, 1.0), (bob, 2.0)):
            started = await start(racer, "eight-off")
            await play_line(racer, started["race"]["race_id"], line, clock, step)
            await racer.event("race_ended")
        alone = await start(bob, "treize")
        await bob.request({"type": "finish", "race_id": alone["race"]["race_id"]})
        await bob.event("race_ended")
        live = await ada.request({"type": "get_daily_standings"})
        assert [(e["name"], e["points"], e["places"]) for e in live["day"]] == [
            ("bob_daily", 18 + 25, {"eight-off": 2, "treize": 1}),
            ("ada_daily", 25, {"eight-off": 1}),
        ]
        assert live["week"] == "2027-W10" and live["week_table"] == [] and live["all_time"] == []
        # Live until counted: due once an attempt begun at 23:59:59.999 is surely over.
        counts_at = day_start(DAY) + DAY_MS + 30 * 60_000 + 60_000  # 00:31 the next day
        assert (live["counted"], live["counts_at"]) == (False, counts_at)
        # The next day: ada plays again; day one is counted once its last attempt could be over.
        clock.set(day_start(DAY) + DAY_MS + 10 * 60_000)
        assert "2027-03-14" not in await daily.close_due()  # 00:10: one begun at 23:59 may run
        yesterday = await bob.request({"type": "get_daily_standings", "date": "2027-03-14"})
        assert (yesterday["counted"], yesterday["counts_at"]) == (False, counts_at)
        await daily.prepare(DAY + dt.timedelta(days=1))
        line2 = winning_line(
            "eight-off", (await deal_of(arena, "eight-off", DAY + dt.timedelta(days=1))).seed
        )
        again = await start(ada, "eight-off")
        await play_line(ada, again["race"]["race_id"], line2, clock, 1.0)
        await ada.event("race_ended")
        clock.set(day_start(DAY) + DAY_MS + 40 * 60_000)
        assert "2027-03-14" in await daily.close_due()
        assert await daily.close_due() == []  # once
        standings = await ada.request({"type": "get_daily_standings", "date": "2027-03-14"})
        assert (standings["counted"], standings["counts_at"]) == (True, counts_at)
        assert [(e["name"], e["points"]) for e in standings["week_table"]] == [
            ("bob_daily", 43),
            ("ada_daily", 25),
        ]
        assert [e["rank"] for e in standings["all_time"]] == [1, 2]
        clock.set(day_start(DAY) + 2 * DAY_MS + 40 * 60_000)
        assert "2027-03-15" in await daily.close_due()
        mine = await ada.request({"type": "get_daily_standings"})
        assert mine["streak"] == {"current": 2, "best": 2}
        theirs = await bob.request({"type": "get_daily_standings"})
        assert theirs["streak"] == {"current": 0, "best": 1}
        assert theirs["week"] == "2027-W11"  # Monday the 15th began a new week
        assert [(e["name"], e["points"]) for e in theirs["week_table"]] == [("ada_daily", 25)]
        all_time = [(e["name"], e["points"]) for e in theirs["all_time"]]
        assert all_time == [("ada_daily", 50), ("bob_daily", 43)]
        await ada.ws.close()
        await bob.ws.close()


async def count_day(arena: ArenaServer, day: dt.date, points: dict[str, int]) -> None:
    """Count ``day``'s tournament ``points`` into its week's and the all-time tables, as
    the server's daily task does once the day is over."""
    assert arena.store is not None
    days = (day - dt.date(1970, 1, 1)).days
    assert await arena.store.dailies.close(day.isoformat(), days, iso_week(day), points, 0)


async def crowd_the_tables(arena: ArenaServer, player_id: str) -> None:
    """More players than a table shows, around ``player_id``, written straight to the store:

    - :data:`DAY`'s standing: each game's board has ten players in places 1 to 10 (25 to
      1 points), so three players have each number of points; the player is 11th on
      Eight Off's, for 1 point: 28th, as the three others with 1 point are;
    - its week's table: a counted day (the day before) of 24 players with 50 down to 27
      points, and the player's 29, as the 22nd has: 22nd;
    - all time: that day and one of the week before, the player's 100 alone: 1st, 129.
    """
    assert arena.store is not None
    date = DAY.isoformat()
    async with arena.store.redis.pipeline(transaction=False) as pipe:
        for game in GAMES:
            pipe.zadd(keys.daily_board(date, game), {f"p_{game}_{place}": place for place in range(1, 11)})
        pipe.zadd(keys.daily_board(date, "eight-off"), {player_id: 20})
        await pipe.execute()
    week = {f"p_week_{index}": 50 - index for index in range(24)}
    await count_day(arena, DAY - dt.timedelta(days=1), {**week, player_id: 29})
    await count_day(arena, DAY - dt.timedelta(days=13), {player_id: 100})


async def test_a_day_played_before_every_node_was_down_for_days_is_counted_when_one_is_back(
    clean_redis: str, clock: ManualTime
) -> None:
    """No node looked between the day's close and five days later: the next look counts
    it all the same (with the days after it, oldest first), and its points are in."""
    async with daily_node(clean_redis, clock) as arena:
        assert arena.features is not None
        daily = arena.features.daily
        (ada,) = await accounts(arena.url, "ada")
        started = await start(ada, "treize")
        await ada.request({"type": "finish", "race_id": started["race"]["race_id"]})
        await ada.event("race_ended")
        clock.set(day_start(DAY) + 5 * DAY_MS + 40 * 60_000)
        counted = await daily.close_due()
        assert counted[-5:] == [(DAY + dt.timedelta(days=back)).isoformat() for back in range(5)]
        assert counted == sorted(counted)
        standings = await ada.request({"type": "get_daily_standings", "date": DAY.isoformat()})
        assert standings["counted"] is True
        assert [(e["name"], e["points"]) for e in standings["all_time"]] == [("ada_daily", 25)]
        await ada.ws.close()


async def test_the_standings_give_the_senders_own_place_in_each_table_beyond_the_top_20(
    clean_redis: str, clock: ManualTime
) -> None:
    """More players than a table shows: the sender's own entry in each table has their
    exact rank (equal points share it) and points, inside the top 20 or not, and is left
    out of the frame where they have no points."""
    async with daily_node(clean_redis, clock) as arena:
        (ada,) = await accounts(arena.url, "ada")
        (gus,) = await racers(arena.url, "gus")  # a guest: no points anywhere
        await crowd_the_tables(arena, ada.player_id)
        standings = await ada.request({"type": "get_daily_standings"})
        # The top 20: three players share each rank (1, 1, 1, 4, 4, 4, ..., 19, 19).
        assert [e["rank"] for e in standings["day"]] == [1 + 3 * (row // 3) for row in range(20)]
        me = {"player_id": ada.player_id, "name": "ada_daily", "bot": False}
        # 27 players have more than 1 point; three others have 1, as ada has.
        assert standings["me_day"] == {"rank": 28, **me, "points": 1, "places": {"eight-off": 11}}
        assert [(e["rank"], e["points"]) for e in standings["week_table"]] == [
            (rank, 51 - rank) for rank in range(1, 21)
        ]
        assert standings["me_week"] == {"rank": 22, **me, "points": 29}  # p_week_21 has 29 too
        # First of all time: the entry is there as well as the table's first row.
        assert standings["me_all_time"] == {"rank": 1, **me, "points": 129}
        assert standings["all_time"][0] == standings["me_all_time"]

        # A day without ada's points, in the week of her 100: no day entry, first that week.
        past = await ada.request({"type": "get_daily_standings", "date": "2027-03-07"})
        assert past["week"] == "2027-W09" and past["day"] == [] and "me_day" not in past
        assert past["me_week"] == {"rank": 1, **me, "points": 100}
        assert past["me_all_time"] == {"rank": 1, **me, "points": 129}
        # A guest has no points in any table: none of the three is in the frame.
        theirs = await gus.request({"type": "get_daily_standings"})
        assert len(theirs["day"]) == len(theirs["week_table"]) == 20
        assert not {"me_day", "me_week", "me_all_time", "streak"} & theirs.keys()
        for racer in (ada, gus):
            await racer.ws.close()


async def test_an_attempt_carries_the_days_commitment_and_its_results_read_without_a_seed(
    clean_redis: str, clock: ManualTime
) -> None:
    async with daily_node(clean_redis, clock) as arena:
        client = await ArenaClient.connect(arena.url)
        await client.hello(name="sdk")
        await client.register("sdk_daily", PASSWORD)
        dailies = await client.dailies()
        started = await client.start_daily("treize")
        published = next(d.commitment for d in dailies.deals if d.game == "treize")
        assert started.race.commitment == published and started.scored
        await client.finish(started.race.race_id)
        await client.wait_for(RaceEnded)
        summary = await client.results(started.race.race_id)
        assert summary.seed is None and summary.salt is None and summary.commitment == published
        with pytest.raises(ArenaError) as rematch:
            await client.offer_rematch(started.race.race_id)
        assert rematch.value.code == "not_enough_racers"
        assert (
            rematch.value.message
            == "a daily attempt is raced alone: it has no rematch (practise its deal instead)"
        )
        with pytest.raises(NoDailyError, match="there were no daily challenges on 2027-03-10"):
            await client.dailies("2027-03-10")
        with pytest.raises(NoDailyError, match="there was no treize daily on 2027-03-10"):
            await client.daily_board("treize", "2027-03-10")
        await client.close()


async def test_an_attempt_is_listed_among_the_players_recent_races_with_its_day(
    clean_redis: str, clock: ManualTime
) -> None:
    async with daily_node(clean_redis, clock) as arena:
        (ada,) = await accounts(arena.url, "ada")
        (bob,) = await racers(arena.url, "bob")
        deal = await deal_of(arena, "eight-off")
        line = winning_line("eight-off", deal.seed)
        started = await start(ada, "eight-off")
        race_id = started["race"]["race_id"]
        await play_line(ada, race_id, line, clock, 1.0)
        ended = await ada.event("race_ended")
        # Before the day closes bob is not given her race id (as on the day's board); ada is.
        profile = (await bob.request({"type": "get_profile", "player_id": ada.player_id}))["profile"]
        assert profile["recent"] == [
            {
                "game": "eight-off",
                "rated": False,
                "rank": 1,
                "racers": 1,
                "tied": False,
                "won": True,
                "score": 52,
                "time_ms": round(len(line) * 1000),
                "ended_at": ended["summary"]["ended_at"],
                "daily": DAY.isoformat(),
                "gave_up": False,
                "practice": False,
            }
        ]
        # A practice is listed as one, and is no race of the counts: one race, one win.
        practice = (await start(ada, "eight-off", practice=True))["race"]["race_id"]
        await ada.request({"type": "finish", "race_id": practice})
        await ada.event("race_ended")
        profile = (await bob.request({"type": "get_profile", "player_id": ada.player_id}))["profile"]
        assert [(r.get("race_id"), r["daily"], r["practice"]) for r in profile["recent"]] == [
            (None, DAY.isoformat(), True),
            (None, DAY.isoformat(), False),
        ]
        assert profile["stats"] == [
            {"game": "eight-off", "races": 1, "wins": 1, "best_ms": round(len(line) * 1000)}
        ]
        own = (await ada.request({"type": "get_profile"}))["profile"]
        assert [r.get("race_id") for r in own["recent"]] == [practice, race_id]
        # Once the day is closed they are everyone's.
        clock.set(day_start(DAY) + DAY_MS + 31 * 60_000)
        profile = (await bob.request({"type": "get_profile", "player_id": ada.player_id}))["profile"]
        assert [r.get("race_id") for r in profile["recent"]] == [practice, race_id]
        await ada.ws.close()
        await bob.ws.close()


async def test_watching_a_daily_attempt_is_refused_with_when_its_replay_opens(
    clean_redis: str, clock: ManualTime
) -> None:
    """Never live; the replay (re-dealt from the seed) opens once the day is closed, for the
    attempt's own player too, whose attempt is over."""
    async with daily_node(clean_redis, clock) as arena:
        ada, bob = await accounts(arena.url, "ada", "bob")
        race_id = (await start(ada, "eight-off"))["race"]["race_id"]
        await ada.request({"type": "finish", "race_id": race_id})
        await ada.event("race_ended")
        own = await ada.request({"type": "watch", "race_id": race_id})
        assert (own["type"], own["code"]) == ("error", "not_yet")
        assert own["message"] == (
            "your daily attempt is over, but attempts are never shown live: its replay opens "
            "once the day's last attempts are over (2027-03-15 00:31 UTC)"
        )
        other = await bob.request({"type": "watch", "race_id": race_id})
        assert other["message"] == (
            "daily challenge attempts are never shown live (the deal is everyone's for the whole "
            "day): replay it once the day's last attempts are over (2027-03-15 00:31 UTC)"
        )
        log = await ada.request({"type": "get_move_log", "race_id": race_id})
        assert "seed" not in log  # what a replay re-deals from: not before the day's close
        await ada.ws.close()
        await bob.ws.close()


async def test_start_daily_resumes_an_attempt_still_running_and_refuses_one_that_is_over(
    clean_redis: str, clock: ManualTime
) -> None:
    async with daily_node(clean_redis, clock) as arena:
        ada = Racer(await ws_connect(arena.url, compression=None))
        await ada.request({"type": "hello", "name": "ada", "legal_moves": True})
        registered = await ada.request({"type": "register", "username": "ada_daily", "password": PASSWORD})
        assert registered["type"] == "account"
        token = registered["token"]  # the account's: the guest's went with the register
        game = "eight-off"
        line = winning_line(game, (await deal_of(arena, game)).seed)
        started = await start(ada, game)
        race_id = started["race"]["race_id"]
        await play_line(ada, race_id, line[:2], clock, 1.0)
        await ada.ws.close()  # the client went away mid-attempt
        clock.advance(30)

        back = Racer(await ws_connect(arena.url, compression=None))
        welcome = await back.request({"type": "hello", "token": token, "legal_moves": True})
        assert welcome["races"] == [race_id]
        early = await back.request({"type": "start_daily", "game": game, "practice": True})
        assert early["code"] == "daily_not_attempted" and "still on" in early["message"]
        resumed = await back.request({"type": "start_daily", "game": game})
        assert resumed["type"] == "daily_started", resumed
        assert resumed["resumed"] is True and resumed["scored"] is True
        race = resumed["race"]
        assert race["race_id"] == race_id and race["status"] == "running"
        assert race["starts_at"] == started["race"]["starts_at"]  # the clock runs from the start
        assert race["board"]["seq"] == 2 and race["board"]["view"]["move_count"] == 2
        # The session follows the resumed race: the rest of the line wins it.
        for seq, move in enumerate(line[2:], start=3):
            ack = await back.request({"type": "move", "race_id": race_id, "seq": seq, "move": move})
            assert ack["type"] == "move_ack", ack
        await back.event("race_ended")

        over = await back.request({"type": "start_daily", "game": game})
        assert over["code"] == "daily_attempted"
        assert over["message"] == (
            f"your {game} attempt of today is over: practise the deal (unscored) or come back tomorrow"
        )
        practice = await start(back, game, practice=True)
        assert practice["race"]["race_id"] != race_id and practice.get("resumed", False) is False
        await back.ws.close()


async def test_practice_starts_the_moment_the_attempt_is_finished_not_once_its_race_has_ended(
    clean_redis: str, clock: ManualTime
) -> None:
    """The winning move's ack or the give-up's answer ends the attempt for the player: a
    practice asked at once is not refused while the race of one is still being closed."""
    async with daily_node(clean_redis, clock) as arena:
        ada, bob = await accounts(arena.url, "ada", "bob")
        line = winning_line("eight-off", (await deal_of(arena, "eight-off")).seed)
        won = await start(ada, "eight-off")
        await play_line(ada, won["race"]["race_id"], line, clock, 1.0)
        practice = await ada.request({"type": "start_daily", "game": "eight-off", "practice": True})
        assert practice["type"] == "daily_started", practice
        assert practice["scored"] is False and practice["race"]["race_id"] != won["race"]["race_id"]

        given_up = await start(bob, "treize")
        answer = await bob.request({"type": "finish", "race_id": given_up["race"]["race_id"]})
        assert answer["type"] == "ok", answer
        practice = await bob.request({"type": "start_daily", "game": "treize", "practice": True})
        assert practice["type"] == "daily_started", practice
        await ada.ws.close()
        await bob.ws.close()


async def test_a_daily_is_refused_while_racing_elsewhere_and_leaves_the_attempt_unclaimed(
    clean_redis: str, clock: ManualTime
) -> None:
    async with daily_node(clean_redis, clock) as arena:
        ada, bob = await racers(arena.url, "ada", "bob")
        created = await ada.request({"type": "create_race", "game": "treize", "seats": 2})
        race = created["race"]
        await bob.request({"type": "join_race", "code": race["code"]})
        await ada.request({"type": "ready", "race_id": race["race_id"]})
        await bob.request({"type": "ready", "race_id": race["race_id"]})
        await ada.event("race_countdown")
        refused = await ada.request({"type": "start_daily", "game": "eight-off"})
        assert refused["code"] == "already_racing" and race["race_id"] in refused["message"]
        dailies = await ada.request({"type": "get_dailies"})
        assert all("attempt" not in deal for deal in dailies["deals"])
        await ada.ws.close()
        await bob.ws.close()

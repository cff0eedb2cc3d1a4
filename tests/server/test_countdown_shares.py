"""Seed shares revealed during the countdown, end to end on raw frames: in races without a
ready step (quick matches, rematches) each racer commits with ``quick_match`` (or the
rematch offer or acceptance) and reveals with ``reveal_share``; in a race made with create
and join, a racer whose share is not at hand (another device) gets ready without it. The
start deals from the mix of the shares revealed by then, and the record says which are in
it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.asyncio.client import connect as ws_connect

from client.sdk import ArenaClient
from server.app import ArenaServer
from shared import new_game
from shared.fairness import mixed_seed, share_commitment
from shared.protocol import MatchFound, RaceEnded, RaceStarted, RematchStarted, to_wire
from shared.record import RaceRecord, read_record, verify_record
from tests.server.conftest import running_node
from tests.server.rawclient import Frame, Racer, racers

SHARES = {"ada": "a0" * 16, "bob": "0b" * 16}
WRONG_SHARE = "that seed share does not match the commitment you sent for this race"


@pytest.fixture
async def mixing(clean_redis: str) -> AsyncIterator[ArenaServer]:
    """A node that mixes shares, with a countdown long enough for reveals on a busy machine."""
    async with running_node(clean_redis, mix_shares=True, countdown=1.5) as node:
        yield node


def committed(name: str) -> dict[str, Any]:
    return {"share_commitment": share_commitment(SHARES[name])}


async def matched(ada: Racer, bob: Racer, ada_commits: bool = True, bob_commits: bool = True) -> str:
    """ada and bob queue for Treize (committing to their shares, or not): the race id."""
    queued = await ada.request(
        {"type": "quick_match", "game": "treize", **(committed("ada") if ada_commits else {})}
    )
    assert queued["type"] == "queued"
    queued = await bob.request(
        {"type": "quick_match", "game": "treize", **(committed("bob") if bob_commits else {})}
    )
    assert queued["type"] == "queued"
    found = await ada.event("match_found")
    assert (await bob.event("match_found"))["race"]["race_id"] == found["race"]["race_id"]
    assert found["race"]["status"] == "countdown" and found["race"]["commitment"]
    seats = {r["player_id"]: r for r in found["race"]["racers"]}
    assert seats[ada.player_id]["share_committed"] is ada_commits
    assert seats[bob.player_id]["share_committed"] is bob_commits
    assert not any(r["share_revealed"] for r in seats.values())
    race_id: str = found["race"]["race_id"]
    return race_id


async def reveal(racer: Racer, race_id: str, share: str) -> Frame:
    return await racer.request({"type": "reveal_share", "race_id": race_id, "share": share})


async def raced(ada: Racer, bob: Racer, race_id: str) -> tuple[Frame, RaceRecord]:
    """Both give up at the start: the opening view of race_started, and the race's record
    (checked offline)."""
    started = await ada.event("race_started")
    await bob.event("race_started")
    for racer in (ada, bob):
        assert (await racer.request({"type": "finish", "race_id": race_id}))["type"] == "ok"
    ended = await ada.event("race_ended")
    record = read_record((await bob.request({"type": "get_record", "race_id": race_id}))["text"])
    verify_record(record)
    assert ended["summary"]["seed"] == record.seed
    return started, record


def dealt_from(started: Frame, seed: int) -> bool:
    view = {k: v for k, v in started["view"].items() if k not in ("legal_moves", "can_undo")}
    return bool(view == new_game("treize", seed).view())


def assert_dealt_from_the_mix(started: Frame, record: RaceRecord, by_player: dict[str, str]) -> None:
    """The record holds exactly these shares (player id: share), its seed is their mix and
    the race was dealt from it."""
    assert {(s.player_id, s.share) for s in record.shares} == set(by_player.items())
    assert record.seed == mixed_seed("treize", record.server_seed, by_player)
    assert dealt_from(started, record.seed)


async def test_a_quick_match_is_dealt_from_the_mix_of_both_revealed_shares(mixing: ArenaServer) -> None:
    ada, bob = await racers(mixing.url, "ada", "bob")
    race_id = await matched(ada, bob)
    for racer, name in ((ada, "ada"), (bob, "bob")):
        assert await reveal(racer, race_id, SHARES[name]) == {"type": "ok", "id": racer._next}
    info = (await ada.request({"type": "get_race", "race_id": race_id}))["race"]
    assert all(r["share_committed"] and r["share_revealed"] for r in info["racers"])
    started, record = await raced(ada, bob, race_id)
    assert_dealt_from_the_mix(started, record, {ada.player_id: SHARES["ada"], bob.player_id: SHARES["bob"]})
    assert record.seed != record.server_seed


async def test_a_wrong_share_is_refused_and_an_unrevealed_share_is_left_out_of_the_mix(
    mixing: ArenaServer,
) -> None:
    ada, bob = await racers(mixing.url, "ada", "bob")
    race_id = await matched(ada, bob)
    wrong = await reveal(bob, race_id, SHARES["ada"])
    assert (wrong["type"], wrong["code"], wrong["message"]) == ("error", "bad_share", WRONG_SHARE)
    assert (await reveal(ada, race_id, SHARES["ada"]))["type"] == "ok"
    started, record = await raced(ada, bob, race_id)  # bob never reveals before the start
    late = await reveal(bob, race_id, SHARES["bob"])
    assert (late["type"], late["code"]) == ("error", "race_not_open")
    assert late["message"] == "the race has started: its deal was dealt without your seed share"
    # ada's share, revealed before the start, is in the deal: revealing it again is no error.
    assert await reveal(ada, race_id, SHARES["ada"]) == {"type": "ok", "id": ada._next}
    assert_dealt_from_the_mix(started, record, {ada.player_id: SHARES["ada"]})
    seats = {
        r["player_id"]: r
        for r in (await ada.request({"type": "get_race", "race_id": race_id}))["race"]["racers"]
    }
    assert (seats[bob.player_id]["share_committed"], seats[bob.player_id]["share_revealed"]) == (True, False)


async def test_a_quick_match_without_shares_races_on_the_committed_seed(mixing: ArenaServer) -> None:
    ada, bob = await racers(mixing.url, "ada", "bob")
    race_id = await matched(ada, bob, ada_commits=False, bob_commits=False)
    refused = await reveal(ada, race_id, SHARES["ada"])
    assert (refused["code"], refused["message"]) == (
        "bad_share",
        "no seed share commitment came with your seat: send no share",
    )
    started, record = await raced(ada, bob, race_id)
    assert record.shares == () and record.seed == record.server_seed
    assert dealt_from(started, record.seed)


async def test_a_rematch_is_dealt_from_the_shares_committed_with_the_offer_and_the_acceptance(
    mixing: ArenaServer,
) -> None:
    ada, bob = await racers(mixing.url, "ada", "bob")
    ended_id = await matched(ada, bob, ada_commits=False, bob_commits=False)
    await raced(ada, bob, ended_id)
    assert (await ada.request({"type": "offer_rematch", "race_id": ended_id, **committed("ada")}))[
        "type"
    ] == "rematch"
    answer = {"type": "answer_rematch", "race_id": ended_id, "accept": True, **committed("bob")}
    assert (await bob.request(answer))["type"] == "rematch"
    seated = await ada.event("rematch_started")
    race_id = seated["race"]["race_id"]
    assert (await bob.event("rematch_started"))["race"]["race_id"] == race_id
    assert seated["race"]["status"] == "countdown"
    assert all(r["share_committed"] and not r["share_revealed"] for r in seated["race"]["racers"])
    for racer, name in ((ada, "ada"), (bob, "bob")):
        assert (await reveal(racer, race_id, SHARES[name]))["type"] == "ok"
    started, record = await raced(ada, bob, race_id)
    assert_dealt_from_the_mix(started, record, {ada.player_id: SHARES["ada"], bob.player_id: SHARES["bob"]})


async def test_the_sdk_commits_and_reveals_quick_match_and_rematch_shares_by_itself(
    mixing: ArenaServer,
) -> None:
    ada, bob = await ArenaClient.connect(mixing.url), await ArenaClient.connect(mixing.url)
    try:
        await ada.hello(name="ada")
        await bob.hello(name="bob")
        await ada.quick_match("treize")
        await bob.quick_match("treize", share=False)  # a client that sends none still races
        race_id = (await ada.wait_for(MatchFound)).race.race_id
        started = await ada.wait_for(RaceStarted)
        for client in (ada, bob):
            await client.finish(race_id)
        await ada.wait_for(RaceEnded)
        record = read_record(await ada.record(race_id))
        verify_record(record)
        assert [s.player_id for s in record.shares] == [ada.player_id]
        assert record.seed == mixed_seed(
            "treize", record.server_seed, {record.shares[0].player_id: ada.shares[race_id]}
        )
        assert dealt_from(to_wire(started), record.seed)
        # The rematch: both commit (bob with its acceptance) and reveal by themselves.
        await ada.offer_rematch(race_id)
        await bob.answer_rematch(race_id, accept=True)
        rematch_id = (await ada.wait_for(RematchStarted)).race.race_id
        started = await ada.wait_for(RaceStarted)
        for client in (ada, bob):
            await client.finish(rematch_id)
        await ada.wait_for(RaceEnded, lambda e: e.race_id == rematch_id)
        record = read_record(await ada.record(rematch_id))
        verify_record(record)
        shares = {s.player_id: s.share for s in record.shares}
        assert shares == {ada.player_id: ada.shares[rematch_id], bob.player_id: bob.shares[rematch_id]}
        assert dealt_from(to_wire(started), record.seed)
    finally:
        await ada.close()
        await bob.close()


async def test_the_session_that_kept_the_share_reveals_it_when_another_got_the_racer_ready(
    mixing: ArenaServer,
) -> None:
    """ada's terminal created the race (its share kept there) and stays in the lobby; she
    gets ready on the page, which has no share. The terminal hears the countdown and
    reveals the share before the start: the deal is mixed with it."""
    terminal, bob = await ArenaClient.connect(mixing.url), await ArenaClient.connect(mixing.url)
    try:
        welcome = await terminal.hello(name="ada")
        await bob.hello(name="bob")
        race = await terminal.create_race("treize", time_limit=60)
        page = Racer(await ws_connect(mixing.url, compression=None))
        page_welcome = await page.request({"type": "hello", "token": welcome.token})
        assert page_welcome["player_id"] == terminal.player_id
        assert (await page.request({"type": "ready", "race_id": race.race_id}))["type"] == "ok"
        await bob.join_race(race.code)
        await bob.ready(race.race_id)
        await terminal.wait_for(RaceStarted, lambda e: e.race_id == race.race_id)
        for client in (terminal, bob):
            await client.finish(race.race_id)
        await terminal.wait_for(RaceEnded, lambda e: e.race_id == race.race_id)
        record = read_record(await bob.record(race.race_id))
        verify_record(record)
        assert {s.player_id: s.share for s in record.shares} == {
            terminal.player_id: terminal.shares[race.race_id],
            bob.player_id: bob.shares[race.race_id],
        }
        await page.ws.close()
    finally:
        await terminal.close()
        await bob.close()


async def lobby_with_shares(ada: Racer, bob: Racer) -> str:
    """ada creates a Treize race and bob joins it, both committing to their shares."""
    created = await ada.request(
        {"type": "create_race", "game": "treize", "time_limit": 60, **committed("ada")}
    )
    joined = await bob.request({"type": "join_race", "code": created["race"]["code"], **committed("bob")})
    assert joined["type"] == "race"
    race_id: str = created["race"]["race_id"]
    return race_id


async def test_a_racer_without_their_share_gets_ready_and_the_deal_leaves_it_out(mixing: ArenaServer) -> None:
    ada, bob = await racers(mixing.url, "ada", "bob")
    race_id = await lobby_with_shares(ada, bob)
    # ada's share stayed with the session that committed it (another device): she is
    # ready without it.
    assert await ada.request({"type": "ready", "race_id": race_id}) == {"type": "ok", "id": ada._next}
    ready = {"type": "ready", "race_id": race_id, "share": SHARES["bob"]}
    assert (await bob.request(ready))["type"] == "ok"
    await ada.event("race_countdown")
    info = (await ada.request({"type": "get_race", "race_id": race_id}))["race"]
    seats = {r["player_id"]: r for r in info["racers"]}
    assert (seats[ada.player_id]["share_committed"], seats[ada.player_id]["share_revealed"]) == (True, False)
    started, record = await raced(ada, bob, race_id)
    assert_dealt_from_the_mix(started, record, {bob.player_id: SHARES["bob"]})


async def test_a_share_left_out_of_a_ready_may_still_be_revealed_during_the_countdown(
    mixing: ArenaServer,
) -> None:
    ada, bob = await racers(mixing.url, "ada", "bob")
    race_id = await lobby_with_shares(ada, bob)
    assert (await ada.request({"type": "ready", "race_id": race_id}))["type"] == "ok"
    assert (await bob.request({"type": "ready", "race_id": race_id, "share": SHARES["bob"]}))["type"] == "ok"
    await ada.event("race_countdown")
    wrong = await reveal(ada, race_id, SHARES["bob"])
    assert (wrong["type"], wrong["code"], wrong["message"]) == ("error", "bad_share", WRONG_SHARE)
    assert (await reveal(ada, race_id, SHARES["ada"]))["type"] == "ok"
    started, record = await raced(ada, bob, race_id)
    assert_dealt_from_the_mix(started, record, {ada.player_id: SHARES["ada"], bob.player_id: SHARES["bob"]})


async def test_a_share_revealed_in_a_race_voided_before_its_start_is_told_the_race_was_cancelled(
    clean_redis: str,
) -> None:
    """A race voided in its countdown (its window passed while no node could start it) was
    never dealt: a reveal there, of a share already in or not, is told it was cancelled."""
    async with running_node(clean_redis, mix_shares=True, countdown=30) as node:
        assert node.features is not None and node.store is not None
        ada, bob = await racers(node.url, "ada", "bob")
        race_id = await lobby_with_shares(ada, bob)
        assert (await ada.request({"type": "ready", "race_id": race_id, "share": SHARES["ada"]}))[
            "type"
        ] == "ok"
        assert (await bob.request({"type": "ready", "race_id": race_id}))["type"] == "ok"
        await ada.event("race_countdown")
        meta = await node.store.races.meta(race_id)
        assert meta is not None
        await node.features.results.void(meta, meta.starts_at or 0)
        for racer, name in ((ada, "ada"), (bob, "bob")):
            refused = await reveal(racer, race_id, SHARES[name])
            assert (refused["type"], refused["code"], refused["message"]) == (
                "error",
                "race_not_open",
                "that race is no longer open: it was cancelled",
            )

"""Race records and seed shares, end to end: a real node mixes the racers' shares into the
deal, exports the race's record, and the record verifies offline (or is rejected when
altered)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import AsyncIterator

import pytest

from server.app import ArenaServer
from shared.fairness import mixed_seed, share_commitment
from shared.record import RecordRejected, read_record, verify_record, write_record
from tests.server.conftest import running_node
from tests.server.rawclient import Racer, racers

pytestmark = pytest.mark.asyncio

SHARES = {"ada": "a0" * 16, "bob": "0b" * 16}


async def race_with_shares(a: Racer, b: Racer, shares: dict[str, str] | None) -> tuple[str, list[str]]:
    """a and b race with these seed shares (None: none); a plays until the deal offers
    nothing but undo or 8 moves are made, b gives up at once; returns the race id and a's moves."""

    def committed(name: str) -> dict[str, str]:
        return {"share_commitment": share_commitment(shares[name])} if shares else {}

    created = await a.request({"type": "create_race", "game": "treize", "time_limit": 60, **committed("ada")})
    race_id = created["race"]["race_id"]
    assert (await b.request({"type": "join_race", "code": created["race"]["code"], **committed("bob")}))[
        "type"
    ] == "race"
    for racer, name in ((a, "ada"), (b, "bob")):
        reveal = {"share": shares[name]} if shares else {}
        assert (await racer.request({"type": "ready", "race_id": race_id, **reveal}))["type"] == "ok"
    started = await a.event("race_started")
    legal = started["view"]["legal_moves"]
    played: list[str] = []
    for seq in range(1, 9):
        choices = [m for m in legal if m != "undo"]
        if not choices:
            break
        ack = await a.request({"type": "move", "race_id": race_id, "seq": seq, "move": choices[0]})
        assert ack["type"] == "move_ack", ack
        played.append(ack["result"]["move"])
        legal = ack["view"]["legal_moves"]
    for racer in (a, b):
        await racer.request({"type": "finish", "race_id": race_id})
    await a.event("race_ended")
    return race_id, played


@pytest.fixture
async def mixing(clean_redis: str) -> AsyncIterator[ArenaServer]:
    async with running_node(clean_redis, mix_shares=True) as node:
        yield node


async def test_the_deal_mixes_both_shares_and_the_exported_record_verifies(mixing: ArenaServer) -> None:
    ada, bob = await racers(mixing.url, "ada", "bob")
    race_id, played = await race_with_shares(ada, bob, SHARES)
    answer = await bob.request({"type": "get_record", "race_id": race_id})
    assert answer["type"] == "record" and answer["race_id"] == race_id
    record = read_record(answer["text"])
    verify_record(record)
    assert write_record(record) == answer["text"]
    by_player = {ada.player_id: SHARES["ada"], bob.player_id: SHARES["bob"]}
    assert {(s.player_id, s.share) for s in record.shares} == set(by_player.items())
    assert record.seed == mixed_seed("treize", record.server_seed, by_player) != record.server_seed
    assert [m.move for m in record.moves_of(ada.player_id)] == played
    results = await ada.request({"type": "get_results", "race_id": race_id})
    assert results["summary"]["seed"] == record.seed


async def test_a_race_without_shares_is_dealt_from_the_committed_seed_and_says_so(
    mixing: ArenaServer,
) -> None:
    ada, bob = await racers(mixing.url, "ada", "bob")
    race_id, _ = await race_with_shares(ada, bob, None)
    text = (await ada.request({"type": "get_record", "race_id": race_id}))["text"]
    assert '[Shares "none"]' in text
    record = read_record(text)
    verify_record(record)
    assert record.seed == record.server_seed


async def test_altered_records_are_rejected_with_the_reason(mixing: ArenaServer) -> None:
    ada, bob = await racers(mixing.url, "ada", "bob")
    race_id, _ = await race_with_shares(ada, bob, SHARES)
    text = (await ada.request({"type": "get_record", "race_id": race_id}))["text"]
    record = read_record(text)

    moves = dict(record.moves)
    first = moves[ada.player_id][0]
    moves[ada.player_id] = (dataclasses.replace(first, move="p1+p1"), *moves[ada.player_id][1:])
    with pytest.raises(RecordRejected) as illegal:
        verify_record(dataclasses.replace(record, moves=tuple(moves.items())))
    assert (illegal.value.player_id, illegal.value.move_index) == (ada.player_id, 0)

    wrong = re.sub(r'\[Commitment "([0-9a-f]{64})"\]', '[Commitment "' + "0" * 64 + '"]', text)
    with pytest.raises(RecordRejected, match="commitment"):
        verify_record(read_record(wrong))

    best = record.results[0]
    changed = dataclasses.replace(best, score=best.score + 1)
    with pytest.raises(RecordRejected) as result:
        verify_record(dataclasses.replace(record, results=(changed, *record.results[1:])))
    assert result.value.player_id == best.player_id and "score" in result.value.reason


async def test_a_share_that_does_not_match_its_commitment_is_refused(mixing: ArenaServer) -> None:
    (ada,) = await racers(mixing.url, "ada")
    created = await ada.request(
        {"type": "create_race", "game": "treize", "share_commitment": share_commitment(SHARES["ada"])}
    )
    race_id = created["race"]["race_id"]
    assert created["race"]["commitment"] is not None  # the server committed first
    wrong = await ada.request({"type": "ready", "race_id": race_id, "share": SHARES["bob"]})
    assert (wrong["type"], wrong["code"]) == ("error", "bad_share")
    racer = next(r for r in (await ada.request({"type": "get_race", "race_id": race_id}))["race"]["racers"])
    assert racer["share_committed"] is True and racer["share_revealed"] is False and racer["ready"] is False
    assert (await ada.request({"type": "ready", "race_id": race_id, "share": SHARES["ada"]}))["type"] == "ok"


async def test_a_share_sent_without_a_commitment_is_refused(mixing: ArenaServer) -> None:
    (ada,) = await racers(mixing.url, "ada")
    race_id = (await ada.request({"type": "create_race", "game": "treize"}))["race"]["race_id"]
    refused = await ada.request({"type": "ready", "race_id": race_id, "share": SHARES["ada"]})
    assert (refused["type"], refused["code"], refused["message"]) == (
        "error",
        "bad_share",
        "no seed share commitment came with your seat: send no share",
    )


async def test_no_record_before_the_end(mixing: ArenaServer) -> None:
    ada, bob = await racers(mixing.url, "ada", "bob")
    created = await ada.request({"type": "create_race", "game": "treize"})
    refused = await bob.request({"type": "get_record", "race_id": created["race"]["race_id"]})
    assert (refused["type"], refused["code"]) == ("error", "race_not_over")

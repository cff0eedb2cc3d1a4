"""Rules of fair play a new user ran into: one queue and one running race per player,
shared ranks for equal results, a resent seq that carries another move, hello's
checks, a non-racer's ready, and a start interrupted by a crash."""

from __future__ import annotations

import json
import unicodedata
from typing import Any

import pytest
from websockets.asyncio.client import connect as ws_connect

from client.sdk import ArenaError
from server.app import ArenaServer
from server.store import keys
from shared import new_game
from shared.protocol import MatchFound, RaceEnded, RaceStarted
from tests.server.conftest import WINNABLE_SEED, Connect
from tests.server.helpers import start_race


async def json_exchange(url: str, *messages: dict[str, Any]) -> list[dict[str, Any]]:
    """Send JSON text frames on one raw connection; the raw reply to each, decoded."""
    replies = []
    async with ws_connect(url, compression=None) as ws:
        for message in messages:
            await ws.send(json.dumps(message))
            replies.append(json.loads(await ws.recv()))
    return replies


async def test_a_resent_last_seq_with_another_move_is_refused_naming_the_move_it_holds(
    arena: ArenaServer, connect: Connect
) -> None:
    race = await start_race(await connect(arena.url), await connect(arena.url))
    game = new_game("eight-off", WINNABLE_SEED)
    first, other = game.legal_moves()[0], game.legal_moves()[1]
    await race.ada.move(race.race_id, first, seq=1)
    same_again = await race.ada.move(race.race_id, f" {first.upper()} ", seq=1)  # as sent, reformatted
    assert same_again.seq == 1 and same_again.result.move == first
    with pytest.raises(ArenaError) as conflict:
        await race.ada.move(race.race_id, other, seq=1)
    assert conflict.value.code == "seq_conflict"
    assert f"already holds the move {first!r}" in conflict.value.message and "seq 2" in conflict.value.message
    board = await race.ada.board(race.race_id)
    assert board is not None and board.seq == 1 and board.view.move_count == 1


async def test_a_queued_player_cannot_queue_for_a_second_game(arena: ArenaServer, connect: Connect) -> None:
    ada = await connect(arena.url)
    await ada.hello(name="ada")
    await ada.quick_match("treize")
    await ada.quick_match("treize")  # the same queue again is harmless
    with pytest.raises(ArenaError) as second:
        await ada.quick_match("eight-off")
    assert second.value.code == "already_queued" and "treize" in second.value.message
    await ada.cancel_quick_match()
    assert (await ada.quick_match("eight-off")).game == "eight-off"


async def test_a_players_other_session_is_told_in_its_welcome_the_quick_match_they_wait_in(
    arena: ArenaServer, connect: Connect
) -> None:
    ada = await connect(arena.url)
    await ada.hello(name="ada")
    queued = await ada.quick_match("treize")
    (welcome,) = await json_exchange(arena.url, {"type": "hello", "id": 1, "token": ada.token})
    assert welcome["queued"] == {"game": "treize", "ticket": queued.ticket, "rated": False}
    await ada.cancel_quick_match()
    (welcome,) = await json_exchange(arena.url, {"type": "hello", "id": 1, "token": ada.token})
    assert welcome["type"] == "welcome" and "queued" not in welcome


async def test_two_queued_players_are_paired_once(arena: ArenaServer, connect: Connect) -> None:
    ada, bob = await connect(arena.url), await connect(arena.url)
    await ada.hello(name="ada")
    await bob.hello(name="bob")
    await ada.quick_match("treize")
    await bob.quick_match("treize")
    found = await ada.wait_for(MatchFound)
    with pytest.raises(ArenaError) as again:
        await ada.quick_match("treize")
    assert again.value.code == "already_racing" and found.race.race_id in again.value.message


async def test_a_player_racing_cannot_queue_or_start_a_second_race(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, bob, cy = await connect(arena.url), await connect(arena.url), await connect(arena.url)
    race = await start_race(ada, bob)
    with pytest.raises(ArenaError) as queued:
        await ada.quick_match("eight-off")
    assert queued.value.code == "already_racing" and race.race_id in queued.value.message
    await cy.hello(name="cy")
    other = await cy.create_race("treize")
    await ada.join_race(other.code)
    with pytest.raises(ArenaError) as started:
        await cy.start(other.race_id)
    assert started.value.code == "already_racing" and "ada" in started.value.message


async def test_racers_with_equal_results_share_a_rank(arena: ArenaServer, connect: Connect) -> None:
    race = await start_race(await connect(arena.url), await connect(arena.url))
    await race.ada.finish(race.race_id)
    await race.bob.finish(race.race_id)
    ended = await race.ada.wait_for(RaceEnded)
    assert [line.rank for line in ended.summary.standings] == [1, 1]


async def test_hello_with_a_malformed_token_is_a_bad_token(arena: ArenaServer) -> None:
    replies = await json_exchange(
        arena.url,
        {"type": "hello", "id": 1, "token": "short"},
        {"type": "hello", "id": 2, "token": "no spaces allowed in a token!"},
    )
    assert [(r["type"], r["code"], r["id"]) for r in replies] == [
        ("error", "bad_token", 1),
        ("error", "bad_token", 2),
    ]


async def test_hello_with_both_a_name_and_a_token_is_refused(arena: ArenaServer, connect: Connect) -> None:
    ada = await connect(arena.url)
    welcome = await ada.hello(name="ada")
    (reply,) = await json_exchange(
        arena.url, {"type": "hello", "id": 1, "name": "eve", "token": welcome.token}
    )
    assert reply["type"] == "error" and reply["code"] == "invalid_message"
    assert "not both" in reply["message"]


async def test_names_may_use_letters_of_any_script_normalized_to_nfc_and_nothing_invisible(
    arena: ArenaServer,
) -> None:
    decomposed = "Zoe\u0308 Ærø-Łódź 李"
    (welcome,) = await json_exchange(arena.url, {"type": "hello", "id": 1, "name": decomposed})
    assert welcome["type"] == "welcome" and welcome["name"] == unicodedata.normalize("NFC", decomposed)
    assert welcome["name"].startswith("Zoë")
    rahul = "\u0930\u093e\u0939\u0941\u0932"  # Devanagari: its vowel signs are combining marks
    (welcome,) = await json_exchange(arena.url, {"type": "hello", "id": 2, "name": rahul})
    assert welcome["type"] == "welcome" and welcome["name"] == rahul
    (refused,) = await json_exchange(arena.url, {"type": "hello", "id": 3, "name": "1\u0301x"})
    assert refused["code"] == "invalid_message"  # a stray combining mark is not part of a letter
    assert "a combining mark goes after a letter" in refused["message"]
    (refused,) = await json_exchange(arena.url, {"type": "hello", "id": 4, "name": "alice\u3164"})
    assert refused["code"] == "invalid_message"  # HANGUL FILLER draws nothing: "alice" to the eye
    assert "a name has no characters that draw nothing, such as U+3164" in refused["message"]


async def test_a_non_racers_ready_in_a_running_race_is_not_a_racer(
    arena: ArenaServer, connect: Connect
) -> None:
    race = await start_race(await connect(arena.url), await connect(arena.url))
    eve = await connect(arena.url)
    await eve.hello(name="eve")
    with pytest.raises(ArenaError) as caught:
        await eve.ready(race.race_id)
    assert caught.value.code == "not_a_racer"


async def test_a_start_interrupted_by_a_crash_is_finished_by_the_clock(
    arena: ArenaServer, connect: Connect
) -> None:
    assert arena.store is not None
    ada, bob = await connect(arena.url), await connect(arena.url)
    await ada.hello(name="ada")
    await bob.hello(name="bob")
    race = await ada.create_race("treize", time_limit=30)
    await bob.join_race(race.code)
    # What a node that died right after the start script leaves: a race in countdown,
    # its deadline written before the script, and still listed among the open races.
    # Its countdown ends a second later: a clock starting it before the listing below is
    # written back would unlist it first, and the listing would then outlive the start.
    game = new_game("treize", WINNABLE_SEED)
    now = arena.time.now_ms()
    await arena.store.races.start_countdown(
        race.race_id,
        "treize",
        [ada.player_id or "", bob.player_id or ""],
        now + 1_000,
        now + 31_000,
        dict(game.position()),
        0,
        "{}",
        WINNABLE_SEED,
    )
    await arena.store.redis.zadd(keys.OPEN_RACES, {race.race_id: now})
    started = await bob.wait_for(RaceStarted, timeout=5)
    assert started.race_id == race.race_id
    assert await ada.list_races() == []

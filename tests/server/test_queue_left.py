"""Leaving a quick-match queue otherwise than paired is told to every session of the
player (``quick_match_left``), naming the stay that ended by the ticket ``queued`` gave."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from websockets.asyncio.client import connect as ws_connect

from server.app import ArenaServer
from server.features import quick_match as matchmaking
from tests.server.rawclient import Racer, racers, resumed
from tests.server.test_rated_quick_match import (
    AFTER_A_SWEEP,
    ANY_TICKET,
    bob_waiting_on_a_node,
    queue,
    race_creation_fails_once,
)
from tests.server.test_ratings import close


async def test_asking_again_for_the_same_game_keeps_the_ticket_and_queueing_after_a_cancel_gets_another(
    arena: ArenaServer,
) -> None:
    (ada,) = await racers(arena.url, "ada")
    first = await queue(ada, "treize")
    assert first["ticket"] == ANY_TICKET
    assert (await queue(ada, "treize"))["ticket"] == first["ticket"]
    await ada.request({"type": "cancel_quick_match"})
    again = await queue(ada, "treize")
    assert again["ticket"] == ANY_TICKET and again["ticket"] != first["ticket"]
    await close(ada)


async def test_a_cancel_on_one_node_tells_the_players_session_on_another_which_stay_ended(
    clean_redis: str,
) -> None:
    async with bob_waiting_on_a_node(clean_redis) as (bob, elsewhere, _):
        ticket = (await queue(bob))["ticket"]  # asking again: the same stay
        assert (await elsewhere.request({"type": "cancel_quick_match"}))["type"] == "ok"
        left = await bob.event("quick_match_left")
        assert left == {
            "type": "quick_match_left",
            "game": "eight-off",
            "ticket": ticket,
            "reason": "cancelled",
            "message": "you cancelled the quick match",
        }
        # The session that cancelled is told too, of the same stay.
        assert await elsewhere.event("quick_match_left") == left


async def test_a_players_last_connection_to_the_node_keeping_them_waiting_closing_tells_their_others(
    clean_redis: str,
) -> None:
    async with bob_waiting_on_a_node(clean_redis) as (bob, elsewhere, _):
        await bob.ws.close()
        left = await elsewhere.event("quick_match_left")
        assert left == {
            "type": "quick_match_left",
            "game": "eight-off",
            "ticket": ANY_TICKET,
            "reason": "disconnected",
            "message": "your connection to the server that kept you waiting closed",
        }


async def test_a_cancel_while_not_queued_tells_no_one(arena: ArenaServer) -> None:
    ada = Racer(await ws_connect(arena.url, compression=None))
    welcome = await ada.request({"type": "hello", "name": "ada"})
    other = Racer(await ws_connect(arena.url, compression=None))
    assert (await other.request({"type": "hello", "token": welcome["token"]}))["player_id"] == welcome[
        "player_id"
    ]
    assert (await ada.request({"type": "cancel_quick_match"}))["type"] == "ok"
    with pytest.raises(TimeoutError):
        await other.event("quick_match_left", timeout=0.5)
    await close(ada, other)


async def test_a_cancel_that_comes_while_a_pairing_seats_the_player_leaves_them_paired_not_told_cancelled(
    arena: ArenaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert arena.store is not None
    queues = arena.store.queues
    pairing, go_on = asyncio.Event(), asyncio.Event()
    read_shares = queues.share_commitments

    async def slow_shares(player_ids: list[str]) -> list[str]:
        pairing.set()  # the pairing took ada out of the pool and is making the race
        await go_on.wait()
        return await read_shares(player_ids)

    monkeypatch.setattr(queues, "share_commitments", slow_shares)
    ada, bob = await racers(arena.url, "ada", "bob")
    await queue(ada, "treize")
    bob_queued = asyncio.create_task(queue(bob, "treize"))
    await pairing.wait()
    assert (await ada.request({"type": "cancel_quick_match"}))["type"] == "ok"
    go_on.set()
    assert (await bob_queued)["type"] == "queued"
    found = await ada.event("match_found")
    assert {r["name"] for r in found["race"]["racers"]} == {"ada", "bob"}
    assert not any(e["type"] == "quick_match_left" for e in ada.events)
    with pytest.raises(TimeoutError):
        await ada.event("quick_match_left", timeout=0.5)
    await close(ada, bob)


async def test_a_guest_whose_place_lapsed_while_the_store_was_out_of_reach_is_told_it_expired(
    arena: ArenaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert arena.store is not None
    monkeypatch.setattr(matchmaking, "LEASE_MS", 400)
    monkeypatch.setattr(matchmaking, "RENEW_EVERY", 0.1)
    monkeypatch.setattr(matchmaking, "PAIRED_GRACE_MS", 200)
    queues = arena.store.queues
    renew = queues.renew
    out_of_reach = True

    async def renew_unless_out_of_reach(*args: Any, **kwargs: Any) -> Any:
        if out_of_reach:
            raise ConnectionError("Redis is out of reach")
        return await renew(*args, **kwargs)

    monkeypatch.setattr(queues, "renew", renew_unless_out_of_reach)
    ada, cyd = await racers(arena.url, "ada", "cyd")
    queued = await queue(ada)
    await asyncio.sleep(0.6)  # Ada's lease and queue marker lapse, unrenewed
    await queue(cyd)  # drops Ada, whose lease ran out, rather than pair with her
    out_of_reach = False
    left = await ada.event("quick_match_left", timeout=3)
    assert left == {
        "type": "quick_match_left",
        "game": "eight-off",
        "ticket": queued["ticket"],
        "reason": "expired",
        "message": "your place lapsed while the server could not reach its store: queue again",
    }
    # Queueing again, she is paired with Cyd, who waited meanwhile.
    await queue(ada)
    found = await cyd.event("match_found")
    assert {r["player_id"] for r in found["race"]["racers"]} == {ada.player_id, cyd.player_id}
    await close(ada, cyd)


async def test_a_guest_whose_pairing_failed_before_its_race_was_made_is_queued_again_not_dropped(
    arena: ArenaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(matchmaking, "RENEW_EVERY", 0.2)
    monkeypatch.setattr(matchmaking, "PAIRED_GRACE_MS", 500)
    failed = race_creation_fails_once(arena, monkeypatch)
    bob, ada, cleo = await racers(arena.url, "bob", "ada", "cleo")
    waiting = await queue(bob)
    refused = await queue(ada)  # takes Bob out of the casual queue, but no race could be made
    assert refused["type"] == "error" and failed == ["create"], refused
    # The node finds Bob gone from the pool and paired, then no race of his: he waits again.
    await asyncio.sleep(0.2 + 0.5 + AFTER_A_SWEEP)
    await queue(cleo)
    found = await cleo.event("match_found", timeout=AFTER_A_SWEEP + 2)
    assert {r["player_id"] for r in found["race"]["racers"]} == {bob.player_id, cleo.player_id}
    assert (await bob.event("match_found"))["race"]["race_id"] == found["race"]["race_id"]
    assert waiting["ticket"] == ANY_TICKET
    await close(bob, ada, cleo)


RACING_LEFT = "a race of yours began elsewhere: queue again once it is over"


async def xena_queued_then_racing(arena: ArenaServer) -> tuple[Racer, Racer, Racer, str]:
    """xena waits for a Treize quick match in one tab, and in another races a lobby race
    of Treize with zed: her two tabs, zed, and her queued stay's ticket."""
    (xena, zed) = await racers(arena.url, "xena", "zed")
    other_tab = await resumed(arena.url, xena)
    ticket = str((await queue(xena, "treize"))["ticket"])
    created = await other_tab.request({"type": "create_race", "game": "treize", "seats": 2})
    race_id = created["race"]["race_id"]
    await zed.request({"type": "join_race", "code": created["race"]["code"]})
    await other_tab.request({"type": "ready", "race_id": race_id})
    await zed.request({"type": "ready", "race_id": race_id})
    await zed.event("race_countdown")
    return xena, other_tab, zed, ticket


async def nothing_half_made(arena: ArenaServer, yuri: Racer) -> None:
    """No race of yuri's, and no open race listed: a failed pairing left nothing behind."""
    assert (await yuri.request({"type": "list_my_races"}))["races"] == []
    listed = await yuri.request({"type": "list_races"})
    assert listed["races"] == []


async def test_a_player_waiting_for_a_quick_match_whose_lobby_race_begins_leaves_the_queue_told_why(
    arena: ArenaServer,
) -> None:
    assert arena.store is not None
    xena, other_tab, zed, ticket = await xena_queued_then_racing(arena)
    told = {"type": "quick_match_left", "game": "treize", "ticket": ticket, "reason": "racing"}
    assert await xena.event("quick_match_left") == {**told, "message": RACING_LEFT}
    assert await arena.store.queues.queued(xena.player_id) is None
    (yuri,) = await racers(arena.url, "yuri")
    assert (await queue(yuri, "treize"))["type"] == "queued"  # nobody to pair with: xena races
    await nothing_half_made(arena, yuri)
    await close(xena, other_tab, zed, yuri)


@pytest.mark.parametrize("seen", ["before the race is made", "as its countdown begins"])
async def test_a_pairing_with_a_waiting_player_who_races_elsewhere_leaves_no_race_and_queues_the_asker(
    arena: ArenaServer, monkeypatch: pytest.MonkeyPatch, seen: str
) -> None:
    """xena's lobby race began in the moment before it took her out of the queue, so the
    pairing with yuri finds her racing: before the race is made (she is seen racing), or
    only as its countdown begins (she began racing after the look). Either way she leaves
    the queue told why, yuri waits on, and no half-made race stays open."""
    assert arena.features is not None and arena.store is not None
    monkeypatch.setattr(arena.features.lobby, "racers_leave_queues", None)
    xena, other_tab, zed, ticket = await xena_queued_then_racing(arena)
    if seen == "as its countdown begins":
        monkeypatch.setattr(arena.features.lobby, "racing_in", _not_racing)
    (yuri,) = await racers(arena.url, "yuri")
    assert (await queue(yuri, "treize"))["type"] == "queued"
    left = await xena.event("quick_match_left")
    assert (left["ticket"], left["reason"], left["message"]) == (ticket, "racing", RACING_LEFT)
    assert await arena.store.queues.queued(xena.player_id) is None
    marker = await arena.store.queues.queued(yuri.player_id)
    assert marker is not None and marker.game == "treize"
    await nothing_half_made(arena, yuri)
    assert not any(e["type"] == "match_found" for e in yuri.events)
    # yuri still waits: the next player is paired with him.
    (abe,) = await racers(arena.url, "abe")
    await queue(abe, "treize")
    found = await yuri.event("match_found")
    assert {r["name"] for r in found["race"]["racers"]} == {"yuri", "abe"}
    await close(xena, other_tab, zed, yuri, abe)


async def _not_racing(player_id: str, but: str | None = None) -> None:
    """What the lobby's look answers for a player whose race began just after it."""
    return None


CANCELLED_WHILE_QUEUEING = (
    "you cancelled this quick match from another session before it was queued: ask again to wait"
)


def cancel_before_the_queue_script(
    arena: ArenaServer, monkeypatch: pytest.MonkeyPatch, asker: Racer, cancelling: Racer
) -> list[dict[str, Any]]:
    """The next time ``asker``'s quick match reaches its queue script (its marker already
    written), ``cancelling`` (another session of the same player) cancels first: the
    frames that cancel was answered with."""
    assert arena.store is not None
    queues = arena.store.queues
    match = queues.match
    answered: list[dict[str, Any]] = []

    async def cancelled_first(game: str, player_id: str, *args: Any) -> str | None:
        if player_id == asker.player_id and not answered:
            answered.append(await cancelling.request({"type": "cancel_quick_match"}))
        return await match(game, player_id, *args)

    monkeypatch.setattr(queues, "match", cancelled_first)
    return answered


async def test_a_cancel_from_another_tab_while_a_quick_match_is_being_queued_wins_and_leaves_no_one_queued(
    arena: ArenaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert arena.store is not None
    (ada, bob) = await racers(arena.url, "ada", "bob")
    other_tab = await resumed(arena.url, ada)
    answered = cancel_before_the_queue_script(arena, monkeypatch, ada, other_tab)
    refused = await queue(ada, "treize")
    assert answered == [{"type": "ok", "id": other_tab._next}]
    assert refused == {
        "type": "error",
        "id": ada._next,
        "code": "quick_match_cancelled",
        "message": CANCELLED_WHILE_QUEUEING,
    }
    left = await ada.event("quick_match_left")
    assert (left["reason"], left["ticket"]) == ("cancelled", ANY_TICKET)
    assert await other_tab.event("quick_match_left") == left
    assert await arena.store.queues.queued(ada.player_id) is None
    assert not await arena.store.queues.in_casual_queue("treize", ada.player_id)
    # Bob, asking next, waits: nobody is paired with the player who cancelled.
    assert (await queue(bob, "treize"))["type"] == "queued"
    with pytest.raises(TimeoutError):
        await ada.event("match_found", timeout=0.5)
    assert not any(e["type"] == "match_found" for e in bob.events)
    await close(ada, other_tab, bob)


async def test_a_cancel_while_a_quick_match_is_being_queued_makes_no_race_and_the_player_who_waited_waits_on(
    arena: ArenaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ada's queue script pairs her with Bob, who waited, though her other tab cancelled
    just before it: no race is made, and Bob's node puts him back in the queue."""
    monkeypatch.setattr(matchmaking, "RENEW_EVERY", 0.2)
    monkeypatch.setattr(matchmaking, "PAIRED_GRACE_MS", 500)
    (ada, bob, cleo) = await racers(arena.url, "ada", "bob", "cleo")
    other_tab = await resumed(arena.url, ada)
    await queue(bob, "treize")
    cancel_before_the_queue_script(arena, monkeypatch, ada, other_tab)
    refused = await queue(ada, "treize")
    assert (refused["type"], refused["code"]) == ("error", "quick_match_cancelled")
    assert (await ada.request({"type": "list_my_races"}))["races"] == []
    with pytest.raises(TimeoutError):
        await bob.event("match_found", timeout=0.5)
    await asyncio.sleep(0.2 + 0.5 + AFTER_A_SWEEP)
    await queue(cleo, "treize")
    found = await cleo.event("match_found", timeout=AFTER_A_SWEEP + 2)
    assert {r["name"] for r in found["race"]["racers"]} == {"bob", "cleo"}
    await close(ada, other_tab, bob, cleo)

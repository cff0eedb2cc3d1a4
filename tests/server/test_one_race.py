"""A race starts only with every racer ready, and a player races one race at a time, even
when the requests that decide it arrive at the same moment. Each test makes the
interleaving happen for sure: the store call of one request is held while another
request is served."""

from __future__ import annotations

from typing import Any

import pytest

from client.sdk import ArenaClient, ArenaError
from server.app import ArenaServer
from server.store import Answer, RaceStatus
from shared.protocol import RaceInfo, RaceUpdate
from tests.server.conftest import Connect
from tests.server.helpers import RunningRace, start_race


async def hellos(connect: Connect, url: str, *names: str) -> list[ArenaClient]:
    clients = []
    for name in names:
        client = await connect(url)
        await client.hello(name=name)
        clients.append(client)
    return clients


def meanwhile(arena: ArenaServer, monkeypatch: pytest.MonkeyPatch, method: str, when: Any, then: Any) -> None:
    """Run ``then()`` right after the store's ``races.<method>`` answers a call that
    ``when(*args)`` picks, before its caller goes on."""
    races = arena.store.races
    real = getattr(races, method)

    async def held(*args: Any, **kwargs: Any) -> Any:
        answer = await real(*args, **kwargs)
        if when(*args):
            await then()
        return answer

    monkeypatch.setattr(races, method, held)


async def ada_readies_last_while(
    arena: ArenaServer, monkeypatch: pytest.MonkeyPatch, ada: ArenaClient, race_id: str, then: Any
) -> None:
    """Ada's ready finds every racer ready, ``then()`` runs before the countdown would
    begin, and the race is still open afterwards."""
    meanwhile(
        arena,
        monkeypatch,
        "set_ready",
        lambda _race, player, ready, *_rest: player == ada.player_id and ready,
        then,
    )
    await ada.ready(race_id)
    meta = await arena.store.races.meta(race_id)
    assert meta is not None and meta.status is RaceStatus.OPEN


async def seats_ready(arena: ArenaServer, race_id: str) -> dict[str, bool]:
    return {seat.name: seat.ready for seat in await arena.store.races.seats(race_id)}


async def test_an_unready_between_the_last_ready_and_the_countdown_keeps_the_race_open(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    ada, bob = await hellos(connect, arena.url, "ada", "bob")
    race = await ada.create_race("treize")
    await bob.join_race(race.code)
    await bob.ready(race.race_id)
    await ada_readies_last_while(
        arena, monkeypatch, ada, race.race_id, lambda: bob.ready(race.race_id, ready=False)
    )
    assert await seats_ready(arena, race.race_id) == {"ada": True, "bob": False}
    # Ada's ready is told (it started nothing): the last update shows it.
    update = await bob.wait_for(RaceUpdate, lambda e: any(r.ready for r in e.race.racers if r.name == "ada"))
    assert update.race.status == "open"


async def test_a_join_between_the_last_ready_and_the_countdown_waits_for_the_newcomer(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    ada, bob, cy = await hellos(connect, arena.url, "ada", "bob", "cy")
    race = await ada.create_race("treize", seats=3)
    await bob.join_race(race.code)
    await bob.ready(race.race_id)

    async def cy_joins() -> None:
        await cy.join_race(race.code)

    await ada_readies_last_while(arena, monkeypatch, ada, race.race_id, cy_joins)
    assert await seats_ready(arena, race.race_id) == {"ada": True, "bob": True, "cy": False}


async def test_two_races_sharing_a_racer_and_started_at_once_start_only_one(
    arena: ArenaServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    pat, olga, otto = await hellos(connect, arena.url, "pat", "olga", "otto")
    first = await olga.create_race("treize")
    second = await otto.create_race("treize")
    for race in (first, second):
        await pat.join_race(race.code)
        await pat.ready(race.race_id)

    async def otto_readies() -> None:
        await otto.ready(second.race_id)  # answered ok: his ready stands

    meanwhile(
        arena,
        monkeypatch,
        "start_countdown",
        lambda race_id, *_rest: race_id == first.race_id,
        otto_readies,
    )
    await olga.ready(first.race_id)
    metas = {m.race_id: m.status for m in await arena.store.races.metas([first.race_id, second.race_id])}
    assert metas == {first.race_id: RaceStatus.COUNTDOWN, second.race_id: RaceStatus.OPEN}
    # Pat races the first: in the second, they are no longer taken for ready.
    assert await seats_ready(arena, second.race_id) == {"otto": True, "pat": False}


async def racing_and_seated_elsewhere(
    arena: ArenaServer, connect: Connect
) -> tuple[list[ArenaClient], RunningRace, RaceInfo]:
    """Ada races Bob, and sits in Cy's open race too."""
    ada, bob, cy = await hellos(connect, arena.url, "ada", "bob", "cy")
    racing = await start_race(ada, bob, game="treize")
    other = await cy.create_race("treize")
    await ada.join_race(other.code)
    return [ada, bob, cy], racing, other


async def test_a_racer_gone_racing_elsewhere_is_no_longer_ready_in_the_lobby_they_readied_in(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, bob, cy = await hellos(connect, arena.url, "ada", "bob", "cy")
    lobby = await ada.create_race("treize")
    await ada.ready(lobby.race_id)
    await start_race(ada, cy, game="treize")  # ada races elsewhere meanwhile
    await bob.join_race(lobby.code)
    await bob.ready(lobby.race_id)  # answered ok: the race waits for ada to be back
    meta = await arena.store.races.meta(lobby.race_id)
    assert meta is not None and meta.status is RaceStatus.OPEN
    assert await seats_ready(arena, lobby.race_id) == {"ada": False, "bob": True}
    await bob.wait_for(RaceUpdate, lambda e: [r.ready for r in e.race.racers] == [False, True])


async def test_a_ready_while_racing_elsewhere_is_refused_and_not_kept(
    arena: ArenaServer, connect: Connect
) -> None:
    (ada, _bob, _cy), racing, other = await racing_and_seated_elsewhere(arena, connect)
    with pytest.raises(ArenaError) as refused:
        await ada.ready(other.race_id)
    assert refused.value.code == "already_racing"
    assert refused.value.message == (
        f"you are racing in race {racing.race_id}: finish it before getting ready for another"
    )
    assert await seats_ready(arena, other.race_id) == {"cy": False, "ada": False}


async def test_a_racer_who_gave_up_may_race_again_before_the_others_end(
    arena: ArenaServer, connect: Connect
) -> None:
    (ada, bob, cy), racing, other = await racing_and_seated_elsewhere(arena, connect)
    await ada.finish(racing.race_id)  # gives up; bob races on
    await ada.ready(other.race_id)
    await cy.ready(other.race_id)
    meta = await arena.store.races.meta(other.race_id)
    assert meta is not None and meta.status is RaceStatus.COUNTDOWN
    # Bob, still racing, may not.
    with pytest.raises(ArenaError) as queued:
        await bob.quick_match("treize")
    assert queued.value.code == "already_racing"


async def test_a_claim_left_by_a_race_that_never_started_lapses_or_gives_way(arena: ArenaServer) -> None:
    players = arena.store.players
    assert await players.claim_racing("p1", "race-a", 60_000) == ""
    assert await players.claim_racing("p1", "race-b", 60_000) == "race-a"
    assert await players.claim_racing("p1", "race-b", 60_000, over="race-c") == "race-a"
    assert await players.claim_racing("p1", "race-b", 60_000, over="race-a") == ""
    await players.release_racing("p1", "race-a")  # not the holder: kept
    assert await players.claim_racing("p1", "race-c", 60_000) == "race-b"
    await players.release_racing("p1", "race-b")
    assert await players.claim_racing("p1", "race-c", 60_000) == ""
    assert Answer.NOT_READY.value == "not_ready"


async def test_an_unready_in_the_countdown_and_a_leave_of_a_cancelled_race_say_where_the_race_is(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, bob = await hellos(connect, arena.url, "ada", "bob")
    race = await ada.create_race("treize", time_limit=60)
    await bob.join_race(race.code)
    await ada.ready(race.race_id)
    await bob.ready(race.race_id)
    with pytest.raises(ArenaError) as unready:
        await ada.ready(race.race_id, ready=False)
    assert (unready.value.code, unready.value.message) == (
        "race_not_open",
        "that race is no longer open: its countdown to the start has begun",
    )
    alone = await ada.create_race("treize")
    await ada.leave(alone.race_id)  # the last one out cancels it
    with pytest.raises(ArenaError) as again:
        await ada.leave(alone.race_id)
    assert (again.value.code, again.value.message) == (
        "race_not_open",
        "that race is no longer open: it was cancelled",
    )

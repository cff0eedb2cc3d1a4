"""Shared steps of the server tests: get two racers (or more) into a running race."""

from __future__ import annotations

from dataclasses import dataclass

from client.sdk import ArenaClient
from shared.protocol import BoardView, GameName, RaceStarted
from tests.server.conftest import Connect


@dataclass
class RunningRace:
    race_id: str
    code: str
    ada: ArenaClient
    bob: ArenaClient
    view: BoardView
    commitment: str
    ends_at: int


async def start_race(
    ada: ArenaClient,
    bob: ArenaClient,
    game: GameName = "eight-off",
    time_limit: float = 30.0,
) -> RunningRace:
    """Both say hello, ada creates, bob joins, both ready; returns once both saw the start."""
    if ada.player_id is None:
        await ada.hello(name="ada")
    if bob.player_id is None:
        await bob.hello(name="bob")
    race = await ada.create_race(game, seats=2, time_limit=time_limit)
    await bob.join_race(race.code)
    await ada.ready(race.race_id)
    await bob.ready(race.race_id)
    started = await ada.wait_for(RaceStarted, lambda e: e.race_id == race.race_id)
    await bob.wait_for(RaceStarted, lambda e: e.race_id == race.race_id)
    info = await ada.get_race(race.race_id)
    assert info.commitment is not None
    # race_started carries the opening's legal moves; the racers' later views do not
    # (they did not ask for them at hello).
    opening = started.view.model_copy(update={"legal_moves": None, "can_undo": None})
    return RunningRace(race.race_id, race.code, ada, bob, opening, info.commitment, started.ends_at)


async def sdk_race(
    connect: Connect, url: str, *names: str, bots: tuple[str, ...] = (), game: GameName = "eight-off"
) -> tuple[str, list[ArenaClient]]:
    """A running race (Eight Off unless ``game``) of SDK racers, one seat each (with seed shares, as the
    SDK sends them); those named in ``bots`` say they are bots."""
    clients = []
    for name in names:
        client = await connect(url)
        await client.hello(name=name, bot=name in bots)
        clients.append(client)
    race = await clients[0].create_race(game, seats=len(clients))
    for client in clients[1:]:
        await client.join_race(race.code)
    for client in clients:
        await client.ready(race.race_id)
    for client in clients:
        await client.wait_for(RaceStarted, lambda e: e.race_id == race.race_id)
    return race.race_id, clients

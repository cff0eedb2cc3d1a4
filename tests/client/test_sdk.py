"""The SDK against real servers: typed errors for every code, resuming after a dropped
connection, the credentials file and the seed shares kept beside it."""

from __future__ import annotations

import asyncio
import json
import stat
from collections.abc import AsyncIterator
from pathlib import Path

import msgpack
import pytest
from websockets.asyncio.server import ServerConnection, serve

from client.credentials import Credential, DamagedCredentialsError, TokenStore
from client.errors import (
    ERROR_CLASSES,
    ArenaError,
    BadTokenError,
    ConnectionLostError,
    IllegalMoveError,
    NotCreatorError,
    QueueLeftError,
    RaceFullError,
    RaceNotFoundError,
    RaceNotOverError,
    RateLimitedError,
)
from client.sdk import ArenaClient
from client.shares import SHARES_KEPT, ShareFile
from server.app import ArenaServer
from server.features.events import EventKind, pack_event
from server.redis_embedded import free_port
from shared import new_game
from shared.protocol import ErrorCode, MatchFound, Ping, QuickMatchLeft, Welcome
from tests.server.conftest import WINNABLE_SEED, Connect, running_node
from tests.server.helpers import start_race


@pytest.fixture
async def refusing_url() -> AsyncIterator[str]:
    """A server that answers every request with the error code named by its id."""

    async def refuse(ws: ServerConnection) -> None:
        async for frame in ws:
            request = msgpack.unpackb(frame)
            error = {"type": "error", "id": request["id"], "code": request["id"], "message": "no"}
            await ws.send(msgpack.packb(error))

    async with serve(refuse, "127.0.0.1", 0) as server:
        yield f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}"


async def test_every_error_code_raises_its_own_exception_class(refusing_url: str) -> None:
    assert set(ERROR_CLASSES) == set(ErrorCode)
    async with await ArenaClient.connect(refusing_url) as client:
        for code in ErrorCode:
            with pytest.raises(ArenaError) as refused:
                await client.request(Ping(id=code.value))
            assert type(refused.value) is ERROR_CLASSES[code]
            assert refused.value.code == code.value == ERROR_CLASSES[code].code_of_class


async def test_real_refusals_arrive_as_their_typed_exceptions(arena: ArenaServer, connect: Connect) -> None:
    race = await start_race(await connect(arena.url), await connect(arena.url))
    with pytest.raises(IllegalMoveError) as illegal:
        await race.ada.move(race.race_id, "t1>t1")
    assert illegal.value.message
    with pytest.raises(RaceNotFoundError):
        await race.ada.get_race("000000000000")
    with pytest.raises(RaceNotOverError):
        await race.ada.results(race.race_id)
    lobby = await race.ada.create_race("treize", seats=2)
    carol = await connect(arena.url)
    await carol.hello(name="carol")
    with pytest.raises(NotCreatorError):
        await race.bob.start(lobby.race_id)
    await carol.join_race(lobby.code)
    with pytest.raises(RaceFullError):
        await race.bob.join_race(lobby.code)
    stranger = await connect(arena.url)
    with pytest.raises(BadTokenError):
        await stranger.hello(token="x" * 43)


async def test_a_dropped_connection_is_resumed_and_the_next_move_goes_through(arena: ArenaServer) -> None:
    ada = await ArenaClient.connect(arena.url, reconnect=True)
    bob = await ArenaClient.connect(arena.url)
    race = await start_race(ada, bob)
    line = new_game("eight-off", WINNABLE_SEED).legal_moves()
    await ada.move(race.race_id, line[0])
    ada.ws.transport.abort()  # the network drops
    ack = await ada.move(race.race_id, new_game_after(line[0]).legal_moves()[0])
    assert ack.seq == 2
    welcome = await ada.wait_for(Welcome)
    assert welcome.resumed and welcome.races == [race.race_id] and ada.resumes == 1
    board = await bob.get_race(race.race_id)
    assert {r.name: r.move_count for r in board.racers}["ada"] == 2
    await ada.close()
    await bob.close()


async def test_a_player_waiting_for_a_quick_match_is_queued_again_after_a_drop(arena: ArenaServer) -> None:
    ada = await ArenaClient.connect(arena.url, reconnect=True)
    await ada.hello(name="ada")
    await ada.quick_match("treize")
    ada.ws.transport.abort()  # the network drops: disconnecting left the queue
    welcome = await ada.wait_for(Welcome)
    assert welcome.resumed
    bob = await ArenaClient.connect(arena.url)
    await bob.hello(name="bob")
    await bob.quick_match("treize")
    # The two meet: ada's client queued her again, with the same seed share.
    found = await ada.wait_for(MatchFound, timeout=10)
    assert found.race.race_id == (await bob.wait_for(MatchFound, timeout=10)).race.race_id
    assert found.race.race_id in ada.shares
    await ada.close()
    await bob.close()


async def test_a_quick_match_cancelled_in_another_session_ends_the_wait_and_is_not_queued_again_after_a_drop(
    arena: ArenaServer,
) -> None:
    ada = await ArenaClient.connect(arena.url, reconnect=True)
    await ada.hello(name="ada")
    await ada.quick_match("treize")
    assert ada.queued_for == "treize"
    async with await ArenaClient.connect(arena.url) as elsewhere:  # ada's other device
        await elsewhere.hello(token=ada.token)
        await elsewhere.cancel_quick_match()
    with pytest.raises(QueueLeftError) as ended:
        await ada.wait_for_match(timeout=5)
    assert ended.value.left.reason == "cancelled" and ended.value.left.game == "treize"
    assert ada.queued_for is None
    ada.ws.transport.abort()  # resumed, she does not queue again against her wish
    await ada.wait_for(Welcome)
    bob = await ArenaClient.connect(arena.url)
    await bob.hello(name="bob")
    await bob.quick_match("treize")
    with pytest.raises(TimeoutError):
        await bob.wait_for_match(timeout=1.0)
    await ada.close()
    await bob.close()


async def test_my_races_lists_what_the_players_other_session_joined_and_queued_for(
    arena: ArenaServer,
) -> None:
    ada = await ArenaClient.connect(arena.url)
    await ada.hello(name="ada")
    bob = await ArenaClient.connect(arena.url)
    await bob.hello(name="bob")
    race = await bob.create_race("treize")
    async with await ArenaClient.connect(arena.url) as elsewhere:  # ada's other device
        await elsewhere.hello(token=ada.token)
        await elsewhere.join_race(race.code)
        await elsewhere.quick_match("eagle-wing")
        mine = await ada.my_races()
    assert mine.races == [race.race_id]
    assert mine.queued is not None and mine.queued.game == "eagle-wing"
    await ada.close()
    await bob.close()


async def test_the_end_of_an_earlier_stay_in_a_queue_leaves_the_current_one_waiting(
    arena: ArenaServer,
) -> None:
    ada = await ArenaClient.connect(arena.url)
    await ada.hello(name="ada")
    await ada.quick_match("treize")
    await ada.cancel_quick_match()
    await ada.quick_match("treize")
    old = await ada.wait_for(QuickMatchLeft)  # the cancelled stay's
    assert old.reason == "cancelled" and ada.queued_for == "treize"
    # The same news again, now surely after the new stay began (as from a node that heard
    # of the cancel late): it is about the earlier stay, and ends nothing.
    assert arena.store is not None and ada.player_id is not None
    await arena.store.events.publish_player(ada.player_id, pack_event(EventKind.QUEUE_LEFT, old))
    assert await ada.wait_for(QuickMatchLeft) == old
    assert ada.queued_for == "treize"
    bob = await ArenaClient.connect(arena.url)
    await bob.hello(name="bob")
    await bob.quick_match("treize")
    found = await ada.wait_for_match(timeout=5)
    assert {r.name for r in found.race.racers} == {"ada", "bob"}
    await ada.close()
    await bob.close()


async def test_a_move_in_flight_when_the_connection_drops_is_applied_once(arena: ArenaServer) -> None:
    ada = await ArenaClient.connect(arena.url, reconnect=True)
    bob = await ArenaClient.connect(arena.url)
    race = await start_race(ada, bob)
    first = new_game("eight-off", WINNABLE_SEED).legal_moves()[0]
    moving = asyncio.create_task(ada.move(race.race_id, first))
    await asyncio.sleep(0)  # sent, not yet acked
    ada.ws.transport.abort()
    ack = await moving
    assert ack.seq == 1
    info = await bob.get_race(race.race_id)
    assert {r.name: r.move_count for r in info.racers}["ada"] == 1
    await ada.close()
    await bob.close()


async def test_a_viewer_whose_connection_drops_is_resumed_as_a_viewer_and_watches_again(
    arena: ArenaServer,
) -> None:
    ada = await ArenaClient.connect(arena.url)
    bob = await ArenaClient.connect(arena.url)
    race = await start_race(ada, bob)
    cleo = await ArenaClient.connect(arena.url, reconnect=True)
    assert (await cleo.hello(viewer=True)).viewer
    await cleo.watch(race.race_id)
    seen: list[str] = []
    cleo.on_event = lambda event: seen.append(event.type)
    cleo.ws.transport.abort()  # the network drops
    welcome = await cleo.wait_for(Welcome)
    assert welcome.viewer and welcome.token is None and cleo.resumes == 1
    assert "welcome" in seen  # on_event sees the resume's welcome too, as every event
    watching = await cleo.watch(race.race_id)
    assert watching.race is not None and [r.name for r in watching.race.racers] == ["ada", "bob"]
    for client in (ada, bob, cleo):
        await client.close()


async def test_without_reconnect_a_drop_ends_the_events(arena: ArenaServer) -> None:
    ada = await ArenaClient.connect(arena.url)
    await ada.hello(name="ada")
    ada.ws.transport.abort()
    events = [event async for event in ada.events()]
    assert events == []
    await ada.close()


def new_game_after(move: str):  # type: ignore[no-untyped-def]
    game = new_game("eight-off", WINNABLE_SEED)
    game.play(move)
    return game


async def test_sign_in_keeps_the_token_and_resumes_the_same_player_next_time(
    arena: ArenaServer, tmp_path: Path
) -> None:
    store = TokenStore(tmp_path / "credentials.json")
    async with await ArenaClient.connect(arena.url) as first:
        welcome = await first.sign_in("ada", store)
        assert not welcome.resumed
    async with await ArenaClient.connect(arena.url) as second:
        again = await second.sign_in("ada", store)
        assert again.resumed and again.player_id == welcome.player_id


async def test_sign_in_with_an_expired_token_starts_a_new_guest(arena: ArenaServer, tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "credentials.json")
    store.put(arena.url, Credential("p_gone", "ada", "y" * 43))
    async with await ArenaClient.connect(arena.url) as client:
        welcome = await client.sign_in("ada", store)
    assert not welcome.resumed and welcome.player_id != "p_gone"
    saved = store.get(arena.url, "ada")
    assert saved is not None and saved.player_id == welcome.player_id


def test_credentials_are_kept_for_their_user_alone(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "config" / "solitaire-arena" / "credentials.json")
    store.put("ws://arena.example:8765/", Credential("p_1", "ada", "secret-token"))
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.path.parent.stat().st_mode) == 0o700
    assert store.get("ws://arena.example:8765", "ada") == Credential("p_1", "ada", "secret-token")
    assert store.get("ws://arena.example:8765", "bob") is None
    assert store.get("ws://elsewhere:8765", "ada") is None
    store.forget("ws://arena.example:8765", "ada")
    assert store.get("ws://arena.example:8765", "ada") is None


def test_a_damaged_credentials_file_is_refused_and_never_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "credentials.json"
    path.write_text("{not json")
    store = TokenStore(path)
    with pytest.raises(DamagedCredentialsError, match="is damaged \\(not JSON\\)"):
        store.get("ws://a", "ada")
    with pytest.raises(DamagedCredentialsError):
        store.put("ws://a", Credential("p_1", "ada", "t"))
    assert path.read_text() == "{not json"
    path.write_text("")  # empty: nothing to lose
    store.put("ws://a", Credential("p_1", "ada", "t"))
    assert json.loads(path.read_text())["ws://a ada"]["token"] == "t"


async def test_a_request_dropped_by_the_rate_limit_raises_rate_limited(clean_redis: str) -> None:
    async with (
        running_node(clean_redis, rate_limit=1.0, rate_burst=2) as node,
        await ArenaClient.connect(node.url) as client,
    ):
        await client.ping()
        await client.ping()
        with pytest.raises(RateLimitedError):
            await client.ping()


async def until_reconnecting(client: ArenaClient) -> None:
    for _ in range(100):
        if client.reconnecting:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the client never noticed the drop")


async def test_a_client_resumes_across_a_server_restart_on_the_same_address(clean_redis: str) -> None:
    port = free_port()
    async with running_node(clean_redis, port=port) as first:
        ada = await ArenaClient.connect(first.url, reconnect=True)
        bob = await ArenaClient.connect(first.url)
        race = await start_race(ada, bob, time_limit=120)
        await ada.move(race.race_id, new_game("eight-off", WINNABLE_SEED).legal_moves()[0])
        await bob.close()
    # The node is down: ada's client keeps trying (and says so). A new node comes up on the
    # same port.
    await until_reconnecting(ada)
    async with running_node(clean_redis, port=port):
        welcome = await ada.wait_for(Welcome, timeout=15)
        assert welcome.resumed and welcome.races == [race.race_id] and not ada.reconnecting
        board = await ada.board(race.race_id)
        assert board is not None and board.seq == 1
        assert ada.resumes == 1
        await ada.close()


async def test_a_move_made_while_the_node_is_down_waits_for_it_longer_than_its_request_timeout(
    clean_redis: str,
) -> None:
    port = free_port()
    async with running_node(clean_redis, port=port) as first:
        ada = await ArenaClient.connect(first.url, reconnect=True, resume_patience=30)
        bob = await ArenaClient.connect(first.url)
        race = await start_race(ada, bob, time_limit=120)
        await bob.close()
        # A short request timeout once the race is set up: the node stays down longer than
        # twice it (a move is sent once more after a drop), well within the reconnect window.
        ada.request_timeout = 1.0
    await until_reconnecting(ada)
    move = asyncio.create_task(ada.move(race.race_id, new_game("eight-off", WINNABLE_SEED).legal_moves()[0]))
    await asyncio.sleep(3.0)
    assert not move.done() and ada.reconnecting  # still waiting, not given up
    async with running_node(clean_redis, port=port):
        ack = await asyncio.wait_for(move, timeout=15)
        assert ack.seq == 1 and not ack.resent
        board = await ada.board(race.race_id)
        assert board is not None and board.seq == 1
        await ada.close()


async def test_a_request_made_while_reconnecting_raises_connection_lost_once_the_client_gives_up(
    clean_redis: str,
) -> None:
    async with running_node(clean_redis) as node:
        ada = await ArenaClient.connect(node.url, reconnect=True, request_timeout=30, resume_patience=1.0)
        await ada.hello(name="ada")
    await until_reconnecting(ada)
    loop = asyncio.get_running_loop()
    asked = loop.time()
    with pytest.raises(ConnectionLostError) as lost:
        await ada.ping()
    # Raised when the client gives up (its window of 1 s), not after the request timeout.
    assert loop.time() - asked < 10
    assert lost.value.message == "the connection is down, and the client gave up reconnecting"
    await ada.close()


async def test_a_new_client_with_the_same_share_file_reveals_the_share_the_first_committed(
    clean_redis: str, tmp_path: Path
) -> None:
    async with running_node(clean_redis, mix_shares=True) as node:
        first = await ArenaClient.connect(node.url, kept_shares=ShareFile(tmp_path / "c.json", node.url))
        await first.hello(name="ada")
        race = await first.create_race("treize")
        await first.close()  # the terminal was closed: its memory is gone
        again = await ArenaClient.connect(node.url, kept_shares=ShareFile(tmp_path / "c.json", node.url))
        try:
            await again.hello(token=first.token)
            await again.ready(race.race_id)
            mine = (await again.get_race(race.race_id)).racers[0]
            assert (mine.ready, mine.share_committed, mine.share_revealed) == (True, True, True)
        finally:
            await again.close()
    kept = tmp_path / "c.shares.json"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert list(json.loads(kept.read_text()).values()) == [first.shares[race.race_id]]


def test_the_share_file_keeps_only_the_latest_shares(tmp_path: Path) -> None:
    shares = ShareFile(tmp_path / "c.json", "ws://h:1")
    for number in range(SHARES_KEPT + 2):
        shares.keep("p_1", f"race_{number}", f"{number:032x}")
    assert shares.kept("p_1", "race_0") is None and shares.kept("p_1", "race_1") is None
    assert shares.kept("p_1", "race_2") == f"{2:032x}"
    assert len(json.loads(shares.path.read_text())) == SHARES_KEPT
    assert ShareFile(tmp_path / "c.json", "ws://h:2").kept("p_1", "race_2") is None  # another server

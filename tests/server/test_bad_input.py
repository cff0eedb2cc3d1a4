"""Bad input: each gets a typed error with a readable message, and nothing breaks."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os

import msgpack
import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode

from client.sdk import ArenaClient, ArenaError
from server.app import ArenaServer
from server.config import Settings
from shared import new_game
from shared.protocol import Error, RaceEnded, decode_server
from tests.server.conftest import WINNABLE_SEED, Connect, node_settings
from tests.server.helpers import start_race


async def raw_reply(client: ArenaClient, frame: bytes | str) -> Error:
    """Send a frame as is and return the error it earns."""
    await client.send_raw(frame)
    event = await client.next_event()
    assert isinstance(event, Error), event
    return event


async def assert_still_serving(client: ArenaClient) -> None:
    assert (await client.ping()).server_time > 0


async def test_malformed_msgpack_gets_malformed_and_the_connection_stays_open(
    arena: ArenaServer, connect: Connect
) -> None:
    client = await connect(arena.url)
    error = await raw_reply(client, b"\xc1\xff\x00")
    assert error.code == "malformed" and "msgpack" in error.message
    error = await raw_reply(client, msgpack.packb([1, 2, 3]))
    assert error.code == "malformed"
    await assert_still_serving(client)


async def test_msgpack_with_numbered_fields_is_malformed_and_says_why(arena: ArenaServer) -> None:
    async with ws_connect(arena.url, compression=None) as ws:
        for message in (
            {0: "ping", 1: 7},
            {"type": "ping", "id": 7, "x": {None: 1}},
            {"type": "ping", "id": 7, b"x": 1},  # bytes, not text (a msgpack bin key)
            {"type": "ping", "id": 7, "x": [{b"y": 1}]},
        ):
            await ws.send(msgpack.packb(message))
            assert msgpack.unpackb(await ws.recv()) == {
                "type": "error",
                "code": "malformed",
                "message": "a map in the binary frame has a key that is not text: name fields by text",
            }
        await ws.send(b"\xc1")
        assert msgpack.unpackb(await ws.recv())["message"] == "the binary frame is not valid msgpack"


async def test_json_sent_in_a_binary_frame_is_told_where_json_goes(arena: ArenaServer) -> None:
    async with ws_connect(arena.url, compression=None) as ws:
        await ws.send(json.dumps({"type": "ping", "id": 1}).encode())
        assert msgpack.unpackb(await ws.recv()) == {
            "type": "error",
            "code": "malformed",
            "message": "the binary frame is not valid msgpack (JSON goes in a text frame)",
        }


async def test_malformed_json_is_answered_in_json(arena: ArenaServer) -> None:
    async with ws_connect(arena.url, compression=None) as ws:
        await ws.send("{not json")
        reply = await ws.recv()
        assert isinstance(reply, str)
        data = json.loads(reply)
        assert data["type"] == "error" and data["code"] == "malformed"
        await ws.send('{"type": "ping", "id": "p1"}')
        assert json.loads(await ws.recv())["type"] == "pong"


async def test_unknown_type_is_named_in_the_error(arena: ArenaServer, connect: Connect) -> None:
    client = await connect(arena.url)
    error = await raw_reply(client, msgpack.packb({"type": "teleport", "id": 7}))
    assert error.code == "unknown_type" and error.id == 7 and "teleport" in error.message
    await assert_still_serving(client)


async def test_missing_and_mistyped_fields_are_invalid_messages(arena: ArenaServer, connect: Connect) -> None:
    client = await connect(arena.url)
    await client.hello(name="ada")
    missing = await raw_reply(client, msgpack.packb({"type": "move", "id": 1, "race_id": "x"}))
    assert missing.code == "invalid_message" and "seq" in missing.message and missing.id == 1
    mistyped = {"type": "move", "id": 2, "race_id": "x", "seq": "one", "move": "deal"}
    wrong = await raw_reply(client, msgpack.packb(mistyped))
    assert wrong.code == "invalid_message" and "seq" in wrong.message
    no_type = await raw_reply(client, json.dumps({"id": 3}))
    assert no_type.code == "invalid_message"
    extra = await raw_reply(client, json.dumps({"type": "ping", "id": 4, "x": 1}))
    assert extra.code == "invalid_message"
    await assert_still_serving(client)


async def test_names_are_validated(arena: ArenaServer, connect: Connect) -> None:
    client = await connect(arena.url)
    for bad in ("", " ada", "a" * 25, "<script>", "ada\n", 42):
        error = await raw_reply(client, json.dumps({"type": "hello", "id": 1, "name": bad}))
        assert error.code == "invalid_message" and "name" in error.message
    assert (await client.hello(name="Ada Lovelace-1")).name == "Ada Lovelace-1"


async def test_requests_before_hello_and_unknown_tokens_are_refused(
    arena: ArenaServer, connect: Connect
) -> None:
    client = await connect(arena.url)
    with pytest.raises(ArenaError) as caught:
        await client.create_race("treize")
    assert caught.value.code == "hello_required"
    with pytest.raises(ArenaError) as bad_token:
        await client.hello(token="x" * 43)
    assert bad_token.value.code == "bad_token"
    error = await raw_reply(client, json.dumps({"type": "hello", "id": 9, "protocol": 99, "name": "ada"}))
    assert error.code == "unsupported_protocol"


async def test_any_text_that_is_not_a_token_is_bad_token_however_long(arena: ArenaServer) -> None:
    async with ws_connect(arena.url, compression=None) as ws:
        for token in ("", "x" * 43, "x" * 300, "é" * 2000):
            await ws.send(msgpack.packb({"type": "hello", "id": 1, "token": token}))
            assert msgpack.unpackb(await ws.recv()) == {
                "type": "error",
                "id": 1,
                "code": "bad_token",
                "message": (
                    "that token no longer works (revoked, lapsed unused, or never given): "
                    "log in, or say hello with a name"
                ),
            }


async def test_a_frame_over_the_size_limit_closes_with_1009(arena: ArenaServer) -> None:
    async with ws_connect(arena.url, compression=None, max_size=None) as ws:
        await ws.send(b"\x00" * (arena.settings.max_message_bytes + 1))
        with pytest.raises(ConnectionClosed):
            await ws.recv()
        assert ws.close_code == 1009


async def test_a_flood_is_rate_limited_then_closed_with_1008(clean_redis: str) -> None:
    settings: Settings = node_settings(clean_redis, rate_limit=5.0, rate_burst=5)
    node = ArenaServer(settings)
    await node.start()
    try:
        async with ws_connect(node.url, compression=None) as ws:
            for i in range(10):
                await ws.send(msgpack.packb({"type": "ping", "id": i}))
            replies = [msgpack.unpackb(await ws.recv()) for _ in range(10)]
            limited = [r for r in replies if r["type"] == "error"]
            # Dropped unread, so without an id (docs/protocol.md); a token comes back every 0.2 s.
            refusal = {
                "type": "error",
                "code": "rate_limited",
                "message": "too many messages: slow down, one more is let in after 0.2 s",
            }
            assert limited and all(r == refusal for r in limited)
            assert len(replies) - len(limited) >= 5
            await asyncio.sleep(0.5)  # the bucket refills: served again
            await ws.send(msgpack.packb({"type": "ping", "id": "again"}))
            assert decode_server(await ws.recv()).type == "pong"
            with pytest.raises(ConnectionClosed):
                for i in range(200):
                    await ws.send(msgpack.packb({"type": "ping", "id": i}))
                while True:
                    await ws.recv()
            assert ws.close_code == 1008
    finally:
        await node.stop()


async def test_moves_in_unknown_races_or_races_of_others_are_refused(
    arena: ArenaServer, connect: Connect
) -> None:
    race = await start_race(await connect(arena.url), await connect(arena.url))
    eve = await connect(arena.url)
    await eve.hello(name="eve")
    move = new_game("eight-off", WINNABLE_SEED).legal_moves()[0]
    with pytest.raises(ArenaError) as unknown:
        await eve.move("no-such-race", move)
    assert unknown.value.code == "race_not_found"
    with pytest.raises(ArenaError) as other:
        await eve.move(race.race_id, move)
    assert other.value.code == "not_a_racer"
    with pytest.raises(ArenaError) as finish:
        await eve.finish(race.race_id)
    assert finish.value.code == "not_a_racer"
    board = await race.ada.board(race.race_id)
    assert board is not None and board.seq == 0


async def test_illegal_move_gets_the_engines_reason_and_changes_nothing(
    arena: ArenaServer, connect: Connect
) -> None:
    race = await start_race(await connect(arena.url), await connect(arena.url))
    with pytest.raises(ArenaError) as caught:
        await race.ada.move(race.race_id, "t1>t1", seq=1)
    assert caught.value.code == "illegal_move"
    assert caught.value.message == "t1 cannot move onto itself"
    with pytest.raises(ArenaError) as nonsense:
        await race.ada.move(race.race_id, "fly away", seq=1)
    assert nonsense.value.code == "illegal_move"
    board = await race.ada.board(race.race_id)
    assert board is not None and board.seq == 0 and board.view == race.view
    move = new_game("eight-off", WINNABLE_SEED).legal_moves()[0]
    assert (await race.ada.move(race.race_id, move, seq=1)).seq == 1


async def test_stale_and_future_seqs_are_refused_and_a_resent_seq_is_not_applied_twice(
    arena: ArenaServer, connect: Connect
) -> None:
    race = await start_race(await connect(arena.url), await connect(arena.url))
    game = new_game("eight-off", WINNABLE_SEED)
    first = game.legal_moves()[0]
    game.play(first)
    second = game.legal_moves()[0]
    ack1 = await race.ada.move(race.race_id, first, seq=1)
    again = await race.ada.move(race.race_id, first, seq=1)
    assert again.seq == 1 and again.view == ack1.view and again.result == ack1.result
    await race.ada.move(race.race_id, second, seq=2)
    with pytest.raises(ArenaError) as stale:
        await race.ada.move(race.race_id, first, seq=1)
    assert stale.value.code == "stale_seq" and "3" in stale.value.message
    with pytest.raises(ArenaError) as future:
        await race.ada.move(race.race_id, second, seq=9)
    assert future.value.code == "future_seq"
    board = await race.ada.board(race.race_id)
    assert board is not None and board.seq == 2 and board.view.move_count == 2


async def test_moves_before_the_start_and_after_the_end_are_refused(
    arena: ArenaServer, connect: Connect
) -> None:
    ada, bob = await connect(arena.url), await connect(arena.url)
    await ada.hello(name="ada")
    await bob.hello(name="bob")
    created = await ada.create_race("eight-off")
    move = new_game("eight-off", WINNABLE_SEED).legal_moves()[0]
    with pytest.raises(ArenaError) as early:
        await ada.move(created.race_id, move)
    assert early.value.code == "race_not_started"
    await bob.join_race(created.code)
    await ada.ready(created.race_id)
    await bob.ready(created.race_id)
    race = await start_race_after_countdown(ada, created.race_id)
    await ada.finish(race)
    await bob.finish(race)
    await ada.wait_for(RaceEnded)
    with pytest.raises(ArenaError) as late:
        await ada.move(race, move, seq=1)
    assert late.value.code in ("race_over", "racer_finished")
    with pytest.raises(ArenaError) as over:
        await bob.move(race, "t1>t1", seq=1)
    assert over.value.code in ("race_over", "racer_finished")
    with pytest.raises(ArenaError) as twice:
        await bob.finish(race)
    assert twice.value.code == "race_over"


async def start_race_after_countdown(client: ArenaClient, race_id: str) -> str:
    from shared.protocol import RaceStarted

    await client.wait_for(RaceStarted, lambda e: e.race_id == race_id)
    return race_id


async def test_the_server_survives_all_of_it_and_still_plays(arena: ArenaServer, connect: Connect) -> None:
    client = await connect(arena.url)
    for frame in (b"", b"\x80", "", "null", "[]", '{"type": 5}', b"\x91\x01"):
        await client.send_raw(frame)
        event = await client.next_event()
        assert isinstance(event, Error)
    race = await start_race(await connect(arena.url), await connect(arena.url))
    move = new_game("eight-off", WINNABLE_SEED).legal_moves()[0]
    assert (await race.bob.move(race.race_id, move)).seq == 1


@pytest.mark.parametrize(
    ("message", "field"),
    [
        ({"type": "create_race", "id": 1, "game": "treize", "seats": "3"}, "seats"),
        ({"type": "create_race", "id": 1, "game": "treize", "seats": 3.0}, "seats"),
        ({"type": "create_race", "id": 1, "game": "treize", "time_limit": 1e-300}, "time_limit"),
        ({"type": "hello", "id": 1, "protocol": "1", "name": "ada"}, "protocol"),
        ({"type": "ping", "id": True}, "id"),
    ],
)
async def test_a_field_of_the_wrong_type_is_not_coerced(
    arena: ArenaServer, connect: Connect, message: dict[str, object], field: str
) -> None:
    client = await connect(arena.url)
    if message["type"] != "hello":
        await client.hello(name="ada")
    async with ws_connect(arena.url, compression=None) as ws:
        if message["type"] != "hello":
            await ws.send(json.dumps({"type": "hello", "id": 0, "token": client.token}))
            assert json.loads(await ws.recv())["type"] == "welcome"
        await ws.send(json.dumps(message))
        reply = json.loads(await ws.recv())
    assert reply["type"] == "error" and reply["code"] == "invalid_message" and field in reply["message"]


async def test_a_lone_surrogate_is_malformed_and_the_move_never_runs(
    arena: ArenaServer, connect: Connect
) -> None:
    race = await start_race(await connect(arena.url), await connect(arena.url))
    move = new_game("eight-off", WINNABLE_SEED).legal_moves()[0]
    fields = f'"race_id": "{race.race_id}", "seq": 1, "move": "{move}"'
    frame = '{"type": "move", "id": "\\ud800", ' + fields + "}"
    async with ws_connect(arena.url, compression=None) as ws:
        await ws.send(json.dumps({"type": "hello", "id": 0, "token": race.ada.token}))
        assert json.loads(await ws.recv())["type"] == "welcome"
        await ws.send(frame)
        reply = json.loads(await ws.recv())
        assert reply == {"type": "error", "code": "malformed", "message": "the text frame is not valid JSON"}
        await ws.send('{"type": "ping", "id": 2}')
        assert json.loads(await ws.recv())["type"] == "pong"
    board = await race.ada.board(race.race_id)
    assert board is not None and board.seq == 0


async def test_deeply_nested_json_is_malformed_without_a_traceback(
    arena: ArenaServer, caplog: pytest.LogCaptureFixture
) -> None:
    async with ws_connect(arena.url, compression=None) as ws:
        for _ in range(3):
            await ws.send("[" * 5000)
            reply = json.loads(await ws.recv())
            assert reply["code"] == "malformed"
    assert not [r for r in caplog.records if r.exc_info]


async def test_a_connection_that_never_says_hello_is_closed_without_banning_its_address(
    clean_redis: str,
) -> None:
    node = ArenaServer(node_settings(clean_redis, hello_timeout=0.3, abuse_ban=60.0))
    await node.start()
    try:
        async with (
            ws_connect(node.url, compression=None) as idle,
            ws_connect(node.url, compression=None) as ada,
        ):
            await ada.send(json.dumps({"type": "hello", "id": 1, "name": "ada"}))
            assert json.loads(await ada.recv())["type"] == "welcome"
            with pytest.raises(ConnectionClosed):
                await asyncio.wait_for(idle.recv(), 3)
            assert idle.close_code == 1008 and "hello" in (idle.close_reason or "")
            await ada.send(json.dumps({"type": "ping", "id": 2}))  # said hello: stays
            assert json.loads(await ada.recv())["type"] == "pong"
        # Not abuse: others at the address (behind the same NAT) still get in.
        async with ws_connect(node.url, compression=None) as bob:
            await bob.send(json.dumps({"type": "hello", "id": 1, "name": "bob"}))
            assert json.loads(await bob.recv())["type"] == "welcome"
    finally:
        await node.stop()


async def test_a_flooder_that_ignores_the_close_is_dropped_within_seconds(clean_redis: str) -> None:
    node = ArenaServer(node_settings(clean_redis, rate_limit=5.0, rate_burst=5))
    await node.start()
    try:
        # A raw socket: after the handshake it only writes, so no close frame is ever answered.
        reader, writer = await asyncio.open_connection("127.0.0.1", node.port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            f"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        assert b" 101 " in await reader.readuntil(b"\r\n\r\n")
        frame = Frame(Opcode.BINARY, msgpack.packb({"type": "ping", "id": 1})).serialize(
            mask=True, extensions=[]
        )
        loop = asyncio.get_running_loop()
        started = loop.time()
        with pytest.raises(ConnectionError):
            while loop.time() - started < 8:
                writer.write(frame * 20)
                await writer.drain()
                await asyncio.sleep(0.01)
        assert loop.time() - started < 5  # the strike rule, then at most a second's grace
        writer.close()
        assert "arena_connections 0.0" in node.metrics.render().decode()
    finally:
        await node.stop()


async def raw_websocket(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A hand-made WebSocket client: the handshake, then whatever bytes the test writes."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        f"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    assert b" 101 " in await reader.readuntil(b"\r\n\r\n")
    return reader, writer


async def test_a_connection_shut_for_flooding_is_not_read_any_more(clean_redis: str) -> None:
    node = ArenaServer(node_settings(clean_redis, rate_limit=5.0, rate_burst=5))
    await node.start()
    try:
        reader, writer = await raw_websocket(node.port)
        padded = json.dumps({"type": "ping", "id": 1}).ljust(16_000)
        chunk = Frame(Opcode.TEXT, padded.encode()).serialize(mask=True, extensions=[]) * 16
        closed = asyncio.Event()

        async def watch_for_the_close() -> None:
            while data := await reader.read(65536):
                if b"\x88" in data:  # a close frame from the server
                    closed.set()

        watcher = asyncio.create_task(watch_for_the_close())
        # Many small frames in one write: websockets queues them all and pauses reading
        # itself, so the shut comes while its own flow control would resume reading later.
        small = Frame(Opcode.TEXT, b'{"type":"ping","id":2}').serialize(mask=True, extensions=[])
        writer.write(small * 3000)
        while not closed.is_set():
            writer.write(chunk)
            await writer.drain()
            await asyncio.sleep(0)
        # Shut: whatever is written now only fills the socket buffers (a few MB at most);
        # a server still reading would take it in at hundreds of MB a second.
        loop = asyncio.get_running_loop()
        until = loop.time() + 0.5
        taken = 0
        with contextlib.suppress(TimeoutError, ConnectionError):
            while loop.time() < until:
                writer.write(chunk)
                await asyncio.wait_for(writer.drain(), max(0.001, until - loop.time()))
                taken += len(chunk)
        assert taken < 32 * 2**20, f"{taken / 2**20:.0f} MB read after the close"
        watcher.cancel()
        writer.transport.abort()
    finally:
        await node.stop()


async def test_flooding_in_bursts_just_under_the_strike_rule_is_still_closed(clean_redis: str) -> None:
    node = ArenaServer(node_settings(clean_redis, rate_limit=50.0, rate_burst=100))
    await node.start()
    try:
        async with ws_connect(node.url, compression=None, max_queue=None) as ws:
            frame = msgpack.packb({"type": "ping", "id": 1})
            loop = asyncio.get_running_loop()
            started = loop.time()
            with pytest.raises(ConnectionClosed):
                while loop.time() - started < 15:  # 48 frames every 20 ms: 2,400 a second
                    for _ in range(48):
                        await ws.send(frame)
                    await asyncio.sleep(0.02)
            assert loop.time() - started < 5
            assert ws.close_code == 1008
    finally:
        await node.stop()

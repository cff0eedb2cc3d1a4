"""The wire codec: one message, two encodings, typed errors for everything else."""

from __future__ import annotations

import json

import msgpack
import pytest

from shared.protocol import (
    PROTOCOL_VERSION,
    BoardView,
    ErrorCode,
    Hello,
    MakeMove,
    MoveAck,
    MoveSummary,
    PileView,
    Progress,
    ProtocolError,
    decode_client,
    decode_server,
    encode,
)


def test_a_message_round_trips_through_msgpack_and_json() -> None:
    move = MakeMove(id=3, race_id="abc", seq=1, move="t1>f1")
    assert decode_client(encode(move, binary=True)) == move
    assert decode_client(encode(move, binary=False)) == move
    assert isinstance(encode(move, binary=True), bytes)
    assert json.loads(encode(move, binary=False))["type"] == "move"


def test_hello_carries_the_protocol_version() -> None:
    assert Hello(id=1, name="ada").protocol == PROTOCOL_VERSION


def test_server_messages_decode_and_ignore_fields_they_do_not_know() -> None:
    event = Progress(
        race_id="r", player_id="p", score=3, cards_left=49, move_count=7, finished=False, won=False
    )
    data = json.loads(encode(event, binary=False))
    data["new_field"] = 1
    assert decode_server(json.dumps(data)) == event
    ack = MoveAck(
        race_id="r",
        seq=1,
        result=MoveSummary(move="deal", steps=[("5H", "stock", "waste")], score_delta=0, score=0, won=False),
        view=BoardView(
            game="treize", piles={"waste": PileView(count=1, cards=["5H"])}, score=0, won=False, move_count=1
        ),
    )
    assert decode_server(encode(ack)) == ack


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (b"\xc1", ErrorCode.MALFORMED),
        ("{", ErrorCode.MALFORMED),
        ("[1]", ErrorCode.MALFORMED),
        (msgpack.packb({1: 2}), ErrorCode.MALFORMED),
        ('{"type": "warp", "id": 1}', ErrorCode.UNKNOWN_TYPE),
        ('{"id": 1}', ErrorCode.INVALID_MESSAGE),
        ('{"type": "move", "id": 1, "race_id": "r", "seq": 0, "move": "deal"}', ErrorCode.INVALID_MESSAGE),
        ('{"type": "create_race", "id": 1, "game": "poker"}', ErrorCode.INVALID_MESSAGE),
        ('{"type": "create_race", "id": 1, "game": "treize", "seats": 9}', ErrorCode.INVALID_MESSAGE),
    ],
)
def test_bad_frames_raise_typed_protocol_errors(frame: bytes | str, code: ErrorCode) -> None:
    with pytest.raises(ProtocolError) as caught:
        decode_client(frame)
    assert caught.value.code == code and caught.value.message


def test_an_invalid_message_keeps_its_request_id_for_the_error() -> None:
    with pytest.raises(ProtocolError) as caught:
        decode_client('{"type": "move", "id": "m-9"}')
    assert caught.value.request_id == "m-9"


def test_the_protocol_doctests_pass() -> None:
    import doctest

    import shared.protocol

    failed, attempted = doctest.testmod(shared.protocol)
    assert failed == 0 and attempted > 0


def test_race_ids_and_codes_are_plain_words_so_they_cannot_bend_redis_keys() -> None:
    for bad in (
        '{"type": "get_race", "id": 1, "race_id": "x}:meta"}',
        '{"type": "join_race", "id": 1, "code": "AB CD*"}',
    ):
        with pytest.raises(ProtocolError) as caught:
            decode_client(bad)
        assert caught.value.code == ErrorCode.INVALID_MESSAGE

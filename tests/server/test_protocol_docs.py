"""docs/protocol.md documents every message type and every error code."""

from __future__ import annotations

import typing
from pathlib import Path

from shared.protocol import ClientMessage, ErrorCode, ServerMessage

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()


def message_types(union: object) -> list[str]:
    members = typing.get_args(typing.get_args(union)[0])
    return [m.model_fields["type"].default for m in members]


def test_every_message_type_has_a_json_example() -> None:
    for kind in message_types(ClientMessage) + message_types(ServerMessage):
        assert f'"type": "{kind}"' in DOC or f'"type":"{kind}"' in DOC, kind


def test_every_error_code_is_listed() -> None:
    for code in ErrorCode:
        assert f"`{code.value}`" in DOC, code

"""Every message, one discriminated union on ``type`` per direction.

A feature's protocol module exports ``Requests`` and ``Replies``; adding a feature adds
one term to each union here.
"""

from __future__ import annotations

from typing import Annotated, Final

from pydantic import Field, TypeAdapter

from shared.protocol import (
    accounts,
    assists,
    daily,
    lobby,
    profiles,
    quick_match,
    racing,
    rematch,
    results,
    session,
    watching,
)
from shared.protocol.base import Error, Ok

ClientMessage = Annotated[
    session.Requests
    | lobby.Requests
    | racing.Requests
    | results.Requests
    | quick_match.Requests
    | assists.Requests
    | rematch.Requests
    | accounts.Requests
    | profiles.Requests
    | daily.Requests
    | watching.Requests,
    Field(discriminator="type"),
]
ServerMessage = Annotated[
    Error
    | Ok
    | session.Replies
    | lobby.Replies
    | racing.Replies
    | results.Replies
    | quick_match.Replies
    | assists.Replies
    | rematch.Replies
    | accounts.Replies
    | profiles.Replies
    | daily.Replies
    | watching.Replies,
    Field(discriminator="type"),
]

CLIENT_ADAPTER: Final[TypeAdapter[ClientMessage]] = TypeAdapter(ClientMessage)
SERVER_ADAPTER: Final[TypeAdapter[ServerMessage]] = TypeAdapter(ServerMessage)

"""A raw JSON WebSocket client for tests that assert on the frames themselves."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect

Frame = dict[str, Any]


class Racer:
    """A raw JSON connection that keeps every event it receives while waiting for replies."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.events: list[Frame] = []
        self.player_id = ""
        self.token = ""
        self._next = 100

    async def request(self, message: Frame) -> Frame:
        self._next += 1
        message = {"id": self._next, **message}
        await self.ws.send(json.dumps(message))
        while True:
            data: Frame = json.loads(await asyncio.wait_for(self.ws.recv(), 15))
            if data.get("id") == message["id"]:
                return data
            if data["type"] == "error" and data.get("id") is None:
                raise AssertionError(f"the server refused a frame without naming it: {data}")
            self.events.append(data)

    async def event(self, kind: str, timeout: float = 5.0) -> Frame:
        for index, frame in enumerate(self.events):
            if frame["type"] == kind:
                return self.events.pop(index)
        while True:
            data: Frame = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
            if data["type"] == kind:
                return data
            self.events.append(data)


async def racers(url: str, *names: str) -> list[Racer]:
    out = []
    for name in names:
        racer = Racer(await ws_connect(url, compression=None))
        welcome = await racer.request({"type": "hello", "name": name, "legal_moves": True})
        assert welcome["type"] == "welcome"
        racer.player_id, racer.token = welcome["player_id"], welcome["token"]
        out.append(racer)
    return out


async def resumed(url: str, racer: Racer) -> Racer:
    """A new connection of ``racer``'s player, said hello with their token."""
    again = Racer(await ws_connect(url, compression=None))
    welcome = await again.request({"type": "hello", "token": racer.token, "legal_moves": True})
    assert welcome["type"] == "welcome" and welcome["player_id"] == racer.player_id
    again.player_id, again.token = racer.player_id, racer.token
    return again

"""One connection's loop: decode each frame, check it, dispatch it, reply in kind."""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import Any

from pydantic import BaseModel
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode

from server.boards import Boards
from server.errors import ArenaError
from server.fanout import Fanout
from server.lobby import Lobby
from server.matchmaking import Matchmaker
from server.metrics import Metrics
from server.races import Races, now_ms
from server.session import Session
from server.store import Store
from shared.protocol import (
    PROTOCOL_VERSION,
    CancelQuickMatch,
    ClientMessage,
    CreateRace,
    Error,
    ErrorCode,
    Finish,
    GetMoveLog,
    GetRace,
    GetResults,
    Hello,
    JoinRace,
    LeaveRace,
    ListRaces,
    LoggedMove,
    MakeMove,
    MoveLog,
    Ok,
    Ping,
    Pong,
    ProtocolError,
    Queued,
    QuickMatch,
    Race,
    RaceList,
    Ready,
    RequestId,
    Results,
    StartRace,
    Welcome,
    decode_client,
)

log = logging.getLogger("arena.connection")

#: Rate-limited messages in a row after which the connection is closed (1008).
_MAX_STRIKES = 50


class Handler:
    """Serves the messages of every connection of a node."""

    def __init__(
        self,
        store: Store,
        fanout: Fanout,
        races: Races,
        boards: Boards,
        matchmaker: Matchmaker,
        lobby: Lobby,
        metrics: Metrics,
    ) -> None:
        self.store = store
        self.fanout = fanout
        self.races = races
        self.boards = boards
        self.matchmaker = matchmaker
        self.lobby = lobby
        self.metrics = metrics
        fanout.on_match = self.on_match

    async def serve(self, session: Session) -> None:
        self.metrics.connections.inc()
        try:
            async for frame in session.ws:
                await self.handle_frame(session, frame)
        except ConnectionClosed:
            pass
        finally:
            self.metrics.connections.dec()
            followed = sorted(session.races)
            await self.fanout.detach(session)
            if session.player_id is not None:
                self.lobby.went_away(session.player_id, followed)
            if session.player_id is not None and session.queued_games:
                await self.matchmaker.cancel(session.player_id, session.queued_games)
            log.info(
                "connection closed",
                extra={"player_id": session.player_id, "close_code": session.ws.close_code},
            )

    async def handle_frame(self, session: Session, frame: bytes | str) -> None:
        if session.closing is not None:
            return  # drain what was queued so the closing handshake can complete
        session.binary = isinstance(frame, bytes)
        if not session.limiter.allow():
            session.strikes += 1
            if session.strikes > _MAX_STRIKES:
                log.warning(
                    "closing a flooding connection",
                    extra={"player_id": session.player_id, "remote": session.remote},
                )
                session.closing = asyncio.create_task(
                    session.ws.close(CloseCode.POLICY_VIOLATION, "rate limit exceeded")
                )
                return
            await self.send_error(session, None, ErrorCode.RATE_LIMITED, "too many messages: slow down")
            return
        session.strikes = 0
        request_id: RequestId | None = None
        try:
            message = decode_client(frame)
            request_id = message.id
            await self.dispatch(session, message)
        except ProtocolError as exc:
            await self.send_error(session, exc.request_id, exc.code, exc.message)
        except ArenaError as exc:
            await self.send_error(session, request_id, exc.code, exc.message)
        except ConnectionClosed:
            raise
        except Exception:
            log.exception("request failed", extra={"player_id": session.player_id, "remote": session.remote})
            await self.send_error(
                session, request_id, ErrorCode.INTERNAL_ERROR, "the server failed on that request"
            )

    async def send_error(
        self, session: Session, request_id: RequestId | None, code: ErrorCode, message: str
    ) -> None:
        self.metrics.errors.labels(code=code.value).inc()
        await session.send(Error(id=request_id, code=code, message=message))

    async def dispatch(self, session: Session, message: ClientMessage) -> None:
        if isinstance(message, Hello):
            await session.send(await self.hello(session, message))
            return
        if isinstance(message, Ping):
            await session.send(Pong(id=message.id, server_time=now_ms()))
            return
        player_id = session.player_id
        if player_id is None:
            raise ArenaError(ErrorCode.HELLO_REQUIRED, "say hello first")
        if isinstance(message, MakeMove):
            await session.send_dict(await self.boards.move(player_id, message))
            return
        reply = await self.request(session, player_id, message)
        await session.send(reply)

    async def request(self, session: Session, player_id: str, message: Any) -> BaseModel:
        name = session.name or "?"
        match message:
            case CreateRace(id=rid, game=game, seats=seats, time_limit=limit):
                meta = await self.races.create(player_id, name, game, seats, limit)
                await self.fanout.attach_race(meta.race_id, session)
                return Race(id=rid, race=await self.races.info(meta.race_id, player_id))
            case JoinRace(id=rid, code=code):
                race_id = await self.races.join(player_id, name, code)
                await self.fanout.attach_race(race_id, session)
                return Race(id=rid, race=await self.races.info(race_id, player_id))
            case ListRaces(id=rid, game=game):
                infos = [await self.races.info(r, None) for r in await self.store.open_races()]
                infos = [i for i in infos if i.status == "open" and game in (None, i.game)]
                return RaceList(id=rid, races=infos)
            case LeaveRace(id=rid, race_id=race_id):
                await self.races.leave(player_id, race_id)
                await self.fanout.detach_race(race_id, session)
                return Ok(id=rid)
            case Ready(id=rid, race_id=race_id, ready=ready):
                await self.races.ready(player_id, race_id, ready)
                return Ok(id=rid)
            case StartRace(id=rid, race_id=race_id):
                await self.races.start(player_id, race_id)
                return Ok(id=rid)
            case Finish(id=rid, race_id=race_id):
                await self.boards.finish(player_id, race_id)
                return Ok(id=rid)
            case GetRace(id=rid, race_id=race_id):
                info = await self.races.info(race_id, player_id)
                racing = any(r.player_id == player_id for r in info.racers)
                if racing and info.status not in ("finished", "cancelled"):
                    await self.fanout.attach_race(race_id, session)
                return Race(id=rid, race=info)
            case GetResults(id=rid, race_id=race_id):
                return Results(id=rid, summary=await self.races.summary(race_id))
            case GetMoveLog(id=rid, race_id=race_id):
                summary = await self.races.summary(race_id)
                moves = [
                    LoggedMove(player_id=e["player"], seq=int(e["seq"]), move=e["move"], at=int(e["at"]))
                    for e in await self.store.move_log(race_id)
                ]
                return MoveLog(
                    id=rid,
                    race_id=race_id,
                    game=summary.game,
                    seed=summary.seed,
                    salt=summary.salt,
                    commitment=summary.commitment,
                    moves=moves,
                )
            case QuickMatch(id=rid, game=game):
                session.queued_games.add(game)
                paired = await self.matchmaker.enqueue(player_id, name, game)
                if paired is not None:
                    session.queued_games.discard(game)
                return Queued(id=rid, game=game)
            case CancelQuickMatch(id=rid):
                await self.matchmaker.cancel(player_id, session.queued_games)
                session.queued_games.clear()
                return Ok(id=rid)
        raise ArenaError(ErrorCode.UNKNOWN_TYPE, f"no handler for {type(message).__name__}")

    async def hello(self, session: Session, message: Hello) -> Welcome:
        if message.protocol != PROTOCOL_VERSION:
            raise ArenaError(
                ErrorCode.UNSUPPORTED_PROTOCOL,
                f"this server speaks protocol {PROTOCOL_VERSION}, not {message.protocol}",
            )
        if session.player_id is not None:
            raise ArenaError(ErrorCode.INVALID_MESSAGE, "this connection already said hello")
        resumed = message.token is not None
        if message.token is not None:
            found = await self.store.player_for_token(message.token)
            if found is None:
                raise ArenaError(ErrorCode.BAD_TOKEN, "that token is unknown: say hello with a name")
            player_id, name = found
            token = message.token
        elif message.name is not None:
            player_id, name = f"p_{secrets.token_hex(8)}", message.name
            token = secrets.token_urlsafe(32)
            await self.store.create_player(player_id, name, token, now_ms())
        else:
            raise ArenaError(ErrorCode.INVALID_MESSAGE, "hello needs a name (new) or a token")
        session.player_id, session.name = player_id, name
        await self.store.mark_hello(player_id, now_ms())
        await self.fanout.attach_player(player_id, session)
        active = await self.active_races(player_id)
        for race_id in active:
            await self.fanout.attach_race(race_id, session)
        log.info(
            "hello",
            extra={
                "player_id": player_id,
                "remote": session.remote,
                "status": "resumed" if resumed else "new",
            },
        )
        return Welcome(
            id=message.id,
            player_id=player_id,
            name=name,
            token=token,
            resumed=resumed,
            races=active,
            server_time=now_ms(),
        )

    async def active_races(self, player_id: str) -> list[str]:
        active = []
        for race_id in await self.store.player_races(player_id):
            meta = await self.store.meta(race_id)
            if meta is not None and meta.status not in ("finished", "cancelled"):
                active.append(race_id)
        return active

    async def on_match(self, session: Session, msg: dict[str, Any]) -> None:
        """A quick match paired this session's player: follow the race, then tell them."""
        try:
            race = msg["race"]
            session.queued_games.discard(race["game"])
            if session.player_id is not None:
                self.matchmaker.matched(session.player_id, race["game"])
            await self.fanout.attach_race(race["race_id"], session)
            await session.send_dict(msg)
        except ConnectionClosed:
            pass
        except Exception:
            log.exception("match delivery failed", extra={"player_id": session.player_id})

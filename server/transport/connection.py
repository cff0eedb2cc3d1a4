"""One connection's loop: decode each frame, check it, route it, apply what the handler
asked for, and reply in kind."""

from __future__ import annotations

import asyncio
import logging
import math

from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode

from server.admission import Admission
from server.errors import ArenaError
from server.features.context import Reply
from server.features.presence import Presence
from server.metrics import Metrics
from server.outage import StoreHealth
from server.transport.fanout import Fanout
from server.transport.router import Router
from server.transport.session import Session
from server.transport.spectators import Spectators
from shared.protocol import Error, ErrorCode, ProtocolError, RequestId, decode_client

log = logging.getLogger("arena.connection")

_UNAVAILABLE = (
    "the server cannot reach its store right now: retry shortly (a move may have been "
    "stored anyway: resend it with the same seq)"
)
#: Seconds a connection shut for abuse gets to finish the closing handshake.
_ABORT_GRACE = 1.0


class ConnectionHandler:
    """Serves the messages of every connection of a node."""

    def __init__(
        self,
        router: Router,
        fanout: Fanout,
        spectators: Spectators,
        presence: Presence,
        metrics: Metrics,
        health: StoreHealth,
        hello_timeout: float,
        admission: Admission,
    ) -> None:
        self.admission = admission
        self.health = health
        self.hello_timeout = hello_timeout
        self.router = router
        self.fanout = fanout
        self.spectators = spectators
        self.presence = presence
        self.metrics = metrics

    async def serve(self, session: Session) -> None:
        self.metrics.connections.inc()
        self.admission.opened(session.address)
        timer = asyncio.get_running_loop().call_later(self.hello_timeout, self._close_if_anonymous, session)
        try:
            next_message = session.ws.next_message
            while True:
                await self.handle_frame(session, await next_message())
        except ConnectionClosed:
            pass
        finally:
            timer.cancel()
            self.metrics.connections.dec()
            self.admission.closed(session.address)
            followed, ended = sorted(session.races), list(session.ended)
            await self.spectators.leave(session)
            await self.fanout.detach(session)
            identity = session.caller.identity
            player_id = session.player_id
            viewer = identity is not None and identity.viewer
            try:
                if identity is not None:
                    await self.presence.signed_in_left(identity)
                if player_id is not None and not viewer and self.fanout.sessions_of(player_id) == 0:
                    await self.presence.gone(player_id, followed, ended)
            except Exception as exc:
                log.warning(
                    "cleaning up after a player failed",
                    extra={"player_id": player_id, "reason": repr(exc)},
                )
            log.info("connection closed", extra={"player_id": player_id, "close_code": session.ws.close_code})

    def _close_if_anonymous(self, session: Session) -> None:
        if session.caller.identity is None:
            # Not abuse: a silent socket costs little (the per-address limits cap how many),
            # and banning its address would shut out everyone behind the same NAT.
            self._shut(
                session, "no_hello", f"say hello within {self.hello_timeout:g} s of connecting", punish=False
            )

    def _shut(self, session: Session, label: str, reason: str, punish: bool = True) -> None:
        """Close with 1008, stop reading at once, and drop the connection after a short
        grace whether or not the client answers the close: a client being shut out for
        abuse costs nothing more. ``punish``: the address is banned for a while too."""
        if session.closing is not None:
            return
        if punish:
            self.admission.punish(session.address)
        self.metrics.shut_connections.labels(reason=label).inc()
        session.closing = asyncio.create_task(session.ws.close(CloseCode.POLICY_VIOLATION, reason))
        session.ws.stop_reading()
        asyncio.get_running_loop().call_later(_ABORT_GRACE, session.ws.transport.abort)

    async def handle_frame(self, session: Session, frame: bytes | str) -> None:
        if session.closing is not None:
            return  # drain what was queued so the closing handshake can complete
        session.binary = isinstance(frame, bytes)
        if not session.limiter.allow():
            # Every refused frame costs a strike, and strikes come back slowly whatever
            # else the connection sends: flooding in bursts just under the rate does not
            # reset them, so a connection's total work stays bounded.
            if not session.strikes.allow():
                log.warning(
                    "closing a flooding connection",
                    extra={"player_id": session.player_id, "remote": session.caller.remote},
                )
                self._shut(session, "flooding", "rate limit exceeded")
                return
            await self.send_error(
                session, None, ErrorCode.RATE_LIMITED, too_many_messages(session.limiter.wait())
            )
            return
        request_id: RequestId | None = None
        try:
            message = decode_client(frame)
            request_id = message.id
            reply = await self.router.route(session.caller, message)
            if reply.identify is not None or reply.follow or reply.unfollow:
                await self.subscribe(session, reply)
            for event in reply.local:
                self.fanout.deliver_local(event)
            if reply.watch is not None:
                await self.spectators.handle(session, reply.watch)
            if reply.message is not None:
                rest = session.start_send(reply.message)  # the ack of a move: mostly written at once
                if rest is not None:
                    await rest
            for extra in reply.after:
                await session.send(extra)
            if reply.close is not None:
                session.closing = asyncio.create_task(session.ws.close(CloseCode.NORMAL_CLOSURE, reply.close))
        except ProtocolError as exc:
            await self.send_error(session, exc.request_id, exc.code, exc.message)
        except ArenaError as exc:
            await self.send_error(session, request_id, exc.code, exc.message)
        except ConnectionClosed:
            raise
        except Exception as exc:
            if self.health.is_outage(exc):
                self.health.failed(exc)
                await self.send_error(session, request_id, ErrorCode.UNAVAILABLE, _UNAVAILABLE)
                return
            log.exception(
                "request failed", extra={"player_id": session.player_id, "remote": session.caller.remote}
            )
            await self.send_error(
                session, request_id, ErrorCode.INTERNAL_ERROR, "the server failed on that request"
            )

    async def subscribe(self, session: Session, reply: Reply) -> None:
        """Tie the connection to a player and to races, as the handler asked."""
        if reply.identify is not None:
            session.caller.identity = reply.identify
            if not reply.identify.viewer:  # nothing is ever sent to a viewer as a player
                await self.fanout.attach_player(reply.identify.player_id, session)
                await self.presence.arrived(reply.identify.player_id, reply.follow)
        for race_id in reply.follow:
            await self.fanout.attach_race(race_id, session)
        for race_id in reply.unfollow:
            await self.fanout.detach_race(race_id, session)

    async def send_error(
        self, session: Session, request_id: RequestId | None, code: ErrorCode, message: str
    ) -> None:
        self.metrics.errors.labels(code=code.value).inc()
        await session.send(Error(id=request_id, code=code, message=message))


def too_many_messages(wait: float) -> str:
    """The refusal of a message over the connection's rate, with when the next one is let
    in (``wait`` seconds, shown up to the next tenth).

    >>> too_many_messages(0.1234)
    'too many messages: slow down, one more is let in after 0.2 s'
    """
    return f"too many messages: slow down, one more is let in after {math.ceil(wait * 10) / 10:g} s"

"""Plain HTTP on the WebSocket port, through websockets' ``process_request``:
``GET /healthz`` (200 when Redis answers, else 503) and ``GET /metrics`` (Prometheus);
and the checks before a WebSocket handshake: its ``Origin`` (403), then its address's
limits (429).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable

from prometheus_client import CONTENT_TYPE_LATEST
from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from server.admission import Admission
from server.metrics import Metrics
from server.store import Store
from server.transport.origins import OriginPolicy
from server.transport.session import peer_host
from server.transport.web import WebFiles

#: The body of a handshake refused for its ``Origin``.
FOREIGN_ORIGIN = "WebSocket connections from pages of other sites are refused (Origin not allowed)\n"

ProcessRequest = Callable[[ServerConnection, Request], Awaitable[Response | None]]


def http_routes(
    store: Store, metrics: Metrics, admission: Admission, web: WebFiles, origins: OriginPolicy
) -> ProcessRequest:
    """The HTTP routes (health, metrics, the browser client's files), and the door to
    WebSocket: a page of another site gets 403, then an address over its limits gets 429,
    before the handshake (neither costs a session; the first spends none of the limits)."""

    async def process_request(connection: ServerConnection, request: Request) -> Response | None:
        path = request.path.split("?", 1)[0]
        if path == "/healthz":
            try:
                healthy = await asyncio.wait_for(store.ping(), 2.0)
            except Exception:
                healthy = False
            if healthy:
                return _fresh(connection.respond(200, "ok\n"))
            return _fresh(connection.respond(503, "redis unreachable\n"))
        if path == "/metrics":
            response = connection.respond(200, metrics.render().decode())
            del response.headers["Content-Type"]
            response.headers["Content-Type"] = CONTENT_TYPE_LATEST
            return _fresh(response)
        page = web.response(connection, request)
        if page is not None:
            return page
        if origins.refuses(request.headers, peer_host(connection)):
            metrics.refused_connections.labels(reason="origin").inc()
            return connection.respond(403, FOREIGN_ORIGIN)
        address = client_address(connection, request, admission)
        refusal = admission.refuse_connection(address)
        if refusal is not None:
            metrics.refused_connections.labels(reason=refusal.name.lower()).inc()
            response = connection.respond(429, refusal.value + "\n")
            response.headers["Retry-After"] = str(max(1, math.ceil(admission.ban_left(address))))
            return response
        return None

    return process_request


def _fresh(response: Response) -> Response:
    """A health or metrics answer is about this moment: no cache (a proxy's, a
    browser's) may keep it."""
    response.headers["Cache-Control"] = "no-store"
    return response


def client_address(connection: ServerConnection, request: Request | None, admission: Admission) -> str:
    """The address per-address limits count by (see :class:`Admission`)."""
    forwarded = request.headers.get("X-Forwarded-For") if request is not None else None
    return admission.client_address(peer_host(connection), forwarded)

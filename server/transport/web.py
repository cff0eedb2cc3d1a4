"""The browser client's files, served on the WebSocket port: ``GET /`` is the page,
``GET /static/...`` its stylesheet and JavaScript modules (from ``client/web``).

A request that asks for a WebSocket upgrade is never answered here, whatever its path,
so every other client keeps connecting as before. Files are read once and kept in
memory; nothing outside ``client/web`` can be named (no ``..``, no hidden files).

Every file carries an ``ETag`` (a digest of its bytes) with ``Cache-Control: no-cache``:
a browser asks again on every load, so a new release is seen at once, and a file it
already holds costs a ``304 Not Modified`` without its body. A client that accepts gzip
(every browser) gets each file compressed once at start, with a tag of its own
(``Vary: Accept-Encoding``).
"""

from __future__ import annotations

import gzip
import hashlib
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import PurePosixPath
from typing import Final

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

_TYPES: Final = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
}
_SAFE_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*")
#: No script or style from elsewhere, and WebSocket connections to this same server only.
_POLICY: Final = (
    "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; "
    "style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)


@dataclass(frozen=True, slots=True)
class _Variant:
    body: bytes
    tag: str


@dataclass(frozen=True, slots=True)
class _File:
    kind: str
    plain: _Variant
    #: Compressed with gzip (None when that would not be smaller).
    gzipped: _Variant | None

    @classmethod
    def of(cls, body: bytes, kind: str) -> _File:
        packed = gzip.compress(body, compresslevel=9, mtime=0)
        gzipped = _Variant(packed, _entity_tag(packed)) if len(packed) < len(body) else None
        return cls(kind, _Variant(body, _entity_tag(body)), gzipped)


class WebFiles:
    """The page and its static files, by URL path."""

    def __init__(self) -> None:
        root = resources.files("client") / "web"
        self._files: dict[str, _File] = {}
        self._load(root, PurePosixPath("/static"))
        index = self._files.get("/static/index.html")
        if index is not None:
            self._files["/"] = index

    def _load(self, folder: resources.abc.Traversable, url: PurePosixPath) -> None:
        for entry in folder.iterdir():
            if not _SAFE_NAME.fullmatch(entry.name):
                continue
            if entry.is_dir():
                self._load(entry, url / entry.name)
                continue
            kind = _TYPES.get(PurePosixPath(entry.name).suffix)
            if kind is not None:
                self._files[str(url / entry.name)] = _File.of(entry.read_bytes(), kind)

    def response(self, connection: ServerConnection, request: Request) -> Response | None:
        """The file ``request`` names, a 404 for any other plain GET, or None for a
        WebSocket upgrade (the handshake goes on)."""
        if "websocket" in request.headers.get("Upgrade", "").lower():
            return None
        path = request.path.split("?", 1)[0]
        found = self._files.get(path)
        if found is None:
            return connection.respond(404, "not found\n")
        variant = found.plain
        if found.gzipped is not None and _accepts_gzip(request.headers.get("Accept-Encoding", "")):
            variant = found.gzipped
        unchanged = _matches(request.headers.get("If-None-Match", ""), variant.tag)
        response = connection.respond(304 if unchanged else 200, "")
        headers = response.headers
        del headers["Content-Type"], headers["Content-Length"]
        if not unchanged:
            response.body = variant.body
            headers["Content-Type"] = found.kind
            headers["Content-Length"] = str(len(variant.body))
            if variant is found.gzipped:
                headers["Content-Encoding"] = "gzip"
        headers["ETag"] = variant.tag
        headers["Vary"] = "Accept-Encoding"
        headers["Cache-Control"] = "no-cache"
        headers["X-Content-Type-Options"] = "nosniff"
        headers["Content-Security-Policy"] = _POLICY
        return response

    def total_bytes(self) -> int:
        """What loading the page transfers at most to a browser (every file once, gzipped
        where that is smaller)."""
        return sum(len((f.gzipped or f.plain).body) for path, f in self._files.items() if path != "/")

    def plain_bytes(self) -> int:
        """The same files uncompressed."""
        return sum(len(f.plain.body) for path, f in self._files.items() if path != "/")


def _entity_tag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:20] + '"'


def _accepts_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` header takes gzip (named, or ``*``, without ``q=0``)."""
    for part in accept_encoding.lower().split(","):
        coding, _, params = part.strip().partition(";")
        if coding.strip() in ("gzip", "x-gzip", "*"):
            quality = params.strip().removeprefix("q=").strip() if "q=" in params else "1"
            try:
                return float(quality) > 0
            except ValueError:
                return False
    return False


def _matches(if_none_match: str, tag: str) -> bool:
    """Whether an ``If-None-Match`` header names ``tag`` (weakly compared, as RFC 9110
    asks for this header, so ``W/"x"`` matches ``"x"``) or is ``*``."""
    offered = [part.strip().removeprefix("W/") for part in if_none_match.split(",")]
    return "*" in offered or tag in offered

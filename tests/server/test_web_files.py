"""The browser client's files on the WebSocket port: what a browser gets, and that
WebSocket clients on the same path are untouched."""

from __future__ import annotations

import asyncio
import gzip
import json
import urllib.error
import urllib.request

import pytest
from websockets.asyncio.client import connect as ws_connect

from server.app import ArenaServer
from server.transport.web import WebFiles


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=5) as reply:
            return reply.status, dict(reply.headers), reply.read()
    except urllib.error.HTTPError as refused:
        return refused.code, dict(refused.headers), refused.read()


async def fetch(
    arena: ArenaServer, path: str, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    return await asyncio.to_thread(get, arena.url.replace("ws://", "http://") + path, headers)


async def test_a_browser_gets_the_page_with_a_strict_content_policy(arena: ArenaServer) -> None:
    status, headers, body = await fetch(arena, "/")
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert b'<script type="module" src="/static/js/app.js">' in body
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    assert headers["X-Content-Type-Options"] == "nosniff"
    for path, kind in (("/static/js/app.js", "text/javascript"), ("/static/style.css", "text/css")):
        status, headers, body = await fetch(arena, path)
        assert status == 200 and headers["Content-Type"].startswith(kind) and body


async def test_a_file_the_browser_holds_is_revalidated_with_its_etag_and_costs_a_304(
    arena: ArenaServer,
) -> None:
    status, headers, body = await fetch(arena, "/static/js/app.js")
    tag = headers["ETag"]
    assert status == 200 and headers["Cache-Control"] == "no-cache" and tag.startswith('"')
    status, headers, empty = await fetch(arena, "/static/js/app.js", {"If-None-Match": tag})
    assert (status, headers["ETag"], headers["Cache-Control"], empty) == (304, tag, "no-cache", b"")
    assert "Content-Type" not in headers
    status, _, _ = await fetch(arena, "/static/js/app.js", {"If-None-Match": f'"other", W/{tag}'})
    assert status == 304
    status, headers, again = await fetch(arena, "/static/js/app.js", {"If-None-Match": '"stale"'})
    assert (status, headers["ETag"], again) == (200, tag, body)
    _, page_headers, _ = await fetch(arena, "/")
    assert page_headers["ETag"] != tag  # each file its own tag


@pytest.mark.parametrize(
    "path", ["/nothing", "/static/../server/app.py", "/static/js/../../pyproject.toml", "/static/.hidden"]
)
async def test_anything_else_is_404_and_nothing_outside_the_web_folder_is_served(
    arena: ArenaServer, path: str
) -> None:
    status, _, body = await fetch(arena, path)
    assert status == 404 and b"import" not in body


async def test_websocket_clients_on_the_same_path_are_untouched(arena: ArenaServer) -> None:
    async with ws_connect(arena.url + "/", compression=None) as ws:
        await ws.send(json.dumps({"type": "ping", "id": 1}))
        assert json.loads(await ws.recv())["type"] == "pong"


def test_the_first_page_load_transfers_under_200_kb() -> None:
    files = WebFiles()
    # Every file once (even the pages loaded only when opened), as a browser gets them.
    assert files.total_bytes() < 200 * 1024
    assert files.total_bytes() < files.plain_bytes() / 2  # compressed, not just counted


async def test_a_browser_that_takes_gzip_gets_each_file_compressed_with_a_tag_of_its_own(
    arena: ArenaServer,
) -> None:
    _, plain_headers, plain = await fetch(arena, "/static/js/app.js")
    assert "Content-Encoding" not in plain_headers and plain_headers["Vary"] == "Accept-Encoding"
    status, headers, packed = await fetch(arena, "/static/js/app.js", {"Accept-Encoding": "gzip, br"})
    assert status == 200 and headers["Content-Encoding"] == "gzip" and headers["Vary"] == "Accept-Encoding"
    assert gzip.decompress(packed) == plain and len(packed) < len(plain) / 2
    assert headers["Content-Length"] == str(len(packed))
    assert headers["ETag"] != plain_headers["ETag"]
    held = {"Accept-Encoding": "gzip", "If-None-Match": headers["ETag"]}
    status, again, empty = await fetch(arena, "/static/js/app.js", held)
    assert (status, again["ETag"], empty) == (304, headers["ETag"], b"")
    # Refused with q=0, it is sent as it is.
    status, headers, body = await fetch(arena, "/static/js/app.js", {"Accept-Encoding": "gzip;q=0"})
    assert (status, "Content-Encoding" in headers, body) == (200, False, plain)

"""What writing one frame costs the server: websockets' ``send`` against the node's own
``send_frame`` (``server/transport/frames.py``) and ``broadcast_frame``.

    .venv/bin/python bench/frames.py --frames 200000

One websockets server on uvloop, as the node serves, and one client in a process of its
own that reads every frame. The server writes ``--frames`` frames of ``--size`` bytes
each way, in turn, ``--rounds`` times, and prints the server's CPU per frame (its
process CPU time over the frames: the Python of the send, the framing, and the socket
writes). Every row writes the same bytes.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import uvloop
from websockets.asyncio.server import ServerConnection, serve

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from server.transport.frames import broadcast_frame, send_frame  # noqa: E402

READER = """
import asyncio, sys
from websockets.asyncio.client import connect

async def main():
    async with connect(sys.argv[1], compression=None, max_size=None) as client:
        try:
            async for _ in client:
                pass
        except Exception:
            pass

asyncio.run(main())
"""

Way = Callable[[ServerConnection, bytes], Awaitable[None]]


async def websockets_send(ws: ServerConnection, data: bytes) -> None:
    await ws.send(data)


async def broadcast_one(ws: ServerConnection, data: bytes) -> None:
    broadcast_frame([ws], data)
    if ws.paused:  # as send_frame: never let the buffer grow without bound
        await ws.drain()


WAYS: dict[str, Way] = {
    "websockets `send`": websockets_send,
    "`send_frame`": send_frame,
    "`broadcast_frame` to one connection": broadcast_one,
}


async def measure(frames: int, size: int, rounds: int) -> dict[str, list[float]]:
    data = b"x" * size
    results: dict[str, list[float]] = {name: [] for name in WAYS}
    done = asyncio.Event()

    async def handler(ws: ServerConnection) -> None:
        for _ in range(2_000):  # warm up
            await ws.send(data)
        for _ in range(rounds):
            for name, way in WAYS.items():
                started = time.process_time()
                for _ in range(frames):
                    await way(ws, data)
                results[name].append((time.process_time() - started) / frames * 1e6)
        await ws.close()
        done.set()

    async with serve(handler, "127.0.0.1", 0, compression=None) as server:
        port = server.sockets[0].getsockname()[1]
        reader = subprocess.Popen([sys.executable, "-c", READER, f"ws://127.0.0.1:{port}"])
        try:
            await done.wait()
        finally:
            reader.wait(timeout=30)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200_000, help="frames per way and round")
    parser.add_argument("--size", type=int, default=700, help="bytes per frame (an ack is 500 - 900)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    results = uvloop.run(measure(args.frames, args.size, args.rounds))
    print(f"\n{args.frames} frames of {args.size} bytes per way and round, {args.rounds} rounds, uvloop\n")
    print("| way | server CPU per frame, each round (us) |")
    print("|---|---:|")
    for name, times in results.items():
        print(f"| {name} | {' / '.join(f'{t:.2f}' for t in times)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

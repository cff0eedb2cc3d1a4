"""Stopping background work: a task that swallows a cancellation still ends."""

from __future__ import annotations

import asyncio
import contextlib

from server.background import cancel_and_wait


async def test_a_task_that_swallows_one_cancellation_is_cancelled_again_until_it_ends() -> None:
    async def stubborn() -> None:
        # As a redis-py call may: the first cancellation is lost, and the work goes on.
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(30)
        await asyncio.sleep(30)

    task = asyncio.create_task(stubborn())
    await asyncio.sleep(0)
    await asyncio.wait_for(cancel_and_wait([task]), 2)
    assert task.cancelled()


async def test_ended_and_failed_tasks_are_waited_for_without_an_error() -> None:
    async def fails() -> None:
        raise RuntimeError("boom")

    done = asyncio.create_task(asyncio.sleep(0))
    failed = asyncio.create_task(fails())
    await asyncio.sleep(0.01)
    await cancel_and_wait([done, failed])
    assert done.done() and failed.done() and not failed.cancelled()

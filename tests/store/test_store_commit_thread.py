"""The SQLite commit thread (rummyhall.store.commit_thread): jobs run in order off the loop, each
outcome comes back to the loop, an error is the waiter's, and stop() runs what was posted."""

from __future__ import annotations

import asyncio
import threading

import pytest

from rummyhall.store.commit_thread import CommitThread


async def test_jobs_run_in_order_on_the_thread_and_report_to_the_loop() -> None:
    thread = CommitThread(name="test-commit")
    try:
        ran: list[tuple[int, str]] = []
        told: list[tuple[int, bool]] = []
        loop = asyncio.get_running_loop()
        loop_thread = threading.get_ident()

        def job(n: int) -> int:
            ran.append((n, threading.current_thread().name))
            return n * 10

        def then(result: int, error: BaseException | None) -> None:
            told.append((result, threading.get_ident() == loop_thread))

        for n in range(5):
            thread.post(lambda n=n: job(n), then, loop)
        assert await thread.run(lambda: "last") == "last"
        assert ran == [(n, "test-commit") for n in range(5)]
        assert told == [(n * 10, True) for n in range(5)]
    finally:
        thread.stop()


async def test_an_error_goes_to_the_waiter_and_the_thread_goes_on() -> None:
    thread = CommitThread()
    try:

        def fail() -> None:
            raise ValueError("disk full")

        with pytest.raises(ValueError, match="disk full"):
            await thread.run(fail)
        assert await thread.run(lambda: 7) == 7
    finally:
        thread.stop()


async def test_a_cancelled_waiter_does_not_stop_the_job() -> None:
    thread = CommitThread()
    try:
        started, release = threading.Event(), threading.Event()
        done: list[str] = []

        def slow() -> str:
            started.set()
            release.wait(10)
            done.append("committed")
            return "ok"

        waiter = asyncio.ensure_future(thread.run(slow))
        await asyncio.to_thread(started.wait, 10)
        waiter.cancel()
        release.set()
        assert await thread.run(lambda: "after") == "after"
        assert done == ["committed"] and waiter.cancelled()
    finally:
        thread.stop()


def test_stop_runs_what_was_posted_first() -> None:
    thread = CommitThread()
    ran: list[int] = []
    loop = asyncio.new_event_loop()
    try:
        for n in range(3):
            thread.post(lambda n=n: ran.append(n), lambda *_: None, loop)
        thread.stop()
        assert ran == [0, 1, 2]
    finally:
        loop.close()

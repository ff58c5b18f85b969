"""The SQLite commit thread: where a write transaction's COMMIT waits for the disk, off the event
loop (:class:`rummyhall.store.database.Database`).

Every durable action of every table ends here, one commit per batch, so the road there and back
is kept short: the loop puts a job in a queue (one wake-up of this thread), the thread runs it
and then calls the job's ``then`` back in the loop (one wake-up of the loop), and that callback
tells everyone concerned: the writer's jobs, the write lock, the awaiting coroutine. A
``ThreadPoolExecutor`` took more: a ``Future`` and a work item for each job, two locks and a
pure-Python semaphore around each submit and each finished job, and two wake-ups of the loop for
each commit (the callback that told the tables, then the executor's future), each one a turn of
the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable
from typing import Any

Then = Callable[[Any, BaseException | None], None]
"""Called in the loop with the job's result and None, or None and what it raised."""


class CommitThread:
    """One thread that runs jobs in the order they come, and reports each back to its loop."""

    def __init__(self, name: str = "sqlite-commit") -> None:
        self._jobs: queue.SimpleQueue[
            tuple[Callable[[], Any], Then, asyncio.AbstractEventLoop] | None
        ] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def post(self, work: Callable[[], Any], then: Then, loop: asyncio.AbstractEventLoop) -> None:
        """Run ``work`` on the thread, after the jobs posted before it; then call ``then`` in
        ``loop`` with its outcome. Never blocks."""
        self._jobs.put((work, then, loop))

    def run(self, work: Callable[[], Any]) -> asyncio.Future[Any]:
        """``work``'s outcome, as a future of the running loop (the rare jobs: a BEGIN that
        waits for another process, a rollback). A cancelled future does not stop ``work``."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()

        def then(result: Any, error: BaseException | None) -> None:
            settle(future, result, error)

        self.post(work, then, loop)
        return future

    def stop(self) -> None:
        """Run the jobs posted so far, then end the thread (waits for it)."""
        self._jobs.put(None)
        self._thread.join()

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            work, then, loop = job
            result: Any = None
            error: BaseException | None = None
            try:
                result = work()
            except BaseException as failure:  # told to the loop, which decides
                error = failure
            # (RuntimeError: the loop has closed, and nobody is left to tell)
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(then, result, error)
            # The error's traceback holds this frame, which holds the error: let go of both.
            del job, work, then, loop, result, error


def settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    """Give ``future`` its outcome, unless it has one (its waiter was cancelled)."""
    if future.done():
        return
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)

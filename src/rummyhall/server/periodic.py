"""Jobs the server runs every so often (purging sessions, settling league seasons, the cycle
collector's freezes), on its clock."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from rummyhall.server.clock import Clock

log = logging.getLogger(__name__)


class Periodic:
    """A job run every ``every_ms`` on the server's clock (so tests drive it with a fake one)."""

    def __init__(self, clock: Clock, every_ms: int, job: Callable[[], Awaitable[None]]) -> None:
        self.clock = clock
        self.job = job
        self.task: asyncio.Task[None] | None = None
        self.every_ms = max(1_000, every_ms)  # never a busy loop of jobs, whatever is set
        self.timer = clock.call_at(clock.now() + self.every_ms, self._fire)

    def _fire(self) -> None:
        if self.task is None or self.task.done():  # never two at once on a slow database
            self.task = asyncio.create_task(self._run())
        self.timer = self.clock.call_at(self.clock.now() + self.every_ms, self._fire)

    async def _run(self) -> None:
        try:
            await self.job()
        except Exception:
            log.exception("periodic job failed; it runs again next time")

    async def stop(self) -> None:
        self.timer.cancel()
        if self.task is not None:
            # Waited for: the database closes next, and the job must not outlive it.
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

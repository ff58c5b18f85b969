"""Time for the server, injected (DESIGN.md: timers run against an injected clock; tests use a
fake one). Times are wall-clock milliseconds, because game deadlines are stored in table logs and
must mean the same after a restart."""

from __future__ import annotations

import asyncio
import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> int:
        """The current time in ms."""
        ...

    async def sleep_until(self, when: int) -> None:
        """Return once :meth:`now` has reached ``when``."""
        ...


class SystemClock:
    def now(self) -> int:
        return time.time_ns() // 1_000_000

    async def sleep_until(self, when: int) -> None:
        delay = when - self.now()
        if delay > 0:
            await asyncio.sleep(delay / 1000)


class FakeClock:
    """A clock that moves only when a test calls :meth:`advance`."""

    def __init__(self, start: int = 1_700_000_000_000) -> None:
        self._now = start
        self._changed = asyncio.Event()

    def now(self) -> int:
        return self._now

    async def sleep_until(self, when: int) -> None:
        while self._now < when:
            self._changed.clear()
            await self._changed.wait()

    def advance(self, ms: int) -> None:
        self._now += ms
        self._changed.set()

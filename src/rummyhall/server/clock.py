"""Time for the server, injected (DESIGN.md: timers run against an injected clock; tests use a
fake one). Times are wall-clock milliseconds, because game deadlines are stored in table logs and
must mean the same after a restart."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable
from typing import Protocol


class Cancellable(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def now(self) -> int:
        """The current time in ms."""
        ...

    def call_at(self, when: int, callback: Callable[[], None]) -> Cancellable:
        """Call ``callback`` (in the event loop) once :meth:`now` has reached ``when``."""
        ...


class SystemClock:
    def now(self) -> int:
        return time.time_ns() // 1_000_000

    def call_at(self, when: int, callback: Callable[[], None]) -> Cancellable:
        delay = max(0, when - self.now()) / 1000
        return asyncio.get_running_loop().call_later(delay, callback)


class _FakeTimer:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """A clock that moves only when a test calls :meth:`advance`."""

    def __init__(self, start: int = 1_700_000_000_000) -> None:
        self._now = start
        self._timers: list[tuple[int, int, Callable[[], None], _FakeTimer]] = []
        self._order = itertools.count()

    def now(self) -> int:
        return self._now

    def call_at(self, when: int, callback: Callable[[], None]) -> Cancellable:
        timer = _FakeTimer()
        if when <= self._now:
            asyncio.get_running_loop().call_soon(callback)
        else:
            heapq.heappush(self._timers, (when, next(self._order), callback, timer))
        return timer

    def advance(self, ms: int) -> None:
        self._now += ms
        loop = asyncio.get_running_loop()
        while self._timers and self._timers[0][0] <= self._now:
            _, _, callback, timer = heapq.heappop(self._timers)
            if not timer.cancelled:
                loop.call_soon(callback)

"""When the cycle collector runs in a long-running room, and what it looks at.

CPython frees nearly everything by reference counting; its cycle collector is only needed for
objects that refer to each other in a ring. Measured at 1,000 tables (5,200 sockets; figures in
docs/operations.md, "The cycle collector"):

- the room holds some 750,000 objects the collector tracks, nearly all of them alive for
  minutes or hours: its tables, connections and their coroutines;
- steady play makes no reference cycles at all (none in 40 s of play at 1,000 tables), nor
  does a closed socket, a closed table or a refusal (tests/server/test_server_cycles.py);
- yet every collection of the older generations walks every one of those objects, with every
  table stopped: 0.6 s for a full collection at 1,000 tables.

So the long-lived objects are kept out of the collector's sight:

- every ``freeze_ms`` (2 s by default) the young and middle generations are collected (the
  objects made since the last time and still alive) and then everything alive is frozen
  (``gc.freeze``): no later collection looks at it. Such a collection walks more the longer the
  interval, since more of what was made is alive then: at 1,000 tables 30 ms every 2 s, 90 ms
  every 10 s, 135 ms every 60 s. Without these, in steady play, where allocations and frees
  balance, the young generation's count hardly grows while the generation fills with the
  tables' new state: its collections came once a minute and took 30-150 ms;
- every ``full_ms`` (an hour) everything is unfrozen and collected once, then frozen again. That
  is the one long pause, and it bounds what a cycle among frozen objects may keep: libraries
  may make some (uvicorn's HTTP protocol left one for every WebSocket, until the room's own
  broke it: server/http_protocol.py).

While it runs, CPython's automatic collections are off: each of them walked what the room made
since the last one, and the next freeze walks the survivors again (they are in the middle
generation by then). At the 400 ms stress those were 14 pauses of 38 ms in 40 s, next to the
freezes' own; what they would free sooner is only the few library cycles, which the next freeze
frees (at most ``freeze_ms`` later). With freezing switched off (``freeze_ms`` 0) the automatic
collections go on, with the thresholds :func:`tune` sets for a serving process.
"""

from __future__ import annotations

import gc

from rummyhall.server.clock import Clock
from rummyhall.server.periodic import Periodic

YOUNG_THRESHOLD = 10_000
"""Net allocations between two automatic collections of the young generation: they come when
the room grows (a crowd arriving, the 400 ms stress), and walk what it made since the last one,
at about 0.7 µs an object in a busy room (they lie all over the heap). At 50,000 they took
30-150 ms; at 10,000, 38 ms on average at the stress."""


def tune() -> None:
    """The collector's thresholds for a serving process (``rummyhall serve``): young collections
    every :data:`YOUNG_THRESHOLD` net allocations, the middle generation every 10 of them and the
    oldest as CPython decides (it holds only what survived since the last freeze)."""
    gc.set_threshold(YOUNG_THRESHOLD, 10, 10)


class Collector:
    """Freezes what survives every ``freeze_ms`` and collects everything every ``full_ms`` (see
    the module docstring), on the server's clock; :meth:`stop` unfreezes, leaving the process's
    collector as it was. ``freeze_ms`` 0: nothing is ever frozen."""

    def __init__(self, clock: Clock, freeze_ms: int, full_ms: int) -> None:
        self.clock = clock
        self.freeze_ms = freeze_ms
        self.full_ms = max(full_ms, freeze_ms)
        self.freezes = 0
        self.full_collections = 0
        self.last_full_ms = clock.now()
        self._periodic: Periodic | None = None
        self._automatic: bool | None = None
        """Whether CPython's automatic collections were on when this collector took over."""

    def start(self) -> None:
        if self.freeze_ms > 0:
            self._automatic = gc.isenabled()
            gc.disable()  # (see the module docstring: the freezes do the young collections)
            self._periodic = Periodic(self.clock, self.freeze_ms, self._tick)

    async def stop(self) -> None:
        if self._periodic is not None:
            await self._periodic.stop()
            self._periodic = None
        if self.freezes:
            gc.unfreeze()
        if self._automatic:
            gc.enable()
        self._automatic = None

    async def _tick(self) -> None:
        now = self.clock.now()
        if now - self.last_full_ms >= self.full_ms:
            gc.unfreeze()
            gc.collect()
            self.full_collections += 1
            self.last_full_ms = now
        else:
            gc.collect(1)
        gc.freeze()
        self.freezes += 1

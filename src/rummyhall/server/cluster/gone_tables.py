"""Table ids that surely name no open table, known without reading the database again (a node of
several; docs/cluster.md, "Reaching a table on another node").

A node looks a table it does not run up in Redis (its lease) and, when nobody holds it, in the
database (is it open, may it be taken over?). A client can ask for any id, many times a second:
without a memory, every bogus id would cost the room a database read. So:

* a closed table stays closed (no table is ever opened again): the closed ids asked for are
  remembered, the latest :data:`REMEMBERED` of them, and answered at once;
* an id above the highest table id the node has read is none, if nobody holds its lease (a
  table's node takes the lease before anyone hears of the table): the highest id is read again
  at most once every :data:`REREAD_S` (a table whose node died a moment ago is then found by
  the sweep instead, a ttl later).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable

REMEMBERED = 4_096
"""Closed table ids remembered (a few hundred KiB at most)."""
REREAD_S = 1.0
"""The highest table id is read again at most this often."""


class GoneTables:
    def __init__(
        self, highest: Callable[[], Awaitable[int]], now: Callable[[], float] = time.monotonic
    ) -> None:
        self._read_highest = highest
        """Reads the highest table id there is (0: none)."""
        self._now = now
        self._highest = 0
        self._read_at: float | None = None
        self._closed: OrderedDict[int, None] = OrderedDict()

    def known_closed(self, table_id: int) -> bool:
        if table_id not in self._closed:
            return False
        self._closed.move_to_end(table_id)
        return True

    def closed(self, table_id: int) -> None:
        """The table is closed (for good)."""
        self._closed[table_id] = None
        self._closed.move_to_end(table_id)
        while len(self._closed) > REMEMBERED:
            self._closed.popitem(last=False)

    async def beyond_the_last(self, table_id: int) -> bool:
        """Whether the id is above every table's (as read at most :data:`REREAD_S` ago)."""
        if table_id <= self._highest:
            return False
        now = self._now()
        if self._read_at is not None and now - self._read_at < REREAD_S:
            return True
        self._read_at = now
        self._highest = max(self._highest, await self._read_highest())
        return table_id > self._highest

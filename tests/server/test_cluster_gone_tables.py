"""A node of several answers a made-up or closed table id without reading the database each
time (server/cluster/gone_tables.py): the highest table id is read again at most once a second,
and only for an id above it; closed ids are remembered, the latest few thousand."""

from __future__ import annotations

from rummyhall.server.cluster.gone_tables import REMEMBERED, REREAD_S, GoneTables


class _Database:
    def __init__(self, highest: int) -> None:
        self.highest = highest
        self.reads = 0

    async def read_highest(self) -> int:
        self.reads += 1
        return self.highest


async def test_ids_above_the_last_cost_one_read_a_second() -> None:
    database, now = _Database(highest=10), [100.0]
    gone = GoneTables(database.read_highest, now=lambda: now[0])
    assert not await gone.beyond_the_last(7) and database.reads == 1  # (first look: read)
    assert not await gone.beyond_the_last(10)
    for _ in range(50):  # a client asking for made-up ids, fast
        assert await gone.beyond_the_last(11)
    assert database.reads == 1
    # Another node opens tables 11 and 12; a second later the id is read again.
    database.highest = 12
    assert await gone.beyond_the_last(12) and database.reads == 1
    now[0] += REREAD_S
    assert not await gone.beyond_the_last(12) and database.reads == 2
    assert not await gone.beyond_the_last(11) and database.reads == 2  # (below: no read)
    assert await gone.beyond_the_last(10**12) and database.reads == 2


async def test_closed_ids_are_remembered_within_a_bound() -> None:
    gone = GoneTables(_Database(highest=0).read_highest)
    assert not gone.known_closed(5)
    gone.closed(5)
    assert gone.known_closed(5)
    for table in range(1_000, 1_000 + REMEMBERED - 1):
        gone.closed(table)
    assert gone.known_closed(5)  # (asked for again just now: kept, the oldest other goes)
    gone.closed(99)
    assert gone.known_closed(5) and gone.known_closed(99) and not gone.known_closed(1_000)

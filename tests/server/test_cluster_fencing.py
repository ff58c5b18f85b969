"""The two halves of fencing together (issue 21): leases from a real Redis, tokens checked by the
database (SQLite and PostgreSQL). Node A owns a table and writes; it stops renewing (as a paused
node does) and its lease runs out; node B takes the table over the way docs/cluster.md plans it
(acquire above the database's token, raise the fence in a transaction of its own, then read the
log); A's late write is refused and changes nothing. In one process: the SIGSTOP test of the
issue will do the same with node processes."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from rummyhall.server.cluster.lease import Fence, TableLeases
from rummyhall.store import fences, tables
from rummyhall.store.database import Database
from rummyhall.store.fences import StaleLease

DEADLINE_S = 30.0


@pytest.fixture
async def leases(redis_url: str) -> AsyncIterator[TableLeases]:
    client = Redis.from_url(redis_url)
    yield TableLeases(client, prefix="fencing")
    await client.aclose()


async def _write(db: Database, fence: Fence, seq: int, kind: str) -> None:
    async with db.transaction() as session:
        await fences.check_and_raise(session, fence.table_id, fence.token)
        await tables.append_log(session, fence.table_id, seq, kind, {}, seq)


async def _take_over(db: Database, leases: TableLeases, table_id: int, node: str) -> Fence:
    async with db.read() as session:
        seen = await fences.current(session, table_id)
    token = await leases.acquire(table_id, node, 600.0, above=seen)
    assert token is not None
    fence = Fence(table_id, token)
    async with db.transaction() as session:  # fenced before anything is read or written
        await fences.check_and_raise(session, table_id, token)
    return fence


async def test_a_node_that_lost_its_lease_cannot_write(db: Database, leases: TableLeases) -> None:
    async with db.transaction() as session:
        table_id = await tables.create_table(session, game="indian13", room="fencing", config={})
    token_a = await leases.acquire(table_id, "node-a", 0.05)
    assert token_a is not None
    node_a = Fence(table_id, token_a)
    await _write(db, node_a, 1, "deal")
    # Node A is paused: it renews nothing, and its lease runs out in Redis.
    deadline = time.monotonic() + DEADLINE_S
    while await leases.owner(table_id) is not None:
        assert time.monotonic() < deadline, "the lease never expired"
        await asyncio.sleep(0.005)  # polling Redis's state, with a deadline
    node_b = await _take_over(db, leases, table_id, "node-b")
    assert node_b.token > node_a.token
    async with db.read() as session:
        replayed = await tables.read_log(session, table_id)
    assert [e.kind for e in replayed] == ["deal"]
    # A wakes up and writes what it had in hand: refused, nothing of it stays.
    with pytest.raises(StaleLease):
        await _write(db, node_a, 2, "late discard")
    assert not await leases.renew(table_id, "node-a", token_a, 600.0)
    await _write(db, node_b, 2, "draw")
    async with db.read() as session:
        assert [e.kind for e in await tables.read_log(session, table_id)] == ["deal", "draw"]


async def test_redis_that_forgot_its_counters_still_fences(
    db: Database, leases: TableLeases
) -> None:
    """Redis restarted empty: the next owner acquires above the database's token, so its
    writes pass and the owner before it stays fenced out."""
    async with db.transaction() as session:
        table_id = await tables.create_table(session, game="indian13", room="fencing", config={})
    first = await _take_over(db, leases, table_id, "node-a")
    second_token = await leases.acquire(table_id, "node-b", 600.0)
    assert second_token is None  # held
    await leases.redis.flushall()  # Redis lost everything, node-a is cut off
    second = await _take_over(db, leases, table_id, "node-b")
    assert second.token > first.token
    await _write(db, second, 1, "deal")
    with pytest.raises(StaleLease):
        await _write(db, first, 2, "late")

"""Fencing tokens in the database (rummyhall.store.fences; issue 21): a write whose lease token
is lower than the table has seen is refused and changes nothing, on SQLite and PostgreSQL, by
each road the table writer takes (a session, Database.write's plain connection, bulk steps)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest
from sqlalchemy import Connection, text

from rummyhall.store import fences, tables
from rummyhall.store.bulk import BulkError, Step
from rummyhall.store.database import Database
from rummyhall.store.fences import StaleLease
from rummyhall.store.tables import LogEntry

DEADLINE_S = 30.0


async def _table(db: Database) -> int:
    async with db.transaction() as session:
        return await tables.create_table(session, game="indian13", room="fences", config={})


async def _log(db: Database, table_id: int) -> list[tuple[int, str]]:
    async with db.read() as session:
        return [(e.seq, e.kind) for e in await tables.read_log(session, table_id)]


async def _token(db: Database, table_id: int) -> int:
    async with db.read() as session:
        return await fences.current(session, table_id)


async def test_tokens_only_go_up(db: Database) -> None:
    table_id = await _table(db)
    other = await _table(db)
    assert await _token(db, table_id) == 0
    async with db.transaction() as session:
        await fences.check_and_raise(session, table_id, 3)
    assert await _token(db, table_id) == 3
    async with db.transaction() as session:  # the same lease writes again: fine
        await fences.check_and_raise(session, table_id, 3)
        await fences.check_and_raise(session, table_id, 3)
    async with db.transaction() as session:  # a newer lease
        await fences.check_and_raise(session, table_id, 7)
    with pytest.raises(StaleLease) as refused:
        async with db.transaction() as session:
            await fences.check_and_raise(session, table_id, 6)
    assert (refused.value.table_id, refused.value.token, refused.value.current) == (table_id, 6, 7)
    assert "another node owns it" in str(refused.value)
    assert await _token(db, table_id) == 7
    # Tables are fenced apart: the other one has seen nothing.
    assert await _token(db, other) == 0
    async with db.transaction() as session:
        await fences.check_and_raise(session, other, 1)
    assert (await _token(db, table_id), await _token(db, other)) == (7, 1)


async def test_a_stale_write_is_refused_and_changes_nothing(db: Database) -> None:
    table_id = await _table(db)
    async with db.transaction() as session:
        await fences.check_and_raise(session, table_id, 5)
        await tables.append_log(session, table_id, 1, "deal", {"by": "new owner"}, 1_000)
    # The old owner's late batch: log rows first, then the check (the order must not matter).
    with pytest.raises(StaleLease):
        async with db.transaction() as session:
            await tables.append_log(session, table_id, 2, "discard", {"by": "old owner"}, 2_000)
            await fences.check_and_raise(session, table_id, 4)
    # And checked first, on a connection rather than a session.
    with pytest.raises(StaleLease):
        async with db.transaction() as session:
            conn = await session.connection()
            await fences.check_and_raise(conn, table_id, 2)
            await tables.append_log(session, table_id, 2, "discard", {"by": "old owner"}, 2_000)
    assert await _log(db, table_id) == [(1, "deal")]
    assert await _token(db, table_id) == 5
    # The owner goes on.
    async with db.transaction() as session:
        await fences.check_and_raise(session, table_id, 5)
        await tables.append_log(session, table_id, 2, "draw", {"by": "new owner"}, 3_000)
    assert await _log(db, table_id) == [(1, "deal"), (2, "draw")]


async def test_plain_connection_and_bulk_steps(db: Database) -> None:
    """The writer's roads: Database.write (a plain connection) and Database.write_steps."""
    table_id = await _table(db)

    def write(token: int, seq: int) -> Callable[[Connection], None]:
        def work(conn: Connection) -> None:
            fences.check_and_raise_sync(conn, table_id, token)
            tables.write_logs(conn, [LogEntry(table_id, seq, "plain", {}, seq)])

        return work

    await db.write(write(4, 1))
    with pytest.raises(StaleLease) as refused:
        await db.write(write(3, 2))
    assert refused.value.current == 4
    assert await _log(db, table_id) == [(1, "plain")]

    def steps(token: int, seq: int) -> list[Step]:
        return [
            fences.fence_step(table_id, token),
            *tables.log_steps([LogEntry(table_id, seq, "bulk", {}, seq)]),
        ]

    await db.write_steps(steps(4, 2))
    await db.write_steps(steps(6, 3))
    with pytest.raises(BulkError):
        await db.write_steps(steps(5, 4))
    assert await _log(db, table_id) == [(1, "plain"), (2, "bulk"), (3, "bulk")]
    assert await _token(db, table_id) == 6


async def _wait_until_blocked(db: Database) -> None:
    """PostgreSQL: until another backend waits for a lock (the refused writer, queued behind
    the fence row's lock). SQLite has one writer at a time; the second waits in this process."""
    if db.dialect != "postgresql":
        return
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        async with db.engine.connect() as conn:
            waiting = await conn.scalar(
                text(
                    "SELECT count(*) FROM pg_stat_activity "
                    "WHERE wait_event_type = 'Lock' AND datname = current_database()"
                )
            )
        if waiting:
            return
        await asyncio.sleep(0.01)  # polling the server's state, with a deadline
    raise AssertionError("the old owner's write never queued behind the new owner's")


async def test_a_late_writer_waits_for_the_new_owner_and_is_refused(db: Database) -> None:
    """The old owner's write arrives while the new owner's is in flight (not committed): it
    must not see the old token and slip in, but wait for the new one and be refused."""
    table_id = await _table(db)
    async with db.transaction() as session:
        await fences.check_and_raise(session, table_id, 3)
    checked = asyncio.Event()
    finish = asyncio.Event()

    async def new_owner() -> None:
        async with db.transaction() as session:
            await fences.check_and_raise(session, table_id, 4)
            await tables.append_log(session, table_id, 1, "takeover", {}, 1)
            checked.set()
            await finish.wait()

    async def old_owner() -> None:
        async with db.transaction() as session:
            await fences.check_and_raise(session, table_id, 3)
            await tables.append_log(session, table_id, 1, "late", {}, 1)

    owner = asyncio.create_task(new_owner())
    await checked.wait()
    late = asyncio.create_task(old_owner())
    await _wait_until_blocked(db)
    finish.set()
    await owner
    with pytest.raises(StaleLease):
        await late
    assert await _log(db, table_id) == [(1, "takeover")]
    assert await _token(db, table_id) == 4


async def test_tokens_are_positive(db: Database) -> None:
    table_id = await _table(db)
    with pytest.raises(ValueError, match="positive"):
        async with db.transaction() as session:
            await fences.check_and_raise(session, table_id, 0)
    with pytest.raises(ValueError, match="positive"):
        fences.fence_step(table_id, -1)

"""The table writer of one node of several (issue 21), on both databases: every table's rows
carry the table's fencing token, a table another node has taken over is refused and changes
nothing, and it never fails the other tables' actions that share its batch. A single process
writes no fence rows."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import Connection, select
from sqlalchemy.ext.asyncio import AsyncSession

from rummyhall.economy import ledger
from rummyhall.economy.audit import audit
from rummyhall.economy.bulk import Transfer
from rummyhall.server.writer import Writer
from rummyhall.store import fences, tables
from rummyhall.store.database import Database
from rummyhall.store.fences import StaleLease
from rummyhall.store.models import TableFenceModel
from rummyhall.store.tables import LogEntry


async def _seated(db: Database, count: int, chips: int) -> list[int]:
    async with db.transaction() as session:
        ids = [
            await tables.create_table(session, game="patti", room="r", config={})
            for _ in range(count)
        ]
        for table in ids:
            account = f"table:{table}:seat:1"
            await ledger.transfer(session, f"grant:{account}", [("mint", -chips), (account, chips)],
                                  kind="grant")  # fmt: skip
    return ids


def _move(table: int, seq: int, amount: int) -> Transfer:
    return Transfer(
        f"table:{table}:seq:{seq}",
        [(f"table:{table}:seat:1", -amount), (f"table:{table}:pot", amount)],
        "act",
        {"table": table, "seq": seq},
    )


async def _tokens(db: Database) -> dict[int, int]:
    async with db.read() as session:
        rows = await session.execute(select(TableFenceModel.table_id, TableFenceModel.token))
        return {int(table): int(token) for table, token in rows}


async def _taken_over(db: Database, table: int, token: int) -> None:
    """Another node takes the table over: it raises the fence in a transaction of its own."""
    async with db.transaction() as session:
        await fences.check_and_raise(session, table, token)


@pytest.mark.parametrize("with_work", [False, True], ids=["steps", "work"])
async def test_a_table_taken_over_fails_alone(db: Database, with_work: bool) -> None:
    ids = await _seated(db, 5, 100)
    stale = ids[2]
    writer = Writer(db, fenced=True)
    assert writer.tokens is not None
    writer.tokens.update(dict.fromkeys(ids, 7))
    told: list[tuple[int, int]] = []
    writer.on_stale = lambda table, token: told.append((table, token))
    writer.start()
    try:
        # One batch everyone shares, fenced with token 7.
        await asyncio.gather(
            *(
                writer.write(entry=LogEntry(t, 1, "act", {}, 0), transfer=_move(t, 1, 1))
                for t in ids
            )
        )
        assert await _tokens(db) == dict.fromkeys(ids, 7)
        await _taken_over(db, stale, 9)

        def work(conn: Connection) -> str:
            return "worked"

        # The next batch holds the stale table's action among the others'; by the hot path
        # (plain steps) or with work of a buy-in (the SQLAlchemy road).
        results = await asyncio.gather(
            *(
                writer.write(
                    entry=LogEntry(t, 2, "act", {}, 0),
                    transfer=_move(t, 2, 3),
                    work=work if with_work else None,
                )
                for t in ids
            ),
            return_exceptions=True,
        )
        for table, result in zip(ids, results, strict=True):
            if table == stale:
                assert isinstance(result, StaleLease)
                assert (result.token, result.current) == (7, 9)
            else:
                assert result == ("worked" if with_work else None)
        assert told == [(stale, 7)]
        assert stale not in writer.tokens
        # Nothing more is tried under that lease: refused before it reaches the database.
        with pytest.raises(StaleLease):
            await writer.write(entry=LogEntry(stale, 3, "late", {}, 0))

        async def close(session: AsyncSession) -> None:
            await tables.close_table(session, stale)

        with pytest.raises(StaleLease):
            await writer.run(close, table=stale)
    finally:
        await writer.stop()
    async with db.read() as session:
        for table in ids:
            log = await tables.read_log(session, table)
            if table == stale:
                assert [e.seq for e in log] == [1]  # the late write changed nothing
                assert await ledger.balance(session, f"table:{table}:seat:1") == 99
            else:
                assert [e.seq for e in log] == [1, 2]
                assert await ledger.balance(session, f"table:{table}:seat:1") == 96
        row = await tables.get_table(session, stale)
        assert row is not None and row.status == tables.OPEN
        report = await audit(session)
        assert report.ok, report
    assert await _tokens(db) == {**dict.fromkeys(ids, 7), stale: 9}


async def test_a_failing_job_among_fenced_ones_still_fails_alone(db: Database) -> None:
    """A batch that fails for another reason than a fence (an overdrawn seat) is committed one
    by one, each job still fenced."""
    ids = await _seated(db, 3, 10)
    writer = Writer(db, fenced=True)
    assert writer.tokens is not None
    writer.tokens.update(dict.fromkeys(ids, 3))
    writer.start()
    try:
        results: list[Any] = await asyncio.gather(
            writer.write(entry=LogEntry(ids[0], 1, "act", {}, 0), transfer=_move(ids[0], 1, 50)),
            writer.write(entry=LogEntry(ids[1], 1, "act", {}, 0), transfer=_move(ids[1], 1, 5)),
            writer.write(entry=LogEntry(ids[2], 1, "act", {}, 0), transfer=_move(ids[2], 1, 5)),
            return_exceptions=True,
        )
    finally:
        await writer.stop()
    assert isinstance(results[0], ledger.InsufficientChips)
    assert results[1:] == [None, None]
    assert await _tokens(db) == {ids[1]: 3, ids[2]: 3}


async def test_a_single_process_writes_no_fence_rows(db: Database) -> None:
    ids = await _seated(db, 2, 10)
    writer = Writer(db)
    writer.start()
    try:
        await asyncio.gather(
            *(
                writer.write(entry=LogEntry(t, 1, "act", {}, 0), transfer=_move(t, 1, 1))
                for t in ids
            )
        )
    finally:
        await writer.stop()
    assert await _tokens(db) == {}

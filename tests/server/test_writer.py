"""The log writer (rummyhall.server.writer) and its bulk statements, on both databases: jobs that
arrive together commit together, a bad job fails alone, and a batch writes exactly what the same
jobs would write one by one."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest
from sqlalchemy import Connection, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from rummyhall.economy import ledger
from rummyhall.economy.audit import audit
from rummyhall.economy.bulk import Transfer, transfer_steps, write_transfers
from rummyhall.economy.ledger import InsufficientChips
from rummyhall.server.writer import Writer
from rummyhall.store import tables
from rummyhall.store.database import Database
from rummyhall.store.models import LedgerPostingModel, LedgerTransactionModel
from rummyhall.store.tables import LogEntry


async def _tables(db: Database, count: int) -> list[int]:
    async with db.transaction() as session:
        return [
            await tables.create_table(session, game="patti", room="r", config={})
            for _ in range(count)
        ]


async def _seated(db: Database, count: int, chips: int) -> list[int]:
    """``count`` new tables, each with ``chips`` on its seat 1."""
    ids = await _tables(db, count)
    for table in ids:
        await _grant(db, f"table:{table}:seat:1", chips)
    return ids


async def _grant(db: Database, account: str, chips: int) -> None:
    async with db.transaction() as session:
        await ledger.transfer(session, f"grant:{account}", [("mint", -chips), (account, chips)],
                              kind="grant")  # fmt: skip


def _move(table: int, seq: int, amount: int) -> Transfer:
    return Transfer(
        f"table:{table}:seq:{seq}",
        [(f"table:{table}:seat:1", -amount), (f"table:{table}:pot", amount)],
        "act",
        {"table": table, "seq": seq},
    )


async def test_jobs_that_arrive_together_commit_together(db: Database) -> None:
    ids = await _seated(db, 20, 100)
    writer = Writer(db)
    writer.start()
    try:
        # Twenty tables, three actions each, every table waiting for its commit before the next.
        async def play(table: int) -> None:
            for seq in (1, 2, 3):
                await writer.write(
                    entry=LogEntry(table, seq, "act", {"seat": 1, "n": seq}, seq * 10),
                    transfer=_move(table, seq, seq),
                )

        await asyncio.gather(*(play(table) for table in ids))
    finally:
        await writer.stop()
    assert writer.jobs == 60
    assert writer.commits < 60  # shared commits
    async with db.read() as session:
        for table in ids:
            log = await tables.read_log(session, table)
            assert [(e.seq, e.body["n"], e.at) for e in log] == [(1, 1, 10), (2, 2, 20), (3, 3, 30)]
            assert await ledger.balance(session, f"table:{table}:pot") == 6
            assert await ledger.balance(session, f"table:{table}:seat:1") == 94
        report = await audit(session)
        assert report.ok, report


async def test_a_bad_job_fails_alone(db: Database) -> None:
    ids = await _seated(db, 6, 10)
    writer = Writer(db)
    writer.start()
    try:
        jobs: list[Any] = [
            writer.write(entry=LogEntry(t, 1, "act", {}, 0), transfer=_move(t, 1, 5)) for t in ids
        ]
        # One overdraws its seat; one writes a sequence number that exists already (after the
        # first commit); one runs plain work that raises.
        jobs.append(
            writer.write(entry=LogEntry(ids[0], 2, "act", {}, 0), transfer=_move(ids[0], 2, 50))
        )

        def broken(conn: Connection) -> None:
            raise ValueError("broken work")

        jobs.append(writer.write(work=broken, entry=LogEntry(ids[1], 2, "act", {}, 0)))
        results = await asyncio.gather(*jobs, return_exceptions=True)
        assert results[:6] == [None] * 6
        assert isinstance(results[6], InsufficientChips)
        assert isinstance(results[7], ValueError)
        with pytest.raises(tables.DuplicateLogEntry):
            await writer.write(entry=LogEntry(ids[2], 1, "again", {}, 0))
        # The same in a batch of plain actions (the hot path, straight to the driver): the
        # batch fails in the database, then each job on its own says what is wrong.
        plain = await asyncio.gather(
            writer.write(entry=LogEntry(ids[4], 2, "act", {}, 0), transfer=_move(ids[4], 2, 1)),
            writer.write(entry=LogEntry(ids[5], 2, "act", {}, 0), transfer=_move(ids[5], 2, 50)),
            writer.write(entry=LogEntry(ids[2], 1, "again", {}, 0)),
            writer.write(entry=LogEntry(ids[2], 2, "act", {}, 0)),
            return_exceptions=True,
        )
        assert plain[0] is None and plain[3] is None
        assert isinstance(plain[1], InsufficientChips)
        assert isinstance(plain[2], tables.DuplicateLogEntry)

        # The writer goes on after failures, and async jobs take their turn in order.
        async def operation(session: AsyncSession) -> str:
            return "done"

        done = await asyncio.gather(
            writer.write(entry=LogEntry(ids[3], 2, "act", {}, 0), transfer=_move(ids[3], 2, 5)),
            writer.run(operation),
            writer.write(entry=LogEntry(ids[3], 3, "act", {}, 0)),
        )
        assert done == [None, "done", None]
    finally:
        await writer.stop()
    async with db.read() as session:
        assert [e.seq for e in await tables.read_log(session, ids[0])] == [1]
        assert [e.seq for e in await tables.read_log(session, ids[1])] == [1]
        assert [e.seq for e in await tables.read_log(session, ids[3])] == [1, 2, 3]
        assert [e.seq for e in await tables.read_log(session, ids[2])] == [1, 2]
        assert [e.seq for e in await tables.read_log(session, ids[5])] == [1]
        assert await ledger.balance(session, f"table:{ids[4]}:seat:1") == 4
        assert await ledger.balance(session, f"table:{ids[0]}:seat:1") == 5
        assert await ledger.balance(session, f"table:{ids[3]}:seat:1") == 0
        report = await audit(session)
        assert report.ok, report


async def test_a_batch_writes_what_the_transfers_write_one_by_one(db: Database) -> None:
    """write_transfers (one batch) and transfer_on (one at a time) leave the same balances and
    the same postings, in order; an overdraft anywhere fails the whole batch and leaves no
    trace."""
    rng = random.Random(7)
    accounts = [f"player:{n}" for n in range(1, 9)] + ["house"]
    for account in accounts:
        await _grant(db, account, 1_000)
    batch = []
    for n in range(60):
        payer, payee = rng.sample(accounts, 2)
        legs = [(payer, -rng.randint(1, 30)), (payee, 0)]
        legs[1] = (payee, -legs[0][1])
        if rng.random() < 0.3:  # several legs, one account twice, a zero leg
            third = rng.choice(accounts)
            legs += [(third, 5), (payer, -5), ("house", 0)]
        memo = None if n % 3 == 0 else {"n": n, "who": "Zoë"}
        batch.append(Transfer(f"bulk:{n}", legs, "test", memo))

    def bulk(conn: Connection) -> None:
        write_transfers(conn, batch)

    def one_by_one(conn: Connection) -> None:
        for t in batch:
            assert ledger.transfer_on(conn, "single:" + t.key, t.postings, kind=t.kind, memo=t.memo)

    async def snapshot(prefix: str) -> tuple[dict[str, int], list[tuple[Any, ...]]]:
        async with db.read() as session:
            balances = {a: await ledger.balance(session, a) for a in accounts}
            rows = await session.execute(
                select(
                    LedgerTransactionModel.key,
                    LedgerTransactionModel.kind,
                    LedgerTransactionModel.memo,
                    LedgerPostingModel.account,
                    LedgerPostingModel.amount,
                )
                .join(LedgerPostingModel)
                .where(LedgerTransactionModel.key.startswith(prefix))
                .order_by(LedgerPostingModel.id)
            )
            postings = [(key.removeprefix(prefix), *rest) for key, *rest in rows]
            return balances, postings

    before = await snapshot("bulk:")
    await db.write(bulk)
    after_bulk = await snapshot("bulk:")
    await db.write(one_by_one)
    after_single = await snapshot("single:bulk:")
    moved = {a: after_bulk[0][a] - before[0][a] for a in accounts}
    assert moved == {a: after_single[0][a] - after_bulk[0][a] for a in accounts}
    assert after_bulk[1] == after_single[1]
    assert len(after_bulk[1]) == sum(1 for t in batch for _, amount in t.postings if amount)

    # The writer's hot path (the statements straight to the driver) writes the same, with the
    # same timestamps as SQLAlchemy's.
    committed: list[bool] = []
    steps = transfer_steps([replace(t, key="steps:" + t.key) for t in batch])
    await db.write_steps(steps, lambda: committed.append(True))
    after_steps = await snapshot("steps:bulk:")
    assert committed == [True]
    assert {a: after_steps[0][a] - after_single[0][a] for a in accounts} == moved
    assert after_steps[1] == after_single[1]
    async with db.read() as session:
        stamps = {
            key.split(":")[0]: at
            for key, at in await session.execute(
                select(LedgerTransactionModel.key, LedgerTransactionModel.created_at).where(
                    LedgerTransactionModel.key.in_(["bulk:1", "steps:bulk:1"])
                )
            )
        }
    assert stamps["bulk"] <= stamps["steps"] <= datetime.now(UTC)
    assert stamps["steps"] - stamps["bulk"] < timedelta(minutes=1)

    # An overdraft in the middle of a batch: nothing of the batch is written.
    poor = [Transfer("poor:1", [("player:1", -1), ("player:2", 1)], "test"),
            Transfer("poor:2", [("player:3", -10**6), ("player:4", 10**6)], "test")]  # fmt: skip
    with pytest.raises(IntegrityError):
        await db.write(lambda conn: write_transfers(conn, poor))
    assert await snapshot("poor:") == (after_steps[0], [])
    # (the drivers' own errors: the hot path does not go through SQLAlchemy)
    with pytest.raises((sqlite3.IntegrityError, asyncpg.IntegrityConstraintViolationError)):
        await db.write_steps(transfer_steps(poor))
    assert await snapshot("poor:") == (after_steps[0], [])
    async with db.read() as session:
        report = await audit(session)
        assert report.ok, report

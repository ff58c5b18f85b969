"""The log writer (rummyhall.server.writer) and its bulk statements, on both databases: jobs that
arrive together commit together, a bad job fails alone, and a batch writes exactly what the same
jobs would write one by one."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from collections.abc import Sequence
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
from rummyhall.economy.flows import game_flows
from rummyhall.economy.ledger import InsufficientChips
from rummyhall.server.writer import Writer
from rummyhall.store import tables
from rummyhall.store.accounts import create_bot
from rummyhall.store.database import Database
from rummyhall.store.models import (
    ChipFlowModel,
    HandModel,
    LedgerPostingModel,
    LedgerTransactionModel,
)
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


async def test_shared_work_runs_once_for_the_jobs_of_a_batch(db: Database) -> None:
    """Jobs that share work (a burst of sign-ups) have it run once for all of them, with their
    items in order, each getting its own item's result; when it fails, each job runs again alone
    and only the bad one fails."""
    ids = await _seated(db, 2, 10)
    calls: list[list[Any]] = []

    def double(conn: Connection, items: Sequence[Any]) -> list[Any]:
        calls.append(list(items))
        if "bad" in items:
            raise ValueError("a bad item")
        return [item * 2 for item in items]

    def count(conn: Connection, items: Sequence[Any]) -> list[Any]:
        calls.append(["count", *items])
        return [len(items)] * len(items)

    writer = Writer(db)
    writer.start()
    try:
        done = await asyncio.gather(
            writer.write(shared=(double, 1)),
            writer.write(shared=(count, "x")),
            writer.write(
                shared=(double, 2), entry=LogEntry(ids[0], 1, "act", {}, 0),
                transfer=_move(ids[0], 1, 5),
            ),
            writer.write(shared=(double, 3)),
        )  # fmt: skip
        assert done == [2, 1, 4, 6]
        assert calls == [[1, 2, 3], ["count", "x"]]
        calls.clear()
        failed = await asyncio.gather(
            writer.write(shared=(double, 4)),
            writer.write(shared=(double, "bad"), entry=LogEntry(ids[1], 1, "lost", {}, 0)),
            writer.write(shared=(double, 5), entry=LogEntry(ids[1], 1, "act", {}, 0)),
            return_exceptions=True,
        )
        assert failed[0] == 8 and failed[2] == 10 and isinstance(failed[1], ValueError)
        assert calls == [[4, "bad", 5], [4], ["bad"], [5]]
        assert writer.commits == 3  # the first batch, then 4 and 5 alone: nothing of the bad one
    finally:
        await writer.stop()
    async with db.read() as session:
        assert [e.kind for e in await tables.read_log(session, ids[0])] == ["act"]
        assert [e.kind for e in await tables.read_log(session, ids[1])] == ["act"]
        assert await ledger.balance(session, f"table:{ids[0]}:seat:1") == 5


async def test_an_unread_transfer_the_ledger_refuses_costs_its_batch_one_more_commit(
    db: Database,
) -> None:
    """A transfer sent without reading the balance it spends (``unread``: a top-up the wallet
    covered when last seen) fails its batch when the balance no longer covers it: it is retried
    alone, with the ledger's own refusal, and the rest of the batch commits together again,
    not one job at a time."""
    ids = await _seated(db, 10, 10)
    writer = Writer(db)
    writer.start()
    try:
        results = await asyncio.gather(
            *(
                writer.write(entry=LogEntry(t, 1, "act", {}, 0), transfer=_move(t, 1, 5))
                for t in ids[:9]
            ),
            writer.write(
                entry=LogEntry(ids[9], 1, "top_up", {}, 0),
                transfer=_move(ids[9], 1, 50),
                unread=True,
            ),
            return_exceptions=True,
        )
    finally:
        await writer.stop()
    assert results[:9] == [None] * 9
    assert isinstance(results[9], InsufficientChips)
    assert writer.commits == 1 and writer.jobs == 9  # the nine together, once
    async with db.read() as session:
        for table in ids[:9]:
            assert [e.seq for e in await tables.read_log(session, table)] == [1]
            assert await ledger.balance(session, f"table:{table}:seat:1") == 5
        assert await tables.read_log(session, ids[9]) == []
        assert await ledger.balance(session, f"table:{ids[9]}:seat:1") == 10
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


async def test_games_that_end_in_a_batch_are_stored_with_their_players_and_flows(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A finished game's record, players and chip flows go with the log entry that ended it:
    in the batch's bulk statements, straight to the driver (no SQLAlchemy work), each finding
    its hand by (table, seq); when the batch fails, each job on its own stores its game or
    nothing."""
    async with db.transaction() as session:
        people = [(await create_bot(session, f"player-{n}")).id for n in range(3)]
    ids = await _seated(db, 5, 100)
    roads: list[str] = []
    for name in ("write", "write_steps"):
        road = getattr(db, name)

        def spy(*args: Any, _road: Any = road, _name: str = name, **kwargs: Any) -> Any:
            roads.append(_name)
            return _road(*args, **kwargs)

        monkeypatch.setattr(db, name, spy)

    def ended(table: int, seq: int, amount: int) -> dict[str, Any]:
        players = {1: people[0], 2: people[1], 3: people[2]}
        return {
            "entry": LogEntry(table, seq, "act", {"seat": 1}, seq),
            "transfer": _move(table, seq, amount),
            "hand": tables.FinishedHand(table, seq, "patti", {"table": table}, players, 1),
            "flows": game_flows(
                currency="chips",
                table_id=table,
                seq=seq,
                private=table == ids[0],
                players=players,
                nets={1: -amount, 2: amount - 1, 3: 1},
            ),
        }

    writer = Writer(db)
    writer.start()
    try:
        await asyncio.gather(*(writer.write(**ended(t, 1, 10)) for t in ids))
        assert set(roads) == {"write_steps"}
        # A batch with an overdraft in it: it fails as a whole, then job by job.
        results = await asyncio.gather(
            writer.write(**ended(ids[0], 2, 5)),
            writer.write(**ended(ids[1], 2, 500)),
            writer.write(**ended(ids[2], 2, 5)),
            return_exceptions=True,
        )
    finally:
        await writer.stop()
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], InsufficientChips)
    async with db.read() as session:
        stored = {
            (h.table_id, h.seq): h.id
            for h in await session.execute(select(HandModel.table_id, HandModel.seq, HandModel.id))
        }
        assert set(stored) == {(t, 1) for t in ids} | {(ids[0], 2), (ids[2], 2)}
        for (table, _), hand_id in stored.items():
            hand = await tables.get_hand(session, hand_id)
            assert hand is not None
            assert (hand.record, hand.players, hand.seq_start) == (
                {"table": table}, {1: people[0], 2: people[1], 3: people[2]}, 1
            )  # fmt: skip
        flows = sorted(
            (row.hand_id, row.table_id, row.payer, row.payee, row.amount, row.private)
            for row in await session.scalars(select(ChipFlowModel))
        )
        amounts = {1: 10, 2: 5}
        assert flows == sorted(
            (hand_id, table, people[0], payee, amount, table == ids[0])
            for (table, seq), hand_id in stored.items()
            for payee, amount in ((people[1], amounts[seq] - 1), (people[2], 1))
        )
        report = await audit(session)
        assert report.ok, report

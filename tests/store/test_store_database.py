"""The database handle: migrations, SQLite settings, transactions, on both databases."""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import stat
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from importlib.resources import files
from pathlib import Path
from typing import Any

import anyio
import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Connection, inspect, text
from sqlalchemy.exc import IntegrityError, OperationalError

import pg
from rummyhall.economy import ledger
from rummyhall.economy.audit import audit
from rummyhall.store import database, tables
from rummyhall.store.database import Database, DatabaseError, default_url, head_revision
from rummyhall.store.models import Base
from rummyhall.store.tables import LogEntry

TABLES = {
    "accounts",
    "auth_sessions",
    "ledger_accounts",
    "ledger_transactions",
    "ledger_postings",
    "game_tables",
    "table_log",
    "table_fences",
    "hands",
    "hand_players",
    "table_grants",
    "chip_flows",
    "progress",
    "board_lines",
    "league_players",
    "league_seasons",
    "league_outcomes",
    "achievements",
    "invites",
}


async def test_fresh_database_upgrades_to_head(db_url: str) -> None:
    db = await Database.open(db_url, migrate=False)
    try:
        assert await db.revision() is None
        await db.migrate()
        assert await db.revision() == head_revision() == "0008"
        async with db.engine.connect() as conn:
            names = await conn.run_sync(lambda sync: set(inspect(sync).get_table_names()))
        assert names == TABLES | {"alembic_version"}
    finally:
        await db.close()


def _migrate_to(revision: str) -> Any:
    def run(sync: Connection) -> None:
        config = database.alembic_config()
        config.attributes["connection"] = sync
        if revision == "head" or revision > (
            MigrationContext.configure(sync).get_current_revision() or ""
        ):
            command.upgrade(config, revision)
        else:
            command.downgrade(config, revision)

    return run


async def test_upgrade_to_0003_keeps_the_ledger(db_url: str) -> None:
    # A database of the previous version, with chips in it: 0003 rebuilds ledger_accounts on
    # SQLite (the postings refer to it) to let the practice mint go below zero.
    db = await Database.open(db_url, migrate=False)
    try:
        async with db.engine.begin() as conn:
            await conn.run_sync(_migrate_to("0002"))
        async with db.transaction() as session:
            await ledger.transfer(session, "k", [("mint", -50), ("player:1", 50)], kind="test")
            with pytest.raises(IntegrityError):  # (the old constraint, straight in SQL)
                async with session.begin_nested():
                    await session.execute(
                        text("INSERT INTO ledger_accounts VALUES ('mint:practice', -1)")
                    )
        await db.migrate()
        assert await db.revision() == head_revision()
        async with db.transaction() as session:
            assert await ledger.balance(session, "player:1") == 50
            await ledger.transfer(
                session, "p", [("mint:practice", -7), ("practice:1", 7)], kind="test"
            )
            assert await ledger.balance(session, "mint:practice") == -7
            assert (await audit(session)).ok
            # Still refused: any other account below zero, and postings to no account.
            for statement in (
                "INSERT INTO ledger_accounts VALUES ('mintx', -1)",
                "INSERT INTO ledger_postings (transaction_id, account, amount) "
                "SELECT id, 'nobody', 1 FROM ledger_transactions WHERE key = 'k'",
            ):
                with pytest.raises(IntegrityError):
                    async with session.begin_nested():
                        await session.execute(text(statement))
        async with db.engine.connect() as conn:
            assert await conn.run_sync(_differences) == []
        # And back, once the practice chips are gone.
        async with db.transaction() as session:
            await session.execute(
                text("DELETE FROM ledger_postings WHERE account LIKE '%practice%'")
            )
            await session.execute(text("DELETE FROM ledger_accounts WHERE name LIKE '%practice%'"))
        async with db.engine.begin() as conn:
            await conn.run_sync(_migrate_to("0002"))
        async with db.read() as session:
            assert await ledger.balance(session, "player:1") == 50
    finally:
        await db.close()


async def test_opening_twice_is_a_no_op(db_url: str) -> None:
    first = await Database.open(db_url)
    async with first.transaction() as session:
        await ledger.transfer(session, "k", [("mint", -5), ("house", 5)], kind="test")
    await first.close()
    second = await Database.open(db_url)
    try:
        assert await second.revision() == head_revision()
        async with second.read() as session:
            assert await ledger.balance(session, "house") == 5
    finally:
        await second.close()


async def test_concurrent_opens_of_a_fresh_database(db_url: str) -> None:
    # Two servers starting at once on an empty database: one migrates, the other waits.
    dbs = await asyncio.gather(Database.open(db_url), Database.open(db_url))
    try:
        for db in dbs:
            assert await db.revision() == head_revision()
    finally:
        for db in dbs:
            await db.close()


async def test_a_new_file_being_switched_to_wal_by_another_connection_is_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deadlock of two connections switching a new file to WAL, made certain: another
    connection holds the write lock of the empty file while ours reads its header. SQLite answers
    ours "busy" without waiting; the open lets go, pauses and tries again, and the other
    connection lets its lock go during that pause."""
    path = tmp_path / "data" / "rummyhall.db"
    path.parent.mkdir()
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    pauses: list[float] = []
    pause = database._pause

    def pause_and_let_go(seconds: float, *, on_loop: bool) -> None:
        if other.in_transaction:
            other.execute("COMMIT")
        pauses.append(seconds)
        pause(seconds, on_loop=on_loop)

    monkeypatch.setattr(database, "_pause", pause_and_let_go)
    try:
        db = await Database.open(default_url(tmp_path / "data"))
    finally:
        other.close()
    try:
        assert pauses, "the open never met the other connection's lock"
        assert await db.revision() == head_revision()
        async with db.read() as session:
            assert (await session.execute(text("PRAGMA journal_mode"))).scalar_one() == "wal"
    finally:
        await db.close()


def _differences(sync: Connection) -> list[Any]:
    context = MigrationContext.configure(sync, opts={"compare_type": True})
    return list(compare_metadata(context, Base.metadata))


async def test_models_and_migrations_agree(db: Database) -> None:
    async with db.engine.connect() as conn:
        assert await conn.run_sync(_differences) == []


def test_migrations_ship_inside_the_package() -> None:
    folder = files("rummyhall.store") / "migrations"
    assert (folder / "env.py").is_file()
    assert (folder / "script.py.mako").is_file()
    assert (folder / "versions" / "0001_initial.py").is_file()


async def test_sqlite_settings(tmp_path: Path) -> None:
    db = await Database.open(default_url(tmp_path / "data"))
    try:
        assert (tmp_path / "data" / "rummyhall.db").exists()
        async with db.read() as session:
            values = [
                (await session.execute(text(f"PRAGMA {name}"))).scalar_one()
                for name in (
                    "journal_mode", "synchronous", "foreign_keys", "busy_timeout",
                    "wal_autocheckpoint",
                )
            ]  # fmt: skip
        # synchronous 2 = FULL; no checkpoint inside a commit (store/checkpoints.py)
        assert values == ["wal", 2, 1, 10_000, 0]
    finally:
        await db.close()


async def test_the_write_ahead_log_is_checkpointed_off_the_writers_path(tmp_path: Path) -> None:
    """No connection checkpoints in a commit; the Database's own thread copies the log back into
    the file (every second), so the log does not grow for ever."""
    db = await Database.open(default_url(tmp_path / "data"))
    try:
        checkpointer = db._checkpointer
        assert checkpointer is not None
        rows = [LogEntry(1, n, "act", {"pad": "x" * 2000}, n) for n in range(1, 3001)]
        async with db.transaction() as session:
            table = await tables.create_table(session, game="patti", room="r", config={})
        for start in range(0, len(rows), 100):  # 3,000 entries: well past 1,000 pages of log
            batch = [replace(e, table_id=table) for e in rows[start : start + 100]]
            await db.write(lambda conn, batch=batch: tables.write_logs(conn, batch))
        runs = checkpointer.runs
        deadline = time.monotonic() + 30
        # One that may have begun before the last write, and one after it.
        while checkpointer.runs < runs + 2:
            assert time.monotonic() < deadline, "no checkpoint ran"
            await asyncio.sleep(0.05)
        assert checkpointer.last is not None
        _, pages, copied = checkpointer.last
        assert copied == pages > 0  # every page of the log is in the file
    finally:
        await db.close()


async def test_a_lookup_while_the_writer_commits(tmp_path: Path) -> None:
    """read_now runs on a connection other than the writer's, which is inside a transaction
    until its COMMIT has run on the commit thread; a lookup meanwhile sees what was committed
    before. (A writer's engine of one connection shared with read_now failed here: "cannot start
    a transaction within a transaction".)"""
    db = await Database.open(default_url(tmp_path / "data"))
    try:
        async with db.transaction() as session:
            table = await tables.create_table(session, game="patti", room="r", config={})
        thread = db._batch_thread
        assert thread is not None
        hold = threading.Event()
        thread.post(hold.wait, lambda *_: None, asyncio.get_running_loop())  # the COMMIT queues
        worked = asyncio.Event()

        def work(conn: Connection) -> None:
            tables.write_logs(conn, [LogEntry(table, 1, "act", {}, 1)])
            worked.set()

        def count(conn: Connection) -> int:
            return int(conn.execute(text("SELECT count(*) FROM table_log")).scalar_one())

        writing = asyncio.create_task(db.write(work))
        try:
            await worked.wait()
            assert await db.read_now(count) == 0  # (not committed yet)
        finally:
            hold.set()
            await writing
        assert await db.read_now(count) == 1
    finally:
        await db.close()


def test_default_url_creates_the_folder(tmp_path: Path) -> None:
    url = default_url(tmp_path / "a" / "b")
    assert (tmp_path / "a" / "b").is_dir()
    assert url == f"sqlite+aiosqlite:///{tmp_path / 'a' / 'b' / 'rummyhall.db'}"


async def test_plain_urls_mean_the_async_drivers(tmp_path: Path) -> None:
    db = await Database.open(f"sqlite:///{tmp_path / 'plain.db'}")
    try:
        assert db.dialect == "sqlite"
        assert db.engine.url.drivername == "sqlite+aiosqlite"
    finally:
        await db.close()


@pytest.mark.parametrize("url", ["mysql://localhost/x", "not a url", "oracle+cx://u@h/db"])
async def test_unsupported_urls_are_refused(url: str) -> None:
    with pytest.raises(DatabaseError):
        await Database.open(url)


async def test_transaction_commits_or_rolls_back(db: Database) -> None:
    async with db.transaction() as session:
        await ledger.transfer(session, "a", [("mint", -10), ("house", 10)], kind="test")
    with pytest.raises(RuntimeError):
        async with db.transaction() as session:
            await ledger.transfer(session, "b", [("mint", -7), ("house", 7)], kind="test")
            raise RuntimeError("boom")
    async with db.read() as session:
        assert await ledger.balance(session, "house") == 10
        assert not await ledger.transaction_exists(session, "b")


async def test_a_session_may_commit_and_go_on(db: Database) -> None:
    # On SQLite the write lock is released at each commit and taken again by the next
    # statement; a second transaction in the same block must not wait for itself.
    async with db.transaction() as session:
        await ledger.transfer(session, "a", [("mint", -1), ("house", 1)], kind="test")
        await session.commit()
        await ledger.transfer(session, "b", [("mint", -1), ("house", 1)], kind="test")
    async with db.read() as session:
        assert await ledger.balance(session, "house") == 2


async def test_read_sessions_change_nothing(db: Database) -> None:
    async with db.read() as session:
        await ledger.transfer(session, "a", [("mint", -1), ("house", 1)], kind="test")
    async with db.read() as session:
        assert await ledger.balance(session, "house") == 0


async def test_reads_do_not_wait_for_a_writer(db: Database) -> None:
    async with db.transaction() as session:
        await ledger.transfer(session, "a", [("mint", -1), ("house", 1)], kind="test")
        # A write transaction is open and holds the (SQLite) write lock: a reader still gets
        # the last committed state at once.
        async with db.read() as reader:
            assert await asyncio.wait_for(ledger.balance(reader, "house"), 5) == 0


async def test_a_nested_write_transaction_is_an_error_on_sqlite(tmp_path: Path) -> None:
    db = await Database.open(default_url(tmp_path))
    try:
        async with db.transaction() as outer:
            await ledger.transfer(outer, "a", [("mint", -1), ("house", 1)], kind="test")
            with pytest.raises(DatabaseError, match="already has a write transaction"):
                async with db.transaction() as inner:
                    await ledger.balance(inner, "house")
        async with db.read() as session:
            assert await ledger.balance(session, "house") == 1
    finally:
        await db.close()


@pytest.fixture
async def two_processes(tmp_path: Path) -> AsyncIterator[tuple[Database, Database]]:
    """Two Database objects on one SQLite file, standing in for two processes: each has its own
    write lock, and they meet only at SQLite's file lock."""
    url = default_url(tmp_path)
    first, second = await Database.open(url), await Database.open(url)
    yield first, second
    await first.close()
    await second.close()


async def test_two_processes_share_a_sqlite_file(two_processes: tuple[Database, Database]) -> None:
    # They take turns through SQLite's file lock and busy timeout, and no chip is lost.
    first, second = two_processes
    async with first.transaction() as session:
        await ledger.transfer(session, "fund", [("mint", -1000), ("player:1", 1000)], kind="test")

    async def spend(db: Database, n: int) -> bool:
        try:
            async with db.transaction() as session:
                return await ledger.transfer(
                    session, f"spend:{n}", [("player:1", -150), ("house", 150)], kind="test"
                )
        except ledger.InsufficientChips:
            return False

    results = await asyncio.gather(*(spend(first if n % 2 else second, n) for n in range(20)))
    assert results.count(True) == 6
    async with second.read() as session:
        assert await ledger.balance(session, "player:1") == 100


async def test_a_cancelled_writer_gives_the_write_lock_back(db: Database) -> None:
    # Starlette cancels a request handler whose client went away with an anyio cancel scope,
    # which cancels every await that follows, the clean-up's included. The transaction must
    # still end and (on SQLite) give the write lock back, or every later writer would wait.
    started = asyncio.Event()
    scope = anyio.CancelScope()

    async def writer() -> None:
        with scope:
            async with db.transaction() as session:
                await ledger.transfer(session, "a", [("mint", -1), ("house", 1)], kind="test")
                started.set()
                await anyio.sleep_forever()

    task = asyncio.create_task(writer())
    await started.wait()
    scope.cancel()
    await task
    async with asyncio.timeout(10), db.transaction() as session:
        await ledger.transfer(session, "b", [("mint", -2), ("house", 2)], kind="test")
    async with db.read() as session:
        assert await ledger.balance(session, "house") == 2  # the cancelled one rolled back


async def test_write_commits_plain_work_or_rolls_it_back(db: Database) -> None:
    """Database.write runs plain code on a connection in one transaction (on SQLite in the
    loop's thread, with the COMMIT on the database's thread): committed when it returns, gone if
    it raises; writers queue."""

    def grant(conn: Connection, name: str, amount: int) -> int:
        ledger.transfer_on(conn, f"grant:{name}", [("mint", -amount), (name, amount)], kind="t")
        return ledger.balance_on(conn, name)

    told: list[int] = []
    assert await db.write(lambda conn: grant(conn, "player:1", 50), on_commit=told.append) == 50
    assert told == [50]  # told of the commit (in the event loop) before write() returned

    def fails(conn: Connection) -> None:
        grant(conn, "player:2", 70)
        raise RuntimeError("changed my mind")

    with pytest.raises(RuntimeError):
        await db.write(fails, on_commit=told.append)
    assert told == [50]
    # Several writers at once (and an async transaction among them) all land, one at a time.
    results = await asyncio.gather(
        *(db.write(lambda conn, n=n: grant(conn, f"player:{n}", n)) for n in range(3, 13))
    )
    assert results == list(range(3, 13))
    async with db.read() as session:
        assert await ledger.balance(session, "player:1") == 50
        assert await ledger.balance(session, "player:2") == 0
        assert not await ledger.transaction_exists(session, "grant:player:2")
        assert await ledger.balance(session, "mint") == -50 - sum(range(3, 13))


async def test_a_write_cancelled_while_waiting_for_another_process(
    two_processes: tuple[Database, Database],
) -> None:
    # Another process (a second Database here) holds SQLite's file lock, so the batch's BEGIN
    # waits on the database thread. The caller gives up meanwhile: its work never runs, the
    # connection is closed only after that BEGIN is over, and the next write goes through.
    mine, other = two_processes
    ran: list[str] = []

    def grant(conn: Connection, key: str) -> None:
        ran.append(key)
        ledger.transfer_on(conn, key, [("mint", -5), ("house", 5)], kind="t")

    entered, leave = asyncio.Event(), asyncio.Event()

    async def hold_the_file_lock() -> None:
        async with other.transaction() as session:
            await ledger.transfer(session, "other", [("mint", -1), ("house", 1)], kind="t")
            entered.set()
            await leave.wait()

    holder = asyncio.create_task(hold_the_file_lock())
    await entered.wait()
    waiting = asyncio.create_task(mine.write(lambda conn: grant(conn, "cancelled")))
    await asyncio.sleep(0.2)
    assert not waiting.done()  # BEGIN waits for the other process; the loop does not
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    leave.set()
    await holder
    async with asyncio.timeout(10):
        await mine.write(lambda conn: grant(conn, "next"))
    assert ran == ["next"]
    async with mine.read() as session:
        assert await ledger.balance(session, "house") == 6
        assert not await ledger.transaction_exists(session, "cancelled")


async def test_a_write_that_cannot_begin_fails_and_the_next_one_may_try(
    two_processes: tuple[Database, Database], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another process keeps SQLite's file lock past the busy timeout: the write fails with the
    # database's error and gives the process's lock back at once, so the same task may try
    # again straight away (the writer retries a failed batch job by job).
    monkeypatch.setattr(database, "SQLITE_BUSY_TIMEOUT_MS", 100)
    mine, other = two_processes

    def grant(conn: Connection) -> None:
        ledger.transfer_on(conn, "mine", [("mint", -5), ("house", 5)], kind="t")

    async with other.transaction() as session:
        await ledger.transfer(session, "other", [("mint", -1), ("house", 1)], kind="t")
        for _ in range(2):
            with pytest.raises(OperationalError, match="locked"):
                await mine.write(grant)
    await mine.write(grant)
    async with mine.read() as session:
        assert await ledger.balance(session, "house") == 6


async def test_the_sqlite_file_is_its_owners_alone(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """It holds password and session hashes and the seeds of deals in play: the folder is made
    0700 and the file 0600 (its -wal and -shm files follow the file), and a file an operator
    left open to others is reported at every start, not changed behind their back."""
    data = tmp_path / "data"
    url = default_url(data)
    db = await Database.open(url)
    try:
        files_now = [data / "rummyhall.db", *data.glob("rummyhall.db-*")]
        assert len(files_now) >= 2  # the database and its write-ahead log, while open
        assert {path.name: stat.S_IMODE(path.stat().st_mode) for path in files_now} == {
            path.name: 0o600 for path in files_now
        }
    finally:
        await db.close()
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert "open to other local users" not in caplog.text

    os.chmod(data / "rummyhall.db", 0o644)
    with caplog.at_level(logging.WARNING, logger="rummyhall.store.database"):
        db = await Database.open(url)
        await db.close()
    assert "open to other local users (mode 644)" in caplog.text
    assert stat.S_IMODE((data / "rummyhall.db").stat().st_mode) == 0o644


async def test_postgresql_keeps_the_connections_a_busy_server_holds(
    pg_server: pg.PostgresServer,
) -> None:
    """SQLAlchemy's default pool keeps 5 connections and closes the others as they come back:
    with the core full a server held 8-11 at once, and opened a new one for each past the
    fifth (database.PG_POOL). Sixteen held at once all stay open."""
    name = await pg_server.create_database()
    db = await Database.open(pg_server.url(name))
    try:
        held = database.PG_POOL["pool_size"]
        everyone = asyncio.Barrier(held)

        async def read() -> None:
            async with db.read() as session:
                await session.execute(text("SELECT 1"))
                await everyone.wait()  # (all of them hold a connection now)

        await asyncio.gather(*(read() for _ in range(held)))
        pool: Any = db.engine.sync_engine.pool
        assert pool.checkedin() == held
    finally:
        await db.close()
        await pg_server.drop_database(name)

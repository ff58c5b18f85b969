"""The database handle: one async engine, migrations on open, and transactions.

SQLite (a file under the data folder) is the zero-setup default, PostgreSQL the production choice;
both go through the same code. Every unit of work is one ``async with db.transaction() as
session`` block, committed on exit and rolled back on an exception, so that a table's log entry and
the chips it moves land together or not at all.

SQLite allows one writer at a time. Rather than let concurrent writers poll the file lock (SQLite's
busy handler sleeps in growing steps, which shows up as latency), writers in this process queue on
an ``asyncio.Lock`` and then take the file lock with ``BEGIN IMMEDIATE``; the busy timeout is
left for other processes (the ``audit`` or ``admin`` commands). The lock is taken lazily, when the
transaction's first statement runs, so work done before that (hashing a password) does not block
other writers.

The table writer's batches take a shorter road (:meth:`Database.write`): on SQLite a plain (not
async) connection runs BEGIN IMMEDIATE and the batch's statements right away in the event loop's
thread, and the COMMIT (which waits for the disk) on a database thread. That connection never
waits for a lock in the loop: if another process is writing, SQLite says so at once and the
BEGIN waits on the database thread instead. Through the async driver every statement is a
round trip to its thread and back through the event loop, and on a busy loop each of those
waits for a turn: a batch of a handful of statements took several turns of the loop.
Running the whole batch on a thread of its own was no better: the statements are Python code
and need the interpreter's lock, and every SQLite call gives that lock up and then waits for the
busy event loop to hand it back, so a batch of a millisecond's work took ten. The statements are
few and short (:mod:`rummyhall.store.bulk`); the disk is the only wait, and it happens off the
loop. A batch of plain actions (:meth:`Database.write_steps`) runs its statements the same way on
a ``sqlite3`` connection of its own, without SQLAlchemy in between.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import stat
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from importlib.resources import files
from pathlib import Path
from typing import Any, TypeVar

import asyncpg  # type: ignore[import-untyped]  # (no type information)
import orjson
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, RootTransaction, create_engine, event, make_url
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, create_async_engine
from sqlalchemy.orm import Session, SessionTransaction
from sqlalchemy.pool import ConnectionPoolEntry
from sqlalchemy.util import await_

from rummyhall.store.bulk import (
    BulkError,
    Step,
    json_text,
    run_on_sqlite,
    run_steps,
)
from rummyhall.store.checkpoints import NO_AUTOCHECKPOINT, Checkpointer
from rummyhall.store.commit_thread import CommitThread, settle
from rummyhall.store.pg_steps import PgSteps
from rummyhall.store.shared_reads import SharedLook, SharedReads

DEFAULT_DATA_DIR = Path(os.environ.get("RUMMYHALL_DATA", "data"))
"""Where ``rummyhall serve`` and ``rummyhall audit`` find the SQLite file unless told otherwise."""


_T = TypeVar("_T")
_I = TypeVar("_I")
_R = TypeVar("_R")

log = logging.getLogger(__name__)

PG_POOL = {"pool_size": 16, "max_overflow": 8}
"""The PostgreSQL connections one server keeps (and opens beyond them at a peak), besides the
table writer's own. SQLAlchemy's default keeps 5: with the core full, requests hold their
connection for several turns of the loop, 8-11 were checked out at once while a thousand
players joined, and every one past the fifth was a new connection (20-250 ms to open, 30-60 a
second) closed again when it came back. A node of several keeps as many: size PostgreSQL's
``max_connections`` for nodes x 24, plus a few."""

SLOW_BEGIN_S = 0.5
"""A BEGIN IMMEDIATE that waits this long for another connection's lock is logged."""

SQLITE_BUSY_TIMEOUT_MS = 10_000
"""How long a SQLite connection waits for another process's lock before failing."""

WRITER_CACHE_KIB = 65_536
"""The page cache of the table writer's own SQLite connection (SQLite's default is 2 MiB; the
cache grows to this only as pages are used). Each action of a live table changes B-trees at a
place of that table's own (the log's key, the ledger's transaction keys, the accounts' balances;
until revision 0008 its postings by account too), so a thousand live tables keep thousands of
pages hot. 2 MiB did not hold them: the writer read pages back from the write-ahead log, a
system call and a search of the log's index each, on the event loop's thread (at 400 tables 0.55
such reads per message sent, 0.11 with this cache; at the 400 ms stress its statements took
11.0% and 11.1% of the server's samples in two runs, 7.9% with it; issue 20, stop 45, with the
postings' index still there)."""

SQLITE_PRAGMAS = (
    "synchronous=FULL",
    "foreign_keys=ON",
    NO_AUTOCHECKPOINT,  # (store/checkpoints.py: a thread of the Database does them)
)
"""What every connection of the room sets, the table writer's own included (docs/storage.md):
a commit is on disk before anyone is told, foreign keys are checked, and no commit checkpoints."""

# Any constant will do; it only has to be the same in every process migrating the same database.
_PG_MIGRATION_LOCK = 0x52554D4D59  # "RUMMY"

_MODE = "rummyhall_mode"  # execution option: how a SQLite transaction begins ("write" / "read")


_ASYNC_DRIVERS = {
    "sqlite": "sqlite+aiosqlite",
    "sqlite+aiosqlite": "sqlite+aiosqlite",
    "postgresql": "postgresql+asyncpg",
    "postgres": "postgresql+asyncpg",
    "postgresql+asyncpg": "postgresql+asyncpg",
}


class DatabaseError(Exception):
    """The database cannot be used as asked (unreachable, not migrated, unknown URL)."""


def default_url(data_dir: Path, *, create: bool = True) -> str:
    """The SQLite URL of the database file in ``data_dir`` (the folder is created, for its owner
    only, unless ``create=False``)."""
    if create:
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    return f"sqlite+aiosqlite:///{data_dir.resolve() / 'rummyhall.db'}"


def _guard_sqlite_file(path: Path) -> None:
    """The SQLite file holds password and session hashes and the seeds of deals in play: create
    it readable by its owner only (SQLite gives its -wal and -shm files the database file's
    permissions), and warn when an existing file or its folder can be read by others, which the
    operator must fix (chmod 600 / 700): we do not change an operator's files behind their back."""
    if not path.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    for place, wanted in ((path, 0o600), (path.parent, 0o700)):
        mode = stat.S_IMODE(place.stat().st_mode)
        if mode & 0o077:
            log.warning(
                "%s is open to other local users (mode %o): they can read password hashes and "
                "the deals in play; make it %o",
                place,
                mode,
                wanted,
            )


def alembic_config() -> Config:
    """An Alembic configuration pointing at the migrations shipped inside the package."""
    config = Config()
    config.set_main_option("script_location", str(files("rummyhall.store") / "migrations"))
    return config


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


class _WriteLock:
    """The process's SQLite write lock, which knows its holder: a task that asks for it again
    (a write transaction opened inside another) gets an error instead of waiting forever."""

    def __init__(self) -> None:
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[Any] | None = None

    async def acquire(self) -> None:
        task = asyncio.current_task()
        if task is not None and task is self._owner:
            raise DatabaseError(
                "this task already has a write transaction open: a second one would wait "
                "for the first forever (SQLite has one writer)"
            )
        await self._lock.acquire()
        self._owner = task

    def release(self) -> None:
        self._owner = None
        self._lock.release()


@dataclass
class _Held:
    """Whether a session or connection holds the process's SQLite write lock: set by the begin
    hook, cleared when its transaction ends (a session may commit and go on in a new one)."""

    lock: _WriteLock
    locked: bool = False

    def release(self) -> None:
        if self.locked:
            self.locked = False
            self.lock.release()


class _Session(Session):
    """The sessions Database hands out; a class of their own so the hook below is theirs."""


@event.listens_for(_Session, "after_transaction_end")
def _after_transaction_end(session: Session, transaction: SessionTransaction) -> None:
    # After the COMMIT or ROLLBACK has gone to the database: the next writer may begin.
    if transaction.parent is None:
        held = session.info.get("rummyhall_held")
        if isinstance(held, _Held):
            held.release()


class Database:
    """An open database: ``transaction()`` for work, ``read()`` for consistent read-only views."""

    def __init__(self, engine: AsyncEngine, batch_engine: Engine | None = None) -> None:
        self.engine = engine
        self.dialect: str = engine.dialect.name
        self._write_lock = _WriteLock()
        self.on_commit_seconds: Callable[[float], None] | None = None
        """Told, in the loop, how long each COMMIT of :meth:`write` and :meth:`write_steps`
        took on the SQLite commit thread: the disk's sync, mostly (the server's metrics)."""
        # SQLite: a plain engine and one thread for write() (see the module's docstring).
        self._batch_engine = batch_engine
        self._batch_thread: CommitThread | None = None
        self._raw: sqlite3.Connection | None = None
        """The table writer's own sqlite3 connection (write_steps), opened on first use."""
        self._pg: tuple[AsyncConnection, PgSteps] | None = None
        """PostgreSQL: the table writer's own connection (write_steps), checked out of the
        pool on first use and kept, with its batches' function on its asyncpg connection."""
        self._pg_lock = asyncio.Lock()
        self._shared_reads = SharedReads()
        self._checkpointer: Checkpointer | None = None
        if self.dialect == "sqlite":
            _install_sqlite_hooks(engine.sync_engine, on_loop=True)
            if batch_engine is not None:
                _install_sqlite_hooks(batch_engine, on_loop=False)
                event.listen(batch_engine, "connect", _no_busy_wait)
                self._batch_thread = CommitThread()
                # The write-ahead log is checkpointed by a thread of its own, not inside a
                # commit (store/checkpoints.py).
                path = batch_engine.url.database
                assert path is not None
                self._checkpointer = Checkpointer(path)

    @classmethod
    async def open(cls, url: str, *, migrate: bool = True, **engine_options: Any) -> Database:
        """Connect to ``url`` and (unless ``migrate=False``) bring the schema to the newest
        revision. ``engine_options`` go to ``create_async_engine`` (``pool_size``, ``echo``...)."""
        try:
            parsed = make_url(url)
        except Exception as exc:
            raise DatabaseError(f"not a database URL: {url!r}") from exc
        # The async drivers are the only ones installed: a plain sqlite:// or postgresql:// URL
        # means them.
        driver = _ASYNC_DRIVERS.get(parsed.drivername, parsed.drivername)
        if driver not in _ASYNC_DRIVERS.values():
            raise DatabaseError(
                f"unsupported database {parsed.drivername!r}: use sqlite:// or postgresql://"
            )
        # JSON columns (log bodies, records, memos) are written on every action: orjson is several
        # times faster than the standard library at it, and reads them back the same.
        engine_options.setdefault("json_serializer", json_text)
        engine_options.setdefault("json_deserializer", orjson.loads)
        if driver == "postgresql+asyncpg":
            engine_options = {**PG_POOL, **engine_options}
        engine = create_async_engine(parsed.set(drivername=driver), **engine_options)
        batch_engine = None
        if driver == "sqlite+aiosqlite" and parsed.database not in (None, "", ":memory:"):
            _guard_sqlite_file(Path(str(parsed.database)))
            batch_engine = create_engine(
                parsed.set(drivername="sqlite"),
                json_serializer=engine_options["json_serializer"],
                json_deserializer=engine_options["json_deserializer"],
            )
        db = cls(engine, batch_engine)
        if migrate:
            try:
                await db.migrate()
            except BaseException:
                await db.close()
                raise
        return db

    async def migrate(self) -> None:
        """Apply the migrations that are missing (a no-op at head). Safe from several processes."""
        async with self._connection("write") as conn:
            if self.dialect == "postgresql":
                # Two servers starting together must not both create the tables.
                await conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_PG_MIGRATION_LOCK})")
            await conn.run_sync(_upgrade)

    async def revision(self) -> str | None:
        """The schema revision the database is at (None for an empty database)."""
        async with self._connection("read") as conn:
            revision: str | None = await conn.run_sync(
                lambda sync: MigrationContext.configure(sync).get_current_revision()
            )
            return revision

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        """A session inside one transaction: committed on exit, rolled back on an exception.

        On SQLite, a task cannot open a second write transaction inside its first (DatabaseError
        at the second one's first statement): one writer at a time."""
        held = _Held(self._write_lock)
        session = self._session("write", held)
        try:
            yield session
            await session.commit()
        finally:
            # close() rolls back whatever was not committed.
            await _close(session, held)

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        """A read-only session that sees one snapshot of the database (REPEATABLE READ on
        PostgreSQL, a deferred transaction on SQLite) and never waits for writers. Whatever it
        changes is rolled back."""
        held = _Held(self._write_lock)
        session = self._session("read", held)
        try:
            yield session
        finally:
            await _close(session, held)

    async def read_now(self, look: Callable[[Connection], _T]) -> _T:
        """Run ``look`` (plain reading code, and short) in a read transaction and return what it
        returns. On a SQLite file it runs at once in the event loop's thread, on a connection
        of the writer's engine: a reader in WAL mode never waits for a writer, and a few
        lookups by key cost less than one trip to aiosqlite's thread, which in a burst of
        requests queues behind everyone else's. Elsewhere it runs in :meth:`read`."""
        if self._batch_engine is not None:
            try:
                with self._batch_engine.connect() as conn:
                    conn.execution_options(**{_MODE: "read"})
                    with conn.begin():
                        return look(conn)
            except OperationalError as error:
                # That connection never waits (busy timeout 0): in the rare moments a reader
                # must (another process recovering the log), read the way that may.
                if not _busy(error):
                    raise
        async with self.read() as session:
            return await session.run_sync(lambda sync: look(sync.connection()))

    async def read_shared(self, look: SharedLook[_I, _R], item: _I) -> _R:
        """``look``'s answer to ``item``: on a SQLite file at once (:meth:`read_now`, in the
        loop's thread: nothing to save by waiting), elsewhere with every other question put to
        ``look`` during this turn of the event loop, in one read (store/shared_reads.py)."""
        if self._batch_engine is not None:
            answers = await self.read_now(lambda conn: look(conn, [item]))
            return answers[0]
        return await self._shared_reads.read(self.read_now, look, item)

    async def write(
        self,
        work: Callable[[Connection], _T],
        on_commit: Callable[[_T], None] | None = None,
    ) -> _T:
        """Run ``work`` on a connection inside one write transaction, committed when it returns
        (rolled back if it raises), and return its result. ``work`` is plain code, and short: on
        SQLite it runs at once in the event loop's thread, and the COMMIT on the database thread
        (see the module's docstring); on PostgreSQL it runs inside an async transaction like any
        other. ``on_commit(result)`` is called in the event loop as soon as the transaction has
        committed (a turn of the loop before this call returns)."""
        if self._batch_engine is None or self._batch_thread is None:
            async with self.transaction() as session:
                result = await session.run_sync(lambda sync: work(sync.connection()))
            if on_commit is not None:
                on_commit(result)
            return result
        loop = asyncio.get_running_loop()
        thread = self._batch_thread
        await self._write_lock.acquire()
        try:
            conn = self._batch_engine.connect()
        except BaseException:
            self._write_lock.release()
            raise

        def release(*_: object) -> None:
            self._write_lock.release()

        try:
            try:
                # BEGIN IMMEDIATE (the begin hook) right here: the batch connection does not wait
                # for a lock, and in this process nobody else holds it (we have the write lock).
                transaction = conn.begin()
            except OperationalError as error:
                if not _busy(error):
                    raise
                # Another process is writing (``rummyhall admin``, a second server): wait for
                # it on the thread, as the loop must not wait with it.
                conn.close()
                conn = self._batch_engine.connect()
                transaction = await thread.run(partial(_begin_waiting, conn))
            result = work(conn)
        except asyncio.CancelledError:
            # Cancelled while the BEGIN may still be running there: close the connection on the
            # same thread, after it, so that it never goes back to the pool inside a transaction.
            thread.post(conn.close, release, loop)
            raise
        except BaseException:
            # The BEGIN failed (the other process kept its lock) or the work raised: roll back
            # and give the lock back at once, as the caller may write again straight away (the
            # writer's retries do).
            try:
                conn.close()
            finally:
                self._write_lock.release()
            raise

        def commit() -> float:
            started = time.perf_counter()
            try:
                transaction.commit()
            finally:
                conn.close()  # (rolls back what did not commit)
            return time.perf_counter() - started

        done: asyncio.Future[_T] = loop.create_future()

        def committed(seconds: float | None, error: BaseException | None) -> None:
            # In the loop, once: the lock goes back (even if our waiter was cancelled), then
            # on_commit and the waiter hear of it.
            self._write_lock.release()
            if error is None:
                self._committed(seconds)
                if on_commit is not None:
                    on_commit(result)
            settle(done, result, error)

        thread.post(commit, committed, loop)
        return await done

    def _committed(self, seconds: float | None) -> None:
        if seconds is not None and self.on_commit_seconds is not None:
            self.on_commit_seconds(seconds)

    async def write_steps(
        self, steps: Sequence[Step], on_commit: Callable[[], None] | None = None
    ) -> None:
        """Run bulk ``steps`` (:mod:`rummyhall.store.bulk`) in one write transaction, as
        :meth:`write` runs its work: the table writer's hot path. On SQLite they go straight to
        the driver on a connection of their own, without SQLAlchemy: its work for each statement
        (and the connection's checkout, begin and reset) cost several times what SQLite's did. A
        step that fails, or writes other rows than it must, rolls the transaction back and
        raises (``sqlite3.Error`` or :class:`~rummyhall.store.bulk.BulkError`)."""
        if self.dialect == "postgresql":
            await self._write_steps_pg(steps)
            if on_commit is not None:
                on_commit()
            return
        if self._batch_engine is None or self._batch_thread is None:  # SQLite in memory
            await self.write(
                lambda conn: run_steps(conn, steps),
                None if on_commit is None else lambda _: on_commit(),
            )
            return
        loop = asyncio.get_running_loop()
        thread = self._batch_thread
        await self._write_lock.acquire()

        def release(*_: object) -> None:
            self._write_lock.release()

        try:
            raw = self._raw_connection()
            try:
                raw.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as error:
                if error.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY:
                    raise
                # Another process is writing: wait for it on the thread (as write() does).
                await thread.run(partial(_begin_raw_waiting, raw))
            for step in steps:
                run_on_sqlite(raw, step)
        except asyncio.CancelledError:
            # Cancelled while the BEGIN may still run on the thread: roll back after it, there.
            thread.post(partial(_rollback_raw, self._raw), release, loop)
            raise
        except BaseException:
            try:
                _rollback_raw(self._raw)
            finally:
                self._write_lock.release()
            raise

        def commit() -> float:
            started = time.perf_counter()
            try:
                raw.execute("COMMIT")
            except BaseException:
                _rollback_raw(raw)
                raise
            return time.perf_counter() - started

        done: asyncio.Future[None] = loop.create_future()

        def committed(seconds: float | None, error: BaseException | None) -> None:
            # One callback in the loop for the whole commit (store/commit_thread.py): the lock
            # goes back (even if our waiter was cancelled), then the tables hear of it.
            self._write_lock.release()
            if error is None:
                self._committed(seconds)
                if on_commit is not None:
                    on_commit()
            settle(done, None, error)

        thread.post(commit, committed, loop)
        await done

    async def _write_steps_pg(self, steps: Sequence[Step]) -> None:
        # Straight to asyncpg on a connection of the writer's own, the whole batch in one round
        # trip (store/pg_steps.py), without the SQLAlchemy session and its greenlet.
        async with self._pg_lock:
            if self._pg is None:
                conn = await self.engine.connect()
                raw = await conn.get_raw_connection()
                self._pg = (conn, PgSteps(raw.driver_connection))
            try:
                await self._pg[1].run(steps)
            except (asyncpg.PostgresError, BulkError):
                raise  # the statement's fault: the transaction is rolled back, the link is fine
            except BaseException:
                # A broken link (or a cancelled wait on it): the next batch takes a new one.
                conn, self._pg = self._pg[0], None
                with contextlib.suppress(Exception):
                    await conn.invalidate()
                raise

    def _raw_connection(self) -> sqlite3.Connection:
        if self._raw is None:
            assert self._batch_engine is not None
            path = self._batch_engine.url.database
            assert path is not None
            # Autocommit mode (isolation_level None): the BEGIN and COMMIT are ours. Used from
            # the loop's thread and the commit thread in turn, never at once (the write lock).
            raw = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            for pragma in ("busy_timeout=0", f"cache_size=-{WRITER_CACHE_KIB}", *SQLITE_PRAGMAS):
                raw.execute(f"PRAGMA {pragma}")
            self._raw = raw
        return self._raw

    async def close(self) -> None:
        if self._pg is not None:
            with contextlib.suppress(Exception):
                await self._pg[0].close()
            self._pg = None
        if self._batch_thread is not None:
            self._batch_thread.stop()
            self._batch_thread = None
        if self._checkpointer is not None:
            self._checkpointer.stop()
            self._checkpointer = None
        if self._raw is not None:
            self._raw.close()
            self._raw = None
        if self._batch_engine is not None:
            self._batch_engine.dispose()
        await self.engine.dispose()

    def _session(self, mode: str, held: _Held) -> AsyncSession:
        options: dict[str, Any] = {_MODE: mode, "rummyhall_held": held}
        if mode == "read" and self.dialect == "postgresql":
            options["isolation_level"] = "REPEATABLE READ"
        # expire_on_commit=False: rows stay readable after the block without another query.
        return AsyncSession(
            self.engine.execution_options(**options),
            expire_on_commit=False,
            sync_session_class=_Session,
            info={"rummyhall_held": held, _MODE: mode},
        )

    @asynccontextmanager
    async def _connection(self, mode: str) -> AsyncIterator[Any]:
        held = _Held(self._write_lock)
        try:
            async with self.engine.execution_options(
                **{_MODE: mode, "rummyhall_held": held}
            ).begin() as conn:
                yield conn
        finally:
            held.release()


async def _close(session: AsyncSession, held: _Held) -> None:
    """End the session (rolling back what is not committed) and give the write lock back, even
    if the task is being cancelled: a request handler cancelled when its client goes away (anyio
    cancels every await that follows) must not leave the lock taken and every writer waiting."""

    async def close() -> None:
        try:
            await session.close()
        finally:
            held.release()

    task = asyncio.ensure_future(close())
    # If we are cancelled meanwhile, the task still finishes; nobody awaits it then, so look at
    # its outcome here (an error in it is already logged by SQLAlchemy).
    task.add_done_callback(lambda done: done.cancelled() or done.exception())
    await asyncio.shield(task)


def _upgrade(connection: Connection) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


def _install_sqlite_hooks(sync_engine: Engine, *, on_loop: bool) -> None:
    """The settings and BEGIN of every connection of ``sync_engine``; ``on_loop``: the engine
    is an async one's, whose hooks SQLAlchemy runs on the event loop (through its bridge)."""

    @event.listens_for(sync_engine, "connect")
    def _on_connect(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
        # Take BEGIN away from the sqlite3 driver (it would skip it before SELECTs and
        # SAVEPOINTs); the "begin" hook below emits it instead.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        # The busy timeout first: switching to WAL takes a lock, and a second process opening
        # a fresh file while the first migrates it must wait for that lock, not fail at once.
        # WAL: readers never block the writer. synchronous=FULL: a commit is on disk before
        # anyone is told, so an acknowledged action survives a power cut, not just a crash.
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        _switch_to_wal(cursor, on_loop=on_loop)
        for pragma in SQLITE_PRAGMAS:
            cursor.execute(f"PRAGMA {pragma}")
        cursor.close()

    @event.listens_for(sync_engine, "begin")
    def _on_begin(conn: Connection) -> None:
        options = conn.get_execution_options()
        if options.get(_MODE) == "read":
            conn.exec_driver_sql("BEGIN")
            return
        held: _Held | None = options.get("rummyhall_held")
        if held is None:
            # The writer's batch connection (it holds the process's lock already, and waits for
            # another process only on the database thread) or a connection made outside
            # Database: SQLite's busy timeout arbitrates.
            _begin_immediate(conn)
            return
        # We are inside SQLAlchemy's greenlet bridge here, so awaiting is allowed.
        await_(held.lock.acquire())
        held.locked = True
        try:
            _begin_immediate(conn)
        except BaseException:
            held.release()
            raise


def _switch_to_wal(cursor: Any, *, on_loop: bool) -> None:
    """Put the file in WAL mode (nothing to do once it is), waiting up to the busy timeout for
    another connection doing the same.

    Two connections switching a fresh file at once can deadlock: each reads the file's header
    under a shared lock, then asks for the write lock to change it. SQLite gives the second one
    "busy" at once, without calling its busy handler (it would wait for ever for a connection
    that waits for it), and expects it to let go and try again; by then the first has switched
    the file and the second finds nothing to change (two threads switching a new file at once:
    72 such answers in 300 tries)."""
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    delay = 0.001
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if error.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY:
                raise
            if time.monotonic() >= deadline:
                raise
        _pause(delay, on_loop=on_loop)
        delay = min(delay * 2, 0.05)


def _pause(seconds: float, *, on_loop: bool) -> None:
    """Wait inside a connect hook: on the event loop when SQLAlchemy's async bridge runs the
    hook (the loop's other tasks go on meanwhile), in this thread otherwise."""
    if on_loop:
        await_(asyncio.sleep(seconds))
    else:
        time.sleep(seconds)


def _begin_immediate(conn: Connection) -> None:
    # Inside this process writers queue on the write lock first, so a wait here is for another
    # process (``rummyhall admin``, a second server on the same file) and worth a line in the log.
    started = time.monotonic()
    try:
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    finally:
        waited = time.monotonic() - started
        if waited >= SLOW_BEGIN_S:
            log.warning("waited %.2f s for the SQLite write lock", waited)


def _no_busy_wait(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    # The batch connection begins in the event loop's thread, which must never wait for a lock:
    # SQLite answers "busy" at once instead, and Database.write waits on its thread.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout=0")
    cursor.close()


def _busy(error: OperationalError) -> bool:
    code = getattr(error.orig, "sqlite_errorcode", None)
    return code is not None and code & 0xFF == sqlite3.SQLITE_BUSY


def _begin_waiting(conn: Connection) -> RootTransaction:
    """Begin on a batch connection, waiting (the busy timeout) for another process's lock."""
    raw = conn.connection.driver_connection
    assert raw is not None
    raw.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    try:
        return conn.begin()
    finally:
        raw.execute("PRAGMA busy_timeout=0")


def run_steps_on(conn: Connection, steps: Sequence[Step]) -> None:
    """Bulk ``steps`` in the transaction of a plain connection (:meth:`Database.write`'s): on
    SQLite straight on the driver's connection underneath it (the same transaction), as
    :meth:`Database.write_steps` runs them, so that a batch with other work in it (a game's end,
    a buy-in) does not pay SQLAlchemy's cost for its actions' statements; elsewhere through
    SQLAlchemy (:func:`~rummyhall.store.bulk.run_steps`). Raises the driver's errors."""
    raw = conn.connection.driver_connection
    if conn.dialect.name != "sqlite" or not isinstance(raw, sqlite3.Connection):
        run_steps(conn, steps)
        return
    for step in steps:
        run_on_sqlite(raw, step)


def _begin_raw_waiting(raw: sqlite3.Connection) -> None:
    """BEGIN IMMEDIATE on the writer's own connection, waiting (the busy timeout) for another
    process's lock."""
    raw.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    try:
        started = time.monotonic()
        raw.execute("BEGIN IMMEDIATE")
        if time.monotonic() - started >= SLOW_BEGIN_S:
            log.warning("waited %.2f s for the SQLite write lock", time.monotonic() - started)
    finally:
        raw.execute("PRAGMA busy_timeout=0")


def _rollback_raw(raw: sqlite3.Connection | None) -> None:
    if raw is not None and raw.in_transaction:
        raw.execute("ROLLBACK")

"""The log writer: one task that commits every table's log entries (and the ledger transfers and
hand records that go with them) to the database.

Tables hand it their entries and wait until they are committed before they tell anyone
(DESIGN.md, principle 4). Entries that arrive together are committed in one transaction, with
one statement for all their log rows and a few for all their chip transfers
(:func:`rummyhall.economy.bulk.write_transfers`), so that with many live tables the cost of a
durable commit (an fsync on SQLite) and of each statement is shared; on SQLite that transaction
runs in one go on a database thread (:meth:`rummyhall.store.database.Database.write`). If a
batch fails, each of its jobs is retried in a transaction of its own, so one bad job fails alone
(with the precise error of :func:`rummyhall.economy.ledger.transfer_on`) and the others land.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import AsyncSession

from rummyhall.economy import ledger
from rummyhall.economy.bulk import Transfer, transfer_many, write_transfers
from rummyhall.store import tables as store_tables
from rummyhall.store.database import Database
from rummyhall.store.tables import LogEntry

log = logging.getLogger(__name__)

Operation = Callable[[AsyncSession], Awaitable[Any]]
Work = Callable[[Connection], Any]


@dataclass(slots=True)
class _Job:
    done: asyncio.Future[Any]
    operation: Operation | None = None
    """Async work run first (the hub's rare jobs: a new table, a bot account); its result is
    the job's result."""
    work: Work | None = None
    """Plain work run first (a buy-in, a finished game's record); its result is the job's."""
    entry: LogEntry | None = None
    transfer: Transfer | None = None


class Writer:
    def __init__(self, db: Database, *, batch: int = 256) -> None:
        self.db = db
        self.batch = batch
        self._queue: asyncio.Queue[_Job] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self.commits = 0
        self.jobs = 0

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="log-writer")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        while not self._queue.empty():
            job = self._queue.get_nowait()
            if not job.done.done():
                job.done.set_exception(RuntimeError("the server is stopping"))

    async def run(self, operation: Operation) -> Any:
        """Commit ``operation`` (alone or with others) and return its result, or raise what it
        raised (its transaction is then rolled back)."""
        return await self.write(operation=operation)

    async def write(
        self,
        *,
        operation: Operation | None = None,
        work: Work | None = None,
        entry: LogEntry | None = None,
        transfer: Transfer | None = None,
    ) -> Any:
        """Commit a log entry with its transfer (and ``operation`` or ``work``, run first);
        returns the operation's or the work's result."""
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        job = _Job(done, operation, work, entry, transfer)
        if self._task is None:
            await self._alone(job)
        else:
            await self._queue.put(job)
        return await done

    async def _run(self) -> None:
        while True:
            jobs = [await self._queue.get()]
            while len(jobs) < self.batch and not self._queue.empty():
                jobs.append(self._queue.get_nowait())
            if not await self._together(jobs):
                for job in jobs:
                    if not job.done.done():  # (part of a failed batch may have landed)
                        await self._alone(job)

    async def _together(self, jobs: list[_Job]) -> bool:
        # Most jobs (game actions, sits, finished games) are plain code, written in one go
        # (Database.write: on SQLite one call on the database's thread, not a trip through the
        # event loop per statement). The hub's rare async operations go in an async transaction.
        # Two transactions are safe: each job is atomic on its own, and a table never has two
        # jobs in one batch (it waits for each commit).
        plain = [job for job in jobs if job.operation is None]
        special = [job for job in jobs if job.operation is not None]
        try:
            if plain:

                def write(conn: Connection) -> list[Any]:
                    results = [None if job.work is None else job.work(conn) for job in plain]
                    store_tables.write_logs(conn, [j.entry for j in plain if j.entry])
                    write_transfers(conn, [j.transfer for j in plain if j.transfer])
                    return results

                # The tables hear of the commit straight from the database thread's callback,
                # without waiting for this task's own turn of the loop first.
                await self.db.write(write, on_commit=lambda results: self._finish(plain, results))
            if special:
                results = []
                async with self.db.transaction() as session:
                    for job in special:
                        assert job.operation is not None
                        results.append(await job.operation(session))
                    await store_tables.append_logs(session, [j.entry for j in special if j.entry])
                    await transfer_many(session, [j.transfer for j in special if j.transfer])
                self._finish(special, results)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log.info("a batch of %d failed (%s); committing one by one", len(jobs), error)
            return False
        return True

    def _finish(self, jobs: list[_Job], results: list[Any]) -> None:
        self.commits += 1
        self.jobs += len(jobs)
        for job, result in zip(jobs, results, strict=True):
            if not job.done.done():
                job.done.set_result(result)

    async def _alone(self, job: _Job) -> None:
        """One job in a transaction of its own, with the precise error of what it does."""

        def write(conn: Connection) -> Any:
            result = None if job.work is None else job.work(conn)
            if job.entry is not None:
                store_tables.write_logs(conn, [job.entry])
            if job.transfer is not None:
                t = job.transfer
                ledger.transfer_on(conn, t.key, t.postings, kind=t.kind, memo=t.memo)
            return result

        try:
            if job.operation is None:
                result = await self.db.write(write)
            else:
                async with self.db.transaction() as session:
                    result = await job.operation(session)
                    await session.run_sync(lambda sync: write(sync.connection()))
        except asyncio.CancelledError:
            raise
        except Exception as error:
            if not job.done.done():
                job.done.set_exception(error)
        else:
            self._finish([job], [result])

"""The log writer: one task that commits every table's log entries (and the ledger transfers and
hand records that go with them) to the database.

Tables hand it their entries and wait until they are committed before they tell anyone
(DESIGN.md, principle 4). Entries that arrive together are committed in one transaction, with
one statement for all their log rows and a few for all their chip transfers
(:func:`rummyhall.economy.bulk.transfer_many`), so that with many live tables the cost of a
durable commit (an fsync on SQLite) and of each statement is shared. If a batch fails, each of
its jobs is retried in a transaction of its own, so one bad job fails alone (with the precise
error of :func:`rummyhall.economy.ledger.transfer`) and the others still land.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from rummyhall.economy import ledger
from rummyhall.economy.bulk import Transfer, transfer_many
from rummyhall.store import tables as store_tables
from rummyhall.store.database import Database
from rummyhall.store.tables import LogEntry

log = logging.getLogger(__name__)

Operation = Callable[[AsyncSession], Awaitable[Any]]


@dataclass(slots=True)
class _Job:
    done: asyncio.Future[Any]
    operation: Operation | None = None
    """Runs first (e.g. takes a buy-in, saves a finished game's record); its result is the
    job's result."""
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
        entry: LogEntry | None = None,
        transfer: Transfer | None = None,
    ) -> Any:
        """Commit a log entry with its transfer (and ``operation``, run first); returns the
        operation's result."""
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        job = _Job(done, operation, entry, transfer)
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
            if len(jobs) == 1 or not await self._together(jobs):
                for job in jobs:
                    await self._alone(job)

    async def _together(self, jobs: list[_Job]) -> bool:
        try:
            results = []
            async with self.db.transaction() as session:
                for job in jobs:
                    results.append(None if job.operation is None else await job.operation(session))
                await store_tables.append_logs(session, [j.entry for j in jobs if j.entry])
                await transfer_many(session, [j.transfer for j in jobs if j.transfer])
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log.info("a batch of %d failed (%s); committing one by one", len(jobs), error)
            return False
        self.commits += 1
        self.jobs += len(jobs)
        for job, result in zip(jobs, results, strict=True):
            if not job.done.done():
                job.done.set_result(result)
        return True

    async def _alone(self, job: _Job) -> None:
        try:
            async with self.db.transaction() as session:
                result = None if job.operation is None else await job.operation(session)
                if job.entry is not None:
                    await store_tables.append_logs(session, [job.entry])
                if job.transfer is not None:
                    t = job.transfer
                    await ledger.transfer(session, t.key, t.postings, kind=t.kind, memo=t.memo)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            if not job.done.done():
                job.done.set_exception(error)
        else:
            self.commits += 1
            self.jobs += 1
            if not job.done.done():
                job.done.set_result(result)

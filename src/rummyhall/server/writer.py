"""The log writer: commits every table's log entries (and the ledger transfers and hand records
that go with them) to the database.

Tables hand it their entries and wait until they are committed before they tell anyone
(DESIGN.md, principle 4). Entries that arrive together are committed in one transaction, with
one statement for all their log rows, four for all their chip transfers
(:func:`rummyhall.economy.bulk.transfer_steps`) and three for all the games they end (records,
players, who paid whom: :func:`rummyhall.store.tables.hand_steps`,
:func:`rummyhall.economy.flows.flow_steps`), so that with many live tables the cost of a
durable commit (an fsync on SQLite) and of each statement is shared: while one batch commits,
the next gathers. Such a batch goes straight to the database driver
(:meth:`rummyhall.store.database.Database.write_steps`); one that also does other work (a
buy-in, which reads the wallet; a rated game's ladder) runs that work through SQLAlchemy, and
the same statements on the driver's connection underneath, in the same transaction
(:func:`rummyhall.store.database.run_steps_on`).
If a batch fails, each of its jobs is retried in a transaction of its own, so one bad job fails
alone (with the precise error of :func:`rummyhall.economy.ledger.transfer_on`) and the others
land. The tables hear of a commit straight from the database's callback
(:meth:`rummyhall.store.database.Database.write`), without waiting for this task's turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import AsyncSession

from rummyhall.economy import ledger
from rummyhall.economy.bulk import Transfer, transfer_steps
from rummyhall.economy.flows import GameFlows, flow_steps
from rummyhall.store import tables as store_tables
from rummyhall.store.bulk import Step, run_steps
from rummyhall.store.database import Database, run_steps_on
from rummyhall.store.tables import FinishedHand, LogEntry

log = logging.getLogger(__name__)

Operation = Callable[[AsyncSession], Awaitable[Any]]
Work = Callable[[Connection], Any]


@dataclass(slots=True)
class _Job:
    done: asyncio.Future[Any]
    operation: Operation | None = None
    """Async work run first (the hub's rare jobs: a new table, a bot account); its result is
    the job's result. Such a job is committed on its own."""
    work: Work | None = None
    """Plain work run first (a buy-in, a finished game's record); its result is the job's."""
    entries: Sequence[LogEntry] = ()
    """Log entries, in order (a game's start comes with its first deal)."""
    transfer: Transfer | None = None
    hand: FinishedHand | None = None
    """The game the last entry's action ended, stored with its players..."""
    flows: GameFlows | None = None
    """... and who paid whom in it."""


class Writer:
    def __init__(self, db: Database, *, batch: int = 256) -> None:
        self.db = db
        self.batch = batch
        self._jobs: deque[_Job] = deque()
        self._ready = asyncio.Event()
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
        while self._jobs:
            _fail(self._jobs.popleft(), RuntimeError("the server is stopping"))

    async def run(self, operation: Operation) -> Any:
        """Commit ``operation`` and return its result, or raise what it raised (its transaction
        is then rolled back)."""
        return await self.write(operation=operation)

    async def write(
        self,
        *,
        operation: Operation | None = None,
        work: Work | None = None,
        entry: LogEntry | None = None,
        transfer: Transfer | None = None,
        hand: FinishedHand | None = None,
        flows: GameFlows | None = None,
        before: Sequence[LogEntry] = (),
    ) -> Any:
        """Commit a log entry (after the entries ``before`` it, in the same transaction) with
        its transfer and the game it ended (and ``operation`` or ``work``, run first); returns
        the operation's or the work's result."""
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        entries = (*before, entry) if entry is not None else tuple(before)
        job = _Job(done, operation, work, entries, transfer, hand, flows)
        if self._task is None:  # not started (tools, tests): commit it now
            if operation is not None:
                await self._alone(job, self._operation(job))
            else:
                await self._commit([job])
        else:
            self._jobs.append(job)
            self._ready.set()
        return await done

    async def _run(self) -> None:
        while True:
            await self._ready.wait()
            self._ready.clear()
            while self._jobs:
                if self._jobs[0].operation is not None:
                    job = self._jobs.popleft()
                    await self._alone(job, self._operation(job))
                    continue
                jobs: list[_Job] = []
                while self._jobs and len(jobs) < self.batch and self._jobs[0].operation is None:
                    jobs.append(self._jobs.popleft())
                await self._commit(jobs)

    async def _commit(self, jobs: list[_Job]) -> None:
        try:
            if any(job.work is not None for job in jobs):
                await self.db.write(partial(_write_all, jobs=jobs), partial(self._finish, jobs))
            else:
                # Log rows, transfers and finished games (no buy-in, no ladder): the hot path.
                done = partial(self._finish, jobs, [None] * len(jobs))
                await self.db.write_steps(_steps(jobs), done)
        except Exception as error:
            log.info("a batch of %d failed (%s); committing one by one", len(jobs), error)
            for job in jobs:
                if not job.done.done():  # (else its waiter was cancelled: nobody to tell)
                    await self._alone(job, self.db.write(partial(_write_one, job=job)))

    async def _alone(self, job: _Job, transaction: Awaitable[Any]) -> None:
        """Tell ``job`` how the transaction that commits it alone went."""
        try:
            result = await transaction
        except Exception as error:
            _fail(job, error)
        else:
            self._finish([job], [result])

    async def _operation(self, job: _Job) -> Any:
        """An async job (the hub's) in a transaction of its own; the operation's result."""
        assert job.operation is not None
        async with self.db.transaction() as session:
            result = await job.operation(session)
            await session.run_sync(lambda sync: _write_one(sync.connection(), job))
        return result

    def _finish(self, jobs: list[_Job], results: list[Any]) -> None:
        self.commits += 1
        self.jobs += len(jobs)
        for job, result in zip(jobs, results, strict=True):
            if not job.done.done():
                job.done.set_result(result)


def _fail(job: _Job, error: BaseException) -> None:
    if not job.done.done():
        job.done.set_exception(error)


def _steps(jobs: list[_Job]) -> list[Step]:
    """The statements of all the batch's log rows, transfers and finished games."""
    return (
        store_tables.log_steps(entry for job in jobs for entry in job.entries)
        + transfer_steps([job.transfer for job in jobs if job.transfer is not None])
        + store_tables.hand_steps([job.hand for job in jobs if job.hand is not None])
        + flow_steps([job.flows for job in jobs if job.flows is not None])
    )


def _write_all(conn: Connection, jobs: list[_Job]) -> list[Any]:
    """A batch's work, then all its log rows and transfers together."""
    results = [None if job.work is None else job.work(conn) for job in jobs]
    run_steps_on(conn, _steps(jobs))
    return results


def _write_one(conn: Connection, job: _Job) -> Any:
    """One job, with the precise error of what it does (a transfer's own refusal)."""
    result = None if job.work is None else job.work(conn)
    if job.entries:
        store_tables.write_logs(conn, job.entries)
    if job.transfer is not None:
        t = job.transfer
        ledger.transfer_on(conn, t.key, t.postings, kind=t.kind, memo=t.memo)
    run_steps(
        conn,
        store_tables.hand_steps([job.hand] if job.hand is not None else [])
        + flow_steps([job.flows] if job.flows is not None else []),
    )
    return result

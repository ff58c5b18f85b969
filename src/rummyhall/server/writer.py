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
(:func:`rummyhall.store.database.run_steps_on`). Work that many jobs of a batch share (a guest's
sign-up, a quick seat's new table: :data:`Shared`) runs once for all of them, so that a burst of
arrivals costs a few statements a batch rather than a few for each arrival.
If a batch fails, each of its jobs is retried in a transaction of its own, so one bad job fails
alone (with the precise error of :func:`rummyhall.economy.ledger.transfer_on`) and the others
land. A transfer that spends a wallet nobody read in the transaction (``unread``: a top-up the
wallet covered when the table last saw it, :meth:`rummyhall.server.table.TableActor._top_up`)
is the one job a batch can expect to fail, when the wallet was spent elsewhere meanwhile: such
jobs are retried alone first and the rest of the batch together again, so that the failure
costs one commit more rather than one per job. The tables hear of a commit straight from the
database's callback (:meth:`rummyhall.store.database.Database.write`), without waiting for this
task's turn.

One node of several (issue 21, docs/cluster.md) writes only the tables whose leases it holds,
and every write of a table carries the lease's fencing token (:attr:`Writer.tokens`): a batch
starts with one fence step per table in it (:func:`rummyhall.store.fences.fence_step`, in table
order), so a table another node has taken over fails the batch and nothing of it is written.
The writer then reads the tables' tokens (:func:`rummyhall.store.fences.tokens_on`), fails the
jobs of the tables taken over with :class:`~rummyhall.store.fences.StaleLease`, tells
:attr:`Writer.on_stale`, and commits the other tables' jobs again as one batch: a table that
was taken over never fails another table's actions, and the common case stays one commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import AsyncSession

from rummyhall.economy import ledger
from rummyhall.economy.bulk import Transfer, transfer_steps
from rummyhall.economy.flows import GameFlows, flow_steps
from rummyhall.server.metrics import Metrics
from rummyhall.store import fences
from rummyhall.store import tables as store_tables
from rummyhall.store.bulk import Step, run_steps
from rummyhall.store.database import Database, run_steps_on
from rummyhall.store.fences import StaleLease, fence_step
from rummyhall.store.tables import FinishedHand, LogEntry

log = logging.getLogger(__name__)

Operation = Callable[[AsyncSession], Awaitable[Any]]
Work = Callable[[Connection], Any]
Shared = Callable[[Connection, Sequence[Any]], Sequence[Any]]
"""Work that the jobs of a batch share: called once with every such job's item, in the jobs'
order, it returns each one's result. A burst of arrivals (a thousand guests signing up within a
second) then costs a few statements a batch instead of a few for each of them: on PostgreSQL
each statement is a round trip, and the writer does one batch at a time."""


@dataclass(slots=True)
class _Job:
    done: asyncio.Future[Any]
    operation: Operation | None = None
    """Async work run first (the hub's rare jobs: a new table, a bot account); its result is
    the job's result. Such a job is committed on its own."""
    work: Work | None = None
    """Plain work run first (a buy-in, a finished game's record); its result is the job's."""
    shared: tuple[Shared, Any] | None = None
    """Shared work and this job's item (a guest's sign-up): the work runs once for the items of
    every job of the batch that has the same one; this job's result is its item's."""
    entries: Sequence[LogEntry] = ()
    """Log entries, in order (a game's start comes with its first deal)."""
    transfer: Transfer | None = None
    hand: FinishedHand | None = None
    """The game the last entry's action ended, stored with its players..."""
    flows: GameFlows | None = None
    """... and who paid whom in it."""
    fence: tuple[int, int] | None = None
    """(table, lease token) this job's writes are made under, one node of several; None for a
    single process, and for jobs that write no table (an account, a bot's chips)."""
    unread: bool = False
    """Its transfer takes chips from a wallet whose balance was not read in the transaction (a
    top-up the wallet covered when last seen): the ledger may refuse it, which fails its batch."""
    queued: float = field(default_factory=time.perf_counter)
    """When the job came (``time.perf_counter``)."""


class Writer:
    def __init__(
        self,
        db: Database,
        *,
        batch: int = 256,
        fenced: bool = False,
        metrics: Metrics | None = None,
    ) -> None:
        self.db = db
        self.batch = batch
        self.metrics = metrics
        self.tokens: dict[int, int] | None = {} if fenced else None
        """One node of several: the lease token of each table this node may write (the hub
        keeps it); a table's write with no token here is refused at once. None: one process,
        nothing is fenced."""
        self.on_stale: Callable[[int, int], None] | None = None
        """Told (table, token) when a write of the table under that token was refused: another
        node has taken the table over (called once per refused job, in the loop)."""
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

    async def run(self, operation: Operation, *, table: int | None = None) -> Any:
        """Commit ``operation`` and return its result, or raise what it raised (its transaction
        is then rolled back). ``table``: the table it writes (fenced, one node of several)."""
        return await self.write(operation=operation, table=table)

    async def write(
        self,
        *,
        operation: Operation | None = None,
        work: Work | None = None,
        shared: tuple[Shared, Any] | None = None,
        entry: LogEntry | None = None,
        transfer: Transfer | None = None,
        hand: FinishedHand | None = None,
        flows: GameFlows | None = None,
        before: Sequence[LogEntry] = (),
        table: int | None = None,
        unread: bool = False,
    ) -> Any:
        """Commit a log entry (after the entries ``before`` it, in the same transaction) with
        its transfer and the game it ended (and ``operation``, ``work`` or ``shared``, run
        first); returns the operation's or the work's result (or the shared work's for this
        job's item). ``table``: the table the operation or the work writes, when there is no
        entry to tell (fenced like the table's entries). ``unread``:
        the transfer spends a balance nobody read in this transaction, and the ledger may refuse
        it (:class:`~rummyhall.economy.ledger.InsufficientChips` is raised then)."""
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        entries = (*before, entry) if entry is not None else tuple(before)
        fence = None
        if self.tokens is not None:
            owned = entries[0].table_id if entries else table
            if owned is not None:
                token = self.tokens.get(owned)
                if token is None:  # not ours (any more): nothing to try
                    raise StaleLease(owned, 0, 0)
                fence = (owned, token)
        job = _Job(done, operation, work, shared, entries, transfer, hand, flows, fence, unread)
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
        guards = sorted({job.fence for job in jobs if job.fence is not None})
        try:
            if any(job.work is not None or job.shared is not None for job in jobs):
                await self.db.write(
                    partial(_write_all, jobs=jobs, guards=guards), partial(self._finish, jobs)
                )
            else:
                # Log rows, transfers and finished games (no buy-in, no ladder): the hot path.
                done = partial(self._finish, jobs, [None] * len(jobs))
                steps = [fence_step(table, token) for table, token in guards] + _steps(jobs)
                await self.db.write_steps(steps, done)
        except Exception as error:
            if guards and await self._without_stale(jobs, guards):
                return
            unread = [job for job in jobs if job.unread]
            if unread and len(unread) < len(jobs):
                # The likely cause: a transfer sent unread that the ledger refused. Those go
                # alone (a refused one fails with the ledger's precise error) and the others
                # together again, so that a wallet spent elsewhere costs one more commit, not
                # one per job of the batch.
                log.info("a batch of %d failed (%s); its unread transfers alone", len(jobs), error)
                for job in unread:
                    if not job.done.done():
                        await self._alone(job, self.db.write(partial(_write_one, job=job)))
                await self._commit([job for job in jobs if not job.unread])
                return
            log.info("a batch of %d failed (%s); committing one by one", len(jobs), error)
            for job in jobs:
                if not job.done.done():  # (else its waiter was cancelled: nobody to tell)
                    await self._alone(job, self.db.write(partial(_write_one, job=job)))

    async def _without_stale(self, jobs: list[_Job], guards: list[tuple[int, int]]) -> bool:
        """After a fenced batch failed: if some of its tables were taken over (the database has
        seen a higher token), fail their jobs with StaleLease, commit the others again as a
        batch, and return True; False if none was (the batch failed for another reason)."""
        try:
            seen = await self.db.read_now(
                lambda conn: fences.tokens_on(conn, (table for table, _ in guards))
            )
        except Exception:
            log.exception("reading the fencing tokens failed")
            return False
        stale = {(table, token) for table, token in guards if seen[table] > token}
        if not stale:
            return False
        rest: list[_Job] = []
        for job in jobs:
            if job.fence in stale:
                table, token = job.fence
                self._stale(job, StaleLease(table, token, seen[table]))
            else:
                rest.append(job)
        log.warning(
            "tables taken over by another node, their writes refused: %s",
            ", ".join(str(table) for table, _ in sorted(stale)),
        )
        if rest:
            await self._commit(rest)  # (each round takes jobs out: it ends)
        return True

    def _stale(self, job: _Job, error: StaleLease) -> None:
        _fail(job, error)
        if job.fence is not None and self.tokens is not None:
            table, token = job.fence
            if self.tokens.get(table) == token:
                del self.tokens[table]  # nothing more is tried under that lease
            if self.on_stale is not None:
                self.on_stale(table, token)

    async def _alone(self, job: _Job, transaction: Awaitable[Any]) -> None:
        """Tell ``job`` how the transaction that commits it alone went."""
        try:
            result = await transaction
        except StaleLease as error:
            self._stale(job, error)
        except Exception as error:
            _fail(job, error)
        else:
            self._finish([job], [result])

    async def _operation(self, job: _Job) -> Any:
        """An async job (the hub's) in a transaction of its own; the operation's result."""
        assert job.operation is not None
        async with self.db.transaction() as session:
            if job.fence is not None:
                await fences.check_and_raise(session, *job.fence)
            result = await job.operation(session)
            await session.run_sync(lambda sync: _write_one(sync.connection(), job))
        return result

    def _finish(self, jobs: list[_Job], results: list[Any]) -> None:
        self.commits += 1
        self.jobs += len(jobs)
        if self.metrics is not None:
            now = time.perf_counter()
            self.metrics.committed([now - job.queued for job in jobs])
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


def _write_all(conn: Connection, jobs: list[_Job], guards: list[tuple[int, int]]) -> list[Any]:
    """A batch's fences, its work, then all its log rows and transfers together."""
    for table, token in guards:
        fences.check_and_raise_sync(conn, table, token)
    results = [None if job.work is None else job.work(conn) for job in jobs]
    together: dict[Shared, list[tuple[int, Any]]] = {}
    for index, job in enumerate(jobs):
        if job.shared is not None:
            work, item = job.shared
            together.setdefault(work, []).append((index, item))
    for work, items in together.items():
        done = work(conn, [item for _, item in items])
        for (index, _), result in zip(items, done, strict=True):
            results[index] = result
    run_steps_on(conn, _steps(jobs))
    return results


def _write_one(conn: Connection, job: _Job) -> Any:
    """One job, with the precise error of what it does (a transfer's own refusal)."""
    if job.fence is not None:
        fences.check_and_raise_sync(conn, *job.fence)
    result = None if job.work is None else job.work(conn)
    if job.shared is not None:
        [result] = job.shared[0](conn, [job.shared[1]])
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

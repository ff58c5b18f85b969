"""Fencing tokens in the database: a node that lost a table can never write its log again.

With several nodes (issue 21, docs/cluster.md), the node that owns a table holds a lease in
Redis (rummyhall.server.cluster.lease), and each lease comes with a fencing token, higher than
every token of the table's earlier leases. A node that was paused or cut off past its lease may
still *try* to write; this module is where such a write is refused.

``table_fences`` keeps, per table, the highest token a write has carried. Inside the write's
own transaction, the writer calls :func:`check_and_raise` (or puts :func:`fence_step` first in
its bulk batch) with the token of its lease. In one statement (an upsert whose update only
happens when the stored token is not higher) the stored token is raised to the writer's, or
left alone when it is higher, in which case :class:`StaleLease` is raised: the caller lets it
roll the transaction back, so the stale write's log rows and chip movements vanish with it.

Why this is race-free:

* SQLite has one writer at a time (BEGIN IMMEDIATE): the check and the rest of the transaction
  run with no other writer in between.
* PostgreSQL: the upsert takes the fence row's lock until the transaction ends. A second writer
  of the same table waits for it, and then evaluates its ``WHERE`` against the committed token
  (READ COMMITTED re-checks the newest row version), so an old owner that wakes up while the
  new owner's batch is in flight is refused once that batch commits, never interleaved with
  it. The first write of a table inserts the row; two first writes meet on the primary key,
  and the loser takes the update path the same way.

Equal tokens pass: one lease writes many batches. Tokens are positive (Redis's INCR starts at 1).
A table with no row has seen no fenced write; single-node rooms never write one.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import BigInteger, Connection, Integer, bindparam, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from rummyhall.store.bulk import Step, by_dialect
from rummyhall.store.models import TableFenceModel


class StaleLease(Exception):
    """A write carried a lower token than the table has already seen: its node no longer owns
    the table. Roll the transaction back and stop writing the table (its new owner has it)."""

    code = "stale_lease"

    def __init__(self, table_id: int, token: int, current: int) -> None:
        super().__init__(
            f"table {table_id}: write with lease token {token} refused, the table has seen "
            f"token {current} (another node owns it now)"
        )
        self.table_id = table_id
        self.token = token
        self.current = current


_RAISE_SQL = (
    "INSERT INTO table_fences (table_id, token) VALUES (:table_id, :token) "
    "ON CONFLICT (table_id) DO UPDATE SET token = excluded.token "
    "WHERE table_fences.token <= excluded.token"
)
RAISE = by_dialect(
    sqlite=_RAISE_SQL,
    postgresql=_RAISE_SQL,
    binds=[bindparam("table_id", type_=Integer()), bindparam("token", type_=BigInteger())],
)
"""Raise the table's stored token to ``:token`` unless it is higher: one row written when the
token passes, none when it is stale (the same text on both databases: both have upserts)."""


def _check_token(token: int) -> None:
    if token < 1:
        raise ValueError(f"a lease token is positive, not {token}")


def fence_step(table_id: int, token: int) -> Step:
    """The check as the first step of a bulk batch (:meth:`Database.write_steps
    <rummyhall.store.database.Database.write_steps>`): it must write one row, so a stale
    token fails the batch with :class:`~rummyhall.store.bulk.BulkError` and rolls it back.
    That error does not say which step failed: the writer then reads :func:`current` (or
    runs the batch's check with :func:`check_and_raise`) to tell a lost lease apart."""
    _check_token(token)
    return Step(RAISE, {"table_id": table_id, "token": token}, rows=1)


async def check_and_raise(
    session_or_connection: AsyncSession | AsyncConnection, table_id: int, token: int
) -> None:
    """In the caller's write transaction: raise ``table_id``'s stored token to ``token`` if
    it is not lower than the stored one, else raise :class:`StaleLease` (having changed
    nothing; the caller's transaction must then be rolled back, which leaving a
    ``Database.transaction()`` block with the exception does)."""
    _check_token(token)
    conn = (
        await session_or_connection.connection()
        if isinstance(session_or_connection, AsyncSession)
        else session_or_connection
    )
    result = await conn.execute(
        RAISE.clauses[conn.dialect.name], {"table_id": table_id, "token": token}
    )
    if result.rowcount != 1:
        raise StaleLease(table_id, token, await current(conn, table_id))


def check_and_raise_sync(conn: Connection, table_id: int, token: int) -> None:
    """:func:`check_and_raise` on a plain connection (the work of :meth:`Database.write
    <rummyhall.store.database.Database.write>`)."""
    _check_token(token)
    result = conn.execute(RAISE.clauses[conn.dialect.name], {"table_id": table_id, "token": token})
    if result.rowcount != 1:
        found = conn.execute(_CURRENT, {"table_id": table_id}).scalar_one_or_none()
        raise StaleLease(table_id, token, found or 0)


_CURRENT = select(TableFenceModel.token).where(TableFenceModel.table_id == bindparam("table_id"))


async def current(session_or_connection: AsyncSession | AsyncConnection, table_id: int) -> int:
    """The highest token a write to ``table_id`` has carried (0: no fenced write yet). A node
    about to acquire the table's lease passes it as ``above`` (TableLeases.acquire), so that a
    Redis that lost its counters never hands out a token the database would refuse."""
    found = await session_or_connection.execute(_CURRENT, {"table_id": table_id})
    token: int | None = found.scalar_one_or_none()
    return token or 0


def tokens_on(conn: Connection, table_ids: Iterable[int]) -> dict[int, int]:
    """The highest token each of ``table_ids`` has seen (0: none), on a plain connection: what
    the table writer reads after a batch failed, to tell which of its tables were taken over."""
    ids = sorted(set(table_ids))
    if not ids:
        return {}
    found = conn.execute(
        select(TableFenceModel.table_id, TableFenceModel.token).where(
            TableFenceModel.table_id.in_(ids)
        )
    )
    tokens = dict.fromkeys(ids, 0)
    tokens.update({int(table_id): int(token) for table_id, token in found})
    return tokens

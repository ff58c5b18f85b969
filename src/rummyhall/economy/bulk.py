"""Many ledger transfers in a handful of statements: the table writer's path.

Live tables commit their actions in batches (:mod:`rummyhall.server.writer`); each action may
move chips. :func:`rummyhall.economy.ledger.transfer` spends several statements on one transfer,
which is right for a single movement but too slow for hundreds a second. :func:`transfer_many`
writes a whole batch with a fixed number of statements (the transactions, the postings, the
balances netted per account). It keeps every rule of ``transfer`` except the per-transfer
refusal: a batch whose balances would go below zero, or whose keys exist already, fails as a
whole (the database's constraints refuse it), and the writer then retries each action on its own
with ``transfer``, which says precisely what is wrong.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import BigInteger, Connection, bindparam, insert, update
from sqlalchemy.ext.asyncio import AsyncSession

from rummyhall.economy.ledger import (
    _ACCOUNTS,
    _POSTINGS,
    _TRANSACTIONS,
    LedgerError,
    _insert,
    _legs,
)
from rummyhall.store.models import utcnow

_ADD = (
    update(_ACCOUNTS)
    .where(_ACCOUNTS.c.name == bindparam("account"))
    .values(balance=_ACCOUNTS.c.balance + bindparam("amount", type_=BigInteger()))
)


@dataclass(frozen=True, slots=True)
class Transfer:
    key: str
    postings: Sequence[tuple[str, int]]
    kind: str
    memo: Mapping[str, Any] | None = None


async def transfer_many(session: AsyncSession, transfers: Sequence[Transfer]) -> None:
    """Apply every transfer, or raise (and the caller rolls the transaction back)."""
    await session.run_sync(lambda sync: write_transfers(sync.connection(), transfers))


def write_transfers(conn: Connection, transfers: Sequence[Transfer]) -> None:
    """:func:`transfer_many` on a plain connection: the writer runs it in the database's own
    thread together with the log rows (:meth:`rummyhall.store.database.Database.write`)."""
    batch = [(t, _legs(t.postings)) for t in transfers]
    batch = [(t, legs) for t, legs in batch if legs]
    if not batch:
        return
    now = utcnow()
    rows = conn.execute(
        insert(_TRANSACTIONS).returning(
            _TRANSACTIONS.c.id, _TRANSACTIONS.c.key, sort_by_parameter_order=True
        ),
        [
            {
                "key": t.key,
                "kind": t.kind,
                "memo": None if t.memo is None else dict(t.memo),
                "created_at": now,
            }
            for t, _ in batch
        ],
    )
    ids = [row[0] for row in rows]
    if len(ids) != len(batch):
        raise LedgerError("the batch's transactions were not all written")
    net: dict[str, int] = {}
    postings = []
    for transaction_id, (_, legs) in zip(ids, batch, strict=True):
        for account, amount in legs:
            postings.append(
                {"transaction_id": transaction_id, "account": account, "amount": amount}
            )
            net[account] = net.get(account, 0) + amount
    names = sorted(net)
    conn.execute(
        _insert(conn, _ACCOUNTS).on_conflict_do_nothing(index_elements=["name"]),
        [{"name": name, "balance": 0} for name in names],
    )
    conn.execute(_ADD, [{"account": name, "amount": net[name]} for name in names if net[name]])
    conn.execute(insert(_POSTINGS), postings)


def _memo(memo: Mapping[str, Any] | None) -> dict[str, Any] | None:
    return None if memo is None else dict(memo)

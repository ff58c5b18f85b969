"""Many ledger transfers in a handful of statements: the table writer's path.

Live tables commit their actions in batches (:mod:`rummyhall.server.writer`); each action may
move chips. :func:`rummyhall.economy.ledger.transfer_on` spends several statements on one
transfer, which is right for a single movement but too slow for hundreds a second.
:func:`write_transfers` writes a whole batch with four statements whatever its size (the
transactions; two for the balances, netted per account over the batch; the postings). It keeps
every rule of ``transfer_on`` except the per-transfer refusal: a batch whose balances would go
below zero, or whose keys exist already, fails as a whole (the database's constraints refuse
it), and the writer then retries each action on its own with ``transfer_on``, which says
precisely what is wrong.

Each statement takes its rows as one JSON document, which the database unpacks
(:mod:`rummyhall.store.bulk`): the SQL text never changes, so it is compiled once, and a
batch costs a few statements, each a single step, however many transfers it holds. On SQLite
they run in the event loop's thread (:meth:`rummyhall.store.database.Database.write`), where
every statement is time no table gets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, bindparam

from rummyhall.economy.ledger import _legs
from rummyhall.store.bulk import Document, Step, by_dialect, json_text, run_steps, sqlite_value
from rummyhall.store.models import UTCDateTime, utcnow


@dataclass(frozen=True, slots=True)
class Transfer:
    key: str
    postings: Sequence[tuple[str, int]]
    kind: str
    memo: Mapping[str, Any] | None = None


_TRANSACTIONS = by_dialect(
    sqlite="""
        INSERT INTO ledger_transactions (key, kind, memo, created_at)
        SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'),
               json_extract(value, '$[2]'), :now
        FROM json_each(:rows)""",
    postgresql="""
        INSERT INTO ledger_transactions (key, kind, memo, created_at)
        SELECT r ->> 0, r ->> 1, CASE WHEN json_typeof(r -> 2) = 'null' THEN NULL ELSE r -> 2 END,
               :now
        FROM json_array_elements(CAST(:rows AS json)) AS r""",
    binds=(bindparam("now", type_=UTCDateTime()),),
    sqlite_each="""
        INSERT INTO ledger_transactions (key, kind, memo, created_at) VALUES (?1, ?2, ?3, ?4)""",
)
# Every account of the batch gets a row (new ones at zero), then every balance its net change.
# (One upsert cannot do both: SQLite checks the CHECK constraint on the row an upsert proposes,
# a negative change, before it finds the conflict.) Rows in name order: on PostgreSQL writers
# lock balance rows in the same order, so two of them cannot deadlock; a balance that would go
# below zero breaks the CHECK constraint, which fails the batch.
_ACCOUNTS = by_dialect(
    sqlite="""
        INSERT INTO ledger_accounts (name, balance) SELECT value, 0 FROM json_each(:rows)
        WHERE true ON CONFLICT (name) DO NOTHING""",
    postgresql="""
        INSERT INTO ledger_accounts (name, balance)
        SELECT n, 0 FROM json_array_elements_text(CAST(:rows AS json)) AS n
        ON CONFLICT (name) DO NOTHING""",
    sqlite_each="""
        INSERT INTO ledger_accounts (name, balance) VALUES (?1, 0)
        ON CONFLICT (name) DO NOTHING""",
)
_BALANCES = by_dialect(
    sqlite="""
        UPDATE ledger_accounts SET balance = balance + json_extract(d.value, '$[1]')
        FROM json_each(:rows) AS d WHERE ledger_accounts.name = json_extract(d.value, '$[0]')""",
    postgresql="""
        UPDATE ledger_accounts SET balance = ledger_accounts.balance + CAST(d ->> 1 AS BIGINT)
        FROM json_array_elements(CAST(:rows AS json)) AS d WHERE ledger_accounts.name = d ->> 0""",
    sqlite_each="UPDATE ledger_accounts SET balance = balance + ?2 WHERE name = ?1",
)
# Postings find their transaction by its key (no RETURNING of the new ids: on SQLite each
# returned row is one more step), in the batch's order.
_POSTINGS = by_dialect(
    sqlite="""
        INSERT INTO ledger_postings (transaction_id, account, amount)
        SELECT t.id, json_extract(p.value, '$[1]'), json_extract(p.value, '$[2]')
        FROM json_each(:rows) AS p
        JOIN ledger_transactions AS t ON t.key = json_extract(p.value, '$[0]')
        ORDER BY p.key""",
    postgresql="""
        INSERT INTO ledger_postings (transaction_id, account, amount)
        SELECT t.id, p.r ->> 1, CAST(p.r ->> 2 AS BIGINT)
        FROM json_array_elements(CAST(:rows AS json)) WITH ORDINALITY AS p(r, n)
        JOIN ledger_transactions AS t ON t.key = p.r ->> 0
        ORDER BY p.n""",
    sqlite_each="""
        INSERT INTO ledger_postings (transaction_id, account, amount)
        SELECT id, ?2, ?3 FROM ledger_transactions WHERE key = ?1""",
)


def transfer_steps(transfers: Sequence[Transfer]) -> list[Step]:
    """The statements that apply every transfer (none for transfers that move nothing)."""
    batch = [(t, _legs(t.postings)) for t in transfers]
    batch = [(t, legs) for t, legs in batch if legs]
    if not batch:
        return []
    net: dict[str, int] = {}
    postings: list[tuple[str, str, int]] = []
    for transfer, legs in batch:
        for account, amount in legs:
            postings.append((transfer.key, account, amount))
            net[account] = net.get(account, 0) + amount
    names = sorted(net)
    memos = [(t.key, t.kind, None if t.memo is None else dict(t.memo)) for t, _ in batch]
    now = utcnow()
    stamp = sqlite_value(now)
    steps = [
        Step(
            _TRANSACTIONS, {"rows": Document(memos), "now": now},
            each=lambda: [(key, kind, None if memo is None else json_text(memo), stamp)
                  for key, kind, memo in memos],
        ),
        Step(_ACCOUNTS, {"rows": Document(names)}, each=lambda: [(name,) for name in names]),
    ]  # fmt: skip
    changes = [(name, net[name]) for name in names if net[name]]
    if changes:
        steps.append(Step(_BALANCES, {"rows": Document(changes)}, each=lambda: changes))
    # Every posting finds its transaction, or the batch fails.
    steps.append(
        Step(_POSTINGS, {"rows": Document(postings)}, rows=len(postings), each=lambda: postings)
    )
    return steps


def write_transfers(conn: Connection, transfers: Sequence[Transfer]) -> None:
    """Apply every transfer, or raise (and the caller rolls the transaction back)."""
    run_steps(conn, transfer_steps(transfers))

"""The ledger audit: every invariant of the chips, checked from the rows themselves.

1. Each transaction's postings sum to zero (and a transaction has postings).
2. Each account's balance equals the sum of its postings.
3. No account except the mint is below zero.
4. The balances of all accounts sum to zero: the chips in circulation are exactly the chips
   minted minus the chips burned.

``rummyhall audit`` runs it and exits 1 on any violation. Run it in ``db.read()`` so that it
sees one snapshot while the server keeps writing.
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from sqlalchemy import func, make_url, select
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncSession

from rummyhall.economy.ledger import BURN, HOUSE, MINT
from rummyhall.store.database import Database, DatabaseError, head_revision
from rummyhall.store.models import LedgerAccountModel, LedgerPostingModel, LedgerTransactionModel

_SHOWN = 20  # problems of one kind listed one by one; the rest are counted


@dataclass
class AuditReport:
    """The ledger's figures and the problems found (empty: the ledger is sound)."""

    accounts: int = 0
    transactions: int = 0
    postings: int = 0
    minted: int = 0
    burned: int = 0
    circulation: int = 0
    in_wallets: int = 0
    at_tables: int = 0
    house: int = 0
    elsewhere: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["ok"] = self.ok
        return data

    def write(self, out: TextIO) -> None:
        rows = [
            ("accounts", self.accounts),
            ("transactions", self.transactions),
            ("postings", self.postings),
            ("chips minted", self.minted),
            ("chips burned", self.burned),
            ("in circulation", self.circulation),
            ("  in players' wallets", self.in_wallets),
            ("  at tables", self.at_tables),
            ("  house", self.house),
        ]
        if self.elsewhere:
            rows.append(("  elsewhere", self.elsewhere))
        for label, value in rows:
            out.write(f"{label:<24}{value:>16,}\n")
        if self.ok:
            out.write("audit: clean\n")
        else:
            for problem in self.problems:
                out.write(f"PROBLEM: {problem}\n")
            out.write(f"audit: {len(self.problems)} problem(s)\n")

    def write_json(self, out: TextIO) -> None:
        out.write(json.dumps(self.to_json(), indent=2) + "\n")


def _listed(problems: list[str], found: list[str], what: str) -> None:
    problems.extend(found[:_SHOWN])
    if len(found) > _SHOWN:
        problems.append(f"... and {len(found) - _SHOWN} more {what}")


async def audit(session: AsyncSession) -> AuditReport:
    """Check the ledger. Each query aggregates in the database, so the audit reads no row into
    Python more than the problems it reports."""
    report = AuditReport()
    accounts = LedgerAccountModel
    postings = LedgerPostingModel
    transactions = LedgerTransactionModel

    report.accounts = int(await session.scalar(select(func.count()).select_from(accounts)) or 0)
    report.transactions = int(
        await session.scalar(select(func.count()).select_from(transactions)) or 0
    )
    report.postings = int(await session.scalar(select(func.count()).select_from(postings)) or 0)

    # 1. Every transaction balances, and none is empty.
    sums = (
        select(postings.transaction_id, func.sum(postings.amount).label("total"))
        .group_by(postings.transaction_id)
        .subquery()
    )
    unbalanced = await session.execute(
        select(transactions.id, transactions.key, sums.c.total)
        .join(sums, sums.c.transaction_id == transactions.id, isouter=True)
        .where((sums.c.total.is_(None)) | (sums.c.total != 0))
        .order_by(transactions.id)
    )
    _listed(
        report.problems,
        [
            f"transaction {key!r} (#{tid}) has no postings"
            if total is None
            else f"transaction {key!r} (#{tid}): postings sum to {total}, not zero"
            for tid, key, total in unbalanced
        ],
        "unbalanced transactions",
    )

    # 2. Every balance is the sum of its postings (postings to unknown accounts included).
    per_account = (
        select(postings.account, func.sum(postings.amount).label("total"))
        .group_by(postings.account)
        .subquery()
    )
    mismatched = await session.execute(
        select(accounts.name, accounts.balance, func.coalesce(per_account.c.total, 0))
        .join(per_account, per_account.c.account == accounts.name, isouter=True)
        .where(accounts.balance != func.coalesce(per_account.c.total, 0))
        .order_by(accounts.name)
    )
    _listed(
        report.problems,
        [
            f"account {name}: balance {bal} but its postings sum to {total}"
            for name, bal, total in mismatched
        ],
        "accounts whose balance differs from their postings",
    )
    orphans = await session.execute(
        select(per_account.c.account, per_account.c.total)
        .join(accounts, accounts.name == per_account.c.account, isouter=True)
        .where(accounts.name.is_(None))
        .order_by(per_account.c.account)
    )
    _listed(
        report.problems,
        [f"postings to unknown account {name} sum to {total}" for name, total in orphans],
        "unknown accounts",
    )

    # 3. Nobody but the mint is overdrawn.
    negative = await session.execute(
        select(accounts.name, accounts.balance)
        .where(accounts.balance < 0, accounts.name != MINT)
        .order_by(accounts.name)
    )
    _listed(
        report.problems,
        [f"account {name} is below zero: {bal}" for name, bal in negative],
        "accounts below zero",
    )

    # 4. Chips are conserved: circulation = minted - burned, i.e. all balances sum to zero.
    figures = (
        await session.execute(
            select(
                func.coalesce(func.sum(accounts.balance), 0),
                _sum_where(accounts.name == MINT),
                _sum_where(accounts.name == BURN),
                _sum_where(accounts.name.startswith("player:")),
                _sum_where(accounts.name.startswith("table:")),
                _sum_where(accounts.name == HOUSE),
            )
        )
    ).one()
    total, mint, burn, wallets, tables, house = (int(value) for value in figures)
    report.minted = -mint
    report.burned = burn
    report.circulation = total - mint - burn
    report.in_wallets = wallets
    report.at_tables = tables
    report.house = house
    report.elsewhere = report.circulation - wallets - tables - house
    if total != 0:
        report.problems.append(
            f"balances sum to {total}, not zero: {report.circulation} chips in circulation, "
            f"{report.minted} minted - {report.burned} burned = {report.minted - report.burned}"
        )
    return report


def _sum_where(condition: Any) -> Any:
    return func.coalesce(func.sum(LedgerAccountModel.balance).filter(condition), 0)


# --- the `rummyhall audit` command ------------------------------------------------------------


async def audit_database(url: str) -> AuditReport:
    """Open the database at ``url`` (without migrating it) and audit its ledger in one
    snapshot. Raises DatabaseError if it cannot be reached or is not at this version's schema."""
    if url.startswith("sqlite"):
        # Opening a missing SQLite file would create an empty database and audit that.
        try:
            path = make_url(url).database
        except ArgumentError as exc:
            raise DatabaseError(f"not a database URL: {url!r}") from exc
        if path and path != ":memory:" and not Path(path).is_file():
            raise DatabaseError(f"no database file at {path}")
    db = await Database.open(url, migrate=False)
    try:
        revision, head = await db.revision(), head_revision()
        if revision is None:
            raise DatabaseError("not a Rummy Hall database (no schema)")
        if revision != head:
            raise DatabaseError(
                f"the schema is at revision {revision}, this version expects {head}: "
                "start the server once to migrate it"
            )
        async with db.read() as session:
            return await audit(session)
    finally:
        await db.close()


def audit_command(url: str, out: TextIO, *, as_json: bool = False) -> int:
    """``rummyhall audit``: print the figures; 0 clean, 1 a violation, 2 cannot audit."""
    try:
        report = asyncio.run(audit_database(url))
    except DatabaseError as exc:
        print(f"audit: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # unreachable server, refused login...: not a ledger violation
        print(f"audit: cannot read the database: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    if as_json:
        report.write_json(out)
    else:
        report.write(out)
    return 0 if report.ok else 1

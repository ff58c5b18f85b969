"""The ledger audit: every invariant of the chips, checked from the rows themselves.

1. Each transaction's postings sum to zero (and a transaction has postings).
2. Each account's balance equals the sum of its postings.
3. No account except the mints is below zero.
4. No transaction moves chips of two currencies (a table's accounts are of its room's currency,
   read from the table's settings; wallets, mints and houses by their names).
5. Per currency, the balances of its accounts sum to zero: the chips in circulation are exactly
   the chips minted minus the chips burned, for real chips and practice chips each.

``rummyhall audit`` runs it and exits 1 on any violation. Run it in ``db.read()`` so that it
sees one snapshot while the server keeps writing.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from sqlalchemy import Integer, and_, case, cast, distinct, func, make_url, or_, select
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from rummyhall.economy.ledger import CHIPS, CURRENCIES
from rummyhall.store.database import Database, DatabaseError, head_revision
from rummyhall.store.models import (
    GameTableModel,
    LedgerAccountModel,
    LedgerPostingModel,
    LedgerTransactionModel,
)

_SHOWN = 20  # problems of one kind listed one by one; the rest are counted


@dataclass
class Figures:
    """One currency's chips: where they came from and where they are."""

    minted: int = 0
    burned: int = 0
    circulation: int = 0
    in_wallets: int = 0
    at_tables: int = 0
    house: int = 0
    elsewhere: int = 0


@dataclass
class AuditReport:
    """The ledger's figures and the problems found (empty: the ledger is sound). ``minted`` and
    the other figures at the top are the real chips'; ``currencies`` has every currency's."""

    accounts: int = 0
    transactions: int = 0
    postings: int = 0
    currencies: dict[str, Figures] = field(default_factory=lambda: {CHIPS.key: Figures()})
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def chips(self) -> Figures:
        return self.currencies.setdefault(CHIPS.key, Figures())

    @property
    def minted(self) -> int:
        return self.chips.minted

    @property
    def burned(self) -> int:
        return self.chips.burned

    @property
    def circulation(self) -> int:
        return self.chips.circulation

    @property
    def in_wallets(self) -> int:
        return self.chips.in_wallets

    @property
    def at_tables(self) -> int:
        return self.chips.at_tables

    @property
    def house(self) -> int:
        return self.chips.house

    @property
    def elsewhere(self) -> int:
        return self.chips.elsewhere

    def to_json(self) -> dict[str, Any]:
        return {
            "accounts": self.accounts,
            "transactions": self.transactions,
            "postings": self.postings,
            **asdict(self.chips),
            "currencies": {key: asdict(figures) for key, figures in self.currencies.items()},
            "problems": list(self.problems),
            "ok": self.ok,
        }

    def write(self, out: TextIO) -> None:
        rows: list[tuple[str, int]] = [
            ("accounts", self.accounts),
            ("transactions", self.transactions),
            ("postings", self.postings),
        ]
        for key, figures in self.currencies.items():
            label = CURRENCIES[key].label if key in CURRENCIES else f"{key} chips"
            rows += [
                (f"{label} minted", figures.minted),
                (f"{label} burned", figures.burned),
                ("in circulation", figures.circulation),
                ("  in players' wallets", figures.in_wallets),
                ("  at tables", figures.at_tables),
                ("  house", figures.house),
            ]
            if figures.elsewhere:
                rows.append(("  elsewhere", figures.elsewhere))
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


def _classified(dialect: str) -> Any:
    """Every ledger account with its currency and its role (mint, burn, house, wallet, table,
    other), as a subquery: a table's accounts (``table:<id>:...``) take the currency of the
    table's settings (tables made before currencies existed, and accounts of no table, are real
    chips); other accounts are known by their names."""
    accounts = LedgerAccountModel
    name = accounts.name
    # The table's id, as a number, so that the join below is a lookup by primary key: joined on
    # text instead, SQLite scanned every table for each account (each posting, in check 4), and
    # a large ledger took minutes. A name whose second part is not a number names no table.
    is_number: ColumnElement[bool]
    if dialect == "postgresql":
        part = func.split_part(name, ":", 2)
        is_number = part.op("~", is_comparison=True)("^[0-9]{1,9}$")
    else:
        part = func.substr(name, 7, func.instr(func.substr(name, 7), ":") - 1)
        is_number = and_(
            func.length(part).between(1, 9), part.op("NOT GLOB", is_comparison=True)("*[^0-9]*")
        )
    table_id = case((is_number, cast(part, Integer)), else_=None)
    is_table = name.startswith("table:", autoescape=True)
    table_currency = func.coalesce(GameTableModel.config["currency"].as_string(), CHIPS.key)
    others = [found for found in CURRENCIES.values() if found is not CHIPS]
    currency = case(
        (is_table, table_currency),
        *(
            (
                or_(
                    name.in_([found.mint, found.house, found.burn]),
                    name.startswith(found.wallet_prefix + ":", autoescape=True),
                ),
                found.key,
            )
            for found in others
        ),
        else_=CHIPS.key,
    )
    every = list(CURRENCIES.values())
    role = case(
        (name.in_([found.mint for found in every]), "mint"),
        (name.in_([found.burn for found in every]), "burn"),
        (name.in_([found.house for found in every]), "house"),
        (is_table, "table"),
        (
            or_(*(name.startswith(found.wallet_prefix + ":", autoescape=True) for found in every)),
            "wallet",
        ),
        else_="other",
    )
    return (
        select(
            name.label("name"),
            accounts.balance.label("balance"),
            currency.label("currency"),
            role.label("role"),
        )
        .select_from(accounts)
        .outerjoin(GameTableModel, and_(is_table, GameTableModel.id == table_id))
        .subquery()
    )


async def audit(session: AsyncSession) -> AuditReport:
    """Check the ledger. Each query aggregates in the database, so the audit reads no row into
    Python more than the problems it reports."""
    report = AuditReport()
    accounts = LedgerAccountModel
    postings = LedgerPostingModel
    transactions = LedgerTransactionModel
    mints = [found.mint for found in CURRENCIES.values()]

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

    # 3. Nobody but the mints is overdrawn.
    negative = await session.execute(
        select(accounts.name, accounts.balance)
        .where(accounts.balance < 0, accounts.name.not_in(mints))
        .order_by(accounts.name)
    )
    _listed(
        report.problems,
        [f"account {name} is below zero: {bal}" for name, bal in negative],
        "accounts below zero",
    )

    classified = _classified(session.get_bind().dialect.name)

    # 4. No transaction mixes currencies.
    mixed = await session.execute(
        select(transactions.id, transactions.key)
        .join(postings, postings.transaction_id == transactions.id)
        .join(classified, classified.c.name == postings.account)
        .group_by(transactions.id, transactions.key)
        .having(func.count(distinct(classified.c.currency)) > 1)
        .order_by(transactions.id)
    )
    _listed(
        report.problems,
        [
            f"transaction {key!r} (#{tid}) moves chips of more than one currency"
            for tid, key in mixed
        ],
        "transactions that mix currencies",
    )

    # 5. Chips are conserved, each currency on its own: circulation = minted - burned, i.e. the
    # currency's balances sum to zero.
    sums_by_role: dict[str, dict[str, int]] = {}
    for currency, role, total in await session.execute(
        select(classified.c.currency, classified.c.role, func.sum(classified.c.balance))
        .group_by(classified.c.currency, classified.c.role)
    ):  # fmt: skip
        sums_by_role.setdefault(str(currency), {})[str(role)] = int(total or 0)
    for key in [CHIPS.key, *sorted(set(sums_by_role) - {CHIPS.key})]:
        roles = sums_by_role.get(key, {})
        total = sum(roles.values())
        mint, burn = roles.get("mint", 0), roles.get("burn", 0)
        figures = report.currencies.setdefault(key, Figures())
        figures.minted = -mint
        figures.burned = burn
        figures.circulation = total - mint - burn
        figures.in_wallets = roles.get("wallet", 0)
        figures.at_tables = roles.get("table", 0)
        figures.house = roles.get("house", 0)
        figures.elsewhere = (
            figures.circulation - figures.in_wallets - figures.at_tables - figures.house
        )
        if total != 0:
            label = "" if key == CHIPS.key else f"{key} chips: "
            report.problems.append(
                f"{label}balances sum to {total}, not zero: {figures.circulation} chips in "
                f"circulation, {figures.minted} minted - {figures.burned} burned = "
                f"{figures.minted - figures.burned}"
            )
    return report


# --- the `rummyhall audit` command ------------------------------------------------------------


@asynccontextmanager
async def opened_for_audit(url: str) -> AsyncIterator[Database]:
    """The database at ``url``, opened without migrating it, for reading. Raises DatabaseError
    if it cannot be reached or is not at this version's schema."""
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
        yield db
    finally:
        await db.close()


async def audit_database(url: str) -> AuditReport:
    """Open the database at ``url`` (without migrating it) and audit its ledger in one
    snapshot. Raises DatabaseError if it cannot be reached or is not at this version's schema."""
    async with opened_for_audit(url) as db, db.read() as session:
        return await audit(session)


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

"""Practice chips (issue 15): the mints of other currencies (``mint:practice``) may go below zero
like ``mint``.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

CHECK_NAME = "ck_ledger_accounts_balance_not_negative"
OLD_CHECK = "balance >= 0 OR name = 'mint'"
NEW_CHECK = "balance >= 0 OR name = 'mint' OR name LIKE 'mint:%'"


def _ledger_accounts_check(check: str) -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.drop_constraint(op.f(CHECK_NAME), "ledger_accounts", type_="check")
        op.create_check_constraint(op.f(CHECK_NAME), "ledger_accounts", check)
        return
    # SQLite changes a CHECK only by rebuilding the table, and ledger_postings refers to it:
    # Alembic's batch rebuild drops the old table under the postings, which SQLite's foreign
    # keys refuse (PRAGMA foreign_keys cannot be turned off inside the migration's transaction).
    # So: the rows aside, the table dropped with its references counted as deferred violations,
    # made again with the new CHECK, and the rows put back (each settles the postings that refer
    # to it, so the commit finds no violation left).
    op.execute("PRAGMA defer_foreign_keys = ON")
    op.execute(
        "CREATE TEMPORARY TABLE ledger_accounts_0003 AS SELECT name, balance FROM ledger_accounts"
    )
    op.drop_table("ledger_accounts")
    op.create_table(
        "ledger_accounts",
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("balance", sa.BigInteger(), nullable=False),
        sa.CheckConstraint(check, name=op.f(CHECK_NAME)),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_ledger_accounts")),
    )
    op.execute(
        "INSERT INTO ledger_accounts (name, balance) SELECT name, balance FROM ledger_accounts_0003"
    )
    op.execute("DROP TABLE ledger_accounts_0003")


def upgrade() -> None:
    _ledger_accounts_check(NEW_CHECK)


def downgrade() -> None:
    # (Refused while a practice mint is below zero: drop the practice chips first.)
    _ledger_accounts_check(OLD_CHECK)

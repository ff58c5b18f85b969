"""Two indexes nothing read (issue 20, speed): the ledger's postings by account, and the hands
by table alone.

Every action of a live table posts chips between its seat and pot accounts, and each posting
landed on a leaf of its own in the index by account. At a thousand live tables on SQLite that
index took 30 % of the pages written to the write-ahead log (docs/storage.md, "What an action
writes"); on PostgreSQL, an index entry and its WAL record per posting. No query reads one
account's postings: a player's chips are told by their chip flows and hands, and the audit sums
the postings whole (faster by a scan than by this index). The hands by table are found through
the unique index on ``(table_id, seq)`` of revision 0006, which leads with the table.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-29
"""

from __future__ import annotations

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_ledger_postings_account_history", table_name="ledger_postings")
    op.drop_index("ix_hands_table_id", table_name="hands")


def downgrade() -> None:
    op.create_index("ix_hands_table_id", "hands", ["table_id"], unique=False)
    op.create_index(
        "ix_ledger_postings_account_history", "ledger_postings", ["account", "id"], unique=False
    )

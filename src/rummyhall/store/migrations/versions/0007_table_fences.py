"""Fencing tokens (issue 21, several nodes): ``table_fences`` holds, per table, the highest lease
token a write to its log has carried; a write with a lower one is refused
(rummyhall.store.fences). A table of its own rather than a column of ``game_tables``: SQLite
adds nothing to an existing table without rebuilding it, and the row every write of a table
locks on PostgreSQL is better kept apart from the table's settings.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "table_fences",
        sa.Column("table_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("token", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["game_tables.id"], name=op.f("fk_table_fences_table_id_game_tables")
        ),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_table_fences")),
    )


def downgrade() -> None:
    op.drop_table("table_fences")

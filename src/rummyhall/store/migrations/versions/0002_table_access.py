"""Who may reach a private table: the account that opened a table, and the accounts that opened
its invite (issue 15: a private table is reachable only through its invite).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

# Frozen copies of the model types: a migration must not change when models.py does.
TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    # A plain nullable column: SQLite adds it in place (a foreign key would need a rebuild).
    op.add_column("game_tables", sa.Column("created_by", sa.Integer(), nullable=True))
    op.create_table(
        "table_grants",
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_table_grants_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["table_id"], ["game_tables.id"], name=op.f("fk_table_grants_table_id_game_tables")
        ),
        sa.PrimaryKeyConstraint("table_id", "account_id", name=op.f("pk_table_grants")),
    )


def downgrade() -> None:
    op.drop_table("table_grants")
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("created_by")

"""Chip flows (issue 15): ``chip_flows`` records who paid whom in each settled game, for
``rummyhall audit --flows``.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

# Frozen copies of the model types: a migration must not change when models.py does.
BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "chip_flows",
        sa.Column("id", BIG_ID, nullable=False),
        sa.Column("currency", sa.String(length=20), nullable=False),
        sa.Column("payer", sa.Integer(), nullable=False),
        sa.Column("payee", sa.Integer(), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("hand_id", BIG_ID, nullable=False),
        sa.Column("private", sa.Boolean(), nullable=False),
        sa.Column("at", TIME, nullable=False),
        sa.CheckConstraint("amount > 0", name=op.f("ck_chip_flows_amount_positive")),
        sa.CheckConstraint("payer <> payee", name=op.f("ck_chip_flows_two_accounts")),
        sa.ForeignKeyConstraint(
            ["payer"], ["accounts.id"], name=op.f("fk_chip_flows_payer_accounts")
        ),
        sa.ForeignKeyConstraint(
            ["payee"], ["accounts.id"], name=op.f("fk_chip_flows_payee_accounts")
        ),
        sa.ForeignKeyConstraint(
            ["table_id"], ["game_tables.id"], name=op.f("fk_chip_flows_table_id_game_tables")
        ),
        sa.ForeignKeyConstraint(
            ["hand_id"], ["hands.id"], name=op.f("fk_chip_flows_hand_id_hands")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chip_flows")),
    )
    op.create_index("ix_chip_flows_currency_at", "chip_flows", ["currency", "at"])
    op.create_index("ix_chip_flows_pair", "chip_flows", ["payer", "payee"])


def downgrade() -> None:
    op.drop_table("chip_flows")

"""The initial schema: accounts and sessions, the ledger, tables with their logs, hand history.

Revision ID: 0001
Revises:
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

# Frozen copies of the model types: a migration must not change when models.py does.
BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIME = sa.DateTime(timezone=True)
JSON = sa.JSON(none_as_null=True)


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("name_key", sa.String(length=40), nullable=False),
        sa.Column("password_hash", sa.String(length=256), nullable=True),
        sa.Column("is_guest", sa.Boolean(), nullable=False),
        sa.Column("is_bot", sa.Boolean(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
        sa.UniqueConstraint("name_key", name=op.f("uq_accounts_name_key")),
    )
    op.create_table(
        "auth_sessions",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("expires_at", TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_auth_sessions_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_auth_sessions")),
    )
    op.create_index(op.f("ix_auth_sessions_account_id"), "auth_sessions", ["account_id"])
    op.create_index(op.f("ix_auth_sessions_expires_at"), "auth_sessions", ["expires_at"])

    op.create_table(
        "ledger_accounts",
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("balance", sa.BigInteger(), nullable=False),
        sa.CheckConstraint(
            "balance >= 0 OR name = 'mint'",
            name=op.f("ck_ledger_accounts_balance_not_negative"),
        ),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_ledger_accounts")),
    )
    op.create_table(
        "ledger_transactions",
        sa.Column("id", BIG_ID, nullable=False),
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("memo", JSON, nullable=True),
        sa.Column("created_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_transactions")),
        sa.UniqueConstraint("key", name=op.f("uq_ledger_transactions_key")),
    )
    op.create_table(
        "ledger_postings",
        sa.Column("id", BIG_ID, nullable=False),
        sa.Column("transaction_id", BIG_ID, nullable=False),
        sa.Column("account", sa.String(length=120), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("amount <> 0", name=op.f("ck_ledger_postings_amount_not_zero")),
        sa.ForeignKeyConstraint(
            ["account"],
            ["ledger_accounts.name"],
            name=op.f("fk_ledger_postings_account_ledger_accounts"),
        ),
        sa.ForeignKeyConstraint(
            ["transaction_id"],
            ["ledger_transactions.id"],
            name=op.f("fk_ledger_postings_transaction_id_ledger_transactions"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger_postings")),
    )
    op.create_index("ix_ledger_postings_account_history", "ledger_postings", ["account", "id"])
    op.create_index(
        op.f("ix_ledger_postings_transaction_id"), "ledger_postings", ["transaction_id"]
    )

    op.create_table(
        "game_tables",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=40), nullable=False),
        sa.Column("room", sa.String(length=80), nullable=False),
        sa.Column("config", JSON, nullable=False),
        sa.Column("invite_code", sa.String(length=40), nullable=True),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("closed_at", TIME, nullable=True),
        sa.CheckConstraint(
            "status IN ('open', 'closed')", name=op.f("ck_game_tables_status_known")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_game_tables")),
        sa.UniqueConstraint("invite_code", name=op.f("uq_game_tables_invite_code")),
    )
    op.create_index(op.f("ix_game_tables_status"), "game_tables", ["status"])
    op.create_table(
        "table_log",
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("body", JSON, nullable=False),
        sa.Column("at_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["game_tables.id"], name=op.f("fk_table_log_table_id_game_tables")
        ),
        sa.PrimaryKeyConstraint("table_id", "seq", name=op.f("pk_table_log")),
    )
    op.create_table(
        "hands",
        sa.Column("id", BIG_ID, nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=40), nullable=False),
        sa.Column("seq_start", sa.Integer(), nullable=True),
        sa.Column("finished_at", TIME, nullable=False),
        sa.Column("record", JSON, nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["game_tables.id"], name=op.f("fk_hands_table_id_game_tables")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hands")),
    )
    op.create_index(op.f("ix_hands_table_id"), "hands", ["table_id"])
    op.create_table(
        "hand_players",
        sa.Column("hand_id", BIG_ID, nullable=False),
        sa.Column("seat", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_hand_players_account_id_accounts")
        ),
        sa.ForeignKeyConstraint(
            ["hand_id"],
            ["hands.id"],
            name=op.f("fk_hand_players_hand_id_hands"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("hand_id", "seat", name=op.f("pk_hand_players")),
    )
    op.create_index("ix_hand_players_account_hands", "hand_players", ["account_id", "hand_id"])


def downgrade() -> None:
    for table in (
        "hand_players",
        "hands",
        "table_log",
        "game_tables",
        "ledger_postings",
        "ledger_transactions",
        "ledger_accounts",
        "auth_sessions",
        "accounts",
    ):
        op.drop_table(table)

"""The ladder (issue 19): ``progress`` (clover points, daily bonus) and ``board_lines`` (the
leaderboards).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "progress",
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("clover", sa.BigInteger(), nullable=False),
        sa.Column("bonus_day", sa.Date(), nullable=True),
        sa.Column("bonus_streak", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_progress_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("account_id", name=op.f("pk_progress")),
    )
    op.create_table(
        "board_lines",
        sa.Column("board", sa.String(length=60), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("points", sa.BigInteger(), nullable=False),
        sa.Column("firsts", sa.Integer(), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_board_lines_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("board", "account_id", name=op.f("pk_board_lines")),
    )
    op.create_index(
        "ix_board_lines_rank", "board_lines", ["board", "rating", "games", "account_id"]
    )


def downgrade() -> None:
    op.drop_table("board_lines")
    op.drop_table("progress")

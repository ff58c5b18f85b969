"""The ladder (issue 19): ``progress`` (clover points, daily bonus), ``board_lines`` (the
leaderboards), the leagues (``league_players``, ``league_seasons``, ``league_outcomes``),
``achievements`` and ``invites``.

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

    op.create_table(
        "league_players",
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("league", sa.String(length=20), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_league_players_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("account_id", name=op.f("pk_league_players")),
    )
    op.create_index("ix_league_players_league", "league_players", ["league"])
    op.create_table(
        "league_seasons",
        sa.Column("season", sa.Integer(), nullable=False),
        sa.Column("rolled_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("season", name=op.f("pk_league_seasons")),
    )
    op.create_table(
        "league_outcomes",
        sa.Column("season", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("league", sa.String(length=20), nullable=False),
        sa.Column("place", sa.Integer(), nullable=True),
        sa.Column("outcome", sa.String(length=10), nullable=False),
        sa.Column("to_league", sa.String(length=20), nullable=True),
        sa.Column("prize", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_league_outcomes_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("season", "account_id", name=op.f("pk_league_outcomes")),
    )
    op.create_table(
        "achievements",
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=40), nullable=False),
        sa.Column("earned_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_achievements_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("account_id", "key", name=op.f("pk_achievements")),
    )
    op.create_table(
        "invites",
        sa.Column("invitee_id", sa.Integer(), nullable=False),
        sa.Column("inviter_id", sa.Integer(), nullable=False),
        sa.Column("rewarded_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["invitee_id"],
            ["accounts.id"],
            name=op.f("fk_invites_invitee_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["inviter_id"],
            ["accounts.id"],
            name=op.f("fk_invites_inviter_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("invitee_id", name=op.f("pk_invites")),
    )
    op.create_index("ix_invites_inviter_id", "invites", ["inviter_id"])


def downgrade() -> None:
    op.drop_table("invites")
    op.drop_table("achievements")
    op.drop_table("league_outcomes")
    op.drop_table("league_seasons")
    op.drop_table("league_players")
    op.drop_table("board_lines")
    op.drop_table("progress")

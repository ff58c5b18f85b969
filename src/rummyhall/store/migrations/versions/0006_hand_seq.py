"""The log entry that ended each hand (issue 20): ``hands.seq``, unique per table.

The table writer stores a finished game's record, its players and its chip flows in bulk
statements with the batch's log rows; the players and flows find their hand by (table, seq)
instead of reading back the new row's id, so that a batch with games ending in it runs as plain
statements on the driver, like any other. Hands written before this revision have no ``seq``.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("hands") as batch:
        batch.add_column(sa.Column("seq", sa.Integer(), nullable=True))
    op.create_index("ux_hands_table_seq", "hands", ["table_id", "seq"], unique=True)


def downgrade() -> None:
    op.drop_index("ux_hands_table_seq", table_name="hands")
    with op.batch_alter_table("hands") as batch:
        batch.drop_column("seq")

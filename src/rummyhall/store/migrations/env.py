"""Alembic's entry point. ``Database.migrate`` hands us an open connection; the ``alembic`` command
line is not used (there is no alembic.ini): new revisions are written by hand, checked against the
models by tests/test_store_migrations.py."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from rummyhall.store.models import Base

connection = context.config.attributes.get("connection")
if not isinstance(connection, Connection):
    raise RuntimeError("run the migrations through rummyhall.store.database.Database.migrate")

context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    # SQLite cannot ALTER most things; batch mode rebuilds the table instead.
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()

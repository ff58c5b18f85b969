"""Bulk statements: many rows in one statement that takes them as a single JSON document.

The database unpacks the document (SQLite's ``json_each``, PostgreSQL's ``json_array_elements``;
it is written with :func:`rummyhall.store.database.json_text`), so the statement's text is the
same for any number of rows: it is compiled once, there is one parameter to bind instead of one
per value, and the statement runs in one step. The table writer's batches are made of such
statements (:func:`rummyhall.store.tables.write_logs`,
:func:`rummyhall.economy.bulk.write_transfers`).
The two databases unpack JSON with different functions, so each statement is written for each.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import BindParameter, TextClause, text


def by_dialect(
    *, sqlite: str, postgresql: str, binds: Sequence[BindParameter[Any]] = ()
) -> dict[str, TextClause]:
    """A statement's text for each database (by SQLAlchemy dialect name), with typed binds."""
    return {
        "sqlite": text(sqlite).bindparams(*binds),
        "postgresql": text(postgresql).bindparams(*binds),
    }

"""Bulk statements: many rows in one statement that takes them as a single JSON document.

The database unpacks the document (SQLite's ``json_each``, PostgreSQL's ``json_array_elements``;
it is written with :func:`json_text`), so the statement's text is the
same for any number of rows: it is compiled once, there is one parameter to bind instead of one
per value, and the statement runs in one step. The table writer's batches are made of such
statements (:func:`rummyhall.store.tables.log_steps`,
:func:`rummyhall.economy.bulk.transfer_steps`). The two databases unpack JSON with different
functions, so each statement is written for each.

A batch is a list of :class:`Step` (a statement and its values), which runs either on a
SQLAlchemy connection (:func:`run_steps`: the cold paths and tools) or straight on the driver's
connection (:meth:`rummyhall.store.database.Database.write_steps`: the table writer's hot path,
where SQLAlchemy's work per statement was most of the cost of a commit).

Straight on SQLite's driver a step whose statement has a plain form for one row
(:attr:`Bulk.sqlite_each`) runs that with ``executemany`` over its rows (:attr:`Step.each`)
instead (:func:`run_on_sqlite`): sqlite3 binds each row in C, where unpacking a JSON document
in SQL cost more (bench/commit.py: about 12% of the CPU of a commit of one action, about 30% of
a batch of fifty). Both forms write the same rows. A step's document is a :class:`Document`,
encoded only by the road that sends it, and a step's rows are made only by the road that runs
them (:attr:`Step.each`): the batch's log bodies were encoded twice at every commit.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import BindParameter, Connection, TextClause, text

_NAME = re.compile(r"(?<!:):([a-z_]+)")


def json_text(value: Any) -> str:
    """How JSON columns and documents are written (orjson: several times faster than the
    standard library)."""
    return json_bytes(value).decode()


def json_bytes(value: Any, option: int | None = None) -> bytes:
    """``value`` as JSON (UTF-8), keys that are not text written as text (a seat number as a
    key), with orjson's ``option`` besides, if given. orjson's option for such keys costs a
    third of the encoding of a table's message even when every key is text, as they nearly
    always are (callgrind: 72,216 instructions a Patti message with it, 42,836 without): the
    option is asked for only when the plain encoding refuses a key, and the result is the
    same."""
    try:
        return orjson.dumps(value, option=option)
    except orjson.JSONEncodeError:
        return orjson.dumps(value, option=(option or 0) | orjson.OPT_NON_STR_KEYS)


@dataclass(frozen=True, slots=True)
class Document:
    """A statement's parameter that is one JSON document of rows (:func:`json_text` of
    ``value``), encoded when a statement binds it (:func:`bound`), not when the step is made."""

    value: Any


def bound(value: Any) -> Any:
    """A step's value as a statement binds it: a :class:`Document` as its JSON text."""
    return json_text(value.value) if isinstance(value, Document) else value


@dataclass(frozen=True, eq=False)
class Bulk:
    """One statement for each database (by SQLAlchemy dialect name): as SQLAlchemy text with
    typed binds, and as the driver's own text (sqlite3 takes ``:name`` as written; asyncpg
    takes ``$1, $2, ...`` in the order of :attr:`names`). Compared and hashed by identity: each
    is one statement, made once (store/pg_steps.py keys its function's branches by them)."""

    clauses: Mapping[str, TextClause]
    sqlite: str
    postgresql: str
    names: tuple[str, ...]
    """The parameters in the order of the PostgreSQL text's ``$n``."""
    sqlite_each: str | None = None
    """The statement for one row, with ``?1, ?2, ...`` for the items of a :attr:`Step.each`
    row, run once per row with ``executemany`` straight on the SQLite driver (None: the
    statement has no such form)."""

    def values_in_order(self, values: Mapping[str, Any]) -> list[Any]:
        """``values`` as the PostgreSQL text's ``$1, $2, ...`` (documents encoded)."""
        return [bound(values[name]) for name in self.names]


def by_dialect(
    *,
    sqlite: str,
    postgresql: str,
    binds: Sequence[BindParameter[Any]] = (),
    sqlite_each: str | None = None,
) -> Bulk:
    """A statement's text for each database, with typed binds for SQLAlchemy (and its plain
    form for one row on SQLite, :attr:`Bulk.sqlite_each`)."""
    names: list[str] = []

    def number(match: re.Match[str]) -> str:
        if match.group(1) not in names:
            names.append(match.group(1))
        return f"${names.index(match.group(1)) + 1}"

    return Bulk(
        clauses={
            "sqlite": text(sqlite).bindparams(*binds),
            "postgresql": text(postgresql).bindparams(*binds),
        },
        sqlite=sqlite,
        postgresql=_NAME.sub(number, postgresql),
        names=tuple(names),
        sqlite_each=sqlite_each,
    )


@dataclass(frozen=True, slots=True)
class Step:
    """A bulk statement with its values, and how many rows it must write (None: any number)."""

    statement: Bulk
    values: Mapping[str, Any]
    rows: int | None = None
    each: Callable[[], Sequence[tuple[Any, ...]]] | None = None
    """Makes the same rows for :attr:`Bulk.sqlite_each`, one tuple a row, as the SQLite driver
    takes them (JSON as text, timestamps as SQLAlchemy stores them), when that road runs the
    step (no other road pays for their JSON); None: the step has none."""


class BulkError(Exception):
    """A step wrote another number of rows than it must (its transaction is rolled back)."""


def run_steps(conn: Connection, steps: Sequence[Step]) -> None:
    """Run ``steps`` in order on a SQLAlchemy connection (in the caller's transaction)."""
    for step in steps:
        values = {name: bound(value) for name, value in step.values.items()}
        result = conn.execute(step.statement.clauses[conn.dialect.name], values)
        check_rows(step, result.rowcount)


def run_on_sqlite(raw: sqlite3.Connection, step: Step) -> None:
    """Run ``step`` straight on a sqlite3 connection (in the caller's transaction): its plain
    form for each row if it has one, else its JSON-document statement."""
    each = step.statement.sqlite_each
    if each is not None and step.each is not None:
        written = raw.executemany(each, step.each()).rowcount
    else:
        values = {name: sqlite_value(bound(value)) for name, value in step.values.items()}
        written = raw.execute(step.statement.sqlite, values).rowcount
    check_rows(step, written)


def check_rows(step: Step, written: int) -> None:
    if step.rows is not None and written != step.rows:
        raise BulkError(f"a bulk statement wrote {written} rows, not {step.rows}")


def sqlite_value(value: Any) -> Any:
    """A value as the sqlite3 driver takes it, stored as SQLAlchemy stores it (timestamps:
    naive UTC text; models.UTCDateTime reads them back with their zone)."""
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    return value

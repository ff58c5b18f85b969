"""A batch of bulk steps on PostgreSQL in one round trip: the table writer's hot path.

Each statement sent to PostgreSQL is a round trip, and in the server its answer waits for the
event loop's next turn. A batch of plain actions is about ten statements (BEGIN, the log rows,
four for the chips, three for the games it ends, COMMIT), so at the 400 ms stress a commit took
ten turns of a busy loop (22-29 commits a second, issue 20), and each round trip is work of the
server's own (asyncpg's protocol, a future, a wake-up of the writer's task).

Here the batch is one call of a PL/pgSQL function that runs the same statements in order:
``SELECT pg_temp.rummyhall_steps($1)``, sent outside any transaction, so that it is its own
transaction and its own commit (one round trip in all, atomic as the steps were). The function
lives in the connection's temporary schema, so it needs no migration and is gone with the
connection. It is written from the steps' own PostgreSQL text (:attr:`Bulk.postgresql
<rummyhall.store.bulk.Bulk.postgresql>`) the first time the connection meets each of them:
each ``$n`` becomes the step's n-th value, taken from the step's JSON array with the type
PostgreSQL infers for ``$n`` when it prepares the statement. So there is one text of each
statement, as before; PL/pgSQL keeps each one's plan for the connection, as asyncpg's prepared
statements did. A step with a row count to meet (:attr:`Step.rows
<rummyhall.store.bulk.Step.rows>`) is checked inside the function, which raises
:data:`ROWS_SQLSTATE` (a :class:`~rummyhall.store.bulk.BulkError` here) and so rolls the whole
batch back.

The steps travel as one ``json[]`` value: each step ``[statement, rows or null, value, ...]``,
a :class:`~rummyhall.store.bulk.Document` as its JSON itself (not a text inside the text),
a timestamp as ISO 8601 with its zone. No value is ever pasted into a statement's text.

Creating the function takes the role's TEMPORARY privilege on the database, which PostgreSQL
grants everyone unless an operator revoked it. Without it the writer logs a warning once and
sends each statement as a round trip of its own, in one transaction (:attr:`PgSteps.each`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

import asyncpg  # type: ignore[import-untyped]  # (no type information)
import orjson

from rummyhall.store.bulk import Bulk, BulkError, Document, Step, check_rows, json_bytes

log = logging.getLogger(__name__)

ROWS_SQLSTATE = "RHB01"
"""The error the function raises when a step wrote another number of rows than it must (a
SQLSTATE of the room's own: class ``RH`` is not one of PostgreSQL's)."""

FUNCTION = "pg_temp.rummyhall_steps"

_PARAMETER = re.compile(r"\$(\d+)\b")
_STEP = "rummyhall_step"
"""The function's loop variable (a name no statement uses for a column or an alias)."""


class PgSteps:
    """The function on one asyncpg connection, and which statements it knows so far."""

    def __init__(self, driver: Any) -> None:
        self._driver = driver
        self._index: dict[Bulk, int] = {}  # (by identity) each statement's branch of the function
        self._branches: list[str] = []
        self.each = False
        """The role may not create the function (no TEMPORARY privilege on the database): each
        statement is then a round trip of its own, in one transaction, as before."""

    async def run(self, steps: Sequence[Step]) -> None:
        """Run ``steps`` in order, in one transaction of their own, committed when this returns
        (a wrong row count raises :class:`BulkError`, any other failure asyncpg's error: either
        way nothing of the batch is written)."""
        if not self.each and any(step.statement not in self._index for step in steps):
            await self._learn([step.statement for step in steps])
        if self.each:
            await self._run_each(steps)
            return
        document = [_encoded(self._index[step.statement], step) for step in steps]
        try:
            await self._driver.execute(f"SELECT {FUNCTION}($1::json[])", document)
        except asyncpg.PostgresError as error:
            if error.sqlstate == ROWS_SQLSTATE:
                raise BulkError(str(error)) from error
            raise

    async def _learn(self, statements: Sequence[Bulk]) -> None:
        """Write the function again with the ``statements`` it does not know yet (their
        parameters' types are PostgreSQL's own, read from the prepared statements)."""
        index, branches = dict(self._index), list(self._branches)
        for bulk in statements:
            if bulk not in index:
                prepared = await self._driver.prepare(bulk.postgresql)
                types = [f"{t.schema}.{t.name}" for t in prepared.get_parameters()]
                index[bulk] = len(branches)
                branches.append(_branch(len(branches), bulk.postgresql, types))
        try:
            await self._driver.execute(_function(branches))
        except asyncpg.InsufficientPrivilegeError as error:
            log.warning(
                "the table writer may not create its function in the temporary schema (%s): "
                "each statement of a batch is a round trip of its own (grant the role TEMPORARY "
                "on the database to save them)",
                error,
            )
            self.each = True
            return
        self._index, self._branches = index, branches

    async def _run_each(self, steps: Sequence[Step]) -> None:
        async with self._driver.transaction():
            for step in steps:
                values = step.statement.values_in_order(step.values)
                status = await self._driver.execute(step.statement.postgresql, *values)
                check_rows(step, int(status.rsplit(" ", 1)[-1]))


def _encoded(number: int, step: Step) -> str:
    """A step as the function takes it: ``[branch, rows or null, value, ...]``, a document as
    its JSON, a timestamp in ISO 8601 (a naive one read as UTC, as asyncpg reads it)."""
    values = [step.values[name] for name in step.statement.names]
    row = [number, step.rows, *(v.value if isinstance(v, Document) else v for v in values)]
    return json_bytes(row, orjson.OPT_NAIVE_UTC).decode()


def _value(position: int, sql_type: str) -> str:
    """The step's value at ``position`` of its JSON array, as a ``$n`` of ``sql_type``: JSON as
    it is, anything else from its text (a number's digits, a timestamp's ISO 8601)."""
    if sql_type in ("pg_catalog.json", "pg_catalog.jsonb"):
        return f"CAST({_STEP} -> {position} AS {sql_type})"
    if sql_type.rpartition(".")[2].startswith("_"):  # (PostgreSQL's name of an array type)
        raise ValueError(f"a bulk statement takes rows as one JSON document, not {sql_type}")
    return f"CAST({_STEP} ->> {position} AS {sql_type})"


def _branch(number: int, text: str, types: Sequence[str]) -> str:
    """One statement as a branch of the function's CASE, its row count kept for the check."""
    if "$function$" in text:
        raise ValueError("a bulk statement's text may not hold the function's quote")

    def value(match: re.Match[str]) -> str:
        n = int(match.group(1))
        return _value(n + 1, types[n - 1])  # (the step's array: number, rows, then $1, $2...)

    return f"""
      WHEN {number} THEN
        {_PARAMETER.sub(value, text).strip()};
        GET DIAGNOSTICS written = ROW_COUNT;"""


def _function(branches: Sequence[str]) -> str:
    return f"""
CREATE OR REPLACE FUNCTION {FUNCTION}(steps json[]) RETURNS void LANGUAGE plpgsql AS $function$
DECLARE
  {_STEP} json;
  written bigint;
BEGIN
  FOREACH {_STEP} IN ARRAY steps LOOP
    CASE CAST({_STEP} ->> 0 AS integer){"".join(branches)}
    END CASE;
    IF json_typeof({_STEP} -> 1) = 'number' AND written <> CAST({_STEP} ->> 1 AS bigint) THEN
      RAISE EXCEPTION 'a bulk statement wrote % rows, not %', written, {_STEP} ->> 1
        USING ERRCODE = '{ROWS_SQLSTATE}';
    END IF;
  END LOOP;
END
$function$"""

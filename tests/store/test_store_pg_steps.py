"""A batch of bulk steps on PostgreSQL in one round trip (store/pg_steps.py): the function it
writes runs the steps in order, as one transaction, with the values as the steps gave them."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import asyncpg
import orjson
import pytest

from rummyhall.economy.bulk import Transfer, transfer_steps
from rummyhall.store import tables
from rummyhall.store.accounts import create_bot
from rummyhall.store.bulk import BulkError, Step, by_dialect
from rummyhall.store.database import Database
from rummyhall.store.pg_steps import PgSteps
from rummyhall.store.tables import FinishedHand, LogEntry

pytestmark = pytest.mark.parametrize("db", ["postgresql"], indirect=True)


@pytest.fixture
async def driver(db: Database) -> AsyncIterator[Any]:
    """An asyncpg connection of the test's own to ``db``."""
    url = db.engine.url.set(drivername="postgresql")
    conn = await asyncpg.connect(url.render_as_string(hide_password=False))
    yield conn
    await conn.close()


async def _table(db: Database) -> int:
    async with db.transaction() as session:
        return await tables.create_table(session, game="patti", room="r", config={})


def _awkward_body(n: int) -> dict[str, Any]:
    """A log body whose text would break a statement that pasted it in: quotes, backslashes,
    dollar quotes, a NUL-free control character, text in other scripts."""
    return {"n": n, "say": "it's \\ \"$function$\" $1 '; DROP TABLE x; --\t₹ नमस्ते"}


async def test_a_batch_is_one_statement_once_the_connection_knows_its_steps(
    db: Database, driver: Any
) -> None:
    table = await _table(db)
    steps = PgSteps(driver)
    sent: list[str] = []
    driver.add_query_logger(lambda query: sent.append(query.query))

    def batch(seq: int) -> list[Step]:
        entries = [
            LogEntry(table, seq + i, "act", _awkward_body(seq + i), 1000 + i) for i in (0, 1)
        ]
        move = Transfer(f"t:{seq}", [("mint", -5), (f"table:{table}:pot", 5)], "act", None)
        return tables.log_steps(entries) + transfer_steps([move])

    await steps.run(batch(1))
    learned = len(sent)
    assert learned > 1  # (the statements prepared, the function written, then the batch)
    await steps.run(batch(3))
    assert len(sent) == learned + 1
    assert re.fullmatch(r"SELECT pg_temp\.rummyhall_steps\(\$1::json\[\]\)", sent[-1])

    # What the batches wrote, as they gave it.
    log = await driver.fetch(
        "SELECT seq, kind, body::text, at_ms FROM table_log WHERE table_id = $1 ORDER BY seq", table
    )
    assert [(r["seq"], r["kind"], r["at_ms"]) for r in log] == [
        (1, "act", 1000), (2, "act", 1001), (3, "act", 1000), (4, "act", 1001)
    ]  # fmt: skip
    assert [orjson.loads(r["body"]) for r in log] == [_awkward_body(n) for n in (1, 2, 3, 4)]
    pot = await driver.fetchval(
        "SELECT balance FROM ledger_accounts WHERE name = $1", f"table:{table}:pot"
    )
    assert pot == 10
    memos = await driver.fetch("SELECT memo FROM ledger_transactions WHERE key LIKE 't:%'")
    assert [r["memo"] for r in memos] == [None, None]  # (SQL NULL, not JSON null)


async def test_a_statement_met_later_is_added_and_the_others_still_run(
    db: Database, driver: Any
) -> None:
    table = await _table(db)
    async with db.transaction() as session:
        one, two = [(await create_bot(session, name)).id for name in ("Asha", "Bilal")]
    steps = PgSteps(driver)
    await steps.run(tables.log_steps([LogEntry(table, 1, "act", {}, 1)]))
    # A game's end: two statements the function has not met, one with a timestamp.
    finished = datetime(2026, 11, 29, 9, 30, 1, 123456, tzinfo=UTC)
    hand = FinishedHand(table, 2, "patti", {"winner": 1}, {1: one, 2: two}, seq_start=1)
    await steps.run(
        tables.log_steps([LogEntry(table, 2, "act", {}, 2)])
        + tables.hand_steps([hand], finished_at=finished)
    )
    row = await driver.fetchrow(
        "SELECT game, seq_start, record::text, finished_at FROM hands WHERE table_id = $1", table
    )
    assert (row["game"], row["seq_start"], row["finished_at"]) == ("patti", 1, finished)
    players = await driver.fetch(
        "SELECT seat, account_id FROM hand_players ORDER BY seat",
    )
    assert [tuple(p) for p in players] == [(1, one), (2, two)]
    assert await driver.fetchval("SELECT count(*) FROM table_log WHERE table_id = $1", table) == 2


_COUNT_LOGS = by_dialect(
    sqlite="UPDATE table_log SET kind = kind WHERE table_id = :table_id",
    postgresql="UPDATE table_log SET kind = kind WHERE table_id = :table_id",
)


async def test_a_wrong_row_count_or_a_failed_statement_writes_nothing(
    db: Database, driver: Any
) -> None:
    table = await _table(db)
    steps = PgSteps(driver)
    first = tables.log_steps([LogEntry(table, 1, "act", {}, 1)])
    # The log row is written, then a step that must touch two rows touches one: all undone.
    with pytest.raises(BulkError, match="wrote 1 rows, not 2"):
        await steps.run([*first, Step(_COUNT_LOGS, {"table_id": table}, rows=2)])
    assert await driver.fetchval("SELECT count(*) FROM table_log") == 0
    # The same with the count met: written.
    await steps.run([*first, Step(_COUNT_LOGS, {"table_id": table}, rows=1)])
    assert await driver.fetchval("SELECT count(*) FROM table_log") == 1
    # A statement the database refuses (the same key again) after a good one: nothing of it.
    second = tables.log_steps([LogEntry(table, 2, "act", {}, 2)])
    with pytest.raises(asyncpg.UniqueViolationError):
        await steps.run([*second, *first])
    assert await driver.fetchval("SELECT count(*) FROM table_log") == 1
    # The connection is fine afterwards, outside any transaction.
    await steps.run(second)
    assert await driver.fetchval("SELECT count(*) FROM table_log") == 2
    assert not driver.is_in_transaction()


async def test_a_role_that_may_not_create_the_function_writes_statement_by_statement(
    db: Database, driver: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """An operator who revoked TEMPORARY from the room's role still gets every batch written:
    the writer says so once and sends each statement as before."""
    table = await _table(db)
    database = db.engine.url.database
    role = f"rh_plain_{os.getpid()}"
    await driver.execute(f"CREATE ROLE {role} LOGIN")
    await driver.execute(f'REVOKE TEMPORARY ON DATABASE "{database}" FROM PUBLIC')
    try:
        await driver.execute(
            f"GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO {role}"
        )
        await driver.execute(f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {role}")
        url = db.engine.url.set(drivername="postgresql", username=role)
        plain = await asyncpg.connect(url.render_as_string(hide_password=False))
        try:
            steps = PgSteps(plain)
            move = Transfer("t:1", [("mint", -5), (f"table:{table}:pot", 5)], "act", None)
            with caplog.at_level(logging.WARNING, logger="rummyhall.store.pg_steps"):
                await steps.run(
                    tables.log_steps([LogEntry(table, 1, "act", {}, 1)]) + transfer_steps([move])
                )
                await steps.run(tables.log_steps([LogEntry(table, 2, "act", {}, 2)]))
            assert steps.each
            assert len([r for r in caplog.records if "TEMPORARY" in r.getMessage()]) == 1
            # Its row counts are still checked, and a failure still undoes the whole batch.
            with pytest.raises(BulkError):
                await steps.run(
                    [
                        *tables.log_steps([LogEntry(table, 3, "act", {}, 3)]),
                        Step(_COUNT_LOGS, {"table_id": table}, rows=5),
                    ]
                )
        finally:
            await plain.close()
        assert await driver.fetchval("SELECT count(*) FROM table_log") == 2
        pot = f"table:{table}:pot"
        assert (
            await driver.fetchval("SELECT balance FROM ledger_accounts WHERE name = $1", pot) == 5
        )
    finally:
        await driver.execute(f'GRANT TEMPORARY ON DATABASE "{database}" TO PUBLIC')
        await driver.execute(f"DROP OWNED BY {role}")
        await driver.execute(f"DROP ROLE {role}")

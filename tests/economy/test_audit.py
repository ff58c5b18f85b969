"""The ledger audit and ``rummyhall audit``: clean figures, and every kind of corruption found."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, select, text

from rummyhall import catalog, cli
from rummyhall.economy import ledger, wallets
from rummyhall.economy.audit import AuditReport, audit
from rummyhall.economy.ledger import transfer
from rummyhall.store import accounts
from rummyhall.store import tables as store_tables
from rummyhall.store.database import Database, default_url
from rummyhall.store.models import AccountModel

PRACTICE_ROOM = next(room for room in catalog.rooms() if room.currency == "practice")


SILVER = 10_000
"""Each player's silver: enough for the buy-in below (the starting purse is not under test)."""


async def populate(db: Database) -> tuple[int, int]:
    """Two players, a guest and a bot; a buy-in, a bet, a rake and a burn."""
    async with db.transaction() as session:
        asha = await accounts.register(session, "asha", "password-1")
        ravi = await accounts.register(session, "ravi", "password-2")
        guest = await accounts.create_guest(session)
        bot = await accounts.create_bot(session, "bot-one")
        for account in (asha, ravi, guest):
            await wallets.open_wallets(session, account, silver=SILVER, gold=0)
        # A table of real chips (on a fresh database: table 1, whose accounts are used below;
        # accounts of no table count as real chips too).
        real = next(room for room in catalog.rooms() if room.currency == "chips")
        await store_tables.create_table(
            session, game=real.game, room=real.key, config=real.to_json()
        )
        await transfer(
            session, "bot:1", [("mint", -500), (f"player:{bot.id}", 500)], kind="bot_chips"
        )
        await transfer(
            session,
            "table:1:join:asha",
            [(f"player:{asha.id}", -2000), ("table:1:seat:1", 2000)],
            kind="buy_in",
        )
        await transfer(
            session,
            "table:1:seq:5",
            [("table:1:seat:1", -300), ("table:1:pot", 270), ("house", 30)],
            kind="bet",
        )
        await transfer(
            session, "burn:1", [(f"player:{ravi.id}", -1000), ("burn", 1000)], kind="burn"
        )
    return asha.id, ravi.id


async def run_audit(db: Database) -> AuditReport:
    async with db.read() as session:
        return await audit(session)


async def test_figures_of_a_clean_ledger(db: Database) -> None:
    await populate(db)
    report = await run_audit(db)
    assert report.problems == []
    assert report.ok
    # mint, burn, house, 3 wallets (the guest has none), seat, pot; the practice mint and 3
    # practice wallets
    assert report.accounts == 12
    assert report.transactions == 9
    assert report.postings == 19
    assert report.minted == 2 * SILVER + 500  # no real chips for the guest
    assert report.burned == 1000
    assert report.circulation == report.minted - report.burned
    assert report.at_tables == 1970
    assert report.house == 30
    assert report.in_wallets == report.circulation - 2000
    assert report.elsewhere == 0
    practice = report.currencies["practice"]
    assert practice.minted == practice.circulation == practice.in_wallets
    assert practice.minted == 3 * wallets.PRACTICE_CHIPS
    assert (practice.burned, practice.at_tables, practice.house) == (0, 0, 0)
    figures = (await run_audit(db)).to_json()
    assert figures["ok"] is True
    assert figures["minted"] == report.minted
    assert figures["currencies"]["practice"]["minted"] == 3 * wallets.PRACTICE_CHIPS


async def test_practice_tables_are_counted_with_practice_chips(db: Database) -> None:
    # A practice table's seat and pot accounts hold practice chips: the table's settings say so.
    await populate(db)
    async with db.transaction() as session:
        guest = await session.scalar(select(AccountModel.id).where(AccountModel.is_guest))
        table_id = await store_tables.create_table(
            session, game=PRACTICE_ROOM.game, room=PRACTICE_ROOM.key,
            config=PRACTICE_ROOM.to_json(),
        )  # fmt: skip
        await transfer(
            session,
            f"table:{table_id}:seq:1",
            [(f"practice:{guest}", -300), (f"table:{table_id}:seat:1", 300)],
            kind="buy_in",
        )
        await transfer(
            session,
            f"table:{table_id}:seq:2",
            [
                (f"table:{table_id}:seat:1", -100),
                (f"table:{table_id}:pot", 90),
                ("house:practice", 10),
            ],
            kind="act",
        )
    report = await run_audit(db)
    assert report.ok, report.problems
    practice = report.currencies["practice"]
    assert (practice.at_tables, practice.house) == (290, 10)
    assert practice.in_wallets == 3 * wallets.PRACTICE_CHIPS - 300
    assert report.at_tables == 1970  # the real chips' tables did not change


async def test_a_table_account_is_known_by_its_table_id_as_a_number(db: Database) -> None:
    # An account whose middle part only starts like a table's id belongs to no table: its chips
    # are real chips, not those of the practice table whose id it starts with.
    await populate(db)
    async with db.transaction() as session:
        practice = await store_tables.create_table(
            session, game=PRACTICE_ROOM.game, room=PRACTICE_ROOM.key,
            config=PRACTICE_ROOM.to_json(),
        )  # fmt: skip
        await transfer(session, "odd", [("mint", -40), (f"table:{practice}x:pot", 40)], kind="test")
    report = await run_audit(db)
    assert report.ok, report.problems
    assert report.at_tables == 1970 + 40
    assert report.currencies["practice"].at_tables == 0


async def test_the_audit_looks_tables_up_by_id(tmp_path: Path) -> None:
    # Every statement of the audit finds a ledger account's table through the table's primary
    # key: joined on the id as text, SQLite scanned all tables for every posting, and the audit
    # of a thousand tables' evening took minutes.
    db = await Database.open(default_url(tmp_path))
    statements: list[tuple[str, Any]] = []

    def seen(_conn: object, _cursor: object, statement: str, parameters: Any, *_: object) -> None:
        statements.append((statement, parameters))

    try:
        await populate(db)
        event.listen(db.engine.sync_engine, "before_cursor_execute", seen)
        assert (await run_audit(db)).ok
        event.remove(db.engine.sync_engine, "before_cursor_execute", seen)
        plans: list[str] = []
        async with db.engine.connect() as conn:
            for statement, parameters in statements:
                if "game_tables" in statement:
                    rows = await conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)
                    plans += [str(row[3]) for row in rows]
        assert any("SEARCH game_tables USING INTEGER PRIMARY KEY" in line for line in plans)
        assert not [line for line in plans if line.startswith("SCAN game_tables")]
    finally:
        await db.close()


async def test_chips_that_change_currency_are_found(db: Database) -> None:
    # The ledger refuses to mix named accounts of two currencies...
    asha, _ = await populate(db)
    async with db.transaction() as session:
        with pytest.raises(ledger.LedgerError, match="cannot mix"):
            await transfer(
                session, "mix", [(f"practice:{asha}", -5), (f"player:{asha}", 5)], kind="x"
            )
        # ... but a table's accounts are of its room's currency, which only the audit sees: a
        # bug that paid a practice table's seat into a real wallet.
        table_id = await store_tables.create_table(
            session, game=PRACTICE_ROOM.game, room=PRACTICE_ROOM.key,
            config=PRACTICE_ROOM.to_json(),
        )  # fmt: skip
        await transfer(
            session,
            f"table:{table_id}:seq:1",
            [(f"practice:{asha}", -300), (f"table:{table_id}:seat:1", 300)],
            kind="buy_in",
        )
        await transfer(
            session,
            f"table:{table_id}:seq:2",
            [(f"table:{table_id}:seat:1", -300), (f"player:{asha}", 300)],
            kind="leave",
        )
    problems = (await run_audit(db)).problems
    assert any(
        f"transaction 'table:{table_id}:seq:2'" in p and "more than one currency" in p
        for p in problems
    ), problems
    assert any(p.startswith("balances sum to 300, not zero") for p in problems), problems
    assert any(p.startswith("practice chips: balances sum to -300") for p in problems), problems


async def test_an_empty_ledger_is_clean(db: Database) -> None:
    report = await run_audit(db)
    assert report.ok
    assert (report.accounts, report.minted, report.circulation) == (0, 0, 0)


async def test_a_tampered_balance_is_found(db: Database) -> None:
    asha, _ = await populate(db)
    async with db.transaction() as session:
        await session.execute(
            text("UPDATE ledger_accounts SET balance = balance + 1 WHERE name = :n"),
            {"n": f"player:{asha}"},
        )
    problems = (await run_audit(db)).problems
    assert any(
        f"account player:{asha}: balance 8001 but its postings sum to 8000" in p for p in problems
    )
    assert any("balances sum to 1, not zero" in p for p in problems)


async def test_an_unbalanced_transaction_is_found(db: Database) -> None:
    await populate(db)
    async with db.transaction() as session:
        # One more leg slipped into the bet: the pot gains 5 chips from nowhere.
        await session.execute(
            text(
                "INSERT INTO ledger_postings (transaction_id, account, amount) "
                "SELECT id, 'table:1:pot', 5 FROM ledger_transactions WHERE key = 'table:1:seq:5'"
            )
        )
    problems = (await run_audit(db)).problems
    assert any(
        "transaction 'table:1:seq:5'" in p and "postings sum to 5, not zero" in p for p in problems
    )
    assert any(
        "account table:1:pot: balance 270 but its postings sum to 275" in p for p in problems
    )


async def test_a_transaction_without_postings_is_found(db: Database) -> None:
    _, ravi = await populate(db)
    async with db.transaction() as session:
        # The burn's postings vanish and the balances are put back as if it never happened:
        # only the empty transaction is left to tell.
        for statement, params in (
            ("UPDATE ledger_accounts SET balance = balance - 1000 WHERE name = 'burn'", {}),
            (
                "UPDATE ledger_accounts SET balance = balance + 1000 WHERE name = :n",
                {"n": f"player:{ravi}"},
            ),
            (
                "DELETE FROM ledger_postings WHERE transaction_id = "
                "(SELECT id FROM ledger_transactions WHERE key = 'burn:1')",
                {},
            ),
        ):
            await session.execute(text(statement), params)
    problems = (await run_audit(db)).problems
    assert len(problems) == 1
    assert "transaction 'burn:1'" in problems[0] and "has no postings" in problems[0]


async def test_an_overdrawn_account_is_found(tmp_path: Path) -> None:
    # Only SQLite can be talked out of its CHECK constraints; PostgreSQL refuses outright
    # (tests/economy/test_ledger.py).
    db = await Database.open(default_url(tmp_path))
    try:
        async with db.transaction() as session:
            await transfer(session, "k", [("mint", -10), ("player:1", 10)], kind="x")
        async with db.transaction() as session:
            await session.execute(text("PRAGMA ignore_check_constraints = ON"))
            await session.execute(
                text("UPDATE ledger_accounts SET balance = -5 WHERE name = 'player:1'")
            )
            await session.execute(text("PRAGMA ignore_check_constraints = OFF"))
        problems = (await run_audit(db)).problems
        assert "account player:1 is below zero: -5" in problems
    finally:
        await db.close()


async def test_many_problems_are_summarised(db: Database) -> None:
    async with db.transaction() as session:
        for n in range(25):
            await transfer(session, f"k{n}", [("mint", -10), (f"player:{n}", 10)], kind="x")
        await session.execute(
            text("UPDATE ledger_accounts SET balance = balance + 1 WHERE name LIKE 'player:%'")
        )
    problems = (await run_audit(db)).problems
    assert len(problems) == 22  # 20 listed, "... and 5 more", and the total
    assert "... and 5 more accounts whose balance differs from their postings" in problems


def test_the_audit_is_documented() -> None:
    # (the ledger no longer forwards to the audit, which imports the ledger: no import circle)
    assert audit.__doc__


# --- the command ------------------------------------------------------------------------------


def run_cli(*args: str) -> int:
    return cli.main(["audit", *args])


async def test_command_clean_and_corrupt(db: Database, capsys: pytest.CaptureFixture[str]) -> None:
    await populate(db)
    url = db.engine.url.render_as_string(hide_password=False)
    assert await asyncio.to_thread(run_cli, "--database", url) == 0
    out = capsys.readouterr().out
    for label in (
        "accounts",
        "transactions",
        "chips minted",
        "chips burned",
        "in circulation",
        "in players' wallets",
        "at tables",
        "house",
    ):
        assert label in out
    assert "audit: clean" in out

    assert await asyncio.to_thread(run_cli, "--database", url, "--json") == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["ok"] is True and figures["burned"] == 1000 and figures["problems"] == []

    async with db.transaction() as session:
        await session.execute(
            text("UPDATE ledger_accounts SET balance = balance + 7 WHERE name = 'house'")
        )
    assert await asyncio.to_thread(run_cli, "--database", url) == 1
    out = capsys.readouterr().out
    assert "PROBLEM: account house: balance 37 but its postings sum to 30" in out
    assert "audit: 2 problem(s)" in out


async def test_command_with_a_data_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = await Database.open(default_url(tmp_path / "data"))
    try:
        await populate(db)
    finally:
        await db.close()
    assert await asyncio.to_thread(run_cli, "--data-dir", str(tmp_path / "data")) == 0
    assert "audit: clean" in capsys.readouterr().out


def test_command_cannot_audit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A missing file is not created (and audited as empty).
    assert run_cli("--data-dir", str(tmp_path / "nothing")) == 2
    assert "no database file" in capsys.readouterr().err
    assert not (tmp_path / "nothing").exists()
    # A file that is not ours.
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "rummyhall.db").touch()
    assert run_cli("--data-dir", str(tmp_path / "empty")) == 2
    assert "no schema" in capsys.readouterr().err
    assert run_cli("--database", "mysql://localhost/x") == 2
    assert run_cli("--database", "postgresql://nobody@127.0.0.1:1/none") == 2
    assert "cannot read the database" in capsys.readouterr().err
    with pytest.raises(SystemExit) as caught:  # both places at once: bad usage
        run_cli("--database", "sqlite://", "--data-dir", str(tmp_path))
    assert caught.value.code == 2

"""Reads shared by the questions of one turn of the event loop (store/shared_reads.py), and the
wallets' lookup that a burst of quick seats shares (Database.read_shared with
ledger.balances_on)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from sqlalchemy import Connection, event

from rummyhall.economy import ledger
from rummyhall.store.database import Database
from rummyhall.store.shared_reads import SharedReads


class _Reads:
    """A stand-in for Database.read_now that records each read's questions (no connection:
    the looks here do not use one)."""

    def __init__(self) -> None:
        self.asked: list[list[Any]] = []

    async def read(self, look: Callable[[Any], Any]) -> Any:
        await asyncio.sleep(0)  # (a read takes at least a turn, as a round trip does)
        return look(self)


def _doubled(reads: _Reads, items: Sequence[int]) -> list[int]:
    reads.asked.append(list(items))
    return [2 * item for item in items]


def _broken(_: object, items: Sequence[int]) -> list[int]:
    raise RuntimeError(f"no answer for {list(items)}")


def _short(_: object, items: Sequence[int]) -> list[int]:
    return list(items)[1:]


async def test_the_questions_of_one_turn_share_one_read() -> None:
    reads = _Reads()
    shared = SharedReads()
    # Five in one turn (the same one twice), then one more a turn later: two reads.
    first = await asyncio.gather(*(shared.read(reads.read, _doubled, n) for n in (3, 1, 4, 1, 5)))
    assert first == [6, 2, 8, 2, 10]
    assert await shared.read(reads.read, _doubled, 9) == 18
    assert reads.asked == [[3, 1, 4, 1, 5], [9]]


async def test_a_failed_read_fails_each_of_its_questions_and_no_later_one() -> None:
    reads = _Reads()
    shared = SharedReads()
    results = await asyncio.gather(
        *(shared.read(reads.read, _broken, n) for n in (1, 2)), return_exceptions=True
    )
    assert [str(error) for error in results] == ["no answer for [1, 2]"] * 2
    # A look that answers some questions only fails them all (none is left waiting).
    results = await asyncio.gather(
        *(shared.read(reads.read, _short, n) for n in (1, 2)), return_exceptions=True
    )
    assert [str(error) for error in results] == ["1 answers to 2 questions"] * 2
    assert await shared.read(reads.read, _doubled, 7) == 14


async def test_a_question_given_up_leaves_the_others_answered() -> None:
    reads = _Reads()
    shared = SharedReads()
    gone = asyncio.ensure_future(shared.read(reads.read, _doubled, 1))
    kept = asyncio.ensure_future(shared.read(reads.read, _doubled, 2))
    await asyncio.sleep(0)  # both asked in this turn
    gone.cancel()
    assert await kept == 4
    assert gone.cancelled() and reads.asked == [[1, 2]]


def _count_reads(db: Database) -> list[str]:
    """The statements that read the ledger's accounts from now on, on whichever engine
    Database.read_now uses (on a SQLite file the writer's plain one)."""
    seen: list[str] = []
    engine = db._batch_engine if db._batch_engine is not None else db.engine.sync_engine

    def before(_conn: Connection, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT") and "ledger_accounts" in statement:
            seen.append(statement)

    event.listen(engine, "before_cursor_execute", before)
    return seen


async def test_quick_seats_of_one_turn_read_their_wallets_in_one_statement(db: Database) -> None:
    """On PostgreSQL the wallets asked for in one turn are read by one statement; on a SQLite
    file each is read at once, in the loop (nothing to save by waiting). Either way each asker
    gets its own wallet's balance (0 for a wallet never used)."""
    grants = {"wallet:1:practice": 500, "wallet:2:practice": 70, "wallet:3:chips": 9}

    def grant(conn: Connection) -> None:
        for name, amount in grants.items():
            ledger.transfer_on(conn, f"grant:{name}", [("mint", -amount), (name, amount)], kind="t")

    await db.write(grant)
    seen = _count_reads(db)
    wanted = ["wallet:2:practice", "wallet:1:practice", "wallet:4:practice", "wallet:2:practice"]
    held = await asyncio.gather(*(db.read_shared(ledger.balances_on, name) for name in wanted))
    assert held == [70, 500, 0, 70]
    assert len(seen) == (1 if db.dialect == "postgresql" else len(wanted))
    assert await db.read_shared(ledger.balances_on, "wallet:3:chips") == 9


@pytest.mark.parametrize("accounts", [[], ["a"], ["b", "a", "b"]])
async def test_balances_on_answers_in_the_order_asked(db: Database, accounts: list[str]) -> None:
    await db.write(
        lambda conn: ledger.transfer_on(conn, "g", [("mint", -5), ("a", 3), ("b", 2)], kind="t")
    )
    expected = [{"a": 3, "b": 2}[name] for name in accounts]
    assert await db.read_now(lambda conn: ledger.balances_on(conn, accounts)) == expected

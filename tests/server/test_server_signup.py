"""A burst of guests signing up, as the table writer commits it (server/api.py's
``sign_up_guests``, shared work of the writer's batches), on both databases: a batch of
sign-ups costs the same few statements whatever its size (on PostgreSQL each is a round trip,
and a thousand guests arriving at once took the writer seconds when each cost six), and
every guest gets its account, its practice chips through the ledger and its session."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest
from sqlalchemy import event

from rummyhall.economy import ledger
from rummyhall.economy.audit import audit
from rummyhall.economy.ledger import PRACTICE
from rummyhall.server.api import GuestArrival, sign_up_guests
from rummyhall.server.writer import Writer
from rummyhall.store import accounts
from rummyhall.store.database import Database


async def test_a_batch_of_sign_ups_costs_the_same_statements_whatever_its_size(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Names drawn one after another: no name is drawn twice (a retry would add a statement).
    numbers = itertools.count(100)
    monkeypatch.setattr(accounts.secrets, "randbelow", lambda _: next(numbers))
    statements: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        statements.append(statement)

    # The writer's own connection on SQLite (``Database.write``), the pool's on PostgreSQL.
    engine = db._batch_engine or db.engine.sync_engine
    writer = Writer(db)
    writer.start()
    try:
        [(before, old, _)] = await asyncio.gather(
            writer.write(shared=(sign_up_guests, GuestArrival(None, 500)))
        )
        counts: list[int] = []
        ended: list[str] = []
        signed_up: list[tuple[accounts.Account, str, dict[str, int]]] = []
        for size in (2, 20):
            statements.clear()
            event.listen(engine, "before_cursor_execute", seen)
            try:
                # Written in the same turn of the loop: one batch (as a burst arrives).
                # The first comes back with the session of an earlier guest, which ends.
                ended.append(old if size == 2 else signed_up[1][1])
                arrivals = [GuestArrival(ended[-1], 500)] + [
                    GuestArrival(None, 500) for _ in range(size - 1)
                ]
                signed_up += await asyncio.gather(
                    *(writer.write(shared=(sign_up_guests, arrival)) for arrival in arrivals)
                )
            finally:
                event.remove(engine, "before_cursor_execute", seen)
            counts.append(len(statements))
        commits = writer.commits
    finally:
        await writer.stop()
    # The accounts, the ledger's four bulk steps, ending the old sessions, the new sessions (and
    # on SQLite the transaction's BEGIN IMMEDIATE): the same for 20 guests as for 2.
    assert counts[0] == counts[1] <= 8, counts
    assert commits == 3
    guests = [account for account, _, _ in signed_up]
    assert len({guest.id for guest in guests} | {before.id}) == 23
    assert len({guest.name for guest in guests} | {before.name}) == 23
    async with db.read() as session:
        for token in ended:  # (ended by a sign-up that came with them)
            assert await accounts.session_account(session, token) is None
        for account, token, held in signed_up:
            if token in ended:
                continue
            assert account.is_guest and not account.is_bot
            assert held == {PRACTICE.key: 500}
            assert await ledger.balance(session, PRACTICE.wallet(account.id)) == 500
            assert await accounts.session_account(session, token) == account
        report = await audit(session)
    assert report.ok, report

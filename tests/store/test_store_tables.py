"""Tables, their logs and hand history on both databases."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy.exc import IntegrityError

from rummyhall.economy import ledger
from rummyhall.store import accounts, tables
from rummyhall.store.database import Database
from rummyhall.store.tables import DuplicateLogEntry, LogEntry

CONFIG: dict[str, Any] = {
    "profile": "classic",
    "mode": "points",
    "seats": 4,
    "point_value": 0.5,
    "timers": {"turn_ms": 30_000, "extra": [10, 20, 30]},
    "nested": [[1, [2, {"three": None}]], {"z": 1, "a": 2, "10": 3, "2": 4}],
    "text": 'ünïcödé ♠♥ \u2028 "quoted"',
    "big": 2**62,
}


async def test_create_get_close_tables(db: Database) -> None:
    async with db.transaction() as session:
        first = await tables.create_table(
            session, game="indian13", room="indian13-points-1", config=CONFIG
        )
        second = await tables.create_table(
            session, game="patti", room="patti-boot-10", config={}, invite_code="XK42PQ"
        )
        third = await tables.create_table(
            session, game="indian13", room="indian13-pool101", config={"seats": 6}
        )
    async with db.transaction() as session:
        row = await tables.get_table(session, first)
        assert row is not None
        assert (row.game, row.room, row.status, row.invite_code) == (
            "indian13",
            "indian13-points-1",
            "open",
            None,
        )
        assert row.config == CONFIG
        assert row.created_at.tzinfo is not None and row.closed_at is None
        assert [t.id for t in await tables.open_tables(session)] == [first, second, third]
        invited = await tables.table_by_invite(session, "XK42PQ")
        assert invited is not None and invited.id == second
        assert await tables.table_by_invite(session, "NOPE") is None
        assert await tables.get_table(session, 10**6) is None
        await tables.close_table(session, second)
        await tables.close_table(session, second)
    async with db.read() as session:
        assert [t.id for t in await tables.open_tables(session)] == [first, third]
        closed = await tables.get_table(session, second)
        assert closed is not None and closed.status == "closed" and closed.closed_at is not None
        # A closed table's invite code no longer seats anyone.
        assert await tables.table_by_invite(session, "XK42PQ") is None


async def test_tables_opened_together_get_their_ids_in_order(db: Database) -> None:
    """A batch of quick seats opens its tables in one statement: each id is its own table's."""
    new = [
        tables.NewTable("patti", f"room-{n}", {"n": n}, None if n % 2 else f"CODE{n}", None)
        for n in range(12)
    ]
    async with db.transaction() as session:
        ids = await session.run_sync(lambda sync: tables.insert_tables(sync.connection(), new))
    assert ids == sorted(ids) and len(set(ids)) == 12
    async with db.read() as session:
        for table_id, made in zip(ids, new, strict=True):
            row = await tables.get_table(session, table_id)
            assert row is not None
            assert (row.room, row.config, row.invite_code) == (
                made.room,
                made.config,
                made.invite_code,
            )


async def test_invite_codes_are_unique(db: Database) -> None:
    async with db.transaction() as session:
        await tables.create_table(session, game="patti", room="r", config={}, invite_code="ABC")
    with pytest.raises(IntegrityError):
        async with db.transaction() as session:
            await tables.create_table(session, game="patti", room="r", config={}, invite_code="ABC")


async def test_log_round_trips_exactly(db: Database) -> None:
    body = {"seat": 2, "action": "discard 7H", "deck": ["AS", "JK", "10D"], **CONFIG}
    # Names are anyone's: quotes, backslashes, accents, emoji come back unchanged.
    sit = {"seat": 1, "name": 'Zoë "Ace" \\ 🂡', "big": 2**60, "none": None, "flag": False}
    async with db.transaction() as session:
        table_id = await tables.create_table(session, game="indian13", room="r", config={})
        await tables.append_log(session, table_id, 1, "deal", {"commitment": "ab" * 32}, 1000)
        await tables.append_log(session, table_id, 2, "action", body, 1_700_000_000_123)
        await tables.append_logs(
            session,
            [LogEntry(table_id, seq, "action", {"n": seq}, 2000 + seq) for seq in range(3, 8)],
        )
        await tables.append_log(session, table_id, 8, "sit", sit, 3000)
    async with db.read() as session:
        log = await tables.read_log(session, table_id)
        assert [entry.seq for entry in log] == [1, 2, 3, 4, 5, 6, 7, 8]
        assert log[1] == LogEntry(table_id, 2, "action", body, 1_700_000_000_123)
        assert log[7] == LogEntry(table_id, 8, "sit", sit, 3000)
        # Exactly as written, key order included (no JSONB reordering).
        assert json.dumps(log[1].body) == json.dumps(body)
        assert [e.seq for e in await tables.read_log(session, table_id, after_seq=5)] == [6, 7, 8]
        assert await tables.read_log(session, table_id, after_seq=8) == []
        assert await tables.read_log(session, 10**6) == []
        assert await tables.last_seq(session, table_id) == 8
        assert await tables.last_seq(session, 10**6) == 0


async def test_a_sequence_number_is_written_once(db: Database) -> None:
    async with db.transaction() as session:
        table_id = await tables.create_table(session, game="indian13", room="r", config={})
        await tables.append_log(session, table_id, 1, "deal", {}, 0)
    with pytest.raises(DuplicateLogEntry):
        async with db.transaction() as session:
            await tables.append_log(session, table_id, 1, "action", {"again": True}, 5)
    with pytest.raises(DuplicateLogEntry):  # the whole batch is refused
        async with db.transaction() as session:
            await tables.append_logs(
                session,
                [LogEntry(table_id, 2, "a", {}, 0), LogEntry(table_id, 1, "b", {}, 0)],
            )
    with pytest.raises(DuplicateLogEntry):  # no such table
        async with db.transaction() as session:
            await tables.append_log(session, 10**6, 1, "action", {}, 5)
    async with db.read() as session:
        assert [(e.seq, e.kind) for e in await tables.read_log(session, table_id)] == [(1, "deal")]


async def test_log_entry_and_chips_commit_together(db: Database) -> None:
    # The server's pattern: the action and the chips it moves in one transaction.
    async with db.transaction() as session:
        table_id = await tables.create_table(session, game="patti", room="r", config={})
        await ledger.transfer(session, "fund", [("mint", -100), ("table:1:seat:1", 100)], kind="x")
    with pytest.raises(DuplicateLogEntry):
        async with db.transaction() as session:
            await tables.append_log(session, table_id, 1, "action", {"bet": 10}, 0)
            await ledger.transfer(
                session,
                f"table:{table_id}:seq:1",
                [("table:1:seat:1", -10), ("table:1:pot", 10)],
                kind="bet",
            )
            await tables.append_log(session, table_id, 1, "action", {"bet": 10}, 0)
    async with db.read() as session:
        assert await tables.read_log(session, table_id) == []
        assert await ledger.balance(session, "table:1:pot") == 0


async def test_hand_history(db: Database) -> None:
    async with db.transaction() as session:
        asha = await accounts.create_bot(session, "asha")
        ravi = await accounts.create_bot(session, "ravi")
        table_id = await tables.create_table(session, game="indian13", room="r", config={})
        record = {"game": "indian13", "actions": [{"seat": 0, "action": "deal"}], **CONFIG}
        finished = datetime(2026, 11, 21, 12, 30, tzinfo=UTC)

        def numbered(n: int) -> dict[str, Any]:
            # The first record is of the older shape, without the table's game number.
            at_table = {"table": {"id": table_id, "room": "r", "game_no": n + 1}} if n else {}
            return {**record, "n": n, **at_table}

        hands = [
            await tables.save_hand(
                session,
                tables.FinishedHand(
                    table_id,
                    10 * n + 5,
                    "indian13",
                    numbered(n),
                    {1: asha.id, 2: ravi.id} if n % 2 == 0 else {2: asha.id},
                    seq_start=10 * n + 1,
                ),
                finished,
            )
            for n in range(5)
        ]
    async with db.read() as session:
        mine = await tables.recent_hands(session, asha.id)
        assert [h.id for h in mine] == hands[::-1]
        assert [h.seat for h in mine] == [1, 2, 1, 2, 1]
        assert [h.game_no for h in mine] == [5, 4, 3, 2, None]
        assert {(h.table_id, h.game, h.finished_at) for h in mine} == {
            (table_id, "indian13", finished)
        }
        assert [h.id for h in await tables.recent_hands(session, asha.id, limit=2)] == [
            hands[4],
            hands[3],
        ]
        assert [h.id for h in await tables.recent_hands(session, ravi.id)] == [
            hands[4],
            hands[2],
            hands[0],
        ]
        assert await tables.recent_hands(session, 10**6) == []
        hand = await tables.get_hand(session, hands[3])
        assert hand is not None
        assert hand.record == numbered(3)
        assert json.dumps(hand.record) == json.dumps(numbered(3))
        assert (hand.table_id, hand.game, hand.seq_start, hand.seq, hand.players) == (
            table_id,
            "indian13",
            31,
            35,
            {2: asha.id},
        )
        assert await tables.get_hand(session, 10**6) is None


async def test_a_hand_is_stored_once_per_log_entry(db: Database) -> None:
    # (table, seq) is the hand's key in the writer's bulk statements: a second hand ended by
    # the same log entry is refused, with its players, and the first is left as it was.
    async with db.transaction() as session:
        asha = await accounts.create_bot(session, "asha")
        table_id = await tables.create_table(session, game="indian13", room="r", config={})
        first = await tables.save_hand(
            session, tables.FinishedHand(table_id, 7, "indian13", {"n": 1}, {1: asha.id})
        )
    with pytest.raises(IntegrityError):
        async with db.transaction() as session:
            await tables.save_hand(
                session, tables.FinishedHand(table_id, 7, "indian13", {"n": 2}, {1: asha.id})
            )
    async with db.read() as session:
        assert [h.id for h in await tables.recent_hands(session, asha.id)] == [first]
        hand = await tables.get_hand(session, first)
        assert hand is not None and hand.record == {"n": 1}

"""Tables, their logs and the history of finished hands.

A table's log is the truth about it (DESIGN.md, principle 4): the table's actor appends each
accepted action, in the same transaction as the chips it moves, before anyone is told; after a
crash the server replays the logs of the open tables. The actor is the log's only writer, so a
sequence number written twice is a bug and fails loudly (DuplicateLogEntry).

Every function returns plain frozen dataclasses, never ORM rows: they can be kept and passed
around after the transaction ends.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, exists, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from rummyhall.store.bulk import Document, Step, by_dialect, json_text, run_steps, sqlite_value
from rummyhall.store.models import (
    GameTableModel,
    HandModel,
    HandPlayerModel,
    TableFenceModel,
    TableGrantModel,
    TableLogModel,
    UTCDateTime,
    table,
    utcnow,
)

OPEN = "open"
CLOSED = "closed"


class DuplicateLogEntry(Exception):
    """A (table, seq) written twice. On PostgreSQL the transaction is spoiled: roll it back."""

    code = "duplicate_log_entry"


@dataclass(frozen=True, slots=True)
class TableRow:
    id: int
    game: str
    room: str
    config: dict[str, Any]
    invite_code: str | None
    status: str
    created_at: datetime
    closed_at: datetime | None
    created_by: int | None = None
    """The account that opened the table (None: the room opened it, for quick-seat)."""


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One entry of a table's log; ``at`` is the time in milliseconds (the engine's clock)."""

    table_id: int
    seq: int
    kind: str
    body: dict[str, Any]
    at: int


@dataclass(frozen=True, slots=True)
class HandSummary:
    """A finished hand as one player sees it in their history."""

    id: int
    table_id: int
    game: str
    finished_at: datetime
    seat: int
    game_no: int | None = None
    """The game's number at its table (the table's "game 3"), from the record; None for records
    written before the record carried it."""


@dataclass(frozen=True, slots=True)
class HandRow:
    id: int
    table_id: int
    game: str
    seq_start: int | None
    seq: int | None
    finished_at: datetime
    record: dict[str, Any]
    players: dict[int, int]  # seat -> account id


# --- tables -----------------------------------------------------------------------------------

_TABLE_COLUMNS = (
    GameTableModel.id,
    GameTableModel.game,
    GameTableModel.room,
    GameTableModel.config,
    GameTableModel.invite_code,
    GameTableModel.status,
    GameTableModel.created_at,
    GameTableModel.closed_at,
    GameTableModel.created_by,
)


def _table(row: Any) -> TableRow:
    return TableRow(*row)


async def create_table(
    session: AsyncSession,
    *,
    game: str,
    room: str,
    config: Mapping[str, Any],
    invite_code: str | None = None,
    created_by: int | None = None,
) -> int:
    """A new open table; returns its id. A taken invite code raises IntegrityError (codes are
    random enough that the caller can simply draw another, in a new transaction).
    ``created_by``: the account that opened it (None when the room opened it)."""
    return await session.run_sync(
        lambda sync: insert_table(
            sync.connection(), game=game, room=room, config=config, invite_code=invite_code,
            created_by=created_by,
        )
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class NewTable:
    """A table to open (:func:`insert_tables`); ``created_by``: the account that opened it (None
    when the room opened it)."""

    game: str
    room: str
    config: Mapping[str, Any]
    invite_code: str | None = None
    created_by: int | None = None


def insert_table(
    conn: Connection,
    *,
    game: str,
    room: str,
    config: Mapping[str, Any],
    invite_code: str | None = None,
    created_by: int | None = None,
) -> int:
    """:func:`create_table` on a plain connection."""
    [table_id] = insert_tables(conn, [NewTable(game, room, config, invite_code, created_by)])
    return table_id


def insert_tables(conn: Connection, tables: Sequence[NewTable]) -> list[int]:
    """New open tables, in one statement; their ids, in order. The table writer's shared work:
    a burst of quick seats opens many tables, each a job of the writer's batches."""
    now = utcnow()
    rows = [
        {
            "game": new.game,
            "room": new.room,
            "config": dict(new.config),
            "invite_code": new.invite_code,
            "created_by": new.created_by,
            "status": OPEN,
            "created_at": now,
        }
        for new in tables
    ]
    return [int(row.id) for row in conn.execute(_INSERT_TABLES, rows)]


async def close_table(session: AsyncSession, table_id: int) -> None:
    """Mark the table closed (its log and hands stay). Closing a closed table does nothing."""
    await session.execute(
        update(GameTableModel)
        .where(GameTableModel.id == table_id, GameTableModel.status == OPEN)
        .values(status=CLOSED, closed_at=utcnow())
    )


async def highest_id(session: AsyncSession) -> int:
    """The highest table id there is (0: no table yet); ids only grow."""
    return int(await session.scalar(select(func.max(GameTableModel.id))) or 0)


async def get_table(session: AsyncSession, table_id: int) -> TableRow | None:
    row = (
        await session.execute(select(*_TABLE_COLUMNS).where(GameTableModel.id == table_id))
    ).one_or_none()
    return None if row is None else _table(row)


async def table_by_invite(session: AsyncSession, code: str) -> TableRow | None:
    """The open table with this invite code, if any."""
    row = (
        await session.execute(
            select(*_TABLE_COLUMNS).where(
                GameTableModel.invite_code == code, GameTableModel.status == OPEN
            )
        )
    ).one_or_none()
    return None if row is None else _table(row)


async def open_tables(session: AsyncSession) -> list[TableRow]:
    """Every open table, oldest first (what the server replays on start)."""
    rows = await session.execute(
        select(*_TABLE_COLUMNS).where(GameTableModel.status == OPEN).order_by(GameTableModel.id)
    )
    return [_table(row) for row in rows]


async def close_unused_tables(
    session: AsyncSession, *, abandoned_before: datetime | None = None
) -> list[int]:
    """Close every open table whose log is empty (nobody ever sat at it), and return their ids:
    such a table holds nothing worth restoring, and restoring them all would let anyone who
    once opened many tables fill the server again on every start.

    ``abandoned_before`` (a node of several, whose sweep calls this): only the tables opened
    before then that have no fencing token either. A node takes a table's lease (and raises its
    fence) a moment after it opens it, so such a table's node died in between: nobody else
    would ever close it. Tables still being opened, or that a node runs, are left alone."""
    conditions = [
        GameTableModel.status == OPEN,
        ~exists().where(TableLogModel.table_id == GameTableModel.id),
    ]
    if abandoned_before is not None:
        conditions += [
            GameTableModel.created_at < abandoned_before,
            ~exists().where(TableFenceModel.table_id == GameTableModel.id),
        ]
    # One statement: a node that raises a table's fence meanwhile keeps its table.
    closed = await session.scalars(
        update(GameTableModel)
        .where(*conditions)
        .values(status=CLOSED, closed_at=utcnow())
        .returning(GameTableModel.id)
        .execution_options(synchronize_session=False)
    )
    return sorted(int(found) for found in closed.all())


async def tables_to_recover(session: AsyncSession, *, only: int | None = None) -> list[int]:
    """The open tables a node of several may take over (docs/cluster.md), oldest first: those
    with a log entry or a fencing token. A table with neither is being opened by a node that
    has not yet taken its lease (or never will: nothing was written there, nothing is lost).
    ``only``: whether that one table is (a list of it, or empty)."""
    found = (
        select(GameTableModel.id)
        .where(
            GameTableModel.status == OPEN,
            exists().where(TableLogModel.table_id == GameTableModel.id)
            | exists().where(TableFenceModel.table_id == GameTableModel.id),
        )
        .order_by(GameTableModel.id)
    )
    if only is not None:
        found = found.where(GameTableModel.id == only)
    return [int(table_id) for table_id in (await session.scalars(found)).all()]


# --- who may reach a private table ------------------------------------------------------------


async def grant(session: AsyncSession, table_id: int, account_id: int) -> None:
    """Record that the account opened the table's invite (once; a second grant does nothing)."""
    known = await session.scalar(
        select(TableGrantModel.account_id).where(
            TableGrantModel.table_id == table_id, TableGrantModel.account_id == account_id
        )
    )
    if known is None:
        await session.execute(
            insert(TableGrantModel).values(
                table_id=table_id, account_id=account_id, created_at=utcnow()
            )
        )


async def grants(session: AsyncSession, table_id: int) -> set[int]:
    """The accounts that opened the table's invite."""
    rows = await session.scalars(
        select(TableGrantModel.account_id).where(TableGrantModel.table_id == table_id)
    )
    return {int(account_id) for account_id in rows}


# --- logs -------------------------------------------------------------------------------------


async def append_log(
    session: AsyncSession, table_id: int, seq: int, kind: str, body: Mapping[str, Any], at: int
) -> None:
    """Append one entry to a table's log (``at`` in milliseconds)."""
    await append_logs(session, [LogEntry(table_id, seq, kind, dict(body), at)])


async def append_logs(session: AsyncSession, entries: Iterable[LogEntry]) -> None:
    """Append many entries (of one table or many) in one round trip: a batch of the actions
    of several tables committed together."""
    rows = list(entries)
    await session.run_sync(lambda sync: write_logs(sync.connection(), rows))


def log_steps(entries: Iterable[LogEntry]) -> list[Step]:
    """The statement that appends ``entries`` (none for no entries): the writer's path."""
    rows = [(e.table_id, e.seq, e.kind, e.body, e.at) for e in entries]
    if not rows:
        return []

    def each() -> list[tuple[Any, ...]]:
        return [
            (table_id, seq, kind, json_text(body), at) for table_id, seq, kind, body, at in rows
        ]

    return [Step(_INSERT_LOGS, {"rows": Document(rows)}, each=each)]


def write_logs(conn: Connection, entries: Iterable[LogEntry]) -> None:
    """:func:`append_logs` on a plain connection, in one statement."""
    try:
        run_steps(conn, log_steps(entries))
    except IntegrityError as exc:
        raise DuplicateLogEntry(
            "a log entry with this table and sequence number exists already "
            "(or the table does not exist)"
        ) from exc


_INSERT_LOGS = by_dialect(
    sqlite="""
        INSERT INTO table_log (table_id, seq, kind, body, at_ms)
        SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'),
               json_extract(value, '$[2]'), json_extract(value, '$[3]'),
               json_extract(value, '$[4]')
        FROM json_each(:rows)""",
    postgresql="""
        INSERT INTO table_log (table_id, seq, kind, body, at_ms)
        SELECT CAST(r ->> 0 AS INTEGER), CAST(r ->> 1 AS INTEGER), r ->> 2, r -> 3,
               CAST(r ->> 4 AS BIGINT)
        FROM json_array_elements(CAST(:rows AS json)) AS r""",
    sqlite_each="""
        INSERT INTO table_log (table_id, seq, kind, body, at_ms) VALUES (?1, ?2, ?3, ?4, ?5)""",
)


async def read_log(session: AsyncSession, table_id: int, after_seq: int = 0) -> list[LogEntry]:
    """The table's entries with ``seq > after_seq``, in order."""
    rows = await session.execute(
        select(
            TableLogModel.table_id,
            TableLogModel.seq,
            TableLogModel.kind,
            TableLogModel.body,
            TableLogModel.at_ms,
        )
        .where(TableLogModel.table_id == table_id, TableLogModel.seq > after_seq)
        .order_by(TableLogModel.seq)
    )
    return [LogEntry(*row) for row in rows]


async def last_seq(session: AsyncSession, table_id: int) -> int:
    """The highest sequence number in the table's log (0 if empty)."""
    found = await session.scalar(
        select(func.max(TableLogModel.seq)).where(TableLogModel.table_id == table_id)
    )
    return 0 if found is None else int(found)


# --- hand history -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FinishedHand:
    """A finished game as its table stores it: the record, who sat where, and the log entries
    it spans (``seq``: the entry whose action ended it; with the table, the hand's key)."""

    table_id: int
    seq: int
    game: str
    record: Mapping[str, Any]
    players: Mapping[int, int]  # seat -> account id
    seq_start: int | None = None
    """The entry that started the game."""


def hand_steps(hands: Sequence[FinishedHand], finished_at: datetime | None = None) -> list[Step]:
    """The statements that store ``hands`` and their players (none for no hands): the table
    writer's path, two statements however many games its batch ends."""
    if not hands:
        return []
    rows = [(h.table_id, h.seq, h.game, h.seq_start, h.record) for h in hands]
    players = [
        (h.table_id, h.seq, seat, account_id)
        for h in hands
        for seat, account_id in sorted(h.players.items())
    ]
    now = finished_at or utcnow()
    stamp = sqlite_value(now)
    steps = [
        Step(
            _INSERT_HANDS, {"rows": Document(rows), "now": now}, len(rows),
            each=lambda: [(table_id, seq, game, start, json_text(record), stamp)
                  for table_id, seq, game, start, record in rows],
        )
    ]  # fmt: skip
    if players:
        # Every player finds their hand by (table, seq), or the batch fails.
        steps.append(
            Step(
                _INSERT_HAND_PLAYERS,
                {"rows": Document(players)},
                len(players),
                each=lambda: players,
            )
        )
    return steps


async def save_hand(
    session: AsyncSession, hand: FinishedHand, finished_at: datetime | None = None
) -> int:
    """Store a finished hand and return its id."""
    return await session.run_sync(lambda sync: write_hand(sync.connection(), hand, finished_at))


def write_hand(conn: Connection, hand: FinishedHand, finished_at: datetime | None = None) -> int:
    """:func:`save_hand` on a plain connection."""
    run_steps(conn, hand_steps([hand], finished_at))
    found = conn.execute(
        select(HandModel.id).where(HandModel.table_id == hand.table_id, HandModel.seq == hand.seq)
    )
    return int(found.scalar_one())


_INSERT_HANDS = by_dialect(
    sqlite="""
        INSERT INTO hands (table_id, seq, game, seq_start, record, finished_at)
        SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'),
               json_extract(value, '$[2]'), json_extract(value, '$[3]'),
               json_extract(value, '$[4]'), :now
        FROM json_each(:rows)""",
    postgresql="""
        INSERT INTO hands (table_id, seq, game, seq_start, record, finished_at)
        SELECT CAST(r ->> 0 AS INTEGER), CAST(r ->> 1 AS INTEGER), r ->> 2,
               CAST(r ->> 3 AS INTEGER), r -> 4, :now
        FROM json_array_elements(CAST(:rows AS json)) AS r""",
    binds=(bindparam("now", type_=UTCDateTime()),),
    sqlite_each="""
        INSERT INTO hands (table_id, seq, game, seq_start, record, finished_at)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6)""",
)
_INSERT_HAND_PLAYERS = by_dialect(
    sqlite="""
        INSERT INTO hand_players (hand_id, seat, account_id)
        SELECT h.id, json_extract(p.value, '$[2]'), json_extract(p.value, '$[3]')
        FROM json_each(:rows) AS p
        JOIN hands AS h ON h.table_id = json_extract(p.value, '$[0]')
                       AND h.seq = json_extract(p.value, '$[1]')""",
    postgresql="""
        INSERT INTO hand_players (hand_id, seat, account_id)
        SELECT h.id, CAST(p ->> 2 AS INTEGER), CAST(p ->> 3 AS INTEGER)
        FROM json_array_elements(CAST(:rows AS json)) AS p
        JOIN hands AS h ON h.table_id = CAST(p ->> 0 AS INTEGER)
                       AND h.seq = CAST(p ->> 1 AS INTEGER)""",
    sqlite_each="""
        INSERT INTO hand_players (hand_id, seat, account_id)
        SELECT id, ?3, ?4 FROM hands WHERE table_id = ?1 AND seq = ?2""",
)


# A Core statement made once, its values bound at each call (a statement built with .values()
# per call is compiled again each time).
_TABLES = table(GameTableModel)
_INSERT_TABLES = insert(_TABLES).returning(_TABLES.c.id, sort_by_parameter_order=True)


async def recent_hands(
    session: AsyncSession, account_id: int, limit: int = 20
) -> list[HandSummary]:
    """The account's last ``limit`` hands, newest first."""
    rows = await session.execute(
        select(
            HandModel.id,
            HandModel.table_id,
            HandModel.game,
            HandModel.finished_at,
            HandPlayerModel.seat,
            # One number out of the record, read in the database: the list never loads records.
            HandModel.record[("table", "game_no")].as_integer(),
        )
        .join(HandPlayerModel, HandPlayerModel.hand_id == HandModel.id)
        .where(HandPlayerModel.account_id == account_id)
        .order_by(HandModel.id.desc())
        .limit(limit)
    )
    return [HandSummary(*row) for row in rows]


async def get_hand(session: AsyncSession, hand_id: int) -> HandRow | None:
    row = await session.get(HandModel, hand_id)
    if row is None:
        return None
    seats = await session.execute(
        select(HandPlayerModel.seat, HandPlayerModel.account_id)
        .where(HandPlayerModel.hand_id == hand_id)
        .order_by(HandPlayerModel.seat)
    )
    return HandRow(
        id=row.id,
        table_id=row.table_id,
        game=row.game,
        seq_start=row.seq_start,
        seq=row.seq,
        finished_at=row.finished_at,
        record=row.record,
        players={seat: account_id for seat, account_id in seats},
    )

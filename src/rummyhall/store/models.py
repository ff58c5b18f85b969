"""The database schema as SQLAlchemy 2 typed models.

The migrations in ``migrations/versions`` create this schema; a test compares the two with
Alembic's autogenerate, so a change here without a migration (or the reverse) fails the suite.
Layout and reasons: docs/storage.md.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any, cast

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Connection,
    Date,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    TypeDecorator,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Constraint names spelled out, so migrations (and SQLite's batch rebuilds) can refer to them.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# 64-bit ids where rows pile up (ledger, hands); on SQLite a primary key must be INTEGER to be
# the auto-numbered rowid (SQLite's INTEGER holds 64 bits anyway).
BigId = BigInteger().with_variant(Integer(), "sqlite")

# Plain JSON, not JSONB, on PostgreSQL too: JSONB reorders object keys, and records, logs and
# table settings must come back exactly as written.
Json = JSON(none_as_null=True)


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC timestamp on both databases (SQLite has no time zones: it stores
    UTC and we put the zone back when reading)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: pass an aware one (datetime.now(UTC))")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


# --- accounts ---------------------------------------------------------------------------------


class AccountModel(Base):
    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    # The name folded to lower case: uniqueness ignores case on both databases without
    # expression indexes.
    name_key: Mapped[str] = mapped_column(String(40), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(256))
    is_guest: Mapped[bool] = mapped_column(Boolean)
    is_bot: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class SessionModel(Base):
    """A login session. Only the SHA-256 of the token is stored: a leaked database does not
    hand out live sessions."""

    __tablename__ = "auth_sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)


# --- ledger -----------------------------------------------------------------------------------


class LedgerAccountModel(Base):
    __tablename__ = "ledger_accounts"
    __table_args__ = (
        # The database refuses an overdraft even if the code had a bug: only the mints, where
        # chips come from (``mint``, and ``mint:<currency>`` of the other currencies), may go
        # below zero.
        CheckConstraint(
            "balance >= 0 OR name = 'mint' OR name LIKE 'mint:%'", name="balance_not_negative"
        ),
    )

    name: Mapped[str] = mapped_column(String(120), primary_key=True)
    balance: Mapped[int] = mapped_column(BigInteger)


class LedgerTransactionModel(Base):
    __tablename__ = "ledger_transactions"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    # The idempotency key: a retried or replayed movement of chips finds its key and does
    # nothing.
    key: Mapped[str] = mapped_column(String(200), unique=True)
    kind: Mapped[str] = mapped_column(String(40))
    memo: Mapped[dict[str, Any] | None] = mapped_column(Json)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class LedgerPostingModel(Base):
    __tablename__ = "ledger_postings"
    __table_args__ = (CheckConstraint("amount <> 0", name="amount_not_zero"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    transaction_id: Mapped[int] = mapped_column(
        BigId, ForeignKey("ledger_transactions.id"), index=True
    )
    account: Mapped[str] = mapped_column(String(120), ForeignKey("ledger_accounts.name"))
    amount: Mapped[int] = mapped_column(BigInteger)


# No index by account (revision 0008 dropped it): nothing reads one account's postings (a
# player's story is their chip flows and hands; the audit reads the postings whole), and every
# action of a live table posts to its seat and pot accounts, so such an index cost a page write
# for each posting, the largest share of the log's pages at a thousand tables.


# --- tables, their logs, finished hands -------------------------------------------------------


class GameTableModel(Base):
    __tablename__ = "game_tables"
    __table_args__ = (CheckConstraint("status IN ('open', 'closed')", name="status_known"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[str] = mapped_column(String(40))
    room: Mapped[str] = mapped_column(String(80))
    config: Mapped[dict[str, Any]] = mapped_column(Json)
    invite_code: Mapped[str | None] = mapped_column(String(40), unique=True)
    status: Mapped[str] = mapped_column(String(10), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # The account that opened the table (None: the room opened it for quick-seat). It may
    # always reach its private table, and it counts against that account's limit of open
    # tables. No foreign key: SQLite adds one to an existing table only by rebuilding it, and
    # game_tables is referenced by every log entry and hand.
    created_by: Mapped[int | None] = mapped_column(Integer)


class TableGrantModel(Base):
    """An account that opened a private table's invite: it may reach the table by its id from
    then on (watch it, sit at it, read its info), also after a restart."""

    __tablename__ = "table_grants"

    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class TableLogModel(Base):
    """One accepted action (or deal commitment) of a table, in order: the table is
    ``replay(log)``."""

    __tablename__ = "table_log"

    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    kind: Mapped[str] = mapped_column(String(40))
    body: Mapped[dict[str, Any]] = mapped_column(Json)
    at_ms: Mapped[int] = mapped_column(BigInteger)


class TableFenceModel(Base):
    """The highest lease token any write to a table's log has carried (issue 21, several
    nodes): a write with a lower one comes from a node that lost the table, and is refused in
    its own transaction (rummyhall.store.fences; docs/cluster.md)."""

    __tablename__ = "table_fences"

    table_id: Mapped[int] = mapped_column(
        ForeignKey("game_tables.id"), primary_key=True, autoincrement=False
    )
    token: Mapped[int] = mapped_column(BigInteger)


class HandModel(Base):
    __tablename__ = "hands"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    # (found by table through ux_hands_table_seq below, which leads with it)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"))
    game: Mapped[str] = mapped_column(String(40))
    seq_start: Mapped[int | None] = mapped_column(Integer)
    seq: Mapped[int | None] = mapped_column(Integer)
    """The table's log entry whose action ended the game (None for hands stored before it
    was kept): with the table, the hand's key in the writer's bulk statements."""
    finished_at: Mapped[datetime] = mapped_column(UTCDateTime)
    record: Mapped[dict[str, Any]] = mapped_column(Json)


Index("ux_hands_table_seq", HandModel.table_id, HandModel.seq, unique=True)


class HandPlayerModel(Base):
    __tablename__ = "hand_players"

    hand_id: Mapped[int] = mapped_column(
        BigId, ForeignKey("hands.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))


# "My last games": a player's hands newest first.
Index("ix_hand_players_account_hands", HandPlayerModel.account_id, HandPlayerModel.hand_id)


# --- who paid whom -----------------------------------------------------------------------------


class ChipFlowModel(Base):
    """Chips that went from one player to another in a settled game: each loser's net loss
    attributed to the winners (rummyhall.economy.flows), written with the game's record. What
    ``rummyhall audit --flows`` adds up to find chip dumping."""

    __tablename__ = "chip_flows"
    __table_args__ = (
        CheckConstraint("amount > 0", name="amount_positive"),
        CheckConstraint("payer <> payee", name="two_accounts"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    currency: Mapped[str] = mapped_column(String(20))
    payer: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    payee: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    amount: Mapped[int] = mapped_column(BigInteger)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"))
    hand_id: Mapped[int] = mapped_column(BigId, ForeignKey("hands.id"))
    private: Mapped[bool] = mapped_column(Boolean)
    at: Mapped[datetime] = mapped_column(UTCDateTime)


# The flows of one currency over a time range (audit --flows --since), and one pair's flows.
Index("ix_chip_flows_currency_at", ChipFlowModel.currency, ChipFlowModel.at)
Index("ix_chip_flows_pair", ChipFlowModel.payer, ChipFlowModel.payee)


# --- the ladder: levels, daily bonus, leaderboards ----------------------------------------------


class ProgressModel(Base):
    """A registered player's climb (rummyhall.economy.ladder): the clover points ever earned (the
    level follows from them) and the last daily bonus claimed. A row appears with the player's
    first game or first claim."""

    __tablename__ = "progress"

    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    clover: Mapped[int] = mapped_column(BigInteger)
    bonus_day: Mapped[date | None] = mapped_column(Date)
    """The Berlin date of the last daily bonus claimed."""
    bonus_streak: Mapped[int] = mapped_column(Integer)


class BoardLineModel(Base):
    """One player's line on one leaderboard (rummyhall.economy.boards): ``all``, ``game:<name>``,
    ``month:<yyyy-mm>``. ``rating`` is None until the player has played enough games to be
    rated; it is kept on the row (not computed when read) so that a page is an index range."""

    __tablename__ = "board_lines"

    board: Mapped[str] = mapped_column(String(60), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    games: Mapped[int] = mapped_column(Integer)
    points: Mapped[int] = mapped_column(BigInteger)
    firsts: Mapped[int] = mapped_column(Integer)
    rating: Mapped[int | None] = mapped_column(Integer)


# A page of a board: its rated lines by rating, then games (the tie rule), read backwards.
Index(
    "ix_board_lines_rank",
    BoardLineModel.board,
    BoardLineModel.rating,
    BoardLineModel.games,
    BoardLineModel.account_id,
)


class LeaguePlayerModel(Base):
    """The league a player is in (rummyhall.economy.leagues): a row from their first counted
    game; moved, or deleted (inactive in the lowest league), by a season's rollover."""

    __tablename__ = "league_players"

    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    league: Mapped[str] = mapped_column(String(20), index=True)


class LeagueSeasonModel(Base):
    """A season whose end has been settled: the row is the rollover's claim, so a season is
    settled once, whichever process gets there first."""

    __tablename__ = "league_seasons"

    season: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    rolled_at: Mapped[datetime] = mapped_column(UTCDateTime)
    players: Mapped[int] = mapped_column(Integer)


class LeagueOutcomeModel(Base):
    """How a player's season ended: their league, place (None: not qualified), what became of
    them (``up``, ``down``, ``stay``, ``blocked``, ``out``), where to, and the prize in gold."""

    __tablename__ = "league_outcomes"

    season: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    league: Mapped[str] = mapped_column(String(20))
    place: Mapped[int | None] = mapped_column(Integer)
    outcome: Mapped[str] = mapped_column(String(10))
    to_league: Mapped[str | None] = mapped_column(String(20))
    prize: Mapped[int] = mapped_column(Integer)


class AchievementModel(Base):
    """An achievement a player earned (rummyhall.economy.achievements): the row is the claim."""

    __tablename__ = "achievements"

    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    key: Mapped[str] = mapped_column(String(40), primary_key=True)
    earned_at: Mapped[datetime] = mapped_column(UTCDateTime)


class InviteModel(Base):
    """Who invited a player (given at registration), and when the inviter was paid for it."""

    __tablename__ = "invites"

    invitee_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    inviter_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    rewarded_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


def dialect_insert(conn: Connection | AsyncSession, target: Table) -> Any:
    """The database's own INSERT, which knows ON CONFLICT (both databases spell it alike)."""
    dialect = conn.dialect if isinstance(conn, Connection) else conn.get_bind().dialect
    if dialect.name == "postgresql":
        return postgresql.insert(target)
    return sqlite.insert(target)


def table(model: type[Base]) -> Table:
    """A model's Core table, for statements on hot paths (the ORM layer costs more than the SQL
    there)."""
    return cast(Table, model.__table__)

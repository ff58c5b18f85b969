"""Server settings: everything an operator may tune, in one frozen object (DESIGN.md,
principle 6)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Settings:
    database_url: str
    data_dir: Path
    allowed_origins: tuple[str, ...] = ()
    """Origins allowed to open a WebSocket besides the server's own host (e.g. a reverse proxy's
    public address)."""
    bots: bool = True
    """Whether empty seats are filled by bots."""
    bot_wait_ms: int = 5_000
    """How long a table with a human waits for more people before bots sit down."""
    bot_think_ms: tuple[int, int] = (600, 1_800)
    """A bot's thinking time: a random duration in this range (ms), so they feel human."""
    next_game_ms: int = 6_000
    """The pause between two games at a table (people look at the result)."""
    away_grace_ms: int = 20_000
    """How long a seated person may be away (no connection watching the table: a reload, a
    dropped network) before the table stands them up between games; the next game waits for
    them that long."""
    deal_ms: int = 1_500
    """The pause between a deal's commitment and the deal (the next deal of a pool)."""
    cookie_name: str = "rummyhall_session"
    cookie_secure: bool = False
    max_message_bytes: int = 8_192
    rate_per_second: float = 20.0
    """Messages a connection may send per second on average..."""
    rate_burst: int = 40
    """... and in a burst."""
    outbox_limit: int = 256
    """Messages queued for a connection that does not read them before it is dropped."""
    starting_chips: int = 10_000
    tables_per_account: int = 3
    """How many open tables one account may have opened (POST /api/tables) at a time: without a
    limit one guest could fill the server with tables (too_many_tables beyond it)."""
    empty_table_ms: int = 60_000
    """How long a table nobody has sat at stays open; tables nobody ever sat at are not
    restored after a restart either."""
    commit_batch: int = 256
    """The most log entries the writer commits in one database transaction."""

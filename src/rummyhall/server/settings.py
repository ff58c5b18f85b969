"""Server settings: everything an operator may tune, in one frozen object (DESIGN.md,
principle 6)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from rummyhall.economy.leagues import RULES, LeagueRules
from rummyhall.economy.wallets import STARTING_GOLD, STARTING_SILVER

LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")
"""The names of this machine that are always served."""


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
    cookie_secure: bool | None = None
    """Session cookies only over HTTPS (``Secure``). None: yes when an allowed origin is
    https (the room is served behind TLS), else no; ``--secure-cookies`` / ``--no-secure-cookies``
    decide it either way."""
    allowed_hosts: tuple[str, ...] = LOCAL_HOSTS
    """Host header values the server answers (a guard against DNS rebinding and forged links);
    the hosts of ``allowed_origins`` are added. ``"*"`` allows any."""
    max_message_bytes: int = 8_192
    rate_per_second: float = 20.0
    """Messages a connection may send per second on average..."""
    rate_burst: int = 40
    """... and in a burst."""
    outbox_limit: int = 256
    """Messages queued for a connection that does not read them before it is dropped."""
    starting_silver: int = STARTING_SILVER
    """The silver chips a new registered player gets (guests get none: issue 15): their silver
    limit at level 1, as the room's rules give it."""
    starting_gold: int = STARTING_GOLD
    """The gold chips a new registered player gets: a welcome purse, so that the Desert rooms
    of every game are open on the first day (docs/rules/room.md)."""
    practice_chips: int = 10_000
    """The practice chips a new account (guest or player) gets, and what a refill tops up to."""
    practice_refill_below: int = 2_000
    """A free refill of practice chips is granted only when the practice chips an account holds
    (wallet and seats) are below this."""
    practice_refills_per_hour: float = 6.0
    """Refills one account may have per hour on average..."""
    practice_refill_burst: int = 2
    """... and in a burst."""
    # Signing in (issue 15): every number is per client address (the connecting peer, or the
    # X-Forwarded-For of a trusted local proxy) or per account name, as token buckets.
    login_client_per_minute: float = 10.0
    """Login attempts a client address may make per minute on average..."""
    login_client_burst: int = 20
    """... and in a burst."""
    login_account_per_minute: float = 1.0
    """Wrong passwords an account name takes per minute on average: past the burst the account
    is locked (every login to it refused, right password or not) until the bucket refills..."""
    login_account_burst: int = 10
    """... and the wrong passwords it takes before that."""
    signup_client_per_minute: float = 2.0
    """Accounts (registrations and guests) a client address may make per minute on average..."""
    signup_client_burst: int = 10
    """... and in a burst."""
    hash_workers: int = 2
    """Threads that hash and check passwords (Argon2 takes a core each while it runs)."""
    hash_queue: int = 32
    """Password checks that may wait for a thread; beyond that the answer is ``busy`` at once."""
    session_purge_ms: int = 3_600_000
    """How often expired login sessions are deleted."""
    league_check_ms: int = 60_000
    """How often the server looks for a league season that has ended and settles it."""
    gc_freeze_ms: int = 2_000
    """How often the young objects still alive are frozen out of the cycle collector's sight
    (server/collector.py); 0: never."""
    gc_full_ms: int = 3_600_000
    """How often everything is unfrozen and collected once (the one long pause of the collector)."""
    league_rules: LeagueRules = RULES
    """How the leagues promote and relegate (docs/rules/room.md has the defaults)."""
    tables_per_account: int = 3
    """How many open tables one account may have opened (POST /api/tables) at a time: without a
    limit one guest could fill the server with tables (too_many_tables beyond it)."""
    empty_table_ms: int = 60_000
    """How long a table nobody has sat at stays open; tables nobody ever sat at are not
    restored after a restart either."""
    commit_batch: int = 256
    """The most log entries the writer commits in one database transaction."""
    seed_key_file: Path | None = None
    """The key that seals unrevealed deal seeds in the table logs (None: ``seed.key`` in the
    data folder, written on first start). It is not in the database: keep it with the server
    and out of database backups (docs/security.md)."""

    # Several nodes (issue 21, docs/cluster.md): all three set, or none (one process, as ever).
    redis_url: str | None = None
    """The Redis that holds which node owns which table (``serve --redis``). None: this process
    is the whole room and owns every table, with no leases and no fence rows."""
    node_id: str | None = None
    """This node's name among the nodes sharing one database and one Redis (``--node-id``)."""
    lease_ttl_ms: int = 5_000
    """How long a table's lease lasts unless renewed (renewed every third of it): about how
    long a dead node's tables wait before another node takes them over."""

    @property
    def clustered(self) -> bool:
        """Whether this process is one node of several (it has a Redis to hold leases in)."""
        return self.redis_url is not None

    @property
    def secure_cookies(self) -> bool:
        if self.cookie_secure is not None:
            return self.cookie_secure
        return any(origin.lower().startswith("https://") for origin in self.allowed_origins)

    @property
    def seed_key_path(self) -> Path:
        return self.seed_key_file or self.data_dir / "seed.key"

    @property
    def trusted_hosts(self) -> list[str]:
        """:attr:`allowed_hosts` and the hosts of :attr:`allowed_origins`."""
        hosts = list(self.allowed_hosts)
        for origin in self.allowed_origins:
            host = urlsplit(origin).hostname
            if host and host not in hosts:
                hosts.append(host)
        return hosts

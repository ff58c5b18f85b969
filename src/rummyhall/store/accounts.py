"""Accounts (players, guests, bots), passwords and login sessions.

Passwords are hashed with Argon2id. Hashing is deliberately slow (tens of milliseconds), so it
runs in a small pool of worker threads (:class:`HashPool`) and, when registering, before the first
SQL statement: on SQLite the write lock is only taken then, so other writers do not wait for the
hash. The pool has a queue limit: a flood of logins is refused (:class:`HashPoolBusy`) instead of
queueing without end and taking the cores from the event loop that serves the tables.

Session tokens are random and opaque; the database keeps only their SHA-256, so a copy of the
database does not let anyone log in.

What sign-up writes (a guest, its session) also exists on a plain connection (``..._on``), for
:meth:`rummyhall.store.database.Database.write`: on SQLite the async session hands every
statement to the driver's thread and back, holding the process's write lock all the while, so a
burst of a thousand sign-ups queued behind each other for seconds and held up every table's
writes; on a plain connection the dozen statements run at once. The async functions are thin
wrappers over these.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import secrets
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import Connection, and_, delete, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from rummyhall.store.models import AccountModel, SessionModel, dialect_insert, table, utcnow

_T = TypeVar("_T")

SESSION_TTL = timedelta(days=30)

NAME_MIN, NAME_MAX = 3, 20
PASSWORD_MIN = 8
PASSWORD_MAX = 1024  # hashing a megabyte would be a cheap way to burn our CPU

_NAME = re.compile(rf"[A-Za-z0-9_-]{{{NAME_MIN},{NAME_MAX}}}")
GUEST_PREFIX = "guest-"


class AccountError(Exception):
    """A refused account operation. ``code`` is stable: ``bad_name``, ``name_taken``,
    ``weak_password``, ``bad_login``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Account:
    id: int
    name: str
    is_guest: bool
    is_bot: bool
    created_at: datetime


_ACCOUNTS = table(AccountModel)
_SESSIONS = table(SessionModel)
_INSERT_ACCOUNT = insert(_ACCOUNTS).returning(*_ACCOUNTS.c)


def _account(row: Any) -> Account:
    """An Account from an ORM row or a Core row of the accounts table."""
    return Account(
        id=row.id,
        name=row.name,
        is_guest=row.is_guest,
        is_bot=row.is_bot,
        created_at=row.created_at,
    )


# --- password hashing -------------------------------------------------------------------------

_hasher = PasswordHasher()  # argon2-cffi's defaults: Argon2id, RFC 9106 low-memory profile
_dummy_hash: str | None = None


def set_password_hasher(hasher: PasswordHasher) -> None:
    """Use ``hasher`` from now on (tests use cheap parameters). Hashes made with other
    parameters still verify and are rehashed at the next login."""
    global _hasher, _dummy_hash  # noqa: PLW0603 (one process-wide setting, by design)
    _hasher = hasher
    _dummy_hash = None


def password_hasher() -> PasswordHasher:
    return _hasher


class HashPoolBusy(Exception):
    """The password pool's queue is full: try again in a moment (the server answers ``busy``)."""


class HashPool:
    """A few worker threads for Argon2, with a queue limit.

    asyncio's default executor has many threads and an unbounded queue: 200 parallel wrong logins
    kept every core hashing and the event loop (every table, /healthz) waited its turn. Here at
    most ``workers`` hashes run at once, at most ``queue`` more wait, and work beyond that is
    refused at once with :class:`HashPoolBusy`."""

    def __init__(self, workers: int = 2, queue: int = 32) -> None:
        self.workers = max(1, workers)
        self.queue = max(0, queue)
        self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="rummyhall-argon2")
        # Counted until the thread finishes the job, not until its caller stops waiting: a
        # cancelled request (the client hung up) leaves its hash running, and it still takes a core.
        self._pending = 0
        self._lock = threading.Lock()

    @property
    def pending(self) -> int:
        """Jobs running or waiting."""
        return self._pending

    async def run(self, work: Callable[[], _T]) -> _T:
        with self._lock:
            if self._pending >= self.workers + self.queue:
                raise HashPoolBusy("too many password checks at once")
            self._pending += 1
        try:
            future = self._executor.submit(work)
        except BaseException:
            self._done()
            raise
        future.add_done_callback(lambda _: self._done())
        return await asyncio.wrap_future(future)

    def _done(self) -> None:
        with self._lock:
            self._pending -= 1

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


_default_pool: HashPool | None = None


def default_pool() -> HashPool:
    """The pool for callers that bring none (the command line, store tests); the server passes
    its own, sized by its settings."""
    global _default_pool  # noqa: PLW0603 (created on first use, one per process)
    if _default_pool is None:
        _default_pool = HashPool()
    return _default_pool


async def hash_password(password: str, *, pool: HashPool | None = None) -> str:
    hasher = _hasher
    return await (pool or default_pool()).run(lambda: hasher.hash(password))


async def _verify(password_hash: str, password: str, pool: HashPool | None) -> bool:
    hasher = _hasher

    def verify() -> bool:
        try:
            return hasher.verify(password_hash, password)
        except (VerificationError, InvalidHashError):
            return False

    return await (pool or default_pool()).run(verify)


# --- registration -----------------------------------------------------------------------------


def check_name(name: str) -> None:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise AccountError(
            "bad_name",
            f"a name is {NAME_MIN} to {NAME_MAX} letters, digits, '_' or '-'",
        )


def check_password(password: str) -> None:
    if not isinstance(password, str) or len(password) < PASSWORD_MIN:
        raise AccountError("weak_password", f"a password has at least {PASSWORD_MIN} characters")
    if len(password) > PASSWORD_MAX:
        raise AccountError("weak_password", f"a password has at most {PASSWORD_MAX} characters")


async def register(
    session: AsyncSession,
    name: str,
    password: str,
    *,
    pool: HashPool | None = None,
) -> Account:
    """A new player account. Raises AccountError ``bad_name``, ``weak_password`` or
    ``name_taken``. It holds no chips: :func:`rummyhall.economy.wallets.open_wallets` gives the
    starting chips (the store keeps accounts; the economy decides what they hold)."""
    check_name(name)
    if name.lower().startswith(GUEST_PREFIX):
        raise AccountError("bad_name", f"names starting with {GUEST_PREFIX!r} are for guests")
    check_password(password)
    # Hash first: the transaction (and on SQLite the write lock) starts at the first statement.
    password_hash = await hash_password(password, pool=pool)
    if await find_account(session, name) is not None:
        raise AccountError("name_taken", f"the name {name!r} is taken")
    return await _create(session, name, password_hash=password_hash)


async def create_guest(session: AsyncSession) -> Account:
    """A guest account named like ``guest-4821`` (no password)."""
    return await session.run_sync(lambda sync: create_guest_on(sync.connection()))


def create_guest_on(conn: Connection) -> Account:
    """:func:`create_guest` on a plain connection (see the module's note)."""
    [account] = create_guests_on(conn, 1)
    return account


def create_guests_on(conn: Connection, count: int) -> list[Account]:
    """``count`` guest accounts at once (a batch of sign-ups), in one statement unless names
    drawn were taken. Names are tried by inserting them: those taken (by an earlier guest, or
    one drawn twice in this batch) are simply not inserted and drawn again. Five rounds at one
    length that still miss some mean the short names are crowded: the names grow by two digits.
    On PostgreSQL a look-up first, and a savepoint around each insert, cost four round trips for
    each guest of a burst of arrivals; this costs one for all of them."""
    made: list[Account] = []
    digits = 4
    while count > 0:
        for _attempt in range(5):
            low = 10 ** (digits - 1)
            names = {f"{GUEST_PREFIX}{secrets.randbelow(9 * low) + low}" for _ in range(count)}
            rows = conn.execute(
                dialect_insert(conn, _ACCOUNTS).on_conflict_do_nothing().returning(*_ACCOUNTS.c),
                [_row(name, is_guest=True) for name in sorted(names)],
            ).all()
            made += (_account(row) for row in rows)
            count -= len(rows)
            if count == 0:
                break
        else:
            digits += 2
    return sorted(made, key=lambda account: account.id)


async def create_bot(session: AsyncSession, name: str) -> Account:
    """A bot's account (``is_bot``; no password). Same name rules as players, so a bot's name
    can never be confused with a player's."""
    check_name(name)
    if await find_account(session, name) is not None:
        raise AccountError("name_taken", f"the name {name!r} is taken")
    return await _create(session, name, is_bot=True)


async def _create(
    session: AsyncSession,
    name: str,
    *,
    password_hash: str | None = None,
    is_guest: bool = False,
    is_bot: bool = False,
) -> Account:
    return await session.run_sync(
        lambda sync: _create_on(
            sync.connection(), name, password_hash=password_hash, is_guest=is_guest, is_bot=is_bot
        )
    )


def _create_on(
    conn: Connection,
    name: str,
    *,
    password_hash: str | None = None,
    is_guest: bool = False,
    is_bot: bool = False,
) -> Account:
    try:
        # A savepoint: losing a race for the name must not spoil the caller's transaction.
        with conn.begin_nested():
            row = conn.execute(
                _INSERT_ACCOUNT,
                _row(name, password_hash=password_hash, is_guest=is_guest, is_bot=is_bot),
            ).one()
    except IntegrityError:
        raise AccountError("name_taken", f"the name {name!r} is taken") from None
    return _account(row)


def _row(
    name: str, *, password_hash: str | None = None, is_guest: bool = False, is_bot: bool = False
) -> dict[str, Any]:
    """A new account's row."""
    return {
        "name": name,
        "name_key": name.lower(),
        "password_hash": password_hash,
        "is_guest": is_guest,
        "is_bot": is_bot,
        "created_at": utcnow(),
    }


# --- lookup and login -------------------------------------------------------------------------


async def get_account(session: AsyncSession, account_id: int) -> Account | None:
    row = await session.get(AccountModel, account_id)
    return None if row is None else _account(row)


def _could_be_a_name(name: object) -> bool:
    """Whether ``name`` follows the name rules (:func:`check_name`); no account has any other
    name, so a lookup of anything else is answered without asking the database (which, on
    PostgreSQL, refuses text with a NUL: a login with such a name failed with ``internal``)."""
    return isinstance(name, str) and _NAME.fullmatch(name) is not None


async def find_account(session: AsyncSession, name: str) -> Account | None:
    """The account named ``name``, whatever its case."""
    if not _could_be_a_name(name):
        return None
    row = await session.scalar(select(AccountModel).where(AccountModel.name_key == name.lower()))
    return None if row is None else _account(row)


async def list_bots(session: AsyncSession) -> list[Account]:
    """Every bot account, oldest first."""
    rows = await session.scalars(
        select(AccountModel).where(AccountModel.is_bot.is_(True)).order_by(AccountModel.id)
    )
    return [_account(row) for row in rows]


async def authenticate(
    session: AsyncSession, name: str, password: str, *, pool: HashPool | None = None
) -> Account:
    """The account if ``password`` is right; AccountError ``bad_login`` otherwise (the same
    error, and about the same time, whether the name or the password was wrong).

    In a ``db.read()`` session the check holds no lock; a hash made with old parameters is
    then upgraded at a later login in a ``db.transaction()`` session."""
    global _dummy_hash  # noqa: PLW0603 (a cache of one hash per hasher)
    row = (
        await session.scalar(select(AccountModel).where(AccountModel.name_key == name.lower()))
        if _could_be_a_name(name) and isinstance(password, str)
        else None
    )
    if row is None or row.password_hash is None:
        # Spend the time a real check takes, so that timing does not reveal which names exist.
        if _dummy_hash is None:
            _dummy_hash = await hash_password(secrets.token_hex(8), pool=pool)
        await _verify(_dummy_hash, "not the password", pool)
        raise AccountError("bad_login", "wrong name or password")
    if not await _verify(row.password_hash, password, pool):
        raise AccountError("bad_login", "wrong name or password")
    if session.info.get("rummyhall_mode") != "read" and _hasher.check_needs_rehash(
        row.password_hash
    ):
        # Parameters changed since this hash was made: upgrade it while we know the password.
        row.password_hash = await hash_password(password, pool=pool)
        await session.flush()
    return _account(row)


async def change_password(
    session: AsyncSession,
    account_id: int,
    old_password: str,
    new_password: str,
    *,
    pool: HashPool | None = None,
) -> None:
    """Set a new password after checking the old one (``bad_login``, ``weak_password``)."""
    check_password(new_password)
    row = await session.get(AccountModel, account_id)
    if (
        row is None
        or row.password_hash is None
        or not isinstance(old_password, str)
        or not await _verify(row.password_hash, old_password, pool)
    ):
        raise AccountError("bad_login", "wrong password")
    row.password_hash = await hash_password(new_password, pool=pool)
    await session.flush()


async def check_account_password(
    session: AsyncSession, account_id: int, password: str, *, pool: HashPool | None = None
) -> None:
    """AccountError ``bad_login`` unless ``password`` is the account's (a guest's or a bot's has
    none). Meant for a ``db.read()`` session: the slow check holds no lock."""
    row = await session.get(AccountModel, account_id)
    if (
        row is None
        or row.password_hash is None
        or not isinstance(password, str)
        or not await _verify(row.password_hash, password, pool)
    ):
        raise AccountError("bad_login", "wrong password")


async def set_password_hash(session: AsyncSession, account_id: int, password_hash: str) -> None:
    """Store a hash made by :func:`hash_password` (hash first, then take the write lock)."""
    row = await session.get(AccountModel, account_id)
    if row is None:
        raise AccountError("bad_login", "no such account")
    row.password_hash = password_hash
    await session.flush()


# --- sessions ---------------------------------------------------------------------------------


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def create_session(
    session: AsyncSession,
    account_id: int,
    *,
    now: datetime | None = None,
    ttl: timedelta = SESSION_TTL,
) -> str:
    """A new login session for the account; returns its token (shown once, stored hashed)."""
    return await session.run_sync(
        lambda sync: create_session_on(sync.connection(), account_id, now=now, ttl=ttl)
    )


def create_session_on(
    conn: Connection, account_id: int, *, now: datetime | None = None, ttl: timedelta = SESSION_TTL
) -> str:
    """:func:`create_session` on a plain connection."""
    [token] = create_sessions_on(conn, [account_id], now=now, ttl=ttl)
    return token


def create_sessions_on(
    conn: Connection,
    account_ids: Sequence[int],
    *,
    now: datetime | None = None,
    ttl: timedelta = SESSION_TTL,
) -> list[str]:
    """A new session for each account (a batch of sign-ups), in one statement; their tokens."""
    tokens = [secrets.token_urlsafe(32) for _ in account_ids]
    now = now or utcnow()
    conn.execute(
        insert(_SESSIONS),
        [
            {"token_hash": _token_hash(token), "account_id": account_id, "created_at": now,
             "expires_at": now + ttl}
            for token, account_id in zip(tokens, account_ids, strict=True)
        ],
    )  # fmt: skip
    return tokens


async def session_account(
    session: AsyncSession, token: str, *, now: datetime | None = None
) -> Account | None:
    """The account a session token belongs to; None if the token is unknown or expired."""
    if not isinstance(token, str) or not token or len(token) > 200:
        return None
    row = await session.scalar(
        select(AccountModel)
        .join(SessionModel, SessionModel.account_id == AccountModel.id)
        .where(SessionModel.token_hash == _token_hash(token))
        .where(SessionModel.expires_at > (now or utcnow()))
    )
    return None if row is None else _account(row)


async def end_session(session: AsyncSession, token: str) -> None:
    """Log out: the token stops working (unknown tokens are ignored)."""
    await session.run_sync(lambda sync: end_session_on(sync.connection(), token))


def end_session_on(conn: Connection, token: str) -> None:
    """:func:`end_session` on a plain connection."""
    end_sessions_on(conn, [token])


def end_sessions_on(conn: Connection, tokens: Sequence[str]) -> None:
    """End every session of ``tokens`` (what is not a token is ignored), in one statement."""
    hashes = [_token_hash(token) for token in tokens if isinstance(token, str)]
    if hashes:
        conn.execute(delete(_SESSIONS).where(_SESSIONS.c.token_hash.in_(hashes)))


async def end_other_sessions(session: AsyncSession, account_id: int, keep: str | None) -> int:
    """End every session of the account but the one with token ``keep`` (after a password
    change: whoever knew the old password is signed out everywhere else); returns how many."""
    condition = SessionModel.account_id == account_id
    if keep:
        condition = and_(condition, SessionModel.token_hash != _token_hash(keep))
    result = await session.execute(delete(SessionModel).where(condition))
    return int(getattr(result, "rowcount", 0) or 0)


async def purge_sessions(session: AsyncSession, *, now: datetime | None = None) -> int:
    """Delete expired sessions; returns how many."""
    result = await session.execute(
        delete(SessionModel).where(SessionModel.expires_at <= (now or utcnow()))
    )
    return int(getattr(result, "rowcount", 0) or 0)

"""Shared fixtures. Async tests and fixtures need no marker (pytest-asyncio, ``asyncio_mode =
"auto"`` in pyproject.toml); each test runs in its own event loop.

Databases: ``db_url`` is a fresh, empty database (no schema), ``db`` an open, migrated
:class:`~rummyhall.store.database.Database` with no rows; both are parametrized over SQLite (a
file in the test's tmp_path) and PostgreSQL (a throwaway server started once per session, see
tests/pg.py). On PostgreSQL the ``db`` tests share one database, emptied before each test: ids
keep counting up across tests, so do not assert on them. Without PostgreSQL the PostgreSQL
cases are skipped, except under CI=true where they fail.

A test that needs the URL of the ``db`` database (to start a server on it, say):
``db.engine.url.render_as_string(hide_password=False)``.

Deals are random wherever a server deals them, so a test's players win and lose by chance: give
them wallets for the worst run the test allows, not the usual one. A Patti stack can go in one
game, and a seat left mid-game keeps its chips until that game ends; two tests failed in CI
once in many runs on wallets that covered only the usual run (tests/server/test_server_recovery.py,
tests/browser/test_web_layout.py).
"""

from __future__ import annotations

import os
import socket
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import NoReturn

import pytest
from argon2 import PasswordHasher
from argon2.profiles import CHEAPEST

import nginx_server as nginx_server_kit
import pg
import redis_server as redis_server_kit
from rummyhall.store import accounts
from rummyhall.store.database import Database
from rummyhall.store.models import Base

DATABASES = ["sqlite", "postgresql"]


@pytest.fixture(scope="session")
def pg_server() -> Iterator[pg.PostgresServer]:
    try:
        server = pg.start()
    except pg.PostgresUnavailable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL is required in CI: {exc}", pytrace=False)
        pytest.skip(f"PostgreSQL unavailable: {exc}")
    yield server
    server.stop()


@asynccontextmanager
async def _database_url(
    request: pytest.FixtureRequest, tmp_path: Path, *, migrated: bool
) -> AsyncIterator[str]:
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'test.db'}"
        return
    server: pg.PostgresServer = request.getfixturevalue("pg_server")
    if migrated:
        # One shared database, emptied before each test: much quicker than a new one each time.
        # (Database.open migrates it the first time.)
        tables = [table.name for table in reversed(Base.metadata.sorted_tables)]
        yield server.url(await server.emptied_shared_database(tables))
        return
    name = await server.create_database()
    yield server.url(name)
    await server.drop_database(name)  # a database weighs megabytes; do not pile them up


@pytest.fixture(params=DATABASES)
async def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """The URL of a new, empty database (no tables), on each database in turn."""
    async with _database_url(request, tmp_path, migrated=False) as url:
        yield url


@pytest.fixture(params=DATABASES)
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    """An open, migrated database with no rows, on each database in turn."""
    async with _database_url(request, tmp_path, migrated=True) as url:
        database = await Database.open(url)
        yield database
        await database.close()


@pytest.fixture(autouse=True, scope="session")
def cheap_password_hashing() -> Iterator[None]:
    """Argon2 with the cheapest parameters: the tests check behaviour, not hashing cost."""
    previous = accounts.password_hasher()
    accounts.set_password_hasher(PasswordHasher.from_parameters(CHEAPEST))
    yield
    accounts.set_password_hasher(previous)


# --- several nodes (issue 21): Redis and nginx, started by the tests on loopback -----------------


def _unavailable(what: str, reason: Exception) -> NoReturn:
    """A server the tests need cannot start: fail under CI=true (never skip there), else skip."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} is required in CI: {reason}", pytrace=False)
    pytest.skip(f"{what} unavailable: {reason}")


@pytest.fixture(scope="session")
def redis_server() -> Iterator[redis_server_kit.RedisServer]:
    """One throwaway ``redis-server`` for the session (tests/redis_server.py)."""
    try:
        server = redis_server_kit.start()
    except redis_server_kit.RedisUnavailable as exc:
        _unavailable("Redis", exc)
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server: redis_server_kit.RedisServer) -> str:
    """The URL of the session's Redis, emptied (FLUSHALL) for this test."""
    with socket.create_connection(("127.0.0.1", redis_server.port), timeout=10) as sock:
        sock.sendall(b"FLUSHALL\r\n")
        assert sock.recv(64).startswith(b"+OK"), "FLUSHALL refused"
    return redis_server.url


@pytest.fixture
def nginx() -> Iterator[Callable[..., nginx_server_kit.NginxServer]]:
    """``nginx(upstreams, balance="")`` starts a throwaway nginx in front of ``upstreams``
    (tests/nginx_server.py); every one started is stopped after the test."""
    started: list[nginx_server_kit.NginxServer] = []

    def start(upstreams: Sequence[str], *, balance: str = "") -> nginx_server_kit.NginxServer:
        try:
            server = nginx_server_kit.start(upstreams, balance=balance)
        except nginx_server_kit.NginxUnavailable as exc:
            _unavailable("nginx", exc)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()

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
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from argon2.profiles import CHEAPEST

import pg
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

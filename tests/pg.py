"""A throwaway PostgreSQL server for the test suite.

One server per test session, started with the system's ``initdb``/``pg_ctl`` in a temporary
folder, listening on 127.0.0.1 on a free port, with durability switched off (the data is thrown
away, so ``fsync`` buys nothing but seconds). Each test gets its own database, copied from a
template that already has the schema, so tests are independent and start fast.

PostgreSQL refuses to run as root, and the suite runs as root in CI: the binaries then run as the
``postgres`` system user (which the Debian package creates), and the folder is handed to that user.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg

SHARED = "rummyhall_test"


class PostgresUnavailable(Exception):
    """PostgreSQL cannot be started here; the message says why."""


def find_bindir() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``: on PATH, else Debian's versioned folders."""
    initdb = shutil.which("initdb")
    if initdb is not None:
        folder = Path(initdb).resolve().parent
        if (folder / "pg_ctl").exists():
            return folder
    # Debian installs the server outside PATH; take the newest version present.
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda path: int(Path(path).parent.parent.name.split(".")[0]),
    )
    if candidates:
        return Path(candidates[-1]).parent
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class PostgresServer:
    """A running throwaway server; ``stop()`` ends it and deletes its folder."""

    bindir: Path
    root: Path
    port: int
    run_as: str | None
    _counter: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    shared_ready: bool = False

    @property
    def datadir(self) -> Path:
        return self.root / "data"

    def url(self, database: str) -> str:
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/{database}"

    def _run(self, args: Sequence[str], *, timeout: float = 60) -> None:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self.run_as is not None:
            command = ["runuser", "-u", self.run_as, "--", *command]
        result = subprocess.run(
            command, check=False, capture_output=True, text=True, timeout=timeout
        )
        if result.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise PostgresUnavailable(
                f"{' '.join(args[:2])} failed ({result.returncode}): "
                f"{result.stderr.strip() or result.stdout.strip()}\n{tail}"
            )

    async def admin(self) -> asyncpg.Connection:
        return await asyncpg.connect(
            host="127.0.0.1", port=self.port, user="postgres", database="postgres"
        )

    async def create_database(self, *, template: str = "template0") -> str:
        """A new, empty (or template-copied) database; returns its name."""
        name = f"test_{os.getpid()}_{next(self._counter)}"
        conn = await self.admin()
        try:
            # FILE_COPY: a copy of a small template is quicker than WAL-logging every block.
            await conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}" STRATEGY FILE_COPY')
        finally:
            await conn.close()
        return name

    async def emptied_shared_database(self, tables: Sequence[str]) -> str:
        """The name of the one migrated database the tests share, emptied of all rows.

        Emptying a handful of small tables takes a few milliseconds; copying a database takes
        tens of milliseconds, so each test gets the shared one with its rows deleted (by the
        caller's ``migrate`` the first time). ``tables`` are in the order to empty them."""
        if not self.shared_ready:
            conn = await self.admin()
            try:
                await conn.execute(f'CREATE DATABASE "{SHARED}" TEMPLATE template0')
            finally:
                await conn.close()
            self.shared_ready = True
            return SHARED
        conn = await asyncpg.connect(
            host="127.0.0.1", port=self.port, user="postgres", database=SHARED
        )
        try:
            await conn.execute("; ".join(f'DELETE FROM "{table}"' for table in tables))
        except asyncpg.UndefinedTableError:
            pass  # the test that created it died before migrating: this test's open migrates
        finally:
            await conn.close()
        return SHARED

    async def drop_database(self, name: str) -> None:
        conn = await self.admin()
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await conn.close()

    def stop(self) -> None:
        with contextlib.suppress(PostgresUnavailable, subprocess.TimeoutExpired):
            if (self.datadir / "postmaster.pid").exists():
                self._run(["pg_ctl", "stop", "-D", str(self.datadir), "-m", "immediate", "-w"])
        shutil.rmtree(self.root, ignore_errors=True)


def start(*, durable: bool = False) -> PostgresServer:
    """Start a throwaway server, or raise PostgresUnavailable with the reason. ``durable``: with
    every commit flushed to disk as a production server does (bench/load.py), not the tests'
    speed settings."""
    bindir = find_bindir()
    if bindir is None:
        raise PostgresUnavailable(
            "PostgreSQL server binaries (initdb, pg_ctl) not found on PATH or in "
            "/usr/lib/postgresql/*/bin; install the Debian package `postgresql`"
        )
    run_as: str | None = None
    # Outside /tmp/pytest-of-root (mode 0700), so that the postgres user can reach it.
    root = Path(tempfile.mkdtemp(prefix="rummyhall-pg-"))
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            shutil.rmtree(root, ignore_errors=True)
            raise PostgresUnavailable(
                "running as root and there is no `postgres` user to run the server as"
            ) from None
        run_as = "postgres"
        os.chown(root, user.pw_uid, user.pw_gid)
    server = PostgresServer(bindir=bindir, root=root, port=0, run_as=run_as)
    try:
        server._run(
            [
                "initdb",
                "-D",
                str(server.datadir),
                "-U",
                "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--no-locale",
                "--no-sync",
            ]
        )
        speed = ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]
        options = " ".join(
            [
                "-c listen_addresses=127.0.0.1",
                f"-c unix_socket_directories={root}",
                *([] if durable else speed),
                "-c max_connections=200",
            ]
        )
        for _attempt in range(3):  # the free port may be taken between the probe and the start
            server.port = _free_port()
            try:
                server._run(
                    [
                        "pg_ctl",
                        "start",
                        "-D",
                        str(server.datadir),
                        "-l",
                        str(root / "server.log"),
                        "-w",
                        "-o",
                        f"{options} -p {server.port}",
                    ]
                )
                break
            except PostgresUnavailable:
                if _attempt == 2:
                    raise
    except BaseException:
        server.stop()
        raise
    return server

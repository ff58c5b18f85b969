"""The SQLite checkpoint thread (rummyhall.store.checkpoints) keeps the write-ahead log from
growing for as long as writes go on: a log past its restart size is restarted, so the next
commit writes it from its start, even when a read that began before the last commit was still
going when the checkpoint came (in a busy room there always is one, or a commit, and a passive
checkpoint alone then never lets the log start again)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from rummyhall.store.checkpoints import NO_AUTOCHECKPOINT, Checkpointer


def _connect(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    connection.execute(f"PRAGMA {NO_AUTOCHECKPOINT}")
    return connection


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    connection = _connect(tmp_path / "room.db")
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=OFF")  # thrown away: no sync needed
    connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, pad TEXT)")
    yield connection
    connection.close()


def _commit(writer: sqlite3.Connection, rows: int = 1) -> None:
    writer.execute("BEGIN IMMEDIATE")
    writer.executemany("INSERT INTO t (pad) VALUES (?)", [("x" * 3000,)] * rows)
    writer.execute("COMMIT")


def _restarts_of_the_log(path: Path) -> int:
    """The log's checkpoint sequence number: its header counts the times it was written from
    its start again (SQLite's WAL format; read from the file, without a checkpoint)."""
    with open(f"{path}-wal", "rb") as log:
        header = log.read(16)
    return int.from_bytes(header[12:16], "big")


def _log_pages(path: Path) -> int:
    """Pages the log's file holds (it is reused, never shrunk: its high-water mark)."""
    return Path(f"{path}-wal").stat().st_size // (4096 + 24)


def _checkpoint_with_an_old_read_going(
    path: Path, writer: sqlite3.Connection, checkpointer: Checkpointer
) -> None:
    """A read that began before the last commit, still reading when the checkpoint starts,
    and done a moment later (as a lobby's read is): the checkpoint may wait for it."""
    reader = _connect(path)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM t").fetchone()  # its snapshot: before the commit below
    _commit(writer)
    done = threading.Timer(0.2, lambda: reader.execute("COMMIT"))  # the read's own work
    done.start()
    connection = _connect(path)
    connection.execute(f"PRAGMA busy_timeout={checkpointer.restart_wait_ms}")
    try:
        checkpointer.checkpoint(connection)
    finally:
        done.join()
        connection.close()
        reader.close()


def test_a_log_past_its_restart_size_is_written_from_its_start_again(
    tmp_path: Path, writer: sqlite3.Connection
) -> None:
    path = tmp_path / "room.db"
    checkpointer = Checkpointer(str(path), every_s=3600, restart_pages=50, restart_wait_ms=30_000)
    try:
        for _ in range(40):
            _commit(writer, rows=5)
        assert _log_pages(path) > 50
        restarts = _restarts_of_the_log(path)
        _checkpoint_with_an_old_read_going(path, writer, checkpointer)
        _commit(writer)
        assert _restarts_of_the_log(path) == restarts + 1  # written from its start again
        assert checkpointer.restarts == 1
    finally:
        checkpointer.stop()


def test_a_log_below_its_restart_size_only_gets_a_passive_checkpoint(
    tmp_path: Path, writer: sqlite3.Connection
) -> None:
    path = tmp_path / "room.db"
    checkpointer = Checkpointer(
        str(path), every_s=3600, restart_pages=100_000, restart_wait_ms=30_000
    )
    try:
        for _ in range(40):
            _commit(writer, rows=5)
        restarts, pages = _restarts_of_the_log(path), _log_pages(path)
        _checkpoint_with_an_old_read_going(path, writer, checkpointer)
        assert checkpointer.restarts == 0
        _commit(writer)
        # The old read kept the passive checkpoint from copying the last commit, so the next
        # commit could not start the log again: it goes on growing.
        assert _restarts_of_the_log(path) == restarts
        assert _log_pages(path) > pages
    finally:
        checkpointer.stop()

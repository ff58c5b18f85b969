"""Checkpoints of a SQLite database's write-ahead log, off the writers' path.

In WAL mode a commit appends to the log; a *checkpoint* copies the log's pages back into the
database file and syncs it. SQLite runs one by itself inside the commit that takes the log past
1,000 pages, and that commit then waits for the copy and a sync of the database file: on a busy
disk a few hundred milliseconds, during which no table's action is committed (the load bench saw
commits of 250-600 ms at a hundred actions a second, and none with the checkpoints moved away).
So the server's connections do not checkpoint (``PRAGMA wal_autocheckpoint=0``, set where they
are opened) and this thread does, on a connection of its own, every ``every_s`` seconds: a
PASSIVE checkpoint, which copies what no reader still needs and never waits for, nor holds up,
a writer or a reader. The log is reused from its start once a checkpoint has copied all of it,
so it stays about as large as what is written between two checkpoints.
"""

from __future__ import annotations

import logging
import sqlite3
import threading

log = logging.getLogger(__name__)

NO_AUTOCHECKPOINT = "wal_autocheckpoint=0"
"""The pragma every connection of a server with a :class:`Checkpointer` is opened with."""


class Checkpointer:
    """A thread that checkpoints the SQLite file at ``path`` every ``every_s`` seconds until
    :meth:`stop`."""

    def __init__(self, path: str, every_s: float = 1.0) -> None:
        self.path = path
        self.every_s = every_s
        self.runs = 0
        self.last: tuple[int, int, int] | None = None
        """The last checkpoint's answer: (busy, pages in the log, pages copied back)."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sqlite-checkpoint", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            connection.execute("PRAGMA busy_timeout=1000")
            while not self._stop.wait(self.every_s):
                self.checkpoint(connection)
            self.checkpoint(connection)  # what the last writes left, before the file closes
        finally:
            connection.close()

    def checkpoint(self, connection: sqlite3.Connection) -> None:
        try:
            busy, pages, copied = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            self.last = (int(busy), int(pages), int(copied))
            self.runs += 1
        except sqlite3.Error as error:  # a checkpoint missed is made up by the next
            log.warning("WAL checkpoint failed: %s", error)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

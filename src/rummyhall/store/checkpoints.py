"""Checkpoints of a SQLite database's write-ahead log, off the writers' path.

In WAL mode a commit appends to the log; a *checkpoint* copies the log's pages back into the
database file and syncs it. SQLite runs one by itself inside the commit that takes the log past
1,000 pages, and that commit then waits for the copy and a sync of the database file: on a busy
disk a few hundred milliseconds, during which no table's action is committed (the load bench saw
commits of 250-600 ms at a hundred actions a second, and none with the checkpoints moved away).
So the server's connections do not checkpoint (``PRAGMA wal_autocheckpoint=0``, set where they
are opened) and this thread does, on a connection of its own, every ``every_s`` seconds: a
PASSIVE checkpoint, which copies what no reader still needs and never waits for, nor holds up,
a writer or a reader.

A passive checkpoint alone does not keep the log small under steady writes. The log is reused
from its start only by a writer that begins when every page of it has been copied and no reader
still reads from it; a commit that lands while the checkpoint copies (every few milliseconds in
a busy room) leaves pages behind, so the log grows by everything written, for as long as the
writes go on (the load bench's log reached 420 MB in two and a half minutes). So once the log
is past ``restart_pages``, the thread follows its passive checkpoint with a RESTART one: it
holds new writers off while it copies the few pages written since (the passive one has just
copied the rest) and waits for the readers of older pages to finish (short reads; at most
``restart_wait_ms``, after which it gives up until the next round), and the next commit then
writes the log from its start. A writer waits that long at most, once per ``restart_pages`` of
log, instead of the log growing without bound.
"""

from __future__ import annotations

import logging
import sqlite3
import threading

log = logging.getLogger(__name__)

EVERY_S = 5.0
"""How often the thread checkpoints. The tables' log rows land on the same few pages for many
seconds (each table's last page of the log and of its index), so a checkpoint copies each such
page once however many commits changed it since the last: every 5 s rather than every second,
the thread's share of the server's CPU at the 400 ms stress fell from 2.4% and 2.0% to 0.8% and
0.8% (issue 20, stop 41; docs/operations.md). The log holds up to that much more between two
checkpoints, and a RESTART (below) comes at most that much later."""

RESTART_PAGES = 16_384
"""Pages of log (64 MiB of SQLite's 4 KiB pages) past which a checkpoint restarts the log."""

RESTART_WAIT_MS = 100
"""How long a RESTART checkpoint may hold writers off while readers of the log finish."""

NO_AUTOCHECKPOINT = "wal_autocheckpoint=0"
"""The pragma every connection of a server with a :class:`Checkpointer` is opened with."""


class Checkpointer:
    """A thread that checkpoints the SQLite file at ``path`` every ``every_s`` seconds until
    :meth:`stop`."""

    def __init__(
        self,
        path: str,
        every_s: float = EVERY_S,
        *,
        restart_pages: int = RESTART_PAGES,
        restart_wait_ms: int = RESTART_WAIT_MS,
    ) -> None:
        self.path = path
        self.every_s = every_s
        self.restart_pages = restart_pages
        self.restart_wait_ms = restart_wait_ms
        self.runs = 0
        self.restarts = 0
        """RESTART checkpoints that copied the whole log and saw its readers go."""
        self.last: tuple[int, int, int] | None = None
        """The last checkpoint's answer: (busy, pages in the log, pages copied back)."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sqlite-checkpoint", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            # A PASSIVE checkpoint never waits; the RESTART one waits this long for the writer
            # and the readers of the log before it gives up.
            connection.execute(f"PRAGMA busy_timeout={self.restart_wait_ms}")
            while not self._stop.wait(self.every_s):
                self.checkpoint(connection)
            self.checkpoint(connection)  # what the last writes left, before the file closes
        finally:
            connection.close()

    def checkpoint(self, connection: sqlite3.Connection) -> None:
        try:
            busy, pages, copied = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            if pages >= self.restart_pages:
                busy, pages, copied = connection.execute(
                    "PRAGMA wal_checkpoint(RESTART)"
                ).fetchone()
                if not busy:
                    self.restarts += 1
            self.last = (int(busy), int(pages), int(copied))
            self.runs += 1
        except sqlite3.Error as error:  # a checkpoint missed is made up by the next
            log.warning("WAL checkpoint failed: %s", error)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

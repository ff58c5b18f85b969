"""Benchmark of the durable write path on SQLite: what one table action's commit costs the
server, at a human pace (each action alone in its commit, as when tables are few or slow) and in
bursts (many tables' actions at once, which share commits).

    python bench/commit.py [--actions 2000] [--tables 50]

Each action is a log row and a chip transfer (two ledger postings), through the room's own writer
(:class:`rummyhall.server.writer.Writer` on :class:`rummyhall.store.database.Database`, the
statements in the loop and the COMMIT on the commit thread), on a fresh file with the server's
settings (WAL, ``synchronous=FULL``: every commit waits for the disk). Printed: the wall time and
the process's CPU (every thread) per action, and its context switches per commit.

The baseline is measured in the same run: the same rows written by a plain ``sqlite3`` connection
in one thread (one INSERT of the log row, two of the postings, and the COMMIT, with the same
pragmas), with no event loop, no thread hand-off and no ledger checks. It is what the disk and
SQLite cost at the least; the ratio is what the room adds on top.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import resource
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import uvloop

from rummyhall.economy import ledger
from rummyhall.economy.bulk import Transfer
from rummyhall.server.writer import Writer
from rummyhall.store import tables
from rummyhall.store.database import Database, default_url
from rummyhall.store.tables import LogEntry


def _switches() -> int:
    """The process's voluntary context switches so far (every thread): each is a wait, for the
    disk or for another thread."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw


class Figures:
    def __init__(self, actions: int, commits: int, wall: float, cpu: float, switches: int):
        self.actions, self.commits = actions, commits
        self.wall, self.cpu, self.switches = wall, cpu, switches

    def line(self, name: str) -> str:
        return (
            f"{name:<34} {self.actions:>6} actions, {self.commits:>6} commits: "
            f"wall {self.wall / self.actions * 1e3:6.3f} ms, "
            f"CPU {self.cpu / self.actions * 1e3:6.3f} ms per action; "
            f"{self.switches / max(1, self.commits):5.1f} waits per commit"
        )


async def _room(
    folder: Path, actions: int, tables_count: int, burst: bool, rate: float = 0.0
) -> Figures:
    db = await Database.open(default_url(folder))
    try:
        async with db.transaction() as session:
            ids = [
                await tables.create_table(session, game="patti", room="r", config={})
                for _ in range(tables_count)
            ]
            for table in ids:
                await ledger.transfer(
                    session, f"grant:{table}",
                    [("mint", -10**9), (f"table:{table}:seat:1", 10**9)], kind="grant",
                )  # fmt: skip
        writer = Writer(db)
        writer.start()
        try:
            per_table = actions // tables_count

            pace = random.Random(2026)

            async def play(table: int) -> None:
                for seq in range(1, per_table + 1):
                    if rate:  # a player thinks (on average tables/rate seconds a move)
                        await asyncio.sleep(pace.expovariate(rate / tables_count))
                    await writer.write(
                        entry=LogEntry(table, seq, "act", {"seat": 1, "action": "chaal"}, seq),
                        transfer=Transfer(
                            f"table:{table}:seq:{seq}",
                            [(f"table:{table}:seat:1", -5), (f"table:{table}:pot", 5)],
                            "act",
                            {"table": table, "seq": seq},
                        ),
                    )

            commits_before, switches = writer.commits, _switches()
            cpu, wall = time.process_time(), time.perf_counter()
            if burst or rate:
                await asyncio.gather(*(play(table) for table in ids))
            else:
                for table in ids:  # one action at a time: every commit alone
                    await play(table)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            return Figures(
                per_table * len(ids), writer.commits - commits_before, wall, cpu,
                _switches() - switches,
            )  # fmt: skip
        finally:
            await writer.stop()
    finally:
        await db.close()


def _bare(folder: Path, actions: int) -> Figures:
    path = folder / "bare.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for pragma in ("journal_mode=WAL", "synchronous=FULL", "wal_autocheckpoint=0"):
        conn.execute(f"PRAGMA {pragma}")
    conn.execute("CREATE TABLE log (seq INTEGER PRIMARY KEY, body TEXT, at INTEGER)")
    conn.execute("CREATE TABLE postings (tx INTEGER, account TEXT, amount INTEGER)")
    switches = _switches()
    cpu, wall = time.process_time(), time.perf_counter()
    for seq in range(1, actions + 1):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO log VALUES (?, ?, ?)", (seq, '{"seat":1}', seq))
        conn.execute("INSERT INTO postings VALUES (?, ?, ?)", (seq, "table:1:seat:1", -5))
        conn.execute("INSERT INTO postings VALUES (?, ?, ?)", (seq, "table:1:pot", 5))
        conn.execute("COMMIT")
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    conn.close()
    return Figures(actions, actions, wall, cpu, _switches() - switches)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=2000)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--rate", type=float, default=500.0, help="actions/s of the paced run")
    args = parser.parse_args()
    # As `rummyhall serve` does (server/run.py): the commit thread gets the interpreter back soon.
    sys.setswitchinterval(0.0002)
    print(f"commit path on SQLite (synchronous=FULL), python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory(prefix="rummyhall-commit-") as tmp:
        folder = Path(tmp)
        bare = _bare(folder, args.actions)
        alone = uvloop.run(_room(folder / "alone", args.actions, args.tables, burst=False))
        burst = uvloop.run(_room(folder / "burst", args.actions, args.tables, burst=True))
        paced = uvloop.run(
            _room(folder / "paced", args.actions, args.tables, burst=False, rate=args.rate)
        )
    print(bare.line("baseline: bare sqlite3, one thread"))
    print(alone.line("room writer, each action alone"))
    print(burst.line(f"room writer, {args.tables} tables at once"))
    print(paced.line(f"room writer, {args.rate:.0f} actions/s"))
    ratio = (alone.cpu / alone.actions) / (bare.cpu / bare.actions)
    print(f"each action alone: the room's CPU per action is {ratio:.2f}x the bare baseline's")
    return 0


if __name__ == "__main__":
    sys.exit(main())

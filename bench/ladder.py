"""Benchmark of the ladder's two heavy reads and writes at the size of a big room, on SQLite:
a league season's rollover and a leaderboard page.

    python bench/ladder.py [--players 100000] [--seed 1] [--quick]

Targets: the rollover of a season with 100,000 league players under 10 s (one transaction:
every player read, decided, moved, recorded; prizes paid); a leaderboard page (20 lines after a
random cursor, with its rank) and a player's own line with their rank under 20 ms at 100,000
rated players. The exit status is 1 when a target is missed.

Baselines in the same run, because these machines are noisy: the rollover of a tenth of the
players (the ratio per player says whether the rollover grows linearly), and the page a plain
query gives, ``ORDER BY`` the rating computed from points and games with ``OFFSET``, which reads
the board every time (what the stored rating and its index save).

The database is built directly (accounts, progress, league players, the season's league lines
and the overall board), with levels, leagues and results drawn from a seeded generator; the
rollover and the pages are the server's own functions (rummyhall.economy.rollover, .boards).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy import Connection, insert, text
from sqlalchemy.orm import Session

from rummyhall.economy import boards, leagues, rollover
from rummyhall.economy.ladder import ALL
from rummyhall.economy.levels import clover_at
from rummyhall.economy.progression import rating
from rummyhall.store.database import Database
from rummyhall.store.models import (
    AccountModel,
    BoardLineModel,
    LeaguePlayerModel,
    ProgressModel,
    table,
    utcnow,
)
from timing import ms, percentile, verdict

ROLLOVER_TARGET_S = 10.0
PAGE_TARGET_MS = 20.0
SEASON = 100
LEAGUE_WEIGHTS = (40, 25, 15, 10, 7, 3)
"""Players per league, lowest first, in percent: a pyramid."""


def populate(conn: Connection, players: int, seed: int) -> None:
    """``players`` accounts, each in a league with a line for :data:`SEASON` (a tenth played
    nothing) and a rated line on the overall board."""
    rng = random.Random(seed)
    now = utcnow()
    accounts, progress, members, lines = [], [], [], []
    for n in range(1, players + 1):
        accounts.append(
            {
                "id": n, "name": f"p{n}", "name_key": f"p{n}", "password_hash": None,
                "is_guest": False, "is_bot": False, "created_at": now,
            }
        )  # fmt: skip
        level = rng.randint(1, 50)
        progress.append({"account_id": n, "clover": clover_at(level), "bonus_streak": 0})
        league = rng.choices(leagues.LEAGUES, LEAGUE_WEIGHTS)[0]
        members.append({"account_id": n, "league": league})
        games = 0 if rng.random() < 0.1 else rng.randint(1, 90)
        points = sum(rng.choice((35, 50, 65, 80, 100)) for _ in range(games))
        firsts = games // 4
        if games:
            lines.append(_line(leagues.league_board(SEASON, league), n, games, points, firsts))
        total = games + 20
        lines.append(_line(ALL, n, total, points + 20 * 50, firsts))
    for model, rows in (
        (AccountModel, accounts),
        (ProgressModel, progress),
        (LeaguePlayerModel, members),
        (BoardLineModel, lines),
    ):
        for start in range(0, len(rows), 20_000):
            conn.execute(insert(table(model)), rows[start : start + 20_000])


def _line(board: str, account: int, games: int, points: int, firsts: int) -> dict[str, object]:
    return {
        "board": board, "account_id": account, "games": games, "points": points,
        "firsts": firsts, "rating": rating(points, games),
    }  # fmt: skip


async def build(path: Path, players: int, seed: int) -> Database:
    db = await Database.open(f"sqlite+aiosqlite:///{path}")
    async with db.transaction() as session:
        await session.run_sync(lambda sync: populate(sync.connection(), players, seed))
    return db


async def timed_rollover(db: Database) -> tuple[float, rollover.Rolled]:
    def roll(sync: Session) -> rollover.Rolled | None:
        return rollover.roll_season(sync.connection(), SEASON)

    started = time.perf_counter()
    async with db.transaction() as session:
        rolled = await session.run_sync(roll)
    elapsed = time.perf_counter() - started
    assert rolled is not None
    return elapsed, rolled


async def page_times(db: Database, players: int, samples: int, seed: int) -> dict[str, list[float]]:
    rng = random.Random(seed)
    times: dict[str, list[float]] = {"page": [], "own line": [], "plain OFFSET page": []}
    async with db.read() as session:
        for _ in range(samples):
            account = rng.randint(1, players)
            started = time.perf_counter()
            line = await boards.line(session, ALL, account)
            times["own line"].append(time.perf_counter() - started)
            assert line is not None and line.rank is not None
            started = time.perf_counter()
            found = await boards.page(session, ALL, after=line.cursor, limit=20)
            times["page"].append(time.perf_counter() - started)
            assert found and found[0].rank == line.rank + 1
            started = time.perf_counter()
            plain = await session.execute(
                text(
                    "SELECT account_id, points * 100 / games AS r, games FROM board_lines "
                    "WHERE board = :board AND games >= 20 ORDER BY r DESC, games DESC, "
                    "account_id DESC LIMIT 20 OFFSET :skip"
                ),
                {"board": ALL, "skip": line.rank},
            )
            plain.all()
            times["plain OFFSET page"].append(time.perf_counter() - started)
    return times


async def run(players: int, seed: int, samples: int) -> bool:
    with tempfile.TemporaryDirectory() as folder:
        small_players = max(1, players // 10)
        small = await build(Path(folder) / "small.db", small_players, seed + 1)
        small_s, _ = await timed_rollover(small)
        await small.close()

        started = time.perf_counter()
        db = await build(Path(folder) / "big.db", players, seed)
        print(f"built {players:,} players in {time.perf_counter() - started:.1f} s")
        big_s, rolled = await timed_rollover(db)
        per_big, per_small = big_s / players * 1e6, small_s / small_players * 1e6
        print(
            f"rollover   {players:>9,} players: {big_s:6.2f} s ({per_big:.1f} µs a player), "
            f"{dict(sorted(rolled.moved.items()))}, {rolled.prizes:,} gold in prizes"
        )
        print(
            f"baseline   {small_players:>9,} players: {small_s:6.2f} s ({per_small:.1f} µs a "
            f"player); per player x{per_big / per_small:.2f}"
        )
        rollover_ok = big_s < ROLLOVER_TARGET_S
        print(f"target: rollover of {players:,} under {ROLLOVER_TARGET_S:.0f} s: "
              f"{verdict(rollover_ok)}")  # fmt: skip

        async with db.read() as session:
            rated = await boards.rated(session, ALL)
        times = await page_times(db, players, samples, seed)
        await db.close()
    print(f"leaderboard of {rated:,} rated players, {samples} random readers:")
    for name, values in times.items():
        print(
            f"  {name:<18} p50 {ms(statistics.median(values))}  p99 {ms(percentile(values, 0.99))}"
        )
    page_p99 = max(percentile(times["page"], 0.99), percentile(times["own line"], 0.99))
    plain_p50 = statistics.median(times["plain OFFSET page"])
    print(f"  page p50 vs plain: x{plain_p50 / statistics.median(times['page']):.1f} faster")
    page_ok = page_p99 * 1000 < PAGE_TARGET_MS
    print(f"target: a page and an own line p99 under {PAGE_TARGET_MS:.0f} ms at {rated:,} "
          f"rated: {verdict(page_ok)}")  # fmt: skip
    return rollover_ok and page_ok


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="a tenth of everything")
    args = parser.parse_args(argv)
    players = args.players // 10 if args.quick else args.players
    samples = max(10, args.samples // 10) if args.quick else args.samples
    return 0 if asyncio.run(run(players, args.seed, samples)) else 1


if __name__ == "__main__":
    sys.exit(main())

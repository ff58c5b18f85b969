"""``rummyhall serve --redis URL --node-id N`` (issue 21): the options for one node of several
go together, on a PostgreSQL database, or the server refuses to start and says why. Without
--redis the server is the one process it always was (tests everywhere else)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rummyhall.cli import main
from rummyhall.server.run import cluster_problem

PG = "postgresql+asyncpg://room@db/room"


@pytest.mark.parametrize(
    ("database", "redis", "node", "ttl", "says"),
    [
        (None, "redis://r:6379/0", "a", 5000, "PostgreSQL"),
        ("sqlite+aiosqlite:///room.db", "redis://r:6379/0", "a", 5000, "PostgreSQL"),
        (PG, "redis://r:6379/0", None, 5000, "--node-id"),
        (PG, "redis://r:6379/0", "a:b", 5000, "':'"),
        (PG, "http://r:6379", "a", 5000, "redis://"),
        (PG, "redis://r:6379/0", "a", 10, "--lease-ttl-ms"),
        (None, None, "a", 5000, "--redis"),
    ],
)
def test_options_that_do_not_go_together(
    database: str | None, redis: str | None, node: str | None, ttl: int, says: str
) -> None:
    problem = cluster_problem(database, redis, node, ttl)
    assert problem is not None and says in problem


def test_options_that_go_together() -> None:
    assert cluster_problem(None, None, None, 5000) is None  # one process, SQLite
    assert cluster_problem(PG, None, None, 5000) is None
    assert cluster_problem(PG, "redis://r:6379/0", "node-1", 1500) is None


def test_serve_refuses_a_node_on_sqlite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["serve", "--data-dir", str(tmp_path), "--redis", "redis://127.0.0.1:1/0",
         "--node-id", "a"]
    )  # fmt: skip
    assert code == 2
    assert "PostgreSQL" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # refused before anything was made

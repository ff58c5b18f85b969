"""A small, seeded slice of the load benchmark (bench/load.py runs the full one): many tables
play at once through one server, each seat a separate client; every game finishes, no action is
refused, and the ledger is sound afterwards."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rummyhall.client import RoomClient
from rummyhall.economy.audit import audit_database
from server_kit import Player, fast_settings, running, seat_guest

TABLES = 6
SEATS = 4


async def test_many_tables_at_once(tmp_path: Path) -> None:
    settings = fast_settings(
        tmp_path, f"sqlite+aiosqlite:///{tmp_path / 'load.db'}", bots=False, next_game_ms=3_600_000
    )
    async with running(settings) as server:
        clients = [RoomClient(server.url) for _ in range(TABLES * SEATS)]
        try:
            players = []
            for number, client in enumerate(clients):
                table, _, _ = await seat_guest(client, "practice-patti-10-4p", follow=True)
                players.append((Player(client, "patti", number), table))
            finals = await asyncio.gather(*(p.play(t, games=1) for p, t in players))
        finally:
            for client in clients:
                await client.close()
        assert len({table for _, table in players}) == TABLES
        assert all(final["info"]["game_no"] == 1 for final in finals)
        assert all(player.refused == [] for player, _ in players)
        assert server.app.state.hub.writer.jobs > 0
    report = await audit_database(settings.database_url)
    assert report.problems == []

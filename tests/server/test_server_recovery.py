"""Crash recovery: the server process is killed (SIGKILL) at random moments while people play at
several tables, and restarted. Every acknowledged action survives, the games go on with the same
decks and finish, and the ledger audit is clean after every restart. On SQLite and PostgreSQL.

``make test`` runs a few kills; ``make soak`` (RUMMYHALL_SOAK=1) many more."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
from pathlib import Path

from rummyhall.client import RoomClient
from rummyhall.economy.audit import audit_database
from rummyhall.games.protocol import replay
from server_kit import Player, ServerProcess, check_flows, free_port, watch_table

ROOMS = [
    ("indian13-classic-points-1-2p", "indian13"),
    ("indian13-pool101-50-2p", "indian13"),
    ("patti-10-5p", "patti"),
]
RICH = ("--starting-silver", "10000000", "--starting-gold", "0")
"""Players that rebuy through every kill. A Patti stack (buy-in 2,000) can go in one game: a wallet
of 10,000 ran dry after 85 games of a soak (CI's short run failed with the same error), and a
player who cannot top up is stood up, which closes a table of bots. A top-up takes at most the
buy-in, and only between games, so this wallet lasts 5,000 games: more than a soak plays."""
KILLS = 60 if os.environ.get("RUMMYHALL_SOAK") else 4


class Seat:
    def __init__(self, url: str, room: str, game: str, number: int) -> None:
        self.url = url
        self.room = room
        self.game = game
        self.number = number
        self.name = f"crash{number}"
        self.table = 0
        self.acked = 0
        self.client: RoomClient | None = None
        self.player: Player | None = None

    async def join(self) -> None:
        client = RoomClient(self.url)
        await client.register(self.name, "a long password")
        # Automatic rebuy on (and so in the log, restored after each crash): the player plays
        # on through many games and pools without being stood up for a short stack.
        self.table, _ = await client.quick_seat(self.room, auto_rebuy=True)
        self.client = client
        self.player = Player(client, self.game, self.number)

    async def reconnect(self) -> None:
        assert self.client is not None and self.player is not None
        await self.client.close()
        client = RoomClient(self.url)
        await client.login(self.name, "a long password")
        bot = self.player.bot
        self.player = Player(client, self.game, self.number)
        self.player.bot = bot
        self.client = client
        snapshot = await watch_table(client, self.table, follow=True)
        # Every action acknowledged before the crash is in the table's log.
        assert snapshot["seq"] >= self.acked

    async def play(self, games: int) -> None:
        assert self.client is not None and self.player is not None
        client = self.client
        original = client.act

        async def act(table: int, action: str, cid: str | None = None) -> int:
            seq = await original(table, action, cid)
            self.acked = max(self.acked, seq)
            return seq

        client.act = act  # type: ignore[method-assign]
        await self.player.play(self.table, games=games, timeout=300)


async def _crash_run(tmp_path: Path, database_url: str) -> None:
    rng = random.Random(2026)
    server = ServerProcess(tmp_path, database_url, free_port())
    server.start(*RICH)
    seats = [Seat(server.url, room, game, n) for n, (room, game) in enumerate(ROOMS)]
    try:
        for seat in seats:
            await seat.join()
            assert seat.client is not None
            await watch_table(seat.client, seat.table, follow=True)
        for _ in range(KILLS):
            plays = [asyncio.create_task(seat.play(games=10_000)) for seat in seats]
            await asyncio.sleep(rng.uniform(0.05, 0.6))
            server.kill()
            for task in plays:
                task.cancel()
            # The players see the connection drop in whatever way it happens to.
            await asyncio.wait(plays, timeout=15)
            for task in plays:
                if task.done() and not task.cancelled():
                    with contextlib.suppress(Exception):
                        task.result()
            report = await audit_database(database_url)
            assert report.problems == [], report.problems
            server.start(*RICH)
            for seat in seats:
                await seat.reconnect()
        # After the last restart every table plays its current game to the end.
        for seat in seats:
            assert seat.client is not None
            current = seat.client.tables[seat.table]["info"]["game_no"]
            await seat.play(games=current + 1)
            hands = (await seat.client.request("GET", "/api/hands"))["hands"]
            assert hands, "no finished game recorded"
            for hand in hands:
                record = (await seat.client.request("GET", f"/api/hands/{hand['id']}"))["record"]
                assert replay(record).result is not None
    finally:
        for seat in seats:
            if seat.client is not None:
                await seat.client.close()
        server.stop()
    report = await audit_database(database_url)
    assert report.problems == [], report.problems
    # Who paid whom in each game was recorded right, for games a restart cut in two as well.
    assert await check_flows(database_url) > 0


async def test_the_server_survives_being_killed(db_url: str, tmp_path: Path) -> None:
    await _crash_run(tmp_path, db_url)

"""Deal seeds at rest (issue 15): while a deal is played, a copy of the database does not hold
its server seed (the log keeps it sealed with the server's key, server/sealed_seeds.py); the
finished game's record reveals it; a restarted server opens it and deals the same cards; a server
with another key refuses to start rather than deal something else. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import inspect, text

from rummyhall import catalog
from rummyhall.client import RoomClient
from rummyhall.economy.rooms import Rooms
from rummyhall.server.clock import FakeClock
from rummyhall.server.hub import Hub
from rummyhall.server.metrics import Metrics
from rummyhall.server.sealed_seeds import SealError
from rummyhall.server.settings import Settings
from rummyhall.shuffle import commitment
from rummyhall.store.database import Database
from server_kit import Player, fast_settings, run_clock, running, watch_table

POINTS_2P = "indian13-classic-points-1-2p"


async def dump(db: Database) -> str:
    """Every row of every table of the database, as text: what a backup would hold."""
    async with db.read() as session:
        conn = await session.connection()
        names = await conn.run_sync(lambda sync: inspect(sync).get_table_names())
        rows = [
            repr((await session.execute(text(f'SELECT * FROM "{name}"'))).all()) for name in names
        ]
    return "\n".join(rows)


def files_of(settings: Settings) -> bytes:
    """The raw bytes of a SQLite database (with its write-ahead log); nothing for PostgreSQL."""
    if not settings.database_url.startswith("sqlite"):
        return b""
    return b"".join(
        path.read_bytes()
        for path in settings.data_dir.iterdir()
        if path.name.endswith((".db", ".db-wal", ".sqlite", ".sqlite-wal", "-wal"))
    )


def live_seed(actor: Any) -> str:
    """The server seed of the deal in play, from the engine's memory."""
    deals = [e["deal"] for e in actor.game.log if "deal" in e and "server_seed" in e["deal"]]
    return str(deals[-1]["server_seed"])


async def dealt(client: RoomClient, table: int) -> None:
    """Wait until the client has been told of the deal: the server tells nobody before the deal
    is in the log (its state in memory is ahead of the log while the commit is under way)."""
    await client.wait_for(table, lambda m: m["view"] is not None and bool(m["view"].get("hand")))


async def test_a_database_copy_holds_no_live_seed(tmp_path: Path, db_url: str) -> None:
    # A fake clock: the bot thinks for a second, so nothing moves while the copy is taken (a
    # bot's drop at once would end the game, and its record would rightly hold the seed).
    clock = FakeClock()
    settings = fast_settings(tmp_path, db_url, bot_think_ms=(1_000, 1_000))
    async with running(settings, clock=clock) as server, RoomClient(server.url) as client:
        await client.register("sealer", "a long password")
        table, _ = await client.quick_seat(POINTS_2P)
        await watch_table(client, table, follow=True)
        actor = server.hub.table(table)
        await dealt(client, table)
        game_no, seed = actor.game_no, live_seed(actor)
        committed = commitment(bytes.fromhex(seed))
        copy = await dump(server.hub.db)
        assert actor.game_no == game_no and not actor.game.over
        # The copy is a real one: the deal's public commitment is in it, the seed is not.
        assert committed in copy
        assert seed not in copy.lower()
        raw = files_of(settings)
        assert bytes.fromhex(seed) not in raw and seed.encode() not in raw
        # Once the game is over its record reveals the seed, which matches the commitment.
        play = asyncio.create_task(Player(client, "indian13", 5).play(table, games=game_no))
        await run_clock(clock, play.done, step=1_000, rounds=2_000)
        await play
        hands = (await client.request("GET", "/api/hands"))["hands"]
        records = [
            (await client.request("GET", f"/api/hands/{hand['id']}"))["record"] for hand in hands
        ]
        record = next(r for r in records if r["table"]["game_no"] == game_no)
        revealed = [a["deal"] for a in record["actions"] if "server_seed" in a.get("deal", {})]
        assert revealed[0]["server_seed"] == seed
        assert revealed[0]["commitment"] == committed


async def test_a_restarted_server_opens_the_seed_and_deals_the_same_cards(
    tmp_path: Path, db_url: str
) -> None:
    settings = fast_settings(tmp_path, db_url, bot_think_ms=(3_600_000, 3_600_000))
    async with running(settings) as server, RoomClient(server.url) as client:
        await client.register("sealer", "a long password")
        table, seat = await client.quick_seat(POINTS_2P)
        await watch_table(client, table)
        actor = server.hub.table(table)
        await dealt(client, table)
        seed = live_seed(actor)
        hand = actor.game.view(seat)["hand"]
    async with running(settings) as server:
        actor = server.hub.table(table)
        assert live_seed(actor) == seed
        assert actor.game.view(seat)["hand"] == hand
    # Another key cannot open the live deal's seed: the server says so and does not start.
    other = replace(settings, seed_key_file=tmp_path / "another.key")
    db = await Database.open(other.database_url)
    hub = Hub(db, other, FakeClock(), Rooms(catalog.rooms()), Metrics())
    try:
        with pytest.raises(SealError, match=f"table {table}.*seed key"):
            await hub.start()
    finally:
        await hub.stop()
        await db.close()

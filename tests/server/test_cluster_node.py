"""One node of several, in this process (issue 21): servers started with a Redis and a node id
on a test PostgreSQL. A node takes the lease of a table it opens and raises its fence; a clean
stop gives the leases back, so the next node takes the table over at its start without waiting
for a ttl; a write the database refuses (another node raised the fence) drops the table: the
request is answered ``table_moved``, the table's sockets are closed with 4503; and a table nobody
holds is taken over again by the sweep, above the database's token. Waits are on states, each
with a deadline."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis

import pg
from rummyhall.client import ClientError, RoomClient
from rummyhall.server.cluster.lease import Owner, TableLeases
from rummyhall.server.cluster.node import CLOSE_TABLE_MOVED
from rummyhall.store import fences
from rummyhall.store.database import Database
from server_kit import fast_settings, running, until, watch_table

ROOM = "indian13-classic-points-1-2p"


@pytest.fixture
async def pg_url(pg_server: pg.PostgresServer) -> AsyncIterator[str]:
    name = await pg_server.create_database()
    yield pg_server.url(name)
    await pg_server.drop_database(name)


async def _fence(url: str, table: int) -> int:
    db = await Database.open(url, migrate=False)
    try:
        async with db.read() as session:
            return await fences.current(session, table)
    finally:
        await db.close()


async def _raise_fence(url: str, table: int, token: int) -> None:
    """What a node taking the table over does first."""
    db = await Database.open(url, migrate=False)
    try:
        async with db.transaction() as session:
            await fences.check_and_raise(session, table, token)
    finally:
        await db.close()


async def test_leases_fences_drops_and_takeovers(
    pg_url: str, redis_url: str, tmp_path: Path
) -> None:
    def node(name: str) -> Any:
        return fast_settings(
            tmp_path, pg_url, bots=False, redis_url=redis_url, node_id=name, lease_ttl_ms=1_500
        )

    redis = Redis.from_url(redis_url)
    leases = TableLeases(redis)
    first = RoomClient("http://unused")
    try:
        # Node a opens a table: its lease, and the fence raised to its token.
        async with running(node("a")) as a:
            first = RoomClient(a.url)
            await first.register("nodeplayer1", "a long password")
            table, _ = await first.quick_seat(ROOM)
            held = await leases.owner(table)
            assert held is not None and held.node_id == "a"
            assert await _fence(pg_url, table) == held.token
            await first.close()
        # A clean stop gave the lease back: nobody holds the table now.
        assert await leases.owner(table) is None

        async with running(node("b")) as b:
            # Node b took it over as it started, above a's token, and replayed it.
            assert table in b.hub.tables
            taken = await leases.owner(table)
            assert taken is not None and taken.node_id == "b" and taken.token > held.token
            assert await _fence(pg_url, table) == taken.token
            first = RoomClient(b.url)
            await first.login("nodeplayer1", "a long password")
            snapshot = await watch_table(first, table)
            assert snapshot["you"] is not None  # the seat came through the replay

            # Another node raises the fence (as a takeover does first): b's next write of the
            # table is refused, and b drops it.
            await _raise_fence(pg_url, table, taken.token + 5)
            async with RoomClient(b.url) as second:
                await second.register("nodeplayer2", "a long password")
                with pytest.raises(ClientError) as refused:
                    await second.quick_seat(ROOM)
                assert refused.value.code == "table_moved"

            async def closed() -> bool:
                return first.closed_reason is not None

            await until("the table's socket closed", closed)
            assert first._socket is not None and first._socket.close_code == CLOSE_TABLE_MOVED

            # Nobody renews the lease now; once it has run out, b's sweep takes the table
            # over again, above the database's token.
            async def retaken() -> Owner | None:
                owner = await leases.owner(table)
                ours = owner is not None and owner.node_id == "b" and owner.token > taken.token
                return owner if ours and table in b.hub.tables else None

            again = await until("b took the table over again", retaken)
            assert again.token > taken.token + 5
            assert await _fence(pg_url, table) == again.token
            async with RoomClient(b.url) as second:
                await second.login("nodeplayer2", "a long password")
                assert (await second.quick_seat(ROOM))[0] == table  # b writes it again
    finally:
        await first.close()
        await redis.aclose()

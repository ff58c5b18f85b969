"""Private tables and the limits on making tables, over real connections on SQLite and
PostgreSQL (issue 15, items 1 and 3): a private table is reachable only through its invite (or by
its creator), for info, watching, sitting and history, before and after a restart; an account
opens a few tables at most; a table nobody sits at closes after a while and does not come back
after a restart."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from rummyhall.client import ClientError, RoomClient
from rummyhall.server.clock import FakeClock
from rummyhall.store import tables as store_tables
from rummyhall.store.database import Database
from server_kit import fast_settings, running, settle

ROOM = "indian13-classic-points-1-6p"
PRACTICE = "practice-indian13-classic-points-1-6p"
"""The limits hold for guests too, who open tables in the practice rooms."""


async def refused(call: Any) -> ClientError:
    """The error a call ends with (it must end with one)."""
    with pytest.raises(ClientError) as caught:
        await call
    return caught.value


async def assert_unreachable(client: RoomClient, table: int) -> None:
    """Every way to reach a table by its id answers as for a table that does not exist."""
    for method, path, body in (
        ("GET", f"/api/tables/{table}", None),
        ("POST", f"/api/tables/{table}/sit", {}),
        ("POST", f"/api/tables/{table}/leave", None),
        ("POST", f"/api/tables/{table}/auto-rebuy", {"on": True}),
    ):
        error = await refused(client.request(method, path, body))
        assert (error.code, error.status) == ("unknown_table", 404), path
    assert (await refused(client.watch(table))).code == "unknown_table"
    assert (await refused(client.sit(table))).code == "unknown_table"
    assert (await refused(client.leave(table))).code == "unknown_table"
    assert (await refused(client.act(table, "draw closed"))).code == "unknown_table"


async def test_a_private_table_is_reached_only_through_its_invite(
    tmp_path: Path, db_url: str
) -> None:
    settings = fast_settings(tmp_path, db_url, bots=False)
    names = ("owner", "stranger", "friend", "watcher")
    async with running(settings) as server:
        clients = {name: RoomClient(server.url) for name in names}
        try:
            for name, client in clients.items():
                await client.register(name, "a long enough password")
                await client.connect()
            owner, stranger, friend, watcher = clients.values()
            created = await owner.request("POST", "/api/tables", {"room": ROOM, "private": True})
            table, invite = created["table"]["id"], created["invite"]
            # The invite is the capability: as hard to guess as a session token (>= 128 bits).
            assert len(invite) >= 22
            assert (await stranger.request("GET", "/api/tables"))["tables"] == []
            await assert_unreachable(stranger, table)
            # A public table of the same room with the next id: ids leak nothing either way.
            assert (await refused(stranger.request("GET", f"/api/tables/{table + 1}"))).code == (
                "unknown_table"
            )
            # The creator reaches it without the invite.
            assert (await owner.request("GET", f"/api/tables/{table}"))["table"]["id"] == table
            assert (await owner.watch(table))["table"] == table
            # Opening the invite lets an account in, by id from then on.
            assert (await friend.request("GET", f"/api/invites/{invite}"))["table"]["id"] == table
            assert (await watcher.request("GET", f"/api/invites/{invite}"))["table"]["id"] == table
            assert (await friend.watch(table))["table"] == table
            assert await friend.sit(table) == 1
            assert (await watcher.request("GET", f"/api/tables/{table}"))["table"]["id"] == table
            # Another account's access is not the stranger's.
            await assert_unreachable(stranger, table)
        finally:
            for client in clients.values():
                await client.close()
    # After a restart, who could reach the table still can, and nobody else.
    async with running(settings) as server:
        clients = {name: RoomClient(server.url) for name in names}
        try:
            for name, client in clients.items():
                await client.login(name, "a long enough password")
                await client.connect()
            owner, stranger, friend, watcher = clients.values()
            for allowed in (owner, friend, watcher):
                assert (await allowed.watch(table))["table"] == table
            assert (await watcher.request("POST", f"/api/tables/{table}/sit", {}))["seat"] == 2
            await assert_unreachable(stranger, table)
            assert server.hub.table(table).seats.keys() == {1, 2}
        finally:
            for client in clients.values():
                await client.close()


async def test_an_account_opens_a_few_tables_at_most(tmp_path: Path, db_url: str) -> None:
    clock = FakeClock()
    settings = fast_settings(tmp_path, db_url, bots=False, tables_per_account=2)
    async with (
        running(settings, clock=clock) as server,
        RoomClient(server.url) as guest,
        RoomClient(server.url) as other,
    ):
        await guest.guest()
        await other.guest()
        first = await guest.request("POST", "/api/tables", {"room": PRACTICE})
        await guest.request("POST", "/api/tables", {"room": PRACTICE, "private": True})
        error = await refused(guest.request("POST", "/api/tables", {"room": PRACTICE}))
        assert (error.code, error.status) == ("too_many_tables", 429)
        # The limit is the account's own: another account still opens tables, and asking many
        # times at once opens no more than the limit.
        answers = await asyncio.gather(
            *(other.request("POST", "/api/tables", {"room": PRACTICE}) for _ in range(6)),
            return_exceptions=True,
        )
        assert sum(isinstance(a, dict) for a in answers) == 2
        assert {a.code for a in answers if isinstance(a, ClientError)} == {"too_many_tables"}
        # Once one of its tables closes (nobody sat at it), the account may open another.
        clock.advance(settings.empty_table_ms)
        await settle(server.hub, lambda hub: first["table"]["id"] not in hub.tables)
        await settle(server.hub, lambda hub: len(hub.tables) == 0)
        await guest.request("POST", "/api/tables", {"room": PRACTICE})


async def test_a_table_nobody_sits_at_closes(tmp_path: Path, db_url: str) -> None:
    clock = FakeClock()
    settings = fast_settings(tmp_path, db_url, bots=False, empty_table_ms=60_000)
    async with running(settings, clock=clock) as server, RoomClient(server.url) as client:
        await client.guest()
        empty = (await client.request("POST", "/api/tables", {"room": PRACTICE}))["table"]["id"]
        used = (await client.request("POST", "/api/tables", {"room": PRACTICE}))["table"]["id"]
        await client.request("POST", f"/api/tables/{used}/sit", {})
        await client.connect()
        await client.watch(used)  # there, so not stood up as away
        await client.watch(empty)
        clock.advance(59_999)
        assert empty in server.hub.tables
        clock.advance(1)
        closed = await client.wait_for(empty, lambda m: m["type"] == "closed")
        assert closed["table"] == empty
        await settle(server.hub, lambda hub: empty not in hub.tables)
        assert (await refused(client.request("GET", f"/api/tables/{empty}"))).code == (
            "unknown_table"
        )
        # A table someone sat at stays open while they sit there.
        assert server.hub.table(used).seats
        db: Database = server.app.state.db
        async with db.read() as session:
            row = await store_tables.get_table(session, empty)
        assert row is not None and row.status == store_tables.CLOSED


async def test_tables_nobody_sat_at_do_not_come_back(tmp_path: Path, db_url: str) -> None:
    settings = fast_settings(tmp_path, db_url, bots=False)
    clock = FakeClock()
    async with running(settings, clock=clock) as server, RoomClient(server.url) as client:
        await client.register("maker", "a long enough password")
        empty = (await client.request("POST", "/api/tables", {"room": ROOM}))["table"]["id"]
        used = (await client.request("POST", "/api/tables", {"room": ROOM}))["table"]["id"]
        await client.request("POST", f"/api/tables/{used}/sit", {})
    async with running(settings, clock=clock) as server, RoomClient(server.url) as client:
        assert set(server.hub.tables) == {used}
        db: Database = server.app.state.db
        async with db.read() as session:
            row = await store_tables.get_table(session, empty)
        assert row is not None and row.status == store_tables.CLOSED
        # The restored table still counts against its creator's limit.
        await client.login("maker", "a long enough password")
        assert server.hub.table(used).creator == client.me["id"]  # type: ignore[index]

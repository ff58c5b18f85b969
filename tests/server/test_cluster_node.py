"""One node of several, in this process (issue 21): servers started with a Redis and a node id
on a test PostgreSQL. A node takes the lease of a table it opens and raises its fence; a clean
stop gives the leases back, so the next node takes the table over at its start without waiting
for a ttl; a write the database refuses (another node raised the fence) drops the table: the
request is answered ``table_moved``, the table's sockets are closed with 4503; and a table nobody
holds is taken over again by the sweep, above the database's token. Waits are on states, each
with a deadline."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis
from sqlalchemy import update

import pg
from rummyhall import catalog
from rummyhall.client import ClientError, RoomClient
from rummyhall.server.cluster.lease import Owner, TableLeases
from rummyhall.server.cluster.node import CLOSE_TABLE_MOVED
from rummyhall.server.table import TableActor
from rummyhall.store import fences, tables
from rummyhall.store.database import Database
from rummyhall.store.models import GameTableModel, utcnow
from rummyhall.store.tables import CLOSED, OPEN
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


async def _fence_and_write(url: str, node_url: str, table: int, token: int, name: str) -> None:
    """Another node raises the table's fence to ``token`` (as a takeover does first); a new
    player ``name`` then asks the node for a seat there: the node's write of the table is
    refused, the answer is ``table_moved``, and the node drops the table."""
    await _raise_fence(url, table, token)
    async with RoomClient(node_url) as late:
        await late.register(name, "a long password")
        with pytest.raises(ClientError) as refused:
            await late.quick_seat(ROOM)
        assert refused.value.code == "table_moved"


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
            await _fence_and_write(pg_url, b.url, table, taken.token + 5, "nodeplayer2")

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


async def _open_table(url: str, *, age: timedelta) -> int:
    """A table row as a node makes it before it takes the lease (no log, no fence), as old as
    ``age``: what a node leaves behind when it dies between the two."""
    db = await Database.open(url)  # (before any node: it makes the schema)
    try:
        async with db.transaction() as session:
            room = next(r for r in catalog.rooms() if r.key == ROOM)
            table = await tables.create_table(
                session, game=room.game, room=room.key, config=room.to_json()
            )
            await session.execute(
                update(GameTableModel)
                .where(GameTableModel.id == table)
                .values(created_at=utcnow() - age)
            )
        return table
    finally:
        await db.close()


async def _status(url: str, table: int) -> str:
    db = await Database.open(url, migrate=False)
    try:
        async with db.read() as session:
            row = await tables.get_table(session, table)
            assert row is not None
            return row.status
    finally:
        await db.close()


async def test_tables_whose_node_died_as_it_opened_them_are_closed(
    pg_url: str, redis_url: str, tmp_path: Path
) -> None:
    """A table row without a log or a fence, older than a table nobody sits at may stay open,
    is closed by a node's sweep; one being opened right now, and one a node runs, are not. A
    node that stalled between opening a table and taking its lease, long enough for another's
    sweep to close it, does not run the closed table (its request gets ``busy``)."""
    settings = fast_settings(
        tmp_path, pg_url, bots=False, redis_url=redis_url, node_id="a", lease_ttl_ms=1_500
    )
    minute = timedelta(milliseconds=settings.empty_table_ms)
    abandoned = await _open_table(pg_url, age=minute * 2)
    being_opened = await _open_table(pg_url, age=timedelta(0))
    async with running(settings) as a, RoomClient(a.url) as player:
        await player.register("opener", "a long password")
        running_table, _ = await player.quick_seat(ROOM)

        async def closed() -> bool:
            return await _status(pg_url, abandoned) == CLOSED

        await until("the sweep closed the abandoned table", closed)
        assert await _status(pg_url, being_opened) == OPEN
        assert await _status(pg_url, running_table) == OPEN
        # Asked for, the closed table and a made-up id are none; the closed one is remembered
        # (asked again, no database read: server/cluster/gone_tables.py).
        gone = a.app.state.hub._gone
        await player.connect()
        for table in (abandoned, 10**9):
            with pytest.raises(ClientError) as unknown:
                await player.watch(table)
            assert unknown.value.code == "unknown_table"
        assert gone.known_closed(abandoned) and not gone.known_closed(being_opened)

        # A node that stalls between opening and claiming: another's sweep closes the table
        # in between (here, the stall's end is when it is closed).
        node = a.app.state.hub.node
        claim = node.claim

        async def stalled_claim(db: Database, table: int) -> int | None:
            async with db.transaction() as session:
                await tables.close_table(session, table)
            token: int | None = await claim(db, table)
            return token

        node.claim = stalled_claim
        async with RoomClient(a.url) as late:
            await late.register("late", "a long password")
            with pytest.raises(ClientError) as refused:
                await late.request("POST", "/api/tables", {"room": ROOM, "private": True})
            assert refused.value.code == "busy"
        node.claim = claim
        # (and the node runs no closed table: only the one it opened and played)
        assert set(a.app.state.hub.tables) == {running_table}


@asynccontextmanager
async def _seated_at_b(
    pg_url: str, redis_url: str, tmp_path: Path, name: str
) -> AsyncIterator[tuple[Any, RoomClient, int, Owner, TableLeases]]:
    """Node b (no bots, a short lease) with a new player ``name`` seated at a table of it: (the
    running server, the player's client, the table, the lease b took of it, the leases)."""
    settings = fast_settings(
        tmp_path, pg_url, bots=False, redis_url=redis_url, node_id="b", lease_ttl_ms=1_500
    )
    redis = Redis.from_url(redis_url)
    leases = TableLeases(redis)
    try:
        async with running(settings) as b, RoomClient(b.url) as player:
            await player.register(name, "a long password")
            table, _ = await player.quick_seat(ROOM)
            first = await leases.owner(table)
            assert first is not None
            yield b, player, table, first, leases
    finally:
        await redis.aclose()


async def _reached(request: asyncio.Task[Any], reached: asyncio.Event) -> None:
    """Wait until ``reached`` is set while ``request`` is still unanswered (a request answered
    first fails the test with its answer)."""
    done, _ = await asyncio.wait(
        [request, asyncio.create_task(reached.wait())],
        return_when=asyncio.FIRST_COMPLETED,
        timeout=60,
    )
    assert reached.is_set(), request.result() if request in done else "never reached"


async def test_a_player_asking_for_a_table_this_node_is_taking_over_waits_for_it(
    pg_url: str, redis_url: str, tmp_path: Path
) -> None:
    """Between taking a table's lease and starting its actor, a node replays the log. A player
    who asks for the table then is answered once the replay is done: the lease already says the
    table is this node's, so a ``table_moved`` would send the player back to this very node
    (the flaky end of tests/server/test_cluster_drain.py: the players reconnected to the new
    node while it replayed)."""
    async with _seated_at_b(pg_url, redis_url, tmp_path, "takenplayer") as seated:
        b, player, table, first, leases = seated
        hub = b.app.state.hub
        # The replay waits for the test's word, so a request can come in during it.
        replayed = asyncio.Event()
        restore = hub._restore

        async def held_restore(session: Any, row: Any) -> Any:
            await replayed.wait()
            return await restore(session, row)

        hub._restore = held_restore
        # The node drops the table (another raised its fence); its sweep takes the table
        # over again once the lease has run out.
        await _fence_and_write(pg_url, b.url, table, first.token + 5, "takenother")

        async def replaying() -> bool:
            owner = await leases.owner(table)
            ours = owner is not None and owner.node_id == "b" and owner.token > first.token
            return ours and table not in hub.tables

        await until("b holds the lease again and replays the log", replaying)
        # The player asks; the word to finish the replay is given once the node has read
        # the lease for this request (what it does next, at once, is answer or wait).
        asked = asyncio.Event()
        owner = hub.node.leases.owner

        async def owner_seen(table_id: int) -> Owner | None:
            found: Owner | None = await owner(table_id)
            if table_id == table and not replayed.is_set():
                asked.set()
            return found

        hub.node.leases.owner = owner_seen
        await player.connect()
        watching = asyncio.create_task(player.watch(table))
        await _reached(watching, asked)
        replayed.set()
        snapshot = await watching
        assert snapshot["you"] is not None and table in hub.tables
        hub.node.leases.owner = owner


async def test_a_request_reaching_a_table_mid_replay_waits_for_its_start(
    pg_url: str, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A node taking a table over registers its actor before it replays the log into it, and
    sets the table's fencing token only after. A request that finds the actor then (a player
    reconnecting, or a call another node relays: the failure of
    tests/server/test_cluster_drain.py at stop 40) waits until the actor starts: it runs on the
    whole state, and its write goes out under the new lease. Run at once, it would find the
    player not seated, or write without a token, which stops the table for good on the node
    that holds its lease (every later request: ``table_moved``)."""
    async with _seated_at_b(pg_url, redis_url, tmp_path, "replayplayer") as seated:
        b, player, table, first, leases = seated
        hub = b.app.state.hub
        # The actor's replay of the log waits for the test's word.
        replayed = asyncio.Event()
        restoring: list[TableActor] = []
        restore = TableActor.restore

        async def held_restore(actor: TableActor, session: Any) -> None:
            restoring.append(actor)
            await replayed.wait()
            await restore(actor, session)

        monkeypatch.setattr(TableActor, "restore", held_restore)
        # The node drops the table (another raised its fence); its sweep takes it over
        # again once the lease has run out.
        await _fence_and_write(pg_url, b.url, table, first.token + 5, "replayother")

        async def replaying() -> bool:
            return bool(restoring)

        await until("b replays the table's log into its actor", replaying)
        actor = restoring[0]
        assert hub.tables.get(table) is actor and not actor.closed
        # The player leaves (a write of the table); the word to finish the replay is given
        # once the request has reached the actor.
        reached = asyncio.Event()
        call = actor.call

        async def reaching(run: Any) -> Any:
            reached.set()
            return await call(run)

        monkeypatch.setattr(actor, "call", reaching)
        await player.connect()
        leaving = asyncio.create_task(player.leave(table))
        await _reached(leaving, reached)
        replayed.set()
        answer = await leaving
        assert answer["after_game"] is False
        # The leave was written under the new lease: the table, empty, closed.
        assert await _status(pg_url, table) == CLOSED
        owner = await leases.owner(table)
        assert owner is None or owner.token > first.token + 5

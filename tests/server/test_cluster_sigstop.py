"""No table has two writers, ever (issue 21): two ``rummyhall serve`` node processes share one
PostgreSQL and one Redis (all started by the test on loopback). A table is opened and played on
node A; A is paused (SIGSTOP) past its lease; node B's sweep takes the table over (lease above
the database's token, fence, replay: the recovery path) and the game goes on through B. Then A
is resumed with a late action of its paused state in hand: it is refused and changes nothing
(the log is exactly what A wrote before the pause and B after; the ledger audit is clean), and
A closes the table's sockets with the close code that tells clients to reconnect and runs the
table no more.

Waits are on states (the lease's owner in Redis, a closed socket, a node's table count), each
with a deadline; never a sleep in their place."""

from __future__ import annotations

import asyncio
import signal
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson

import pg
from rummyhall.bots import Bot
from rummyhall.client import RoomClient
from rummyhall.economy.audit import audit_database
from rummyhall.server.bots import bot_factory
from rummyhall.server.cluster.lease import Owner, TableLeases
from rummyhall.server.cluster.node import CLOSE_TABLE_MOVED
from rummyhall.store import tables
from rummyhall.store.database import Database
from server_kit import ServerProcess, redis_client, running_nodes, until, watch_table

ROOM, GAME = "indian13-classic-points-1-2p", "indian13"
TTL_MS = 3_000
"""Short enough for a quick test, long enough that a busy machine does not lose a lease."""
DEADLINE_S = 60.0
JSON = dict[str, Any]


@dataclass
class Hand:
    """A player's seat, played through one client by the game's bot."""

    name: str
    bot: Bot
    client: RoomClient


def _awaits(after: int) -> Callable[[JSON], bool]:
    def check(message: JSON) -> bool:
        view = message.get("view")
        return (
            message["seq"] >= after
            and view is not None
            and message.get("you") is not None
            and any(a["seat"] == message["you"] for a in view.get("awaited", []))
        )

    return check


async def _next_move(hands: list[Hand], table: int, after: int) -> tuple[Hand, JSON]:
    """The hand the table awaits once its log is at ``after`` or later, and its message."""
    waits = {
        asyncio.ensure_future(h.client.wait_for(table, _awaits(after), DEADLINE_S)): h
        for h in hands
    }
    done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    task = done.pop()
    return waits[task], task.result()


async def _play(hands: list[Hand], table: int, count: int, after: int) -> int:
    """``count`` actions by whoever the table awaits; the last acknowledged sequence number."""
    seq = after
    for _ in range(count):
        hand, message = await _next_move(hands, table, seq)
        action = hand.bot.act(message["view"])
        assert action is not None
        seq = await hand.client.act(table, action)
    return seq


async def _hands(url: str, names: list[str], table: int, *, register: bool) -> list[Hand]:
    hands = []
    for number, name in enumerate(names):
        client = RoomClient(url)
        if register:
            await client.register(name, "a long password")
        else:
            await client.login(name, "a long password")
        hands.append(Hand(name, bot_factory(GAME)(number), client))
    return hands


async def _table_on_a(
    url: str, names: list[str], leases: TableLeases, clients: list[RoomClient]
) -> tuple[list[Hand], int, Owner]:
    """Two players register at node A (``url``), quick-seat at one table and watch it; (their
    hands, the table, A's lease of it). Their clients go into ``clients``. They rebuy
    automatically: however many games go by, nobody stands up short, and a table of one (the
    nodes seat no bots) would deal no more."""
    hands = await _hands(url, names, 0, register=True)
    clients += [h.client for h in hands]
    table, _ = await hands[0].client.quick_seat(ROOM, auto_rebuy=True)
    assert (await hands[1].client.quick_seat(ROOM, auto_rebuy=True))[0] == table
    for hand in hands:
        await watch_table(hand.client, table)
    held = await _owner(leases, table, "a")
    assert held is not None
    return hands, table, held


async def _log(url: str, table: int) -> list[tuple[int, str, JSON, int]]:
    db = await Database.open(url, migrate=False)
    try:
        async with db.read() as session:
            return [(e.seq, e.kind, e.body, e.at) for e in await tables.read_log(session, table)]
    finally:
        await db.close()


async def _owner(leases: TableLeases, table: int, node: str) -> Owner | None:
    owner = await leases.owner(table)
    return owner if owner is not None and owner.node_id == node else None


async def _table_count(url: str) -> int:
    async with httpx.AsyncClient() as http:
        return int((await http.get(url + "/healthz")).json()["tables"])


async def test_a_paused_node_never_writes_again(
    pg_server: pg.PostgresServer, redis_url: str, tmp_path: Path
) -> None:
    async with (
        running_nodes(pg_server, redis_url, tmp_path, ("a", "b"), TTL_MS) as (url, nodes),
        redis_client(redis_url) as redis,
    ):
        await _pause_and_resume(url, nodes, TableLeases(redis), tmp_path)


async def _pause_and_resume(
    url: str, nodes: dict[str, ServerProcess], leases: TableLeases, tmp_path: Path
) -> None:
    node_a = nodes["a"].process
    assert node_a is not None
    clients: list[RoomClient] = []
    paused = False
    try:
        # A table opened and played on node A.
        on_a, table, held = await _table_on_a(
            nodes["a"].url, ["sigstop0", "sigstop1"], leases, clients
        )
        seq = await _play(on_a, table, 6, after=0)
        # What A's state awaits next, as A's player would send it.
        late_hand, late_message = await _next_move(on_a, table, seq)
        late_action = late_hand.bot.act(late_message["view"])
        assert late_action is not None

        # A is paused past its lease; B's sweep takes the table over.
        node_a.send_signal(signal.SIGSTOP)
        paused = True
        taken = await until("node b owns the table", lambda: _owner(leases, table, "b"))
        assert taken.token > held.token
        # B raised the fence before it read the log: A's rows are all in, and final.
        by_a = await _log(url, table)
        assert _numbered(by_a) and len(by_a) >= seq

        # The game goes on through B, from exactly what A had acknowledged.
        on_b = await _hands(nodes["b"].url, ["sigstop0", "sigstop1"], table, register=False)
        clients += [h.client for h in on_b]
        for hand in on_b:
            snapshot = await watch_table(hand.client, table)
            assert snapshot["seq"] >= seq  # (B may have acted on its own: a deal, a deadline)
        seq = await _play(on_b, table, 6, after=seq)
        before = await _log(url, table)
        assert before[: len(by_a)] == by_a and _numbered(before) and len(before) >= seq

        # A wakes up with a late action in hand (its socket to A was open all along).
        cid = f"late-{uuid.uuid4().hex}"
        late = {"type": "act", "table": table, "action": late_action, "cid": cid}
        await late_hand.client.send_raw(orjson.dumps(late).decode())
        node_a.send_signal(signal.SIGCONT)
        paused = False

        # A drops the table: the sockets watching it there are closed with the code that
        # tells clients to reconnect, and A runs no table any more.
        for hand in on_a:

            async def closed(hand: Hand = hand) -> bool:
                return hand.client.closed_reason is not None

            await until(f"{hand.name}'s socket to node a closed", closed)
            socket = hand.client._socket
            assert socket is not None and socket.close_code == CLOSE_TABLE_MOVED
        assert await until("node a runs no table", _no_tables(nodes["a"].url))
        # (its log says why: the lease was gone when it renewed, or its late write was refused)
        assert f"table {table} dropped" in (tmp_path / "a" / "server.log").read_text()
        owner = await leases.owner(table)
        assert owner is not None and owner.node_id == "b" and owner.token == taken.token

        # The late action changed nothing: the log is what A wrote, then what B wrote.
        seq = await _play(on_b, table, 4, after=seq)
        after = await _log(url, table)
        assert after[: len(before)] == before and _numbered(after) and len(after) >= seq
        assert all(row[2].get("cid") != cid for row in after)
        report = await audit_database(url)
        assert report.problems == [], report.problems
    finally:
        if paused:
            node_a.send_signal(signal.SIGCONT)
        for client in clients:
            await client.close()


def _numbered(log: list[tuple[int, str, JSON, int]]) -> bool:
    """The log's entries are numbered 1, 2, ... without a gap."""
    return [row[0] for row in log] == list(range(1, len(log) + 1))


def _no_tables(url: str) -> Callable[[], Awaitable[bool]]:
    async def check() -> bool:
        return await _table_count(url) == 0

    return check

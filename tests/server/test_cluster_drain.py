"""Draining a node (issue 21): ``rummyhall admin drain NODE``, or SIGTERM, hands the node's
tables to the other nodes between two actions, so a rolling upgrade drops no game.

Two ``rummyhall serve`` node processes share one PostgreSQL and one Redis (all started by the
test on loopback). A table is opened on node A and played there by two clients over WebSocket;
while they go on playing as fast as A answers, A is drained (by the admin command, or by
SIGTERM). Node B holds the table soon after, long before its sweep (every lease ttl, a minute
here) would have found it: A announced it. Every action A acknowledged is in B's state, the
game goes on through B, the log is numbered without a gap, and the ledger audit is clean. A
closed the table's sockets with 4503 (reconnect), refuses to open a table while it drains, and
its process exits with status 0 after SIGTERM.

Waits are on states (the lease's owner in Redis, a closed socket, a process's exit), each with
a deadline; never a sleep in their place."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from redis.asyncio import Redis
from test_cluster_sigstop import (
    ROOM,
    Hand,
    _hands,
    _log,
    _numbered,
    _owner,
    _play,
    _table_on_a,
)

import pg
from rummyhall.client import ClientError, RoomClient
from rummyhall.economy.audit import audit_database
from rummyhall.server.cluster.lease import TableLeases
from rummyhall.server.cluster.node import CLOSE_TABLE_MOVED
from server_kit import ServerProcess, fast_settings, free_port, running, until, watch_table

TTL_MS = 60_000
"""Long: the sweep that would find a table nobody holds runs only every ttl, so B holding the
table within :data:`HANDED_ON_S` of the drain is the announcement's doing."""
HANDED_ON_S = 20.0
DEADLINE_S = 60.0


async def _keep_playing(hands: list[Hand], table: int, after: int, acked: list[int]) -> None:
    """Act for whoever the table awaits, as fast as the node answers, until it stops answering
    for the table (its socket closed, the table gone); ``acked`` gets each acknowledged seq."""
    with pytest.raises(ClientError):
        while True:
            acked.append(await _play(hands, table, 1, after=acked[-1] if acked else after))


async def _admin(*args: str) -> subprocess.CompletedProcess[str]:
    """``rummyhall admin ...`` in a child process (without blocking the test's event loop)."""
    command = [sys.executable, "-m", "rummyhall.cli", "admin", *args]
    return await asyncio.to_thread(
        subprocess.run, command, capture_output=True, text=True, timeout=DEADLINE_S
    )


async def _health(url: str) -> dict[str, object]:
    async with httpx.AsyncClient() as http:
        health: dict[str, object] = (await http.get(url + "/healthz")).json()
        return health


@pytest.mark.parametrize("how", ["admin", "sigterm"])
async def test_a_drained_node_hands_its_table_on_mid_game(
    how: str, pg_server: pg.PostgresServer, redis_url: str, tmp_path: Path
) -> None:
    database = await pg_server.create_database()
    url = pg_server.url(database)
    common = (
        "--no-bots", "--starting-silver", "10000", "--redis", redis_url,
        "--lease-ttl-ms", str(TTL_MS), "--seed-key-file", str(tmp_path / "seed.key"),
    )  # fmt: skip
    nodes = {}
    for node in ("a", "b"):
        (tmp_path / node).mkdir()
        nodes[node] = ServerProcess(tmp_path / node, url, free_port())
    redis = Redis.from_url(redis_url)
    leases = TableLeases(redis)
    clients: list[RoomClient] = []
    playing: asyncio.Task[None] | None = None
    try:
        # One after the other: the first migrates the new database.
        nodes["a"].start(*common, "--node-id", "a")
        nodes["b"].start(*common, "--node-id", "b")
        node_a = nodes["a"].process
        assert node_a is not None
        assert await _health(nodes["a"].url) == {
            "ok": True, "tables": 0, "node": "a", "draining": False,
        }  # fmt: skip

        # A table opened and played on node A.
        names = [f"drain{how}0", f"drain{how}1"]
        on_a, table, held = await _table_on_a(nodes["a"].url, names, leases, clients)
        seq = await _play(on_a, table, 4, after=0)

        # The players go on as fast as A answers; A is drained in the middle of it.
        acked: list[int] = []
        playing = asyncio.create_task(_keep_playing(on_a, table, seq, acked))

        async def moving() -> bool:
            return len(acked) >= 2

        await until("play going on at node a", moving, DEADLINE_S)
        if how == "admin":
            # The drain names the node: the node at that address is not b, so nothing happens.
            wrong = await _admin("--url", nodes["a"].url, "--data-dir", str(tmp_path / "a"),
                                 "drain", "b")  # fmt: skip
            assert wrong.returncode == 1 and "wrong_node" in wrong.stderr, wrong
            still = await _owner(leases, table, "a")
            assert still is not None and still.token == held.token
            assert (await _health(nodes["a"].url))["draining"] is False
            drained = await _admin("--url", nodes["a"].url, "--data-dir", str(tmp_path / "a"),
                                   "drain", "a")  # fmt: skip
            assert drained.returncode == 0, drained
            assert "node a drained: 1 tables handed on to the other nodes, 0 left" in (
                drained.stdout
            )
        else:
            node_a.send_signal(signal.SIGTERM)

        # B holds the table soon, long before its sweep would have looked (a ttl).
        taken = await until("node b holds the table", lambda: _owner(leases, table, "b"),
                            HANDED_ON_S)  # fmt: skip
        assert taken.token > held.token
        async with asyncio.timeout(DEADLINE_S):
            await playing  # (it ends when A stops answering for the table)
        assert acked, "no action acknowledged during the drain's play"
        # A closed the table's sockets with the code that tells clients to reconnect.
        for hand in on_a:

            async def closed(hand: Hand = hand) -> bool:
                return hand.client.closed_reason is not None

            await until(f"{hand.name}'s socket to node a closed", closed, DEADLINE_S)
            socket = hand.client._socket
            assert socket is not None and socket.close_code == CLOSE_TABLE_MOVED

        if how == "admin":
            # Still up, drained, and refusing to open a table (nothing written for it).
            assert await _health(nodes["a"].url) == {
                "ok": True, "tables": 0, "node": "a", "draining": True,
            }  # fmt: skip
            async with RoomClient(nodes["a"].url) as late:
                await late.register(f"drain{how}2", "a long password")
                with pytest.raises(ClientError) as refused:
                    await late.quick_seat(ROOM)
                assert refused.value.code == "node_draining"
            # The operator then stops it.
            node_a.send_signal(signal.SIGTERM)

        # A's process ends on its own, with status 0: the stop went as planned.
        async def exited() -> bool:
            return node_a.poll() is not None

        await until("node a's process exited", exited, DEADLINE_S)
        assert node_a.returncode == 0, (tmp_path / "a" / "server.log").read_text()
        nodes["a"].process = None

        # The players reconnect (to B: no relay between nodes yet); every action A
        # acknowledged is there, and the game goes on through B.
        by_a = await _log(url, table)
        assert _numbered(by_a) and len(by_a) >= acked[-1]
        on_b = await _hands(nodes["b"].url, names, table, register=False)
        clients += [h.client for h in on_b]
        for hand in on_b:
            snapshot = await watch_table(hand.client, table)
            assert snapshot["seq"] >= acked[-1]
        seq = await _play(on_b, table, 6, after=acked[-1])
        after = await _log(url, table)
        assert after[: len(by_a)] == by_a and _numbered(after) and len(after) >= seq
        owner = await leases.owner(table)
        assert owner is not None and owner.node_id == "b" and owner.token == taken.token
        report = await audit_database(url)
        assert report.problems == [], report.problems
    finally:
        if playing is not None and not playing.done():
            playing.cancel()
            await asyncio.gather(playing, return_exceptions=True)
        for client in clients:
            await client.close()
        for server in nodes.values():
            server.stop()
        await redis.aclose()
        await pg_server.drop_database(database)


async def test_a_single_process_is_not_drained(tmp_path: Path) -> None:
    """One process alone has nobody to hand its tables to: the drain is refused, and
    ``/healthz`` says nothing of nodes."""
    settings = fast_settings(tmp_path, f"sqlite+aiosqlite:///{tmp_path / 'room.db'}")
    async with running(settings) as server, httpx.AsyncClient(base_url=server.url) as http:
        token = server.app.state.admin_token
        answer = await http.post(
            "/api/admin/drain", json={"node": "a"}, headers={"Authorization": f"Bearer {token}"}
        )
        assert answer.status_code == 409
        assert answer.json()["error"]["code"] == "not_a_node"
        assert (await http.post("/api/admin/drain", json={"node": "a"})).status_code == 403
        assert (await http.get("/healthz")).json() == {"ok": True, "tables": 0}

"""A table is reached through any node (issue 21): three ``rummyhall serve`` node processes
share one PostgreSQL and one Redis (started by the tests on loopback); a player connected to a
node that does not run the table sits, watches and plays there through the relay
(server/cluster/relay.py), and sees exactly what a player on the owner sees.

Waits are on states, each with a deadline."""

from __future__ import annotations

import asyncio
import os
import random
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
from websockets.exceptions import ConnectionClosed, InvalidStatus

import pg
from nginx_server import NginxServer
from rummyhall.bots import Bot
from rummyhall.client import ClientError, RoomClient
from rummyhall.economy.audit import audit_database
from rummyhall.server.bots import bot_factory
from rummyhall.server.cluster.lease import TableLeases
from rummyhall.store import tables
from rummyhall.store.database import Database
from server_kit import Player, ServerProcess, redis_client, running_nodes, until, watch_table

JSON = dict[str, Any]

ROOM, GAME = "indian13-classic-points-1-2p", "indian13"
TTL_MS = 3_000
NODES = ("a", "b", "c")


async def _relay_counts(node: ServerProcess) -> dict[str, float]:
    """The node's ``rummyhall_relay_*`` samples from its /metrics (the operator's token)."""
    token = (node.data_dir / "admin.token").read_text().strip()
    async with httpx.AsyncClient() as http:
        answer = await http.get(node.url + "/metrics", headers={"Authorization": f"Bearer {token}"})
    answer.raise_for_status()
    samples = (line.split() for line in answer.text.splitlines())
    return {s[0]: float(s[1]) for s in samples if s and s[0].startswith("rummyhall_relay_")}


async def test_a_game_played_across_nodes(
    pg_server: pg.PostgresServer, redis_url: str, tmp_path: Path
) -> None:
    """The table runs on node a; one player is on a, the other on b (sit over HTTP, watch and
    play over b's WebSocket), a spectator on c. Three whole games are played; both players and
    the spectator see every change; the ledger audit is clean."""
    async with running_nodes(pg_server, redis_url, tmp_path, ["a", "b", "c"], TTL_MS) as (
        url,
        nodes,
    ):
        async with (
            redis_client(redis_url) as redis,
            RoomClient(nodes["a"].url) as host,
            RoomClient(nodes["b"].url) as guest,
            RoomClient(nodes["c"].url) as spectator,
        ):
            await host.register("host", "a long password")
            await guest.register("guest", "a long password")
            await spectator.register("spectator", "a long password")
            table, _ = await host.quick_seat(ROOM, auto_rebuy=True)  # (a short stack: no stop)
            owner = await TableLeases(redis).owner(table)
            assert owner is not None and owner.node_id == "a"

            # Sitting through b: relayed to a.
            seated = await guest.request("POST", f"/api/tables/{table}/sit", {"auto_rebuy": True})
            assert seated == {"table": table, "seat": 2}
            # Sitting twice is refused by the owner, with the owner's own error.
            try:
                await guest.request("POST", f"/api/tables/{table}/sit", {})
            except ClientError as error:
                assert error.code == "already_seated" and error.status == 400  # (as on one node)
            else:
                raise AssertionError("a second seat was given")
            info = await guest.request("GET", f"/api/tables/{table}")
            assert [s and s["name"] for s in info["table"]["seats"]] == ["host", "guest"]

            for client in (host, guest):
                await watch_table(client, table, follow=True)
            watched = await watch_table(spectator, table, follow=True)
            assert watched["you"] is None and watched["table"] == table
            players = [Player(host, GAME, 1), Player(guest, GAME, 2)]
            ends = await asyncio.gather(*(player.play(table, games=3) for player in players))
            assert all(p.refused == [] for p in players), [p.refused for p in players]
            assert players[1].actions > 0  # the relayed player played
            # Both saw the same end (the seat views differ, the table's info does not).
            assert ends[0]["info"] == ends[1]["info"] and ends[0]["seq"] == ends[1]["seq"]
            # The spectator on c saw every change, that one too, with no one's cards.
            feed, seen = spectator.follow(table), []
            while not seen or seen[-1]["seq"] < ends[0]["seq"]:
                async with asyncio.timeout(30):
                    seen.append(await feed.get())
            assert seen[-1]["seq"] == ends[0]["seq"] and seen[-1]["info"] == ends[0]["info"]
            assert [m["seq"] for m in seen] == sorted(m["seq"] for m in seen)  # in order
            assert all(m["you"] is None and "hand" not in (m["view"] or {}) for m in seen)
            # What the relay did, in each node's /metrics: b and c called a, a served them.
            a, b, c = [await _relay_counts(nodes[name]) for name in ("a", "b", "c")]
            assert not any(key.startswith("rummyhall_relay_calls_total") for key in a)
            assert b['rummyhall_relay_calls_total{op="sit"}'] == 2  # (the second refused)
            assert b['rummyhall_relay_calls_total{op="watch"}'] == 1
            assert c['rummyhall_relay_calls_total{op="watch"}'] == 1
            assert a['rummyhall_relay_served_total{op="watch"}'] == 2
            acts = b['rummyhall_relay_calls_total{op="act"}']
            assert (
                acts >= players[1].actions and a['rummyhall_relay_served_total{op="act"}'] == acts
            )
            assert all(n["rummyhall_relay_publishes_total"] > 0 for n in (a, b, c))
            # Watching again on the same socket (an unwatch, then a watch, both relayed) goes
            # on receiving the table's updates: the leave's, here.
            again = await guest.watch(table)
            assert again["you"] == 2
            left = await guest.leave(table)  # (relayed too: an ack with the table's seq)
            assert left["table"] == table and left["seq"] >= ends[0]["seq"]
            told = await guest.wait_for(table, lambda m: m["seq"] >= left["seq"], 30)
            assert told["type"] == "update"
        report = await audit_database(url)
        assert report.problems == [], report.problems


SOAK = os.environ.get("RUMMYHALL_SOAK") == "1"
ROUNDS = 100 if SOAK else 3
"""kill -9 rounds: a few in ``make test``, a hundred in ``make soak``."""
DEADLINE_S = 60.0

StartNginx = Callable[..., NginxServer]


@dataclass
class _Seat:
    """A player's seat through nginx, played by the game's bot; reconnects when its node goes."""

    client: RoomClient
    bot: Bot
    acknowledged: dict[str, int] = field(default_factory=dict)
    """cid -> the seq the room acknowledged the action with."""
    unanswered: JSON | None = None
    """An action sent whose answer never came (its node was killed): sent again, with its cid,
    when the seat is next awaited, as a client does after a reconnect. The room applies it at
    most once. (Asking the bot again instead would not do: it never repeats an action in the
    same state, taking it as refused, and with one choice it would have none and let its turn
    run out.)"""

    async def rejoin(self, table: int) -> JSON:
        """A new socket (through nginx: any live node) watching the table, once it is reachable
        again (its node died: a moment until another takes it over); its snapshot."""

        async def snapshot() -> JSON | None:
            try:
                await self.client.disconnect()
                await self.client.connect()
                return await self.client.watch(table, timeout=10)
            except (ClientError, OSError, TimeoutError, InvalidStatus, ConnectionClosed):
                return None

        found: JSON = await until("the table is reachable again", snapshot, DEADLINE_S)
        return found


def _awaited(message: JSON) -> bool:
    view = message.get("view")
    return (
        view is not None
        and message.get("you") is not None
        and any(a["seat"] == message["you"] for a in view.get("awaited", []))
    )


async def _move(seats: list[_Seat], table: int, *, kill: Callable[[], None] | None = None) -> None:
    """One action by the seat the table awaits (a bot's, from the view its player got); with
    ``kill``, the owner is killed right after the action is sent, its answer or not."""
    while True:
        for seat in seats:
            latest = seat.client.tables.get(table)
            if latest is None or not _awaited(latest) or latest.get("type") == "closed":
                continue
            message = seat.unanswered
            if message is None:
                action = seat.bot.act(latest["view"])
                if action is None:
                    continue
                message = {"type": "act", "table": table, "action": action, "cid": uuid.uuid4().hex}
                seat.unanswered = message
            if kill is not None:
                await seat.client.send_raw(orjson.dumps(message).decode())
                kill()
                return
            try:
                answer = await seat.client.send(message)
            except ClientError as error:
                if error.code in ("disconnected", "table_moved"):
                    raise  # (not refused: sent again on the next socket)
                seat.unanswered = None  # refused: the state moved on (a timeout played the turn)
                raise
            seat.unanswered = None
            seat.acknowledged[str(message["cid"])] = int(answer["seq"])
            return
        # Nobody is awaited in what they saw last: wait until one of them is (a seat whose
        # socket closed, or that hears nothing more, fails this: the caller rejoins).
        waits = [asyncio.ensure_future(s.client.wait_for(table, _awaited, 10)) for s in seats]
        done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for task in done:
            task.result()


async def _moves(
    seats: list[_Seat], table: int, count: int, *, kill: Callable[[], None] | None = None
) -> None:
    """``count`` actions (``kill``: the last one sent with the owner killed right after it); a
    seat whose socket or table went away rejoins, and play goes on."""
    done = 0
    deadline = time.monotonic() + DEADLINE_S
    while done < count:
        # (a table that stopped playing fails here, rather than a loop of waits forever)
        assert time.monotonic() < deadline, f"{done} of {count} moves made in {DEADLINE_S} s"
        try:
            await _move(seats, table, kill=kill if done == count - 1 else None)
            done += 1
        except (ClientError, TimeoutError, ConnectionClosed):
            for seat in seats:
                await seat.rejoin(table)


async def test_whole_games_through_nginx(
    pg_server: pg.PostgresServer, redis_url: str, tmp_path: Path, nginx: StartNginx
) -> None:
    """Three nodes behind nginx (round robin): two players sign up, quick-seat, watch and play
    two whole games with every request and socket through nginx, wherever each lands; the
    audit is clean and holds exactly the chips minted for them."""
    async with running_nodes(pg_server, redis_url, tmp_path, NODES, TTL_MS) as (url, nodes):
        proxy = nginx([node.url.removeprefix("http://") for node in nodes.values()])
        async with RoomClient(proxy.url) as one, RoomClient(proxy.url) as two:
            await one.register("one", "a long password")
            await two.register("two", "a long password")
            # (the second quick seat finds the first one's table wherever it runs: the lobby
            # is the room's)
            table, _ = await one.quick_seat(ROOM, auto_rebuy=True)
            again = await until(
                "the second quick seat joins the first one's table",
                lambda: _quick_seat_at(two, table),
            )
            assert again == table
            for client in (one, two):
                await watch_table(client, table, follow=True)
            players = [Player(one, GAME, 3), Player(two, GAME, 4)]
            ends = await asyncio.gather(*(player.play(table, games=2) for player in players))
            assert all(p.refused == [] for p in players), [p.refused for p in players]
            assert ends[0]["info"]["game_no"] == ends[1]["info"]["game_no"] == 2
        report = await audit_database(url)
        assert report.problems == [], report.problems
        assert report.chips.minted == 2 * 10_000 and report.chips.burned == 0


async def _quick_seat_at(client: RoomClient, table: int) -> int | None:
    """Quick-seat, and stand up again if it was not at ``table`` (the first player's table may
    not be in the lobby of the node this request reached yet: a moment)."""
    got, _ = await client.quick_seat(ROOM, auto_rebuy=True)
    if got == table:
        return got
    await client.request("POST", f"/api/tables/{got}/leave", {})
    return None


async def test_kill_9_the_owner_mid_deal(
    pg_server: pg.PostgresServer, redis_url: str, tmp_path: Path, nginx: StartNginx
) -> None:
    """Three nodes behind nginx; two players through nginx at one table. Round after round,
    the node that runs the table is killed (SIGKILL) at a random moment of the deal, sometimes
    with an action on its way; another node takes the table over (replaying its log), the
    players reconnect through nginx and play on from their seats; the killed node comes back.
    After each round: every action the room acknowledged is in the log, once; the log has no
    gap; the ledger audit is clean and holds exactly the chips minted for the players."""
    rng = random.Random(21)
    async with running_nodes(pg_server, redis_url, tmp_path, ["a", "b", "c"], TTL_MS) as (
        url,
        nodes,
    ):
        proxy = nginx([node.url.removeprefix("http://") for node in nodes.values()])
        async with (
            redis_client(redis_url) as redis,
            RoomClient(proxy.url) as first,
            RoomClient(proxy.url) as second,
        ):
            leases = TableLeases(redis)
            await first.register("first", "a long password")
            await second.register("second", "a long password")
            # (auto rebuy: a short stack would stand up, and a table of one plays no more)
            table, _ = await first.quick_seat(ROOM, auto_rebuy=True)
            await second.request("POST", f"/api/tables/{table}/sit", {"auto_rebuy": True})
            seats = [
                _Seat(client, bot_factory(GAME)(n)) for n, client in enumerate((first, second))
            ]
            for seat in seats:
                await seat.rejoin(table)
            for round_no in range(ROUNDS):
                await _moves(seats, table, rng.randint(1, 8))
                owner = await leases.owner(table)
                assert owner is not None, f"round {round_no}: nobody runs the table"
                victim = nodes[owner.node_id]
                if rng.random() < 0.5:
                    await _moves(seats, table, 1, kill=victim.kill)  # an action on its way
                else:
                    victim.kill()
                await _moves(seats, table, 2)  # after a takeover, through nginx
                taken = await leases.owner(table)
                assert taken is not None and taken.token > owner.token
                victim.restart()
                await _check(url, table, seats)
        assert proxy.error_log is not None


async def _check(url: str, table: int, seats: list[_Seat]) -> None:
    """Nothing acknowledged was lost, nothing applied twice, no chip made or lost."""
    db = await Database.open(url, migrate=False)
    try:
        async with db.read() as session:
            log = await tables.read_log(session, table)
    finally:
        await db.close()
    assert [entry.seq for entry in log] == list(range(1, len(log) + 1))
    by_cid = Counter(entry.body.get("cid") for entry in log if entry.body.get("cid"))
    assert all(count == 1 for count in by_cid.values())
    for seat in seats:
        for cid, seq in seat.acknowledged.items():
            assert by_cid[cid] == 1, f"acknowledged action {cid} (seq {seq}) is not in the log"
    report = await audit_database(url)
    assert report.problems == [], report.problems
    chips = report.chips
    assert chips.minted == 2 * 10_000 and chips.burned == 0
    assert chips.in_wallets + chips.at_tables + chips.house + chips.elsewhere == chips.minted

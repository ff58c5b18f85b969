"""The lobby, seats and bots across nodes (issue 21): the races that are tested on one node
(tests/server/test_server_api.py, test_server_presence.py), run across three ``rummyhall
serve`` node processes sharing one PostgreSQL and one Redis. A seat is never given twice, a
player is never seated twice without asking for it, a quick seat fills other nodes' tables, the
lobby, a player's tables, invitations and the operator's list of tables are the whole room's, and
two nodes never seat one bot twice.

Waits are on states, each with a deadline."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

import pg
from rummyhall.client import ClientError, RoomClient
from rummyhall.economy.audit import audit_database
from server_kit import ServerProcess, running_nodes, until

JSON = dict[str, Any]

TTL_MS = 3_000
NODES = ("a", "b", "c")
PATTI = "practice-patti-10-4p"
SIX = "practice-indian13-classic-points-1-6p"


def _guests(nodes: dict[str, ServerProcess], count: int) -> list[RoomClient]:
    """``count`` clients, spread over the nodes in turn."""
    urls = [node.url for node in nodes.values()]
    return [RoomClient(urls[n % len(urls)]) for n in range(count)]


async def _admin_tables(node: ServerProcess) -> list[JSON]:
    token = (node.data_dir / "admin.token").read_text().strip()
    async with httpx.AsyncClient(base_url=node.url) as http:
        answer = await http.get("/api/admin/tables", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200, answer.text
    tables: list[JSON] = answer.json()["tables"]
    return tables


async def test_seats_across_nodes(
    pg_server: pg.PostgresServer, redis_url: str, tmp_path: Path
) -> None:
    async with running_nodes(pg_server, redis_url, tmp_path, NODES, TTL_MS) as (url, nodes):
        clients = _guests(nodes, 24)
        try:
            await asyncio.gather(*(client.guest() for client in clients))
            a, b, c = clients[:3]  # on nodes a, b, c

            # The lobby is the whole room's: a table opened on a is listed by b and c.
            opened = (await a.request("POST", "/api/tables", {"room": SIX}))["table"]["id"]

            async def in_lobby(client: RoomClient) -> bool:
                lobby = await client.request("GET", f"/api/tables?room={SIX}")
                return opened in [table["id"] for table in lobby["tables"]]

            for client in (b, c):
                await until("the lobby lists a table of another node", lambda c=client: in_lobby(c))

            # Many players on three nodes rush for one seat of it: exactly one gets it.
            answers = await asyncio.gather(
                *(cl.request("POST", f"/api/tables/{opened}/sit", {"seat": 2}) for cl in clients),
                return_exceptions=True,
            )
            won = [answer for answer in answers if isinstance(answer, dict)]
            lost = [answer for answer in answers if isinstance(answer, ClientError)]
            assert len(won) == 1 and len(lost) == len(clients) - 1, answers
            assert {error.code for error in lost} == {"seat_taken"}
            sitter = clients[answers.index(won[0])]
            await sitter.request("POST", f"/api/tables/{opened}/leave", {})

            # One player asks for seats at tables on three nodes at once, and quick-seats: one
            # request gets a seat, every other is refused with seated_elsewhere.
            hasty = clients[3]
            tables = [
                (await opener.request("POST", "/api/tables", {"room": SIX}))["table"]["id"]
                for opener in (a, b, c)
            ]
            requests = [
                *(hasty.request("POST", f"/api/tables/{table}/sit", {}) for table in tables),
                hasty.quick_seat(PATTI),
            ]
            answers = await asyncio.gather(*requests, return_exceptions=True)
            refused = [answer for answer in answers if isinstance(answer, ClientError)]
            assert len(refused) == len(requests) - 1, answers
            assert {error.code for error in refused} == {"seated_elsewhere"}
            # Asked through any node, the player's tables are the one seat it holds.
            for node in nodes.values():
                async with RoomClient(node.url) as same:
                    same.http.cookies = hasty.http.cookies
                    mine = (await same.request("GET", "/api/me"))["tables"]
                assert len(mine) == 1, mine

            # A crowd quick-seats at once through the three nodes: everyone gets a seat, no seat
            # is given twice, and the nodes fill each other's tables: at most one table short of
            # players per node is left.
            crowd = clients[4:20]
            seats = await asyncio.gather(*(client.quick_seat(PATTI) for client in crowd))
            by_table: dict[int, list[int]] = {}
            for table, seat in seats:
                by_table.setdefault(table, []).append(seat)
            assert all(len(set(s)) == len(s) <= 4 for s in by_table.values()), by_table
            assert sum(len(s) for s in by_table.values()) == len(crowd)
            assert sum(1 for s in by_table.values() if len(s) < 4) <= len(nodes), by_table
            # A quick seat again, through the next node, takes each back to its own table.
            for n, (client, (table, seat)) in enumerate(zip(crowd, seats, strict=True)):
                async with RoomClient(nodes[NODES[(n + 1) % 3]].url) as same:
                    same.http.cookies = client.http.cookies
                    assert await same.quick_seat(PATTI) == (table, seat)

            # An invitation to a private table on a, opened through c, lets c's player sit.
            private = await a.request("POST", "/api/tables", {"room": SIX, "private": True})
            friend = clients[20]  # (on node c)
            assert friend.base_url == nodes["c"].url
            found = await friend.request("GET", f"/api/invites/{private['invite']}")
            assert found["table"]["id"] == private["table"]["id"] and found["table"]["private"]
            seated = await friend.request("POST", f"/api/tables/{private['table']['id']}/sit", {})
            assert seated["seat"] == 1

            # The operator's list, asked of any node, is every node's tables, each with its node.
            # (the tables people sit at: one nobody sits at closes)
            expected = {*by_table, private["table"]["id"]}

            async def complete(node: ServerProcess) -> list[JSON] | None:
                listed = await _admin_tables(node)
                return listed if expected <= {table["id"] for table in listed} else None

            for node in nodes.values():
                listed = await until(
                    f"node {node.url} lists every table", lambda n=node: complete(n)
                )
                assert {table["node"] for table in listed} == set(NODES)
        finally:
            for client in clients:
                await client.close()
        report = await audit_database(url)
        assert report.problems == [], report.problems


async def test_two_nodes_never_seat_one_bot_twice(
    pg_server: pg.PostgresServer, redis_url: str, tmp_path: Path
) -> None:
    """Two nodes with bots: players on each open tables the bots fill at once. Every bot
    account sits at one table at a time, whichever node seated it."""
    async with running_nodes(pg_server, redis_url, tmp_path, NODES[:2], TTL_MS, bots=True) as (
        url,
        nodes,
    ):
        clients = _guests(nodes, 8)
        try:
            await asyncio.gather(*(client.guest() for client in clients))
            # Each opens a table of its own (another=False: one each) on its node.
            tables = await asyncio.gather(
                *(client.request("POST", "/api/tables", {"room": PATTI}) for client in clients)
            )
            for client, table in zip(clients, tables, strict=True):
                await client.request("POST", f"/api/tables/{table['table']['id']}/sit", {})

            async def filled() -> list[JSON] | None:
                listed = await _admin_tables(nodes["a"])
                mine = [t for t in listed if t["id"] in {x["table"]["id"] for x in tables}]
                full = len(mine) == len(tables) and all(None not in t["seats"] for t in mine)
                return mine if full else None

            full = await until("bots fill every table", filled)
            bots = Counter(seat["name"] for table in full for seat in table["seats"] if seat["bot"])
            assert sum(bots.values()) == 3 * len(tables)
            assert all(count == 1 for count in bots.values()), bots
        finally:
            for client in clients:
                await client.close()
        report = await audit_database(url)
        assert report.problems == [], report.problems

"""Refills of the closed deck at a live table, through the real API, on SQLite and PostgreSQL: two
people at a 2-seat 13-card table keep drawing closed and throwing a card until the closed deck runs
out; the house refills it in the order the deal's committed seeds give (docs/provably-fair.md), so
the finished game's record checks out once the seed is revealed, also when the server restarted
in the middle of the deal (the table log is replayed, the seeds restored from its commitment)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rummyhall.cards import parse_physical
from rummyhall.client import RoomClient
from rummyhall.economy.audit import audit_database
from rummyhall.games.protocol import HOUSE, Game, refill_checks
from rummyhall.shuffle import FairDeal
from rummyhall.store import tables as store_tables
from server_kit import Running, fast_settings, running, watch_table

ROOM = "indian13-classic-points-1-2p"
PASSWORD = "correct horse battery"


async def sit_two(server: Running, clients: list[RoomClient], *, new: bool) -> int:
    """Both people at the same table of ROOM (registered on the first run, signed in again after
    a restart), watching it; the table's id."""
    tables = set()
    for number, client in enumerate(clients, 1):
        if new:
            await client.register(f"refill{number}", PASSWORD)
        else:
            await client.login(f"refill{number}", PASSWORD)
        table, _ = await client.quick_seat(ROOM)
        tables.add(table)
    assert len(tables) == 1, tables
    table = tables.pop()
    for client in clients:
        await watch_table(client, table)
    return table


def seated(server: Running, table: int, clients: list[RoomClient]) -> dict[int, RoomClient]:
    """The clients by the seat they have at the table."""
    by_account = {client.me["id"]: client for client in clients}
    return {seat: by_account[o.account_id] for seat, o in server.hub.table(table).seats.items()}


def refilled(game: Game) -> bool:
    """Whether the house has refilled the closed deck (dealt again within the one deal)."""
    deals = [entry for entry in game.log if entry["seat"] == HOUSE]
    return len(deals) > 1


async def drive(
    server: Running, table: int, clients: dict[int, RoomClient], until: Callable[[Game], bool]
) -> Game:
    """Play both seats through the API, each turn ``draw closed`` then a throw of the first card
    (so the closed deck runs out), until ``until(game)``; after a refill, the player to move
    drops, which ends the game."""
    actor = server.hub.table(table)
    deadline = time.monotonic() + 120
    while True:
        assert time.monotonic() < deadline, "the table did not get there"
        game = actor.game
        if game is not None and until(game):
            return game
        awaited = [] if game is None or game.over else game.awaited()
        if not awaited or awaited[0].seat == HOUSE or awaited[0].kind != "turn":
            await asyncio.sleep(0.01)
            continue
        seat = awaited[0].seat
        view = game.view(seat)
        if view["drawn"]:
            action = f"discard {view['hand'][0]}"
        else:
            action = "drop" if refilled(game) else "draw closed"
        await clients[seat].act(table, action)


async def finished_record(client: RoomClient) -> dict[str, Any]:
    hands = (await client.request("GET", "/api/hands"))["hands"]
    assert len(hands) == 1
    record: dict[str, Any] = (await client.request("GET", f"/api/hands/{hands[0]['id']}"))["record"]
    return record


def check_refill(record: dict[str, Any]) -> None:
    """The record's one refill is refill 1 of its deal, made of the open pile under its top card,
    in the order the deal's revealed seeds give."""
    seeds = [e["deal"] for e in record["actions"] if "server_seed" in e.get("deal", {})]
    refills = [e["deal"] for e in record["actions"] if "refill" in e.get("deal", {})]
    assert len(seeds) == 1 and len(refills) == 1, record["actions"]
    deal, refill = seeds[0], refills[0]
    fair = FairDeal(bytes.fromhex(deal["server_seed"]), deal["client_seed"], deal["nonce"])
    assert fair.commitment == deal["commitment"]
    assert refill["refill"] == 1
    under = [parse_physical(token) for token in refill["from"].split()]
    assert len(under) > 50  # most of the deal's discards
    assert refill["cards"] == " ".join(card.physical for card in fair.refill(1, under))
    assert [(c.checkable, c.ok) for c in refill_checks(record)] == [(True, True)]


async def test_a_table_refills_the_closed_deck_from_the_deal_seeds(
    tmp_path: Path, db_url: str
) -> None:
    settings = fast_settings(tmp_path, db_url, bots=False, next_game_ms=3_600_000)
    async with (
        running(settings) as server,
        RoomClient(server.url) as a,
        RoomClient(server.url) as b,
    ):
        table = await sit_two(server, [a, b], new=True)
        game = await drive(server, table, seated(server, table, [a, b]), lambda game: game.over)
        assert refilled(game)
        record = await finished_record(a)
    check_refill(record)
    assert (await audit_database(db_url)).problems == []


async def test_a_refill_after_a_restart_mid_deal_comes_from_the_same_seeds(
    tmp_path: Path, db_url: str
) -> None:
    settings = fast_settings(tmp_path, db_url, bots=False, next_game_ms=3_600_000)
    async with (
        running(settings) as server,
        RoomClient(server.url) as a,
        RoomClient(server.url) as b,
    ):
        table = await sit_two(server, [a, b], new=True)
        actor = server.hub.table(table)
        near = await drive(
            server, table, seated(server, table, [a, b]), lambda g: 0 < g.view(None)["closed"] <= 4
        )
        assert near.view(None)["phase"] == "play" and not refilled(near)
        committed = actor.dealt
        assert committed is not None
    # The server went away mid-deal; a new one replays the table's log.
    async with (
        running(settings) as server,
        RoomClient(server.url) as a,
        RoomClient(server.url) as b,
    ):
        actor = server.hub.table(table)
        assert actor.game is not None and not actor.game.over
        assert actor.dealt == committed and actor.refills == 0
        assert await sit_two(server, [a, b], new=False) == table
        game = await drive(server, table, seated(server, table, [a, b]), lambda game: game.over)
        assert refilled(game)
        record = await finished_record(a)
    check_refill(record)
    assert (await audit_database(db_url)).problems == []


async def test_the_log_keeps_no_refilled_cards_and_a_restart_derives_them(
    tmp_path: Path, db_url: str
) -> None:
    """The new order of the closed deck is nobody's to see while the deal goes on: the table's
    log holds the refill's number and the open pile it was made of, not its cards (a copy of the
    database shows no card to come), and a restarted server derives the same order again."""
    settings = fast_settings(tmp_path, db_url, bots=False, next_game_ms=3_600_000)
    async with (
        running(settings) as server,
        RoomClient(server.url) as a,
        RoomClient(server.url) as b,
    ):
        table = await sit_two(server, [a, b], new=True)
        game = await drive(server, table, seated(server, table, [a, b]), refilled)
        stock = [card.physical for card in game.stock]  # type: ignore[attr-defined]
        # (the engine holds the refill a moment before its log entry is committed)
        logged: list[dict[str, Any]] = []
        deadline = time.monotonic() + 30
        while not logged and time.monotonic() < deadline:
            async with server.hub.db.read() as session:
                log = await store_tables.read_log(session, table)
            deals = [e.body["deal"] for e in log if e.kind == "act" and "deal" in e.body]
            logged = [deal for deal in deals if "refill" in deal]
            await asyncio.sleep(0.01)
        assert len(logged) == 1 and logged[0]["refill"] == 1 and logged[0]["from"]
        assert "cards" not in logged[0]
    async with (
        running(settings) as server,
        RoomClient(server.url) as a,
        RoomClient(server.url) as b,
    ):
        restored = server.hub.table(table).game
        assert [card.physical for card in restored.stock] == stock
        assert await sit_two(server, [a, b], new=False) == table
        await drive(server, table, seated(server, table, [a, b]), lambda game: game.over)
        record = await finished_record(a)
    check_refill(record)
    assert (await audit_database(db_url)).problems == []

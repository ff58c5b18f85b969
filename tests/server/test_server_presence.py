"""Who is at the table: a person with no connection watching is away; between games an away
person is waited for during the grace period, then stood up with their stack back in the wallet.
A short stack is bought back only with automatic rebuy on. Leaving mid-game gives up at once in
the game's own way. A second seat elsewhere only on request. On SQLite and PostgreSQL, over real
connections, on a fake clock."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from rummyhall.client import ClientError, RoomClient
from rummyhall.economy.audit import audit_database
from rummyhall.server import table as table_module
from rummyhall.server.clock import FakeClock
from rummyhall.store import tables as store_tables
from rummyhall.store.models import LedgerTransactionModel
from rummyhall.store.tables import LogEntry
from server_kit import (
    Player,
    Running,
    fast_settings,
    my_turn,
    run_clock,
    running,
    settle,
    watch_table,
)

# Guests play practice rooms (their chips are practice chips).
PATTI = "practice-patti-10-5p"
POINTS_2P = "practice-indian13-classic-points-1-2p"
GRACE = 20_000


async def table_log(server: Running, table: int) -> list[LogEntry]:
    """The table's committed log, as the database holds it."""
    async with server.hub.db.read() as session:
        return await store_tables.read_log(session, table)


async def test_an_away_player_is_stood_up_between_games(tmp_path: Path, db_url: str) -> None:
    """Gone mid-game: the game finishes for them on their timers, then, after the grace period,
    their seat is given up, the stack goes back to the wallet, and the bots leave with them."""
    clock = FakeClock()
    settings = fast_settings(tmp_path, db_url, next_game_ms=1_000, away_grace_ms=GRACE)
    async with running(settings, clock=clock) as server, RoomClient(server.url) as client:
        await client.guest()
        start = await client.practice()
        table, seat = await client.quick_seat(PATTI)
        await watch_table(client, table)
        actor = server.hub.table(table)
        await settle(server.hub, lambda hub: actor.game is not None and actor.game.log)
        await client.disconnect()
        await settle(server.hub, lambda hub: actor.away(seat))
        await run_clock(clock, lambda: actor.closed)
        # One game only: nobody pays for games they are not there for.
        assert actor.game_no == 1
        me = await client.request("GET", "/api/me")
        assert me["tables"] == []
        hands = (await client.request("GET", "/api/hands"))["hands"]
        assert len(hands) == 1
        record = (await client.request("GET", f"/api/hands/{hands[0]['id']}"))["record"]
        mine = [a["action"] for a in record["actions"] if a["seat"] == seat]
        assert set(mine) <= {"timeout"}
        # What the wallet lost is what that one game cost (the boot and automatic chaals).
        lost = start - me["practice"]
        assert 0 < lost <= 10 * 3
    report = await audit_database(settings.database_url)
    assert report.problems == []


async def test_the_table_waits_for_a_player_who_reloads(tmp_path: Path, db_url: str) -> None:
    """Away for less than the grace period (a reload) keeps the seat: the next game waits for
    the player, and starts as soon as they are back."""
    clock = FakeClock()
    settings = fast_settings(tmp_path, db_url, next_game_ms=1_000, away_grace_ms=GRACE)
    async with running(settings, clock=clock) as server, RoomClient(server.url) as client:
        await client.guest()
        # Automatic rebuy on: a lost showdown can leave the stack short, and a short stack would
        # stand up between games whatever the grace (this test is about the grace alone).
        table, seat = await client.quick_seat(PATTI, auto_rebuy=True)
        actor = server.hub.table(table)
        # Seated but not yet connected (the page is loading): the first game waits.
        clock.advance(5_000)
        await asyncio.sleep(0.1)
        assert actor.game is None and actor.away(seat)
        await watch_table(client, table, follow=True)
        await Player(client, "patti", 3).play(table)
        await settle(server.hub, lambda hub: actor.game is not None and actor.game.over)
        await client.disconnect()
        await settle(server.hub, lambda hub: actor.away(seat))
        clock.advance(GRACE - 5_000)  # past the pause after the game, within the grace period
        await asyncio.sleep(0.1)
        assert actor.game_no == 1 and actor.game.over
        assert actor.seats[seat].account_id == client.me["id"]  # type: ignore[index]
        info = (await client.request("GET", f"/api/tables/{table}"))["table"]
        assert info["seats"][seat - 1]["away"] is True
        await watch_table(client, table)
        await settle(server.hub, lambda hub: actor.game_no == 2)
        assert not actor.away(seat)
        # Our seat was never stood up. (A bot may have left: a lost showdown can leave a bot's
        # stack short, and a short bot stands up between games.)
        log = await table_log(server, table)
        assert [e for e in log if e.kind == "leave" and e.body["seat"] == seat] == []
    report = await audit_database(settings.database_url)
    assert report.problems == []


async def _sit_short(client: RoomClient, auto_rebuy: bool) -> tuple[int, int]:
    """Sit at a new Patti table with the room's minimum as the stack: one lost boot is short."""
    created = await client.request("POST", "/api/tables", {"room": PATTI})
    table = int(created["table"]["id"])
    answer = await client.request(
        "POST", f"/api/tables/{table}/sit", {"buy_in": 100, "auto_rebuy": auto_rebuy}
    )
    return table, int(answer["seat"])


async def _pack_until_short(client: RoomClient, server: Running, table: int, seat: int) -> None:
    """Pack at every turn (losing the boot each game) until the game after which the stack is
    below the room's minimum has ended."""
    actor = server.hub.table(table)
    feed = client.follow(table)
    await watch_table(client, table)
    while True:
        message = await asyncio.wait_for(feed.get(), 30)
        if message["you"] != seat:
            return  # stood up
        if actor.game is not None and actor.game.over and actor.stacks[seat] < 100:
            return
        if feed.empty() and "pack" in message["legal"]:
            try:
                await client.act(table, "pack")
            except ClientError as error:
                assert error.code in ("not_your_turn", "illegal_action", "bad_action"), error


async def test_a_short_stack_stands_up_without_auto_rebuy(tmp_path: Path, db_url: str) -> None:
    settings = fast_settings(tmp_path, db_url, next_game_ms=0)
    async with running(settings) as server, RoomClient(server.url) as client:
        await client.guest()
        start = await client.practice()
        table, seat = await _sit_short(client, auto_rebuy=False)
        await _pack_until_short(client, server, table, seat)
        await settle(server.hub, lambda hub: hub.tables.get(table) is None)
        whys = [e.body["why"] for e in await table_log(server, table) if e.kind == "leave"]
        assert "short" in whys
        me = await client.request("GET", "/api/me")
        assert me["tables"] == []
        # Only the boots of the games played were lost; nothing was taken for a rebuy.
        assert start - 100 < me["practice"] < start
    report = await audit_database(settings.database_url)
    assert report.problems == []


async def test_auto_rebuy_buys_back_to_the_buy_in(tmp_path: Path, db_url: str) -> None:
    settings = fast_settings(tmp_path, db_url, next_game_ms=0)
    async with running(settings) as server, RoomClient(server.url) as client:
        await client.guest()
        table, seat = await _sit_short(client, auto_rebuy=True)
        actor = server.hub.table(table)
        await _pack_until_short(client, server, table, seat)
        # Short after a game: bought back up to the room's buy-in, the seat kept.
        await settle(server.hub, lambda hub: actor.stacks.get(seat, 0) >= 100)
        assert actor.seats[seat].account_id == client.me["id"]  # type: ignore[index]
        assert any(e.kind == "top_up" for e in await table_log(server, table))
        # Turned off, the next short stack stands up.
        answer = await client.request("POST", f"/api/tables/{table}/auto-rebuy", {"on": False})
        assert answer == {"table": table, "auto_rebuy": False}
        info = (await client.request("GET", f"/api/tables/{table}"))["table"]
        assert info["seats"][seat - 1]["auto_rebuy"] is False
    report = await audit_database(settings.database_url)
    assert report.problems == []


async def test_a_rebuy_the_wallet_covers_goes_unread_and_one_it_no_longer_covers_reads_it(
    tmp_path: Path, db_url: str
) -> None:
    """A top-up the wallet covered when the table last took chips from it is a plain transfer
    in the writer's batch; if the wallet was spent elsewhere since, the ledger refuses that
    transfer, nothing of it is written, and the top-up reads the wallet and takes what it holds
    (here nothing: the player stands up short, their stack back in the wallet)."""
    settings = fast_settings(tmp_path, db_url, next_game_ms=0)
    async with running(settings) as server, RoomClient(server.url) as client:
        await client.guest()
        start = await client.practice()
        table, seat = await _sit_short(client, auto_rebuy=True)
        actor = server.hub.table(table)
        await _pack_until_short(client, server, table, seat)
        wanted = actor.room.buy_in - actor.stacks[seat]  # bought back up to the room's buy-in
        await settle(server.hub, lambda hub: actor.stacks.get(seat, 0) >= 100)
        ups = [e.body for e in await table_log(server, table) if e.kind == "top_up"]
        me = client.me["id"]  # type: ignore[index]
        assert ups == [{"seat": seat, "account": me, "chips": wanted}]
        assert await client.practice() == start - 100 - wanted
        # The rest of the wallet goes to a seat at another table: this one does not know.
        rest = await client.practice()
        other = int((await client.request("POST", "/api/tables", {"room": PATTI}))["table"]["id"])
        await client.request("POST", f"/api/tables/{other}/sit", {"buy_in": rest, "another": True})
        assert await client.practice() == 0
        await _pack_until_short(client, server, table, seat)
        await settle(server.hub, lambda hub: seat not in actor.seats or actor.closed)
        log = await table_log(server, table)
        ups = [e.body for e in log if e.kind == "top_up"]
        assert len(ups) == 2 and ups[1]["chips"] == 0
        left = [e.body for e in log if e.kind == "leave" and e.body["seat"] == seat]
        assert [entry["why"] for entry in left] == ["short"]
        assert await client.practice() == left[0]["chips"] > 0
    report = await audit_database(settings.database_url)
    assert report.problems == []


async def test_leaving_mid_deal_drops_at_once(tmp_path: Path, db_url: str) -> None:
    """At 13 cards, leaving at one's turn is a drop, played by the table right away; the player
    stands up when that game ends, without waiting for the pause after it."""
    # (A bot may end a deal before our first turn: the next one starts at once.)
    settings = fast_settings(tmp_path, db_url, next_game_ms=0)
    async with running(settings) as server, RoomClient(server.url) as client:
        await client.guest()
        table, seat = await client.quick_seat(POINTS_2P)
        actor = server.hub.table(table)
        await watch_table(client, table)
        turn = await my_turn(client, table, server)
        # Our turn: nothing moves until we act (the timers are minutes long).
        wallet = await client.practice()
        stack = actor.stacks[seat]
        game_no = turn["info"]["game_no"]
        # A long pause after games from now on: the stand-up below cannot wait for it.
        actor.settings = replace(actor.settings, next_game_ms=3_600_000)
        left = await client.request("POST", f"/api/tables/{table}/leave")
        assert left["after_game"] is True
        await settle(server.hub, lambda hub: actor.closed)
        acts = [e.body for e in await table_log(server, table) if e.kind == "act"]
        mine = [a["action"] for a in acts if a["seat"] == seat]
        assert mine[-1] == "drop"
        assert actor.game_no == game_no
        # A first drop costs 20 points, at one chip a point.
        assert await client.practice() == wallet + stack - 20
    report = await audit_database(settings.database_url)
    assert report.problems == []


async def test_a_second_seat_only_on_request(tmp_path: Path, db_url: str) -> None:
    settings = fast_settings(tmp_path, db_url, next_game_ms=3_600_000)
    async with running(settings) as server, RoomClient(server.url) as client:
        await client.guest()
        first, seat = await client.quick_seat(PATTI)
        # The same room again: the seat already held.
        assert await client.quick_seat(PATTI) == (first, seat)
        with pytest.raises(ClientError) as refused:
            await client.quick_seat(POINTS_2P)
        assert refused.value.code == "seated_elsewhere"
        created = await client.request("POST", "/api/tables", {"room": POINTS_2P})
        other = int(created["table"]["id"])
        with pytest.raises(ClientError) as refused:
            await client.request("POST", f"/api/tables/{other}/sit", {})
        assert refused.value.code == "seated_elsewhere"
        assert server.hub.table(other).seat_of(client.me["id"]) is None  # type: ignore[index]
        second, _ = await client.quick_seat(POINTS_2P, another=True)
        tables = (await client.request("GET", "/api/me"))["tables"]
        assert [(t["table"], t["room"], t["game"]) for t in tables] == [
            (first, PATTI, "patti"),
            (second, POINTS_2P, "indian13"),
        ]
        assert all(t["title"] and t["playing"] in (True, False) for t in tables)
        # Over the WebSocket too.
        await client.connect()
        with pytest.raises(ClientError) as refused:
            await client.sit(other)
        assert refused.value.code == "seated_elsewhere"
    report = await audit_database(settings.database_url)
    assert report.problems == []


async def test_requests_at_once_take_one_seat(tmp_path: Path, db_url: str) -> None:
    """Sits and quick-seats of one account sent all at once: each checks that the account sits
    nowhere else, so exactly one gets a seat and the others are refused."""
    settings = fast_settings(tmp_path, db_url, next_game_ms=3_600_000, bots=False)
    async with running(settings) as server, RoomClient(server.url) as client:
        await client.register("hasty", "a long password")
        tables = [
            int((await client.request("POST", "/api/tables", {"room": room}))["table"]["id"])
            for room in (PATTI, POINTS_2P)
        ]
        requests = [
            *(client.request("POST", f"/api/tables/{table}/sit", {}) for table in tables),
            *(client.quick_seat(room) for room in ("patti-10-4p", "indian13-pool101-50-2p")),
        ]
        answers = await asyncio.gather(*requests, return_exceptions=True)
        refused = [a for a in answers if isinstance(a, ClientError)]
        assert len(refused) == len(requests) - 1, answers
        assert {error.code for error in refused} == {"seated_elsewhere"}
        me = await client.request("GET", "/api/me")
        assert len(me["tables"]) == 1
    report = await audit_database(settings.database_url)
    assert report.problems == []


async def test_auto_rebuy_needs_a_seat(tmp_path: Path, db_url: str) -> None:
    settings = fast_settings(tmp_path, db_url, next_game_ms=3_600_000)
    async with running(settings) as server, RoomClient(server.url) as client:
        await client.guest()
        created = await client.request("POST", "/api/tables", {"room": PATTI})
        table = int(created["table"]["id"])
        with pytest.raises(ClientError) as refused:
            await client.request("POST", f"/api/tables/{table}/auto-rebuy", {"on": True})
        assert refused.value.code == "not_seated"
        assert server.hub.table(table).seats == {}


async def test_a_quick_seat_buys_in_from_the_wallet_it_read_and_reads_it_again_if_spent(
    tmp_path: Path, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A quick seat has just read the wallet (to choose the room): its buy-in is a plain
    transfer in the writer's batch, with no read of its own. If the wallet was spent since,
    the ledger refuses that transfer, nothing of it is written, and the sit reads the wallet
    and takes what it holds, as a sit at a chosen seat does."""
    reads: list[int] = []
    read_and_move = table_module._wallet_to_seat

    def counted(conn: Any, table: int, seq: int, *rest: Any) -> None:
        reads.append(table)
        read_and_move(conn, table, seq, *rest)

    monkeypatch.setattr(table_module, "_wallet_to_seat", counted)
    settings = fast_settings(tmp_path, db_url, bots=False)
    async with (
        running(settings) as server,
        RoomClient(server.url) as first,
        RoomClient(server.url) as second,
    ):
        await first.guest()
        start = await first.practice()
        table, seat = await first.quick_seat(PATTI)
        actor = server.hub.table(table)
        buy_in = actor.room.buy_in
        sits = [e for e in await table_log(server, table) if e.kind == "sit"]
        assert [e.body["buy_in"] for e in sits] == [buy_in] and reads == []
        assert actor.stacks[seat] == buy_in and await first.practice() == start - buy_in
        async with server.hub.db.read() as session:
            kind = await session.scalar(
                select(LedgerTransactionModel.kind).where(
                    LedgerTransactionModel.key == f"table:{table}:seq:{sits[0].seq}"
                )
            )
        assert kind == "buy_in"

        # The second player's wallet goes to another table but for the room's minimum; a sit
        # told it still holds what it held before pays what is there.
        await second.guest()
        held = await second.practice()
        minimum = actor.room.min_stack
        other = await second.request("POST", "/api/tables", {"room": PATTI})
        await second.request(
            "POST", f"/api/tables/{other['table']['id']}/sit", {"buy_in": held - minimum}
        )
        assert await second.practice() == minimum and len(reads) == 1  # (a chosen seat reads)
        me = second.me
        assert me is not None
        placed = await actor.call(partial(actor.sit, int(me["id"]), str(me["name"]), wallet=held))
        assert len(reads) == 2 and actor.stacks[placed] == minimum
        assert await second.practice() == 0
        sits = [e for e in await table_log(server, table) if e.kind == "sit"]
        assert [e.body["buy_in"] for e in sits] == [buy_in, minimum]
    report = await audit_database(settings.database_url)
    assert report.problems == []

"""Gold tables and the purchase hook over real connections, on SQLite and PostgreSQL (issue 19):
a quick seat in a silver room plays silver while the player's silver covers the room's minimum
stack and the room's gold twin once it does not (their gold pays the buy-in, the table's seats
and pot are gold accounts, leaving pays back gold, silver is untouched); with neither the quick
seat is refused and changes nothing; a gold game pays its winner gold and every currency
balances on its own; the operator's purchase hook mints an order's gold once however often the
shop retries it, and refuses an order id reused for another account or amount; the command line
grants gold."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from rummyhall import catalog, cli
from rummyhall.client import ClientError, RoomClient
from rummyhall.economy import ledger
from rummyhall.economy.audit import audit_database
from rummyhall.economy.flows import top_flows
from rummyhall.economy.ledger import CHIPS, GOLD
from rummyhall.economy.wallets import STARTING_GOLD, STARTING_SILVER
from server_kit import Player, Running, check_flows, fast_settings, record_nets, running

ROOM = "indian13-classic-points-1-6p"
"""Buy-in 160, minimum stack 80 (a seat covers one capped loss of 80 points at 1 chip)."""
GOLD_ROOM = f"gold-{ROOM}"
PATTI = "patti-10-4p"
"""Boot 10: buy-in 2,000, minimum stack 100."""
SILVER = 50
"""A new player's silver in these tests: below both rooms' minimum stacks."""


@pytest.fixture
async def server(tmp_path: Path, db_url: str) -> AsyncIterator[Running]:
    """A server without bots whose new players get 50 silver chips, on each database."""
    async with running(fast_settings(tmp_path, db_url, bots=False, starting_silver=SILVER)) as on:
        yield on


def _token(server: Running) -> str:
    return (server.app.state.settings.data_dir / "admin.token").read_text().strip()


def _operator(server: Running, token: str | None = None) -> httpx.AsyncClient:
    """An HTTP client with the operator's token (or ``token``; "" for none)."""
    token = _token(server) if token is None else token
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.AsyncClient(base_url=server.url, headers=headers)


async def _grant_gold(server: Running, name: str, amount: int) -> None:
    async with _operator(server) as http:
        answer = await http.post(
            "/api/admin/grant", json={"name": name, "amount": amount, "currency": "gold"}
        )
    assert answer.status_code == 200, answer.text
    assert answer.json()["currency"] == "gold"


async def _wallets(client: RoomClient) -> tuple[int, int]:
    me = await client.request("GET", "/api/me")
    return int(me["chips"]), int(me["gold"])


async def refused(call: Any) -> ClientError:
    with pytest.raises(ClientError) as caught:
        await call
    return caught.value


async def test_a_new_player_can_sit_in_every_desert_room(tmp_path: Path, db_url: str) -> None:
    """The starting purse a real room gives (100 silver, the level-1 limit, and 1,000 gold)
    opens the Desert rooms of every game: silver where it covers the room's minimum stack, the
    gold twin where it does not (Marriage needs 200, Patti 100 of a 2,000 buy-in)."""
    purse = {"starting_silver": STARTING_SILVER, "starting_gold": STARTING_GOLD}
    async with (
        running(fast_settings(tmp_path, db_url, bots=False, **purse)) as on,
        RoomClient(on.url) as asha,
    ):
        await asha.register("asha", "long enough")
        assert await _wallets(asha) == (100, 1_000)
        desert = [
            room
            for room in catalog.rooms()
            if room.tier == "desert" and room.chips is CHIPS and not room.key.startswith("gold-")
        ]
        assert {room.game for room in desert} == set(catalog.names())
        played = set()
        for room in desert:
            table, _ = await asha.quick_seat(room.key)
            actor = on.hub.table(table)
            silver = room.min_stack <= 100
            assert actor.room.key == (room.key if silver else f"gold-{room.key}"), room.key
            held = await _wallets(asha)
            # Silver buys in with what it has; gold pays the buy-in, up to what it holds.
            expected = (0, 1_000) if silver else (100, 1_000 - min(room.buy_in, 1_000))
            assert held == expected, room.key
            played.add(actor.room.chips.key)
            await asha.request("POST", f"/api/tables/{table}/leave")
            assert await _wallets(asha) == (100, 1_000)
        assert played == {"chips", "gold"}
    report = await audit_database(on.app.state.settings.database_url)
    assert report.ok, report.problems


async def test_quick_seat_plays_gold_once_silver_runs_short(server: Running) -> None:
    async with RoomClient(server.url) as asha, RoomClient(server.url) as ravi:
        await asha.register("asha", "long enough")
        await _grant_gold(server, "asha", 500)
        # 50 silver do not cover the room's minimum stack of 80: the gold twin it is.
        table, seat = await asha.quick_seat(ROOM)
        actor = server.hub.table(table)
        assert actor.room.key == GOLD_ROOM and actor.room.chips is GOLD
        assert actor.room.tier == server.hub.room(ROOM).tier  # same lock, same multiplier
        assert await _wallets(asha) == (SILVER, 500 - 160)
        me = await asha.request("GET", "/api/me")
        assert [(t["table"], t["room"], t["currency"]) for t in me["tables"]] == [
            (table, GOLD_ROOM, "gold")
        ]
        info = (await asha.request("GET", f"/api/tables/{table}"))["table"]
        assert info["currency"] == "gold"
        report = await audit_database(server.app.state.settings.database_url)
        assert report.ok, report.problems
        assert (report.currencies["gold"].at_tables, report.currencies["chips"].at_tables) == (
            160,
            0,
        )
        async with server.app.state.db.read() as session:
            assert await ledger.balance(session, f"table:{table}:seat:{seat}") == 160
        # Asking again finds the seat there (the gold tables are the same room's).
        assert await asha.quick_seat(ROOM) == (table, seat)
        assert await asha.quick_seat(GOLD_ROOM) == (table, seat)

        # A silver table of the room keeps its silver: the refusal points to the gold tables.
        await ravi.register("ravi", "long enough")
        await _grant_gold(server, "ravi", 400)
        silver = (await asha.request("POST", "/api/tables", {"room": ROOM}))["table"]["id"]
        error = await refused(ravi.request("POST", f"/api/tables/{silver}/sit", {}))
        assert (error.code, error.status) == ("insufficient_chips", 409)
        assert "gold tables" in error.message and "400 gold" in error.message
        await ravi.connect()
        error = await refused(ravi.sit(silver))
        assert error.code == "insufficient_chips" and "gold tables" in error.message
        assert await _wallets(ravi) == (SILVER, 400)

        # Standing up pays the stack back in gold; silver never moved.
        await asha.request("POST", f"/api/tables/{table}/leave")
        assert await _wallets(asha) == (SILVER, 500)

        # Silver that covers the room plays silver (silver first), gold stays where it is; a
        # quick seat naming the gold room plays gold whatever the silver.
        await _grant_chips(server, "asha", 1_000)
        silver_table, _ = await asha.quick_seat(ROOM)
        assert server.hub.table(silver_table).room.key == ROOM
        assert await _wallets(asha) == (SILVER + 1_000 - 160, 500)
        gold_table, _ = await asha.quick_seat(GOLD_ROOM, another=True)
        assert server.hub.table(gold_table).room.key == GOLD_ROOM
        assert await _wallets(asha) == (SILVER + 1_000 - 160, 500 - 160)
    report = await audit_database(server.app.state.settings.database_url)
    assert report.ok, report.problems


async def _grant_chips(server: Running, name: str, amount: int) -> None:
    async with _operator(server) as http:
        answer = await http.post("/api/admin/grant", json={"name": name, "amount": amount})
    assert answer.status_code == 200 and answer.json()["chips"] > 0, answer.text


async def _state(server: Running, client: RoomClient) -> Any:
    """What a refusal must not change: the wallets and seats, the tables, the ledger."""
    me = await client.request("GET", "/api/me")
    report = await audit_database(server.app.state.settings.database_url)
    tables = sorted(
        (a.id, a.room.key, tuple(sorted((s, o.account_id) for s, o in a.seats.items())))
        for a in server.hub.tables.values()
    )
    return me, tables, report.transactions, report.postings


async def test_without_silver_or_gold_a_quick_seat_is_refused_and_changes_nothing(
    server: Running,
) -> None:
    async with RoomClient(server.url) as meera, RoomClient(server.url) as guest:
        await meera.register("meera", "long enough")
        await _grant_gold(server, "meera", 79)  # one short of the minimum stack
        before = await _state(server, meera)
        for room in (ROOM, GOLD_ROOM):
            error = await refused(meera.quick_seat(room))
            assert (error.code, error.status) == ("insufficient_chips", 409), room
        error = await refused(meera.quick_seat(ROOM))
        assert "80 chips" in error.message and f"{SILVER} silver and 79 gold" in error.message
        assert await _state(server, meera) == before  # not even an empty table
        assert server.hub.tables == {}

        # Gold is real chips: never a guest's.
        await guest.guest()
        for room in (ROOM, GOLD_ROOM):
            error = await refused(guest.quick_seat(room))
            assert (error.code, error.status) == ("practice_only", 403), room
        assert (await guest.request("GET", "/api/me"))["gold"] == 0
        async with _operator(server) as http:
            answer = await http.post(
                "/api/admin/grant",
                json={"name": guest.me["name"], "amount": 5, "currency": "gold"},
            )
        assert (answer.status_code, answer.json()["error"]["code"]) == (403, "practice_only")


async def test_a_gold_game_pays_in_gold(tmp_path: Path, db_url: str) -> None:
    """One Rummy Patti game at a gold table with bots: the bots bring gold from the gold mint,
    the player's result comes back to their gold wallet, silver moves nowhere, the game counts on
    the ladder and its flows are gold flows; every currency balances."""
    settings = fast_settings(tmp_path, db_url, next_game_ms=3_600_000, starting_silver=SILVER)
    async with running(settings) as server, RoomClient(server.url) as dev:
        await dev.register("dev", "long enough")
        await _grant_gold(server, "dev", 3_000)
        table, seat = await dev.quick_seat(PATTI)
        assert server.hub.table(table).room.key == f"gold-{PATTI}"
        dev.follow(table)
        await dev.connect()
        await dev.watch(table)
        player = Player(dev, "patti", 7)
        await player.play(table, games=1)
        assert player.refused == []
        owners = {s: o.account_id for s, o in server.hub.table(table).seats.items()}
        bots = [account for s, account in owners.items() if s != seat]
        await dev.leave(table)
        hands = (await dev.request("GET", "/api/hands"))["hands"]
        record = (await dev.request("GET", f"/api/hands/{hands[0]['id']}"))["record"]
        nets = record_nets(record)
        # The game's result, and the gold of the achievements the game earned (a first game,
        # perhaps a first win: the ladder pays those in gold).
        earned = (await dev.request("GET", "/api/achievements"))["achievements"]
        prizes = sum(a["gold"] for a in earned if a["earned_at"])
        assert prizes >= 10
        assert await _wallets(dev) == (SILVER, 3_000 + nets[seat] + prizes)
        me = await dev.request("GET", "/api/me")
        assert me["ladder"]["games"] == 1 and me["ladder"]["clover"] > 0
        async with server.app.state.db.read() as session:
            for bot in bots:
                assert await ledger.balance(session, CHIPS.wallet(bot)) == 0
            gold_flows = await top_flows(session, currency="gold")
            silver_flows = await top_flows(session)
        winners = {owners[s] for s, net in nets.items() if net > 0}
        assert winners and gold_flows and silver_flows == []
        assert {flow.payee for flow in gold_flows} <= winners
    report = await audit_database(db_url)
    assert report.ok, report.problems  # per currency, and no transaction mixes them
    assert report.minted == SILVER  # dev's signup: the game moved no silver
    gold = report.currencies["gold"]
    assert gold.minted >= 3_000 + len(bots) * 2_000  # dev's grant, the bots' buy-ins
    assert await check_flows(db_url) == 1


# --- the purchase hook ---------------------------------------------------------------------------


async def test_a_purchase_mints_its_gold_once(server: Running) -> None:
    async with RoomClient(server.url) as asha, RoomClient(server.url) as guest:
        await asha.register("asha", "long enough")
        async with RoomClient(server.url) as ravi:
            await ravi.register("ravi", "long enough")
        await guest.guest()
        order = {"order_id": "shop-2026.11:0001", "name": "asha", "gold": 250}
        async with _operator(server) as http:
            first = await http.post("/api/admin/purchase", json={**order, "reason": "pack S"})
            assert first.status_code == 200, first.text
            assert first.json() == {
                "order_id": order["order_id"],
                "name": "asha",
                "gold": 250,
                "balance": 250,
                "duplicate": False,
            }
            # The shop retries (one after the other, and five at once): nothing more is minted.
            again = await http.post("/api/admin/purchase", json=order)
            assert again.status_code == 200
            assert again.json() == {**first.json(), "duplicate": True}
            retries = await asyncio.gather(
                *(http.post("/api/admin/purchase", json=order) for _ in range(5))
            )
            assert [r.json()["duplicate"] for r in retries] == [True] * 5
            burst = await asyncio.gather(
                *(
                    http.post("/api/admin/purchase", json={**order, "order_id": "burst", "gold": 7})
                    for _ in range(5)
                )
            )
            assert sorted(r.json()["duplicate"] for r in burst) == [False] + [True] * 4
            assert {r.json()["balance"] for r in burst} == {257}
            assert await _wallets(asha) == (SILVER, 257)

            # The same order id for another account or amount is refused, and mints nothing.
            for conflict in ({**order, "name": "ravi"}, {**order, "gold": 251}):
                answer = await http.post("/api/admin/purchase", json=conflict)
                assert answer.status_code == 409, conflict
                assert answer.json()["error"]["code"] == "order_conflict"
            # Other orders; a guest none; an unknown account none.
            second = await http.post(
                "/api/admin/purchase", json={**order, "order_id": "shop-2", "gold": 1_000_000}
            )
            assert second.json()["balance"] == 1_000_257
            answer = await http.post(
                "/api/admin/purchase", json={**order, "order_id": "g1", "name": guest.me["name"]}
            )
            assert (answer.status_code, answer.json()["error"]["code"]) == (403, "practice_only")
            answer = await http.post(
                "/api/admin/purchase", json={**order, "order_id": "u1", "name": "nobody"}
            )
            assert (answer.status_code, answer.json()["error"]["code"]) == (
                404,
                "unknown_account",
            )
            # What the schema refuses.
            for bad in (
                {**order, "order_id": ""},
                {**order, "order_id": "x" * 65},
                {**order, "order_id": "a b"},
                {**order, "order_id": "a/b"},
                {**order, "order_id": "abc\n"},
                {**order, "order_id": 7},
                {**order, "gold": 0},
                {**order, "gold": -5},
                {**order, "gold": 1_000_001},
                {**order, "gold": 2.0},
                {**order, "gold": "5"},
                {**order, "gold": True},
                {**order, "extra": 1},
                {"name": "asha", "gold": 5},
            ):
                answer = await http.post("/api/admin/purchase", json=bad)
                assert (answer.status_code, answer.json()["error"]["code"]) == (
                    422,
                    "bad_request",
                ), bad
        # Without the operator's token: refused before anything is read.
        for token in ("", "wrong-token", _token(server) + "x"):
            async with _operator(server, token) as http:
                answer = await http.post("/api/admin/purchase", json={**order, "order_id": "t1"})
                assert (answer.status_code, answer.json()["error"]["code"]) == (403, "forbidden")
                answer = await http.post("/api/admin/purchase", json={"junk": True})
                assert answer.status_code == 403, token
        async with httpx.AsyncClient(base_url=server.url) as http:
            answer = await http.post(
                "/api/admin/purchase",
                json={**order, "order_id": "t2"},
                headers={"Authorization": f"Basic {_token(server)}"},
            )
            assert (answer.status_code, answer.json()["error"]["code"]) == (403, "forbidden")
        assert await _wallets(asha) == (SILVER, 1_000_257)
        async with server.app.state.db.read() as session:
            assert await ledger.transaction_exists(session, "purchase:shop-2026.11:0001")
            for key in ("g1", "u1", "t1", "t2"):
                assert not await ledger.transaction_exists(session, f"purchase:{key}")
    report = await audit_database(server.app.state.settings.database_url)
    assert report.ok, report.problems
    assert report.currencies["gold"].minted == 1_000_257


async def test_the_command_line_grants_gold_and_records_purchases(
    server: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    async with RoomClient(server.url) as meera:
        await meera.register("meera", "long enough")
    admin = ["admin", "--url", server.url, "--data-dir", str(server.app.state.settings.data_dir)]

    async def run(*args: str) -> tuple[int, str, str]:
        code = await asyncio.to_thread(cli.main, [*admin, *args])
        out, err = capsys.readouterr()
        return code, out, err

    assert await run("grant", "meera", "250", "--gold") == (
        0,
        "meera now has 250 gold chips\n",
        "",
    )
    code, out, _ = await run("grant", "meera", "5")
    assert (code, out) == (0, f"meera now has {SILVER + 5} silver chips\n")
    code, out, _ = await run("purchase", "order-1", "meera", "100")
    assert code == 0 and "recorded; meera now has 350 gold chips" in out
    code, out, _ = await run("purchase", "order-1", "meera", "100")
    assert code == 0 and "nothing changed" in out and "350 gold chips" in out
    code, _, err = await run("purchase", "order-1", "meera", "101")
    assert code == 1 and "order_conflict" in err
    async with RoomClient(server.url) as again:
        await again.login("meera", "long enough")
        assert await _wallets(again) == (SILVER + 5, 350)

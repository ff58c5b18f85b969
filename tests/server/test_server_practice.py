"""Practice chips and chip flows over real connections, on SQLite and PostgreSQL (issue 15, item
5): guests get practice chips and no real chips; they may play only in practice rooms, and every
other way to a real-chip table is refused with ``practice_only`` and changes nothing; practice and
real chips never mix; practice chips can be refilled when low; and chips dumped at a private
table show up as the largest flow in ``rummyhall audit --flows``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from rummyhall import cli
from rummyhall.client import ClientError, RoomClient
from rummyhall.economy import ledger
from rummyhall.economy.audit import audit_database
from rummyhall.economy.flows import top_flows
from rummyhall.economy.ledger import PRACTICE
from rummyhall.server.clock import FakeClock
from server_kit import (
    Player,
    Running,
    check_flows,
    fast_settings,
    running,
    settle,
    watch_table,
)

REAL = "indian13-classic-points-1-6p"
REAL_DUEL = "indian13-classic-points-1-2p"
PRACTICE_ROOM = "practice-indian13-classic-points-1-6p"
PRACTICE_PATTI = "practice-patti-10-5p"


@pytest.fixture
async def server(tmp_path: Path, db_url: str) -> Running:  # type: ignore[misc]
    """A server without bots, on each database in turn."""
    async with running(fast_settings(tmp_path, db_url, bots=False)) as found:
        yield found


async def refused(call: Any) -> ClientError:
    with pytest.raises(ClientError) as caught:
        await call
    return caught.value


async def test_guests_get_practice_chips_only(server: Running) -> None:
    """300 guests in 10 s minted 3,000,000 chips: now they mint none."""
    clients = [RoomClient(server.url) for _ in range(20)]
    try:
        for client in clients:
            me = await client.guest()
            assert me["guest"] is True
            assert (me["chips"], me["practice"]) == (0, 10_000)
            assert me["currencies"] == ["practice"]
            assert me["practice_refill"] is False
    finally:
        for client in clients:
            await client.close()
    async with RoomClient(server.url) as player:
        me = await player.register("asha", "long enough")
        assert (me["chips"], me["gold"], me["practice"], me["currencies"]) == (
            10_000,
            0,
            10_000,
            ["chips", "practice", "gold"],
        )
    report = await audit_database(server.app.state.settings.database_url)
    assert report.ok, report.problems
    assert report.minted == 10_000  # Asha's; not one chip for the 20 guests
    assert report.currencies["practice"].minted == 21 * 10_000


async def test_a_player_plays_practice_rooms_with_practice_chips(server: Running) -> None:
    async with RoomClient(server.url) as asha:
        await asha.register("asha", "long enough")
        table, _ = await asha.quick_seat(PRACTICE_ROOM)
        assert (await asha.chips(), await asha.practice()) == (10_000, 10_000 - 160)
        me = await asha.request("GET", "/api/me")
        assert [(t["table"], t["currency"]) for t in me["tables"]] == [(table, "practice")]
        info = (await asha.request("GET", f"/api/tables/{table}"))["table"]
        assert info["currency"] == "practice"
        # A real table as well: its buy-in comes from the real wallet.
        await asha.quick_seat(REAL, another=True)
        assert (await asha.chips(), await asha.practice()) == (10_000 - 160, 10_000 - 160)
        await asha.request("POST", f"/api/tables/{table}/leave")
        assert (await asha.chips(), await asha.practice()) == (10_000 - 160, 10_000)


async def _state(server: Running, client: RoomClient) -> Any:
    """What a refusal must not change: the guest's wallets and seats, the tables, the ledger."""
    me = await client.request("GET", "/api/me")
    report = await audit_database(server.app.state.settings.database_url)
    tables = sorted(
        (a.id, a.private, tuple(sorted((s, o.account_id) for s, o in a.seats.items())))
        for a in server.hub.tables.values()
    )
    return me, tables, report.transactions, report.postings


async def test_a_guest_is_refused_at_real_chip_rooms(server: Running) -> None:
    async with RoomClient(server.url) as asha, RoomClient(server.url) as guest:
        await asha.register("asha", "long enough")
        public = (await asha.request("POST", "/api/tables", {"room": REAL}))["table"]["id"]
        private = await asha.request("POST", "/api/tables", {"room": REAL, "private": True})
        await guest.guest()
        await guest.connect()
        # The guest may open the invite (and look at the table), but not sit there.
        await guest.request("GET", f"/api/invites/{private['invite']}")
        before = await _state(server, guest)
        attempts = {
            "sit": guest.request("POST", f"/api/tables/{public}/sit", {}),
            "sit at the private table": guest.request(
                "POST", f"/api/tables/{private['table']['id']}/sit", {}
            ),
            "quick-seat": guest.quick_seat(REAL),
            "quick-seat at another": guest.quick_seat(REAL_DUEL, another=True),
            "create": guest.request("POST", "/api/tables", {"room": REAL}),
            "create private": guest.request(
                "POST", "/api/tables", {"room": REAL_DUEL, "private": True}
            ),
            "sit over the WebSocket": guest.sit(public),
        }
        for what, call in attempts.items():
            error = await refused(call)
            assert error.code == "practice_only", what
            assert "sign up" in error.message, what
            if what != "sit over the WebSocket":
                assert error.status == 403, what
        assert await _state(server, guest) == before
        # An unknown room or table is still that, for a guest too (nothing is told about it).
        assert (await refused(guest.quick_seat("nope"))).code == "unknown_room"
        assert (await refused(guest.request("POST", "/api/tables/9999/sit", {}))).code == (
            "unknown_table"
        )
        # Practice rooms are open to the guest.
        _, seat = await guest.quick_seat(PRACTICE_ROOM)
        assert seat >= 1
        assert (await guest.practice(), await guest.chips()) == (10_000 - 160, 0)


async def test_practice_and_real_chips_never_mix(tmp_path: Path, db_url: str) -> None:
    """A guest and a registered player play practice games, the player a real one too, with
    bots (bots sit with chips of the table's currency): each currency balances on its own, the
    guest's real wallet stays empty and its flows are practice flows."""
    settings = fast_settings(tmp_path, db_url, next_game_ms=3_600_000)
    async with (
        running(settings) as server,
        RoomClient(server.url) as guest,
        RoomClient(server.url) as ravi,
    ):
        await guest.guest()
        await ravi.register("ravi", "long enough")
        await guest.connect()
        await ravi.connect()
        plays = []
        for client, room, seed in (
            (guest, PRACTICE_PATTI, 3),
            (ravi, PRACTICE_PATTI, 4),
            (ravi, "patti-10-5p", 5),
        ):
            table, _ = await client.quick_seat(room, another=True)
            client.follow(table)
            await client.watch(table)
            plays.append((client, Player(client, "patti", seed), table))
        await asyncio.gather(*(player.play(table, games=1) for _, player, table in plays))
        for client, _, table in plays:
            await client.leave(table)
        async with server.app.state.db.read() as session:
            guest_id = int(guest.me["id"])
            assert await ledger.balance(session, f"player:{guest_id}") == 0
            practice_flows = await top_flows(session, currency="practice")
            real_flows = await top_flows(session)
    report = await audit_database(db_url)
    assert report.ok, report.problems  # per currency, and no transaction mixes them
    assert report.currencies["practice"].minted > 2 * 10_000  # the bots' practice chips too
    assert report.minted > 10_000  # Ravi's and the bots' real chips
    assert practice_flows, "the practice games paid someone"
    assert await check_flows(db_url) >= 2  # a practice table (or two) and a real one
    in_real = {f.payer_name for f in real_flows} | {f.payee_name for f in real_flows}
    assert guest.me["name"] not in in_real
    assert "ravi" in in_real or not real_flows


async def test_practice_refills(tmp_path: Path, db_url: str) -> None:
    clock = FakeClock()
    settings = fast_settings(
        tmp_path, db_url, bots=False, practice_refills_per_hour=2.0, practice_refill_burst=1
    )
    async with running(settings, clock=clock) as server, RoomClient(server.url) as guest:
        await guest.guest()
        error = await refused(guest.refill_practice())
        assert (error.code, error.status) == ("refill_not_needed", 409)
        # Chips at a seat count as held: sitting down does not make a wallet "low".
        table, _ = await guest.quick_seat(PRACTICE_PATTI)
        assert await guest.practice() == 8_000
        assert (await refused(guest.refill_practice())).code == "refill_not_needed"
        await guest.request("POST", f"/api/tables/{table}/leave")

        async def lose(chips: int) -> None:
            wallet = PRACTICE.wallet(int(guest.me["id"]))
            async with server.app.state.db.transaction() as session:
                await ledger.transfer(
                    session, f"lost:{chips}", [(wallet, -chips), (PRACTICE.house, chips)], kind="x"
                )

        await lose(9_000)
        me = await guest.request("GET", "/api/me")
        assert (me["practice"], me["practice_refill"]) == (1_000, True)
        assert await guest.refill_practice() == 10_000
        assert (await guest.request("GET", "/api/me"))["practice_refill"] is False
        await lose(9_500)
        limited = await refused(guest.refill_practice())
        assert (limited.code, limited.status) == ("rate_limited", 429)
        assert await guest.practice() == 500  # the refusal minted nothing
        clock.advance(31 * 60_000)  # two an hour: one more after half an hour
        assert await guest.refill_practice() == 10_000
        # Not signed in: no refill.
        async with httpx.AsyncClient(base_url=server.url) as http:
            anonymous = await http.post("/api/practice/refill")
            assert anonymous.json()["error"]["code"] == "not_signed_in"
    report = await audit_database(db_url)
    assert report.ok and report.minted == 0


async def test_real_chips_are_not_granted_to_a_guest(server: Running) -> None:
    token = (server.app.state.settings.data_dir / "admin.token").read_text().strip()
    async with RoomClient(server.url) as guest:
        me = await guest.guest()
        async with httpx.AsyncClient(base_url=server.url) as http:
            answer = await http.post(
                "/api/admin/grant",
                json={"name": me["name"], "amount": 500},
                headers={"Authorization": f"Bearer {token}"},
            )
        assert (answer.status_code, answer.json()["error"]["code"]) == (403, "practice_only")
        assert await guest.chips() == 0


class _Dumper:
    """Drops at its first turn: loses on purpose, 20 chips a game at one chip a point."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot

    def act(self, view: Any) -> str | None:
        mine = view.get("phase") == "play" and view.get("turn") == view.get("viewer")
        if mine and not view.get("drawn"):
            return "drop"
        return self.bot.act(view)


class _Keeper:
    """Plays on with the game's bot, but never drops (the bot would, with a poor hand) and never
    declares: the dumper's drop alone ends each game, for exactly the first-drop score. (A valid
    declaration at the keeper's first turn, before the dumper ever moved, is a deal show: the
    dumper would pay half its hand, up to 40, instead. A lucky deal made this test fail.)"""

    def __init__(self, bot: Any) -> None:
        self.bot = bot

    def act(self, view: Any) -> str | None:
        action = self.bot.act(view)
        if action == "drop":
            return "draw closed"
        if action is not None and action.startswith("declare "):
            return "discard " + action.split()[1]  # the card it would have finished with
        return action


async def test_chip_dumping_is_the_top_flow(
    tmp_path: Path, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two registered accounts at a private two-seat table: one loses on purpose, game after
    game; the other plays. ``rummyhall audit --flows`` puts the pair first, all at a private
    table; other players' games (with bots, at public tables) come after."""
    settings = fast_settings(tmp_path, db_url, bots=False)
    async with (
        running(settings) as server,
        RoomClient(server.url) as dumper,
        RoomClient(server.url) as mule,
    ):
        await dumper.register("dumper", "long enough")
        await mule.register("mule", "long enough")
        created = await dumper.request("POST", "/api/tables", {"room": REAL_DUEL, "private": True})
        table = created["table"]["id"]
        await mule.request("GET", f"/api/invites/{created['invite']}")
        for client in (dumper, mule):
            await client.request("POST", f"/api/tables/{table}/sit", {})
            await watch_table(client, table, follow=True)
        losing = Player(dumper, "indian13", 1)
        losing.bot = _Dumper(losing.bot)  # type: ignore[assignment]
        winning = Player(mule, "indian13", 2)
        winning.bot = _Keeper(winning.bot)  # type: ignore[assignment]
        await asyncio.gather(losing.play(table, games=3), winning.play(table, games=3))
        # Game 3 is over (the next one may have started already: nobody plays it).
        await settle(
            server.hub, lambda hub: not hub.table(table).playing() or hub.table(table).game_no > 3
        )
    url = db_url
    assert await asyncio.to_thread(cli.main, ["audit", "--flows", "--database", url]) == 0
    lines = capsys.readouterr().out.splitlines()
    top = lines[2].split()
    assert top[:2] == ["dumper", "mule"]
    net, games, private = int(top[2].replace(",", "")), int(top[5]), int(top[7].replace(",", ""))
    assert (net, games, private) == (3 * 20, 3, 3 * 20)
    assert await asyncio.to_thread(cli.main, ["audit", "--database", url]) == 0

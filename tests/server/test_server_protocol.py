"""The server does what docs/protocol.md says (issue 15 item 7): refused WebSockets are closed
with the documented close codes, every refusal has the documented error shape, the wire models
take no look-alike types, a buy-in the wallet cannot pay is refused; and every documented error
code and close code is produced by some real request. The tests whose answers come from stored
chips and accounts (the buy-in, every documented code) run on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from rummyhall import catalog
from rummyhall.client import ClientError, RoomClient
from rummyhall.economy.rooms import Rooms
from rummyhall.server.clock import FakeClock
from rummyhall.server.errors import RoomError
from rummyhall.server.hub import Hub
from rummyhall.server.table import TableActor
from server_kit import JSON, Running, fast_settings, running

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL = ROOT / "docs" / "protocol.md"

NESTED = "[" * 100_000 + "]" * 100_000
"""Deeper than any JSON parser recurses (Python's json raises RecursionError on it)."""


@pytest.fixture
async def server(tmp_path: Path) -> Running:  # type: ignore[misc]
    settings = fast_settings(tmp_path, f"sqlite+aiosqlite:///{tmp_path / 'p.db'}", bots=False)
    async with running(settings) as found:
        yield found


PATTI = "practice-patti-10-5p"
"""The room the tests sit at: guests play practice rooms only."""


def _ws_url(server: Running) -> str:
    return server.url.replace("http", "ws", 1) + "/ws"


async def _close_code(url: str, **options: object) -> int | None:
    """Open a WebSocket and read until the server closes it: the close code it sent."""
    async with connect(url, **options) as ws:  # type: ignore[arg-type]
        try:
            while True:
                await ws.recv()
        except ConnectionClosed as closed:
            return None if closed.rcvd is None else closed.rcvd.code
    return None


def _cookie(client: RoomClient) -> str:
    return "; ".join(f"{k}={v}" for k, v in client.http.cookies.items())


# --- (a) close codes instead of an HTTP 403 ------------------------------------------------------


async def test_a_refused_websocket_is_closed_with_the_documented_codes(server: Running) -> None:
    url = _ws_url(server)
    assert await _close_code(url) == 4401
    assert await _close_code(url, additional_headers={"Cookie": "rummyhall_session=nope"}) == 4401
    async with RoomClient(server.url) as client:
        await client.guest()
        cookie = _cookie(client)
        bad = await _close_code(
            url, additional_headers={"Cookie": cookie}, origin="http://evil.example"
        )
        assert bad == 4403
        # A bad Origin is refused before the cookie is looked at (no session needed to see it).
        assert await _close_code(url, origin="http://evil.example") == 4403


async def test_a_socket_is_served_past_the_routers_layers(server: Running) -> None:
    """A connection's whole life is one ASGI call, and every layer on its way keeps a coroutine
    alive as long as it is open (server/ws.py, DirectSockets): the endpoint is called by the
    middleware right inside the host check, with no router, route or exception-handling layer
    of the framework in between."""
    async with RoomClient(server.url) as client:
        await client.guest()
        await client.connect()
        assert (await client.send({"type": "ping"}))["type"] == "pong"
        chains = [_awaited_chain(task) for task in asyncio.all_tasks()]
        [chain] = [c for c in chains if "websocket_endpoint" in c]
        above = chain[: chain.index("websocket_endpoint")]
        assert above[-1] == "DirectSockets.__call__", chain
        layers = {
            "Router",
            "APIRouter",
            "WebSocketRoute",
            "ExceptionMiddleware",
            "websocket_session",
        }
        assert not [name for name in above if name.split(".")[0] in layers], chain
        assert not [name for name in above if "handling_exceptions" in name], chain


def _awaited_chain(task: asyncio.Task[Any]) -> list[str]:
    """The qualified names of a task's coroutines, from its own down to the innermost awaited."""
    names = []
    coroutine: Any = task.get_coro()
    while coroutine is not None and hasattr(coroutine, "cr_code"):
        names.append(coroutine.cr_code.co_qualname)
        coroutine = coroutine.cr_await
    return names


# --- (b) one error shape for every refusal -------------------------------------------------------


def _shape(response: httpx.Response) -> str:
    """The code of a refusal in the documented shape (and nothing else in the body)."""
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message"}, body
    assert isinstance(body["error"]["message"], str)
    code: str = body["error"]["code"]
    return code


async def test_every_http_refusal_has_the_error_shape(server: Running) -> None:
    async with httpx.AsyncClient(base_url=server.url) as http:
        headers = {"Content-Type": "application/json"}
        cases = [
            (http.post("/api/register", content=NESTED, headers=headers), 422, "bad_request"),
            (http.post("/api/register", content="{not json", headers=headers), 422, "bad_request"),
            (http.post("/api/register", content=b"\xff\xfe", headers=headers), 422, "bad_request"),
            (http.post("/api/register", json=[1, 2]), 422, "bad_request"),
            (http.get("/api/no-such-thing"), 404, "not_found"),
            (http.delete("/api/rooms"), 405, "method_not_allowed"),
            (http.get("/api/tables/x"), 422, "bad_request"),
            (http.get("/api/hands?limit=many"), 401, "not_signed_in"),
        ]
        for request, status, code in cases:
            response = await request
            assert (response.status_code, _shape(response)) == (status, code), response.text


async def test_deeply_nested_websocket_messages_are_bad_messages(server: Running) -> None:
    """Nesting deeper than the parser goes, or deep values where the schema has none, are
    ``bad_message`` like any other malformed message; the connection goes on."""
    async with RoomClient(server.url) as client:
        await client.guest()
        await client.connect()
        client.keep_received = True
        texts = (
            "[" * 4000 + "]" * 4000,
            '{"type": "ping", "cid": "n", "x": ' + "[" * 1000 + "]" * 1000 + "}",
            '{"type": "ping", "cid": ' + "[" * 2000 + "]" * 2000 + "}",
            '{"type": "act", "table": 1, "action": ' + "[" * 1000 + "]" * 1000 + "}",
        )
        for text in texts:
            await client.send_raw(text)
        answer = await client.send({"type": "ping", "cid": "after"})
        assert answer["type"] == "pong"  # answers keep the order of the messages
        refused = [m["code"] for m in client.received if m["type"] == "error"]
        assert refused == ["bad_message"] * len(texts)


# --- (c) strict types ------------------------------------------------------------------------


async def test_look_alike_types_are_refused(server: Running) -> None:
    """A string is not a number and a boolean is not a count: ``"seat": "1"`` and ``"buy_in":
    true`` are schema errors, over HTTP and WebSocket alike (JSON numbers are still ints)."""
    async with RoomClient(server.url) as client:
        await client.guest()
        created = await client.request("POST", "/api/tables", {"room": PATTI})
        table = created["table"]["id"]
        for body in (
            {"seat": "1"},
            {"buy_in": True},
            {"buy_in": 500.0},
            {"auto_rebuy": 1},
            {"another": "true"},
        ):
            with pytest.raises(ClientError) as refused:
                await client.request("POST", f"/api/tables/{table}/sit", body)
            assert (refused.value.code, refused.value.status) == ("bad_request", 422), body
        wrong: list[tuple[str, JSON]] = [
            ("/api/tables", {"room": PATTI, "private": 1}),
            ("/api/quick-seat", {"room": PATTI, "another": "yes"}),
            (f"/api/tables/{table}/auto-rebuy", {"on": 0}),
            ("/api/check", {"groups": [["7H"]], "joker": 5}),
        ]
        for path, wrong_body in wrong:
            with pytest.raises(ClientError) as refused:
                await client.request("POST", path, wrong_body)
            assert refused.value.code == "bad_request", (path, wrong_body)
        await client.connect()
        for message in (
            {"type": "sit", "table": table, "seat": "1"},
            {"type": "sit", "table": table, "buy_in": True},
            {"type": "sit", "table": str(table)},
            {"type": "watch", "table": table, "since": "3"},
            {"type": "watch", "table": True},
        ):
            with pytest.raises(ClientError) as refused:
                await client.send(dict(message))
            assert refused.value.code == "bad_message", message
        assert (await client.request("GET", "/api/me"))["tables"] == []
        # Plain JSON numbers and booleans are what the schema wants.
        answer = await client.send({"type": "sit", "table": table, "seat": 2, "auto_rebuy": True})
        assert answer["seat"] == 2


# --- (d) a buy-in the wallet cannot pay ----------------------------------------------------------


async def test_a_buy_in_above_the_wallet_is_refused(tmp_path: Path, db_url: str) -> None:
    settings = fast_settings(tmp_path, db_url, bots=False)
    async with running(settings) as server, RoomClient(server.url) as client:
        await client.guest()
        wallet = await client.practice()  # a guest's wallet: practice chips
        created = await client.request("POST", "/api/tables", {"room": PATTI})
        table = created["table"]["id"]
        with pytest.raises(ClientError) as refused:
            await client.request("POST", f"/api/tables/{table}/sit", {"buy_in": wallet + 1})
        assert (refused.value.code, refused.value.status) == ("insufficient_chips", 409)
        assert await client.practice() == wallet  # nothing moved
        await client.connect()
        with pytest.raises(ClientError) as refused:
            await client.send({"type": "sit", "table": table, "buy_in": wallet + 1})
        assert refused.value.code == "insufficient_chips"
        # The whole wallet, asked for as such, is fine.
        seated = await client.request("POST", f"/api/tables/{table}/sit", {"buy_in": wallet})
        assert seated["table"] == table
        assert await client.practice() == 0


# --- every documented code is produced by some request ------------------------------------------

HOUSE = 0
HTTP, WS = "HTTP", "WS"
Seen = tuple[str, str | int]
"""How a provoking request was answered: (HTTP or WS, the error code or the close code)."""


def documented_codes() -> dict[str, set[str]]:
    """docs/protocol.md's table of error codes (parsed as tests/web/test_web_files.py does): each
    code with the transports its row names."""
    table = PROTOCOL.read_text(encoding="utf-8").split("| code | where | meaning |", 1)[1]
    table = table.split("\n\n", 1)[0]
    codes: dict[str, set[str]] = {}
    for row in table.splitlines()[2:]:
        cells = row.split("|")
        first, where, meaning = cells[1], cells[2].strip(), cells[3]
        transports = {HTTP, WS} if where == "both" else {where}
        for code in re.findall(r"`([a-z_]+)`", first if "`" in first else meaning):
            codes[code] = transports
    return codes


def documented_close_codes() -> set[int]:
    """The WebSocket close codes docs/protocol.md names (ours are 4000-4999)."""
    text = PROTOCOL.read_text(encoding="utf-8")
    return {int(code) for code in re.findall(r"\b(4\d{3})\b", text)}


class HeldClock(FakeClock):
    """A fake clock that can also jump without running the timers that fall due, as a busy
    server's late timer does: the only way an action can reach a game after its deadline."""

    def jump(self, ms: int) -> None:
        self._now += ms


@dataclass
class Kit:
    server: Running
    clock: HeldClock
    opened: list[RoomClient] = field(default_factory=list)

    async def guest(self) -> RoomClient:
        client = RoomClient(self.server.url)
        self.opened.append(client)
        await client.guest()
        return client

    async def table(self, client: RoomClient, room: str = PATTI) -> int:
        created = await client.request("POST", "/api/tables", {"room": room})
        return int(created["table"]["id"])

    async def duel(self) -> tuple[RoomClient, RoomClient, int, JSON]:
        """Two people at a 2-seat Patti table with its first game dealt: (the one to move, the
        other, the table, the message that showed the turn)."""
        one, two = await self.guest(), await self.guest()
        table = await self.table(one, DUEL)
        for seat, client in ((1, one), (2, two)):
            await client.request("POST", f"/api/tables/{table}/sit", {"seat": seat})
            await client.connect()
            await client.watch(table)

        def turn(message: JSON) -> bool:
            awaited = (message.get("view") or {}).get("awaited", [])
            return any(a["seat"] != HOUSE and a["deadline"] is not None for a in awaited)

        shown = await one.wait_for(table, turn)
        mover = next(a["seat"] for a in shown["view"]["awaited"] if a["seat"] != HOUSE)
        return (one, two, table, shown) if mover == 1 else (two, one, table, shown)

    async def ws_url(self) -> str:
        return _ws_url(self.server)


DUEL = "practice-patti-10-2p"


async def _http(request: Coroutine[Any, Any, Any]) -> Seen:
    try:
        await request
    except ClientError as error:
        return HTTP, error.code
    return HTTP, "(accepted)"


async def _ws(request: Coroutine[Any, Any, Any]) -> Seen:
    try:
        await request
    except ClientError as error:
        return WS, error.code
    return WS, "(accepted)"


async def _raw(response: Coroutine[Any, Any, httpx.Response]) -> Seen:
    return HTTP, _shape(await response)


# Each coroutine makes one real request that the documentation says is refused with that code.


async def _bad_request(kit: Kit) -> Seen:
    async with httpx.AsyncClient(base_url=kit.server.url) as http:
        return await _raw(http.post("/api/register", json={"name": 7, "password": "long enough"}))


async def _not_found(kit: Kit) -> Seen:
    async with httpx.AsyncClient(base_url=kit.server.url) as http:
        return await _raw(http.get("/api/nothing-here"))


async def _method_not_allowed(kit: Kit) -> Seen:
    async with httpx.AsyncClient(base_url=kit.server.url) as http:
        return await _raw(http.put("/api/rooms"))


async def _bad_message(kit: Kit) -> Seen:
    client = await kit.guest()
    await client.connect()
    return await _ws(client.send({"type": "sit", "table": "1"}))


async def _ws_errors(client: RoomClient, texts: list[str], code: str) -> Seen:
    """Send ``texts`` as they are and wait for an error ``code`` among the answers."""
    client.keep_received = True
    for text in texts:
        await client.send_raw(text)
    for _ in range(500):
        found = [m for m in client.received if m["type"] == "error" and m["code"] == code]
        if found:
            return WS, code
        await asyncio.sleep(0.01)
    return WS, ",".join(str(m.get("code", m["type"])) for m in client.received) or "(nothing)"


async def _too_large(kit: Kit) -> Seen:
    client = await kit.guest()
    await client.connect()
    return await _ws_errors(client, ["x" * 10_000], "too_large")


async def _rate_limited(kit: Kit) -> Seen:
    client = await kit.guest()
    await client.connect()
    return await _ws_errors(client, ['{"type": "ping"}'] * (RATE_BURST + 5), "rate_limited")


async def _not_signed_in(kit: Kit) -> Seen:
    async with RoomClient(kit.server.url) as client:
        return await _http(client.request("GET", "/api/me"))


async def _bad_name(kit: Kit) -> Seen:
    async with RoomClient(kit.server.url) as client:
        return await _http(client.register("no spaces!", "long enough"))


async def _weak_password(kit: Kit) -> Seen:
    async with RoomClient(kit.server.url) as client:
        return await _http(client.register("weakling", "short"))


async def _name_taken(kit: Kit) -> Seen:
    async with RoomClient(kit.server.url) as one, RoomClient(kit.server.url) as two:
        await one.register("taken", "long enough")
        return await _http(two.register("TAKEN", "long enough"))


async def _bad_login(kit: Kit) -> Seen:
    async with RoomClient(kit.server.url) as one, RoomClient(kit.server.url) as two:
        await one.register("forgetful", "long enough")
        return await _http(two.login("forgetful", "wrong password"))


async def _unknown_room(kit: Kit) -> Seen:
    client = await kit.guest()
    return await _http(client.request("POST", "/api/tables", {"room": "no-such-room"}))


async def _unknown_table(kit: Kit) -> Seen:
    client = await kit.guest()
    await client.connect()
    return await _ws(client.send({"type": "sit", "table": 999_999}))


async def _unknown_invite(kit: Kit) -> Seen:
    client = await kit.guest()
    return await _http(client.request("GET", "/api/invites/no-such-invite"))


async def _unknown_hand(kit: Kit) -> Seen:
    client = await kit.guest()
    return await _http(client.request("GET", "/api/hands/999999"))


def _admin_headers(kit: Kit) -> dict[str, str]:
    """The operator's token, where ``rummyhall admin`` reads it: the data folder."""
    settings = kit.server.app.state.settings
    token = (settings.data_dir / "admin.token").read_text().strip()
    return {"Authorization": f"Bearer {token}"}


async def _unknown_account(kit: Kit) -> Seen:
    async with httpx.AsyncClient(base_url=kit.server.url, headers=_admin_headers(kit)) as http:
        body = {"name": "nobody-at-all", "amount": 5}
        return await _raw(http.post("/api/admin/grant", json=body))


async def _order_conflict(kit: Kit) -> Seen:
    """An order id paid to one account, then reported for another."""
    names = ["buyer-1", "buyer-2"]
    for name in names:
        client = RoomClient(kit.server.url)
        kit.opened.append(client)
        await client.register(name, "long enough")
    async with httpx.AsyncClient(base_url=kit.server.url, headers=_admin_headers(kit)) as http:
        body = {"order_id": "order-7", "name": names[0], "gold": 5}
        assert (await http.post("/api/admin/purchase", json=body)).status_code == 200
        return await _raw(http.post("/api/admin/purchase", json={**body, "name": names[1]}))


async def _forbidden(kit: Kit) -> Seen:
    async with httpx.AsyncClient(base_url=kit.server.url) as http:
        return await _raw(http.get("/api/admin/tables"))


async def _not_a_node(kit: Kit) -> Seen:
    """One process alone has nobody to hand its tables to (tests/server/test_cluster_drain.py
    drains a node of several)."""
    token = kit.server.app.state.admin_token
    async with httpx.AsyncClient(base_url=kit.server.url) as http:
        return await _raw(
            http.post(
                "/api/admin/drain",
                json={"node": "a"},
                headers={"Authorization": f"Bearer {token}"},
            )
        )


async def _already_seated(kit: Kit) -> Seen:
    client = await kit.guest()
    table = await kit.table(client)
    await client.request("POST", f"/api/tables/{table}/sit", {})
    await client.connect()
    return await _ws(client.send({"type": "sit", "table": table}))


async def _seated_elsewhere(kit: Kit) -> Seen:
    client = await kit.guest()
    first, second = await kit.table(client), await kit.table(client)
    await client.request("POST", f"/api/tables/{first}/sit", {})
    return await _http(client.request("POST", f"/api/tables/{second}/sit", {}))


async def _too_many_tables(kit: Kit) -> Seen:
    client = await kit.guest()
    limit = kit.server.hub.settings.tables_per_account
    for _ in range(limit):
        await kit.table(client)
    return await _http(client.request("POST", "/api/tables", {"room": PATTI}))


async def _table_full(kit: Kit) -> Seen:
    _, _, table, _ = await kit.duel()
    late = await kit.guest()
    return await _http(late.request("POST", f"/api/tables/{table}/sit", {}))


async def _seat_taken(kit: Kit) -> Seen:
    one, two = await kit.guest(), await kit.guest()
    table = await kit.table(one)
    await one.request("POST", f"/api/tables/{table}/sit", {"seat": 3})
    await two.connect()
    return await _ws(two.send({"type": "sit", "table": table, "seat": 3}))


async def _bad_seat(kit: Kit) -> Seen:
    client = await kit.guest()
    table = await kit.table(client)
    return await _http(client.request("POST", f"/api/tables/{table}/sit", {"seat": 9}))


async def _bad_buy_in(kit: Kit) -> Seen:
    client = await kit.guest()
    table = await kit.table(client)
    return await _http(client.request("POST", f"/api/tables/{table}/sit", {"buy_in": 5}))


async def _insufficient_chips(kit: Kit) -> Seen:
    client = await kit.guest()
    table = await kit.table(client)
    body = {"buy_in": await client.practice() + 1}
    return await _http(client.request("POST", f"/api/tables/{table}/sit", body))


async def _not_seated(kit: Kit) -> Seen:
    client = await kit.guest()
    table = await kit.table(client)
    await client.connect()
    return await _ws(client.send({"type": "leave", "table": table}))


async def _no_game(kit: Kit) -> Seen:
    client = await kit.guest()
    table = await kit.table(client)
    await client.request("POST", f"/api/tables/{table}/sit", {})
    await client.connect()
    return await _ws(client.act(table, "chaal"))


async def _busy(kit: Kit) -> Seen:
    """Quick-seat gives up after losing five races for a seat; here every race is lost (the
    table answers seat_taken as when someone sat there directly a moment before)."""

    async def lost(*args: Any, **kwargs: Any) -> int:
        raise RoomError("seat_taken", "someone was quicker")

    client = await kit.guest()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(TableActor, "sit", lost)
        return await _http(client.quick_seat(PATTI))


async def _practice_only(kit: Kit) -> Seen:
    """A guest at a room of real chips."""
    client = await kit.guest()
    return await _http(client.quick_seat("patti-10-5p"))


async def _refill_not_needed(kit: Kit) -> Seen:
    """A guest with all its practice chips asks for more."""
    client = await kit.guest()
    return await _http(client.refill_practice())


async def _player(kit: Kit, name: str) -> RoomClient:
    client = RoomClient(kit.server.url)
    kit.opened.append(client)
    await client.register(name, "long enough")
    return client


async def _room_locked(kit: Kit) -> Seen:
    """A new player (level 1) at a Tundra room."""
    client = await _player(kit, "newcomer")
    return await _http(client.quick_seat("rummy51-20-4p"))


async def _bonus_claimed(kit: Kit) -> Seen:
    client = await _player(kit, "greedy")
    await client.request("POST", "/api/daily-bonus")
    return await _http(client.request("POST", "/api/daily-bonus"))


async def _unknown_board(kit: Kit) -> Seen:
    client = await kit.guest()
    return await _http(client.request("GET", "/api/leaderboard?board=game:chess"))


async def _bad_cursor(kit: Kit) -> Seen:
    client = await kit.guest()
    return await _http(client.request("GET", "/api/leaderboard?after=not-a-cursor"))


async def _unknown_league(kit: Kit) -> Seen:
    client = await kit.guest()
    return await _http(client.request("GET", "/api/league?league=moon"))


async def _internal(kit: Kit) -> Seen:
    """A bug, planted: the lobby fails with an exception nobody expected."""

    def bug(*args: Any, **kwargs: Any) -> list[JSON]:
        raise RuntimeError("a planted bug")

    client = await kit.guest()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Hub, "lobby", bug)
        return await _http(client.request("GET", "/api/tables"))


async def _game(kit: Kit, who: str, action: str) -> Seen:
    mover, other, table, _ = await kit.duel()
    return await _ws((mover if who == "mover" else other).act(table, action))


async def _too_late(kit: Kit) -> Seen:
    mover, _, table, shown = await kit.duel()
    deadline = next(a["deadline"] for a in shown["view"]["awaited"] if a["seat"] != HOUSE)
    kit.clock.jump(deadline - kit.clock.now() + 1)
    return await _ws(mover.act(table, "chaal"))


async def _closed_with(kit: Kit, headers: dict[str, str], origin: str | None) -> Seen:
    code = await _close_code(await kit.ws_url(), additional_headers=headers, origin=origin)
    return WS, code if code is not None else "(no close code)"


async def _close_4401(kit: Kit) -> Seen:
    return await _closed_with(kit, {"Cookie": "rummyhall_session=forged"}, None)


async def _close_4403(kit: Kit) -> Seen:
    client = await kit.guest()
    return await _closed_with(kit, {"Cookie": _cookie(client)}, "https://elsewhere.example")


async def _close_4429(kit: Kit) -> Seen:
    client = await kit.guest()
    async with connect(
        await kit.ws_url(), additional_headers={"Cookie": _cookie(client)}, max_queue=None
    ) as ws:
        for _ in range(6 * RATE_BURST):
            await ws.send('{"type": "ping"}')
        try:
            while True:
                await ws.recv()
        except ConnectionClosed as closed:
            return WS, closed.rcvd.code if closed.rcvd is not None else "(no close code)"


PROVOKE: dict[str | int, Callable[[Kit], Coroutine[Any, Any, Seen]]] = {
    "bad_request": _bad_request,
    "not_found": _not_found,
    "method_not_allowed": _method_not_allowed,
    "bad_message": _bad_message,
    "too_large": _too_large,
    "rate_limited": _rate_limited,
    "not_signed_in": _not_signed_in,
    "bad_name": _bad_name,
    "weak_password": _weak_password,
    "name_taken": _name_taken,
    "bad_login": _bad_login,
    "unknown_room": _unknown_room,
    "unknown_table": _unknown_table,
    "unknown_invite": _unknown_invite,
    "unknown_hand": _unknown_hand,
    "unknown_account": _unknown_account,
    "order_conflict": _order_conflict,
    "forbidden": _forbidden,
    "not_a_node": _not_a_node,
    "already_seated": _already_seated,
    "seated_elsewhere": _seated_elsewhere,
    "too_many_tables": _too_many_tables,
    "table_full": _table_full,
    "seat_taken": _seat_taken,
    "bad_seat": _bad_seat,
    "bad_buy_in": _bad_buy_in,
    "insufficient_chips": _insufficient_chips,
    "not_seated": _not_seated,
    "no_game": _no_game,
    "busy": _busy,
    "practice_only": _practice_only,
    "refill_not_needed": _refill_not_needed,
    "room_locked": _room_locked,
    "bonus_claimed": _bonus_claimed,
    "unknown_board": _unknown_board,
    "bad_cursor": _bad_cursor,
    "unknown_league": _unknown_league,
    "internal": _internal,
    "bad_action": lambda kit: _game(kit, "mover", "fly away"),
    "not_your_turn": lambda kit: _game(kit, "other", "chaal"),
    "illegal_action": lambda kit: _game(kit, "mover", "sideshow"),  # two players: show instead
    "invalid_cards": lambda kit: _game(kit, "mover", "exchange open ZZ"),
    "too_early": lambda kit: _game(kit, "mover", "timeout"),
    "too_late": _too_late,
    4401: _close_4401,
    4403: _close_4403,
    4429: _close_4429,
}

UNTESTABLE: dict[str | int, str] = {
    "table_closed": "only between the hub's lookup of a table and the table's queue, where no"
    " request waits (a closed table has already left the hub: unknown_table)",
    "game_over": "the table answers no_game once its game is over, before the engine is asked",
    "unknown_seat": "the table asks the engine only for seats of the game in play, all of which"
    " the engine knows (others get no_game)",
    4408: "needs the kernel's socket buffers full; tests/server/test_server_sending.py closes a"
    " reader too far behind (test_a_reader_too_far_behind_is_closed)",
    "table_moved": "needs several nodes, one that lost a table; tests/server/"
    "test_cluster_sigstop.py pauses a node past its lease and resumes it",
    4503: "the close that follows table_moved (test_cluster_sigstop.py checks the code), and a"
    " drain's (test_cluster_drain.py)",
    "node_draining": "needs a node of several that drains; tests/server/test_cluster_drain.py"
    " quick-seats at a drained node",
    "wrong_node": "needs a node of several; tests/server/test_cluster_drain.py drains node b at"
    " node a's address",
}

RATE_BURST = 12


async def test_every_documented_code_is_produced_by_some_request(
    tmp_path: Path, db_url: str
) -> None:
    codes = documented_codes()
    closes = documented_close_codes()
    assert len(codes) > 30 and {4401, 4403, 4408, 4429} <= closes
    documented: set[str | int] = {*codes, *closes}
    assert documented - PROVOKE.keys() - UNTESTABLE.keys() == set(), "no request provokes these"
    assert PROVOKE.keys() & UNTESTABLE.keys() == set()
    assert (PROVOKE.keys() | UNTESTABLE.keys()) - documented == set(), "not documented"

    clock = HeldClock()
    settings = fast_settings(
        tmp_path,
        db_url,
        bots=False,
        rate_per_second=2.0,
        rate_burst=RATE_BURST,
    )
    patti = {room.key: room for room in catalog.rooms()}["practice-patti-10-4p"]
    rooms = Rooms((*catalog.rooms(), replace(patti, key=DUEL, seats=2)))
    wrong = {}
    async with running(settings, clock=clock, rooms=rooms) as server:
        # too_late moves the clock: it goes last
        for code, provoke in sorted(PROVOKE.items(), key=lambda item: item[0] == "too_late"):
            kit = Kit(server, clock)
            try:
                async with asyncio.timeout(30):
                    transport, seen = await provoke(kit)
            finally:
                for client in kit.opened:
                    await client.close()
            where = codes.get(code, {WS}) if isinstance(code, str) else {WS}
            if seen != code or transport not in where:
                wrong[code] = f"{transport} {seen}"
    assert wrong == {}

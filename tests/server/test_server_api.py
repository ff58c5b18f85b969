"""The HTTP API and the WebSocket handshake over real connections, on SQLite and PostgreSQL
(the transport-only tests, flooding and the admin command line, on SQLite)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import random
import time
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from rummyhall.client import ClientError, RoomClient
from rummyhall.economy import tiers
from rummyhall.economy.audit import audit_database
from rummyhall.server.metrics import LAG_PROBE_S, Metrics
from server_kit import JSON, Running, fast_settings, promote, running, seat_guest, settle


@pytest.fixture
async def server(tmp_path: Path, db_url: str) -> Running:  # type: ignore[misc]
    """A server without bots, on each database in turn."""
    settings = fast_settings(tmp_path, db_url, bots=False)
    async with running(settings) as found:
        yield found


async def test_health_openapi_and_metrics(server: Running) -> None:
    async with httpx.AsyncClient(base_url=server.url) as http:
        assert (await http.get("/healthz")).json() == {"ok": True, "tables": 0}
        paths = (await http.get("/openapi.json")).json()["paths"]
        assert {"/api/register", "/api/quick-seat", "/api/hands/{hand_id}"} <= set(paths)
        # (the operator's only: tests/server/test_server_auth.py checks the refusal)
        token = (server.app.state.settings.data_dir / "admin.token").read_text().strip()
        metrics = (await http.get("/metrics", headers={"Authorization": f"Bearer {token}"})).text
        assert "rummyhall_live_tables" in metrics
        assert "rummyhall_action_seconds_bucket" in metrics
        # The cycle collector's pauses are timed while the server runs (in this process).
        gc.collect()
        metrics = (await http.get("/metrics", headers={"Authorization": f"Bearer {token}"})).text
        assert 'rummyhall_gc_pause_seconds_count{generation="2"}' in metrics
        assert "rummyhall_gc_frozen_objects" in metrics  # (0 here: the test servers freeze nothing)
        # A guest's account is the table writer's work: a commit, a job, its wait.
        writer = _samples(metrics, "rummyhall_writer_")
        assert (await http.post("/api/guest")).status_code == 201
        metrics = (await http.get("/metrics", headers={"Authorization": f"Bearer {token}"})).text
        grown = _samples(metrics, "rummyhall_writer_")
        for name in ("commits_total", "jobs_total", "wait_seconds_count"):
            key = f"rummyhall_writer_{name}"
            assert grown[key] >= writer.get(key, 0.0) + 1, key
        # (on SQLite its COMMIT, on the commit thread, is timed too)
        syncs = _samples(metrics, "rummyhall_sqlite_commit_seconds_count")
        assert syncs["rummyhall_sqlite_commit_seconds_count"] >= (
            server.app.state.db.dialect == "sqlite"
        )
        assert _samples(metrics, "process_cpu_seconds_total")["process_cpu_seconds_total"] > 0


def _samples(metrics: str, prefix: str) -> dict[str, float]:
    return {
        line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
        for line in metrics.splitlines()
        if line.startswith(prefix)
    }


async def test_a_blocked_event_loop_shows_as_its_lag() -> None:
    metrics = Metrics()
    metrics.watch_loop()
    metrics.watch_loop()  # (once is enough: a second watch does not time twice)
    try:
        time.sleep(LAG_PROBE_S * 3)  # the loop does nothing else meanwhile
        while _samples(metrics.render().decode(), "rummyhall_loop_lag_seconds_count") == {
            "rummyhall_loop_lag_seconds_count": 0.0
        }:
            await asyncio.sleep(LAG_PROBE_S / 10)
        lag = _samples(metrics.render().decode(), "rummyhall_loop_lag_seconds_")
        # (the timer was due LAG_PROBE_S after the watch began, and ran once the loop was free)
        assert lag["rummyhall_loop_lag_seconds_count"] == 1
        assert lag["rummyhall_loop_lag_seconds_sum"] >= LAG_PROBE_S * 1.5
    finally:
        metrics.unwatch_loop()


def test_gc_pauses_are_timed_only_while_watched() -> None:
    metrics = Metrics()
    metrics.watch_gc()
    metrics.watch_gc()  # (once is enough: a second watch does not count twice)
    try:
        before = _full_pauses(metrics)
        gc.collect()
        after = _full_pauses(metrics)
        assert after[0] == before[0] + 1 and after[1] > before[1]
    finally:
        metrics.unwatch_gc()
    gc.collect()
    assert _full_pauses(metrics) == after


def _full_pauses(metrics: Metrics) -> tuple[float, float]:
    """(how many, seconds in all) of the full collections timed."""
    samples = {
        line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
        for line in metrics.render().decode().splitlines()
        if line.startswith("rummyhall_gc_pause_seconds_")
    }
    label = '{generation="2"}'
    return (
        samples.get(f"rummyhall_gc_pause_seconds_count{label}", 0.0),
        samples.get(f"rummyhall_gc_pause_seconds_sum{label}", 0.0),
    )


async def test_docs_page_loads_nothing_from_outside(server: Running) -> None:
    """/docs names only the room's own files (a CDN would leave it blank offline)."""
    async with httpx.AsyncClient(base_url=server.url) as http:
        page = (await http.get("/docs")).text
        assert "http://" not in page and "https://" not in page
        for asset in ("/docs-assets/swagger-ui-bundle.js", "/docs-assets/swagger-ui.css"):
            assert asset in page
            found = await http.get(asset)
            assert found.status_code == 200 and len(found.content) > 10_000, asset


async def test_session_probe_answers_200_signed_in_or_not(server: Running) -> None:
    async with httpx.AsyncClient(base_url=server.url) as http:
        probe = await http.get("/api/session")
        assert (probe.status_code, probe.json()) == (200, {"signed_in": False})
        await http.post("/api/register", json={"name": "probe", "password": "long enough"})
        probe = await http.get("/api/session")
        assert probe.json() == {"signed_in": True, "name": "probe", "guest": False}
        await http.post("/api/logout")
        assert (await http.get("/api/session")).json() == {"signed_in": False}


async def test_accounts_sessions_and_cookies(server: Running) -> None:
    async with httpx.AsyncClient(base_url=server.url) as http:
        response = await http.post(
            "/api/register", json={"name": "asha", "password": "long enough"}
        )
        assert response.status_code == 201
        assert response.json()["chips"] == 10_000
        cookie = response.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie
        assert (await http.get("/api/me")).json()["name"] == "asha"
        assert (await http.post("/api/logout")).status_code == 200
        gone = await http.get("/api/me")
        assert gone.status_code == 401
        assert gone.json()["error"]["code"] == "not_signed_in"

    async with httpx.AsyncClient(base_url=server.url) as http:
        taken = await http.post("/api/register", json={"name": "ASHA", "password": "long enough"})
        assert (taken.status_code, taken.json()["error"]["code"]) == (409, "name_taken")
        bad = await http.post("/api/login", json={"name": "asha", "password": "wrong password"})
        assert (bad.status_code, bad.json()["error"]["code"]) == (401, "bad_login")
        weak = await http.post("/api/register", json={"name": "bharat", "password": "short"})
        assert weak.json()["error"]["code"] == "weak_password"
        schema = await http.post("/api/register", json={"name": "x"})
        assert (schema.status_code, schema.json()["error"]["code"]) == (422, "bad_request")
        good = await http.post("/api/login", json={"name": "asha", "password": "long enough"})
        assert good.status_code == 200


async def test_websocket_needs_a_session_and_our_origin(server: Running) -> None:
    """Refusals complete the handshake and close with our codes (docs/protocol.md): a browser
    sees the close code, never an HTTP status."""
    ws_url = server.url.replace("http", "ws") + "/ws"
    async with connect(ws_url) as refused:
        with pytest.raises(ConnectionClosed) as closed:
            await refused.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401

    async with RoomClient(server.url) as client:
        await client.guest()
        cookie = "; ".join(f"{k}={v}" for k, v in client.http.cookies.items())
        async with connect(
            ws_url, additional_headers={"Cookie": cookie}, origin="http://evil.example"
        ) as foreign:  # type: ignore[arg-type]
            with pytest.raises(ConnectionClosed) as closed:
                await foreign.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
        own = server.url  # the server's own origin is fine, as is none (not a browser)
        async with connect(ws_url, additional_headers={"Cookie": cookie}, origin=own) as ws:  # type: ignore[arg-type]
            await ws.send(json.dumps({"type": "ping", "cid": "p"}))
            assert json.loads(await ws.recv()) == {"type": "pong", "cid": "p"}


async def test_bad_messages_get_coded_errors_and_change_nothing(server: Running) -> None:
    async with RoomClient(server.url) as client:
        table, _, before = await seat_guest(client, "practice-patti-10-5p")
        cases = {
            "not json": "bad_message",
            "[1, 2]": "bad_message",
            '{"type": "fly"}': "bad_message",
            '{"type": "act", "table": "x", "action": "chaal"}': "bad_message",
            '{"type": "act", "table": 1, "action": "chaal", "extra": 1}': "bad_message",
            json.dumps(
                {"type": "act", "table": 999, "action": "chaal", "cid": "a"}
            ): "unknown_table",
            json.dumps({"type": "act", "table": table, "action": "chaal", "cid": "b"}): "no_game",
            json.dumps({"type": "sit", "table": table, "cid": "c"}): "already_seated",
            "x" * 10_000: "too_large",
        }
        for text, code in cases.items():
            message = json.loads(text) if text.startswith("{") else None
            cid = message.get("cid") if isinstance(message, dict) else None
            if cid is not None:
                with pytest.raises(ClientError) as refused:
                    await client.send(message)
                assert refused.value.code == code, text
            else:
                await client.send_raw(text)
                answer = await client.send({"type": "ping"})  # answers arrive in order
                assert answer["type"] == "pong"
        after = await client.watch(table)
        assert after["seq"] == before["seq"]
        assert after["info"] == before["info"]


async def test_text_and_numbers_the_database_cannot_store_change_nothing(
    server: Running,
) -> None:
    """Names with a NUL (PostgreSQL refuses such text) and ids beyond 64 bits (both databases
    refuse them) are answered like any name or id that does not exist; these were ``internal``
    errors once."""
    token = (server.app.state.settings.data_dir / "admin.token").read_text().strip()
    async with RoomClient(server.url) as client, httpx.AsyncClient(base_url=server.url) as http:
        me = await client.register("nul-test", "long enough")
        for name in ("nul-test\x00", "a\x00b", "\x00"):
            login = await http.post("/api/login", json={"name": name, "password": "long enough"})
            assert (login.status_code, login.json()["error"]["code"]) == (401, "bad_login")
            made = await http.post("/api/register", json={"name": name, "password": "x" * 12})
            assert (made.status_code, made.json()["error"]["code"]) == (400, "bad_name")
            granted = await http.post(
                "/api/admin/grant",
                json={"name": name, "amount": 5},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert (granted.status_code, granted.json()["error"]["code"]) == (
                404,
                "unknown_account",
            )
        for hand in (2**63, 2**64, -(2**63) - 1, 0, -1):
            for path in (f"/api/hands/{hand}", f"/api/hands/{hand}/replay"):
                with pytest.raises(ClientError) as missing:
                    await client.request("GET", path)
                assert (missing.value.code, missing.value.status) == ("unknown_hand", 404), path
    report = await audit_database(server.app.state.settings.database_url)
    assert report.problems == []
    assert report.minted == me["chips"]  # the one signup; no grant landed anywhere


async def test_lobby_private_tables_and_seats(server: Running) -> None:
    async with RoomClient(server.url) as one, RoomClient(server.url) as two:
        await one.guest()
        await two.guest()
        lobby = await one.request("GET", "/api/rooms")
        rooms = lobby["rooms"]
        assert {"indian13", "patti"} <= {room["game"] for room in rooms}
        assert {room["currency"] for room in rooms} == {"chips", "practice", "gold"}
        # Every silver room has its gold twin: the same room, played with gold chips.
        by_key = {room["key"]: room for room in rooms}
        for room in rooms:
            if room["currency"] == "chips":
                twin = by_key[f"gold-{room['key']}"]
                assert twin == {**room, "key": f"gold-{room['key']}", "currency": "gold"}
        assert lobby["currencies"]["gold"] == {"label": "gold chips", "real": True}
        assert lobby["currencies"]["practice"] == {"label": "practice chips", "real": False}
        created = await one.request(
            "POST",
            "/api/tables",
            {"room": "practice-indian13-classic-points-1-6p", "private": True},
        )
        invite = created["invite"]
        table = created["table"]["id"]
        assert (await one.request("GET", "/api/tables"))["tables"] == []  # private: not listed
        found = await two.request("GET", f"/api/invites/{invite}")
        assert found["table"]["id"] == table
        assert (await one.request("POST", f"/api/tables/{table}/sit", {"seat": 3}))["seat"] == 3
        with pytest.raises(ClientError) as taken:
            await two.request("POST", f"/api/tables/{table}/sit", {"seat": 3})
        assert taken.value.code == "seat_taken"
        with pytest.raises(ClientError) as low:
            await two.request("POST", f"/api/tables/{table}/sit", {"buy_in": 5})
        assert low.value.code == "bad_buy_in"
        assert (await two.request("POST", f"/api/tables/{table}/sit", {}))["seat"] == 1
        left = await two.request("POST", f"/api/tables/{table}/leave")
        assert left["after_game"] is False
        assert await two.practice() == 10_000
        with pytest.raises(ClientError) as unknown:
            await one.request("GET", "/api/invites/nope")
        assert unknown.value.code == "unknown_invite"


async def test_one_seat_for_many_at_once(server: Running) -> None:
    """Many players rush for the same seat: exactly one gets it, the others get seat_taken, and
    no chips are lost."""
    clients = [RoomClient(server.url) for _ in range(12)]
    try:
        for client in clients:
            await client.guest()
        created = await clients[0].request(
            "POST", "/api/tables", {"room": "practice-indian13-classic-points-1-6p"}
        )
        table = created["table"]["id"]
        answers = await asyncio.gather(
            *(c.request("POST", f"/api/tables/{table}/sit", {"seat": 2}) for c in clients),
            return_exceptions=True,
        )
        won = [a for a in answers if isinstance(a, dict)]
        lost = [a for a in answers if isinstance(a, ClientError)]
        assert len(won) == 1 and len(lost) == 11
        assert {error.code for error in lost} == {"seat_taken"}
    finally:
        for client in clients:
            await client.close()
    report = await audit_database(server.app.state.settings.database_url)
    assert report.problems == []


async def test_a_crowd_quick_seats_at_once(server: Running) -> None:
    """Many players press quick-seat in the same instant: every one of them gets a seat, and the
    crowd fills tables one after another instead of racing for the same seat."""
    clients = [RoomClient(server.url) for _ in range(18)]
    try:
        for client in clients:
            await client.guest()
        seats = await asyncio.gather(*(c.quick_seat("practice-patti-10-4p") for c in clients))
        by_table: dict[int, list[int]] = {}
        for table, seat in seats:
            by_table.setdefault(table, []).append(seat)
        assert sorted(len(s) for s in by_table.values()) == [2, 4, 4, 4, 4]
        assert all(len(set(s)) == len(s) for s in by_table.values())
    finally:
        for client in clients:
            await client.close()
    report = await audit_database(server.app.state.settings.database_url)
    assert report.problems == []


async def test_the_same_chips_cannot_be_spent_twice(server: Running) -> None:
    """A player whose wallet covers one buy-in tries to sit at many tables at once."""
    async with RoomClient(server.url) as rich, RoomClient(server.url) as player:
        for client, name in ((rich, "rich"), (player, "player")):
            me = await client.register(name, "long enough")
            await promote(server, me["id"], tiers.tier("forest").level)  # the room opens there
        # (Three tables each: an account may have only a few open tables it opened.)
        tables = [
            (
                await opener.request(
                    "POST", "/api/tables", {"room": "indian13-classic-points-20-6p"}
                )
            )["table"]["id"]
            for opener in (rich, player)
            for _ in range(3)
        ]
        # 10,000 chips; the room's buy-in is 3,200: three are paid in full, then the 400 left
        # cannot pay a named buy-in of 3,200 (nor the minimum, 1,600).
        answers = await asyncio.gather(
            *(
                player.request("POST", f"/api/tables/{t}/sit", {"buy_in": 3_200, "another": True})
                for t in tables
            ),
            return_exceptions=True,
        )
        seated = [a for a in answers if isinstance(a, dict)]
        refused = [a for a in answers if isinstance(a, ClientError)]
        assert {e.code for e in refused} <= {"insufficient_chips"}
        assert len(seated) == 3  # 3 x 3,200 = 9,600; 400 left is below the minimum
        assert await player.chips() == 400
    report = await audit_database(server.app.state.settings.database_url)
    assert report.problems == []


async def test_one_name_registered_many_times_at_once(server: Running) -> None:
    """Parallel registrations of one name, in any case: one account, one signup's chips; the
    others are told the name is taken and are not signed in."""
    names = ["Meera", "meera", "MEERA", "MeErA", "mEERA", "meerA", "MEEra", "meeRA"]
    clients = [RoomClient(server.url) for _ in names]
    try:
        answers = await asyncio.gather(
            *(
                client.register(name, "long enough")
                for client, name in zip(clients, names, strict=True)
            ),
            return_exceptions=True,
        )
        won = [a for a in answers if isinstance(a, dict)]
        lost = [a for a in answers if isinstance(a, ClientError)]
        assert len(won) == 1 and len(lost) == len(names) - 1, answers
        assert {error.code for error in lost} == {"name_taken"}
        for client, answer in zip(clients, answers, strict=True):
            if isinstance(answer, ClientError):
                with pytest.raises(ClientError) as outside:
                    await client.request("GET", "/api/me")
                assert outside.value.code == "not_signed_in"
    finally:
        for client in clients:
            await client.close()
    report = await audit_database(server.app.state.settings.database_url)
    assert report.problems == []
    assert report.minted == won[0]["chips"]


async def test_many_guests_at_once(server: Running) -> None:
    """Guests made in the same instant are distinct accounts, each with its own chips."""
    clients = [RoomClient(server.url) for _ in range(24)]
    try:
        made = await asyncio.gather(*(client.guest() for client in clients))
        assert len({m["id"] for m in made}) == len({m["name"] for m in made}) == len(clients)
        for client, me in zip(clients, made, strict=True):
            assert (await client.request("GET", "/api/me"))["id"] == me["id"]
    finally:
        for client in clients:
            await client.close()
    report = await audit_database(server.app.state.settings.database_url)
    assert report.problems == []
    assert report.minted == sum(m["chips"] for m in made)


async def test_sitting_leaving_and_grants_at_once_make_and_lose_no_chips(
    server: Running,
) -> None:
    """A player sits down and stands up at three tables in a burst of parallel requests while
    the operator grants them chips: whatever order the requests land in, the wallet ends with
    exactly what it had plus the grants (no buy-in refunded twice, no grant lost)."""
    token = (server.app.state.settings.data_dir / "admin.token").read_text().strip()
    async with (
        RoomClient(server.url) as player,
        RoomClient(server.url) as anchor,
        httpx.AsyncClient(base_url=server.url) as operator,
    ):
        start = (await player.register("racer", "long enough"))["chips"]
        await anchor.register("anchor", "long enough")
        tables = []
        for _ in range(3):  # the anchor keeps each table open while the player comes and goes
            created = await anchor.request(
                "POST", "/api/tables", {"room": "indian13-classic-points-1-6p"}
            )
            tables.append(created["table"]["id"])
            await anchor.request(
                "POST", f"/api/tables/{tables[-1]}/sit", {"seat": 1, "another": True}
            )

        async def grant() -> JSON:
            answer = await operator.post(
                "/api/admin/grant",
                json={"name": "racer", "amount": 100},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert answer.status_code == 200, answer.text
            return dict(answer.json())

        calls = []
        for _ in range(4):
            for table in tables:
                calls.append(player.request("POST", f"/api/tables/{table}/sit", {"another": True}))
                calls.append(player.request("POST", f"/api/tables/{table}/leave"))
        calls += [grant() for _ in range(5)]
        random.Random(15).shuffle(calls)
        answers = await asyncio.gather(*calls, return_exceptions=True)
        assert any(isinstance(a, dict) and "seat" in a for a in answers), "nobody sat"
        errors = [a for a in answers if isinstance(a, BaseException)]
        assert all(isinstance(e, ClientError) for e in errors), errors
        assert {e.code for e in errors if isinstance(e, ClientError)} <= {
            "already_seated",
            "not_seated",
        }
        for table in tables:
            with contextlib.suppress(ClientError):
                await player.request("POST", f"/api/tables/{table}/leave")
        assert await player.chips() == start + 5 * 100
    report = await audit_database(server.app.state.settings.database_url)
    assert report.problems == []


async def test_admin_calls_need_the_token(server: Running) -> None:
    token = (server.app.state.settings.data_dir / "admin.token").read_text().strip()
    async with RoomClient(server.url) as client:
        me = await client.register("ravi", "long enough")
        async with httpx.AsyncClient(base_url=server.url) as http:
            refused = await http.post("/api/admin/grant", json={"name": "ravi", "amount": 5})
            assert refused.json()["error"]["code"] == "forbidden"
            granted = await http.post(
                "/api/admin/grant",
                json={"name": "ravi", "amount": 500},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert granted.json() == {
                "name": "ravi",
                "currency": "chips",
                "chips": me["chips"] + 500,
            }
    await settle(server.hub, lambda hub: True)


async def test_flooding_is_refused_then_cut_off(tmp_path: Path) -> None:
    settings = fast_settings(
        tmp_path, f"sqlite+aiosqlite:///{tmp_path / 'r.db'}", rate_per_second=5.0, rate_burst=5
    )
    async with running(settings) as server, RoomClient(server.url) as client:
        await client.guest()
        await client.connect()
        codes = []
        for n in range(8):
            try:
                await client.send({"type": "ping", "cid": f"p{n}"})
                codes.append("pong")
            except ClientError as error:
                codes.append(error.code)
        assert codes[:5] == ["pong"] * 5
        assert "rate_limited" in codes[5:]
        # A client that keeps going is disconnected.
        for _ in range(40):
            await client.send_raw('{"type": "ping"}')
        await asyncio.wait_for(_closed(client), 10)


async def _closed(client: RoomClient) -> None:
    while client.closed_reason is None:
        await asyncio.sleep(0.01)


async def test_admin_command_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    from server_kit import ServerProcess, free_port

    server = ServerProcess(tmp_path, f"sqlite+aiosqlite:///{tmp_path / 'a.db'}", free_port())
    server.start("--no-bots", "--starting-silver", "5000")
    try:
        async with RoomClient(server.url) as client:
            await client.register("meera", "long enough")
            created = await client.request("POST", "/api/tables", {"room": "patti-10-5p"})
        admin = [sys.executable, "-m", "rummyhall.cli", "admin", "--url", server.url,
                 "--data-dir", str(tmp_path)]  # fmt: skip

        def run(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run([*admin, *args], capture_output=True, text=True, check=False)

        granted = run("grant", "meera", "250")
        assert granted.returncode == 0
        assert "meera now has 5250 silver chips" in granted.stdout
        listed = run("tables")
        assert listed.returncode == 0 and f"table {created['table']['id']}" in listed.stdout
        assert "waiting" in listed.stdout
        nothing = run("void", str(created["table"]["id"]))
        assert nothing.returncode == 0 and "no game was running" in nothing.stdout
        unknown = run("void", "999")
        assert unknown.returncode == 1 and "unknown_table" in unknown.stderr
        no_token = subprocess.run(
            [*admin[:5], "--data-dir", str(tmp_path / "elsewhere"), "tables"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert no_token.returncode == 2
    finally:
        server.stop()

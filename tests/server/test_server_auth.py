"""Signing in under attack (issue 15 items 4 and 8): per-client and per-account limits on login,
register and guest, Argon2 work in a bounded pool, session rotation and purging, changing a
password, /metrics for the operator only, the Host header, Secure cookies behind https.

The tests whose outcome goes through the database (sign-ins against stored accounts, the
per-account lock, session rotation, purging and ending) run on SQLite and PostgreSQL
(``db_url``); those about the transport and the in-memory limits alone run on SQLite.

Several clients are played from one loopback address with ``X-Forwarded-For``: uvicorn trusts it
from 127.0.0.1 (``forwarded_allow_ips``), as it would from a reverse proxy on the same host.
Assertions are on answers and status codes, never on wall time (the machine may be busy)."""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from rummyhall.client import ClientError, RoomClient
from rummyhall.server.clock import FakeClock
from rummyhall.store import accounts as store_accounts
from rummyhall.store.accounts import HashPool, HashPoolBusy
from rummyhall.store.database import Database
from rummyhall.store.models import SessionModel, utcnow
from server_kit import Running, fast_settings, running

PASSWORD = "long enough"


def _url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'auth.db'}"


def _from(ip: str) -> dict[str, str]:
    return {"X-Forwarded-For": ip}


def _admin_headers(server: Running) -> dict[str, str]:
    token = (server.app.state.settings.data_dir / "admin.token").read_text().strip()
    return {"Authorization": f"Bearer {token}"}


async def _login(http: httpx.AsyncClient, name: str, password: str, ip: str) -> httpx.Response:
    return await http.post(
        "/api/login", json={"name": name, "password": password}, headers=_from(ip)
    )


# --- item 4: rate limits ---------------------------------------------------------------------


async def test_a_burst_of_wrong_logins_is_refused_while_others_go_on(
    tmp_path: Path, db_url: str
) -> None:
    settings = fast_settings(
        tmp_path, db_url, bots=False, login_client_burst=5, login_client_per_minute=1
    )
    async with running(settings) as server, httpx.AsyncClient(base_url=server.url) as http:
        made = await http.post(
            "/api/register",
            json={"name": "victim", "password": PASSWORD},
            headers=_from("10.0.0.2"),
        )
        assert made.status_code == 201
        burst = await asyncio.gather(
            *(_login(http, "victim", f"guess {n:04d}", "10.0.0.1") for n in range(40))
        )
        statuses = [answer.status_code for answer in burst]
        assert set(statuses) <= {401, 429}
        assert statuses.count(401) <= 5 and statuses.count(429) >= 35
        for answer in burst:
            if answer.status_code == 429:
                assert answer.json()["error"]["code"] == "rate_limited"
                assert int(answer.headers["Retry-After"]) >= 1
        # Another client signs in at once, and the room answers its health check.
        good = await _login(http, "victim", PASSWORD, "10.0.0.2")
        assert good.status_code == 200, good.text
        assert (await http.get("/healthz")).status_code == 200
        # The limited client is refused before any password is checked, right password or not.
        again = await _login(http, "victim", PASSWORD, "10.0.0.1")
        assert again.status_code == 429


async def test_guests_and_registrations_are_limited_per_client(tmp_path: Path) -> None:
    settings = fast_settings(
        tmp_path, _url(tmp_path), bots=False, signup_client_burst=3, signup_client_per_minute=1
    )
    async with running(settings) as server, httpx.AsyncClient(base_url=server.url) as http:
        codes = [(await http.post("/api/guest", headers=_from("10.0.0.7"))).status_code]
        for n in range(3):
            answer = await http.post(
                "/api/register", json={"name": f"spam{n}", "password": PASSWORD},
                headers=_from("10.0.0.7"),
            )  # fmt: skip
            codes.append(answer.status_code)
        assert codes == [201, 201, 201, 429]
        assert (await http.post("/api/guest", headers=_from("10.0.0.8"))).status_code == 201


async def test_an_account_under_attack_is_locked_then_unlocks_on_the_clock(
    tmp_path: Path, db_url: str
) -> None:
    clock = FakeClock()
    settings = fast_settings(
        tmp_path, db_url, bots=False, login_account_burst=3, login_account_per_minute=1
    )
    async with (
        running(settings, clock=clock) as server,
        httpx.AsyncClient(base_url=server.url) as http,
    ):
        await http.post("/api/register", json={"name": "meena", "password": PASSWORD})
        # Wrong passwords from many clients (a botnet): each client is within its own limit.
        wrong = [await _login(http, "MEENA", "not it at all", f"10.1.0.{n}") for n in range(3)]
        assert [answer.status_code for answer in wrong] == [401, 401, 401]
        locked = await _login(http, "meena", PASSWORD, "10.2.0.1")
        assert (locked.status_code, locked.json()["error"]["code"]) == (429, "rate_limited")
        assert 1 <= int(locked.headers["Retry-After"]) <= 60
        # Right passwords do not spend the account's allowance; another account is not locked.
        await http.post("/api/register", json={"name": "other", "password": PASSWORD})
        assert (await _login(http, "other", PASSWORD, "10.2.0.1")).status_code == 200
        clock.advance(60_000)
        assert (await _login(http, "meena", PASSWORD, "10.2.0.1")).status_code == 200


async def test_the_hash_pool_refuses_work_beyond_its_queue() -> None:
    pool = HashPool(workers=1, queue=1)
    release = threading.Event()
    try:
        running_job = asyncio.create_task(pool.run(release.wait))
        queued_job = asyncio.create_task(pool.run(release.wait))
        await asyncio.sleep(0)
        with pytest.raises(HashPoolBusy):
            await pool.run(release.wait)
        release.set()
        assert await running_job and await queued_job
        assert await pool.run(lambda: 7) == 7  # room again once the work is done
    finally:
        release.set()
        pool.close()


async def test_a_full_hash_pool_answers_busy_at_once(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path, _url(tmp_path), bots=False, hash_workers=1, hash_queue=0)
    async with running(settings) as server, httpx.AsyncClient(base_url=server.url) as http:
        await http.post("/api/register", json={"name": "kiran", "password": PASSWORD})
        pool: HashPool = server.app.state.hash_pool
        release = threading.Event()
        hog = asyncio.create_task(pool.run(release.wait))
        try:
            await asyncio.sleep(0)
            busy = await _login(http, "kiran", PASSWORD, "10.3.0.1")
            assert (busy.status_code, busy.json()["error"]["code"]) == (503, "busy")
            assert int(busy.headers["Retry-After"]) >= 1
            assert (await http.get("/healthz")).status_code == 200
        finally:
            release.set()
            await hog
        assert (await _login(http, "kiran", PASSWORD, "10.3.0.1")).status_code == 200


# --- item 8: sessions, passwords, metrics, hosts, cookies ---------------------------------------


async def test_login_rotates_the_session(tmp_path: Path, db_url: str) -> None:
    settings = fast_settings(tmp_path, db_url, bots=False)
    async with running(settings) as server, httpx.AsyncClient(base_url=server.url) as http:
        await http.post("/api/register", json={"name": "tara", "password": PASSWORD})
        old = http.cookies["rummyhall_session"]
        again = await http.post("/api/login", json={"name": "tara", "password": PASSWORD})
        assert again.is_success
        new = http.cookies["rummyhall_session"]
        assert new != old
        assert (await http.get("/api/me")).status_code == 200
        async with httpx.AsyncClient(
            base_url=server.url, cookies={"rummyhall_session": old}
        ) as stale:
            assert (await stale.get("/api/me")).status_code == 401


async def _count_sessions(url: str) -> int:
    db = await Database.open(url)
    try:
        async with db.read() as session:
            return int(await session.scalar(select(func.count()).select_from(SessionModel)) or 0)
    finally:
        await db.close()


async def test_expired_sessions_are_purged_on_the_clock(tmp_path: Path, db_url: str) -> None:
    url = db_url
    db = await Database.open(url)
    async with db.transaction() as session:
        account = await store_accounts.register(session, "old-timer", PASSWORD)
        await store_accounts.create_session(
            session, account.id, now=utcnow() - timedelta(days=40)
        )  # expired ten days ago
        await store_accounts.create_session(session, account.id)  # still good
    await db.close()
    clock = FakeClock()
    settings = fast_settings(tmp_path, url, bots=False, session_purge_ms=60_000)
    async with running(settings, clock=clock):
        assert await _count_sessions(url) == 2
        clock.advance(60_000)
        for _ in range(500):
            if await _count_sessions(url) == 1:
                break
            await asyncio.sleep(0.01)
        assert await _count_sessions(url) == 1


async def test_changing_the_password_ends_the_other_sessions(tmp_path: Path, db_url: str) -> None:
    settings = fast_settings(tmp_path, db_url, bots=False)
    async with (
        running(settings) as server,
        httpx.AsyncClient(base_url=server.url) as here,
        httpx.AsyncClient(base_url=server.url) as elsewhere,
    ):
        anonymous = await elsewhere.post("/api/password", json={"old": PASSWORD, "new": "x" * 9})
        assert (anonymous.status_code, anonymous.json()["error"]["code"]) == (401, "not_signed_in")
        await here.post("/api/register", json={"name": "devi", "password": PASSWORD})
        await elsewhere.post("/api/login", json={"name": "devi", "password": PASSWORD})
        wrong = await here.post("/api/password", json={"old": "not mine!", "new": "brand new pw"})
        assert (wrong.status_code, wrong.json()["error"]["code"]) == (401, "bad_login")
        weak = await here.post("/api/password", json={"old": PASSWORD, "new": "short"})
        assert (weak.status_code, weak.json()["error"]["code"]) == (400, "weak_password")
        changed = await here.post("/api/password", json={"old": PASSWORD, "new": "brand new pw"})
        assert changed.status_code == 200, changed.text
        assert (await here.get("/api/me")).status_code == 200
        assert (await elsewhere.get("/api/me")).status_code == 401
        old = await elsewhere.post("/api/login", json={"name": "devi", "password": PASSWORD})
        assert old.status_code == 401
        new = await elsewhere.post("/api/login", json={"name": "devi", "password": "brand new pw"})
        assert new.status_code == 200


async def _closed_with(client: RoomClient) -> int | None:
    """The close code of the client's WebSocket, once the server has closed it."""
    assert client._reader is not None and client._socket is not None
    async with asyncio.timeout(30):
        await client._reader
    return client._socket.close_code


async def test_an_ended_session_closes_its_websockets(tmp_path: Path) -> None:
    """A password change signs out every other session, and their open sockets with them; a
    logout closes the sockets of that session. The socket of the session that goes on stays."""
    settings = fast_settings(tmp_path, _url(tmp_path), bots=False)
    async with (
        running(settings) as server,
        RoomClient(server.url) as here,
        RoomClient(server.url) as elsewhere,
        RoomClient(server.url) as someone,
    ):
        await here.register("asha", PASSWORD)
        await elsewhere.login("asha", PASSWORD)
        await someone.register("ravi", PASSWORD)
        for client in (here, elsewhere, someone):
            await client.connect()
            await client.send({"type": "ping"})
        changed = await here.request("POST", "/api/password", {"old": PASSWORD, "new": "new pass!"})
        assert changed["ended_sessions"] == 1
        assert await _closed_with(elsewhere) == 4401
        # Its requests are refused at once (the server remembers who is signed in: it forgets
        # the sessions it ends).
        with pytest.raises(ClientError) as refused:
            await elsewhere.request("GET", "/api/me")
        assert refused.value.code == "not_signed_in"
        # This session's socket and another account's are open and answer.
        assert (await here.send({"type": "ping"}))["type"] == "pong"
        assert (await someone.send({"type": "ping"}))["type"] == "pong"
        await here.request("POST", "/api/logout")
        assert await _closed_with(here) == 4401
        # The client's next message is refused as a disconnection (ClientError), not with the
        # socket library's own error.
        with pytest.raises(ClientError) as gone:
            await here.send({"type": "ping"})
        assert gone.value.code == "disconnected"
        with pytest.raises(ClientError) as gone:
            await here.watch(1)
        assert gone.value.code == "disconnected"
        assert (await someone.send({"type": "ping"}))["type"] == "pong"
        assert server.app.state.sockets._open.keys() == {someone.me["id"]}


async def test_metrics_need_the_admin_token(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path, _url(tmp_path), bots=False)
    async with running(settings) as server, httpx.AsyncClient(base_url=server.url) as http:
        refused = await http.get("/metrics")
        assert (refused.status_code, refused.json()["error"]["code"]) == (403, "forbidden")
        allowed = await http.get("/metrics", headers=_admin_headers(server))
        assert allowed.status_code == 200 and "rummyhall_live_tables" in allowed.text


async def test_the_host_header_is_checked(tmp_path: Path) -> None:
    settings = fast_settings(
        tmp_path, _url(tmp_path), bots=False, allowed_origins=("https://cards.example",)
    )
    async with running(settings) as server, httpx.AsyncClient(base_url=server.url) as http:
        assert (await http.get("/healthz")).status_code == 200  # 127.0.0.1
        assert (await http.get("/healthz", headers={"Host": "localhost"})).status_code == 200
        assert (await http.get("/healthz", headers={"Host": "cards.example"})).status_code == 200
        evil = await http.get("/healthz", headers={"Host": "evil.example"})
        assert evil.status_code == 400
        # The WebSocket too: its handshake is refused before the socket goes to its endpoint (which
        # skips the router's layers, server/ws.py's DirectSockets, but not this check).
        port = int(server.url.rsplit(":", 1)[1])
        async with connect(f"ws://cards.example:{port}/ws", host="127.0.0.1") as allowed_ws:
            with pytest.raises(ConnectionClosed) as closed:
                await allowed_ws.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401  # not signed in
        with pytest.raises(InvalidStatus) as refused:
            async with connect(f"ws://evil.example:{port}/ws", host="127.0.0.1"):
                pass
        assert refused.value.response.status_code == 400


@pytest.mark.parametrize(
    ("origins", "secure", "expected"),
    [
        ((), None, False),
        (("https://cards.example",), None, True),
        (("https://cards.example",), False, False),  # the operator's word wins
        ((), True, True),
    ],
)
async def test_cookies_are_secure_when_the_origin_is_https(
    tmp_path: Path, origins: tuple[str, ...], secure: bool | None, expected: bool
) -> None:
    settings = fast_settings(
        tmp_path, _url(tmp_path), bots=False, allowed_origins=origins, cookie_secure=secure
    )
    async with running(settings) as server, httpx.AsyncClient(base_url=server.url) as http:
        made = await http.post("/api/guest")
        assert ("secure" in made.headers["set-cookie"].lower()) is expected


def test_buckets_refill_on_the_clock_and_stay_bounded() -> None:
    from rummyhall.server.throttle import Buckets

    clock = FakeClock()
    buckets = Buckets(clock, per_minute=6, burst=2, max_keys=100)
    assert [buckets.take("a"), buckets.take("a")] == [0, 0]
    assert buckets.take("a") == 10_000  # one token every 10 s
    assert buckets.retry_after("a") == 10_000 and buckets.retry_after("b") == 0
    clock._now += 10_000  # (no timers involved: the buckets only read the time)
    assert buckets.take("a") == 0 and buckets.take("a") > 0
    for n in range(1_000):  # a flood of made-up keys, each spent
        buckets.take(f"k{n}")
    assert len(buckets) <= 100


def test_an_ipv6_client_is_its_64() -> None:
    from starlette.requests import Request

    from rummyhall.server.api import client_key

    def key(host: str) -> str:
        return client_key(Request({"type": "http", "client": (host, 1), "headers": []}))

    assert key("2001:db8:1:2:aaaa::1") == key("2001:db8:1:2:bbbb::2") == "2001:db8:1:2::/64"
    assert key("::ffff:10.0.0.1") == "10.0.0.1"
    assert key("10.0.0.1") == "10.0.0.1"

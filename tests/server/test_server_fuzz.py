"""Fuzzing the WebSocket message handlers with Hypothesis: random JSON, messages of every type
with wrong, missing and extra fields, and plausible game actions. Every message is answered (or
ignored) without hurting the connection, the server or the ledger; on SQLite and PostgreSQL (one
server per database for the whole module)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.sync.client import ClientConnection, connect

from pg import PostgresServer
from rummyhall.economy.audit import audit_database
from rummyhall.server.app import create_app
from rummyhall.server.socket_protocol import RoomWebSocketProtocol
from server_kit import fast_settings

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
TYPES = st.sampled_from(["watch", "unwatch", "sit", "leave", "act", "ping", "nope", ""])
FIELDS = st.fixed_dictionaries(
    {"type": TYPES},
    optional={
        "table": st.integers(-2, 5) | JSON_VALUES,
        "seat": st.integers(-1, 7) | JSON_VALUES,
        "since": st.integers(-1, 10**12) | JSON_VALUES,
        "buy_in": st.integers(-5, 10**9) | JSON_VALUES,
        "action": st.sampled_from(
            [
                "chaal",
                "chaal 2x",
                "pack",
                "show",
                "sideshow",
                "draw closed",
                "discard 7H",
                "deal",
                "timeout",
                "exchange open 7H",
                "declare 7H | AS 2S 3S",
                "",
                " ",
                "x" * 401,
            ]
        )
        | JSON_VALUES,
        "cid": st.text(max_size=70) | JSON_VALUES,
        "extra": JSON_VALUES,
    },
)
MESSAGES = st.one_of(
    FIELDS.map(json.dumps),
    JSON_VALUES.map(json.dumps),
    st.text(max_size=60),
    st.binary(max_size=40).map(lambda b: b.decode("latin-1")),
)


class ServerThread:
    def __init__(self, tmp: Path, db_url: str) -> None:
        self.db_url = db_url
        self.app = create_app(fast_settings(tmp, self.db_url, bots=True))
        config = uvicorn.Config(
            self.app, host="127.0.0.1", port=0, log_level="critical", ws=RoomWebSocketProtocol
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> ServerThread:
        self.thread.start()
        while not self.server.started:
            if not self.thread.is_alive():
                raise RuntimeError("the server did not start")
            threading.Event().wait(0.01)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.should_exit = True
        self.thread.join(30)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])  # (as conftest.py's db_url)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerThread]:
    tmp = tmp_path_factory.mktemp("fuzz")
    if request.param == "sqlite":
        with ServerThread(tmp, f"sqlite+aiosqlite:///{tmp / 'fuzz.db'}") as running:
            yield running
        return
    pg: PostgresServer = request.getfixturevalue("pg_server")
    name = asyncio.run(pg.create_database())
    try:
        with ServerThread(tmp, pg.url(name)) as running:
            yield running
    finally:
        asyncio.run(pg.drop_database(name))


@pytest.fixture(scope="module")
def socket(server: ServerThread) -> Iterator[tuple[ClientConnection, httpx.Client]]:
    http = httpx.Client(base_url=server.url)
    http.post("/api/guest").raise_for_status()
    # A seat at a Patti table with bots, so that game actions reach a real engine.
    http.post("/api/quick-seat", json={"room": "practice-patti-10-5p"}).raise_for_status()
    cookie = "; ".join(f"{k}={v}" for k, v in http.cookies.items())
    with connect(
        server.url.replace("http", "ws") + "/ws", additional_headers={"Cookie": cookie}
    ) as ws:
        yield ws, http
    http.close()


def _drain(ws: ClientConnection) -> list[dict[str, Any]]:
    """Everything the server sent up to the answer to a ping (answers come in order)."""
    ws.send(json.dumps({"type": "ping", "cid": "fence"}))
    seen = []
    while True:
        message = json.loads(ws.recv(timeout=20))
        if message.get("type") == "pong" and message.get("cid") == "fence":
            return seen
        seen.append(message)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(MESSAGES, min_size=1, max_size=8))
def test_random_messages_never_break_anything(
    socket: tuple[ClientConnection, httpx.Client], messages: list[str]
) -> None:
    ws, http = socket
    for text in messages:
        ws.send(text)
    for message in _drain(ws):
        assert message["type"] in {"error", "ack", "pong", "snapshot", "update", "closed"}
        if message["type"] == "error":
            assert isinstance(message["code"], str) and message["code"] != "internal", message
    assert http.get("/healthz").json()["ok"] is True


def test_the_ledger_is_sound_after_the_fuzzing(server: ServerThread) -> None:
    report = asyncio.run(audit_database(server.db_url))
    assert report.problems == []

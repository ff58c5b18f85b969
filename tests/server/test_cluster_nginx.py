"""nginx in front of the room (issue 21): the helper (tests/nginx_server.py) proxies HTTP and
WebSockets to the upstreams a test gives. A smoke test of the proxy the several-node tests will
put in front of their nodes: a real room played through it, and two upstreams shared out."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import httpx
import uvicorn
from fastapi import FastAPI, Request, WebSocket
from websockets.asyncio.client import connect

from nginx_server import NginxServer
from rummyhall.client import RoomClient
from server_kit import fast_settings, running, seat_guest

POINTS_2P = "practice-indian13-classic-points-1-2p"

StartNginx = Callable[..., NginxServer]


async def test_a_room_is_played_through_nginx(tmp_path: Path, nginx: StartNginx) -> None:
    """A guest signs up (HTTP), quick-seats and watches its table over a WebSocket, all through
    nginx; the room sees the client's address in X-Forwarded-For."""
    settings = fast_settings(tmp_path, f"sqlite+aiosqlite:///{tmp_path / 'room.db'}")
    async with running(settings) as server:
        proxy = nginx([server.url.removeprefix("http://")])
        async with httpx.AsyncClient(base_url=proxy.url) as http:
            health = await http.get("/healthz")
            assert health.status_code == 200, proxy.error_log
        async with RoomClient(proxy.url) as client:
            table, seat, snapshot = await seat_guest(client, POINTS_2P)
            assert snapshot["table"] == table
            assert snapshot["you"] == seat
            # The socket stays up through the proxy: the room answers a second request on it.
            again = await client.watch(table)
            assert again["table"] == table


def _echo_app(name: str) -> FastAPI:
    app = FastAPI()

    @app.get("/who")
    async def who(request: Request) -> dict[str, str | None]:
        return {"name": name, "forwarded": request.headers.get("x-forwarded-for")}

    @app.websocket("/echo")
    async def echo(socket: WebSocket) -> None:
        await socket.accept()
        async for text in socket.iter_text():
            await socket.send_text(f"{name}: {text}")

    return app


@contextlib.asynccontextmanager
async def _upstream(name: str) -> AsyncIterator[str]:
    """A tiny app on a free loopback port in this event loop; its "host:port"."""
    config = uvicorn.Config(
        _echo_app(name), host="127.0.0.1", port=0, log_level="warning", lifespan="off"
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)  # polling the server's state
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


async def test_nginx_shares_requests_and_sockets_between_upstreams(nginx: StartNginx) -> None:
    async with _upstream("a") as first, _upstream("b") as second:
        proxy = nginx([first, second])
        async with httpx.AsyncClient(base_url=proxy.url) as http:
            answers = [(await http.get("/who")).json() for _ in range(4)]
        # Round robin: both nodes answer, each request forwarded with the client's address.
        assert {answer["name"] for answer in answers} == {"a", "b"}, proxy.error_log
        assert {answer["forwarded"] for answer in answers} == {"127.0.0.1"}
        # WebSockets are upgraded through the proxy, to either node.
        names: set[str] = set()
        for _ in range(2):
            async with connect(f"{proxy.ws_url}/echo") as socket:
                await socket.send("hello")
                reply = await socket.recv()
                assert isinstance(reply, str) and reply.endswith(": hello")
                await socket.send("again")
                assert await socket.recv() == reply.replace("hello", "again")
                names.add(reply.split(":")[0])
        assert names == {"a", "b"}


async def test_a_balance_directive_pins_clients(nginx: StartNginx) -> None:
    """``balance`` sets the upstream's choice: with a hash on a query argument, one table's
    requests all reach one node (a way to send a table's players to its owner, docs/cluster.md)."""
    async with _upstream("a") as first, _upstream("b") as second:
        proxy = nginx([first, second], balance="hash $arg_table consistent;")
        async with httpx.AsyncClient(base_url=proxy.url) as http:
            for table in range(1, 6):
                names = {
                    (await http.get("/who", params={"table": table})).json()["name"]
                    for _ in range(4)
                }
                assert len(names) == 1

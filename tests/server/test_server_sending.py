"""How a connection sends (rummyhall.server.ws.Connection): at once while the socket takes the
frames, in order behind a send that has to wait, and a reader too far behind is closed. The
socket here is a stand-in whose writes block when told to, as uvicorn's do when the socket's
buffer is full."""

from __future__ import annotations

import asyncio
from typing import Any

from rummyhall.server.socket_protocol import SEND_NOW
from rummyhall.server.ws import CLOSE_TOO_SLOW, Connection


class Socket:
    """What Connection uses of a Starlette WebSocket: send_text and close (and the scope, which
    offers no direct send: every message takes the ASGI road)."""

    def __init__(self) -> None:
        self.scope: dict[str, Any] = {"extensions": {}}
        self.sent: list[str] = []
        self.writable = asyncio.Event()
        self.writable.set()
        self.closed_with: int | None = None
        self.gone = False

    async def send_text(self, text: str) -> None:
        await self.writable.wait()
        if self.gone:
            raise RuntimeError("the socket is gone")
        self.sent.append(text)

    async def close(self, code: int, reason: str = "") -> None:
        await self.writable.wait()
        self.closed_with = code


class DirectSocket(Socket):
    """A socket served by RoomWebSocketProtocol: its scope offers the direct send, which takes
    a frame at once unless the socket's buffer is full (``writable`` clear)."""

    def __init__(self) -> None:
        super().__init__()
        self.scope["extensions"][SEND_NOW] = self.send_now
        self.direct: list[str] = []

    def send_now(self, payload: bytes) -> bool:
        if not self.writable.is_set() or self.gone:
            return False
        self.sent.append(payload.decode())
        self.direct.append(payload.decode())
        return True


def connection(socket: Socket, limit: int = 3) -> Connection:
    fake: Any = socket
    return Connection(fake, 1, "someone", limit)


async def test_a_send_completes_at_once_while_the_socket_takes_it() -> None:
    socket = Socket()
    conn = connection(socket)
    conn.send("a")
    conn.send("b")
    assert socket.sent == ["a", "b"]  # no task, no turn of the loop
    assert conn.flusher is None


async def test_messages_wait_in_order_behind_a_blocked_send() -> None:
    socket = Socket()
    conn = connection(socket)
    socket.writable.clear()  # the reader is slow: the socket's buffer is full
    for text in ("a", "b", "c"):
        conn.send(text)
    await asyncio.sleep(0.01)
    assert socket.sent == []
    assert list(conn.backlog) == ["b", "c"]
    socket.writable.set()
    await asyncio.sleep(0.01)
    assert socket.sent == ["a", "b", "c"]
    assert conn.flusher is None and not conn.backlog
    conn.send("d")  # and at once again
    assert socket.sent[-1] == "d"


async def test_a_reader_too_far_behind_is_closed() -> None:
    socket = Socket()
    conn = connection(socket, limit=2)
    socket.writable.clear()
    for text in ("a", "b", "c", "d"):  # "a" waits, "b" and "c" queue, "d" is one too many
        conn.send(text)
    assert conn.closed and not conn.backlog
    conn.send("e")  # ignored
    socket.writable.set()  # the close goes out when the socket takes it
    await asyncio.sleep(0.01)
    assert socket.closed_with == CLOSE_TOO_SLOW
    assert "e" not in socket.sent and "d" not in socket.sent


async def test_a_socket_that_is_gone_stops_the_sending() -> None:
    socket = Socket()
    conn = connection(socket)
    socket.gone = True
    conn.send("a")
    assert conn.closed
    conn.send("b")
    assert socket.sent == []


async def test_stop_drops_what_waits() -> None:
    socket = Socket()
    conn = connection(socket)
    socket.writable.clear()
    conn.send("a")
    conn.send("b")
    flusher = conn.flusher
    assert flusher is not None
    conn.stop()
    await asyncio.sleep(0.01)
    assert flusher.done()
    socket.writable.set()
    await asyncio.sleep(0.01)
    assert socket.sent == []


async def test_the_direct_send_takes_what_it_may_and_the_rest_keeps_its_order() -> None:
    socket = DirectSocket()
    conn = connection(socket)
    conn.send(b"a")
    conn.send("b")  # a text is sent as its UTF-8
    assert socket.direct == ["a", "b"] and conn.flusher is None
    socket.writable.clear()  # the buffer is full: the direct send refuses, ASGI waits
    conn.send(b"c")
    conn.send(b"d")  # behind "c", though the socket may take it before "c" is through
    socket.writable.set()
    conn.send(b"e")
    await asyncio.sleep(0.01)
    assert socket.sent == ["a", "b", "c", "d", "e"]
    assert socket.direct == ["a", "b"]  # the rest went the ASGI road, in order
    assert conn.flusher is None
    conn.send(b"f")  # and directly again
    assert socket.direct[-1] == "f"

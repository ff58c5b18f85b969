"""How a connection sends (rummyhall.server.ws.Connection): at once while the socket takes the
frames, in order behind a send that has to wait, and a reader too far behind is closed. The
socket here is a stand-in whose writes block when told to, as uvicorn's do when the socket's
buffer is full."""

from __future__ import annotations

import asyncio
from typing import Any

from rummyhall.server.ws import CLOSE_TOO_SLOW, Connection


class Socket:
    """What Connection uses of a Starlette WebSocket: send_text and close."""

    def __init__(self) -> None:
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

"""The room's WebSocket protocol (rummyhall.server.socket_protocol): the frames its direct send
writes are the frames a client's WebSocket library reads as the messages sent, in order with
those sent through ASGI, at every size class of the frame's length; it refuses (writes
nothing, says False) when the socket's buffer is full or once the connection is closing; and
it reads ahead up to READ_AHEAD messages, then stops reading until the application has taken
them, every message arriving in order; and it hands messages to an application's handler when
asked to (TAKE_MESSAGES), one at a time and in order, with nothing waiting between them."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
import uvicorn
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.protocol import Protocol, Side

from rummyhall.server.socket_protocol import (
    READ_AHEAD,
    SEND_NOW,
    TAKE_MESSAGES,
    RoomWebSocketProtocol,
    text_frame,
)

# The size classes of a frame's length (7 bits, 16 bits, 64 bits) and their edges.
SIZES = [0, 1, 125, 126, 127, 65_535, 65_536, 70_001]


def payload(size: int) -> str:
    """A text of ``size`` UTF-8 bytes, with characters of 1, 2 and 3 bytes."""
    pattern = "aé€"  # 1 + 2 + 3 bytes
    text = pattern * (size // 6) + "a" * (size % 6)
    assert len(text.encode()) == size
    return text


def test_a_frame_reads_as_its_message_at_every_length() -> None:
    for size in SIZES:
        client = Protocol(Side.CLIENT, max_size=None)
        client.receive_data(text_frame(payload(size).encode()))
        [frame] = client.events_received()
        assert isinstance(frame, Frame)
        assert (frame.opcode, frame.fin) == (Opcode.TEXT, True)
        assert bytes(frame.data).decode() == payload(size)


async def _lifespan(receive: Any, send: Any) -> None:
    """An application's side of uvicorn's lifespan: started at once, stopped when told."""
    while (await receive())["type"] != "lifespan.shutdown":
        await send({"type": "lifespan.startup.complete"})
    await send({"type": "lifespan.shutdown.complete"})


class App:
    """Accepts one connection, sends every size through the direct send with a message through
    ASGI between them, checks the refusals, and closes."""

    def __init__(self) -> None:
        self.refused_while_paused: bool | None = None
        self.refused_after_close: bool | None = None
        self.finished = asyncio.Event()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        assert scope["type"] == "websocket"
        send_now = scope["extensions"][SEND_NOW]
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        for size in SIZES:
            assert send_now(payload(size).encode())
            await send({"type": "websocket.send", "text": f"asgi {size}"})
        # The transport above its high-water mark (as uvicorn hears it from the loop): the
        # direct send must leave the frame to the ASGI road, which waits.
        protocol = send_now.__self__
        protocol.pause_writing()
        self.refused_while_paused = not send_now(b"not sent")
        protocol.resume_writing()
        assert send_now(b"last")
        await send({"type": "websocket.close", "code": 1000})
        self.refused_after_close = not send_now(b"after the close")
        self.finished.set()


@contextlib.asynccontextmanager
async def serving(app: Any) -> AsyncIterator[str]:
    """``app`` served by uvicorn with the room's protocol on a free loopback port: its URL."""
    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, log_level="warning", ws=RoomWebSocketProtocol
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"ws://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        await task


@pytest.fixture
async def served() -> AsyncIterator[tuple[App, str]]:
    app = App()
    async with serving(app) as url:
        yield app, url


async def test_direct_frames_and_asgi_sends_arrive_as_sent_in_order(
    served: tuple[App, str],
) -> None:
    app, url = served
    received: list[str] = []
    async with connect(url, max_size=None, compression=None) as socket:
        async for message in socket:
            assert isinstance(message, str)
            received.append(message)
    expected = [text for size in SIZES for text in (payload(size), f"asgi {size}")] + ["last"]
    assert received == expected
    await app.finished.wait()
    assert app.refused_while_paused is True
    assert app.refused_after_close is True


async def _until(condition: Any) -> None:
    """Wait (turns of the loop, no time) until ``condition()`` holds."""
    while not condition():
        await asyncio.sleep(0)


class ReadingApp:
    """Takes the client's first message without the socket's reading having stopped for it,
    then lets the client send a burst without taking any, until reading stops; then takes the
    burst, and reading goes on."""

    def __init__(self) -> None:
        self.paused_for_one: bool | None = None
        self.waiting_when_paused = 0
        self.received: list[str] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        protocol = scope["extensions"][SEND_NOW].__self__
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        await _until(lambda: protocol.queue.qsize() == 1)
        self.paused_for_one = protocol.read_paused
        self.received.append((await receive())["text"])
        await send({"type": "websocket.send", "text": "go"})
        # The burst: the socket is read until READ_AHEAD messages wait, then no more.
        await _until(lambda: protocol.read_paused)
        self.waiting_when_paused = protocol.queue.qsize()
        while len(self.received) < 1 + 3 * READ_AHEAD:
            self.received.append((await receive())["text"])
        await send({"type": "websocket.send", "text": "done"})
        await send({"type": "websocket.close", "code": 1000})


async def test_a_socket_is_read_ahead_up_to_a_bound_and_every_message_arrives() -> None:
    app = ReadingApp()
    burst = [f"m{n}" for n in range(3 * READ_AHEAD)]
    async with serving(app) as url, connect(url, compression=None) as socket:
        await socket.send("first")
        assert await socket.recv() == "go"
        for text in burst:
            await socket.send(text)
        assert await socket.recv() == "done"
    assert app.paused_for_one is False
    assert app.waiting_when_paused >= READ_AHEAD
    assert app.received == ["first", *burst]


class TakingApp:
    """Has the protocol hand it each message (TAKE_MESSAGES): one at a time, in order, with
    nothing running for the connection between messages; a handler that waits makes reading
    stop after READ_AHEAD messages; saying False stops the taking; a handler's error ends it."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.fail_on = fail_on
        self.protocol: Any = None
        self.gate = asyncio.Event()
        self.received: list[str | bytes] = []
        self.running = self.most_running = 0
        self.outcome: str | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        take = scope["extensions"][TAKE_MESSAGES]
        self.protocol = take.__self__
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})

        async def handler(message: str | bytes) -> bool:
            self.running += 1
            self.most_running = max(self.most_running, self.running)
            try:
                if message == self.fail_on:
                    raise RuntimeError(f"cannot take {message!r}")
                if message == "wait":
                    await self.gate.wait()
                self.received.append(message)
                await send({"type": "websocket.send", "text": f"took {len(self.received)}"})
                return message != "stop"
            finally:
                self.running -= 1

        try:
            await take(handler)
            self.outcome = "done"
        except RuntimeError as error:
            self.outcome = str(error)
        with contextlib.suppress(Exception):
            await send({"type": "websocket.close", "code": 1000})


async def test_taken_messages_are_handled_one_at_a_time_in_order_and_nothing_waits_between() -> (
    None
):
    app = TakingApp()
    burst = [f"m{n}" for n in range(3 * READ_AHEAD)]
    async with serving(app) as url, connect(url, compression=None) as socket:
        await socket.send("first")
        assert await socket.recv() == "took 1"
        # Between two messages the connection has no task and no waiting read.
        await _until(lambda: app.protocol.queue._task is None)
        assert app.protocol.queue.qsize() == 0 and not app.protocol.read_paused
        # A handler that waits: reading stops once READ_AHEAD messages wait for it.
        await socket.send("wait")
        for text in burst:
            await socket.send(text)
        await socket.send(b"binary")
        await _until(lambda: app.protocol.read_paused)
        assert app.protocol.queue.qsize() >= READ_AHEAD
        app.gate.set()
        for n in range(2, 3 + len(burst) + 1):
            assert await socket.recv() == f"took {n}"
        assert not app.protocol.read_paused  # (read again once they were taken)
        # False: nothing more is taken, and the application goes on (here: closes).
        await socket.send("stop")
        await socket.send("too late")
        assert await socket.recv() == f"took {len(burst) + 4}"
        with contextlib.suppress(ConnectionClosed):
            await socket.recv()
    assert app.outcome == "done"
    assert app.received == ["first", "wait", *burst, b"binary", "stop"]
    assert app.most_running == 1


async def test_a_handlers_error_ends_the_taking_with_that_error() -> None:
    app = TakingApp(fail_on="bad")
    async with serving(app) as url, connect(url, compression=None) as socket:
        await socket.send("good")
        assert await socket.recv() == "took 1"
        await socket.send("bad")
        await socket.send("never")
        with contextlib.suppress(ConnectionClosed):
            await socket.recv()
    assert app.outcome == "cannot take 'bad'"
    assert app.received == ["good"]


async def test_a_client_that_goes_ends_the_taking() -> None:
    app = TakingApp()
    async with serving(app) as url:
        async with connect(url, compression=None) as socket:
            await socket.send("hello")
            assert await socket.recv() == "took 1"
        await _until(lambda: app.outcome is not None)
    assert app.outcome == "done"
    assert app.received == ["hello"]

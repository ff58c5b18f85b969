"""The server's event loop (rummyhall.server.acceptor.RoomLoop): connections that wait to be
accepted are accepted a batch a turn of the loop (libuv alone accepts one a turn, so a
busy server fell behind a burst of arrivals: bench/load.py's joins waited up to 20 s); a closed
server accepts no more; and a process out of file descriptors rests and then accepts again."""

from __future__ import annotations

import asyncio
import errno
import socket
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
import uvloop

from rummyhall.server import acceptor
from rummyhall.server.acceptor import ACCEPT_BATCH, BatchServer, RoomLoop

BURST = 8 * ACCEPT_BATCH
TURNS = BURST // ACCEPT_BATCH + 4
"""Turns of the loop the burst may take: ACCEPT_BATCH connections accepted a turn, and a few
turns to make the last ones' transports."""


class _Counting(asyncio.Protocol):
    def __init__(self, made: list[asyncio.BaseTransport]) -> None:
        self.made = made

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.made.append(transport)


def _run(loop: asyncio.AbstractEventLoop, main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    try:
        loop.run_until_complete(main())
    finally:
        loop.close()


async def _burst() -> list[int]:
    """How many of a burst of connections, made while the loop was busy, had been accepted
    after each of TURNS turns of the loop."""
    made: list[asyncio.BaseTransport] = []
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: _Counting(made), "127.0.0.1", 0, backlog=512)
    port = server.sockets[0].getsockname()[1]
    # The loop does nothing else meanwhile (this coroutine does not yield): the kernel completes
    # the handshakes and queues the connections, as it does while a busy loop works.
    clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(BURST)]
    try:
        counts = []
        for _ in range(TURNS):
            await asyncio.sleep(0)
            counts.append(len(made))
        return counts
    finally:
        for transport in made:
            transport.close()
        for client in clients:
            client.close()
        server.close()
        await server.wait_closed()


def test_a_burst_of_connections_is_accepted_a_batch_a_turn() -> None:
    accepted: list[list[int]] = []

    async def main() -> None:
        accepted.append(await _burst())

    _run(RoomLoop(), main)
    [counts] = accepted
    assert counts[-1] == BURST
    # (at most a batch a turn: the work each connection brings is spread over the turns)
    for turn, count in enumerate(counts, start=1):
        assert count <= turn * ACCEPT_BATCH


def test_uvloop_alone_accepts_one_connection_a_turn() -> None:
    """Why RoomLoop exists: if this fails, libuv accepts in batches again and the acceptor may
    go (server/acceptor.py)."""
    accepted: list[list[int]] = []

    async def main() -> None:
        accepted.append(await _burst())

    _run(uvloop.new_event_loop(), main)
    assert accepted[0][-1] <= TURNS


def test_a_closed_server_accepts_no_more() -> None:
    async def main() -> None:
        made: list[asyncio.BaseTransport] = []
        loop = asyncio.get_running_loop()
        server = await loop.create_server(lambda: _Counting(made), "127.0.0.1", 0)
        assert isinstance(server, BatchServer) and server.is_serving()
        port = server.sockets[0].getsockname()[1]
        with socket.create_connection(("127.0.0.1", port)):
            while not made:
                await asyncio.sleep(0)
        server.close()
        await server.wait_closed()
        assert not server.is_serving()
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port)).close()
        for transport in made:
            transport.close()

    _run(RoomLoop(), main)


class _OutOfFiles(socket.socket):
    """A listening socket whose first accept finds the process out of file descriptors."""

    failed = False

    def accept(self) -> tuple[socket.socket, Any]:
        if not self.failed:
            self.failed = True
            raise OSError(errno.EMFILE, "Too many open files")
        return super().accept()


def test_out_of_file_descriptors_the_server_rests_then_accepts_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(acceptor, "ACCEPT_RETRY_S", 0.05)

    async def main() -> None:
        made: list[asyncio.BaseTransport] = []
        loop = asyncio.get_running_loop()
        listener = _OutOfFiles(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        server = BatchServer(loop, lambda: _Counting(made), [listener])
        port = listener.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port)):
            while not listener.failed:
                await asyncio.sleep(0)
            assert not server.is_serving()  # resting, not spinning on the error
            while not made:  # (it listens again after ACCEPT_RETRY_S, and accepts)
                await asyncio.sleep(0.01)
            assert server.is_serving()
        server.close()
        for transport in made:
            transport.close()

    _run(RoomLoop(), main)

"""The server's event loop: uvloop's, accepting waiting connections a batch at each turn.

libuv (under uvloop) accepts one connection each time its loop polls, so that several
processes sharing a socket take turns. A room has one process, and while its loop is busy (a
turn takes tens of milliseconds when a thousand tables play) one connection a turn is a few dozen
a second: under a burst of arrivals the kernel's queue of connections waiting to be accepted
grew to 600 (``ss -ltn``), and a new player's first request waited up to 20 s for its turn
while the play went on, and some gave up (bench/load.py, the 400 ms stress).

:class:`RoomLoop` makes the servers uvicorn asks for itself: it listens on the same addresses
and, whenever a listening socket is ready, accepts up to :data:`ACCEPT_BATCH` connections and
hands each to the loop as uvloop would (``connect_accepted_socket``: the same transport, with
``TCP_NODELAY``). Anything but a plain TCP server (TLS, a socket passed in, ``reuse_port``) is
left to uvloop.

uvicorn takes it as its loop factory (``loop="rummyhall.server.acceptor:RoomLoop"``,
server/run.py).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
from collections.abc import Callable, Sequence
from typing import Any

import uvloop

log = logging.getLogger(__name__)

ACCEPT_BATCH = 16
"""The most connections accepted in one turn of the loop. Each brings work to the next turns
(its protocol, its first request), which every table waits behind: 256 at once stretched a turn
to 100-250 ms in a burst of a thousand arrivals (bench/load.py ``--tables 250 --ramp 1``), where
sixteen a turn are still hundreds a second on the busiest loop (turns of 25-50 ms)."""

ACCEPT_RETRY_S = 1.0
"""How long a listener rests after the process ran out of file descriptors (or memory) to
accept with, as asyncio's own loop does: accepting again at once would spin."""

_OUT_OF_RESOURCES = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}

ProtocolFactory = Callable[[], asyncio.BaseProtocol]


class RoomLoop(uvloop.Loop):
    """uvloop's loop, with plain TCP servers that accept in batches (see the module)."""

    async def create_server(  # type: ignore[override]
        self,
        protocol_factory: ProtocolFactory,
        host: str | Sequence[str] | None = None,
        port: int | None = None,
        *,
        sock: socket.socket | None = None,
        backlog: int = 100,
        ssl: Any = None,
        reuse_port: bool | None = None,
        **options: Any,
    ) -> asyncio.AbstractServer:
        if sock is not None or ssl is not None or reuse_port or options:
            uvloops: Any = super()  # (its overloads do not take the arguments passed through)
            return await uvloops.create_server(  # type: ignore[no-any-return]
                protocol_factory, host, port, sock=sock, backlog=backlog, ssl=ssl,
                reuse_port=reuse_port, **options,
            )  # fmt: skip
        listeners = await self._listen(host, port, backlog)
        return BatchServer(self, protocol_factory, listeners)

    async def _listen(
        self, host: str | Sequence[str] | None, port: int | None, backlog: int
    ) -> list[socket.socket]:
        """Listening sockets on every address of ``host`` (all interfaces if None), as
        asyncio's ``create_server`` makes them."""
        hosts: list[str | None] = (
            [host] if host is None or isinstance(host, str) else list(host)
        )  # fmt: skip
        addresses = []
        for name in hosts:
            for info in await self.getaddrinfo(
                name, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
            ):
                if info not in addresses:
                    addresses.append(info)
        listeners: list[socket.socket] = []
        try:
            for family, kind, proto, _, address in addresses:
                listener = socket.socket(family, kind, proto)
                listeners.append(listener)
                listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6:
                    # (else a v6 socket on "::" takes the v4 port as well, and the v4 bind fails)
                    listener.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                listener.bind(address)
                listener.listen(backlog)
                listener.setblocking(False)
        except OSError:
            for listener in listeners:
                listener.close()
            raise
        return listeners


class BatchServer(asyncio.AbstractServer):
    """Listening sockets whose connections are accepted in batches (:class:`RoomLoop`)."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        protocol_factory: ProtocolFactory,
        listeners: list[socket.socket],
    ) -> None:
        self._loop = loop
        self._protocol_factory = protocol_factory
        self._listeners = listeners
        self._serving = False
        self._closed = asyncio.Event()
        self._handing: set[asyncio.Task[None]] = set()
        """Accepted connections being handed to the loop (a task each, kept till done)."""
        self.start_listening()

    @property
    def sockets(self) -> tuple[socket.socket, ...]:
        return tuple(self._listeners)

    def get_loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    def is_serving(self) -> bool:
        return self._serving

    def start_listening(self) -> None:
        if self._serving or self._closed.is_set():
            return
        self._serving = True
        for listener in self._listeners:
            self._loop.add_reader(listener.fileno(), self._accept, listener)

    async def start_serving(self) -> None:
        self.start_listening()

    async def serve_forever(self) -> None:
        self.start_listening()
        await self._closed.wait()

    def close(self) -> None:
        """Stop accepting and close the listening sockets (open connections stay open)."""
        if self._closed.is_set():
            return
        self._closed.set()
        self._pause()
        for listener in self._listeners:
            listener.close()

    async def wait_closed(self) -> None:
        await self._closed.wait()

    def _pause(self) -> None:
        if self._serving:
            self._serving = False
            for listener in self._listeners:
                self._loop.remove_reader(listener.fileno())

    def _accept(self, listener: socket.socket) -> None:
        """The listening socket is ready: accept what waits, up to :data:`ACCEPT_BATCH`."""
        for _ in range(ACCEPT_BATCH):
            try:
                connection, _ = listener.accept()
            except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                return  # (nothing more waits; or a client gave up before its turn)
            except OSError as error:
                if error.errno not in _OUT_OF_RESOURCES:
                    raise
                log.error("cannot accept connections (%s); trying again in %.0f s",
                          error, ACCEPT_RETRY_S)  # fmt: skip
                self._pause()
                self._loop.call_later(ACCEPT_RETRY_S, self.start_listening)
                return
            connection.setblocking(False)
            task = self._loop.create_task(self._hand_on(connection))
            self._handing.add(task)
            task.add_done_callback(self._handing.discard)

    async def _hand_on(self, connection: socket.socket) -> None:
        try:
            await self._loop.connect_accepted_socket(self._protocol_factory, connection)
        except OSError as error:  # (the client went away before its transport was made)
            log.debug("an accepted connection failed at once: %s", error)
            connection.close()

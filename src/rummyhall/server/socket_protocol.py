"""The room's WebSocket protocol for uvicorn: uvicorn's own (sans-I/O, on the ``websockets``
library), plus a send that puts a text message's frame straight into the socket's buffer.

Tables send far more than they receive: every action is told to every watcher of its table,
each with its own view. Through ASGI a message is a coroutine for Starlette's ``send_text``,
another for its exception wrapper and one for uvicorn's ``send``, a dict to dispatch on, a
``Frame`` object and a list of writes: several times the cost of the message's encoding, and a
quarter of a busy server's event loop. A server's frame of a text message is the same every
time (RFC 6455: unmasked, one frame, no extension here, as per-message compression is off), so
:meth:`RoomWebSocketProtocol.send_now` writes it itself, synchronously, when it may: the
connection open, no close sent, nothing half-sent, and the transport taking data (below its
high-water mark). Otherwise it says so and the caller takes the ASGI road, which waits for the
socket and raises if the connection is gone (:class:`rummyhall.server.ws.Connection`).

The send is offered to the application in the connection's ASGI scope, under
:data:`SEND_NOW`, as ASGI offers such extras (``scope["extensions"]``); an application served by
another protocol simply does not find it.

Reading: uvicorn stops reading a socket after every message it hands on, and starts again when
the application takes it, which is two changes of the socket's registration with the event loop
(epoll, through uvloop) for each message a client sends. Here reading stops only once
:data:`READ_AHEAD` messages wait for the application: the same kind of bound on what a client
can make the server hold, without those changes for a client that sends a message and waits
for its answer, as the room's clients do. Everything else (the handshake, pings, the closing
handshake) is uvicorn's.

Taking messages: through ASGI, a connection waiting for its next message is a chain of
coroutines (Starlette's ``receive``, uvicorn's, the queue's ``get``) and a future, made anew
for every message and alive until the next one comes, a second or more later. With thousands
of players those were most of the young objects that every freeze of the cycle collector walks
(server/collector.py): at the 400 ms stress, about 19,500 of the 49,883 young objects at one
freeze were the waiting reads of 3,245 connections (three coroutines, a future, its iterator and
its callback each; issue 20, stop 44). So the protocol also offers, under
:data:`TAKE_MESSAGES`, to hand each message to the application's handler itself: a connection
then waits for nothing between messages, and a task runs only while there are messages to
handle, one at a time and in order (:class:`_Mailbox`).
"""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Awaitable, Callable
from typing import Any

from uvicorn._types import ASGIReceiveEvent
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request
from websockets.protocol import OPEN

SEND_NOW = "rummyhall.send_now"
"""The scope extension holding :meth:`RoomWebSocketProtocol.send_now` (``bytes -> bool``)."""

SendNow = Callable[[bytes], bool]

TAKE_MESSAGES = "rummyhall.take_messages"
"""The scope extension holding :meth:`RoomWebSocketProtocol.take_messages`."""

Handler = Callable[[str | bytes], Awaitable[bool]]
"""Handles one message (text as ``str``, binary as ``bytes``); says whether to take more."""

TakeMessages = Callable[[Handler], "asyncio.Future[None]"]

READ_AHEAD = 8
"""Messages a connection may have waiting for the application before its socket is no longer
read (until the application has taken them all, as uvicorn does). A connection's handler takes
one message at a time (server/ws.py) and refuses the excess of a fast sender itself."""

_TEXT_FIN = 0x81  # FIN and the text opcode: a whole text message in one frame
_SHORT = struct.Struct("!BB")
_MEDIUM = struct.Struct("!BBH")
_LONG = struct.Struct("!BBQ")


def text_frame(payload: bytes) -> bytes:
    """A server's frame of one whole text message (``payload`` is its UTF-8)."""
    size = len(payload)
    if size < 126:
        return _SHORT.pack(_TEXT_FIN, size) + payload
    if size < 1 << 16:
        return _MEDIUM.pack(_TEXT_FIN, 126, size) + payload
    return _LONG.pack(_TEXT_FIN, 127, size) + payload


class _Mailbox(asyncio.Queue[ASGIReceiveEvent]):
    """uvicorn's queue of a connection's events (it puts every message and the disconnect
    there), which, once a handler takes them (:meth:`take`), hands each message to it instead:
    one task handles the messages waiting, in order, and ends when none is left."""

    def __init__(self, protocol: RoomWebSocketProtocol) -> None:
        super().__init__()
        self.protocol: RoomWebSocketProtocol | None = protocol
        """(let go when the connection is lost: the protocol holds this queue)"""
        self._handler: Handler | None = None
        self._done: asyncio.Future[None] | None = None
        self._task: asyncio.Task[None] | None = None

    def take(self, handler: Handler) -> asyncio.Future[None]:
        """Hand every message from now on (and those queued already) to ``handler``; the
        future is done when the connection is gone or the handler said to stop (it holds what
        the handler raised, if it raised). Cancelling the future stops the handling."""
        self._done = done = asyncio.get_running_loop().create_future()
        self._handler = handler
        done.add_done_callback(self._stop)
        self._run()
        return done

    def _put(self, item: ASGIReceiveEvent) -> None:
        # (asyncio.Queue's hook for subclasses, under put_nowait)
        if self._done is None:
            super()._put(item)
        elif not self._done.done():  # (else nobody takes it: dropped)
            super()._put(item)
            self._run()

    def _run(self) -> None:
        if self._task is None and self._handler is not None and not self.empty():
            self._task = asyncio.get_running_loop().create_task(self._handle())

    async def _handle(self) -> None:
        done, handler = self._done, self._handler
        assert done is not None and handler is not None
        try:
            while not self.empty() and not done.done():
                event = self.get_nowait()
                protocol = self.protocol
                if self.empty() and protocol is not None and protocol.read_paused:
                    protocol.read_paused = False
                    protocol.transport.resume_reading()
                if event["type"] != "websocket.receive":  # (the disconnect)
                    done.set_result(None)
                    break
                text = event.get("text")
                more = await handler(text if text is not None else event.get("bytes") or b"")
                if not more and not done.done():
                    done.set_result(None)
        except BaseException as error:
            if not done.done():
                if isinstance(error, asyncio.CancelledError):
                    done.cancel()
                else:
                    done.set_exception(error)
            if not isinstance(error, Exception):
                raise
        finally:
            self._task = None
            # The handler's exception holds this frame, and the frame the future: a ring.
            del done, handler

    def _stop(self, _: Any) -> None:
        """Done: nothing more is handed on, and the handler is let go of (it holds the
        connection's scope, which holds the protocol, which holds this queue: a ring)."""
        self._handler = None
        while not self.empty():
            self.get_nowait()
        task = self._task
        if task is not None:
            task.cancel()  # (the connection's task was cancelled: so is its handling)


class RoomWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol with :meth:`send_now` and :meth:`take_messages` in
    each connection's scope."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue: _Mailbox = _Mailbox(self)

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        # An accepted upgrade has its scope now; its application task has not started yet.
        scope = self.__dict__.get("scope")
        if scope is not None:
            scope["extensions"][SEND_NOW] = self.send_now
            scope["extensions"][TAKE_MESSAGES] = self.take_messages

    def take_messages(self, handler: Handler) -> asyncio.Future[None]:
        """From now on, hand each message to ``handler`` (``await``-ed, one at a time, in
        order) instead of queueing it for ASGI's ``receive``; returns a future done when the
        connection has closed, or ``handler`` said False, or raised (the future holds that)."""
        return self.queue.take(handler)

    def send_receive_event_to_app(self) -> None:
        if self.read_paused or self.queue.qsize() + 1 >= READ_AHEAD:
            super().send_receive_event_to_app()  # (it stops reading, unless stopped already)
            return
        # uvicorn's own, told that reading is stopped already, so that it does not stop it.
        self.read_paused = True
        try:
            super().send_receive_event_to_app()
        finally:
            self.read_paused = False

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        # The scope holds the protocol (through the bound method) and the protocol its scope: a
        # reference cycle that would outlive the connection until the cycle collector came by
        # (server/collector.py keeps long-lived objects out of its sight for a while).
        scope = self.__dict__.get("scope")
        if scope is not None:
            scope["extensions"].pop(SEND_NOW, None)
            scope["extensions"].pop(TAKE_MESSAGES, None)
        self.queue.protocol = None

    def send_now(self, payload: bytes) -> bool:
        """Write a text message's frame to the socket's buffer at once, and say True; or, if
        that may not be done now (the socket's buffer full, the connection closing or closed,
        an extension negotiated), write nothing and say False."""
        conn = self.conn
        if (
            self.close_sent
            or not self.handshake_complete
            or not self.writable.is_set()
            or conn.state is not OPEN
            or conn.expect_continuation_frame
            or conn.extensions
            or self.transport.is_closing()
        ):
            return False
        self.transport.write(text_frame(payload))
        return True

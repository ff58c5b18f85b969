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
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request
from websockets.protocol import OPEN

SEND_NOW = "rummyhall.send_now"
"""The scope extension holding :meth:`RoomWebSocketProtocol.send_now` (``bytes -> bool``)."""

SendNow = Callable[[bytes], bool]

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


class RoomWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol with :meth:`send_now` in each connection's scope."""

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        # An accepted upgrade has its scope now; its application task has not started yet.
        scope = self.__dict__.get("scope")
        if scope is not None:
            scope["extensions"][SEND_NOW] = self.send_now

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

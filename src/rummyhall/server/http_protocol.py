"""The room's HTTP protocol for uvicorn: uvicorn's own (on ``httptools``), which lets go of its
parser when its connection becomes a WebSocket.

The protocol and its parser refer to each other: the parser calls the protocol's methods back
as it reads a request. uvicorn drops the parser when the connection closes, but not when it
hands the connection over to the WebSocket protocol, so every WebSocket the room ever accepted
left that pair behind (with its flow control, events and buffers: some 60 objects), for the
cycle collector alone to free. Measured with the collector's freezes (server/collector.py) at
100 tables with 100 spectators and 200 idle sockets: 699 of them, one per WebSocket, the bulk
of the garbage those collections found.
"""

from __future__ import annotations

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class RoomHttpProtocol(HttpToolsProtocol):
    def handle_websocket_upgrade(self) -> None:
        super().handle_websocket_upgrade()
        # The connection is the WebSocket protocol's now (uvicorn has handed the transport
        # over, and this protocol is not called again): the pair's ring is broken here.
        self.parser = None  # type: ignore[assignment]

"""A WebSocket client reduced to what the load benchmark's players need, on a plain asyncio
protocol: the handshake, text frames both ways, and pongs for the server's pings.

The load benchmark runs its thousands of players in one or two processes on the same machine as
the server, so what a player costs is CPU the server does not get. The project's own client
(``rummyhall.client.RoomClient``, on the ``websockets`` library) spends a reader task, queues and
futures on every message; here a frame is parsed where it arrives and handed to a callback, which
costs a fraction of that. It is the benchmark's load generator, not a general client: it assumes
a well-behaved server (frames from the server are never masked; control frames are not
fragmented) and closes on anything else.
"""

from __future__ import annotations

import asyncio
import base64
import os
import random
import struct
from collections.abc import Callable
from typing import Any

TEXT, CLOSE, PING, PONG = 0x1, 0x8, 0x9, 0xA


class LeanSocket(asyncio.Protocol):
    """One client connection; ``on_text`` gets every text message, in order."""

    def __init__(self, on_text: Callable[[str], None], masks: random.Random) -> None:
        self.on_text = on_text
        self.masks = masks
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.upgraded: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.parts: list[bytes] = []
        self.closed = False

    # --- asyncio.Protocol ------------------------------------------------------------------------

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.upgraded.done():
            self.upgraded.set_exception(ConnectionError("the connection closed before the upgrade"))

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        buffer += data
        if not self.upgraded.done():
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(buffer[: buffer.find(b"\r\n")])
            del buffer[: end + 4]
            if b" 101 " not in status:
                self.upgraded.set_exception(ConnectionError(status.decode("latin-1")))
                self.close()
                return
            self.upgraded.set_result(None)
        self._frames()

    # --- frames ----------------------------------------------------------------------------------

    def _frames(self) -> None:
        buffer = self.buffer
        start = 0
        size = len(buffer)
        while size - start >= 2:
            first, second = buffer[start], buffer[start + 1]
            length = second & 0x7F
            head = 2
            if length == 126:
                if size - start < 4:
                    break
                length = struct.unpack_from("!H", buffer, start + 2)[0]
                head = 4
            elif length == 127:
                if size - start < 10:
                    break
                length = struct.unpack_from("!Q", buffer, start + 2)[0]
                head = 10
            if second & 0x80 or size - start < head + length:
                if second & 0x80:  # a masked frame from the server: not a server we know
                    self.close()
                    return
                break
            payload = bytes(buffer[start + head : start + head + length])
            start += head + length
            opcode = first & 0x0F
            if opcode == TEXT or (opcode == 0 and self.parts):
                self.parts.append(payload)
                if first & 0x80:
                    text = b"".join(self.parts).decode()
                    self.parts = []
                    self.on_text(text)
            elif opcode == PING:
                self._send(PONG, payload)
            elif opcode == CLOSE:
                self.close()
                return
        del buffer[:start]

    def _send(self, opcode: int, payload: bytes) -> None:
        if self.closed or self.transport is None:
            return
        n = len(payload)
        if n < 126:
            head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
        elif n < 1 << 16:
            head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
        else:
            head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
        # A client masks every frame (RFC 6455): XOR with a 4-byte key, done as one big-int XOR.
        key = self.masks.getrandbits(32).to_bytes(4, "big")
        stream = (key * (n // 4 + 1))[:n]
        masked = (int.from_bytes(payload, "big") ^ int.from_bytes(stream, "big")).to_bytes(n, "big")
        self.transport.write(head + key + masked)

    def send_text(self, text: str) -> None:
        self._send(TEXT, text.encode())

    def close(self) -> None:
        if not self.closed and self.transport is not None:
            self.closed = True
            self.transport.close()


async def open_socket(
    host: str, port: int, cookie: str, on_text: Callable[[str], None], masks: random.Random
) -> LeanSocket:
    """Connect to ``ws://host:port/ws`` with the session ``cookie`` and complete the handshake."""
    loop = asyncio.get_running_loop()
    _, socket = await loop.create_connection(lambda: LeanSocket(on_text, masks), host, port)
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        f"Cookie: {cookie}\r\n\r\n"
    )
    assert socket.transport is not None
    socket.transport.write(request.encode())
    await socket.upgraded
    return socket

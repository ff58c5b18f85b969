"""A Python client of the room server over its real HTTP API and WebSocket (docs/protocol.md),
used by the tests, by bot processes and by the load benchmark.

    async with RoomClient("http://localhost:8000") as client:
        await client.guest()
        table, seat = await client.quick_seat("patti-10-5p")
        await client.watch(table)
        state = await client.wait_for(table, lambda m: m["view"] is not None)
        await client.act(table, "chaal")
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import ssl
import uuid
from collections.abc import Callable
from types import TracebackType
from typing import Any

import httpx
import orjson
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Origin

JSON = dict[str, Any]


@functools.cache
def _tls() -> ssl.SSLContext:
    """One TLS context for every client of the process: building one (loading the certificate
    authorities) costs more than a whole request, and bots and benchmarks make thousands."""
    return ssl.create_default_context()


class ClientError(Exception):
    """The server refused a request: ``code`` is its stable error code."""

    def __init__(self, code: str, message: str, status: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status


class RoomClient:
    def __init__(self, base_url: str, *, origin: str | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.origin = origin
        self.http = httpx.AsyncClient(base_url=self.base_url, timeout=30, verify=_tls())
        self.me: JSON | None = None
        self.tables: dict[int, JSON] = {}
        """The last snapshot or update of each watched table."""
        self._snapshots: dict[int, JSON] = {}
        """The latest snapshot of each table (what :meth:`watch` answers with)."""
        self.received: list[JSON] = []
        """Every message received, in order, when ``keep_received`` (tests inspect them)."""
        self.keep_received = False
        self._socket: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._pending: dict[str, asyncio.Future[JSON]] = {}
        self._feeds: dict[int, asyncio.Queue[JSON]] = {}
        # Coroutines in wait_for(), woken after each message (cheaper than a Condition, whose
        # lock would be taken for every message even when nobody waits).
        self._waiters: set[asyncio.Future[None]] = set()
        self.closed_reason: str | None = None

    async def __aenter__(self) -> RoomClient:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # --- HTTP ------------------------------------------------------------------------------------

    async def request(self, method: str, path: str, body: JSON | None = None) -> JSON:
        response = await self.http.request(method, path, json=body)
        data: JSON = response.json() if response.content else {}
        if response.status_code >= 400:
            problem = data.get("error", {})
            raise ClientError(
                str(problem.get("code", "http_error")),
                str(problem.get("message", response.text)),
                response.status_code,
            )
        return data

    async def register(self, name: str, password: str) -> JSON:
        self.me = await self.request("POST", "/api/register", {"name": name, "password": password})
        return self.me

    async def login(self, name: str, password: str) -> JSON:
        self.me = await self.request("POST", "/api/login", {"name": name, "password": password})
        return self.me

    async def guest(self) -> JSON:
        self.me = await self.request("POST", "/api/guest")
        return self.me

    async def chips(self) -> int:
        """The real chips in the wallet (a guest holds none)."""
        return int((await self.request("GET", "/api/me"))["chips"])

    async def practice(self) -> int:
        """The practice chips in the wallet."""
        return int((await self.request("GET", "/api/me"))["practice"])

    async def refill_practice(self) -> int:
        """A free refill of practice chips (when they run low); the wallet's new balance."""
        return int((await self.request("POST", "/api/practice/refill"))["practice"])

    async def quick_seat(
        self, room: str, *, auto_rebuy: bool = False, another: bool = False
    ) -> tuple[int, int]:
        body: JSON = {"room": room, "auto_rebuy": auto_rebuy, "another": another}
        data = await self.request("POST", "/api/quick-seat", body)
        return int(data["table"]), int(data["seat"])

    # --- WebSocket -------------------------------------------------------------------------------

    async def connect(self) -> None:
        url = "ws" + self.base_url.removeprefix("http") + "/ws"
        cookie = "; ".join(f"{name}={value}" for name, value in self.http.cookies.items())
        headers = {"Cookie": cookie} if cookie else {}
        self._socket = await connect(
            url,
            additional_headers=headers,
            origin=None if self.origin is None else Origin(self.origin),
            max_size=2**22,
            # The server pings every connection; pinging it back would double that traffic.
            ping_interval=None,
        )
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self._socket is not None
        try:
            async for text in self._socket:
                message: JSON = orjson.loads(text)
                kind = message.get("type")
                cid = message.get("cid")
                # An update carrying our cid is the answer to the action that caused it.
                if cid is not None and cid in self._pending:
                    future = self._pending.pop(cid)
                    if not future.done():
                        future.set_result(message)
                if kind == "snapshot" or (kind == "error" and message.get("table") is not None):
                    # An error naming a table may be the answer to a watch (it has no cid).
                    self._snapshots[int(message["table"])] = message
                if kind in ("snapshot", "update", "closed"):
                    self.tables[int(message["table"])] = message
                    feed = self._feeds.get(int(message["table"]))
                    if feed is not None:
                        feed.put_nowait(message)
                if self.keep_received:
                    self.received.append(message)
                if self._waiters:
                    self._wake()
        except Exception as error:  # the connection went away
            self.closed_reason = repr(error)
        finally:
            self.closed_reason = self.closed_reason or "closed"
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ClientError("disconnected", self.closed_reason))
            self._pending.clear()
            self._wake()

    async def _send_text(self, text: str) -> None:
        """Put ``text`` on the socket; ClientError ``disconnected`` if the connection is gone,
        as when it goes while an answer is awaited (the server may have closed it a moment ago,
        before this client read the close: a node draining, a session ended)."""
        if self._socket is None:
            raise ClientError("disconnected", "not connected")
        try:
            await self._socket.send(text)
        except ConnectionClosed as error:
            raise ClientError("disconnected", self.closed_reason or repr(error)) from error

    async def send(self, message: JSON) -> JSON:
        """Send a message and wait for its answer (ack, error or pong)."""
        if self._socket is None:
            raise ClientError("disconnected", "not connected")
        cid = str(message.setdefault("cid", uuid.uuid4().hex))
        future: asyncio.Future[JSON] = asyncio.get_running_loop().create_future()
        self._pending[cid] = future
        try:
            await self._send_text(orjson.dumps(message).decode())
            async with asyncio.timeout(30):
                answer = await future
        finally:
            self._pending.pop(cid, None)
        if answer["type"] == "error":
            raise ClientError(str(answer["code"]), str(answer["message"]))
        return answer

    async def send_raw(self, text: str | bytes) -> None:
        assert self._socket is not None
        await self._socket.send(text)

    async def watch(self, table: int, since: int | None = None, timeout: float = 30) -> JSON:
        """Subscribe to a table and return its snapshot."""
        # The snapshot itself, not the latest message: updates (a bot's move, a player coming
        # back) may follow it before this task runs again.
        self.tables.pop(table, None)
        self._snapshots.pop(table, None)
        await self._send_text(json.dumps({"type": "watch", "table": table, "since": since}))
        answer = await self._until(lambda: self._snapshots.get(table), timeout)
        if answer["type"] == "error":
            raise ClientError(str(answer["code"]), str(answer["message"]))
        return answer

    async def sit(self, table: int, seat: int | None = None) -> int:
        return int((await self.send({"type": "sit", "table": table, "seat": seat}))["seat"])

    async def leave(self, table: int) -> JSON:
        return await self.send({"type": "leave", "table": table})

    async def act(self, table: int, action: str, cid: str | None = None) -> int:
        message: JSON = {"type": "act", "table": table, "action": action}
        if cid is not None:
            message["cid"] = cid
        return int((await self.send(message))["seq"])

    def follow(self, table: int) -> asyncio.Queue[JSON]:
        """Every message of the table from now on, in order (for code that must see each one)."""
        return self._feeds.setdefault(table, asyncio.Queue())

    async def wait_for(
        self, table: int, predicate: Callable[[JSON], bool], timeout: float = 30
    ) -> JSON:
        """Wait until the table's latest message satisfies ``predicate``; return it."""

        def check() -> JSON | None:
            latest = self.tables.get(table)
            return latest if latest is not None and predicate(latest) else None

        return await self._until(check, timeout)

    async def _until(self, check: Callable[[], JSON | None], timeout: float) -> JSON:
        """Wait until ``check()`` gives a message (checked after every message received)."""

        async def wait() -> JSON:
            while True:
                found = check()
                if found is not None:
                    return found
                if self.closed_reason is not None:
                    raise ClientError("disconnected", self.closed_reason)
                woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
                self._waiters.add(woken)
                try:
                    await woken
                finally:
                    self._waiters.discard(woken)

        # asyncio.timeout rather than wait_for: on Python 3.11 wait_for loses a cancellation that
        # arrives as the awaited message does, and the caller goes on as if never cancelled.
        async with asyncio.timeout(timeout):
            return await wait()

    def _wake(self) -> None:
        for woken in self._waiters:
            if not woken.done():
                woken.set_result(None)
        self._waiters.clear()

    async def disconnect(self) -> None:
        if self._socket is not None:
            try:
                async with asyncio.timeout(5):
                    await self._socket.close()
            except TimeoutError:  # the server went away without closing: drop the connection
                self._socket.transport.abort()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        self._socket = None
        self._reader = None
        self.closed_reason = None

    async def close(self) -> None:
        await self.disconnect()
        await self.http.aclose()

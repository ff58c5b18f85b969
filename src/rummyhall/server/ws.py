"""The WebSocket endpoint (``/ws``): one connection per browser tab or client, authenticated by
the session cookie in the handshake, Origin checked against the server's own host.

Tables hand each connection its text and never wait for it: a send completes at once into the
socket's buffer, and a slow reader's messages queue behind it up to a limit, past which the
connection is closed (it reconnects and gets a snapshot). Incoming messages are limited in size
and rate, validated against the wire models, and every refusal is an ``error`` message with a
stable code; nothing a client sends can stop a table or the server.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
import time
from collections import deque
from collections.abc import Coroutine
from typing import Any

import orjson
from fastapi import WebSocket, WebSocketDisconnect
from pydantic import TypeAdapter, ValidationError
from starlette.types import ASGIApp, Receive, Scope, Send

from rummyhall.games.protocol import GameError
from rummyhall.server.api import account_of
from rummyhall.server.cluster.node import CLOSE_TABLE_MOVED
from rummyhall.server.errors import RoomError
from rummyhall.server.hub import Hub, Watching
from rummyhall.server.open_sockets import OpenSockets
from rummyhall.server.settings import Settings
from rummyhall.server.socket_protocol import SEND_NOW, TAKE_MESSAGES, SendNow, TakeMessages
from rummyhall.server.wire import Act, ClientMessage, Leave, Ping, Sit, Unwatch, Watch

log = logging.getLogger(__name__)

PATH = "/ws"
"""Where the room's WebSocket is served."""

_MESSAGES: TypeAdapter[Any] = TypeAdapter(ClientMessage)

# WebSocket close codes (4000-4999 are ours).
CLOSE_NOT_SIGNED_IN = 4401
CLOSE_BAD_ORIGIN = 4403
CLOSE_TOO_SLOW = 4408
CLOSE_ABUSE = 4429

_NUMBERS = itertools.count(secrets.randbits(62))
"""Connection numbers, from a random start: another node tells this process's connections by
them, and a restarted node (the same id) must not reuse its previous process's numbers, for
which the owner of a table may still have listeners (messages of another seat)."""


class Connection:
    """One client connection: who it is, and the messages it still has to be sent.

    A send normally completes on the spot: uvicorn puts the frame in the socket's buffer without
    waiting, so :meth:`send` runs ``websocket.send_text`` to its end right away, with no task and
    no queue (a queue and a task per connection cost a task switch and a wait per message, and
    the waits' coroutines and futures, alive while players think, crowd the cycle collector's
    young generations). Only when the socket's buffer is full (a slow reader) does a send have
    to wait; a task finishes it, later messages queue behind it in order, and a reader more than
    ``limit`` messages behind is closed (it reconnects and gets a snapshot).

    Served by :class:`~rummyhall.server.socket_protocol.RoomWebSocketProtocol`, a send that
    need not wait skips even that coroutine: the frame goes into the socket's buffer at once
    (``send_now``), and the ASGI road is taken only when it must wait or fail."""

    def __init__(
        self, websocket: WebSocket, account_id: int, name: str, limit: int, *, guest: bool = False
    ) -> None:
        self.websocket = websocket
        self.account_id = account_id
        self.name = name
        self.guest = guest
        """A guest's connection: it may sit in practice rooms only."""
        self.limit = limit
        self.number = next(_NUMBERS)
        """Unique on this server: how another node addresses the messages it relays for this
        connection (several nodes, server/cluster/relay.py)."""
        self.send_now: SendNow | None = websocket.scope.get("extensions", {}).get(SEND_NOW)
        self.backlog: deque[str | bytes] = deque()
        self.flusher: asyncio.Task[None] | None = None
        self.closer: asyncio.Task[None] | None = None
        self.closed = False  # too slow, or the socket went away: nothing more is sent

    def send(self, text: str | bytes) -> None:
        """Send a text message (``bytes``: its UTF-8, as the tables encode theirs)."""
        if self.closed:
            return
        if self.flusher is not None:
            if len(self.backlog) < self.limit:
                self.backlog.append(text)
            else:
                self._too_slow()
            return
        if self.send_now is not None and self.send_now(
            text if isinstance(text, bytes) else text.encode()
        ):
            return
        sending = self.websocket.send_text(_text(text))
        try:
            waiting = sending.send(None)
        except StopIteration:
            return  # sent
        except Exception:
            self.closed = True  # the socket is gone; the receiving loop sees the disconnect
            return
        self.flusher = asyncio.create_task(self._flush(sending, waiting))

    async def _flush(self, sending: Coroutine[Any, Any, None], waiting: Any) -> None:
        try:
            await _finish_started(sending, waiting)
            while self.backlog and not self.closed:
                await self.websocket.send_text(_text(self.backlog.popleft()))
        except Exception:
            self.closed = True
        finally:
            self.flusher = None

    def _too_slow(self) -> None:
        self.closed = True
        self.backlog.clear()
        if self.flusher is not None:
            self.flusher.cancel()
        self.closer = asyncio.create_task(
            self.websocket.close(CLOSE_TOO_SLOW, "too slow to read its messages")
        )

    def stop(self) -> None:
        """The connection is over: drop what was not sent."""
        self.closed = True
        self.backlog.clear()
        for task in (self.flusher, self.closer):
            if task is not None:
                task.cancel()


def _text(text: str | bytes) -> str:
    return text.decode() if isinstance(text, bytes) else text


async def _finish_started(coroutine: Coroutine[Any, Any, None], waiting: Any) -> None:
    """Run to its end a coroutine started by hand (``coroutine.send(None)``) that returned
    ``waiting``, the future it waits for, doing what a task does with it: wait for that future,
    resume the coroutine, and so on. (Python 3.12's eager tasks do this for any coroutine.)"""
    try:
        while True:
            if isinstance(waiting, asyncio.Future):
                waiting._asyncio_future_blocking = False
                await asyncio.wait([waiting])
            else:  # a bare yield: let the loop go round once
                await asyncio.sleep(0)
            waiting = coroutine.send(None)
    except StopIteration:
        return
    except asyncio.CancelledError:
        coroutine.close()
        raise


class RateLimit:
    """A token bucket: ``rate`` messages a second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic()
        self.refused = 0

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            self.refused = 0
            return True
        self.refused += 1
        return False


def origin_allowed(origin: str | None, host: str | None, settings: Settings) -> bool:
    """Browsers always send Origin; it must be this server (or one the operator allows). Clients
    that are not browsers send none, and cannot be used for cross-site attacks."""
    if origin is None:
        return True
    if origin in settings.allowed_origins:
        return True
    return host is not None and origin in (f"http://{host}", f"https://{host}")


def error(code: str, message: str, **extra: Any) -> str:
    return orjson.dumps({"type": "error", "code": code, "message": message, **extra}).decode()


class DirectSockets:
    """ASGI middleware that hands a WebSocket at :data:`PATH` straight to its endpoint, past the
    framework's inner layers (exception handlers, dependency exit stack, router, route).

    A connection's whole life is one ASGI call, and every layer it passes through keeps a
    coroutine with its frame, cells and locals alive for as long as the socket is open: through
    the full stack, some 25 coroutines and 200 objects the cycle collector tracks per socket.
    With thousands of sockets those make most of the room's long-lived objects, and every
    collection of the older generations walks all of them: a full collection at a thousand tables
    (5,200 sockets) stalled every table for about a second. None of those layers does anything
    for this endpoint: it has no dependencies, raises no HTTP errors, and handles its own.

    Added to the app before the trusted-host check, so that the check (a Host header we do not
    serve is refused before the socket is accepted, as for any request) and the framework's
    outermost layers still come first; only what lies after it is skipped."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and scope["path"] == PATH:
            await websocket_endpoint(WebSocket(scope, receive, send))
        else:
            await self.app(scope, receive, send)


async def websocket_endpoint(websocket: WebSocket) -> None:
    app = websocket.app
    hub: Hub = app.state.hub
    settings: Settings = app.state.settings
    # A refusal completes the handshake and then closes with our code: closing before accept()
    # makes the server answer the handshake with a bare HTTP 403, which a browser's WebSocket
    # cannot tell apart from a network failure (it sees close code 1006), so the client could
    # not know that it must sign in (4401) or that it is on a foreign page (4403). Nothing is
    # sent or read before the close, so accepting first gives a foreign page nothing.
    if not origin_allowed(websocket.headers.get("origin"), websocket.headers.get("host"), settings):
        await _refuse(websocket, CLOSE_BAD_ORIGIN, "origin not allowed")
        return
    account = await account_of(app, websocket.cookies)
    if account is None:
        await _refuse(websocket, CLOSE_NOT_SIGNED_IN, "sign in first")
        return
    await websocket.accept()
    connection = Connection(
        websocket, account.id, account.name, settings.outbox_limit, guest=account.is_guest
    )

    async def signed_out() -> None:
        connection.closed = True
        await websocket.close(CLOSE_NOT_SIGNED_IN, "signed out")

    sockets: OpenSockets = app.state.sockets
    sockets.add(account.id, websocket.cookies.get(settings.cookie_name, ""), signed_out)
    hub.metrics.connections.inc()
    watching: dict[int, Watching] = {}
    messages = _Messages(
        connection,
        hub,
        settings,
        watching,
        RateLimit(settings.rate_per_second, settings.rate_burst),
    )
    try:
        # A connection closed for reading too slowly ends when its client goes (or is gone).
        take_messages: TakeMessages | None = websocket.scope.get("extensions", {}).get(
            TAKE_MESSAGES
        )
        if take_messages is not None:
            # The room's own protocol hands each message to ``take`` as it comes: nothing
            # waits for the next one (server/socket_protocol.py).
            await take_messages(messages.take)
        else:
            while True:
                frame = await websocket.receive()
                if frame["type"] == "websocket.disconnect":
                    break
                text = frame.get("text")
                if not await messages.take(text if text is not None else frame.get("bytes") or b""):
                    break
    except WebSocketDisconnect:
        pass
    finally:
        sockets.remove(account.id, signed_out)
        for table in watching.values():
            table.unwatch(connection)
        connection.stop()
        hub.metrics.connections.dec()


class _Messages:
    """What a connection's messages are handed to, one at a time (its endpoint's state)."""

    __slots__ = ("connection", "hub", "limit", "settings", "watching")

    def __init__(
        self,
        connection: Connection,
        hub: Hub,
        settings: Settings,
        watching: dict[int, Watching],
        limit: RateLimit,
    ) -> None:
        self.connection = connection
        self.hub = hub
        self.settings = settings
        self.watching = watching
        self.limit = limit

    async def take(self, message: str | bytes) -> bool:
        """One message of the client's; False when the connection is to be closed."""
        connection, hub, settings = self.connection, self.hub, self.settings
        if isinstance(message, str):
            text: str | None = message
        else:
            text = (
                message.decode("utf-8", "replace")
                if len(message) <= settings.max_message_bytes
                else None
            )
        if not self.limit.allow():
            hub.metrics.error("rate_limited")
            connection.send(
                error("rate_limited", "too many messages; slow down", cid=_cid_of(text))
            )
            if self.limit.refused > 4 * settings.rate_burst:
                await connection.websocket.close(CLOSE_ABUSE, "too many messages")
                return False
            return True
        if text is None or len(text.encode()) > settings.max_message_bytes:
            hub.metrics.error("too_large")
            connection.send(
                error("too_large", f"messages are limited to {settings.max_message_bytes} bytes")
            )
            return True
        await _handle(text, connection, hub, self.watching)
        return True


async def _refuse(websocket: WebSocket, code: int, reason: str) -> None:
    """Complete the handshake and close at once with ``code`` (docs/protocol.md, WebSocket)."""
    await websocket.accept()
    await websocket.close(code, reason)


async def _handle(
    text: str, connection: Connection, hub: Hub, watching: dict[int, Watching]
) -> None:
    cid: Any = None
    try:
        raw = orjson.loads(text)
        if isinstance(raw, dict):
            cid = raw.get("cid") if isinstance(raw.get("cid"), str) else None
        message = _MESSAGES.validate_python(raw)
    except (ValueError, ValidationError) as problem:
        hub.metrics.error("bad_message")
        detail = (
            problem.errors()[0]["msg"] if isinstance(problem, ValidationError) else str(problem)
        )
        connection.send(error("bad_message", f"not a valid message: {detail}", cid=cid))
        return
    try:
        if isinstance(message, Ping):
            connection.send(orjson.dumps({"type": "pong", "cid": message.cid}).decode())
        elif isinstance(message, Watch):
            old = watching.pop(message.table, None)
            if old is not None:
                old.unwatch(connection)
            # (the endpoint's finally, which unwatches, runs after this: a connection's
            # messages are handled one at a time, and its end comes after them)
            watching[message.table] = await hub.watch(message.table, connection)
        elif isinstance(message, Unwatch):
            actor_or_none = watching.pop(message.table, None)
            if actor_or_none is not None:
                actor_or_none.unwatch(connection)
        elif isinstance(message, Sit):
            seat, seq = await hub.sit(
                connection.account_id,
                connection.name,
                message.table,
                guest=connection.guest,
                another=message.another,
                seat=message.seat,
                buy_in=message.buy_in,
                auto_rebuy=message.auto_rebuy,
            )
            connection.send(_ack(message.cid, message.table, seq, seat=seat))
        elif isinstance(message, Leave):
            later, seq = await hub.leave(message.table, connection.account_id)
            connection.send(_ack(message.cid, message.table, seq, after_game=later))
        elif isinstance(message, Act):
            acted = await hub.act(
                message.table, connection.account_id, message.action, message.cid, connection
            )
            if acted is not None:  # else the update this connection got carried the cid
                connection.send(_ack(message.cid, message.table, acted))
    except (RoomError, GameError) as problem:
        hub.metrics.error(problem.code)
        table = getattr(message, "table", None)
        connection.send(error(problem.code, problem.message, cid=cid, table=table))
        if problem.code == "table_moved" and not connection.closed:
            # (several nodes) What this socket watched of the table is stale: the client
            # reconnects and watches it again, wherever it runs now, as after a node's drop.
            connection.closed = True
            await connection.websocket.close(CLOSE_TABLE_MOVED, "the table moved; reconnect")
    except Exception:
        log.exception("unexpected error handling a message")
        hub.metrics.error("internal")
        connection.send(error("internal", "something went wrong on our side", cid=cid))


def _cid_of(text: str | None) -> str | None:
    """The client id of a message we will not handle, so that the client can match the error."""
    if text is None:
        return None
    try:
        raw = orjson.loads(text)
    except ValueError:
        return None
    cid = raw.get("cid") if isinstance(raw, dict) else None
    return cid if isinstance(cid, str) and len(cid) <= 64 else None


def _ack(cid: str | None, table: int, seq: int, **extra: Any) -> str:
    data: dict[str, Any] = {"type": "ack", "cid": cid, "table": table, "seq": seq}
    data.update(extra)
    return orjson.dumps(data).decode()

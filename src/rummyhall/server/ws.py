"""The WebSocket endpoint (``/ws``): one connection per browser tab or client, authenticated by
the session cookie in the handshake, Origin checked against the server's own host.

Each connection has an outbox drained by its own task, so a slow reader never holds up a table:
tables only queue text, and a connection whose outbox overflows is closed (it reconnects and gets
a snapshot). Incoming messages are limited in size and rate, validated against the wire models,
and every refusal is an ``error`` message with a stable code; nothing a client sends can stop a
table or the server.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import orjson
from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import TypeAdapter, ValidationError

from rummyhall.games.protocol import GameError
from rummyhall.server.api import account_of
from rummyhall.server.errors import RoomError
from rummyhall.server.hub import Hub
from rummyhall.server.settings import Settings
from rummyhall.server.table import TableActor
from rummyhall.server.wire import Act, ClientMessage, Leave, Ping, Sit, Unwatch, Watch

log = logging.getLogger(__name__)

router = APIRouter()

_MESSAGES: TypeAdapter[Any] = TypeAdapter(ClientMessage)

# WebSocket close codes (4000-4999 are ours).
CLOSE_NOT_SIGNED_IN = 4401
CLOSE_BAD_ORIGIN = 4403
CLOSE_TOO_SLOW = 4408
CLOSE_ABUSE = 4429


class Connection:
    """One client connection: who it is and its outbox."""

    def __init__(self, websocket: WebSocket, account_id: int, name: str, limit: int) -> None:
        self.websocket = websocket
        self.account_id = account_id
        self.name = name
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue(maxsize=limit)
        self.overflowed = False

    def send(self, text: str) -> None:
        if self.overflowed:
            return
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:
            self.overflowed = True
            # Make room for the sentinel that closes the connection.
            while not self.outbox.empty():
                self.outbox.get_nowait()
            self.outbox.put_nowait(None)

    async def pump(self) -> None:
        while True:
            text = await self.outbox.get()
            if text is None:
                await self.websocket.close(CLOSE_TOO_SLOW, "too slow to read its messages")
                return
            await self.websocket.send_text(text)


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


@router.websocket("/ws")
async def websocket_endpoint(websocket: WebSocket) -> None:
    app = websocket.app
    hub: Hub = app.state.hub
    settings: Settings = app.state.settings
    if not origin_allowed(websocket.headers.get("origin"), websocket.headers.get("host"), settings):
        await websocket.close(CLOSE_BAD_ORIGIN, "origin not allowed")
        return
    account = await account_of(app.state.db, settings, dict(websocket.cookies))
    if account is None:
        await websocket.close(CLOSE_NOT_SIGNED_IN, "sign in first")
        return
    await websocket.accept()
    connection = Connection(websocket, account.id, account.name, settings.outbox_limit)
    pump = asyncio.create_task(connection.pump())
    hub.metrics.connections.inc()
    watching: dict[int, TableActor] = {}
    limit = RateLimit(settings.rate_per_second, settings.rate_burst)
    try:
        # When the pump closes a slow connection, the next receive() reports the disconnect.
        while not pump.done():
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                break
            text = frame.get("text")
            if text is None:
                data = frame.get("bytes") or b""
                text = (
                    data.decode("utf-8", "replace")
                    if len(data) <= settings.max_message_bytes
                    else None
                )
            if not limit.allow():
                hub.metrics.error("rate_limited")
                connection.send(
                    error("rate_limited", "too many messages; slow down", cid=_cid_of(text))
                )
                if limit.refused > 4 * settings.rate_burst:
                    await websocket.close(CLOSE_ABUSE, "too many messages")
                    break
                continue
            if text is None or len(text.encode()) > settings.max_message_bytes:
                hub.metrics.error("too_large")
                connection.send(
                    error(
                        "too_large", f"messages are limited to {settings.max_message_bytes} bytes"
                    )
                )
                continue
            await _handle(text, connection, hub, watching)
    except WebSocketDisconnect:
        pass
    finally:
        for actor in watching.values():
            actor.unwatch(connection)
        pump.cancel()
        hub.metrics.connections.dec()


async def _handle(
    text: str, connection: Connection, hub: Hub, watching: dict[int, TableActor]
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
            actor = hub.table(message.table)
            old = watching.pop(message.table, None)
            if old is not None:
                old.unwatch(connection)
            watching[message.table] = actor
            await actor.call(_async(lambda: actor.watch(connection)))
        elif isinstance(message, Unwatch):
            actor_or_none = watching.pop(message.table, None)
            if actor_or_none is not None:
                actor_or_none.unwatch(connection)
        elif isinstance(message, Sit):
            actor = hub.table(message.table)
            seat = await actor.call(
                lambda: actor.sit(
                    connection.account_id, connection.name, seat=message.seat, buy_in=message.buy_in
                )
            )
            connection.send(_ack(message.cid, actor, seat=seat))
        elif isinstance(message, Leave):
            actor = hub.table(message.table)
            later = await actor.call(lambda: actor.leave(connection.account_id))
            connection.send(_ack(message.cid, actor, after_game=later))
        elif isinstance(message, Act):
            actor = hub.table(message.table)
            seq = await actor.call(
                lambda: actor.act(connection.account_id, message.action, message.cid, connection)
            )
            if seq is not None:  # else the update this connection got carried the cid
                connection.send(_ack(message.cid, actor, seq=seq))
    except (RoomError, GameError) as problem:
        hub.metrics.error(problem.code)
        table = getattr(message, "table", None)
        connection.send(error(problem.code, problem.message, cid=cid, table=table))
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


def _async(run: Any) -> Any:
    async def wrapped() -> Any:
        return run()

    return wrapped


def _ack(cid: str | None, actor: TableActor, **extra: Any) -> str:
    data: dict[str, Any] = {"type": "ack", "cid": cid, "table": actor.id, "seq": actor.seq}
    data.update(extra)
    return orjson.dumps(data).decode()

"""Reaching a table that another node runs (issue 21, docs/cluster.md, "Reaching a table on
another node"): the node a browser is connected to relays its requests to the table's owner and
the owner's messages back, through Redis pub/sub.

Every node subscribes to one channel of its own, ``{prefix}:node:{id}``, and everything other
nodes tell it arrives there, in the order each sender published it:

* ``C`` + JSON: a call (``{"id", "from", "op", ...}``): a request of one of the sender's clients
  for a table this node runs (watch, act, sit, ...), run by :attr:`Relay.handler`;
* ``R`` + JSON: the answer to a call this node made (``{"id", "ok"}`` or ``{"id", "error"}``);
* ``F`` + frames: messages of tables this node's clients watch on other nodes, each
  ``TABLE CONN LENGTH\\n`` and the message's bytes, for connection ``CONN`` of this node;
* ``X`` + JSON: a table the sender ran is gone from it (``{"table", "conns", "why"}``): those
  connections are closed with 4503 and reconnect.

The owner watches a table for a remote connection through a :class:`RelayListener`, one per
(node, table, connection): the table treats it as any connection (its seat's view, its
presence, the ``cid`` of its own actions), and what it is sent is gathered per node and
published once per turn of the event loop. All of a node's publishing goes through one task and
one pipeline at a time, so a table's messages reach the other node in the order they were made,
and before the answer to the call that caused them (the ``update`` carrying an action's ``cid``
comes first, as on one node). A publish that no subscriber received says the node is gone: its
calls fail at once (``table_moved``) and the owner forgets its listeners.

Why pub/sub and not streams: what is relayed is live (a message nobody is connected for is
worth nothing, and a reconnect starts with a snapshot), an action is applied once however often
it is resent (its ``cid``), and pub/sub costs one round trip and no cleanup.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from redis.asyncio import Redis

from rummyhall.games.protocol import GameError
from rummyhall.server.cluster.shielded import shielded
from rummyhall.server.errors import RoomError
from rummyhall.server.metrics import Metrics

log = logging.getLogger(__name__)

JSON = dict[str, Any]

Handler = Callable[[str, str, JSON], Awaitable[Any]]
"""Runs a call another node made: (the calling node, the operation, its arguments) -> a result
that JSON can carry; raises RoomError or GameError for a refusal."""


def moved(why: str = "the table moved to another node") -> RoomError:
    """The error of a table whose node changed or went away: reconnect and watch it again."""
    return RoomError("table_moved", f"{why}; reconnect", 503)


class Relay:
    """This node's channel: calls to other nodes, their answers, and relayed table messages."""

    def __init__(
        self, redis: Redis, node_id: str, *, prefix: str = "rummyhall", timeout: float = 10.0,
        metrics: Metrics | None = None,
    ) -> None:  # fmt: skip
        self.redis = redis
        self.metrics = metrics
        """Counts publishes, calls made and calls served (``rummyhall_relay_*``), if given."""
        self.node_id = node_id
        self.prefix = prefix
        self.timeout = timeout
        """How long a call waits for its answer before it fails with ``table_moved``."""
        self.handler: Handler | None = None
        self.on_gone: Callable[[str], None] | None = None
        """Told the id of a node that no longer receives what this node publishes to it."""
        self.on_closed: Callable[[Any, str], None] | None = None
        """Told (a local connection, why) when the table it watched on another node is gone
        from there: the hub closes the connection with 4503."""
        self.watching: dict[tuple[int, int], Any] = {}
        """(table, connection number) -> this node's connection that watches the table on
        another node (it has a ``send``)."""
        self.listeners: dict[tuple[str, int, int], RelayListener] = {}
        """(node, table, connection number) -> the listener this node's table has for it."""
        self.epoch = secrets.token_hex(8)
        """This process's own mark: a node restarted under the same id is another process, whose
        connections are not the old one's (its calls carry the new mark)."""
        self._epochs: dict[str, str] = {}
        """The mark each node's calls last carried."""
        self._calls: dict[int, asyncio.Future[Any]] = {}
        self._ids = itertools.count(1)
        self._out: list[tuple[str, bytearray, asyncio.Future[Any] | None]] = []
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._serving: set[asyncio.Task[None]] = set()
        self._pubsub: Any = None
        self.sent = 0
        """Publishes made (also ``rummyhall_relay_publishes``)."""

    def channel(self, node_id: str) -> str:
        return f"{self.prefix}:node:{node_id}"

    # --- life -----------------------------------------------------------------------------------

    async def start(self) -> None:
        """Subscribe (done before this returns: no call to this node is lost after it), then
        read and publish in two tasks."""
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(self.channel(self.node_id))
        self._tasks = [
            asyncio.create_task(self._reading(), name="relay-reader"),
            asyncio.create_task(self._publishing(), name="relay-publisher"),
        ]

    async def stop(self) -> None:
        for task in [*self._tasks, *self._serving]:
            task.cancel()
        for task in [*self._tasks, *self._serving]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks = []
        for call in self._calls.values():
            if not call.done():
                call.set_exception(moved("this node is stopping"))
        self._calls.clear()
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
            self._pubsub = None

    # --- calling another node -------------------------------------------------------------------

    async def call(self, node_id: str, op: str, **args: Any) -> Any:
        """Run ``op`` on ``node_id`` (the owner of the table in ``args``) and return its
        result; its refusal is raised here as the same RoomError."""
        number = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._calls[number] = future
        if self.metrics is not None:
            self.metrics.relay_calls.labels(op=op).inc()
        body = self._call_body(number, op, args)
        self._publish(self.channel(node_id), b"C" + body, future)
        try:
            async with asyncio.timeout(self.timeout):
                return await future
        except TimeoutError:
            raise moved(f"node {node_id} did not answer") from None
        finally:
            self._calls.pop(number, None)

    def tell(self, node_id: str, op: str, **args: Any) -> None:
        """Run ``op`` on ``node_id`` with no answer wanted (a connection stops watching): queued
        now, so it reaches the node in order with the calls made after it (a watch again)."""
        if self.metrics is not None:
            self.metrics.relay_calls.labels(op=op).inc()
        body = self._call_body(0, op, args)
        self._publish(self.channel(node_id), b"C" + body, None)

    def _call_body(self, number: int, op: str, args: JSON) -> bytes:
        return orjson.dumps(
            {"id": number, "from": self.node_id, "epoch": self.epoch, "op": op, **args}
        )

    # --- the owner's side ------------------------------------------------------------------------

    def listener(self, node_id: str, table_id: int, conn: int, account_id: int) -> RelayListener:
        key = (node_id, table_id, conn)
        found = self.listeners.get(key)
        if found is None:
            found = self.listeners[key] = RelayListener(self, node_id, table_id, conn, account_id)
        return found

    def of_table(self, table_id: int) -> list[RelayListener]:
        """Forget (and return) every listener of other nodes at the table (it closed, or this
        node no longer runs it)."""
        keys = [key for key in self.listeners if key[1] == table_id]
        return [self.listeners.pop(key) for key in keys]

    def of_node(self, node_id: str) -> list[RelayListener]:
        """Forget (and return) every listener of ``node_id`` (it is gone)."""
        keys = [key for key in self.listeners if key[0] == node_id]
        return [self.listeners.pop(key) for key in keys]

    def frame(self, node_id: str, table_id: int, conn: int, data: bytes) -> None:
        """Queue a table's message for connection ``conn`` of ``node_id``."""
        head = b"%d %d %d\n" % (table_id, conn, len(data))
        channel = self.channel(node_id)
        if self._out:
            last_channel, last, waiter = self._out[-1]
            if last_channel == channel and last[:1] == b"F" and waiter is None:
                last += head
                last += data
                return
        self._publish(channel, bytearray(b"F" + head + data), None)

    def gone(self, table_id: int, listeners: list[RelayListener], why: str) -> None:
        """The table this node ran is gone from it: tell the nodes whose connections watched it
        (they close them with 4503), and forget the listeners."""
        by_node: dict[str, list[int]] = {}
        for listener in listeners:
            self.listeners.pop((listener.node_id, listener.table_id, listener.number), None)
            by_node.setdefault(listener.node_id, []).append(listener.number)
        for node_id, conns in by_node.items():
            body = orjson.dumps({"table": table_id, "conns": conns, "why": why})
            self._publish(self.channel(node_id), bytearray(b"X" + body), None)

    # --- inside ---------------------------------------------------------------------------------

    def _publish(
        self, channel: str, payload: bytes | bytearray, call: asyncio.Future[Any] | None
    ) -> None:
        self._out.append((channel, bytearray(payload), call))
        self._wake.set()

    async def _publishing(self) -> None:
        """Publish what was queued, in order, one pipeline at a time (one task: order kept)."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._out:
                batch, self._out = self._out, []
                try:
                    received = await shielded(self._send(batch))  # (stop() ends this)
                except Exception as error:
                    log.warning("relay: publishing failed: %r", error)
                    received = [0] * len(batch)
                self.sent += len(batch)
                if self.metrics is not None:
                    self.metrics.relay_publishes.inc(len(batch))
                gone: set[str] = set()
                for (channel, _, call), count in zip(batch, received, strict=True):
                    if count:
                        continue
                    node_id = channel.rsplit(":", 1)[-1]
                    if call is not None and not call.done():
                        call.set_exception(moved(f"node {node_id} is not running"))
                    gone.add(node_id)
                if self.on_gone is not None:
                    for node_id in gone:
                        self.on_gone(node_id)

    async def _send(self, batch: list[tuple[str, bytearray, Any]]) -> list[int]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for channel, payload, _ in batch:
                pipe.publish(channel, bytes(payload))
            received: list[int] = await pipe.execute()
        return received

    async def _reading(self) -> None:
        assert self._pubsub is not None
        async for message in self._pubsub.listen():
            if message.get("type") != "message":
                continue
            data: bytes = message["data"]
            try:
                self._receive(data)
            except Exception:
                log.exception("relay: a message could not be handled")

    def _receive(self, data: bytes) -> None:
        kind, body = data[:1], data[1:]
        if kind == b"F":
            self._frames(body)
        elif kind == b"R":
            answer = orjson.loads(body)
            future = self._calls.get(answer["id"])
            if future is None or future.done():
                return  # (timed out meanwhile)
            if "error" in answer:
                error = answer["error"]
                future.set_exception(RoomError(error["code"], error["message"], error["status"]))
            else:
                future.set_result(answer.get("ok"))
        elif kind == b"C":
            call = orjson.loads(body)
            sender, epoch = str(call.get("from")), str(call.pop("epoch", ""))
            known = self._epochs.get(sender)
            if known != epoch:
                self._epochs[sender] = epoch
                if known is not None and self.on_gone is not None:
                    # The node restarted: the listeners of its previous process watch for
                    # connections that are gone (and whose numbers the new one may reuse).
                    self.on_gone(sender)
            task = asyncio.create_task(self._serve(call), name=f"relay-call-{call.get('op')}")
            self._serving.add(task)
            task.add_done_callback(self._serving.discard)
        elif kind == b"X":
            notice = orjson.loads(body)
            for conn in notice["conns"]:
                listener = self.watching.pop((notice["table"], conn), None)
                if listener is not None and self.on_closed is not None:
                    self.on_closed(listener, str(notice["why"]))

    def _frames(self, body: bytes) -> None:
        view = memoryview(body)
        at = 0
        while at < len(body):
            end = body.index(b"\n", at)
            table, conn, size = map(int, body[at:end].split())
            start = end + 1
            listener = self.watching.get((table, conn))
            if listener is not None:
                listener.send(bytes(view[start : start + size]))
            at = start + size

    async def _serve(self, call: JSON) -> None:
        sender = str(call.pop("from"))
        number = call.pop("id")
        op = str(call.pop("op"))
        if self.metrics is not None:
            self.metrics.relay_served.labels(op=op).inc()
        answer: JSON
        try:
            if self.handler is None:
                raise moved("this node is not serving tables yet")
            answer = {"id": number, "ok": await self.handler(sender, op, call)}
        except (RoomError, GameError) as error:
            status = error.status if isinstance(error, RoomError) else 409  # (as over HTTP)
            answer = {
                "id": number,
                "error": {"code": error.code, "message": error.message, "status": status},
            }
        except Exception:
            log.exception("relay: call %s from node %s failed", op, sender)
            answer = {
                "id": number,
                "error": {
                    "code": "internal",
                    "message": "something went wrong on our side",
                    "status": 500,
                },
            }
        if number:  # (0: told, no answer wanted)
            self._publish(self.channel(sender), b"R" + orjson.dumps(answer), None)


class RelayListener:
    """A connection of another node, watching one of this node's tables (see the module)."""

    __slots__ = ("account_id", "node_id", "number", "relay", "table_id")

    def __init__(
        self, relay: Relay, node_id: str, table_id: int, conn: int, account_id: int
    ) -> None:
        self.relay = relay
        self.node_id = node_id
        self.table_id = table_id
        self.number = conn
        """The connection's number on its node."""
        self.account_id = account_id

    def send(self, text: str | bytes) -> None:
        data = text if isinstance(text, bytes) else text.encode()
        self.relay.frame(self.node_id, self.table_id, self.number, data)

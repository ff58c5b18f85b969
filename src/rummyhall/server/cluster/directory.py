"""What the nodes of a room share about its tables and seats (issue 21, docs/cluster.md,
"The lobby, seats and bots across nodes"), kept in Redis:

* **the tables and the lobby**: ``{prefix}:tables:{node}``, the tables a node runs (each table's
  info as ``GET /api/tables`` lists it, with what the operator's ``GET /api/admin/tables`` adds:
  ``invite``, ``stuck``, ``seq``), written by that node when its tables' seats change and every
  third of the lease's ttl, and expiring after three ttls, so a dead node's tables leave on
  their own; the lobby is its public tables. ``{prefix}:nodes`` names every node that ever
  wrote one;
* **who sits where**: ``{prefix}:seats:{account}``, a hash table -> ``{"room", "seat",
  "private"}``, written by the node that runs the table when a seat is taken or given up (a node
  taking a table over writes its seats again as it replays the log). What "you have a seat at
  another table" (``seated_elsewhere``) and a quick seat's "back to your table" read;
* **one seat request of an account at a time**: ``{prefix}:seating:{account}``, a short lock
  (a random token, ``SET NX PX``) held around the check that the account sits nowhere else and
  the sit itself, so that two requests on two nodes cannot each find no other seat. A request
  that relays a sit to another node passes its token along (:meth:`Directory.seating`'s
  ``held``), and the owner goes on under it.
* **bots**: ``{prefix}:bot:{account}``, the node whose table a bot account sits at, so that two
  nodes never seat one bot twice (:meth:`Directory.claim_bot`).

A node's writes of seats go through one task, in order (a sit then a stand-up of the same seat
must not land the other way round), and :meth:`Directory.flush` waits until what was queued is
written: a sit is in the directory before its request's lock is released.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator
from typing import Any

import orjson
from redis.asyncio import Redis

from rummyhall.server.cluster.shielded import shielded
from rummyhall.server.errors import RoomError

log = logging.getLogger(__name__)

JSON = dict[str, Any]

ADMIN_KEYS = ("invite", "stuck", "seq")
"""What a table's entry holds beyond its public info: for the operator's eyes only."""

SEATING_MS = 10_000
"""How long one account's seat request may hold its lock (released at once when it is done;
this bounds only a node that died holding it)."""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""


class Directory:
    """See the module's docstring."""

    def __init__(self, redis: Redis, node_id: str, ttl: float, *, prefix: str = "rummyhall"):
        self.redis = redis
        self.node_id = node_id
        self.ttl = ttl
        self.prefix = prefix
        self._release = redis.register_script(_RELEASE)
        self._changes: list[tuple[str, int, int, JSON | None]] = []
        """Seat changes to write, in order: (op, account, table, entry)."""
        self._queued = 0
        self._written = 0
        self._wake = asyncio.Event()
        self._done = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._writing(), name="directory-writer")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    # --- the lobby ------------------------------------------------------------------------------

    def _tables_key(self, node_id: str) -> str:
        return f"{self.prefix}:tables:{node_id}"

    async def publish_tables(self, tables: list[JSON]) -> None:
        """This node's tables (:data:`ADMIN_KEYS` added to their infos), for the others."""
        await shielded(self._publish_tables(orjson.dumps(tables)))

    async def _publish_tables(self, tables: bytes) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.sadd(f"{self.prefix}:nodes", self.node_id)
            pipe.set(self._tables_key(self.node_id), tables, px=int(self.ttl * 3000))
            await pipe.execute()

    async def tables(self) -> list[JSON]:
        """The tables the other nodes run (as they last published them), each with ``node``."""
        nodes = sorted(map(_text, await self.redis.smembers(f"{self.prefix}:nodes")))
        others = [n for n in nodes if n != self.node_id]
        if not others:
            return []
        found = await self.redis.mget([self._tables_key(n) for n in others])
        tables: list[JSON] = []
        for node_id, raw in zip(others, found, strict=True):
            if raw is not None:
                tables += [{**info, "node": node_id} for info in orjson.loads(raw)]
        return tables

    async def lobby(self) -> list[JSON]:
        """The public tables the other nodes run, as ``GET /api/tables`` lists them, each with
        ``node``."""
        return [
            {key: value for key, value in info.items() if key not in ADMIN_KEYS}
            for info in await self.tables()
            if not info["private"]
        ]

    # --- who sits where -------------------------------------------------------------------------

    def _seats_key(self, account_id: int) -> str:
        return f"{self.prefix}:seats:{account_id}"

    def seated(self, account_id: int, table_id: int, entry: JSON | None) -> None:
        """Record (``entry``: room, seat, private) or forget (None) the account's seat at the
        table; written in order by this node's writer (:meth:`flush` waits for it)."""
        op = "set" if entry is not None else "del"
        self._changes.append((op, account_id, table_id, entry))
        self._queued += 1
        self._wake.set()

    async def flush(self) -> None:
        """Wait until every seat change queued so far is written."""
        target = self._queued
        while self._written < target:
            self._done.clear()
            await self._done.wait()

    async def seats_of(self, account_id: int) -> dict[int, JSON]:
        """The account's seats, on every node: table -> {"room", "seat", "private"}."""
        raw = await self.redis.hgetall(self._seats_key(account_id))
        return {int(table): orjson.loads(entry) for table, entry in raw.items()}

    async def _writing(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._changes:
                batch, self._changes = self._changes, []
                try:
                    await shielded(self._write(batch))
                except Exception:
                    # Redis unreachable: the seats' records lag (a seated_elsewhere check may
                    # miss one) until the table's node writes them again (a takeover).
                    log.exception("writing %d seat changes failed", len(batch))
                self._written += len(batch)
                self._done.set()

    async def _write(self, batch: list[tuple[str, int, int, JSON | None]]) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            for op, account_id, table_id, entry in batch:
                key = self._seats_key(account_id)
                if op == "set":
                    pipe.hset(key, str(table_id), orjson.dumps(entry))
                else:
                    pipe.hdel(key, str(table_id))
            await pipe.execute()

    # --- one seat request at a time -------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def seating(self, account_id: int, held: str | None = None) -> AsyncIterator[str]:
        """Hold the account's seat-request lock (or go on under ``held``, the token of a request
        that holds it and relayed its sit here); its token."""
        key = f"{self.prefix}:seating:{account_id}"
        if held is not None:
            current = await self.redis.get(key)
            if current is not None and _text(current) == held:
                yield held
                return
        token = secrets.token_hex(8)
        deadline = asyncio.get_running_loop().time() + SEATING_MS / 1000
        while not await self.redis.set(key, token, nx=True, px=SEATING_MS):
            if asyncio.get_running_loop().time() > deadline:
                raise RoomError("busy", "another request of yours is taking a seat", 503)
            await asyncio.sleep(0.01)  # another node's request of this account: it is quick
        try:
            yield token
        finally:
            with contextlib.suppress(Exception):
                await self._release(keys=[key], args=[token])

    # --- bots -----------------------------------------------------------------------------------

    async def claim_bot(self, account_id: int, *, again: bool = False) -> bool:
        """Whether this node may seat the bot account now (it holds the claim); ``again``: this
        node replays a table where the bot sits (the claim is this node's whoever held it)."""
        key = f"{self.prefix}:bot:{account_id}"
        if again:
            await self.redis.set(key, self.node_id)
            return True
        if await self.redis.set(key, self.node_id, nx=True):
            return True
        current = await self.redis.get(key)
        return current is not None and _text(current) == self.node_id

    async def release_bot(self, account_id: int) -> None:
        await self._release(keys=[f"{self.prefix}:bot:{account_id}"], args=[self.node_id])


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value

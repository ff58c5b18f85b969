"""This process as one node of several (issue 21, docs/cluster.md): the leases of the tables it
runs, taken and kept in Redis, and the fence raised in the database before a table is read.

The hub (server/hub.py) decides which tables to run; this class only talks to Redis and the
database about them:

* :meth:`Node.claim` takes a table over: it reads the table's fencing token from the database,
  acquires the lease with ``above`` = that token, and raises the fence in a transaction of its
  own, committed **before** the caller reads the table's log. From that commit on the previous
  owner's writes are refused, and every write of it that was not refused is in the log that is
  read next.
* :meth:`Node.renew_all` renews every lease the node holds (the hub calls it every third of the
  lease's time to live) and returns the tables whose lease is gone.
* :meth:`Node.unowned` tells which of some tables no node holds (the hub's sweep).
* :meth:`Node.hand_on` releases a table's lease and announces it on a Redis channel that every
  node listens to (:meth:`Node.handed_on`), so that another node takes the table over at once
  rather than at its next sweep, a ttl later (a drain, a clean stop). The announcement is only a
  hint: a node that misses it (not listening yet, Redis cut off) still finds the table by its
  sweep, and whoever acquires the lease first runs the table.

A table whose lease is gone is dropped by the hub: its actor stops without writing, and the
sockets watching it are closed with :data:`CLOSE_TABLE_MOVED`, so that clients reconnect (and
find the table on the node that took it over).
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Iterable

from redis.asyncio import Redis
from redis.asyncio.client import PubSub

from rummyhall.server.cluster.lease import TableLeases
from rummyhall.store import fences
from rummyhall.store.database import Database
from rummyhall.store.fences import StaleLease

log = logging.getLogger(__name__)

CLOSE_TABLE_MOVED = 4503
"""WebSocket close code: a table this socket watched is no longer run by this node (its lease
was lost, another node runs it now); reconnect and watch it again (docs/protocol.md)."""


class Node:
    """The leases this node holds (see the module's docstring)."""

    def __init__(self, redis: Redis, node_id: str, ttl: float, *, prefix: str = "rummyhall"):
        if not node_id:
            raise ValueError("a node needs an id")
        self.redis = redis
        self.leases = TableLeases(redis, prefix=prefix)
        self.channel = f"{prefix}:handed-on"
        """The Redis channel where nodes announce the tables they hand on (table ids)."""
        self._pubsub: PubSub | None = None
        self.node_id = node_id
        self.ttl = ttl
        """A lease's time to live, in seconds."""
        self.held: dict[int, int] = {}
        """table -> the token of the lease this node holds for it."""
        self.renewed: dict[int, float] = {}
        """table -> when (monotonic) the request that last acquired or renewed its lease was
        sent: the lease lasts ``ttl`` from then at most."""

    @classmethod
    def from_url(cls, url: str, node_id: str, ttl: float) -> Node:
        return cls(Redis.from_url(url), node_id, ttl)

    async def close(self) -> None:
        if self._pubsub is not None:
            await self._pubsub.aclose()  # type: ignore[no-untyped-call]  # (redis-py: untyped)
            self._pubsub = None
        await self.redis.aclose()

    async def claim(self, db: Database, table_id: int) -> int | None:
        """Take ``table_id``'s lease and raise its fence (docs/cluster.md, "Taking a table
        over", steps 1 and 2); the token, or None if another node holds the table. The caller
        reads the log only after this returns."""
        async with db.read() as session:
            seen = await fences.current(session, table_id)
        sent = time.monotonic()
        token = await self.leases.acquire(table_id, self.node_id, self.ttl, above=seen)
        if token is None:
            return None
        try:
            async with db.transaction() as session:
                await fences.check_and_raise(session, table_id, token)
        except StaleLease:
            # A newer owner wrote in between (its lease expired since): not ours to run.
            await self.leases.release(table_id, self.node_id, token)
            return None
        except BaseException:
            await self.leases.release(table_id, self.node_id, token)
            raise
        self.held[table_id] = token
        self.renewed[table_id] = sent
        return token

    def forget(self, table_id: int) -> None:
        self.held.pop(table_id, None)
        self.renewed.pop(table_id, None)

    async def release(self, table_id: int) -> None:
        """Give the table's lease back at once (the node stops, or drops the table)."""
        token = self.held.get(table_id)
        self.forget(table_id)
        if token is not None:
            await self.leases.release(table_id, self.node_id, token)

    async def hand_on(self, table_id: int, token: int) -> bool:
        """Release the table's lease (held under ``token``) and announce it, so that another node
        takes the table over now (the caller has stopped running it, after its last write). False
        if the lease was not this node's any more (expired, taken over): nothing is announced."""
        self.forget(table_id)
        if not await self.leases.release(table_id, self.node_id, token):
            return False
        heard = int(await self.redis.publish(self.channel, str(table_id)))
        if heard - (1 if self._pubsub is not None else 0) <= 0:  # (this node listens too)
            log.warning(
                "table %s handed on, but no other node listens: it waits for one to start",
                table_id,
            )
        return True

    async def subscribe(self) -> None:
        """Listen to the tables other nodes hand on (from now on: call before serving)."""
        pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await pubsub.subscribe(self.channel)
        self._pubsub = pubsub

    async def handed_on(self) -> AsyncIterator[int]:
        """The ids of the tables nodes hand on, as they are announced (after :meth:`subscribe`).
        A lost connection is raised; iterating again reconnects (redis-py subscribes again)."""
        assert self._pubsub is not None, "subscribe first"
        async for message in self._pubsub.listen():
            if message.get("type") == "message":
                yield int(message["data"])

    async def renew_all(self) -> list[int]:
        """Renew every lease held; the tables whose lease is gone (taken over, expired, or not
        renewed for a whole ttl because Redis could not be reached)."""
        held = list(self.held.items())
        if not held:
            return []
        sent = time.monotonic()
        results = await self.leases.renew_many(held, self.node_id, self.ttl)
        lost: list[int] = []
        for (table, token), result in zip(held, results, strict=True):
            if self.held.get(table) != token:
                continue  # dropped or claimed again meanwhile
            if result is True:
                self.renewed[table] = sent
            elif result is False:
                lost.append(table)
            else:
                log.warning("renewing the lease of table %s failed: %r", table, result)
                if sent - self.renewed.get(table, sent) >= self.ttl:
                    lost.append(table)
        return lost

    async def unowned(self, table_ids: Iterable[int]) -> list[int]:
        """Which of ``table_ids`` no node holds a lease for."""
        ids = list(table_ids)
        owners = await self.leases.owners(ids)
        return [table for table, owner in zip(ids, owners, strict=True) if owner is None]

"""Which node owns which table: a lease in Redis, with a fencing token (issue 21).

A table has one writer of its log, its actor; with several nodes, the node whose actor that is
holds the table's **lease**: a Redis key that expires unless the owner renews it. A node that
stops (killed, paused, cut off) stops renewing, the key expires, and another node may acquire
the table and replay its log.

Expiry alone cannot stop a node that was paused (SIGSTOP, a long garbage collection, a frozen
virtual machine) while holding the lease: when it wakes it still believes it owns the table and
may write before it looks at a clock. So each acquisition also takes a **fencing token** from
a per-table counter that only grows (INCR, in the same script as the acquisition); every write
to the table's log carries the token of the lease it was made under, and the database refuses a
write whose token is lower than the highest it has seen for the table
(:func:`rummyhall.store.fences.check_and_raise`, in the write's own transaction). The node
that took over writes with a higher token first, so from then on the old owner's writes fail
and change nothing, whatever it believes. Redis decides who may *try* to write; the database
decides which writes count.

Keys, with a Redis Cluster hash tag so that a table's two keys live in one slot (a script may
only touch keys of one slot there):

* ``{prefix}:{table:ID}:owner`` — ``"TOKEN:NODE_ID"``, with the lease's time to live (PX);
* ``{prefix}:{table:ID}:fence`` — the table's last token handed out; never expires.

If Redis loses its data (a restart without persistence), the counters start again from zero
while the database still remembers higher tokens: ``acquire(..., above=N)`` with ``N`` the
database's token for the table (:func:`rummyhall.store.fences.current`) moves the counter
past it, so that a new owner is never fenced out by its predecessors' tokens.

Times to live are Redis's (its clock decides when a key expires). A holder should treat its
lease as gone a margin before ``ttl`` has passed since it *sent* the request that acquired or
renewed it (its own monotonic clock), and stop starting writes then; the fence catches the
writes that were already on their way.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis

from rummyhall.server.cluster.shielded import shielded

_ACQUIRE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
    return false
end
local above = tonumber(ARGV[3])
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
if above > last then
    redis.call('SET', KEYS[2], ARGV[3])
end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], string.format('%d:%s', token, ARGV[1]), 'PX', ARGV[2])
return token
"""
"""KEYS: owner, fence; ARGV: node id, ttl in ms, the token to go above. The new token, or nil
when the table has an owner."""

_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
"""KEYS: owner; ARGV: "TOKEN:NODE_ID", ttl in ms. 1 if renewed, 0 if that lease is gone."""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""
"""KEYS: owner; ARGV: "TOKEN:NODE_ID". 1 if released, 0 if that lease was gone already."""

_OWNER = """
local value = redis.call('GET', KEYS[1])
if not value then
    return false
end
return {value, redis.call('PTTL', KEYS[1])}
"""
"""KEYS: owner. nil, or the owner's value and its time to live in ms (one atomic read)."""


@dataclass(frozen=True, slots=True)
class Fence:
    """What a table's writer carries into every transaction that writes the table's log: the
    table and the token of the lease the write is made under.

    The database side (:mod:`rummyhall.store.fences`) keeps, per table, the highest token any
    write has carried. In the write's own transaction, before or with its log rows,
    ``check_and_raise(session, fence.table_id, fence.token)`` raises that stored token to
    ``fence.token`` (equal is fine: one lease writes many batches) or raises
    :class:`~rummyhall.store.fences.StaleLease` when it is lower, which rolls the whole
    transaction back: a writer that lost its lease changes nothing. Pure data; no I/O."""

    table_id: int
    token: int


@dataclass(frozen=True, slots=True)
class Owner:
    """A table's current lease, as Redis has it."""

    node_id: str
    token: int
    ttl: float
    """Seconds left before the lease expires (unless renewed)."""


class TableLeases:
    """Table ownership leases in one Redis (see the module's docstring).

    Every operation is one Lua script, so each is atomic in Redis: acquire tests and sets the
    owner and takes the next token together; renew and release act only when the lease is still
    exactly the caller's (node *and* token: a node that restarted under the same id does not
    own its predecessor's lease)."""

    def __init__(self, redis: Redis, *, prefix: str = "rummyhall") -> None:
        self.redis = redis
        self.prefix = prefix
        self._acquire = redis.register_script(_ACQUIRE)
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)
        self._owner = redis.register_script(_OWNER)

    def owner_key(self, table_id: int) -> str:
        return f"{self.prefix}:{{table:{table_id}}}:owner"

    def fence_key(self, table_id: int) -> str:
        return f"{self.prefix}:{{table:{table_id}}}:fence"

    async def acquire(
        self, table_id: int, node_id: str, ttl: float, *, above: int = 0
    ) -> int | None:
        """Make ``node_id`` the owner of ``table_id`` for ``ttl`` seconds if the table has no
        owner, and return the lease's fencing token: higher than every token handed out for the
        table before, and than ``above``. None if the table has an owner (``node_id`` itself
        included: a holder renews)."""
        _check_node(node_id)
        if above < 0:
            raise ValueError(f"above must be >= 0, not {above}")
        token = await self._acquire(
            keys=[self.owner_key(table_id), self.fence_key(table_id)],
            args=[node_id, _ms(ttl), above],
        )
        return None if token is None else int(token)

    async def renew(self, table_id: int, node_id: str, token: int, ttl: float) -> bool:
        """Give the lease ``ttl`` seconds from now, if ``node_id`` still holds it under
        ``token``; False if it does not (expired, or taken over): the caller must stop writing
        the table."""
        _check_node(node_id)
        renewed = await self._renew(
            keys=[self.owner_key(table_id)], args=[_value(token, node_id), _ms(ttl)]
        )
        return int(renewed) == 1

    async def release(self, table_id: int, node_id: str, token: int) -> bool:
        """End the lease at once (a drain hands the table on without waiting for expiry), if
        ``node_id`` still holds it under ``token``; False if it was not (or no longer) theirs,
        in which case nothing changes."""
        _check_node(node_id)
        released = await self._release(
            keys=[self.owner_key(table_id)], args=[_value(token, node_id)]
        )
        return int(released) == 1

    async def renew_many(
        self, held: Sequence[tuple[int, int]], node_id: str, ttl: float
    ) -> list[bool | Exception]:
        """:meth:`renew` for every (table, token) of ``held``, in one pipeline (one connection
        and one round trip, however many tables a node holds; a ``gather`` of single renews
        takes a connection each, more than the client's pool has); per table, whether it was
        renewed, or the error."""
        _check_node(node_id)
        found = await self._many(
            self._renew, [([self.owner_key(t)], [_value(k, node_id), _ms(ttl)]) for t, k in held]
        )
        return [r if isinstance(r, Exception) else int(r) == 1 for r in found]

    async def owner(self, table_id: int) -> Owner | None:
        """The table's current lease, or None if no node holds it."""
        return _owner(await self._owner(keys=[self.owner_key(table_id)]))

    async def owners(self, table_ids: Sequence[int]) -> list[Owner | None]:
        """:meth:`owner` of each table, in one pipeline (see :meth:`renew_many`); raises the
        first error."""
        found = await self._many(self._owner, [([self.owner_key(t)], []) for t in table_ids])
        for result in found:
            if isinstance(result, Exception):
                raise result
        return [_owner(result) for result in found]

    async def _many(
        self, script: Any, calls: list[tuple[list[str], list[Any]]]
    ) -> list[Any]:  # fmt: skip
        if not calls:
            return []
        return await shielded(self._pipeline(script, calls))

    async def _pipeline(self, script: Any, calls: list[tuple[list[str], list[Any]]]) -> list[Any]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for keys, args in calls:
                await script(keys=keys, args=args, client=pipe)
            try:
                found: list[Any] = await pipe.execute(raise_on_error=False)
            except Exception as error:  # (the connection: every call failed)
                return [error] * len(calls)
        return found

    async def last_token(self, table_id: int) -> int:
        """The last token handed out for the table (0: none yet)."""
        value = await self.redis.get(self.fence_key(table_id))
        return 0 if value is None else int(value)


def _owner(found: Any) -> Owner | None:
    """The owner script's answer as an Owner (None: no node holds the table)."""
    if found is None:
        return None
    raw, ttl_ms = found
    value = raw.decode() if isinstance(raw, bytes) else str(raw)
    token, _, node_id = value.partition(":")
    return Owner(node_id=node_id, token=int(token), ttl=max(int(ttl_ms), 0) / 1000)


def _check_node(node_id: str) -> None:
    if not node_id:
        raise ValueError("a node id must not be empty")


def _value(token: int, node_id: str) -> str:
    return f"{token}:{node_id}"


def _ms(ttl: float) -> int:
    """A time to live in whole milliseconds (at least 1: Redis refuses 0)."""
    if not math.isfinite(ttl) or ttl <= 0:
        raise ValueError(f"a lease's ttl must be a positive number of seconds, not {ttl}")
    return max(1, round(ttl * 1000))

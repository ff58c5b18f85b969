"""Table ownership leases with fencing tokens (rummyhall.server.cluster.lease; issue 21),
against a real ``redis-server`` started for the session (tests/redis_server.py).

Expiry is waited for as a state (the owner key gone, polled with a deadline), never as a
fixed sleep."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from redis.asyncio import Redis

from rummyhall.server.cluster.lease import Fence, Owner, TableLeases

DEADLINE_S = 30.0
SHORT_TTL = 0.05
"""A lease meant to expire during the test."""
LONG_TTL = 600.0
"""A lease meant to outlive the test."""


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url)
    yield client
    await client.aclose()


@pytest.fixture
def leases(redis: Redis) -> TableLeases:
    return TableLeases(redis, prefix="test")


async def eventually(check: Callable[[], Awaitable[bool]], what: str) -> None:
    """Until ``check()`` holds; fails after DEADLINE_S."""
    deadline = time.monotonic() + DEADLINE_S
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {DEADLINE_S} s: {what}")
        await asyncio.sleep(0.005)  # polling Redis's state, with a deadline


async def expired(leases: TableLeases, table_id: int) -> None:
    async def gone() -> bool:
        return await leases.redis.exists(leases.owner_key(table_id)) == 0

    await eventually(gone, f"table {table_id}'s lease expires")


async def test_acquire_renew_release(leases: TableLeases) -> None:
    assert await leases.owner(1) is None
    token = await leases.acquire(1, "node-a", LONG_TTL)
    assert token == 1
    owner = await leases.owner(1)
    assert owner is not None
    assert (owner.node_id, owner.token) == ("node-a", 1)
    assert 0 < owner.ttl <= LONG_TTL
    # Held: nobody acquires it, its holder neither (a holder renews).
    assert await leases.acquire(1, "node-b", LONG_TTL) is None
    assert await leases.acquire(1, "node-a", LONG_TTL) is None
    assert await leases.renew(1, "node-a", token, LONG_TTL)
    # Another table is another lease, with tokens of its own.
    assert await leases.acquire(2, "node-b", LONG_TTL) == 1
    assert await leases.release(1, "node-a", token)
    assert await leases.owner(1) is None
    assert not await leases.release(1, "node-a", token)  # released already
    assert not await leases.renew(1, "node-a", token, LONG_TTL)  # nothing to renew
    owner_2 = await leases.owner(2)
    assert owner_2 is not None
    assert owner_2 == Owner(node_id="node-b", token=1, ttl=owner_2.ttl)


async def test_a_lease_expires_unless_renewed(leases: TableLeases) -> None:
    token = await leases.acquire(7, "node-a", SHORT_TTL)
    assert token is not None
    await expired(leases, 7)
    assert await leases.owner(7) is None
    assert not await leases.renew(7, "node-a", token, LONG_TTL)  # too late
    assert await leases.acquire(7, "node-b", LONG_TTL) == token + 1


async def test_renewing_keeps_the_lease(leases: TableLeases) -> None:
    """A renewed lease carries the new ttl: a short lease renewed long is still there once a
    lease of the short ttl, acquired after it, has expired."""
    token = await leases.acquire(3, "node-a", SHORT_TTL)
    assert token is not None
    assert await leases.renew(3, "node-a", token, LONG_TTL)
    assert await leases.acquire(4, "node-a", SHORT_TTL) is not None
    await expired(leases, 4)
    owner = await leases.owner(3)
    assert owner is not None and (owner.node_id, owner.token) == ("node-a", token)


async def test_tokens_strictly_increase_across_takeovers(leases: TableLeases) -> None:
    tokens: list[int] = []
    for round_ in range(6):
        node = f"node-{round_ % 3}"
        token = await leases.acquire(9, node, SHORT_TTL if round_ % 2 else LONG_TTL)
        assert token is not None
        tokens.append(token)
        if round_ % 2:
            await expired(leases, 9)  # the owner died: its lease runs out
        else:
            assert await leases.release(9, node, token)  # the owner handed it on (drain)
    assert tokens == sorted(set(tokens)) and len(tokens) == 6
    assert await leases.last_token(9) == tokens[-1]


async def test_a_stale_owner_cannot_renew_or_release(leases: TableLeases) -> None:
    old = await leases.acquire(5, "node-a", SHORT_TTL)
    assert old is not None
    await expired(leases, 5)  # node-a was paused past its lease
    new = await leases.acquire(5, "node-b", LONG_TTL)
    assert new is not None and new > old
    # node-a wakes up and tries to carry on.
    assert not await leases.renew(5, "node-a", old, LONG_TTL)
    assert not await leases.release(5, "node-a", old)
    # ... also with the new token but its own name, or the new owner's name and the old token.
    assert not await leases.renew(5, "node-a", new, LONG_TTL)
    assert not await leases.release(5, "node-b", old)
    owner = await leases.owner(5)
    assert owner is not None and (owner.node_id, owner.token) == ("node-b", new)
    # A node restarted under the same id does not own its predecessor's lease either.
    again = await leases.acquire(6, "node-c", SHORT_TTL)
    assert again is not None
    await expired(leases, 6)
    fresh = await leases.acquire(6, "node-c", LONG_TTL)
    assert fresh is not None
    assert not await leases.renew(6, "node-c", again, LONG_TTL)
    assert not await leases.release(6, "node-c", again)
    assert await leases.renew(6, "node-c", fresh, LONG_TTL)
    assert Fence(6, fresh).token == fresh


async def test_concurrent_acquirers_exactly_one_wins(redis_url: str) -> None:
    """Twenty nodes, each on its own connection, go for the same table at once."""
    clients = [Redis.from_url(redis_url) for _ in range(20)]
    try:
        nodes = [TableLeases(client, prefix="test") for client in clients]
        for client in clients:  # connect first, so that the acquisitions go out together
            assert await client.ping()
        start = asyncio.Event()

        async def contend(index: int, node: TableLeases) -> int | None:
            await start.wait()
            return await node.acquire(11, f"node-{index}", LONG_TTL)

        tasks = [asyncio.create_task(contend(i, node)) for i, node in enumerate(nodes)]
        start.set()
        results = await asyncio.gather(*tasks)
        winners = [(i, token) for i, token in enumerate(results) if token is not None]
        assert len(winners) == 1
        index, token = winners[0]
        owner = await nodes[0].owner(11)
        assert owner is not None and (owner.node_id, owner.token) == (f"node-{index}", token)
        assert await nodes[0].last_token(11) == token  # the losers took no token
    finally:
        for client in clients:
            await client.aclose()


async def test_above_moves_the_counter_past_the_database(leases: TableLeases) -> None:
    """Redis lost its data (restart without persistence) while the database has seen token
    41 for the table: the next lease must come out higher, or the database would refuse it."""
    assert await leases.acquire(12, "node-a", LONG_TTL, above=41) == 42
    assert await leases.release(12, "node-a", 42)
    # Lower floors than the counter change nothing.
    assert await leases.acquire(12, "node-b", LONG_TTL, above=3) == 43
    await leases.redis.flushall()
    assert await leases.acquire(12, "node-b", LONG_TTL) == 1  # what `above` is for
    await leases.redis.flushall()
    assert await leases.acquire(12, "node-b", LONG_TTL, above=43) == 44


async def test_node_ids_with_colons_and_bad_arguments(leases: TableLeases) -> None:
    token = await leases.acquire(13, "host:8001", LONG_TTL)
    assert token is not None
    owner = await leases.owner(13)
    assert owner is not None and owner.node_id == "host:8001"
    assert await leases.renew(13, "host:8001", token, LONG_TTL)
    with pytest.raises(ValueError, match="empty"):
        await leases.acquire(13, "", LONG_TTL)
    for ttl in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="ttl"):
            await leases.acquire(14, "node-a", ttl)
    with pytest.raises(ValueError, match="above"):
        await leases.acquire(14, "node-a", LONG_TTL, above=-1)
    assert leases.owner_key(14) == "test:{table:14}:owner"
    assert leases.fence_key(14) == "test:{table:14}:fence"


async def test_many_leases_renewed_and_looked_up_in_one_pipeline(redis_url: str) -> None:
    """A node holds more tables than the client's connection pool has connections (10 here;
    redis-py's default is 100): renewing them all, and looking up their owners, goes through
    one pipeline, not a connection per table (a ``gather`` of single renews ran out of
    connections at 200 tables in bench/load.py, and the node dropped the tables it could not
    renew). A lease taken over meanwhile is not renewed; an unknown table has no owner."""
    client = Redis.from_url(redis_url, max_connections=10)
    try:
        leases = TableLeases(client, prefix="many")
        tables = list(range(1, 251))
        held = []
        for table in tables:
            token = await leases.acquire(table, "node-a", LONG_TTL)
            assert token is not None
            held.append((table, token))
        await leases.release(7, "node-a", held[6][1])
        assert await leases.acquire(7, "node-b", LONG_TTL) is not None
        renewed = await leases.renew_many(held, "node-a", LONG_TTL)
        assert renewed == [table != 7 for table in tables]
        owners = await leases.owners([*tables, 999])
        assert [o and o.node_id for o in owners] == [
            "node-b" if table == 7 else "node-a" for table in tables
        ] + [None]
        assert await leases.renew_many([], "node-a", LONG_TTL) == []
        assert await leases.owners([]) == []
    finally:
        await client.aclose()


async def test_a_cancelled_renewal_of_many_leases_is_cancelled(leases: TableLeases) -> None:
    """redis-py's pipeline can swallow a cancellation and return as if nothing happened: the
    hub's renewer, cancelled while it renewed, then slept on and the node never stopped on
    SIGTERM (bench/load.py). A cancelled ``renew_many`` raises CancelledError."""
    held = []
    for table in range(1, 201):
        token = await leases.acquire(table, "node-a", LONG_TTL)
        assert token is not None
        held.append((table, token))
    cancelled = 0
    for _ in range(20):
        task = asyncio.create_task(leases.renew_many(held, "node-a", LONG_TTL))
        await asyncio.sleep(0)  # (it has sent its pipeline, or is sending it)
        if task.cancel():
            with pytest.raises(asyncio.CancelledError):
                await task
            cancelled += 1
        else:
            await task
    assert cancelled > 0

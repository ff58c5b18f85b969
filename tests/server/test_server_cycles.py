"""The room makes no reference cycles of its own in play and when a socket closes, and the
collector's schedule (server/collector.py) keeps long-lived objects out of the cycle
collector's sight, collects everything now and then, and leaves the process as it found it."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from rummyhall.client import ClientError, RoomClient
from rummyhall.server.clock import FakeClock
from rummyhall.server.collector import Collector
from server_kit import Player, fast_settings, running, watch_table


@contextmanager
def garbage_kept() -> Iterator[list[Any]]:
    """Collect first, then keep what the next collections find (instead of freeing it) in the
    list given, until the end of the block; that garbage is freed afterwards."""
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    found: list[Any] = []
    try:
        yield found
        gc.collect()
        found.extend(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.collect()


def ours(garbage: list[Any]) -> list[str]:
    """What in ``garbage`` the room's own code made: its classes' instances, its functions and
    coroutines, and the room's WebSocket protocol."""
    names = []
    for thing in garbage:
        code = getattr(thing, "cr_code", None) or getattr(thing, "__code__", None)
        module = type(thing).__module__ or ""
        if code is not None and "rummyhall" in code.co_filename:
            names.append(code.co_qualname)
        elif module.startswith("rummyhall"):
            names.append(type(thing).__qualname__)
    return names


def theirs_on_our_behalf(garbage: list[Any]) -> list[str]:
    """What in ``garbage`` libraries made for the room's server in the way the room uses them:
    uvicorn's HTTP protocol of a connection that became a WebSocket (server/http_protocol.py)
    and SQLAlchemy's objects (a statement built anew with ``in_`` leaves a ring each time;
    the client side uses neither)."""
    return [
        type(thing).__qualname__
        for thing in garbage
        if isinstance(thing, HttpToolsProtocol)
        or (type(thing).__module__ or "").startswith("sqlalchemy")
    ]


async def test_play_and_closed_sockets_make_no_cycles_of_ours(tmp_path: Path) -> None:
    """Play makes no cyclic garbage of the room's own: tables play games (settled through ledger
    and flows), players leave (or are refused: the table closed), tables close, sockets close.
    Before the fixes, each settled game left a ring of its flows' rounding search
    (economy/flows.py), each closed socket its protocol and scope (server/socket_protocol.py),
    each closed table its actor and timer, and each refusal its future and traceback
    (server/table.py)."""
    settings = fast_settings(tmp_path, f"sqlite+aiosqlite:///{tmp_path / 'c.db'}", bots=True)
    async with running(settings) as server:
        async with RoomClient(server.url) as warm:  # first-time imports and caches, not counted
            await warm.guest()
            await warm.connect()
        with garbage_kept() as garbage:
            for seed in range(3):
                async with RoomClient(server.url) as client:
                    await client.guest()
                    table, _ = await client.quick_seat("practice-patti-10-5p")
                    await watch_table(client, table, follow=True)
                    player = Player(client, "patti", seed)
                    await player.play(table, games=1)
                    assert player.refused == []
                    try:
                        await client.leave(table)
                    except ClientError as error:  # (a player stood up short: nobody is left)
                        assert error.code == "table_closed"
            await asyncio.sleep(0.2)  # the server's side of the last socket closes
        assert garbage, "the run made no garbage at all: the check would see nothing"
        assert ours(garbage) == []
        assert theirs_on_our_behalf(garbage) == []


async def test_a_stopped_app_lets_go_of_its_room(tmp_path: Path) -> None:
    """FastAPI keeps the endpoints it has classified in a module-level cache, closures over
    their app among them, so an app can outlive its stop; the room it ran (the hub, its tables,
    the database) must not: a test process starts hundreds of servers."""
    settings = fast_settings(tmp_path, f"sqlite+aiosqlite:///{tmp_path / 'c.db'}", bots=True)
    async with running(settings) as server:
        async with RoomClient(server.url) as client:
            await client.guest()
            table, _ = await client.quick_seat("practice-patti-10-5p")
            await watch_table(client, table)
        app = server.app
        hub, db = weakref.ref(app.state.hub), weakref.ref(app.state.db)
    gc.collect()
    assert app.state.hub is None  # (the app is still here, held by this test)
    assert hub() is None and db() is None


class _Ring:
    """An object in a reference cycle with itself: only the cycle collector frees it."""

    def __init__(self) -> None:
        self.me = self


async def _tick_ran() -> None:
    """After a fake clock's advance: one turn of the loop fires the job's timer, which starts the
    job's task; the next runs it (server/periodic.py)."""
    for _ in range(2):
        await asyncio.sleep(0)


async def test_the_collector_freezes_survivors_and_collects_everything_now_and_then() -> None:
    clock = FakeClock()
    collector = Collector(clock, freeze_ms=60_000, full_ms=180_000)
    gc.collect()
    collector.start()
    try:
        ring = _Ring()
        alive = weakref.ref(ring)
        clock.advance(60_000)
        await _tick_ran()  # the ring, alive, is frozen
        assert (collector.freezes, gc.get_freeze_count() > 0) == (1, True)
        del ring
        gc.collect()
        assert alive() is not None  # frozen: out of the collector's sight
        # A ring made between two freezes is freed by the next one, not by an automatic
        # collection (they are off while the collector runs: the freezes do their work).
        young = _Ring()
        young_alive = weakref.ref(young)
        del young
        kept = [[] for _ in range(50_000)]  # more than enough to start an automatic collection
        assert young_alive() is not None and not gc.isenabled()
        del kept
        clock.advance(60_000)
        await _tick_ran()
        assert collector.freezes == 2 and alive() is not None and young_alive() is None
        clock.advance(60_000)  # 180 s since the start: everything is collected once
        await _tick_ran()
        assert (collector.freezes, collector.full_collections) == (3, 1)
        assert alive() is None
    finally:
        await collector.stop()
    # The process's collector as it was: nothing frozen, automatic collections on.
    assert gc.get_freeze_count() == 0 and gc.isenabled()


async def test_no_freezing_when_switched_off() -> None:
    clock = FakeClock()
    collector = Collector(clock, freeze_ms=0, full_ms=3_600_000)
    collector.start()
    clock.advance(10 * 3_600_000)
    await _tick_ran()
    assert gc.isenabled()  # the automatic collections go on
    await collector.stop()
    assert (collector.freezes, gc.get_freeze_count(), gc.isenabled()) == (0, 0, True)

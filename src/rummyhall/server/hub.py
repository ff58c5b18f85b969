"""The hub: every live table of this server process, the bots that fill seats, and the lobby's
view of them. It starts table actors, restores open tables after a restart and closes tables
that everyone has left.

One node of several (``serve --redis``, issue 21, docs/cluster.md) runs only the tables whose
leases it holds (:class:`~rummyhall.server.cluster.node.Node`): it takes a table's lease and
raises its fence before it reads the table's log (a table it opens, a table it recovers at
start, a table nobody holds that its sweep finds every lease ttl), renews all its leases every
third of the ttl, and drops a table whose lease is gone or whose write the database refused
(:meth:`Hub.drop`): the actor stops without writing, and its sockets are closed with
:data:`~rummyhall.server.cluster.node.CLOSE_TABLE_MOVED` so that clients reconnect. A node
that drains (:meth:`Hub.drain`: ``rummyhall admin drain``, or SIGTERM) takes no new tables and
hands each of its tables on between two actions; the other nodes hear of each table handed on
and take it over at once."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from functools import partial
from typing import Any, Protocol, runtime_checkable

from sqlalchemy import select

from rummyhall.economy import ladder, ledger, tiers, wallets
from rummyhall.economy.ledger import CHIPS, Currency
from rummyhall.economy.levels import level_for
from rummyhall.economy.rooms import Room, Rooms
from rummyhall.server.bots import BOT_NAMES
from rummyhall.server.clock import Clock
from rummyhall.server.cluster.directory import Directory
from rummyhall.server.cluster.gone_tables import GoneTables
from rummyhall.server.cluster.node import CLOSE_TABLE_MOVED, Node
from rummyhall.server.cluster.relay import Relay, RelayListener, moved
from rummyhall.server.errors import RoomError
from rummyhall.server.metrics import Metrics
from rummyhall.server.sealed_seeds import SeedKey
from rummyhall.server.settings import Settings
from rummyhall.server.table import Listener, Occupant, TableActor
from rummyhall.server.writer import Writer
from rummyhall.store import accounts as store_accounts
from rummyhall.store import tables as store_tables
from rummyhall.store.database import Database
from rummyhall.store.models import AccountModel, utcnow
from rummyhall.store.tables import OPEN, TableRow

log = logging.getLogger(__name__)

_background: set[asyncio.Task[None]] = set()
"""Small writes nobody waits for (a bot's claim given back): kept until done."""

JSON = dict[str, Any]

SOCKETS_CLOSE_S = 5.0
"""How long a drain waits for the close frames (4503) of its tables' sockets to be sent."""


class BotPool:
    """Bot accounts: created on demand, one seat each at a time, topped up from the mint of the
    table's currency (the chips a bot brings to a table are minted like any grant, so the audit
    still balances, currency by currency)."""

    def __init__(self, db: Database, writer: Writer, directory: Directory | None = None) -> None:
        self.db = db
        self.writer = writer
        self.directory = directory
        """A node of several: a bot is seated only under this node's claim on it (two nodes
        never seat one bot twice); None: every bot account is this process's."""
        self._free: list[Occupant] = []
        self._busy: dict[int, Occupant] = {}
        self._loaded = False
        self._lock = asyncio.Lock()

    async def _load(self) -> None:
        async with self.db.transaction() as session:
            rows = await session.execute(
                select(AccountModel.id, AccountModel.name).where(AccountModel.is_bot)
            )
            for account_id, name in rows:
                if account_id not in self._busy:
                    self._free.append(Occupant(account_id, name, True))
        self._loaded = True

    async def _new_bot(self) -> Occupant:
        number = len(self._busy) + len(self._free)

        async def create(session: Any) -> Occupant:
            for attempt in range(number, number + 1000):
                name = f"bot-{BOT_NAMES[attempt % len(BOT_NAMES)]}"
                if attempt >= len(BOT_NAMES):
                    name += f"-{attempt // len(BOT_NAMES) + 1}"
                try:
                    account = await store_accounts.create_bot(session, name)
                except store_accounts.AccountError:
                    continue  # a player (or an earlier bot) has that name
                return Occupant(account.id, account.name, True)
            raise RoomError("busy", "no name left for a bot", 503)

        bot: Occupant = await self.writer.run(create)
        return bot

    async def _claimed(self) -> Occupant:
        """A free bot this node may seat: another node's (it claimed it first) is left to it."""
        while self._free:
            bot = self._free.pop()
            if self.directory is None or await self.directory.claim_bot(bot.account_id):
                return bot
        bot = await self._new_bot()
        if self.directory is not None:
            await self.directory.claim_bot(bot.account_id, again=True)  # (new: nobody else's)
        return bot

    async def mark_busy(self, account_id: int, name: str) -> None:
        self._free = [o for o in self._free if o.account_id != account_id]
        self._busy[account_id] = Occupant(account_id, name, True)
        if self.directory is not None:
            await self.directory.claim_bot(account_id, again=True)  # it sits at our table

    async def take(self, chips: int, currency: Currency = CHIPS) -> Occupant:
        async with self._lock:
            if not self._loaded:
                await self._load()
            bot = await self._claimed()
            self._busy[bot.account_id] = bot
        account = currency.wallet(bot.account_id)

        async def top_up(session: Any) -> None:
            short = chips - await ledger.balance(session, account)
            if short > 0:
                await ledger.transfer(
                    session, f"bot:{uuid.uuid4().hex}",
                    [(currency.mint, -short), (account, short)], kind="bot_chips",
                )  # fmt: skip

        await self.writer.run(top_up)
        return bot

    def release(self, account_id: int) -> None:
        bot = self._busy.pop(account_id, None)
        if bot is not None:
            self._free.append(bot)
            if self.directory is not None:
                directory = self.directory

                async def unclaim() -> None:
                    with contextlib.suppress(Exception):
                        await directory.release_bot(account_id)

                task = asyncio.ensure_future(unclaim())
                _background.add(task)
                task.add_done_callback(_background.discard)


class _Making:
    """A table being opened for quick seats, and the seats promised at it meanwhile."""

    __slots__ = ("promised", "table")

    def __init__(self) -> None:
        self.promised = 0
        self.table: asyncio.Future[TableActor] | None = None


def _no_table(table_id: int) -> RoomError:
    """The answer for a table that is not open, and, word for word, for a private table the
    asker may not reach: the two must not be told apart."""
    return RoomError("unknown_table", f"there is no open table {table_id}", 404)


class Hub:
    def __init__(
        self, db: Database, settings: Settings, clock: Clock, rooms: Rooms, metrics: Metrics
    ) -> None:
        self.db = db
        self.settings = settings
        self.clock = clock
        self.rooms = rooms
        self.metrics = metrics
        self.node: Node | None = None
        """This process as one node of several (None: it owns every table, as ever)."""
        if settings.redis_url is not None:
            if not settings.node_id:
                raise ValueError("a node of several needs a node id")
            self.node = Node.from_url(
                settings.redis_url, settings.node_id, settings.lease_ttl_ms / 1000
            )
        self.relay: Relay | None = None
        """A node of several: its channel to the others (a table another node runs is
        reached through it)."""
        self._owners: dict[int, str] = {}
        """Tables of other nodes this node relays for: table -> the node that runs it, as
        last seen (a call refused with ``table_moved`` forgets it)."""
        self._taking: dict[int, asyncio.Future[TableActor | None]] = {}
        """Tables being taken over now (a sweep and players' requests share one attempt)."""
        self._gone = GoneTables(self._highest_table_id)
        """Table ids that surely name no open table (a node of several asks no database)."""
        self.directory: Directory | None = None
        """A node of several: the lobby, seats and bots the nodes share."""
        self._lobby_changed = asyncio.Event()
        if self.node is not None:
            self.directory = Directory(self.node.redis, self.node.node_id, self.node.ttl)
            self.relay = Relay(self.node.redis, self.node.node_id, metrics=metrics)
            self.relay.handler = self._serve_call
            self.relay.on_gone = self._node_gone
            self.relay.on_closed = self._relayed_closed
        self.writer = Writer(
            db, batch=settings.commit_batch, fenced=self.node is not None, metrics=metrics
        )
        db.on_commit_seconds = metrics.sqlite_commit.observe
        self.writer.on_stale = self._stale
        self._tasks: set[asyncio.Task[Any]] = set()
        """The node's own tasks: renewing leases, sweeping for tables nobody holds, drops."""
        self._closing: set[asyncio.Task[Any]] = set()
        """Sockets of dropped tables being closed (a drain ends once they are)."""
        self._claiming = asyncio.Lock()
        """Held while the node takes tables over (its sweep, a table handed on to it), so that
        a drain waits for a takeover under way; none starts once the node drains."""
        self.draining = False
        """One node of several that hands its tables on and takes no new ones (:meth:`drain`)."""
        self.handed_on = 0
        """How many tables the drain has handed on so far."""
        self._drain_task: asyncio.Task[int] | None = None
        self.bots = BotPool(db, self.writer, self.directory)
        self.seeds = SeedKey.load_or_create(settings.seed_key_path)
        self.tables: dict[int, TableActor] = {}
        self._opening: dict[int, int] = {}
        """Tables being made, per account that asked (see :meth:`create_table`)."""
        # Quick-seat: choosing a table is serialised per room, and seats promised to requests
        # still on their way to the table count as taken, so a crowd arriving at once spreads
        # over tables instead of all racing for the same last seat.
        self._choosing: dict[str, asyncio.Lock] = {}
        self._promised: dict[int, int] = {}
        self._making: dict[str, _Making] = {}
        """Per room, the table being opened for quick seats, with the seats promised at it."""
        self._seated: dict[int, set[int]] = {}
        """Who sits where: account -> the open tables where it has a seat."""
        self._seating_locks: dict[int, asyncio.Lock] = {}
        self.levels: dict[int, int] = {}
        """The level of each player who asked for a seat in a room of a tier (:meth:`admit`), kept
        until they stand up from their last table: what a quick seat matches levels with."""

    # --- life ------------------------------------------------------------------------------------

    async def start(self) -> None:
        self.writer.start()
        if self.node is not None:
            assert self.relay is not None and self.directory is not None
            self.directory.start()
            await self.relay.start()
            await self._start_node(self.node)
            return
        async with self.db.transaction() as session:
            # Tables nobody ever sat at hold nothing: closed, not restored.
            unused = await store_tables.close_unused_tables(session)
            if unused:
                log.info("closed %d tables nobody sat at", len(unused))
            rows = await store_tables.open_tables(session)
            for row in rows:
                await self._restore(session, row)
        for actor in self.tables.values():
            actor.start()
        self.metrics.tables.set(len(self.tables))
        log.info("hub started with %d restored tables", len(self.tables))

    async def _restore(self, session: Any, row: TableRow) -> TableActor | None:
        """The actor of an open table, rebuilt from its log (not started)."""
        room = self.rooms.get(row.room)
        if room is None:
            log.error("table %s: unknown room %r; left closed", row.id, row.room)
            return None
        actor = self._actor(row.id, room, private=row.invite_code is not None)
        actor.invite = row.invite_code
        actor.creator = row.created_by
        if actor.private:
            actor.grants = await store_tables.grants(session, row.id)
        await actor.restore(session)
        for occupant in actor.seats.values():
            if occupant.bot:
                await self.bots.mark_busy(occupant.account_id, occupant.name)
        return actor

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for actor in list(self.tables.values()):
            await actor.stop()
        await self.writer.stop()
        if self.relay is not None:
            await self.relay.stop()
        if self.directory is not None:
            with contextlib.suppress(Exception):
                await self.directory.flush()
            await self.directory.stop()
        if self.node is not None:
            # Written and stopped: hand the tables on now rather than after a ttl (a drained
            # node holds none any more).
            for table_id, token in list(self.node.held.items()):
                with contextlib.suppress(Exception):
                    await self.node.hand_on(table_id, token)
            await self.node.close()

    # --- one node of several (issue 21) -----------------------------------------------------------

    async def _start_node(self, node: Node) -> None:
        """Take over the open tables no node holds (at a first start: all of them), then keep
        the leases and look for tables nobody holds every ttl. Tables nobody ever sat at are
        not closed here, as a single process does: another node may be opening them. It listens
        for the tables other nodes hand on before it sweeps, so that none falls in between."""
        await node.subscribe()
        await self._sweep_once(node)
        log.info("node %s started with %d tables", node.node_id, len(self.tables))
        self._spawn(self._renewing(node), "lease-renewer")
        self._spawn(self._publishing_lobby(node), "lobby-publisher")
        self._spawn(self._sweeping(node), "table-sweeper")
        self._spawn(self._taking_handed_on(node), "handed-on-listener")

    def _spawn(self, work: Any, name: str) -> asyncio.Task[Any]:
        task = asyncio.create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _renewing(self, node: Node) -> None:
        while True:
            await asyncio.sleep(node.ttl / 3)
            try:
                lost = await node.renew_all()
            except Exception:
                log.exception("renewing the leases failed")
                continue
            for table_id in lost:
                await self.drop(table_id, "its lease is gone")
            try:
                await self._check_relayed(node)
            except Exception:
                log.exception("checking the owners of relayed tables failed")

    async def _publishing_lobby(self, node: Node) -> None:
        """This node's tables into the directory (the shared lobby and the operator's list):
        soon after a table opens, closes or its seats change (at most four times a second),
        and every third of the ttl (games go on; the entry expires after three ttls): every
        table's info rebuilt each time, which is simple and runs a few times a second at most."""
        assert self.directory is not None
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(node.ttl / 3):
                    await self._lobby_changed.wait()
            self._lobby_changed.clear()
            try:
                await self.directory.publish_tables(self.admin_tables_here())
            except Exception:
                log.exception("publishing the lobby failed")
            await asyncio.sleep(0.25)

    async def _sweeping(self, node: Node) -> None:
        while True:
            await asyncio.sleep(node.ttl)
            try:
                await self._sweep_once(node)
            except Exception:
                log.exception("looking for tables nobody runs failed")

    async def _sweep_once(self, node: Node) -> None:
        """Take over every open table with a history that no node holds (none while draining),
        and close the tables whose node died as it opened them (see
        :func:`~rummyhall.store.tables.close_unused_tables`): older than a table nobody sits at
        may stay open."""
        async with self._claiming:
            if self.draining:
                return
            abandoned_before = utcnow() - timedelta(milliseconds=self.settings.empty_table_ms)
            async with self.db.transaction() as session:
                abandoned = await store_tables.close_unused_tables(
                    session, abandoned_before=abandoned_before
                )
            if abandoned:
                log.info("closed tables whose node died as it opened them: %s", abandoned)
            async with self.db.read() as session:
                candidates = await store_tables.tables_to_recover(session)
            free = await node.unowned(t for t in candidates if t not in self.tables)
            for table_id in free:
                if self.draining:
                    return
                actor = await self._take_over(node, table_id)
                if actor is not None:
                    log.info(
                        "node %s took table %s over (lease token %s)",
                        node.node_id, table_id, node.held.get(table_id),
                    )  # fmt: skip

    async def _taking_handed_on(self, node: Node) -> None:
        """Take over at once each table another node hands on (a drain, a clean stop), instead
        of at the next sweep, a ttl later. Several nodes hear it: the first to acquire the
        lease runs the table, the others find it held."""
        while True:
            try:
                async for table_id in node.handed_on():
                    async with self._claiming:
                        if self.draining or table_id in self.tables:
                            continue
                        try:
                            actor = await self._take_over(node, table_id)
                        except Exception:
                            log.exception("taking table %s over failed", table_id)
                            continue
                    if actor is not None:
                        log.info(
                            "node %s took table %s over, handed on (lease token %s)",
                            node.node_id, table_id, node.held.get(table_id),
                        )  # fmt: skip
            except Exception:
                log.exception("listening for tables handed on failed; the sweep finds them")
                await asyncio.sleep(node.ttl)

    async def _take_over(self, node: Node, table_id: int) -> TableActor | None:
        """Lease, fence, then replay the log and start the actor (docs/cluster.md, "Taking a
        table over"); None if another node got the table first, or it closed meanwhile. One
        attempt per table at a time: the sweep and players' requests wait for the same one."""
        taking = self._taking.get(table_id)
        if taking is None:
            taking = self._taking[table_id] = asyncio.ensure_future(
                self._take_over_now(node, table_id)
            )
            taking.add_done_callback(lambda _: self._taking.pop(table_id, None))
        return await asyncio.shield(taking)

    async def _take_over_now(self, node: Node, table_id: int) -> TableActor | None:
        if table_id in self.tables:
            return self.tables[table_id]
        token = await node.claim(self.db, table_id)
        if token is None:
            return None
        try:
            async with self.db.read() as session:
                row = await store_tables.get_table(session, table_id)
                actor = None
                if row is not None and row.status == OPEN:
                    actor = await self._restore(session, row)
        except BaseException:
            half_built = self.tables.pop(table_id, None)
            if half_built is not None:
                await half_built.stop()  # (requests that reached it meanwhile are answered)
            await node.release(table_id)
            raise
        if actor is None:
            await node.release(table_id)
            return None
        assert self.writer.tokens is not None
        self.writer.tokens[table_id] = token
        actor.start()
        self.metrics.tables.set(len(self.tables))
        return actor

    def _stale(self, table_id: int, token: int) -> None:
        """The database refused a write of the table under ``token``: another node runs it."""
        if self.node is not None and self.node.held.get(table_id) == token:
            self._spawn(self.drop(table_id, "another node took it over"), f"drop-{table_id}")

    async def drop(self, table_id: int, why: str) -> None:
        """Stop running a table this node no longer holds: its actor stops without writing,
        and the sockets watching it are closed with CLOSE_TABLE_MOVED (they reconnect)."""
        if self.node is not None:
            self.node.forget(table_id)
        if self.writer.tokens is not None:
            self.writer.tokens.pop(table_id, None)
        actor = self.tables.pop(table_id, None)
        if actor is None:
            return
        log.warning("table %s dropped: %s", table_id, why)
        await actor.stop()
        for occupant in list(actor.seats.values()):
            # Here only: the player still sits there, on the node that runs the table now.
            self._forget_seat(occupant.account_id, table_id)
        self._lobby_changed.set()
        # (seats promised at it are given back by their own requests, which fail: _unpromise)
        relayed: list[RelayListener] = []
        for listener in list(actor.watchers):
            if isinstance(listener, RelayListener):
                relayed.append(listener)
            elif isinstance(listener, _Socket):
                listener.closed = True  # nothing more of this node's view of the table
                closing = self._spawn(_close(listener, why), f"close-{table_id}")
                self._closing.add(closing)
                closing.add_done_callback(self._closing.discard)
        if self.relay is not None:
            # Also the other nodes' listeners that left already (their unwatch may be late).
            relayed += self.relay.of_table(table_id)
            self.relay.gone(table_id, relayed, why)
        actor.watchers.clear()
        self.metrics.tables.set(len(self.tables))

    async def drain(self) -> int:
        """Hand every table of this node on to the other nodes, and take no new ones (issue 21,
        docs/cluster.md, "Draining a node"); returns how many tables it has handed on. Called
        again (a second ``admin drain``, then SIGTERM), it waits for the same drain; a drain
        that failed (Redis cut off) is started again."""
        if self.node is None:
            raise RoomError(
                "not_a_node",
                "this server is not a node of several (serve --redis): it has nobody to hand "
                "its tables to; stop it instead",
                409,
            )
        task = self._drain_task
        if task is None or (task.done() and (task.cancelled() or task.exception() is not None)):
            self.draining = True
            task = self._drain_task = self._spawn(self._drain(self.node), "drain")
        # (shielded: a caller that goes away, an HTTP client giving up, does not stop the drain)
        handed: int = await asyncio.shield(task)
        return handed

    async def _drain(self, node: Node) -> int:
        async with self._claiming:
            pass  # a takeover under way ends first; with draining set, none starts after it
        log.info("node %s draining: %d tables to hand on", node.node_id, len(self.tables))
        # At most HAND_ON_AT_ONCE at a time: each hand-on ends with Redis calls, and a gather
        # of a thousand would want more connections than redis-py's pool holds.
        limit = asyncio.Semaphore(HAND_ON_AT_ONCE)

        async def hand_on(table_id: int) -> bool:
            async with limit:
                return await self._hand_on(node, table_id)

        while self.tables:  # (each round empties it: a table is dropped whatever happens)
            handed = await asyncio.gather(*(hand_on(t) for t in list(self.tables)))
            self.handed_on += sum(handed)
        if self._closing:  # the sockets told to reconnect before the process may exit
            # (bounded: a client that stopped reading may never take its close frame; the
            # server's shutdown cuts that connection anyway)
            await asyncio.wait(set(self._closing), timeout=SOCKETS_CLOSE_S)
        log.info("node %s drained: %d tables handed on", node.node_id, self.handed_on)
        return self.handed_on

    async def _hand_on(self, node: Node, table_id: int) -> bool:
        """Hand one table on between two of its actions: inside its task (no action is half
        done), every write of it committed, its actor stopped without writing, its sockets
        closed with CLOSE_TABLE_MOVED (clients reconnect), then its lease released and
        announced. False if its lease was not this node's any more."""
        actor = self.tables.get(table_id)
        tokens = self.writer.tokens
        if actor is None or tokens is None:
            return False

        async def between_actions() -> None:
            tokens.pop(table_id, None)  # a write of the table queued from now on is refused,
            # and an empty write returns once every job queued before it is done: the writer
            # takes its jobs in order (its own failure, the database's, says the same).
            with contextlib.suppress(Exception):
                await self.writer.write()
            await actor.stop()  # (from inside its task: no command of it runs after this one)

        with contextlib.suppress(RoomError):  # table_closed: it stopped on its own meanwhile
            await actor.call(between_actions)
        token = node.held.get(table_id)
        await self.drop(table_id, "its node is draining")
        if token is None:
            return False
        try:
            return await node.hand_on(table_id, token)
        except Exception:
            log.exception("handing table %s on failed; its lease runs out instead", table_id)
            return False

    def _refuse_new_table(self) -> None:
        """A draining node opens no table (a table it opened would only be handed on)."""
        if self.draining:
            raise RoomError(
                "node_draining",
                "this server is handing its tables on before it stops: try again, another "
                "server will open the table",
                503,
            )

    async def _close_unseen(self, table_id: int) -> None:
        """Close a table this node opened as its drain began, before anyone saw it: nothing to
        hand on, and another node must not find it open and unused."""

        async def close(session: Any) -> None:
            await store_tables.close_table(session, table_id)

        try:
            await self.writer.run(close, table=table_id)
        finally:
            assert self.writer.tokens is not None and self.node is not None
            self.writer.tokens.pop(table_id, None)
            await self.node.release(table_id)

    def _actor(self, table_id: int, room: Room, *, private: bool) -> TableActor:
        actor = TableActor(
            table_id,
            room,
            settings=self.settings,
            clock=self.clock,
            writer=self.writer,
            metrics=self.metrics,
            seeds=self.seeds,
            bots=self.bots if self.settings.bots else None,
            private=private,
            on_empty=self._on_empty,
            on_seat=self._on_seat,
        )
        self.tables[table_id] = actor
        self._lobby_changed.set()
        return actor

    def _on_seat(self, account_id: int, table_id: int, seated: bool) -> None:
        """A table of this node gave or took back a seat (or replays one it gave)."""
        actor = self.tables.get(table_id)
        if seated:
            self._seated.setdefault(account_id, set()).add(table_id)
        else:
            self._forget_seat(account_id, table_id)
        if self.directory is not None and actor is not None:
            seat = actor.seat_of(account_id) if seated else None
            entry = (
                None
                if seat is None
                else {"room": actor.room.key, "seat": seat, "private": actor.private}
            )
            self.directory.seated(account_id, table_id, entry)
        self._lobby_changed.set()

    def _forget_seat(self, account_id: int, table_id: int) -> None:
        tables = self._seated.get(account_id)
        if tables is None:
            return
        tables.discard(table_id)
        if not tables:
            del self._seated[account_id]
            self.levels.pop(account_id, None)

    def seated_at(self, account_id: int) -> list[TableActor]:
        """The open tables where the account has a seat, by id."""
        actors = (self.tables.get(table_id) for table_id in self._seated.get(account_id, ()))
        return sorted((a for a in actors if a is not None and not a.closed), key=lambda a: a.id)

    @contextlib.asynccontextmanager
    async def _seating(self, account_id: int, held: str | None = None) -> AsyncIterator[str | None]:
        """One seat request of an account at a time: the check that it sits nowhere else and
        the sit itself must not interleave with another request of the same account, or two
        requests at once could each find no other seat and sit at two tables. A node of several
        also holds the account's lock in the directory (requests on other nodes), whose token
        it yields (``held``: a request relayed here by the node that holds it); the seats
        taken are in the directory before it is released."""
        lock = self._seating_locks.setdefault(account_id, asyncio.Lock())
        try:
            async with lock:
                if self.directory is None:
                    yield None
                    return
                async with self.directory.seating(account_id, held) as token:
                    try:
                        yield token
                    finally:
                        await self.directory.flush()
        finally:
            if not lock.locked() and self._seating_locks.get(account_id) is lock:
                del self._seating_locks[account_id]

    async def sit(
        self, account_id: int, name: str, table_id: int, *, guest: bool = False,
        another: bool = False, seat: int | None = None, buy_in: int | None = None,
        auto_rebuy: bool = False, held: str | None = None,
    ) -> tuple[int, int]:  # fmt: skip
        """Sit the player at the table (which they must be able to reach, with chips of its
        currency); returns (the seat, the table's sequence number then). ``held``: the token of
        the account's seat-request lock, when the request that holds it relayed this here."""
        where = await self._where(table_id)
        if not isinstance(where, TableActor):
            seat, seq = await self._relay(
                where, "sit", table=table_id, account=account_id, name=name, guest=guest,
                another=another, seat=seat, buy_in=buy_in, auto_rebuy=auto_rebuy, held=held,
            )  # fmt: skip
            return int(seat), int(seq)
        actor = self._reachable(where, account_id)
        await self.admit(actor.room, account_id, guest=guest)
        async with self._seating(account_id, held):
            await self._check_elsewhere(account_id, table_id, another)
            sit = partial(
                actor.sit, account_id, name, seat=seat, buy_in=buy_in, auto_rebuy=auto_rebuy
            )
            try:
                taken: int = await actor.call(sit)
            except RoomError as error:
                if error.code == "insufficient_chips":
                    raise await self._short_of_silver(actor.room, account_id, error) from None
                raise
            return taken, actor.seq

    async def _short_of_silver(self, room: Room, account_id: int, error: RoomError) -> RoomError:
        """A silver table's ``insufficient_chips``, told of the room's gold tables when the
        player's gold covers their minimum stack: a table keeps its currency, and the way to
        play gold is a quick seat in the room (which falls through to its gold tables)."""
        twin = self.rooms.gold_of(room)
        if twin is None:
            return error
        async with self.db.read() as session:
            silver = await ledger.balance(session, room.wallet(account_id))
            held = await ledger.balance(session, twin.wallet(account_id))
        if silver >= room.min_stack or held < twin.min_stack:
            return error
        return RoomError(
            error.code,
            f"{error.message}. This table plays silver chips; your {held} gold chips play at "
            "this room's gold tables: a quick seat in the room takes you to one",
            error.status,
        )

    async def _check_elsewhere(
        self, account_id: int, table_id: int | None, another: bool,
        elsewhere: dict[int, JSON] | None = None,
    ) -> None:  # fmt: skip
        """A seat at a second table only when the player asked for one: a player who went back
        to the lobby with a seat still held must not end up paying at two tables unawares. (A
        node of several asks the directory, unless the caller has just read it: ``elsewhere``;
        the seat may be at another node's table.)"""
        if another:
            return
        tables = [actor.id for actor in self.seated_at(account_id)]
        if self.directory is not None:
            if elsewhere is None:
                elsewhere = await self.directory.seats_of(account_id)
            tables += list(elsewhere)
        for other in sorted(tables):
            if other != table_id:
                raise RoomError(
                    "seated_elsewhere",
                    f"you have a seat at table {other}: go back to it or leave it first, "
                    "or ask for a seat at another table as well",
                    409,
                )

    async def _on_empty(self, actor: TableActor) -> None:
        """Everyone left: close the table (its log stays for the record)."""
        table_id = actor.id

        async def close(session: Any) -> None:
            await store_tables.close_table(session, table_id)

        await self.writer.run(close, table=table_id)
        actor.closed = True
        self.tables.pop(table_id, None)
        self._lobby_changed.set()
        if self.node is not None:
            assert self.writer.tokens is not None
            self.writer.tokens.pop(table_id, None)
            await self.node.release(table_id)
        self.metrics.tables.set(len(self.tables))
        for listener in list(actor.watchers):
            listener.send(actor.message("closed", [], listener.account_id))
        if self.relay is not None:
            self.relay.of_table(table_id)  # (told it closed: nothing more to relay)

    # --- tables ----------------------------------------------------------------------------------

    def room(self, key: str) -> Room:
        room = self.rooms.get(key)
        if room is None:
            raise RoomError("unknown_room", f"there is no room {key!r}", 404)
        return room

    async def admit(self, room: Room, account_id: int, *, guest: bool) -> None:
        """Whether the account may play in the room, asked before a seat, a quick seat or a new
        table, so that a refusal changes nothing: 403 ``practice_only`` unless it may hold the
        room's currency (a guest holds practice chips only), 403 ``room_locked`` while its level
        is below the one that opens the room's tier."""
        if not wallets.may_play(room.chips, guest=guest):
            raise RoomError(
                "practice_only",
                "guests play with practice chips only: sign up to play for real chips "
                "(practice rooms are open to you)",
                403,
            )
        if room.tier is None:
            return
        tier = tiers.tier(room.tier)
        async with self.db.read() as session:
            climb = await ladder.climb(session, account_id)
        level = level_for(climb.clover).number
        self.levels[account_id] = level
        if not tier.open_to(level):
            raise RoomError(
                "room_locked",
                f"the {tier.name} rooms open with the title {tier.title} (level {tier.level}); "
                f"you are level {level}",
                403,
            )

    async def seats_of(self, account_id: int) -> list[tuple[JSON, int]]:
        """(the table's info, the seat) of every open table where the account has a seat, by
        table: this node's, and (a node of several) the other nodes' (their info asked of their
        nodes; a table that cannot be reached now is left out)."""
        found = [
            (actor.info(), actor.seat_of(account_id) or 0) for actor in self.seated_at(account_id)
        ]
        if self.directory is not None:
            here = {int(info["id"]) for info, _ in found}
            for table_id, entry in sorted((await self.directory.seats_of(account_id)).items()):
                if table_id in here:
                    continue

                async def asking() -> int:
                    return account_id

                try:
                    found.append((await self.info(table_id, asking), int(entry["seat"])))
                except RoomError:
                    continue
            found.sort(key=lambda pair: int(pair[0]["id"]))
        return found

    async def chips_at_tables(self, account_id: int, currency: Currency) -> int:
        """The chips of ``currency`` the account has at its seats (open tables of that
        currency)."""
        return sum(
            info["seats"][seat - 1]["stack"]
            for info, seat in await self.seats_of(account_id)
            if info["currency"] == currency.key and info["seats"][seat - 1] is not None
        )

    def table(self, table_id: int) -> TableActor:
        """An open table by id, whoever asks (the server's own use and the operator's): what
        players ask for goes through :meth:`reach`."""
        actor = self.tables.get(table_id)
        if actor is None or actor.closed:
            raise _no_table(table_id)
        return actor

    def reach(self, table_id: int, account_id: int | None) -> TableActor:
        """An open table by id, for an account (None: not signed in). A private table the
        account may not reach (see :meth:`TableActor.may_reach`) answers exactly as a table that
        does not exist: ids are sequential, and must not tell that a private table is there."""
        actor = self.table(table_id)
        if not actor.may_reach(account_id):
            raise _no_table(table_id)
        return actor

    # --- reaching a table, on this node or another (what the API and sockets use) ---------------

    async def _where(self, table_id: int) -> TableActor | str:
        """The table's actor if this node runs it, else the id of the node that does (a node of
        several). A table no node runs but that has a history (its node died) is taken over
        here and now, rather than at the next sweep: the player asking for it is waiting."""
        actor = self.tables.get(table_id)
        if actor is not None and not actor.closed:
            return actor
        if self.node is None or not 0 < table_id <= MAX_TABLE_ID:
            raise _no_table(table_id)
        known = self._owners.get(table_id)
        if known is not None:
            return known
        if self._gone.known_closed(table_id):
            raise _no_table(table_id)
        owner = await self.node.leases.owner(table_id)
        if owner is None:
            if await self._gone.beyond_the_last(table_id):
                raise _no_table(table_id)  # (no database read for a made-up id)
            async with self.db.read() as session:
                recoverable = table_id in await store_tables.tables_to_recover(
                    session, only=table_id
                )
                if not recoverable:
                    row = await store_tables.get_table(session, table_id)
                    if row is None or row.status != OPEN:
                        self._gone.closed(table_id)
                        raise _no_table(table_id)
            if recoverable:
                async with self._claiming:  # (as the sweep: none while this node drains)
                    if not self.draining:
                        actor = await self._take_over(self.node, table_id)
                if actor is not None and not actor.closed:
                    return actor
            owner = await self.node.leases.owner(table_id)
            if owner is None:
                if recoverable:  # (this node drains: another takes it over in a moment)
                    raise moved("the table is being handed on")
                raise _no_table(table_id)
        if owner.node_id == self.node.node_id:
            taking = self._taking.get(table_id)
            if taking is not None:
                # This node holds the lease and is replaying the log: the player waits for the
                # same attempt rather than being sent off to reconnect to this very node. (If
                # it fails, its task logs why, and the player is told to come again.)
                with contextlib.suppress(Exception):
                    await asyncio.shield(taking)
            actor = self.tables.get(table_id)
            if actor is not None and not actor.closed:
                return actor
            raise moved("the table is being taken over")  # (it was dropped a moment ago)
        self._owners[table_id] = owner.node_id
        return owner.node_id

    async def _highest_table_id(self) -> int:
        async with self.db.read() as session:
            return await store_tables.highest_id(session)

    async def _relay(self, node_id: str, op: str, **args: Any) -> Any:
        """A call to the node that runs ``args["table"]``; a ``table_moved`` answer forgets
        that node as the table's."""
        assert self.relay is not None
        try:
            return await self.relay.call(node_id, op, **args)
        except RoomError as error:
            if error.code == "table_moved":
                self._owners.pop(args["table"], None)
            raise

    async def watch(self, table_id: int, listener: Watcher) -> Watching:
        """``listener`` watches the table (it is sent a snapshot first); what to call
        ``unwatch`` on when it stops."""
        where = await self._where(table_id)
        if isinstance(where, TableActor):
            actor = self._reachable(where, listener.account_id)
            await actor.call(_async(lambda: actor.watch(listener)))
            return actor
        assert self.relay is not None
        key = (table_id, listener.number)
        # Registered before the call: the snapshot arrives before the call's answer.
        self.relay.watching[key] = listener
        try:
            await self._relay(
                where, "watch", table=table_id, account=listener.account_id, conn=listener.number
            )
        except BaseException:
            if self.relay.watching.get(key) is listener:
                del self.relay.watching[key]
            raise
        return _Remote(self, where, table_id)

    async def act(
        self, table_id: int, account_id: int, action: str, cid: str | None,
        sender: Watcher | None,
    ) -> int | None:  # fmt: skip
        """A player's action (:meth:`TableActor.act`): the table's sequence number once it is
        committed, or None when ``sender`` watches the table and its update was the answer."""
        where = await self._where(table_id)
        if isinstance(where, TableActor):
            actor = self._reachable(where, account_id)
            seq: int | None = await actor.call(lambda: actor.act(account_id, action, cid, sender))
            return seq
        found: int | None = await self._relay(
            where, "act", table=table_id, account=account_id,
            conn=None if sender is None else sender.number, action=action, cid=cid,
        )  # fmt: skip
        return found

    async def leave(self, table_id: int, account_id: int) -> tuple[bool, int]:
        """The player leaves their seat (:meth:`TableActor.leave`): (whether after the game, the
        table's sequence number then)."""
        where = await self._where(table_id)
        if isinstance(where, TableActor):
            actor = self._reachable(where, account_id)
            later: bool = await actor.call(lambda: actor.leave(account_id))
            return later, actor.seq
        later, seq = await self._relay(where, "leave", table=table_id, account=account_id)
        return bool(later), int(seq)

    async def set_auto_rebuy(self, table_id: int, account_id: int, on: bool) -> None:
        where = await self._where(table_id)
        if isinstance(where, TableActor):
            actor = self._reachable(where, account_id)
            await actor.call(lambda: actor.set_auto_rebuy(account_id, on))
            return
        await self._relay(where, "auto_rebuy", table=table_id, account=account_id, on=on)

    async def info(self, table_id: int, account: Callable[[], Awaitable[int | None]]) -> JSON:
        """A table's public info for whoever ``account`` says is asking (None: not signed in),
        asked only for a private table on this node (no database read for a public one)."""
        where = await self._where(table_id)
        if isinstance(where, TableActor):
            return self._reachable(where, await account() if where.private else None).info()
        found: JSON = await self._relay(where, "info", table=table_id, account=await account())
        return found

    def _reachable(self, actor: TableActor, account_id: int | None) -> TableActor:
        if not actor.may_reach(account_id):
            raise _no_table(actor.id)
        return actor

    async def _serve_call(self, sender: str, op: str, args: JSON) -> Any:
        """Run a call another node relays for one of its clients, at a table this node runs
        (:class:`~rummyhall.server.cluster.relay.Relay`)."""
        assert self.relay is not None
        table_id = int(args["table"])
        account = args.get("account")
        account_id = None if account is None else int(account)
        actor = self.tables.get(table_id)
        if actor is None or actor.closed:
            raise moved("this node does not run the table any more")
        if op == "unwatch":
            assert account_id is not None
            gone = self.relay.listeners.pop((sender, table_id, int(args["conn"])), None)
            if gone is not None:
                actor.unwatch(gone)
            return None
        if op == "info":
            return self._reachable(actor, account_id).info()
        if op == "void":
            return await self.void(table_id)
        if op == "invite":
            assert account_id is not None
            if actor.invite != args.get("code"):
                raise RoomError("unknown_invite", "this invitation is not valid (any more)", 404)
            return await self.by_invite(str(args["code"]), account_id)
        assert account_id is not None
        if op == "watch":
            self._reachable(actor, account_id)
            listener = self.relay.listener(sender, table_id, int(args["conn"]), account_id)
            await actor.call(_async(lambda: actor.watch(listener)))
            return None
        if op == "act":
            conn = args.get("conn")
            by = None if conn is None else self.relay.listeners.get((sender, table_id, conn))
            return await self.act(table_id, account_id, str(args["action"]), args.get("cid"), by)
        if op == "leave":
            return list(await self.leave(table_id, account_id))
        if op == "auto_rebuy":
            await self.set_auto_rebuy(table_id, account_id, bool(args["on"]))
            return None
        if op == "sit":
            return list(
                await self.sit(
                    account_id, str(args["name"]), table_id, guest=bool(args["guest"]),
                    another=bool(args["another"]), seat=args.get("seat"),
                    buy_in=args.get("buy_in"), auto_rebuy=bool(args["auto_rebuy"]),
                    held=args.get("held"),
                )
            )  # fmt: skip
        raise RoomError("bad_request", f"no call {op!r}")

    def _node_gone(self, node_id: str) -> None:
        """A node no longer receives what this node publishes to it: its connections are gone
        (it died or stopped), so they watch nothing here any more (the seats show away)."""
        assert self.relay is not None
        for listener in self.relay.of_node(node_id):
            actor = self.tables.get(listener.table_id)
            if actor is not None:
                actor.unwatch(listener)
        for table_id, owner in list(self._owners.items()):
            if owner == node_id:
                del self._owners[table_id]

    def _relayed_closed(self, listener: Any, why: str) -> None:
        """The node that ran a table this node relays no longer does: the connections watching
        it reconnect (4503), as when this node drops a table."""
        if isinstance(listener, _Socket) and not listener.closed:
            listener.closed = True
            self._spawn(_close(listener, why), "close-relayed")

    async def _check_relayed(self, node: Node) -> None:
        """Every ttl/3: a relayed table whose lease changed hands or ran out (its node died:
        nobody told us) is closed to its watchers here, who reconnect and find it again."""
        assert self.relay is not None
        tables = sorted({table for table, _ in self.relay.watching})
        for table_id in set(self._owners) - set(tables):
            del self._owners[table_id]  # (looked up again if asked for: the cache stays small)
        if not tables:
            return
        owners = await node.leases.owners(tables)
        for table_id, owner in zip(tables, owners, strict=True):
            if owner is not None and owner.node_id == self._owners.get(table_id):
                continue
            self._owners.pop(table_id, None)
            for key in [key for key in self.relay.watching if key[0] == table_id]:
                self._relayed_closed(self.relay.watching.pop(key), "its node changed")

    def opened_by(self, account_id: int) -> int:
        """How many open tables the account opened."""
        return sum(1 for a in self.tables.values() if a.creator == account_id and not a.closed)

    async def create_table(
        self, room_key: str, *, private: bool = False, creator: int | None = None
    ) -> TableActor:
        """Open a table of the room; ``creator`` is the account asking (None: the room itself,
        for quick-seat), limited to ``settings.tables_per_account`` open tables."""
        room = self.room(room_key)
        self._refuse_new_table()
        # The invite is the only key to a private table: 128 random bits, like a session token.
        invite = secrets.token_urlsafe(16) if private else None

        new = store_tables.NewTable(room.game, room.key, room.to_json(), invite, creator)

        if creator is not None:
            # Tables still being made count too: parallel requests of one account must not all
            # pass the count before any of their tables exists.
            opening = self._opening.get(creator, 0)
            if self.opened_by(creator) + opening >= self.settings.tables_per_account:
                raise RoomError(
                    "too_many_tables",
                    f"you have {self.settings.tables_per_account} open tables already: play at "
                    "one of them, or wait until one closes",
                    429,
                )
            self._opening[creator] = opening + 1
        try:
            table_id = int(await self.writer.write(shared=(store_tables.insert_tables, new)))
        finally:
            if creator is not None:
                left = self._opening.pop(creator) - 1
                if left:
                    self._opening[creator] = left
        if self.node is not None:
            # Nobody else takes a table without a log or a fence (tables_to_recover): the
            # lease is this node's unless Redis failed.
            token = await self.node.claim(self.db, table_id)
            if token is None:
                raise RoomError("busy", "the room is busy; try again", 503)
            async with self.db.read() as session:
                row = await store_tables.get_table(session, table_id)
            if row is None or row.status != OPEN:
                # This node stalled between opening and claiming it for longer than a table
                # may stay unused, and another node's sweep closed it as abandoned.
                await self.node.release(table_id)
                raise RoomError("busy", "the room is busy; try again", 503)
            assert self.writer.tokens is not None
            self.writer.tokens[table_id] = token
            if self.draining:  # it began while the table was being made
                await self._close_unseen(table_id)
                self._refuse_new_table()
        actor = self._actor(table_id, room, private=private)
        actor.invite = invite
        actor.creator = creator
        actor.start()
        self.metrics.tables.set(len(self.tables))
        return actor

    async def by_invite(self, code: str, account_id: int) -> JSON:
        """The info of the open table of an invite code, which the account may reach by its id
        from now on (recorded, so that it still may after a restart). A node of several finds
        the table in the database, and its node grants it."""
        for actor in self.tables.values():
            if actor.invite is not None and actor.invite == code and not actor.closed:
                break
        else:
            if self.node is not None:
                async with self.db.read() as session:
                    row = await store_tables.table_by_invite(session, code)
                if row is not None:
                    where = await self._where(row.id)
                    if isinstance(where, str):
                        found: JSON = await self._relay(
                            where, "invite", table=row.id, account=account_id, code=code
                        )
                        return found
                    if where.invite == code:
                        return await self.by_invite(code, account_id)
            raise RoomError("unknown_invite", "this invitation is not valid (any more)", 404)
        if not actor.may_reach(account_id):
            actor.grants.add(account_id)  # before the write: a second request finds it there
            table_id = actor.id

            async def grant(session: Any) -> None:
                await store_tables.grant(session, table_id, account_id)

            try:
                await self.writer.run(grant, table=table_id)
            except BaseException:
                actor.grants.discard(account_id)
                raise
        return actor.info()

    async def quick_seat(
        self, account_id: int, name: str, room_key: str, *, another: bool = False,
        auto_rebuy: bool = False,
    ) -> tuple[int, int]:  # fmt: skip
        """Sit the player at a public table of the room with a free seat, preferring tables with
        people waiting; create one if there is none. A player already seated at a public table
        of the room (or of its gold twin) goes back to it; one seated elsewhere must ask for
        ``another`` seat. A silver room whose minimum stack the player's silver does not cover
        seats them at its gold twin instead, if their gold does (:meth:`_silver_first`).
        Returns (table, seat)."""
        room = self.room(room_key)
        twin = self.rooms.gold_of(room)
        async with self._seating(account_id) as held:
            # A seat at a public table of the room, silver or gold (for a silver room, its gold
            # tables are the same room's): back to it.
            rooms = {room.key} if twin is None else {room.key, twin.key}
            for actor in self.seated_at(account_id):
                if actor.room.key in rooms and not actor.private:
                    return actor.id, int(actor.seat_of(account_id) or 0)
            elsewhere: dict[int, JSON] = {}
            if self.directory is not None:
                elsewhere = await self.directory.seats_of(account_id)
                for table_id, entry in sorted(elsewhere.items()):
                    if entry["room"] in rooms and not entry["private"]:
                        return table_id, int(entry["seat"])
            await self._check_elsewhere(account_id, None, another, elsewhere)
            chosen, wallet = await self._silver_first(account_id, room, twin)
            if self.directory is not None and not self._room_here(chosen):
                found = await self._seat_elsewhere(account_id, name, chosen, auto_rebuy, held)
                if found is not None:
                    return found
            return await self._quick_seat(account_id, name, chosen, auto_rebuy, wallet)

    def _room_here(self, room: Room) -> bool:
        """Whether a quick seat in ``room`` finds a seat at this node's tables (one open, or
        being opened, with a seat nobody has been promised)."""
        making = self._making.get(room.key)
        if making is not None and making.promised < room.seats:
            return True
        return any(
            actor.room.key == room.key
            and not actor.private
            and not actor.closed
            and len(actor.seats) + self._promised.get(actor.id, 0) < room.seats
            for actor in self.tables.values()
        )

    async def _seat_elsewhere(
        self, account_id: int, name: str, room: Room, auto_rebuy: bool, held: str | None
    ) -> tuple[int, int] | None:
        """A quick seat at another node's table of the room with a free seat (people waiting
        first, as here), relayed under this request's seat lock; None if none takes the player
        (this node then opens a table). The shared lobby is a moment old: a seat taken meanwhile
        is refused by its table, and the next one is tried."""
        assert self.directory is not None
        candidates = sorted(
            (
                table
                for table in await self.directory.lobby()
                if table["room"] == room.key and not table["private"] and None in table["seats"]
            ),
            key=lambda table: (
                _humans(table) == 0, -_humans(table), int(table["id"])
            ),
        )  # fmt: skip
        for table in candidates[:3]:
            table_id = int(table["id"])
            try:
                where = await self._where(table_id)
                if isinstance(where, TableActor):
                    # Taken over by this node since it was listed: this request holds the
                    # account's seat lock here, so not through sit(); the next quick seat finds
                    # it among this node's tables.
                    continue
                # (the API admitted the account to the room; a guest holds no gold to reach a
                # twin with)
                seat, _ = await self._relay(
                    where, "sit", table=table_id, account=account_id, name=name, guest=False,
                    another=True, seat=None, buy_in=None, auto_rebuy=auto_rebuy, held=held,
                )  # fmt: skip
            except RoomError as error:
                if error.code in _TAKEN:
                    continue
                raise
            return table_id, int(seat)
        return None

    async def _silver_first(
        self, account_id: int, room: Room, twin: Room | None
    ) -> tuple[Room, int]:
        """Where a quick seat in ``room`` plays (docs/rules/room.md, "Our decisions on
        winnings"), and what the player's wallet of that room's currency holds: the room itself
        while that wallet covers its minimum stack; for a silver room whose silver it does not
        cover, its gold twin if their gold does; else ``insufficient_chips`` (409), before any
        table is made, so that the refusal changes nothing."""
        # (a burst's quick seats read their wallets together: one statement a turn of the loop)
        held = await self.db.read_shared(ledger.balances_on, room.wallet(account_id))
        if held >= room.min_stack:
            return room, held
        gold = 0
        if twin is not None:
            gold = await self.db.read_shared(ledger.balances_on, twin.wallet(account_id))
            if gold >= twin.min_stack:
                return twin, gold
        if twin is None:
            message = f"you need {room.min_stack} {room.chips.label} to sit here; you hold {held}"
        else:
            message = (
                f"you need {room.min_stack} chips to sit here, silver or gold; you hold {held} "
                f"silver and {gold} gold"
            )
        raise RoomError("insufficient_chips", message, 409)

    async def _quick_seat(
        self, account_id: int, name: str, room: Room, auto_rebuy: bool, wallet: int
    ) -> tuple[int, int]:
        """Sit the player at a table of ``room`` with a seat promised to them; ``wallet``: what
        their wallet of the room's currency held just now (the buy-in's fast road, see
        :meth:`TableActor.sit`)."""
        for _ in range(5):
            actor = await self._promise_seat(room, account_id)
            try:
                seat: int = await actor.call(
                    partial(actor.sit, account_id, name, auto_rebuy=auto_rebuy, wallet=wallet)
                )
            except RoomError as error:
                if error.code in ("table_full", "seat_taken", "table_closed"):
                    continue  # someone sat there directly: look again
                raise
            finally:
                self._unpromise(actor.id)
            return actor.id, seat
        raise RoomError("busy", "the room is busy; try again", 503)

    def _unpromise(self, table_id: int) -> None:
        left = self._promised.pop(table_id) - 1
        if left:
            self._promised[table_id] = left

    async def _promise_seat(self, room: Room, account_id: int) -> TableActor:
        """A table of the room with a seat promised to the player (counted in
        :attr:`_promised` until they sit): an open one with a free seat, preferring tables
        where people wait, else the one being opened for the room while it has seats to
        promise, else a new one. A burst of arrivals opens its tables side by side (their
        writes share commits), each promising its seats as it is being made, instead of one
        after another behind the room's lock."""
        choosing = self._choosing.setdefault(room.key, asyncio.Lock())
        async with choosing:  # never held across a wait: the choice is made at once
            candidates = sorted(
                (
                    actor
                    for actor in self.tables.values()
                    if actor.room.key == room.key
                    and not actor.private
                    and not actor.closed
                    and len(actor.seats) + self._promised.get(actor.id, 0) < room.seats
                ),
                key=lambda actor: (
                    actor.humans() == 0, self._level_gap(actor, account_id), -actor.humans(),
                    actor.id,
                ),
            )  # fmt: skip
            if candidates:
                actor = candidates[0]
                self._promised[actor.id] = self._promised.get(actor.id, 0) + 1
                return actor
            making = self._making.get(room.key)
            if making is None or making.promised >= room.seats:
                making = self._making[room.key] = _Making()
                making.table = asyncio.ensure_future(self._open_promised(room, making))
                # (its waiters may all be gone: its outcome is looked at anyway)
                making.table.add_done_callback(lambda t: t.cancelled() or t.exception())
            making.promised += 1
        table = making.table
        assert table is not None
        try:
            return await asyncio.shield(table)
        except BaseException:
            # Gone (or the opening failed): the promise goes back, wherever it is counted now.
            if table.done() and not table.cancelled() and table.exception() is None:
                self._unpromise(table.result().id)
            else:
                making.promised -= 1
            raise

    async def _open_promised(self, room: Room, making: _Making) -> TableActor:
        """Open a table for the seats promised at ``making``; they are counted at the table
        the moment it exists, before anyone else can see it."""
        try:
            actor = await self.create_table(room.key)
        finally:
            if self._making.get(room.key) is making:
                del self._making[room.key]
        self._promised[actor.id] = self._promised.get(actor.id, 0) + making.promised
        return actor

    def _level_gap(self, actor: TableActor, account_id: int) -> int:
        """How far the player's level is from the levels of the people at the table (their
        mean): a quick seat prefers, among tables where people wait, the nearest, so players
        meet others of their strength when the room is busy enough to choose."""
        people = [o.account_id for o in actor.seats.values() if not o.bot]
        if not people:
            return 0
        mine = self.levels.get(account_id, 1)
        return abs(sum(self.levels.get(p, 1) for p in people) // len(people) - mine)

    async def lobby(self, room_key: str | None = None) -> list[JSON]:
        """The open public tables of the room (every room: None), on every node."""
        tables = self.lobby_here(room_key)
        if self.directory is not None:
            for info in await self.directory.lobby():
                if room_key in (None, info["room"]):
                    del info["node"]
                    tables.append(info)
            tables.sort(key=lambda info: int(info["id"]))
        return tables

    def admin_tables_here(self) -> list[JSON]:
        """Every table this node runs, as the operator sees it (its info, its invite, whether
        it is stuck, its sequence number)."""
        return [
            {**actor.info(), "invite": actor.invite, "stuck": actor.stuck, "seq": actor.seq}
            for actor in sorted(self.tables.values(), key=lambda a: a.id)
            if not actor.closed
        ]

    async def admin_tables(self) -> list[JSON]:
        """Every open table of the room, on every node (a node of several: each with ``node``,
        the one that runs it)."""
        here = self.admin_tables_here()
        if self.directory is None:
            return here
        assert self.node is not None
        tables = [{**info, "node": self.node.node_id} for info in here]
        tables += await self.directory.tables()
        return sorted(tables, key=lambda info: int(info["id"]))

    async def void(self, table_id: int) -> bool:
        """End a stuck game (the operator's): its pot goes back to who paid it."""
        where = await self._where(table_id)
        if isinstance(where, TableActor):
            actor = where
            voided: bool = await actor.call(actor.void)
            return voided
        return bool(await self._relay(where, "void", table=table_id))

    def lobby_here(self, room_key: str | None = None) -> list[JSON]:
        """The open public tables of the room that this node runs."""
        return [
            actor.info()
            for actor in sorted(self.tables.values(), key=lambda a: a.id)
            if not actor.private and not actor.closed and room_key in (None, actor.room.key)
        ]


@runtime_checkable
class _Socket(Protocol):
    """A listener that is a client's WebSocket (server/ws.py's connections)."""

    closed: bool
    websocket: Any


async def _close(listener: _Socket, why: str) -> None:
    """Close a socket that watched a table this node dropped (docs/protocol.md)."""
    with contextlib.suppress(Exception):
        await listener.websocket.close(CLOSE_TABLE_MOVED, f"table moved to another node ({why})")


class Watcher(Listener, Protocol):
    """A connection that watches tables: a :class:`~rummyhall.server.table.Listener` with a
    number unique on this node (how another node's messages for it are addressed)."""

    number: int


class Watching(Protocol):
    """What :meth:`Hub.watch` returns: how the connection stops watching."""

    def unwatch(self, listener: Any) -> None: ...


class _Remote:
    """A table another node runs, watched from here through the relay."""

    def __init__(self, hub: Hub, node_id: str, table_id: int) -> None:
        self.hub = hub
        self.node_id = node_id
        self.table_id = table_id

    def unwatch(self, listener: Any) -> None:
        relay = self.hub.relay
        assert relay is not None
        key = (self.table_id, listener.number)
        if relay.watching.get(key) is listener:
            del relay.watching[key]
        # Told at once, not from a task: a watch of the table again on this connection, sent
        # next, must reach the owner after it.
        relay.tell(
            self.node_id, "unwatch", table=self.table_id, account=listener.account_id,
            conn=key[1],
        )  # fmt: skip


MAX_TABLE_ID = 2**63 - 1
"""Table ids beyond this are none (the databases' integer keys)."""

HAND_ON_AT_ONCE = 32
"""Tables a draining node hands on side by side (well inside redis-py's pool of connections)."""

_TAKEN = frozenset(("table_full", "seat_taken", "table_closed", "table_moved", "unknown_table"))
"""A quick seat's refusals by a table that another request got to first: try the next."""


def _humans(info: JSON) -> int:
    """The people (not bots) seated at a table, from its info."""
    return sum(1 for seat in info["seats"] if seat is not None and not seat["bot"])


def _async(run: Any) -> Any:
    async def wrapped() -> Any:
        return run()

    return wrapped

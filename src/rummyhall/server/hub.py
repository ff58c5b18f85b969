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
from collections.abc import AsyncIterator
from functools import partial
from typing import Any, Protocol, runtime_checkable

from sqlalchemy import Connection, select

from rummyhall.economy import ladder, ledger, tiers, wallets
from rummyhall.economy.ledger import CHIPS, Currency
from rummyhall.economy.levels import level_for
from rummyhall.economy.rooms import Room, Rooms
from rummyhall.server.bots import BOT_NAMES
from rummyhall.server.clock import Clock
from rummyhall.server.cluster.node import CLOSE_TABLE_MOVED, Node
from rummyhall.server.errors import RoomError
from rummyhall.server.metrics import Metrics
from rummyhall.server.sealed_seeds import SeedKey
from rummyhall.server.settings import Settings
from rummyhall.server.table import Occupant, TableActor
from rummyhall.server.writer import Writer
from rummyhall.store import accounts as store_accounts
from rummyhall.store import tables as store_tables
from rummyhall.store.database import Database
from rummyhall.store.models import AccountModel
from rummyhall.store.tables import OPEN, TableRow

log = logging.getLogger(__name__)

JSON = dict[str, Any]

SOCKETS_CLOSE_S = 5.0
"""How long a drain waits for the close frames (4503) of its tables' sockets to be sent."""


class BotPool:
    """Bot accounts: created on demand, one seat each at a time, topped up from the mint of the
    table's currency (the chips a bot brings to a table are minted like any grant, so the audit
    still balances, currency by currency)."""

    def __init__(self, db: Database, writer: Writer) -> None:
        self.db = db
        self.writer = writer
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

    def mark_busy(self, account_id: int, name: str) -> None:
        self._free = [o for o in self._free if o.account_id != account_id]
        self._busy[account_id] = Occupant(account_id, name, True)

    async def take(self, chips: int, currency: Currency = CHIPS) -> Occupant:
        async with self._lock:
            if not self._loaded:
                await self._load()
            bot = self._free.pop() if self._free else await self._new_bot()
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
        self.writer = Writer(db, batch=settings.commit_batch, fenced=self.node is not None)
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
        self.bots = BotPool(db, self.writer)
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
                self.bots.mark_busy(occupant.account_id, occupant.name)
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

    async def _sweeping(self, node: Node) -> None:
        while True:
            await asyncio.sleep(node.ttl)
            try:
                await self._sweep_once(node)
            except Exception:
                log.exception("looking for tables nobody runs failed")

    async def _sweep_once(self, node: Node) -> None:
        """Take over every open table with a history that no node holds (none while draining)."""
        async with self._claiming:
            if self.draining:
                return
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
        table over"); None if another node got the table first, or it closed meanwhile."""
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
            self.tables.pop(table_id, None)
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
            self._on_seat(occupant.account_id, table_id, False)
        # (seats promised at it are given back by their own requests, which fail: _unpromise)
        for listener in list(actor.watchers):
            if isinstance(listener, _Socket):
                listener.closed = True  # nothing more of this node's view of the table
                closing = self._spawn(_close(listener, why), f"close-{table_id}")
                self._closing.add(closing)
                closing.add_done_callback(self._closing.discard)
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
        while self.tables:  # (each round empties it: a table is dropped whatever happens)
            handed = await asyncio.gather(*(self._hand_on(node, t) for t in list(self.tables)))
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
        return actor

    def _on_seat(self, account_id: int, table_id: int, seated: bool) -> None:
        tables = self._seated.setdefault(account_id, set())
        if seated:
            tables.add(table_id)
        else:
            tables.discard(table_id)
            if not tables:
                del self._seated[account_id]
                self.levels.pop(account_id, None)

    def seated_at(self, account_id: int) -> list[TableActor]:
        """The open tables where the account has a seat, by id."""
        actors = (self.tables.get(table_id) for table_id in self._seated.get(account_id, ()))
        return sorted((a for a in actors if a is not None and not a.closed), key=lambda a: a.id)

    @contextlib.asynccontextmanager
    async def _seating(self, account_id: int) -> AsyncIterator[None]:
        """One seat request of an account at a time: the check that it sits nowhere else and
        the sit itself must not interleave with another request of the same account, or two
        requests at once could each find no other seat and sit at two tables."""
        lock = self._seating_locks.setdefault(account_id, asyncio.Lock())
        try:
            async with lock:
                yield
        finally:
            if not lock.locked() and self._seating_locks.get(account_id) is lock:
                del self._seating_locks[account_id]

    async def sit(
        self, account_id: int, name: str, table_id: int, *, guest: bool = False,
        another: bool = False, seat: int | None = None, buy_in: int | None = None,
        auto_rebuy: bool = False,
    ) -> int:  # fmt: skip
        """Sit the player at the table (which they must be able to reach, with chips of its
        currency); returns the seat."""
        actor = self.reach(table_id, account_id)
        await self.admit(actor.room, account_id, guest=guest)
        async with self._seating(account_id):
            self._check_elsewhere(account_id, table_id, another)
            sit = partial(
                actor.sit, account_id, name, seat=seat, buy_in=buy_in, auto_rebuy=auto_rebuy
            )
            try:
                taken: int = await actor.call(sit)
            except RoomError as error:
                if error.code == "insufficient_chips":
                    raise await self._short_of_silver(actor.room, account_id, error) from None
                raise
            return taken

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

    def _check_elsewhere(self, account_id: int, table_id: int | None, another: bool) -> None:
        """A seat at a second table only when the player asked for one: a player who went back
        to the lobby with a seat still held must not end up paying at two tables unawares."""
        if another:
            return
        for actor in self.seated_at(account_id):
            if actor.id != table_id:
                raise RoomError(
                    "seated_elsewhere",
                    f"you have a seat at table {actor.id}: go back to it or leave it first, "
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
        if self.node is not None:
            assert self.writer.tokens is not None
            self.writer.tokens.pop(table_id, None)
            await self.node.release(table_id)
        self.metrics.tables.set(len(self.tables))
        for listener in list(actor.watchers):
            listener.send(actor.message("closed", [], listener.account_id))

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

    def chips_at_tables(self, account_id: int, currency: Currency) -> int:
        """The chips of ``currency`` the account has at its seats (open tables of that
        currency)."""
        return sum(
            actor.stacks.get(actor.seat_of(account_id) or 0, 0)
            for actor in self.seated_at(account_id)
            if actor.room.chips is currency
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

        def create(conn: Connection) -> int:
            return store_tables.insert_table(
                conn, game=room.game, room=room.key, config=room.to_json(),
                invite_code=invite, created_by=creator,
            )  # fmt: skip

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
            table_id = int(await self.writer.write(work=create))
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

    async def by_invite(self, code: str, account_id: int) -> TableActor:
        """The open table of an invite code, which the account may reach by its id from now
        on (recorded, so that it still may after a restart)."""
        for actor in self.tables.values():
            if actor.invite is not None and actor.invite == code and not actor.closed:
                break
        else:
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
        return actor

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
        async with self._seating(account_id):
            # A seat at a public table of the room, silver or gold (for a silver room, its gold
            # tables are the same room's): back to it.
            rooms = {room.key} if twin is None else {room.key, twin.key}
            for actor in self.seated_at(account_id):
                if actor.room.key in rooms and not actor.private:
                    return actor.id, int(actor.seat_of(account_id) or 0)
            self._check_elsewhere(account_id, None, another)
            chosen = await self._silver_first(account_id, room, twin)
            return await self._quick_seat(account_id, name, chosen, auto_rebuy)

    async def _silver_first(self, account_id: int, room: Room, twin: Room | None) -> Room:
        """Where a quick seat in ``room`` plays (docs/rules/room.md, "Our decisions on
        winnings"): the room itself while the player's wallet of its currency covers its minimum
        stack; for a silver room whose silver it does not cover, its gold twin if their gold
        does; else ``insufficient_chips`` (409), before any table is made, so that the refusal
        changes nothing."""

        def look(conn: Connection) -> tuple[int, int]:
            held = ledger.balance_on(conn, room.wallet(account_id))
            if held >= room.min_stack or twin is None:
                return held, 0
            return held, ledger.balance_on(conn, twin.wallet(account_id))

        held, gold = await self.db.read_now(look)
        if held >= room.min_stack:
            return room
        if twin is not None and gold >= twin.min_stack:
            return twin
        if twin is None:
            message = f"you need {room.min_stack} {room.chips.label} to sit here; you hold {held}"
        else:
            message = (
                f"you need {room.min_stack} chips to sit here, silver or gold; you hold {held} "
                f"silver and {gold} gold"
            )
        raise RoomError("insufficient_chips", message, 409)

    async def _quick_seat(
        self, account_id: int, name: str, room: Room, auto_rebuy: bool
    ) -> tuple[int, int]:
        for _ in range(5):
            actor = await self._promise_seat(room, account_id)
            try:
                seat: int = await actor.call(
                    partial(actor.sit, account_id, name, auto_rebuy=auto_rebuy)
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

    def lobby(self, room_key: str | None = None) -> list[JSON]:
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

"""The hub: every live table of this server process, the bots that fill seats, and the lobby's
view of them. It starts table actors, restores open tables after a restart and closes tables
that everyone has left.

One node of several (``serve --redis``, issue 21, docs/cluster.md) runs only the tables whose
leases it holds (:class:`~rummyhall.server.cluster.node.Node`): it takes a table's lease and
raises its fence before it reads the table's log (a table it opens, a table it recovers at
start, a table nobody holds that its sweep finds every lease ttl), renews all its leases every
third of the ttl, and drops a table whose lease is gone or whose write the database refused
(:meth:`Hub.drop`): the actor stops without writing, and its sockets are closed with
:data:`~rummyhall.server.cluster.node.CLOSE_TABLE_MOVED` so that clients reconnect."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
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
from rummyhall.store.models import AccountModel
from rummyhall.store.tables import OPEN, TableRow

log = logging.getLogger(__name__)

JSON = dict[str, Any]


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
        self.relay: Relay | None = None
        """A node of several: its channel to the others (a table another node runs is
        reached through it)."""
        self._owners: dict[int, str] = {}
        """Tables of other nodes this node relays for: table -> the node that runs it, as
        last seen (a call refused with ``table_moved`` forgets it)."""
        self._taking: dict[int, asyncio.Future[TableActor | None]] = {}
        """Tables being taken over now (a sweep and players' requests share one attempt)."""
        if self.node is not None:
            self.relay = Relay(self.node.redis, self.node.node_id, metrics=metrics)
            self.relay.handler = self._serve_call
            self.relay.on_gone = self._node_gone
            self.relay.on_closed = self._relayed_closed
        self.writer = Writer(db, batch=settings.commit_batch, fenced=self.node is not None)
        self.writer.on_stale = self._stale
        self._tasks: set[asyncio.Task[Any]] = set()
        """The node's own tasks: renewing leases, sweeping for tables nobody holds, drops."""
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
            assert self.relay is not None
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
        if self.relay is not None:
            await self.relay.stop()
        if self.node is not None:
            # Written and stopped: hand the tables on now rather than after a ttl.
            for table_id in list(self.node.held):
                with contextlib.suppress(Exception):
                    await self.node.release(table_id)
            await self.node.close()

    # --- one node of several (issue 21) -----------------------------------------------------------

    async def _start_node(self, node: Node) -> None:
        """Take over the open tables no node holds (at a first start: all of them), then keep
        the leases and look for tables nobody holds every ttl. Tables nobody ever sat at are
        not closed here, as a single process does: another node may be opening them."""
        await self._sweep_once(node)
        log.info("node %s started with %d tables", node.node_id, len(self.tables))
        self._spawn(self._renewing(node), "lease-renewer")
        self._spawn(self._sweeping(node), "table-sweeper")

    def _spawn(self, work: Any, name: str) -> None:
        task = asyncio.create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

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

    async def _sweeping(self, node: Node) -> None:
        while True:
            await asyncio.sleep(node.ttl)
            try:
                await self._sweep_once(node)
            except Exception:
                log.exception("looking for tables nobody runs failed")

    async def _sweep_once(self, node: Node) -> None:
        """Take over every open table with a history that no node holds."""
        async with self.db.read() as session:
            candidates = await store_tables.tables_to_recover(session)
        free = await node.unowned(t for t in candidates if t not in self.tables)
        for table_id in free:
            actor = await self._take_over(node, table_id)
            if actor is not None:
                log.info(
                    "node %s took table %s over (lease token %s)",
                    node.node_id, table_id, node.held.get(table_id),
                )  # fmt: skip

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
        relayed: list[RelayListener] = []
        for listener in list(actor.watchers):
            if isinstance(listener, RelayListener):
                relayed.append(listener)
            elif isinstance(listener, _Socket):
                listener.closed = True  # nothing more of this node's view of the table
                self._spawn(_close(listener, why), f"close-{table_id}")
        if self.relay is not None:
            # Also the other nodes' listeners that left already (their unwatch may be late).
            relayed += self.relay.of_table(table_id)
            self.relay.gone(table_id, relayed, why)
        actor.watchers.clear()
        self.metrics.tables.set(len(self.tables))

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
    ) -> tuple[int, int]:  # fmt: skip
        """Sit the player at the table (which they must be able to reach, with chips of its
        currency); returns (the seat, the table's sequence number then)."""
        where = await self._where(table_id)
        if not isinstance(where, TableActor):
            seat, seq = await self._relay(
                where, "sit", table=table_id, account=account_id, name=name, guest=guest,
                another=another, seat=seat, buy_in=buy_in, auto_rebuy=auto_rebuy,
            )  # fmt: skip
            return int(seat), int(seq)
        actor = self._reachable(where, account_id)
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
        owner = await self.node.leases.owner(table_id)
        if owner is None:
            async with self.db.read() as session:
                recoverable = table_id in await store_tables.tables_to_recover(
                    session, only=table_id
                )
            if recoverable:
                actor = await self._take_over(self.node, table_id)
                if actor is not None:
                    return actor
            owner = await self.node.leases.owner(table_id)
            if owner is None:
                raise _no_table(table_id)
        if owner.node_id == self.node.node_id:
            actor = self.tables.get(table_id)
            if actor is not None and not actor.closed:
                return actor
            raise moved("the table is being taken over")  # (by this node, a moment ago)
        self._owners[table_id] = owner.node_id
        return owner.node_id

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
        account_id = listener.account_id

        async def tell() -> None:
            with contextlib.suppress(RoomError):  # (the table moved meanwhile: nothing to undo)
                await self.hub._relay(
                    self.node_id, "unwatch", table=self.table_id, account=account_id,
                    conn=key[1],
                )  # fmt: skip

        self.hub._spawn(tell(), f"unwatch-{self.table_id}")


MAX_TABLE_ID = 2**63 - 1
"""Table ids beyond this are none (the databases' integer keys)."""


def _async(run: Any) -> Any:
    async def wrapped() -> Any:
        return run()

    return wrapped

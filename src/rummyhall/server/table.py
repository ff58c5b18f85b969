"""A live table: an actor that owns the table's state and is its only writer (DESIGN.md,
"The server").

Everything that changes a table arrives as a command on the actor's queue: people sitting down
and leaving, game actions, watchers coming and going, and the actor's own timers (turn deadlines,
bots' moves, the next deal, the next game). The commands run one at a time, in the order they
came, in the table's own task: one is started when a command arrives and none is running, and
it ends when the queue is empty. So a table between moves (most of them, most of the time: people
think for seconds) keeps nothing alive but its state, not a task waiting on a queue with its
coroutine and future, which the cycle collector would walk (server/collector.py). For each
change the actor

1. checks it (the engine validates game actions; nothing changes if it refuses),
2. appends it to the table's log, with the chips it moves and, when a game ends, the game's
   record, in one database transaction (through the :class:`~rummyhall.server.writer.Writer`),
3. and only then tells every watcher, each through its own view.

The state is a function of the log: :meth:`TableActor.restore` replays it after a restart with
the same code path as the live table (:meth:`TableActor._enter`), so recovered tables continue
with the same deck and the same deadlines.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import AsyncSession

from rummyhall.bots import Bot
from rummyhall.cards import parse_physical
from rummyhall.economy import flows, ladder, ledger
from rummyhall.economy.bulk import Transfer
from rummyhall.economy.flows import GameFlows
from rummyhall.economy.ledger import CHIPS, Currency, InsufficientChips
from rummyhall.economy.rooms import Room
from rummyhall.games.protocol import (
    HOUSE,
    Deal,
    Event,
    Game,
    GameError,
    Posting,
    Result,
    View,
    game_class,
    replay,
)
from rummyhall.server.bots import bot_factory
from rummyhall.server.clock import Cancellable, Clock
from rummyhall.server.errors import RoomError
from rummyhall.server.metrics import Metrics
from rummyhall.server.sealed_seeds import SeedKey
from rummyhall.server.settings import Settings
from rummyhall.server.writer import Writer
from rummyhall.shuffle import FairDeal, new_server_seed
from rummyhall.store import tables as store_tables
from rummyhall.store.bulk import json_bytes
from rummyhall.store.fences import StaleLease
from rummyhall.store.tables import FinishedHand, LogEntry

log = logging.getLogger(__name__)

JSON = dict[str, Any]

CID_MEMORY = 2_000
"""How many recent client ids a table remembers to apply a resent action only once."""


class Listener(Protocol):
    """A connection watching the table."""

    account_id: int

    def send(self, text: str | bytes) -> None:
        """Queue a text message for the connection (never blocks); ``bytes`` are its UTF-8."""
        ...


@dataclass(slots=True)
class Occupant:
    account_id: int
    name: str
    bot: bool
    leaving: bool = False
    auto_rebuy: bool = False
    """Buy back up to the room's buy-in from the wallet between games when the stack runs
    short; off unless the player turned it on (else a short stack stands up)."""


@dataclass(slots=True)
class _Command:
    run: Callable[[], Awaitable[Any]]
    done: asyncio.Future[Any]


@dataclass(slots=True)
class _Dues:
    """When the actor must act on its own (ms), and what for."""

    bots: dict[int, int] = field(default_factory=dict)
    fill: int | None = None
    next_game: int | None = None
    release: int | None = None
    """A game ended with people leaving: they stand up now, not after the pause."""
    rest_until: int = 0
    """The end of the pause after a game (people look at the result): a player coming back
    to a table that waits for them does not cut it short."""
    deal: int | None = None
    unused: int | None = None
    """When the table closes if nobody has sat at it by then."""


class TableActor:
    """One live table (see the module docstring)."""

    def __init__(
        self,
        table_id: int,
        room: Room,
        *,
        settings: Settings,
        clock: Clock,
        writer: Writer,
        metrics: Metrics,
        seeds: SeedKey,
        bots: BotSeats | None = None,
        private: bool = False,
        on_empty: Callable[[TableActor], Awaitable[None]] | None = None,
        on_seat: Callable[[int, int, bool], None] | None = None,
    ) -> None:
        self.id = table_id
        self.room = room
        self.settings = settings
        self.clock = clock
        self.writer = writer
        self.metrics = metrics
        self.seeds = seeds
        """The key that seals deal seeds in the log (server/sealed_seeds.py)."""
        self.bot_seats = bots
        self.private = private
        self.invite: str | None = None
        self.creator: int | None = None
        """The account that opened the table (None: the room opened it for quick-seat)."""
        self.grants: set[int] = set()
        """Accounts that opened the invite of this private table (the hub keeps it)."""
        self.opened_at = clock.now()
        self.on_empty = on_empty
        self.on_seat = on_seat
        """Told (account, table, seated) whenever someone sits down or stands up (the hub's
        index of who sits where)."""
        self.seats: dict[int, Occupant] = {}
        self._seat_of: dict[int, int] = {}
        """Account -> its seat: :attr:`seats` the other way round, kept by :meth:`_enter` (every
        message, action and watcher asks it)."""
        self.stacks: dict[int, int] = {}
        self.pot = 0
        self.game: Game | None = None
        self.game_no = 0
        self.started_seq: int | None = None
        """The log entry that started the current game."""
        self.nets: dict[int, int] = {}
        """What each seat has won (lost, if negative) in the current game so far: who paid whom
        when it ends (:mod:`rummyhall.economy.flows`)."""
        self.fair: FairDeal | None = None
        """The committed seed of the next deal, until it is used."""
        self.dealt: FairDeal | None = None
        """The seeds of the deal being played: its refills of the closed deck derive from them."""
        self.refills = 0
        """Refills of the closed deck so far in the deal being played."""
        self.published: dict[str, str | int] | None = None
        """The public part of the latest deal's seed (commitment, client seed, nonce)."""
        self.seq = 0
        self.watchers: set[Listener] = set()
        self._present: dict[int, int] = {}
        """Connections watching the table, per account: a seated person with none is away."""
        self._away: dict[int, int] = {}
        """Seats of people who are away (no connection watching), since when (ms)."""
        self._wallets: dict[int, int] = {}
        """What a seated person's wallet (of the room's currency) held after the chips this
        table last took from it, by account: a top-up it covers goes with the writer's batch,
        unread (:meth:`_top_up`)."""
        self._refused: set[tuple[int, int, str]] = set()
        """Leave moves the game refused (game number, seat, move): not tried again."""
        self._cids: OrderedDict[tuple[int, str], int] = OrderedDict()
        self._bots: dict[int, Bot] = {}
        self._dues = _Dues()
        # Only the bots' pace; nothing that is dealt.
        self._rng = random.Random(table_id)  # noqa: S311
        self._pending: deque[_Command | None] = deque()
        """Commands, and None for a tick of the timer, in the order they came."""
        self._name = f"table-{table_id}"
        # The timer's callback reaches the actor through a weak reference: the actor holds its
        # timer, and a timer holding the actor would make a ring the cycle collector must free.
        self._on_timer = partial(_tick, weakref.ref(self))
        self._timer: Cancellable | None = None
        self._timer_at: int | None = None
        self._task: asyncio.Task[None] | None = None
        self._started = False
        """Whether :meth:`start` has run: commands that come before it (a player reaching a table
        whose log is still being replayed) wait for it, so none runs on a half-built state or
        writes before the node has set the table's fencing token."""
        self.closed = False
        self.stuck = False
        """Set after repeated failures of the table's own moves: it then waits for people (or
        an administrator's void) instead of failing in a loop."""
        self._failures = 0

    # --- running -------------------------------------------------------------------------------

    def start(self) -> None:
        self._started = True
        self._schedule()
        self._set_timer()
        self._run_queue()  # (the commands that came while the table was being built)

    async def stop(self) -> None:
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
        task = self._task
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._task = None
        self._answer_pending()

    async def call(self, run: Callable[[], Awaitable[Any]]) -> Any:
        """Run ``run`` inside the table's task (the only writer) and return its result."""
        if self.closed:
            raise RoomError("table_closed", "this table has closed")
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._push(_Command(run, done))
        try:
            return await done
        finally:
            # A refusal raised here holds this frame in its traceback, and the frame the future
            # that holds the refusal: a ring per refusal for the cycle collector (as asyncio's
            # own code does, the reference is dropped).
            del done

    def _push(self, command: _Command | None) -> None:
        """Queue a command (None: a tick of the timer) and make sure a task runs the queue."""
        self._pending.append(command)
        self._run_queue()

    def _run_queue(self) -> None:
        """Start a task that runs the queued commands, unless one runs them already, there are
        none, or the actor may not run them (not started yet, or closed)."""
        if self._pending and self._task is None and self._started and not self.closed:
            self._task = asyncio.get_running_loop().create_task(self._run(), name=self._name)

    async def _run(self) -> None:
        """Run the queued commands in order, then end: a table waits for its next command with
        no task at all, so nothing of it is alive between moves but its state (see the module's
        docstring)."""
        pending = self._pending
        try:
            while pending and not self.closed:
                await self._execute(pending.popleft())
        finally:
            # (no await since the queue was last seen empty: a command pushed after this point
            # starts a task of its own)
            if self._task is asyncio.current_task():
                self._task = None
        if self.closed:
            # Closed (everyone left, or nobody ever sat down): commands that arrived meanwhile
            # get an answer instead of waiting for ever.
            self._answer_pending()

    async def _execute(self, command: _Command | None) -> None:
        try:
            if command is None:  # a tick of the timer: act if something is due by now
                due = self._next_due()
                self._timer_at = None
                if due is None or due > self.clock.now():
                    return
                await self._on_due()
                self._failures = 0
            else:
                result = await command.run()
                if not command.done.done():
                    command.done.set_result(result)
        except asyncio.CancelledError:
            # Stopped (the server stops, or another node took the table over): whoever
            # waits for this command is told rather than left waiting.
            if command is not None and not command.done.done():
                command.done.set_exception(_closed())
            raise
        except StaleLease:
            # The database refused our write: another node has taken the table over. The
            # state in memory is not the table's any more; stop (the hub drops the table).
            log.warning("table %s: another node runs it now; stopping", self.id)
            self.closed = True
            if command is not None and not command.done.done():
                command.done.set_exception(_table_moved())
        except Exception as error:
            if command is not None and not command.done.done():
                command.done.set_exception(error)
            if command is None:
                self._failures += 1
                self.stuck = self._failures >= 3
            if not isinstance(error, RoomError | GameError):
                # A bug or a storage failure: the state in memory may be ahead of the log.
                log.exception("table %s: unexpected error; reloading from the log", self.id)
                try:
                    await self._reload()
                except Exception:
                    log.exception("table %s: reload failed; the table stops", self.id)
                    self.closed = True
                    self.stuck = True
            elif command is None:
                log.warning("table %s: own move failed: %s", self.id, error)
        finally:
            self._schedule()
            self._set_timer()

    def _answer_pending(self) -> None:
        while self._pending:
            pending = self._pending.popleft()
            if pending is not None and not pending.done.done():
                pending.done.set_exception(_closed())

    def _set_timer(self) -> None:
        """Wake the actor by its next due time (a tick on its queue). A timer set to fire no
        later than that is kept: its tick finds nothing due yet, and the timer is set again
        then. Most changes move the due time later (a turn's deadline moves on with every
        move), so a timer is replaced only when something falls due sooner than it fires, not
        at every action."""
        due = None if self.closed else self._next_due()
        armed = self._timer_at
        if due == armed or (due is not None and armed is not None and armed <= due):
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._timer_at = None, due
        if due is not None:
            self._timer = self.clock.call_at(due, self._on_timer)

    # --- the log ------------------------------------------------------------------------------

    def _account(self, name: str) -> str:
        if name.startswith("seat:"):
            return f"table:{self.id}:{name}"
        if name == "pot":
            return f"table:{self.id}:pot"
        return self.room.chips.house if name == ledger.HOUSE else name

    async def _persist(
        self,
        kind: str,
        body: JSON,
        at: int,
        postings: Sequence[tuple[str, int]] = (),
        extra: Callable[[Connection, int], Any] | None = None,
        hand: FinishedHand | None = None,
        game_flows: GameFlows | None = None,
        before: Sequence[tuple[str, JSON]] = (),
        unread: bool = False,
        ledger_kind: str | None = None,
    ) -> tuple[int, Any]:
        """Append one entry (after the entries ``before`` it, with its chip transfer, the game
        it ends, and ``extra``'s work on the database in the same transaction) and commit;
        returns (seq, extra's result). ``unread``: the transfer spends a wallet not read in the
        transaction (:meth:`Writer.write`). ``ledger_kind``: the transfer's kind in the ledger,
        if not the entry's own."""
        seq = self.seq + 1 + len(before)
        assert hand is None or hand.seq == seq
        table_id = self.id
        earlier = [
            LogEntry(table_id, self.seq + 1 + i, k, b, at) for i, (k, b) in enumerate(before)
        ]

        def work(conn: Connection) -> Any:
            assert extra is not None
            return extra(conn, seq)

        transfer = None
        if postings:
            key = f"table:{table_id}:seq:{seq}"
            memo = {"table": table_id, "seq": seq}
            transfer = Transfer(key, postings, ledger_kind or kind, memo)
        result = await self.writer.write(
            work=None if extra is None else work,
            entry=LogEntry(table_id, seq, kind, body, at),
            transfer=transfer,
            hand=hand,
            flows=game_flows,
            before=earlier,
            unread=unread,
        )
        self.seq = seq
        return seq, result

    async def restore(self, session: AsyncSession) -> None:
        """Rebuild the table from its log (after a restart)."""
        for entry in await store_tables.read_log(session, self.id):
            self.seq = entry.seq
            self._enter(entry.kind, entry.body, entry.at, replaying=True)
        balances = await ledger.balances(session, f"table:{self.id}:")
        self.pot = balances.get(f"table:{self.id}:pot", 0)
        self.stacks = {seat: balances.get(f"table:{self.id}:seat:{seat}", 0) for seat in self.seats}
        for seat, occupant in self.seats.items():
            if occupant.bot:
                self._bots[seat] = self._new_bot(seat)
        # Nobody is connected to a table just restored: people are away from now on, and have
        # the grace period to come back before the next game (see _between_games).
        now = self.clock.now()
        self._away = {seat: now for seat, o in self.seats.items() if not o.bot}
        if self.game is not None and self.game.over:
            self._rest()

    async def _reload(self) -> None:
        """Throw away the state in memory and rebuild it from the committed log."""
        fresh = TableActor(
            self.id,
            self.room,
            settings=self.settings,
            clock=self.clock,
            writer=self.writer,
            metrics=self.metrics,
            seeds=self.seeds,
        )
        async with self.writer.db.transaction() as session:
            await fresh.restore(session)
        self.seats, self.stacks, self.pot = fresh.seats, fresh.stacks, fresh.pot
        self._seat_of = fresh._seat_of
        self.game, self.game_no, self.seq = fresh.game, fresh.game_no, fresh.seq
        self.started_seq = fresh.started_seq
        self.nets = fresh.nets
        self.fair, self.published, self._cids = fresh.fair, fresh.published, fresh._cids
        self.dealt, self.refills = fresh.dealt, fresh.refills
        now = self.clock.now()
        self._away = {
            seat: self._away.get(seat, now)
            for seat, o in self.seats.items()
            if not o.bot and not self._present.get(o.account_id)
        }
        self._bots = {seat: self._new_bot(seat) for seat, o in self.seats.items() if o.bot}
        self._dues = _Dues()
        self._broadcast([])

    def _enter(
        self,
        kind: str,
        body: Mapping[str, Any],
        at: int,
        *,
        replaying: bool,
        game: Game | None = None,
    ) -> None:
        """Apply a logged entry to the state. A live game action was applied to the engine before
        it was logged (that is how it was validated); when replaying the log it is applied here.
        A live ``start`` may bring its game, made from the entry's config."""
        if kind == "sit":
            seat = int(body["seat"])
            occupant = Occupant(int(body["account"]), str(body["name"]), bool(body["bot"]))
            occupant.auto_rebuy = bool(body.get("auto_rebuy", False))
            self.seats[seat] = occupant
            self._seat_of[occupant.account_id] = seat
            if not occupant.bot and not self._present.get(occupant.account_id):
                self._away[seat] = at
            if self.on_seat is not None:
                self.on_seat(occupant.account_id, self.id, True)
        elif kind == "leaving":
            self.seats[int(body["seat"])].leaving = True
        elif kind == "auto_rebuy":
            self.seats[int(body["seat"])].auto_rebuy = bool(body["on"])
        elif kind == "leave":
            gone = self.seats.pop(int(body["seat"]), None)
            self._away.pop(int(body["seat"]), None)
            if gone is not None:
                self._seat_of.pop(gone.account_id, None)
                if self.on_seat is not None:
                    self.on_seat(gone.account_id, self.id, False)
        elif kind == "start":
            self.started_seq = self.seq
            self.game_no = int(body["game_no"])
            self.game = game or game_class(self.room.game).create(body["config"])
            self.nets = {}
        elif kind == "commit":
            if "sealed" in body:
                seed = self.seeds.open(str(body["sealed"]), self.id, str(body["commitment"]))
            else:  # a log written before seeds were sealed (issue 15)
                seed = bytes.fromhex(str(body["server_seed"]))
            self.fair = FairDeal(seed, str(body["client_seed"]), int(body["nonce"]))
            self.published = self.fair.to_public()
        elif kind == "act":
            logged = body.get("deal")
            if replaying:
                assert self.game is not None
                deal = None if logged is None else self._logged_deal(logged)
                events = self.game.apply(int(body["seat"]), str(body["action"]), at, deal=deal)
                self._count(self._legs(_moved(events, self.game.result)))
            if logged is not None and "commitment" in logged:
                # The committed deal is dealt (a refill comes with no commitment pending).
                self.dealt, self.refills = self.fair, 0
                self.fair = None
            elif logged is not None:
                self.refills += 1  # a refill of the closed deck
            if "cid" in body:
                self._remember(int(body["account"]), str(body["cid"]), self.seq)
        elif kind == "void":
            self.game = None
        elif kind == "top_up":
            pass  # chips only: the stacks come from the ledger
        else:
            raise ValueError(f"unknown log entry {kind!r}")

    def _logged_deal(self, logged: Mapping[str, Any]) -> Deal:
        """The deal of a logged action. A fair deal is logged without its seed (see _play): the
        seed is the one the table committed to, opened from the log's ``commit`` entry; a refill
        without its cards, which the dealt seeds give again."""
        if "commitment" in logged and "server_seed" not in logged:
            fair = self.fair
            if fair is None or fair.commitment != logged["commitment"]:
                raise ValueError(f"table {self.id}: a deal with no committed seed before it")
            return Deal.of_fair(fair, int(logged["decks"]), int(logged["jokers"]))
        if "refill" in logged and "cards" not in logged:
            number = int(logged["refill"])
            if self.dealt is None or number != self.refills + 1:
                raise ValueError(f"table {self.id}: refill {number} out of turn in the log")
            source = [parse_physical(token) for token in str(logged["from"]).split()]
            return Deal.of_refill(self.dealt, number, source)
        return Deal.from_json(logged)

    def _remember(self, account_id: int, cid: str, seq: int) -> None:
        self._cids[(account_id, cid)] = seq
        while len(self._cids) > CID_MEMORY:
            self._cids.popitem(last=False)

    # --- seats ----------------------------------------------------------------------------------

    def may_reach(self, account_id: int | None) -> bool:
        """Whether the account may see this table at all: anyone for a public table; for a
        private one its creator, the accounts that opened its invite, and whoever sits there."""
        if not self.private:
            return True
        if account_id is None:
            return False
        return (
            account_id == self.creator
            or account_id in self.grants
            or self.seat_of(account_id) is not None
        )

    def seat_of(self, account_id: int) -> int | None:
        return self._seat_of.get(account_id)

    def _in_game(self, seat: int) -> bool:
        return self.game is not None and not self.game.over and seat <= self.game.seats

    async def sit(
        self, account_id: int, name: str, *, bot: bool = False, seat: int | None = None,
        buy_in: int | None = None, auto_rebuy: bool = False, wallet: int | None = None,
    ) -> int:  # fmt: skip
        """Seat a player (chips move from their wallet to the seat); returns the seat.

        ``wallet``: what the player's wallet of the room's currency held a moment ago (a quick
        seat has just read it). The buy-in is then decided from it and is a plain transfer in
        the writer's batch, as a top-up is (:meth:`_top_up`): read in the transaction, it would
        take the whole batch off the writer's fast road, which a burst of arrivals fills with
        buy-ins. If the wallet was spent meanwhile, the ledger refuses that transfer, nothing
        of it is written, and the sit reads the wallet as one without ``wallet`` does."""
        if self.seat_of(account_id) is not None:
            raise RoomError("already_seated", "you already have a seat at this table")
        free = [s for s in range(1, self.room.seats + 1) if s not in self.seats]
        if seat is None:
            if not free:
                raise RoomError("table_full", "every seat at this table is taken")
            seat = free[0]
        elif not 1 <= seat <= self.room.seats:
            raise RoomError("bad_seat", f"this table has seats 1 to {self.room.seats}")
        elif seat not in free:
            raise RoomError("seat_taken", f"seat {seat} is taken")
        wanted = self.room.buy_in if buy_in is None else buy_in
        if wanted < self.room.min_stack:
            raise RoomError("bad_buy_in", f"bring at least {self.room.min_stack} chips")
        table_id, room = self.id, self.room
        at = self.clock.now()
        source = room.wallet(account_id)

        def entry() -> JSON:
            body: JSON = {"seat": seat, "account": account_id, "name": name, "bot": bot}
            if auto_rebuy:
                body["auto_rebuy"] = True
            return body

        def afford(held: int) -> int:
            """The buy-in a wallet holding ``held`` pays, or RoomError."""
            if held < room.min_stack:
                raise RoomError(
                    "insufficient_chips",
                    f"you need {room.min_stack} {room.chips.label} to sit here; you hold {held}",
                    409,
                )
            if buy_in is not None and buy_in > held:
                # An amount the player named is taken in full or not at all: quietly taking
                # less would seat them with a stack they did not ask for.
                raise RoomError(
                    "insufficient_chips",
                    f"your wallet holds {held} {room.chips.label}, not {buy_in}",
                    409,
                )
            # The room's buy-in (none named) is taken as far as the wallet goes, down to the
            # minimum stack: the browser sits with the room's amount, and a short wallet that
            # covers the minimum may still play (docs/protocol.md, POST .../sit).
            return min(wanted, held)

        paid: int | None = None
        if wallet is not None:
            try:
                amount = afford(wallet)
            except RoomError:
                pass  # (the read below says why, or finds the wallet filled since)
            else:
                body = {**entry(), "buy_in": amount}
                legs = [(source, -amount), (f"table:{table_id}:seat:{seat}", amount)]
                try:
                    await self._persist("sit", body, at, legs, unread=True, ledger_kind="buy_in")
                except InsufficientChips:
                    pass  # spent since it was read: read it now
                else:
                    paid, left = amount, wallet - amount

        def take_chips(conn: Connection, seq: int) -> tuple[int, int]:
            held = ledger.balance_on(conn, source)
            amount = afford(held)
            _wallet_to_seat(conn, table_id, seq, source, seat, amount, "buy_in")
            body["buy_in"] = amount
            return amount, held - amount

        if paid is None:
            body = entry()
            _, (paid, left) = await self._persist("sit", body, at, extra=take_chips)
        amount = int(paid)
        self._wallets[account_id] = left
        self._enter("sit", body, at, replaying=False)
        self.stacks[seat] = amount
        if bot:
            self._bots[seat] = self._new_bot(seat)
        elif self._dues.fill is None:
            self._dues.fill = at + self.settings.bot_wait_ms
        if not self.playing() and self._dues.next_game is None:
            self._dues.next_game = at
        self._broadcast([Event("sit", {"seat": seat, "name": name, "bot": bot})])
        return seat

    async def leave(self, account_id: int) -> bool:
        """Stand a player up: now if they are not in a game, else when it ends (True). A player
        leaving mid-game gives up at once in the game's own way (a drop, a pack: see
        :meth:`Game.leave_move`), played by the table as soon as the game awaits them."""
        seat = self.seat_of(account_id)
        if seat is None:
            raise RoomError("not_seated", "you have no seat at this table")
        if self._in_game(seat):
            if not self.seats[seat].leaving:
                body = {"seat": seat}
                await self._persist("leaving", body, self.clock.now())
                self._enter("leaving", body, self.clock.now(), replaying=False)
                self._broadcast([Event("leaving", {"seat": seat})])
            return True
        await self._stand_up(seat, "left")
        if self.humans() == 0:
            await self._between_games()  # nobody left: the bots go too, the table closes
        return False

    async def set_auto_rebuy(self, account_id: int, on: bool) -> None:
        """Turn a player's automatic rebuy between games on or off."""
        seat = self.seat_of(account_id)
        if seat is None:
            raise RoomError("not_seated", "you have no seat at this table")
        if self.seats[seat].auto_rebuy == on:
            return
        body: JSON = {"seat": seat, "on": on}
        at = self.clock.now()
        await self._persist("auto_rebuy", body, at)
        self._enter("auto_rebuy", body, at, replaying=False)
        self._broadcast([Event("auto_rebuy", body)])

    async def _stand_up(self, seat: int, why: str) -> None:
        """Give the seat up; its stack goes back to the owner's wallet. ``why``: ``left`` (they
        asked), ``away`` (gone past the grace period), ``short`` (the stack ran below the
        room's minimum and no rebuy was allowed), ``bot`` (a bot going with the last person)."""
        occupant = self.seats[seat]
        stack = self.stacks.get(seat, 0)
        wallet = self.room.wallet(occupant.account_id)
        postings = [(f"table:{self.id}:seat:{seat}", -stack), (wallet, stack)] if stack else []
        body = {"seat": seat, "account": occupant.account_id, "chips": stack, "why": why}
        at = self.clock.now()
        await self._persist("leave", body, at, postings)
        self._enter("leave", body, at, replaying=False)
        self.stacks.pop(seat, None)
        self._bots.pop(seat, None)
        self._wallets.pop(occupant.account_id, None)
        if occupant.bot and self.bot_seats is not None:
            self.bot_seats.release(occupant.account_id)
        self._broadcast([Event("leave", {"seat": seat, "why": why, "chips": stack})])

    async def _top_up(self, seat: int) -> None:
        """A player with automatic rebuy on who runs short of the room's minimum buys back up
        to the buy-in from their wallet, as far as it goes (if it cannot reach the minimum they
        stand up).

        When the wallet held enough after this table last took chips from it, the top-up is a
        plain transfer in the writer's batch, as an action's chips are: read first, it would
        take the batch off the writer's fast road (SQLAlchemy statements instead of the
        driver's, the read and four statements of its own). If the wallet was spent elsewhere
        meanwhile (another table, the shop), the ledger refuses that transfer and nothing of it
        is written; the top-up then reads the wallet and takes what it holds."""
        account_id = self.seats[seat].account_id
        table_id, wanted = self.id, self.room.buy_in - self.stacks.get(seat, 0)
        source = self.room.wallet(account_id)
        at = self.clock.now()
        known = self._wallets.get(account_id)
        paid: int | None = None
        if known is not None and known >= wanted > 0:
            body: JSON = {"seat": seat, "account": account_id, "chips": wanted}
            legs = [(source, -wanted), (f"table:{table_id}:seat:{seat}", wanted)]
            try:
                await self._persist("top_up", body, at, legs, unread=True)
            except InsufficientChips:
                pass
            else:
                paid, self._wallets[account_id] = wanted, known - wanted
        if paid is None:
            body = {"seat": seat, "account": account_id}

            def take_chips(conn: Connection, seq: int) -> tuple[int, int]:
                wallet = ledger.balance_on(conn, source)
                amount = min(wanted, wallet)
                if amount > 0:
                    _wallet_to_seat(conn, table_id, seq, source, seat, amount, "top_up")
                body["chips"] = amount
                return amount, wallet - amount

            _, (paid, self._wallets[account_id]) = await self._persist(
                "top_up", body, at, extra=take_chips
            )
        self.stacks[seat] = self.stacks.get(seat, 0) + paid
        self._broadcast([Event("top_up", {"seat": seat, "chips": paid})])

    def humans(self) -> int:
        return sum(1 for o in self.seats.values() if not o.bot)

    def away(self, seat: int) -> bool:
        """Whether the person in ``seat`` has no connection watching the table."""
        return seat in self._away

    def _new_bot(self, seat: int) -> Bot:
        return bot_factory(self.room.game)(self.id * 100 + seat * 7 + self.game_no)

    # --- games ----------------------------------------------------------------------------------

    def playing(self) -> bool:
        """Whether a game is being played now."""
        return self.game is not None and not self.game.over

    async def _start_game(self) -> None:
        """Start the next game; when it opens with the house's deal (every game does), with the
        commitment of that deal's seed in the same commit and the same message. The deal
        follows at once, in a message of its own: a player sees the commitment before the deal
        (docs/provably-fair.md)."""
        at = self.clock.now()
        game_no = self.game_no + 1
        start: JSON = {"game_no": game_no, "config": self.room.game_config(game_no, self.stacks)}
        game = game_class(self.room.game).create(start["config"])
        first = game.awaited()
        events = [Event("start", {"game_no": game_no})]
        if first and first[0].seat == HOUSE and first[0].kind != "reshuffle":
            fair, commit = self._commitment(game_no, 1)
            await self._persist("commit", commit, at, before=[("start", start)])
            self._enter("start", start, at, replaying=False, game=game)
            self.started_seq = self.seq - 1
            self._enter("commit", commit, at, replaying=False)
            events.append(Event("commitment", fair.to_public()))
        else:
            await self._persist("start", start, at)
            self._enter("start", start, at, replaying=False, game=game)
        self.pot = 0
        self._broadcast(events)

    async def _commit_deal(self) -> None:
        """Publish the commitment of the next deal's seed (the deal follows after a pause)."""
        assert self.game is not None
        deals = sum(1 for entry in self.game.log if entry["seat"] == HOUSE)
        fair, body = self._commitment(self.game_no, deals + 1)
        at = self.clock.now()
        await self._persist("commit", body, at)
        self._enter("commit", body, at, replaying=False)
        self._dues.deal = at + (self.settings.deal_ms if deals else 0)
        self._broadcast([Event("commitment", fair.to_public())])

    def _commitment(self, game_no: int, deal: int) -> tuple[FairDeal, JSON]:
        """A fresh seed for deal number ``deal`` of game ``game_no``, and its log entry."""
        fair = FairDeal(new_server_seed(), f"rummyhall:{self.id}:{game_no}:{deal}", game_no)
        # The seed is in the log only sealed: a copy of the database must not show the hands
        # in play. It is published in the clear with the finished game's record.
        return fair, {**fair.to_public(), "sealed": self.seeds.seal(fair.server_seed, self.id)}

    def _house_deal(self, kind: str) -> Deal:
        assert self.game is not None
        if kind != "reshuffle":
            assert self.fair is not None
            return Deal.of_fair(self.fair, *self.game.shoe())
        # A rummy stock refill: the open pile under its top card, in the order the committed
        # seeds of the deal being played give its next refill (docs/provably-fair.md).
        assert self.dealt is not None
        return Deal.of_refill(self.dealt, self.refills + 1, self.game.refill_source())

    async def act(
        self,
        account_id: int,
        action: str,
        cid: str | None = None,
        sender: Listener | None = None,
    ) -> int | None:
        """A player's action; returns the table's sequence number once it is committed, or None
        when ``sender`` watches the table and its update (carrying ``cid``) was the answer."""
        if cid is not None:
            done = self._cids.get((account_id, cid))
            if done is not None:
                return done
        seat = self.seat_of(account_id)
        if seat is None:
            raise RoomError("not_seated", "you have no seat at this table")
        if not self._in_game(seat):
            raise RoomError("no_game", "no game is being played at this table now")
        seq = await self._play(
            seat, action, self.clock.now(), account_id=account_id, cid=cid, sender=sender
        )
        return None if sender is not None and sender in self.watchers else seq

    async def _play(
        self,
        seat: int,
        action: str,
        at: int,
        *,
        deal: Deal | None = None,
        account_id: int | None = None,
        cid: str | None = None,
        sender: Listener | None = None,
    ) -> int:
        game = self.game
        assert game is not None
        at = max(at, game.clock)
        started = time.perf_counter()
        events = game.apply(seat, action, at, deal=deal)
        entry = game.log[-1]
        result = game.result
        legs = self._legs(_moved(events, result))
        body: JSON = dict(entry)
        if "deal" in body:
            # The log keeps a deal without its seed (the commit entry holds it sealed), and a
            # refill without the new order of the closed deck: a copy of the database must not
            # show cards nobody has seen yet. Replay derives both again (_logged_deal).
            hidden = ("server_seed", "cards") if "refill" in body["deal"] else ("server_seed",)
            body["deal"] = {k: v for k, v in body["deal"].items() if k not in hidden}
        if cid is not None and account_id is not None:
            body["cid"], body["account"] = cid, account_id
        try:
            self._check_stacks(legs)
            hand = game_flows = extra = None
            if result is not None:
                hand, game_flows, nets = self._finished(legs, self.seq + 1)
                if self.room.ladder:
                    extra = partial(self._rank, hand.players, nets)
            seq, _ = await self._persist("act", body, at, legs, extra, hand, game_flows)
        except Exception:
            self._rewind()
            raise
        self._enter("act", body, at, replaying=False)
        self._move_chips(legs)
        if result is not None:
            self._rest()
        self.metrics.action(time.perf_counter() - started)
        self._broadcast(events, answer=None if sender is None or cid is None else (sender, cid))
        return seq

    def _legs(self, postings: Sequence[Posting]) -> list[tuple[str, int]]:
        merged: dict[str, int] = {}
        for posting in postings:
            account = self._account(posting.account)
            merged[account] = merged.get(account, 0) + posting.amount
        return [(account, amount) for account, amount in merged.items() if amount]

    def _check_stacks(self, legs: Sequence[tuple[str, int]]) -> None:
        prefix = f"table:{self.id}:seat:"
        for account, amount in legs:
            if account.startswith(prefix):
                seat = int(account.removeprefix(prefix))
                if self.stacks.get(seat, 0) + amount < 0:
                    raise RoomError("insufficient_chips", f"seat {seat} has too few chips")

    def _move_chips(self, legs: Sequence[tuple[str, int]]) -> None:
        self._count(legs)
        prefix = f"table:{self.id}:seat:"
        for account, amount in legs:
            if account.startswith(prefix):
                seat = int(account.removeprefix(prefix))
                self.stacks[seat] = self.stacks.get(seat, 0) + amount
            elif account == f"table:{self.id}:pot":
                self.pot += amount

    def _rewind(self) -> None:
        """Undo the engine's last (uncommitted) action by replaying the game without it."""
        assert self.game is not None
        record = self.game.record()
        self.game = replay(record, upto=len(record["actions"]) - 1)

    def _count(
        self, legs: Sequence[tuple[str, int]], nets: dict[int, int] | None = None
    ) -> dict[int, int]:
        """Add a game's seat legs to ``nets`` (:attr:`nets` unless given); returns them."""
        nets = self.nets if nets is None else nets
        prefix = f"table:{self.id}:seat:"
        for account, amount in legs:
            if account.startswith(prefix):
                seat = int(account.removeprefix(prefix))
                nets[seat] = nets.get(seat, 0) + amount
        return nets

    def _finished(
        self, legs: Sequence[tuple[str, int]], seq: int
    ) -> tuple[FinishedHand, GameFlows, dict[int, int]]:
        """The finished game's record and who paid whom in it, stored with the log entry
        ``seq`` of the action that ended it (``legs``: the chips that action moves, not yet in
        :attr:`nets`); and each seat's net for the game."""
        assert self.game is not None
        players = {seat: o.account_id for seat, o in self.seats.items() if seat <= self.game.seats}
        record = self.game.record()
        record["table"] = {"id": self.id, "room": self.room.key, "game_no": self.game_no}
        hand = FinishedHand(
            self.id, seq, self.room.game, record, players, seq_start=self.started_seq
        )
        nets = self._count(legs, dict(self.nets))
        game_flows = flows.game_flows(
            currency=self.room.currency, table_id=self.id, seq=seq, private=self.private,
            players=players, nets=nets,
        )  # fmt: skip
        return hand, game_flows, nets

    def _rank(
        self, players: Mapping[int, int], nets: Mapping[int, int], conn: Connection, _: int
    ) -> None:
        """A rated room's game on its people's ladder (clover points, boards, leagues)."""
        assert self.game is not None
        standings = self.game.standings({seat: nets.get(seat, 0) for seat in players})
        ladder.record_game(
            conn, game=self.room.game, multiplier_tenths=self.room.multiplier_tenths,
            at_ms=self.game.clock, tier=self.room.tier,
            players=[
                (account_id, standings[seat]) for seat, account_id in players.items()
                if not self.seats[seat].bot
            ],
        )  # fmt: skip

    async def void(self) -> bool:
        """End a stuck game without a result: every chip its pot holds goes back to the seats
        that paid it (logged, through the ledger). False if no game was running."""
        if not self.playing():
            return False
        assert self.game is not None
        paid: dict[str, int] = {}
        for entry_events in self._paid_in():
            for account, amount in entry_events:
                paid[account] = paid.get(account, 0) + amount
        legs = [(account, -amount) for account, amount in paid.items() if amount]
        if legs:
            legs.append((f"table:{self.id}:pot", -sum(a for _, a in legs)))
        legs = [(account, amount) for account, amount in legs if amount]
        at = self.clock.now()
        await self._persist("void", {"game_no": self.game_no}, at, legs)
        self.stuck = False
        self._failures = 0
        self._enter("void", {}, at, replaying=False)
        self._move_chips(legs)
        self._rest()
        self._broadcast([Event("void", {"game_no": self.game_no})])
        return True

    def _paid_in(self) -> list[list[tuple[str, int]]]:
        """The seat legs of every pot payment of the current game (from a replay, so that a
        game restored after a restart is voided the same way)."""
        assert self.game is not None
        record = self.game.record()
        fresh = game_class(record["game"]).create(record["config"])
        paid: list[list[tuple[str, int]]] = []
        for entry in record["actions"]:
            deal = Deal.from_json(entry["deal"]) if "deal" in entry else None
            events = fresh.apply(
                int(entry["seat"]), str(entry["action"]), int(entry["at"]), deal=deal
            )
            legs = self._legs([p for event in events for p in event.postings])
            paid.append([(a, n) for a, n in legs if a.startswith(f"table:{self.id}:seat:")])
        return paid

    # --- timers -----------------------------------------------------------------------------------

    def _schedule(self) -> None:
        """Recompute what the actor must do on its own, after any change."""
        now = self.clock.now()
        dues = self._dues
        game = self.game
        awaited = game.awaited() if game is not None and not game.over else []
        waiting = {a.seat for a in awaited}
        for seat in list(dues.bots):
            if seat not in waiting or seat not in self._bots:
                del dues.bots[seat]
        for entry in awaited:
            if entry.seat in self._bots and entry.seat not in dues.bots:
                low, high = self.settings.bot_think_ms
                dues.bots[entry.seat] = now + self._rng.randint(low, high)
        if game is not None and not game.over and HOUSE in waiting:
            if self.fair is None and any(a.kind != "reshuffle" for a in awaited):
                dues.deal = now  # commit first, then deal
            elif dues.deal is None:
                dues.deal = now
        else:
            dues.deal = None
        if (
            self.settings.bots
            and self.bot_seats is not None
            and self.humans() > 0
            and len(self.seats) < self.room.seats
        ):
            if dues.fill is None:
                dues.fill = now + self.settings.bot_wait_ms
        else:
            dues.fill = None
        # A table nobody has sat at (its log is empty) closes after a while, so that tables
        # opened and forgotten do not pile up.
        dues.unused = (
            self.opened_at + self.settings.empty_table_ms
            if self.seq == 0 and not self.seats
            else None
        )

    def _deadlines(self) -> list[tuple[int, int]]:
        game = self.game
        if game is None or game.over:
            return []
        return [(a.deadline, a.seat) for a in game.awaited() if a.deadline is not None]

    def _leave_moves(self) -> list[tuple[int, str]]:
        """The moves the table makes now for people leaving mid-game (see :meth:`leave`)."""
        game = self.game
        if game is None or game.over or not any(o.leaving for o in self.seats.values()):
            return []
        moves = []
        for awaited in game.awaited():
            occupant = self.seats.get(awaited.seat)
            if occupant is not None and occupant.leaving and not occupant.bot:
                move = game.leave_move(awaited.seat)
                if move is not None and (self.game_no, awaited.seat, move) not in self._refused:
                    moves.append((awaited.seat, move))
        return moves

    def _next_due(self) -> int | None:
        if self.stuck:
            return None
        if self._leave_moves():
            return self.clock.now()
        times = [t for t, _ in self._deadlines()]
        times += self._dues.bots.values()
        dues = self._dues
        times += [
            t
            for t in (dues.fill, dues.next_game, dues.deal, dues.release, dues.unused)
            if t is not None
        ]
        return min(times) if times else None

    async def _on_due(self) -> None:
        now = self.clock.now()
        dues = self._dues
        if dues.unused is not None and dues.unused <= now:
            dues.unused = None
            if self.seq == 0 and not self.seats and self.on_empty is not None:
                await self.on_empty(self)
            return
        for seat, move in self._leave_moves():
            try:
                await self._play(seat, move, now)
            except GameError:
                # Not expected (the game proposed it), but never retried: the seat's timers
                # finish the game for them instead.
                log.exception("table %s: leave move %r refused", self.id, move)
                self._refused.add((self.game_no, seat, move))
            return
        for deadline, seat in sorted(self._deadlines()):
            if deadline <= now:
                await self._play(seat, "timeout", max(now, deadline))
                return
        if dues.deal is not None and dues.deal <= now:
            dues.deal = None
            await self._house()
            return
        for seat, when in sorted(dues.bots.items(), key=lambda item: item[1]):
            if when <= now:
                await self._bot_move(seat)
                return
        if dues.fill is not None and dues.fill <= now:
            dues.fill = None
            await self._fill_with_bots()
            return
        if dues.release is not None and dues.release <= now:
            dues.release = None
            await self._release_leavers()
            return
        if dues.next_game is not None and dues.next_game <= now:
            dues.next_game = None
            await self._between_games()

    async def _house(self) -> None:
        game = self.game
        if game is None or game.over:
            return
        kinds = [a.kind for a in game.awaited() if a.seat == HOUSE]
        if not kinds:
            return
        if kinds[0] != "reshuffle" and self.fair is None:
            await self._commit_deal()
            return
        await self._play(HOUSE, "deal", self.clock.now(), deal=self._house_deal(kinds[0]))

    async def _bot_move(self, seat: int) -> None:
        game = self.game
        bot = self._bots.get(seat)
        self._dues.bots[seat] = self.clock.now() + 3_600_000  # not again until the state changes
        if game is None or bot is None:
            return
        action = bot.act(game.view(seat))
        if action is None:
            return
        try:
            await self._play(seat, action, self.clock.now())
        except GameError as error:
            log.warning("table %s: bot in seat %s tried %r: %s", self.id, seat, action, error)
        else:
            self._dues.bots.pop(seat, None)

    async def _fill_with_bots(self) -> None:
        if self.bot_seats is None or self.humans() == 0:
            return
        for seat in range(1, self.room.seats + 1):
            if seat in self.seats:
                continue
            bot = await self.bot_seats.take(self.room.buy_in, self.room.chips)
            try:
                await self.sit(bot.account_id, bot.name, bot=True, seat=seat)
            except RoomError:
                self.bot_seats.release(bot.account_id)

    def _rest(self) -> None:
        """A game ended: people leaving go at once, the next game comes after the pause."""
        now = self.clock.now()
        self._dues.rest_until = now + self.settings.next_game_ms
        self._dues.next_game = self._dues.rest_until
        if any(o.leaving and not o.bot for o in self.seats.values()):
            self._dues.release = now

    async def _release_leavers(self) -> None:
        """Stand up the people who asked to leave during the game that just ended; if nobody is
        left, the bots go too and the table closes."""
        if self.playing():
            return
        for seat, occupant in sorted(self.seats.items()):
            if occupant.leaving and not occupant.bot:
                await self._stand_up(seat, "left")
        if self.humans() == 0:
            await self._between_games()

    async def _between_games(self) -> None:
        """After a game (or when people sit down): let people go, then start the next game if
        every seat is taken by someone who can pay for it.

        People go when they asked to, when they have been away (no connection) for the grace
        period, or when their stack is below the room's minimum and they did not turn automatic
        rebuy on: nobody pays for games they are not there for, and chips leave a wallet only
        with its owner's consent. A person away for less than the grace period (a reload, a
        dropped connection) is waited for. Bots go with the last person, so that a table with
        nobody left stops dealing and closes."""
        if self.playing():
            return
        now, grace = self.clock.now(), self.settings.away_grace_ms
        back_by: int | None = None
        for seat, occupant in sorted(self.seats.items()):
            if occupant.bot:
                continue
            since = self._away.get(seat)
            if occupant.leaving:
                await self._stand_up(seat, "left")
                continue
            if since is not None and now - since >= grace:
                await self._stand_up(seat, "away")
                continue
            if since is not None:
                back_by = since + grace if back_by is None else min(back_by, since + grace)
            if occupant.auto_rebuy and self.stacks.get(seat, 0) < self.room.min_stack:
                await self._top_up(seat)
            if self.stacks.get(seat, 0) < self.room.min_stack:
                await self._stand_up(seat, "short")
        for seat, occupant in sorted(self.seats.items()):
            if occupant.bot and (
                self.humans() == 0 or self.stacks.get(seat, 0) < self.room.min_stack
            ):
                await self._stand_up(seat, "bot")
        if not self.seats:
            self.game = None
            if self.on_empty is not None:
                await self.on_empty(self)
            return
        if back_by is not None:
            self._dues.next_game = back_by
            return
        if len(self.seats) == self.room.seats:
            await self._start_game()

    # --- telling people ---------------------------------------------------------------------------

    def watch(self, listener: Listener) -> None:
        back = None
        if listener not in self.watchers:
            self.watchers.add(listener)
            account_id = listener.account_id
            self._present[account_id] = self._present.get(account_id, 0) + 1
            seat = self.seat_of(account_id)
            if seat is not None and self._away.pop(seat, None) is not None:
                back = seat
        listener.send(self.message("snapshot", [], listener.account_id))
        if back is not None:  # after the snapshot: a watch is answered by a snapshot first
            self._came_back(back)

    def unwatch(self, listener: Listener) -> None:
        """A connection stops watching (it may be gone). Called from outside the table's task:
        it only notes who is away; telling the others goes through the queue."""
        if listener not in self.watchers:
            return
        self.watchers.discard(listener)
        account_id = listener.account_id
        left = self._present.pop(account_id, 1) - 1
        if left:
            self._present[account_id] = left
            return
        seat = self.seat_of(account_id)
        if seat is not None and not self.seats[seat].bot and seat not in self._away:
            self._away[seat] = self.clock.now()
            self._post(lambda: self._broadcast([Event("away", {"seat": seat})]))

    def _came_back(self, seat: int) -> None:
        """A person who was away watches the table again (inside the table's task)."""
        if not self.playing() and self._dues.next_game is not None:
            # The table may have been waiting for them: go on, after the pause.
            self._dues.next_game = min(
                self._dues.next_game, max(self.clock.now(), self._dues.rest_until)
            )
        self._broadcast([Event("back", {"seat": seat})])

    def _post(self, run: Callable[[], None]) -> None:
        """Run ``run`` in the table's task, later; nobody waits for it."""
        if self.closed:
            return

        async def command() -> None:
            run()

        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        done.add_done_callback(lambda future: future.cancelled() or future.exception())
        self._push(_Command(command, done))

    def info(self) -> JSON:
        """The public state of the table around the game: seats, stacks, the pot, the game."""
        return {
            "id": self.id,
            "room": self.room.key,
            "game": self.room.game,
            "title": self.room.title,
            "stake": self.room.stake,
            "currency": self.room.currency,
            "private": self.private,
            "seats": [
                None
                if seat not in self.seats
                else {
                    "seat": seat,
                    "name": self.seats[seat].name,
                    "bot": self.seats[seat].bot,
                    "stack": self.stacks.get(seat, 0),
                    "leaving": self.seats[seat].leaving,
                    "away": seat in self._away,
                    "auto_rebuy": self.seats[seat].auto_rebuy,
                }
                for seat in range(1, self.room.seats + 1)
            ],
            "pot": self.pot,
            "game_no": self.game_no,
            "playing": self.playing(),
            "fair": self.published,
        }

    def message(self, kind: str, events: Sequence[Event], account_id: int | None) -> bytes:
        seat = None if account_id is None else self.seat_of(account_id)
        player = self._player(seat)
        view = None if self.game is None else self.game.view(player)
        return _encode(self._message(kind, seat, player, view, _Parts(self.info(), events)))

    def _player(self, seat: int | None) -> int | None:
        """The game's seat whose view a watcher in ``seat`` gets (None: a spectator's)."""
        game = self.game
        return seat if seat is not None and game is not None and seat <= game.seats else None

    def _message(
        self, kind: str, seat: int | None, player: int | None, view: View | None, parts: _Parts
    ) -> JSON:
        game = self.game
        return {
            "type": kind,
            "table": self.id,
            "seq": self.seq,
            "step": 0 if game is None else len(game.log),
            "you": seat,
            # The server's clock (ms) when the message was made: deadlines in the view are on
            # this clock, so a client times them against it, not against its own clock.
            "now": self.clock.now(),
            "info": parts.info,
            "events": parts.events(player),
            "view": view,
            "legal": game.legal(player) if player is not None and game is not None else [],
        }

    def _broadcast(
        self, events: Sequence[Event], answer: tuple[Listener, str] | None = None
    ) -> None:
        """Tell every watcher, each with its seat's view. ``answer`` is the connection whose
        action caused the change: its copy carries the action's ``cid`` and is its answer (one
        message instead of an update and an ack)."""
        if not self.watchers:
            return
        parts = _Parts(self.info(), events)
        watchers = [(listener, self.seat_of(listener.account_id)) for listener in self.watchers]
        # Every view at once: the game builds what they share once (Game.views).
        players = list(dict.fromkeys(self._player(seat) for _, seat in watchers))
        game = self.game
        views = dict(zip(players, game.views(players), strict=True)) if game is not None else {}
        by_seat: dict[int | None, JSON] = {}
        texts: dict[int | None, bytes] = {}

        def message_of(seat: int | None) -> JSON:
            message = by_seat.get(seat)
            if message is None:
                player = self._player(seat)
                message = by_seat[seat] = self._message(
                    "update", seat, player, views.get(player), parts
                )
            return message

        for listener, seat in watchers:
            if answer is not None and listener is answer[0]:
                listener.send(_encode({**message_of(seat), "cid": answer[1]}))
                continue
            text = texts.get(seat)
            if text is None:
                text = texts[seat] = _encode(message_of(seat))
            listener.send(text)
        self.metrics.sent(len(self.watchers))


class _Parts:
    """What one change's messages to several viewers hold in common, made once: the table's
    info and each event's JSON. Each viewer's message is then plain data, encoded whole:
    ``orjson`` encodes a message of a few KB in microseconds, and encoding what several
    messages share once, as fragments put into each message, saved nothing measurable
    (bench/broadcast.py: the room's way and a plain encoding of every message cost the same)."""

    __slots__ = ("_events", "info")

    def __init__(self, info: JSON, events: Sequence[Event]) -> None:
        self.info = info
        self._events = [(event, _event_json(event)) for event in events]

    def events(self, seat: int | None) -> list[JSON]:
        return [data for event, data in self._events if event.visible_to(seat)]


class BotSeats(Protocol):
    """Where tables get bot players from (accounts with chips)."""

    async def take(self, chips: int, currency: Currency = CHIPS) -> Occupant: ...

    def release(self, account_id: int) -> None: ...


def _tick(actor_ref: weakref.ref[TableActor]) -> None:
    """A table's timer fired: a tick on its queue (see :meth:`TableActor._set_timer`)."""
    actor = actor_ref()
    if actor is not None:
        actor._timer = None  # (fired: nothing to cancel)
        actor._push(None)


def _closed() -> RoomError:
    return RoomError("table_closed", "this table has closed")


def _table_moved() -> RoomError:
    return RoomError(
        "table_moved", "this table is run by another server now: reconnect and watch it again",
        503,
    )  # fmt: skip


def _wallet_to_seat(
    conn: Connection,
    table_id: int,
    seq: int,
    wallet: str,
    seat: int,
    amount: int,
    kind: str,
) -> None:
    """Move chips from a player's wallet (of the room's currency) to their seat, keyed by the log
    entry it goes with."""
    ledger.transfer_on(
        conn,
        f"table:{table_id}:seq:{seq}",
        [(wallet, -amount), (f"table:{table_id}:seat:{seat}", amount)],
        kind=kind,
        memo={"table": table_id, "seq": seq},
    )


def _moved(events: Sequence[Event], result: Result | None) -> list[Posting]:
    """The chips an action moved: its events' postings, and the result's if it ended the game
    (the same whether the action is played live or replayed from the log)."""
    postings = [p for event in events for p in event.postings]
    return postings + list(result.postings) if result is not None else postings


def _event_json(event: Event) -> JSON:
    data: JSON = {"kind": event.kind, "data": dict(event.data)}
    if event.postings:
        data["postings"] = [{"account": p.account, "amount": p.amount} for p in event.postings]
    return data


def _encode(message: JSON) -> bytes:
    # orjson: several times faster than json, and every change is encoded once per seat. Its
    # UTF-8 is what goes on the wire: kept as bytes, it is not decoded here and encoded again
    # for each watcher.
    return json_bytes(message)

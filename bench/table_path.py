"""Benchmark of what one accepted action costs the room server in its own Python, without the
network: the hub, the table actor, the engine, the durable log and ledger (the table writer on a
real SQLite file, commits synced) and the broadcast's views and encodings, for Rummy Patti
tables of 4 players, as ``bench/load.py`` plays them, but in one process with no sockets.

    python bench/table_path.py [--tables 200] [--actions 20000] [--profile]

Each player is a connection object that keeps what it is sent, the way the WebSocket endpoint's
connections do (server/ws.py) short of the socket; each table's players act as soon as it is
their turn (a seeded random legal action: chaal, blind, see, show, pack...), so the tables run
flat out and the writer's batches are as full as they get. Printed: CPU per accepted action
(the process's CPU over the measured actions, the players' choices included), the share of it
spent choosing (measured apart), and the messages and bytes a table's change sends; then the
ledger audit of the database the run left.

The baseline, measured in the same run: the engine alone on the same games (each played again
from its record, with each player's view and legal actions encoded after every action), what a
server that did nothing but the game itself would spend; the ratio is what the room adds (the
log, the ledger, the durable commits, the table's bookkeeping and the messages' framing).

``bench/load.py`` measures the whole server with its sockets, where this leaves out uvicorn, the
WebSocket frames and the kernel's sends; what this measures is the part that is ours, quickly
and repeatably (``--profile`` prints a cProfile of the measured actions), so that a change to the
table's path can be compared in the same session before the load bench is run on it.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import itertools
import pstats
import random
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import orjson
import uvloop
from sqlalchemy import Connection

from rummyhall import catalog
from rummyhall.economy import wallets
from rummyhall.economy.audit import audit_database
from rummyhall.economy.rooms import Rooms
from rummyhall.games.protocol import HOUSE, Deal, Game, GameError, game_class
from rummyhall.server.clock import SystemClock
from rummyhall.server.hub import Hub
from rummyhall.server.metrics import Metrics
from rummyhall.server.settings import Settings
from rummyhall.server.table import TableActor
from rummyhall.store import accounts as store_accounts
from rummyhall.store.accounts import Account
from rummyhall.store.database import Database

ROOM = "practice-patti-10-4p"
_NUMBERS = itertools.count(1)


class Player:
    """A seated player's connection: keeps the count and size of what it is sent, and wakes its
    table's driver when a message arrives (the table changed: it may be someone's turn)."""

    def __init__(self, account_id: int, name: str, changed: asyncio.Event) -> None:
        self.account_id = account_id
        self.name = name
        self.number = next(_NUMBERS)
        self.changed = changed
        self.messages = 0
        self.bytes = 0

    def send(self, text: str | bytes) -> None:
        self.messages += 1
        self.bytes += len(text)
        self.changed.set()


class Counter:
    def __init__(self, stop_at: int) -> None:
        self.actions = 0
        self.stop_at = stop_at
        self.choosing = 0.0
        self.done = asyncio.Event()
        self.games: dict[int, Game] = {}
        """The games the tables played while counted (by id: a game object is seen many times),
        for the baseline."""

    def count(self) -> None:
        self.actions += 1
        if self.actions >= self.stop_at:
            self.done.set()


async def new_player(hub: Hub, settings: Settings, changed: asyncio.Event) -> Player:
    def work(conn: Connection) -> Account:
        account = store_accounts.create_guest_on(conn)
        wallets.open_wallets_on(conn, account, practice=settings.practice_chips)
        return account

    account = await hub.writer.write(work=work)
    return Player(account.id, account.name, changed)


async def drive(hub: Hub, actor: TableActor, players: dict[int, Player], changed: asyncio.Event,
                rng: random.Random, counter: Counter) -> None:  # fmt: skip
    """Play the table: whenever it changes, the player whose turn it is acts at once."""
    cids = itertools.count()
    while not counter.done.is_set():
        game = actor.game
        turn = None
        if game is not None and not game.over:
            turn = next((a.seat for a in game.awaited() if a.seat in players), None)
        if turn is None:
            changed.clear()
            await changed.wait()
            continue
        assert game is not None
        counter.games[id(game)] = game
        started = time.process_time()
        legal = game.legal(turn)
        # Mostly stay in: a table whose players pack at once would be all deals and no play.
        staying = [a for a in legal if not a.startswith(("pack", "show"))] or legal
        action = rng.choice(staying if rng.random() < 0.9 else legal)
        counter.choosing += time.process_time() - started
        player = players[turn]
        changed.clear()
        try:
            await hub.act(actor.id, player.account_id, action, f"c{next(cids)}", player)
        except GameError as refused:  # (a legal action the table refuses is a bug: say it)
            message = f"table {actor.id} refused {action!r} of seat {turn}: {refused}"
            raise SystemExit(message) from refused
        counter.count()


async def run(tables: int, actions: int, profile: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder)
        settings = Settings(
            database_url=f"sqlite+aiosqlite:///{path / 'room.db'}", data_dir=path, bots=False,
            next_game_ms=0, deal_ms=0, practice_chips=10**9, rate_per_second=10**6,
            rate_burst=10**6, gc_freeze_ms=0,
        )  # fmt: skip
        catalog.games()
        db = await Database.open(settings.database_url)
        # Turns that never time out: the measure is of actions, and a slow run (a profile,
        # valgrind) must not turn into one of timeouts.
        rooms = Rooms(
            [
                replace(room, config={**room.config, "turn_ms": 3_600_000}) if room.key == ROOM
                else room
                for room in catalog.rooms()
            ]
        )  # fmt: skip
        hub = Hub(db, settings, SystemClock(), rooms, Metrics())
        await hub.start()
        try:
            drivers = []
            warm = Counter(actions // 10 + 1)
            seated: list[tuple[TableActor, dict[int, Player], asyncio.Event]] = []
            for _ in range(tables):
                changed = asyncio.Event()
                players: dict[int, Player] = {}
                table_id = 0
                for _ in range(4):
                    player = await new_player(hub, settings, changed)
                    table_id, seat = await hub.quick_seat(
                        player.account_id, player.name, ROOM, auto_rebuy=True
                    )
                    players[seat] = player
                actor = hub.table(table_id)
                assert isinstance(actor, TableActor)
                for player in players.values():
                    await hub.watch(table_id, player)
                seated.append((actor, players, changed))
            assert len({actor.id for actor, _, _ in seated}) == tables
            rng = random.Random(1)
            # A warm-up (the writer's statements compiled, the memos full), then the measure.
            for counter in (warm, Counter(actions)):
                for player in (p for _, players, _ in seated for p in players.values()):
                    player.messages = player.bytes = 0
                profiler = cProfile.Profile() if profile and counter is not warm else None
                cpu, wall = time.process_time(), time.perf_counter()
                if profiler is not None:
                    profiler.enable()
                drivers = [
                    asyncio.create_task(drive(hub, actor, players, changed, rng, counter))
                    for actor, players, changed in seated
                ]
                await counter.done.wait()
                for task in drivers:
                    task.cancel()
                await asyncio.gather(*drivers, return_exceptions=True)
                if profiler is not None:
                    profiler.disable()
                cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            sent = [(p.messages, p.bytes) for _, players, _ in seated for p in players.values()]
            messages = sum(m for m, _ in sent)
            size = sum(b for _, b in sent)
            n = counter.actions
            print(
                f"table path, {tables} Patti tables x 4 players, no sockets: {n:,} actions in "
                f"{wall:.2f} s ({n / wall:,.0f} actions/s)"
            )
            print(
                f"  CPU per accepted action: {cpu / n * 1e3:.3f} ms, of which the players' "
                f"choices {counter.choosing / n * 1e3:.3f} ms; {messages / n:.2f} messages an "
                f"action, {size / max(messages, 1):,.0f} bytes a message"
            )
            base, base_actions = baseline(list(counter.games.values()))
            per_action = cpu / n
            base_per_action = base / max(base_actions, 1)
            print(
                f"  baseline, the engine alone on the same games ({base_actions:,} actions "
                f"played again, each player's view and legal actions encoded): "
                f"{base_per_action * 1e3:.3f} ms an action; the room "
                f"{per_action / base_per_action:.1f}x that"
            )
            if profiler is not None:
                stats = pstats.Stats(profiler)
                stats.sort_stats("tottime").print_stats(40)
                stats.sort_stats("cumulative").print_stats(60)
        finally:
            await hub.stop()
            await db.close()
        # Every chip the run moved went through the ledger: its audit must be clean.
        report = await audit_database(settings.database_url)
        print("  audit after the run: " + ("clean" if report.ok else "PROBLEMS"))
        for problem in report.problems:
            print(f"    {problem}")
        if not report.ok:
            raise SystemExit(1)


def baseline(games: list[Game]) -> tuple[float, int]:
    """The engine's own part of the same actions, as a plain server would do it: every game
    played again from its record, and after each action each player's view and legal actions,
    encoded (``orjson``) as one message. Returns the CPU seconds and the players' actions (the
    house's deals are played and told too, but not counted, as in the room's figure)."""
    records = [game.record() for game in games]
    spent, counted = 0.0, 0
    for record in records:
        started = time.process_time()
        game = game_class(str(record["game"])).create(record["config"])
        for entry in record["actions"]:
            deal = Deal.from_json(entry["deal"]) if "deal" in entry else None
            seat = int(entry["seat"])
            game.apply(seat, str(entry["action"]), int(entry["at"]), deal=deal)
            players = range(1, game.seats + 1)
            for player, view in zip(players, game.views(players), strict=True):
                orjson.dumps({"view": view, "legal": game.legal(player)})
            counted += seat != HOUSE
        spent += time.process_time() - started
    return spent, counted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--actions", type=int, default=20_000)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    uvloop.run(run(args.tables, args.actions, args.profile))  # the server's event loop


if __name__ == "__main__":
    main()

"""Helpers for the server tests: a real server on a loopback port (uvicorn, in the test's event
loop, or a separate process for crash tests), settings for tests, and a client-side player that
plays a seat with a bot from the views the server sends."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI
from redis.asyncio import Redis
from sqlalchemy.orm import Session

from rummyhall import catalog
from rummyhall.bots import Bot
from rummyhall.client import ClientError, RoomClient
from rummyhall.economy import ladder, progression
from rummyhall.economy.flows import attribute
from rummyhall.economy.ladder import LevelUp
from rummyhall.economy.levels import clover_at
from rummyhall.economy.rooms import Rooms
from rummyhall.games.protocol import Deal, Standing, game_class
from rummyhall.server.app import create_app
from rummyhall.server.bots import bot_factory
from rummyhall.server.clock import Clock, FakeClock
from rummyhall.server.run import protocol_options
from rummyhall.server.settings import Settings
from rummyhall.store.database import Database

JSON = dict[str, Any]


def fast_settings(data_dir: Path, database_url: str, **changes: Any) -> Settings:
    """Fast settings: no pauses, bots that think instantly, cheap to run many games."""
    settings = Settings(
        database_url=database_url,
        data_dir=data_dir,
        bot_wait_ms=0,
        bot_think_ms=(0, 0),
        next_game_ms=0,
        deal_ms=0,
        rate_per_second=10_000,
        rate_burst=10_000,
        # Tests sign many clients in from one loopback address: the sign-in limits would refuse
        # them (tests/server/test_server_auth.py sets them low on purpose).
        login_client_per_minute=1_000_000,
        login_client_burst=100_000,
        login_account_per_minute=1_000_000,
        login_account_burst=100_000,
        signup_client_per_minute=1_000_000,
        signup_client_burst=100_000,
        hash_queue=100_000,
        # The tables' tests buy in many times over with one account; the starting purse a real
        # room gives (100 silver, 1,000 gold) has tests of its own (test_server_gold.py).
        starting_silver=10_000,
        starting_gold=0,
        # The collector's freezes act on the whole process, here the test run's: they have tests
        # of their own (test_server_cycles.py), and the other tests' servers leave it alone.
        gc_freeze_ms=0,
    )
    return replace(settings, **changes)


@dataclass
class Running:
    url: str
    app: FastAPI

    @property
    def hub(self) -> Any:
        return self.app.state.hub


@contextlib.asynccontextmanager
async def running(
    settings: Settings, *, clock: Clock | None = None, rooms: Rooms | None = None
) -> AsyncIterator[Running]:
    """A server on a free loopback port in this event loop, stopped at the end."""
    app = create_app(settings, clock=clock, rooms=rooms or Rooms(catalog.rooms()))
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=0,
        log_level="warning",
        **protocol_options(),
        lifespan="on",
        # A test speaks as several clients with X-Forwarded-For, trusted from loopback as from a
        # reverse proxy on the same host (uvicorn's default, spelled out).
        proxy_headers=True,
        forwarded_allow_ips="127.0.0.1",
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield Running(f"http://127.0.0.1:{port}", app)
    finally:
        server.should_exit = True
        await task


def lift(level: int) -> tuple[Standing, int]:
    """The won game, and its room multiplier (tenths), worth the clover that reaches ``level``:
    what :func:`promote` records."""
    win = Standing(place=1)
    return win, -(-clover_at(level) * 10 // progression.game_points(win))


async def record_games(
    db: Database,
    games: Sequence[tuple[int, Standing]],
    *,
    at_ms: int,
    game: str = "rummy51",
    multiplier_tenths: int = 10,
    tier: str | None = None,
) -> list[LevelUp]:
    """Finished games, one per (account, standing), through the ladder's own path
    (:func:`rummyhall.economy.ladder.record_game`) in one transaction; the level-ups."""

    def write(sync: Session) -> list[LevelUp]:
        return [
            up
            for account, standing in games
            for up in ladder.record_game(
                sync.connection(),
                game=game,
                multiplier_tenths=multiplier_tenths,
                at_ms=at_ms,
                players=[(account, standing)],
                tier=tier,
            )
        ]

    async with db.transaction() as session:
        return await session.run_sync(write)


async def promote(server: Running, account_id: int, level: int) -> None:
    """Lift a player to ``level`` through the ladder's own path: one won game, outside every
    room (``game="promotion"``, at time 0), worth the clover that reaches it (a test's shortcut
    to the rooms a level opens)."""
    win, multiplier = lift(level)
    await record_games(
        server.app.state.db, [(account_id, win)], at_ms=0, game="promotion",
        multiplier_tenths=multiplier,
    )  # fmt: skip


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class ServerProcess:
    """``rummyhall serve`` in a child process (for tests that kill the server)."""

    def __init__(self, data_dir: Path, database_url: str, port: int) -> None:
        self.data_dir = data_dir
        self.database_url = database_url
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.process: subprocess.Popen[bytes] | None = None
        self.extra: tuple[str, ...] = ()
        """The options of the last start (:meth:`restart` uses them again)."""

    def restart(self) -> None:
        self.start(*self.extra)

    def start(self, *extra: str) -> None:
        self.extra = extra
        command = [
            sys.executable, "-m", "rummyhall.cli", "serve", "--port", str(self.port),
            "--data-dir", str(self.data_dir), "--database", self.database_url,
            "--log-level", "warning", "--bot-wait", "0", "--bot-think-ms", "0",
            "--next-game-ms", "0", "--deal-ms", "0",
            # browser tests sign up and play as guests many times from one address
            "--no-auth-limits", *extra,
        ]  # fmt: skip
        env = dict(os.environ)
        log = open(self.data_dir / "server.log", "ab")  # noqa: SIM115 (kept open for the child)
        self.process = subprocess.Popen(command, stdout=log, stderr=log, env=env)
        log.close()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"the server exited: {(self.data_dir / 'server.log').read_text()}"
                )
            time.sleep(0.05)
        raise RuntimeError("the server did not start")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        self.process = None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()
        self.process = None


class Player:
    """A signed-in client that plays its seat at a table with the game's bot, from the views the
    server sends (the same data a browser gets)."""

    def __init__(self, client: RoomClient, game: str, seed: int) -> None:
        self.client = client
        self.bot: Bot = bot_factory(game)(seed)
        self.actions = 0
        self.refused: list[str] = []

    async def play(self, table: int, *, games: int = 1, timeout: float = 120) -> JSON:
        """Act whenever the table awaits this seat, until the table's game number ``games`` has
        ended; returns the message that ended it. Call :meth:`RoomClient.follow` before
        watching, so that no message is missed."""
        feed = self.client.follow(table)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            # (asyncio.timeout: Python 3.11's wait_for may swallow the cancel that stops a play)
            async with asyncio.timeout(max(0.1, left)):
                message = await feed.get()
            info = message["info"]
            view = message["view"]
            if info["game_no"] >= games and not info["playing"]:
                return message
            if not feed.empty() or view is None or message["you"] is None:
                continue  # act on the latest state only
            if not any(a["seat"] == message["you"] for a in view.get("awaited", [])):
                continue
            action = self.bot.act(view)
            if action is None:
                continue
            for _ in range(50):
                try:
                    await self.client.act(table, action)
                    self.actions += 1
                except ClientError as error:
                    if error.code == "rate_limited":  # a person would wait a moment too
                        await asyncio.sleep(0.1)
                        continue
                    self.refused.append(f"{action}: {error.code}")
                break


async def watch_table(client: RoomClient, table: int, *, follow: bool = False) -> JSON:
    """Connect the client's WebSocket and watch ``table``; the table's snapshot. ``follow``: call
    :meth:`RoomClient.follow` before watching, so that no message is missed (what a
    :class:`Player` needs)."""
    await client.connect()
    if follow:
        client.follow(table)
    return await client.watch(table)


async def seat_guest(
    client: RoomClient, room: str, *, follow: bool = False
) -> tuple[int, int, JSON]:
    """The usual opening of a server test: play as a guest, quick-seat at ``room``, connect and
    watch the table (:func:`watch_table`); (table, seat, the table's snapshot)."""
    await client.guest()
    table, seat = await client.quick_seat(room)
    return table, seat, await watch_table(client, table, follow=follow)


async def settle(hub: Any, predicate: Any, timeout: float = 60) -> None:
    """Wait until ``predicate(hub)`` holds (server-side state, for tests)."""
    deadline = time.monotonic() + timeout
    while not predicate(hub):
        if time.monotonic() > deadline:
            raise TimeoutError("the server did not reach the expected state")
        await asyncio.sleep(0.01)


async def until(what: str, check: Callable[[], Awaitable[Any]], timeout: float = 60) -> Any:
    """Poll ``check`` until it gives something truthy (a state, not a time), and return it;
    fail with ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        found = await check()
        if found:
            return found
        assert time.monotonic() < deadline, f"never happened: {what}"
        await asyncio.sleep(0.02)


async def run_clock(clock: FakeClock, until: Any, step: int = 5_000, rounds: int = 400) -> None:
    """Move the fake clock on in steps, letting the server work between them, until ``until()``."""
    for _ in range(rounds):
        if until():
            return
        clock.advance(step)
        await asyncio.sleep(0.02)
    assert until(), "the table did not get there"


async def my_turn(client: RoomClient, table: int, server: Running) -> dict[str, Any]:
    """The first message that shows it is this client's turn (a failure describes the table).

    A bot may end the deal before that: by a drop (the next deal starts at once) or by declaring
    at its first turn, and then the show waits for this client's groups; the game's bot shows
    them for it, and the wait goes on into the next deal."""

    def awaits_me(m: JSON) -> bool:
        return m["view"] is not None and any(a["seat"] == m["you"] for a in m["view"]["awaited"])

    bot = bot_factory(server.hub.table(table).room.game)(1)
    try:
        while True:
            message = await client.wait_for(table, awaits_me)
            mine = [a for a in message["view"]["awaited"] if a["seat"] == message["you"]]
            if mine[0]["kind"] == "turn":
                return message
            action = bot.act(message["view"])
            assert action is not None, message["view"]
            done = await client.act(table, action)
            await client.wait_for(table, lambda m, done=done: m["seq"] >= done)
    except TimeoutError:
        actor = server.hub.table(table)
        game = actor.game
        raise AssertionError(
            f"not our turn: seats {actor.seats}, game {actor.game_no} "
            f"awaits {game and game.awaited()}, over {game and game.over}, "
            f"last actions {game and game.log[-3:]}, dues {actor._dues}, "
            f"timer at {actor._timer_at} (now {actor.clock.now()}), queue {len(actor._pending)}, "
            f"stuck {actor.stuck}, seq {actor.seq}, client saw "
            f"{client.tables.get(table, {}).get('seq')}"
        ) from None


def record_nets(record: JSON) -> dict[int, int]:
    """What each seat won (lost, if negative) in a finished game, from its record: every
    posting of every action, and the result's."""
    game = game_class(str(record["game"])).create(record["config"])
    nets: dict[int, int] = {}

    def add(postings: Any) -> None:
        for posting in postings:
            if posting.account.startswith("seat:"):
                seat = int(posting.account.removeprefix("seat:"))
                nets[seat] = nets.get(seat, 0) + posting.amount

    for entry in record["actions"]:
        deal = Deal.from_json(entry["deal"]) if "deal" in entry else None
        events = game.apply(int(entry["seat"]), str(entry["action"]), int(entry["at"]), deal=deal)
        add(p for event in events for p in event.postings)
    assert game.result is not None, "not a finished game"
    add(game.result.postings)
    return nets


async def check_flows(database_url: str) -> int:
    """Every finished game's recorded chip flows are the attribution of what its record says
    each seat won or lost (so the tally the table keeps, across restarts too, is right); returns
    how many games were checked."""
    from sqlalchemy import select

    from rummyhall.store.models import ChipFlowModel, HandModel, HandPlayerModel

    db = await Database.open(database_url, migrate=False)
    try:
        async with db.read() as session:
            hands = (await session.execute(select(HandModel.id, HandModel.record))).all()
            for hand_id, record in hands:
                seats = dict(
                    (
                        await session.execute(
                            select(HandPlayerModel.seat, HandPlayerModel.account_id).where(
                                HandPlayerModel.hand_id == hand_id
                            )
                        )
                    ).all()
                )
                flows = await session.execute(
                    select(ChipFlowModel.payer, ChipFlowModel.payee, ChipFlowModel.amount).where(
                        ChipFlowModel.hand_id == hand_id
                    )
                )
                nets = record_nets(record)
                expected = [
                    (seats[payer], seats[payee], amount)
                    for payer, payee, amount in attribute(
                        {s: nets.get(s, 0) for s in sorted(seats)}
                    )
                ]
                assert sorted(tuple(f) for f in flows) == sorted(expected), (hand_id, nets)
        return len(hands)
    finally:
        await db.close()


@contextlib.asynccontextmanager
async def running_nodes(
    pg_server: Any, redis_url: str, data: Path, names: Sequence[str], ttl_ms: int,
    *, bots: bool = False,
) -> AsyncIterator[tuple[str, dict[str, ServerProcess]]]:  # fmt: skip
    """``rummyhall serve`` node processes named ``names`` (several nodes: docs/cluster.md) on a
    new database of ``pg_server`` (tests/pg.py) and the Redis at ``redis_url``, each with a data
    folder in ``data``; (the database's URL, the nodes by name). Stopped, and the database
    dropped, afterwards."""
    database = await pg_server.create_database()
    url = pg_server.url(database)
    common = (
        "--starting-silver", "10000", "--redis", redis_url, "--lease-ttl-ms", str(ttl_ms),
        "--seed-key-file", str(data / "seed.key"), *(() if bots else ("--no-bots",)),
    )  # fmt: skip
    nodes: dict[str, ServerProcess] = {}
    try:
        for name in names:  # one after the other: the first migrates the new database
            (data / name).mkdir()
            nodes[name] = ServerProcess(data / name, url, free_port())
            nodes[name].start(*common, "--node-id", name)
        yield url, nodes
    finally:
        for server in nodes.values():
            server.stop()
        await pg_server.drop_database(database)


@contextlib.asynccontextmanager
async def redis_client(url: str) -> AsyncIterator[Redis]:
    redis = Redis.from_url(url)
    try:
        yield redis
    finally:
        await redis.aclose()

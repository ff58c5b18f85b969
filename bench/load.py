"""Load benchmark of the room server: bot clients in separate processes play Rummy Patti over
loopback WebSockets against one server process, every action durably logged, on SQLite or on a
throwaway PostgreSQL (started here as the tests start one, but durable: fsync on).

Each player thinks a while before acting (``--think-ms``, 400 ms on average), as people do; a
Patti table waits for one player at a time, so a table makes about one move per think time
(``--think-ms 2000``: a move every 2 s at each table, a human pace). Spectators
(``--spectators``) each watch one of the tables and receive every update of it; idle sockets
(``--idle``) are signed in and connected and watch nothing, to measure what a connection costs.

The clients run in their own processes, one per core the server does not need (``--procs``, by
default the cores less one): the server's event loop needs a core of its own, and a second client
process on a 2-core machine only takes turns with the server on its core, which shows as
latency that is the machine's, not the server's. They sign up and take their seats with the
project's client (``rummyhall.client``) and then play over a lean WebSocket of the benchmark's
own (bench/lean_socket.py), parsing only the messages they must read: what a client costs is CPU
the server does not get, and the targets count the clients in.

Prints accepted actions/s (the server's own count over the measured window), messages/s received
by the clients, p50/p99 of the time from an action's send to its answer (the update it caused,
queued to every watcher of the table in the same step, so it bounds the broadcast) for the actions
sent in the measured window (not during the ramp, while thousands of players sign up), the time
the table task itself spent (apply and durable commit, from the server's histogram), next to the
round trip of a bare WebSocket echo server measured in the same run (the ratio is what to compare
across machines); the table writer's commits, how long its jobs waited and how long SQLite's
COMMIT took; the event loop's lag (how late it ran a timer: a full core shows there first);
the server's memory per idle connection and per table (its resident set, read
between the phases of the ramp), and the CPU the server and the client processes spent per
action, with the bound that puts on one core. The server's figures come from its /metrics,
scraped at the window's start and end, and are taken over the span between the two scrapes
(its CPU too: process_cpu_seconds_total). Then runs the ledger audit on the database the run
left.

    python bench/load.py [--tables 500|250,500,1000] [--seats 4] [--spectators 0] [--idle 200]
                         [--think-ms 400] [--seconds 30] [--ramp 60] [--procs N]
                         [--database sqlite|postgresql] [--nodes 1,2] [--pin]

Every player's join is timed (a new guest account, a quick seat with its buy-in, the WebSocket,
the first snapshot); a short ``--ramp`` makes it a burst of arrivals (``--tables 250 --ramp 1``:
a thousand players within a second).

With a list of table counts (``--tables 250,500,750,1000``) each runs against a fresh server, and
the last line is the highest rate of accepted actions that one server process sustained at p99 <=
50 ms: the figure the scale-out plan (docs/operations.md) is built on.

Several nodes (issue 21): ``--nodes 1,2`` runs the same load against one node and then against
two, in one run, each behind nginx (so the proxy's cost is in both): a throwaway PostgreSQL
(durable), redis-server and nginx (the tests' helpers: tests/pg.py, tests/redis_server.py,
tests/nginx_server.py with deploy/nginx/rummyhall.conf), ``rummyhall serve --redis ...
--node-id nK`` for each node, and every client (HTTP and WebSockets) through nginx's round
robin, so a player's socket may land on a node other than the one that seated it (quick seat is
per node), and is then relayed (server/cluster/relay.py). Besides the lines above it prints each
node's accepted actions and CPU per action, the relay's publishes and calls per accepted action
(from each node's ``rummyhall_relay_*`` counters), the share of players' and spectators'
sockets that were relayed, the CPU per action of PostgreSQL, redis-server and nginx (their
processes' /proc/PID/stat, children included, over the measured window) and of everything
server-side, then the ratios N nodes / 1 node of actions/s, p50, p99 and CPU per action. With
``--pin``, every node shares the last core (one node and two get the same core) and nginx,
redis-server, PostgreSQL and the clients the others.

Targets (issue 20) on a 2-core machine, clients included: 1,000 tables x 4 players + 1,000
spectators at a human pace (``--think-ms 2000``) with p99 <= 50 ms; the 400 ms stress at 1,000
tables (about 2,000 actions/s) with p99 <= 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import contextlib
import json
import multiprocessing
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


# --- the bare echo baseline -------------------------------------------------------------------


def _echo_server(port: int) -> None:
    from websockets.asyncio.server import serve

    async def echo(ws: Any) -> None:
        async for message in ws:
            await ws.send(message)

    async def main() -> None:
        async with serve(echo, "127.0.0.1", port):
            await asyncio.Future()

    asyncio.run(main())


async def _echo_rtt(port: int, count: int) -> list[float]:
    from websockets.asyncio.client import connect

    times = []
    async with connect(f"ws://127.0.0.1:{port}") as ws:
        payload = json.dumps({"type": "act", "table": 1, "action": "chaal", "cid": "x" * 32})
        for _ in range(count):
            start = time.perf_counter()
            await ws.send(payload)
            await ws.recv()
            times.append(time.perf_counter() - start)
    return times


def echo_baseline(count: int = 2000) -> list[float]:
    port = free_port()
    process = multiprocessing.Process(target=_echo_server, args=(port,), daemon=True)
    process.start()
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        return asyncio.run(_echo_rtt(port, count))
    finally:
        process.terminate()
        process.join()


# --- the bot clients -----------------------------------------------------------------------------
# Each player signs up as a guest and takes a seat over HTTP (the project's own client), then
# plays over a lean WebSocket (bench/lean_socket.py): the clients share the machine with the
# server, and every message they handle costly is CPU the server does not get.


class _Seat:
    """A player at a table, driven by the messages its socket receives (no task of its own):
    on its turn it thinks a while, then acts, unless the table moved on meanwhile.

    A browser parses every message; this player looks into the text first and parses only the
    messages that are its turn (its seat among the awaited: ``"seat":N,"kind"`` is how an entry
    of the view's ``awaited`` list begins, and no other part of a message reads so) and the
    answers to its actions that are errors. Parsing (and freeing) every message was most of what
    a player cost, and the players share the machine with the server."""

    def __init__(
        self, table: int, bot: Any, pace: Any, plan: Plan, results: dict[str, Any]
    ) -> None:
        self.table = table
        self.bot = bot
        self.pace = pace
        self.plan = plan
        self.results = results
        self.socket: Any = None
        self.awaited = ""
        """How this seat appears among the awaited, once its seat is known."""
        self.latest: str | None = None
        self.version = 0
        self.pending: tuple[str, float, float] | None = None
        """The action awaiting its answer: (its cid as the answer writes it, and the monotonic
        and perf_counter times it left)."""
        self.timer: asyncio.TimerHandle | None = None
        self.sent = 0
        self.watching: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def on_text(self, text: str) -> None:
        results = self.results
        results["messages"] += 1
        if self.pending is not None and self.pending[0] in text:
            _, sent_at, start = self.pending
            self.pending = None
            if text.startswith('{"type":"error"'):
                code = orjson.loads(text).get("code")
                results["errors"][code] = results["errors"].get(code, 0) + 1
            elif self.plan.start_at <= sent_at:
                # Only actions sent in the measured window count (not those of the ramp, when
                # thousands of players are signing up and taking seats).
                results["latency"].append(time.perf_counter() - start)
                results["actions"] += 1
        if text.startswith(('{"type":"update"', '{"type":"snapshot"')):
            self.latest = text
            self.version += 1
            if not self.watching.done():
                you = orjson.loads(text)["you"]
                self.awaited = f'"seat":{you},"kind"'
                self.watching.set_result(None)
        if self.pending is None and self.timer is None:
            self.consider()

    def consider(self) -> None:
        text = self.latest
        if text is None or self.awaited not in text or time.monotonic() >= self.plan.stop_at:
            return
        message = orjson.loads(text)
        view, you = message["view"], message["you"]
        if view is None or you is None:
            return
        if not any(a["seat"] == you for a in view.get("awaited", [])):
            return
        action = self.bot.act(view)
        if action is None:
            return
        # A person takes a moment before acting.
        delay = self.plan.think * self.pace.uniform(0.5, 1.5)
        self.timer = asyncio.get_running_loop().call_later(delay, self.fire, self.version, action)

    def fire(self, version: int, action: str) -> None:
        self.timer = None
        if version != self.version:  # the table moved on meanwhile (a timeout, a leave)
            self.consider()
            return
        if time.monotonic() >= self.plan.stop_at or self.socket is None:
            return
        self.sent += 1
        cid = f"a{self.sent}"
        self.pending = (f'"cid":"{cid}"', time.monotonic(), time.perf_counter())
        act = {"type": "act", "table": self.table, "action": action, "cid": cid}
        self.socket.send_text(orjson.dumps(act).decode())

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        if self.socket is not None:
            self.socket.close()


async def _join(
    url: str, room: str | None, phases: dict[str, list[float]] | None = None
) -> tuple[int | None, str]:
    """A new guest (seated at ``room`` by quick seat, if given): the table and the cookie; the
    time each request took goes into ``phases``."""
    from rummyhall.client import RoomClient

    async with RoomClient(url) as client:
        start = time.perf_counter()
        await client.guest()
        signed_up = time.perf_counter()
        # Automatic rebuy: a player whose stack runs short buys back in between games, so a
        # table plays on (a player who stood up would leave a seat nobody takes in a bench).
        table = (await client.quick_seat(room, auto_rebuy=True))[0] if room is not None else None
        cookie = "; ".join(f"{name}={value}" for name, value in client.http.cookies.items())
    if phases is not None:
        phases["guest"].append(signed_up - start)
        phases["quick seat"].append(time.perf_counter() - signed_up)
    return table, cookie


_MASKS = random.Random(2026)
"""The masking keys of the clients' frames (a client masks what it sends; any key will do)."""


async def _open(url: str, cookie: str, on_text: Any) -> Any:
    from lean_socket import open_socket

    host, port = url.removeprefix("http://").rsplit(":", 1)
    return await open_socket(host, int(port), cookie, on_text, _MASKS)


async def _player(
    url: str, room: str, number: int, plan: Plan, results: dict[str, Any], seated: Any,
    tables: list[int],
) -> None:  # fmt: skip
    from rummyhall.games.patti.bot import PattiBot

    arrived = time.perf_counter()
    table, cookie = await _join(url, room, results["phases"])
    assert table is not None
    seat = _Seat(table, PattiBot(seed=number), random.Random(number), plan, results)
    connecting = time.perf_counter()
    seat.socket = await _open(url, cookie, seat.on_text)
    seat.socket.send_text(orjson.dumps({"type": "watch", "table": table}).decode())
    # (a failure, not a hang, if the snapshot never comes: the socket closed, say)
    async with asyncio.timeout(max(10.0, plan.stop_at - time.monotonic())):
        await seat.watching
    results["phases"]["socket and snapshot"].append(time.perf_counter() - connecting)
    results["joins"].append(time.perf_counter() - arrived)
    tables.append(table)
    with seated.get_lock():
        seated.value += 1
    try:
        await asyncio.sleep(max(0.0, plan.stop_at + LINGER_S - time.monotonic()))
    finally:
        seat.stop()


async def _spectator(
    url: str, table: int, plan: Plan, results: dict[str, Any], watching: Any
) -> None:
    _, cookie = await _join(url, None)
    snapshot: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def on_text(text: str) -> None:
        results["spectated"] += 1
        if not snapshot.done():
            snapshot.set_result(None)

    socket = await _open(url, cookie, on_text)
    socket.send_text(orjson.dumps({"type": "watch", "table": table}).decode())
    async with asyncio.timeout(max(10.0, plan.stop_at - time.monotonic())):
        await snapshot
    with watching.get_lock():
        watching.value += 1
    try:
        await asyncio.sleep(max(0.0, plan.stop_at + LINGER_S - time.monotonic()))
    finally:
        socket.close()


async def _idle(url: str) -> Any:
    """A signed-in connection that watches nothing (closed by the caller)."""
    _, cookie = await _join(url, None)
    return await _open(url, cookie, lambda text: None)


LINGER_S = 3.0
"""The sockets stay open this long after the window (players no longer act): their closing is
not counted in it (a relayed socket's unwatch is a relayed call)."""


@dataclass(frozen=True)
class Plan:
    """When a client process does what (monotonic times, the same clock in every process)."""

    room: str
    players: range
    spectators: int
    think: float
    players_until: float
    """Players connect evenly until then..."""
    start_at: float
    """... spectators once every player is seated, and the measured window starts here..."""
    stop_at: float
    """... and ends here."""


def _client_process(url: str, plan: Plan, seated: Any, watching: Any, out: Any) -> None:
    async def main() -> dict[str, Any]:
        results: dict[str, Any] = {
            "messages": 0, "spectated": 0, "actions": 0, "latency": [], "joins": [], "errors": {},
            "phases": {"guest": [], "quick seat": [], "socket and snapshot": []},
        }  # fmt: skip

        async def cpu_in_window() -> None:
            await asyncio.sleep(max(0.0, plan.start_at - time.monotonic()))
            before = time.process_time()
            await asyncio.sleep(max(0.0, plan.stop_at - time.monotonic()))
            results["cpu"] = time.process_time() - before

        meter = asyncio.create_task(cpu_in_window())
        # Connect gradually, then play until the end.
        tables: list[int] = []
        tasks = []
        count = len(plan.players)
        for i, n in enumerate(plan.players):
            player = _player(url, plan.room, n, plan, results, seated, tables)
            tasks.append(asyncio.create_task(player))
            await asyncio.sleep(max(0.0, (plan.players_until - time.monotonic()) / (count - i)))
        # The spectators watch this process's tables, once all of them are seated.
        while plan.spectators and len(tables) < count and time.monotonic() < plan.start_at:
            await asyncio.sleep(0.1)
        for k in range(plan.spectators if tables else 0):
            table = sorted(set(tables))[k % len(set(tables))]
            tasks.append(asyncio.create_task(_spectator(url, table, plan, results, watching)))
            await asyncio.sleep(0.002)
        done = await asyncio.gather(*tasks, return_exceptions=True)
        failures = [repr(d) for d in done if isinstance(d, BaseException)]
        results["failures"] = failures[:5]
        results["failed"] = len(failures)
        await meter
        return results

    out.put(_run_loop(main()))


def _idle_process(url: str, count: int, ready: Any, stop: Any) -> None:
    """Hold ``count`` idle connections until ``stop`` is set."""

    async def main() -> None:
        clients = [await _idle(url) for _ in range(count)]
        ready.set()
        while not stop.is_set():
            await asyncio.sleep(0.2)
        for client in clients:
            client.close()

    _run_loop(main())


def _run_loop(main: Any) -> Any:
    # The same event loop and collector settings the server runs with (uvicorn picks uvloop when
    # it is installed; rummyhall serve collects cycles less often).
    import gc

    import uvloop

    gc.set_threshold(50_000, 50, 100)
    return uvloop.run(main)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--tables", type=_counts, default=[500],
        help="tables (a list such as 250,500,1000: a fresh run for each, and the highest rate "
        "that kept p99 <= 50 ms)",
    )  # fmt: skip
    parser.add_argument(
        "--seats", type=int, default=4, choices=(4, 5), help="players at each table (4 or 5)"
    )
    parser.add_argument("--spectators", type=int, default=0, help="connections watching a table")
    parser.add_argument(
        "--idle", type=int, default=200, help="connections that watch nothing (for their memory)"
    )
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--ramp", type=float, default=60, help="seconds to connect everyone")
    parser.add_argument(
        "--procs",
        type=int,
        default=max(1, (os.cpu_count() or 2) - 1),
        help="client processes (default: the cores less one, which the server needs)",
    )
    parser.add_argument(
        "--think-ms",
        type=float,
        default=400,
        help="mean time a player thinks before acting (uniform over 0.5x..1.5x); 0 = act at once",
    )
    parser.add_argument(
        "--database", choices=("sqlite", "postgresql"), default="sqlite",
        help="SQLite in a temporary folder, or a throwaway PostgreSQL server started here",
    )  # fmt: skip
    parser.add_argument(
        "--nodes", type=_counts,
        help="several nodes (a list such as 1,2: a run for each, the same load): PostgreSQL, a "
        "throwaway redis-server and nginx in front of the nodes; every client goes through nginx",
    )  # fmt: skip
    parser.add_argument("--url", help="use a server already running here (for profiling it)")
    parser.add_argument(
        "--src", type=Path,
        help="run the server from this source folder (another checkout's src/: a before and "
        "after on the same machine)",
    )  # fmt: skip
    parser.add_argument(
        "--pin", action="store_true",
        help="the server on the last core and everything else on the others (one each on a "
        "2-core machine), so that the server and its clients do not take turns on one core; "
        "with --nodes, every node on the last core (one and two nodes get the same core) and "
        "nginx, redis-server, PostgreSQL and the clients on the others",
    )  # fmt: skip
    args = parser.parse_args()
    if args.nodes and args.url:
        parser.error("--nodes starts its own nodes: not with --url")
    echo = echo_baseline()
    runs = []
    for tables in args.tables:
        same = []
        for nodes in args.nodes or [None]:
            same.append(run(args, tables, echo, nodes))
            print()
        _compare(same)
        runs += same
    for nodes in args.nodes or [None]:
        these = [r for r in runs if r["nodes"] == nodes]
        if len(these) < 2:
            continue
        met = [r for r in these if r["p99"] <= 50 and r["ok"]]
        print(
            ("one server process" if nodes is None else f"{nodes} node{'s' * (nodes > 1)}")
            + " sustain" + ("s " if nodes in (None, 1) else " ")
            + (
                f"{max(r['rate'] for r in met):,.0f} accepted actions/s at p99 <= 50 ms"
                if met
                else "no rate of these at p99 <= 50 ms"
            )
            + " (the highest rate of the runs above that kept it; "
            + ", ".join(f"{r['tables']:,} tables: {r['rate']:,.0f}/s p99 {r['p99']:.0f} ms"
                        for r in these)
            + ")"
        )  # fmt: skip
    return 0 if all(r["ok"] for r in runs) else 1


def _compare(runs: list[dict[str, Any]]) -> None:
    """With several node counts: each against one node (the same tables, the same run)."""
    one = next((r for r in runs if r["nodes"] == 1), None)
    if one is None:
        return
    for other in runs:
        if other["nodes"] in (None, 1):
            continue

        def ratio(key: str, run: dict[str, Any] = other) -> str:
            return f"{run[key] / one[key]:.2f}" if one.get(key) and run.get(key) else "n/a"

        print(f"{other['nodes']} nodes / 1 node, {other['tables']:,} tables: accepted actions/s "
              f"{ratio('rate')}, p50 {ratio('p50')}, p99 {ratio('p99')}, CPU per accepted action "
              f"of the nodes {ratio('cpu')}, of everything server-side (nodes, nginx, "
              f"redis-server, PostgreSQL) {ratio('side')}")  # fmt: skip
    print()


def _counts(text: str) -> list[int]:
    return [int(part) for part in text.split(",")]


def _serve(args: Any, port: int, data: Path, db: str, *extra: str) -> subprocess.Popen[bytes]:
    """``rummyhall serve`` (from ``--src`` if given) in a child process."""
    return subprocess.Popen(
        [sys.executable, "-m", "rummyhall.cli", "serve", "--port", str(port),
         "--data-dir", str(data), "--database", db, "--no-bots", "--next-game-ms", "500",
         "--deal-ms", "0", "--log-level", "warning",
         # thousands of guests from one address: the sign-in limits would refuse most of them
         "--no-auth-limits", *extra],
        stdout=subprocess.DEVNULL, stderr=open(data / "server.log", "wb"),
        env=_src_env(args),
    )  # fmt: skip


def _src_env(args: Any) -> dict[str, str] | None:
    """The environment that runs the room's code from ``--src`` (None: this checkout's)."""
    return {**os.environ, "PYTHONPATH": str(args.src.resolve())} if args.src else None


def _healthy(url: str, server: subprocess.Popen[bytes] | None = None) -> None:
    """Wait until the server answers /healthz (about 30 s at most)."""
    import httpx

    for _ in range(300):
        if server is not None and server.poll() is not None:
            raise RuntimeError(f"the server at {url} exited ({server.returncode})")
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)


def _helpers() -> tuple[Any, Any, Any]:
    """The tests' throwaway servers: tests/pg.py, tests/redis_server.py, tests/nginx_server.py."""
    folder = str(Path(__file__).resolve().parent.parent / "tests")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    import nginx_server
    import pg
    import redis_server

    return pg, redis_server, nginx_server


def run(args: Any, tables: int, echo: list[float], nodes: int | None = None) -> dict[str, Any]:
    """One run against a fresh server with ``tables`` tables (with ``nodes``: that many nodes
    behind nginx); its figures printed, and returned: tables, nodes, rate (accepted actions/s),
    p50 and p99 (ms), cpu (the servers' CPU per accepted action, ms), side (that of everything
    server-side, ms), ok (no failure, audit clean)."""
    room = f"practice-patti-10-{args.seats}p"  # guests play practice rooms
    data = Path(tempfile.mkdtemp(prefix="rummyhall-load-"))
    url = args.url or ""
    postgres = redis = proxy = None
    side: dict[str, int] = {}
    """The other servers' process ids, by name (their CPU is read over the window)."""
    if (args.database == "postgresql" or nodes) and not args.url:
        pg, _, _ = _helpers()
        postgres = pg.start(durable=True)
        atexit.register(postgres.stop)  # (also if the run fails)
        db = postgres.url(asyncio.run(postgres.create_database()))
        side["PostgreSQL"] = int((postgres.datadir / "postmaster.pid").read_text().split()[0])
    else:
        db = f"sqlite+aiosqlite:///{data / 'rummyhall.db'}"
    servers: list[subprocess.Popen[bytes]] = []
    names: list[str] = []
    node_urls: list[str] = []
    folders: list[Path] = []
    sockets = tables * args.seats + args.spectators + args.idle
    try:
        if args.url:
            servers, names, node_urls, folders = (
                [subprocess.Popen(["true"])],
                ["server"],
                [url],
                [data],
            )
        elif nodes is None:
            port = free_port()
            url = f"http://127.0.0.1:{port}"
            servers, names, node_urls, folders = (
                [_serve(args, port, data, db)],
                ["server"],
                [url],
                [data],
            )
            _healthy(url, servers[0])
        else:
            _, redis_server, nginx_server = _helpers()
            redis = redis_server.start()
            atexit.register(redis.stop)
            side["redis-server"] = redis.process.pid
            for k in range(1, nodes + 1):
                name, port = f"n{k}", free_port()
                folder = data / name
                folder.mkdir()
                # Every node the same seed key (made by the first); one after the other: the
                # first migrates the new database.
                extra = ["--redis", redis.url, "--node-id", name]
                if k > 1:
                    extra += ["--seed-key-file", str(data / "n1" / "seed.key")]
                servers.append(_serve(args, port, folder, db, *extra))
                names.append(name)
                node_urls.append(f"http://127.0.0.1:{port}")
                folders.append(folder)
                _healthy(node_urls[-1], servers[-1])
            # A proxied WebSocket holds two of nginx's connections (the client's, the node's).
            proxy = nginx_server.start(
                [u.removeprefix("http://") for u in node_urls], connections=2 * sockets + 1024
            )
            atexit.register(proxy.stop)
            side["nginx"] = proxy.process.pid
            url = proxy.url
    except BaseException:
        for server in servers:
            server.kill()
        for helper in (proxy, redis, postgres):
            if helper is not None:
                helper.stop()
        raise
    pids = [server.pid for server in servers]
    if args.pin and not args.url:
        cores = sorted(os.sched_getaffinity(0))
        for pid in pids:
            _pin(pid, cores[-1:])
        if nodes is not None:  # (a single server's PostgreSQL shares all the cores, as before)
            for pid in side.values():
                for member in _tree(pid):
                    _pin(member, cores[:-1] or cores)
        os.sched_setaffinity(0, cores[:-1] or cores)  # this process and the clients it starts
    idle_stop = multiprocessing.Event()
    children: list[multiprocessing.Process] = []
    try:
        time.sleep(1)
        rss_start = _rss(pids)
        idle_ready = multiprocessing.Event()
        idle = multiprocessing.Process(
            target=_idle_process, args=(url, args.idle, idle_ready, idle_stop)
        )
        idle.start()
        children.append(idle)
        idle_ready.wait(300)
        time.sleep(1)
        rss_idle = _rss(pids)

        players = tables * args.seats
        now = time.monotonic()
        players_until, start_at = now + 0.8 * args.ramp, now + args.ramp
        stop_at = start_at + args.seconds
        seated, watching = multiprocessing.Value("i", 0), multiprocessing.Value("i", 0)
        queue: Any = multiprocessing.Queue()
        # Whole tables to each process, so that its spectators watch tables it knows.
        share = -(-tables // args.procs) * args.seats
        plans = [
            Plan(
                room, range(i * share, min(players, (i + 1) * share)),
                args.spectators // args.procs + (i < args.spectators % args.procs),
                args.think_ms / 1000, players_until, start_at, stop_at,
            )
            for i in range(args.procs)
        ]  # fmt: skip
        procs = [
            multiprocessing.Process(
                target=_client_process, args=(url, plan, seated, watching, queue)
            )
            for plan in plans
        ]
        children.extend(procs)
        for process in procs:
            process.start()
        rss_tables = _rss_when(pids, lambda: seated.value >= players, start_at)
        # Players' sockets that landed on a node other than their table's (a relayed watch).
        seated_watches = _watches(node_urls, folders) if nodes else 0.0
        rss_spectators = _rss_when(pids, lambda: watching.value >= args.spectators, start_at)
        spectator_watches = _watches(node_urls, folders) - seated_watches if nodes else 0.0
        # Measure the servers' own count of accepted actions over the measured window only.
        time.sleep(max(0.0, start_at - time.monotonic()))
        before = [_scrape(u, f) for u, f in zip(node_urls, folders, strict=True)]
        scraped_before = time.monotonic()
        cpu_before = [_cpu_seconds(pid) for pid in pids]
        load_before = os.getloadavg()[0]
        side_before = {name: _tree_cpu(pid) for name, pid in side.items()}
        time.sleep(max(0.0, stop_at - time.monotonic()))
        after = [_scrape(u, f) for u, f in zip(node_urls, folders, strict=True)]
        scraped = time.monotonic() - scraped_before
        cpu_after = [_cpu_seconds(pid) for pid in pids]
        load_after = os.getloadavg()[0]
        side_after = {name: _tree_cpu(pid) for name, pid in side.items()}
        results = [queue.get(timeout=300) for _ in procs]
        for process in procs:
            process.join(30)
        idle_stop.set()
        idle.join(30)
    finally:
        idle_stop.set()
        for server in servers:
            server.send_signal(signal.SIGTERM)
        for server in servers:
            try:
                server.wait(60)
            except subprocess.TimeoutExpired:
                print(f"  (server {server.pid} did not stop on SIGTERM within 60 s: killed)")
                server.kill()
                server.wait()
        if proxy is not None:
            proxy.stop()
            atexit.unregister(proxy.stop)
        if redis is not None:
            redis.stop()
            atexit.unregister(redis.stop)
        # After a failure the clients may still run, or wait to hand in their results: the
        # interpreter would wait for them at its exit for ever.
        for child in children:
            if child.is_alive():
                child.terminate()

    latency = [t for r in results for t in r["latency"]]
    messages = sum(r["messages"] + r["spectated"] for r in results)
    errors: dict[str, int] = {}
    for r in results:
        for code, n in r["errors"].items():
            errors[code] = errors.get(code, 0) + n
    failed = sum(r["failed"] for r in results)
    # The servers' counters cover the span between the two scrapes (their answers come as
    # soon as the loop gets to them), which a busy server makes longer or shorter than the
    # planned window: the rates are over that span, and each server's CPU is its own figure
    # from the same scrapes (process_cpu_seconds_total; read from /proc for a server without it).
    window = scraped
    cpu_before, cpu_after = _server_cpu(before, cpu_before), _server_cpu(after, cpu_after)
    own = [
        a.get("rummyhall_actions_total", 0.0) - b.get("rummyhall_actions_total", 0.0)
        for a, b in zip(after, before, strict=True)
    ]
    accepted = sum(own)
    rate = accepted / window
    p50, p99 = percentile(latency, 0.5) * 1000, percentile(latency, 0.99) * 1000
    e50, e99 = statistics.median(echo) * 1000, percentile(echo, 0.99) * 1000
    where = (
        f"{nodes} node{'s' * (nodes > 1)} behind nginx (round robin), PostgreSQL and redis-server"
        if nodes else args.database
    )  # fmt: skip
    print(f"load: {tables:,} Patti tables x {args.seats} players + {args.spectators:,} "
          f"spectators + {args.idle:,} idle = {sockets:,} connections, {where}, "
          f"{args.procs} client processes, {window:.1f} s measured after a {args.ramp:.0f} s "
          f"ramp; players think {args.think_ms:.0f} ms on average")  # fmt: skip
    joins = [t * 1000 for r in results for t in r["joins"]]
    print(f"  joins (a new guest account, quick seat with its buy-in, connect, watch): "
          f"{len(joins):,} of {players:,} players, p50 {percentile(joins, 0.5):.0f} ms, "
          f"p99 {percentile(joins, 0.99):.0f} ms, max {max(joins, default=0):.0f} ms")  # fmt: skip
    phases = {
        name: [t * 1000 for r in results for t in r["phases"][name]]
        for name in results[0]["phases"]
    }
    print("    of which " + "; ".join(
        f"{name} p50 {percentile(times, 0.5):.0f} ms, p99 {percentile(times, 0.99):.0f} ms"
        for name, times in phases.items()))  # fmt: skip
    print(f"  accepted actions/s (server, all tables): {rate:,.0f}")
    print(
        f"  messages received by clients: {messages:,} ({messages / (args.ramp + window):,.0f}/s)"
    )
    print(f"  action send -> answer: p50 {p50:.1f} ms, p99 {p99:.1f} ms over {len(latency):,} "
          f"actions   target p99 <= 50 ms: {'met' if p99 <= 50 else 'MISSED'}")  # fmt: skip

    def percentiles(metric: str, *shares: float) -> str:
        """The window's percentiles of one of the servers' histograms."""
        old, new = _buckets(before, metric), _buckets(after, metric)
        return ", ".join(
            f"p{share * 100:g} {_bucket_percentile(old, new, share)}" for share in shares
        )

    print("  in the table task (apply + durable commit): "
          + percentiles("rummyhall_action_seconds", 0.5, 0.99))  # fmt: skip
    delta = _delta(before, after)
    commits = delta.get("rummyhall_writer_commits_total", 0.0)
    print(f"  table writer: {commits / window:,.0f} commits/s, "
          f"{delta.get('rummyhall_writer_jobs_total', 0.0) / max(1.0, commits):.1f} jobs a "
          f"commit; a job's wait for its commit "
          + percentiles("rummyhall_writer_wait_seconds", 0.5, 0.99)
          + ("; SQLite's COMMIT (the sync) "
             + percentiles("rummyhall_sqlite_commit_seconds", 0.5, 0.99, 0.999)
             if delta.get("rummyhall_sqlite_commit_seconds_count") else ""))  # fmt: skip
    print("  event loop lag (server, a timer every 100 ms): "
          + percentiles("rummyhall_loop_lag_seconds", 0.5, 0.99))  # fmt: skip
    print("  " + _gc_pauses(delta, window, after))
    print(f"  baseline bare WebSocket echo round trip: p50 {e50:.2f} ms, p99 {e99:.2f} ms   "
          f"ratio p50 {p50 / e50:.1f}x, p99 {p99 / e99:.1f}x")  # fmt: skip
    if not args.url:
        print(f"  server memory{' (all nodes)' if nodes else ''}: {rss_start / 2**20:,.0f} MiB "
              f"at start; {(rss_idle - rss_start) / max(1, args.idle) / 1024:,.1f} KiB per idle "
              f"connection, {(rss_tables - rss_idle) / max(1, tables) / 1024:,.1f} KiB per table "
              f"(its {args.seats} players' connections included)" + (
                  f", {(rss_spectators - rss_tables) / args.spectators / 1024:,.1f} KiB per "
                  "spectator" if args.spectators else ""))  # fmt: skip
    cpu = sum(cpu_after) - sum(cpu_before)
    per_action = cpu / accepted * 1000 if accepted > 0 and cpu > 0 else float("nan")
    side_cpu = {name: side_after[name] - side_before[name] for name in side}
    everything = (cpu + sum(side_cpu.values())) / accepted * 1000 if accepted else float("nan")
    if accepted > 0 and cpu > 0:
        print(f"  server CPU per accepted action{' (all nodes)' if nodes else ''}: "
              f"{per_action:.3f} ms (a bound of {1000 / per_action:,.0f} actions/s on one free "
              f"core)   target <= 0.4 ms: {'met' if per_action <= 0.4 else 'MISSED'}")  # fmt: skip
        client_cpu = sum(r.get("cpu", 0.0) for r in results)
        busy = (cpu + sum(side_cpu.values()) + client_cpu) / window
        print(f"  client processes' CPU per accepted action: "
              f"{client_cpu / accepted * 1000:.2f} ms; cores busy with server"
              f"{'s' if side else ''} and clients: {busy:.2f} of {os.cpu_count()}")  # fmt: skip
    if nodes and accepted > 0:
        players_share = seated_watches / max(1, players)
        print(f"  WebSockets on a node other than their table's (relayed): "
              f"{players_share:.0%} of players" + (
                  f", {spectator_watches / args.spectators:.0%} of spectators"
                  if args.spectators else ""))  # fmt: skip
        print("  per node: " + "; ".join(
            f"{name} {n / window:,.0f} actions/s at its tables, CPU {c / max(1.0, n) * 1000:.3f} "
            f"ms per action of its tables, {c / accepted * 1000:.3f} ms per accepted action "
            f"(all tables)"
            for name, n, c in zip(
                names, own, [a - b for a, b in zip(cpu_after, cpu_before, strict=True)],
                strict=True,
            )
        ) + f"; all nodes {per_action:.3f} ms per accepted action")  # fmt: skip
        delta = _delta(before, after)
        publishes = delta.get("rummyhall_relay_publishes_total", 0.0)
        calls = sum(v for k, v in delta.items() if k.startswith("rummyhall_relay_calls_total{"))
        ops = {
            k.split('"')[1]: v for k, v in delta.items()
            if k.startswith("rummyhall_relay_calls_total{") and v
        }  # fmt: skip
        print(f"  relay: {publishes / accepted:.2f} publishes per accepted action "
              f"({publishes / window:,.0f}/s), {calls / accepted:.2f} relayed calls per accepted "
              f"action (" + ", ".join(f"{op} {n / accepted:.2f}" for op, n in sorted(
                  ops.items(), key=lambda item: -item[1])) + ")")  # fmt: skip
    if side and accepted > 0:
        print("  CPU per accepted action of " + ", ".join(
            f"{name} {c / accepted * 1000:.3f} ms" for name, c in side_cpu.items()
        ) + f"; everything server-side ({'nodes' if nodes else 'server'}, "
            f"{', '.join(side)}): {everything:.3f} ms")  # fmt: skip
    print(f"  machine: {os.cpu_count()} cores, load average (1 min, this run included) "
          f"{load_before:.2f} at the window's start, {load_after:.2f} at its end")  # fmt: skip
    if errors:
        print(f"  refused: {errors}")
    if failed:
        print(f"  client failures: {failed} e.g. {results[0]['failures'][:2]}")
    audit_started = time.perf_counter()
    audit = subprocess.run(
        [sys.executable, "-m", "rummyhall.cli", "audit", "--database", db],
        capture_output=True, text=True, check=False, env=_src_env(args),  # (its schema's code)
    )  # fmt: skip
    print("  audit after the run: " + ("clean" if audit.returncode == 0 else "PROBLEMS")
          + f" (the command took {time.perf_counter() - audit_started:.1f} s)")  # fmt: skip
    if audit.returncode != 0:
        print(audit.stdout + audit.stderr)
    shutil.rmtree(data, ignore_errors=True)
    if args.pin:
        os.sched_setaffinity(0, cores)
    if postgres is not None:  # after the audit
        postgres.stop()
        atexit.unregister(postgres.stop)
    ok = audit.returncode == 0 and not failed
    return {
        "tables": tables, "nodes": nodes, "rate": rate, "p50": p50, "p99": p99,
        "cpu": per_action, "side": everything, "ok": ok,
    }  # fmt: skip


def _rss(pids: list[int]) -> int:
    """The processes' resident sets in bytes, added up (0 for one that is gone)."""
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def _rss_when(pids: list[int], done: Any, deadline: float) -> int:
    """The resident sets once ``done()`` (or at ``deadline``), after a second to settle."""
    while not done() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
    return _rss(pids)


def _stat(pid: int) -> list[str]:
    """/proc/PID/stat's fields after the command's name (state first); [] if it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return []


def _cpu_seconds(pid: int) -> float:
    """CPU time (user + system) the process has used: robust to other load on the machine."""
    fields = _stat(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") if fields else 0.0


def _server_cpu(scrapes: list[dict[str, float]], read: list[float]) -> list[float]:
    """Each server's CPU seconds from its scrape, or as read from /proc (a server that does not
    report it; none for one run elsewhere, ``--url``)."""
    return [
        samples.get("process_cpu_seconds_total", read[i] if i < len(read) else 0.0)
        for i, samples in enumerate(scrapes)
    ]


def _tree(pid: int) -> list[int]:
    """The process and its descendants (nginx's workers, PostgreSQL's backends)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields:
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        found.append(todo.pop())
        todo += children.get(found[-1], [])
    return found


def _tree_cpu(pid: int) -> float:
    """CPU time of the process and its descendants, with the children each has reaped (a
    PostgreSQL backend that ended is counted in the postmaster's)."""
    total = 0
    for member in _tree(pid):
        fields = _stat(member)
        if fields:
            total += sum(int(fields[i]) for i in (11, 12, 13, 14))
    return total / os.sysconf("SC_CLK_TCK")


def _pin(pid: int, cores: list[int]) -> None:
    """Every thread of the process on ``cores``."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):  # (a thread that ended meanwhile)
            os.sched_setaffinity(int(task.name), cores)


def _scrape(url: str, data: Path) -> dict[str, float]:
    """The server's metrics (/metrics), sample by sample: name with labels -> value."""
    import httpx

    # /metrics is the operator's: the admin token from the server's data folder, or (a server
    # already running, --url) from RUMMYHALL_ADMIN_TOKEN.
    token_file = data / "admin.token"
    token = (
        token_file.read_text().strip()
        if token_file.exists()
        else os.environ.get("RUMMYHALL_ADMIN_TOKEN", "")
    )
    headers = {"Authorization": f"Bearer {token}"}
    # A server past what it can take answers late, but it answers: that is the run's figure.
    text = httpx.get(url + "/metrics", headers=headers, timeout=120).text
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            samples[name] = float(value)
    return samples


def _delta(before: list[dict[str, float]], after: list[dict[str, float]]) -> dict[str, float]:
    """The samples' growth over the window, added up over the nodes."""
    total: dict[str, float] = {}
    for b, a in zip(before, after, strict=True):
        for name, value in a.items():
            total[name] = total.get(name, 0.0) + value - b.get(name, 0.0)
    return total


def _watches(urls: list[str], folders: list[Path]) -> float:
    """Watches relayed to another node so far, all nodes."""
    key = 'rummyhall_relay_calls_total{op="watch"}'
    return sum(_scrape(u, f).get(key, 0.0) for u, f in zip(urls, folders, strict=True))


def _buckets(nodes: list[dict[str, float]], metric: str) -> dict[float, float]:
    """One of the servers' histograms, all nodes (cumulative counts by upper bound in
    seconds)."""
    buckets: dict[float, float] = {}
    for samples in nodes:
        for name, value in samples.items():
            if name.startswith(metric + "_bucket{"):
                bound = float(name.split('le="', 1)[1].split('"', 1)[0])
                buckets[bound] = buckets.get(bound, 0.0) + value
    return buckets


def _gc_pauses(delta: dict[str, float], window: float, after: list[dict[str, float]]) -> str:
    """The server's cycle-collector pauses over the window (all nodes): each stalls every table
    of its process, so they are the first suspect for a tail; and the objects kept out of its
    sight at the end (server/collector.py)."""
    parts = []
    for generation in ("0", "1", "2"):
        label = f'generation="{generation}"'
        count = delta.get(f"rummyhall_gc_pause_seconds_count{{{label}}}", 0.0)
        total = delta.get(f"rummyhall_gc_pause_seconds_sum{{{label}}}", 0.0)
        if count:
            parts.append(
                f"generation {generation} {count:,.0f} ({total * 1000 / count:.1f} ms each)"
            )
    share = sum(v for k, v in delta.items() if k.startswith("rummyhall_gc_pause_seconds_sum"))
    frozen = sum(node.get("rummyhall_gc_frozen_objects", 0.0) for node in after)
    return (
        f"cycle collector pauses (server): {', '.join(parts) or 'none'}; "
        f"{share / window * 100:.1f}% of the window; {frozen:,.0f} objects frozen at its end"
    )


def _bucket_percentile(before: dict[float, float], after: dict[float, float], share: float) -> str:
    """The upper bound of the histogram bucket holding the given share of the window's actions."""
    counts = sorted((bound, after[bound] - before.get(bound, 0.0)) for bound in after)
    total = counts[-1][1] if counts else 0.0
    for bound, count in counts:
        if total and count >= share * total:
            return "> 1000 ms" if bound == float("inf") else f"<= {bound * 1000:g} ms"
    return "n/a"


if __name__ == "__main__":
    sys.exit(main())

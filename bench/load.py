"""Load benchmark of the room server: bot clients in separate processes play Rummy Patti over
loopback WebSockets against one server process with SQLite, every action durably logged.

Each player thinks a while before acting (``--think-ms``, 400 ms on average), as people do: 500
tables then offer about 1,100 actions a second. (With no thinking at all the run measures only
saturation: every table always has an action waiting, and the latency is the number of tables
divided by the throughput, whatever the server does.)

The clients run in their own processes, one per core the server does not need (``--procs``, by
default the cores less one): the server's event loop needs a core of its own, and a second client
process on a 2-core machine only takes turns with the server on its core, which shows as
latency that is the machine's, not the server's.

Prints accepted actions/s (the server's own count over the measured window), messages/s received
by the clients, p50/p99 of the time from an action's send to its answer (the update it caused,
queued to every watcher of the table in the same step, so it bounds the broadcast) for the actions
sent in the measured window (not during the ramp, while 2,000 players sign up), the time the
table task itself spent (apply and durable commit, from the server's histogram), next to
the round trip of a bare WebSocket echo server measured in the same run (the ratio is what to
compare across machines), and the CPU the server and the client processes spent per action. Then
runs the ledger audit on the database the run left.

    python bench/load.py [--tables 500] [--seconds 30] [--ramp 60] [--procs N] [--think-ms 400]

Target (issue 5) on a 2-core machine: 500 tables (2,000+ connections), >= 1,000 actions/s,
p99 <= 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOM = "practice-patti-10-4p"  # guests play practice rooms
SEATS = 4


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


async def _player(
    url: str, number: int, window: tuple[float, float], think: float, results: dict[str, Any]
) -> None:
    import random

    from rummyhall.client import RoomClient
    from rummyhall.games.patti.bot import PattiBot

    bot = PattiBot(seed=number)
    pace = random.Random(number)
    async with RoomClient(url) as client:
        await client.guest()
        table, _ = await client.quick_seat(ROOM)
        feed = client.follow(table)
        await client.connect()
        await client.watch(table)
        try:
            # One deadline for the whole run (a timeout per message would cost a timer each).
            async with asyncio.timeout(max(0.0, window[1] - time.monotonic())):
                await _play(client, table, feed, bot, pace, think, window, results)
        except TimeoutError:
            pass


async def _play(
    client: Any,
    table: int,
    feed: Any,
    bot: Any,
    pace: Any,
    think: float,
    window: tuple[float, float],
    results: dict[str, Any],
) -> None:
    from rummyhall.client import ClientError

    while True:
        message = await feed.get()
        results["messages"] += 1
        view = message["view"]
        if not feed.empty() or view is None or message["you"] is None:
            continue
        if not any(a["seat"] == message["you"] for a in view.get("awaited", [])):
            continue
        action = bot.act(view)
        if action is None:
            continue
        if think > 0:
            # A person takes a moment before acting; if the table moved on meanwhile (a
            # timeout, a leave), look again.
            await asyncio.sleep(think * pace.uniform(0.5, 1.5))
            if not feed.empty():
                continue
        sent_at, start = time.monotonic(), time.perf_counter()
        try:
            await client.act(table, action)
        except ClientError as error:
            results["errors"][error.code] = results["errors"].get(error.code, 0) + 1
            continue
        # Only actions sent in the measured window count (not those of the ramp, when 2,000
        # players are signing up and taking seats).
        if window[0] <= sent_at:
            results["latency"].append(time.perf_counter() - start)
            results["actions"] += 1


def _client_process(
    url: str, first: int, count: int, start_at: float, stop_at: float, think: float, out: Any
) -> None:
    async def main() -> dict[str, Any]:
        results: dict[str, Any] = {"messages": 0, "actions": 0, "latency": [], "errors": {}}

        async def cpu_in_window() -> None:
            await asyncio.sleep(max(0.0, start_at - time.monotonic()))
            before = time.process_time()
            await asyncio.sleep(max(0.0, stop_at - time.monotonic()))
            results["cpu"] = time.process_time() - before

        meter = asyncio.create_task(cpu_in_window())
        # Connect gradually, then play until the end.
        tasks = []
        for n in range(first, first + count):
            tasks.append(asyncio.create_task(_player(url, n, (start_at, stop_at), think, results)))
            await asyncio.sleep(max(0.0, (start_at - time.monotonic()) / max(1, first + count - n)))
        done = await asyncio.gather(*tasks, return_exceptions=True)
        failures = [repr(d) for d in done if isinstance(d, BaseException)]
        results["failures"] = failures[:5]
        results["failed"] = len(failures)
        await meter
        return results

    # The same event loop and collector settings the server runs with (uvicorn picks uvloop when
    # it is installed; rummyhall serve collects cycles less often).
    import gc

    import uvloop

    gc.set_threshold(50_000, 50, 100)

    results = uvloop.run(main())
    out.put(results)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=500)
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
    parser.add_argument("--url", help="use a server already running here (for profiling it)")
    args = parser.parse_args()

    echo = echo_baseline()
    data = Path(tempfile.mkdtemp(prefix="rummyhall-load-"))
    port = free_port()
    url = args.url or f"http://127.0.0.1:{port}"
    db = f"sqlite+aiosqlite:///{data / 'rummyhall.db'}"
    server = subprocess.Popen(["true"]) if args.url else subprocess.Popen(
        [sys.executable, "-m", "rummyhall.cli", "serve", "--port", str(port),
         "--data-dir", str(data), "--database", db, "--no-bots", "--next-game-ms", "500",
         "--deal-ms", "0", "--log-level", "warning",
         # thousands of guests from one address: the sign-in limits would refuse most of them
         "--no-auth-limits"],
        stdout=subprocess.DEVNULL, stderr=open(data / "server.log", "wb"),  # noqa: SIM115
    )  # fmt: skip
    try:
        import httpx

        for _ in range(300):
            try:
                if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        players = args.tables * SEATS
        start_at = time.monotonic() + args.ramp
        stop_at = start_at + args.seconds
        queue: Any = multiprocessing.Queue()
        share = -(-players // args.procs)
        procs = [
            multiprocessing.Process(
                target=_client_process,
                args=(
                    url,
                    i * share,
                    min(share, players - i * share),
                    start_at,
                    stop_at,
                    args.think_ms / 1000,
                    queue,
                ),
            )
            for i in range(args.procs)
        ]
        for process in procs:
            process.start()
        # Measure the server's own count of accepted actions over the measured window only.
        time.sleep(max(0.0, start_at - time.monotonic()))
        (before, hist_before), cpu_before = _metrics(url, data), _cpu_seconds(server.pid)
        time.sleep(max(0.0, stop_at - time.monotonic()))
        (after, hist_after), cpu_after = _metrics(url, data), _cpu_seconds(server.pid)
        results = [queue.get(timeout=120) for _ in procs]
        for process in procs:
            process.join(30)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(30)

    latency = [t for r in results for t in r["latency"]]
    messages = sum(r["messages"] for r in results)
    errors: dict[str, int] = {}
    for r in results:
        for code, n in r["errors"].items():
            errors[code] = errors.get(code, 0) + n
    failed = sum(r["failed"] for r in results)
    window = args.seconds
    rate = (after - before) / window
    p50, p99 = percentile(latency, 0.5) * 1000, percentile(latency, 0.99) * 1000
    e50, e99 = statistics.median(echo) * 1000, percentile(echo, 0.99) * 1000
    print(f"load: {args.tables} Patti tables x {SEATS} players = {args.tables * SEATS} "
          f"connections, {args.procs} client processes, {window:.0f} s measured after a "
          f"{args.ramp:.0f} s ramp; players think {args.think_ms:.0f} ms on average")  # fmt: skip
    print(f"  accepted actions/s (server, all tables): {rate:,.0f}   target >= 1,000: "
          f"{'met' if rate >= 1000 else 'MISSED'}")  # fmt: skip
    print(
        f"  messages received by clients: {messages:,} ({messages / (args.ramp + window):,.0f}/s)"
    )
    print(f"  action send -> answer: p50 {p50:.1f} ms, p99 {p99:.1f} ms over {len(latency):,} "
          f"actions   target p99 <= 50 ms: {'met' if p99 <= 50 else 'MISSED'}")  # fmt: skip
    print(f"  in the table task (apply + durable commit): p50 "
          f"{_bucket_percentile(hist_before, hist_after, 0.5)}, p99 "
          f"{_bucket_percentile(hist_before, hist_after, 0.99)}")  # fmt: skip
    print(f"  baseline bare WebSocket echo round trip: p50 {e50:.2f} ms, p99 {e99:.2f} ms   "
          f"ratio p50 {p50 / e50:.1f}x, p99 {p99 / e99:.1f}x")  # fmt: skip
    if after > before and cpu_after > cpu_before:
        per_action = (cpu_after - cpu_before) / (after - before) * 1000
        print(f"  server CPU per accepted action: {per_action:.2f} ms "
              f"(a bound of {1000 / per_action:,.0f} actions/s on one free core)")  # fmt: skip
        client_cpu = sum(r.get("cpu", 0.0) for r in results)
        busy = (cpu_after - cpu_before + client_cpu) / window
        print(f"  client processes' CPU per accepted action: "
              f"{client_cpu / (after - before) * 1000:.2f} ms; cores busy with server and "
              f"clients: {busy:.2f} of {os.cpu_count()}")  # fmt: skip
    if errors:
        print(f"  refused: {errors}")
    if failed:
        print(f"  client failures: {failed} e.g. {results[0]['failures'][:2]}")
    audit = subprocess.run(
        [sys.executable, "-m", "rummyhall.cli", "audit", "--database", db],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    print("  audit after the run: " + ("clean" if audit.returncode == 0 else "PROBLEMS"))
    if audit.returncode != 0:
        print(audit.stdout + audit.stderr)
    shutil.rmtree(data, ignore_errors=True)
    return 0 if audit.returncode == 0 and not failed else 1


def _cpu_seconds(pid: int) -> float:
    """CPU time (user + system) the process has used: robust to other load on the machine."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _metrics(url: str, data: Path) -> tuple[float, dict[float, float]]:
    """The server's count of accepted actions, and its histogram of the time from an action's
    arrival at its table to its commit (cumulative counts by upper bound in seconds)."""
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
    text = httpx.get(url + "/metrics", headers=headers, timeout=10).text
    actions, buckets = 0.0, {}
    for line in text.splitlines():
        if line.startswith("rummyhall_actions_total "):
            actions = float(line.split()[1])
        elif line.startswith("rummyhall_action_seconds_bucket{"):
            bound = line.split('le="', 1)[1].split('"', 1)[0]
            buckets[float(bound)] = float(line.split()[-1])
    return actions, buckets


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

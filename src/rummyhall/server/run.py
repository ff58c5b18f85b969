"""``rummyhall serve`` and ``rummyhall admin``: starting the server, and the operator's calls to a
running one."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

import httpx

DEFAULT_DATA = Path(os.environ.get("RUMMYHALL_DATA", "data"))

DRAIN_TIMEOUT_S = 600
"""How long ``rummyhall admin drain`` waits for the node's answer (it drains meanwhile)."""


class JsonFormatter(logging.Formatter):
    """One JSON object per line (structured logs an operator can ship and query)."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry)


def protocol_options() -> dict[str, Any]:
    """uvicorn's options for the room's own protocols: ``rummyhall serve`` and the test servers
    (tests/server_kit.py) take the same."""
    from rummyhall.server.http_protocol import RoomHttpProtocol
    from rummyhall.server.socket_protocol import RoomWebSocketProtocol

    return {
        # uvicorn's HTTP protocol, which lets go of itself when it becomes a WebSocket
        "http": RoomHttpProtocol,
        # uvicorn's sans-I/O WebSocket protocol, with the tables' direct send
        "ws": RoomWebSocketProtocol,
        # Table messages are small and frequent: compressing each costs more CPU than it saves.
        "ws_per_message_deflate": False,
    }


def configure_logging(level: str) -> dict[str, Any]:
    """Log config for our loggers and uvicorn's, all as JSON lines on stderr."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": {
            "stderr": {"class": "logging.StreamHandler", "formatter": "json", "stream": sys.stderr}
        },
        "loggers": {
            "rummyhall": {"handlers": ["stderr"], "level": level.upper(), "propagate": False},
            "uvicorn": {"handlers": ["stderr"], "level": level.upper(), "propagate": False},
            "uvicorn.access": {"handlers": ["stderr"], "level": "WARNING", "propagate": False},
        },
    }


UNLIMITED_SIGN_IN: dict[str, Any] = {
    "login_client_per_minute": 1e9,
    "login_client_burst": 10**9,
    "login_account_per_minute": 1e9,
    "login_account_burst": 10**9,
    "signup_client_per_minute": 1e9,
    "signup_client_burst": 10**9,
    "hash_queue": 10**6,
}
"""The sign-in limits lifted (``rummyhall serve --no-auth-limits``): for load and browser tests,
never for a room on a network."""


def _range(text: str) -> tuple[int, int]:
    low, _, high = text.partition("-")
    return (int(low), int(high or low))


def serve(
    *,
    host: str,
    port: int,
    database: str | None,
    data_dir: Path,
    bots: bool,
    bot_wait: float,
    bot_think: str = "600-1800",
    next_game_ms: int = 6000,
    away_grace_ms: int = 20_000,
    deal_ms: int = 1500,
    tables_per_account: int = 3,
    empty_table_ms: int = 60_000,
    origins: tuple[str, ...] = (),
    secure_cookies: bool | None = None,
    allowed_hosts: tuple[str, ...] = (),
    auth_limits: bool = True,
    redis: str | None = None,
    node_id: str | None = None,
    lease_ttl_ms: int = 5_000,
    tuning: Mapping[str, Any] | None = None,
    log_level: str,
    out: TextIO,
) -> int:
    """Run the server. ``tuning``: more :class:`Settings` fields by name (the sign-in limits,
    the password pool, the session purge); ``auth_limits=False`` lifts the sign-in limits (load
    tests and browser tests sign many clients in from one address). ``redis`` and ``node_id``:
    run as one node of several (docs/cluster.md), on a PostgreSQL ``database``."""
    problem = cluster_problem(database, redis, node_id, lease_ttl_ms)
    if problem is not None:
        print(f"rummyhall serve: {problem}", file=sys.stderr)
        return 2
    import dataclasses

    import uvicorn

    from rummyhall.server import collector
    from rummyhall.server.app import create_app
    from rummyhall.server.settings import LOCAL_HOSTS, Settings
    from rummyhall.store.database import default_url

    settings = Settings(
        database_url=database or default_url(data_dir),
        data_dir=data_dir,
        bots=bots,
        bot_wait_ms=int(bot_wait * 1000),
        bot_think_ms=_range(bot_think),
        next_game_ms=next_game_ms,
        away_grace_ms=away_grace_ms,
        deal_ms=deal_ms,
        tables_per_account=tables_per_account,
        empty_table_ms=empty_table_ms,
        allowed_origins=origins,
        cookie_secure=secure_cookies,
        redis_url=redis,
        node_id=node_id if redis is not None else None,
        lease_ttl_ms=lease_ttl_ms,
        # The names this server is reached by: localhost's, the address it listens on (unless
        # that is every interface) and the --allowed-host names; --origin hosts come on top.
        allowed_hosts=(
            *LOCAL_HOSTS,
            *((host,) if host not in ("0.0.0.0", "::", "") else ()),
            *allowed_hosts,
        ),
        **dict(tuning or {}),
    )
    if not auth_limits:
        settings = dataclasses.replace(settings, **UNLIMITED_SIGN_IN)
    # The cycle collector's thresholds for a busy room (server/collector.py).
    collector.tune()
    # The SQLite commit thread (Database.write) needs the GIL back after each fsync; with the
    # event loop busy it would wait out the default 5 ms switch interval every time.
    sys.setswitchinterval(0.0002)
    where = "localhost" if host in ("127.0.0.1", "0.0.0.0") else host
    print(
        f"Rummy Hall on http://{where}:{port}"
        f"  (data: {data_dir}, database: {settings.database_url})",
        file=out,
    )
    if redis is not None:
        print(
            f"node {node_id} of several: table leases in {redis}, ttl {lease_ttl_ms} ms",
            file=out,
        )
    if "*" not in settings.allowed_hosts:
        print(f"answering for hosts: {', '.join(settings.trusted_hosts)}", file=out)
    app = create_app(settings)
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "log_config": configure_logging(log_level),
        # uvloop, accepting the connections that wait a batch at each turn (server/acceptor.py)
        "loop": "rummyhall.server.acceptor:RoomLoop",
        **protocol_options(),
        "ws_max_size": settings.max_message_bytes * 2,
    }
    if redis is None:
        uvicorn.run(app, **options)
        return 0
    # A node of several hands its tables on when SIGTERM stops it (cluster/sigterm.py).
    from rummyhall.server.cluster.sigterm import DrainingServer

    async def drain() -> int:
        handed: int = await app.state.hub.drain()  # (the hub exists once the app has started)
        return handed

    server = DrainingServer(uvicorn.Config(app, **options), drain=drain)
    with contextlib.suppress(KeyboardInterrupt):  # (SIGINT, raised again once stopped)
        server.run()
    return 0 if server.started else 3  # (3: uvicorn's code for a server that did not start)


def cluster_problem(
    database: str | None, redis: str | None, node_id: str | None, lease_ttl_ms: int
) -> str | None:
    """Why the options for one node of several do not go together (None: they do)."""
    if redis is None:
        if node_id is not None:
            return "--node-id is for a node of several: give --redis as well"
        return None
    if not redis.startswith(("redis://", "rediss://", "unix://")):
        return f"--redis takes a redis:// (or rediss://, unix://) URL, not {redis!r}"
    if database is None or not database.startswith("postgresql"):
        return (
            "several nodes share one PostgreSQL database: with --redis, give "
            "--database postgresql+asyncpg://user:password@host/db (SQLite is for one process)"
        )
    if not node_id:
        return "with --redis, give this node a name with --node-id (unique among the nodes)"
    if ":" in node_id or any(c.isspace() for c in node_id):
        return f"a node id has no ':' and no spaces: {node_id!r}"
    if lease_ttl_ms < 100:
        return f"--lease-ttl-ms must be at least 100, not {lease_ttl_ms}"
    return None


def admin(args: Any, out: TextIO) -> int:
    """Call the admin API of a running server with the token from its data folder."""
    token_file = Path(args.data_dir) / "admin.token"
    if not token_file.exists():
        print(
            f"no admin token in {token_file}: has the server run with this data folder?",
            file=sys.stderr,
        )
        return 2
    headers = {"Authorization": f"Bearer {token_file.read_text().strip()}"}
    try:
        with httpx.Client(base_url=args.url, headers=headers, timeout=30) as client:
            if args.admin_command == "grant":
                response = client.post(
                    "/api/admin/grant",
                    json={
                        "name": args.name,
                        "amount": args.amount,
                        "reason": args.reason,
                        "currency": "gold" if args.gold else "chips",
                    },
                )
            elif args.admin_command == "purchase":
                response = client.post(
                    "/api/admin/purchase",
                    json={
                        "order_id": args.order,
                        "name": args.name,
                        "gold": args.gold,
                        "reason": args.reason,
                    },
                )
            elif args.admin_command == "tables":
                response = client.get("/api/admin/tables")
            elif args.admin_command == "drain":
                # Answered once the node holds no table: a few seconds for a busy node.
                response = client.post(
                    "/api/admin/drain", json={"node": args.node}, timeout=DRAIN_TIMEOUT_S
                )
            else:
                response = client.post(f"/api/admin/tables/{args.table}/void")
    except httpx.HTTPError as error:
        print(f"cannot reach the server at {args.url}: {error}", file=sys.stderr)
        return 2
    data = response.json()
    if response.status_code >= 400:
        problem = data.get("error", {})
        print(f"error {problem.get('code')}: {problem.get('message')}", file=sys.stderr)
        return 1
    if args.admin_command == "tables":
        for table in data["tables"]:
            seats = ", ".join(
                "-" if s is None else f"{s['name']}{' (bot)' if s['bot'] else ''} {s['stack']}"
                for s in table["seats"]
            )
            state = "stuck" if table["stuck"] else "playing" if table["playing"] else "waiting"
            node = f"  node {table['node']}" if "node" in table else ""  # (several nodes)
            print(
                f"table {table['id']}{node}  {table['room']}  game {table['game_no']}  {state}"
                f"  pot {table['pot']}  [{seats}]",
                file=out,
            )
        if not data["tables"]:
            print("no live tables", file=out)
    elif args.admin_command == "grant":
        unit = "gold chips" if data["currency"] == "gold" else "silver chips"
        print(f"{data['name']} now has {data[data['currency']]} {unit}", file=out)
    elif args.admin_command == "purchase":
        done = "was recorded before: nothing changed" if data["duplicate"] else "recorded"
        print(
            f"order {data['order_id']} ({data['gold']} gold chips for {data['name']}) {done}; "
            f"{data['name']} now has {data['balance']} gold chips",
            file=out,
        )
    elif args.admin_command == "drain":
        print(
            f"node {data['node']} drained: {data['handed_on']} tables handed on to the other "
            f"nodes, {data['tables']} left; it opens no table any more (stop it now)",
            file=out,
        )
    else:
        print("voided" if data["voided"] else "no game was running", file=out)
    return 0

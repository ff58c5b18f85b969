"""The ASGI application: HTTP API, WebSocket endpoint, health and metrics, and the browser client's
files; the database and the hub of live tables live as long as the app (its lifespan)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import secrets
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated

from fastapi import FastAPI, Header, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.types import Scope

from rummyhall import catalog
from rummyhall.economy import rollover
from rummyhall.economy.ledger import InsufficientChips
from rummyhall.economy.rooms import Rooms
from rummyhall.games.protocol import GameError
from rummyhall.server import api, ws
from rummyhall.server.clock import Clock, SystemClock
from rummyhall.server.collector import Collector
from rummyhall.server.errors import RoomError
from rummyhall.server.hub import Hub
from rummyhall.server.metrics import Metrics
from rummyhall.server.open_sockets import OpenSockets
from rummyhall.server.periodic import Periodic
from rummyhall.server.settings import Settings
from rummyhall.server.signed_in import SignedIn
from rummyhall.store import accounts as store_accounts
from rummyhall.store.accounts import AccountError, HashPool, HashPoolBusy
from rummyhall.store.database import Database

log = logging.getLogger(__name__)

WEB = api.WEB
"""The browser client's files (src/rummyhall/web), served at ``/``."""

DOCS_ASSETS = "/docs-assets"
"""Where /docs loads Swagger UI's script and styles from: the copy the ``fastapi-offline``
package ships, served by the room itself, so the page works on a machine without internet."""

HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}
"""The codes of the HTTP refusals the framework makes itself (docs/protocol.md, Errors)."""


class WebFiles(StaticFiles):
    """The browser client's files. Browsers revalidate them on every load (``no-cache``; the ETag
    makes that a cheap 304), so a new version of the client is picked up as soon as it is out."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers["Cache-Control"] = "no-cache"
        return response


def admin_token(data_dir: Path) -> str:
    """The operator's token for the admin API, kept in the data folder (readable by its owner
    only); ``rummyhall admin`` reads it from there."""
    path = data_dir / "admin.token"
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600)
        path.write_text(secrets.token_urlsafe(32))
    return path.read_text().strip()


def _dump_tasks_on_signal() -> None:
    """``kill -USR1 <pid>`` logs where every task of the server is waiting (for an operator
    looking at a table that does not move)."""

    def dump() -> None:
        out = io.StringIO()
        for task in asyncio.all_tasks():
            task.print_stack(limit=12, file=out)
        log.warning("tasks on SIGUSR1:\n%s", out.getvalue())

    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, dump)


def _purge_sessions_periodically(db: Database, clock: Clock, every_ms: int) -> Periodic:
    """Expired sessions are useless (they no longer sign anyone in) but would pile up forever."""

    async def purge() -> None:
        async with db.transaction() as session:
            purged = await store_accounts.purge_sessions(session)
        if purged:
            log.info("purged %d expired sessions", purged)

    return Periodic(clock, every_ms, purge)


def _roll_seasons_periodically(db: Database, clock: Clock, settings: Settings) -> Periodic:
    """Settle the league seasons that have ended (economy/rollover.py: once, whichever server
    process gets there first)."""

    async def roll() -> None:
        for rolled in await rollover.roll_ended(db, clock.now(), settings.league_rules):
            log.info(
                "league season %d settled: %d players, %s, %d gold in prizes",
                rolled.season, rolled.players, rolled.moved, rolled.prizes,
            )  # fmt: skip

    return Periodic(clock, settings.league_check_ms, roll)


def create_app(
    settings: Settings, *, clock: Clock | None = None, rooms: Rooms | None = None
) -> FastAPI:
    catalog.games()  # every game's engine, bot and rooms loaded before the first request
    metrics = Metrics()
    clock = clock or SystemClock()
    hash_pool = HashPool(settings.hash_workers, settings.hash_queue)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        db = await Database.open(settings.database_url)
        hub = Hub(db, settings, clock, rooms or Rooms(catalog.rooms()), metrics)
        app.state.db = db
        app.state.hub = hub
        app.state.admin_token = admin_token(settings.data_dir)
        await hub.start()
        metrics.watch_gc()
        metrics.watch_loop()
        collector = Collector(clock, settings.gc_freeze_ms, settings.gc_full_ms)
        collector.start()
        purging = _purge_sessions_periodically(db, clock, settings.session_purge_ms)
        rolling = _roll_seasons_periodically(db, clock, settings)
        _dump_tasks_on_signal()
        try:
            yield
        finally:
            await collector.stop()
            metrics.unwatch_gc()
            metrics.unwatch_loop()
            await purging.stop()
            await rolling.stop()
            await hub.stop()
            await db.close()
            hash_pool.close()
            # A stopped app lets go of its room. FastAPI keeps the endpoints it has classified
            # in a module-level cache (4,096 entries), FastAPIOffline's closures over their app
            # among them, so an app object outlives its stop; what it ran must not (a test
            # process starts hundreds of servers, and kept every one of their rooms alive).
            app.state.hub = app.state.db = None

    # FastAPI's own /docs loads Swagger UI from a CDN and is blank offline; FastAPIOffline makes
    # the same app with /docs on local files. ReDoc is left out: /docs is the one API page.
    app = FastAPIOffline(
        docs_url="/docs",
        redoc_url=None,
        title="Rummy Hall",
        summary="A self-hosted multiplayer card room",
        version="0.1.0",
        lifespan=lifespan,
        static_url=DOCS_ASSETS,
    )
    app.state.settings = settings
    app.state.metrics = metrics
    app.state.hash_pool = hash_pool
    app.state.sockets = OpenSockets()
    app.state.signed_in = SignedIn()
    app.state.auth_limits = api.AuthLimits(settings, clock)
    app.add_middleware(ws.DirectSockets)  # (the first added: inside the host check below)
    if "*" not in settings.allowed_hosts:
        # A Host header we do not serve is refused (400) before any route: DNS rebinding (a page
        # on evil.example whose name points at 127.0.0.1) cannot talk to the room as its own site.
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=settings.trusted_hosts)
    app.include_router(api.router)

    def _error(status: int, code: str, message: str) -> JSONResponse:
        metrics.error(code)
        return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)

    @app.exception_handler(RoomError)
    async def room_error(request: Request, error: RoomError) -> JSONResponse:
        response = _error(error.status, error.code, error.message)
        if error.retry_after is not None:
            response.headers["Retry-After"] = str(error.retry_after)
        return response

    @app.exception_handler(HashPoolBusy)
    async def hash_pool_busy(request: Request, error: HashPoolBusy) -> JSONResponse:
        # Refused at once rather than queued: the passwords being checked finish in well under a
        # second, so a second later there is room again.
        response = _error(503, "busy", "too many sign-ins at once; try again in a moment")
        response.headers["Retry-After"] = "1"
        return response

    @app.exception_handler(GameError)
    async def game_error(request: Request, error: GameError) -> JSONResponse:
        return _error(409, error.code, error.message)

    @app.exception_handler(AccountError)
    async def account_error(request: Request, error: AccountError) -> JSONResponse:
        status = 401 if error.code == "bad_login" else 409 if error.code == "name_taken" else 400
        return _error(status, error.code, str(error))

    @app.exception_handler(InsufficientChips)
    async def chips_error(request: Request, error: InsufficientChips) -> JSONResponse:
        return _error(409, "insufficient_chips", "not enough chips")

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, error: RequestValidationError) -> JSONResponse:
        first = error.errors()[0] if error.errors() else {"msg": "invalid request"}
        where = ".".join(str(part) for part in first.get("loc", ()))
        return _error(422, "bad_request", f"{where}: {first['msg']}" if where else first["msg"])

    # FastAPI and Starlette answer their own refusals with {"detail": ...}: a body it cannot
    # parse (a RecursionError on deeply nested JSON, bytes that are not UTF-8) is a bare
    # HTTPException(400), an unknown path a 404 and a wrong method a 405. docs/protocol.md
    # promises one shape for every refusal, so these get it too, with codes of their own.
    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        detail = str(error.detail)
        if error.status_code == 400:  # only FastAPI's "error parsing the body" is a bare 400
            response = _error(422, "bad_request", f"the body cannot be read as JSON: {detail}")
        elif error.status_code in HTTP_CODES:
            response = _error(error.status_code, HTTP_CODES[error.status_code], detail)
        elif error.status_code >= 500:
            response = _error(error.status_code, "internal", detail)
        else:
            response = _error(error.status_code, "bad_request", detail)
        response.headers.update(error.headers or {})  # e.g. a 405's Allow
        return response

    # Anything else is a bug: the documented `internal` instead of Starlette's plain-text 500
    # (the exception still goes on to the server's log).
    @app.exception_handler(Exception)
    async def internal_error(request: Request, error: Exception) -> JSONResponse:
        return _error(500, "internal", "something went wrong on our side")

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, object]:
        hub: Hub = app.state.hub
        if hub.node is None:
            return {"ok": True, "tables": len(hub.tables)}
        # A node of several also says which it is, and whether it is handing its tables on.
        return {
            "ok": True,
            "tables": len(hub.tables),
            "node": hub.node.node_id,
            "draining": hub.draining,
        }

    @app.get("/metrics", include_in_schema=False)
    async def prometheus(authorization: Annotated[str | None, Header()] = None) -> Response:
        # The operator's only: the numbers tell an outsider how busy the room is and which
        # errors it sends. Prometheus sends the token with `authorization: {credentials_file}`.
        api.check_admin(app.state.admin_token, authorization)
        return Response(metrics.render(), media_type="text/plain; version=0.0.4")

    if WEB.is_dir():
        app.mount("/", WebFiles(directory=WEB, html=True), name="web")
    else:  # until the browser client is installed, the front door is the API's documentation

        @app.get("/", include_in_schema=False)
        async def front_door() -> RedirectResponse:
            return RedirectResponse("/docs")

    return app

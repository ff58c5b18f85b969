"""The HTTP API: accounts, the lobby, seats, hand history, the solver for the client's
auto-arrange button, and the operator's admin calls. Errors have one shape everywhere:
``{"error": {"code": ..., "message": ...}}`` with a stable code (docs/protocol.md)."""

from __future__ import annotations

import asyncio
import dataclasses
import hmac
import ipaddress
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import AsyncSession

from rummyhall import catalog
from rummyhall.cards import Card, CardError, parse, parse_cards, rank_text
from rummyhall.economy import (
    achievements,
    boards,
    ladder,
    leagues,
    ledger,
    rollover,
    tiers,
    wallets,
)
from rummyhall.economy.daily import bonus_day, next_midnight_ms
from rummyhall.economy.ledger import CHIPS, CURRENCIES, GOLD, PRACTICE
from rummyhall.economy.levels import Progress, silver_limit
from rummyhall.economy.wallets import WalletError
from rummyhall.games.protocol import Deal, GameError, game_class
from rummyhall.melds import Arrangement, Hint, Wilds, arrange, check, get_profile, hint
from rummyhall.server.clock import Clock
from rummyhall.server.errors import RoomError
from rummyhall.server.hub import Hub
from rummyhall.server.open_sockets import OpenSockets
from rummyhall.server.settings import Settings
from rummyhall.server.signed_in import SignedIn
from rummyhall.server.throttle import Buckets
from rummyhall.server.wire import (
    ArrangeRequest,
    AutoRebuy,
    CheckRequest,
    Credentials,
    Grant,
    NewTable,
    PasswordChange,
    Purchase,
    QuickSeat,
    Registration,
    SitRequest,
)
from rummyhall.store import accounts as store_accounts
from rummyhall.store import tables as store_tables
from rummyhall.store.accounts import Account, AccountError, HashPool
from rummyhall.store.database import Database

JSON = dict[str, Any]

MAX_ID = 2**63 - 1
"""The largest id a row can have (a signed 64-bit integer, on SQLite and PostgreSQL)."""

router = APIRouter(prefix="/api")

WEB = Path(__file__).resolve().parent.parent / "web"
"""The browser client's files; the server serves them at ``/`` (server/app.py)."""

GAMES_CACHE = "public, max-age=300"
"""``GET /api/games`` changes only when the installation's games do (a restart)."""


def _hub(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


def _db(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def _sockets(request: Request) -> OpenSockets:
    sockets: OpenSockets = request.app.state.sockets
    return sockets


def _signed_in_cache(request: Request) -> SignedIn:
    signed_in: SignedIn = request.app.state.signed_in
    return signed_in


def _pool(request: Request) -> HashPool:
    pool: HashPool = request.app.state.hash_pool
    return pool


# --- limits on signing in ------------------------------------------------------------------------


class AuthLimits:
    """The token buckets in front of login, register and guest (issue 15: 200 parallel wrong
    logins stalled everyone): per client address for each kind of call, and per account name for
    wrong passwords, which locks an account under attack for a while. And one per account for
    free refills of practice chips."""

    def __init__(self, settings: Settings, clock: Clock) -> None:
        self.login_client = Buckets(
            clock, per_minute=settings.login_client_per_minute, burst=settings.login_client_burst
        )
        self.signup_client = Buckets(
            clock, per_minute=settings.signup_client_per_minute, burst=settings.signup_client_burst
        )
        self.login_account = Buckets(
            clock,
            per_minute=settings.login_account_per_minute,
            burst=settings.login_account_burst,
        )
        self.practice_refill = Buckets(
            clock,
            per_minute=settings.practice_refills_per_hour / 60,
            burst=settings.practice_refill_burst,
        )


def _limits(request: Request) -> AuthLimits:
    limits: AuthLimits = request.app.state.auth_limits
    return limits


def client_key(request: Request) -> str:
    """Who is asking, for the limits: the peer's address (uvicorn puts a trusted local proxy's
    X-Forwarded-For there). An IPv6 client is its /64: one host is handed a whole /64, and
    counting its addresses one by one would hand it 2^64 allowances."""
    host = request.client.host if request.client else ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host or "unknown"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def _limited(wait_ms: int, what: str) -> RoomError:
    seconds = max(1, math.ceil(wait_ms / 1000))
    return RoomError("rate_limited", f"{what}; try again in {seconds} s", 429, retry_after=seconds)


def _login_allowed(request: Request, name: str) -> None:
    """Spend one of the client's login attempts, and refuse a locked account (before any
    password is checked: refusals cost no Argon2 work)."""
    limits = _limits(request)
    wait = limits.login_client.take(client_key(request))
    if wait:
        raise _limited(wait, "too many sign-in attempts from here")
    wait = limits.login_account.retry_after(name.lower())
    if wait:
        raise _limited(wait, "too many wrong passwords for this account")


def _wrong_password(request: Request, name: str) -> None:
    _limits(request).login_account.take(name.lower())


def _signup_allowed(request: Request) -> None:
    wait = _limits(request).signup_client.take(client_key(request))
    if wait:
        raise _limited(wait, "too many new accounts from here")


async def current_account(request: Request) -> Account:
    """The signed-in account (from the session cookie); 401 ``not_signed_in`` otherwise."""
    account = await account_of(request.app, request.cookies)
    if account is None:
        raise RoomError("not_signed_in", "sign in first", 401)
    return account


async def account_of(app: Any, cookies: Mapping[str, str]) -> Account | None:
    """The account signed in with these cookies (None: none), remembered a while for the next
    request (server/signed_in.py)."""
    token = cookies.get(app.state.settings.cookie_name)
    if not token:
        return None
    signed_in: SignedIn = app.state.signed_in
    account = signed_in.get(token)
    if account is None:
        mark = signed_in.mark()
        async with app.state.db.read() as session:
            account = await store_accounts.session_account(session, token)
        if account is not None:
            signed_in.put(token, account, mark)
    return account


Me = Annotated[Account, Depends(current_account)]


def _wallet_error(error: WalletError) -> RoomError:
    status = 403 if error.code == "practice_only" else 409
    return RoomError(error.code, error.message, status)


async def _me_json(session: AsyncSession, request: Request, account: Account) -> JSON:
    """The account and its wallets: ``chips`` (real chips; a guest holds none), ``practice``
    (practice chips), ``currencies`` (what it may play with) and ``practice_refill`` (whether a
    free refill of practice chips would be granted now)."""
    data = await _wallets_json(request, account, await wallets.balances(session, account))
    if not account.is_guest:
        data["ladder"] = await _ladder_json(session, account.id, _hub(request).clock.now())
    return data


async def _wallets_json(request: Request, account: Account, held: Mapping[str, int]) -> JSON:
    """:func:`_me_json` but the ladder, from the balances of the account's wallets."""
    practice = held.get(PRACTICE.key, 0)
    at_tables = await _hub(request).chips_at_tables(account.id, PRACTICE)
    data: JSON = {
        "id": account.id,
        "name": account.name,
        "guest": account.is_guest,
        "chips": held.get(CHIPS.key, 0),
        "gold": held.get(GOLD.key, 0),
        "practice": practice,
        "currencies": list(held),
        "practice_refill": practice + at_tables < _settings(request).practice_refill_below,
    }
    return data


async def _ladder_json(session: AsyncSession, account_id: int, now_ms: int) -> JSON:
    """Where a player stands on the ladder: level, title, clover towards the next level, the
    silver limit, the overall rating and whether today's daily bonus is still to claim."""
    climb = await ladder.climb(session, account_id)
    progress = Progress.of(climb.clover)
    line = await boards.line(session, ladder.ALL, account_id)
    claimed = climb.bonus_day is not None and climb.bonus_day >= bonus_day(now_ms)
    return {
        "level": progress.level.number,
        "title": progress.level.title,
        "clover": progress.clover,
        "into_level": progress.into_level,
        "to_next": progress.level.to_next,
        "next_title": progress.next_title,
        "next_title_level": progress.next_title_level,
        "silver_limit": silver_limit(progress.level.number),
        "games": 0 if line is None else line.games,
        "rating": None if line is None else line.rating,
        "bonus_available": not claimed,
        "bonus_streak": climb.bonus_streak,
        "next_bonus_at": next_midnight_ms(now_ms),
    }


async def _sign_in(
    session: AsyncSession, request: Request, response: Response, account: Account
) -> JSON:
    """Open a login session for ``account`` (in the caller's transaction: a new account and its
    first session are one commit) and set its cookie. The session the browser had is ended: a
    new token on every sign-in, so a token planted or seen before it (session fixation) is
    worth nothing afterwards."""
    old = request.cookies.get(_settings(request).cookie_name)
    token = await session.run_sync(lambda sync: _new_session_on(sync.connection(), account, old))
    return await _signed_in(session, request, response, account, token)


def _new_session_on(conn: Connection, account: Account, old: str | None) -> str:
    """:func:`_sign_in`'s writes on a plain connection: the old session ended, a new one."""
    if old:
        store_accounts.end_session_on(conn, old)
    return store_accounts.create_session_on(conn, account.id)


async def _signed_in(
    session: AsyncSession, request: Request, response: Response, account: Account, token: str
) -> JSON:
    """The new session's cookie set, and the account as ``GET /api/me`` shows it."""
    _set_session(request, response, account, token)
    return await _me_json(session, request, account)


def _set_session(request: Request, response: Response, account: Account, token: str) -> None:
    """The new session's cookie set, and remembered as the account's."""
    settings = _settings(request)
    old = request.cookies.get(settings.cookie_name)
    cache = _signed_in_cache(request)
    if old:
        cache.forget(old)  # (ended with the new session's writes)
    cache.put(token, account, cache.mark())  # its first requests follow at once
    response.set_cookie(
        settings.cookie_name,
        token,
        max_age=30 * 24 * 3600,
        httponly=True,
        samesite="lax",
        secure=settings.secure_cookies,
        path="/",
    )


# --- accounts ----------------------------------------------------------------------------------


@router.post("/register", status_code=201)
async def register(body: Registration, request: Request, response: Response) -> JSON:
    """Create an account (with starting chips and practice chips) and sign in; ``invited_by``
    names the player whose invite link brought it (``unknown_account``, 404, if there is no such
    player: a typo should not go unnoticed)."""
    _signup_allowed(request)
    settings = _settings(request)
    async with _db(request).transaction() as session:
        inviter = None
        if body.invited_by is not None:
            inviter = await store_accounts.find_account(session, body.invited_by)
            if inviter is None or inviter.is_guest or inviter.is_bot:
                raise RoomError("unknown_account", f"no player is called {body.invited_by!r}", 404)
        account = await store_accounts.register(
            session, body.name, body.password, pool=_pool(request)
        )
        if inviter is not None:
            await achievements.record_invite(session, account.id, inviter.id)
        await wallets.open_wallets(
            session,
            account,
            silver=settings.starting_silver,
            gold=settings.starting_gold,
            practice=settings.practice_chips,
        )
        return await _sign_in(session, request, response, account)


@router.post("/login")
async def login(body: Credentials, request: Request, response: Response) -> JSON:
    _login_allowed(request, body.name)
    # A read session: the slow password check must not hold up the writers.
    try:
        async with _db(request).read() as session:
            account = await store_accounts.authenticate(
                session, body.name, body.password, pool=_pool(request)
            )
    except AccountError as error:
        if error.code == "bad_login":
            _wrong_password(request, body.name)
        raise
    async with _db(request).transaction() as session:
        return await _sign_in(session, request, response, account)


@router.post("/password")
async def change_password(body: PasswordChange, account: Me, request: Request) -> JSON:
    """A new password, given the current one; every other session of the account ends (whoever
    knew the old password is signed out), this one goes on."""
    _login_allowed(request, account.name)  # the old password must not be guessable here either
    store_accounts.check_password(body.new)
    pool = _pool(request)
    # The slow parts (check the old, hash the new) hold no lock; then one short write.
    try:
        async with _db(request).read() as session:
            await store_accounts.check_account_password(session, account.id, body.old, pool=pool)
    except AccountError as error:
        if error.code == "bad_login":
            _wrong_password(request, account.name)
        raise
    password_hash = await store_accounts.hash_password(body.new, pool=pool)
    keep = request.cookies.get(_settings(request).cookie_name)
    async with _db(request).transaction() as session:
        await store_accounts.set_password_hash(session, account.id, password_hash)
        ended = await store_accounts.end_other_sessions(session, account.id, keep)
    _signed_in_cache(request).forget_account(account.id, keep=keep)
    await _sockets(request).end(account.id, keep=keep)
    return {"ok": True, "ended_sessions": ended}


@router.post("/guest", status_code=201)
async def guest(request: Request, response: Response) -> JSON:
    """Play without registering: a guest account with practice chips (and no real chips, ever:
    a guest plays in practice rooms only)."""
    _signup_allowed(request)
    settings = _settings(request)
    old = request.cookies.get(settings.cookie_name)

    # Shared work for the table writer, not a transaction of its own: a burst of guests arriving
    # together (a link shared in a chat) shares commits (one disk flush for many sign-ups) and
    # statements (the accounts, their chips and their sessions, each one statement for the
    # whole batch). (On PostgreSQL, in transactions of their own beside the writer's, a burst
    # of 1,000 guests took longer: every sign-up changes the practice mint's balance row, and
    # they queued for its lock; as the writer's work of each guest on its own, six round
    # trips each, they took the writer seconds, and the quick seats queued behind them.)
    arrival = GuestArrival(old, settings.practice_chips)
    account, token, held = await _hub(request).writer.write(shared=(sign_up_guests, arrival))
    # A guest has no ladder: what GET /api/me shows is the wallets just opened.
    _set_session(request, response, account, token)
    return await _wallets_json(request, account, held)


@dataclasses.dataclass(frozen=True, slots=True)
class GuestArrival:
    """A guest's sign-up, as the writer's shared work takes it: the session cookie it came with
    (ended), and the practice chips it gets."""

    old_token: str | None
    practice: int


def sign_up_guests(
    conn: Connection, arrivals: Sequence[GuestArrival]
) -> list[tuple[Account, str, dict[str, int]]]:
    """Every guest of a batch of sign-ups: its account, session token and wallets."""
    accounts = store_accounts.create_guests_on(conn, len(arrivals))
    held: dict[int, dict[str, int]] = {}
    for practice in {arrival.practice for arrival in arrivals}:  # (one: the server's setting)
        given = [
            a for a, arrival in zip(accounts, arrivals, strict=True) if arrival.practice == practice
        ]
        opened = wallets.open_many_wallets_on(conn, given, practice=practice)
        held.update(zip((account.id for account in given), opened, strict=True))
    store_accounts.end_sessions_on(conn, [a.old_token for a in arrivals if a.old_token])
    tokens = store_accounts.create_sessions_on(conn, [account.id for account in accounts])
    return [
        (account, token, held[account.id]) for account, token in zip(accounts, tokens, strict=True)
    ]


@router.get("/session")
async def session_probe(request: Request) -> JSON:
    """Whether this browser is signed in, answered 200 either way: the client asks on every page
    load, and a 401 there would put an error in a signed-out visitor's console."""
    account = await account_of(request.app, request.cookies)
    if account is None:
        return {"signed_in": False}
    return {"signed_in": True, "name": account.name, "guest": account.is_guest}


@router.post("/logout")
async def logout(request: Request, response: Response) -> JSON:
    settings = _settings(request)
    token = request.cookies.get(settings.cookie_name)
    if token:
        async with _db(request).transaction() as session:
            account = await store_accounts.session_account(session, token)
            await store_accounts.end_session(session, token)
        _signed_in_cache(request).forget(token)
        if account is not None:
            await _sockets(request).end(account.id, token=token)
    response.delete_cookie(settings.cookie_name, path="/")
    return {"ok": True}


@router.get("/me")
async def me(account: Me, request: Request) -> JSON:
    async with _db(request).read() as session:
        data = await _me_json(session, request, account)
    data["tables"] = [
        {
            "table": info["id"],
            "seat": seat,
            "room": info["room"],
            "game": info["game"],
            "title": info["title"],
            "currency": info["currency"],
            "playing": info["playing"],
        }
        for info, seat in await _hub(request).seats_of(account.id)
    ]
    return data


# --- lobby ---------------------------------------------------------------------------------------


@router.post("/practice/refill")
async def practice_refill(account: Me, request: Request) -> JSON:
    """A free refill of practice chips, back up to the starting amount, when the practice chips
    the account holds (wallet and seats) are low: ``refill_not_needed`` (409) otherwise, and
    ``rate_limited`` (429) past a few an hour. Practice chips are worth nothing, but each refill
    is a write: it is limited per account, and a refusal that needs no refill is answered from a
    read, without taking the write lock."""
    settings, hub = _settings(request), _hub(request)
    below = settings.practice_refill_below
    wallet = PRACTICE.wallet(account.id)
    at_tables = await hub.chips_at_tables(account.id, PRACTICE)
    async with _db(request).read() as session:
        held = await ledger.balance(session, wallet) + at_tables
    if held >= below:
        raise RoomError(
            "refill_not_needed",
            f"you hold {held} practice chips: refills are for fewer than {below}",
            409,
        )
    wait = _limits(request).practice_refill.take(str(account.id))
    if wait:
        raise _limited(wait, "you had a refill a moment ago")
    try:
        async with _db(request).transaction() as session:
            practice = await wallets.refill_practice(
                session,
                account.id,
                at_tables=at_tables,
                to=settings.practice_chips,
                below=below,
            )
    except WalletError as error:
        raise _wallet_error(error) from error
    return {"practice": practice}


@router.post("/daily-bonus")
async def claim_daily_bonus(account: Me, request: Request) -> JSON:
    """Today's daily bonus of silver chips, part by part, with what the silver limit cut off:
    ``bonus_claimed`` (409) when today's is paid already (days turn at midnight in Berlin),
    ``practice_only`` (403) for a guest."""
    if account.is_guest:
        raise RoomError("practice_only", "sign up to collect the daily bonus", 403)
    now = _hub(request).clock.now()
    try:
        async with _db(request).transaction() as session:
            bonus = await ladder.claim_daily(session, account.id, now)
    except ladder.BonusClaimed as error:
        raise RoomError(error.code, str(error), 409) from error
    return {**bonus.to_json(), "next_bonus_at": next_midnight_ms(now)}


_MONTH_BOARD = re.compile(r"month:[0-9]{4}-(0[1-9]|1[0-2])")
_LEAGUE_BOARD = re.compile(r"league:[0-9]{1,6}:([a-z]+)")


def _board(name: str) -> str:
    """A board's name checked: ``all``, ``game:<a game of the catalog>``, ``month:<yyyy-mm>``
    (``unknown_board``, 404, otherwise)."""
    league = _LEAGUE_BOARD.fullmatch(name)
    known = (
        name == ladder.ALL
        or _MONTH_BOARD.fullmatch(name) is not None
        or (league is not None and league.group(1) in leagues.LEAGUES)
    )
    if name.startswith("game:"):
        known = name.removeprefix("game:") in catalog.names()
    if not known:
        raise RoomError("unknown_board", f"there is no leaderboard {name!r}", 404)
    return name


async def _board_page(
    session: AsyncSession, board: str, account: Account | None, after: str | None, limit: int
) -> JSON:
    """A page of ``board`` as the API answers it: ``lines``, ``next`` (the cursor of the next
    page, None on the last) and ``me`` (the signed-in player's own line)."""
    try:
        lines = await boards.page(session, board, after=after, limit=limit)
    except boards.BadCursor as error:
        raise RoomError(error.code, str(error), 400) from error
    mine = None if account is None else await boards.line(session, board, account.id)
    full = len(lines) == max(1, min(boards.PAGE_MAX, limit))
    return {
        "lines": [found.to_json() for found in lines],
        "next": lines[-1].cursor if lines and full else None,
        "me": None if mine is None else mine.to_json(),
    }


@router.get("/leaderboard")
async def leaderboard(
    request: Request, board: str = ladder.ALL, after: str | None = None, limit: int = 20
) -> JSON:
    """A page of a leaderboard (``all``, ``game:<name>``, ``month:<yyyy-mm>``,
    ``league:<season>:<league>``), best first: rated
    players by rating, then games played; ``next`` continues it (pass it as ``after``). A
    signed-in player's own line (``me``, with its rank) comes with every page, on it or not."""
    name = _board(board)
    account = await account_of(request.app, request.cookies)
    async with _db(request).read() as session:
        page = await _board_page(session, name, account, after, limit)
        rated = await boards.rated(session, name)
    return {"board": name, "rated": rated, **page}


@router.get("/league")
async def league(
    request: Request, league: str | None = None, after: str | None = None, limit: int = 50
) -> JSON:
    """The current league season: when it ends, the rules of every league, and a page of one
    league's table (``league``; default the signed-in player's own, else the lowest), with the
    player's own league, line and last season's outcome."""
    now = _hub(request).clock.now()
    season = leagues.season_of(now)
    account = await account_of(request.app, request.cookies)
    async with _db(request).read() as session:
        standing = None if account is None else await rollover.league_standing(session, account.id)
        shown = league or (standing.league if standing and standing.league else leagues.LEAGUES[0])
        if shown not in leagues.LEAGUES:
            raise RoomError("unknown_league", f"there is no league {shown!r}", 404)
        board = leagues.league_board(season, shown)
        page = await _board_page(session, board, account, after, limit)
    rules = _settings(request).league_rules
    return {
        "season": season,
        "ends_at": leagues.season_start_ms(season + 1),
        "min_games": rules.min_games,
        "leagues": [
            {"key": key, "name": tiers.tier(key).name, **dataclasses.asdict(rules.rule(key))}
            for key in leagues.LEAGUES
        ],
        "league": shown,
        "board": board,
        **page,
        "yours": None if standing is None else standing.league,
        "last": None if standing is None or standing.last is None else standing.last,
    }


@router.get("/achievements")
async def achievements_page(account: Me, request: Request) -> JSON:
    """The achievements catalogue with what the player has earned, and their invitations: the
    name others register with (``invited_by``; the browser's link is ``/#/join/<name>``), how
    many they invited and for how many they were paid."""
    if account.is_guest:
        raise RoomError("practice_only", "sign up to earn achievements", 403)
    async with _db(request).read() as session:
        earned = await achievements.earned(session, account.id)
        invited, paid = await achievements.invited(session, account.id)
    return {
        "achievements": [
            {
                "key": found.key,
                "title": found.title,
                "description": found.description,
                "gold": found.gold,
                "earned_at": earned[found.key].isoformat() if found.key in earned else None,
            }
            for found in achievements.CATALOGUE
        ],
        "invite": {
            "invited_by": account.name,
            "invited": invited,
            "paid": paid,
            "gold": achievements.INVITE_GOLD,
            "games": achievements.INVITE_GAMES,
            "most": achievements.INVITES_PAID,
        },
    }


@router.get("/games")
async def games(response: Response) -> JSON:
    """The installation's games, in lobby order, with what the browser client needs to show each
    one without naming it: its view module, its style sheet, its names (docs/protocol.md)."""
    response.headers["Cache-Control"] = GAMES_CACHE
    return {"games": [_game_json(plugin) for plugin in catalog.games()]}


def _game_json(plugin: catalog.GamePlugin) -> JSON:
    return {
        "name": plugin.name,
        "title": plugin.title,
        "label": plugin.label,
        "blurb": plugin.blurb,
        "view": f"/{plugin.web_view}",
        "style": f"/{plugin.web_style}" if (WEB / plugin.web_style).is_file() else None,
        "order": plugin.order,
    }


@router.get("/rooms")
async def rooms(request: Request) -> JSON:
    """The games and their rooms; ``currencies`` says what each room's chips are, ``tiers``
    what each room's tier is (which level opens it, its clover multiplier)."""
    hub = _hub(request)
    return {
        "games": hub.rooms.games(),
        "rooms": [room.to_json() for room in hub.rooms],
        "currencies": {
            key: {"label": found.label, "real": found.real} for key, found in CURRENCIES.items()
        },
        "tiers": [tier.to_json() for tier in tiers.TIERS],
    }


@router.get("/tables")
async def tables(request: Request, room: str | None = None) -> JSON:
    return {"tables": await _hub(request).lobby(room)}


@router.post("/tables", status_code=201)
async def create_table(body: NewTable, account: Me, request: Request) -> JSON:
    hub = _hub(request)
    await hub.admit(hub.room(body.room), account.id, guest=account.is_guest)
    actor = await hub.create_table(body.room, private=body.private, creator=account.id)
    return {"table": actor.info(), "invite": actor.invite}


@router.get("/tables/{table_id}")
async def table(table_id: int, request: Request) -> JSON:
    """A table's public state; a private table only for those who may reach it (signed in)."""

    async def asking() -> int | None:  # (read only for a private table)
        account = await account_of(request.app, request.cookies)
        return None if account is None else account.id

    return {"table": await _hub(request).info(table_id, asking)}


@router.get("/invites/{code}")
async def invite(code: str, account: Me, request: Request) -> JSON:
    """The table of an invite; the account may reach it by its id from now on."""
    return {"table": await _hub(request).by_invite(code, account.id)}


@router.post("/tables/{table_id}/sit")
async def sit(table_id: int, body: SitRequest, account: Me, request: Request) -> JSON:
    seat, _ = await _hub(request).sit(
        account.id,
        account.name,
        table_id,
        guest=account.is_guest,
        another=body.another,
        seat=body.seat,
        buy_in=body.buy_in,
        auto_rebuy=body.auto_rebuy,
    )
    return {"table": table_id, "seat": seat}


@router.post("/tables/{table_id}/auto-rebuy")
async def auto_rebuy(table_id: int, body: AutoRebuy, account: Me, request: Request) -> JSON:
    await _hub(request).set_auto_rebuy(table_id, account.id, body.on)
    return {"table": table_id, "auto_rebuy": body.on}


@router.post("/tables/{table_id}/leave")
async def leave(table_id: int, account: Me, request: Request) -> JSON:
    later, _ = await _hub(request).leave(table_id, account.id)
    return {"table": table_id, "after_game": later}


@router.post("/quick-seat")
async def quick_seat(body: QuickSeat, account: Me, request: Request) -> JSON:
    hub = _hub(request)
    await hub.admit(hub.room(body.room), account.id, guest=account.is_guest)
    table_id, seat = await hub.quick_seat(
        account.id, account.name, body.room, another=body.another, auto_rebuy=body.auto_rebuy
    )
    return {"table": table_id, "seat": seat}


# --- history -------------------------------------------------------------------------------------


@router.get("/hands")
async def hands(account: Me, request: Request, limit: int = 20) -> JSON:
    async with _db(request).read() as session:
        found = await store_tables.recent_hands(session, account.id, limit=max(1, min(limit, 100)))
    return {
        "hands": [
            {
                "id": hand.id,
                "table": hand.table_id,
                "game": hand.game,
                "seat": hand.seat,
                "game_no": hand.game_no,
                "finished_at": hand.finished_at.isoformat(),
            }
            for hand in found
        ]
    }


async def _own_hand(request: Request, account: Account, hand_id: int) -> store_tables.HandRow:
    """A finished game the account played in (else unknown_hand: others' games do not exist)."""
    if not 0 < hand_id <= MAX_ID:  # (the databases refuse larger numbers: that was `internal`)
        raise RoomError("unknown_hand", f"you have no game {hand_id}", 404)
    async with _db(request).read() as session:
        row = await store_tables.get_hand(session, hand_id)
    if row is None or account.id not in row.players.values():
        raise RoomError("unknown_hand", f"you have no game {hand_id}", 404)
    return row


@router.get("/hands/{hand_id}")
async def hand(hand_id: int, account: Me, request: Request) -> JSON:
    """A finished game's record (with the revealed shuffle seeds), for the players who played it."""
    row = await _own_hand(request, account, hand_id)
    return {"id": row.id, "record": row.record}


# --- the replay viewer: GET /api/hands/{id}/replay -----------------------------------------------


def _replay_steps(record: Mapping[str, Any], seat: int) -> list[JSON]:
    """The game as ``seat`` saw it, step by step: the engine's view for that seat at the start and
    after every recorded action, with the action, who took it and the events that seat may see.
    The record is replayed through the engine, so the rules stay in Python and the browser only
    draws views."""
    game = game_class(str(record["game"])).create(record["config"])
    steps: list[JSON] = [
        {"step": 0, "seat": None, "action": None, "at": None, "events": [], "view": game.view(seat)}
    ]
    for number, entry in enumerate(record["actions"], 1):
        deal = Deal.from_json(entry["deal"]) if "deal" in entry else None
        events = game.apply(int(entry["seat"]), str(entry["action"]), int(entry["at"]), deal=deal)
        shown: list[JSON] = []
        for event in events:
            if event.visible_to(seat):
                data: JSON = {"kind": event.kind, "data": dict(event.data)}
                if event.postings:
                    data["postings"] = [
                        {"account": p.account, "amount": p.amount} for p in event.postings
                    ]
                shown.append(data)
        steps.append(
            {
                "step": number,
                "seat": int(entry["seat"]),
                "action": str(entry["action"]),
                "at": int(entry["at"]),
                "events": shown,
                "view": game.view(seat),
            }
        )
    return steps


@router.get("/hands/{hand_id}/replay")
async def hand_replay(hand_id: int, account: Me, request: Request) -> JSON:
    """A finished game step by step as the asking player saw it (players of that game only)."""
    row = await _own_hand(request, account, hand_id)
    seat = min(s for s, owner in row.players.items() if owner == account.id)
    # Who sat where (public at the table while it played), so the viewer can name the seats.
    async with _db(request).read() as session:
        owners = {s: await store_accounts.get_account(session, a) for s, a in row.players.items()}
    try:
        # Replaying a long game takes a moment: off the event loop, which serves the tables.
        steps = await asyncio.to_thread(_replay_steps, row.record, seat)
    except (GameError, ValueError, KeyError, TypeError) as error:
        raise RoomError("internal", f"game {hand_id} cannot be replayed: {error}", 500) from error
    return {
        "id": row.id,
        "game": row.game,
        "seat": seat,
        "config": row.record.get("config"),
        "result": row.record.get("result"),
        "players": [
            {"seat": s, "name": owner.name, "bot": owner.is_bot}
            for s, owner in sorted(owners.items())
            if owner is not None
        ],
        "steps": steps,
    }


# --- tools ---------------------------------------------------------------------------------------


@router.post("/arrange")
async def arrange_hand(body: ArrangeRequest) -> JSON:
    """The best arrangement of a hand (the client's auto-arrange button)."""
    try:
        cards = parse_cards(body.hand)
        joker = parse(body.joker)
    except CardError as error:
        raise RoomError("invalid_cards", str(error)) from error
    if not 13 <= len(cards) <= 22:
        raise RoomError("invalid_cards", "a hand has 13 to 22 cards")

    def solve() -> tuple[Arrangement, Hint]:
        best = arrange(cards, joker=joker, profile=body.profile)
        return best, hint(cards, joker=joker, profile=body.profile)

    try:
        # A hint is bounded but may still take milliseconds on a Marriage hand: off the event
        # loop, so one slow hand never stalls the other tables. (Pure functions; their caches
        # are plain dicts, safe to share between threads under the GIL.)
        best, advice = await asyncio.to_thread(solve)
    except ValueError as error:
        raise RoomError("bad_request", str(error)) from error
    return {
        "groups": [[str(card) for card in group] for group in best.groups],
        "kinds": [str(kind.value) for kind in best.kinds],
        "leftover": [str(card) for card in best.leftover],
        "penalty": best.penalty,
        "declarable": best.declarable,
        "discard": None if best.discard is None else str(best.discard),
        # The beginner's view (docs/melds.md, "Hints"): every card in a labelled group.
        "hint": {
            "groups": [
                {
                    "cards": [str(card) for card in group.cards],
                    "role": str(group.role.value),
                    "kind": str(group.kind.value),
                    "label": group.label,
                    "needs": [str(card) for card in group.needs],
                }
                for group in advice.groups
            ],
            "distance": advice.distance,
            "discard": None if advice.discard is None else str(advice.discard),
            "reason": advice.reason,
            "summary": advice.summary,
            # Marriage: how far each winning shape is (empty for the 13-card profiles).
            "shapes": [
                {"name": shape.name, "cards": shape.cards, "label": shape.label}
                for shape in advice.shapes
            ],
        },
    }


# --- live group labels: POST /api/check -------------------------------------------------------


def _cut_card(text: str) -> Card:
    """The deal's cut card, or a bare wild rank (``"5"``, ``"A"``) taken as that rank in spades."""
    try:
        return parse(text)
    except CardError:
        return parse(text + "S")


@router.post("/check")
async def check_groups(body: CheckRequest) -> JSON:
    """Judge a player's own grouping, for the client's live group labels (docs/melds.md): each
    group's kind and card points and whether they count, the hand's score shown as it is, whether
    it is a declaration (and why not)."""
    try:
        profile = get_profile(body.profile)
    except ValueError as error:
        raise RoomError("bad_request", str(error)) from error
    try:
        joker = _cut_card(body.joker)
        groups = [[parse(text) for text in group] for group in body.groups]
    except CardError as error:
        raise RoomError("invalid_cards", str(error)) from error
    if not groups or not all(groups):
        raise RoomError("invalid_cards", "give one or more groups, each with one card or more")
    verdict = check(groups, joker=joker, profile=profile)
    return {
        "groups": [
            {
                "cards": [str(card) for card in group.cards],
                "kind": str(group.kind.value),
                "meld": group.kind.is_meld,
                "points": group.points,
                "counted": group.counted,
            }
            for group in verdict.groups
        ],
        "requirement": verdict.requirement,
        "score": verdict.score,
        "declarable": verdict.declarable,
        "reason": verdict.reason,
        "wild_rank": rank_text(Wilds.of(joker, profile).wild_rank),
    }


# --- admin ---------------------------------------------------------------------------------------


def _admin(request: Request, authorization: Annotated[str | None, Header()] = None) -> None:
    check_admin(request.app.state.admin_token, authorization)


def check_admin(token: str, authorization: str | None) -> None:
    """403 ``forbidden`` unless ``Authorization: Bearer <the operator's token>``."""
    given = (authorization or "").removeprefix("Bearer ").strip()
    if not given or not hmac.compare_digest(given.encode(), token.encode()):
        raise RoomError("forbidden", "an administrator token is needed", 403)


Admin = Annotated[None, Depends(_admin)]


async def _named_account(session: AsyncSession, name: str) -> Account:
    account = await store_accounts.find_account(session, name)
    if account is None:
        raise RoomError("unknown_account", f"there is no account {name!r}", 404)
    return account


@router.post("/admin/grant")
async def admin_grant(body: Grant, _: Admin, request: Request) -> JSON:
    """Give a player silver chips, or gold chips with ``"currency": "gold"`` (minted). Not to a
    guest, which holds practice chips only (``practice_only``). The answer names the wallet's
    new balance under the currency's key."""
    currency = CURRENCIES[body.currency]
    async with _db(request).transaction() as session:
        account = await _named_account(session, body.name)
        try:
            held = await wallets.grant(
                session, account, body.amount, currency=currency, reason=body.reason
            )
        except WalletError as error:
            raise _wallet_error(error) from error
    return {"name": account.name, "currency": currency.key, currency.key: held}


@router.post("/admin/purchase")
async def admin_purchase(body: Purchase, _: Admin, request: Request) -> JSON:
    """The operator's shop reports an order: mint its gold into the account's gold wallet, once
    per order id (the ledger key ``purchase:<order_id>``). The same order again changes nothing
    and answers ``"duplicate": true``; the order id with another account or amount is
    ``order_conflict`` (409); a guest ``practice_only`` (403)."""
    async with _db(request).transaction() as session:
        account = await _named_account(session, body.name)
        try:
            bought = await wallets.purchase(
                session, account, body.order_id, body.gold, reason=body.reason
            )
        except WalletError as error:
            raise _wallet_error(error) from error
    return {
        "order_id": bought.order_id,
        "name": account.name,
        "gold": bought.gold,
        "balance": bought.balance,
        "duplicate": bought.duplicate,
    }


@router.get("/admin/tables")
async def admin_tables(_: Admin, request: Request) -> JSON:
    return {"tables": await _hub(request).admin_tables()}


@router.post("/admin/tables/{table_id}/void")
async def admin_void(table_id: int, _: Admin, request: Request) -> JSON:
    """End a stuck game; the chips its pot holds go back to the seats that paid them."""
    return {"table": table_id, "voided": await _hub(request).void(table_id)}


class Drain(BaseModel):
    """``POST /api/admin/drain``: the node the operator means to drain (this one, or nothing
    happens: several nodes sit behind one address, and a drain is for a node, not a URL)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    node: Annotated[str, Field(min_length=1, max_length=200)]


@router.post("/admin/drain")
async def admin_drain(body: Drain, _: Admin, request: Request) -> JSON:
    """Drain this node of several (docs/cluster.md, "Draining a node"): it opens and takes over
    no table any more, and hands each of its tables on to the other nodes between two actions;
    answered once it holds no table. 409 ``wrong_node`` if this node is not ``node`` (nothing
    changes), 409 ``not_a_node`` for a single process. ``GET /healthz`` says ``"draining":
    true`` from then on; SIGTERM then stops the process."""
    hub = _hub(request)
    node = hub.node
    if node is not None and body.node != node.node_id:
        raise RoomError(
            "wrong_node", f"this is node {node.node_id!r}, not {body.node!r}: nothing was drained",
            409,
        )  # fmt: skip
    handed = await hub.drain()  # (not_a_node for a single process)
    assert node is not None
    return {
        "node": node.node_id,
        "draining": hub.draining,
        "handed_on": handed,
        "tables": len(hub.tables),
    }

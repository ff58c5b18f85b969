"""The chips ledger: double-entry, idempotent, never overdrawn (DESIGN.md, principle 5).

Every movement of chips is one *transaction* of *postings* (account, amount) that sum to zero.
A transaction carries an idempotency key, unique in the database: a movement written again (a
retried request, a table replaying its log after a crash) finds its key and changes nothing.
Balances are kept on the accounts and updated in the same SQL statements that check them, so two
concurrent spends of the same chips cannot both succeed.

Account names:

- ``player:<account_id>``: a player's wallet;
- ``table:<table_id>:seat:<n>``: the chips the player in seat n has brought to a table (the
  engine's ``seat:n``), ``table:<table_id>:pot``: the table's pot (the engine's ``pot``);
- ``house``: rake and fees; ``mint``: where chips come from (the only account that goes below
  zero: minus the chips ever created); ``burn``: where chips go to be destroyed (it only receives).

Those are the accounts of the real chips, the silver chips of the room (issue 19). Other
*currencies* (:class:`Currency`: the gold chips of the ladder and of purchases, and the practice
chips guests play with) have their own wallets (``gold:<account_id>``, ``practice:<account_id>``),
mint (``mint:gold``, ``mint:practice``, which go below zero like ``mint``), house and burn; a table
plays with one currency (its room's), so its seat and pot accounts belong to that currency. A
transfer never mixes two currencies, so each is conserved on its own: chips of one can never
become chips of another.

All functions take the caller's ``AsyncSession``, so that a transfer is committed (or rolled back)
with the game event that caused it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from sqlalchemy import (
    BigInteger,
    Connection,
    TextClause,
    bindparam,
    delete,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.ext.asyncio import AsyncSession

from rummyhall.store.models import (
    LedgerAccountModel,
    LedgerPostingModel,
    LedgerTransactionModel,
    dialect_insert,
    table,
    utcnow,
)

MINT = "mint"
BURN = "burn"
HOUSE = "house"

MAX_AMOUNT = 2**53
"""No single leg moves more than this: far above any stake, far below 64-bit overflow."""

_NAME = re.compile(r"[a-z0-9_-]+(:[a-z0-9_-]+)*")
_NAME_MAX = 120
_KEY_MAX = 200
_KIND_MAX = 40


class LedgerError(Exception):
    """A transfer that is malformed (postings not summing to zero, a bad account name...).
    ``code`` is stable for clients."""

    code = "ledger_error"


class InsufficientChips(LedgerError):
    """A leg would take ``account`` below zero. Nothing of the transfer was applied; the
    caller's transaction is still usable."""

    code = "insufficient_chips"

    def __init__(self, account: str, balance: int, amount: int) -> None:
        super().__init__(f"{account} holds {balance} chips, {-amount} needed")
        self.account = account
        self.balance = balance
        self.amount = amount


@dataclass(frozen=True, slots=True)
class Currency:
    """A kind of chips, with its own accounts. ``real``: chips of value (bought, won, watched for
    chip dumping), which only registered players hold; practice chips are free and worth nothing,
    and anyone may hold them. New currencies (silver and gold, say) are one more instance here."""

    key: str
    label: str
    """What the chips are called, for people ("chips", "practice chips")."""
    real: bool
    wallet_prefix: str
    mint: str
    house: str
    burn: str

    def wallet(self, account_id: int) -> str:
        """The wallet of ``account_id`` in this currency."""
        return f"{self.wallet_prefix}:{account_id}"

    def owns(self, name: str) -> bool:
        """Whether the (non-table) account ``name`` belongs to this currency."""
        return name in (self.mint, self.house, self.burn) or name.startswith(
            self.wallet_prefix + ":"
        )


CHIPS = Currency("chips", "silver chips", True, "player", MINT, HOUSE, BURN)
"""Silver chips, the room's everyday chips: wallets ``player:<id>``. The key ``chips`` and the
names are the ones the ledger used before gold existed (issue 19), kept so that every record and
every posting since the first keeps its meaning."""
PRACTICE = Currency(
    "practice", "practice chips", False, "practice", "mint:practice", "house:practice",
    "burn:practice",
)  # fmt: skip
"""Practice chips: minted for free, played only in practice rooms, never mixed with chips."""
GOLD = Currency("gold", "gold chips", True, "gold", "mint:gold", "house:gold", "burn:gold")
"""Gold chips: earned on the ladder (levels, titles, achievements, leagues) or bought, never
limited; a gold table plays them (issue 19)."""
CURRENCIES: dict[str, Currency] = {currency.key: currency for currency in (CHIPS, PRACTICE, GOLD)}


def currency(key: str) -> Currency:
    """The currency called ``key`` (LedgerError for an unknown one)."""
    found = CURRENCIES.get(key)
    if found is None:
        raise LedgerError(f"unknown currency {key!r}")
    return found


def currency_of(name: str) -> Currency | None:
    """The currency of a wallet, mint, house or burn account; None for a table's accounts (they
    belong to the currency of the table's room) and for names of no currency (those count as
    real chips, the ledger's default)."""
    if name.startswith("table:"):
        return None
    for found in CURRENCIES.values():
        if found.owns(name):
            return found
    return None


def is_mint(name: str) -> bool:
    """Whether ``name`` is a currency's mint (the only accounts that go below zero)."""
    return any(name == found.mint for found in CURRENCIES.values())


def is_burn(name: str) -> bool:
    return any(name == found.burn for found in CURRENCIES.values())


def player_account(account_id: int) -> str:
    """A player's wallet of real chips (``CHIPS.wallet``)."""
    return f"player:{account_id}"


def seat_account(table_id: int, seat: int) -> str:
    return f"table:{table_id}:seat:{seat}"


def pot_account(table_id: int) -> str:
    return f"table:{table_id}:pot"


def table_account(table_id: int, engine_account: str, currency: Currency = CHIPS) -> str:
    """The ledger account of an engine's posting account at a table: ``seat:N`` and ``pot``
    belong to the table, ``house`` is the house of the table's currency."""
    if engine_account == HOUSE:
        return currency.house
    if engine_account == "pot" or re.fullmatch(r"seat:[0-9]+", engine_account):
        return f"table:{table_id}:{engine_account}"
    raise LedgerError(f"unknown engine account {engine_account!r}")


def table_prefix(table_id: int) -> str:
    """The prefix of every account of a table, for :func:`balances`."""
    return f"table:{table_id}:"


def check_account_name(name: str) -> None:
    if not isinstance(name, str) or len(name) > _NAME_MAX or not _NAME.fullmatch(name):
        raise LedgerError(f"bad ledger account name {name!r}")


def _legs(postings: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
    legs: list[tuple[str, int]] = []
    for posting in postings:
        try:
            account, amount = posting
        except (TypeError, ValueError):
            raise LedgerError(f"a posting is (account, amount), not {posting!r}") from None
        check_account_name(account)
        # bool is an int in Python; True chips is a bug, not one chip.
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise LedgerError(f"amount for {account} is not an integer: {amount!r}")
        if abs(amount) > MAX_AMOUNT:
            raise LedgerError(f"amount for {account} is out of range: {amount}")
        if amount == 0:
            continue  # a zero leg moves nothing; the CHECK on postings refuses it anyway
        if amount < 0 and is_burn(account):
            raise LedgerError("burned chips cannot be spent (mint new ones instead)")
        legs.append((account, amount))
    total = sum(amount for _, amount in legs)
    if total != 0:
        raise LedgerError(f"postings sum to {total}, not zero")
    _one_currency(legs)
    return legs


def _one_currency(legs: Sequence[tuple[str, int]]) -> None:
    """Refuse a transfer between named accounts of two currencies (a table's accounts are of its
    room's currency, which only the audit can tell from here: it checks them too)."""
    seen: Currency | None = None
    for account, _ in legs:
        if account.startswith("table:"):
            continue
        found = currency_of(account) or CHIPS
        if seen is None:
            seen = found
        elif found is not seen:
            raise LedgerError(f"a transfer cannot mix {seen.label} and {found.label} ({account})")


# Core tables, not ORM entities, in the statements below: the ORM's bulk machinery costs more
# than the statement itself on this hot path.
_ACCOUNTS = table(LedgerAccountModel)
_TRANSACTIONS = table(LedgerTransactionModel)
_POSTINGS = table(LedgerPostingModel)

# Puts balances back after a refused transfer (executemany: one round trip).
_UNDO = (
    update(_ACCOUNTS)
    .where(_ACCOUNTS.c.name == bindparam("account"))
    .values(balance=_ACCOUNTS.c.balance - bindparam("amount", type_=BigInteger()))
)


_MINTS_SQL = "ledger_accounts.name IN ({})".format(
    ", ".join(f"'{found.mint}'" for found in CURRENCIES.values())
)
"""The mints, which may go below zero (names from code, not from input)."""


@functools.cache
def _account_statements(count: int) -> tuple[TextClause, TextClause]:
    """Steps 2 and 3 of a transfer over ``count`` accounts, as SQL text that both databases
    read alike. Text, because SQLAlchemy does not cache the compiled form of multi-row INSERTs
    and compiling them costs more than running them; one pair per count, made once."""
    rows = ", ".join(f"(:n{i}, 0)" for i in range(count))
    delta = (
        "CASE excluded.name "
        + " ".join(f"WHEN :n{i} THEN CAST(:d{i} AS BIGINT)" for i in range(count))
        + " END"
    )
    ensure = text(
        f"INSERT INTO ledger_accounts (name, balance) VALUES {rows} ON CONFLICT (name) DO NOTHING"
    )
    apply = text(
        f"INSERT INTO ledger_accounts (name, balance) VALUES {rows} "
        f"ON CONFLICT (name) DO UPDATE SET balance = ledger_accounts.balance + {delta} "
        f"WHERE ledger_accounts.balance + {delta} >= 0 OR {_MINTS_SQL} "
        "RETURNING name"
    )
    return ensure, apply


async def transfer(
    session: AsyncSession,
    key: str,
    postings: Sequence[tuple[str, int]],
    *,
    kind: str,
    memo: Mapping[str, Any] | None = None,
) -> bool:
    """:func:`transfer_on` in an async session."""
    return await session.run_sync(
        lambda sync: transfer_on(sync.connection(), key, postings, kind=kind, memo=memo)
    )


def transfer_on(
    conn: Connection,
    key: str,
    postings: Sequence[tuple[str, int]],
    *,
    kind: str,
    memo: Mapping[str, Any] | None = None,
) -> bool:
    """Move chips: apply ``postings`` (account, amount) as one transaction keyed ``key``.

    Returns True if applied, False if a transaction with this key already exists (then nothing
    happens, whatever the postings). Zero legs are dropped; if none is left nothing is written
    (the key is not taken) and the result is True, or False if the key was taken before. Legs of
    one account are netted for the balance, and each is kept as a posting.

    Raises LedgerError for malformed postings (not summing to zero, bad names) and
    InsufficientChips if an account other than the mint would go below zero; either way nothing
    of this transfer is applied and the connection (its transaction) stays usable.
    """
    if not key or len(key) > _KEY_MAX:
        raise LedgerError(f"bad idempotency key {key!r}")
    if not kind or len(kind) > _KIND_MAX:
        raise LedgerError(f"bad transaction kind {kind!r}")
    legs = _legs(postings)
    if not legs:
        # Nothing to write; but a key already used still answers False, as always.
        return not _transaction_exists(conn, key)
    net: dict[str, int] = {}
    for account, amount in legs:
        net[account] = net.get(account, 0) + amount
    names = sorted(net)

    # 1. Claim the key. On PostgreSQL a concurrent claim of the same key waits here for the
    # other transaction to end, then finds the key taken (or free, if it rolled back).
    claimed = (
        dialect_insert(conn, _TRANSACTIONS)
        .values(key=key, kind=kind, memo=None if memo is None else dict(memo), created_at=utcnow())
        .on_conflict_do_nothing(index_elements=["key"])
        .returning(_TRANSACTIONS.c.id)
    )
    transaction_id = conn.execute(claimed).scalar_one_or_none()
    if transaction_id is None:
        return False  # this movement happened already

    params: dict[str, Any] = {}
    for index, name in enumerate(names):
        params[f"n{index}"] = name
        params[f"d{index}"] = net[name]
    ensure, apply = _account_statements(len(names))

    # 2. Make sure every account has a row (new accounts start at zero), so that step 3 finds
    # them all: a row another transaction is creating is waited for here.
    conn.execute(ensure, params)

    # 3. Apply every account's net amount in one statement. Rows are visited (and locked) in
    # name order, so two transfers over the same accounts cannot deadlock on PostgreSQL, and a
    # row is changed only if it stays at or above zero (the mint excepted): the check and the
    # change are one step, so concurrent spends of the same chips cannot both pass. The CHECK
    # constraint on balances is the backstop.
    changed = conn.execute(apply, params)
    applied = set(changed.scalars())
    if len(applied) < len(names):
        _refuse(conn, transaction_id, net, applied)

    conn.execute(
        insert(_POSTINGS),
        [
            {"transaction_id": transaction_id, "account": account, "amount": amount}
            for account, amount in legs
        ],
    )
    return True


def _refuse(
    conn: Connection, transaction_id: int, net: Mapping[str, int], applied: set[str]
) -> NoReturn:
    """Undo what step 3 changed and give the key back: the transfer leaves no trace, and the
    caller's transaction goes on (a rare path: it costs three more statements)."""
    if applied:
        conn.execute(_UNDO, [{"account": name, "amount": net[name]} for name in sorted(applied)])
    conn.execute(delete(_TRANSACTIONS).where(_TRANSACTIONS.c.id == transaction_id))
    short = min(name for name in net if name not in applied)
    raise InsufficientChips(short, balance_on(conn, short), net[short])


async def balance(session: AsyncSession, account: str) -> int:
    """The chips in ``account`` (0 for an account never used)."""
    return await session.run_sync(lambda sync: balance_on(sync.connection(), account))


def balance_on(conn: Connection, account: str) -> int:
    """:func:`balance` on a plain connection."""
    found = conn.scalar(select(_ACCOUNTS.c.balance).where(_ACCOUNTS.c.name == account))
    return 0 if found is None else int(found)


_BALANCES = select(_ACCOUNTS.c.name, _ACCOUNTS.c.balance).where(
    _ACCOUNTS.c.name.in_(bindparam("names", expanding=True))
)
"""Made once: an ``in_`` with a list made anew for each call leaves a ring of SQLAlchemy's
objects behind every time, for the cycle collector (server/collector.py)."""


def balances_on(conn: Connection, accounts: Sequence[str]) -> list[int]:
    """The chips in each of ``accounts``, in order (0 for one never used), in one statement: the
    wallets that a turn's quick seats look at (:meth:`Database.read_shared
    <rummyhall.store.database.Database.read_shared>`)."""
    rows = conn.execute(_BALANCES, {"names": sorted(set(accounts))})
    found = {name: balance for name, balance in rows}
    return [int(found.get(account, 0)) for account in accounts]


async def lock_balance(session: AsyncSession, account: str) -> int:
    """The chips in ``account``, its row made if missing (at zero) and locked until the
    caller's transaction ends, so that a read-then-transfer on one account (a practice refill)
    cannot interleave with another: on PostgreSQL a second transaction waits here; SQLite's
    writers hold the whole database anyway."""
    check_account_name(account)

    def lock(conn: Connection) -> int:
        conn.execute(
            dialect_insert(conn, _ACCOUNTS)
            .values(name=account, balance=0)
            .on_conflict_do_nothing(index_elements=["name"])
        )
        found = conn.scalar(
            select(_ACCOUNTS.c.balance).where(_ACCOUNTS.c.name == account).with_for_update()
        )
        return 0 if found is None else int(found)

    return await session.run_sync(lambda sync: lock(sync.connection()))


async def balances(session: AsyncSession, prefix: str) -> dict[str, int]:
    """Every account whose name starts with ``prefix`` (e.g. ``table:12:``), by name."""
    rows = await session.execute(
        select(_ACCOUNTS.c.name, _ACCOUNTS.c.balance)
        .where(_ACCOUNTS.c.name.startswith(prefix, autoescape=True))
        .order_by(_ACCOUNTS.c.name)
    )
    return {name: int(amount) for name, amount in rows}


async def transaction_exists(session: AsyncSession, key: str) -> bool:
    """Whether a transaction with this idempotency key has been written."""
    return await session.run_sync(lambda sync: _transaction_exists(sync.connection(), key))


@dataclass(frozen=True, slots=True)
class Written:
    """A transaction as written: its kind and its memo (for callers that must tell a retry of a
    movement from another movement that reused its key)."""

    kind: str
    memo: Mapping[str, Any]


async def written(session: AsyncSession, key: str) -> Written | None:
    """The transaction with this idempotency key, or None if there is none."""

    def read(conn: Connection) -> Written | None:
        row = conn.execute(
            select(_TRANSACTIONS.c.kind, _TRANSACTIONS.c.memo).where(_TRANSACTIONS.c.key == key)
        ).first()
        return None if row is None else Written(str(row.kind), dict(row.memo or {}))

    return await session.run_sync(lambda sync: read(sync.connection()))


def _transaction_exists(conn: Connection, key: str) -> bool:
    found = conn.scalar(select(_TRANSACTIONS.c.id).where(_TRANSACTIONS.c.key == key))
    return found is not None

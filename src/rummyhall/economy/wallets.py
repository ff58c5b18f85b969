"""Wallets: which chips an account may hold, the chips a new account starts with, and free refills
of practice chips (issue 15: guests were minted real chips without limit, and passed them on to
real accounts by losing on purpose).

- A registered player holds real chips, silver (:data:`~rummyhall.economy.ledger.CHIPS`, wallet
  ``player:<id>``) and gold (:data:`~rummyhall.economy.ledger.GOLD`, wallet
  ``gold:<id>``), and practice chips (:data:`~rummyhall.economy.ledger.PRACTICE`, wallet
  ``practice:<id>``). A new player gets :data:`STARTING_SILVER` silver (their silver limit at
  level 1), a welcome purse of :data:`STARTING_GOLD` gold and :data:`PRACTICE_CHIPS` practice
  chips.
- A guest holds practice chips only: it gets no real chips, may play only in practice rooms, and
  real chips cannot be granted to it. Practice chips live in accounts of their own, minted from
  their own mint, and a table plays with one currency, so they can never reach a real wallet.
- A bot holds whatever the tables it sits at need, topped up from that currency's mint.
- Practice chips are worth nothing: a player whose practice chips (wallet and seats together) run
  below :data:`PRACTICE_REFILL_BELOW` may ask for a free refill back up to
  :data:`PRACTICE_CHIPS` (the server limits how often).

The minting of starting chips lives here, not in the store: the store keeps accounts, the economy
decides what they hold.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import AsyncSession

from rummyhall.economy import ledger
from rummyhall.economy.bulk import Transfer, write_transfers
from rummyhall.economy.ledger import CHIPS, CURRENCIES, GOLD, PRACTICE, Currency
from rummyhall.economy.levels import silver_limit
from rummyhall.store.accounts import Account

STARTING_SILVER: Final = silver_limit(1)
"""The silver chips a new registered player gets from the mint: a full wallet at level 1 (the
room's rules: "when you first come, your silver limit is 100")."""
STARTING_GOLD: Final = 1_000
"""The gold a new registered player gets: silver alone (100) does not cover the smallest tables
of every game (a Marriage seat needs 200, a Patti seat 100 with 2,000 to buy in), so a welcome
purse of gold opens the Desert rooms of the whole catalog on the first day; quick seat plays it
once the silver runs short. An operator may set it to 0 (``Settings.starting_gold``)."""
PRACTICE_CHIPS = 10_000
"""The practice chips a new account (guest or player) gets, and what a refill tops up to."""
PRACTICE_REFILL_BELOW = 2_000
"""A refill is granted only when the practice chips held (wallet and seats) are below this: the
largest buy-in of the practice rooms, so whoever cannot sit at every practice room may refill."""


ORDER_ID: Final = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
"""A purchase's order id, as the shop names it (the ledger key is ``purchase:<order id>``)."""
PURCHASE_MAX: Final = 1_000_000
"""The most gold one purchase mints."""
PURCHASE_KIND: Final = "purchase"


class WalletError(Exception):
    """A refused wallet operation; ``code`` is stable for clients: ``practice_only`` (a guest and
    real chips), ``refill_not_needed`` (practice chips are not low), ``order_conflict`` (a
    purchase's order id already paid another account or amount)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def currencies(account: Account) -> tuple[Currency, ...]:
    """The currencies ``account`` may hold and play with: guests practice chips only."""
    return tuple(found for found in CURRENCIES.values() if may_play(found, guest=account.is_guest))


def may_play(currency: Currency, *, guest: bool) -> bool:
    """Whether an account (a guest or not) may hold ``currency``: guests hold no real chips."""
    return not (guest and currency.real)


def check_may_hold(account: Account, currency: Currency) -> None:
    """WalletError ``practice_only`` unless ``account`` may hold ``currency``."""
    if not may_play(currency, guest=account.is_guest):
        raise WalletError(
            "practice_only",
            f"guests play with practice chips only: sign up to play for {currency.label}",
        )


async def open_wallets(
    session: AsyncSession,
    account: Account,
    *,
    silver: int = STARTING_SILVER,
    gold: int = STARTING_GOLD,
    practice: int = PRACTICE_CHIPS,
) -> dict[str, int]:
    """Mint a new account's starting chips, in the caller's transaction: ``silver`` silver and
    ``gold`` gold chips (never for a guest; ledger keys ``signup:<id>`` and
    ``signup:gold:<id>``) and ``practice`` practice chips (key ``signup:practice:<id>``).
    Returns its balances then, by currency."""
    return await session.run_sync(
        lambda sync: open_wallets_on(
            sync.connection(), account, silver=silver, gold=gold, practice=practice
        )
    )


def open_wallets_on(
    conn: Connection,
    account: Account,
    *,
    silver: int = STARTING_SILVER,
    gold: int = STARTING_GOLD,
    practice: int = PRACTICE_CHIPS,
) -> dict[str, int]:
    """:func:`open_wallets` on a plain connection (a sign-up through ``Database.write``).
    Returns the new account's balances by currency, as :func:`balances_on` would read them now
    (a sign-up answers with them: a statement fewer, a round trip on PostgreSQL)."""
    [held] = open_many_wallets_on(conn, [account], silver=silver, gold=gold, practice=practice)
    return held


def open_many_wallets_on(
    conn: Connection,
    accounts: Sequence[Account],
    *,
    silver: int = STARTING_SILVER,
    gold: int = STARTING_GOLD,
    practice: int = PRACTICE_CHIPS,
) -> list[dict[str, int]]:
    """:func:`open_wallets_on` for several new accounts (a batch of sign-ups), their mints
    written together: four statements for any number of accounts (the ledger's bulk steps, as
    the table writer posts a batch of tables' chips)."""
    transfers: list[Transfer] = []
    held: list[dict[str, int]] = []
    for account in accounts:
        key = account.id
        mints: list[tuple[Currency, str, int]] = []
        if not account.is_guest:
            mints += [(CHIPS, f"signup:{key}", silver), (GOLD, f"signup:gold:{key}", gold)]
        mints.append((PRACTICE, f"signup:practice:{key}", practice))
        transfers += (
            Transfer(
                name,
                [(currency.mint, -amount), (currency.wallet(account.id), amount)],
                kind="signup",
                memo={"account": account.id},
            )
            for currency, name, amount in mints
            if amount
        )
        minted = {currency.key: amount for currency, _, amount in mints}
        held.append({found.key: minted.get(found.key, 0) for found in currencies(account)})
    write_transfers(conn, transfers)
    return held


async def grant(
    session: AsyncSession, account: Account, amount: int, *, currency: Currency = CHIPS,
    kind: str = "grant", reason: str | None = None,
) -> int:  # fmt: skip
    """Mint ``amount`` chips of ``currency`` into the account's wallet (the operator's grant, the
    stand-in for a purchase); WalletError ``practice_only`` for real chips to a guest. Returns
    the wallet's new balance."""
    check_may_hold(account, currency)
    await _mint(
        session, currency, f"grant:{uuid.uuid4().hex}", account.id, amount, kind,
        {"reason": reason},
    )  # fmt: skip
    return await ledger.balance(session, currency.wallet(account.id))


@dataclass(frozen=True, slots=True)
class Purchase:
    """A purchase of gold as recorded: ``duplicate`` when the order had been paid before (nothing
    was minted this time); ``balance`` is the gold wallet now."""

    order_id: str
    account_id: int
    gold: int
    duplicate: bool
    balance: int


async def purchase(
    session: AsyncSession, account: Account, order_id: str, gold: int, *, reason: str | None = None
) -> Purchase:
    """Mint ``gold`` gold chips into the account's gold wallet for the shop's order ``order_id``,
    once: the ledger key is ``purchase:<order_id>``, so the same order again (a shop's retry)
    mints nothing and answers the same purchase, ``duplicate``. The memo keeps the account and
    the amount, so that an order id reused for another account or amount is refused
    (WalletError ``order_conflict``); a guest gets none (``practice_only``). ValueError for an
    order id or an amount out of range (the caller checks them first)."""
    if not ORDER_ID.fullmatch(order_id):
        raise ValueError(f"bad order id {order_id!r}")
    if isinstance(gold, bool) or not 1 <= gold <= PURCHASE_MAX:
        raise ValueError(f"a purchase is 1 to {PURCHASE_MAX} gold chips, not {gold!r}")
    check_may_hold(account, GOLD)
    key = f"purchase:{order_id}"
    memo = {"order": order_id, "gold": gold, "reason": reason}
    paid = await ledger.transfer(
        session, key, [(GOLD.mint, -gold), (GOLD.wallet(account.id), gold)],
        kind=PURCHASE_KIND, memo={"account": account.id, **memo},
    )  # fmt: skip
    if not paid:
        before = await ledger.written(session, key)
        same = (
            before is not None
            and before.kind == PURCHASE_KIND
            and before.memo.get("account") == account.id
            and before.memo.get("gold") == gold
        )
        if not same:
            raise WalletError(
                "order_conflict",
                f"order {order_id!r} was paid already, to another account or for another amount",
            )
    balance = await ledger.balance(session, GOLD.wallet(account.id))
    return Purchase(order_id, account.id, gold, not paid, balance)


async def balances(session: AsyncSession, account: Account) -> dict[str, int]:
    """The account's wallets: currency key -> chips, for the currencies it may hold."""
    return await session.run_sync(lambda sync: balances_on(sync.connection(), account))


def balances_on(conn: Connection, account: Account) -> dict[str, int]:
    """:func:`balances` on a plain connection."""
    return {
        found.key: ledger.balance_on(conn, found.wallet(account.id))
        for found in currencies(account)
    }


async def refill_practice(
    session: AsyncSession,
    account_id: int,
    *,
    at_tables: int = 0,
    to: int = PRACTICE_CHIPS,
    below: int = PRACTICE_REFILL_BELOW,
) -> int:
    """Top the account's practice chips back up to ``to``, free, if what it holds (its practice
    wallet plus ``at_tables``, the practice chips at its seats) is below ``below``; WalletError
    ``refill_not_needed`` otherwise. The wallet's row is locked first, so two refills at once
    cannot both see it low. Returns the wallet's new balance."""
    wallet = PRACTICE.wallet(account_id)
    balance = await ledger.lock_balance(session, wallet)
    held = balance + max(0, at_tables)
    if held >= below:
        raise WalletError(
            "refill_not_needed",
            f"you hold {held} practice chips: refills are for fewer than {below}",
        )
    amount = to - held
    await _mint(
        session, PRACTICE, f"refill:practice:{account_id}:{uuid.uuid4().hex}", account_id,
        amount, "practice_refill",
    )  # fmt: skip
    return balance + amount


async def _mint(
    session: AsyncSession, currency: Currency, key: str, account_id: int, amount: int, kind: str,
    memo: dict[str, object] | None = None,
) -> None:  # fmt: skip
    await ledger.transfer(
        session,
        key,
        [(currency.mint, -amount), (currency.wallet(account_id), amount)],
        kind=kind,
        memo={"account": account_id, **(memo or {})},
    )

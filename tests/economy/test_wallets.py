"""Wallets on both databases: starting chips (real chips for players, practice chips for everyone,
no real chips for guests, ever), grants, and free refills of practice chips (issue 15)."""

from __future__ import annotations

import asyncio

import pytest

from rummyhall.economy import ledger, wallets
from rummyhall.economy.audit import audit
from rummyhall.economy.ledger import CHIPS, GOLD, PRACTICE
from rummyhall.economy.levels import silver_limit
from rummyhall.economy.wallets import WalletError
from rummyhall.store import accounts
from rummyhall.store.database import Database


async def test_a_player_starts_with_silver_gold_and_practice_chips(db: Database) -> None:
    async with db.transaction() as session:
        asha = await accounts.register(session, "asha", "long password")
        await wallets.open_wallets(session, asha)
    async with db.read() as session:
        # Silver up to the level-1 limit, the welcome gold, the practice chips.
        assert wallets.STARTING_SILVER == silver_limit(1) == 100
        assert await wallets.balances(session, asha) == {
            "chips": 100,
            "practice": wallets.PRACTICE_CHIPS,
            "gold": wallets.STARTING_GOLD,
        }
        for key in ("signup", "signup:gold", "signup:practice"):
            assert await ledger.transaction_exists(session, f"{key}:{asha.id}")
        report = await audit(session)
    assert report.ok
    assert report.minted == report.in_wallets == 100
    assert report.currencies["gold"].minted == wallets.STARTING_GOLD
    assert report.currencies["practice"].minted == wallets.PRACTICE_CHIPS


async def test_starting_chips_are_parameters(db: Database) -> None:
    async with db.transaction() as session:
        rich = await accounts.register(session, "rich", "long password")
        await wallets.open_wallets(session, rich, silver=50_000, gold=7, practice=0)
        poor = await accounts.register(session, "poor", "long password")
        await wallets.open_wallets(session, poor, silver=0, gold=0, practice=500)
        assert await wallets.balances(session, rich) == {"chips": 50_000, "practice": 0, "gold": 7}
        assert await wallets.balances(session, poor) == {"chips": 0, "practice": 500, "gold": 0}


async def test_opening_the_wallets_answers_what_they_hold(db: Database) -> None:
    """What a sign-up answers without reading the wallets again: the balances a read finds."""
    async with db.transaction() as session:
        rich = await accounts.register(session, "rich", "long password")
        poor = await accounts.register(session, "poor", "long password")
        guest = await accounts.create_guest(session)
        opened = {
            rich.id: await wallets.open_wallets(session, rich, silver=50_000, gold=7),
            poor.id: await wallets.open_wallets(session, poor, silver=0, gold=0, practice=0),
            guest.id: await wallets.open_wallets(session, guest, practice=321),
        }
    assert opened[rich.id] == {"chips": 50_000, "practice": wallets.PRACTICE_CHIPS, "gold": 7}
    assert opened[guest.id] == {"practice": 321}
    async with db.read() as session:
        for account in (rich, poor, guest):
            assert opened[account.id] == await wallets.balances(session, account)


async def test_a_guest_gets_practice_chips_and_no_real_chips(db: Database) -> None:
    async with db.transaction() as session:
        guests = [await accounts.create_guest(session) for _ in range(3)]
        for guest in guests:
            # Asked for real chips as well: a guest gets none, whatever the caller passes.
            await wallets.open_wallets(session, guest, silver=10_000, gold=10_000)
    async with db.read() as session:
        for guest in guests:
            assert wallets.currencies(guest) == (PRACTICE,)
            assert await wallets.balances(session, guest) == {"practice": wallets.PRACTICE_CHIPS}
            assert await ledger.balance(session, CHIPS.wallet(guest.id)) == 0
            assert await ledger.balance(session, GOLD.wallet(guest.id)) == 0
            assert not await ledger.transaction_exists(session, f"signup:{guest.id}")
            assert not await ledger.transaction_exists(session, f"signup:gold:{guest.id}")
        report = await audit(session)
    assert report.ok
    assert report.minted == 0  # 300 guests or 3: not one real chip
    assert all(found.minted == 0 for key, found in report.currencies.items() if key != "practice")
    assert report.currencies["practice"].minted == 3 * wallets.PRACTICE_CHIPS


async def test_real_chips_are_never_granted_to_a_guest(db: Database) -> None:
    async with db.transaction() as session:
        guest = await accounts.create_guest(session)
        ravi = await accounts.register(session, "ravi", "long password")
        with pytest.raises(WalletError) as caught:
            await wallets.grant(session, guest, 500)
        assert caught.value.code == "practice_only"
        assert await wallets.grant(session, ravi, 500) == 500
        assert await wallets.grant(session, guest, 70, currency=PRACTICE) == 70
        assert await ledger.balance(session, CHIPS.wallet(guest.id)) == 0
    assert wallets.may_play(PRACTICE, guest=True) and not wallets.may_play(CHIPS, guest=True)
    assert wallets.may_play(CHIPS, guest=False)


async def test_practice_refills(db: Database) -> None:
    async with db.transaction() as session:
        guest = await accounts.create_guest(session)
        await wallets.open_wallets(session, guest)
        # Not low: refused, and nothing is minted.
        with pytest.raises(WalletError) as caught:
            await wallets.refill_practice(session, guest.id)
        assert caught.value.code == "refill_not_needed"
        # Lost most of it: a refill tops the wallet back up to the starting amount...
        await ledger.transfer(
            session,
            "lost",
            [(PRACTICE.wallet(guest.id), -9_500), (PRACTICE.house, 9_500)],
            kind="x",
        )
        assert await wallets.refill_practice(session, guest.id) == wallets.PRACTICE_CHIPS
        # ... counting the practice chips the player has at tables: wallet + seats = the amount.
        await ledger.transfer(
            session,
            "lost again",
            [(PRACTICE.wallet(guest.id), -9_000), (PRACTICE.house, 9_000)],
            kind="x",
        )
        with pytest.raises(WalletError):
            await wallets.refill_practice(session, guest.id, at_tables=1_000)
        assert await wallets.refill_practice(session, guest.id, at_tables=300) == 9_700
        report = await audit(session)
    assert report.ok
    assert report.minted == 0
    practice = report.currencies["practice"]
    assert practice.minted == wallets.PRACTICE_CHIPS + 9_500 + 8_700


async def test_an_old_account_without_practice_chips_may_refill(db: Database) -> None:
    # Accounts made before practice chips existed have no practice wallet at all.
    async with db.transaction() as session:
        old = await accounts.register(session, "old-timer", "long password")
    async with db.transaction() as session:
        assert await wallets.refill_practice(session, old.id) == wallets.PRACTICE_CHIPS


async def test_concurrent_refills_refill_once(db: Database) -> None:
    async with db.transaction() as session:
        guest = await accounts.create_guest(session)

    async def refill() -> str:
        try:
            async with db.transaction() as session:
                await wallets.refill_practice(session, guest.id)
        except WalletError as error:
            return error.code
        return "ok"

    results = await asyncio.gather(*(refill() for _ in range(5)))
    assert sorted(results) == ["ok"] + ["refill_not_needed"] * 4
    async with db.read() as session:
        assert await ledger.balance(session, PRACTICE.wallet(guest.id)) == wallets.PRACTICE_CHIPS


async def test_a_purchase_is_minted_once_per_order(db: Database) -> None:
    async with db.transaction() as session:
        asha = await accounts.register(session, "asha", "long password")
        ravi = await accounts.register(session, "ravi", "long password")
        guest = await accounts.create_guest(session)
        first = await wallets.purchase(session, asha, "order-1", 300, reason="pack")
        assert first == wallets.Purchase("order-1", asha.id, 300, False, 300)
        # The shop's retry: nothing more, the same purchase.
        again = await wallets.purchase(session, asha, "order-1", 300)
        assert again == wallets.Purchase("order-1", asha.id, 300, True, 300)
        for account, gold in ((ravi, 300), (asha, 299)):
            with pytest.raises(WalletError) as caught:
                await wallets.purchase(session, account, "order-1", gold)
            assert caught.value.code == "order_conflict"
        with pytest.raises(WalletError) as caught:
            await wallets.purchase(session, guest, "order-2", 5)
        assert caught.value.code == "practice_only"
        # A key of another kind that happens to be free of purchases is not one of them.
        await ledger.transfer(
            session, "purchase:forged", [(GOLD.mint, -1), (GOLD.wallet(ravi.id), 1)], kind="grant"
        )
        with pytest.raises(WalletError):
            await wallets.purchase(session, ravi, "forged", 1)
        for order, gold in (("", 5), ("a b", 5), ("x" * 65, 5), ("ok", 0), ("ok", 1_000_001)):
            with pytest.raises(ValueError):
                await wallets.purchase(session, asha, order, gold)
    async with db.read() as session:
        assert await ledger.balance(session, GOLD.wallet(asha.id)) == 300
        written = await ledger.written(session, "purchase:order-1")
        assert written is not None and written.kind == "purchase"
        memo = {"account": asha.id, "order": "order-1", "gold": 300, "reason": "pack"}
        assert written.memo == memo
        assert await ledger.written(session, "purchase:nothing") is None
        report = await audit(session)
    assert report.ok, report.problems
    assert report.currencies["gold"].minted == 301

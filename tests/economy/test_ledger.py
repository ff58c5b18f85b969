"""The chips ledger on both databases: transfers, refusals, idempotency, concurrency."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.exc import IntegrityError

from rummyhall.economy import ledger
from rummyhall.economy.audit import audit
from rummyhall.economy.ledger import InsufficientChips, LedgerError, transfer
from rummyhall.store.database import Database
from rummyhall.store.models import LedgerPostingModel, LedgerTransactionModel


async def fund(db: Database, account: str, chips: int, key: str | None = None) -> None:
    async with db.transaction() as session:
        await transfer(
            session, key or f"fund:{account}", [("mint", -chips), (account, chips)], kind="grant"
        )


async def test_a_transfer_moves_chips_and_records_postings(db: Database) -> None:
    await fund(db, "player:1", 1000)
    async with db.transaction() as session:
        applied = await transfer(
            session,
            "table:3:seq:1",
            [("player:1", -300), ("table:3:seat:1", 300)],
            kind="buy_in",
            memo={"seat": 1, "cards": ["AS", "KD"]},
        )
        assert applied
    async with db.read() as session:
        assert await ledger.balance(session, "player:1") == 700
        assert await ledger.balance(session, "table:3:seat:1") == 300
        assert await ledger.balance(session, "mint") == -1000
        assert await ledger.balance(session, "nobody") == 0
        row = await session.scalar(
            select(LedgerTransactionModel).where(LedgerTransactionModel.key == "table:3:seq:1")
        )
        assert row is not None
        assert (row.kind, row.memo) == ("buy_in", {"seat": 1, "cards": ["AS", "KD"]})
        legs = (
            await session.execute(
                select(LedgerPostingModel.account, LedgerPostingModel.amount)
                .where(LedgerPostingModel.transaction_id == row.id)
                .order_by(LedgerPostingModel.account)
            )
        ).all()
        assert [tuple(leg) for leg in legs] == [("player:1", -300), ("table:3:seat:1", 300)]
        assert (await audit(session)).ok


async def test_balances_by_prefix(db: Database) -> None:
    await fund(db, "table:12:seat:1", 50)
    await fund(db, "table:12:seat:2", 70)
    await fund(db, "table:120:seat:1", 5)
    await fund(db, "player:12", 9)
    async with db.transaction() as session:
        await transfer(session, "pot", [("table:12:seat:2", -20), ("table:12:pot", 20)], kind="bet")
        assert await ledger.balances(session, "table:12:") == {
            "table:12:pot": 20,
            "table:12:seat:1": 50,
            "table:12:seat:2": 50,
        }
        assert await ledger.balances(session, "table:99:") == {}
        # Prefixes are literal: LIKE wildcards in them match nothing special.
        assert await ledger.balances(session, "table:1_:") == {}


async def test_same_key_applies_once(db: Database) -> None:
    await fund(db, "player:1", 100)
    for expected in (True, False, False):
        async with db.transaction() as session:
            applied = await transfer(
                session, "table:1:seq:7", [("player:1", -40), ("house", 40)], kind="rake"
            )
            assert applied is expected
    async with db.read() as session:
        assert await ledger.balance(session, "player:1") == 60
        assert await ledger.balance(session, "house") == 40


async def test_a_key_taken_with_other_postings_still_does_nothing(db: Database) -> None:
    await fund(db, "player:1", 100)
    async with db.transaction() as session:
        assert await transfer(session, "k", [("player:1", -10), ("house", 10)], kind="x")
        assert not await transfer(session, "k", [("player:1", -90), ("house", 90)], kind="x")
        assert await ledger.balance(session, "player:1") == 90


async def test_overdraft_is_refused_and_the_session_stays_usable(db: Database) -> None:
    await fund(db, "player:1", 100)
    async with db.transaction() as session:
        await transfer(session, "ok-1", [("player:1", -30), ("house", 30)], kind="x")
        with pytest.raises(InsufficientChips) as caught:
            # The credit leg sorts first and is applied before the debit fails: the savepoint
            # must undo it.
            await transfer(session, "too-much", [("player:1", -500), ("a-house", 500)], kind="x")
        assert caught.value.account == "player:1"
        assert caught.value.code == "insufficient_chips"
        assert caught.value.balance == 70
        # The refused transfer left nothing behind, and the transaction goes on.
        assert await ledger.balance(session, "a-house") == 0
        assert not await ledger.transaction_exists(session, "too-much")
        await transfer(session, "ok-2", [("player:1", -70), ("house", 70)], kind="x")
    async with db.read() as session:
        assert await ledger.balance(session, "player:1") == 0
        assert await ledger.balance(session, "house") == 100
        assert (await audit(session)).ok


async def test_a_refused_transfer_with_many_legs_leaves_no_trace(db: Database) -> None:
    await fund(db, "player:1", 100)
    await fund(db, "player:3", 100)
    async with db.transaction() as session:
        with pytest.raises(InsufficientChips) as caught:
            await transfer(
                session,
                "settle",
                [("player:1", -10), ("player:2", -10), ("player:3", -10), ("new-pot", 30)],
                kind="x",
            )
        assert caught.value.account == "player:2"
        # (The accounts it named exist now, at zero: harmless, and audited like any other.)
        assert await ledger.balances(session, "player:") == {
            "player:1": 100,
            "player:2": 0,
            "player:3": 100,
        }
        assert await ledger.balance(session, "new-pot") == 0
        assert not await ledger.transaction_exists(session, "settle")
        # The key is free again: the same movement may be tried once the chips are there.
        await transfer(session, "fund:2", [("mint", -10), ("player:2", 10)], kind="grant")
        assert await transfer(
            session,
            "settle",
            [("player:1", -10), ("player:2", -10), ("player:3", -10), ("new-pot", 30)],
            kind="x",
        )
        assert await ledger.balance(session, "new-pot") == 30
        assert (await audit(session)).ok


async def test_spending_from_an_unknown_account_is_insufficient(db: Database) -> None:
    async with db.transaction() as session:
        with pytest.raises(InsufficientChips):
            await transfer(session, "k", [("player:9", -1), ("house", 1)], kind="x")


async def test_mint_may_go_negative_and_burn_only_receives(db: Database) -> None:
    await fund(db, "player:1", 100)
    async with db.transaction() as session:
        await transfer(session, "burn", [("player:1", -25), ("burn", 25)], kind="burn")
        assert await ledger.balance(session, "mint") == -100
        assert await ledger.balance(session, "burn") == 25
        with pytest.raises(LedgerError, match="burned"):
            await transfer(session, "unburn", [("burn", -5), ("player:1", 5)], kind="x")
        report = await audit(session)
    assert (report.minted, report.burned, report.circulation, report.in_wallets) == (
        100,
        25,
        75,
        75,
    )


@pytest.mark.parametrize(
    ("postings", "message"),
    [
        ([("mint", -5), ("house", 4)], "sum to -1"),
        ([("Player:1", 5), ("mint", -5)], "account name"),
        ([("player:1 ", 5), ("mint", -5)], "account name"),
        ([("", 5), ("mint", -5)], "account name"),
        ([("player:1", 1.5), ("mint", -1.5)], "not an integer"),
        ([("player:1", True), ("mint", -1)], "not an integer"),
        ([("player:1", 2**60), ("mint", -(2**60))], "out of range"),
        ([("player:1",)], "a posting is"),
    ],
)
async def test_malformed_transfers_are_refused(
    db: Database, postings: list[tuple[str, int]], message: str
) -> None:
    async with db.transaction() as session:
        with pytest.raises(LedgerError, match=message):
            await transfer(session, "bad", postings, kind="x")
        assert not await ledger.transaction_exists(session, "bad")


async def test_bad_keys_and_kinds_are_refused(db: Database) -> None:
    async with db.transaction() as session:
        with pytest.raises(LedgerError):
            await transfer(session, "", [("mint", -1), ("house", 1)], kind="x")
        with pytest.raises(LedgerError):
            await transfer(session, "k" * 201, [("mint", -1), ("house", 1)], kind="x")
        with pytest.raises(LedgerError):
            await transfer(session, "k", [("mint", -1), ("house", 1)], kind="")


async def test_zero_legs_are_dropped(db: Database) -> None:
    async with db.transaction() as session:
        assert await transfer(session, "nothing", [("house", 0), ("mint", 0)], kind="x")
        assert await transfer(session, "nothing", [], kind="x")
        assert not await ledger.transaction_exists(session, "nothing")
        assert await transfer(
            session, "some", [("mint", -3), ("house", 3), ("player:1", 0)], kind="x"
        )
        # A used key answers False even for an empty transfer.
        assert not await transfer(session, "some", [("house", 0)], kind="x")
        count = await session.scalar(select(func.count()).select_from(LedgerPostingModel))
        assert count == 2


async def test_legs_of_one_account_are_netted(db: Database) -> None:
    # A seat that pays in and is paid back in one event: the net decides, every leg is kept.
    await fund(db, "table:1:seat:1", 10)
    async with db.transaction() as session:
        await transfer(
            session,
            "net",
            [
                ("table:1:seat:1", -30),
                ("table:1:seat:1", 25),
                ("table:1:pot", 5),
                ("table:1:seat:2", -7),
                ("table:1:seat:2", 7),
            ],
            kind="x",
        )
        assert await ledger.balances(session, "table:1:") == {
            "table:1:pot": 5,
            "table:1:seat:1": 5,
            "table:1:seat:2": 0,
        }
        assert (await audit(session)).ok


async def test_the_database_refuses_a_negative_balance(db: Database) -> None:
    # The CHECK constraint backs the code: even raw SQL cannot overdraw an account.
    await fund(db, "player:1", 10)
    with pytest.raises(IntegrityError):
        async with db.transaction() as session:
            await session.execute(
                text("UPDATE ledger_accounts SET balance = -1 WHERE name = 'player:1'")
            )
    async with db.transaction() as session:
        await session.execute(text("UPDATE ledger_accounts SET balance = -1 WHERE name = 'mint'"))


def test_engine_accounts_map_to_table_accounts() -> None:
    assert ledger.table_account(12, "seat:3") == "table:12:seat:3" == ledger.seat_account(12, 3)
    assert ledger.table_account(12, "pot") == "table:12:pot" == ledger.pot_account(12)
    assert ledger.table_account(12, "house") == "house"
    assert ledger.table_account(12, "house", ledger.PRACTICE) == "house:practice"
    assert ledger.player_account(7) == "player:7"
    assert ledger.table_prefix(12) == "table:12:"
    with pytest.raises(LedgerError):
        ledger.table_account(12, "seat:x")


# --- currencies -------------------------------------------------------------------------------


def test_currencies_and_their_accounts() -> None:
    chips, practice = ledger.CHIPS, ledger.PRACTICE
    assert (chips.wallet(7), chips.mint, chips.house, chips.burn) == (
        "player:7",
        "mint",
        "house",
        "burn",
    )
    assert (practice.wallet(7), practice.mint, practice.house, practice.burn) == (
        "practice:7",
        "mint:practice",
        "house:practice",
        "burn:practice",
    )
    gold = ledger.GOLD
    assert (gold.wallet(7), gold.mint, gold.house, gold.burn) == (
        "gold:7",
        "mint:gold",
        "house:gold",
        "burn:gold",
    )
    assert chips.real and gold.real and not practice.real
    assert ledger.currency("practice") is practice
    assert ledger.currency("gold") is gold
    assert ledger.currency_of("gold:7") is gold
    with pytest.raises(LedgerError):
        ledger.currency("platinum")
    assert ledger.currency_of("practice:7") is practice
    assert ledger.currency_of("mint:practice") is practice
    assert ledger.currency_of("player:7") is chips
    assert ledger.currency_of("table:3:seat:1") is None  # the table's room decides
    assert ledger.is_mint("mint") and ledger.is_mint("mint:practice")
    assert ledger.is_mint("mint:gold") and not ledger.is_mint("gold:1")
    assert not ledger.is_mint("mint:platinum") and not ledger.is_mint("practice:1")


async def test_practice_chips_have_their_own_mint_house_and_burn(db: Database) -> None:
    async with db.transaction() as session:
        await transfer(session, "p", [("mint:practice", -100), ("practice:1", 100)], kind="signup")
        await transfer(
            session,
            "p2",
            [("practice:1", -30), ("house:practice", 10), ("burn:practice", 20)],
            kind="x",
        )
        assert await ledger.balance(session, "mint:practice") == -100
        assert await ledger.balance(session, "mint") == 0
        with pytest.raises(LedgerError, match="burned"):
            await transfer(session, "k", [("burn:practice", -5), ("practice:1", 5)], kind="x")
        # The practice wallet cannot be overdrawn like any other.
        with pytest.raises(InsufficientChips):
            await transfer(session, "k", [("practice:1", -71), ("house:practice", 71)], kind="x")
        report = await audit(session)
    assert report.ok, report.problems
    assert report.minted == 0  # no real chips exist
    practice = report.currencies["practice"]
    assert (practice.minted, practice.burned, practice.in_wallets, practice.house) == (
        100,
        20,
        70,
        10,
    )


@pytest.mark.parametrize(
    "postings",
    [
        [("mint", -5), ("practice:1", 5)],
        [("mint:practice", -5), ("player:1", 5)],
        [("mint:practice", -5), ("house", 5)],
        [("mint:practice", -5), ("table:1:seat:1", 3), ("house", 2)],
    ],
)
async def test_a_transfer_never_mixes_currencies(
    db: Database, postings: list[tuple[str, int]]
) -> None:
    async with db.transaction() as session:
        with pytest.raises(LedgerError, match="cannot mix"):
            await transfer(session, "mix", postings, kind="x")
        assert not await ledger.transaction_exists(session, "mix")


async def test_the_database_lets_only_mints_go_below_zero(db: Database) -> None:
    async with db.transaction() as session:
        await session.execute(text("INSERT INTO ledger_accounts VALUES ('mint:practice', -1)"))
    for name in ("practice:1", "house:practice", "mintpractice"):
        with pytest.raises(IntegrityError):
            async with db.transaction() as session:
                await session.execute(
                    text("INSERT INTO ledger_accounts VALUES (:name, -1)"), {"name": name}
                )


async def test_lock_balance_makes_the_account(db: Database) -> None:
    await fund(db, "player:1", 10)
    async with db.transaction() as session:
        assert await ledger.lock_balance(session, "player:1") == 10
        assert await ledger.lock_balance(session, "practice:1") == 0
        with pytest.raises(LedgerError):
            await ledger.lock_balance(session, "Bad Name")
    async with db.read() as session:
        assert await ledger.balances(session, "practice:") == {"practice:1": 0}


# --- concurrency ------------------------------------------------------------------------------


async def _spend(db: Database, key: str, account: str, chips: int) -> bool | None:
    """True: spent; False: key already used; None: refused for lack of chips."""
    try:
        async with db.transaction() as session:
            return await transfer(session, key, [(account, -chips), ("house", chips)], kind="bet")
    except InsufficientChips:
        return None


async def test_concurrent_spends_never_overdraw(db: Database) -> None:
    await fund(db, "player:1", 1000)
    results = await asyncio.gather(*(_spend(db, f"spend:{n}", "player:1", 150) for n in range(30)))
    assert results.count(True) == 6  # 6 x 150 = 900 <= 1000 < 7 x 150
    assert results.count(None) == 24
    async with db.read() as session:
        assert await ledger.balance(session, "player:1") == 100
        assert await ledger.balance(session, "house") == 900
        assert (await audit(session)).ok


async def test_concurrent_transfers_with_one_key_apply_once(db: Database) -> None:
    await fund(db, "player:1", 1000)
    results = await asyncio.gather(*(_spend(db, "same-key", "player:1", 10) for _ in range(20)))
    assert results.count(True) == 1
    assert results.count(False) == 19
    async with db.read() as session:
        assert await ledger.balance(session, "player:1") == 990
        assert (await audit(session)).ok


async def test_concurrent_transfers_between_many_accounts(db: Database) -> None:
    # Transfers in both directions between the same accounts: with rows locked in name order
    # they cannot deadlock, and chips are conserved.
    for n in range(4):
        await fund(db, f"player:{n}", 100)

    async def move(k: int) -> None:
        source, target = f"player:{k % 4}", f"player:{(k * 3 + 1) % 4}"
        async with db.transaction() as session:
            await transfer(session, f"move:{k}", [(source, -7), (target, 7)], kind="x")

    await asyncio.gather(*(move(k) for k in range(40)))
    async with db.read() as session:
        wallets = await ledger.balances(session, "player:")
        assert sum(wallets.values()) == 400
        assert (await audit(session)).ok

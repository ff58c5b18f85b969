"""Accounts, passwords and sessions on both databases."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from argon2 import PasswordHasher
from argon2.profiles import CHEAPEST
from sqlalchemy import event, select

from rummyhall.economy.audit import audit
from rummyhall.store import accounts
from rummyhall.store.accounts import AccountError
from rummyhall.store.database import Database
from rummyhall.store.models import AccountModel, SessionModel, utcnow


async def register(db: Database, name: str, password: str = "correct horse") -> accounts.Account:
    async with db.transaction() as session:
        return await accounts.register(session, name, password)


async def test_register(db: Database) -> None:
    account = await register(db, "Asha_99")
    assert (account.name, account.is_guest, account.is_bot) == ("Asha_99", False, False)
    assert account.created_at.tzinfo is not None
    async with db.read() as session:
        assert await accounts.get_account(session, account.id) == account
        assert await accounts.find_account(session, "asha_99") == account
        assert await accounts.find_account(session, "nobody") is None
        assert await accounts.get_account(session, 10**6) is None
        # The store keeps accounts and mints nothing: starting chips are the economy's
        # (rummyhall.economy.wallets, tests/economy/test_wallets.py).
        report = await audit(session)
    assert report.ok
    assert report.transactions == report.minted == 0


async def test_password_is_hashed_with_argon2id(db: Database) -> None:
    account = await register(db, "hasher", "my secret pass")
    async with db.read() as session:
        stored = await session.scalar(
            select(AccountModel.password_hash).where(AccountModel.id == account.id)
        )
    assert stored is not None
    assert stored.startswith("$argon2id$")
    assert "my secret pass" not in stored


@pytest.mark.parametrize(
    ("name", "password", "code"),
    [
        ("ab", "long enough", "bad_name"),
        ("a" * 21, "long enough", "bad_name"),
        ("with space", "long enough", "bad_name"),
        ("émile", "long enough", "bad_name"),
        ("guest-1234", "long enough", "bad_name"),
        ("GUEST-x", "long enough", "bad_name"),
        ("fine-name", "short", "weak_password"),
        ("fine-name", "x" * 1025, "weak_password"),
    ],
)
async def test_registration_rules(db: Database, name: str, password: str, code: str) -> None:
    async with db.transaction() as session:
        with pytest.raises(AccountError) as caught:
            await accounts.register(session, name, password)
        assert caught.value.code == code


async def test_names_are_unique_whatever_their_case(db: Database) -> None:
    await register(db, "Ravi")
    with pytest.raises(AccountError) as caught:
        await register(db, "rAVI")
    assert caught.value.code == "name_taken"


async def test_racing_registrations_of_one_name(db: Database) -> None:
    async def attempt(name: str) -> str:
        try:
            await register(db, name)
        except AccountError as exc:
            return exc.code
        return "ok"

    results = await asyncio.gather(*(attempt(n) for n in ["Meera", "meera", "MEERA", "MeErA"]))
    assert sorted(results) == ["name_taken"] * 3 + ["ok"]
    async with db.read() as session:
        names = (await session.scalars(select(AccountModel.name))).all()
    assert [name.lower() for name in names] == ["meera"]


async def test_a_lost_name_race_leaves_the_transaction_usable(db: Database) -> None:
    # The name check passes (the rival has not committed), then the insert collides: the
    # savepoint keeps the caller's transaction alive on PostgreSQL.
    await register(db, "Kiran")
    async with db.transaction() as session:
        with pytest.raises(AccountError):
            await accounts._create(session, "KIRAN")
        other = await accounts.create_guest(session)
    async with db.read() as session:
        assert await accounts.get_account(session, other.id) == other


async def test_guests_and_bots(db: Database) -> None:
    async with db.transaction() as session:
        guests = [await accounts.create_guest(session) for _ in range(3)]
        bot = await accounts.create_bot(session, "Bot-Asha")
        with pytest.raises(AccountError) as caught:
            await accounts.create_bot(session, "bot-asha")
        assert caught.value.code == "name_taken"
        with pytest.raises(AccountError):
            await accounts.create_bot(session, "no spaces")
        for guest in guests:
            assert guest.is_guest and not guest.is_bot
            assert guest.name.startswith("guest-") and guest.name[6:].isdigit()
        assert len({guest.name for guest in guests}) == 3
        assert bot.is_bot and not bot.is_guest
        assert await accounts.list_bots(session) == [bot]
        assert (await audit(session)).minted == 0
        # Neither has a password to log in with.
        for account in (*guests, bot):
            with pytest.raises(AccountError):
                await accounts.authenticate(session, account.name, "")


async def test_a_guest_name_already_taken_is_drawn_again(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A guest's name is tried by inserting it; a name taken (here drawn on purpose) is left
    alone, the transaction goes on, and the next draw names the guest."""
    draws = iter([234, 234, 234, 235])  # guest-1234, then guest-1234 twice more, guest-1235
    monkeypatch.setattr(accounts.secrets, "randbelow", lambda _: next(draws))
    statements: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        statements.append(statement)

    async with db.transaction() as session:
        first = await accounts.create_guest(session)
        event.listen(db.engine.sync_engine, "before_cursor_execute", seen)
        try:
            second = await accounts.create_guest(session)
        finally:
            event.remove(db.engine.sync_engine, "before_cursor_execute", seen)
    assert (first.name, second.name) == ("guest-1234", "guest-1235")
    # One statement a draw (three draws), each an insert: no look-up, no savepoint.
    assert len(statements) == 3 and all(s.lstrip().upper().startswith("INSERT") for s in statements)
    async with db.read() as session:
        assert await accounts.get_account(session, first.id) == first
        assert await accounts.get_account(session, second.id) == second
        names = await session.scalars(select(AccountModel.name).order_by(AccountModel.id))
        assert list(names) == ["guest-1234", "guest-1235"]


async def test_a_batch_of_guests_is_one_insert_a_round(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch of sign-ups makes its guests together: one insert for all of them, and one more
    round for the names that were taken (by an earlier guest, or drawn twice in the batch)."""
    draws = iter([234, 300, 300, 234, 301, 302])
    monkeypatch.setattr(accounts.secrets, "randbelow", lambda _: next(draws))
    statements: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        statements.append(statement)

    async with db.transaction() as session:
        first = await accounts.create_guest(session)  # guest-1234
        event.listen(db.engine.sync_engine, "before_cursor_execute", seen)
        try:
            # Round 1 draws guest-1300 twice and guest-1234 (taken): one made. Round 2 makes
            # the other two.
            made = await session.run_sync(
                lambda sync: accounts.create_guests_on(sync.connection(), 3)
            )
        finally:
            event.remove(db.engine.sync_engine, "before_cursor_execute", seen)
    assert [guest.name for guest in made] == ["guest-1300", "guest-1301", "guest-1302"]
    assert [guest.id for guest in made] == sorted(guest.id for guest in made)
    assert len(statements) == 2 and all(s.lstrip().upper().startswith("INSERT") for s in statements)
    async with db.read() as session:
        for guest in (first, *made):
            assert await accounts.get_account(session, guest.id) == guest


async def test_crowded_guest_names_grow_longer(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Five rounds at one length that still leave guests without a name: the names grow by two
    digits (every four-digit draw here is the one name already taken)."""
    longer = iter(range(5, 10))
    monkeypatch.setattr(
        accounts.secrets, "randbelow", lambda n: 234 if n == 9 * 10**3 else next(longer)
    )
    async with db.transaction() as session:
        await accounts.create_guest(session)  # guest-1234
        made = await session.run_sync(lambda sync: accounts.create_guests_on(sync.connection(), 2))
    assert [guest.name for guest in made] == ["guest-100005", "guest-100006"]


async def test_sessions_made_and_ended_together(db: Database) -> None:
    async with db.transaction() as session:
        guests = [await accounts.create_guest(session) for _ in range(3)]
        tokens = await session.run_sync(
            lambda sync: accounts.create_sessions_on(sync.connection(), [g.id for g in guests])
        )
    assert len(set(tokens)) == 3
    async with db.read() as session:
        assert [await accounts.session_account(session, t) for t in tokens] == guests
    async with db.transaction() as session:
        await session.run_sync(
            lambda sync: accounts.end_sessions_on(sync.connection(), [tokens[0], tokens[2]])
        )
    async with db.read() as session:
        found = [await accounts.session_account(session, t) for t in tokens]
    assert found == [None, guests[1], None]


async def test_authenticate(db: Database) -> None:
    account = await register(db, "Nila", "open sesame")
    async with db.read() as session:
        assert await accounts.authenticate(session, "nila", "open sesame") == account
        for name, password in [("Nila", "open sesamE"), ("Nila", ""), ("nobody", "open sesame")]:
            with pytest.raises(AccountError) as caught:
                await accounts.authenticate(session, name, password)
            assert caught.value.code == "bad_login"


async def test_old_hashes_are_upgraded_at_login(db: Database) -> None:
    account = await register(db, "upgrade", "old parameters")
    stronger = PasswordHasher(time_cost=2, memory_cost=16, parallelism=1)
    previous = accounts.password_hasher()
    accounts.set_password_hasher(stronger)
    try:
        async with db.read() as session:  # read sessions check, but do not write
            await accounts.authenticate(session, "upgrade", "old parameters")
        async with db.transaction() as session:
            assert await accounts.authenticate(session, "upgrade", "old parameters") == account
        async with db.read() as session:
            stored = await session.scalar(
                select(AccountModel.password_hash).where(AccountModel.id == account.id)
            )
        assert stored is not None
        assert not stronger.check_needs_rehash(stored)
        assert PasswordHasher.from_parameters(CHEAPEST).check_needs_rehash(stored)
        async with db.read() as session:
            assert await accounts.authenticate(session, "upgrade", "old parameters") == account
    finally:
        accounts.set_password_hasher(previous)


async def test_change_password(db: Database) -> None:
    account = await register(db, "changer", "first password")
    async with db.transaction() as session:
        with pytest.raises(AccountError) as caught:
            await accounts.change_password(session, account.id, "wrong password", "second one")
        assert caught.value.code == "bad_login"
        with pytest.raises(AccountError) as caught:
            await accounts.change_password(session, account.id, "first password", "short")
        assert caught.value.code == "weak_password"
        await accounts.change_password(session, account.id, "first password", "second password")
    async with db.read() as session:
        assert await accounts.authenticate(session, "changer", "second password") == account
        with pytest.raises(AccountError):
            await accounts.authenticate(session, "changer", "first password")


async def test_sessions(db: Database) -> None:
    account = await register(db, "sessions")
    async with db.transaction() as session:
        token = await accounts.create_session(session, account.id)
        other = await accounts.create_session(session, account.id)
    assert token != other
    assert len(token) >= 43
    async with db.transaction() as session:
        assert await accounts.session_account(session, token) == account
        assert await accounts.session_account(session, "made-up") is None
        assert await accounts.session_account(session, "") is None
        # Only the token's hash is stored.
        stored = list(await session.scalars(select(SessionModel.token_hash)))
        assert token not in stored and len(stored) == 2
        await accounts.end_session(session, token)
        await accounts.end_session(session, token)  # twice: harmless
        await accounts.end_session(session, "made-up")
    async with db.read() as session:
        assert await accounts.session_account(session, token) is None
        assert await accounts.session_account(session, other) == account


async def test_sessions_expire(db: Database) -> None:
    account = await register(db, "expiring")
    start = utcnow()
    async with db.transaction() as session:
        token = await accounts.create_session(session, account.id, now=start)
    thirty_days = accounts.SESSION_TTL
    assert thirty_days == timedelta(days=30)
    async with db.transaction() as session:
        before = start + thirty_days - timedelta(seconds=1)
        assert await accounts.session_account(session, token, now=before) == account
        after = start + thirty_days
        assert await accounts.session_account(session, token, now=after) is None
        assert await accounts.purge_sessions(session, now=after) == 1
        assert await accounts.purge_sessions(session, now=after) == 0

"""The memory of who is signed in (server/signed_in.py): answers lapse, ended sessions are
forgotten at once, a lookup that raced an ending is not remembered, and the memory is bounded."""

from __future__ import annotations

from datetime import UTC, datetime

from rummyhall.server.signed_in import SignedIn
from rummyhall.store.accounts import Account


def _account(number: int) -> Account:
    return Account(number, f"p{number}", False, False, datetime(2026, 1, 1, tzinfo=UTC))


def test_an_answer_is_remembered_until_it_lapses() -> None:
    now = [0.0]
    cache = SignedIn(ttl_s=30, now=lambda: now[0])
    asha = _account(1)
    assert cache.get("t1") is None
    cache.put("t1", asha, cache.mark())
    assert cache.get("t1") == asha
    now[0] = 29.9
    assert cache.get("t1") == asha
    now[0] = 30.0
    assert cache.get("t1") is None  # ask the database again


def test_ended_sessions_are_forgotten_and_a_racing_lookup_is_not_remembered() -> None:
    cache = SignedIn()
    asha, ravi = _account(1), _account(2)
    for token, account in (("a1", asha), ("a2", asha), ("a3", asha), ("r1", ravi)):
        cache.put(token, account, cache.mark())
    cache.forget("a1")
    assert cache.get("a1") is None and cache.get("a2") == asha
    # A password change: every other session of the account goes, the one kept stays.
    cache.forget_account(asha.id, keep="a2")
    assert (cache.get("a2"), cache.get("a3"), cache.get("r1")) == (asha, None, ravi)
    # A lookup that asked the database before a session ended may have seen it alive.
    mark = cache.mark()
    cache.forget("r2")
    cache.put("r2", ravi, mark)
    assert cache.get("r2") is None


def test_the_memory_is_bounded() -> None:
    cache = SignedIn(size=3)
    for n in range(5):
        cache.put(f"t{n}", _account(n), cache.mark())
    assert [cache.get(f"t{n}") is not None for n in range(5)] == [False, False, True, True, True]

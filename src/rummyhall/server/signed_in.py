"""Who a session token belongs to, remembered for a short while.

Every HTTP request with a session cookie and every WebSocket handshake asks who is signed in. On
a busy room that was one read transaction each (three trips to the database's thread on SQLite),
and a burst of a thousand players arriving made thousands of them. The answer changes only when
a session ends, and sessions end here: a logout, a new sign-in in the same browser, a password
change that signs out the other sessions. Those forget what they end at once; an entry also
lapses after :data:`TTL_S`, so a session that expires, or is ended by another process, stops
working within that time. Unknown tokens are not remembered (a flood of made-up tokens must not
fill the memory), and the number of entries is bounded.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final

from rummyhall.store.accounts import Account

TTL_S: Final = 30.0
SIZE: Final = 100_000


class SignedIn:
    def __init__(
        self, *, ttl_s: float = TTL_S, size: int = SIZE, now: Callable[[], float] = time.monotonic
    ) -> None:
        self._ttl = ttl_s
        self._size = size
        self._now = now
        self._entries: dict[str, tuple[Account, float]] = {}
        """Token -> (account, when the entry lapses), oldest first."""
        self._ended = 0
        """How many times sessions were forgotten: a lookup that started before one of them
        does not remember its answer (it may be the session just ended)."""

    def get(self, token: str) -> Account | None:
        """The account of ``token`` if remembered and not lapsed, else None (ask the database,
        then :meth:`put`)."""
        entry = self._entries.get(token)
        if entry is None:
            return None
        if entry[1] <= self._now():
            del self._entries[token]
            return None
        return entry[0]

    def mark(self) -> int:
        """Taken before asking the database; give it to :meth:`put`."""
        return self._ended

    def put(self, token: str, account: Account, mark: int) -> None:
        if mark != self._ended:
            return  # a session ended while the database was asked: maybe this one
        if len(self._entries) >= self._size:
            del self._entries[next(iter(self._entries))]
        self._entries[token] = (account, self._now() + self._ttl)

    def forget(self, token: str) -> None:
        """The session of ``token`` ended."""
        self._ended += 1
        self._entries.pop(token, None)

    def forget_account(self, account_id: int, *, keep: str | None = None) -> None:
        """Every session of the account ended but ``keep``'s (a password change)."""
        self._ended += 1
        for token in [t for t, (a, _) in self._entries.items() if a.id == account_id]:
            if token != keep:
                del self._entries[token]

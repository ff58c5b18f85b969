"""The WebSockets open per login session, so that a session that ends takes its sockets with it.

A socket is checked against its session cookie once, at the handshake. Without this registry a
socket would outlive its session: signed out, or signed out everywhere else by a password change
(the point of which is to shut out whoever knew the old password), it would go on watching and
playing. Ending a session here closes its sockets with 4401, as if they had just opened without
a session.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

Closer = Callable[[], Awaitable[None]]


class OpenSockets:
    def __init__(self) -> None:
        self._open: dict[int, dict[Closer, str]] = {}
        """Account -> each open socket's closer -> the session token it opened with."""

    def add(self, account_id: int, token: str, close: Closer) -> None:
        self._open.setdefault(account_id, {})[close] = token

    def remove(self, account_id: int, close: Closer) -> None:
        sockets = self._open.get(account_id)
        if sockets is not None:
            sockets.pop(close, None)
            if not sockets:
                del self._open[account_id]

    async def end(
        self, account_id: int, *, token: str | None = None, keep: str | None = None
    ) -> int:
        """Close the account's sockets of session ``token`` (None: of every session but
        ``keep``); how many were closed."""
        closers = [
            close
            for close, opened_with in self._open.get(account_id, {}).items()
            if (opened_with == token if token is not None else opened_with != keep)
        ]
        for close in closers:
            self.remove(account_id, close)
        await asyncio.gather(*(close() for close in closers), return_exceptions=True)
        return len(closers)

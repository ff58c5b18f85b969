"""Errors of the room (not of a game's rules, which are :class:`~rummyhall.games.protocol.GameError`
s): each has a stable ``code`` that clients translate, and a message for people."""

from __future__ import annotations


class RoomError(Exception):
    def __init__(
        self, code: str, message: str, status: int = 400, *, retry_after: int | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.retry_after = retry_after
        """Seconds to wait before trying again (HTTP ``Retry-After``; ``rate_limited``,
        ``busy``)."""

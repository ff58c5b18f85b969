"""Bots: one per game. A bot sees only what its seat may see: it gets the seat's view (the same
data a client gets) and answers with the next action in the game's notation, or None.

Each game's bot lives in its folder, ``rummyhall/games/<name>/bot.py``, and its catalog entry
(:attr:`rummyhall.catalog.GamePlugin.bot`) makes one from a seed; this package keeps what they
share, the :class:`Bot` protocol.
"""

from __future__ import annotations

from typing import Protocol

from rummyhall.games.protocol import View


class Bot(Protocol):
    """What a table needs from a bot."""

    def act(self, view: View) -> str | None:
        """The next action for the seat whose ``view`` this is, or None if it has nothing to do."""
        ...


__all__ = ["Bot"]

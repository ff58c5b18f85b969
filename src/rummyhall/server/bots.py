"""Bots at live tables: which bot plays which game, and how they think (with a human pace)."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from rummyhall.bots import Bot

_FACTORIES: dict[str, tuple[str, str]] = {
    "indian13": ("rummyhall.games.indian13.bot", "Indian13Bot"),
    "patti": ("rummyhall.games.patti.bot", "PattiBot"),
}

BOT_NAMES = (
    "Asha", "Bharat", "Chitra", "Dev", "Esha", "Farhan", "Gita", "Hari", "Indu", "Jai",
    "Kavya", "Lal", "Mira", "Nikhil", "Oja", "Pooja", "Ravi", "Sita", "Tara", "Uma",
    "Vikram", "Yash", "Zoya", "Arjun",
)  # fmt: skip


def bot_factory(game: str) -> Callable[[int], Bot]:
    """A function from a seed to a new bot for ``game``; ValueError if the game has none."""
    where = _FACTORIES.get(game)
    if where is None:
        raise ValueError(f"there is no bot for {game!r}")
    module = importlib.import_module(where[0])
    cls = getattr(module, where[1])

    def make(seed: int) -> Bot:
        bot: Bot = cls(seed=seed)
        return bot

    return make

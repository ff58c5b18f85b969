"""Bots at live tables: which bot plays which game, and how they think (with a human pace)."""

from __future__ import annotations

from rummyhall import catalog
from rummyhall.catalog import MakeBot

BOT_NAMES = (
    "Asha", "Bharat", "Chitra", "Dev", "Esha", "Farhan", "Gita", "Hari", "Indu", "Jai",
    "Kavya", "Lal", "Mira", "Nikhil", "Oja", "Pooja", "Ravi", "Sita", "Tara", "Uma",
    "Vikram", "Yash", "Zoya", "Arjun",
)  # fmt: skip


def bot_factory(game: str) -> MakeBot:
    """A function from a seed to a new bot for ``game`` (its catalog entry's); ValueError if the
    game has none."""
    try:
        return catalog.get(game).bot
    except catalog.UnknownGame:
        raise ValueError(f"there is no bot for {game!r}") from None

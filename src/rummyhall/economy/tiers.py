"""The six room tiers, Desert to Forest: what a game costs and pays in each, how much faster it
climbs the levels, and which title opens it (rules are data: DESIGN.md, principle 6). Source: the
room table of the Rummy 51 page's second part; docs/progression.md says it in our words.

A tier is not a room: every game of the catalog offers rooms in the tiers, at stakes that fit the
game (each game's ``rooms.py``); the tier gives those rooms their lock and their clover
multiplier. The stake and the reward here are the page's, which Rummy 51's tier rooms play with
(every player pays the stake, the winner gets it back with the reward).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from rummyhall.economy.levels import title_level


@dataclass(frozen=True, slots=True)
class Tier:
    key: str
    name: str
    title: str
    """The title that opens the tier's rooms."""
    stake: int
    reward: int
    """What the winner of a game gets on top of their stake back."""
    multiplier_tenths: int
    """The clover multiplier in tenths (22: x2.2), so clover stays integer arithmetic."""

    @property
    def level(self) -> int:
        """The level that opens the tier's rooms (the level of its title)."""
        return title_level(self.title)

    @property
    def multiplier(self) -> str:
        """The multiplier as people read it: "x2.2"."""
        return f"x{self.multiplier_tenths // 10}.{self.multiplier_tenths % 10}"

    def open_to(self, level: int) -> bool:
        return level >= self.level

    def to_json(self) -> dict[str, object]:
        return {
            "key": self.key,
            "name": self.name,
            "title": self.title,
            "level": self.level,
            "stake": self.stake,
            "reward": self.reward,
            "multiplier": self.multiplier,
        }


TIERS: Final = (
    Tier("desert", "Desert", "Ant", 10, 10, 10),
    Tier("tundra", "Tundra", "Frog", 20, 25, 22),
    Tier("steppe", "Steppe", "Snake", 30, 40, 34),
    Tier("savannah", "Savannah", "Wolf", 40, 55, 46),
    Tier("oasis", "Oasis", "Eagle", 50, 75, 58),
    Tier("forest", "Forest", "Elephant", 60, 90, 70),
)
"""Lowest first; a tier's position here is its rank (leagues use the same order)."""

_BY_KEY: Final = {tier.key: tier for tier in TIERS}


def tier(key: str) -> Tier:
    """The tier called ``key`` (ValueError for an unknown one)."""
    found = _BY_KEY.get(key)
    if found is None:
        raise ValueError(f"unknown room tier {key!r}")
    return found


def rank(key: str) -> int:
    """The tier's place in :data:`TIERS`, Desert 0."""
    return TIERS.index(tier(key))

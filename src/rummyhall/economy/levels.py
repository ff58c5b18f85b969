"""Levels 1-50, their titles, what each level brings, and the silver limit (rules are data:
DESIGN.md, principle 6). Source: the level table of the Rummy 51 page's second part and the "Chips,
rooms and progression" section of DECISIONS.md; docs/progression.md says it in our words.

A player's level follows from the clover points they have ever earned: level ``n`` needs the
clover of every step below it (:data:`LEVELS`' ``to_next``), so a player at 100 clover is level 2
and at 250 level 3. The level is never stored apart from the clover that makes it, so the two
cannot disagree.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate
from typing import Final


@dataclass(frozen=True, slots=True)
class Level:
    number: int
    title: str
    to_next: int
    """Clover points from this level to the next (0 at the top level)."""
    daily_bonus: int
    """What this level adds to the daily bonus (the table's last column)."""


TITLES: Final = (
    ("Ant", 1), ("Butterfly", 3), ("Frog", 6), ("Turtle", 9), ("Snake", 12), ("Fox", 15),
    ("Wolf", 18), ("Monkey", 21), ("Alligator", 24), ("Eagle", 27), ("Bear", 30), ("Rhino", 34),
    ("Elephant", 38), ("Leopard", 42), ("Lion", 46),
)  # fmt: skip
"""The 15 titles, each with the level that brings it, lowest first."""

_TO_NEXT: Final = (
    100, 150, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1400, 1800, 2200, 2600, 3000, 3500,
    4000, 4500, 5000, 5500, 6000, 7000, 8000, 9000, 10000, 12000, 14000, 16000, 18000, 20000,
    22000, 24000, 27000, 30000, 33000, 36000, 40000, 44000, 48000, 52000, 65000, 70000, 75000,
    80000, 85000, 90000, 95000, 100000, 0,
)  # fmt: skip
_DAILY_BONUS: Final = (
    0, 10, 10, 10, 10, 15, 15, 15, 20, 20, 20, 25, 25, 25, 30, 30, 30, 35, 35, 35, 40, 40, 40, 45,
    45, 45, 50, 50, 50, 55, 55, 55, 55, 60, 60, 65, 65, 70, 70, 75, 75, 80, 80, 85, 85, 90, 90,
    95, 95, 100,
)  # fmt: skip

MAX_LEVEL: Final = len(_TO_NEXT)
SILVER_LIMIT_START: Final = 100
"""The silver limit at level 1..."""
SILVER_LIMIT_PER_LEVEL: Final = 4
"""... and what each level gained adds to it (DECISIONS: the page's example at level 20 is
wrong; the stated rule wins)."""


def title_of(number: int) -> str:
    """The title a player of level ``number`` holds."""
    return [name for name, first in TITLES if first <= number][-1]


LEVELS: Final = tuple(
    Level(number, title_of(number), to_next, bonus)
    for number, (to_next, bonus) in enumerate(zip(_TO_NEXT, _DAILY_BONUS, strict=True), start=1)
)
"""Level 1 first."""

_REACHED_AT: Final = (0, *accumulate(_TO_NEXT[:-1]))
"""The clover points (all ever earned) at which each level is reached, level 1 first."""


def level(number: int) -> Level:
    if not 1 <= number <= MAX_LEVEL:
        raise ValueError(f"levels go from 1 to {MAX_LEVEL}")
    return LEVELS[number - 1]


def level_for(clover: int) -> Level:
    """The level of a player who has earned ``clover`` points in all."""
    return LEVELS[bisect_right(_REACHED_AT, max(0, clover)) - 1]


def clover_at(number: int) -> int:
    """The clover points (in all) that reach level ``number``."""
    level(number)
    return _REACHED_AT[number - 1]


def title_level(title: str) -> int:
    """The level that brings ``title`` (ValueError for a name that is no title)."""
    for name, first in TITLES:
        if name == title:
            return first
    raise ValueError(f"no title is called {title!r}")


def silver_limit(number: int) -> int:
    """The most silver chips a daily bonus fills a player of level ``number`` up to."""
    level(number)
    return SILVER_LIMIT_START + SILVER_LIMIT_PER_LEVEL * (number - 1)


@dataclass(frozen=True, slots=True)
class Progress:
    """Where a player stands on the ladder, for their profile."""

    clover: int
    level: Level
    into_level: int
    """Clover earned since this level was reached."""
    next_title: str | None
    next_title_level: int | None

    @classmethod
    def of(cls, clover: int) -> Progress:
        current = level_for(clover)
        upcoming = [(name, first) for name, first in TITLES if first > current.number]
        return cls(
            clover=clover,
            level=current,
            into_level=clover - clover_at(current.number),
            next_title=upcoming[0][0] if upcoming else None,
            next_title_level=upcoming[0][1] if upcoming else None,
        )

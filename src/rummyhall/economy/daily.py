"""The daily bonus of silver chips: one claim per day, days starting at midnight in Berlin (the
rules page's clock, summer time and winter time alike), worth a base, a streak bonus for days
claimed in a row and the level's bonus, and filled only up to the silver limit: what would go
beyond it is lost, and the answer says so. Pure: the time comes in as an argument; the claim is
written by :mod:`rummyhall.store.progress`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Final
from zoneinfo import ZoneInfo

from rummyhall.economy.levels import level, silver_limit

BONUS_ZONE: Final = ZoneInfo("Europe/Berlin")


@dataclass(frozen=True, slots=True)
class DailyRules:
    """The numbers of the daily bonus (the page names the parts, not their size: ours)."""

    base: int = 20
    streak_step: int = 5
    """What each day in a row after the first adds..."""
    streak_max: int = 30
    """... up to this."""


DAILY: Final = DailyRules()


def bonus_day(now_ms: int) -> date:
    """The bonus day (a date in Berlin) of an instant (ms since the epoch, UTC)."""
    return datetime.fromtimestamp(now_ms / 1000, UTC).astimezone(BONUS_ZONE).date()


def next_midnight_ms(now_ms: int) -> int:
    """When the next bonus day starts, in ms since the epoch: Berlin's next midnight, 23, 24 or
    25 hours after the last one."""
    following = bonus_day(now_ms) + timedelta(days=1)
    return int(datetime.combine(following, time(), BONUS_ZONE).timestamp() * 1000)


@dataclass(frozen=True, slots=True)
class DailyBonus:
    """One day's bonus, part by part, and what of it reached the wallet."""

    day: date
    streak: int
    """Days in a row with this one, 1 for a first day or after a gap."""
    base: int
    streak_bonus: int
    level_bonus: int
    limit: int
    credited: int
    """What the wallet receives: the total, less what the limit cuts off."""

    @property
    def total(self) -> int:
        return self.base + self.streak_bonus + self.level_bonus

    @property
    def lost(self) -> int:
        """What the silver limit cut off."""
        return self.total - self.credited

    def to_json(self) -> dict[str, object]:
        return {
            "day": self.day.isoformat(),
            "streak": self.streak,
            "base": self.base,
            "streak_bonus": self.streak_bonus,
            "level_bonus": self.level_bonus,
            "total": self.total,
            "limit": self.limit,
            "credited": self.credited,
            "lost": self.lost,
        }


def daily_bonus(
    day: date,
    *,
    last_day: date | None,
    last_streak: int,
    level_number: int,
    silver: int,
    rules: DailyRules = DAILY,
) -> DailyBonus:
    """The bonus of ``day`` for a player whose last claim was on ``last_day`` (with that
    streak), of that level, holding ``silver`` chips in their silver wallet now. The caller has
    checked that ``day`` has no claim yet."""
    streak = last_streak + 1 if last_day == day - timedelta(days=1) else 1
    streak_bonus = min(rules.streak_max, rules.streak_step * (streak - 1))
    limit = silver_limit(level_number)
    total = rules.base + streak_bonus + level(level_number).daily_bonus
    return DailyBonus(
        day=day,
        streak=streak,
        base=rules.base,
        streak_bonus=streak_bonus,
        level_bonus=level(level_number).daily_bonus,
        limit=limit,
        credited=max(0, min(total, limit - silver)),
    )

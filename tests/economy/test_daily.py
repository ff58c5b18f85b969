"""The daily bonus (economy/daily.py): Berlin's midnight through both changes of the clocks, the
streak, the level's bonus and the silver limit's cut."""

from __future__ import annotations

from datetime import UTC, date, datetime

from rummyhall.economy.daily import DAILY, bonus_day, daily_bonus, next_midnight_ms


def ms(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp() * 1000)


def test_the_day_turns_at_midnight_in_berlin_winter_and_summer() -> None:
    # Winter (UTC+1): midnight in Berlin is 23:00 UTC the evening before.
    assert bonus_day(ms("2026-01-14T22:59:59")) == date(2026, 1, 14)
    assert bonus_day(ms("2026-01-14T23:00:00")) == date(2026, 1, 15)
    # Summer (UTC+2): 22:00 UTC.
    assert bonus_day(ms("2026-07-14T21:59:59")) == date(2026, 7, 14)
    assert bonus_day(ms("2026-07-14T22:00:00")) == date(2026, 7, 15)


def test_the_days_the_clocks_change_last_23_and_25_hours() -> None:
    hour = 3_600_000
    spring = ms("2026-03-28T23:00:00")  # midnight of Sunday 29 March in Berlin (still UTC+1)
    assert bonus_day(spring) == date(2026, 3, 29)
    assert next_midnight_ms(spring) - spring == 23 * hour
    autumn = ms("2026-10-24T22:00:00")  # midnight of Sunday 25 October (still UTC+2)
    assert bonus_day(autumn) == date(2026, 10, 25)
    assert next_midnight_ms(autumn) - autumn == 25 * hour
    assert next_midnight_ms(autumn + 24 * hour) == autumn + 25 * hour


def test_a_first_day_pays_the_base_and_the_levels_bonus() -> None:
    bonus = daily_bonus(date(2026, 5, 1), last_day=None, last_streak=0, level_number=6, silver=0)
    assert (bonus.streak, bonus.streak_bonus) == (1, 0)
    assert bonus.total == DAILY.base + 15
    assert bonus.credited == bonus.total and bonus.lost == 0


def test_days_in_a_row_grow_the_streak_and_a_gap_starts_it_again() -> None:
    day = date(2026, 5, 2)
    second = daily_bonus(day, last_day=date(2026, 5, 1), last_streak=1, level_number=1, silver=0)
    assert (second.streak, second.streak_bonus) == (2, DAILY.streak_step)
    long = daily_bonus(day, last_day=date(2026, 5, 1), last_streak=40, level_number=1, silver=0)
    assert long.streak_bonus == DAILY.streak_max
    after_gap = daily_bonus(
        day, last_day=date(2026, 4, 30), last_streak=9, level_number=1, silver=0
    )
    assert (after_gap.streak, after_gap.streak_bonus) == (1, 0)


def test_silver_beyond_the_limit_is_lost() -> None:
    # The page's example: 80 held, a limit of 100, a bonus of 70: 20 arrive, 50 are lost.
    rules = DAILY.__class__(base=70, streak_step=0, streak_max=0)
    bonus = daily_bonus(
        date(2026, 5, 2), last_day=None, last_streak=0, level_number=1, silver=80, rules=rules
    )
    assert (bonus.total, bonus.limit, bonus.credited, bonus.lost) == (70, 100, 20, 50)
    full = daily_bonus(
        date(2026, 5, 2), last_day=None, last_streak=0, level_number=1, silver=150, rules=rules
    )
    assert (full.credited, full.lost) == (0, 70)

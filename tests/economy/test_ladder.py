"""The ladder's numbers against the rules page's worked examples: levels and titles, the silver
limit, room tiers, clover points and the rating (economy/levels.py, tiers.py, progression.py)."""

from __future__ import annotations

import pytest

from rummyhall.economy import levels, progression, tiers
from rummyhall.economy.levels import Progress, clover_at, level_for, silver_limit, title_level
from rummyhall.economy.progression import clover, game_points, rating, rating_points
from rummyhall.games.protocol import Standing, places_by_chips


def test_clover_points_of_the_pages_example() -> None:
    # Second place, opened, five cards left (ten thrown), in Tundra (x2.2): 80 x 2.2 = 176.
    second = Standing(place=2, cards_thrown=15 - 5, opened=True)
    assert game_points(second) == 80
    assert clover(second, tiers.tier("tundra").multiplier_tenths) == 176
    # The page's Steppe example: 80 points times 3.4 are 272.
    assert clover(Standing(place=1), tiers.tier("steppe").multiplier_tenths) == 272


def test_a_winner_who_opened_scores_one_hundred_and_places_below_fourth_count_as_fourth() -> None:
    assert game_points(Standing(place=1, cards_thrown=15, opened=True)) == 100
    assert [game_points(Standing(place=p)) for p in (1, 2, 3, 4, 5, 6)] == [80, 65, 50, 35, 35, 35]


def test_a_rummy_adds_its_bonus_to_clover_but_the_rating_takes_at_most_100() -> None:
    rummy = Standing(place=1, cards_thrown=15, opened=True, rummy=True)
    assert game_points(rummy) == 100 + progression.LADDER.rummy_bonus
    assert rating_points(rummy) == 100
    assert clover(rummy, 10) == 110


def test_rating_of_the_pages_example_and_its_minimum_of_games() -> None:
    assert rating(1574, 20) == 7870
    assert rating(1574 + 100, 21) == 7971
    assert rating(1900, 19) is None
    assert rating(0, 20) == 0


def test_levels_follow_the_clover_earned() -> None:
    assert level_for(0).number == 1
    assert level_for(99).number == 1
    assert level_for(100).number == 2  # level 2 needs 100 clover points
    assert level_for(249).number == 2
    assert level_for(250).number == 3  # then 150 more
    assert clover_at(50) == sum(level.to_next for level in levels.LEVELS)
    assert level_for(clover_at(50) - 1).number == 49
    assert level_for(10**12).number == 50
    assert levels.level(50).to_next == 0


def test_titles_and_the_levels_that_bring_them() -> None:
    assert levels.level(1).title == "Ant"
    assert levels.level(2).title == "Ant"
    assert title_level("Butterfly") == 3
    assert title_level("Frog") == 6
    assert title_level("Lion") == 46
    assert levels.level(45).title == "Leopard"
    assert len({level.title for level in levels.LEVELS}) == 15
    with pytest.raises(ValueError):
        title_level("Dragon")


def test_the_silver_limit_grows_four_a_level() -> None:
    assert silver_limit(1) == 100
    assert silver_limit(2) == 104
    # DECISIONS: the page's "180 at level 20" contradicts its rule; the rule wins.
    assert silver_limit(20) == 176
    assert silver_limit(50) == 296


def test_the_level_table_last_column_is_each_levels_daily_bonus() -> None:
    assert [levels.level(n).daily_bonus for n in (1, 2, 6, 33, 34, 36, 50)] == [
        0, 10, 15, 55, 60, 65, 100,
    ]  # fmt: skip


def test_room_tiers_open_with_their_titles() -> None:
    opened = {tier.name: (tier.title, tier.level) for tier in tiers.TIERS}
    assert opened == {
        "Desert": ("Ant", 1),
        "Tundra": ("Frog", 6),
        "Steppe": ("Snake", 12),
        "Savannah": ("Wolf", 18),
        "Oasis": ("Eagle", 27),
        "Forest": ("Elephant", 38),
    }
    assert [t.multiplier for t in tiers.TIERS] == ["x1.0", "x2.2", "x3.4", "x4.6", "x5.8", "x7.0"]
    tundra = tiers.tier("tundra")
    assert (tundra.stake, tundra.reward) == (20, 25)
    assert not tundra.open_to(5) and tundra.open_to(6)
    assert tiers.rank("desert") == 0 and tiers.rank("forest") == 5


def test_progress_to_the_next_level_and_title() -> None:
    progress = Progress.of(180)
    assert progress.level.number == 2
    assert progress.into_level == 80
    assert (progress.next_title, progress.next_title_level) == ("Butterfly", 3)
    assert Progress.of(10**9).next_title is None


def test_places_by_chips_share_ties() -> None:
    standings = places_by_chips({1: -30, 2: 110, 3: -30, 4: 72, 5: -52, 6: -70})
    assert {seat: s.place for seat, s in standings.items()} == {
        2: 1, 4: 2, 1: 3, 3: 3, 5: 5, 6: 6,
    }  # fmt: skip

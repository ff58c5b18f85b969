"""The leagues' rules (economy/leagues.py): seasons on Berlin days, which games count, and every
way a season can end for a player."""

from __future__ import annotations

from datetime import UTC, datetime

from rummyhall.economy import leagues
from rummyhall.economy.leagues import (
    BLOCKED,
    DOWN,
    OUT,
    STAY,
    UP,
    LeagueRule,
    LeagueRules,
    Member,
    counts_for,
    decide,
    season_of,
    season_start_ms,
)
from rummyhall.economy.tiers import TIERS

OPEN = {tier.key: tier.level for tier in TIERS}


def ms(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp() * 1000)


def test_seasons_are_fifteen_berlin_days() -> None:
    assert season_of(ms("2025-12-31T22:59:59")) == 0  # 23:59:59 in Berlin, 31 December
    assert season_of(ms("2025-12-31T23:00:00")) == 1
    assert season_start_ms(1) == ms("2025-12-31T23:00:00")
    assert season_start_ms(2) == ms("2026-01-15T23:00:00")
    # Season 6 starts on 16 March (winter) and holds the change to summer time on 29 March:
    # it lasts an hour less than 15 x 24 hours.
    assert season_start_ms(7) - season_start_ms(6) == (15 * 24 - 1) * 3_600_000
    for season in range(1, 30):
        start = season_start_ms(season)
        assert season_of(start) == season and season_of(start - 1) == season - 1


def test_games_count_in_the_leagues_room_or_higher() -> None:
    assert counts_for("steppe", "steppe") and counts_for("steppe", "forest")
    assert not counts_for("steppe", "desert") and not counts_for("steppe", "tundra")
    assert counts_for("desert", "desert")


def member(
    account: int, league: str, *, level: int = 50, games: int = 30, rating: int = 5000
) -> Member:
    return Member(account, league, level, games=games, points=0, rating=rating)


def outcome_of(members: list[Member], rules: LeagueRules = leagues.RULES) -> dict[int, tuple]:
    return {o.account_id: (o.outcome, o.to, o.place) for o in decide(members, OPEN, rules)}


def test_rating_thresholds_move_players_in_the_lower_leagues() -> None:
    got = outcome_of(
        [
            member(1, "tundra", rating=6600),  # at least 6500: up
            member(2, "tundra", rating=5000),
            member(3, "tundra", rating=3999),  # below 4000: down
            member(4, "desert", rating=9000),
            member(5, "desert", rating=100),  # nobody drops out of the lowest league
        ]
    )
    assert got[1] == (UP, "steppe", 1)
    assert got[2] == (STAY, "tundra", 2)
    assert got[3] == (DOWN, "desert", 3)
    assert got[4] == (UP, "tundra", 1)
    assert got[5] == (STAY, "desert", 2)


def test_promotion_needs_the_next_room_open() -> None:
    # Steppe's room opens at level 12 (Snake): a player of level 11 earns promotion but stays.
    got = outcome_of([member(1, "tundra", rating=9000, level=11)])
    assert got[1] == (BLOCKED, "tundra", 1)
    assert outcome_of([member(1, "tundra", rating=9000, level=12)])[1][0] == UP


def test_too_few_games_and_inactivity_drop_a_league() -> None:
    got = outcome_of(
        [
            member(1, "steppe", games=29, rating=9900),  # short of 30: down, rating or not
            member(2, "steppe", games=0, rating=0),  # inactive: down
            member(3, "desert", games=0, rating=0),  # inactive in the lowest: out of the tables
            member(4, "desert", games=5, rating=9000),  # short of games in the lowest: stays
        ]
    )
    assert got[1] == (DOWN, "tundra", None)
    assert got[2] == (DOWN, "tundra", None)
    assert got[3] == (OUT, None, None)
    assert got[4] == (STAY, "desert", None)


def test_fixed_places_in_the_higher_leagues_and_the_tie_rule() -> None:
    rules = LeagueRules(
        rules=(
            *leagues.RULES.rules[:3],
            LeagueRule(promote_places=2, relegate_places=2, prizes=(100, 60, 30)),
            *leagues.RULES.rules[4:],
        ),
        top_opens_at=1,
    )
    savannah = [member(n, "savannah", rating=5000 + 100 * n) for n in range(1, 7)]
    # Player 6's rating (5600) again, with more games (7 and 8): the tie goes to more games,
    # then (as on the league's table) to the newer account.
    savannah.append(member(7, "savannah", rating=5600, games=40))
    savannah.append(member(8, "savannah", rating=5600, games=40))
    got = outcome_of(savannah, rules)
    order = sorted(got, key=lambda account: got[account][2])
    assert order == [8, 7, 6, 5, 4, 3, 2, 1]
    assert [got[a][0] for a in order] == [UP, UP, STAY, STAY, STAY, STAY, DOWN, DOWN]
    prizes = {o.account_id: o.prize for o in decide(savannah, OPEN, rules)}
    assert (prizes[8], prizes[7], prizes[6], prizes[5]) == (100, 60, 30, 0)


def test_the_top_league_opens_once_enough_players_would_be_in_it() -> None:
    oasis = [member(n, "oasis", rating=9000 - n) for n in range(1, 6)]  # the best 5 go up
    rules = LeagueRules(top_opens_at=6)
    assert {o.outcome for o in decide(oasis, OPEN, rules)} == {BLOCKED}
    rules = LeagueRules(top_opens_at=5)
    assert [o.outcome for o in decide(oasis, OPEN, rules)] == [UP] * 5
    # Once it has players it stays open.
    forest = [member(99, "forest")]
    rules = LeagueRules(top_opens_at=100)
    assert decide(oasis + forest, OPEN, rules)[0].outcome == UP

"""The leagues: six of them, named after the room tiers, with 15-day seasons, and what happens to
each player when a season ends (pure: the database side is :mod:`rummyhall.economy.rollover`).
Source: the Rummy 51 page's second part and DECISIONS.md; docs/rules/room.md says it in our words.

- Seasons are numbered from :data:`SEASON_ONE` (a Berlin date): season ``n`` runs 15 Berlin days,
  from midnight to midnight, so a season that spans a change of the clocks is an hour shorter or
  longer than 15 x 24 hours.
- A game counts for a player's league when it was played in the league's room tier or a higher
  one; the season's line of a league is a leaderboard (``league:<season>:<league>``) like the
  others, with the rating formula over the counted games.
- At the end of a season (:func:`decide`): a player with no counted game is inactive and drops a
  league (out of the tables altogether when already in the lowest); one with fewer than
  :attr:`LeagueRules.min_games` drops a league whatever their rating; the others are ranked by
  rating, then games, then first places, and move by their league's rule: rating thresholds in the
  lower leagues, fixed numbers of places in the higher ones. Promotion needs the next league's
  room open to the player's level, and the top league opens only once enough players would be in
  it. The best places of every league win gold, promoted or not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Final

from rummyhall.economy.daily import BONUS_ZONE, bonus_day
from rummyhall.economy.tiers import TIERS

LEAGUES: Final = tuple(tier.key for tier in TIERS)
"""Lowest first: the league of a tier has the tier's rank."""
SEASON_DAYS: Final = 15
SEASON_ONE: Final = date(2026, 1, 1)
"""The first day of season 1."""


def season_of(at_ms: int) -> int:
    """The season an instant falls in (1 from :data:`SEASON_ONE`; 0 and below before it)."""
    return (bonus_day(at_ms) - SEASON_ONE).days // SEASON_DAYS + 1


def season_start_ms(season: int) -> int:
    """When ``season`` starts: midnight in Berlin of its first day, in ms since the epoch."""
    first = SEASON_ONE + timedelta(days=(season - 1) * SEASON_DAYS)
    return int(datetime.combine(first, time(), BONUS_ZONE).timestamp() * 1000)


def league_board(season: int, league: str) -> str:
    return f"league:{season}:{league}"


def counts_for(league: str, tier: str) -> bool:
    """Whether a game in a room of ``tier`` counts for a player of ``league``: the league's own
    room tier or a higher one."""
    return LEAGUES.index(tier) >= LEAGUES.index(league)


@dataclass(frozen=True, slots=True)
class LeagueRule:
    """How one league moves its players at the end of a season. In the lower leagues rating
    thresholds (``promote_at``: at least; ``relegate_below``); in the higher ones numbers of
    places (the best ``promote_places`` go up, the last ``relegate_places`` down). ``prizes``:
    gold for the first places, best first."""

    promote_at: int | None = None
    relegate_below: int | None = None
    promote_places: int = 0
    relegate_places: int = 0
    prizes: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class LeagueRules:
    min_games: int = 30
    """Counted games a season needs; with fewer a player drops a league."""
    top_opens_at: int = 20
    """The top league (Forest) takes players only once this many would be in it."""
    rules: tuple[LeagueRule, ...] = field(
        default=(
            LeagueRule(promote_at=6000, prizes=(30, 20, 10)),
            LeagueRule(promote_at=6500, relegate_below=4000, prizes=(40, 25, 15)),
            LeagueRule(promote_at=7000, relegate_below=4500, prizes=(60, 40, 20)),
            LeagueRule(promote_places=10, relegate_places=10, prizes=(100, 60, 30)),
            LeagueRule(promote_places=5, relegate_places=10, prizes=(150, 90, 45)),
            LeagueRule(relegate_places=10, prizes=(250, 150, 75)),
        )
    )

    def __post_init__(self) -> None:
        if len(self.rules) != len(LEAGUES):
            raise ValueError(f"one rule for each of the {len(LEAGUES)} leagues")

    def rule(self, league: str) -> LeagueRule:
        return self.rules[LEAGUES.index(league)]


RULES: Final = LeagueRules()


@dataclass(frozen=True, slots=True)
class Member:
    """A player of a league as its season ends: their level (for the next league's room) and the
    season's line in the league (zeros when they played no counted game)."""

    account_id: int
    league: str
    level: int
    games: int = 0
    points: int = 0
    rating: int | None = None


UP: Final = "up"
DOWN: Final = "down"
STAY: Final = "stay"
BLOCKED: Final = "blocked"
"""Earned promotion, but the next league's room is not open to them (or the top league is not
open yet): they stay."""
OUT: Final = "out"
"""Inactive in the lowest league: off the league tables until they play again."""


@dataclass(frozen=True, slots=True)
class Outcome:
    account_id: int
    league: str
    place: int | None
    """Their place among the league's qualified players (None: not qualified)."""
    outcome: str
    to: str | None
    """Their league next season (None: out of the tables)."""
    prize: int


def _ranked(members: Sequence[Member], min_games: int) -> list[Member]:
    # The order of the league's table as players read it (economy/boards.py, one range of the
    # board's index): rating, then games played (the page's tie rule), then the newer account.
    # A season ends in the places its table showed.
    qualified = [m for m in members if m.games >= min_games]
    return sorted(qualified, key=lambda m: (-(m.rating or 0), -m.games, -m.account_id))


def decide(
    members: Sequence[Member], open_level: dict[str, int], rules: LeagueRules = RULES
) -> list[Outcome]:
    """Every member's outcome at the end of a season. ``open_level``: the level that opens each
    league's room (a tier key -> level)."""
    by_league: dict[str, list[Member]] = {league: [] for league in LEAGUES}
    for member in members:
        by_league[member.league].append(member)
    outcomes: dict[int, Outcome] = {}
    promoted: dict[str, list[Member]] = {}
    for rank, league in enumerate(LEAGUES):
        rule = rules.rule(league)
        below = LEAGUES[rank - 1] if rank > 0 else None
        above = LEAGUES[rank + 1] if rank + 1 < len(LEAGUES) else None
        ranked = _ranked(by_league[league], rules.min_games)
        places = {m.account_id: place for place, m in enumerate(ranked, 1)}
        last = len(ranked)
        promoted[league] = []
        for member in by_league[league]:
            place = places.get(member.account_id)
            prize = rule.prizes[place - 1] if place is not None and place <= len(rule.prizes) else 0
            if place is None:
                # Inactive or too few games: down a league (out of the tables from the lowest
                # when inactive; a player short of games in the lowest just stays).
                if member.games == 0 and below is None:
                    outcome, to = OUT, None
                else:
                    outcome, to = (DOWN, below) if below is not None else (STAY, league)
            else:
                up = above is not None and (
                    (rule.promote_at is not None and (member.rating or 0) >= rule.promote_at)
                    or place <= rule.promote_places
                )
                down = below is not None and (
                    (rule.relegate_below is not None and (member.rating or 0) < rule.relegate_below)
                    or place > last - rule.relegate_places
                )
                if up and above is not None:
                    if member.level >= open_level[above]:
                        outcome, to = UP, above
                        promoted[league].append(member)
                    else:
                        outcome, to = BLOCKED, league
                elif down:
                    outcome, to = DOWN, below
                else:
                    outcome, to = STAY, league
            outcomes[member.account_id] = Outcome(
                member.account_id, league, place, outcome, to, prize
            )
    # The top league opens once enough players would be in it (and stays open once it has
    # players): until then the promotions into it wait.
    top, under = LEAGUES[-1], LEAGUES[-2]
    opened = bool(by_league[top])
    if not opened and len(promoted[under]) < rules.top_opens_at:
        for member in promoted[under]:
            before = outcomes[member.account_id]
            outcomes[member.account_id] = Outcome(
                before.account_id, before.league, before.place, BLOCKED, under, before.prize
            )
    return [outcomes[member.account_id] for member in members]

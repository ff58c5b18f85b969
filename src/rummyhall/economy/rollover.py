"""The end of a league season in the database: one transaction that claims the season, reads
every league player with their season's line and level, lets :func:`rummyhall.economy.leagues.
decide` settle them, moves them, records each outcome and pays the prizes in gold.

Safe to run twice and from several server processes at once: the first thing the transaction
does is insert the season's row into ``league_seasons``; a second run finds it there and does
nothing (on PostgreSQL a concurrent one waits for the first to commit, then finds it), and a
run that fails leaves no row, so the next one settles the season. Prizes are keyed by season and
account in the ledger as well.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from sqlalchemy import Connection, bindparam, delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from rummyhall.economy import achievements, leagues
from rummyhall.economy.bulk import Transfer, write_transfers
from rummyhall.economy.ledger import GOLD
from rummyhall.economy.levels import level_for
from rummyhall.economy.tiers import TIERS
from rummyhall.store.database import Database
from rummyhall.store.models import (
    BoardLineModel,
    LeagueOutcomeModel,
    LeaguePlayerModel,
    LeagueSeasonModel,
    ProgressModel,
    dialect_insert,
    table,
    utcnow,
)

_PLAYERS: Final = table(LeaguePlayerModel)
_SEASONS: Final = table(LeagueSeasonModel)
_OUTCOMES: Final = table(LeagueOutcomeModel)
_LINES: Final = table(BoardLineModel)
_PROGRESS: Final = table(ProgressModel)
_OPEN_LEVEL: Final = {tier.key: tier.level for tier in TIERS}


@dataclass(frozen=True, slots=True)
class Rolled:
    season: int
    players: int
    moved: dict[str, int]
    """Outcome -> how many players had it."""
    prizes: int
    """Gold paid in prizes."""


def roll_season(
    conn: Connection, season: int, rules: leagues.LeagueRules = leagues.RULES
) -> Rolled | None:
    """Settle the end of ``season`` in the caller's transaction; None if it was settled
    already."""
    claimed = conn.execute(
        dialect_insert(conn, _SEASONS)
        .values(season=season, rolled_at=utcnow(), players=0)
        .on_conflict_do_nothing(index_elements=["season"])
        .returning(_SEASONS.c.season)
    ).scalar_one_or_none()
    if claimed is None:
        return None
    lines = {
        (row.board, row.account_id): row
        for row in conn.execute(
            select(
                _LINES.c.board, _LINES.c.account_id, _LINES.c.games, _LINES.c.points,
                _LINES.c.rating,
            ).where(_LINES.c.board.like(f"league:{season}:%"))
        )
    }  # fmt: skip
    members = []
    for row in conn.execute(
        select(_PLAYERS.c.account_id, _PLAYERS.c.league, _PROGRESS.c.clover)
        .select_from(_PLAYERS)
        .outerjoin(_PROGRESS, _PROGRESS.c.account_id == _PLAYERS.c.account_id)
        .order_by(_PLAYERS.c.account_id)
    ):
        line = lines.get((leagues.league_board(season, row.league), row.account_id))
        members.append(
            leagues.Member(
                account_id=row.account_id,
                league=row.league,
                level=level_for(row.clover or 0).number,
                games=0 if line is None else line.games,
                points=0 if line is None else line.points,
                rating=None if line is None else line.rating,
            )
        )
    outcomes = leagues.decide(members, _OPEN_LEVEL, rules)
    moved: dict[str, int] = {}
    for outcome in outcomes:
        moved[outcome.outcome] = moved.get(outcome.outcome, 0) + 1
    if outcomes:
        conn.execute(
            insert(_OUTCOMES),
            [
                {
                    "season": season,
                    "account_id": o.account_id,
                    "league": o.league,
                    "place": o.place,
                    "outcome": o.outcome,
                    "to_league": o.to,
                    "prize": o.prize,
                }
                for o in outcomes
            ],
        )
    changed = [o for o in outcomes if o.to is not None and o.to != o.league]
    if changed:
        conn.execute(
            update(_PLAYERS)
            .where(_PLAYERS.c.account_id == bindparam("who"))
            .values(league=bindparam("to")),
            [{"who": o.account_id, "to": o.to} for o in changed],
        )
        # Games of the new season that ended before this ran (a rollover runs a little after
        # midnight) went to the old league's board: they belong to the new league's.
        conn.execute(
            update(_LINES)
            .where(_LINES.c.board == bindparam("old"), _LINES.c.account_id == bindparam("who"))
            .values(board=bindparam("new")),
            [
                {
                    "who": o.account_id,
                    "old": leagues.league_board(season + 1, o.league),
                    "new": leagues.league_board(season + 1, o.to),
                }
                for o in changed
                if o.to is not None
            ],
        )
    # Out of the tables, unless they have played already in the new season (a game just after
    # midnight, before this ran): back in play, they restart in the lowest league at once.
    back = set(
        conn.execute(
            select(_LINES.c.account_id).where(_LINES.c.board.like(f"league:{season + 1}:%"))
        ).scalars()
    )
    gone = [o.account_id for o in outcomes if o.to is None and o.account_id not in back]
    for start in range(0, len(gone), 500):
        conn.execute(delete(_PLAYERS).where(_PLAYERS.c.account_id.in_(gone[start : start + 500])))
    # The gold of the season (prizes, and the achievement of a first promotion) in one batch:
    # a season moves tens of thousands of players, and a transfer each would take a minute.
    promoted = select(_OUTCOMES.c.account_id).where(
        _OUTCOMES.c.season == season, _OUTCOMES.c.outcome == leagues.UP
    )
    gold = achievements.award_many(conn, promoted, "promoted")
    prizes = 0
    for outcome in outcomes:
        if outcome.prize:
            gold.append(
                Transfer(
                    f"league:{season}:{outcome.account_id}",
                    [(GOLD.mint, -outcome.prize), (GOLD.wallet(outcome.account_id), outcome.prize)],
                    "league_prize",
                    {"account": outcome.account_id, "season": season, "place": outcome.place},
                )
            )
            prizes += outcome.prize
    if gold:
        write_transfers(conn, gold)
    conn.execute(update(_SEASONS).where(_SEASONS.c.season == season).values(players=len(outcomes)))
    return Rolled(season, len(outcomes), moved, prizes)


async def roll_ended(
    db: Database, now_ms: int, rules: leagues.LeagueRules = leagues.RULES
) -> list[Rolled]:
    """Settle every season that has ended and waits for it, oldest first, each in a
    transaction of its own; what this call settled (others may have settled some first)."""
    async with db.read() as session:
        due = await due_seasons(session, now_ms)
    done = []
    for season in due:

        def roll(sync: Session, season: int = season) -> Rolled | None:
            return roll_season(sync.connection(), season, rules)

        async with db.transaction() as session:
            rolled = await session.run_sync(roll)
        if rolled is not None:
            done.append(rolled)
    return done


async def due_seasons(session: AsyncSession, now_ms: int) -> list[int]:
    """The seasons that have ended and wait for their rollover, oldest first: from the one
    after the last settled (or, on a room that never settled one, the last ended) to the one
    before ``now_ms``'s."""
    last_ended = leagues.season_of(now_ms) - 1
    settled = await session.scalar(select(_SEASONS.c.season).order_by(_SEASONS.c.season.desc()))
    first = last_ended if settled is None else int(settled) + 1
    return list(range(max(first, 1), last_ended + 1))


@dataclass(frozen=True, slots=True)
class LeagueStanding:
    """A player's league now (None: in none, or out of the tables) and how their last settled
    season ended (None: no season settled with them in it)."""

    league: str | None
    last: dict[str, object] | None


async def league_standing(session: AsyncSession, account_id: int) -> LeagueStanding:
    league = await session.scalar(
        select(_PLAYERS.c.league).where(_PLAYERS.c.account_id == account_id)
    )
    row = (
        await session.execute(
            select(_OUTCOMES)
            .where(_OUTCOMES.c.account_id == account_id)
            .order_by(_OUTCOMES.c.season.desc())
            .limit(1)
        )
    ).one_or_none()
    last = None
    if row is not None:
        last = {
            "season": row.season,
            "league": row.league,
            "place": row.place,
            "outcome": row.outcome,
            "to": row.to_league,
            "prize": row.prize,
        }
    return LeagueStanding(None if league is None else str(league), last)

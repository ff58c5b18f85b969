"""The ladder in the database: a finished game's clover points and leaderboard lines, the gold of
the levels and titles they reach, and the daily bonus claim (issue 19). The numbers come from
the pure modules (:mod:`~rummyhall.economy.progression`, :mod:`~rummyhall.economy.levels`,
:mod:`~rummyhall.economy.daily`); this module writes them.

A game's ladder is written in the same database transaction as the game's record and its chips
(the table's writer calls :func:`record_game` with its connection), so a crash leaves both or
neither. Level rewards go through the ledger keyed by account and level (``level:<id>:<n>``):
a level is rewarded once, whatever happens.

Boards (:data:`ALL`, :func:`game_board`, :func:`month_board`) are lines of one table; a line's
rating is kept on it, so a page of a board is a range of an index (:mod:`rummyhall.economy.
boards`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Final

from sqlalchemy import Connection, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from rummyhall.economy import achievements, leagues, ledger
from rummyhall.economy.daily import BONUS_ZONE, DailyBonus, bonus_day, daily_bonus
from rummyhall.economy.ledger import CHIPS, GOLD
from rummyhall.economy.levels import level, level_for
from rummyhall.economy.progression import LADDER, Ladder, clover, rating, rating_points
from rummyhall.games.protocol import Standing
from rummyhall.store.models import (
    BoardLineModel,
    LeaguePlayerModel,
    ProgressModel,
    dialect_insert,
    table,
)

_PROGRESS: Final = table(ProgressModel)
_LINES: Final = table(BoardLineModel)
_LEAGUE_PLAYERS: Final = table(LeaguePlayerModel)

ALL: Final = "all"
"""The overall board: every game in every real room."""


def game_board(game: str) -> str:
    return f"game:{game}"


def month_board(at_ms: int) -> str:
    """The board of the calendar month (in Berlin, the ladder's clock) of an instant."""
    when = datetime.fromtimestamp(at_ms / 1000, UTC).astimezone(BONUS_ZONE)
    return f"month:{when:%Y-%m}"


@dataclass(frozen=True, slots=True)
class LevelUp:
    """A player who reached ``level`` (from ``before``) with a game, and the gold it paid."""

    account_id: int
    before: int
    level: int
    gold: int


def level_gold(before: int, after: int, ladder: Ladder = LADDER) -> list[tuple[int, int]]:
    """The gold of each level from ``before`` + 1 to ``after``: (level, gold), a new title adding
    its own."""
    return [
        (n, ladder.level_gold + (ladder.title_gold if level(n).title != level(n - 1).title else 0))
        for n in range(before + 1, after + 1)
    ]


def record_game(
    conn: Connection,
    *,
    game: str,
    multiplier_tenths: int,
    at_ms: int,
    players: Sequence[tuple[int, Standing]],
    tier: str | None = None,
    ladder: Ladder = LADDER,
) -> list[LevelUp]:
    """Add one finished game of a real room to the ladder of each player in it ((account,
    standing): people only, no bots): clover points (with the room's multiplier) and a line on
    the overall board, the game's and the month's; in a room of a ``tier``, a line in the
    player's league for the season when the tier counts for it (a first such game puts the
    player in the lowest league). Returns the level-ups, whose gold is paid."""
    boards = (ALL, game_board(game), month_board(at_ms))
    season = leagues.season_of(at_ms)
    level_ups = []
    for account_id, standing in players:
        earned = clover(standing, multiplier_tenths, ladder)
        total = conn.execute(
            dialect_insert(conn, _PROGRESS)
            .values(account_id=account_id, clover=earned, bonus_streak=0)
            .on_conflict_do_update(
                index_elements=["account_id"],
                set_={"clover": _PROGRESS.c.clover + earned},
            )
            .returning(_PROGRESS.c.clover)
        ).scalar_one()
        before, after = level_for(total - earned).number, level_for(total).number
        if after > before:
            gold = 0
            for number, amount in level_gold(before, after, ladder):
                ledger.transfer_on(
                    conn, f"level:{account_id}:{number}",
                    [(GOLD.mint, -amount), (GOLD.wallet(account_id), amount)],
                    kind="level_reward", memo={"account": account_id, "level": number},
                )  # fmt: skip
                gold += amount
            level_ups.append(LevelUp(account_id, before, after, gold))
        points = rating_points(standing, ladder)
        first = 1 if standing.place == 1 else 0
        # Every board gets the game; the overall board's count is the player's games in all.
        games = [_add_line(conn, board, account_id, points, first) for board in boards]
        _milestones(conn, account_id, standing, games[0])
        if tier is not None:
            league = _league_of(conn, account_id)
            if leagues.counts_for(league, tier):
                _add_line(conn, leagues.league_board(season, league), account_id, points, first)
    return level_ups


def _league_of(conn: Connection, account_id: int) -> str:
    """The player's league, the lowest for a player in none (new, or back from inactivity)."""
    conn.execute(
        dialect_insert(conn, _LEAGUE_PLAYERS)
        .values(account_id=account_id, league=leagues.LEAGUES[0])
        .on_conflict_do_nothing(index_elements=["account_id"])
    )
    return str(
        conn.execute(
            select(_LEAGUE_PLAYERS.c.league).where(_LEAGUE_PLAYERS.c.account_id == account_id)
        ).scalar_one()
    )


def _milestones(conn: Connection, account_id: int, standing: Standing, games: int) -> None:
    """The achievements a game may bring, and the invitation it may complete."""
    achievements.award(conn, account_id, "first_game")
    if standing.place == 1:
        achievements.award(conn, account_id, "first_win")
    if standing.rummy:
        achievements.award(conn, account_id, "first_rummy")
    if games >= 100:
        achievements.award(conn, account_id, "games_100")
    achievements.reward_inviter(conn, account_id, games)


def _add_line(conn: Connection, board: str, account_id: int, points: int, first: int) -> int:
    """Add one game to the player's line on ``board``; the games the line now counts."""
    games, total = conn.execute(
        dialect_insert(conn, _LINES)
        .values(board=board, account_id=account_id, games=1, points=points, firsts=first)
        .on_conflict_do_update(
            index_elements=["board", "account_id"],
            set_={
                "games": _LINES.c.games + 1,
                "points": _LINES.c.points + points,
                "firsts": _LINES.c.firsts + first,
            },
        )
        .returning(_LINES.c.games, _LINES.c.points)
    ).one()
    rated = rating(total, games)
    if rated is not None:
        conn.execute(
            update(_LINES)
            .where(_LINES.c.board == board, _LINES.c.account_id == account_id)
            .values(rating=rated)
        )
    return int(games)


@dataclass(frozen=True, slots=True)
class Climb:
    """A player's clover points and daily bonus state (zero and none before the first game)."""

    clover: int
    bonus_day: date | None
    bonus_streak: int


async def climb(session: AsyncSession, account_id: int) -> Climb:
    row = (
        await session.execute(
            select(_PROGRESS.c.clover, _PROGRESS.c.bonus_day, _PROGRESS.c.bonus_streak).where(
                _PROGRESS.c.account_id == account_id
            )
        )
    ).one_or_none()
    if row is None:
        return Climb(0, None, 0)
    return Climb(int(row.clover), row.bonus_day, int(row.bonus_streak))


class BonusClaimed(Exception):
    """Today's bonus was claimed already; ``code`` is stable for clients."""

    code = "bonus_claimed"


async def claim_daily(session: AsyncSession, account_id: int, now_ms: int) -> DailyBonus:
    """Pay today's daily bonus (silver chips, up to the silver limit) in the caller's
    transaction; BonusClaimed if today's was paid. The silver wallet's row is locked first, so
    the amount the limit leaves room for cannot change under the claim, and the day is marked
    with a guarded UPDATE, so two claims at once pay once."""
    today = bonus_day(now_ms)
    wallet = CHIPS.wallet(account_id)
    silver = await ledger.lock_balance(session, wallet)
    await session.execute(
        dialect_insert(session, _PROGRESS)
        .values(account_id=account_id, clover=0, bonus_streak=0)
        .on_conflict_do_nothing(index_elements=["account_id"])
    )
    state = await climb(session, account_id)
    if state.bonus_day is not None and state.bonus_day >= today:
        raise BonusClaimed("today's bonus is yours already: the next one comes at midnight")
    bonus = daily_bonus(
        today,
        last_day=state.bonus_day,
        last_streak=state.bonus_streak,
        level_number=level_for(state.clover).number,
        silver=silver,
    )
    marked = await session.execute(
        update(_PROGRESS)
        .where(
            _PROGRESS.c.account_id == account_id,
            (_PROGRESS.c.bonus_day.is_(None)) | (_PROGRESS.c.bonus_day < today),
        )
        .values(bonus_day=today, bonus_streak=bonus.streak)
    )
    if marked.rowcount != 1:  # type: ignore[attr-defined]
        raise BonusClaimed("today's bonus is yours already: the next one comes at midnight")
    if bonus.streak >= 10:
        await session.run_sync(
            lambda sync: achievements.award(sync.connection(), account_id, "streak_10")
        )
    await ledger.transfer(
        session, f"daily:{account_id}:{today.isoformat()}",
        [(CHIPS.mint, -bonus.credited), (wallet, bonus.credited)],
        kind="daily_bonus", memo={"account": account_id, **bonus.to_json()},
    )  # fmt: skip
    return bonus

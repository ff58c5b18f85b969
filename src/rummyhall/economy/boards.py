"""Reading the leaderboards: a page of a board, and one player's line with its rank (written by
:func:`rummyhall.economy.ladder.record_game`).

A board ranks its rated lines by rating, then by games played (the rules' tie rule: more games
first), then by account (newer first: only so that the order is total). A page continues after
the last line of the previous one (a cursor of those three values and its rank), so every page
is one range of the ``ix_board_lines_rank`` index read backwards, however deep. A player's own
rank is counted over the same index: the lines that come before theirs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import ColumnElement, func, literal, select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession

from rummyhall.store.models import AccountModel, BoardLineModel, table

_LINES: Final = table(BoardLineModel)
_ACCOUNTS: Final = table(AccountModel)
PAGE_MAX: Final = 100


@dataclass(frozen=True, slots=True)
class BoardLine:
    account_id: int
    name: str
    games: int
    points: int
    firsts: int
    rating: int | None
    rank: int | None = None
    """1 for the top of the board; None for a line not rated yet."""

    @property
    def cursor(self) -> str:
        """Where the next page starts (:func:`page`'s ``after``): this line's place in the order
        and its rank, so the next page needs no count. (A cursor someone edits by hand only
        misnumbers the page they asked for.)"""
        return f"{self.rating}.{self.games}.{self.account_id}.{self.rank}"

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "account": self.account_id,
            "name": self.name,
            "rating": self.rating,
            "games": self.games,
            "points": self.points,
            "firsts": self.firsts,
        }


class BadCursor(ValueError):
    code = "bad_cursor"


def parse_cursor(text: str) -> tuple[int, int, int, int]:
    try:
        rating, games, account, rank = (int(part) for part in text.split(".", 3))
    except ValueError:
        raise BadCursor(f"{text!r} is not a page cursor") from None
    if rank < 1:
        raise BadCursor(f"{text!r} is not a page cursor")
    return rating, games, account, rank


def _key() -> ColumnElement[Any]:
    return tuple_(_LINES.c.rating, _LINES.c.games, _LINES.c.account_id)


def _before(rating: int, games: int, account_id: int) -> ColumnElement[bool]:
    """Lines ranked before (rating, games, account): a row-value comparison, which both
    databases read as one range of the board's index."""
    return _key() > tuple_(literal(rating), literal(games), literal(account_id))


def _after(rating: int, games: int, account_id: int) -> ColumnElement[bool]:
    return _key() < tuple_(literal(rating), literal(games), literal(account_id))


_COLUMNS: Final = (
    _LINES.c.account_id,
    _ACCOUNTS.c.name,
    _LINES.c.games,
    _LINES.c.points,
    _LINES.c.firsts,
    _LINES.c.rating,
)


async def page(
    session: AsyncSession, board: str, *, after: str | None = None, limit: int = 20
) -> list[BoardLine]:
    """Up to ``limit`` rated lines of ``board`` from the top, or from after the line whose
    :attr:`BoardLine.cursor` is ``after`` (BadCursor for a malformed one)."""
    limit = max(1, min(PAGE_MAX, limit))
    query = (
        select(*_COLUMNS)
        .join(_ACCOUNTS, _ACCOUNTS.c.id == _LINES.c.account_id)
        .where(_LINES.c.board == board, _LINES.c.rating.is_not(None))
        .order_by(_LINES.c.rating.desc(), _LINES.c.games.desc(), _LINES.c.account_id.desc())
        .limit(limit)
    )
    first_rank = 1
    if after is not None:
        rating, games, account_id, rank = parse_cursor(after)
        query = query.where(_after(rating, games, account_id))
        first_rank = rank + 1
    rows = (await session.execute(query)).all()
    return [_line(row, first_rank + index) for index, row in enumerate(rows)]


async def line(session: AsyncSession, board: str, account_id: int) -> BoardLine | None:
    """One player's line on ``board`` with its rank (None before their first game there)."""
    row = (
        await session.execute(
            select(*_COLUMNS)
            .join(_ACCOUNTS, _ACCOUNTS.c.id == _LINES.c.account_id)
            .where(_LINES.c.board == board, _LINES.c.account_id == account_id)
        )
    ).one_or_none()
    if row is None:
        return None
    rank = None
    if row.rating is not None:
        rank = 1 + await _count_before(session, board, row.rating, row.games, account_id)
    return _line(row, rank)


async def rated(session: AsyncSession, board: str) -> int:
    """How many rated lines ``board`` has."""
    count = await session.scalar(
        select(func.count())
        .select_from(_LINES)
        .where(_LINES.c.board == board, _LINES.c.rating.is_not(None))
    )
    return int(count or 0)


async def _count_before(
    session: AsyncSession, board: str, rating: int, games: int, account_id: int
) -> int:
    count = await session.scalar(
        select(func.count())
        .select_from(_LINES)
        .where(_LINES.c.board == board, _before(rating, games, account_id))
    )
    return int(count or 0)


def _line(row: Any, rank: int | None) -> BoardLine:
    return BoardLine(
        account_id=int(row.account_id),
        name=str(row.name),
        games=int(row.games),
        points=int(row.points),
        firsts=int(row.firsts),
        rating=None if row.rating is None else int(row.rating),
        rank=rank,
    )

"""Achievements and invitations: the gold the ladder pays for milestones (a small catalogue, data
not code) and for bringing a friend who then plays.

Each achievement is earned once: its row in ``achievements`` (primary key account and key) is the
claim, and its gold moves through the ledger keyed ``achievement:<account>:<key>``. An invitation
pays the inviter once the invited player has finished :data:`INVITE_GAMES` games in rooms of real
chips (so an account made only to be invited earns nothing), at most :data:`INVITES_PAID` times
per inviter; its gold is keyed ``invite:<invitee>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final

from sqlalchemy import Connection, Select, func, literal, select, true, update
from sqlalchemy.ext.asyncio import AsyncSession

from rummyhall.economy import ledger
from rummyhall.economy.bulk import Transfer
from rummyhall.economy.ledger import GOLD
from rummyhall.store.models import (
    AchievementModel,
    InviteModel,
    UTCDateTime,
    dialect_insert,
    table,
    utcnow,
)

_ACHIEVEMENTS: Final = table(AchievementModel)
_INVITES: Final = table(InviteModel)


@dataclass(frozen=True, slots=True)
class Achievement:
    key: str
    title: str
    description: str
    gold: int


CATALOGUE: Final = (
    Achievement("first_game", "First game", "Finish a game in a room of real chips.", 10),
    Achievement("first_win", "First win", "Finish a game in first place.", 20),
    Achievement("first_rummy", "Rummy!", "Go out in the turn you open, in Rummy 51.", 50),
    Achievement("games_100", "Regular", "Finish 100 games.", 100),
    Achievement("streak_10", "Ten days in a row", "Collect the daily bonus ten days running.", 100),
    Achievement("promoted", "Promoted", "Move up a league at the end of a season.", 50),
)
_BY_KEY: Final = {achievement.key: achievement for achievement in CATALOGUE}

INVITE_GAMES: Final = 10
"""Games the invited player must finish before the inviter is paid."""
INVITE_GOLD: Final = 100
INVITES_PAID: Final = 20
"""Invitations one account is paid for at most."""


def award(conn: Connection, account_id: int, key: str) -> Achievement | None:
    """Give ``key`` to the account if it has not got it yet, with its gold; the achievement, or
    None when it was earned before."""
    achievement = _BY_KEY[key]
    claimed = conn.execute(
        dialect_insert(conn, _ACHIEVEMENTS)
        .values(account_id=account_id, key=key, earned_at=utcnow())
        .on_conflict_do_nothing(index_elements=["account_id", "key"])
        .returning(_ACHIEVEMENTS.c.key)
    ).scalar_one_or_none()
    if claimed is None:
        return None
    ledger.transfer_on(
        conn, f"achievement:{account_id}:{key}",
        [(GOLD.mint, -achievement.gold), (GOLD.wallet(account_id), achievement.gold)],
        kind="achievement", memo={"account": account_id, "achievement": key},
    )  # fmt: skip
    return achievement


def award_many(conn: Connection, accounts: Select[tuple[int]], key: str) -> list[Transfer]:
    """:func:`award` for every account ``accounts`` selects (a season's promotions), in one
    statement; the gold as transfers for the caller to write in one batch
    (:func:`rummyhall.economy.bulk.write_transfers`), for the accounts that did not have it."""
    achievement = _BY_KEY[key]
    chosen = accounts.subquery()
    awarded = conn.execute(
        dialect_insert(conn, _ACHIEVEMENTS)
        .from_select(
            ["account_id", "key", "earned_at"],
            select(chosen.c[0], literal(key), literal(utcnow(), UTCDateTime())).where(true()),
        )
        .on_conflict_do_nothing(index_elements=["account_id", "key"])
        .returning(_ACHIEVEMENTS.c.account_id)
    ).scalars()
    return [
        Transfer(
            f"achievement:{account}:{key}",
            [(GOLD.mint, -achievement.gold), (GOLD.wallet(account), achievement.gold)],
            "achievement",
            {"account": account, "achievement": key},
        )
        for account in awarded
    ]


def reward_inviter(conn: Connection, invitee_id: int, games: int) -> int | None:
    """Once the invited player has finished enough games: pay whoever invited them (once, and
    only within the inviter's limit). Returns the inviter paid, or None."""
    if games < INVITE_GAMES:
        return None
    inviter = conn.execute(
        update(_INVITES)
        .where(_INVITES.c.invitee_id == invitee_id, _INVITES.c.rewarded_at.is_(None))
        .values(rewarded_at=utcnow())
        .returning(_INVITES.c.inviter_id)
    ).scalar_one_or_none()
    if inviter is None:
        return None
    paid = conn.execute(
        select(func.count())
        .select_from(_INVITES)
        .where(_INVITES.c.inviter_id == inviter, _INVITES.c.rewarded_at.is_not(None))
    ).scalar_one()
    if paid > INVITES_PAID:
        return None
    ledger.transfer_on(
        conn, f"invite:{invitee_id}",
        [(GOLD.mint, -INVITE_GOLD), (GOLD.wallet(inviter), INVITE_GOLD)],
        kind="invite_reward", memo={"account": inviter, "invitee": invitee_id},
    )  # fmt: skip
    return int(inviter)


async def record_invite(session: AsyncSession, invitee_id: int, inviter_id: int) -> None:
    """Remember who invited a new account (in its registration's transaction)."""
    await session.execute(
        dialect_insert(session, _INVITES)
        .values(invitee_id=invitee_id, inviter_id=inviter_id)
        .on_conflict_do_nothing(index_elements=["invitee_id"])
    )


async def earned(session: AsyncSession, account_id: int) -> dict[str, datetime]:
    """The account's achievements: key -> when."""
    rows = await session.execute(
        select(_ACHIEVEMENTS.c.key, _ACHIEVEMENTS.c.earned_at).where(
            _ACHIEVEMENTS.c.account_id == account_id
        )
    )
    return {str(key): at for key, at in rows}


async def invited(session: AsyncSession, inviter_id: int) -> tuple[int, int]:
    """How many players the account invited, and for how many it was paid."""
    row = (
        await session.execute(
            select(func.count(), func.count(_INVITES.c.rewarded_at)).where(
                _INVITES.c.inviter_id == inviter_id
            )
        )
    ).one()
    return int(row[0]), min(INVITES_PAID, int(row[1]))

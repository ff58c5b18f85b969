"""A season's end in the database, on SQLite and PostgreSQL (economy/rollover.py): players move
as the league rules say, outcomes are recorded, prizes are paid in gold once, games below a
player's league do not count, and the rollover runs once however often and from however many
processes it is started."""

from __future__ import annotations

import asyncio

from sqlalchemy import select

from rummyhall.economy import boards, leagues, rollover
from rummyhall.economy.audit import audit
from rummyhall.economy.ledger import GOLD, balance
from rummyhall.games.protocol import Standing
from rummyhall.store import accounts
from rummyhall.store.database import Database
from rummyhall.store.models import LeagueOutcomeModel, LeaguePlayerModel
from server_kit import record_games

SEASON = 40
IN_SEASON = leagues.season_start_ms(SEASON) + 3_600_000
AFTER = leagues.season_start_ms(SEASON + 1) + 1


async def play(db: Database, account: int, standing: Standing, games: int, tier: str,
               at: int = IN_SEASON) -> None:  # fmt: skip
    await record_games(db, [(account, standing)] * games, at_ms=at, tier=tier)


async def leagues_now(db: Database) -> dict[int, str]:
    async with db.read() as session:
        rows = await session.execute(select(LeaguePlayerModel.account_id, LeaguePlayerModel.league))
        return {int(a): str(league) for a, league in rows}


async def test_a_season_ends_once_with_moves_outcomes_and_prizes(db_url: str) -> None:
    db, other = await Database.open(db_url), await Database.open(db_url)
    try:
        await season_end(db, other)
    finally:
        await other.close()
        await db.close()


async def season_end(db: Database, other: Database) -> None:
    async with db.transaction() as session:
        ids = {
            name: (await accounts.register(session, name, "long password")).id
            for name in ("winner", "steady", "casual", "gone", "fallen", "slumming")
        }
    win, fourth = Standing(place=1, cards_thrown=15, opened=True), Standing(place=4)
    await play(db, ids["winner"], win, 30, "desert")  # rating 10000, level 9 by now: up
    await play(db, ids["steady"], fourth, 30, "desert")  # rating 3500: stays
    await play(db, ids["casual"], win, 10, "desert")  # too few games: stays in the lowest
    # "gone" played last season only: inactive in the lowest league, out of the tables.
    await play(db, ids["gone"], win, 1, "desert", at=leagues.season_start_ms(SEASON - 1))
    # "fallen" and "slumming" are Tundra players: one plays nothing, one only in the Desert
    # room, which does not count for a Tundra player.
    async with db.transaction() as session:
        for name in ("fallen", "slumming"):
            await session.execute(
                LeaguePlayerModel.__table__.insert().values(account_id=ids[name], league="tundra")
            )
    await play(db, ids["slumming"], win, 40, "desert")

    # Two processes start the rollover at once: the season is settled once.
    results = await asyncio.gather(
        rollover.roll_ended(db, AFTER), rollover.roll_ended(other, AFTER)
    )
    settled = [rolled for found in results for rolled in found]
    assert [r.season for r in settled] == [SEASON]
    assert settled[0].players == 6
    assert await rollover.roll_ended(db, AFTER) == []

    assert await leagues_now(db) == {
        ids["winner"]: "tundra",
        ids["steady"]: "desert",
        ids["casual"]: "desert",
        ids["fallen"]: "desert",
        ids["slumming"]: "desert",
    }
    async with db.read() as session:
        outcomes = {
            int(row.account_id): (row.league, row.place, row.outcome, row.to_league, row.prize)
            for row in (await session.execute(select(LeagueOutcomeModel))).scalars()
        }
        prizes = leagues.RULES.rule("desert").prizes
        assert outcomes[ids["winner"]] == ("desert", 1, leagues.UP, "tundra", prizes[0])
        assert outcomes[ids["steady"]] == ("desert", 2, leagues.STAY, "desert", prizes[1])
        assert outcomes[ids["casual"]] == ("desert", None, leagues.STAY, "desert", 0)
        assert outcomes[ids["gone"]] == ("desert", None, leagues.OUT, None, 0)
        assert outcomes[ids["fallen"]] == ("tundra", None, leagues.DOWN, "desert", 0)
        assert outcomes[ids["slumming"]] == ("tundra", None, leagues.DOWN, "desert", 0)
        level_gold = await balance(session, GOLD.wallet(ids["steady"]))
        assert level_gold > prizes[1]  # level rewards and the prize, paid once
        report = await audit(session)
    assert report.ok, report.problems

    # A player inactive in the lowest league who plays just after the season's end, before its
    # rollover runs, stays in the tables: back in play at once.
    late = SEASON + 1
    async with db.transaction() as session:
        back = (await accounts.register(session, "back", "long password")).id
    await play(db, back, win, 1, "desert", at=leagues.season_start_ms(late - 1))
    await play(db, back, win, 1, "desert", at=leagues.season_start_ms(late + 1) + 60_000)
    rolled = await rollover.roll_ended(db, leagues.season_start_ms(late + 1) + 120_000)
    assert [r.season for r in rolled] == [late]
    async with db.read() as session:
        outcome = await session.get(LeagueOutcomeModel, (late, back))
        assert outcome is not None and outcome.outcome == leagues.OUT
    assert (await leagues_now(db))[back] == "desert"

    # A player out of the tables who plays again starts in the lowest league.
    await play(db, ids["gone"], win, 1, "tundra", at=AFTER)
    assert (await leagues_now(db))[ids["gone"]] == "desert"


async def test_a_season_ends_in_the_order_of_its_league_table(db: Database) -> None:
    """The places a season ends with are the ranks the league's table shows (boards.page), ties
    included: equal rating and games (whatever the first places) and equal rating only."""
    async with db.transaction() as session:
        ids = [(await accounts.register(session, f"tie{n}", "long password")).id for n in range(6)]
    second, third = Standing(place=2), Standing(place=3)
    for account in ids[:3]:  # 30 second places: 65 points a game, rating 6500
        await play(db, account, second, 30, "desert")
    # 15 firsts (80) and 15 thirds (50): the same points, rating and games, more first places.
    await record_games(db, [(ids[3], Standing(place=1))] * 15, at_ms=IN_SEASON, tier="desert")
    await play(db, ids[3], third, 15, "desert")
    await play(db, ids[4], second, 31, "desert")  # rating 6500 with more games: first
    await play(db, ids[5], third, 30, "desert")  # rating 5000: last
    async with db.read() as session:
        table = await boards.page(session, leagues.league_board(SEASON, "desert"), limit=10)
    assert [line.rating for line in table] == [6500] * 5 + [5000]
    assert table[0].account_id == ids[4] and table[-1].account_id == ids[5]

    assert [r.season for r in await rollover.roll_ended(db, AFTER)] == [SEASON]
    async with db.read() as session:
        places = {
            int(row.account_id): row.place
            for row in (await session.execute(select(LeagueOutcomeModel))).scalars()
        }
    assert places == {line.account_id: line.rank for line in table}

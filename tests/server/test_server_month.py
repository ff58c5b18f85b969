"""A month of the room on a fake clock, on SQLite and PostgreSQL (issue 19): a few scripted
players play real Rummy 51 games against bots and collect their daily bonus day after day,
through the change to summer time, across league seasons that the server settles by itself. At
the end everything the ladder shows is recomputed from the game records, the claims and the
ledger, and must agree: clover points and levels, every leaderboard line, each season's league
lines and outcomes (decided again by the pure rules from the recomputed lines), the gold paid for
levels, prizes and achievements, the daily bonuses and their cut at the silver limit; and
``rummyhall audit`` is clean.

The league rules are the server's configuration, made small here (three games qualify) so that a
season fits a few games: the Desert promotes every qualified player, so one whose level does not
open the Tundra room is blocked; the Tundra relegates whoever plays too little."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select

from rummyhall import catalog
from rummyhall.client import RoomClient
from rummyhall.economy import achievements, boards, leagues, progression
from rummyhall.economy.audit import audit_database
from rummyhall.economy.ladder import ALL, game_board, level_gold, month_board
from rummyhall.economy.leagues import LeagueRule, LeagueRules
from rummyhall.economy.levels import level_for, silver_limit
from rummyhall.economy.rooms import Rooms
from rummyhall.economy.tiers import TIERS
from rummyhall.games.protocol import Standing, replay
from rummyhall.server.clock import FakeClock
from rummyhall.store.database import Database
from rummyhall.store.models import (
    AccountModel,
    AchievementModel,
    HandModel,
    HandPlayerModel,
    LeagueOutcomeModel,
    LeagueSeasonModel,
    LedgerPostingModel,
    LedgerTransactionModel,
    ProgressModel,
)
from server_kit import Player, fast_settings, lift, promote, record_nets, running, watch_table

DAY = 24 * 3_600_000
START = datetime(2026, 3, 20, 9, tzinfo=UTC)
"""Season 6 (17-31 March), nine days before summer time; 30 days take the room into season 8."""
DESERT, TUNDRA = "rummy51-10-4p", "rummy51-20-4p"
RULES = LeagueRules(
    min_games=3,
    rules=(
        LeagueRule(promote_at=0, prizes=(30, 20, 10)),
        LeagueRule(promote_at=10_001, relegate_below=0, prizes=(40, 25, 15)),
        *leagues.RULES.rules[2:],
    ),
)
# Who plays where, by day from START. "ace" plays in the Desert all month (six games in season 6,
# four in season 7); "climber", lifted to level 6 before the month, plays three Desert games in
# season 6 and one Tundra game in season 7; "idle" played one game in season 5, none since;
# "saver" only collects bonuses, with a gap.
PLAN: dict[str, dict[int, str]] = {
    "ace": dict.fromkeys((0, 1, 3, 5, 8, 11, 13, 17, 20, 23), DESERT),
    "climber": {0: DESERT, 2: DESERT, 4: DESERT, 15: TUNDRA},
}
BONUS_DAYS: dict[str, tuple[int, ...]] = {
    "ace": tuple(range(30)),
    "climber": tuple(range(0, 30, 2)),
    "saver": (0, 1, 2, 5, 6, 7, 8),
}


@dataclass
class Claim:
    name: str
    at: int
    silver: int
    """Silver in the wallet just before the claim."""
    answer: dict[str, Any] = field(default_factory=dict)


async def play_game(client: RoomClient, room: str, seed: int) -> None:
    table, _ = await client.quick_seat(room)
    player = Player(client, "rummy51", seed)
    await watch_table(client, table, follow=True)
    await player.play(table, games=1)
    assert player.refused == []
    await client.leave(table)


async def test_a_month_of_the_room(db_url: str, tmp_path: Path) -> None:
    start = int(START.timestamp() * 1000)
    clock = FakeClock(start - 10 * DAY)  # season 5
    settings = fast_settings(
        tmp_path, db_url, next_game_ms=3_600_000, starting_silver=300, league_rules=RULES,
        league_check_ms=3_600_000,
    )  # fmt: skip
    claims: list[Claim] = []
    async with running(settings, clock=clock) as server:
        db: Database = server.app.state.db
        clients = {name: RoomClient(server.url) for name in ("ace", "climber", "idle", "saver")}
        try:
            ids = {
                name: (await client.register(name, "correct horse battery"))["id"]
                for name, client in clients.items()
            }
            await promote(server, ids["climber"], 6)
            await play_game(clients["idle"], DESERT, seed=99)
            await next_day(clock, db, days=10)
            for day in range(30):
                for name, client in clients.items():
                    if day in BONUS_DAYS.get(name, ()):
                        silver = (await client.request("GET", "/api/me"))["chips"]
                        claim = Claim(name, clock.now(), silver)
                        claim.answer = await client.request("POST", "/api/daily-bonus")
                        claims.append(claim)
                    if day in PLAN.get(name, {}):
                        await play_game(client, PLAN[name][day], seed=day)
                await next_day(clock, db)
        finally:
            for client in clients.values():
                await client.close()
        await check_month(db, ids, claims, first_season=leagues.season_of(start) - 1)
    report = await audit_database(db_url)
    assert report.problems == []


async def next_day(clock: FakeClock, db: Database, days: int = 1) -> None:
    """Move the clock on, and wait until the server's periodic check has settled a season that
    ended meanwhile (the next games belong to the new season)."""
    before = leagues.season_of(clock.now())
    clock.advance(days * DAY)
    if leagues.season_of(clock.now()) == before:
        return
    async with asyncio.timeout(30):
        while True:
            async with db.read() as session:
                if await session.get(LeagueSeasonModel, before) is not None:
                    return
            await asyncio.sleep(0.02)


@dataclass(frozen=True)
class Game:
    account: int
    at: int
    tier: str
    multiplier: int
    standing: Standing


async def games_from_records(db: Database) -> list[Game]:
    """Every person's finished game, from the stored records: the standing the game's own rules
    give (replayed), in the room the record names."""
    rooms = Rooms(catalog.rooms())
    async with db.read() as session:
        rows = (
            await session.execute(
                select(HandModel.record, HandPlayerModel.seat, HandPlayerModel.account_id)
                .join(HandPlayerModel, HandPlayerModel.hand_id == HandModel.id)
                .join(AccountModel, AccountModel.id == HandPlayerModel.account_id)
                .where(AccountModel.is_bot.is_(False))
                .order_by(HandModel.id)
            )
        ).all()
    found = []
    for record, seat, account in rows:
        room = rooms.get(record["table"]["room"])
        assert room is not None and room.tier is not None
        standing = replay(record).standings(record_nets(record))[seat]
        at = int(record["actions"][-1]["at"])
        found.append(Game(account, at, room.tier, room.multiplier_tenths, standing))
    return found


async def check_month(
    db: Database, ids: dict[str, int], claims: list[Claim], first_season: int
) -> None:
    names = {account: name for name, account in ids.items()}
    games = await games_from_records(db)
    lift_win, lift_multiplier = lift(6)
    lifted = progression.clover(lift_win, lift_multiplier)

    def clover_before(account: int, at: int) -> int:
        earned = sum(
            progression.clover(g.standing, g.multiplier)
            for g in games
            if g.account == account and g.at < at
        )
        return earned + (lifted if account == ids["climber"] else 0)

    async with db.read() as session:
        outcomes = {
            (row.season, row.account_id): row
            for row in (await session.execute(select(LeagueOutcomeModel))).scalars()
        }
        seasons = range(first_season, first_season + 3)
        assert {season for season, _ in outcomes} == set(seasons)

        # --- clover, levels and every board line, recomputed -----------------------------------
        lines: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0, 0, 0])
        for game in games:
            season = leagues.season_of(game.at)
            on = [ALL, game_board("rummy51"), month_board(game.at)]
            league = outcomes[(season, game.account)].league
            if leagues.counts_for(league, game.tier):
                on.append(leagues.league_board(season, league))
            for board in on:
                line = lines[(board, game.account)]
                line[0] += 1
                line[1] += progression.rating_points(game.standing)
                line[2] += game.standing.place == 1
        lines[(ALL, ids["climber"])][0] += 1  # the lift: one won game of 80 points
        lines[(ALL, ids["climber"])][1] += progression.rating_points(lift_win)
        lines[(ALL, ids["climber"])][2] += 1
        end = 2**62
        for account in ids.values():
            stored = await session.scalar(
                select(ProgressModel.clover).where(ProgressModel.account_id == account)
            )
            assert (stored or 0) == clover_before(account, end), names[account]
        for (board, account), (count, points, firsts) in lines.items():
            found = await boards.line(session, board, account)
            assert found is not None, (board, names[account])
            assert (found.games, found.points, found.firsts) == (count, points, firsts)
            assert found.rating == progression.rating(points, count)
        assert level_for(clover_before(ids["ace"], end)).number < 6

        # --- the seasons: the outcomes the rules give for the recomputed lines --------------------
        open_level = {tier.key: tier.level for tier in TIERS}
        for season in seasons:
            ended = leagues.season_start_ms(season + 1)
            members = []
            for (s, account), row in sorted(outcomes.items()):
                if s == season:
                    count, points, _ = lines.get(
                        (leagues.league_board(season, row.league), account), [0, 0, 0]
                    )
                    level = level_for(clover_before(account, ended)).number
                    rating = progression.rating(points, count)
                    members.append(
                        leagues.Member(account, row.league, level, count, points, rating)
                    )
            for decided in leagues.decide(members, open_level, RULES):
                row = outcomes[(season, decided.account_id)]
                assert (row.place, row.outcome, row.to_league, row.prize) == (
                    decided.place, decided.outcome, decided.to, decided.prize,
                ), (season, names[decided.account_id])  # fmt: skip
        got = {(s, names[a]): (row.outcome, row.to_league) for (s, a), row in outcomes.items()}
        six, seven = first_season + 1, first_season + 2
        assert got[(first_season, "idle")] == (leagues.STAY, "desert")  # one game: too few
        assert got[(six, "idle")] == (leagues.OUT, None)  # inactive in the lowest league
        assert (seven, "idle") not in got
        assert got[(six, "climber")] == (leagues.UP, "tundra")
        assert got[(six, "ace")] == (leagues.BLOCKED, "desert")  # the Tundra room is not open
        assert got[(seven, "climber")] == (leagues.DOWN, "desert")  # one game in the season
        assert got[(seven, "ace")] == (leagues.BLOCKED, "desert")
        assert not any(name == "saver" for _, name in got)

        # --- gold from the ledger: levels, prizes, achievements ----------------------------------
        minted: dict[tuple[str, int], int] = defaultdict(int)
        for kind, wallet, amount in await session.execute(
            select(
                LedgerTransactionModel.kind, LedgerPostingModel.account, LedgerPostingModel.amount
            )
            .join(
                LedgerPostingModel, LedgerPostingModel.transaction_id == LedgerTransactionModel.id
            )
            .where(LedgerPostingModel.amount > 0, LedgerPostingModel.account.like("gold:%"))
        ):
            minted[(kind, int(wallet.removeprefix("gold:")))] += amount
        earned = defaultdict(set)
        for account, key in await session.execute(
            select(AchievementModel.account_id, AchievementModel.key)
        ):
            earned[account].add(key)
        for name, account in ids.items():
            level = level_for(clover_before(account, end)).number
            assert minted[("level_reward", account)] == sum(g for _, g in level_gold(1, level))
            prizes = sum(row.prize for (_, a), row in outcomes.items() if a == account)
            assert minted[("league_prize", account)] == prizes, name
            played = [g for g in games if g.account == account]
            expected = {"first_game"} if played else set()
            expected |= {"first_win"} if any(g.standing.place == 1 for g in played) else set()
            expected |= {"first_rummy"} if any(g.standing.rummy for g in played) else set()
            expected |= {"streak_10"} if name == "ace" else set()
            # The climber's lift is a won game too.
            expected |= {"promoted", "first_game", "first_win"} if name == "climber" else set()
            assert earned[account] == expected, name
            gold = sum(a.gold for a in achievements.CATALOGUE if a.key in expected)
            assert minted[("achievement", account)] == gold, name

    # --- the daily bonuses, day by day --------------------------------------------------------
    for claim in claims:
        answer = claim.answer
        level = level_for(clover_before(ids[claim.name], claim.at)).number
        assert answer["limit"] == silver_limit(level)
        assert answer["credited"] == max(0, min(answer["total"], answer["limit"] - claim.silver))
        assert answer["lost"] == answer["total"] - answer["credited"]
    ace = [claim.answer for claim in claims if claim.name == "ace"]
    assert [answer["streak"] for answer in ace] == list(range(1, 31))
    days = [answer["day"] for answer in ace]
    assert len(set(days)) == 30 and "2026-03-29" in days and "2026-03-30" in days
    saver = [claim.answer["streak"] for claim in claims if claim.name == "saver"]
    assert saver == [1, 2, 3, 1, 2, 3, 4]
    assert any(claim.answer["lost"] for claim in claims)  # 300 silver is above every limit

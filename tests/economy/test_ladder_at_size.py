"""A seeded slice of bench/ladder.py (which runs 100,000 players): the rollover of a populated
season and the leaderboard's cursor pages, checked for what they must say rather than timed."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from sqlalchemy import select

from rummyhall.economy import boards, leagues, rollover
from rummyhall.economy.ladder import ALL
from rummyhall.store.models import LeagueOutcomeModel, LeaguePlayerModel

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import ladder as bench

MEMBERS = select(LeaguePlayerModel.account_id, LeaguePlayerModel.league)


async def test_a_populated_season_rolls_over_and_the_board_pages_in_order(tmp_path: Path) -> None:
    players = 2_000
    db = await bench.build(tmp_path / "ladder.db", players, seed=5)
    try:
        async with db.read() as session:
            before = {int(a): str(league) for a, league in await session.execute(MEMBERS)}
        _, rolled = await bench.timed_rollover(db)
        assert rolled.players == players == sum(rolled.moved.values())
        async with db.read() as session:
            after = {int(a): str(league) for a, league in await session.execute(MEMBERS)}
            outcomes = (await session.execute(select(LeagueOutcomeModel))).scalars().all()
            assert len(outcomes) == players
            step = {leagues.UP: 1, leagues.DOWN: -1, leagues.STAY: 0, leagues.BLOCKED: 0}
            for outcome in outcomes:
                was = before[outcome.account_id]
                if outcome.outcome == leagues.OUT:
                    assert was == leagues.LEAGUES[0] and outcome.account_id not in after
                    continue
                moved = leagues.LEAGUES.index(after[outcome.account_id]) - leagues.LEAGUES.index(
                    was
                )
                assert moved == step[outcome.outcome], outcome
            assert Counter(o.outcome for o in outcomes) == Counter(rolled.moved)

            # Walking the overall board page by page visits every rated line once, in order.
            seen: list[boards.BoardLine] = []
            after_cursor = None
            while True:
                page = await boards.page(session, ALL, after=after_cursor, limit=97)
                seen += page
                if len(page) < 97:
                    break
                after_cursor = page[-1].cursor
            assert len(seen) == await boards.rated(session, ALL) == players
            assert [line.rank for line in seen] == list(range(1, players + 1))
            keys = [(line.rating, line.games, line.account_id) for line in seen]
            assert keys == sorted(keys, reverse=True)
            for line in seen[::250]:
                own = await boards.line(session, ALL, line.account_id)
                assert own is not None and own.rank == line.rank
        async with db.transaction() as session:
            again = await session.run_sync(
                lambda sync: rollover.roll_season(sync.connection(), bench.SEASON)
            )
        assert again is None  # settled once
    finally:
        await db.close()

"""The ladder over real connections, on SQLite and PostgreSQL (issue 19): a finished game in a
real room adds clover points and leaderboard lines to the people who played it (not to bots, not
in practice rooms), checked against a recomputation from the game's record; level-ups pay gold
once; the daily bonus turns at Berlin's midnight, keeps a streak and is cut at the silver limit;
leaderboards page in rank order with the caller's own line."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import func, select

from rummyhall.client import ClientError, RoomClient
from rummyhall.economy import achievements, ladder, leagues, ledger, progression
from rummyhall.economy.audit import audit_database
from rummyhall.economy.daily import DAILY, next_midnight_ms
from rummyhall.economy.ledger import GOLD
from rummyhall.economy.levels import clover_at, level, silver_limit
from rummyhall.games.protocol import JSON, Standing, replay
from rummyhall.server.clock import FakeClock
from rummyhall.store.database import Database
from rummyhall.store.models import AccountModel, BoardLineModel, ProgressModel
from server_kit import (
    Player,
    fast_settings,
    promote,
    record_games,
    record_nets,
    running,
    watch_table,
)

RUMMY51 = "rummy51-10-4p"


async def play(client: RoomClient, room: str, game: str, seed: int) -> tuple[JSON, int]:
    """Play one game at ``room`` with bots; the game's record and the client's seat."""
    table, _ = await client.quick_seat(room)
    player = Player(client, game, seed)
    await watch_table(client, table, follow=True)
    await player.play(table, games=1)
    assert player.refused == []
    await client.leave(table)
    hands = (await client.request("GET", "/api/hands"))["hands"]
    record: JSON = (await client.request("GET", f"/api/hands/{hands[0]['id']}"))["record"]
    return record, int(hands[0]["seat"])


async def test_a_finished_game_climbs_the_ladder_of_its_people(db_url: str, tmp_path: Path) -> None:
    settings = fast_settings(tmp_path, db_url, next_game_ms=3_600_000)
    async with running(settings) as server, RoomClient(server.url) as client:
        me = await client.register("climber", "correct horse battery")
        assert me["ladder"]["level"] == 1 and me["ladder"]["clover"] == 0
        assert me["ladder"]["games"] == 0 and me["ladder"]["rating"] is None
        record, seat = await play(client, RUMMY51, "rummy51", seed=3)

        # Recompute from the record: the game's own places and card bonuses, at x1.0.
        game = replay(record)
        standings = game.standings(record_nets(record))
        mine = standings[seat]
        expected = progression.clover(mine, 10)
        ladder_now = (await client.request("GET", "/api/me"))["ladder"]
        assert ladder_now["clover"] == expected > 0
        assert ladder_now["games"] == 1

        month = ladder.month_board(int(record["actions"][-1]["at"]))
        for board in ("all", "game:rummy51", month):
            page = await client.request("GET", f"/api/leaderboard?board={board}")
            assert page["me"]["games"] == 1, board
            assert page["me"]["points"] == progression.rating_points(mine)
            assert page["me"]["firsts"] == (1 if mine.place == 1 else 0)
            assert page["me"]["rank"] is None and page["lines"] == []  # 20 games to be rated
        other = await client.request("GET", "/api/leaderboard?board=game:patti")
        assert other["me"] is None

        # Bots climb no ladder, and practice games count for nobody.
        db: Database = server.app.state.db
        async with db.read() as session:
            bots = select(AccountModel.id).where(AccountModel.is_bot)
            assert (
                await session.scalar(
                    select(func.count())
                    .select_from(ProgressModel)
                    .where(ProgressModel.account_id.in_(bots))
                )
                == 0
            )
            assert (
                await session.scalar(
                    select(func.count())
                    .select_from(BoardLineModel)
                    .where(BoardLineModel.account_id.in_(bots))
                )
                == 0
            )
        await play(client, "practice-rummy51-10-4p", "rummy51", seed=4)
        assert (await client.request("GET", "/api/me"))["ladder"]["clover"] == expected
    report = await audit_database(db_url)
    assert report.problems == []


async def test_the_daily_bonus_turns_at_berlin_midnight_with_a_streak_and_the_limit(
    db_url: str, tmp_path: Path
) -> None:
    # 2026-03-28, 12:00 UTC: the next Berlin midnight starts the day the clocks go forward.
    clock = FakeClock(int(datetime(2026, 3, 28, 12, tzinfo=UTC).timestamp() * 1000))
    settings = fast_settings(tmp_path, db_url, starting_silver=50, bots=False)
    async with running(settings, clock=clock) as server, RoomClient(server.url) as client:
        me = await client.register("early_bird", "correct horse battery")
        assert me["ladder"]["bonus_available"] is True
        assert me["ladder"]["silver_limit"] == silver_limit(1) == 100
        first = await client.request("POST", "/api/daily-bonus")
        assert (first["day"], first["streak"], first["streak_bonus"]) == ("2026-03-28", 1, 0)
        assert first["total"] == DAILY.base + level(1).daily_bonus
        assert first["credited"] == min(first["total"], 100 - 50)
        assert first["lost"] == first["total"] - first["credited"]
        assert await client.chips() == 50 + first["credited"]
        with pytest.raises(ClientError) as again:
            await client.request("POST", "/api/daily-bonus")
        assert (again.value.code, again.value.status) == ("bonus_claimed", 409)
        assert (await client.request("GET", "/api/me"))["ladder"]["bonus_available"] is False

        # A second before midnight it is still the same day; at midnight the streak goes on.
        midnight = next_midnight_ms(clock.now())
        clock.advance(midnight - 1 - clock.now())
        with pytest.raises(ClientError):
            await client.request("POST", "/api/daily-bonus")
        clock.advance(1)
        second = await client.request("POST", "/api/daily-bonus")
        assert (second["day"], second["streak"]) == ("2026-03-29", 2)
        assert second["streak_bonus"] == DAILY.streak_step
        assert second["limit"] == 100
        held = 50 + first["credited"] + second["credited"]
        assert await client.chips() == held
        # That day had 23 hours: the next bonus comes 23 hours after this midnight.
        assert second["next_bonus_at"] - midnight == 23 * 3_600_000
        clock.advance(second["next_bonus_at"] - clock.now())
        # The third day's bonus would take the wallet past its limit: the rest is lost, and
        # the answer says how much.
        third = await client.request("POST", "/api/daily-bonus")
        assert third["streak"] == 3
        assert third["total"] > 100 - held
        assert (third["credited"], third["lost"]) == (100 - held, third["total"] - (100 - held))
        assert await client.chips() == 100

        # A day missed starts the streak again.
        clock.advance(2 * 24 * 3_600_000)
        assert (await client.request("POST", "/api/daily-bonus"))["streak"] == 1

        async with RoomClient(server.url) as guest:
            await guest.guest()
            with pytest.raises(ClientError) as refused:
                await guest.request("POST", "/api/daily-bonus")
            assert refused.value.code == "practice_only"
    report = await audit_database(db_url)
    assert report.problems == []


async def test_level_ups_pay_gold_once(db_url: str, tmp_path: Path) -> None:
    settings = fast_settings(tmp_path, db_url, bots=False)
    async with running(settings) as server, RoomClient(server.url) as client:
        me = await client.register("riser", "correct horse battery")
        db: Database = server.app.state.db
        # Enough clover to reach level 3 (a new title: Butterfly) with one game.
        win = Standing(place=1, cards_thrown=15, opened=True)
        games = -(-clover_at(3) // progression.clover(win, 10))
        level_ups = []
        for _ in range(games):
            level_ups += await record_games(db, [(me["id"], win)], at_ms=1_790_000_000_000)
        assert [(up.before, up.level) for up in level_ups] == [(1, 2), (2, 3)]
        ladder_json = await client.request("GET", "/api/me")
        assert ladder_json["ladder"]["level"] == 3
        assert ladder_json["ladder"]["title"] == "Butterfly"
        rules = progression.LADDER
        # The level rewards, and the first game's and first win's achievements.
        first = sum(a.gold for a in achievements.CATALOGUE if a.key in ("first_game", "first_win"))
        assert ladder_json["gold"] == 2 * rules.level_gold + rules.title_gold + first
        assert sum(up.gold for up in level_ups) == 2 * rules.level_gold + rules.title_gold
        # The rewards are keyed by account and level: written again, they pay nothing more.
        async with db.transaction() as session:
            again = await ledger.transfer(
                session,
                f"level:{me['id']}:3",
                [(GOLD.mint, -1), (GOLD.wallet(me["id"]), 1)],
                kind="level_reward",
            )
        assert again is False
    report = await audit_database(db_url)
    assert report.problems == []
    assert report.currencies["gold"].minted == 2 * rules.level_gold + rules.title_gold + first


async def test_leaderboards_page_in_rank_order_with_your_own_line(
    db_url: str, tmp_path: Path
) -> None:
    settings = fast_settings(tmp_path, db_url, bots=False)
    async with running(settings) as server:
        db: Database = server.app.state.db
        clients = [RoomClient(server.url) for _ in range(7)]
        try:
            ids = []
            for n, client in enumerate(clients):
                ids.append((await client.register(f"ranked{n}", "correct horse battery"))["id"])
            # Player n plays 20 + (n % 3) games, winning the first n of them; player 6 only 19.
            played: dict[int, list[Standing]] = {}
            for n, account in enumerate(ids):
                count = 19 if n == 6 else 20 + n % 3
                played[account] = [Standing(place=1 if g < n else 3) for g in range(count)]
            await record_games(
                db,
                [(account, standing) for account, games in played.items() for standing in games],
                at_ms=1_790_000_000_000,
                game="patti",
            )
            expected = sorted(
                (
                    (progression.rating(sum(map(progression.rating_points, s)), len(s)), len(s), a)
                    for a, s in played.items()
                    if len(s) >= 20
                ),
                reverse=True,
            )
            seen: list[tuple[int, int, int]] = []
            after = None
            viewer = clients[6]  # not rated: its line comes with every page, without a rank
            while True:
                query = "/api/leaderboard?board=game:patti&limit=4"
                if after:
                    query += f"&after={after}"
                page = await viewer.request("GET", query)
                assert page["rated"] == 6
                assert page["me"]["games"] == 19 and page["me"]["rank"] is None
                for line in page["lines"]:
                    assert line["rank"] == len(seen) + 1
                    seen.append((line["rating"], line["games"], line["account"]))
                after = page["next"]
                if after is None:
                    break
            assert seen == expected
            top = await clients[5].request("GET", "/api/leaderboard?board=all&limit=1")
            assert top["me"]["rank"] == 1 + [a for _, _, a in expected].index(ids[5])
            for bad, code in (("board=game:chess", "unknown_board"), ("after=x.y", "bad_cursor")):
                with pytest.raises(ClientError) as refused:
                    await viewer.request("GET", f"/api/leaderboard?{bad}")
                assert refused.value.code == code
        finally:
            for client in clients:
                await client.close()


async def test_a_room_opens_with_its_title(db_url: str, tmp_path: Path) -> None:
    settings = fast_settings(tmp_path, db_url, bots=False)
    async with running(settings) as server, RoomClient(server.url) as client:
        me = await client.register("newcomer", "correct horse battery")
        tundra = "rummy51-20-4p"
        chips = await client.chips()
        for call in (
            client.quick_seat(tundra),
            client.request("POST", "/api/tables", {"room": tundra}),
        ):
            with pytest.raises(ClientError) as refused:
                await call
            assert (refused.value.code, refused.value.status) == ("room_locked", 403)
            assert "Frog (level 6)" in refused.value.message
        assert server.hub.tables == {} and await client.chips() == chips
        # A table of the room someone else opened: sitting there is refused the same way.
        async with RoomClient(server.url) as frog:
            other = await frog.register("frog", "correct horse battery")
            await promote(server, other["id"], 6)
            table = (await frog.request("POST", "/api/tables", {"room": tundra}))["table"]["id"]
            with pytest.raises(ClientError) as refused:
                await client.request("POST", f"/api/tables/{table}/sit", {})
            assert refused.value.code == "room_locked"
        await promote(server, me["id"], 6)
        table_id, _ = await client.quick_seat(tundra)
        assert server.hub.table(table_id).room.key == tundra
        # Practice rooms are in no tier: open to everyone.
        assert server.hub.room("practice-rummy51-10-4p").tier is None


async def test_the_league_table_and_the_season_rolling_over_on_the_servers_clock(
    db_url: str, tmp_path: Path
) -> None:
    season = 30
    clock = FakeClock(leagues.season_start_ms(season) + 3_600_000)
    settings = fast_settings(tmp_path, db_url, bots=False, league_check_ms=60_000)
    async with running(settings, clock=clock) as server, RoomClient(server.url) as client:
        me = await client.register("leaguer", "correct horse battery")
        before = await client.request("GET", "/api/league")
        assert (before["season"], before["yours"], before["league"]) == (season, None, "desert")
        assert before["ends_at"] == leagues.season_start_ms(season + 1)
        assert [league["key"] for league in before["leagues"]] == list(leagues.LEAGUES)
        db: Database = server.app.state.db
        win = Standing(place=1, cards_thrown=15, opened=True)
        await record_games(db, [(me["id"], win)] * 30, at_ms=clock.now(), tier="desert")
        table = await client.request("GET", "/api/league")
        assert table["yours"] == "desert"
        assert [line["name"] for line in table["lines"]] == ["leaguer"]
        assert table["me"]["games"] == 30 and table["me"]["rank"] == 1
        page = await client.request("GET", f"/api/leaderboard?board={table['board']}")
        assert page["me"] == table["me"]

        # The season ends; the server's periodic check settles it.
        clock.advance(table["ends_at"] - clock.now() + 60_000)
        deadline = asyncio.get_running_loop().time() + 30
        while (after := await client.request("GET", "/api/league"))["last"] is None:
            assert asyncio.get_running_loop().time() < deadline, "the season was not settled"
            await asyncio.sleep(0.02)
        prize = leagues.RULES.rule("desert").prizes[0]
        assert after["last"] == {
            "season": season, "league": "desert", "place": 1, "outcome": "up", "to": "tundra",
            "prize": prize,
        }  # fmt: skip
        assert (after["season"], after["yours"], after["lines"]) == (season + 1, "tundra", [])
    report = await audit_database(db_url)
    assert report.problems == []


async def test_achievements_and_an_invitation_pay_gold_once(db_url: str, tmp_path: Path) -> None:
    clock = FakeClock(int(datetime(2026, 6, 1, 10, tzinfo=UTC).timestamp() * 1000))
    settings = fast_settings(tmp_path, db_url, bots=False)
    async with running(settings, clock=clock) as server:
        db: Database = server.app.state.db

        async def games(account: int, standing: Standing, count: int) -> None:
            await record_games(db, [(account, standing)] * count, at_ms=clock.now(), game="patti")

        async with RoomClient(server.url) as host, RoomClient(server.url) as friend:
            me = await host.register("host", "correct horse battery")
            with pytest.raises(ClientError) as refused:
                await friend.request(
                    "POST", "/api/register",
                    {"name": "friend", "password": "correct horse battery", "invited_by": "nobody"},
                )  # fmt: skip
            assert refused.value.code == "unknown_account"
            them = await friend.request(
                "POST", "/api/register",
                {"name": "friend", "password": "correct horse battery", "invited_by": "host"},
            )  # fmt: skip
            # Nine games of the friend pay the host nothing; the tenth pays once.
            await games(them["id"], Standing(place=2), 9)
            assert (await host.request("GET", "/api/me"))["gold"] == 0
            await games(them["id"], Standing(place=2), 5)
            invite = (await host.request("GET", "/api/achievements"))["invite"]
            assert (invite["invited"], invite["paid"]) == (1, 1)
            assert (await host.request("GET", "/api/me"))["gold"] == invite["gold"] == 100

            # The friend's games earned the first game's achievement (once), not the first win.
            got = {a["key"]: a for a in (await friend.request("GET", "/api/achievements"))[
                "achievements"
            ]}  # fmt: skip
            assert got["first_game"]["earned_at"] is not None
            assert got["first_win"]["earned_at"] is None
            gold_before = (await friend.request("GET", "/api/me"))["gold"]
            await games(them["id"], Standing(place=1), 2)
            gold_after = (await friend.request("GET", "/api/me"))["gold"]
            assert gold_after - gold_before == got["first_win"]["gold"]

            # Ten days of daily bonuses in a row: the streak's achievement, once.
            for _ in range(11):
                await host.request("POST", "/api/daily-bonus")
                clock.advance(24 * 3_600_000)
            earned = {a["key"] for a in (await host.request("GET", "/api/achievements"))[
                "achievements"
            ] if a["earned_at"]}  # fmt: skip
            assert earned == {"streak_10"}
            assert (await host.request("GET", "/api/me"))["gold"] == 100 + 100
            assert me["id"] != them["id"]
    report = await audit_database(db_url)
    assert report.problems == []


async def test_quick_seat_prefers_people_of_your_level(db_url: str, tmp_path: Path) -> None:
    settings = fast_settings(tmp_path, db_url, bots=False)
    room = "rummy51-10-4p"
    async with running(settings) as server:
        clients = [RoomClient(server.url) for _ in range(4)]
        try:
            ids = {}
            for client, (name, level) in zip(
                clients, (("novice", 1), ("veteran", 30), ("expert", 29), ("learner", 2)),
                strict=True,
            ):  # fmt: skip
                ids[name] = (await client.register(name, "correct horse battery"))["id"]
                if level > 1:
                    await promote(server, ids[name], level)
            novice, veteran, expert, learner = clients
            first, _ = await novice.quick_seat(room)
            second = (await veteran.request("POST", "/api/tables", {"room": room}))["table"]["id"]
            await veteran.request("POST", f"/api/tables/{second}/sit", {})
            assert first < second
            # Both tables have someone waiting: each newcomer goes to the nearer level.
            assert (await expert.quick_seat(room))[0] == second
            assert (await learner.quick_seat(room))[0] == first
        finally:
            for client in clients:
                await client.close()

"""Live tables over real connections, on SQLite and PostgreSQL: resent actions, reconnection,
spectators, turn timers on a fake clock, leaving during a game, and the operator's void."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from rummyhall.client import ClientError, RoomClient
from rummyhall.economy.audit import audit_database
from rummyhall.games.invariants import allowed, check_view, view_shape
from rummyhall.games.protocol import replay
from rummyhall.server.clock import FakeClock
from server_kit import (
    Player,
    fast_settings,
    my_turn,
    run_clock,
    running,
    seat_guest,
    settle,
    watch_table,
)

# Guests play practice rooms (their chips are practice chips).
POINTS_2P = "practice-indian13-classic-points-1-2p"
PATTI = "practice-patti-10-5p"


async def test_a_resent_action_is_applied_once(tmp_path: Path, db_url: str) -> None:
    settings = fast_settings(tmp_path, db_url, next_game_ms=0)
    # A bot may drop at once and end a deal before it is our turn: the next one starts at once.
    async with running(settings) as server, RoomClient(server.url) as client:
        table, _, _ = await seat_guest(client, POINTS_2P)
        state = await my_turn(client, table, server)
        step = state["step"]
        first = await client.act(table, "draw closed", cid="draw-1")
        again = await client.act(table, "draw closed", cid="draw-1")
        assert again == first
        after = await client.wait_for(table, lambda m: m["seq"] >= first)
        assert after["step"] == step + 1
        assert server.hub.table(table).game.log[-1]["action"] == "draw closed"
        assert len(server.hub.table(table).game.log) == step + 1


async def test_a_client_id_the_database_cannot_store_is_a_bad_message(
    tmp_path: Path, db_url: str
) -> None:
    """A ``cid`` is stored with the action in the table's log; PostgreSQL cannot store a NUL in
    text, and a cid carrying one once failed the log write: an ``internal`` error and the table
    reloaded from its log. Control characters in a cid (or an action) are refused up front."""
    settings = fast_settings(tmp_path, db_url, next_game_ms=0)
    async with running(settings) as server, RoomClient(server.url) as client:
        table, _, _ = await seat_guest(client, POINTS_2P)
        state = await my_turn(client, table, server)
        actor = server.hub.table(table)
        for cid, action in (("a\x00b", "draw closed"), ("tab\there", "draw closed"),
                            ("fine", "draw\x00 closed")):  # fmt: skip
            with pytest.raises(ClientError) as refused:
                await client.act(table, action, cid=cid)
            assert refused.value.code == "bad_message", (cid, action)
        assert actor.seq == state["seq"] and not actor.stuck
        done = await client.act(table, "draw closed", cid="draw-1")
        assert done > state["seq"]
        assert server.hub.table(table) is actor
    report = await audit_database(db_url)
    assert report.problems == []


async def test_reconnecting_players_find_the_table_as_it_was(tmp_path: Path, db_url: str) -> None:
    settings = fast_settings(tmp_path, db_url, next_game_ms=0)
    # A bot may drop at once and end a deal before it is our turn: the next one starts at once.
    async with running(settings) as server, RoomClient(server.url) as client:
        table, seat, _ = await seat_guest(client, POINTS_2P)
        before = await my_turn(client, table, server)
        await client.disconnect()
        # Gone: the seat stays, the game waits for the player's turn (its timer runs).
        actor = server.hub.table(table)
        assert actor.seats[seat].account_id == client.me["id"]  # type: ignore[index]
        await client.connect()
        back = await client.watch(table, since=before["seq"])
        assert back["type"] == "snapshot"
        assert back["seq"] == actor.seq >= before["seq"]
        assert back["view"] == actor.game.view(seat)
        assert back["legal"] == actor.game.legal(seat) == before["legal"]
        player = Player(client, "indian13", 3)
        client.follow(table)
        await client.watch(table)
        final = await player.play(table)
        assert final["info"]["playing"] is False


async def test_spectators_see_only_public_cards(tmp_path: Path, db_url: str) -> None:
    settings = fast_settings(tmp_path, db_url, next_game_ms=3_600_000)
    async with (
        running(settings) as server,
        RoomClient(server.url) as client,
        RoomClient(server.url) as watcher,
    ):
        await client.guest()
        await watcher.guest()
        table, _ = await client.quick_seat(PATTI)
        seen: list[dict[str, Any]] = []
        await watch_table(watcher, table, follow=True)
        feed = watcher.follow(table)
        await watch_table(client, table, follow=True)
        await Player(client, "patti", 5).play(table)
        await settle(server.hub, lambda hub: True)
        while not feed.empty():
            seen.append(feed.get_nowait())
        assert seen and all(m["you"] is None and m["legal"] == [] for m in seen)
        hands = (await client.request("GET", "/api/hands"))["hands"]
        record = (await client.request("GET", f"/api/hands/{hands[0]['id']}"))["record"]
        for message in seen:
            if message["view"] is None or message["info"]["game_no"] != 1:
                continue
            then = replay(record, upto=message["step"])
            assert message["view"] == then.view(None)
            assert (
                check_view(message["view"], None, allowed(then.census(), None), view_shape(then))
                == []
            )


async def test_timeouts_play_on_for_an_absent_player(tmp_path: Path, db_url: str) -> None:
    """Nobody acts for the human: the engine's timeout rules finish the game on the clock."""
    clock = FakeClock()
    settings = fast_settings(tmp_path, db_url, next_game_ms=3_600_000)
    async with running(settings, clock=clock) as server, RoomClient(server.url) as client:
        await client.guest()
        table, seat = await client.quick_seat(PATTI)
        # There (a table deals only when the people seated at it are connected), but idle.
        await watch_table(client, table)
        actor = server.hub.table(table)
        await settle(server.hub, lambda hub: actor.game is not None and actor.game.log)
        await run_clock(clock, lambda: actor.game.over, rounds=200)
        record = actor.game.record()
        mine = [a["action"] for a in record["actions"] if a["seat"] == seat]
        assert mine and set(mine) == {"timeout"}
        # At our turns the first timeout plays a chaal and the second packs: at most one chaal
        # played for us. (A bot may also ask us for a sideshow, which our timeout refuses: that
        # is a timeout of its own, not a turn's.)
        played = [m for m in actor.game.moves if m["seat"] == seat and m["move"] == "timeout chaal"]
        assert len(played) <= 1
    report = await audit_database(settings.database_url)
    assert report.problems == []


async def test_an_action_is_answered_by_its_update(tmp_path: Path, db_url: str) -> None:
    """A connection watching the table gets one message for its action: the update, carrying
    the action's cid; another connection of the same player gets the update without it; a
    connection that does not watch the table gets an ack."""
    settings = fast_settings(tmp_path, db_url, next_game_ms=0)
    async with running(settings) as server, RoomClient(server.url) as client:
        await client.guest()
        table, _ = await client.quick_seat(POINTS_2P)
        other = RoomClient(server.url)
        other.http.cookies = client.http.cookies
        try:
            await client.connect()
            await other.connect()
            other.keep_received = client.keep_received = True
            await other.watch(table)
            await client.watch(table)
            await my_turn(client, table, server)
            seq = await client.act(table, "draw closed", cid="draw-1")
            answers = [m for m in client.received if m.get("cid") == "draw-1"]
            assert [(m["type"], m["seq"]) for m in answers] == [("update", seq)]
            assert answers[0]["view"]["drawn"] is True
            mirrored = await other.wait_for(table, lambda m: m["seq"] >= seq)
            assert mirrored["seq"] == seq and "cid" not in mirrored
            # Not watching: the answer is an ack.
            await client.send_raw(f'{{"type": "unwatch", "table": {table}}}')
            await client.send({"type": "ping"})  # handled in order: the unwatch is done
            state = await my_turn(other, table, server)
            discard = state["view"]["hand"][0]
            seq = await client.act(table, f"discard {discard}", cid="discard-1")
            answers = [m for m in client.received if m.get("cid") == "discard-1"]
            assert [(m["type"], m["seq"]) for m in answers] == [("ack", seq)]
        finally:
            await other.close()


async def test_messages_carry_the_server_clock_for_deadlines(tmp_path: Path, db_url: str) -> None:
    """Deadlines are on the server's clock; each message says what that clock read."""
    clock = FakeClock()
    clock.advance(1_795_000_000_000)
    settings = fast_settings(tmp_path, db_url, next_game_ms=3_600_000)
    async with running(settings, clock=clock) as server, RoomClient(server.url) as client:
        await client.guest()
        table, _ = await client.quick_seat(PATTI)
        await watch_table(client, table)
        actor = server.hub.table(table)
        await settle(server.hub, lambda hub: actor.game is not None and actor.game.log)
        snapshot = await client.watch(table)
        assert snapshot["now"] == clock.now()
        deadlines = [a["deadline"] for a in snapshot["view"]["awaited"]]
        assert deadlines and all(d > snapshot["now"] for d in deadlines)


async def test_leaving_during_a_game_takes_effect_after_it(tmp_path: Path, db_url: str) -> None:
    clock = FakeClock()
    settings = fast_settings(tmp_path, db_url, next_game_ms=1_000)
    async with running(settings, clock=clock) as server, RoomClient(server.url) as client:
        await client.guest()
        start = await client.practice()
        table, seat = await client.quick_seat(PATTI)
        await watch_table(client, table)
        actor = server.hub.table(table)
        await settle(server.hub, lambda hub: actor.game is not None and actor.game.log)
        left = await client.request("POST", f"/api/tables/{table}/leave")
        assert left["after_game"] is True
        assert actor.seats[seat].leaving
        await run_clock(clock, lambda: actor.closed)
        # The game ended, the player stood up with their stack, the bots left an empty table.
        chips = await client.practice()
        assert chips < start  # the boot and an automatic chaal were lost
        with pytest.raises(Exception):  # noqa: B017
            server.hub.table(table)
    report = await audit_database(settings.database_url)
    assert report.problems == []


async def test_void_returns_the_pot_to_who_paid_it(tmp_path: Path, db_url: str) -> None:
    clock = FakeClock()
    settings = fast_settings(tmp_path, db_url, next_game_ms=3_600_000)
    async with running(settings, clock=clock) as server, RoomClient(server.url) as client:
        await client.guest()
        table, _seat = await client.quick_seat(PATTI)
        await watch_table(client, table)
        actor = server.hub.table(table)
        await settle(server.hub, lambda hub: actor.game is not None and actor.pot > 0)
        stacks = dict(actor.stacks)
        pot = actor.pot
        assert await actor.call(actor.void) is True
        assert actor.pot == 0
        assert sum(actor.stacks.values()) == sum(stacks.values()) + pot
        assert actor.game is None
        assert await actor.call(actor.void) is False
    report = await audit_database(settings.database_url)
    assert report.problems == []


@pytest.mark.parametrize(("room", "game"), [(POINTS_2P, "indian13"), (PATTI, "patti")])
async def test_reconnecting_in_every_phase(
    tmp_path: Path, db_url: str, room: str, game: str
) -> None:
    """Through a whole game, the player drops the connection every time before acting (in
    every kind of wait: a turn, a discard, a show, a sideshow answer) and comes back: each
    snapshot is the table exactly as it was at its step (checked against a replay of the
    game's record), and the game goes on."""
    settings = fast_settings(tmp_path, db_url, next_game_ms=0)
    async with running(settings) as server, RoomClient(server.url) as client:
        await client.guest()
        # Automatic rebuy on: a Patti game that goes on long can leave the stack short, and a
        # short stack stands up after the game, which closes the table under the loop below
        # (seen as table_closed on a loaded machine); this test is about reconnecting alone.
        table, seat = await client.quick_seat(room, auto_rebuy=True)
        actor = server.hub.table(table)
        await client.connect()
        bot = Player(client, game, 9).bot
        kinds: set[str] = set()
        snapshots = []
        # Until a game in which we moved is over (a bot may end a game before our first turn;
        # the next game starts at once).
        while not (kinds and actor.game is not None and actor.game.over):
            snapshot = await client.watch(table)
            snapshots.append(snapshot)
            view = snapshot["view"]
            mine = [a for a in (view or {}).get("awaited", []) if a["seat"] == seat]
            if not mine:
                await asyncio.sleep(0.02)
                continue
            kinds.add(mine[0]["kind"])
            action = bot.act(view)
            await client.disconnect()
            await client.connect()
            if action is not None:
                await client.act(table, action)
        record = actor.game.record()
        final = actor.game_no
    assert "turn" in kinds
    checked = 0
    for snapshot in snapshots:
        if snapshot["view"] is None or snapshot["info"]["game_no"] != final:
            continue
        then = replay(record, upto=snapshot["step"])
        assert snapshot["view"] == then.view(seat)
        assert snapshot["legal"] == then.legal(seat)
        checked += 1
    assert checked > 0


async def test_a_quick_seat_that_goes_away_while_its_table_opens_gives_its_seat_back(
    tmp_path: Path, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Arrivals while a room's table is being opened are promised its seats (the table is
    made once, for all of them); one that goes away meanwhile gives its seat back, so the
    table still fills."""
    settings = fast_settings(tmp_path, db_url, bots=False)
    async with running(settings) as server:
        hub = server.hub
        opening = asyncio.Event()
        create = hub.create_table

        async def slow_create(room_key: str, **kwargs: Any) -> Any:
            await opening.wait()
            return await create(room_key, **kwargs)

        monkeypatch.setattr(hub, "create_table", slow_create)
        clients = [RoomClient(server.url) for _ in range(5)]
        try:
            players = [await client.guest() for client in clients]
            seats = [
                asyncio.create_task(hub.quick_seat(p["id"], p["name"], "practice-patti-10-4p"))
                for p in players[:4]
            ]
            await settle(hub, lambda hub: sum(m.promised for m in hub._making.values()) == 4)
            seats[1].cancel()  # gone before the table exists
            opening.set()
            done = await asyncio.gather(*seats, return_exceptions=True)
            assert isinstance(done[1], asyncio.CancelledError)
            tables = {table for table, _ in (d for d in done if isinstance(d, tuple))}
            assert len(tables) == 1
            (table,) = tables
            assert hub._promised == {}
            # The seat given back is free: the fifth player sits at the same table.
            fifth = players[4]
            assert (await hub.quick_seat(fifth["id"], fifth["name"], "practice-patti-10-4p"))[
                0
            ] == table
            assert len(hub.table(table).seats) == 4
        finally:
            for client in clients:
                await client.close()

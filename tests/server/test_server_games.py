"""Whole games through the real HTTP API and WebSocket, on SQLite and PostgreSQL: a signed-in
player quick-seats, bots fill the table, the player plays its seat from the views it receives,
and at the end the ledger, the wallet, the hand history and the record agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from rummyhall.client import RoomClient
from rummyhall.economy.audit import audit_database
from rummyhall.games.invariants import allowed, check_view, view_shape
from rummyhall.games.protocol import replay
from rummyhall.shuffle import FairDeal
from server_kit import Player, check_flows, fast_settings, running, seat_guest, watch_table

ROOMS = {
    "indian13": "indian13-classic-points-1-2p",
    "pool": "indian13-pool101-50-2p",
    "patti": "patti-10-5p",
}


async def play_one_game(url: str, room_key: str, game: str, seed: int) -> None:
    async with RoomClient(url) as client:
        me = await client.register(f"player{seed}", "correct horse battery")
        start = me["chips"]
        table, seat = await client.quick_seat(room_key)
        seated = await client.chips()
        assert seated < start  # the buy-in went to the seat
        client.keep_received = True
        player = Player(client, game, seed)
        await watch_table(client, table, follow=True)
        final = await player.play(table, games=1)
        assert player.refused == []
        stack = final["info"]["seats"][seat - 1]["stack"]
        left = await client.leave(table)
        assert left["after_game"] is False
        assert await client.chips() == seated + stack

        # The finished game is in the player's history, with its revealed seed.
        hands = (await client.request("GET", "/api/hands"))["hands"]
        assert [h["table"] for h in hands] == [table]
        record = (await client.request("GET", f"/api/hands/{hands[0]['id']}"))["record"]
        replayed = replay(record)
        assert replayed.result is not None
        assert replayed.result.to_json() == record["result"]
        # The last deal began while the player watched: its commitment was published to them.
        deal = [
            entry["deal"] for entry in record["actions"] if "server_seed" in entry.get("deal", {})
        ][-1]
        fair = FairDeal(bytes.fromhex(deal["server_seed"]), deal["client_seed"], deal["nonce"])
        frames = [m for m in client.received if m["type"] in ("snapshot", "update", "closed")]
        published = [m["info"]["fair"] for m in frames if m["info"]["fair"] is not None]
        assert fair.commitment in {f["commitment"] for f in published}

        # No frame this player received showed a card its seat may not see.
        for message in frames:
            view = message["view"]
            if view is None or message["info"]["game_no"] != final["info"]["game_no"]:
                continue
            then = replay(record, upto=message["step"])
            you = message["you"]
            assert view == then.view(you)
            assert check_view(view, you, allowed(then.census(), you), view_shape(then)) == []


@pytest.mark.parametrize("game", ["indian13", "pool", "patti"])
async def test_a_whole_game_through_the_api(db_url: str, tmp_path: Path, game: str) -> None:
    settings = fast_settings(tmp_path, db_url, next_game_ms=3_600_000)
    engine = "patti" if game == "patti" else "indian13"
    async with running(settings) as server:
        await play_one_game(server.url, ROOMS[game], engine, seed=7)
    report = await audit_database(db_url)
    assert report.problems == []
    assert await check_flows(db_url) == 1  # who paid whom, as the record says


async def test_stored_records_work_with_the_command_line(tmp_path: Path) -> None:
    """A finished game fetched from the history replays with `rummyhall replay`, and its deals
    verify with `rummyhall verify-deal`."""
    import json
    import subprocess
    import sys

    settings = fast_settings(
        tmp_path, f"sqlite+aiosqlite:///{tmp_path / 'h.db'}", next_game_ms=3_600_000
    )
    async with running(settings) as server, RoomClient(server.url) as client:
        table, _, _ = await seat_guest(client, "practice-patti-10-5p", follow=True)
        player = Player(client, "patti", 11)
        await player.play(table)
        hands = (await client.request("GET", "/api/hands"))["hands"]
        record = (await client.request("GET", f"/api/hands/{hands[0]['id']}"))["record"]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    cli = [sys.executable, "-m", "rummyhall.cli"]
    replayed = subprocess.run(
        [*cli, "replay", str(path)], capture_output=True, text=True, check=False
    )
    assert replayed.returncode == 0, replayed.stderr
    deal = next(e["deal"] for e in record["actions"] if "server_seed" in e.get("deal", {}))
    verified = subprocess.run(
        [*cli, "verify-deal", "--server-seed", deal["server_seed"], "--client-seed",
         deal["client_seed"], "--nonce", str(deal["nonce"]), "--decks", "1", "--jokers", "0",
         "--commitment", deal["commitment"]],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert verified.returncode == 0, verified.stdout + verified.stderr

"""GET /api/hands/{id}/replay: a finished game step by step, as the asking player saw it (the
browser's replay viewer), for both games; players of that game only. On SQLite and PostgreSQL
(the history is read back from stored records)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from rummyhall.client import ClientError, RoomClient
from rummyhall.games.protocol import replay
from server_kit import Player, fast_settings, running, seat_guest

ROOMS = {"patti": "practice-patti-10-5p", "indian13": "practice-indian13-classic-points-1-2p"}


@pytest.mark.parametrize("game", ["patti", "indian13"])
async def test_replay_steps_are_the_players_views(tmp_path: Path, db_url: str, game: str) -> None:
    settings = fast_settings(tmp_path, db_url, next_game_ms=3_600_000)
    async with running(settings) as server, RoomClient(server.url) as client:
        table, seat, _ = await seat_guest(client, ROOMS[game], follow=True)
        await Player(client, game, 5).play(table)
        hands = (await client.request("GET", "/api/hands"))["hands"]
        hand_id = hands[0]["id"]
        record = (await client.request("GET", f"/api/hands/{hand_id}"))["record"]
        answer = await client.request("GET", f"/api/hands/{hand_id}/replay")

        assert (answer["id"], answer["game"], answer["seat"]) == (hand_id, game, seat)
        assert answer["config"] == record["config"] and answer["result"] == record["result"]
        # Who sat where: the asking player and the bots that filled the other seats, by name.
        players = {p["seat"]: (p["name"], p["bot"]) for p in answer["players"]}
        assert players[seat] == (client.me["name"], False)
        assert len(players) >= 2
        assert set(players) <= {s["seat"] for s in answer["steps"][-1]["view"]["seats"]}
        assert all(bot for s, (_, bot) in players.items() if s != seat)
        steps = answer["steps"]
        actions = record["actions"]
        assert len(steps) == len(actions) + 1
        assert [s["step"] for s in steps] == list(range(len(steps)))
        assert steps[0]["action"] is None and steps[0]["view"]["phase"] == "start"
        for number, (step, entry) in enumerate(zip(steps[1:], actions, strict=True), 1):
            assert (step["seat"], step["action"], step["at"]) == (
                entry["seat"],
                entry["action"],
                entry["at"],
            )
            # Each step is the engine's view for the asking seat after that action, no more.
            assert step["view"] == replay(record, upto=number).view(seat)
            assert step["view"]["viewer"] == seat
        assert steps[-1]["view"]["result"] == record["result"]
        # The deal's events: the asking seat's own hand, nobody else's.
        dealt = [e for e in steps[1]["events"] if e["kind"] == "hand"]
        assert len(dealt) == 1
        assert sorted(dealt[0]["data"]["cards"]) == sorted(steps[1]["view"]["hand"])

        # Another account did not play this game: the replay is not theirs to see.
        async with RoomClient(server.url) as other:
            await other.guest()
            with pytest.raises(ClientError) as refused:
                await other.request("GET", f"/api/hands/{hand_id}/replay")
            assert refused.value.code == "unknown_hand"
            with pytest.raises(ClientError) as missing:
                await other.request("GET", "/api/hands/999999/replay")
            assert missing.value.code == "unknown_hand"
        async with httpx.AsyncClient(base_url=server.url) as anonymous:
            response = await anonymous.get(f"/api/hands/{hand_id}/replay")
            assert response.status_code == 401
            assert response.json()["error"]["code"] == "not_signed_in"

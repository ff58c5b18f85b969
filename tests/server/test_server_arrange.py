"""POST /api/arrange: the solver's arrangement and the beginner's hint, over a real connection.
The endpoint reads no database, so one SQLite server is enough."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

from rummyhall.cards import parse, parse_cards
from rummyhall.melds import arrange, hint
from server_kit import Running, fast_settings, running

JSON = dict[str, Any]

NO_PURE = "AS 3S 5H 6H 8D 8C KD KC 9C 2D 4C 10H QS JC"
DECLARABLE = "AD 2D 3D 4D 10C JC QC KD KS KC 8S 8H 8D 9C"


@pytest.fixture
async def server(tmp_path: Path) -> Running:  # type: ignore[misc]
    url = f"sqlite+aiosqlite:///{tmp_path / 'arrange.db'}"
    async with running(fast_settings(tmp_path, url, bots=False)) as found:
        yield found


async def _arrange(server: Running, body: JSON) -> httpx.Response:
    async with httpx.AsyncClient(base_url=server.url) as http:
        return await http.post("/api/arrange", json=body)


async def test_a_hand_without_a_pure_sequence_gets_a_partial_arrangement(
    server: Running,
) -> None:
    body = {"hand": NO_PURE, "joker": "7D", "profile": "indian13/classic"}
    answer = await _arrange(server, body)
    assert answer.status_code == 200
    data = answer.json()
    # The solver's own answer is unchanged: nothing melds, every card is left over.
    best = arrange(parse_cards(NO_PURE), joker=parse("7D"), profile="indian13/classic")
    assert data["groups"] == [] and data["declarable"] is False
    assert data["penalty"] == best.penalty
    advice = data["hint"]
    expected = hint(parse_cards(NO_PURE), joker=parse("7D"), profile="indian13/classic")
    assert advice["distance"] == expected.distance == 4
    assert advice["discard"] == "10H"
    assert advice["reason"] == expected.reason
    assert advice["summary"] == expected.summary
    groups = advice["groups"]
    assert Counter(c for g in groups for c in g["cards"]) == Counter(NO_PURE.split())
    assert [g["role"] for g in groups] == [
        "near_run",
        "near_run",
        "near_run",
        "near_set",
        "loose",
        "discard",
    ]
    assert groups[1] == {
        "cards": ["5H", "6H"],
        "role": "near_run",
        "kind": "invalid",
        "label": "Near run (needs 4♥ or 7♥)",
        "needs": ["4H", "7H"],
    }
    assert groups[-1]["cards"] == ["10H"] and groups[-1]["label"] == "Discard"


async def test_a_declarable_hand(server: Running) -> None:
    data = (await _arrange(server, {"hand": DECLARABLE, "joker": "7C"})).json()
    assert data["declarable"] is True and data["discard"] == "9C"
    advice = data["hint"]
    assert advice["distance"] == 0 and advice["discard"] == "9C"
    assert [g["role"] for g in advice["groups"]] == ["meld"] * 4 + ["discard"]
    assert advice["groups"][0] == {
        "cards": ["AD", "2D", "3D", "4D"],
        "role": "meld",
        "kind": "pure_sequence",
        "label": "Pure sequence",
        "needs": [],
    }
    assert advice["summary"] == "Ready to declare: put the 9♣ in the finish slot."


async def test_a_marriage_hint_says_how_far_each_winning_shape_is(server: Running) -> None:
    # Eight dublees (it declares with them); the sequences one card away (tests/melds).
    hand = "2C 3C 4C 2C 3C 4C 9D 10D JD 9D 10D JD QH KH QH KH JH AH 5S 6S 9C"
    data = (await _arrange(server, {"hand": hand, "joker": "7D", "profile": "marriage21"})).json()
    assert data["hint"]["shapes"] == [
        {"name": "sequences", "cards": 1, "label": "3 pure sequences"},
        {"name": "tunnelas", "cards": 3, "label": "3 tunnelas"},
        {"name": "dublees", "cards": 0, "label": "8 dublees"},
        {"name": "jokers", "cards": 8, "label": "8 jokers"},
    ]
    classic = (await _arrange(server, {"hand": NO_PURE, "joker": "7D"})).json()
    assert classic["hint"]["shapes"] == []


async def test_bad_hands_are_coded(server: Running) -> None:
    cases: list[tuple[JSON, int, str]] = [
        ({"hand": "AS 2S", "joker": "7C"}, 400, "invalid_cards"),
        ({"hand": NO_PURE.replace("AS", "ZZ"), "joker": "7C"}, 400, "invalid_cards"),
        ({"hand": NO_PURE, "joker": "7C", "profile": "gin"}, 400, "bad_request"),
        ({"hand": NO_PURE}, 422, "bad_request"),
    ]
    for body, status, code in cases:
        answer = await _arrange(server, body)
        assert (answer.status_code, answer.json()["error"]["code"]) == (status, code), body

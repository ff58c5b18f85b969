"""POST /api/check: the browser's live labels for a player's own grouping, over a real connection.
The endpoint reads no database, so one SQLite server is enough."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from rummyhall.cards import parse
from rummyhall.melds import check
from server_kit import Running, fast_settings, running

JSON = dict[str, Any]

DECLARABLE = [
    ["AS", "2S", "3S"],
    ["4H", "5H", "6H", "5C"],
    ["9C", "9D", "9S"],
    ["KC", "KD", "KH"],
]


@pytest.fixture
async def server(tmp_path: Path) -> Running:  # type: ignore[misc]
    settings = fast_settings(tmp_path, f"sqlite+aiosqlite:///{tmp_path / 'check.db'}", bots=False)
    async with running(settings) as found:
        yield found


async def _check(server: Running, body: JSON) -> httpx.Response:
    async with httpx.AsyncClient(base_url=server.url) as http:
        return await http.post("/api/check", json=body)


async def test_a_declaration_is_labelled_group_by_group(server: Running) -> None:
    answer = await _check(server, {"groups": DECLARABLE, "joker": "5D", "profile": "classic"})
    assert answer.status_code == 200
    data = answer.json()
    kinds = [group["kind"] for group in data["groups"]]
    assert kinds == ["pure_sequence", "impure_sequence", "set", "set"]
    assert [group["cards"] for group in data["groups"]] == DECLARABLE
    assert data["declarable"] is True and data["requirement"] is True
    assert (data["score"], data["reason"], data["wild_rank"]) == (0, None, "5")
    assert not any(group["counted"] for group in data["groups"])


async def test_scores_match_the_solver_rules(server: Running) -> None:
    groups = [["AS", "2S", "3S"], ["4H", "7H", "9H"], ["KC", "KD"], ["JK", "2C"], ["QS"]]
    data = (await _check(server, {"groups": groups, "joker": "JK", "profile": "vengala"})).json()
    verdict = check(
        [[parse(c) for c in g] for g in groups], joker=parse("JK"), profile="indian13/vengala"
    )
    assert data["score"] == verdict.score
    assert data["declarable"] is False and data["reason"] == verdict.reason
    assert [g["kind"] for g in data["groups"]] == [g.kind.value for g in verdict.groups]
    # The cut card is a printed joker: aces are wild, so A-2-3 is still pure (the ace natural).
    assert data["wild_rank"] == "A"
    assert data["groups"][0]["points"] == 2 + 3  # the wild ace scores nothing
    # Vengala counts every card when the requirement is not met.
    assert sum(g["points"] for g in data["groups"] if g["counted"]) == data["score"]


async def test_a_bare_wild_rank(server: Running) -> None:
    body = {"groups": DECLARABLE, "joker": "5", "profile": "indian13/classic"}
    data = (await _check(server, body)).json()
    assert data["declarable"] is True and data["wild_rank"] == "5"


async def test_bad_cards_and_bad_bodies_are_coded(server: Running) -> None:
    cases: list[tuple[JSON, int, str]] = [
        ({"groups": [["ZZ", "2S", "3S"]], "joker": "5D"}, 400, "invalid_cards"),
        ({"groups": [["AS"]], "joker": "XX"}, 400, "invalid_cards"),
        ({"groups": [[]], "joker": "5D"}, 400, "invalid_cards"),
        ({"groups": [], "joker": "5D"}, 400, "invalid_cards"),
        ({"groups": [["AS"]], "joker": "5D", "profile": "gin"}, 400, "bad_request"),
        ({"groups": [["AS"]], "joker": "5D", "mode": "pool101"}, 422, "bad_request"),
        ({"groups": "AS 2S", "joker": "5D"}, 422, "bad_request"),
        ({"groups": [["AS"]]}, 422, "bad_request"),
    ]
    for body, status, code in cases:
        answer = await _check(server, body)
        assert (answer.status_code, answer.json()["error"]["code"]) == (status, code), body

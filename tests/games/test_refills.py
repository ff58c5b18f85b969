"""Refills of the closed deck inside the provably-fair scheme (docs/provably-fair.md, "Refills of
the closed deck"): refill r of a deal is the open pile under its top card, bottom first, in the
order the deal's committed seeds give refill r. Records say which refill it is and what it was made
from; the engine checks the "from", and ``rummyhall replay`` and ``verify-deal`` recompute the
order. The server's table has its own tests (tests/server/test_server_refill.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from rummyhall.cards import parse_physical
from rummyhall.cli import main
from rummyhall.games.indian13.engine import Indian13
from rummyhall.games.indian13.rules import Indian13Config
from rummyhall.games.protocol import (
    HOUSE,
    Deal,
    Game,
    InvalidCards,
    refill_checks,
    replay,
)
from rummyhall.shuffle import FairDeal
from rummyhall.sim import FairHouse


def play(game: Game, house: FairHouse, refills: int = 2) -> Game:
    """Both players draw closed and throw their first card, so the closed deck runs out; once a
    deal has had ``refills`` refills the player to move drops (the deal ends)."""
    at = 0
    seen = 0
    while not game.over:
        at += 1000
        awaited = game.awaited()[0]
        if awaited.seat == HOUSE:
            if awaited.kind == "reshuffle":
                seen += 1
            else:
                seen = 0
            game.apply(HOUSE, "deal", at, deal=house.deal(game, awaited.kind))
            continue
        view = game.view(awaited.seat)
        if view["drawn"]:
            action = f"discard {view['hand'][0]}"
        else:
            action = "drop" if seen >= refills else "draw closed"
        game.apply(awaited.seat, action, at)
    return game


def two_player(mode: str = "points") -> Indian13:
    config = Indian13Config(profile="classic", seats=2, order=(1, 2), mode=mode, entry_fee=10)
    return Indian13(config)


def refill_entries(record: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    return [
        (index, entry["deal"])
        for index, entry in enumerate(record["actions"], 1)
        if "refill" in entry.get("deal", {})
    ]


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    """A points deal with two refills, as the simulation's house plays it."""
    data: dict[str, Any] = json.loads(
        json.dumps(play(two_player(), FairHouse(3, "refills")).record())
    )
    return data


def test_the_simulation_house_refills_from_the_deal_seeds(record: dict[str, Any]) -> None:
    fair = FairHouse(3, "refills").fair(0)
    refills = refill_entries(record)
    assert [deal["refill"] for _, deal in refills] == [1, 2]
    for _, deal in refills:
        under = [parse_physical(token) for token in deal["from"].split()]
        assert all(card.copy for card in under)  # physical cards, as they lay in the pile
        expected = fair.refill(deal["refill"], under)
        assert deal["cards"] == " ".join(card.physical for card in expected)
    checks = refill_checks(record)
    assert [(c.action, c.number, c.checkable, c.ok) for c in checks] == [
        (index, number, True, True) for number, (index, _) in enumerate(refills, 1)
    ]


def test_from_is_the_open_pile_under_its_top_card(record: dict[str, Any]) -> None:
    for index, deal in refill_entries(record):
        before = replay(record, upto=index - 1)
        assert before.awaited()[0].kind == "reshuffle"
        pile = before.census()["open"]
        assert deal["from"] == " ".join(card.physical for card in pile[:-1])
        assert before.refill_source() == pile[:-1]
    assert replay(record).refill_source() == []  # nothing to refill now


def test_a_refill_round_trips_through_its_record_entry() -> None:
    fair = FairDeal(bytes(range(32)), "player", 0)
    pile = "2H#1 9C#2 KD#1 5S#1 JK#2 7H#2 3D#1 QS#1 10C#1 4H#2"
    under = [parse_physical(token) for token in pile.split(" ")]
    deal = Deal.of_refill(fair, 1, under)
    data = deal.to_json(2, 1)
    assert data == {
        "refill": 1,
        "from": "2H#1 9C#2 KD#1 5S#1 JK#2 7H#2 3D#1 QS#1 10C#1 4H#2",
        "cards": "JK#2 QS#1 7H#2 4H#2 5S#1 KD#1 9C#2 10C#1 2H#1 3D#1",
    }
    back = Deal.from_json(data)
    assert (back.refill, back.fair) == (1, None)
    assert [c.physical for c in back.deck] == data["cards"].split()
    assert [c.physical for c in back.source] == data["from"].split()
    assert str(back) == "refill 1 of 10 cards"


def test_the_engine_refuses_a_refill_from_other_cards(record: dict[str, Any]) -> None:
    index, deal = refill_entries(record)[0]
    game = replay(record, upto=index - 1)
    before = game.view(None)
    under = deal["from"].split()
    for source in (under[::-1], [*under[:-1], under[0]]):
        # the "from" misstated (the cards themselves are the right ones)
        forged = Deal.from_json({**deal, "from": " ".join(source)})
        with pytest.raises(InvalidCards, match="'from' must list the open pile"):
            game.apply(HOUSE, "deal", 10**9, deal=forged)
        assert game.view(None) == before
    game.apply(HOUSE, "deal", 10**9, deal=Deal.from_json(deal))


def test_every_deal_of_a_pool_numbers_its_refills_from_one() -> None:
    game = play(two_player("pool101"), FairHouse(5, "pool"), refills=1)
    record = json.loads(json.dumps(game.record()))
    deals = [e["deal"] for e in record["actions"] if "server_seed" in e.get("deal", {})]
    refills = refill_entries(record)
    assert len(deals) >= 2 and [deal["refill"] for _, deal in refills] == [1] * len(deals)
    checks = refill_checks(record)
    assert len(checks) == len(deals) and all(c.ok for c in checks)
    # each refill comes from its own deal's seeds, not from the first deal's
    for check, seeds in zip(checks, deals, strict=True):
        assert check.fair is not None and check.fair.server_seed.hex() == seeds["server_seed"]
    first = FairDeal(bytes.fromhex(deals[0]["server_seed"]), deals[0]["client_seed"], 0)
    last = checks[-1]
    assert list(last.deal.deck) != first.refill(1, last.deal.source)


# --- old records and tampered ones ----------------------------------------------------------------


def plain(record: dict[str, Any]) -> dict[str, Any]:
    """The record as it was written before refills came from the seeds: cards only."""
    old = copy.deepcopy(record)
    for entry in old["actions"]:
        if "refill" in entry.get("deal", {}):
            entry["deal"] = {
                "cards": " ".join(t.split("#")[0] for t in entry["deal"]["cards"].split())
            }
    return old


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def write(tmp_path: Path, record: dict[str, Any], name: str = "game.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(record), encoding="utf-8")
    return str(path)


def test_replay_checks_every_refill(
    record: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["replay", write(tmp_path, record)], capsys)
    assert code == 0
    assert "refills: 2 refill(s) of the closed deck; 2 recomputed from their deal's seeds" in out
    assert "every refill is the order its deal's seeds give" in out
    code, out, _ = run(["replay", "--verbose", write(tmp_path, record)], capsys)
    assert code == 0
    assert out.count("from the deal's seeds") == 2
    assert "check: rummyhall verify-deal --server-seed " in out and "--refill 2 --from '" in out


def test_old_records_with_plain_refills_still_replay(
    record: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = plain(record)
    assert replay(old).result == replay(record).result
    checks = refill_checks(old)
    assert [c.checkable for c in checks] == [False, False]
    assert all("cannot be checked" in str(c.problem) for c in checks)
    code, out, _ = run(["replay", write(tmp_path, old)], capsys)
    assert code == 0
    assert "refills: 2 refill(s) of the closed deck; 0 recomputed" in out
    assert "note: refill 1 of its deal (action" in out and "plain cards" in out


def test_replay_reports_a_tampered_refill(
    record: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (_, first), (last_index, _) = refill_entries(record)
    # The last refill's bottom cards are never drawn: swapping them replays, but is caught.
    swapped = copy.deepcopy(record)
    cards = swapped["actions"][last_index - 1]["deal"]["cards"].split()
    cards[-1], cards[-2] = cards[-2], cards[-1]
    swapped["actions"][last_index - 1]["deal"]["cards"] = " ".join(cards)
    assert replay(swapped).result == replay(record).result
    code, out, _ = run(["replay", write(tmp_path, swapped)], capsys)
    assert code == 1
    assert (
        f"MISMATCH: refill 2 of its deal (action {last_index}): its new closed deck is not the "
        "order the deal's seeds give these cards"
    ) in out
    # A refill claiming another number (the server picking among orders) is caught too.
    renumbered = copy.deepcopy(record)
    renumbered["actions"][last_index - 1]["deal"]["refill"] = 1
    code, out, _ = run(["replay", write(tmp_path, renumbered)], capsys)
    assert code == 1
    assert "it says it is refill 1, but it is refill 2 of its deal" in out
    # The first refill's top cards are drawn: the replay fails later, and says why.
    early = copy.deepcopy(record)
    index = next(i for i, deal in refill_entries(record) if deal is first)
    cards = first["cards"].split()
    early["actions"][index - 1]["deal"]["cards"] = " ".join([cards[1], cards[0], *cards[2:]])
    code, out, err = run(["replay", write(tmp_path, early)], capsys)
    assert code == 2
    assert f"replay: MISMATCH: refill 1 of its deal (action {index})" in err


def test_verify_deal_checks_a_recorded_refill(
    record: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    seeds = record["actions"][0]["deal"]
    _, deal = refill_entries(record)[1]
    argv = [
        "verify-deal", "--server-seed", seeds["server_seed"], "--client-seed",
        seeds["client_seed"], "--nonce", str(seeds["nonce"]), "--commitment",
        seeds["commitment"], "--refill", str(deal["refill"]), "--from", deal["from"],
    ]  # fmt: skip
    code, out, _ = run([*argv, "--cards", deal["cards"]], capsys)
    assert code == 0
    assert out.splitlines() == [deal["cards"], f"commitment {seeds['commitment']}",
                                "commitment matches", "refill 2 matches"]  # fmt: skip
    cards = deal["cards"].split()
    code, out, _ = run([*argv, "--cards", " ".join(cards[1:] + cards[:1])], capsys)
    assert code == 1
    assert "MISMATCH: --cards is not the order refill 2" in out

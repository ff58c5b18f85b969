"""``rummyhall play marriage21``, ``simulate --game marriage21`` and ``replay`` of a Marriage
record: the game reaches the command line through its catalog entry alone."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from rummyhall import cli
from rummyhall.shuffle import FairDeal
from rummyhall.terminal import base

GOLDEN = Path(__file__).parent / "golden"


def fair(client_seed: str, nonce: int) -> FairDeal:
    """A fixed server seed: the same deck every run."""
    return FairDeal(bytes([4]) * 32, client_seed, nonce)


def test_play_a_deal_against_the_bots(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """We draw and throw the drawn card until a bot declares, show our best groups, and save the
    record; the table shows the value cards, 21 cards, and the deal's nets."""
    path = tmp_path / "m.json"
    moves = ["c", "d", "s"] * 50  # draw, throw the drawn card; show when a bot declared
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(f"{x}\n" for x in [*moves, "q", "y"])))
    monkeypatch.setattr(base, "new_fair_deal", fair)
    args = ["play", "marriage21", "--players", "3", "--seed", "4", "--record", str(path)]
    code = cli.main([*args, "--client-seed", "test"])
    out = capsys.readouterr().out
    assert code == 0
    assert "Rummy Hall · 21-card Marriage Rummy · standard · points · 3 players" in out
    assert "Your hand (21)" in out
    assert "· value " in out  # the head names the value cards
    assert "── Game over" in out
    assert "value cards:" in out and "net: " in out
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["game"] == "marriage21"
    code = cli.main(["replay", str(path), "--verbose"])
    replayed = capsys.readouterr().out
    assert code == 0
    assert "every commitment matches" in replayed
    assert "value cards:" in replayed


def test_simulate_marriage(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["simulate", "--game", "marriage21", "--players", "5", "--deals", "4"])
    out = capsys.readouterr().out
    assert code == 0
    assert "simulate marriage21 standard points, 5 bots" in out
    assert "value cards:" in out and "violations: none" in out
    code = cli.main(["simulate", "--game", "marriage21", "--mode", "pool101", "--deals", "1"])
    assert code != 0
    assert "one mode (points)" in capsys.readouterr().err


def test_replay_a_golden_marriage_record(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["replay", str(GOLDEN / "marriage21-wrong-declaration.json"), "--verbose"])
    out = capsys.readouterr().out
    assert code == 0
    assert "wrong declaration" in out and "120 points" in out
    assert "net: " in out

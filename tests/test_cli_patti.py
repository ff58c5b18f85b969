"""``rummyhall play patti`` and ``rummyhall simulate --game patti``.

``play`` is driven through standard input with seeded fair deals, a fixed first player and
stand-in bots (``Caller`` below), so that every run is the same; one test plays the real bot."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from rummyhall import cli
from rummyhall.games.patti import terminal as terminal_patti
from rummyhall.shuffle import FairDeal
from rummyhall.terminal import base


def fair(nonce: int, client_seed: str = "test") -> FairDeal:
    return FairDeal(bytes([nonce + 7]) * 32, client_seed, nonce)


class Caller:
    """A stand-in bot: pays the chaal ``patience`` times, then packs; refuses sideshows."""

    def __init__(self, patience: int) -> None:
        self.patience = patience

    def act(self, view: dict[str, Any]) -> str | None:
        mine = [a for a in view["awaited"] if a["seat"] == view["viewer"]]
        if not mine:
            return None
        if mine[0]["kind"] == "sideshow":
            return "refuse"
        self.patience -= 1
        return "chaal" if self.patience >= 0 else "pack"


def play(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    lines: list[str],
    *args: str,
    patience: int = 1,
) -> tuple[int, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(f"{x}\n" for x in lines)))
    monkeypatch.setattr(terminal_patti, "make_bot", lambda seed, seat: Caller(patience))
    monkeypatch.setattr(base, "new_fair_deal", lambda seed, nonce: fair(nonce, seed))
    monkeypatch.setattr(terminal_patti, "draw_first", lambda players: 1)
    code = cli.main(["play", "patti", "--seed", "7", "--client-seed", "cs", *args])
    return code, capsys.readouterr().out


def test_play_a_game_and_pack(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = play(monkeypatch, capsys, ["p"], "--players", "3", "--name", "Zed")
    assert code == 0
    assert "Rummy Hall · Rummy Patti · boot 10 · 3 players · 1000 chips each" in out
    assert "Game 1: p1 Zed plays first, p3 Ravi deals. Boot 10 each: pot 30." in out
    assert "Your cards: " in out and "Your hand" in out
    assert "You pack" in out
    assert "── Game 1 over" in out
    assert "You lose 10 chips." in out
    assert "\x1b[" not in out  # not a terminal: no colours


def test_play_moves_errors_and_a_second_game(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "session.json"
    lines = ["h", "", "zz", "o ZZ", "s", "show", "c2", "b", "c", "", "p", "q", "y"]
    code, out = play(
        monkeypatch, capsys, lines, "--players", "3", "--boot", "5", "--record", str(path)
    )
    assert code == 0
    assert "Commands (cards as 7H" in out
    assert "bad_action: unknown action 'zz'" in out
    assert "invalid_cards: bad card 'ZZ'" in out
    assert "illegal_action: " in out  # the sideshow (nobody has moved) and the show
    assert "You play chaal 2X 10" in out
    assert "bad_action: unknown action 'b'" in out
    assert "You win the pot of 55 (everyone else packed)" in out
    assert "Enter: game 2 · q: quit" in out
    assert "Game 2: p2 Asha plays first, p1 You deals." in out  # the first move passed on
    assert "Game 3: p3 Ravi plays first, p2 Asha deals." in out
    assert "You left the table." in out
    records = [path, tmp_path / "session-2.json", tmp_path / "session-3.json"]
    first, second, third = (json.loads(p.read_text(encoding="utf-8")) for p in records)
    assert first["game"] == "patti" and first["config"]["boot"] == 5
    assert second["config"]["first"] == 2 and second["result"]["winners"] == [1]
    assert "result" not in third  # the game was left before its end
    code = cli.main(["replay", str(path), "--verbose"])
    replayed = capsys.readouterr().out
    assert code == 0
    assert "patti · 3 seats · boot 5, max chaal 640 · pot limit 5120" in replayed
    assert "every commitment matches" in replayed


def test_play_a_sideshow(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = play(monkeypatch, capsys, ["c", "s", "q", "y"], "--players", "3", patience=2)
    assert code == 0
    assert "You ask p3 Ravi for a sideshow (pays 10)" in out
    assert "p3 Ravi refuses the sideshow" in out
    assert "You left the table." in out


def test_play_a_show(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = play(monkeypatch, capsys, ["c", "show", "q"], "--players", "2", patience=2)
    assert code == 0
    assert "You call a show (pays 10)" in out
    assert "── Show" in out and "── Game 1 over" in out
    assert "(a show)" in out


def test_the_session_ends_when_the_person_runs_out_of_chips(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = play(monkeypatch, capsys, ["p"], "--players", "2", "--stack", "15")
    assert code == 0
    assert "You are out of chips. Thanks for playing!" in out


def test_translate() -> None:
    t = terminal_patti.translate
    assert t("c") == "chaal" and t("c2") == "chaal 2x" and t("2x") == "chaal 2x"
    assert t("o 7h") == "exchange open 7H" and t("b 10♥ 2") == "exchange closed 10H 2x"
    assert t("o 7H 2x") == "exchange open 7H 2x" and t("o 7H 3") == "exchange open 7H 3"
    assert t("s") == "sideshow" and t("p") == "pack" and t("y") == "accept" and t("n") == "refuse"
    assert t("show") == "show" and t("chaal   2x") == "chaal 2x"
    assert terminal_patti.record_path(Path("a/g.json"), 3) == Path("a/g-3.json")


def test_play_refuses_options_of_the_other_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["play", "patti", "--pool", "101"]) == 2
    assert "Rummy Patti has no --profile or --pool" in capsys.readouterr().err
    assert cli.main(["play", "indian13", "--boot", "5"]) == 2
    assert "--boot and --stack are for patti" in capsys.readouterr().err
    assert cli.main(["play", "patti", "--players", "7"]) == 2
    assert "Rummy Patti seats 2 to 6 players" in capsys.readouterr().err


def test_play_against_the_real_bots(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("p\nq\n"))
    monkeypatch.setattr(base, "new_fair_deal", lambda seed, nonce: fair(nonce, seed))
    # The client seed fixed too (else a fresh random one each run deals another game).
    code = cli.main(["play", "patti", "--seed", "3", "--players", "5", "--client-seed", "test"])
    out = capsys.readouterr().out
    assert code == 0
    assert "── Game 1 over" in out


def test_simulate_patti(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--game", "patti", "--players", "6", "--games", "25", "--seed", "1"]
    assert cli.main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["game"] == "patti" and data["games"] == 25 and data["checks"] is True
    assert data["violations"] == [] and data["checked"] == data["actions"]
    assert sum(data["chips"].values()) == 0
    assert sum(data["counts"][key] for key in data["counts"] if key.startswith("end: ")) == 25
    assert cli.main([*argv, "--no-checks"]) == 0
    out = capsys.readouterr().out
    assert "simulate patti, 6 bots" in out and "games/s" in out
    assert "invariants not checked (--no-checks)" in out and "violations: none" in out
    assert cli.main([*argv, "--mode", "pool101"]) == 2
    assert "Rummy Patti has no modes" in capsys.readouterr().err
    assert cli.main(["simulate", "--game", "patti", "--players", "7"]) == 2

"""``rummyhall play rummy51``, ``simulate --game rummy51`` and ``replay`` of a Rummy 51 record.

``play`` is driven through standard input with a fixed server seed, so every run deals the same
cards; most tests seat stand-in bots (``Drawer`` below: they draw from the stock and throw the
card drawn) so that the person's cards, and what they draw, are known in advance; one plays the
real bots to the end of a game."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from rummyhall import cli
from rummyhall.games.rummy51 import terminal as terminal_r51
from rummyhall.shuffle import FairDeal
from rummyhall.terminal import base


def fair(client_seed: str, nonce: int, server: int = 4) -> FairDeal:
    """A fixed server seed: the same deck every run. With server seed 4 (client seed "test",
    nonce 0) and seat 1 first, seat 1 holds 4S 7S 9S AS 4H 6D KD 2C 3C 5C 7C 10C AC JK JK, and
    the stock starts JH JS KS 3D | 3D JD 7S QD | AD 3C 9S 10S | JK 2H 6H 6C (a round of four
    draws each line, seat 1's last)."""
    return FairDeal(bytes([server]) * 32, client_seed, nonce)


class Drawer:
    """A stand-in bot: draws from the stock and throws the card drawn (or, a joker drawn, its
    first ordinary card); never opens."""

    def act(self, view: dict[str, Any]) -> str | None:
        if view["turn"] != view["viewer"] or view["phase"] != "play":
            return None
        if not view["drawn"]:
            return "draw closed"
        drew = view.get("drew")
        if drew and drew != "JK":
            return f"discard {drew}"
        return "discard " + next(card for card in view["hand"] if card != "JK")


def play(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    lines: list[str],
    *args: str,
    first: int = 1,
    bots: bool = False,
    server: int = 4,
) -> tuple[int, str]:
    """Run ``rummyhall play rummy51`` on ``lines`` of input; ``bots``: the real bots, else
    :class:`Drawer` s."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(f"{x}\n" for x in lines)))
    if not bots:
        monkeypatch.setattr(terminal_r51, "make_bot", lambda seed, seat: Drawer())
    monkeypatch.setattr(base, "new_fair_deal", lambda seed, nonce: fair(seed, nonce, server))
    monkeypatch.setattr(terminal_r51, "draw_first", lambda players: first)
    code = cli.main(["play", "rummy51", "--client-seed", "test", *args])
    return code, capsys.readouterr().out


def test_a_scripted_session_opens_lays_off_swaps_and_buries(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "r51.json"
    lines = [
        # Turn 1 (15 cards, a throw without a draw; nobody may open yet).
        "h",
        "o",
        "x ZZ",
        "x JK",
        "x 4h",
        # Turn 2: take the KS the bot threw (it obliges an opening), put it back, draw the 3D.
        "t",
        "x 4S",
        "r",
        "d",
        "hint",
        "o",
        "hint",
        "x 10C",
        # Turn 3: draw the QD and throw it (x alone: the card drawn).
        "d",
        "x",
        # Turn 4: draw the 10S and lay it off on [3] 7S JK 9S.
        "d",
        "a 1 4C",
        "a 3 10S",
        "x KD",
        # Turn 5: draw the 6C, swap it for the joker of [2] 5C JK 7C, bury that joker.
        "d",
        "s 2 6C",
        "x 6D JK",
        "",
        "q",
        "y",
    ]
    code, out = play(monkeypatch, capsys, lines, "--name", "Zed", "--record", str(path))
    assert code == 0
    assert "Rummy Hall · Rummy 51 · 4 players · no stake" in out
    assert "You are p1 Zed, against p2 Asha, p3 Ravi and p4 Meera." in out
    assert "Game 1: You move first: 15 cards" in out
    assert "Commands (cards as 7H" in out  # the help
    assert "Your hand (15)  4♠ 7♠ 9♠ A♠   4♥   6♦ K♦   2♣ 3♣ 5♣ 7♣ 10♣ A♣   JK JK" in out
    assert "Opening round: nobody opens before everyone has had a turn." in out
    # Refused actions show the engine's code, and the person is asked again.
    assert "illegal_action: nobody lays cards down before everyone has had a turn" in out
    assert "invalid_cards: bad card 'ZZ'" in out
    assert "illegal_action: a joker is thrown alone only when jokers are all you have" in out
    assert "You throw the 4♥" in out
    assert " p2 Asha draws from the stock, throws the J♥" in out  # a bot's turn in one line
    assert "Taking the K♠ obliges you to open this turn; with it your best opening is 69" in out
    assert "You take the K♠ from the discard pile" in out
    assert "You took the K♠ without having opened: open this turn (o …), or put it back (r)." in out
    assert "illegal_action: you took the KS from the discard pile: open this turn" in out
    assert "You put the K♠ back on the discard pile" in out
    assert "You draw the 3♦ from the stock" in out
    assert "Your best opening: 57 of 51: enough to open" in out
    assert (
        "Best opening in your hand: 57 of 51: enough to open\n   A♣ 2♣ 3♣ │ 5♣ JK 7♣ │ 7♠ JK 9♠"
        in out
    )
    assert "You open with 57:\n     [1] A♣ 2♣ 3♣\n     [2] 5♣ JK 7♣ (JK=6♣)\n" in out
    assert "   [3] 7♠ JK 9♠                run  p1 Zed  JK=8♠" in out  # the table, numbered
    assert "Nothing to lay down or add: throw a card (x CARD)." in out  # hint after opening
    assert "You throw the Q♦" in out
    assert "invalid_cards: you do not hold 4C" in out
    assert "You lay the 10♠ off: [3] 7♠ JK 9♠ 10♠ (JK=8♠)" in out
    assert "You take the joker from [2], putting the 6♣ in its place: 5♣ 6♣ 7♣" in out
    assert "You throw the 6♦, burying a joker under it (3 cards left)" in out
    assert "Discard pile … 6♥ JK 6♦ 9♣ 8♠ [8♠]" in out
    assert "  p1 Zed             3  yes     moved first  ◀ your turn" in out
    assert "You left the table." in out
    assert "No game was finished." in out
    assert "\x1b[" not in out  # not a terminal: no colours
    for line in out.splitlines():
        # (A prompt and what follows it share a line here, the input not being echoed; the
        # line that names the record file is as long as its path.)
        if not line.startswith("Record saved to "):
            assert all(len(part) <= 100 for part in line.split(" › ")), line
    # The record of the game left unfinished replays, move by move.
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["game"] == "rummy51" and record["config"]["first"] == 1
    assert "result" not in record
    assert cli.main(["replay", str(path), "--verbose"]) == 0
    replayed = capsys.readouterr().out
    assert "rummy51 · 4 seats · no stake · p1 moves first" in replayed
    assert "p1 hand: 4S 7S 9S AS 4H 6D KD 2C 3C 5C 7C 10C AC JK JK" in replayed
    assert "p1 open AC 2C 3C | 5C JK 7C | 7S JK 9S  (worth 57)" in replayed
    assert "          [3] 7S JK 9S 10S (JK=8S)" in replayed
    assert "p1 discard 6D JK  (a joker buried under it)" in replayed
    assert "not over: the record stops while the game waits for p1 (turn)" in replayed
    assert "every commitment matches" in replayed


def test_a_game_to_its_end_against_the_real_bots(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """We draw and throw the drawn card until a bot goes out; the places, the chips and the
    session's summary show, the next game starts one seat on, and both records replay."""
    path = tmp_path / "session.json"
    args = ["--players", "3", "--seed", "2", "--stake", "5", "--record", str(path)]
    code, out = play(monkeypatch, capsys, ["d", "x"] * 30, *args, first=2, bots=True, server=2)
    assert code == 0
    assert "Rummy Hall · Rummy 51 · 3 players · stake 5" in out
    assert "Game 1: p2 Asha moves first" in out
    assert "── Game 1 over" in out and " goes out" in out
    assert "never opened: " in out and " chips  out" in out
    assert "Client seed test, nonce 0 (rummyhall verify-deal --decks 2 --jokers 2 checks" in out
    assert "Enter: game 2 · q: quit" in out
    assert "Game 2: p3 Ravi moves first" in out  # the first move passed on
    summary = out.split("── Session · ")[1]
    assert "won  score  mean place   chips" in summary and "  p1 You  " in summary
    records = (path, tmp_path / "session-2.json")
    first, second = (json.loads(p.read_text(encoding="utf-8")) for p in records)
    assert first["config"] == {**first["config"], "first": 2, "stake": 5, "seats": 3}
    assert second["config"]["first"] == 3
    assert sum(p["amount"] for p in first["result"]["postings"]) == 0
    code = cli.main(["replay", str(path), "--verbose"])
    replayed = capsys.readouterr().out
    assert code == 0
    assert "rummy51 · 3 seats · stake 5 · p2 moves first" in replayed
    assert " went out" in replayed and "chips: seat:" in replayed
    assert "every commitment matches" in replayed
    assert "MISMATCH" not in replayed


def test_translate() -> None:
    view: Any = {
        "viewer": 1,
        "turn": 1,
        "drawn": True,
        "drew": "7H",
        "first_round": False,
        "seats": [{"seat": 1, "cards": 15, "opened": False}],
        "hand": ["6S", "7S", "8S", "10D", "10C", "10H", "7H", "2C"],
    }
    t = terminal_r51.translate
    assert t("d", view) == "draw closed" and t("draw", view) == "draw closed"
    assert t("t", view) == "draw open" and t("take", view) == "draw open"
    assert t("r", view) == "return"
    assert t("o 6s 7s 8s|10d 10♣ 10H", view) == "open 6S 7S 8S | 10D 10C 10H"
    assert t("o", view) == "open 6S 7S 8S | 10H 10D 10C"  # the best opening
    assert t("m", view) == "meld"  # not opened: the engine says why
    assert t("m 4h 5h 6h", view) == "meld 4H 5H 6H"
    assert t("a 3 7h", view) == "add 3 7H" and t("a 3 JK LOW", view) == "add 3 JK low"
    assert t("s 3 7h", view) == "swap 3 7H"
    assert t("x 7h", view) == "discard 7H" and t("x 7h jk", view) == "discard 7H JK"
    assert t("x", view) == "discard 7H"  # the card just drawn
    assert t("discard 2C", view) == "discard 2C" and t("zz", view) == "zz"
    with pytest.raises(ValueError, match="worth 0: 51 needed"):
        t("o", {**view, "hand": ["2C", "9D"]})
    with pytest.raises(ValueError, match="say which card"):
        t("x", {**view, "drew": None})
    assert terminal_r51.record_path(Path("a/g.json"), 3) == Path("a/g-3.json")


def test_play_refuses_options_of_other_games_and_tables_the_rules_refuse(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["play", "rummy51", "--boot", "5"]) == 2
    assert "Rummy 51 has no --boot" in capsys.readouterr().err
    assert cli.main(["play", "patti", "--stake", "5"]) == 2
    assert "--stake is for rummy51" in capsys.readouterr().err
    assert cli.main(["play", "rummy51", "--players", "7"]) == 2
    assert "Rummy 51 seats 2 to 6 players" in capsys.readouterr().err
    assert cli.main(["play", "rummy51", "--stake", "-1"]) == 2
    assert "the stake cannot be negative" in capsys.readouterr().err


def test_simulate_rummy51(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["simulate", "--game", "rummy51", "--deals", "5"]) == 0
    out = capsys.readouterr().out
    assert "simulate rummy51, 4 bots, seed 1" in out and "5 games" in out
    assert "violations: none" in out
    assert cli.main(["simulate", "--game", "rummy51", "--deals", "5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 5 and data["violations"] == []
    assert sum(data["wins"].values()) + data["stuck"] == 5

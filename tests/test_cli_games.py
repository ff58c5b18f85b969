"""The game sub-commands of the command line: ``replay``, ``play`` and ``simulate``.

``play`` is driven through standard input with stand-in bots (``StandIn`` below) and stacked,
seeded fair deals, so every run is the same; one test plays against the real bot when it exists.
"""

from __future__ import annotations

import io
import json
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from rummyhall import cli
from rummyhall.cards import parse, parse_physical, sort_key
from rummyhall.games.indian13 import terminal
from rummyhall.games.indian13.engine import Indian13
from rummyhall.games.indian13.rules import Indian13Config
from rummyhall.games.protocol import HOUSE, Deal, Game, refill_checks
from rummyhall.games.rummy import terminal as rummy_terminal
from rummyhall.shuffle import FairDeal
from rummyhall.terminal import base
from scenarios import Table, stacked

GOLDEN = Path(__file__).parent / "golden"

# Seat 1 declares with the 9C it draws on its second turn (tests/games/test_indian13.py's hands).
W = "AD 2D 3D 4D 10C JC QC KD KS KC 8S 8H 8D"
A = "4H 5H 6H 9S 10S 7D QC QD QS KH 3C 8D 2S"
B = "2D 3D 4D KS KH KC 8H 8C 7S 3H 5C 9D 2S"
W_GROUPS = "AD 2D 3D 4D | 10C JC QC | KD KS KC | 8S 8H 8D"
A_GROUPS = "4H 5H 6H | 9S 10S 7D | QC QD QS | KH 3C 8D 2S"
B_GROUPS = "2D 3D 4D | KS KH KC | 8H 8C 7S | 3H 5C 9D 2S"
SCRIPT = f"""
p0 deal
p1 draw closed
p1 discard 6C
p2 draw open
p2 discard 6C
p3 draw closed
p3 discard JS
p1 draw closed
p1 declare 9C | {W_GROUPS}
p2 show {A_GROUPS}
p3 show {B_GROUPS}
"""


def fair(nonce: int, client_seed: str = "test") -> FairDeal:
    return FairDeal(bytes([nonce + 1]) * 32, client_seed, nonce)


class StandIn:
    """A tiny bot: draws closed and throws its first card; drops once it has had ``patience``
    turns; shows all its cards as one group. It sees nothing but its view."""

    def __init__(self, patience: int = 2) -> None:
        self.patience = patience
        self.turns = 0

    def act(self, view: dict[str, Any]) -> str | None:
        mine = [a for a in view["awaited"] if a["seat"] == view["viewer"]]
        if not mine:
            return None
        if mine[0]["kind"] in ("show", "declare"):
            return "show " + " ".join(view["hand"])
        if view["drawn"]:
            return f"discard {view['hand'][0]}"
        self.turns += 1
        return "drop" if self.turns > self.patience else "draw closed"


def drive(game: Game, bots: dict[int, StandIn], limit: int = 5000) -> Game:
    """Play ``game`` to its end with ``bots`` in every seat and seeded fair deals."""
    at = 0
    deals = 0
    for _ in range(limit):
        if game.over:
            return game
        awaited = game.awaited()
        at += 1500
        if awaited[0].seat == HOUSE:
            if game.view(None)["phase"] == "reshuffle":
                under = [parse(card) for card in game.view(None)["open"][:-1]]
                game.apply(HOUSE, "deal", at, deal=Deal(tuple(reversed(under))))
            else:
                deal = Deal.of_fair(fair(deals), *game.shoe())
                deals += 1
                game.apply(HOUSE, "deal", at, deal=deal)
            continue
        seat = awaited[0].seat
        action = bots[seat].act(game.view(seat))
        assert action is not None
        game.apply(seat, action, at)
    raise AssertionError("the game did not end")


def scripted_record() -> dict[str, Any]:
    game = Indian13(Indian13Config(seats=3, order=(1, 2, 3)))
    deck = stacked([W, A, B], cut="7C", open_card="6D", stock="6C JS 9C")
    table = Table(game, [deck])
    table.play(SCRIPT)
    assert game.over
    return game.record()


def pool_record() -> dict[str, Any]:
    game = Indian13(Indian13Config(seats=3, mode="pool101", entry_fee=50))
    return drive(game, {seat: StandIn(patience=seat) for seat in (1, 2, 3)}).record()


def write(tmp_path: Path, name: str, data: Any) -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --- replay ------------------------------------------------------------------------------------


def test_replay_prints_the_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "game.json", scripted_record())
    code, out, err = run(["replay", path], capsys)
    assert (code, err) == (0, "")
    assert "indian13 · classic · 3 seats · points" in out
    assert "deal 1: p1 wins" in out
    assert "p2     23  shown" in out
    assert "p3     65  shown" in out
    assert "winner(s): p1" in out
    assert "chips: seat:2 -23 · seat:3 -65 · seat:1 +88" in out
    assert "p1 draw closed" not in out  # only with --verbose


def test_replay_verbose_prints_the_game_in_notation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "game.json", scripted_record())
    code, out, _ = run(["replay", path, "--verbose"], capsys)
    assert code == 0
    lines = out.splitlines()
    for expected in [*SCRIPT.strip().splitlines()]:
        assert any(line.split("s ", 1)[-1].startswith(expected) for line in lines), expected
    assert "p1 draw closed  (gets 6C)  [open 6D · closed" in out
    assert "p2 draw open  (takes 6C)" in out
    assert "turn: p2]" in out
    assert f"p1 hand: {' '.join(sorted(W.split(), key=lambda c: sort_key(parse(c))))}" in out
    assert "cut 7C (wild 7) · open 6D" in out
    assert "valid declaration" in out
    assert "deal 1 over: p1 wins" in out
    assert f"p1     0  declared          {W_GROUPS}  (finish 9C)" in out
    assert f"p2    23  shown             {A_GROUPS}" in out


def test_replay_of_a_fair_pool(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = pool_record()
    path = write(tmp_path, "pool.json", record)
    code, out, _ = run(["replay", path], capsys)
    assert code == 0
    deals = len(record["result"]["detail"]["deals"])
    assert deals >= 2
    assert "deal  winner" in out
    assert "(each cell: the deal's score (running total); x: eliminated)" in out
    assert f"provably fair: {deals} deal(s) stored as seeds" in out
    assert "every commitment matches its revealed server seed" in out
    assert "chips: pot -150 · seat:" in out
    code, out, _ = run(["replay", path, "-v"], capsys)
    assert code == 0
    seed = record["actions"][0]["deal"]["server_seed"]
    assert f"server seed {seed}" in out
    assert f"check: rummyhall verify-deal --server-seed {seed} --client-seed test --nonce 0" in out
    assert "totals: p1" in out


def test_replay_reports_a_tampered_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = pool_record()
    record["actions"][0]["deal"]["commitment"] = "00" * 32
    code, out, _ = run(["replay", write(tmp_path, "a.json", record)], capsys)
    assert code == 1
    assert "MISMATCH: the server seed of action(s) 1 does not match its commitment" in out
    record = scripted_record()
    record["result"]["points"]["2"] = 5
    code, out, _ = run(["replay", write(tmp_path, "b.json", record)], capsys)
    assert code == 1
    assert "MISMATCH: the result stored in the record differs from the replay" in out


def test_replay_of_an_unfinished_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = scripted_record()
    del record["result"]
    record["actions"] = record["actions"][:4]
    code, out, _ = run(["replay", write(tmp_path, "part.json", record)], capsys)
    assert code == 0
    assert "not over: the record stops while the game waits for p2 (turn)" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not JSON: Expecting property name"),
        ("[1, 2]", "a record is a JSON object"),
        ('{"game": "indian13", "config": {}}', "has no list of actions"),
        ('{"game": "chess", "config": {}, "actions": []}', "unknown game 'chess'"),
        (
            '{"game": "indian13", "config": {"seats": 9}, "actions": []}',
            "config is refused: classic tables seat 2 to 6 players",
        ),
        (
            '{"game": "indian13", "config": {}, "actions": [{"seat": "x"}]}',
            "action 1 must be an object with an integer seat",
        ),
        (
            '{"game": "indian13", "config": {}, '
            '"actions": [{"seat": 0, "action": "deal", "at": 0, "deal": {"cards": "AS"}}]}',
            "action 1 (p0 deal) is refused by the rules: invalid_cards",
        ),
    ],
)
def test_replay_refuses_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    code, out, err = run(["replay", write(tmp_path, "bad.json", content)], capsys)
    assert code == 2
    assert out == ""
    assert message in err
    assert "Traceback" not in err


def test_replay_names_the_refused_action(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = scripted_record()
    record["actions"][4]["action"] = "discard QH"  # p2 holds no QH
    for argv in (["replay"], ["replay", "--verbose"]):
        code, out, err = run([*argv, write(tmp_path, "r.json", record)], capsys)
        assert code == 2
        assert out == ""
        assert err.strip() == (
            "replay: action 5 (p2 discard QH) is refused by the rules: "
            "invalid_cards: you do not hold QH"
        )


def test_replay_of_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["replay", str(tmp_path / "nope.json")], capsys)
    assert code == 2
    assert "cannot read" in err
    assert "No such file or directory" in err


def test_golden_records_replay(capsys: pytest.CaptureFixture[str]) -> None:
    for path in sorted(GOLDEN.glob("*.json")) if GOLDEN.is_dir() else []:
        for argv in (["replay", str(path)], ["replay", str(path), "--verbose"]):
            code, out, err = run(argv, capsys)
            assert (code, err) == (0, ""), path
            assert "winner(s)" in out or "not over" in out, path


# --- play --------------------------------------------------------------------------------------


@dataclass
class Terminal:
    """Standard input for ``play``, line by line, and the bots and deals it runs with."""

    lines: list[str]
    patience: int = 2
    bots: dict[int, StandIn] = field(default_factory=dict)

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(sys, "stdin", io.StringIO("".join(f"{x}\n" for x in self.lines)))
        monkeypatch.setattr(rummy_terminal, "house_bots", lambda game: self.make_bot)
        monkeypatch.setattr(base, "new_fair_deal", lambda seed, nonce: fair(nonce, seed))

    def make_bot(self, seed: int, seat: int) -> StandIn:
        bot = StandIn(self.patience)
        self.bots[seat] = bot
        return bot


def play(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    lines: list[str],
    *args: str,
    patience: int = 2,
) -> tuple[int, str]:
    Terminal(lines, patience).install(monkeypatch)
    code = cli.main(["play", "indian13", "--seed", "7", "--client-seed", "cs", *args])
    return code, capsys.readouterr().out


def test_play_drop_at_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = play(monkeypatch, capsys, ["drop"], "--players", "3", "--name", "Zed")
    assert code == 0
    assert "Rummy Hall · 13-card Indian Rummy · classic · points · 3 players" in out
    assert "Type h for help. No timers" in out
    assert "Your hand (13)" in out
    assert "Best grouping (hint; a to use it)" in out
    assert "You drop (first drop, 20 points)" in out
    assert "Deal 1 over: p" in out
    assert "p1 Zed" in out
    assert "── Game over" in out
    assert "Chips: p1 Zed -20" in out
    assert "\x1b[" not in out  # not a terminal: no colours
    assert "Save the record?" in out  # offered; the input ended, so nothing is written


def test_help_says_when_a_drop_is_allowed() -> None:
    """The engine takes a drop only before the turn's draw; the help once also offered a
    middle drop "once you drew", which the engine refuses."""
    text = rummy_terminal.HELP.split("  drop", 1)[1].split("\n  s ", 1)[0]
    assert "before you draw" in text
    assert "first drop" in text and "middle drop" in text
    assert "once you drew" not in text


def test_play_turns_and_engine_errors(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = ["d 7H", "c", "zz", "d 9Z", "d", "h", "", "o", "d", "q", "n", "c", "q", "y"]
    code, out = play(monkeypatch, capsys, lines, patience=10)
    assert code == 0
    assert "illegal_action: draw a card first" in out
    assert "bad_action: unknown action 'zz'" in out
    assert "invalid_cards: bad card '9Z'" in out
    assert out.count(" You draw ") >= 2
    assert " from the open pile" in out
    assert out.count(" You discard ") == 2
    assert "Commands (cards as 7H" in out
    assert "You left the table; the game is abandoned." in out


def test_play_record_replays(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "mine.json"
    code, out = play(monkeypatch, capsys, ["c", "d", "c", "d"], "--record", str(path))
    assert code == 0
    assert f"Record saved to {path}" in out
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["config"]["turn_ms"] == terminal.NO_LIMIT_MS
    assert record["actions"][0]["deal"]["client_seed"] == "cs"
    code, out, err = run(["replay", str(path), "--verbose"], capsys)
    assert (code, err) == (0, "")
    assert "every commitment matches" in out


def test_play_a_pool(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "pool.json"
    code, out = play(
        monkeypatch, capsys, ["drop"] * 40, "--pool", "101", "--players", "3",
        "--record", str(path),
    )  # fmt: skip
    assert code == 0
    assert "pool 101" in out
    assert "Enter: deal 2 · q: quit" in out
    assert "── Deal 2 " in out
    assert "out at 101 · rejoin while every total ≤ 79" in out
    assert "── Game over" in out
    assert "Totals: p1 You" in out
    code, out, _ = run(["replay", str(path)], capsys)
    assert code == 0
    assert "deal  winner" in out


def test_play_through_a_refill(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "long.json"
    lines = ["c", "d"] * 45 + ["q", "y"]
    code, out = play(
        monkeypatch, capsys, lines, "--players", "2", "--record", str(path), patience=100
    )
    assert code == 0
    assert "The closed deck is empty: the house shuffles the open pile into a new one." in out
    assert "New closed deck: " in out
    assert "You left the table; the game is abandoned." in out
    code, out, _ = run(["replay", str(path), "--verbose"], capsys)
    assert code == 0
    assert "p0 deal  (closed deck refilled: " in out
    assert "not over: the record stops while the game waits for p" in out
    # The refill is the one the deal's seeds give (the same derivation as the server's).
    record = json.loads(path.read_text(encoding="utf-8"))
    seeds = record["actions"][0]["deal"]
    refills = [e["deal"] for e in record["actions"] if "refill" in e.get("deal", {})]
    assert [deal["refill"] for deal in refills] == [1]
    fair = FairDeal(bytes.fromhex(seeds["server_seed"]), seeds["client_seed"], seeds["nonce"])
    under = [parse_physical(token) for token in refills[0]["from"].split()]
    assert refills[0]["cards"] == " ".join(card.physical for card in fair.refill(1, under))
    assert [(check.checkable, check.ok) for check in refill_checks(record)] == [(True, True)]
    assert "every refill is the order its deal's seeds give" in out


def test_replay_of_a_deal_without_seeds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = pool_record()
    del record["actions"][0]["deal"]["client_seed"]
    code, out, err = run(["replay", write(tmp_path, "s.json", record)], capsys)
    assert (code, out) == (2, "")
    assert err.strip() == "replay: action 1 (p0 deal): bad deal data: missing 'client_seed'"


def test_play_declares_with_auto_groups(capsys: pytest.CaptureFixture[str]) -> None:
    answers = iter(["g 8S 8H 8D | KD KS KC", "c", "x 9C", ""])
    out = io.StringIO()
    table = terminal.TerminalTable(
        terminal.PlaySettings(players=3),
        out=out,
        ask=lambda prompt: next(answers),
        colour=False,
        clock=_ticks(),
        bot_factory=lambda seed, seat: StandIn(),
    )
    table.game = Indian13(
        Indian13Config(seats=3, order=(1, 2, 3), turn_ms=terminal.NO_LIMIT_MS, extra_ms=0)
    )
    deck = stacked([W, A, B], cut="7C", open_card="6D", stock="9C")
    table.game.apply(HOUSE, "deal", 0, deal=Deal(deck))
    assert table.run() == 0
    text = out.getvalue()
    assert "Your groups: 80 points · no pure sequence" in text
    assert "8♠ 8♥ 8♦" in text
    assert "You draw 9♣ from the closed deck" in text
    assert "You declare — valid!" in text
    assert "── Game over" in text
    result = table.game.result
    assert result is not None
    assert result.winners == (1,)


def test_translate(capsys: pytest.CaptureFixture[str]) -> None:
    answers = iter(["n", "y"])
    table = terminal.TerminalTable(
        terminal.PlaySettings(players=3),
        out=io.StringIO(),
        ask=lambda prompt: next(answers),
        colour=False,
        bot_factory=lambda seed, seat: StandIn(),
    )
    table.game = Indian13(Indian13Config(seats=3, order=(1, 2, 3)))
    deck = stacked([W, A, B], cut="7C", open_card="6D", stock="9C")
    table.game.apply(HOUSE, "deal", 0, deal=Deal(deck))
    view = table.game.view(1)
    assert table.translate("o", view) == "draw open"
    assert table.translate("d 10h", view) == "discard 10H"
    assert table.translate("d 10♥", view) == "discard 10H"
    assert table.translate("draw closed", view) == "draw closed"
    assert table.translate("g 8s 8h 8d", view) == (
        "group 8S 8H 8D | KS 2D 3D 4D KD AD 10C JC QC KC"
    )
    with pytest.raises(ValueError, match="draw first"):
        table.translate("d", view)
    with pytest.raises(ValueError, match="nobody has declared"):
        table.translate("s", view)
    auto = table.translate("a", view)
    assert auto is not None
    assert auto.startswith("group ")
    table.game.apply(1, "draw closed", 1000)
    view = table.game.view(1)
    solved = "AD 2D 3D 4D | 10C JC QC | 8S 8H 8D | KS KD KC"
    assert table.translate("x", view) == f"declare 9C | {solved}"
    assert table.translate("x 9c", view) == f"declare 9C | {solved}"
    # Not a valid declaration: the person is asked first ("n", then "y").
    assert table.translate("x 8S", view) is None
    declared = table.translate("x 8S", view)
    assert declared is not None
    assert declared.startswith("declare 8S | ")
    assert table.translate("x QH", view) == "declare QH"  # not held: the engine says so


def _ticks() -> Callable[[], int]:
    clock: Iterator[int] = iter(range(1000, 10**9, 1000))
    return lambda: next(clock)


def test_colours() -> None:
    style = base.Style(colour=True)
    assert style.card("7H") == "\x1b[31m7♥\x1b[0m"
    assert style.card("7S") == "7♠"
    assert style.card("7S", wild_rank="7") == "\x1b[1;4m7♠\x1b[0m"
    assert style.card("JK") == "\x1b[1;35mJK\x1b[0m"
    plain = base.Style(colour=False)
    assert plain.cards(["10D", "7C", "JK"], wild_rank="7") == "10♦ 7♣* JK"
    assert base.visible_len(style.card("10H")) == 3


def test_colours_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert base.use_colour(Tty())
    assert not base.use_colour(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not base.use_colour(Tty())


def test_play_refuses_a_bad_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["play", "indian13", "--profile", "vengala", "--players", "6"], capsys)
    assert code == 2
    assert "vengala tables seat 2 to 5 players" in err


def test_play_against_the_real_bot(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("rummyhall.games.indian13.bot")
    monkeypatch.setattr(sys, "stdin", io.StringIO("drop\n"))
    monkeypatch.setattr(base, "new_fair_deal", lambda seed, nonce: fair(nonce, seed))
    # The client seed fixed too: with a fresh random one each run the deck (and so whether a bot
    # declares before our first turn, where "drop" is the answer) changed from run to run.
    code = cli.main(["play", "indian13", "--seed", "3", "--players", "4", "--client-seed", "test"])
    out = capsys.readouterr().out
    assert code == 0
    assert "── Game over" in out


# --- simulate ----------------------------------------------------------------------------------


class FakeReport:
    def __init__(self, violations: list[str]) -> None:
        self.violations = violations

    def to_json(self) -> dict[str, Any]:
        return {"violations": self.violations}

    def summary(self) -> str:
        return f"{len(self.violations)} violation(s)"


def test_simulate_exit_status(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[dict[str, Any]] = []

    def simulate(**kwargs: Any) -> FakeReport:
        calls.append(kwargs)
        return FakeReport(["a card is in two places"] if kwargs["seed"] == 2 else [])

    fake = types.ModuleType("rummyhall.sim")
    fake.simulate = simulate  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "rummyhall.sim", fake)
    assert run(["simulate", "--deals", "3"], capsys)[:2] == (0, "0 violation(s)\n")
    # No --profile: None, the game's own default (sim.simulate asks its catalog entry).
    assert calls[-1] == {
        "game": "indian13", "profile": None, "players": 4, "deals": 3, "seed": 1,
        "mode": "points", "checks": True,
    }  # fmt: skip
    code, out, _ = run(
        ["simulate", "--seed", "2", "--json", "--no-checks", "--mode", "pool201"], capsys
    )
    assert code == 1
    assert json.loads(out) == {"violations": ["a card is in two places"]}
    assert calls[-1]["checks"] is False
    assert calls[-1]["mode"] == "pool201"


def test_simulate_for_real(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("rummyhall.sim")
    code, out, _ = run(
        ["simulate", "--players", "3", "--deals", "3", "--seed", "5", "--json"], capsys
    )
    assert code == 0
    data = json.loads(out)
    assert isinstance(data, dict)
    assert data.get("violations", []) == []
    code, out, _ = run(["simulate", "--players", "3", "--deals", "3", "--seed", "5"], capsys)
    assert code == 0
    assert out.strip()


def test_the_hint_shows_near_melds_and_the_way_to_a_declaration() -> None:
    """Without a pure sequence the hint still groups the hand: near runs, a pair, loose cards,
    and says how far the hand is from a declaration; a uses those groups."""
    mine = "AS 3S 5H 6H 8D 8C KD KC 9C 2D 4C 10H QS"
    table = terminal.TerminalTable(
        terminal.PlaySettings(players=3),
        out=io.StringIO(),
        ask=lambda prompt: "",
        colour=False,
        bot_factory=lambda seed, seat: StandIn(),
    )
    table.game = Indian13(Indian13Config(seats=3, order=(1, 2, 3)))
    deck = stacked([mine, A, B], cut="7D", open_card="6D", stock="JC")
    table.game.apply(HOUSE, "deal", 0, deal=Deal(deck))
    view = table.game.view(1)
    block = table._groups_block(view)
    assert "Best grouping (hint; a to use it)" in block
    assert "5♥ 6♥" in block and "Near run (needs 4♥ or 7♥)" in block
    assert "Pair (needs K♠ or K♥)" in block
    assert " 5 cards from a declaration; look for K♠, 4♥, 7♥, 7♣." in block
    assert table.translate("a", view) == "group QS AS | 5H 6H | 8C 9C | KD KC | 3S 10H 2D 8D 4C"
    # After drawing, the hint names the card to throw and why.
    table.game.apply(1, "draw closed", 1000)
    block = table._groups_block(table.game.view(1))
    assert "Near run (needs 10♣)" in block
    assert "Discard: the 10♥ is furthest from any meld" in block

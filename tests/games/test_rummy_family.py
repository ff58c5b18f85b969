"""What the rummy games share beyond the engine (games/rummy/: the bot, the terminal table and the
simulation tally) takes a game's hooks, and assumes neither 13 cards nor the 13-card numbers."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import Any, ClassVar

from rummyhall.cards import parse, parse_cards
from rummyhall.games.indian13.bot import STYLE, Indian13Bot
from rummyhall.games.indian13.engine import Indian13
from rummyhall.games.indian13.rules import Indian13Config
from rummyhall.games.indian13.tally import Indian13Tally
from rummyhall.games.indian13.terminal import PlaySettings, TerminalTable
from rummyhall.games.protocol import Event
from rummyhall.games.rummy.bot import RummyBot, Style
from rummyhall.games.rummy.views import RummyView
from rummyhall.melds import check
from rummyhall.sim import FairHouse, Runner, SimReport
from scenarios import Table, stacked

P = "AS 2S 3S 5H 6H KD QC 10C 2D 4D 8C JS 10D"
A = "4H 5H 6H 9S 10S 7D QC QD QS KH 3C 8D 2S"
# 22 cards, as a 21-card hand after a draw; the cut below is 9D.
WIDE = "AS 2S 3S 4S 5H 6H 7H 8H 9C 10C JC QC KD KD KD 2D 3D 4D JK 6S 9H 10H"


class Wide(RummyBot):
    """The shared bot for a made-up 21-card game judged by Marriage's meld profile."""

    game: ClassVar[str] = "wide21"
    default_style: ClassVar[Style] = STYLE

    @classmethod
    def meld_profile(cls, view: RummyView) -> str:
        return "marriage21"


def drawn_view() -> dict[str, Any]:
    """Seat 1's view of a 13-card deal after its draw, as plain JSON."""
    game = Indian13(Indian13Config(seats=2, order=(1, 2)))
    t = Table(game, [stacked([P, A], "9D", "KC", "", decks=2, jokers=game.shoe()[1])])
    t.do("p0 deal @0")
    t.do("p1 draw closed")
    view: dict[str, Any] = json.loads(json.dumps(t.view(1)))
    return view


def test_the_bot_plays_its_own_game_with_any_hand_size_and_meld_profile() -> None:
    view = drawn_view()
    assert Wide().act(view) is None  # not its game
    assert str(Indian13Bot().act(view)).startswith("discard ")
    view.update(game="wide21", hand=WIDE.split())
    action = Wide().act(view)
    assert action is not None and action.startswith("declare ")  # three pure sequences and more
    finish, *groups = action.removeprefix("declare ").split(" | ")
    assert sorted([finish, *" ".join(groups).split()]) == sorted(WIDE.split())
    verdict = check([parse_cards(g) for g in groups], joker=parse("9D"), profile="marriage21")
    assert verdict.declarable


@dataclass
class Turns(Indian13Tally):
    """A tally that counts one more thing, through the hooks."""

    turns: int = 0

    def count_extra(self, event: Event) -> None:
        self.turns += event.kind == "turn"

    def extra_figures(self, report: SimReport) -> dict[str, Any]:
        return {"turns": self.turns}

    def extra_lines(self, report: SimReport) -> list[str]:
        return [f"  turns {self.turns}"]


def test_the_tally_counts_and_reports_a_games_extras() -> None:
    tally = Turns(2)
    tally.setup(profile="classic", mode="points", options={})
    game = Indian13(Indian13Config(seats=2))
    Runner(game, {1: Indian13Bot(1), 2: Indian13Bot(2)}, FairHouse(3), tally).run()
    report = SimReport(game="indian13", players=2, seed=3, checks=False, seconds=1.0, tally=tally)
    assert tally.deals == 1 and tally.turns > 1
    assert report.turns == tally.turns and report.to_json()["turns"] == tally.turns
    assert f"  turns {tally.turns}" in report.summary().splitlines()


def test_the_table_takes_its_numbers_from_the_engine() -> None:
    table = TerminalTable(
        PlaySettings(players=2, profile="vengala"),
        out=io.StringIO(),
        ask=lambda prompt: "",
        colour=False,
        bot_factory=lambda seed, seat: Indian13Bot(seat),
    )
    assert "the other 13 are auto-arranged" in table.help()
    assert table.melds == "indian13/vengala"

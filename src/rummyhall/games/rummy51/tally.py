"""What a simulation of Rummy 51 counts and reports (``rummyhall simulate --game rummy51``; the
catalog entry's tally, a :class:`rummyhall.sim.Tally`).

The games are one table session, as at a real table: the same bots throughout and the first move
one seat on each game (:meth:`~rummyhall.games.rummy51.engine.Rummy51.table_config`). Per seat it
counts the score (lower is better), wins, the average place, and what the room's progression
counts: openings and "Rummies"."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from rummyhall.games.protocol import JSON, Event, data_of
from rummyhall.games.rummy51.events import GameEndEvent, MeldEvent
from rummyhall.games.rummy51.rules import Rummy51Config
from rummyhall.sim import SimReport, Tally


@dataclass(slots=True)
class Rummy51Tally(Tally):
    """The tally of Rummy 51 games (see the module docstring)."""

    session: ClassVar[bool] = True

    scores: Counter[int] = field(default_factory=Counter)
    wins: Counter[int] = field(default_factory=Counter)
    places: Counter[int] = field(default_factory=Counter)
    """Sum of places, per seat."""
    opened: Counter[int] = field(default_factory=Counter)
    """Games in which the seat opened."""
    rummies: int = 0
    stuck: int = 0
    """Games that ended with nobody out (the stock and the pile ran dry)."""
    melds: int = 0
    """Groups laid down, openings included."""
    counts: Counter[str] = field(default_factory=Counter)

    def setup(self, *, profile: str, mode: str, options: Mapping[str, Any]) -> JSON:
        if mode != "points" or profile:
            raise ValueError("Rummy 51 has no profiles and no modes; leave them out")
        return Rummy51Config(seats=self.seats).to_json()

    def count(self, events: list[Event]) -> None:
        for event in events:
            kind = event.kind
            if kind in ("open", "meld"):
                self.melds += len(data_of(event, MeldEvent)["groups"])
                self.counts[kind] += 1
            elif kind in ("add", "swap", "return"):
                self.counts[kind] += 1
            elif kind == "timeout":
                self.timeouts += 1
            elif kind == "game_end":
                end = data_of(event, GameEndEvent)
                self.deals += 1
                self.matches += 1
                if end["winner"] is None:
                    self.stuck += 1
                else:
                    self.wins[end["winner"]] += 1
                self.rummies += end["rummy"]
                for seat_text, place in end["places"].items():
                    seat = int(seat_text)
                    self.scores[seat] += place["score"]
                    self.places[seat] += place["place"]
                    self.opened[seat] += place["opened"]

    def figures(self, report: SimReport) -> dict[str, Any]:
        seconds = report.seconds
        return {
            "game": report.game,
            "players": report.players,
            "seed": report.seed,
            "checks": report.checks,
            "games": self.deals,
            "actions": self.actions,
            "seconds": seconds,
            "scores": {seat: self.scores[seat] for seat in self._seats()},
            "wins": {seat: self.wins[seat] for seat in self._seats()},
            "opened": {seat: self.opened[seat] for seat in self._seats()},
            "rummies": self.rummies,
            "stuck": self.stuck,
            "melds": self.melds,
            "counts": dict(sorted(self.counts.items())),
            "timeouts": self.timeouts,
            "checked": self.checked,
            "violations": list(self.violations),
            "violation_count": self.violation_count,
            "games_per_second": self.deals / seconds if seconds > 0 else 0.0,
        }

    def _seats(self) -> range:
        return range(1, self.seats + 1)

    def lines(self, report: SimReport) -> list[str]:
        seats = self._seats()
        games = max(1, self.deals)
        rate = self.deals / report.seconds if report.seconds > 0 else 0.0
        return [
            f"simulate {report.game}, {report.players} bots, seed {report.seed}",
            f"  {self.deals} games, {self.actions} actions ({self.actions / games:.1f} a game) "
            f"in {report.seconds:.2f} s: {rate:.1f} games/s",
            "  seat        " + "".join(f"{seat:>8}" for seat in seats),
            "  score       " + "".join(f"{self.scores[seat]:>8}" for seat in seats),
            "  wins        " + "".join(f"{self.wins[seat]:>8}" for seat in seats),
            "  mean place  " + "".join(f"{self.places[seat] / games:>8.2f}" for seat in seats),
            "  opened      " + "".join(f"{self.opened[seat]:>8}" for seat in seats),
            f"  groups laid {self.melds}; openings {self.counts['open']}, melds "
            f"{self.counts['meld']}, lay-offs {self.counts['add']}, joker swaps "
            f"{self.counts['swap']}, discards put back {self.counts['return']}",
            f"  rummies {self.rummies}; games nobody went out {self.stuck}; timeouts "
            f"{self.timeouts}",
        ]

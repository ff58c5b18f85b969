"""What a simulation of a rummy game counts and reports (``rummyhall simulate``):
:class:`RummyTally`, the :class:`rummyhall.sim.Tally` a rummy game's ``tally.py`` builds on with
the config of its tables. Tables of one match each (a points game is one deal, a pool plays deals
until the match ends), new bots at each table."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Final

from rummyhall.games.protocol import JSON, Event, data_of
from rummyhall.games.protocol_views import ResultView
from rummyhall.games.rummy.events import DeclarationEvent, DropEvent
from rummyhall.games.rummy.rules import RummyConfig
from rummyhall.games.rummy.views import DealSummary
from rummyhall.sim import Tally

if TYPE_CHECKING:
    from collections.abc import Mapping

    from rummyhall.sim import SimReport

ENTRY_FEE: Final = 100
"""Chips each player pays into a simulated pool."""


_COUNTED: Final = frozenset(
    {"drop", "declaration", "deal_end", "game_over", "reshuffle", "rejoin", "timeout", "missed"}
)
"""The kinds of event :meth:`RummyTally.count` counts itself."""


@dataclass(slots=True)
class RummyTally(Tally):
    """Points scored per seat over all deals (lower is better), deals and matches won per seat,
    drops, declarations, reshuffles and rejoins. A game's tally answers :meth:`config`; one that
    counts more (Marriage's value cards) adds its fields and answers :meth:`count_extra`,
    :meth:`extra_figures` and :meth:`extra_lines`. (Hooks rather than overrides calling
    ``super()``: in a ``slots`` dataclass, Python 3.11's plain ``super()`` fails.)"""

    acyclic: ClassVar[bool] = True
    """The rummy engine, its bots and the solver make no reference cycles (tests/test_sim.py)."""

    profile: str = ""
    """The rule profile simulated (set by :meth:`setup`)."""
    mode: str = "points"
    points: dict[int, int] = field(default_factory=dict)
    wins: dict[int, int] = field(default_factory=dict)
    """Deals won per seat."""
    match_wins: dict[int, int] = field(default_factory=dict)
    """Games won per seat (a points game is one deal; a pool is a match)."""
    first_drops: int = 0
    middle_drops: int = 0
    declarations: int = 0
    wrong_declarations: int = 0
    reshuffles: int = 0
    rejoins: int = 0

    def __post_init__(self) -> None:
        for table in (self.points, self.wins, self.match_wins):
            for seat in range(1, self.seats + 1):
                table.setdefault(seat, 0)

    def setup(self, *, profile: str, mode: str, options: Mapping[str, Any]) -> JSON:
        self.profile, self.mode = profile, mode
        entry_fee = 0 if mode == "points" else ENTRY_FEE
        return self.config(profile=profile, mode=mode, entry_fee=entry_fee).to_json()

    def config(self, *, profile: str, mode: str, entry_fee: int) -> RummyConfig:
        """The game's config of a simulated table of :attr:`seats` players; ValueError for a
        profile or mode the game does not have."""
        raise NotImplementedError

    def count(self, events: list[Event]) -> None:
        for event in events:
            kind = event.kind
            if kind not in _COUNTED:
                pass  # most events (turns, draws, discards...): nothing of the family's to count
            elif kind == "drop":
                if data_of(event, DropEvent)["how"] == "first drop":
                    self.first_drops += 1
                else:
                    self.middle_drops += 1
            elif kind == "declaration":
                if data_of(event, DeclarationEvent)["valid"]:
                    self.declarations += 1
                else:
                    self.wrong_declarations += 1
            elif kind == "deal_end":
                summary = data_of(event, DealSummary)
                self.deals += 1
                self.wins[summary["winner"]] += 1
                for seat, score in summary["scores"].items():
                    self.points[int(seat)] += score
            elif kind == "game_over":
                self.matches += 1
                for winner in data_of(event, ResultView)["winners"]:
                    self.match_wins[winner] += 1
            elif kind == "reshuffle":
                self.reshuffles += 1
            elif kind == "rejoin":
                self.rejoins += 1
            elif kind in {"timeout", "missed"}:
                self.timeouts += 1
            self.count_extra(event)

    def count_extra(self, event: Event) -> None:
        """Count what the game's own events, or its own keys of the shared ones (a deal
        summary's), add up to; ``event`` is counted by the shared kinds already."""

    def figures(self, report: SimReport) -> dict[str, Any]:
        seconds = report.seconds
        return {
            "game": report.game,
            "profile": self.profile,
            "mode": self.mode,
            "players": report.players,
            "seed": report.seed,
            "checks": report.checks,
            "deals": self.deals,
            "matches": self.matches,
            "actions": self.actions,
            "seconds": seconds,
            "points": dict(self.points),
            "wins": dict(self.wins),
            "match_wins": dict(self.match_wins),
            "first_drops": self.first_drops,
            "middle_drops": self.middle_drops,
            "declarations": self.declarations,
            "wrong_declarations": self.wrong_declarations,
            "timeouts": self.timeouts,
            "reshuffles": self.reshuffles,
            "rejoins": self.rejoins,
            "checked": self.checked,
            "violations": list(self.violations),
            "violation_count": self.violation_count,
            "deals_per_second": self.deals / seconds if seconds > 0 else 0.0,
            "drops": self.first_drops + self.middle_drops,
            **self.extra_figures(report),
        }

    def extra_figures(self, report: SimReport) -> dict[str, Any]:
        """The game's own figures, after the shared ones (what :meth:`count_extra` counted)."""
        return {}

    def lines(self, report: SimReport) -> list[str]:
        seats = range(1, report.players + 1)
        games = "match" if self.mode != "points" else "game"
        rate = self.deals / report.seconds if report.seconds > 0 else 0.0
        lines = [
            f"simulate {report.game} {self.profile} {self.mode}, {report.players} bots, "
            f"seed {report.seed}",
            f"  {self.deals} deals ({self.matches} {games}{'es' if games == 'match' else 's'}),"
            f" {self.actions} actions in {report.seconds:.2f} s: {rate:.1f} deals/s",
            "  seat     " + "".join(f"{seat:>8}" for seat in seats),
            "  points   " + "".join(f"{self.points[seat]:>8}" for seat in seats),
            "  per deal "
            + "".join(f"{self.points[seat] / max(1, self.deals):>8.1f}" for seat in seats),
            "  wins     " + "".join(f"{self.wins[seat]:>8}" for seat in seats),
        ]
        if self.mode != "points":
            lines.append("  matches  " + "".join(f"{self.match_wins[seat]:>8}" for seat in seats))
        lines.append(
            f"  drops {self.first_drops + self.middle_drops} (first {self.first_drops}, middle "
            f"{self.middle_drops}); declarations {self.declarations} (wrong "
            f"{self.wrong_declarations}); reshuffles {self.reshuffles}; rejoins {self.rejoins}; "
            f"timeouts {self.timeouts}"
        )
        return lines + self.extra_lines(report)

    def extra_lines(self, report: SimReport) -> list[str]:
        """The game's own lines of the report, after the shared ones."""
        return []

"""What a simulation of 21-card Marriage Rummy counts and reports (``rummyhall simulate --game
marriage21``; the catalog entry's tally): the rummy family's (:class:`RummyTally`), plus the value
cards: how many deals had a marriage, and how often the net loss cap cut a payment."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rummyhall.games.marriage21.rules import STANDARD, Marriage21Config
from rummyhall.games.protocol import Event, data_of
from rummyhall.games.rummy.tally import RummyTally
from rummyhall.games.rummy.views import DealSummary
from rummyhall.sim import SimReport


@dataclass(slots=True)
class Marriage21Tally(RummyTally):
    """The tally of Marriage games (one deal each, for points)."""

    marriages: int = 0
    """Marriages held at the end of a deal, by seats still in it."""
    value_points: int = 0
    """Value points that changed hands, before the cap."""
    capped: int = 0
    """Seats whose payments the net loss cap cut."""
    net: Counter[int] = field(default_factory=Counter)
    """Every seat's net points over the run, value cards and caps included (sums to zero)."""

    def config(self, *, profile: str, mode: str, entry_fee: int) -> Marriage21Config:
        if profile != STANDARD.name or mode != "points":
            raise ValueError("Marriage has one profile (standard) and one mode (points)")
        return Marriage21Config(seats=self.seats)

    def count_extra(self, event: Event) -> None:
        if event.kind != "deal_end":
            return
        summary = data_of(event, DealSummary)
        for holding in summary.get("values", {}).values():
            self.marriages += holding["marriages"]
        for seat, line in summary.get("settlement", {}).items():
            self.value_points += line["received"]
            self.capped += line["cap_relief"] > 0
            self.net[int(seat)] += line["net"]

    def extra_figures(self, report: SimReport) -> dict[str, Any]:
        return {
            "marriages": self.marriages,
            "value_points": self.value_points,
            "capped": self.capped,
            "net": dict(self.net),
        }

    def extra_lines(self, report: SimReport) -> list[str]:
        seats = range(1, self.seats + 1)
        return [
            "  net      " + "".join(f"{self.net[seat]:>8}" for seat in seats),
            f"  value cards: {self.value_points} points changed hands, {self.marriages} marriages "
            f"held, the net loss cap cut {self.capped} seat(s)",
        ]

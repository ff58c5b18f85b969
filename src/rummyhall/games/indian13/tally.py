"""What a simulation of 13-card Indian Rummy counts and reports (``rummyhall simulate``; the
catalog entry's tally): the rummy family's (:class:`rummyhall.games.rummy.tally.RummyTally`) at
13-card tables."""

from __future__ import annotations

from dataclasses import dataclass

from rummyhall.games.indian13.rules import Indian13Config
from rummyhall.games.rummy.tally import RummyTally


@dataclass(slots=True)
class Indian13Tally(RummyTally):
    """The tally of 13-card games, both profiles, points tables and pools."""

    def config(self, *, profile: str, mode: str, entry_fee: int) -> Indian13Config:
        return Indian13Config(profile=profile, seats=self.seats, mode=mode, entry_fee=entry_fee)

"""The 21-card Marriage Rummy table of ``rummyhall play marriage21`` (its catalog entry's
terminal): the rummy family's table (:mod:`rummyhall.games.rummy.terminal`) with the Marriage
engine, which also names the upper and lower jokers among the wild cards."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from rummyhall.catalog import PlayRequest
from rummyhall.games.marriage21.engine import Marriage21
from rummyhall.games.marriage21.rules import Marriage21Config
from rummyhall.games.rummy.terminal import RummySettings, RummyTable
from rummyhall.games.rummy.views import RummyView
from rummyhall.terminal.base import NO_LIMIT_MS


@dataclass(frozen=True, slots=True)
class PlaySettings(RummySettings):
    """What ``rummyhall play marriage21`` was asked for."""

    def config(self) -> Marriage21Config:
        return Marriage21Config(
            seats=self.players, turn_ms=NO_LIMIT_MS, extra_ms=0, declare_ms=NO_LIMIT_MS
        )


class TerminalTable(RummyTable[RummyView]):
    """One Marriage deal at the terminal."""

    engine = Marriage21

    def _wild_text(self, view: RummyView) -> str:
        values = view.get("value_cards", [])
        if len(values) != 3:
            return super()._wild_text(view)
        cut, upper, lower = values
        ranks = "every ace" if view["cut"] == "JK" else f"every {view['wild_rank']}"
        return f"{ranks}, JK, {upper}, {lower} · value {cut} {upper} {lower}"


def start(request: PlayRequest, out: TextIO) -> Callable[[], int]:
    """``rummyhall play marriage21`` (its catalog entry's terminal, a
    :data:`rummyhall.catalog.PlayEntry`): the settings from the request, checked before the table
    opens; the deal to play."""
    return TerminalTable.session(PlaySettings.of(request), out)

"""The 13-card Indian Rummy table of ``rummyhall play indian13`` (its catalog entry's terminal):
the rummy family's table (:mod:`rummyhall.games.rummy.terminal`) with the 13-card engine and its
options, ``--profile`` and ``--pool``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from rummyhall.catalog import PlayRequest
from rummyhall.games.indian13.engine import Indian13
from rummyhall.games.indian13.rules import Indian13Config
from rummyhall.games.indian13.views import Indian13View
from rummyhall.games.rummy.terminal import RummySettings, RummyTable
from rummyhall.terminal.base import NO_LIMIT_MS


@dataclass(frozen=True, slots=True)
class PlaySettings(RummySettings):
    """What ``rummyhall play indian13`` was asked for."""

    profile: str = "classic"
    mode: str = "points"
    """``points``, or a pool (``pool101``, ``pool201``)."""

    def config(self) -> Indian13Config:
        return Indian13Config(
            profile=self.profile,
            seats=self.players,
            mode=self.mode,
            turn_ms=NO_LIMIT_MS,
            extra_ms=0,
            declare_ms=NO_LIMIT_MS,
        )


class TerminalTable(RummyTable[Indian13View]):
    """One 13-card match (a points deal, or a whole pool) at the terminal."""

    engine = Indian13


def start(request: PlayRequest, out: TextIO) -> Callable[[], int]:
    """``rummyhall play indian13`` (its catalog entry's terminal, a
    :data:`rummyhall.catalog.PlayEntry`): the settings from the request, checked before the table
    opens; the match to play."""
    pool = request.options.get("pool")
    settings = PlaySettings.of(
        request,
        profile=request.options.get("profile") or "classic",
        mode="points" if pool is None else f"pool{pool}",
    )
    return TerminalTable.session(settings, out)

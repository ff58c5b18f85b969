"""How a game's events and results read as text: the base of every game's renderer
(``games/<name>/text.py``, named by its catalog entry's :attr:`~rummyhall.catalog.GamePlugin.text`).

A renderer is pure: config, events, views and results in, lines of text out. ``rummyhall replay
--verbose`` and the logs use it; the command line keeps only the frame that is the same for every
game (times, notation, seeds, who is awaited, points, winners and chips). One renderer reads one
record from its start: it may remember what it saw (a 13-card declaration's finish card, shown
when the deal ends).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Generic, TypeVar

from rummyhall.games.protocol import Event, Game, Result, View

V = TypeVar("V", bound=View)
"""The game's view type (``games/<name>/views.py``)."""


class GameText(Generic[V]):
    """What a game adds to the text of a replay. The defaults add nothing. ``V`` is the game's
    view type: :meth:`state_parts` reads it with its keys checked."""

    def config_parts(self, config: Mapping[str, Any], seats: int) -> list[str]:
        """The table's rules in short, after the game's name (the seats among them)."""
        return [f"{seats} seats"]

    def note(self, event: Event) -> str | None:
        """What ``event`` adds to its action's line (None: nothing)."""
        return None

    def deal_lines(
        self,
        game: Game,
        events: Sequence[Event],
        seeds: Mapping[str, Any] | None,
        check: str | None,
    ) -> list[str]:
        """The start of a deal (``events`` of the house's deal): order, cards shown, hands.
        ``seeds`` are the deal's provably-fair seeds if the record keeps them, ``check`` the
        command that recomputes the deck."""
        return []

    def state_parts(self, view: V) -> list[str]:
        """The public state after a move, from the spectators' ``view`` (who is awaited is
        added by the frame)."""
        return []

    def after_lines(self, events: Sequence[Event]) -> list[str]:
        """Lines after an action's line (e.g. a deal's scores when it ends)."""
        return []

    def history_lines(self, game: Game) -> list[str]:
        """The game's deals, at the top of the result."""
        return []

    def ending_lines(self, result: Result) -> list[str]:
        """How the game ended, before its points, winners and chips."""
        return []

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
from typing import Any, Generic, Self, TypeVar

from rummyhall.games.protocol import Event, Game, Result, View

V = TypeVar("V", bound=View)
"""The game's view type (``games/<name>/views.py``)."""


class Voice:
    """How a renderer names seats and styles its words. This one is plain text with seats as
    ``p1``, ``p2``... and no "you" (a replay, a log); the terminal table gives its own
    (:class:`rummyhall.terminal.base.TerminalVoice`: its seat names, "You", colours)."""

    you: int | None = None
    """The seat spoken to as "You" (None: nobody)."""

    def seat(self, seat: int) -> str:
        return f"p{seat}"

    def subject(self, seat: int, you: str, other: str) -> str:
        """``seat`` doing something: "You ``you``" for the seat spoken to, else its name and
        ``other``."""
        return f"{self.seat(seat)} {other}"

    def card(self, card: str, wild_rank: str | None = None) -> str:
        return card

    def cards(self, cards: Sequence[str], wild_rank: str | None = None) -> str:
        return " ".join(self.card(card, wild_rank) for card in cards)

    def groups(self, groups: Sequence[Sequence[str]], wild_rank: str | None = None) -> str:
        return " | ".join(self.cards(group, wild_rank) for group in groups)

    def bold(self, text: str) -> str:
        return text

    def dim(self, text: str) -> str:
        return text

    def red(self, text: str) -> str:
        return text

    def green(self, text: str) -> str:
        return text

    def rule(self, title: str) -> str:
        """A heading line."""
        return title

    def pad(self, text: str, width: int) -> str:
        """``text`` padded to ``width`` visible characters (styles take no room)."""
        return text.ljust(width)

    def rpad(self, text: str, width: int) -> str:
        return text.rjust(width)


class GameText(Generic[V]):
    """What a game adds to the text of a replay, and the words of its terminal table's
    narration. The defaults add nothing. ``V`` is the game's view type: :meth:`state_parts` reads
    it with its keys checked. :attr:`voice` names the seats and styles the words."""

    voice: Voice = Voice()

    def speaking(self, voice: Voice) -> Self:
        """This renderer, naming seats and styling words with ``voice``."""
        self.voice = voice
        return self

    def narrate(self, event: Event) -> str | None:
        """``event`` told as sentences for a person at a table (None: nothing to say)."""
        return None

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

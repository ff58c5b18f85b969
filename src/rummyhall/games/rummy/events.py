"""The data of every event the rummy engine emits, one ``TypedDict`` per kind
(:attr:`Game.event_types <rummyhall.games.protocol.Game.event_types>`).

The engine builds each event's data as its type, and the text renderer, the terminal table and
the tally read it with :func:`~rummyhall.games.protocol.data_of`, so mypy checks the keys on both
sides; the conformance playouts check every event against its type (tests/conformance.py).
docs/protocol.md describes them for clients. (No ``from __future__ import annotations`` here:
with it, Python 3.11 cannot tell which keys ``NotRequired`` marks.)
"""

from collections.abc import Mapping
from typing import Any, Final, NotRequired, TypedDict

from rummyhall.games.protocol_views import ResultView
from rummyhall.games.rummy.views import DealSummary


class TossEvent(TypedDict):
    """The toss before a game's first deal: the cards read, as ``[seat, card]``, and the turn
    order it gave."""

    cards: list[list[int | str]]
    order: list[int]


class DealEvent(TypedDict):
    """A new deal: its number, the turn order (first mover first), the cut card, the rank it
    makes wild, the first open card and the size of the closed deck."""

    deal: int
    order: list[int]
    first: int
    cut: str
    wild_rank: str | None
    open: str
    closed: int


class HandEvent(TypedDict):
    """A player's dealt cards (to that player only)."""

    cards: list[str]


class ReshuffleEvent(TypedDict):
    """The closed deck was refilled from the open pile: its new size."""

    closed: int


class ClosedEmptyEvent(TypedDict):
    """The closed deck ran out at the start of a turn: the house refills it from the open pile
    (of this many cards, its top card staying)."""

    open: int


DrawEvent = TypedDict(
    "DrawEvent",
    {
        "seat": int,
        "from": str,
        "card": NotRequired[str],
        "closed": NotRequired[int],
    },
)
"""A draw: ``from`` ``open`` (with the ``card``, which everyone saw) or ``closed`` (with the
closed deck's new size; the card goes to the drawer alone, in :class:`DrewEvent`)."""


class DrewEvent(TypedDict):
    """The card a player drew from the closed deck (to that player only)."""

    card: str


class DiscardEvent(TypedDict):
    seat: int
    card: str


class SeatEvent(TypedDict):
    """Something a seat did that needs no more words (``declare``: a card went into the finish
    slot)."""

    seat: int


class DropEvent(TypedDict):
    """A drop, with what it scores and ``how`` (``first drop``, ``middle drop``)."""

    seat: int
    score: int
    how: str


class GroupEvent(TypedDict):
    """A player's own arrangement of their cards (to that player only)."""

    groups: list[list[str]]


class TimeoutEvent(TypedDict):
    """A declare or show timer ran out (``kind``); a turn's timeout is a ``missed`` event."""

    seat: int
    kind: str


class RejoinEvent(TypedDict):
    """An eliminated pool player bought back in, with their new total."""

    seat: int
    total: int


class TurnEvent(TypedDict):
    seat: int
    deadline: int


class MissedEvent(TypedDict):
    """A turn ran out: how many in a row, and the card thrown for the player if they had drawn."""

    seat: int
    missed: int
    discarded: NotRequired[str]


class RemovedEvent(TypedDict):
    """Too many missed turns: the player is out of the deal with this score."""

    seat: int
    score: int


class DeclarationEvent(TypedDict):
    """How a declaration was judged. A valid one shows its finish card and groups; a wrong one
    says why and what it scores, and shows its cards only if they were confirmed."""

    seat: int
    valid: bool
    finish: NotRequired[str]
    groups: NotRequired[list[list[str]]]
    reason: NotRequired[str]
    score: NotRequired[int]


class ShowPhaseEvent(TypedDict):
    """After a valid declaration: every other player's deadline to show, by seat (as text)."""

    deadlines: dict[str, int]


class ShowEvent(TypedDict):
    """A loser's show was scored, ``how`` (``shown``, ``arrangement``, ``all cards``)."""

    seat: int
    how: str


RUMMY_EVENTS: Final[Mapping[str, Any]] = {
    "toss": TossEvent,
    "deal": DealEvent,
    "hand": HandEvent,
    "reshuffle": ReshuffleEvent,
    "closed_empty": ClosedEmptyEvent,
    "draw": DrawEvent,
    "drew": DrewEvent,
    "discard": DiscardEvent,
    "declare": SeatEvent,
    "drop": DropEvent,
    "group": GroupEvent,
    "timeout": TimeoutEvent,
    "rejoin": RejoinEvent,
    "turn": TurnEvent,
    "missed": MissedEvent,
    "removed": RemovedEvent,
    "declaration": DeclarationEvent,
    "show_phase": ShowPhaseEvent,
    "show": ShowEvent,
    "deal_end": DealSummary,
    "game_over": ResultView,
}
"""Every event kind of the rummy engine and the type of its data."""

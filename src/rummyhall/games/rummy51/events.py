"""The data of every event the Rummy 51 engine emits, one ``TypedDict`` per kind
(:attr:`Game.event_types <rummyhall.games.protocol.Game.event_types>`), and :data:`RUMMY51_EVENTS`.

The engine builds each event's data as its type; the text renderer, the terminal table and the
tally read it with :func:`~rummyhall.games.protocol.data_of`; the conformance playouts check every
event against its type. docs/protocol.md describes them for clients. (No ``from __future__ import
annotations`` here: with it, Python 3.11 cannot tell which keys ``NotRequired`` marks.)
"""

from collections.abc import Mapping
from typing import Any, Final, NotRequired, TypedDict

from rummyhall.games.protocol_views import ResultView, TableGroupView
from rummyhall.games.rummy51.views import PlaceView


class DealEvent(TypedDict):
    """``deal`` (everyone): the cards are dealt; ``first`` moves first (with 15 cards) and
    ``closed`` cards form the stock."""

    first: int
    order: list[int]
    closed: int


class HandEvent(TypedDict):
    """``hand`` (that seat only): the cards dealt to it."""

    cards: list[str]


class TurnEvent(TypedDict):
    """``turn``: the seat to move and its deadline (ms); ``draw``: whether it starts by drawing
    (the first player's first turn does not)."""

    seat: int
    deadline: int
    draw: bool


DrawEvent = TypedDict(
    "DrawEvent",
    {"seat": int, "from": str, "card": NotRequired[str], "closed": NotRequired[int]},
)
"""``draw``: ``seat`` drew from ``from`` (``open``: the ``card`` everyone saw on the pile;
``closed``: the stock, ``closed`` cards left)."""


class DrewEvent(TypedDict):
    """``drew`` (the drawer only): the card it drew from the stock."""

    card: str


class ReturnEvent(TypedDict):
    """``return``: a player who took the discard without being able to open put it back."""

    seat: int
    card: str


class MeldEvent(TypedDict):
    """``open`` (an opening: ``value`` is what its groups are worth together) and ``meld`` (new
    groups after opening, ``value`` likewise): the groups laid down, as they lie on the table."""

    seat: int
    groups: list[TableGroupView]
    value: int


class AddEvent(TypedDict):
    """``add``: ``seat`` laid ``card`` off on a group, which now lies as ``group``."""

    seat: int
    card: str
    group: TableGroupView


class SwapEvent(TypedDict):
    """``swap``: ``seat`` put ``card`` in a joker's place in a group (now ``group``) and took the
    joker."""

    seat: int
    card: str
    group: TableGroupView


class DiscardEvent(TypedDict):
    """``discard``: ``seat`` threw ``cards``: one card, or a joker buried under an ordinary card
    (``buried``), or its last jokers; ``left`` cards stay in its hand."""

    seat: int
    cards: list[str]
    buried: bool
    left: int


class TimeoutEvent(TypedDict):
    """``timeout``: the turn's time ran out and the game finished the turn: ``returned`` the
    discard taken back to the pile (if any), ``drew`` whether it drew from the stock, and the
    card it threw."""

    seat: int
    returned: str | None
    drew: bool
    discarded: str


class ClosedEmptyEvent(TypedDict):
    """``closed_empty``: the stock ran out; the house refills it from the discard pile
    (``open`` cards, its top card staying)."""

    open: int


class ReshuffleEvent(TypedDict):
    """``reshuffle``: the stock was refilled; its new size."""

    closed: int


class GameEndEvent(TypedDict):
    """``game_end`` (everyone): how the game ended. ``winner`` went out (None: the cards ran out
    before anyone did); ``hands`` every seat's cards left; ``places`` by seat as text."""

    winner: int | None
    rummy: bool
    hands: dict[str, list[str]]
    places: dict[str, PlaceView]


RUMMY51_EVENTS: Final[Mapping[str, Any]] = {
    "deal": DealEvent,
    "hand": HandEvent,
    "turn": TurnEvent,
    "draw": DrawEvent,
    "drew": DrewEvent,
    "return": ReturnEvent,
    "open": MeldEvent,
    "meld": MeldEvent,
    "add": AddEvent,
    "swap": SwapEvent,
    "discard": DiscardEvent,
    "timeout": TimeoutEvent,
    "closed_empty": ClosedEmptyEvent,
    "reshuffle": ReshuffleEvent,
    "game_end": GameEndEvent,
    "game_over": ResultView,
}
"""Every event kind of Rummy 51 with the type of its data."""

"""The data of every Rummy Patti event (:class:`~rummyhall.games.protocol.Event`), one type per
kind, and :data:`PATTI_EVENTS`, the engine's ``event_types``.

Events go to clients as JSON unchanged (the server's ``update`` messages, replays), so, like the
views (:mod:`rummyhall.games.patti.views`), their data are ``TypedDict``\\ s: the engine builds
each event's data as its kind's type, and the text renderer and the tally read it with
:func:`~rummyhall.games.protocol.data_of`, so mypy checks every key on both sides. The
conformance playouts (tests/conformance.py) check every event they see against
:data:`PATTI_EVENTS`, key by key, so an engine that adds or drops a key without changing its type
fails them. This module is the source of truth for the events; docs/protocol.md describes them
for clients.

A key that only some events of a kind have is ``NotRequired``. Some keys are Python keywords
(``with``, ``class``), which the class syntax cannot name, so those types use the functional
form. Seats are numbers, except where
they are the keys of a mapping, since JSON keys are text: ``sideshow_cards``, ``showdown`` and the
result's ``points``.
"""

from collections.abc import Mapping
from typing import Any, Final, NotRequired, TypedDict

from rummyhall.games.protocol_views import ResultView


class DealEvent(TypedDict):
    """``deal`` (everyone): the cards are dealt and the boot collected. ``order`` is the seats
    dealt in, in turn order; ``out`` the seats sitting the game out (not enough for the boot);
    ``pot`` the boots collected; ``open`` the open centre card. Its postings are the boots."""

    order: list[int]
    first: int
    dealer: int
    out: list[int]
    boot: int
    pot: int
    open: str


class HandEvent(TypedDict):
    """``hand`` (to one seat only): that seat's three cards, highest first."""

    cards: list[str]


class ChaalEvent(TypedDict):
    """``chaal``: ``seat`` paid ``amount``; ``double`` for a chaal 2x, ``auto`` when the engine
    played it for a seat whose time ran out (always after a ``timeout`` event)."""

    seat: int
    amount: int
    double: bool
    auto: bool


ExchangeEvent = TypedDict(
    "ExchangeEvent",
    {
        "seat": int,
        "with": str,
        "amount": int,
        "double": bool,
        # With the open card only: everyone sees both cards, since the open card is face up.
        # The closed card's swap is private, so the mover alone gets it, as ``exchanged``.
        "took": NotRequired[str],
        "released": NotRequired[str],
    },
)
"""``exchange``: ``seat`` paid ``amount`` (``double``: 2x) and swapped a card ``with`` the
``open`` or ``closed`` centre card; ``took`` and ``released`` name the cards for the open one."""


class ExchangedEvent(TypedDict):
    """``exchanged`` (to the mover only, after an exchange with the closed card): the card it
    ``took`` and the one it ``released``, which nobody else sees."""

    took: str
    released: str


class SideshowEvent(TypedDict):
    """``sideshow``: ``seat`` paid ``amount`` to ask seat ``asked`` to compare hands. The asked
    seat must answer by ``deadline``; a payment that reaches the pot limit ends the game in a
    showdown instead, and then the sideshow is never asked and has no deadline."""

    seat: int
    asked: int
    amount: int
    deadline: NotRequired[int]


class SideshowAnswerEvent(TypedDict):
    """``sideshow_accepted`` and ``sideshow_refused``: the asked ``seat`` answered the sideshow
    ``asker`` asked for. The two kinds carry the same keys, so they share this type."""

    seat: int
    asker: int


SideshowHand = TypedDict("SideshowHand", {"cards": list[str], "class": str})
"""One hand of ``sideshow_cards``: its cards, highest first, and its class (``trail``, ...)."""

SideshowCardsEvent = dict[str, SideshowHand]
"""``sideshow_cards`` (to the two players of an accepted sideshow only): each one's hand, keyed
by its seat number as text. The keys are seats, not fixed names, so this is a mapping rather
than a ``TypedDict``."""


class ShowEvent(TypedDict):
    """``show``: ``seat`` paid ``amount`` to call a show; a ``showdown`` follows."""

    seat: int
    amount: int


class ShowdownEvent(TypedDict):
    """``showdown``: every hand still in is turned over, ``how`` it came to that (``show`` or
    ``pot limit``). ``hands`` (highest card first) and ``classes`` are keyed by seat number as
    text; ``winners`` are the seats with the best hand."""

    how: str
    hands: dict[str, list[str]]
    classes: dict[str, str]
    winners: list[int]


class TimeoutEvent(TypedDict):
    """``timeout``: ``seat``'s time ran out, and ``then`` says what the engine did for it:
    ``chaal`` (a ``chaal`` event follows, ``auto``), ``pack`` (after two timeouts in a row; a
    ``pack`` event follows) or ``refuse`` (an unanswered sideshow)."""

    seat: int
    then: str


class PackEvent(TypedDict):
    """``pack``: ``seat`` is out of the game, and ``why``: ``packed`` (its own move), ``chips``
    (it cannot pay the chaal when the turn comes to it) or ``timeouts`` (two in a row)."""

    seat: int
    why: str


class TurnEvent(TypedDict):
    """``turn``: the turn comes to ``seat``, to move by ``deadline`` (ms)."""

    seat: int
    deadline: int


PATTI_EVENTS: Final[Mapping[str, Any]] = {
    "deal": DealEvent,
    "hand": HandEvent,
    "chaal": ChaalEvent,
    "exchange": ExchangeEvent,
    "exchanged": ExchangedEvent,
    "sideshow": SideshowEvent,
    "sideshow_accepted": SideshowAnswerEvent,
    "sideshow_refused": SideshowAnswerEvent,
    "sideshow_cards": SideshowCardsEvent,
    "show": ShowEvent,
    "showdown": ShowdownEvent,
    "timeout": TimeoutEvent,
    "pack": PackEvent,
    "turn": TurnEvent,
    "game_over": ResultView,
}
"""Each event kind the engine emits -> the type of its data (:attr:`Patti.event_types
<rummyhall.games.patti.engine.Patti.event_types>`). ``game_over`` carries the result
(:meth:`Result.to_json <rummyhall.games.protocol.Result.to_json>`)."""


__all__ = [
    "PATTI_EVENTS",
    "ChaalEvent",
    "DealEvent",
    "ExchangeEvent",
    "ExchangedEvent",
    "HandEvent",
    "PackEvent",
    "ShowEvent",
    "ShowdownEvent",
    "SideshowAnswerEvent",
    "SideshowCardsEvent",
    "SideshowEvent",
    "SideshowHand",
    "TimeoutEvent",
    "TurnEvent",
]

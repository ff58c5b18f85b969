"""The shape of a Rummy 51 view (:meth:`Rummy51.view <rummyhall.games.rummy51.engine.Rummy51>`)
and of its result's per-seat detail, as ``TypedDict``\\ s: the engine builds them, the bot, the
terminal table and the text renderer read them, and mypy checks the keys on both sides. (No
``from __future__ import annotations`` here: with it, Python 3.11 cannot tell which keys
``NotRequired`` marks.)"""

from typing import NotRequired, TypedDict

from rummyhall.games.protocol_views import AwaitedView, ResultView, TableGroupView


class Rummy51SeatView(TypedDict):
    """One seat: how many cards it holds and whether it has opened. ``hand``: its cards, once
    the game is over (everyone sees them then)."""

    seat: int
    cards: int
    opened: bool
    hand: NotRequired[list[str]]


class PlaceView(TypedDict):
    """How one seat finished (the result's ``detail["places"]``, keyed by seat as text): what
    the room's progression counts. ``cards_thrown``: 15 less the cards left, at least 0;
    ``rummy``: went out in the turn it first opened."""

    place: int
    score: int
    cards_left: int
    cards_thrown: int
    opened: bool
    rummy: bool


class OpeningHintView(TypedDict):
    """The most valuable opening the viewer's hand holds now (the solver's, exact): its groups and
    what they are worth together; ``opens`` when that is enough."""

    groups: list[list[str]]
    value: int
    opens: bool


class Rummy51View(TypedDict):
    """What one seat (``viewer``; None: a spectator) sees of a Rummy 51 game.

    ``phase``: ``start`` (waiting for the deal), ``play``, ``reshuffle`` (the house refills the
    stock) or ``over``. ``turn``: the seat to move; ``drawn``: whether it has drawn this turn
    (the first player's first turn needs no draw). ``first_round``: nobody may open yet.
    ``must_open``: the player to move took the discard without having opened, so must open
    before discarding. ``open``: the discard pile, top card last (a buried joker lies in it as
    ``JK`` under the card thrown with it, out of reach); ``may_take_open``: whether the viewer,
    to move, may take the top of the pile now; ``closed``: cards in the stock. ``table``: the
    groups laid open, in the order they were laid down. ``hand`` and ``drew`` (the card drawn
    this turn, None if none) are the viewer's own, and so is ``opening_hint``, there while the
    viewer, to move, has drawn and may open."""

    game: str
    viewer: int | None
    phase: str
    first: int
    seats: list[Rummy51SeatView]
    turn: int | None
    drawn: bool
    first_round: bool
    must_open: bool
    may_take_open: bool
    opening: int
    open: list[str]
    closed: int
    table: list[TableGroupView]
    awaited: list[AwaitedView]
    result: ResultView | None
    hand: NotRequired[list[str]]
    drew: NotRequired[str | None]
    opening_hint: NotRequired[OpeningHintView]

"""The shape of a rummy view (:meth:`RummyGame.view <rummyhall.games.rummy.engine.RummyGame.view>`)
and of its deal summaries, for every game on the shared engine.

Views are sent as JSON unchanged, so their types are ``TypedDict``\\ s: the engine builds them, the
bot, the terminal table and the text renderer read them, and mypy checks every key on both sides.
A key that is only sometimes there is ``NotRequired`` (the conformance playouts check every view
against these types, key by key: tests/typed_views.py).
"""

from typing import NotRequired, TypedDict

from rummyhall.games.protocol_views import AwaitedView, ResultView


class TossView(TypedDict):
    """A card of the toss for seats (the first deal of a game)."""

    seat: int
    card: str


class PoolView(TypedDict):
    """A pool game's numbers (``mode`` ``pool101`` / ``pool201``)."""

    elimination: int
    rejoin_limit: int
    entry_fee: int
    pot: int
    rejoin_open: bool


class RummySeatView(TypedDict):
    """One seat as the viewer sees it. ``score``, ``how`` and ``shown`` are None until they are
    public (the viewer's own seat, a seat that dropped or showed, the end of the deal)."""

    seat: int
    status: str
    cards: int
    missed: int
    bank: int
    score: int | None
    how: str | None
    shown: list[list[str]] | None
    finish: NotRequired[str]
    """The card a winner (or a wrong declarer) finished with."""
    total: NotRequired[int]
    """Pool games: the points so far."""


class ValueHoldingView(TypedDict):
    """Marriage: the value cards one seat still in the deal held at its end, and what they
    collect from each other such seat (``worth``)."""

    cut: int
    upper: int
    lower: int
    marriages: int
    worth: int


class SeatSettlementView(TypedDict):
    """Marriage: how one seat's net for the deal comes about. ``cards``: the winner's take from
    the others' hands, or minus what a loser's hand (or drop) cost; ``received`` and ``given``:
    value points; ``cap_relief``: what the net loss cap took off the seat's payments;
    ``cap_shortfall``: what other seats' caps took off its takings."""

    cards: int
    received: int
    given: int
    cap_relief: int
    cap_shortfall: int
    net: int


class DealSummary(TypedDict):
    """An entry of ``history``, the data of the ``deal_end`` event: how a deal ended. Keys of the
    mappings are seat numbers as text."""

    deal: int
    first: int | None
    winner: int
    scores: dict[str, int]
    how: dict[str, str | None]
    deal_show: list[int]
    shown: dict[str, list[list[str]]]
    totals: NotRequired[dict[str, int]]
    """Pool games: every seat's points after the deal."""
    eliminated: NotRequired[list[int]]
    """Pool games: the seats this deal eliminated."""
    values: NotRequired[dict[str, ValueHoldingView]]
    """Marriage: the value cards of every seat still in the deal (dropped seats are absent)."""
    settlement: NotRequired[dict[str, SeatSettlementView]]
    """Marriage: every seat's net, value cards and caps included (the game's result)."""


class RummyView(TypedDict):
    """What one seat (``viewer``; None: a spectator, 0: the house) sees of a rummy game. The
    keys only some games of the family have (pools, Marriage's value cards) are ``NotRequired``:
    one shape for the family keeps one engine and one text renderer for all of it."""

    game: str
    profile: str
    mode: str
    viewer: int | None
    phase: str
    deal: int
    order: list[int]
    first: int | None
    dealer: int | None
    toss: list[TossView]
    cut: str | None
    wild_rank: str | None
    open: list[str]
    closed: int
    turn: int | None
    drawn: bool
    may_take_open: bool
    declarer: int | None
    winner: int | None
    awaited: list[AwaitedView]
    seats: list[RummySeatView]
    history: list[DealSummary]
    result: ResultView | None
    pool: NotRequired[PoolView]
    """Pool games only."""
    value_cards: NotRequired[list[str]]
    """Marriage: the deal's value cards, cut joker, upper joker, lower joker (empty before the
    first deal)."""
    hand: NotRequired[list[str]]
    """A player's own view only (from here on): its cards, sorted."""
    arrangement: NotRequired[list[list[str]] | None]
    """The groups the player laid out, if any."""
    drop_cost: NotRequired[int]
    """What dropping would cost now."""
    finish: NotRequired[str]
    """The card the player finished with, once it has."""


__all__ = [
    "DealSummary",
    "PoolView",
    "RummySeatView",
    "RummyView",
    "SeatSettlementView",
    "TossView",
    "ValueHoldingView",
]

"""The shape of a rummy view (:meth:`RummyGame.view <rummyhall.games.rummy.engine.RummyGame.view>`)
and of its deal summaries, for every game on the shared engine.

Views are sent as JSON unchanged, so their types are ``TypedDict``\\ s: the engine builds them, the
bot, the terminal table and the text renderer read them, and mypy checks every key on both sides.
A key that is only sometimes there is ``NotRequired`` (the conformance playouts check every view
against these types, key by key: tests/typed_views.py).
"""

from typing import NotRequired, TypedDict

from rummyhall.games.protocol import AwaitedView, ResultView


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


class RummyView(TypedDict):
    """What one seat (``viewer``; None: a spectator, 0: the house) sees of a rummy game. A game
    may add keys of its own (Marriage: its value cards) in a subclass."""

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
    hand: NotRequired[list[str]]
    """A player's own view only (from here on): its cards, sorted."""
    arrangement: NotRequired[list[list[str]] | None]
    """The groups the player laid out, if any."""
    drop_cost: NotRequired[int]
    """What dropping would cost now."""
    finish: NotRequired[str]
    """The card the player finished with, once it has."""


__all__ = ["DealSummary", "PoolView", "RummySeatView", "RummyView", "TossView"]

"""The numbers and the config of 21-card Marriage Rummy as typed, frozen data (DESIGN.md,
principle 6). The shared rummy engine reads them through :class:`Marriage21Config`; the value
cards' scores and the net loss cap are in :mod:`rummyhall.games.marriage21.settle`.
Sources: docs/rules/marriage-21.md and the Marriage section of shared/rules/DECISIONS.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from rummyhall.games.marriage21.settle import DEFAULT_SCORES, NET_CAP, ValueScores
from rummyhall.games.protocol import JSON
from rummyhall.games.rummy.rules import (
    CommonRules,
    DropScores,
    PoolRules,
    ProfileRules,
    ShoeSize,
    Timers,
    check_table,
    config_from_json,
    config_to_json,
)

COMMON: Final = CommonRules(
    hand_size=21,
    cap=120,
    wrong_declaration=120,
    deal_show_divisor=2,
    deal_show_min=2,
    deal_show_max=60,
    met_objective=2,
    missed_turn_limit=3,
    toss_ace_high=True,
)

STANDARD: Final = ProfileRules(
    name="standard",
    melds="marriage21",
    min_seats=2,
    max_seats=6,
    shoes=(ShoeSize(max_seats=6, decks=3, jokers_per_deck=1),),
    drops=DropScores(first=30, middle=70),
    # Nothing in the rules keeps a wild card on the open pile from being taken.
    first_open_wild_first_mover_only=False,
    discarded_wild_blocked_for_next=False,
    # The toss picks who moves first; play then goes round the table in seat order.
    toss_orders_all=False,
)

TIMERS: Final = Timers(turn_ms=30_000, extra_ms=45_000, declare_ms=45_000)
"""21 cards take longer to lay out than 13: more extra time and a longer show."""


@dataclass(frozen=True, slots=True)
class Marriage21Config:
    """A 21-card Marriage table: one deal for points. ``order`` (turn order, first mover first)
    skips the toss."""

    seats: int = 4
    point_value: int = 1
    """Chips per point."""
    turn_ms: int = TIMERS.turn_ms
    extra_ms: int = TIMERS.extra_ms
    declare_ms: int = TIMERS.declare_ms
    order: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        rules = STANDARD
        if not rules.min_seats <= self.seats <= rules.max_seats:
            raise ValueError(f"Marriage tables seat {rules.min_seats} to {rules.max_seats} players")
        check_table(self)

    # What the rummy engine reads (RummyConfig) that Marriage does not vary.
    @property
    def profile(self) -> str:
        return STANDARD.name

    @property
    def mode(self) -> str:
        return "points"

    @property
    def entry_fee(self) -> int:
        return 0

    @property
    def rake_percent(self) -> int:
        return 0

    @property
    def rules(self) -> ProfileRules:
        return STANDARD

    @property
    def common(self) -> CommonRules:
        return COMMON

    @property
    def pool(self) -> PoolRules | None:
        return None

    @property
    def drops(self) -> DropScores:
        return STANDARD.drops

    @property
    def values(self) -> ValueScores:
        """What value cards and marriages collect."""
        return DEFAULT_SCORES

    @property
    def net_cap(self) -> int:
        """The most points a seat can lose in one deal, everything included."""
        return NET_CAP

    def to_json(self) -> JSON:
        return config_to_json(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Marriage21Config:
        return config_from_json(cls, data)

"""The numbers and the config of 13-card Indian Rummy as typed, frozen data (DESIGN.md,
principle 6).

Two rule profiles (``classic``, ``vengala``: :data:`PROFILE_RULES`, not to be confused with the
meld profiles of :mod:`rummyhall.melds.profiles` they name) and three modes (``points``,
``pool101``, ``pool201``); :class:`Indian13Config` is one table. The rummy engine
(:mod:`rummyhall.games.rummy.engine`) reads these objects and holds no rule literal of its own.
Sources: docs/rules/indian-rummy-13.md and the 13-card section of shared/rules/DECISIONS.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

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
    hand_size=13,
    cap=80,
    wrong_declaration=80,
    deal_show_divisor=2,
    deal_show_min=2,
    deal_show_max=40,
    met_objective=2,
    missed_turn_limit=3,
    toss_ace_high=True,
)

TIMERS: Final = Timers(turn_ms=30_000, extra_ms=30_000, declare_ms=30_000)

CLASSIC: Final = ProfileRules(
    name="classic",
    melds="indian13/classic",
    min_seats=2,
    max_seats=6,
    shoes=(ShoeSize(max_seats=6, decks=2, jokers_per_deck=1),),
    drops=DropScores(first=20, middle=40),
    first_open_wild_first_mover_only=True,
    discarded_wild_blocked_for_next=True,
    toss_orders_all=True,
)

VENGALA: Final = ProfileRules(
    name="vengala",
    melds="indian13/vengala",
    min_seats=2,
    max_seats=5,
    shoes=(
        ShoeSize(max_seats=4, decks=2, jokers_per_deck=2),
        ShoeSize(max_seats=5, decks=3, jokers_per_deck=2),
    ),
    drops=DropScores(first=10, middle=30),
    first_open_wild_first_mover_only=False,
    discarded_wild_blocked_for_next=False,
    toss_orders_all=False,
)

POOL101: Final = PoolRules(
    name="pool101", elimination=101, rejoin_limit=79, drops=DropScores(first=20, middle=40)
)
POOL201: Final = PoolRules(
    name="pool201", elimination=201, rejoin_limit=174, drops=DropScores(first=25, middle=50)
)

PROFILE_RULES: Final[dict[str, ProfileRules]] = {CLASSIC.name: CLASSIC, VENGALA.name: VENGALA}
POOLS: Final[dict[str, PoolRules]] = {POOL101.name: POOL101, POOL201.name: POOL201}
MODES: Final[tuple[str, ...]] = ("points", *POOLS)


@dataclass(frozen=True, slots=True)
class Indian13Config:
    """A 13-card table. ``order`` (turn order, first mover first) skips the toss."""

    profile: str = "classic"
    seats: int = 2
    mode: str = "points"
    point_value: int = 1
    """Chips per point at a points table."""
    entry_fee: int = 0
    """Chips each player pays into a pool (and again to rejoin)."""
    rake_percent: int = 0
    """Share of a pool the house keeps, in percent (rounded down to whole chips)."""
    turn_ms: int = TIMERS.turn_ms
    extra_ms: int = TIMERS.extra_ms
    declare_ms: int = TIMERS.declare_ms
    order: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.profile not in PROFILE_RULES:
            raise ValueError(
                f"profile must be one of {', '.join(PROFILE_RULES)}, not {self.profile!r}"
            )
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        rules = PROFILE_RULES[self.profile]
        if not rules.min_seats <= self.seats <= rules.max_seats:
            raise ValueError(
                f"{self.profile} tables seat {rules.min_seats} to {rules.max_seats} players"
            )
        if self.entry_fee < 0:
            raise ValueError("the entry fee cannot be negative")
        if not 0 <= self.rake_percent <= 100:
            raise ValueError("the rake is a percentage from 0 to 100")
        check_table(self)

    @property
    def rules(self) -> ProfileRules:
        return PROFILE_RULES[self.profile]

    @property
    def common(self) -> CommonRules:
        return COMMON

    @property
    def pool(self) -> PoolRules | None:
        return POOLS.get(self.mode)

    @property
    def drops(self) -> DropScores:
        pool = self.pool
        return self.rules.drops if pool is None else pool.drops

    def to_json(self) -> JSON:
        return config_to_json(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Indian13Config:
        return config_from_json(cls, data)

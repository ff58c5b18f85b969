"""The rule types of the draw-and-discard rummy games: what the shared engine
(:mod:`rummyhall.games.rummy.engine`) reads. Each game fills them with its own numbers (its
``rules.py``) and gives the engine a config that answers :class:`RummyConfig`; the engine holds no
rule literal of its own (DESIGN.md, principle 6).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Protocol, TypeVar, cast

from rummyhall.games.protocol import JSON


@dataclass(frozen=True, slots=True)
class DropScores:
    """What a drop scores: before the player's first draw of the deal, and after it."""

    first: int
    middle: int


@dataclass(frozen=True, slots=True)
class ShoeSize:
    """The shoe used at tables of up to ``max_seats`` players."""

    max_seats: int
    decks: int
    jokers_per_deck: int


@dataclass(frozen=True, slots=True)
class ProfileRules:
    """A rule profile of one game (13-card ``classic`` and ``vengala``, Marriage's one): how it
    plays, beyond what every profile of the game shares (:class:`CommonRules`)."""

    name: str
    melds: str
    """The meld profile :func:`rummyhall.melds.check` judges declarations and shows with."""
    min_seats: int
    max_seats: int
    shoes: tuple[ShoeSize, ...]
    """Shoe sizes by table size, smallest first; the first that fits the table is used."""
    drops: DropScores
    """Drop scores at points tables (pools have their own)."""
    first_open_wild_first_mover_only: bool
    """A wild card turned up as the deal's first open card may only be taken on the deal's very
    first turn (by the first mover); otherwise anyone may take it."""
    discarded_wild_blocked_for_next: bool
    """A wild card a player throws on the open pile may not be taken by the player who follows."""
    toss_orders_all: bool
    """The toss orders every seat (classic: highest first, the lowest deals and plays last);
    otherwise it only picks the first mover and play goes round in seat order (vengala)."""

    def shoe(self, seats: int) -> tuple[int, int]:
        """(decks, printed jokers per deck) for a table of ``seats`` players."""
        for size in self.shoes:
            if seats <= size.max_seats:
                return (size.decks, size.jokers_per_deck)
        raise ValueError(f"{self.name} tables seat at most {self.max_seats} players")


@dataclass(frozen=True, slots=True)
class PoolRules:
    """A pool: a match of deals that knocks players out until one is left."""

    name: str
    elimination: int
    """A total at or above this knocks the player out."""
    rejoin_limit: int
    """An eliminated player may buy back in only while no remaining total exceeds this."""
    drops: DropScores


@dataclass(frozen=True, slots=True)
class CommonRules:
    """The numbers every profile and mode of one game shares."""

    hand_size: int
    cap: int
    """Most card points a loser scores in one deal."""
    wrong_declaration: int
    deal_show_divisor: int
    deal_show_min: int
    deal_show_max: int
    met_objective: int
    """A loser whose shown groups are a complete, valid declaration scores this."""
    missed_turn_limit: int
    """Missed turns in a row that remove a player (scored as the middle drop)."""
    toss_ace_high: bool
    """In the toss the ace ranks above the king (suits never count)."""


@dataclass(frozen=True, slots=True)
class Timers:
    """Default timers, in milliseconds."""

    turn_ms: int
    extra_ms: int
    """The extra-time bank each player gets per deal."""
    declare_ms: int


class RummyConfig(Protocol):
    """One table of a rummy game, as the engine reads it: the game's config class answers these
    (:class:`rummyhall.games.indian13.rules.Indian13Config`, Marriage's)."""

    @property
    def profile(self) -> str:
        """The rule profile's name (in views and records)."""

    @property
    def mode(self) -> str:
        """``points`` (one deal for points), or a pool's name."""

    @property
    def seats(self) -> int: ...

    @property
    def point_value(self) -> int:
        """Chips per point at a points table."""

    @property
    def entry_fee(self) -> int:
        """Chips each player pays into a pool (and again to rejoin)."""

    @property
    def rake_percent(self) -> int: ...

    @property
    def turn_ms(self) -> int: ...

    @property
    def extra_ms(self) -> int: ...

    @property
    def declare_ms(self) -> int: ...

    @property
    def order(self) -> tuple[int, ...] | None:
        """Turn order, first mover first; None: the toss decides."""

    @property
    def rules(self) -> ProfileRules: ...

    @property
    def common(self) -> CommonRules: ...

    @property
    def pool(self) -> PoolRules | None: ...

    @property
    def drops(self) -> DropScores:
        """What a drop scores at this table (a pool has its own)."""

    def to_json(self) -> JSON: ...


C = TypeVar("C")


def config_to_json(config: Any) -> JSON:
    """A rummy config dataclass as stored in records: its fields, ``order`` as a list."""
    data: JSON = {f.name: getattr(config, f.name) for f in fields(config)}
    data["order"] = None if data.get("order") is None else list(data["order"])
    return data


def config_from_json(cls: type[C], data: Mapping[str, Any]) -> C:
    """A rummy config dataclass from :func:`config_to_json`'s JSON; a key the class does not
    have is refused (ValueError), so a typo in a room's config is caught when the room loads."""
    known = {f.name for f in fields(cast(Any, cls))}
    unknown = set(data) - known
    if unknown:
        raise ValueError(f"unknown config keys: {', '.join(sorted(unknown))}")
    values = dict(data)
    if values.get("order") is not None:
        values["order"] = tuple(int(seat) for seat in values["order"])
    return cls(**values)


def check_table(config: Any) -> None:
    """The checks every rummy config dataclass makes of what all tables have (point value, timers,
    turn order); it stores ``order`` as a tuple. Raises ValueError with a message for people."""
    if config.point_value < 1:
        raise ValueError("the point value must be at least 1 chip")
    if config.turn_ms <= 0 or config.declare_ms <= 0 or config.extra_ms < 0:
        raise ValueError("turn and declare times must be positive, extra time not negative")
    if config.order is not None:
        order = tuple(config.order)
        object.__setattr__(config, "order", order)
        if sorted(order) != list(range(1, config.seats + 1)):
            raise ValueError(f"order must name every seat 1..{config.seats} once")

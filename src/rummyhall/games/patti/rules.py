"""The numbers and the config of Rummy Patti as typed, frozen data (DESIGN.md, principle 6).

:class:`PattiConfig` is one game at a table; the engine (:mod:`rummyhall.games.patti.engine`)
reads it and holds no rule literal of its own. Sources: docs/rules/rummy-patti.md and the Patti
section of shared/rules/DECISIONS.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, Final

from rummyhall.games.protocol import JSON, next_first

MIN_SEATS: Final = 2
MAX_SEATS: Final = 6
MAX_CHAAL_BOOTS: Final = 128
"""The default max chaal, in boots."""
POT_LIMIT_BOOTS: Final = 1024
"""The default pot limit, in boots."""
TURN_MS: Final = 15_000
"""The default turn time (the published game gives 10 to 15 seconds)."""
TIMEOUT_LIMIT: Final = 2
"""Timeouts in a row that pack a player (the first ones play a chaal)."""
HAND_SIZE: Final = 3


@dataclass(frozen=True, slots=True)
class PattiConfig:
    """One game at a Rummy Patti table. Zero (or empty) means the default for ``max_chaal``,
    ``pot_limit`` and ``stacks``; the config keeps the resolved numbers, so records hold them."""

    seats: int = 2
    boot: int = 10
    max_chaal: int = 0
    """The most a single payment can be (default 128 x boot)."""
    pot_limit: int = 0
    """A pot holding this much or more ends the game in a showdown (default 1024 x boot)."""
    stacks: tuple[int, ...] = ()
    """The chips each seat brings to this game, seat 1 first (default: the pot limit each, so
    that nobody runs short)."""
    first: int = 1
    """The seat that acts first (the next one dealt in, if it sits out); moves on each game."""
    turn_ms: int = TURN_MS

    def __post_init__(self) -> None:
        if not MIN_SEATS <= self.seats <= MAX_SEATS:
            raise ValueError(f"Rummy Patti seats {MIN_SEATS} to {MAX_SEATS} players")
        if self.boot < 1:
            raise ValueError("the boot must be at least 1 chip")
        if self.max_chaal == 0:
            object.__setattr__(self, "max_chaal", MAX_CHAAL_BOOTS * self.boot)
        if self.pot_limit == 0:
            object.__setattr__(self, "pot_limit", POT_LIMIT_BOOTS * self.boot)
        if self.max_chaal < self.boot:
            raise ValueError("the max chaal cannot be below the boot")
        if self.pot_limit <= self.seats * self.boot:
            raise ValueError("the pot limit must be above the boots of a full table")
        stacks = tuple(self.stacks) or (self.pot_limit,) * self.seats
        object.__setattr__(self, "stacks", stacks)
        if len(stacks) != self.seats:
            raise ValueError(f"give one stack per seat ({self.seats}), not {len(stacks)}")
        if any(stack < 0 for stack in stacks):
            raise ValueError("a stack cannot be negative")
        if len(self.players) < MIN_SEATS:
            raise ValueError(f"at least {MIN_SEATS} seats must be able to pay the boot")
        if not 1 <= self.first <= self.seats:
            raise ValueError(f"first must be a seat from 1 to {self.seats}")
        if self.turn_ms <= 0:
            raise ValueError("the turn time must be positive")

    @property
    def players(self) -> list[int]:
        """The seats dealt in (those that can pay the boot), in turn order from the first."""
        seats = [*range(self.first, self.seats + 1), *range(1, self.first)]
        return [seat for seat in seats if self.stacks[seat - 1] >= self.boot]

    def following(self, stacks: Sequence[int]) -> PattiConfig:
        """The config of the next game at the table: these stacks, the first move one seat on.
        Raises ValueError when fewer than two seats can pay the boot."""
        return replace(self, stacks=tuple(stacks), first=next_first(self.first, self.seats))

    def to_json(self) -> JSON:
        data: JSON = {f.name: getattr(self, f.name) for f in fields(self)}
        data["stacks"] = list(self.stacks)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PattiConfig:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown config keys: {', '.join(sorted(unknown))}")
        values = dict(data)
        if "stacks" in values:
            values["stacks"] = tuple(int(stack) for stack in values["stacks"])
        return cls(**values)

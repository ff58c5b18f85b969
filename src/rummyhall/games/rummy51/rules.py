"""The numbers and the config of Rummy 51 as typed, frozen data (DESIGN.md, principle 6).

:class:`Rummy51Config` is one game at a table; the engine (:mod:`rummyhall.games.rummy51.engine`)
reads it and holds no rule literal of its own. Sources: docs/rules/rummy-51.md and the Rummy 51
section of shared/rules/DECISIONS.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Final

from rummyhall.cards import ACE, Card
from rummyhall.games.protocol import JSON

MIN_SEATS: Final = 2
MAX_SEATS: Final = 6
DEFAULT_SEATS: Final = 4
DECKS: Final = 2
JOKERS_PER_DECK: Final = 2
"""Two packs of 52 and four printed jokers: 108 cards."""
HAND_SIZE: Final = 14
"""Cards dealt to each player; the first player gets one more and starts by discarding."""
OPENING: Final = 51
"""What the groups of an opening must be worth together."""
WIN_SCORE: Final = -40
"""The score of the player who goes out."""
NEVER_OPENED: Final = 100
"""The score of a player who never opened, whatever the hand holds."""
CARDS_THROWN_FROM: Final = 15
"""Cards thrown = this less the cards left in hand at the end, at least 0 (the room's clover
points count them)."""
JOKER_IN_HAND: Final = 20
"""What a joker still held at the end costs (in a group it is worth the card it stands for)."""
TURN_MS: Final = 30_000
"""The default turn time (the rules page sets none; docs/rules/rummy-51.md says ours)."""


@dataclass(frozen=True, slots=True)
class Rummy51Config:
    """One game at a Rummy 51 table."""

    seats: int = DEFAULT_SEATS
    stake: int = 0
    """Chips every player puts in; the player who goes out takes them all (0: a game for
    nothing but places)..."""
    reward: int = 0
    """... or, when this is set (a room tier's reward for victory), gets their stake back and
    this on top, and the rest of the losers' stakes goes to the house."""
    first: int = 1
    """The seat that moves first (and gets 15 cards); moves one seat on each game."""
    turn_ms: int = TURN_MS

    def __post_init__(self) -> None:
        if not MIN_SEATS <= self.seats <= MAX_SEATS:
            raise ValueError(f"Rummy 51 seats {MIN_SEATS} to {MAX_SEATS} players")
        if self.stake < 0:
            raise ValueError("the stake cannot be negative")
        if not 0 <= self.reward <= self.stake * (self.seats - 1):
            raise ValueError("the reward must be paid from the losers' stakes")
        if not 1 <= self.first <= self.seats:
            raise ValueError(f"first must be a seat from 1 to {self.seats}")
        if self.turn_ms <= 0:
            raise ValueError("the turn time must be positive")

    def to_json(self) -> JSON:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Rummy51Config:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown config keys: {', '.join(sorted(unknown))}")
        return cls(**{key: int(value) for key, value in data.items()})


def hand_points(card: Card) -> int:
    """What a card left in hand at the end costs: 2-9 their number, 10/J/Q/K/A 10, a joker 20."""
    if card.is_joker:
        return JOKER_IN_HAND
    return 10 if card.rank == ACE or card.rank >= 10 else card.rank

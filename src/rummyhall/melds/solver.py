"""The optimal-arrangement solver. (Placeholder: the real algorithm lands in this module.)"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rummyhall.cards import Card
from rummyhall.melds.kinds import Kind
from rummyhall.melds.profiles import Profile


@dataclass(frozen=True, slots=True)
class Arrangement:
    """The best arrangement of a hand (see docs/melds.md)."""

    groups: list[list[Card]]
    leftover: list[Card]
    penalty: int
    declarable: bool
    kinds: list[Kind]
    discard: Card | None = None
    two_point_groups: list[list[Card]] | None = None


def arrange(hand: Sequence[Card], *, joker: Card, profile: Profile | str) -> Arrangement:
    raise NotImplementedError

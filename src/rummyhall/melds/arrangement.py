"""The result of ``arrange``: a plain frozen dataclass, never compiled, so that it is the same
class whether the solver runs compiled or pure (rummyhall.native)."""

from __future__ import annotations

from dataclasses import dataclass

from rummyhall.cards import Card
from rummyhall.melds.kinds import Kind


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

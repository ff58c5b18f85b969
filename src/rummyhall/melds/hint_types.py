"""The result of ``hint`` (hints.py): plain frozen dataclasses and an enum, never compiled, so
that they are the same classes whether hints.py runs compiled or pure (rummyhall.native),
as arrangement.py is for the solver's ``Arrangement``."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rummyhall.cards import Card
from rummyhall.melds.kinds import Kind


class Role(StrEnum):
    """What a group of a hint is for."""

    MELD = "meld"
    """A valid sequence, set or tunnela (its ``kind`` says which)."""
    NEAR_RUN = "near_run"
    """Cards of one suit one card short of a sequence (``needs`` lists the cards that finish it)."""
    NEAR_SET = "near_set"
    """Two cards of one rank in different suits: a pair, one card short of a set. In a Marriage
    declaration of dublees, also a dublee: two identical cards, one copy short of a tunnela."""
    JOKERS = "jokers"
    """Wild cards no group of the plan needs (vengala may show them apart at a declaration)."""
    LOOSE = "loose"
    """Cards that fit no group of the plan: the first to throw."""
    DISCARD = "discard"
    """The card to throw now (a hand with one card more than it keeps)."""


@dataclass(frozen=True, slots=True)
class HintGroup:
    """One group of a hint: its cards in the order to show them, what it is for (``role``),
    its kind as :func:`~rummyhall.melds.kinds.classify` judges it, the cards any one of which
    would finish it (near melds only) and a short label in plain words."""

    cards: list[Card]
    role: Role
    kind: Kind
    needs: list[Card]
    label: str


@dataclass(frozen=True, slots=True)
class ShapeDistance:
    """How far a hand is from one winning shape of a profile with dublees (Marriage).

    ``name`` is stable, for programs: ``sequences`` (the profile's pure sequences with every
    other card melded), ``tunnelas``, ``dublees``, ``jokers`` (wild cards in one group).
    ``cards`` is how many cards the hand still needs to show the shape, each drawn card replacing
    one the shape does not use (0: it shows the shape now). ``label`` names the shape in plain
    words ("3 tunnelas")."""

    name: str
    cards: int
    label: str


@dataclass(frozen=True, slots=True)
class Hint:
    """The best partial arrangement of a hand.

    ``groups`` hold every card of the hand exactly once, the discard (if any) alone in the last
    group. ``distance`` is how many cards the hand is from a declaration: the draws it still
    needs, each replacing a card that fits nowhere, if the right cards come (0: it can declare
    now). ``discard`` and ``reason`` name the card to throw and why (hands of ``hand_size + 1``
    cards only). ``penalty`` and ``declarable`` are the solver's; ``summary`` is one line for
    people. ``shapes``: for a profile with dublees (Marriage), how far the hand is from each
    winning shape, in a fixed order (see :func:`~rummyhall.melds.hints.shape_distances`); empty
    for other profiles."""

    groups: list[HintGroup]
    distance: int
    declarable: bool
    penalty: int
    discard: Card | None
    reason: str | None
    summary: str
    shapes: list[ShapeDistance]

"""Rummy 51's groups on the table: sets and runs, what they are worth, what may be added to them and
which jokers may be swapped out of them (docs/rules/rummy-51.md, "Groups" and "After opening").

A group holds the physical cards laid (each with its ``copy``), so the engine can say where every
card of the shoe is. A joker's meaning is fixed when it is laid and kept in ``stands``:

- in a run, the natural card it takes the place of (``5S JK 7S``: the joker is the ``6S``);
- in a set, the lowest missing suit of the set's rank (suit order S H D C). The rules let a set's
  joker be *any* missing suit, so :meth:`Group.swap` accepts every missing suit; ``stands`` only
  names one so that the value and the display have a card to show.

Positions in a run are numbered 1..14: the ace is 1 before the ``2`` or 14 after the ``K``, never
both in one run (no wrap, so ``K A 2`` is not a run).

Only :func:`make_group` and the methods below build groups; they keep ``cards`` in display order
(runs low to high, sets by suit then jokers) so that equal groups compare equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from rummyhall.cards import ACE, KING, Card, Suit

Kind = Literal["set", "run"]
End = Literal["low", "high"]

LONGEST_RUN: Final = 13
"""A run holds each rank once: 13 cards at most, the ace at one end only."""
LARGEST_SET: Final = 4
"""One card of each suit."""
SMALLEST_GROUP: Final = 3
HIGH_ACE: Final = 14
"""The run position of an ace laid after the king."""


def meld_value(card: Card) -> int:
    """What a natural card adds to a group: 2-9 their number; 10, J, Q, K and A (low or high) 10.

    A joker has no value of its own (it is worth the card it stands for, see ``Group.stands``),
    so asking for one is a mistake and raises ``ValueError``."""
    if card.is_joker:
        raise ValueError("a joker is worth the card it stands for; ask for that card's value")
    return 10 if card.rank == ACE or card.rank >= 10 else card.rank


def _rank_at(position: int) -> int:
    """The rank at run position 1..14 (both ends are the ace)."""
    return ACE if position == HIGH_ACE else position


def _at(position: int, suit: Suit) -> Card:
    """The natural card (copy 0) at run position 1..14 of ``suit``."""
    return Card(_rank_at(position), suit)


def _position(card: Card, low: int) -> int:
    """Run position of a natural card in a run starting at ``low``: an ace is 1 when the run starts
    with it, otherwise 14 (it cannot sit anywhere else)."""
    if card.rank == ACE:
        return 1 if low == 1 else HIGH_ACE
    return card.rank


@dataclass(frozen=True, slots=True)
class Group:
    """A set or a run as laid on the table.

    ``cards``: a run from low to high with each joker at the place it stands for; a set's natural
    cards in suit order S H D C, then its jokers. ``stands``: per position, the natural card (copy
    0) a joker stands for, ``None`` for a natural card."""

    kind: Kind
    cards: tuple[Card, ...]
    stands: tuple[Card | None, ...]

    def __post_init__(self) -> None:
        # A cheap consistency check (the full rules are make_group's): a joker without a meaning,
        # or a natural card with one, would make the value and a later swap wrong.
        if len(self.stands) != len(self.cards) or any(
            card.is_joker != (stand is not None)
            for card, stand in zip(self.cards, self.stands, strict=False)
        ):
            raise ValueError("every joker of a group, and only a joker, stands for a card")

    def __str__(self) -> str:
        return " ".join(str(card) for card in self.cards)

    @property
    def value(self) -> int:
        """The group's total, each joker counted as the card it stands for."""
        return sum(
            meld_value(stand or card) for card, stand in zip(self.cards, self.stands, strict=True)
        )

    @property
    def jokers(self) -> int:
        return sum(stand is not None for stand in self.stands)

    @property
    def closed(self) -> bool:
        """A set of four: every suit is there, nothing more may be added."""
        return self.kind == "set" and len(self.cards) == LARGEST_SET

    @property
    def suit(self) -> Suit | None:
        """A run's suit; ``None`` for a set."""
        if self.kind == "set":
            return None
        return self._meaning(0).suit

    @property
    def low(self) -> int:
        """A run's first position (1 for an ace before the ``2``); a set's rank."""
        first = self._meaning(0)
        return first.rank

    @property
    def high(self) -> int:
        """A run's last position (14 for an ace after the ``K``); a set's rank."""
        if self.kind == "set":
            return self.low
        return self.low + len(self.cards) - 1

    def _meaning(self, index: int) -> Card:
        """The natural card at ``index``: the card itself, or what the joker there stands for."""
        return self.stands[index] or self.cards[index]

    def _naturals(self) -> list[Card]:
        return [card for card in self.cards if not card.is_joker]

    def _jokers(self) -> list[Card]:
        return [card for card in self.cards if card.is_joker]

    def add(self, card: Card, end: End | None = None) -> Group | None:
        """The group with ``card`` laid off on it, or ``None`` if the rules refuse.

        Run: a natural card of the suit that continues it at either end; ``end`` None means
        wherever it fits, and an ace that fits both ends (on a ``2..K`` run) goes low, before the
        ``2`` (the table shows the same value either way). A joker goes at ``end``: by default
        high, or low when the high end is already the ace. No wrap, no second ace, so never more
        than 13 cards. Set: a natural card of the rank in a suit the set has no natural card of;
        never a joker, nothing on a set of four. ``end`` plays no part for a set."""
        if self.kind == "set":
            naturals = self._naturals()
            if (
                card.is_joker
                or self.closed
                or card.rank != naturals[0].rank
                or any(other.suit == card.suit for other in naturals)
            ):
                return None
            return set_of([*naturals, card], self._jokers())
        low, high = self.low, self.high
        if card.is_joker:
            if end is None:
                end = "low" if high == HIGH_ACE else "high"
            # The new place must be on the board (1..14) and not a second ace.
            if end == "low":
                if low == 1 or (low == 2 and high == HIGH_ACE):
                    return None
                return run_of((card, *self.cards), low - 1)
            if high == HIGH_ACE or (low == 1 and high == KING):
                return None
            return run_of((*self.cards, card), low)
        if card.suit != self.suit:
            return None
        fits_low = low > 1 and card.rank == low - 1 and not (low == 2 and high == HIGH_ACE)
        fits_high = (
            high < HIGH_ACE and _position(card, 2) == high + 1 and not (low == 1 and high == KING)
        )
        if end == "high" or (end is None and not fits_low):
            return run_of((*self.cards, card), low) if fits_high else None
        return run_of((card, *self.cards), low - 1) if fits_low else None

    def swap(self, card: Card) -> tuple[Group, Card] | None:
        """Put natural ``card`` where a joker stands and take that joker (the physical card of the
        group): the new group and the joker, or ``None`` if no joker here stands for ``card``.

        In a run, ``card`` must be the card the joker stands for (rank and suit). In a set it must
        be of the set's rank and of a suit the set has no natural card of, whichever of the missing
        suits ``stands`` happens to name."""
        if card.is_joker:
            return None
        if self.kind == "run":
            for index, stand in enumerate(self.stands):
                if stand is not None and stand == card:
                    cards = (*self.cards[:index], card, *self.cards[index + 1 :])
                    return run_of(cards, self.low), self.cards[index]
            return None
        naturals, jokers = self._naturals(), self._jokers()
        if (
            not jokers
            or card.rank != naturals[0].rank
            or any(other.suit == card.suit for other in naturals)
        ):
            return None
        # With several jokers (only if a caller allowed them in a set) take the one named for
        # this suit, else the last: which one leaves makes no difference to the set.
        stands = [stand for stand in self.stands if stand is not None]
        index = next((i for i, stand in enumerate(stands) if stand == card), len(jokers) - 1)
        taken = jokers.pop(index)
        return set_of([*naturals, card], jokers), taken


def set_of(naturals: Sequence[Card], jokers: Sequence[Card]) -> Group:
    """The set of ``naturals`` (one rank, distinct suits) and ``jokers``, laid out in display order
    with each joker standing for a missing suit. It trusts the caller (a solver that built the set
    by the rules); :func:`make_group` is the one that checks."""
    ordered = sorted(naturals, key=lambda card: int(card.suit or 0))
    stands: tuple[Card | None, ...] = (None,) * len(ordered)
    if jokers:
        held = {card.suit for card in ordered}
        missing = [suit for suit in Suit if suit not in held]
        stands += tuple(Card(ordered[0].rank, suit) for suit in missing[: len(jokers)])
    return Group("set", (*ordered, *jokers), stands)


def run_of(cards: Sequence[Card], low: int) -> Group:
    """The run of ``cards``, given low to high from run position ``low`` (1..14), each joker
    standing for the card of its place. It trusts the caller, as :func:`set_of` does."""
    suit = next(card.suit for card in cards if card.suit is not None)
    stands = tuple(
        _at(low + index, suit) if card.is_joker else None for index, card in enumerate(cards)
    )
    return Group("run", tuple(cards), stands)


def _run_start(cards: Sequence[Card]) -> int | None:
    """The first position of the run ``cards`` make read low to high as given, or ``None``.

    The first natural card fixes where the run starts; an ace there may be read low or high, and
    at most one of the two readings fits within positions 1..14."""
    first = next(index for index, card in enumerate(cards) if not card.is_joker)
    rank = cards[first].rank
    starts = (rank - first, HIGH_ACE - first) if rank == ACE else (rank - first,)
    for low in starts:
        if low < 1 or low + len(cards) - 1 > HIGH_ACE:
            continue
        if all(
            card.is_joker or card.rank == _rank_at(low + index) for index, card in enumerate(cards)
        ):
            return low
    return None


def make_group(
    cards: Sequence[Card], *, max_set_jokers: int = 1, max_run_jokers: int | None = None
) -> Group | None:
    """The group ``cards`` form when laid down together, or ``None`` if they form none.

    Every group has at least 3 cards and at least one natural card. A set: one rank, no suit
    twice, 3 or 4 cards counting jokers, at most ``max_set_jokers`` jokers. A run: one suit,
    consecutive positions (ace at 1 or 14, never in the middle, never both), at most
    ``max_run_jokers`` jokers (``None``: any number). An opening group takes at most one joker of
    either kind: ``make_group(cards, max_set_jokers=1, max_run_jokers=1)``.

    Order: a run without jokers may be given in any order (it is sorted; all thirteen cards of a
    suit read with the ace low, as an ace laid off on ``2..K`` goes low). With jokers the cards
    are read as given, low to high, each joker standing for the place it takes (``9H 10H JK``
    makes the joker the ``JH``, ``JK 9H 10H`` the ``8H``); if that is no run, they are read high to
    low (``7S JK 5S`` is ``5S 6S 7S``). A set may be given in any order.

    Cards that could be read either way (one natural card and jokers, only possible when a caller
    allows two jokers in a set) make a set."""
    if len(cards) < SMALLEST_GROUP:
        return None
    naturals = [card for card in cards if not card.is_joker]
    jokers = [card for card in cards if card.is_joker]
    if not naturals:
        return None
    suits = {card.suit for card in naturals}
    if (
        len({card.rank for card in naturals}) == 1
        and len(suits) == len(naturals)
        and len(cards) <= LARGEST_SET
        and len(jokers) <= max_set_jokers
    ):
        return set_of(naturals, jokers)
    if (
        len(suits) != 1
        or len(cards) > LONGEST_RUN
        or (max_run_jokers is not None and len(jokers) > max_run_jokers)
    ):
        return None
    if not jokers:
        # Sorted with the ace low, then with the ace high: a run of distinct ranks reads as one.
        for high_ace in (False, True):
            ordered = sorted(naturals, key=lambda card: _position(card, 2 if high_ace else 1))
            low = _run_start(ordered)
            if low is not None:
                return run_of(ordered, low)
        return None
    for ordered in (list(cards), list(reversed(cards))):
        low = _run_start(ordered)
        if low is not None:
            return run_of(ordered, low)
    return None

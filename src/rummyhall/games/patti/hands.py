"""Rummy Patti hand ranking: how good a three-card hand is (docs/rules/rummy-patti.md, "Ranking
of hands").

:func:`strength` gives a hand an integer: higher is better, equal means a tie. It reads a table
computed once, at import, over all 22,100 hands of one pack, so a call costs three list lookups
(the engine compares hands at every show and the bots at every turn). The table is indexed by the
three card codes (``Card.code``, 0..51) in any order: ``TABLE[a][b][c]``. Nested lists beat a dict
keyed by a bit mask (or a product of primes) of the codes, because such keys outgrow CPython's
small-int fast paths: bench/patti.py measures the bit-mask dict next to this one, against a plain
dict lookup.

A strength is ``class << 12 | value``: the class (0 high card ... 5 trail, :data:`HAND_CLASSES`)
decides first, then a value inside the class built from ranks only, so suits never break a tie:

* trail: the rank, ace high (14);
* pure sequence and sequence: A-K-Q 15, A-2-3 14, K-Q-J 13, ... 4-3-2 4;
* colour and high card: the three ranks, ace high, highest first, as base-16 digits;
* pair: the pair's rank, then the odd card's, as base-16 digits.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, permutations
from typing import Final

from rummyhall.cards import Card

HAND_CLASSES: Final = ("high card", "pair", "colour", "sequence", "pure sequence", "trail")
"""The six classes, worst first; a hand's class is ``HAND_CLASSES[strength >> CLASS_SHIFT]``."""

HIGH_CARD, PAIR, COLOUR, SEQUENCE, PURE_SEQUENCE, TRAIL = range(6)

CLASS_SHIFT: Final = 12
"""Bits of the value inside a class (the largest, A-K-Q high card, is 3804 < 4096)."""

INVALID: Final = -1
"""What the table holds where a card code repeats (not a hand)."""

_ACE_HIGH: Final = 14
_TOP_RUN: Final = 15
"""A-K-Q, the best run; A-2-3 is 14, K-Q-J 13 and so on down to 4-3-2 at 4."""


def _evaluate(codes: tuple[int, int, int]) -> int:
    """The strength of three distinct card codes, the slow and obvious way (builds the table)."""
    ranks = sorted((_ACE_HIGH if code % 13 == 0 else code % 13 + 1 for code in codes), reverse=True)
    high, middle, low = ranks
    suited = codes[0] // 13 == codes[1] // 13 == codes[2] // 13
    if high == low:
        return TRAIL << CLASS_SHIFT | high
    run = 0
    if ranks == [_ACE_HIGH, 13, 12]:
        run = _TOP_RUN
    elif ranks == [_ACE_HIGH, 3, 2]:
        run = _TOP_RUN - 1  # the ace below the two: second only to A-K-Q
    elif high - middle == 1 and middle - low == 1:
        run = high
    if run:
        return (PURE_SEQUENCE if suited else SEQUENCE) << CLASS_SHIFT | run
    spread = high << 8 | middle << 4 | low
    if suited:
        return COLOUR << CLASS_SHIFT | spread
    if middle in (high, low):
        pair, odd = (high, low) if high == middle else (low, high)
        return PAIR << CLASS_SHIFT | pair << 4 | odd
    return HIGH_CARD << CLASS_SHIFT | spread


def _build() -> tuple[list[list[list[int]]], list[int]]:
    table = [[[INVALID] * 52 for _ in range(52)] for _ in range(52)]
    strengths = []
    for hand in combinations(range(52), 3):
        value = _evaluate(hand)
        strengths.append(value)
        for a, b, c in permutations(hand):
            table[a][b][c] = value
    return table, strengths


_BUILT: Final = _build()
TABLE: Final = _BUILT[0]
"""``TABLE[a][b][c]``: the strength of the cards with codes ``a``, ``b``, ``c`` (any order)."""
ALL_STRENGTHS: Final = _BUILT[1]
"""The strengths of all 22,100 hands, in the order of ``itertools.combinations(range(52), 3)``."""


def strength(cards: Sequence[Card]) -> int:
    """The strength of a hand of three different natural cards: higher is better, equal is a tie.
    Not checked, for speed: a printed joker raises IndexError, a repeated card gives -1."""
    a, b, c = cards
    return TABLE[a.code][b.code][c.code]


def code_strength(a: int, b: int, c: int) -> int:
    """:func:`strength` of the cards with codes ``a``, ``b``, ``c``."""
    return TABLE[a][b][c]


def class_index(value: int) -> int:
    """The class of a strength: 0 (high card) to 5 (trail)."""
    return value >> CLASS_SHIFT


def class_name(value: int) -> str:
    """The class of a strength in words: ``"trail"``, ``"pure sequence"``, ..."""
    return HAND_CLASSES[value >> CLASS_SHIFT]


def hand_class(cards: Sequence[Card]) -> str:
    """The class of a hand in words (for views and showdowns)."""
    return class_name(strength(cards))


def _shares() -> dict[int, float]:
    """For each strength, the share of all hands it beats, a tie counting half."""
    ordered = sorted(ALL_STRENGTHS)
    total = len(ordered)
    shares: dict[int, float] = {}
    start = 0
    while start < total:
        value = ordered[start]
        end = start
        while end < total and ordered[end] == value:
            end += 1
        shares[value] = (start + (end - start) / 2) / total
        start = end
    return shares


_SHARE: Final = _shares()


def share_beaten(value: int) -> float:
    """The share (0 to 1) of all 22,100 hands that a hand of strength ``value`` beats, ties
    counting half: a first guess at its chance against one unknown hand."""
    return _SHARE[value]

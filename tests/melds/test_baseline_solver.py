"""The benchmark's baseline (tests/baseline_solver.py) is an exact solver too: the same penalty and
declarability as the brute-force reference, and a grouping of the hand that scores its penalty.
A baseline that got hands wrong would make bench/solver.py's ratios meaningless."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import baseline_solver as base
import reference_solver as ref
from rummyhall.cards import Card, from_code, parse, parse_cards, shoe
from rummyhall.melds import check, get_profile

CLASSIC = "indian13/classic"
VENGALA = "indian13/vengala"
MARRIAGE = "marriage21"

# (profile, decks, printed jokers per deck, hand size, hands): Marriage kept short, as the
# reference needs up to seconds for a 21-card hand.
CASES = [
    (CLASSIC, 2, 1, 13, 40),
    (CLASSIC, 2, 1, 14, 30),
    (VENGALA, 2, 2, 13, 30),
    (VENGALA, 3, 2, 14, 20),
    (MARRIAGE, 3, 1, 13, 15),
    (MARRIAGE, 3, 1, 21, 4),
    (MARRIAGE, 3, 1, 22, 3),
]


def assert_grouping(hand: list[Card], cut: Card, profile: str, found: base.Baseline) -> None:
    """The groups, leftover and discard are the hand's cards, and (unless only a Marriage special
    shape declares it) check scores the grouping at the penalty."""
    used = [code for group in found.groups for code in group] + found.leftover
    if len(hand) == get_profile(profile).hand_size + 1:
        assert found.discard is not None
        used.append(found.discard)
    else:
        assert found.discard is None
    assert Counter(used) == Counter(card.code for card in hand), found
    groups = [[from_code(c) for c in group] for group in found.groups]
    groups += [[from_code(c)] for c in found.leftover]
    verdict = check(groups, joker=cut, profile=profile)
    assert verdict.score == found.penalty, (found, verdict)


@pytest.mark.parametrize(
    ("profile", "decks", "jokers", "size", "count"),
    CASES,
    ids=[f"{p}-{d}x{j}-{n}" for p, d, j, n, _ in CASES],
)
def test_baseline_matches_reference(
    profile: str, decks: int, jokers: int, size: int, count: int
) -> None:
    rng = random.Random(size * 100 + decks * 10 + jokers)
    cards = shoe(decks, jokers)
    for _ in range(count):
        picks = rng.sample(cards, size + 1)
        hand, cut = picks[1:], picks[0]
        found = base.solve(hand, cut, profile)
        expected = ref.solve(hand, cut, profile)
        assert (found.penalty, found.declarable) == (expected.penalty, expected.declarable), (
            [str(c) for c in hand],
            cut,
        )
        assert_grouping(hand, cut, profile, found)


@pytest.mark.parametrize(
    ("text", "joker", "profile", "penalty", "declarable"),
    [
        ("AH 2H 3H 4H 5C 6C 7C 9S 9H 9D KS KH KC", "7D", CLASSIC, 0, True),
        ("AH 2H 3H 5C 6C 7C 9S 9H 9D JS QS KS KD 3D", "2C", CLASSIC, 3, False),
        ("QH KH AH 4S 5S JK 9C 9D 2S 7D 8D 10C JC", "3C", CLASSIC, 0, True),
        ("QH KH AH 4S 5S JK 9C 9D 9S 7D 8D 10C JC 3H", "3C", CLASSIC, 0, True),
        ("3S 4S 3H 4H 3S 4S 3H 4H 3S 4S 3H 4H 2S", "AS", MARRIAGE, 0, True),
    ],
)
def test_baseline_on_known_hands(
    text: str, joker: str, profile: str, penalty: int, declarable: bool
) -> None:
    """A discard, aces high, a printed joker filling a gap, a wild card standing in, tunnelas
    and a value joker (2♠ with A♠ cut)."""
    hand, cut = parse_cards(text), parse(joker)
    found = base.solve(hand, cut, profile)
    assert (found.penalty, found.declarable) == (penalty, declarable)
    assert_grouping(hand, cut, profile, found)

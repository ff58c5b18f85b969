"""Rummy Patti hand ranking (rummyhall.games.patti.hands): the class counts over all 22,100 hands,
the orders of docs/rules/rummy-patti.md inside each class, suits never breaking ties, and agreement
with a reference comparison written independently below."""

from __future__ import annotations

from collections import Counter
from itertools import combinations, pairwise

from hypothesis import given
from hypothesis import strategies as st

from rummyhall.cards import Card, Suit, parse_cards, shoe
from rummyhall.games.patti.hands import (
    ALL_STRENGTHS,
    HAND_CLASSES,
    INVALID,
    class_name,
    code_strength,
    hand_class,
    share_beaten,
    strength,
)

PACK = shoe(1, 0)
HANDS = st.lists(st.sampled_from(PACK), min_size=3, max_size=3, unique_by=lambda c: c.code)


def s(text: str) -> int:
    return strength(parse_cards(text))


def reference(cards: list[Card]) -> tuple[int, ...]:
    """A sort key for a hand, from the page's words: (class, then ranks to compare)."""
    values = sorted((14 if c.rank == 1 else c.rank for c in cards), reverse=True)
    flush = len({c.suit for c in cards}) == 1
    counts = Counter(values)
    if len(counts) == 1:
        return (5, values[0])
    runs = {(14, 13, 12): 15, (14, 3, 2): 14}
    run = runs.get(tuple(values))
    if run is None and values[0] - values[2] == 2 and len(counts) == 3:
        run = values[0]
    if run is not None:
        return (4 if flush else 3, run)
    if flush:
        return (2, *values)
    if len(counts) == 2:
        pair = next(v for v, n in counts.items() if n == 2)
        odd = next(v for v, n in counts.items() if n == 1)
        return (1, pair, odd)
    return (0, *values)


def test_class_frequencies_over_every_hand() -> None:
    assert len(ALL_STRENGTHS) == 22_100
    counts = Counter(class_name(value) for value in ALL_STRENGTHS)
    assert counts == {
        "trail": 52,
        "pure sequence": 48,
        "sequence": 720,
        "colour": 1_096,
        "pair": 3_744,
        "high card": 16_440,
    }


def test_every_class_beats_every_lower_one() -> None:
    by_class: dict[str, list[int]] = {name: [] for name in HAND_CLASSES}
    for value in ALL_STRENGTHS:
        by_class[class_name(value)].append(value)
    for lower, higher in pairwise(HAND_CLASSES):
        assert max(by_class[lower]) < min(by_class[higher]), (lower, higher)


def descending(*hands: str) -> bool:
    values = [s(hand) for hand in hands]
    return all(a > b for a, b in pairwise(values))


def test_orders_inside_each_class() -> None:
    # Trails: aces high.
    assert descending("AS AH AD", "KS KH KD", "QS QH QD", "3S 3H 3D", "2S 2H 2D")
    # Pure sequences and sequences: A-K-Q, A-2-3, K-Q-J, Q-J-10 ... 5-4-3, 4-3-2.
    runs = ["A K Q", "A 2 3", "K Q J", "Q J 10", "J 10 9", "10 9 8", "9 8 7", "8 7 6", "7 6 5",
            "6 5 4", "5 4 3", "4 3 2"]  # fmt: skip
    assert descending(*(" ".join(f"{r}H" for r in run.split()) for run in runs))
    mixed = ["S", "H", "C"]
    off_suit = [
        " ".join(f"{r}{x}" for r, x in zip(run.split(), mixed, strict=True)) for run in runs
    ]
    assert descending(*off_suit)
    assert {hand_class(parse_cards("QH KH AH")), hand_class(parse_cards("3C AD 2S"))} == {
        "pure sequence",
        "sequence",
    }
    # Colours and high cards: the highest card, then the middle, then the lowest.
    assert descending("AD KD JD", "AD KD 10D", "AD KD 9D", "AD QD JD", "KD QD 10D", "5D 4D 2D",
                      "5D 3D 2D")  # fmt: skip
    assert descending("AC KD JS", "AC KD 10S", "AC KD 9S", "5H 4C 2D", "5H 3C 2D")
    # Pairs: the pair, then the odd card.
    assert descending("AS AD KC", "AS AD QC", "AS AD JC", "KS KD AC", "4H 2C 2D", "3H 2C 2D")
    # Outside sequences an ace is high.
    assert s("AS 4D 2C") > s("KH QC 10S")
    # K-A-2 wraps round: no sequence.
    assert hand_class(parse_cards("KS AH 2D")) == "high card"


def test_suits_never_break_ties() -> None:
    assert s("KS QH JD") == s("KH QD JC") == s("KD QC JS")
    assert s("AS KS JS") == s("AH KH JH")
    assert s("7S 7H 2D") == s("7C 7D 2S")
    assert s("AC KD JS") == s("AH KC JD")


@given(HANDS, st.permutations(list(Suit)))
def test_renaming_the_suits_keeps_the_strength(hand: list[Card], suits: list[Suit]) -> None:
    renamed = [Card(card.rank, suits[int(card.suit)]) for card in hand if card.suit is not None]
    assert strength(renamed) == strength(hand)


@given(HANDS, HANDS)
def test_strength_agrees_with_the_reference(a: list[Card], b: list[Card]) -> None:
    difference = strength(a) - strength(b)
    key_a, key_b = reference(a), reference(b)
    assert (difference > 0) == (key_a > key_b)
    assert (difference == 0) == (key_a == key_b)


def test_every_hand_agrees_with_the_reference_class() -> None:
    for codes in combinations(range(52), 3):
        cards = [PACK[code] for code in codes]
        assert HAND_CLASSES.index(hand_class(cards)) == reference(cards)[0]


@given(HANDS, st.permutations(range(3)))
def test_card_order_does_not_matter(hand: list[Card], order: list[int]) -> None:
    a, b, c = (hand[i].code for i in order)
    assert code_strength(a, b, c) == strength(hand)


def test_a_repeated_card_is_not_a_hand() -> None:
    assert code_strength(5, 5, 9) == INVALID


def test_share_beaten() -> None:
    ordered = sorted(set(ALL_STRENGTHS))
    shares = [share_beaten(value) for value in ordered]
    assert shares == sorted(shares)
    # The worst hands, 5-3-2 of mixed suits (60 of them), beat only half of themselves: ties.
    assert shares[0] == share_beaten(s("5S 3H 2D")) == 0.5 * 60 / 22_100
    # The best, the four A-A-A, beat every other hand and tie with themselves.
    assert shares[-1] == share_beaten(s("AS AH AD")) == 1 - 0.5 * 4 / 22_100

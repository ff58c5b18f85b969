"""The best Rummy 51 opening (rummyhall.games.rummy51.opening) against a brute force that shares
nothing with it but ``make_group``: every subset of the hand that makes a group (tried in every
order that could place its jokers), then every packing of those groups, the best kept.

Hands are drawn from a seeded generator: small hands from a few neighbouring ranks and suits, with
jokers and second copies (where groups crowd and interfere), small random hands, and full 15-card
random deals. Every result is also checked for what it promises: the hand's own cards, disjoint
groups that ``make_group`` accepts as they are, the value they add up to, the cards kept.
RUMMYHALL_SOAK=1 runs many more hands.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator, Sequence
from itertools import combinations, combinations_with_replacement

import pytest

from rummyhall.cards import Card, format_cards, parse_cards, shoe
from rummyhall.games.rummy51.groups import Group, make_group
from rummyhall.games.rummy51.opening import OPENING, Opening, best_opening

SOAK = os.environ.get("RUMMYHALL_SOAK") == "1"
SHOE = shoe(2, 2)

Score = tuple[int, int, int]
"""(value, cards laid, -jokers laid): the order the opening's ties are broken in."""


# --- the brute force ---------------------------------------------------------------------------


def orders(cards: Sequence[Card]) -> Iterator[list[Card]]:
    """Every order worth trying for ``make_group``: the natural cards sorted with the ace low and
    with the ace high, the jokers placed in every way between and around them."""
    naturals = [card for card in cards if not card.is_joker]
    jokers = [card for card in cards if card.is_joker]
    for ace in (1, 14):
        ordered = sorted(naturals, key=lambda c: ace if c.rank == 1 else c.rank)
        for slots in combinations_with_replacement(range(len(ordered) + 1), len(jokers)):
            out: list[Card] = []
            spare = iter(jokers)
            for index in range(len(ordered) + 1):
                out += [next(spare) for _ in range(slots.count(index))]
                if index < len(ordered):
                    out.append(ordered[index])
            yield out


def best_group(cards: Sequence[Card], opening: bool) -> Group | None:
    limits = {"max_set_jokers": 1, "max_run_jokers": 1 if opening else None}
    found = [make_group(order, **limits) for order in orders(cards)]  # type: ignore[arg-type]
    made = [group for group in found if group is not None]
    return max(made, key=lambda group: group.value, default=None)


def candidate_groups(hand: Sequence[Card], opening: bool) -> list[tuple[int, int, int]]:
    """(bit mask of hand positions, value, jokers) of every subset of the hand that is a group.

    A group's natural cards share a rank or a suit, so the subsets tried are those of one rank's
    or one suit's cards, each with every subset of the jokers."""
    jokers = [i for i, card in enumerate(hand) if card.is_joker]
    families: dict[object, list[int]] = {}
    for i, card in enumerate(hand):
        if not card.is_joker:
            families.setdefault(("rank", card.rank), []).append(i)
            families.setdefault(("suit", card.suit), []).append(i)
    found: dict[int, tuple[int, int, int]] = {}
    for members in families.values():
        for count in range(1, min(len(members), 13) + 1):
            for chosen in combinations(members, count):
                for wild in range(len(jokers) + 1):
                    if not 3 <= count + wild <= 13:
                        continue
                    for extra in combinations(jokers, wild):
                        positions = chosen + extra
                        group = best_group([hand[i] for i in positions], opening)
                        if group is not None:
                            mask = sum(1 << i for i in positions)
                            found[mask] = (mask, group.value, group.jokers)
    return list(found.values())


def brute_force(hand: Sequence[Card], keep: int, opening: bool) -> Score:
    """The best (value, laid, -jokers) over every packing of the hand's groups keeping ``keep``."""
    groups = candidate_groups(hand, opening)
    room = len(hand) - keep
    best: Score = (0, 0, 0)

    def pack(used: int, start: int, value: int, laid: int, jokers: int) -> None:
        nonlocal best
        best = max(best, (value, laid, -jokers))
        for index in range(start, len(groups)):
            mask, worth, wild = groups[index]
            size = mask.bit_count()
            if not mask & used and laid + size <= room:
                pack(used | mask, index + 1, value + worth, laid + size, jokers + wild)

    pack(0, 0, 0, 0, 0)
    return best


# --- what every result promises ----------------------------------------------------------------


def score(result: Opening) -> Score:
    return (result.value, len(result.cards), -result.jokers)


def assert_well_formed(hand: Sequence[Card], keep: int, opening: bool, result: Opening) -> None:
    shown = f"best_opening({format_cards(hand)!r}, keep={keep}, opening={opening}) -> {result}"
    laid = result.cards
    assert len({id(card) for card in laid}) == len(laid), shown  # no card twice
    assert {id(card) for card in laid} <= {id(card) for card in hand}, shown  # the hand's cards
    assert len(hand) - len(laid) >= keep or not laid, shown
    limits = {"max_set_jokers": 1, "max_run_jokers": 1 if opening else None}
    for group in result.groups:
        assert make_group(group.cards, **limits) == group, shown  # type: ignore[arg-type]
    assert result.value == sum(group.value for group in result.groups), shown
    assert result.opens == (result.value >= OPENING), shown


def check(hand: Sequence[Card], keep: int = 1, opening: bool = True) -> Opening:
    result = best_opening(hand, keep=keep, opening=opening)
    assert_well_formed(hand, keep, opening, result)
    expected = brute_force(hand, keep, opening)
    assert score(result) == expected, (
        f"best_opening({format_cards(hand)!r}, keep={keep}, opening={opening}):"
        f" {score(result)} {[str(g) for g in result.groups]}, brute force {expected}"
    )
    return result


# --- hands -------------------------------------------------------------------------------------


def crowded_hand(rng: random.Random, size: int) -> list[Card]:
    """Cards of 1-4 neighbouring ranks in 2-4 suits, second copies and jokers included."""
    width = rng.randint(1, 4)
    low = rng.randint(1, 14 - width)
    ranks = {1 + (rank - 1) % 13 for rank in range(low, low + width + 1)} - {14}
    if rng.random() < 0.2:
        ranks |= {1, 12, 13}  # ace-high runs
    suits = set(rng.sample(range(4), rng.randint(2, 4)))
    pool = [
        card
        for card in SHOE
        if card.is_joker or (card.rank in ranks and int(card.suit or 0) in suits)
    ]
    return rng.sample(pool, min(size, len(pool)))


def random_hand(rng: random.Random, size: int) -> list[Card]:
    return rng.sample(SHOE, size)


def physical(text: str) -> list[Card]:
    """Cards in notation as distinct physical cards (``parse`` gives one joker object for all)."""
    seen: dict[str, int] = {}
    cards = []
    for card in parse_cards(text):
        seen[str(card)] = seen.get(str(card), 0) + 1
        cards.append(Card(card.rank, card.suit, seen[str(card)]))
    return cards


# --- tests -------------------------------------------------------------------------------------


@pytest.mark.parametrize("opening", [True, False], ids=["opening", "after"])
def test_matches_the_brute_force_on_crowded_small_hands(opening: bool) -> None:
    rng = random.Random(5101 + opening)
    for _ in range(5000 if SOAK else 1000):
        hand = crowded_hand(rng, rng.randint(3, 9))
        check(hand, keep=rng.choice([0, 1, 1, 1, 2]), opening=opening)


@pytest.mark.parametrize("opening", [True, False], ids=["opening", "after"])
def test_matches_the_brute_force_on_random_hands(opening: bool) -> None:
    rng = random.Random(5111 + opening)
    for _ in range(2000 if SOAK else 400):
        check(random_hand(rng, rng.randint(3, 10)), keep=rng.choice([0, 1, 2]), opening=opening)
    for _ in range(1000 if SOAK else 150):
        check(random_hand(rng, 15), opening=opening)


def test_matches_the_brute_force_on_crowded_ten_card_hands() -> None:
    rng = random.Random(5121)
    for _ in range(300 if SOAK else 60):
        check(crowded_hand(rng, 10), keep=1, opening=rng.random() < 0.5)


def test_the_pages_examples_as_hands() -> None:
    assert check(physical("6S 7S 8S 10D 10C 10H 2C")).value == 51
    assert check(physical("6S 7S 8S 10D 10C 10H 2C")).opens
    # the joker is worth more as the QH than as the 8H of the page's example
    best = check(physical("JK 9H 10H JH KC KD KS 3D"))
    assert (best.value, [str(g) for g in best.groups]) == (69, ["9H 10H JH JK", "KS KD KC"])
    # one short as the page lays it; the joker does better on the run (as the JD)
    best = check(physical("QD KD AD 5C 5H 5S JK 2H"))
    assert (best.value, [str(g) for g in best.groups]) == (55, ["JK QD KD AD", "5S 5H 5C"])
    assert check(physical("9C JK JK QC 4D")).groups == ()  # two jokers in one group
    assert check(physical("9C JK JK QC 4D"), opening=False).value == 39


def test_always_keep_a_card_to_throw() -> None:
    hand = physical("4H 5H 6H 7H")
    kept_one = check(hand)
    assert [str(g) for g in kept_one.groups] == ["5H 6H 7H"]  # keeps the 4H, the cheapest end
    assert check(hand, keep=0).value == 22
    assert check(hand, keep=2) == Opening((), 0)
    # a joker is the card to keep when the rest lay down as well without it
    assert len(check(physical("KS KH KD JK 5C 6C 7C")).cards) == 6


def test_a_joker_in_the_place_of_a_card_laid_elsewhere() -> None:
    # one 8C for two runs: the joker is the 8C of the other
    best = check(physical("7C 7C 8C 9C 9C JK 2D"))
    assert (best.value, sorted(str(g) for g in best.groups)) == (48, ["7C 8C 9C", "7C JK 9C"])
    # the joker is the 6S of the run while the 6S is in the set with the other joker
    best = check(physical("4S 5S 6S 6H JK JK"), keep=0)
    assert (best.value, sorted(str(g) for g in best.groups)) == (33, ["4S 5S JK", "6S 6H JK"])


def test_more_cards_then_fewer_jokers_break_ties() -> None:
    # 12 either way: 3C 4C JK (the 5C) or 3H 3D 3C JK, which lays a card more
    best = check(physical("3C 3H 3D 4C JK JK"))
    assert (best.value, [str(g) for g in best.groups]) == (12, ["3H 3D 3C JK"])
    # 28 either way, four cards either way: the set without the joker
    best = check(physical("7S 7H 7D 7C JK"))
    assert (best.value, best.jokers, [str(g) for g in best.groups]) == (28, 0, ["7S 7H 7D 7C"])


def test_nothing_to_lay() -> None:
    assert check(physical("2S 9H KD 5C JK")) == Opening((), 0)
    assert best_opening([]) == Opening((), 0)
    assert not Opening((), 0).opens


def test_the_result_does_not_depend_on_the_order_of_the_hand() -> None:
    rng = random.Random(5131)
    for _ in range(100):
        hand = crowded_hand(rng, 12)
        expected = [g.cards for g in best_opening(hand).groups]
        rng.shuffle(hand)
        # the same physical cards, group by group (copies are taken lowest first)
        got = [g.cards for g in best_opening(hand).groups]
        assert [[c.physical for c in g] for g in got] == [[c.physical for c in g] for g in expected]


def test_a_card_held_three_times_is_refused() -> None:
    with pytest.raises(ValueError, match="two"):
        best_opening(physical("5S 5S 5S 6H 7H"))

"""`hint`: the best partial arrangement of a hand for a beginner (docs/melds.md, "Hints").

Properties on random and meld-dense hands of every profile: the groups partition the hand,
every group labelled a meld is one, the distance is 0 exactly when the solver can declare, the
discard is a card of the hand alone in the last group, near melds are one card short, the
groups score what the solver says, and (Marriage) a winning shape is 0 cards away exactly when the
hand can declare. Hands worked out by hand check each shape's count. RUMMYHALL_SOAK=1 runs many
more examples.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rummyhall.cards import Card, parse, parse_cards, shoe
from rummyhall.melds import Kind, Wilds, arrange, check, classify, get_profile
from rummyhall.melds.hints import Hint, Role, hint

CLASSIC = "indian13/classic"
VENGALA = "indian13/vengala"
MARRIAGE = "marriage21"
SOAK = os.environ.get("RUMMYHALL_SOAK") == "1"


def examples(normal: int) -> int:
    return normal * 25 if SOAK else normal


def codes(cards: Sequence[Card]) -> Counter[int]:
    return Counter(card.code for card in cards)


def assert_sound(hand: list[Card], cut: Card, profile: str) -> Hint:
    """Everything a hint promises, for one hand."""
    prof = get_profile(profile)
    wilds = Wilds.of(cut, prof)
    found = hint(hand, joker=cut, profile=profile)
    best = arrange(hand, joker=cut, profile=profile)
    # The groups hold every card of the hand once (the caller's own cards).
    shown = [card for group in found.groups for card in group.cards]
    assert codes(shown) == codes(hand)
    assert sorted(map(id, shown)) == sorted(map(id, hand))
    for group in found.groups:
        assert group.cards, "no empty group"
        assert group.kind is classify([c.code for c in group.cards], wilds, prof)
        if group.role is Role.MELD:
            assert group.kind.is_meld, group
        if group.role in (Role.NEAR_RUN, Role.NEAR_SET):
            # One of the cards it needs finishes it (a joker too, unless it is kept pure).
            assert group.needs and not group.kind.is_meld
            for need in group.needs:
                done = classify([c.code for c in [*group.cards, need]], wilds, prof)
                assert done.is_meld, (group, need)
        else:
            assert not group.needs
        assert group.label
    # Distance 0 exactly when the solver can declare; the solver's figures are passed on.
    assert (found.distance == 0) == best.declarable == found.declarable
    assert found.penalty == best.penalty
    assert found.distance <= prof.hand_size
    # Marriage: the four winning shapes, in their order; one of them is 0 cards away exactly when
    # the hand can declare, and the sequences' count is the hint's distance when it cannot.
    if prof.dublees:
        away = {shape.name: shape.cards for shape in found.shapes}
        assert list(away) == ["sequences", "tunnelas", "dublees", "jokers"]
        assert found.declarable == (min(away.values()) == 0)
        assert all(cards >= 0 for cards in away.values())
        if not found.declarable:
            assert away["sequences"] == found.distance
    else:
        assert found.shapes == []
    # The discard: a card of the hand, alone in the last group, exactly when one is due.
    if len(hand) == prof.hand_size + 1:
        assert found.discard is not None and found.reason
        assert found.groups[-1].role is Role.DISCARD
        assert found.groups[-1].cards == [found.discard]
        assert any(card is found.discard for card in hand)
    else:
        assert found.discard is None
        assert all(group.role is not Role.DISCARD for group in found.groups)
    assert sum(group.role is Role.DISCARD for group in found.groups) <= 1
    # The groups, the discard aside, score as little as the cards kept can (the solver's
    # penalty of those cards; indian13: card points only, Marriage has its shapes).
    if not prof.dublees:
        kept = [g.cards for g in found.groups if g.role is not Role.DISCARD]
        verdict = check(kept, joker=cut, profile=profile)
        least = arrange([c for g in kept for c in g], joker=cut, profile=profile)
        assert verdict.score == least.penalty
        assert verdict.declarable == best.declarable
    # Deterministic, whatever the order of the hand.
    again = hint(list(reversed(hand)), joker=cut, profile=profile)
    assert [[str(c) for c in g.cards] for g in again.groups] == [
        [str(c) for c in g.cards] for g in found.groups
    ]
    assert (again.distance, again.summary) == (found.distance, found.summary)
    assert again.shapes == found.shapes
    return found


SHOES = {(2, 1): shoe(2, 1), (2, 2): shoe(2, 2), (3, 1): shoe(3, 1)}


@st.composite
def random_deal(draw: st.DrawFn, decks: int, jokers: int, size: int) -> tuple[list[Card], Card]:
    cards = SHOES[(decks, jokers)]
    seed = draw(st.integers(min_value=0, max_value=2**32 - 1))
    picks = random.Random(seed).sample(range(len(cards)), size + 1)
    return [cards[i] for i in picks[1:]], cards[picks[0]]


@st.composite
def dense_deal(draw: st.DrawFn, decks: int, jokers: int, size: int) -> tuple[list[Card], Card]:
    """A few neighbouring ranks in one or two suits plus some of the shoe's wild cards, topped
    up from the rest: hands with many melds, near melds and jokers."""
    cards = SHOES[(decks, jokers)]
    cut = cards[draw(st.integers(0, len(cards) - 1))]
    low = draw(st.integers(1, 11))
    ranks = set(range(low, low + draw(st.integers(3, 5))))
    suits = set(draw(st.lists(st.integers(0, 3), min_size=1, max_size=2, unique=True)))
    near = [c for c in cards if c.suit is not None and c.rank in ranks and int(c.suit) in suits]
    wild = [c for c in cards if c.is_joker or (not cut.is_joker and c.rank == cut.rank)]
    near += [c for c in wild[:4] if all(c is not n for n in near)]
    seed = draw(st.integers(min_value=0, max_value=2**32 - 1))
    rng = random.Random(seed)
    picks = rng.sample(near, min(size, len(near)))
    rest = [c for c in cards if all(c is not p for p in picks)]
    picks += rng.sample(rest, size - len(picks))
    return picks, cut


CASES = [
    (CLASSIC, 2, 1, 13, 150),
    (CLASSIC, 2, 1, 14, 150),
    (VENGALA, 2, 2, 13, 80),
    (VENGALA, 2, 2, 14, 80),
    (MARRIAGE, 3, 1, 21, 10),
    (MARRIAGE, 3, 1, 22, 10),
]


@pytest.mark.parametrize(
    ("profile", "decks", "jokers", "size", "count"),
    CASES,
    ids=[f"{p}-{n}" for p, _, _, n, _ in CASES],
)
@pytest.mark.parametrize("kind", ["random", "dense"])
def test_hints_are_sound(
    profile: str, decks: int, jokers: int, size: int, count: int, kind: str
) -> None:
    strategy = (random_deal if kind == "random" else dense_deal)(decks, jokers, size)

    @settings(
        max_examples=examples(count),
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(strategy)
    def run(deal: tuple[list[Card], Card]) -> None:
        assert_sound(*deal, profile)

    run()


def labels(found: Hint) -> list[tuple[str, str]]:
    return [(" ".join(str(c) for c in g.cards), g.label) for g in found.groups]


def test_no_pure_sequence_shows_near_melds_pairs_and_the_discard() -> None:
    hand = parse_cards("AS 3S 5H 6H 8D 8C KD KC 9C 2D 4C 10H QS JC")
    found = assert_sound(hand, parse("7D"), CLASSIC)
    assert labels(found) == [
        ("QS AS", "Near run (needs K♠)"),
        ("5H 6H", "Near run (needs 4♥ or 7♥)"),
        ("8C 9C JC", "Near run (needs 10♣)"),
        ("KD KC", "Pair (needs K♠ or K♥)"),
        ("3S 2D 8D 4C", "Loose"),
        ("10H", "Discard"),
    ]
    assert found.distance == 4
    assert found.discard == parse("10H")
    assert found.reason is not None and "10♥ is furthest from any meld" in found.reason
    assert found.summary.startswith("4 cards from a declaration; look for K♠, 4♥, 7♥, 10♣.")


def test_jokers_finish_melds_and_a_pure_sequence_stays_pure() -> None:
    # Sevens are wild: 7D fills 4H _ 6H; the 9S 10S gap stays open for a pure sequence.
    hand = parse_cards("4H 6H 7D 9S 10S KD KC 2C 5D AD QH JD 3S")
    found = assert_sound(hand, parse("7C"), CLASSIC)
    got = labels(found)
    assert ("4H 7D 6H", "Impure sequence") in got
    assert ("9S 10S", "Near run (needs 8♠ or J♠)") in got
    assert found.distance >= 1 and not found.declarable


def test_a_declarable_hand_is_the_solvers_declaration() -> None:
    hand = parse_cards("AD 2D 3D 4D 10C JC QC KD KS KC 8S 8H 8D 9C")
    found = assert_sound(hand, parse("7C"), CLASSIC)
    assert found.distance == 0 and found.declarable
    assert [g.role for g in found.groups] == [Role.MELD] * 4 + [Role.DISCARD]
    assert found.discard == parse("9C")
    assert found.summary == "Ready to declare: put the 9♣ in the finish slot."


def test_vengala_spare_jokers_and_a_printed_joker_cut() -> None:
    # A printed joker cut: aces are wild. A-2-3 of spades stays pure (the ace as itself).
    hand = parse_cards("AS 2S 3S 5H 6H 7H 8H JK AD 9C 9D KC QD")
    found = assert_sound(hand, parse("JK"), VENGALA)
    assert found.groups[0].kind is Kind.PURE_SEQUENCE
    assert found.distance >= 1


def test_one_card_from_a_declaration() -> None:
    # Fives are wild: the solver's 5D finishes 9H 10H, 6D 7D wait for a card, the QS goes.
    hand = parse_cards("AS 2S 3S 4S 5D 6D 7D KC KD KH 9H 10H 2C QS")
    found = assert_sound(hand, parse("5C"), CLASSIC)
    assert labels(found) == [
        ("AS 2S 3S 4S", "Pure sequence"),
        ("9H 10H 5D", "Impure sequence"),
        ("KH KD KC", "Set"),
        ("6D 7D", "Near run (needs 5♦ or 8♦)"),
        ("2C", "Loose"),
        ("QS", "Discard"),
    ]
    assert found.distance == 1
    assert found.summary.startswith("1 card from a declaration")


# --- Marriage: how far each winning shape is ----------------------------------------------------


def away(found: Hint) -> dict[str, int]:
    return {shape.name: shape.cards for shape in found.shapes}


def test_marriage_counts_each_shape_of_a_hand_far_from_all() -> None:
    # 8H cut: wild are every 8, the printed jokers, 9H (upper) and 7H (lower).
    # Tunnelas: 5C x3 is one, 9S x2 and KD x2 (or 2H x2) miss a copy each: 2 cards.
    # Dublees: 5C (its third copy makes no second pair), 9S, KD, 2H: 4 held, 4 missing, and
    # 12 cards held once (9 natural, JK 8S 7H) to pair them: 4 cards.
    # Jokers: JK 8S 7H are wild: 5 missing.
    hand = parse_cards("5C 5C 5C 9S 9S KD KD 2H 2H JK 8S 7H AS 3D 4C 6S 10D QC JH 4S 6D")
    found = assert_sound(hand, parse("8H"), MARRIAGE)
    assert not found.declarable
    assert away(found) == {"sequences": found.distance, "tunnelas": 2, "dublees": 4, "jokers": 5}
    assert [shape.label for shape in found.shapes] == [
        "3 pure sequences",
        "3 tunnelas",
        "8 dublees",
        "8 jokers",
    ]
    # A third 9S drawn: a second tunnela (1 card to go), still 4 dublees (9S was one already).
    found = assert_sound([*hand, parse("9S")], parse("8H"), MARRIAGE)
    assert away(found) == {"sequences": found.distance, "tunnelas": 1, "dublees": 4, "jokers": 5}


def test_marriage_dublees_declare_and_the_sequences_are_one_card_away() -> None:
    # 7D cut: wild are every 7, the printed jokers, 8D and 6D; none of these cards.
    # Eight dublees (2C 3C 4C 9D 10D JD QH KH twice): it declares with them. Without that shape
    # it has six pure sequences (2C-4C and 9D-JD twice, JH QH KH, QH KH AH) and 5S 6S 9C over:
    # one draw (4S or 7S for the 9C) to declare with sequences. Tunnelas: three pairs, a copy
    # each. Jokers: no wild card, 8 to go.
    hand = parse_cards("2C 3C 4C 2C 3C 4C 9D 10D JD 9D 10D JD QH KH QH KH JH AH 5S 6S 9C")
    found = assert_sound(hand, parse("7D"), MARRIAGE)
    assert found.declarable and found.distance == 0
    assert away(found) == {"sequences": 1, "tunnelas": 3, "dublees": 0, "jokers": 8}


def test_marriage_seven_tunnelas_are_two_cards_from_eight_dublees() -> None:
    # Seven cards three times each: tunnelas (and, as pure sequences, the ordinary declaration).
    # Seven dublees and no card held once: the eighth takes two copies of a new card.
    hand = parse_cards("AS AS AS 3D 3D 3D 5C 5C 5C 10S 10S 10S QH QH QH KC KC KC 2D 2D 2D")
    found = assert_sound(hand, parse("8H"), MARRIAGE)
    assert away(found) == {"sequences": 0, "tunnelas": 0, "dublees": 2, "jokers": 8}


def test_marriage_eight_wild_cards_declare() -> None:
    # 8H cut: JK JK 8S 8D 8C 8H 9H 7H are eight wild cards, the rest loose naturals held once.
    # Tunnelas: JK x2 misses one, two cards held once miss two each: 5. Dublees: JK JK only, 7
    # missing, plenty held once: 7.
    hand = parse_cards("JK JK 8S 8D 8C 8H 9H 7H 2S 4S 6S 10S QS 3D 5D 9D JD KD 2C 6C 10C")
    found = assert_sound(hand, parse("8H"), MARRIAGE)
    assert found.declarable
    shapes = away(found)
    assert shapes["sequences"] >= 1
    assert {name: shapes[name] for name in ("tunnelas", "dublees", "jokers")} == {
        "tunnelas": 5,
        "dublees": 7,
        "jokers": 0,
    }


def test_13_card_hints_have_no_shapes() -> None:
    hand = parse_cards("AS 3S 5H 6H 8D 8C KD KC 9C 2D 4C 10H QS")
    assert hint(hand, joker=parse("7D"), profile=CLASSIC).shapes == []


# --- the distance against an exhaustive reference -------------------------------------------------


def reference_distance(hand: list[Card], cut: Card, profile: str) -> int | None:
    """The least count of loose cards over every plan of the cards outside the solver's melds,
    found by trying every way to split them (docs/melds.md, "Hints"): no bound, no budget, no
    move order, and any loose card may be a run of one card (not only the dearest)."""
    from rummyhall.melds.plans import FIXED, RUN, SET, TUNNELA, Group, judge, position

    prof = get_profile(profile)
    wilds = Wilds.of(cut, prof)
    best = arrange(hand, joker=cut, profile=prof)
    fixed = [
        Group(FIXED, tuple(c.code for c in group), 0, len(group), 0, kind)
        for group, kind in zip(best.groups, best.kinds, strict=True)
    ]

    def least(codes: list[int], fixed: list[Group]) -> int | None:
        found: list[int] = []

        def walk(rest: list[int], cores: list[Group], loose: int, pool: int) -> None:
            if not rest:
                gaps = judge([*fixed, *cores], pool, prof)[0]
                if gaps <= loose:
                    found.append(loose)
                return
            c, others = rest[0], rest[1:]
            if c == 52 or c in wilds.codes:
                walk(others, cores, loose, pool + 1)
            if c == 52:
                return
            if c not in wilds.codes:
                walk(others, cores, loose + 1, pool)
                walk(others, [*cores, Group(RUN, (c,), 2, 3, position(c, 1))], loose, pool)
            suit, rank = divmod(c, 13)
            # Runs: c lowest in a window of its suit, one copy of every code in the window.
            place = rank + 1
            if rank == 0:  # the ace low (up to the king) or high (down to the two)
                windows = [(1, h) for h in range(2, 14)] + [(lo, 14) for lo in range(2, 14)]
            else:
                windows = [(place, h) for h in range(place + 1, 15)]
            for lo, hi in windows:
                far = hi if lo in (1, place) and not (rank == 0 and hi == 14) else lo
                window = {suit * 13 + (p - 1) % 13 for p in range(lo, hi + 1)}
                held = [x for x in window if x in others and x != c] + [c]
                span = hi - lo + 1
                gaps = span - len(held) + max(0, 3 - span)
                if suit * 13 + (far - 1) % 13 not in others or gaps > 2:
                    continue
                left = list(others)
                for x in held[:-1]:
                    left.remove(x)
                core = Group(RUN, tuple(held), gaps, max(3, span), lo)
                walk(left, [*cores, core], loose, pool)
            # Sets: c and cards of its rank in other suits (later in the order).
            mates = sorted({x for x in others if x % 13 == rank and x // 13 != suit})
            for mask in range(1, 1 << len(mates)):
                members = [m for i, m in enumerate(mates) if mask >> i & 1]
                left = list(others)
                for x in members:
                    left.remove(x)
                n = len(members) + 1
                walk(
                    left,
                    [*cores, Group(SET, (c, *members), max(0, 3 - n), max(3, n), 0)],
                    loose,
                    pool,
                )
            if prof.identical_triple_pure and others.count(c) >= 2:
                left = list(others)
                left.remove(c)
                left.remove(c)
                walk(left, [*cores, Group(TUNNELA, (c, c, c), 0, 3, 0)], loose, pool)

        walk(sorted(codes), [], 0, 0)
        return min(found) if found else None

    rest = [c.code for c in best.leftover]
    got = least(rest, fixed)
    if got is None:
        got = least([c.code for c in hand], [])
    return got


# Short hands, so that trying every split stays quick (Marriage's three pure sequences need 9).
@pytest.mark.parametrize(
    ("profile", "size", "count"), [(CLASSIC, 8, 60), (VENGALA, 8, 60), (MARRIAGE, 11, 15)]
)
def test_distance_is_the_least_over_every_plan(profile: str, size: int, count: int) -> None:
    decks, jokers = (3, 1) if profile == MARRIAGE else (2, 2 if profile == VENGALA else 1)

    @settings(
        max_examples=examples(count),
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
    )
    @given(random_deal(decks, jokers, size) | dense_deal(decks, jokers, size))
    def run(deal: tuple[list[Card], Card]) -> None:
        hand, cut = deal
        found = hint(hand, joker=cut, profile=profile)
        if found.declarable:
            return
        least = reference_distance(hand, cut, profile)
        # (None: too few cards for any plan to hold a declaration's melds.)
        assume(least is not None)
        assert found.distance == max(1, least)

    run()

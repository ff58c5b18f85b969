"""The optimal-arrangement solver (`arrange`) and its command line, against docs/melds.md.

`arrange` is compared with the brute-force reference in reference_solver.py on random and dense
hands of every profile, and every result is checked to be a grouping of the hand that `check`
judges as `arrange` says. RUMMYHALL_SOAK=1 runs many more examples.
"""

from __future__ import annotations

import io
import json
import os
import random
import sys
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reference_solver as ref
from rummyhall.cards import Card, format_cards, from_code, parse, parse_cards, parse_groups, shoe
from rummyhall.cli import main
from rummyhall.melds import Arrangement, Kind, Verdict, Wilds, arrange, check, classify, get_profile
from rummyhall.melds import solver as solver_internals
from rummyhall.melds import suits as suit_internals

CLASSIC = "indian13/classic"
VENGALA = "indian13/vengala"
MARRIAGE = "marriage21"

SOAK = os.environ.get("RUMMYHALL_SOAK") == "1"


def examples(normal: int) -> int:
    """Hypothesis examples for one test: a quick run normally, a campaign when soaking."""
    return normal * 25 if SOAK else normal


SHOES = {(decks, jokers): shoe(decks, jokers) for decks, jokers in [(2, 1), (2, 2), (3, 1), (3, 2)]}


def describe(hand: Sequence[Card], cut: Card, profile: str) -> str:
    return f"arrange({format_cards(hand)!r}, joker={str(cut)!r}, profile={profile!r})"


# ------------------------------------------------------------------ what every result must be


def without(cards: Sequence[Card], removed: Sequence[Card]) -> list[Card]:
    """``cards`` less the physical cards ``removed`` (by identity), which must all be there."""
    rest = list(cards)
    for card in removed:
        index = next((i for i, c in enumerate(rest) if c is card), None)
        assert index is not None, f"{card.physical} is not (or no longer) in the hand"
        del rest[index]
    return rest


def assert_well_formed(
    hand: Sequence[Card], cut: Card, profile: str, result: Arrangement
) -> Verdict:
    """What docs/melds.md promises about any result; returns check's verdict on it."""
    prof = get_profile(profile)
    wilds = Wilds.of(cut, prof)
    shown = describe(hand, cut, profile) + f" -> {result}"

    # The groups, the leftover and the discard are exactly the hand's physical cards.
    assert len(result.kinds) == len(result.groups), shown
    used = [card for group in result.groups for card in group] + list(result.leftover)
    if len(hand) == prof.hand_size + 1:
        assert result.discard is not None, shown
        used.append(result.discard)
    else:
        assert result.discard is None, shown
    assert Counter(card.code for card in used) == Counter(card.code for card in hand), shown
    assert Counter(card.physical for card in used) == Counter(card.physical for card in hand), shown
    assert Counter(map(id, used)) == Counter(map(id, hand)), (
        "not the caller's Card objects: " + shown
    )
    kept = without(hand, [result.discard]) if result.discard is not None else list(hand)

    # Each group is what its kind says, and never a non-group.
    for group, kind in zip(result.groups, result.kinds, strict=True):
        assert group, shown
        assert classify([card.code for card in group], wilds, prof) is kind, shown
        assert kind is not Kind.INVALID, shown

    # check agrees: same declarability, and the grouping scores the penalty (Marriage's special
    # winning shapes aside, which may score more).
    verdict = check(result.groups + [[card] for card in result.leftover], joker=cut, profile=prof)
    judged = ref.judge_grouping(
        [[c.code for c in g] for g in result.groups] + [[c.code] for c in result.leftover],
        wilds.codes,
        profile,
    )
    assert verdict.declarable == result.declarable, shown
    assert verdict.score >= result.penalty, shown
    if verdict.score != result.penalty:
        assert judged.special_shape and result.declarable, shown
    if not judged.special_shape:
        assert all(kind.is_meld for kind in result.kinds), shown
    assert 0 <= result.penalty <= prof.cap, shown

    # A 13-card declaration is penalty 0, with nothing left over but (vengala) loose jokers.
    if result.declarable and not prof.dublees:
        assert result.penalty == 0, shown
        assert all(card.code in wilds.codes for card in result.leftover), shown
        if not prof.loose_jokers:
            assert not result.leftover, shown

    # Marriage's 2-point grouping shows a 2-point shape of the kept cards.
    if not prof.dublees:
        assert result.two_point_groups is None, shown
    elif result.two_point_groups is not None:
        shape = result.two_point_groups
        rest = without(kept, [card for group in shape for card in group])
        assert check(shape + [[card] for card in rest], joker=cut, profile=prof).two_point, shown
    return verdict


def assert_matches_reference(hand: Sequence[Card], cut: Card, profile: str) -> Arrangement:
    result = arrange(hand, joker=cut, profile=profile)
    assert_well_formed(hand, cut, profile, result)
    expected = ref.solve(hand, cut, profile)
    shown = describe(hand, cut, profile) + f" -> {result}; reference {expected}"
    assert result.penalty == expected.penalty, shown
    assert result.declarable == expected.declarable, shown
    if get_profile(profile).dublees and len(hand) != get_profile(profile).hand_size + 1:
        assert (result.two_point_groups is not None) == expected.two_point, shown
    return result


# ------------------------------------------------------------------------------------- deals


@st.composite
def random_deal(draw: st.DrawFn, decks: int, jokers: int, size: int) -> tuple[list[Card], Card]:
    """``size`` cards and a cut card, all different physical cards of the shoe, uniformly drawn.
    (Through a seeded Random: drawing indices directly makes Hypothesis start from the shoe's first
    cards, long runs of one suit that the reference needs seconds for in Marriage. Dense hands
    have their own strategy and the long runs their own unit test.)"""
    cards = SHOES[(decks, jokers)]
    seed = draw(st.integers(min_value=0, max_value=2**32 - 1))
    picks = random.Random(seed).sample(range(len(cards)), size + 1)
    return [cards[i] for i in picks[1:]], cards[picks[0]]


@st.composite
def dense_deal(
    draw: st.DrawFn, profile: str, decks: int, jokers: int, sizes: tuple[int, int]
) -> tuple[list[Card], Card]:
    """Adversarial hands: a few neighbouring ranks of one or two suits, many duplicates and up to
    every wild card of the shoe, topped up from the rest of the shoe if that is too few."""
    cards = SHOES[(decks, jokers)]
    size = draw(st.integers(*sizes))
    cut_index = draw(st.integers(0, len(cards) - 1))
    cut = cards[cut_index]
    wild = ref.wild_codes(cut, profile)
    low = draw(st.integers(1, 13))
    width = draw(st.integers(2, 4))
    ranks = {(low + k - 1) % 13 + 1 for k in range(width)}
    suits = set(draw(st.lists(st.integers(0, 3), min_size=1, max_size=2, unique=True)))
    others = [i for i in range(len(cards)) if i != cut_index]
    wild_cards = [i for i in others if cards[i].code in wild]
    near = [
        i
        for i in others
        if i not in wild_cards
        and cards[i].suit is not None
        and cards[i].rank in ranks
        and int(cards[i].suit) in suits
    ]
    # Between none and all of the wild cards join the few ranks.
    near += draw(st.permutations(wild_cards))[: draw(st.integers(0, len(wild_cards)))]
    far = [i for i in others if i not in set(near)]
    picks = draw(st.permutations(near))[:size]
    if len(picks) < size:
        picks += draw(st.permutations(far))[: size - len(picks)]
    return [cards[i] for i in picks], cut


def run_property(
    strategy: st.SearchStrategy[tuple[list[Card], Card]], profile: str, count: int
) -> None:
    @settings(
        max_examples=examples(count),
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(strategy)
    def run(deal: tuple[list[Card], Card]) -> None:
        hand, cut = deal
        assert_matches_reference(hand, cut, profile)

    run()


# (profile, decks, printed jokers per deck, hand size, examples)
RANDOM_CASES = [
    (CLASSIC, 2, 1, 13, 300),
    (CLASSIC, 2, 1, 14, 300),
    (VENGALA, 2, 2, 13, 150),
    (VENGALA, 2, 2, 14, 150),
    (VENGALA, 3, 2, 13, 100),
    (VENGALA, 3, 2, 14, 100),
    (MARRIAGE, 3, 1, 21, 40),
    (MARRIAGE, 3, 1, 22, 25),
]

# (profile, decks, printed jokers per deck, (smallest, largest) hand, examples). Marriage's dense
# hands are kept small: the reference needs seconds for a dense 21-card hand. Soaking adds them.
DENSE_CASES = [
    (CLASSIC, 2, 1, (13, 13), 50),
    (CLASSIC, 2, 1, (14, 14), 40),
    (VENGALA, 2, 2, (13, 14), 40),
    (VENGALA, 3, 2, (13, 14), 40),
    (MARRIAGE, 3, 1, (9, 15), 30),
]
if SOAK:
    DENSE_CASES.append((MARRIAGE, 3, 1, (21, 22), 2))


@pytest.mark.parametrize(
    ("profile", "decks", "jokers", "size", "count"),
    RANDOM_CASES,
    ids=[f"{p}-{d}x{j}-{n}" for p, d, j, n, _ in RANDOM_CASES],
)
def test_random_hands_match_reference(
    profile: str, decks: int, jokers: int, size: int, count: int
) -> None:
    run_property(random_deal(decks, jokers, size), profile, count)


@pytest.mark.parametrize(
    ("profile", "decks", "jokers", "sizes", "count"),
    DENSE_CASES,
    ids=[f"{p}-{d}x{j}-{lo}..{hi}" for p, d, j, (lo, hi), _ in DENSE_CASES],
)
def test_dense_hands_match_reference(
    profile: str, decks: int, jokers: int, sizes: tuple[int, int], count: int
) -> None:
    run_property(dense_deal(profile, decks, jokers, sizes), profile, count)


@pytest.mark.parametrize("profile", [CLASSIC, VENGALA, MARRIAGE])
def test_small_hands_match_every_grouping(profile: str) -> None:
    """On hands of up to 8 cards (judged as they are), the penalty is the least `check` score of
    every way to group the cards, and declarable whether any of them is a declaration."""
    decks, jokers = (3, 1) if profile == MARRIAGE else (3, 2)

    @settings(max_examples=examples(40), deadline=None, derandomize=True, database=None)
    @given(dense_deal(profile, decks, jokers, (1, 8)))
    def run(deal: tuple[list[Card], Card]) -> None:
        hand, cut = deal

        def judge(groups: list[list[int]]) -> ref.Judgement:
            verdict = check([[from_code(c) for c in g] for g in groups], joker=cut, profile=profile)
            return ref.Judgement(verdict.score, verdict.declarable, verdict.two_point, False)

        result = arrange(hand, joker=cut, profile=profile)
        assert_well_formed(hand, cut, profile, result)
        expected = ref.solve_by_partitions(hand, cut, profile, judge)
        shown = describe(hand, cut, profile) + f" -> {result}; every grouping: {expected}"
        assert (result.penalty, result.declarable) == (expected.penalty, expected.declarable), shown
        if profile == MARRIAGE:
            assert (result.two_point_groups is not None) == expected.two_point, shown

    run()


# -------------------------------------------------------------------------------- unit cases


def solve(text: str, joker: str, profile: str) -> Arrangement:
    hand = parse_cards(text)
    result = arrange(hand, joker=parse(joker), profile=profile)
    assert_well_formed(hand, parse(joker), profile, result)
    return result


HAND_13 = "AH 2H 3H 4H 5C 6C 7C 9S 9H 9D KS KH KC"


@pytest.mark.parametrize("profile", [CLASSIC, VENGALA])
def test_declarable_13_card_hand(profile: str) -> None:
    result = solve(HAND_13, "7D", profile)  # 7♣ is wild, in its own place
    assert result.penalty == 0
    assert result.declarable
    assert result.leftover == []
    assert result.discard is None
    assert sorted(result.kinds) == sorted([Kind.PURE_SEQUENCE] * 2 + [Kind.SET] * 2)
    assert result.two_point_groups is None


def test_no_pure_sequence_every_card_counts() -> None:
    # no three running cards of a suit, aces wild (printed joker cut)
    result = solve("2S 5S 9S 3H 7H 4D 8D 6C AC 2H 6H 3C 9C", "JK", CLASSIC)
    assert result.penalty == 64
    assert not result.declarable
    # the same, capped at 80
    hand = "KS QS 9S KH 7H JD 8D 6C QC 2H 5H 3C 9C"
    result = solve(hand, "4D", CLASSIC)
    assert (result.penalty, result.declarable) == (80, False)
    assert (solve(hand, "4D", VENGALA).penalty, solve(hand, "4D", MARRIAGE).penalty) == (80, 99)


def test_14_cards_best_discard() -> None:
    hand = "AH 2H 3H 5C 6C 7C 9S 9H 9D JS QS KS KD 3D"
    result = solve(hand, "8D", CLASSIC)
    assert result.penalty == 3
    assert not result.declarable
    assert result.discard == parse("KD")
    assert format_cards(result.leftover) == "3D"
    # vengala: no sequence of four, every card counts (103 - 10 for the discard, capped)
    result = solve(hand, "8D", VENGALA)
    assert (result.penalty, result.declarable) == (80, False)


def test_14_cards_declaration_needs_the_right_discard() -> None:
    result = solve("5H 6H 7H 8H 2C 3C 4C 9S 9D 9H QS QD QC KD", "JD", VENGALA)
    assert (result.penalty, result.declarable) == (0, True)
    assert result.discard == parse("KD")
    assert result.leftover == []


@pytest.mark.parametrize(
    ("profile", "size", "cut", "declarable"),
    [
        (CLASSIC, 13, "5D", True),  # A♠..K♠ in two pure sequences
        (CLASSIC, 14, "5D", True),
        (VENGALA, 14, "5D", True),
        (MARRIAGE, 21, "JS", True),
        (MARRIAGE, 22, "AS", True),
    ],
)
def test_long_runs_of_the_shoe(profile: str, size: int, cut: str, declarable: bool) -> None:
    """The shoe's first cards: A♠..K♠ then hearts, long runs with many ways to cut them."""
    cards = shoe(3, 1) if profile == MARRIAGE else shoe(2, 1)
    hand = cards[:size]
    result = arrange(hand, joker=parse(cut), profile=profile)
    assert_well_formed(hand, parse(cut), profile, result)
    assert (result.penalty, result.declarable) == (0, declarable)


def test_vengala_needs_a_sequence_of_four() -> None:
    hand = "5H 6H 7H 2C 3C 4C 9S 9D 9H QS QD QC QH"
    assert (solve(hand, "8D", CLASSIC).penalty, solve(hand, "8D", CLASSIC).declarable) == (0, True)
    result = solve(hand, "8D", VENGALA)
    assert (result.penalty, result.declarable) == (80, False)  # 94, capped
    # a joker makes the four-card sequence
    result = solve("5H 6H 7H 2C 3C 4C 9S 9D 9H QS QD QC JK", "8D", VENGALA)
    assert (result.penalty, result.declarable) == (0, True)
    assert any(
        len(g) >= 4 and k.is_sequence for g, k in zip(result.groups, result.kinds, strict=True)
    )


def test_vengala_loose_jokers_in_the_leftover() -> None:
    hand = "AH 2H 3H 4H 5H 6C 7C 8C 9C JK JK JK JK"
    result = solve(hand, "KD", VENGALA)
    assert (result.penalty, result.declarable) == (0, True)
    assert len(result.leftover) >= 2
    assert all(card.is_joker for card in result.leftover)
    result = solve(hand, "KD", CLASSIC)  # any number of jokers in a meld
    assert (result.penalty, result.declarable, result.leftover) == (0, True, [])


def test_marriage_three_pure_sequences() -> None:
    hand = "AS 2S 3S 4H 5H 6H 7D 8D 9D 10C JC QC KS KH KD 2H 2D 2C 5S 5C 5D"
    result = solve(hand, "4C", MARRIAGE)
    assert (result.penalty, result.declarable, result.leftover) == (0, True, [])
    assert sum(1 for kind in result.kinds if kind.is_pure) >= 3
    assert result.two_point_groups is not None
    result = solve(hand + " 9H", "4C", MARRIAGE)
    assert (result.penalty, result.declarable, result.discard) == (0, True, parse("9H"))


def test_marriage_two_pure_sequences_exempt_only_themselves() -> None:
    result = solve("AS 2S 3S 4H 5H 6H 9C 9D 9H KD", "7C", MARRIAGE)
    assert (result.penalty, result.declarable) == (37, False)
    assert result.two_point_groups is None


def test_marriage_eight_dublees() -> None:
    hand = "4S 4S 9H 9H KD KD 2C 2C JK JK 7S 7S QH QH 10C 10C 3D 5H 8C AS 6D"
    result = solve(hand, "JD", MARRIAGE)
    assert result.declarable
    assert result.penalty == 120  # no pure sequence: 130 points, capped
    assert sum(1 for kind in result.kinds if kind is Kind.DUBLEE) >= 8
    assert result.two_point_groups is not None


def test_marriage_three_tunnelas() -> None:
    hand = "8S 8S 8S 4H 4H 4H JK JK JK 2C 5D 9S KH QD 7C 3S 10D JC AS 5C 8H"
    result = solve(hand, "6S", MARRIAGE)
    assert result.declarable
    assert result.penalty == 89
    assert result.two_point_groups is None


def test_marriage_jokers_group() -> None:
    junk = "2C 3D 7S 8H 9C 10S JD QC KS AD 2S 3C 9D"
    result = solve(f"JK JK JK 5S 5S 5D 5C 5C {junk}", "5H", MARRIAGE)
    assert result.declarable
    assert result.two_point_groups is not None
    result = solve(f"JK JK JK 5S 5S 5D 5C 4D {junk}", "5H", MARRIAGE)
    assert not result.declarable
    assert result.two_point_groups is not None  # seven jokers


def test_sequence_bridging_a_gap_with_jokers() -> None:
    """5♥ _ _ 8♥ with two wild cards between: the per-suit search solves the cards either side of
    the gap apart, and must still try the sequences that bridge it."""
    hand = "9C 10C JC QD KD AD 3S 4S 5S 5H 2D 2S 8H"
    expected = ref.solve(parse_cards(hand), parse("2C"), CLASSIC)
    assert (expected.penalty, expected.declarable) == (0, True)
    result = solve(hand, "2C", CLASSIC)
    assert (result.penalty, result.declarable) == (0, True)
    assert [5, 8] in [sorted(c.rank for c in g if c.rank != 2) for g in result.groups]
    # with a card more, the discard keeps the bridge
    result = solve(hand + " KS", "2C", CLASSIC)
    assert (result.penalty, result.declarable, result.discard) == (0, True, parse("KS"))


def _random_suit(rng: random.Random, copies: int) -> list[int]:
    ranks = [0] * 13
    for _ in range(rng.randint(0, 10)):
        r = rng.randrange(13)
        ranks[r] = min(copies, ranks[r] + 1)
    return ranks


@pytest.mark.parametrize("profile", [CLASSIC, VENGALA, MARRIAGE])
def test_suit_table_options_are_arrangements(profile: str) -> None:
    """Every option of a per-suit table is an arrangement of that suit: its witness lays the
    suit's cards (an ace low or high), leaves the points the option says, takes the jokers it says
    (wild cards of the suit not used as themselves go to the pool), holds the discard it says and
    reaches its requirement state. Suits of many shapes, for tables of every joker budget."""
    rules = solver_internals._rules(get_profile(profile))
    comb = suit_internals.combine_table(rules)
    rng = random.Random(7)
    copies = 2 if profile == CLASSIC else 3
    for jmax in (0, 1, 2, 4):
        for discard in (False, True):
            tables = suit_internals.SuitTables(rules, jmax, discard, 4)
            for _ in range(examples(60)):
                ranks = _random_suit(rng, copies)
                wild_rank = rng.randint(1, 13)
                if ranks[wild_rank - 1] > jmax or rng.random() < 0.3:
                    wild_rank = 0  # a hand's tables provide for its wild cards
                vec = suit_internals.pack(ranks)
                table = tables.table(vec, 1 << wild_rank if wild_rank else 0)
                assert all(o[1] <= b for b in range(jmax + 1) for o in table[b])
                for lo, jokers, state, disc, absorber, witness in table[jmax]:
                    used = [0] * 13
                    laid = [0, 0, 0, 0]  # jokers, state, discard, absorber
                    for kind, start, length, mask in suit_internals.melds(witness):
                        rank = (start - 1) % 13
                        if kind == "D":
                            assert rank + 1 != wild_rank
                            used[rank] += 1
                            laid[2] += 1
                        elif kind == "T":
                            assert rules.triple
                            used[rank] += 3
                            tunnela = suit_internals.meld_state(rules, True, 3, tunnela=True)
                            laid[1] = comb[laid[1]][tunnela]
                        else:
                            assert 3 <= length <= rules.max_length and start + length <= 15
                            stand_ins = length - mask.bit_count()
                            assert mask and stand_ins <= (rules.max_jokers or length)
                            for i in range(length):
                                used[(start + i - 1) % 13] += mask >> i & 1
                            laid[0] += stand_ins
                            meld = suit_internals.meld_state(rules, stand_ins == 0, length)
                            laid[1] = comb[laid[1]][meld]
                            laid[3] |= rules.marriage and stand_ins > 0
                    left = [have - n for have, n in zip(ranks, used, strict=True)]
                    assert min(left) >= 0, (ranks, witness)
                    points = sum(
                        n * suit_internals.POINTS[r]
                        for r, n in enumerate(left)
                        if r + 1 != wild_rank
                    )
                    spare = left[wild_rank - 1] if wild_rank else 0
                    assert (lo, jokers, state, disc, absorber) == (
                        points,
                        laid[0] - spare,
                        laid[1],
                        laid[2],
                        int(laid[3]),
                    ), (ranks, wild_rank, witness)


@pytest.mark.parametrize("triple", [False, True])
def test_pure_count_agrees_with_pure_tables(triple: bool) -> None:
    """The set search's count of the pure sequences a suit can lay (runs of three, tunnelas)
    is what the pure tables say, dense suits of three copies included."""
    pure = suit_internals.pure_tables(triple, True)
    rng = random.Random(11)
    for _ in range(examples(3000)):
        ranks = _random_suit(rng, 3 if triple else 2)
        if rng.random() < 0.3:
            ranks = [min(3, n + rng.randint(0, 2)) for n in ranks]
        vec = suit_internals.pack(ranks)
        wild = 1 << rng.randint(1, 13) if rng.random() < 0.5 else 0
        assert suit_internals.pure_count(vec, triple) == pure.table(vec, wild)[4], ranks


@pytest.mark.parametrize("triple", [False, True])
@pytest.mark.parametrize("discard", [False, True])
def test_suits_without_pure_sequences_need_no_search(triple: bool, discard: bool) -> None:
    """A suit that lays no pure sequence (suits.lays_pure, which agrees with pure_count) gets
    its pure summary without a search: the same summary, the same discard among cards worth as
    much, as the search's."""
    pure = suit_internals.pure_tables(triple, discard)
    rng = random.Random(13)
    checked = 0
    for _ in range(examples(6000)):
        ranks = _random_suit(rng, 3 if triple else 2)
        vec = suit_internals.pack(ranks)
        wild = 1 << rng.randint(1, 13) if rng.random() < 0.5 else 0
        lays = suit_internals.lays_pure(vec, triple)
        assert lays == (suit_internals.pure_count(vec, triple) > 0), ranks
        if not lays:
            checked += 1
            assert pure.table(vec, wild) == pure.searched(vec, wild), (ranks, wild)
    assert checked > examples(1000)


@pytest.mark.parametrize(
    ("profile", "decks", "jokers", "size"),
    [(p, d, 1, n) for p in (CLASSIC, VENGALA) for d in (2, 3) for n in (13, 14)],
)
def test_hands_that_meld_nothing_skip_the_tables(
    profile: str, decks: int, jokers: int, size: int
) -> None:
    """A hand whose suits lay no pure sequence is answered without the tables (most random
    hands): the same result as through them, down to the discard and the physical copies."""
    prof = get_profile(profile)
    rng = random.Random(size * 10 + decks)
    cards = shoe(decks, jokers)
    checked = 0
    for _ in range(examples(600)):
        picks = rng.sample(cards, size + 1)
        hand, cut = picks[1:], picks[0]
        deal = solver_internals._Deal(cut, prof)
        codes = [card.code for card in hand]
        ordered = tuple(sorted(codes))
        total = sum(deal.points[c] for c in codes)
        ranks = [[0] * 13 for _ in range(4)]
        for card in hand:
            if card.suit is not None:
                ranks[int(card.suit)][card.rank - 1] += 1
        suits = [suit_internals.pack(counts) for counts in ranks]
        if any(suit_internals.lays_pure(vec, prof.identical_triple_pure) for vec in suits):
            continue
        checked += 1
        discard_mode = size == prof.hand_size + 1
        args = (codes, ordered, deal, prof, discard_mode, total, suits)
        assert solver_internals._nothing_melds(*args) == solver_internals._solve_melds(*args), (
            describe(hand, cut, profile)
        )
    assert checked > examples(100)


def test_memos_keep_two_generations_of_what_is_used() -> None:
    """A budget's memos hold at most two generations: when the budget has taken its limit of
    new entries, every memo's entries become its previous generation and the older ones go; an
    entry read from the previous generation comes back into the current one."""
    budget = suit_internals.Budget(4)
    first: suit_internals.Memo[int, str] = suit_internals.Memo(budget)
    second: suit_internals.Memo[int, str] = suit_internals.Memo(budget)
    for key in range(4):
        (first if key % 2 else second).put(key, str(key))
    assert len(first) + len(second) == 4 and first.get(1) == "1"
    first.put(10, "10")  # the fifth new entry: a new generation
    assert first.current == {10: "10"} and first.previous == {1: "1", 3: "3"}
    assert second.current == {} and second.previous == {0: "0", 2: "2"}
    assert second.get(2) == "2" and second.current == {2: "2"}  # used, so kept
    for key in range(20, 24):
        second.put(key, str(key))
    assert first.get(3) is None and second.get(0) is None  # unused for two generations
    assert second.get(2) == "2" and first.get(10) == "10"
    assert sum(len(memo) for memo in budget.memos) <= 2 * budget.limit


def test_a_forgotten_generation_is_freed_a_few_entries_at_a_time() -> None:
    """Freeing a whole generation at once stalled the hand that turned the budget: the forgotten
    one is handed to the budget and freed a few entries with each new entry."""
    budget = suit_internals.Budget(12)
    memo: suit_internals.Memo[int, str] = suit_internals.Memo(budget)
    for key in range(26):  # two turns: the first generation (0-11) is forgotten at the second
        memo.put(key, str(key))
    assert memo.current == {25: "25"} and set(memo.previous) == set(range(12, 25))
    forgotten = budget.dropped[0]
    assert len(forgotten) == 12 - suit_internals.RELEASE_PER_ENTRY  # (the 26th entry freed some)
    assert set(forgotten) < set(range(12)) and memo.get(0) is None
    for key in range(100, 104):
        memo.put(key, str(key))
    assert budget.dropped == [] and not forgotten  # all of it freed, in four more entries


# Hands the soak campaign (or a failing run) found, with the reference's answer: (penalty,
# declarable, Marriage 2-point shape). The reference needs ~25 s for the 17-wild-card hand, so the
# answers are written out here (each checked by hand as well).
FOUND_HANDS = [
    # four tunnelas and the upper joker (2♠ natural in 2♠ 3♠ 4♠ or left over at 0)
    ("3S 4S 3H 4H 3S 4S 3H 4H 3S 4S 3H 4H 2S", "AS", MARRIAGE, (0, True, False)),
    # 17 wild cards: tunnelas 9♦ 9♦ 9♦ | J♦ J♦ J♦ | JK JK JK meet the requirement, then
    # A♥ 2♥ 10♠ twice and the six other tens: everything melded
    (
        "JK 2H AH 10D AH 2H 10C JD 9D 10S JK 9D 10S 9D 10H 10D JD JD 10C JK 10H",
        "10D",
        MARRIAGE,
        (0, True, True),
    ),
    # a group of 8+ wild cards that is also a meld is named as the meld it is
    (
        "JK JK JK 5S 5S 5D 5C 5C 2C 3D 7S 8H 9C 10S JD QC KS AD 2S 3C 9D",
        "5H",
        MARRIAGE,
        (93, True, True),
    ),
    ("2S KS AH AD AC JK AS 2S KS", "AS", MARRIAGE, (0, True, True)),
]


@pytest.mark.parametrize(("text", "joker", "profile", "expected"), FOUND_HANDS)
def test_found_hands(text: str, joker: str, profile: str, expected: tuple[int, bool, bool]) -> None:
    result = solve(text, joker, profile)
    two_point = result.two_point_groups is not None
    assert (result.penalty, result.declarable, two_point) == expected


@pytest.mark.parametrize(
    ("text", "joker", "profile", "penalty", "declarable"),
    [
        (HAND_13, "7D", CLASSIC, 0, True),
        ("2S 5S 9S 3H 7H 4D 8D 6C AC 2H 6H 3C 9C", "JK", CLASSIC, 64, False),
        ("KS QS 9S KH 7H JD 8D 6C QC 2H 5H 3C 9C", "4D", MARRIAGE, 99, False),
        ("AH 2H 3H 5C 6C 7C 9S 9H 9D JS QS KS KD 3D", "8D", CLASSIC, 3, False),
        ("AH 2H 3H 5C 6C 7C 9S 9H 9D JS QS KS KD 3D", "8D", VENGALA, 80, False),
        ("5H 6H 7H 8H 2C 3C 4C 9S 9D 9H QS QD QC KD", "JD", VENGALA, 0, True),
        ("5H 6H 7H 2C 3C 4C 9S 9D 9H QS QD QC QH", "8D", VENGALA, 80, False),
        ("AH 2H 3H 4H 5H 6C 7C 8C 9C JK JK JK JK", "KD", VENGALA, 0, True),
        (
            "AS 2S 3S 4H 5H 6H 7D 8D 9D 10C JC QC KS KH KD 2H 2D 2C 5S 5C 5D",
            "4C",
            MARRIAGE,
            0,
            True,
        ),
        ("AS 2S 3S 4H 5H 6H 9C 9D 9H KD", "7C", MARRIAGE, 37, False),
        (
            "4S 4S 9H 9H KD KD 2C 2C JK JK 7S 7S QH QH 10C 10C 3D 5H 8C AS 6D",
            "JD",
            MARRIAGE,
            120,
            True,
        ),
        (
            "8S 8S 8S 4H 4H 4H JK JK JK 2C 5D 9S KH QD 7C 3S 10D JC AS 5C 8H",
            "6S",
            MARRIAGE,
            89,
            True,
        ),
    ],
)
def test_reference_on_known_hands(
    text: str, joker: str, profile: str, penalty: int, declarable: bool
) -> None:
    """The reference itself, on the hands above whose answers were worked out by hand."""
    expected = ref.solve(parse_cards(text), parse(joker), profile)
    assert (expected.penalty, expected.declarable) == (penalty, declarable)


# ------------------------------------------------------------------- the reference, checked


@settings(max_examples=examples(40), deadline=None, derandomize=True, database=None)
@given(
    st.sampled_from([CLASSIC, VENGALA, MARRIAGE]).flatmap(
        lambda p: st.tuples(st.just(p), dense_deal(p, 3, 2, (1, 8)))
    )
)
def test_reference_search_matches_every_grouping(case: tuple[str, tuple[list[Card], Card]]) -> None:
    profile, (hand, cut) = case
    assert ref.solve(hand, cut, profile) == ref.solve_by_partitions(hand, cut, profile)


@settings(max_examples=examples(40), deadline=None, derandomize=True, database=None)
@given(
    st.sampled_from([CLASSIC, VENGALA, MARRIAGE]).flatmap(
        lambda p: st.tuples(st.just(p), dense_deal(p, 3, 2, (3, 11)))
    )
)
def test_reference_meld_list_is_complete(case: tuple[str, tuple[list[Card], Card]]) -> None:
    profile, (hand, cut) = case
    codes = [card.code for card in hand]
    wild = ref.wild_codes(cut, profile)
    assert ref.hand_melds(codes, wild, profile) == ref.hand_melds_by_subsets(codes, wild, profile)


def test_reference_declarations_agree_with_check() -> None:
    cases = [
        ("AH 2H 3H 4H | 5C 6C 7C | 9S 9H 9D | KS KH KC", "7D", CLASSIC),
        ("AH 2H 3H KS | 2C 3C 4C | 5H 5S 5D | KH KD KC", "KD", VENGALA),
        ("JK 8H 9H 10H | 2C 3C 4C | 5H AC 5D | KS KH KC", "JK", VENGALA),
        (
            "AS 2S 3S | 4H 5H 6H | 7D 8D 9D | 10C JC QC | KS KH KD | 2H 2D 2C | 5S 5C 5D",
            "4C",
            MARRIAGE,
        ),
    ]
    for groups, joker, profile in cases:
        hand = [card for group in parse_groups(groups) for card in group]
        assert check(parse_groups(groups), joker=parse(joker), profile=profile).declarable
        assert ref.solve(hand, parse(joker), profile) == ref.Reference(0, True, profile == MARRIAGE)


# ------------------------------------------------------------------------------ command line

HAND_14 = "AH 2H 3H 5C 6C 7C 9S 9H 9D JS QS KS KD 3D"


def groups_of(answer: dict[str, object]) -> list[list[Card]]:
    groups = answer["groups"]
    assert isinstance(groups, list)
    return [parse_cards(group) for group in groups]


def test_cli_arrange_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["arrange", "--profile", "indian13/classic", "--joker", "7D", HAND_13, "--json"])
    assert code == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["penalty"] == 0
    assert answer["declarable"] is True
    assert answer["leftover"] == ""
    assert "discard" not in answer
    assert len(answer["kinds"]) == len(answer["groups"])
    assert {kind for kind in answer["kinds"]} <= {kind.value for kind in Kind}
    cards = [card for group in groups_of(answer) for card in group]
    assert Counter(cards) == Counter(parse_cards(HAND_13))


def test_cli_arrange_json_with_discard(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["arrange", "--profile", "classic", "--joker", "8D", HAND_14, "--json"])
    assert code == 0
    answer = json.loads(capsys.readouterr().out)
    assert (answer["penalty"], answer["declarable"]) == (3, False)
    assert answer["discard"] == "KD"
    assert answer["leftover"] == "3D"
    cards = [card for group in groups_of(answer) for card in group] + parse_cards(
        answer["leftover"]
    )
    assert Counter([*cards, parse(answer["discard"])]) == Counter(parse_cards(HAND_14))


def test_cli_arrange_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arrange", "--joker", "8D", HAND_14]) == 0
    out = capsys.readouterr().out
    assert "penalty 3, not declarable" in out
    assert "discard KD" in out
    assert main(["arrange", "--profile", "vengala", "--joker", "7D", HAND_13]) == 0
    assert "penalty 0, declarable" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["arrange", "--joker", "7D", "AH 2H ZZ"], "ZZ"),
        (["arrange", "--joker", "7X", HAND_13], "7X"),
        (["arrange", "--profile", "gin", "--joker", "7D", HAND_13], "gin"),
        (["arrange", HAND_13], "--joker"),
    ],
)
def test_cli_arrange_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err


def test_cli_batch(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    marriage = "AS 2S 3S 4H 5H 6H 7D 8D 9D 10C JC QC KS KH KD 2H 2D 2C 5S 5C 5D"
    lines = [
        json.dumps({"hand": HAND_13, "joker": "7D", "profile": "indian13/classic"}),
        json.dumps({"hand": "AH 2H ZZ", "joker": "7D", "profile": "classic"}),
        json.dumps({"hand": HAND_13, "joker": "7D", "profile": "gin"}),
        "this is not JSON",
        "",
        json.dumps({"hand": HAND_14, "joker": "8D", "profile": "indian13/classic"}),
        json.dumps({"hand": HAND_13, "joker": "7D"}),
        json.dumps(["not", "an", "object"]),
        json.dumps({"hand": HAND_13, "joker": "1X", "profile": "vengala"}),
        json.dumps({"hand": marriage, "joker": "4C", "profile": "marriage21"}),
    ]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    assert main(["arrange", "--batch"]) == 0
    answers = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(answers) == 9  # the blank line is skipped

    assert (answers[0]["penalty"], answers[0]["declarable"]) == (0, True)
    assert "ZZ" in answers[1]["error"]
    assert "gin" in answers[2]["error"]
    assert "JSON" in answers[3]["error"]
    assert (answers[4]["penalty"], answers[4]["discard"]) == (3, "KD")
    assert "profile" in answers[5]["error"]
    assert "error" in answers[6]
    assert "1X" in answers[7]["error"]
    assert (answers[8]["penalty"], answers[8]["declarable"]) == (0, True)
    assert "two_point_groups" in answers[8]
    for answer in (answers[0], answers[4], answers[8]):
        assert "error" not in answer
    for answer in (answers[1], answers[2], answers[3], answers[5], answers[6], answers[7]):
        assert set(answer) == {"error"}

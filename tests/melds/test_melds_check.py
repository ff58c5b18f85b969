"""The group classifier and the judge of a player's grouping (`classify`, `check`, `Wilds`).

Every example of the rule pages (/work/shared/rules) is here in card notation; where a page lost its
suit symbols they are filled in as the example needs them. docs/melds.md is the specification.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference_solver import classify_codes, judge_grouping, rules_of, wild_codes
from reference_solver import points as reference_points
from reference_solver import requirement_met as reference_requirement
from rummyhall.cards import Card, format_groups, from_code, parse, parse_cards, parse_groups
from rummyhall.melds import (
    INDIAN13_CLASSIC,
    INDIAN13_VENGALA,
    MARRIAGE21,
    Kind,
    Verdict,
    Wilds,
    check,
    classify,
    get_profile,
)

CLASSIC = "indian13/classic"
VENGALA = "indian13/vengala"
MARRIAGE = "marriage21"
PROFILES = (CLASSIC, VENGALA, MARRIAGE)

PURE = Kind.PURE_SEQUENCE
IMPURE = Kind.IMPURE_SEQUENCE
SET = Kind.SET
TUNNELA = Kind.TUNNELA
DUBLEE = Kind.DUBLEE
JOKERS = Kind.JOKERS
INVALID = Kind.INVALID


def kind_of(cards: str, joker: str, profile: str) -> Kind:
    prof = get_profile(profile)
    return classify([card.code for card in parse_cards(cards)], Wilds.of(parse(joker), prof), prof)


def verdict(groups: str, joker: str, profile: str) -> Verdict:
    return check(parse_groups(groups), joker=parse(joker), profile=profile)


def codes(text: str) -> set[int]:
    return {card.code for card in parse_cards(text)}


def assert_declaration(result: Verdict) -> None:
    assert result.declarable, result.reason
    assert result.reason is None
    assert result.score == 0


def assert_no_declaration(result: Verdict, score: int) -> None:
    assert not result.declarable
    assert isinstance(result.reason, str) and result.reason
    assert result.score == score


# ------------------------------------------------------------------------------------- classify

CLASSIC_PAGE = [
    # "5 3 7 is a sequence where 3 is the joker and is used in place of 6"
    ("3D", "5H 3S 7H", IMPURE),
    ("3D", "5H 3H 7H", IMPURE),
    # a printed joker cut: aces are jokers
    ("JK", "4S AH 6S", IMPURE),
    ("JK", "5H AC 5D", SET),
    # "Sequence: 5 6 7"; "5 6 7 is a pure sequence even if 6 is the Joker"
    ("9C", "5H 6H 7H", PURE),
    ("6D", "5H 6H 7H", PURE),
    ("6D", "5H 6S 7H", IMPURE),
    # "Set: 3 3 3 or 7 7 7 7"; "7 7 7 (same suit twice) is not a valid set"
    ("9C", "3S 3H 3D", SET),
    ("9C", "7S 7H 7D 7C", SET),
    ("9C", "7H 7H 7D", INVALID),
    ("9C", "7H 7H 7H", INVALID),
    # "A Joker can be used in a pure sequence if it is of the same suit and forms running cards"
    ("8C", "6C 7C 8C 9C", PURE),
    ("8C", "6C 7C 8D 9C", IMPURE),
]

VENGALA_PAGE = [
    # pure sequences: 5 6 7, A K Q J, A 2 3; K A 2 is not a sequence
    ("2C", "5H 6H 7H", PURE),
    ("2C", "AH KH QH JH", PURE),
    ("9C", "AH 2H 3H", PURE),
    ("9C", "KH AH 2H", INVALID),
    # three identical cards: 9 9 9 and J♠ J♠ J♠
    ("2C", "9H 9H 9H", TUNNELA),
    ("2C", "JS JS JS", TUNNELA),
    # K wild: 4♣ 5♣ PJ 7♣ and 4♣ 5♣ K 7♣ are impure
    ("KD", "4C 5C JK 7C", IMPURE),
    ("KD", "4C 5C KH 7C", IMPURE),
    # J♠ joker: 5 J♠ 7 impure, A K Q J pure, A J♠ Q J impure
    ("JS", "5H JS 7H", IMPURE),
    ("JS", "AD KD QD JD", PURE),
    ("JS", "AD JS QD JD", IMPURE),
    # sets: 7 7♣ 7, K K♣ K K♠; 7 7 7 with a repeated suit is not a set
    ("2C", "7H 7C 7D", SET),
    ("2C", "KH KC KD KS", SET),
    ("2C", "7H 7H 7D", INVALID),
    # K wild: 4♣ 4 PJ 4 and A♣ A K A♠ are impure sets
    ("KD", "4C 4H JK 4D", SET),
    ("KD", "AC AH KH AS", SET),
    # 6 wild: 4♣ 5♣ 6 7♣ impure, 4♣ 5♣ 6♣ 7♣ pure, A♣ K♣ 6 J♣ impure
    ("6D", "4C 5C 6H 7C", IMPURE),
    ("6D", "4C 5C 6C 7C", PURE),
    ("6D", "AC KC 6H JC", IMPURE),
    # printed joker: A♣ K♣ PJ J♣ impure; A PJ A♣ A a set
    ("2S", "AC KC JK JC", IMPURE),
    ("2S", "AH JK AC AD", SET),
    # glossary, 3♠ wild: 2 3♠ 4 5 and 2 PJ 4 5 impure; 9 9♠ 9♣ 9 set; J♠ J♠ J not a set;
    # 9 3♠ 9♣ 9 and 9 PJ 9♣ 9 impure sets
    ("3D", "2H 3S 4H 5H", IMPURE),
    ("3D", "2H JK 4H 5H", IMPURE),
    ("3D", "9H 9S 9C 9D", SET),
    ("3D", "JS JS JH", INVALID),
    ("3D", "9H 3S 9C 9D", SET),
    ("3D", "9H JK 9C 9D", SET),
    # only one card standing in per sequence or set
    ("KD", "4C JK JK 7C", INVALID),
    ("KD", "4C KS JK 7C", INVALID),
    ("KD", "4C 4H JK KS", INVALID),
    ("KD", "4C JK 6C 7C", IMPURE),
    # printed jokers are no tunnela in vengala, and jokers alone are no meld
    ("2C", "JK JK JK", JOKERS),
]

MARRIAGE_PAGE = [
    # cut 5H: lower 4H and upper 6H are jokers, natural in their own places
    ("5H", "4H 5H 6H", PURE),
    ("5H", "3H 4H 5H 6H 7H", PURE),
    ("5H", "9S 6H JS", IMPURE),
    ("5H", "9S 4H JS", IMPURE),
    # "the Upper Joker 2 can be used to form a pure sequence with 3 and 4 of the same suit";
    # "9, 10, 2 is an impure sequence"
    ("AH", "2H 3H 4H", PURE),
    ("AH", "9S 10S 2H", IMPURE),
    # tunnela: 8 8 8 of one suit, or three printed jokers; a joker cannot make a tunnela
    ("2C", "8S 8S 8S", TUNNELA),
    ("2C", "JK JK JK", TUNNELA),
    ("2C", "8S 8S JK", INVALID),
    # dublee: two identical cards, or two printed jokers; a joker cannot make one
    ("2C", "4S 4S", DUBLEE),
    ("2C", "JK JK", DUBLEE),
    ("2C", "4S JK", INVALID),
    ("2C", "4S 4H", INVALID),
    # a marriage (cut, upper, lower of one suit) in its natural places
    ("8H", "7H 8H 9H", PURE),
]

DECISIONS = [
    # ace low or high, never wrapping
    (CLASSIC, "9C", "AH 2H 3H", PURE),
    (CLASSIC, "9C", "QH KH AH", PURE),
    (CLASSIC, "9C", "JH QH KH AH", PURE),
    (CLASSIC, "9C", "KH AH 2H", INVALID),
    (CLASSIC, "9C", "QH KH AH 2H", INVALID),
    (CLASSIC, "9C", "KH AH 2H JK", INVALID),
    (CLASSIC, "5C", "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", PURE),
    (CLASSIC, "5C", "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", PURE),
    (CLASSIC, "5C", "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH JK", INVALID),
    (CLASSIC, "5C", "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH JK", IMPURE),
    # sets of 3 or 4, suits all different
    (CLASSIC, "9C", "7S 7H 7D", SET),
    (CLASSIC, "9C", "7S 7H 7D 7C", SET),
    (CLASSIC, "9C", "7S 7H 7D 7C 7S", INVALID),
    (CLASSIC, "9C", "7S 7H 7D 7C JK", INVALID),
    (CLASSIC, "9C", "7H 7H 7D", INVALID),
    (CLASSIC, "9C", "7H 7D", INVALID),
    (CLASSIC, "9C", "7S 7H 7D JK", SET),
    (CLASSIC, "9C", "7S JK JK", IMPURE),  # 5♠ 6♠ 7♠ with two jokers beats a set
    (CLASSIC, "9C", "7S 7H JK JK", SET),
    # a wild card in its own place keeps a sequence pure
    (CLASSIC, "6D", "5S 6S 7S", PURE),
    (VENGALA, "6D", "5S 6S 7S", PURE),
    (MARRIAGE, "6D", "5D 6D 7D", PURE),
    # a printed joker cut makes aces wild
    (CLASSIC, "JK", "AH 2H 3H", PURE),
    (CLASSIC, "JK", "2H AS 4H", IMPURE),
    (CLASSIC, "JK", "QH KH AS", IMPURE),
    (CLASSIC, "JK", "QH KH AH", PURE),
    (CLASSIC, "9C", "2H AS 4H", INVALID),
    # vengala: at most one card standing in per meld; classic any number
    (VENGALA, "KD", "4C JK 6C 7C", IMPURE),
    (VENGALA, "KD", "4C JK JK 7C", INVALID),
    (CLASSIC, "KD", "4C JK JK 7C", IMPURE),
    (VENGALA, "KD", "4C 4H JK KS", INVALID),
    (CLASSIC, "KD", "4C 4H JK KS", SET),
    (VENGALA, "KD", "4C 4H JK", SET),
    # three identical cards: a pure sequence in vengala (and Marriage), nothing in classic
    (VENGALA, "2D", "9H 9H 9H", TUNNELA),
    (MARRIAGE, "2D", "9H 9H 9H", TUNNELA),
    (CLASSIC, "2D", "9H 9H 9H", INVALID),
    (VENGALA, "2D", "9H 9H", INVALID),
    (CLASSIC, "2D", "9H 9H", INVALID),
    (VENGALA, "2D", "9H 9H 9H 9H", INVALID),
    # jokers alone are not a meld
    (CLASSIC, "9C", "JK JK JK", JOKERS),
    (CLASSIC, "9C", "JK JK JK JK", JOKERS),
    (CLASSIC, "9C", "JK", JOKERS),
    (CLASSIC, "9C", "9H JK", JOKERS),
    (VENGALA, "9C", "JK JK", JOKERS),
    (MARRIAGE, "9C", "JK JK JK JK", JOKERS),
    (MARRIAGE, "9C", "JK 9H 10C", IMPURE),  # 9♥ natural: 9♥ 10♥ J♥
    (CLASSIC, "9C", "AS", INVALID),
    (CLASSIC, "9C", "", INVALID),
]

# docs/melds.md: a wild card may be used as itself, so a group of wild cards can still hold a
# natural card and be a meld.
DOCS_EDGES = [
    (CLASSIC, "7D", "7H 7H 7H", IMPURE),  # 7♥ natural, the others stand in for 5♥ 6♥
    (CLASSIC, "7D", "7S 7H 7C", IMPURE),  # 7♠ natural, 7♥ 7♣ standing in: a sequence beats a set
    (CLASSIC, "7D", "7S 7H JK", IMPURE),
    (VENGALA, "7D", "7S 7H JK", SET),  # 1 card standing in: the set, not the 2-joker sequence
    (VENGALA, "7D", "7S 7H 7C", SET),
    (VENGALA, "7D", "7H 7H 7H", TUNNELA),
    (MARRIAGE, "7D", "7D 7D", DUBLEE),
    (MARRIAGE, "5H", "4H 4H 4H", TUNNELA),
    (MARRIAGE, "5H", "JK JK 4H", IMPURE),  # 4♥ natural
]


@pytest.mark.parametrize(("joker", "cards", "kind"), CLASSIC_PAGE)
def test_classic_page_examples(joker: str, cards: str, kind: Kind) -> None:
    assert kind_of(cards, joker, CLASSIC) is kind


@pytest.mark.parametrize(("joker", "cards", "kind"), VENGALA_PAGE)
def test_vengala_page_examples(joker: str, cards: str, kind: Kind) -> None:
    assert kind_of(cards, joker, VENGALA) is kind


@pytest.mark.parametrize(("joker", "cards", "kind"), MARRIAGE_PAGE)
def test_marriage_page_examples(joker: str, cards: str, kind: Kind) -> None:
    assert kind_of(cards, joker, MARRIAGE) is kind


@pytest.mark.parametrize(("profile", "joker", "cards", "kind"), DECISIONS + DOCS_EDGES)
def test_decisions_and_docs(profile: str, joker: str, cards: str, kind: Kind) -> None:
    assert kind_of(cards, joker, profile) is kind


@pytest.mark.parametrize(
    ("profile", "joker", "cards", "kind"),
    [(p, j, c, k) for j, c, k in CLASSIC_PAGE for p in (CLASSIC,)]
    + [(VENGALA, j, c, k) for j, c, k in VENGALA_PAGE]
    + [(MARRIAGE, j, c, k) for j, c, k in MARRIAGE_PAGE]
    + DECISIONS
    + DOCS_EDGES,
)
def test_reference_classifier_agrees_on_examples(
    profile: str, joker: str, cards: str, kind: Kind
) -> None:
    wild = wild_codes(parse(joker), profile)
    assert classify_codes([c.code for c in parse_cards(cards)], wild, profile) == kind.value


@pytest.mark.parametrize("profile", PROFILES)
def test_classify_ignores_card_order(profile: str) -> None:
    for cards in ("QH KH AH", "AH KH QH JH", "7S 7H 7D 7C", "4C JK 6C 7C"):
        forward = kind_of(cards, "9C", profile)
        backward = kind_of(" ".join(reversed(cards.split())), "9C", profile)
        assert forward is backward


def test_kind_properties() -> None:
    assert {k for k in Kind if k.is_meld} == {PURE, IMPURE, SET, TUNNELA}
    assert {k for k in Kind if k.is_sequence} == {PURE, IMPURE, TUNNELA}
    assert {k for k in Kind if k.is_pure} == {PURE, TUNNELA}


# ----------------------------------------------------------------------------------- wild cards


def test_wild_cards_classic_and_vengala() -> None:
    for profile in (INDIAN13_CLASSIC, INDIAN13_VENGALA):
        wilds = Wilds.of(parse("KH"), profile)
        assert wilds.codes == codes("KS KH KD KC JK")
        assert wilds.wild_rank == 13
        assert wilds.value_codes is None
        wilds = Wilds.of(parse("JK"), profile)
        assert wilds.codes == codes("AS AH AD AC JK")
        assert wilds.wild_rank == 1


@pytest.mark.parametrize(
    ("joker", "cut", "upper", "lower", "rank"),
    [
        ("5H", "5H", "6H", "4H", 5),
        ("KH", "KH", "AH", "QH", 13),  # the ace follows the king
        ("AD", "AD", "2D", "KD", 1),  # and precedes the two
        ("2C", "2C", "3C", "AC", 2),
        ("QS", "QS", "KS", "JS", 12),
        ("JK", "AS", "2S", "KS", 1),  # a printed joker cut: A♠ cut joker, 2♠ upper, K♠ lower
    ],
)
def test_marriage_upper_and_lower_jokers(
    joker: str, cut: str, upper: str, lower: str, rank: int
) -> None:
    wilds = Wilds.of(parse(joker), MARRIAGE21)
    assert wilds.value_codes == (parse(cut).code, parse(upper).code, parse(lower).code)
    rank_text = {1: "A", 13: "K", 12: "Q"}.get(rank, str(rank))
    same_rank = " ".join(rank_text + suit for suit in "SHDC")
    assert wilds.codes == codes(f"{same_rank} {upper} {lower} JK")
    assert wilds.wild_rank == rank


@pytest.mark.parametrize("profile", PROFILES)
def test_reference_wild_cards_agree(profile: str) -> None:
    prof = get_profile(profile)
    for code in range(53):
        cut = from_code(code)
        assert Wilds.of(cut, prof).codes == wild_codes(cut, profile), str(cut)


def test_marriage_value_jokers_stand_in() -> None:
    # cut K♥: A♥ (upper) and Q♥ (lower) are wild
    assert kind_of("5C AH 7C", "KH", MARRIAGE) is IMPURE
    assert kind_of("5C QH 7C", "KH", MARRIAGE) is IMPURE
    assert kind_of("5C AS 7C", "KH", MARRIAGE) is INVALID
    # cut A♦: K♦ is the lower joker
    assert kind_of("5C KD 7C", "AD", MARRIAGE) is IMPURE
    assert kind_of("5C KH 7C", "AD", MARRIAGE) is INVALID
    # printed joker cut: 2♠ upper, K♠ lower, aces wild
    assert kind_of("5C 2S 7C", "JK", MARRIAGE) is IMPURE
    assert kind_of("5C KS 7C", "JK", MARRIAGE) is IMPURE
    assert kind_of("5C AH 7C", "JK", MARRIAGE) is IMPURE
    assert kind_of("5C 2H 7C", "JK", MARRIAGE) is INVALID
    assert kind_of("5C KH 7C", "JK", MARRIAGE) is INVALID
    # not in the 13-card profiles
    assert kind_of("5C AH 7C", "KH", CLASSIC) is INVALID
    assert kind_of("5C 2S 7C", "JK", VENGALA) is INVALID


def test_marriage_value_jokers_score_zero() -> None:
    result = verdict("AH | QH | KS | 5C", "KH", MARRIAGE)
    assert result.score == 5
    result = verdict("AH | QH | KS | 5C", "KH", CLASSIC)
    assert result.score == 25


# ------------------------------------------------------------------------ vengala page, declared

VENGALA_VALID = [
    # Example #1: A K Q J | 2♣ 3♣ 4♣ | 5 5♠ 5 | K K K♣
    ("AH KH QH JH | 2C 3C 4C | 5H 5S 5D | KS KD KC", "9S", [PURE, PURE, SET, SET]),
    # Example #2, K wild: A 2 3 K | 2♣ 3♣ 4♣ | 5 5♠ 5 | K K K♣
    ("AH 2H 3H KS | 2C 3C 4C | 5H 5S 5D | KH KD KC", "KD", [IMPURE, PURE, SET, SET]),
    # Example #3, printed joker cut: PJ 8 9 10 | 2♣ 3♣ 4♣ | 5 A♣ 5 | K K K♣
    ("JK 8H 9H 10H | 2C 3C 4C | 5H AC 5D | KS KH KC", "JK", [IMPURE, PURE, SET, SET]),
    # first / second / third combinations of First Life and Second Life
    ("5H 6H 7H | AD KD QD JD | 9S 9H 9C | 2S 2H 2C", "8C", [PURE, PURE, SET, SET]),
    ("5H JS 7H | AD KD QD JD | 9S 9H 9C | 2S 2H 2C", "JS", [IMPURE, PURE, SET, SET]),
    ("5H 6H 7H | AD JS QD JD | 9S 9H 9C | 2S 2H 2C", "JS", [PURE, IMPURE, SET, SET]),
    # "9 9 9 can be treated as a first life" (three decks)
    ("9H 9H 9H | 5D 6D JK 8D | 2S 2H 2C | KS KH KC", "4C", [TUNNELA, IMPURE, SET, SET]),
]


@pytest.mark.parametrize(("groups", "joker", "kinds"), VENGALA_VALID)
def test_vengala_valid_declarations(groups: str, joker: str, kinds: list[Kind]) -> None:
    result = verdict(groups, joker, VENGALA)
    assert [group.kind for group in result.groups] == kinds
    assert [group.cards for group in result.groups] == parse_groups(groups)
    assert_declaration(result)
    assert not result.two_point


def test_vengala_invalid_1_repeated_suit_in_set() -> None:
    # A K Q J | 2♣ 3♣ 4♣ 5♣ 6♣ | 6 6 6 6♣ (two sixes of one suit)
    groups = "AH KH QH JH | 2C 3C 4C 5C 6C | 6H 6H 6S 6C"
    result = verdict(groups, "9D", VENGALA)
    assert [g.kind for g in result.groups] == [PURE, PURE, INVALID]
    assert_no_declaration(result, 24)  # requirement met: only the bad set counts
    assert "3" in (result.reason or "")
    assert_no_declaration(verdict(groups, "9D", CLASSIC), 24)


def test_vengala_invalid_2_no_sequence() -> None:
    # 3 3♠ 3 3♣ | 6 6♠ 6 | A A♣ A | 5 5♠ 5
    groups = "3H 3S 3D 3C | 6H 6S 6D | AH AC AD | 5H 5S 5D"
    result = verdict(groups, "9D", VENGALA)
    assert [g.kind for g in result.groups] == [SET, SET, SET, SET]
    assert_no_declaration(result, 75)
    assert_no_declaration(verdict(groups, "9D", CLASSIC), 75)


def test_vengala_invalid_3_one_sequence() -> None:
    # K wild: A 2 3 4 | 5♣ 5♠ 5 | 6 6♠ 6 | 3 3♠ 3
    groups = "AH 2H 3H 4H | 5C 5S 5D | 6H 6S 6D | 3D 3S 3C"
    result = verdict(groups, "KD", VENGALA)
    assert [g.kind for g in result.groups] == [PURE, SET, SET, SET]
    assert_no_declaration(result, 61)  # vengala: every card counts
    assert_no_declaration(
        verdict(groups, "KD", CLASSIC), 42
    )  # classic: the pure sequence is exempt


def test_vengala_invalid_4_no_pure_sequence() -> None:
    # K wild: A 2 K | 2♣ K 4♣ 5♣ 6♣ | 6 6 6 6♣
    groups = "AH 2H KS | 2C KD 4C 5C 6C | 6H 6S 6D 6C"
    result = verdict(groups, "KH", VENGALA)
    assert [g.kind for g in result.groups] == [IMPURE, IMPURE, SET]
    assert_no_declaration(result, 53)
    assert_no_declaration(verdict(groups, "KH", CLASSIC), 53)


def test_vengala_invalid_5_no_sequence_of_four() -> None:
    # K wild: 8 9 10 | 2♣ 3♣ 4♣ | 5 5♠ 5 | Q Q Q♣ K
    groups = "8H 9H 10H | 2C 3C 4C | 5H 5S 5D | QH QD QC KS"
    result = verdict(groups, "KD", VENGALA)
    assert [g.kind for g in result.groups] == [PURE, PURE, SET, SET]
    assert_no_declaration(result, 80)  # 81 capped
    # classic needs no sequence of four
    assert_declaration(verdict(groups, "KD", CLASSIC))
    # "K should have been placed with either of the pure sequences"
    fixed = "8H 9H 10H KS | 2C 3C 4C | 5H 5S 5D | QH QD QC"
    assert_declaration(verdict(fixed, "KD", VENGALA))
    fixed = "8H 9H 10H | 2C 3C 4C KS | 5H 5S 5D | QH QD QC"
    assert_declaration(verdict(fixed, "KD", VENGALA))


# ----------------------------------------------------------------------- declarations, 13 cards


def test_classic_declaration() -> None:
    groups = "AH 2H 3H | 4S 5S JK 7S | 9C 9D 9H | KS KH KD"
    result = verdict(groups, "2D", CLASSIC)  # 2♥ wild but in its own place
    assert [g.kind for g in result.groups] == [PURE, IMPURE, SET, SET]
    assert_declaration(result)
    # vengala: the impure sequence of four is the long one
    assert_declaration(verdict(groups, "2D", VENGALA))


def test_classic_needs_a_pure_sequence() -> None:
    groups = "AH 2H JK | 4S 5S JK 7S | 9C 9D 9H | 2S 2D 2C"
    assert_no_declaration(verdict(groups, "8C", CLASSIC), 12 + 16 + 27 + 6)  # no pure: all count
    groups = "AH 2H JK | 4S 5S JK 7S | 9C 9D 9H | KS KH KD"
    assert_no_declaration(verdict(groups, "8C", CLASSIC), 80)  # 85, capped
    groups = "AH 2H 3H | 4C 4D 4H 4S | 2S 2D 2C | 5C 5D 5H"
    assert_no_declaration(verdict(groups, "8C", CLASSIC), 16 + 6 + 15)  # the pure one is exempt


def test_loose_jokers() -> None:
    groups = "AH 2H 3H | 4S 5S 6S 7S | 9C 9D 9H 9S | JK 8D"
    # classic: jokers must be in melds
    result = verdict(groups, "8C", CLASSIC)
    assert [g.kind for g in result.groups] == [PURE, PURE, SET, JOKERS]
    assert_no_declaration(result, 0)
    # vengala: unused jokers may be shown apart, worth 0
    assert_declaration(verdict(groups, "8C", VENGALA))
    assert_declaration(verdict("AH 2H 3H | 4S 5S 6S 7S | 9C 9D 9H 9S | JK | 8D", "8C", VENGALA))
    # a natural card in the loose group spoils it
    result = verdict("AH 2H 3H | 4S 5S 6S 7S | 9C 9D 9H | 2C JK", "8C", VENGALA)
    assert_no_declaration(result, 2)


def test_jokers_alone_are_not_a_meld() -> None:
    groups = "AH 2H 3H 4H | 4S 5S 6S | 9C 9D 9H | JK JK JK"
    result = verdict(groups, "8C", CLASSIC)
    assert result.groups[-1].kind is JOKERS
    assert_no_declaration(result, 0)
    assert_declaration(verdict(groups, "8C", VENGALA))  # loose jokers
    result = verdict(groups, "8C", MARRIAGE)
    assert result.groups[-1].kind is TUNNELA  # three printed jokers


def test_vengala_three_identical_cards_are_a_pure_sequence() -> None:
    groups = "9H 9H 9H | 2C 3C 4C 5C | 7S 7D 7H | KS KD KC"
    assert_declaration(verdict(groups, "6D", VENGALA))
    result = verdict(groups, "6D", CLASSIC)
    assert result.groups[0].kind is INVALID
    assert_no_declaration(result, 27 + 21 + 30)  # one sequence only: the pure one is exempt


def test_vengala_one_joker_per_meld_in_a_declaration() -> None:
    groups = "AH 2H 3H 4H | 6C JK JK 9C | 5S 5D 5H"
    assert_declaration(verdict(groups, "KD", CLASSIC))
    result = verdict(groups, "KD", VENGALA)
    assert [g.kind for g in result.groups] == [PURE, INVALID, SET]
    assert_no_declaration(result, 19 + 15 + 15)  # one sequence: every card counts


def test_check_keeps_groups_and_cards() -> None:
    groups = parse_groups("AH 2H 3H | 9C JK | 5S")
    result = check(groups, joker=parse("KD"), profile=INDIAN13_CLASSIC)
    assert [g.cards for g in result.groups] == groups
    assert [g.kind for g in result.groups] == [PURE, INVALID, INVALID]
    assert result.score == 14
    assert check([], joker=parse("KD"), profile=CLASSIC).score == 0
    assert not check([], joker=parse("KD"), profile=CLASSIC).declarable


def test_check_accepts_profile_names_and_aliases() -> None:
    groups = parse_groups("AH 2H 3H | 4S 5S 6S 7S | 9C 9D 9H | KS KH KD")
    for name in ("indian13/classic", "classic", "indian13/vengala", "vengala"):
        assert check(groups, joker=parse("8C"), profile=name).declarable
    with pytest.raises(ValueError, match="unknown profile"):
        check(groups, joker=parse("8C"), profile="gin")


# ---------------------------------------------------------------------------- losers' scores


def test_classic_scores() -> None:
    # requirement met (pure + impure): only the cards outside melds
    assert verdict("AH 2H 3H | 4S JK 6S | KD QC | 9C", "8D", CLASSIC).score == 29
    # a set does not help when the requirement is not met; the pure sequence is exempt
    assert verdict("AH 2H 3H | 9C 9D 9H | KD QC", "8D", CLASSIC).score == 47
    # no pure sequence: every card counts, jokers 0
    assert verdict("4S JK 6S | 9C 9D 9H | KD QC", "8D", CLASSIC).score == 57
    assert verdict("4S 8H 6S | 9C 9D 9H | KD QC 8S", "8D", CLASSIC).score == 57
    # capped at 80
    assert verdict("KS QS | KH QH | KD QD | KC QC | 9S", "8D", CLASSIC).score == 80
    # wild cards count 0 wherever they are
    assert verdict("8S | 8H | JK | 2C", "8D", CLASSIC).score == 2


def test_vengala_scores() -> None:
    # met: the cards outside melds
    assert verdict("AH 2H 3H 4H | 4S JK 6S | KD QC | 9C", "8D", VENGALA).score == 29
    # not met: every card counts, pure sequences too
    assert verdict("AH 2H 3H | 4S JK 6S | KD QC | 9C", "8D", VENGALA).score == 15 + 10 + 29
    assert verdict("AH 2H 3H | 9C 9D 9H | KD QC", "8D", VENGALA).score == 62
    assert verdict("AH 2H 3H 4H | 9C 9D 9H | KD QC | 5S 5H", "8D", VENGALA).score == 76
    assert verdict("AH 2H 3H 4H | 9C 9D 9H | KD QC | 5S 5H 6S", "8D", VENGALA).score == 80


def test_marriage_scores() -> None:
    # no pure sequence: every card counts
    assert verdict("4S JK 6S | 9C 9D 9H | KD QC", "2D", MARRIAGE).score == 57
    # 1 or 2 pure sequences: those are exempt
    assert verdict("AH 2H 3H | 4S JK 6S | 9C 9D 9H | KD QC", "5D", MARRIAGE).score == 57
    assert verdict("AH 2H 3H | 9C 9C 9C | 4S JK 6S | KD QC", "5D", MARRIAGE).score == 30
    # the upper joker (9♦ with 8♦ cut) counts 0
    assert verdict("AH 2H 3H | 4S JK 6S | 9C 9D 9H | KD QC", "8D", MARRIAGE).score == 48
    # 3 pure sequences: every meld exempt
    groups = "AH 2H 3H | 5C 5C 5C | 7D 8D 9D | 4S JK 6S | 9C 9S 9H | KD QC"
    assert verdict(groups, "JS", MARRIAGE).score == 20
    # dublees are no melds
    assert verdict("AH 2H 3H | 5C 5C 5C | 7D 8D 9D | KD KD", "JS", MARRIAGE).score == 20
    # capped at 120
    groups = "KS QS 9S | KH QH 9H | KD QD 9D | KC QC 9C | 9S 9S"
    assert verdict(groups, "4D", MARRIAGE).score == 120  # 134


def test_score_is_capped_per_profile() -> None:
    groups = "KS QS | KH QH | KD QD | KC QC | KS QS | KH QH | KD QD | KC QC | 9S"
    assert verdict(groups, "2D", CLASSIC).score == 80
    assert verdict(groups, "2D", VENGALA).score == 80
    assert verdict(groups, "2D", MARRIAGE).score == 120


# ---------------------------------------------------------------------------- Marriage shapes

JUNK_12 = "2C | 5D | 9S | KH | QD | 7C | 3S | 10D | JC | AS | 5C | 8H"  # nothing wild with cut 6♠


def test_marriage_three_pure_sequences_all_melded() -> None:
    groups = "AS 2S 3S | 4H 5H 6H | 7D 8D 9D | 10C JC QC | KS KH KD | 2H 2D 2C | 5S 5C 5D"
    result = verdict(groups, "4C", MARRIAGE)
    assert [g.kind for g in result.groups] == [PURE] * 4 + [SET] * 3
    assert_declaration(result)
    assert result.two_point


def test_marriage_three_pure_sequences_not_all_melded() -> None:
    groups = "AS 2S 3S | 4H 5H 6H | 7D 8D 9D | 10C JC QC | KS KH KD | 2H 2D | 5S 5C 5D 9C"
    result = verdict(groups, "4C", MARRIAGE)
    assert not result.declarable
    assert result.reason
    assert not result.two_point
    assert result.score == 4 + 5 + 0 + 5 + 9  # 5♣ is the upper joker


def test_marriage_two_pure_sequences_is_not_enough() -> None:
    groups = "AS 2S 3S | 4H 5H 6H | 7D JK 9D | 10C JC QC | KS KH KD | 2H 2D 2C | 5S 5C 5D"
    result = verdict(groups, "8C", MARRIAGE)
    assert [g.kind for g in result.groups] == [PURE, PURE, IMPURE, PURE, SET, SET, SET]
    assert result.declarable  # three pure sequences after all: A23, 456, 10JQ

    groups = "AS 2S 3S | 4H 5H 6H | 7D JK 9D | 10C JK QC | KS KH KD | 2H 2D 2C | 5S 5C 5D"
    result = verdict(groups, "8C", MARRIAGE)
    assert not result.declarable
    assert result.reason
    assert not result.two_point
    # the two pure sequences are exempt, everything else counts
    assert result.score == 7 + 9 + 10 + 10 + 30 + 6 + 15


def test_marriage_three_tunnelas_win() -> None:
    groups = f"8S 8S 8S | 4H 4H 4H | JK JK JK | {JUNK_12}"
    result = verdict(groups, "6S", MARRIAGE)
    assert [g.kind for g in result.groups[:3]] == [TUNNELA] * 3
    assert result.declarable
    assert result.reason is None
    assert not result.two_point
    # three tunnelas are three pure sequences: the requirement is met, the junk counts
    assert result.score == 2 + 5 + 9 + 10 + 10 + 7 + 3 + 10 + 10 + 10 + 5 + 8
    # two tunnelas are not enough
    result = verdict(f"8S 8S 8S | 4H 4H 4H | JK JK | JK | {JUNK_12}", "6S", MARRIAGE)
    assert not result.declarable
    assert result.reason


DUBLEES_8 = "4S 4S | 9H 9H | KD KD | 2C 2C | JK JK | 7S 7S | QH QH | 10C 10C"


def test_marriage_eight_dublees_win() -> None:
    result = verdict(f"{DUBLEES_8} | 3D | 5H | 8C | AS | 6D", "JD", MARRIAGE)
    assert [g.kind for g in result.groups[:8]] == [DUBLEE] * 8
    assert result.declarable
    assert result.reason is None
    assert result.two_point
    assert result.score == 120  # no pure sequence: 136 points, capped
    # together in one group they are no dublees
    result = verdict(
        "4S 4S 9H 9H KD KD 2C 2C JK JK 7S 7S QH QH 10C 10C 3D 5H 8C AS 6D", "JD", MARRIAGE
    )
    assert not result.declarable


def test_marriage_six_and_seven_dublees_are_two_point() -> None:
    six = "4S 4S | 9H 9H | KD KD | 2C 2C | JK JK | 7S 7S | QH | QH | 10C | 10C | 3D 5H 8C AS 6D"
    result = verdict(six, "JD", MARRIAGE)
    assert not result.declarable
    assert result.reason
    assert result.two_point
    seven = "4S 4S | 9H 9H | KD KD | 2C 2C | JK JK | 7S 7S | QH QH | 10C | 10C | 3D 5H 8C AS 6D"
    result = verdict(seven, "JD", MARRIAGE)
    assert not result.declarable
    assert result.two_point
    five = "4S 4S | 9H 9H | KD KD | 2C 2C | JK JK | 7S 7S 7S | QH QH 10C 10C 3D 5H 8C AS 6D"
    result = verdict(five, "JD", MARRIAGE)
    assert not result.declarable
    assert not result.two_point


JUNK_13 = "2C 3D 7S 8H 9C 10S JD QC KS AD 2S 3C 9D"  # nothing wild with cut 5♥


def test_marriage_eight_jokers_in_one_group_win() -> None:
    result = verdict(f"JK JK JK 5S 5S 5D 5C 5C | {JUNK_13}", "5H", MARRIAGE)
    assert result.declarable
    assert result.reason is None
    assert result.two_point
    assert result.score == 93
    # upper and lower jokers are jokers too
    result = verdict(f"JK 4H 6H 5S 5S 5D 5C 5C | {JUNK_13}", "5H", MARRIAGE)
    assert result.declarable
    # split in two groups they are not
    result = verdict(f"JK JK JK 5S | 5S 5D 5C 5C | {JUNK_13}", "5H", MARRIAGE)
    assert not result.declarable
    assert not result.two_point


def test_marriage_seven_jokers_in_one_group_are_two_point() -> None:
    result = verdict(f"JK JK JK 5S 5S 5D 5C | 5C {JUNK_13}", "5H", MARRIAGE)
    assert not result.declarable
    assert result.reason
    assert result.two_point
    result = verdict(f"JK JK JK 5S 5S 5D | 5C 5C {JUNK_13}", "5H", MARRIAGE)
    assert not result.two_point


def test_marriage_printed_joker_cut() -> None:
    # A♠ cut joker, 2♠ upper, K♠ lower, aces wild: eight jokers without a printed one
    groups = f"AS AH AD AC 2S KS AH AD | {JUNK_12.replace('AS', '4D')}"
    result = verdict(groups, "JK", MARRIAGE)
    assert result.declarable


def test_no_special_shapes_outside_marriage() -> None:
    groups = f"{DUBLEES_8} | 3D | 5H | 8C | AS | 6D"
    for profile in (CLASSIC, VENGALA):
        result = verdict(groups, "JD", profile)
        assert not result.declarable
        assert not result.two_point
        assert INVALID in {g.kind for g in result.groups}
    groups = "AH 2H 3H | 4S 5S 6S 7S | 9C 9D 9H | KS KH KD"
    assert not verdict(groups, "8C", CLASSIC).two_point


# ------------------------------------------------------------- against the reference, at random

PROFILE_NAMES = st.sampled_from(PROFILES)
ANY_CARD = st.integers(min_value=0, max_value=52).map(from_code)


@st.composite
def dense_group(draw: st.DrawFn) -> tuple[str, Card, list[Card]]:
    """A small group drawn from a few neighbouring ranks, two suits and the wild cards."""
    profile = draw(PROFILE_NAMES)
    cut = draw(ANY_CARD)
    wild = sorted(wild_codes(cut, profile))
    low = draw(st.integers(min_value=1, max_value=13))
    suits = draw(st.lists(st.integers(0, 3), min_size=1, max_size=2, unique=True))
    pool = [s * 13 + (low + k - 1) % 13 for k in range(4) for s in suits] + wild
    size = draw(st.integers(min_value=1, max_value=6))
    group = draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size))
    return profile, cut, [from_code(c) for c in group]


@st.composite
def run_like_group(draw: st.DrawFn) -> tuple[str, Card, list[Card]]:
    """A window of one suit with some cards dropped or replaced by wild cards (long sequences)."""
    profile = draw(PROFILE_NAMES)
    cut = draw(ANY_CARD)
    wild = sorted(wild_codes(cut, profile))
    size = draw(st.integers(min_value=3, max_value=14))
    low = draw(st.integers(min_value=1, max_value=15 - size))
    suit = draw(st.integers(0, 3))
    group = []
    for position in range(low, low + size):
        what = draw(st.sampled_from(["own", "own", "own", "own", "wild", "drop", "other"]))
        if what == "own":
            group.append(suit * 13 + (position - 1) % 13)
        elif what == "wild":
            group.append(draw(st.sampled_from(wild)))
        elif what == "other":
            group.append(draw(st.integers(0, 52)))
    group.extend(draw(st.lists(st.sampled_from(wild), max_size=2)))
    return profile, cut, [from_code(c) for c in draw(st.permutations(group))]


@settings(max_examples=600, deadline=None, derandomize=True)
@given(st.one_of(dense_group(), run_like_group()))
def test_classify_agrees_with_reference(case: tuple[str, Card, list[Card]]) -> None:
    profile, cut, group = case
    prof = get_profile(profile)
    got = classify([c.code for c in group], Wilds.of(cut, prof), prof)
    expected = classify_codes([c.code for c in group], wild_codes(cut, profile), profile)
    assert got.value == expected, f"{' '.join(map(str, group))} cut {cut} {profile}"


@st.composite
def grouping(draw: st.DrawFn) -> tuple[str, Card, list[list[Card]]]:
    profile = draw(PROFILE_NAMES)
    cut = draw(ANY_CARD)
    groups = []
    for _ in range(draw(st.integers(min_value=0, max_value=8))):
        groups.append(draw(st.one_of(dense_group(), run_like_group()))[2])
    if profile == MARRIAGE:
        pairs = draw(st.lists(ANY_CARD, max_size=9))
        groups.extend([card, card] for card in pairs)
        jokers = sorted(wild_codes(cut, profile))
        groups.append(
            [from_code(draw(st.sampled_from(jokers))) for _ in range(draw(st.integers(0, 9)))]
        )
        groups = [g for g in groups if g]
    return profile, cut, draw(st.permutations(groups))


@settings(
    max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(grouping())
def test_check_agrees_with_reference(case: tuple[str, Card, list[list[Card]]]) -> None:
    profile, cut, groups = case
    result = check(groups, joker=cut, profile=profile)
    expected = judge_grouping(
        [[c.code for c in g] for g in groups], wild_codes(cut, profile), profile
    )
    shown = f"{format_groups(groups)} cut {cut} {profile}"
    assert result.score == expected.score, shown
    assert result.declarable == expected.declarable, shown
    assert result.two_point == expected.two_point, shown
    assert (result.reason is None) == result.declarable, shown
    assert len(result.groups) == len(groups)


@st.composite
def grouping_with_runs(draw: st.DrawFn) -> tuple[str, Card, list[list[Card]]]:
    """A random grouping with up to four natural runs of one suit added (pure sequences), so that
    the requirement is often met too."""
    profile, cut, groups = draw(grouping())
    for _ in range(draw(st.integers(min_value=0, max_value=4))):
        size = draw(st.integers(min_value=3, max_value=5))
        low = draw(st.integers(min_value=1, max_value=14 - size))
        suit = draw(st.integers(0, 3))
        groups.append([from_code(suit * 13 + rank - 1) for rank in range(low, low + size)])
    return profile, cut, draw(st.permutations(groups))


@settings(
    max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(grouping_with_runs())
def test_counted_groups_make_the_score(case: tuple[str, Card, list[list[Card]]]) -> None:
    """The score is the sum of the counted groups' points (capped), and each group says its own
    points and whether they count, as docs/melds.md puts it."""
    profile, cut, groups = case
    prof = get_profile(profile)
    result = check(groups, joker=cut, profile=profile)
    wild = wild_codes(cut, profile)
    shown = f"{format_groups(groups)} cut {cut} {profile}"
    counted = sum(group.points for group in result.groups if group.counted)
    assert result.score == min(counted, prof.cap), shown
    if counted <= prof.cap:
        assert result.score == counted, shown
    sequences = [(g.kind.is_pure, len(g.cards)) for g in result.groups if g.kind.is_sequence]
    assert result.requirement == reference_requirement(rules_of(profile), sequences), shown
    for group, cards in zip(result.groups, groups, strict=True):
        assert group.cards == cards, shown
        assert group.points == sum(reference_points(card.code, wild) for card in cards), shown
        if result.requirement:
            assert group.counted == (not group.kind.is_meld), shown
        elif prof.unmet == "pure_exempt":
            assert group.counted == (not group.kind.is_pure), shown
        else:
            assert group.counted, shown
    if result.declarable and profile != MARRIAGE:
        # Only melds and (vengala) loose jokers, which score nothing, are left to count.
        assert result.score == 0, shown

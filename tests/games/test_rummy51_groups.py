"""Rummy 51's groups (rummyhall.games.rummy51.groups) against docs/rules/rummy-51.md: what makes a
set or a run, what each is worth, what may be laid off on one, and which jokers may be swapped out.

Every rule is tested both ways (a group it accepts, a group it refuses). A property test then
checks every group ``make_group`` returns against the rules, restated independently below.
"""

from __future__ import annotations

import random
from itertools import permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rummyhall.cards import JOKER, Card, Suit, parse, parse_cards, shoe
from rummyhall.games.rummy51.groups import Group, make_group, meld_value

OPENING = {"max_set_jokers": 1, "max_run_jokers": 1}
"""An opening's groups: one joker at most, in a set or a run."""


def group(text: str, **limits: int | None) -> Group:
    made = make_group(parse_cards(text), **limits)  # type: ignore[arg-type]
    assert made is not None, f"{text!r} should make a group"
    return made


def refused(text: str, **limits: int | None) -> bool:
    return make_group(parse_cards(text), **limits) is None  # type: ignore[arg-type]


def stands(made: Group) -> list[str | None]:
    return [None if stand is None else str(stand) for stand in made.stands]


# --- values ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "value"),
    [("2S", 2), ("5H", 5), ("9D", 9), ("10C", 10), ("JS", 10), ("QH", 10), ("KD", 10), ("AC", 10)],
)
def test_meld_value_of_natural_cards(card: str, value: int) -> None:
    assert meld_value(parse(card)) == value


def test_a_joker_has_no_meld_value_of_its_own() -> None:
    with pytest.raises(ValueError, match="stands for"):
        meld_value(JOKER)


def test_an_ace_is_worth_ten_low_and_high() -> None:
    assert group("AC 2C 3C").value == 10 + 2 + 3
    assert group("QH KH AH").value == 30
    assert group("JK 2C 3C").value == 15  # the joker is the AC


# --- the page's examples -----------------------------------------------------------------------


def test_the_pages_opening_examples() -> None:
    first = [group("6S 7S 8S", **OPENING), group("10D 10C 10H", **OPENING)]
    assert [g.value for g in first] == [21, 30] and sum(g.value for g in first) == 51

    run = group("JK 9H 10H JH", **OPENING)
    assert stands(run) == ["8H", None, None, None] and run.value == 37
    assert run.value + group("KC KD KS", **OPENING).value == 67

    short = [group("QD KD AD", **OPENING), group("5C 5H 5S JK", **OPENING)]
    assert [g.value for g in short] == [30, 20] and sum(g.value for g in short) == 50
    assert stands(short[1]) == [None, None, None, "5D"]  # the joker stands for the missing suit

    assert refused("9C JK JK QC", **OPENING)  # two jokers in one opening group
    after = group("9C JK JK QC")  # after opening a new run may hold any number of jokers
    assert stands(after) == [None, "10C", "JC", None] and after.value == 39


def test_the_pages_refusals() -> None:
    assert refused("KC AC 2C")  # no wrap past the ace
    assert refused("9S 9S 9H")  # a suit twice in a set


# --- sets --------------------------------------------------------------------------------------


def test_sets_of_three_and_four_suits_in_any_order() -> None:
    three = group("10H 10C 10D")
    assert (three.kind, str(three), three.value) == ("set", "10H 10D 10C", 30)
    four = group("4C 4D 4H 4S")
    assert (str(four), four.value, four.closed, three.closed) == ("4S 4H 4D 4C", 16, True, False)


def test_sets_refused() -> None:
    assert refused("9S 9H")  # too few
    assert refused("9S 9H 9S 9D")  # a suit twice
    assert refused("9S 9H 9D 9C 9S")  # five
    assert refused("9S 9H 8D")  # two ranks (and no run)
    assert refused("9S 9H JK JK")  # two jokers in a set
    assert refused("9S 9H 9D 9C JK")  # a joker beyond four cards


def test_a_sets_joker_stands_for_the_lowest_missing_suit() -> None:
    assert stands(group("7C JK 7H")) == [None, None, "7S"]
    assert str(group("JK 7C 7H")) == "7H 7C JK"  # naturals in suit order, then the joker
    assert stands(group("7S 7H 7C JK")) == [None, None, None, "7D"]


def test_one_natural_with_jokers_is_a_run_unless_sets_may_hold_two() -> None:
    assert group("5S JK JK").kind == "run"
    assert str(group("5S JK JK", max_set_jokers=2)) == "5S JK JK"
    assert stands(group("5S JK JK", max_set_jokers=2)) == [None, "5H", "5D"]
    assert group("5S JK JK", max_set_jokers=2).kind == "set"


# --- runs --------------------------------------------------------------------------------------


def test_runs_without_jokers_in_any_order() -> None:
    assert str(group("8S 6S 7S")) == "6S 7S 8S"
    assert str(group("3C AC 2C 4C")) == "AC 2C 3C 4C"
    assert str(group("AD QD KD")) == "QD KD AD"


def test_the_ace_goes_low_or_high_never_both_never_in_the_middle() -> None:
    whole = "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH"
    assert group(whole).value == 10 + 44 + 40
    # all thirteen without a joker fit either way; like an ace laid off on 2..K, the ace goes low
    assert group("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH").low == 1
    assert group("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH JK").high == 14
    assert refused(whole + " AH")  # the ace twice
    assert refused("QC KC AC 2C")  # wrap
    assert refused("KS AS 2S")
    assert refused("AS 2S 2S")  # a rank twice
    assert refused("5S 6S 8S")  # a gap without a joker
    assert refused("5S 6S 7H")  # two suits


def test_jokers_in_a_run_are_read_in_the_given_order() -> None:
    assert stands(group("5S JK 7S")) == [None, "6S", None]
    assert stands(group("9H 10H JK")) == [None, None, "JH"]
    assert stands(group("JK 9H 10H")) == ["8H", None, None]
    assert stands(group("JK KH AH")) == ["QH", None, None]
    assert stands(group("AH JK 3H")) == [None, "2H", None]
    # not a run low to high: read high to low
    reversed_run = group("7S JK 5S")
    assert (str(reversed_run), stands(reversed_run)) == ("5S JK 7S", [None, "6S", None])
    assert str(group("JK 10H 9H")) == "9H 10H JK"


def test_runs_with_jokers_refused() -> None:
    assert refused("6S 5S JK 7S")  # neither low to high nor high to low
    assert refused("QH KH AH JK")  # nothing after a high ace
    assert refused("JK AH 2H")  # nothing before a low ace
    assert refused("5S JK JK 8S 9S", max_run_jokers=1)
    assert group("5S JK JK 8S 9S").value == 5 + 6 + 7 + 8 + 9
    assert refused("JK JK JK")  # jokers only
    assert refused("JK JK")


def test_groups_carry_the_physical_cards() -> None:
    cards = [Card(5, Suit.S, 2), JOKER, Card(7, Suit.S, 1)]
    made = make_group(cards)
    assert made is not None
    assert all(a is b for a, b in zip(made.cards, cards, strict=True))
    assert made.stands[1] == Card(6, Suit.S) and made.stands[1].copy == 0  # type: ignore[union-attr]


def test_a_group_refuses_a_joker_without_meaning() -> None:
    with pytest.raises(ValueError, match="stands for"):
        Group("run", (parse("5S"), JOKER, parse("7S")), (None, None, None))
    with pytest.raises(ValueError, match="stands for"):
        Group("set", (parse("5S"), parse("5H")), (None,))


# --- laying off --------------------------------------------------------------------------------


def test_adding_to_a_run_at_either_end() -> None:
    run = group("5S 6S 7S")
    assert str(run.add(parse("4S"))) == "4S 5S 6S 7S"
    assert str(run.add(parse("8S"))) == "5S 6S 7S 8S"
    assert run.add(parse("8S"), "low") is None  # 8S does not continue the low end
    assert str(run.add(parse("8S"), "high")) == "5S 6S 7S 8S"
    assert run.add(parse("9S")) is None
    assert run.add(parse("6S")) is None
    assert run.add(parse("8H")) is None  # another suit


def test_an_ace_on_a_two_to_king_run_goes_low_unless_told() -> None:
    run = group("2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD")
    low = run.add(parse("AD"))
    assert low is not None and (low.low, low.high, str(low.cards[0])) == (1, 13, "AD")
    high = run.add(parse("AD"), "high")
    assert high is not None and (high.low, high.high, str(high.cards[-1])) == (2, 14, "AD")
    assert low.add(parse("AD")) is None and high.add(parse("AD")) is None  # never the ace twice
    assert group("QD KD AD").add(parse("2D")) is None  # no wrap
    assert str(group("QD KD AD").add(parse("JD"))) == "JD QD KD AD"
    assert str(group("2D 3D 4D").add(parse("AD"))) == "AD 2D 3D 4D"


def test_jokers_onto_a_run() -> None:
    run = group("5S 6S 7S")
    high = run.add(JOKER)
    assert high is not None and stands(high)[-1] == "8S"
    low = run.add(JOKER, "low")
    assert low is not None and stands(low)[0] == "4S"
    two = high.add(JOKER)  # after opening a run takes any number of jokers
    assert two is not None and two.jokers == 2 and two.value == 5 + 6 + 7 + 8 + 9
    ace_high = group("QH KH AH").add(JOKER)  # the high end is the ace: low
    assert ace_high is not None and stands(ace_high)[0] == "JH"
    assert group("QH KH AH").add(JOKER, "high") is None
    assert group("AH 2H 3H").add(JOKER, "low") is None
    whole = group("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC")
    assert whole.add(JOKER) is None and whole.add(JOKER, "low") is None
    two_to_ace = group("2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC")
    assert two_to_ace.add(JOKER) is None  # low would be a second ace


def test_adding_to_sets() -> None:
    three = group("9S 9H 9D")
    four = three.add(parse("9C"))
    assert four is not None and str(four) == "9S 9H 9D 9C" and four.closed
    assert three.add(parse("9H")) is None  # a suit it has
    assert three.add(parse("8C")) is None
    assert three.add(JOKER) is None  # never a joker onto a set
    assert four.add(parse("9C")) is None and four.add(JOKER) is None  # nothing onto four


def test_adding_the_suit_a_sets_joker_stood_for() -> None:
    with_joker = group("5C 5H JK")  # the joker stands for 5S (5D would do as well)
    full = with_joker.add(parse("5S"))
    assert full is not None and stands(full) == [None, None, None, "5D"]
    assert with_joker.add(parse("5D")) is not None
    assert full.add(parse("5D")) is None  # four cards: closed, joker or not


# --- swapping jokers ---------------------------------------------------------------------------


def test_swap_in_a_run_takes_the_very_joker() -> None:
    joker = Card(0, None, 3)
    run = make_group([parse("5S"), joker, parse("7S")])
    assert run is not None
    assert run.swap(parse("6H")) is None
    assert run.swap(parse("5S")) is None
    assert run.swap(JOKER) is None
    swapped = run.swap(parse("6S"))
    assert swapped is not None
    after, taken = swapped
    assert taken is joker and str(after) == "5S 6S 7S" and after.jokers == 0


def test_swap_in_a_set_of_three_takes_either_missing_suit() -> None:
    three = group("KC KH JK")  # missing: spades and diamonds
    for suit in ("KS", "KD"):
        swapped = three.swap(parse(suit))
        assert swapped is not None
        after, taken = swapped
        assert taken.is_joker and after.jokers == 0 and after.value == 30
    assert three.swap(parse("KC")) is None  # a suit it has
    assert three.swap(parse("QS")) is None
    assert group("KC KH KD").swap(parse("KS")) is None  # no joker to take


def test_swap_in_a_set_of_four_takes_only_the_missing_suit() -> None:
    four = group("KC KH KS JK")
    assert four.swap(parse("KS")) is None and four.swap(parse("KH")) is None
    swapped = four.swap(parse("KD"))
    assert swapped is not None and str(swapped[0]) == "KS KH KD KC"


# --- every group against the rules -------------------------------------------------------------


def rules_say(cards: list[Card], made: Group, max_set_jokers: int, max_run_jokers: int) -> None:
    """What the rules page says of a group, restated without the module's helpers."""
    naturals = [card for card in made.cards if not card.is_joker]
    assert sorted(map(id, made.cards)) == sorted(map(id, cards))  # the very cards given
    assert len(made.cards) >= 3 and naturals
    if made.kind == "set":
        assert len({card.rank for card in naturals}) == 1
        assert len(made.cards) <= 4 and made.jokers <= max_set_jokers
        meanings = [stand or card for card, stand in zip(made.cards, made.stands, strict=True)]
        assert len({card.suit for card in meanings}) == len(meanings)  # jokers: missing suits
        return
    assert made.jokers <= max_run_jokers and len(made.cards) <= 13
    meanings = [stand or card for card, stand in zip(made.cards, made.stands, strict=True)]
    assert len({card.suit for card in meanings}) == 1
    places = [made.low + index for index in range(len(made.cards))]
    assert places[0] >= 1 and places[-1] <= 14  # positions 1..14: no wrap, one ace at most
    assert [card.rank for card in meanings] == [1 if p == 14 else p for p in places]


@settings(max_examples=600, deadline=None, derandomize=True, database=None)
@given(st.data())
def test_every_group_made_keeps_the_rules(data: st.DataObject) -> None:
    # Cards near each other, so that many draws make groups: one suit or one rank, plus jokers.
    pack = shoe(2, 2)
    if data.draw(st.booleans()):
        suit = data.draw(st.sampled_from(list(Suit)))
        low = data.draw(st.integers(1, 13))
        pool = [c for c in pack if c.is_joker or (c.suit == suit and low <= c.rank < low + 5)]
    else:
        rank = data.draw(st.integers(1, 13))
        pool = [c for c in pack if c.is_joker or c.rank == rank]
    cards = data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=7, unique_by=id))
    jokers = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 4))
    made = make_group(cards, max_set_jokers=jokers[0], max_run_jokers=jokers[1])
    if made is not None:
        rules_say(cards, made, *jokers)


def test_order_does_not_matter_without_jokers() -> None:
    rng = random.Random(51)
    for text in ["AS 2S 3S 4S", "JD QD KD AD", "7H 8H 9H", "6C 6H 6S 6D"]:
        cards = parse_cards(text)
        expected = make_group(cards)
        for order in list(permutations(cards))[:24]:
            assert make_group(list(order)) == expected
        rng.shuffle(cards)
        assert make_group(cards) == expected

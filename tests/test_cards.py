"""Cards, the notation, shoes and card points (rummyhall.cards)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rummyhall.cards import (
    JOKER,
    JOKER_CODE,
    Card,
    CardError,
    Suit,
    format_cards,
    format_groups,
    from_code,
    indian_points,
    parse,
    parse_cards,
    parse_groups,
    parse_physical,
    shoe,
    sort_key,
)

RANK_TEXT = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
ALL_TEXT = [rank + suit for suit in "SHDC" for rank in RANK_TEXT] + ["JK"]
ALL_CARDS = [from_code(code) for code in range(JOKER_CODE + 1)]


def test_53_distinct_cards_in_code_order() -> None:
    assert len(set(ALL_CARDS)) == 53
    assert [card.code for card in ALL_CARDS] == list(range(53))
    assert [str(card) for card in ALL_CARDS] == ALL_TEXT
    assert ALL_CARDS[-1] == JOKER
    assert JOKER.is_joker and JOKER.suit is None and JOKER.rank == 0
    assert not any(card.is_joker for card in ALL_CARDS[:-1])


@pytest.mark.parametrize("text", ALL_TEXT)
def test_parse_str_round_trip(text: str) -> None:
    card = parse(text)
    assert str(card) == text
    assert parse(str(card)) == card
    assert parse(text.lower()) == card
    assert parse(f"  {text} ") == card


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("AS", 1, Suit.S),
        ("10H", 10, Suit.H),
        ("TH", 10, Suit.H),
        ("th", 10, Suit.H),
        ("Td", 10, Suit.D),
        ("10♥", 10, Suit.H),
        ("7♠", 7, Suit.S),
        ("q♦", 12, Suit.D),
        ("K♣", 13, Suit.C),
        ("a♣", 1, Suit.C),
        ("j♤", 11, Suit.S),
        ("2♡", 2, Suit.H),
        ("3♢", 3, Suit.D),
        ("4♧", 4, Suit.C),
        ("jh", 11, Suit.H),
    ],
)
def test_parse_alternative_spellings(text: str, rank: int, suit: Suit) -> None:
    card = parse(text)
    assert (card.rank, card.suit) == (rank, suit)


@pytest.mark.parametrize("text", ["JK", "jk", "Jk", " JK "])
def test_parse_joker(text: str) -> None:
    assert parse(text) == JOKER
    assert parse(text).is_joker


@pytest.mark.parametrize(
    "text", ["1X", "", "11H", "ZZ", "10", "JKX", "1H", "0S", "AX", "  ", "H", "10HH"]
)
def test_parse_errors_name_the_token(text: str) -> None:
    with pytest.raises(CardError) as info:
        parse(text)
    error = info.value
    assert isinstance(error, ValueError)
    assert error.token == text
    assert repr(text) in str(error)
    assert error.code == "invalid_cards"


def test_card_error_is_a_value_error() -> None:
    assert issubclass(CardError, ValueError)
    with pytest.raises(ValueError, match="ZZ"):
        parse_cards("AS ZZ 3S")
    with pytest.raises(CardError) as info:
        parse_cards("AS 2S 11H")
    assert info.value.token == "11H"


def test_invalid_card_construction() -> None:
    with pytest.raises(CardError):
        Card(5, None)
    with pytest.raises(CardError):
        Card(0, Suit.S)
    with pytest.raises(CardError):
        Card(14, Suit.H)
    with pytest.raises(CardError):
        from_code(53)
    with pytest.raises(CardError):
        from_code(-1)


def test_pretty() -> None:
    assert parse("10H").pretty == "10♥"
    assert parse("AS").pretty == "A♠"
    assert parse("QD").pretty == "Q♦"
    assert parse("2C").pretty == "2♣"
    for card in ALL_CARDS[:-1]:
        assert parse(card.pretty) == card


def test_shoe_of_two_decks_and_one_joker_each() -> None:
    cards = shoe(2, 1)
    assert len(cards) == 106
    naturals = [card for card in cards if not card.is_joker]
    jokers = [card for card in cards if card.is_joker]
    assert len(naturals) == 104
    assert len(jokers) == 2
    # every natural card twice, once per deck
    assert Counter(card.code for card in naturals) == Counter({code: 2 for code in range(52)})
    assert sorted(card.copy for card in naturals if card == parse("7H")) == [1, 2]
    # physical copies are told apart, values are not
    physical = [card.physical for card in cards]
    assert len(set(physical)) == 106
    assert "7H#1" in physical and "7H#2" in physical
    assert "JK#1" in physical and "JK#2" in physical
    assert all(card.copy >= 1 for card in cards)
    # canonical order: deck by deck, suits S H D C, ranks A..K, then that deck's jokers
    assert [str(card) for card in cards[:53]] == ALL_TEXT
    assert [card.copy for card in cards[:53]] == [1] * 53
    assert [str(card) for card in cards[53:]] == ALL_TEXT
    assert [card.copy for card in cards[53:]] == [2] * 53


def test_shoe_sizes() -> None:
    assert len(shoe(1, 0)) == 52
    assert len(shoe(3, 1)) == 159
    assert len(shoe(3, 2)) == 162
    three = shoe(3, 2)
    assert sorted(card.copy for card in three if card.is_joker) == [1, 2, 3, 4, 5, 6]
    assert len({card.physical for card in three}) == 162
    with pytest.raises(ValueError):
        shoe(0, 1)
    with pytest.raises(ValueError):
        shoe(1, -1)


def test_equality_ignores_copy() -> None:
    first, second = (card for card in shoe(2, 1) if card == parse("7H"))
    assert first == second
    assert hash(first) == hash(second)
    assert first.copy != second.copy
    assert first.physical != second.physical
    assert first.code == second.code == parse("7H").code
    assert len({first, second}) == 1
    assert not first < second and not second < first
    jokers = [card for card in shoe(2, 1) if card.is_joker]
    assert jokers[0] == jokers[1] == JOKER


def test_parse_physical() -> None:
    card = parse_physical("7H#2")
    assert card == parse("7H")
    assert card.copy == 2
    assert card.physical == "7H#2"
    assert str(card) == "7H"
    assert parse_physical("7H").copy == 0
    assert parse_physical("7H").physical == "7H"
    assert parse_physical(" jk#3 ").physical == "JK#3"
    assert parse_physical("10♥#1").physical == "10H#1"
    for bad in ("7H#", "7H#x", "7H#-1", "ZZ#1"):
        with pytest.raises(CardError):
            parse_physical(bad)


def test_physical_round_trip_over_a_shoe() -> None:
    for card in shoe(3, 2):
        again = parse_physical(card.physical)
        assert again == card
        assert again.copy == card.copy


@pytest.mark.parametrize(
    ("text", "indian", "rummy51"),
    [
        ("AS", 10, 10),
        ("2H", 2, 2),
        ("3D", 3, 3),
        ("4C", 4, 4),
        ("5S", 5, 5),
        ("6H", 6, 6),
        ("7D", 7, 7),
        ("8C", 8, 8),
        ("9S", 9, 9),
        ("10H", 10, 10),
        ("JD", 10, 10),
        ("QC", 10, 10),
        ("KS", 10, 10),
        ("JK", 0, 20),
    ],
)
def test_points(text: str, indian: int, rummy51: int) -> None:
    assert indian_points(parse(text)) == indian


def test_points_of_every_card() -> None:
    for card in ALL_CARDS[:-1]:
        expected = 10 if card.rank in (1, 10, 11, 12, 13) else card.rank
        assert indian_points(card) == expected


def test_parse_cards() -> None:
    assert format_cards(parse_cards("AS 2S, 3S,10h  jk")) == "AS 2S 3S 10H JK"
    assert parse_cards(["AS", "th"]) == [parse("AS"), parse("10H")]
    assert parse_cards("") == []


def test_parse_and_format_groups() -> None:
    groups = parse_groups("AS 2S 3S | 7H 7D 7C")
    assert groups == [parse_cards("AS 2S 3S"), parse_cards("7H 7D 7C")]
    assert format_groups(groups) == "AS 2S 3S | 7H 7D 7C"
    assert parse_groups("| as 2s 3s || 7♥ 7d 7c JK |  ") == [
        parse_cards("AS 2S 3S"),
        parse_cards("7H 7D 7C JK"),
    ]
    assert parse_groups("") == []
    assert format_groups([]) == ""
    with pytest.raises(CardError) as info:
        parse_groups("AS 2S 3S | 7H 1X")
    assert info.value.token == "1X"


def test_sort_key_puts_aces_high_and_jokers_last() -> None:
    cards = parse_cards("JK AS 2S KS 3H AH 10D")
    assert format_cards(sorted(cards, key=sort_key)) == "2S KS AS 3H AH 10D JK"


cards = st.sampled_from(ALL_CARDS)


@given(cards)
def test_round_trip_any_card(card: Card) -> None:
    assert parse(str(card)) == card
    assert parse(str(card).lower()) == card
    assert from_code(card.code) == card
    if not card.is_joker:
        assert parse(card.pretty) == card


@given(cards, st.integers(min_value=1, max_value=999))
def test_physical_round_trip_any_card(card: Card, copy: int) -> None:
    physical = Card(card.rank, card.suit, copy)
    again = parse_physical(physical.physical)
    assert again == card
    assert again.copy == copy


@given(st.lists(st.lists(cards, min_size=1, max_size=6), max_size=6))
def test_groups_round_trip(groups: list[list[Card]]) -> None:
    assert parse_groups(format_groups(groups)) == groups

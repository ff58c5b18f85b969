"""Cards, suits, ranks, shoes of several decks, and the text notation used everywhere.

Notation: rank ``A 2 3 4 5 6 7 8 9 10 J Q K`` (``T`` accepted for 10) followed by suit ``S H D C``
(``♠ ♥ ♦ ♣`` accepted); the printed joker is ``JK``. Input is case-insensitive; output is the
canonical upper-case form, so ``parse(str(card)) == card`` for every card.

A :class:`Card` compares by value: the 7♥ of the first deck equals the 7♥ of the second. Where the
physical copy matters (logs, conservation checks) ``card.copy`` tells them apart and
:attr:`Card.physical` / :func:`parse_physical` give a notation for it (``7H#2``).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import ClassVar, Final


class Suit(IntEnum):
    """The four suits in the order used for sorting and for canonical shoe order."""

    S = 0
    H = 1
    D = 2
    C = 3

    @property
    def letter(self) -> str:
        return "SHDC"[self]

    @property
    def symbol(self) -> str:
        return "♠♥♦♣"[self]


ACE: Final = 1
JACK: Final = 11
QUEEN: Final = 12
KING: Final = 13
JOKER_RANK: Final = 0
"""Rank value of a printed joker (which has no suit)."""

RANKS: Final = tuple(range(1, 14))
SUITS: Final = tuple(Suit)
JOKER_CODE: Final = 52
"""Dense integer code of the printed joker; natural cards are ``suit * 13 + rank - 1`` (0..51)."""

_RANK_TEXT: Final = {1: "A", 10: "10", 11: "J", 12: "Q", 13: "K"}


def rank_text(rank: int) -> str:
    """A rank in notation: ``A``, ``2`` ... ``10``, ``J``, ``Q``, ``K``."""
    return _RANK_TEXT.get(rank, str(rank))


_RANK_INPUT: Final = {
    "A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
    "10": 10, "T": 10, "J": 11, "Q": 12, "K": 13,
}  # fmt: skip
_SUIT_INPUT: Final = {
    "S": Suit.S, "H": Suit.H, "D": Suit.D, "C": Suit.C,
    "♠": Suit.S, "♥": Suit.H, "♦": Suit.D, "♣": Suit.C,
    "♤": Suit.S, "♡": Suit.H, "♢": Suit.D, "♧": Suit.C,
}  # fmt: skip


class CardError(ValueError):
    """A card token that is not in the notation. ``token`` is the offending text."""

    code: ClassVar[str] = "invalid_cards"

    def __init__(self, token: str, reason: str) -> None:
        self.token = token
        super().__init__(f"bad card {token!r}: {reason}")


@dataclass(frozen=True, slots=True)
class Card:
    """One playing card. ``rank`` is 1 (ace) to 13 (king), or 0 with ``suit=None`` for the printed
    joker. ``copy`` numbers identical physical cards within a shoe (0 = not tracked) and takes no
    part in equality, hashing or ordering."""

    rank: int
    suit: Suit | None
    copy: int = field(default=0, compare=False)
    code: int = field(init=False, repr=False, compare=False)
    text: str = field(init=False, repr=False, compare=False)
    """The notation (``str(card)``), computed once: views, logs and checks name cards all the
    time."""

    def __post_init__(self) -> None:
        if self.suit is None:
            if self.rank != JOKER_RANK:
                raise CardError(str(self.rank), "a suitless card must be the printed joker")
            code = JOKER_CODE
            text = "JK"
        else:
            if not 1 <= self.rank <= 13:
                raise CardError(str(self.rank), "rank must be 1 (ace) to 13 (king)")
            code = int(self.suit) * 13 + self.rank - 1
            text = rank_text(self.rank) + "SHDC"[self.suit]
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "text", text)

    def __eq__(self, other: object) -> bool:
        # By value, as the generated method would (rank and suit), but one int compare: cards
        # are compared in the engines' and bots' inner loops.
        if isinstance(other, Card):
            return self.code == other.code
        return NotImplemented

    def __hash__(self) -> int:
        # The generated method's value, kept so that sets of cards iterate as they always did.
        return hash((self.rank, self.suit))

    @property
    def is_joker(self) -> bool:
        """True for the printed joker (wild-rank cards are jokers only in a game's context)."""
        return self.suit is None

    @property
    def physical(self) -> str:
        """Notation that names the physical copy, e.g. ``7H#2``; plain notation if untracked."""
        return f"{self}#{self.copy}" if self.copy else str(self)

    def __str__(self) -> str:
        return self.text

    def __reduce__(self) -> tuple[type[Card], tuple[int, Suit | None, int]]:
        # A copy or a pickle is the same card built again. Compiled (rummyhall.native), the
        # default would set the frozen fields one by one, which the frozen class refuses.
        return (Card, (self.rank, self.suit, self.copy))

    def __lt__(self, other: Card) -> bool:
        return self.code < other.code

    @property
    def pretty(self) -> str:
        """Display form with a suit symbol, e.g. ``10♥``."""
        if self.suit is None:
            return "🃏"
        return rank_text(self.rank) + self.suit.symbol


JOKER: Final = Card(JOKER_RANK, None)

# Cards are immutable, so parsing and look-ups by code hand out these shared instances instead of
# building a new card each time (the engines parse every action, the bots every view).
_BY_CODE: Final = (*(Card(code % 13 + 1, Suit(code // 13)) for code in range(JOKER_CODE)), JOKER)
_PARSED: Final = {
    rank_input + suit_input: _BY_CODE[int(suit) * 13 + rank - 1]
    for rank_input, rank in _RANK_INPUT.items()
    for suit_input, suit in _SUIT_INPUT.items()
} | {"JK": JOKER}
"""Every accepted spelling of a card, upper case, and its card."""


def from_code(code: int) -> Card:
    """The card with the given dense code (see :data:`JOKER_CODE`)."""
    if not 0 <= code <= JOKER_CODE:
        raise CardError(str(code), "card codes run from 0 to 52")
    return _BY_CODE[code]


def parse(text: str) -> Card:
    """Parse one card: ``"10H"``, ``"TH"``, ``"10♥"``, ``"AS"``, ``"JK"`` (case-insensitive)."""
    token = text.strip()
    upper = token.upper()
    card = _PARSED.get(upper)
    if card is not None:
        return card
    # Not a card: say what is wrong with it.
    if not upper:
        raise CardError(text, "empty card")
    if _SUIT_INPUT.get(upper[-1]) is None:
        raise CardError(text, "suit must be one of S H D C (or ♠ ♥ ♦ ♣)")
    raise CardError(text, "rank must be one of A 2-10 J Q K (T for 10)")


def parse_physical(text: str) -> Card:
    """Parse ``7H#2`` (card and copy number) or plain notation (copy 0)."""
    card_text, sep, copy_text = text.strip().partition("#")
    card = parse(card_text)
    if not sep:
        return card
    if not copy_text.isdigit():
        raise CardError(text, "copy number after '#' must be a whole number")
    return Card(card.rank, card.suit, int(copy_text))


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse cards separated by spaces or commas (or an iterable of tokens)."""
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse(token) for token in tokens]


def parse_groups(text: str) -> list[list[Card]]:
    """Parse groups separated by ``|``: ``"AS 2S 3S | 7H 7D 7C"``. Empty groups are ignored."""
    return [parse_cards(part) for part in text.split("|") if part.strip()]


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(str(card) for card in cards)


def format_groups(groups: Iterable[Iterable[Card]]) -> str:
    return " | ".join(format_cards(group) for group in groups)


_SORT_KEYS: Final = tuple(
    (4, 0) if card.suit is None else (int(card.suit), 14 if card.rank == ACE else card.rank)
    for card in _BY_CODE
)


def sort_key(card: Card) -> tuple[int, int]:
    """Display order: by suit, then rank with the ace high; printed jokers last."""
    return _SORT_KEYS[card.code]


_DISPLAY_CODES: Final = tuple(sorted(range(JOKER_CODE + 1), key=_SORT_KEYS.__getitem__))
_DISPLAY_PLACE: Final = tuple(_DISPLAY_CODES.index(code) for code in range(JOKER_CODE + 1))
"""By card code: its place in display order (:func:`sort_key`)."""
_DISPLAY_TEXT: Final = tuple(_BY_CODE[code].text for code in _DISPLAY_CODES)
_CODE: Final = operator.attrgetter("code")


def sorted_texts(cards: Iterable[Card]) -> list[str]:
    """The names of ``cards`` in display order, as ``[card.text for card in sorted(cards,
    key=sort_key)]`` gives them, through tables by card code instead of a call per card: views
    name a sorted hand after every action (cards of one code share one name, so the order
    among them does not show)."""
    places = sorted(map(_DISPLAY_PLACE.__getitem__, map(_CODE, cards)))
    return list(map(_DISPLAY_TEXT.__getitem__, places))


def shoe(decks: int, jokers_per_deck: int) -> list[Card]:
    """All the physical cards of ``decks`` packs of 52 plus ``jokers_per_deck`` printed jokers each,
    in canonical order: deck by deck, suits S H D C, ranks A..K, then that deck's jokers.

    Natural cards carry their deck number as ``copy`` (1-based); printed jokers are numbered
    1..decks*jokers_per_deck across the shoe. This order is what the shuffle permutes."""
    if decks < 1 or jokers_per_deck < 0:
        raise ValueError("a shoe needs at least one deck and a non-negative number of jokers")
    return list(_shoe(decks, jokers_per_deck))


@functools.cache
def _shoe(decks: int, jokers_per_deck: int) -> tuple[Card, ...]:
    # Every deal starts from its shoe: the few sizes the games use are built once.
    cards: list[Card] = []
    for deck in range(1, decks + 1):
        cards.extend(Card(rank, suit, deck) for suit in SUITS for rank in RANKS)
        first = (deck - 1) * jokers_per_deck
        cards.extend(Card(JOKER_RANK, None, first + k + 1) for k in range(jokers_per_deck))
    return tuple(cards)


CODE_POINTS: Final = tuple(
    0 if card.suit is None else 10 if card.rank == ACE or card.rank >= 10 else card.rank
    for card in _BY_CODE
)
""":func:`indian_points` by card code, for the solver's inner loops."""


def indian_points(card: Card) -> int:
    """Face points in the Indian-rummy family: 2-9 their number, 10/J/Q/K/A 10, printed joker 0.
    (Wild-rank cards count 0 too; that depends on the deal's cut card, so the solver applies it.)"""
    return CODE_POINTS[card.code]

"""The most valuable groups a Rummy 51 hand can lay down at once: the best opening, exactly
(docs/rules/rummy-51.md, "Opening" and "Always keep a card to throw").

How it works:

1. **Cards by value.** The two copies of a card are interchangeable for the search, so the hand
   becomes two bit masks over the 52 natural cards (``once``: held at least once, ``twice``: held
   twice) and a joker count. Bits go by rank, then suit, so the search meets the cards of a rank
   together, low ranks first.
2. **Every group the hand could lay is listed** as a mask, a joker count, a size and a value:
   per rank, the sets of 2-4 held suits with at most one joker; per suit, every window of run
   positions (the ace at 1 or 14) that held cards and jokers fill, jokers also taking the place of
   a held card (that card may be wanted elsewhere). Two runs with the same natural cards and as
   many jokers differ only in where the jokers stand, so only the more valuable is listed (with
   ``10H JH QH`` a joker is the ``KH``, not the ``9H``). Lists are cached by suit (runs) and rank
   (sets) pattern: the same patterns come back hand after hand.
3. **Search.** The lowest undecided card is kept (with its second copy, if held twice), or a copy
   of it is laid in one of the listed groups it is the lowest card of. The best score of each
   state (cards left, jokers left) is memoised, so the result is the true maximum over every
   packing.
4. **Keeping a card.** The best packing of what is left usually keeps ``keep`` cards anyway; only
   the states where it does not are searched again, with the number of cards still to keep.
5. **Physical cards.** The packing is laid with the hand's own card objects, lower ``copy`` first.

A packing is ranked by value, then by cards laid, then by fewer jokers: one integer score per
group carries all three, so equal values go to the packing that lays more cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Final

from rummyhall.cards import ACE, Card, Suit
from rummyhall.games.rummy51.groups import (
    HIGH_ACE,
    LARGEST_SET,
    LONGEST_RUN,
    SMALLEST_GROUP,
    Group,
    meld_value,
    run_of,
    set_of,
)

OPENING: Final = 51
"""The least an opening may be worth."""

_SET_JOKERS: Final = 1
"""A set never holds more than one joker, in an opening or after."""
_OPENING_RUN_JOKERS: Final = 1
"""An opening run holds at most one joker; after opening, any number."""

_RANK_VALUE: Final = (0, *(meld_value(Card(rank, Suit.S)) for rank in range(1, 14)))
_POSITION_VALUE: Final = (*_RANK_VALUE, _RANK_VALUE[ACE])
"""A run position's value (1..14; the ace is 10 at both ends)."""


def _bit(rank: int, suit: int) -> int:
    """The mask bit of a natural card: by rank, then suit."""
    return 1 << ((rank - 1) * 4 + suit)


def _rank_at(position: int) -> int:
    return ACE if position == HIGH_ACE else position


@dataclass(frozen=True, slots=True)
class Opening:
    """Groups to lay down together and their total value. ``groups`` come in the search's order,
    by their lowest card: rank, then suit S H D C (an ace counts as rank 1, so an ace-high run
    comes first)."""

    groups: tuple[Group, ...]
    value: int

    @property
    def opens(self) -> bool:
        """Worth enough to open with."""
        return self.value >= OPENING

    @property
    def cards(self) -> tuple[Card, ...]:
        """Every physical card laid, group after group."""
        return tuple(card for group in self.groups for card in group.cards)

    @property
    def jokers(self) -> int:
        return sum(group.jokers for group in self.groups)


_Shape = tuple[int, int, int, int, str, int, int, tuple[int, ...]]
"""A group to lay: (mask of its natural cards, jokers, size, value, kind, suit, first position
(a set: its rank), places). ``places``: a run's joker positions, a set's suits."""

_Option = tuple[int, int, int, _Shape]
"""A group in the search: (mask, jokers, score, shape)."""


@lru_cache(maxsize=1 << 14)
def _run_shapes(suit: int, pattern: int, limit: int) -> tuple[_Shape, ...]:
    """The runs of ``suit`` whose held ranks are the bits of ``pattern`` (bit ``rank - 1``), with
    up to ``limit`` jokers: the best per (cards, jokers)."""
    held = [False] + [bool(pattern >> (_rank_at(p) - 1) & 1) for p in range(1, HIGH_ACE + 1)]
    found: dict[tuple[int, int], _Shape] = {}
    for low in range(1, HIGH_ACE - 1):
        missing: list[int] = []
        present: list[int] = []
        value = 0
        for high in range(low, min(HIGH_ACE, low + LONGEST_RUN - 1) + 1):
            (present if held[high] else missing).append(high)
            value += _POSITION_VALUE[high]
            if len(missing) > limit:
                break  # a longer window only misses more
            if high - low < 2 or not present:
                continue
            # Jokers fill the missing places, and may also take held places (the card held
            # there may be wanted in another group: 7C 8C 9C and 7C JK 9C with one 8C), as
            # long as one natural card stays.
            for extra in range(min(limit - len(missing), len(present) - 1) + 1):
                for replaced in combinations(present, extra):
                    mask = 0
                    for p in present:
                        if p not in replaced:
                            mask |= _bit(_rank_at(p), suit)
                    used = len(missing) + extra
                    best = found.get((mask, used))
                    if best is None or value > best[3]:
                        places = tuple(sorted((*missing, *replaced)))
                        size = high - low + 1
                        found[mask, used] = (mask, used, size, value, "run", suit, low, places)
    return tuple(found.values())


@lru_cache(maxsize=1 << 10)
def _set_shapes(rank: int, pattern: int, jokers: int) -> tuple[_Shape, ...]:
    """The sets of 3 or 4 cards that the held suits of ``rank`` (bit ``suit`` of ``pattern``)
    make with up to ``jokers`` jokers (a set takes one at most)."""
    suits = [suit for suit in range(4) if pattern >> suit & 1]
    worth = _RANK_VALUE[rank]
    found: list[_Shape] = []
    for count in range(2, len(suits) + 1):
        for chosen in combinations(suits, count):
            mask = sum(_bit(rank, suit) for suit in chosen)
            for used in range(min(_SET_JOKERS, jokers) + 1):
                size = count + used
                if SMALLEST_GROUP <= size <= LARGEST_SET:
                    found.append((mask, used, size, worth * size, "set", 0, rank, chosen))
    return tuple(found)


def best_opening(hand: Sequence[Card], *, keep: int = 1, opening: bool = True) -> Opening:
    """The most valuable disjoint groups of ``hand`` that leave at least ``keep`` cards in it.

    ``opening=True``: at most one joker in each group (an opening). ``opening=False``, for a
    player who has opened and lays new groups: at most one joker in a set, any number in a run.
    Ties go to the groups that lay more cards, then to fewer jokers, then to the search's own
    fixed order; the result depends on the hand's cards, not on their order (of two copies of a
    card, the lower ``copy`` is laid first). No group at all: an ``Opening`` of no groups, worth 0.

    Raises ``ValueError`` for a hand holding one natural card three times or more (Rummy 51's
    shoe has two of each)."""
    naturals: dict[int, list[Card]] = {}
    jokers: list[Card] = []
    for card in hand:
        if card.suit is None:
            jokers.append(card)
        else:
            naturals.setdefault(_bit(card.rank, card.suit), []).append(card)
    once = twice = 0
    ranks_of = [0, 0, 0, 0]  # per suit: bit rank - 1
    suits_of = [0] * 14  # per rank: bit suit
    for bit, cards in naturals.items():
        if len(cards) > 2:
            raise ValueError(f"{cards[0]} is held {len(cards)} times; the shoe has two")
        once |= bit
        if len(cards) == 2:
            twice |= bit
        rank, suit = cards[0].rank, int(cards[0].suit or 0)
        ranks_of[suit] |= 1 << (rank - 1)
        suits_of[rank] |= 1 << suit
    if len(hand) - keep < SMALLEST_GROUP:
        return Opening((), 0)
    limit = min(_OPENING_RUN_JOKERS if opening else len(jokers), len(jokers))
    shapes: list[_Shape] = []
    fewest = SMALLEST_GROUP - min(len(jokers), _SET_JOKERS)  # suits a set needs
    for rank in range(1, 14):
        if suits_of[rank].bit_count() >= fewest:
            shapes += _set_shapes(rank, suits_of[rank], len(jokers))
    for suit in range(4):
        if ranks_of[suit]:
            shapes += _run_shapes(suit, ranks_of[suit], limit)
    if not shapes:
        return Opening((), 0)
    return _lay(_search(once, twice, len(jokers), keep, shapes, len(hand)), naturals, jokers)


_INFEASIBLE: Final = -(1 << 62)
"""Below any score: what is left cannot keep enough cards."""


def _search(
    once: int, twice: int, jokers: int, keep: int, shapes: list[_Shape], size: int
) -> list[_Shape]:
    """The shapes of the best packing that keeps ``keep`` cards (steps 3 and 4)."""
    # One integer per shape ranks value, then cards laid, then fewer jokers: the weights keep
    # each part below the one before it for any packing of this hand.
    per_card = jokers + 1
    per_point = (size + 1) * per_card
    usable = 0
    for shape in shapes:
        usable |= shape[0]
    once &= usable  # a card in no shape is kept, whatever happens
    twice &= usable
    keep -= size - (once.bit_count() + twice.bit_count() + jokers)
    by_pivot: dict[int, list[_Option]] = {}
    for shape in shapes:
        mask, used, laid, value = shape[:4]
        score = value * per_point + laid * per_card - used
        by_pivot.setdefault(mask & -mask, []).append((mask, used, score, shape))

    # (cards, jokers) -> (best score, the shape laid at the lowest card, or None: keep that card)
    memo: dict[tuple[int, int, int], tuple[int, _Option | None]] = {}

    def best(a: int, b: int, j: int) -> int:
        """The best score of what is left, however many cards it keeps."""
        while a and a & -a not in by_pivot:
            low = a & -a  # it leads no shape: kept, so drop it before the memo sees it
            a, b = a ^ low, b & ~low
        if not a or a.bit_count() + b.bit_count() + j < SMALLEST_GROUP:
            return 0  # no group left to lay
        hit = memo.get((a, b, j))
        if hit is not None:
            return hit[0]
        low = a & -a
        # Keep the lowest card (both copies, if two), or lay a copy (the other is decided next).
        top = best(a ^ low, b & ~low, j)
        choice = None
        for option in by_pivot[low]:
            mask, used, score, _ = option
            if mask & ~a or used > j:
                continue
            total = score + best(a & ~(mask & ~b), b & ~mask, j - used)
            if total > top:
                top, choice = total, option
        memo[a, b, j] = (top, choice)
        return top

    def kept(a: int, b: int, j: int) -> int:
        """How many of the cards left the best packing of them keeps."""
        low = best(a, b, j) % per_point  # cards laid * per_card - jokers laid
        return a.bit_count() + b.bit_count() + j + (-low // per_card)

    # The keep rule binds only where the best packing lays (nearly) everything: those states,
    # and only those, are searched again with the number of cards still to keep.
    needy: dict[tuple[int, int, int, int], tuple[int, _Option | None]] = {}

    def keeping(a: int, b: int, j: int, need: int) -> int:
        """The best score of what is left that keeps at least ``need`` (> 0) cards."""
        if kept(a, b, j) >= need:
            return best(a, b, j)
        if not a:
            return _INFEASIBLE  # jokers only, too few of them
        hit = needy.get((a, b, j, need))
        if hit is not None:
            return hit[0]
        low = a & -a
        still = need - (2 if b & low else 1)
        top = best(a ^ low, b & ~low, j) if still <= 0 else keeping(a ^ low, b & ~low, j, still)
        choice = None
        for option in by_pivot.get(low, ()):
            mask, used, score, _ = option
            if mask & ~a or used > j:
                continue
            total = score + keeping(a & ~(mask & ~b), b & ~mask, j - used, need)
            if total > top:
                top, choice = total, option
        needy[a, b, j, need] = (top, choice)
        return top

    need = keep
    if need > 0:
        keeping(once, twice, jokers, need)
    else:
        best(once, twice, jokers)
    # Walk the memos from the top, taking each state's choice as the search made it.
    picked: list[_Shape] = []
    a, b, j = once, twice, jokers
    while a:
        low = a & -a
        if need > 0:
            if kept(a, b, j) >= need:
                need = 0  # from here the plain search's choices keep enough
                continue
            option = needy[a, b, j, need][1]
            if option is None:
                need -= 2 if b & low else 1
        elif low not in by_pivot:
            a, b = a ^ low, b & ~low
            continue
        elif a.bit_count() + b.bit_count() + j < SMALLEST_GROUP:
            break
        else:
            option = memo[a, b, j][1]
        if option is None:
            a, b = a ^ low, b & ~low
            continue
        mask, used, _, shape = option
        a, b, j = a & ~(mask & ~b), b & ~mask, j - used
        picked.append(shape)
    return picked


def _lay(
    chosen: Sequence[_Shape], naturals: dict[int, list[Card]], jokers: Sequence[Card]
) -> Opening:
    """The chosen shapes as groups of the hand's physical cards, lower ``copy`` first."""
    spare = sorted(jokers, key=_by_copy)
    twice: set[int] = set()  # cards held twice whose lower copy is laid already

    def take(bit: int) -> Card:
        cards = naturals[bit]
        if len(cards) == 1:
            return cards[0]
        low, high = sorted(cards, key=_by_copy)
        if bit in twice:
            return high
        twice.add(bit)
        return low

    groups = []
    total = 0
    for _, used, size, value, kind, suit, low, places in chosen:
        total += value
        if kind == "set":
            cards = [take(_bit(low, s)) for s in places]
            groups.append(set_of(cards, [spare.pop(0) for _ in range(used)]))
        else:
            cards = [
                spare.pop(0) if p in places else take(_bit(_rank_at(p), suit))
                for p in range(low, low + size)
            ]
            groups.append(run_of(cards, low))
    return Opening(tuple(groups), total)


def _by_copy(card: Card) -> int:
    return card.copy

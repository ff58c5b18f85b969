"""The most valuable groups a Rummy 51 hand can lay down at once: the best opening, exactly
(docs/rules/rummy-51.md, "Opening" and "Always keep a card to throw").

How it works:

1. **Candidates by card value.** The two copies of a card are interchangeable for the search, so
   the hand becomes two bit masks over the 52 natural cards (``once``: held at least once,
   ``twice``: held twice) and a joker count. Every group the hand could lay is listed: per rank,
   the sets of 2-4 held suits with at most one joker; per suit, every window of run positions
   (the ace at 1 or 14) filled by held cards and jokers, jokers also in the place of a held card
   (that card may be wanted elsewhere). Two groups with the same natural cards and the same number
   of jokers differ only in where the jokers stand, so only the more valuable is kept (a joker at
   the high end of ``10H JH QH`` is the ``KH``, not the ``9H``).
2. **Search.** The lowest undecided card (bits ordered by rank, then suit, so a set's cards are
   neighbours) is either kept in hand or laid in one of the candidates that contain it; with two
   copies, both may be laid, in two candidates taken in list order so that no packing is counted
   twice. The best result of each remaining (cards, jokers, room) is memoised, so the search is
   exact: the true maximum. The room (how many more cards may be laid while keeping ``keep``)
   is only part of the key when it is less than the cards left, where it can bind.
3. **Physical cards.** The winning candidates are laid with the hand's own card objects, lower
   ``copy`` first, through :func:`groups.make_group`, which checks each group once more.

A result is ranked by value, then by the number of cards laid, then by fewer jokers: one integer
score per candidate carries all three, so equal values go to the packing that lays more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Final

from rummyhall.cards import ACE, Card, Suit
from rummyhall.games.rummy51.groups import (
    HIGH_ACE,
    LONGEST_RUN,
    SMALLEST_GROUP,
    Group,
    make_group,
    meld_value,
)

OPENING: Final = 51
"""The least an opening may be worth."""

_SETS_JOKERS: Final = 1
"""A set never holds more than one joker, in an opening or after."""
_OPENING_RUN_JOKERS: Final = 1
"""An opening run holds at most one joker; after opening, any number."""

_POSITION_VALUE: Final = (0, *(meld_value(Card(min(p, 13), Suit.S)) for p in range(1, 15)))
"""A run position's value (1..14; the ace is 10 at both ends)."""


def _bit(rank: int, suit: int) -> int:
    """The mask bit of a natural card: rank-major, so the search meets a rank's suits together."""
    return 1 << ((rank - 1) * 4 + suit)


def _rank_at(position: int) -> int:
    return ACE if position == HIGH_ACE else position


@dataclass(frozen=True, slots=True)
class Opening:
    """Groups to lay down together and their total value. ``groups`` come in the search's order:
    by their lowest card, rank first (an ace counts as rank 1 wherever it sits)."""

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


@dataclass(frozen=True, slots=True)
class _Candidate:
    """One group the hand could lay: its natural cards (``mask``), jokers, size and value, and how
    to lay it (``run``: suit, first position, joker positions; ``set``: rank and suits)."""

    mask: int
    jokers: int
    size: int
    value: int
    kind: str
    suit: int
    low: int
    places: tuple[int, ...]
    """Run: the positions the jokers take. Set: the suits of its natural cards."""


def _runs(once: int, jokers: int, limit: int) -> dict[tuple[int, int], _Candidate]:
    """Every run the held cards and up to ``limit`` jokers make, the best per (cards, jokers)."""
    found: dict[tuple[int, int], _Candidate] = {}
    limit = min(limit, jokers)
    for suit in range(4):
        held = [False] + [bool(once & _bit(_rank_at(p), suit)) for p in range(1, HIGH_ACE + 1)]
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
                for extra in range(min(limit - len(missing), len(present) - 1) + 1):
                    for replaced in combinations(present, extra):
                        mask = 0
                        for p in present:
                            if p not in replaced:
                                mask |= _bit(_rank_at(p), suit)
                        used = len(missing) + extra
                        best = found.get((mask, used))
                        if best is None or value > best.value:
                            places = tuple(sorted((*missing, *replaced)))
                            size = high - low + 1
                            found[mask, used] = _Candidate(
                                mask, used, size, value, "run", suit, low, places
                            )
    return found


def _sets(once: int, jokers: int) -> list[_Candidate]:
    """Every set of 3 or 4 cards the held suits of a rank make with at most one joker."""
    found = []
    for rank in range(1, 14):
        suits = [suit for suit in range(4) if once & _bit(rank, suit)]
        for count in range(2, len(suits) + 1):
            for chosen in combinations(suits, count):
                mask = sum(_bit(rank, suit) for suit in chosen)
                for used in range(min(_SETS_JOKERS, jokers) + 1):
                    if 3 <= count + used <= 4:
                        value = meld_value(Card(rank, Suit.S)) * (count + used)
                        found.append(
                            _Candidate(mask, used, count + used, value, "set", 0, rank, chosen)
                        )
    return found


def best_opening(hand: Sequence[Card], *, keep: int = 1, opening: bool = True) -> Opening:
    """The most valuable disjoint groups of ``hand`` that leave at least ``keep`` cards in it.

    ``opening=True``: at most one joker in each group (an opening). ``opening=False``, for a
    player who has opened and lays new groups: at most one joker in a set, any number in a run.
    Ties go to the groups that lay more cards, then to fewer jokers, then to the search's own
    fixed order; the result depends on the hand's cards, not on their order (each card's lowest
    ``copy`` is laid first). No group at all: an ``Opening`` of no groups, worth 0.

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
    for bit, cards in naturals.items():
        if len(cards) > 2:
            raise ValueError(f"{cards[0]} is held {len(cards)} times; the shoe has two")
        once |= bit
        if len(cards) == 2:
            twice |= bit
    room = len(hand) - keep
    limit = _OPENING_RUN_JOKERS if opening else len(jokers)
    candidates = [*_sets(once, len(jokers)), *_runs(once, len(jokers), limit).values()]
    if room < SMALLEST_GROUP or not candidates:
        return Opening((), 0)

    chosen = _search(once, twice, len(jokers), room, candidates, len(hand))
    return _lay(chosen, naturals, jokers)


_VALUE_BITS: Final = tuple(
    (
        value,
        sum(
            _bit(rank, suit)
            for rank in range(1, 14)
            for suit in range(4)
            if meld_value(Card(rank, Suit.S)) == value
        ),
    )
    for value in range(10, 1, -1)
)
"""(value, mask of the cards worth it), most valuable first: what the bound adds up."""


def _search(
    once: int, twice: int, jokers: int, room: int, candidates: list[_Candidate], size: int
) -> list[_Candidate]:
    """The candidates of the best packing (see the module's docstring, step 2)."""
    # One integer per candidate ranks value, then cards laid, then fewer jokers: the weights keep
    # each part below the one before it for any packing of this hand.
    per_card = jokers + 1
    per_point = (size + 1) * per_card
    usable = 0
    for cand in candidates:
        usable |= cand.mask
    once &= usable  # a card in no candidate is kept, whatever happens
    twice &= usable
    by_pivot: dict[int, list[tuple[int, int, int, int, _Candidate]]] = {}
    for cand in candidates:
        score = cand.value * per_point + cand.size * per_card - cand.jokers
        pivot = cand.mask & -cand.mask
        by_pivot.setdefault(pivot, []).append((cand.mask, cand.jokers, cand.size, score, cand))
    for options in by_pivot.values():
        options.sort(key=lambda option: -option[3])  # good packings first: more is pruned
    unbounded = size + 1
    # state -> (score, exact, choice); not exact: an upper bound, all that was asked then
    memo: dict[tuple[int, int, int, int], tuple[int, bool, tuple[int, ...]]] = {}

    def key(a: int, b: int, j: int, r: int) -> tuple[int, int, int, int]:
        # room that cannot bind (no fewer than the cards left) is all the same room
        return (a, b, j, unbounded if r >= a.bit_count() + b.bit_count() + j else r)

    def bound(a: int, b: int, j: int, r: int) -> int:
        """At most this: the ``r`` most valuable cards left, jokers as tens, all laid."""
        left = min(r, j)
        value = 10 * left
        for worth, bits in _VALUE_BITS:
            if left >= r:
                break
            count = min((a & bits).bit_count() + (b & bits).bit_count(), r - left)
            value += worth * count
            left += count
        return value * per_point + left * per_card

    def best(a: int, b: int, j: int, r: int, alpha: int) -> int:
        """The best score of what is left, if more than ``alpha``; else at most ``alpha``."""
        if not a:
            return 0
        k = key(a, b, j, r)
        hit = memo.get(k)
        if hit is not None and (hit[1] or hit[0] <= alpha):
            return hit[0]
        top = bound(a, b, j, r)
        if top <= alpha:
            memo[k] = (top, False, ())
            return top
        low = a & -a
        options = by_pivot.get(low, [])
        top, choice = -1, ()
        for i, (mask, used, laid, score, _) in enumerate(options):
            if mask & ~a or used > j or laid > r:
                continue
            a1 = a & ~(mask & ~b)  # one copy of each card: the second where there are two
            b1 = b & ~mask
            if not b & low:
                total = score + best(a1, b1, j - used, r - laid, max(alpha, top) - score)
                if total > top:
                    top, choice = total, (i,)
                continue
            # Two copies of the lowest card: lay the other in a later-listed option, or keep it.
            for i2 in range(i, len(options)):
                mask2, used2, laid2, score2, _ = options[i2]
                if mask2 & ~a1 or used + used2 > j or laid + laid2 > r:
                    continue
                a2 = a1 & ~(mask2 & ~b1)
                b2 = b1 & ~mask2
                both = score + score2
                total = both + best(
                    a2, b2, j - used - used2, r - laid - laid2, max(alpha, top) - both
                )
                if total > top:
                    top, choice = total, (i, i2)
            total = score + best(a1 ^ low, b1, j - used, r - laid, max(alpha, top) - score)
            if total > top:
                top, choice = total, (i,)
        total = best(a ^ low, b & ~low, j, r, max(alpha, top))
        if total > top:
            top, choice = total, ()
        memo[k] = (top, top > alpha, choice)
        return top

    best(once, twice, jokers, room, -1)
    # Walk the memo from the top, taking each state's choice as `best` made it (every state on
    # the best path was solved exactly: its score beat what it was asked to beat).
    picked: list[_Candidate] = []
    a, b, j, r = once, twice, jokers, room
    while a:
        low = a & -a
        _, exact, choice = memo[key(a, b, j, r)]
        assert exact
        if not choice:
            a, b = a ^ low, b & ~low
            continue
        lay_other = len(choice) == 1 and b & low
        for index in choice:
            mask, used, laid, _, cand = by_pivot[low][index]
            a, b = a & ~(mask & ~b), b & ~mask
            j, r = j - used, r - laid
            picked.append(cand)
        if lay_other:
            a ^= low
    return picked


def _lay(
    chosen: Sequence[_Candidate], naturals: dict[int, list[Card]], jokers: Sequence[Card]
) -> Opening:
    """The chosen candidates as groups of the hand's physical cards, lower ``copy`` first."""
    pools = {bit: sorted(cards, key=_by_copy) for bit, cards in naturals.items()}
    spare = sorted(jokers, key=_by_copy)
    groups = []
    for cand in chosen:
        cards: list[Card] = []
        if cand.kind == "set":
            cards = [pools[_bit(cand.low, suit)].pop(0) for suit in cand.places]
            cards += [spare.pop(0) for _ in range(cand.jokers)]
            group = make_group(cards, max_set_jokers=_SETS_JOKERS)
        else:
            for p in range(cand.low, cand.low + cand.size):
                take = spare if p in cand.places else pools[_bit(_rank_at(p), cand.suit)]
                cards.append(take.pop(0))
            group = make_group(cards, max_run_jokers=None)
        if group is None or group.value != cand.value:
            raise AssertionError(f"the search chose {cards}, which make_group reads otherwise")
        groups.append(group)
    return Opening(tuple(groups), sum(group.value for group in groups))


def _by_copy(card: Card) -> int:
    return card.copy

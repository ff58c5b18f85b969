"""The exact optimal-arrangement solver (docs/melds.md says what it computes).

How it works, in three steps:

1. **Count rule without the requirement.** If a loser's melds miss the requirement, only pure
   sequences are exempt (or nothing is, in vengala). Pure sequences never cross suits, so the best
   such score is the sum of per-suit tables (:func:`suits.pure_tables`).
2. **Can the requirement be met at all?** Every declaration needs pure sequences; if the suits
   cannot lay enough of them, step 1 is the answer. Most random hands end here.
3. **Search with the requirement.** Sets are the only melds that cross suits, so the solver
   enumerates the ways to take sets out of the ranks where a set is possible, and for each asks
   the per-suit tables (:class:`suits.SuitTables`) about what is left of each suit, combining
   the four suits and the joker pool with a small dynamic programme over (jokers, requirement
   state), best bound first.

Everything is keyed by card counts; per-suit tables and whole results are memoised across calls.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, fields
from heapq import heappop, heapreplace
from itertools import product
from operator import attrgetter, itemgetter
from typing import Final, cast

from rummyhall.cards import CODE_POINTS, JOKER_CODE, Card
from rummyhall.melds.arrangement import Arrangement
from rummyhall.melds.kinds import Kind, classify, kind_of
from rummyhall.melds.profiles import Profile, Wilds, get_profile
from rummyhall.melds.suits import (
    FEWEST_JOKERS,
    LOW_BITS,
    POINTS,
    SUIT_MEMOS,
    WITNESS,
    Budget,
    Meld,
    Memo,
    Option,
    PureSummary,
    SuitRules,
    SuitTable,
    Witness,
    combine_table,
    discard_position,
    lays_pure,
    melds,
    pure_count,
    pure_tables,
    suit_tables,
    worth,
)
from rummyhall.melds.suits import count as count_at


@dataclass(frozen=True, slots=True)
class _SetChoice:
    """Sets of one rank: the natural cards taken from each suit, the fewest jokers they need, and
    the ways to lay them (number of sets, their sizes in naturals, the jokers they need, room for
    more). Laid as more sets, or with a fourth card, sets can take spare jokers, which a Marriage
    declaration must meld: ``extra`` has bit e set when the sets can take e jokers more than the
    fewest."""

    take: tuple[int, int, int, int]
    jokers: int
    layouts: tuple[tuple[tuple[int, ...], int, int], ...]
    extra: int

    def layout(self, extra: int) -> tuple[tuple[int, ...], int]:
        """Sizes of the sets and jokers that lay them with ``extra`` more jokers than the fewest
        (the jokers beyond what the sizes need make sets of 3 into sets of 4)."""
        for sizes, jokers, room in self.layouts:
            if jokers <= self.jokers + extra <= jokers + room:
                return sizes, self.jokers + extra
        raise ValueError(f"these sets cannot take {extra} more jokers")


_NO_SETS: Final = _SetChoice((0, 0, 0, 0), 0, (((), 0, 0),), 1)


def _add_extras(a: int, b: int) -> int:
    """Every sum of an amount in mask ``a`` and one in mask ``b`` (bit e: amount e)."""
    out = 0
    while a:
        low = a & -a
        out |= b * low
        a ^= low
    return out


class _Best:
    """The best arrangement found so far: a plain class, not a dataclass, since compiled a
    dataclass is built through the __init__ the dataclasses module writes in Python (an
    interpreted call each time the search improves)."""

    def __init__(
        self,
        penalty: int,
        declarable: bool,
        sets: tuple[tuple[int, _SetChoice], ...],
        options: tuple[Option, ...],
        discard_joker: bool,
        joker_tunnelas: int = 0,
    ) -> None:
        self.penalty = penalty
        self.declarable = declarable
        self.sets = sets
        self.options = options
        self.discard_joker = discard_joker
        self.joker_tunnelas = joker_tunnelas


_Skeleton = tuple[
    tuple[tuple[int, ...], ...],
    tuple[str, ...],
    tuple[int, ...],
    int,
    bool,
    int,
    tuple[tuple[int, ...], ...],
]
"""A result in card codes, as the solver builds it: (groups, kinds, leftover, penalty, declarable,
discard or -1, 2-point groups or ()). :func:`_placed` turns it into a :data:`_Placed`."""
_Placed = _Skeleton
"""A :data:`_Skeleton` whose cards are places in the hand sorted by code (a stable sort: copies of
a card in the caller's order) instead of codes, kept in the result cache, so that handing a hand's
own physical cards back (:func:`_realise`) is plain indexing. Plain tuples of ints and strings,
which the garbage collector soon stops tracking."""
_KIND: Final = {kind.value: kind for kind in Kind}
# The kinds the results are built with, as module constants, and their values through a dict:
# compiled, ``Kind.SET`` is an attribute lookup on the enum class each time, and ``kind.value``
# calls the enum's property, an interpreted frame, for every group of every result.
_PURE_SEQUENCE: Final = Kind.PURE_SEQUENCE
_IMPURE_SEQUENCE: Final = Kind.IMPURE_SEQUENCE
_SET: Final = Kind.SET
_TUNNELA: Final = Kind.TUNNELA
_VALUE: Final = {kind: kind.value for kind in Kind}


_RULES: dict[str, SuitRules] = {}


def _rules(profile: Profile) -> SuitRules:
    rules = _RULES.get(profile.name)
    if rules is None:
        rules = SuitRules(
            max_jokers=profile.max_jokers_per_meld,
            triple=profile.identical_triple_pure,
            long=profile.long_sequence,
            marriage=profile.min_pure_sequences >= 3,
        )
        _RULES[profile.name] = rules
    return rules


def _met(rules: SuitRules, profile: Profile, state: int) -> bool:
    if rules.marriage:
        return state % 5 >= profile.min_pure_sequences
    if rules.long is None:
        return state & 1 == 1 and state >> 3 >= 2
    # A long pure sequence and any other, or a pure one and a long impure one.
    return (state & 2 == 2 and state >> 3 >= 2) or (state & 5 == 5)


_SET_CHOICES: Final[Memo[tuple[tuple[int, ...], int, str], tuple[_SetChoice, ...]]] = Memo(
    SUIT_MEMOS
)


def _set_choices(have: tuple[int, ...], pool: int, profile: Profile) -> tuple[_SetChoice, ...]:
    """Ways to make sets of one rank from ``have[s]`` natural cards of each suit. A set holds 2-4
    naturals of different suits (2 only with a joker); one natural and two jokers is never better
    than the same as a sequence, which also counts towards the requirement. Memoised: there are
    only so many ways to hold one rank (so the memo stays small, though its objects are ones the
    garbage collector tracks)."""
    key = (have, pool, profile.name)
    found = _SET_CHOICES.get(key)
    if found is None:
        found = tuple(_make_set_choices(have, pool, profile))
        _SET_CHOICES.put(key, found)
    return found


# A set choice for the walk: (choice, (suit, its cards as a packed count, their points) for each
# suit it takes from, the points it takes).
_SetMove = tuple[_SetChoice, tuple[tuple[int, int, int], ...], int]
_SET_MOVES: Final[Memo[int, tuple[_SetMove, ...]]] = Memo(SUIT_MEMOS)


def _set_moves(r: int, have: tuple[int, ...], pool: int, profile: Profile) -> tuple[_SetMove, ...]:
    """:func:`_set_choices` at rank ``r``, as the walk applies them (memoised, on an int: the
    profile counts only through whether sets must make room for spare jokers)."""
    held = have[0] | have[1] << 2 | have[2] << 4 | have[3] << 6  # at most 3 copies a suit
    key = ((r << 8 | held) << 8 | pool) << 1 | (profile.min_pure_sequences >= 3)
    found = _SET_MOVES.get(key)
    if found is None:
        one, points = 1 << (2 * r - 2), POINTS[r - 1]
        found = tuple(
            (
                choice,
                tuple((s, n * one, n * points) for s, n in enumerate(choice.take) if n),
                sum(choice.take) * points,
            )
            for choice in _set_choices(have, pool, profile)
        )
        _SET_MOVES.put(key, found)
    return found


def _make_set_choices(have: tuple[int, ...], pool: int, profile: Profile) -> list[_SetChoice]:
    choices = [_NO_SETS]
    want_room = profile.min_pure_sequences >= 3
    for taken in product(*(range(n + 1) for n in have)):
        take = (taken[0], taken[1], taken[2], taken[3])
        total = sum(take)
        if total < 2 or (total < 3 and pool == 0):
            continue
        fewest = max(*take, -(-total // 4))
        layouts = []
        for count in range(fewest, total // 2 + 1):
            base, extra = divmod(total, count)
            sizes = (base + 1,) * extra + (base,) * (count - extra)
            jokers = sum(max(0, 3 - size) for size in sizes)
            if jokers > pool:
                break
            layouts.append((sizes, jokers, 4 * count - max(total, 3 * count)))
            if not want_room:
                break  # more sets only cost jokers
        if not layouts:
            continue
        least = layouts[0][1]
        mask = 0
        for _, jokers, room in layouts:
            mask |= ((1 << (room + 1)) - 1) << (jokers - least)
        choices.append(_SetChoice(take, least, tuple(layouts), mask))
    return choices


JOKER_BOUND: Final = 4
"""Per-suit tables of small suits are built for at least this many jokers and shared by every
hand with no more wild cards (a hand filters out what it cannot afford); a hand with more builds
larger ones. Big suits get tables for the hand's own wild cards (see suits.SuitTables)."""


class _Deal:
    """What a cut card fixes for one profile, shared by every hand dealt with it: the wild cards,
    and per card code its points (0 for a wild card)."""

    __slots__ = ("key", "natural_wild", "points", "wilds")

    def __init__(self, cut: Card, profile: Profile) -> None:
        self.wilds = Wilds.of(cut, profile)
        self.natural_wild = self.wilds.natural_codes
        wild = self.wilds.codes
        # Results depend on the wild cards: the cut card's rank, or in Marriage the card itself.
        self.key = (profile.name, cut.code if profile.value_jokers else self.wilds.wild_rank)
        self.points = tuple(0 if c in wild else CODE_POINTS[c] for c in range(JOKER_CODE + 1))


_DEALS: dict[tuple[int, str], _Deal] = {}
_PROFILES: dict[str, Profile] = {}
"""Profiles by the names callers give (get_profile's answers)."""
RESULT_MEMOS: Final = Budget(10_000)
"""Whole results and the kinds of groups shown: a bot asks about the same hand again and again
(and hint() asks arrange()), random hands hardly ever come back. About 7 MB a generation."""
_RESULTS: Final[Memo[tuple[tuple[str, int], bool, tuple[int, ...]], _Placed]] = Memo(RESULT_MEMOS)
_CODE: Final = attrgetter("code")
_FIRST: Final = itemgetter(0)


def arrange(hand: Sequence[Card], *, joker: Card, profile: Profile | str) -> Arrangement:
    """The exact best arrangement of ``hand`` with ``joker`` as the cut card (docs/melds.md)."""
    if isinstance(profile, Profile):
        prof = profile
    else:
        # get_profile is interpreted: called once a name, not once a hand.
        found = _PROFILES.get(profile)
        if found is None:
            found = _PROFILES[profile] = get_profile(profile)
        prof = found
    deal = _DEALS.get((joker.code, prof.name))
    if deal is None:
        deal = _DEALS[(joker.code, prof.name)] = _Deal(joker, prof)
    cards = list(hand)  # indexed below: a list's items are read natively, a Sequence's are not
    codes = [card.code for card in cards]
    if len(codes) < 256:
        # The hand sorted by code, copies in the caller's order (a stable sort), as one sort of
        # plain ints (code and place) rather than a key read off each card.
        order = sorted([code << 8 | i for i, code in enumerate(codes)])
        ordered = [cards[i & 255] for i in order]
        sorted_codes = tuple([i >> 8 for i in order])
    else:
        ordered = sorted(hand, key=_CODE)
        sorted_codes = tuple([card.code for card in ordered])
    discard_mode = len(codes) == prof.hand_size + 1
    key = (deal.key, discard_mode, sorted_codes)
    placed = _RESULTS.get(key)
    if placed is None:
        # The solver reads the hand in the caller's order (vengala's discard when nothing melds
        # is the first dearest card): the same multiset may come in another order later.
        placed = _solve(codes, sorted_codes, deal, prof, discard_mode)
        _RESULTS.put(key, placed)
    return _realise(placed, ordered)


def _placed(sk: _Skeleton, sorted_codes: tuple[int, ...]) -> _Placed:
    """The skeleton with places in ``sorted_codes`` for codes: each group, then the discard, then
    the leftover takes the last copy of a card not yet taken (the 2-point groups take afresh)."""
    groups, kinds, leftover, penalty, declarable, discard, two_point = sk
    # By card code, the place of the last copy not yet taken: a list, where a dict hashed every
    # code it was asked (compiled).
    last = [0] * (JOKER_CODE + 1)
    for i, code in enumerate(sorted_codes):
        last[code] = i
    fresh = last.copy() if two_point else last
    placed_groups = tuple([_places(group, last) for group in groups])
    placed_discard = _places((discard,), last)[0] if discard >= 0 else -1
    placed_leftover = _places(leftover, last)
    placed_two = tuple([_places(group, fresh) for group in two_point])
    return (
        placed_groups,
        kinds,
        placed_leftover,
        penalty,
        declarable,
        placed_discard,
        placed_two,
    )


def _places(codes: tuple[int, ...], last: list[int]) -> tuple[int, ...]:
    """The places of ``codes``, each the last copy of its card not yet taken (``last``)."""
    out = []
    for code in codes:
        i = last[code]
        last[code] = i - 1
        out.append(i)
    return tuple(out)


_NEW: Final = object.__new__
# The slots' own setters, what the frozen dataclass's __init__ reaches through object.__setattr__
# by name (its interpreted frame costs about as much as the rest of a hand that melds nothing).
_SET_GROUPS, _SET_LEFTOVER, _SET_PENALTY, _SET_DECLARABLE, _SET_KINDS, _SET_DISCARD, _SET_TWO = (
    getattr(Arrangement, field.name).__set__ for field in fields(Arrangement)
)


def _realise(placed: _Placed, ordered: list[Card]) -> Arrangement:
    """Hand the caller its own physical cards back (``ordered``: the hand sorted by code)."""
    groups, kinds, leftover, penalty, declarable, discard, two_point = placed
    result: Arrangement = _NEW(Arrangement)
    _SET_GROUPS(result, [[ordered[i] for i in group] for group in groups])
    _SET_LEFTOVER(result, [ordered[i] for i in leftover])
    _SET_PENALTY(result, penalty)
    _SET_DECLARABLE(result, declarable)
    _SET_KINDS(result, [_KIND[kind] for kind in kinds])
    _SET_DISCARD(result, ordered[discard] if discard >= 0 else None)
    _SET_TWO(result, [[ordered[i] for i in group] for group in two_point] if two_point else None)
    return result


def _dearest(codes: list[int], points: tuple[int, ...]) -> int:
    """The first card in ``codes`` worth the most (``max`` with a key, without a call per card)."""
    best, top = codes[0], points[codes[0]]
    for code in codes:
        if points[code] > top:
            best, top = code, points[code]
    return best


def _solve(
    codes: list[int],
    sorted_codes: tuple[int, ...],
    deal: _Deal,
    profile: Profile,
    discard_mode: bool,
) -> _Placed:
    """The result of the hand ``codes`` (in the caller's order; ``sorted_codes`` sorted)."""
    # Each suit's counts packed (suits.pack) as an int of its own: small ints, which compiled
    # code keeps in machine words (the whole hand in one int would allocate at every step).
    points = deal.points
    suits = [0, 0, 0, 0]
    total_points = 0
    for code in sorted_codes:
        total_points += points[code]
        if code < JOKER_CODE:
            s = code // 13
            suits[s] = suits[s] + (1 << 2 * (code % 13))  # += on an item: a generic add, compiled
    if not profile.dublees:
        triple = profile.identical_triple_pure
        for vec in suits:
            if lays_pure(vec, triple):
                break
        else:
            # Most random hands: no suit lays a pure sequence, so nothing melds (and there are
            # no special shapes).
            return _nothing_melds(
                codes, sorted_codes, deal, profile, discard_mode, total_points, suits
            )
    return _solve_melds(codes, sorted_codes, deal, profile, discard_mode, total_points, suits)


def _solve_melds(
    codes: list[int],
    sorted_codes: tuple[int, ...],
    deal: _Deal,
    profile: Profile,
    discard_mode: bool,
    total_points: int,
    suits: list[int],
) -> _Placed:
    """:func:`_solve` through the tables: the score with the requirement missed, and if it is
    within reach, the search for the best arrangement that meets it. ``suits``: each suit's
    packed counts (suits.pack)."""
    rules = _rules(profile)
    wilds = deal.wilds
    points = deal.points
    # sorted_codes.count(JOKER_CODE) without a method call (a generic one, compiled): printed
    # jokers have the highest code, so they sort last.
    printed = 0
    while printed < len(sorted_codes) and sorted_codes[-1 - printed] == JOKER_CODE:
        printed += 1
    wild_masks = [0, 0, 0, 0]  # wild ranks held, bit r for rank r
    wild_total = printed  # printed jokers and wild cards
    for code in deal.natural_wild:
        n = suits[code // 13] >> 2 * (code % 13) & 3
        if n:
            s = code // 13
            wild_masks[s] = wild_masks[s] | 2 << (code % 13)
            wild_total += n
    # A non-wild card with the most points, the first in the caller's order (vengala's discard
    # when nothing melds).
    dearest = _dearest(codes, points)
    if not points[dearest]:
        dearest = -1

    # Step 1: the score when the requirement is missed.
    pure = pure_tables(rules.triple, discard_mode)
    summaries = [pure.table(suits[s], wild_masks[s]) for s in range(4)]
    unmet_pick: tuple[Witness, ...] | None = None
    unmet_disc: int | None = None
    if profile.unmet == "all_count":
        unmet = total_points
        if discard_mode and dearest >= 0:
            unmet -= CODE_POINTS[dearest]
            unmet_disc = dearest
    else:
        unmet, unmet_pick = _best_pure(summaries, discard_mode, wild_total > 0)

    # Step 2: is the requirement within reach? Sets and jokers never make a pure sequence.
    joker_tunnelas = printed // 3 if profile.printed_joker_tunnela else 0
    most_pure = summaries[0][4] + summaries[1][4] + summaries[2][4] + summaries[3][4]
    reachable = most_pure + joker_tunnelas >= profile.min_pure_sequences

    best: _Best | None = None
    if reachable:
        best = _SetSearch(
            suits, wild_masks, printed, wild_total, rules, profile, discard_mode, unmet
        ).run()
    if best is not None and (best.penalty <= unmet or best.declarable):
        return _placed(_build_met(best, codes, wilds, profile), sorted_codes)
    skeleton = _build_unmet(
        codes, wilds, profile, min(unmet, profile.cap), unmet_pick, unmet_disc, discard_mode
    )
    return _placed(skeleton, sorted_codes)


def _nothing_melds(
    codes: list[int],
    sorted_codes: tuple[int, ...],
    deal: _Deal,
    profile: Profile,
    discard_mode: bool,
    total_points: int,
    suits: list[int],
) -> _Placed:
    """What :func:`_build_unmet` makes of a hand whose suits lay no pure sequence, without the
    pure tables: every card is left over, less the discard: the first dearest card in the
    caller's order (vengala), or :func:`_best_pure`'s (a card of the first suit holding one worth
    the most, the one its table discards), or the first wild card."""
    penalty = total_points
    place = -1
    if discard_mode:
        points = deal.points
        discard = _dearest(codes, points)
        top = points[discard]
        if top and profile.unmet != "all_count":
            # The first suit holding a non-wild card worth ``top``, and the card its pure
            # table would discard.
            wild = [0, 0, 0, 0]  # the wild cards' positions in each suit
            for code in deal.natural_wild:
                s = code // 13
                if suits[s] >> 2 * (code % 13) & 3:
                    wild[s] |= 1 << 2 * (code % 13)
            worth = _SUIT_WORTH[top]
            s = 0
            while not (suits[s] | suits[s] >> 1) & worth & ~wild[s]:
                s += 1
            discard = 13 * s + discard_position(suits[s], wild[s], top) - 1
        elif not top:
            discard = next(c for c in sorted_codes if c in deal.wilds.codes)
        penalty -= top
        place = bisect_right(sorted_codes, discard) - 1  # the last copy, as _placed takes it
    n = len(sorted_codes)
    if len(set(sorted_codes)) == n:
        leftover = tuple([i for i in range(n) if i != place])
    else:
        # The leftover takes the last copy not yet taken, as _placed does: copies in reverse.
        rest = [(sorted_codes[i], -i) for i in range(n) if i != place]
        leftover = tuple([-i for _, i in sorted(rest)])
    return ((), (), leftover, min(penalty, profile.cap), False, place, ())


_SUIT_WORTH: Final = {value: worth(value) for value in set(CODE_POINTS)}
"""The places in a packed suit of the cards worth so many points (suits.worth)."""


def _best_pure(
    tabs: list[PureSummary], discard_mode: bool, wild_discard: bool
) -> tuple[int, tuple[Witness, ...]]:
    """Fewest points outside pure sequences over the four suits, with exactly one discard when
    ``discard_mode``: the dearest card of one suit, or a wild card (worth 0 anyway)."""
    total = sum(t[0] for t in tabs)
    plain = tuple(t[1] for t in tabs)
    if not discard_mode:
        return total, plain
    best: tuple[int, tuple[Witness, ...]] | None = (total, plain) if wild_discard else None
    for s, (points, _, points_discarding, witness_discarding, _) in enumerate(tabs):
        if points_discarding < 0:
            continue
        cand = total - points + points_discarding
        if best is None or cand < best[0]:
            best = (cand, (*plain[:s], witness_discarding, *plain[s + 1 :]))
    assert best is not None
    return best


# A pair of suits combined: (leftover, jokers, state, discard, absorber, option of the first suit,
# option of the second), one per distinct (jokers, state, discard, absorber), fewest leftover first.
_Pair = tuple[int, int, int, int, int, Option, Option]
# A pair list, and the same entries grouped by state (each group fewest leftover first).
_Joined = tuple[list[_Pair], list[tuple[int, list[_Pair]]]]


def _combine_pair(
    first: tuple[Option, ...],
    second: tuple[Option, ...],
    cap: int,
    comb: tuple[tuple[int, ...], ...],
    budget: int,
) -> list[_Pair]:
    """Two suits' options (of the tables at ``budget`` jokers) joined, keeping per (jokers,
    state, discard, absorber) the least leftover; combinations at ``cap`` or above (and above
    0) cannot win and are dropped."""
    # Where the entry of each (state, discard, absorber, jokers) is in ``found``, as the suits'
    # merges keep theirs (suits.SuitSolver._spare_slots): every option takes at most ``budget``
    # jokers and gives at most suits.FEWEST_JOKERS to the pool.
    span = 2 * (budget + FEWEST_JOKERS) + 1
    slots = _take_pair_slots(len(comb) * 4 * span)
    found: list[_Pair] = []
    for o1 in first:
        lo1, j1, st1, d1, ab1, _ = o1
        row = comb[st1]
        for o2 in second:
            lo = lo1 + o2[0]
            if lo >= cap and lo > 0:
                break  # options come sorted by leftover
            d = d1 + o2[3]
            if d > 1:
                continue
            jokers = j1 + o2[1]
            state = row[o2[2]]
            ab = ab1 | o2[4]
            key = (state << 2 | d << 1 | ab) * span + jokers + 2 * FEWEST_JOKERS
            at = slots[key]
            if at < 0:
                slots[key] = len(found)
                found.append((lo, jokers, state, d, ab, o1, o2))
            elif lo < found[at][0]:
                found[at] = (lo, jokers, state, d, ab, o1, o2)
    for entry in found:
        slots[(entry[2] << 2 | entry[3] << 1 | entry[4]) * span + entry[1] + 2 * FEWEST_JOKERS] = -1
    _SPARE_PAIR_SLOTS.append(slots)
    # Entries differ in (jokers, state, discard, absorber): sorting the whole tuples sorts by
    # their first five fields and never compares options.
    found.sort()
    return found


_SPARE_PAIR_SLOTS: Final[list[list[int]]] = []
"""Slots for :func:`_combine_pair`, all free (-1): one serves every join (a thread that joins at
the same time takes one of its own; a join that raised drops its own)."""


def _take_pair_slots(size: int) -> list[int]:
    spare = _SPARE_PAIR_SLOTS
    if spare and len(spare[-1]) >= size:
        return spare.pop()
    if spare:
        spare.pop()  # too short for this hand's jokers: a longer one replaces it
    return [-1] * size


_MET_WITH: dict[tuple[str, int], tuple[tuple[bool, ...], ...]] = {}


def _met_with(rules: SuitRules, profile: Profile, extra: int = 0) -> tuple[tuple[bool, ...], ...]:
    """``[a][b]``: whether states a and b, with state ``extra`` added (tunnelas of printed
    jokers), together meet the requirement."""
    key = (profile.name, extra)
    table = _MET_WITH.get(key)
    if table is None:
        comb = combine_table(rules)
        n = len(comb)
        table = tuple(
            tuple(_met(rules, profile, comb[comb[a][b]][extra]) for b in range(n)) for a in range(n)
        )
        _MET_WITH[key] = table
    return table


_NO_LIMIT: Final = 1 << 30

_JOKER_TUNNELAS: dict[tuple[str, int], list[tuple[int, int, tuple[tuple[bool, ...], ...]]]] = {}


def _joker_tunnelas(
    rules: SuitRules, profile: Profile, tunnelas: int
) -> list[tuple[int, int, tuple[tuple[bool, ...], ...]]]:
    """For t = 0 .. ``tunnelas`` tunnelas of printed jokers: (t, their requirement state, which
    pairs of states meet the requirement with them). Memoised."""
    key = (profile.name, tunnelas)
    found = _JOKER_TUNNELAS.get(key)
    if found is None:
        found = [(t, min(4, t), _met_with(rules, profile, min(4, t))) for t in range(tunnelas + 1)]
        _JOKER_TUNNELAS[key] = found
    return found


# What the leaves' bound needs of a suit's options, computed once per options tuple since many
# leaves (of many hands) share a suit: (options, least leftover without the discard, with it, the
# same for options holding a pure sequence). Keyed by id(options): the entry keeps the tuple
# alive, so an id is never reused while it is here.
_Summary = tuple[tuple[Option, ...], int, int, int, int]
_SUMMARIES: Final[Memo[int, _Summary]] = Memo(SUIT_MEMOS)


def _summary(options: tuple[Option, ...], marriage: bool) -> _Summary:
    found = _SUMMARIES.get(id(options))
    if found is None:
        least = [_NO_LIMIT, _NO_LIMIT, _NO_LIMIT, _NO_LIMIT]
        for lo, _, state, disc, _, _ in options:
            least[disc] = min(least[disc], lo)
            if (state % 5 if marriage else state & 1) and lo < least[2 + disc]:
                least[2 + disc] = lo
        found = (options, least[0], least[1], least[2], least[3])
        _SUMMARIES.put(id(options), found)
    return found


_Tables = tuple[SuitTable, SuitTable, SuitTable, SuitTable]

# A leaf of the set search: (bound, sets chosen, fewest jokers they take, mask of how many more
# they could take, suits left).
_Leaf = tuple[int, tuple[tuple[int, _SetChoice], ...], int, int, tuple[int, ...]]


class _SetSearch:
    """The best arrangement that meets the requirement, over every way to take sets out.

    A branch and bound: the ranks where a set is possible are decided one by one, and each leaf
    joins the four suits' tables (two pairs of suits, then the pairs, cheapest first), stopping as
    soon as nothing left can beat the best found so far (at first the score with the requirement
    missed, or the cap). The walk drops every set choice that leaves the suits too few pure
    sequences for the requirement (:func:`suits.pure_count`, cheap where a suit's table is
    not): in a hand that can just meet it, most choices do. Leaves are visited best first, by
    a bound from the walk that costs nothing, refined once a leaf comes first
    (:meth:`_refine`): many leaves fall there, before their suits' tables are joined."""

    def __init__(
        self,
        suits: list[int],
        wild_masks: list[int],
        printed: int,
        wild_total: int,
        rules: SuitRules,
        profile: Profile,
        discard_mode: bool,
        incumbent: int,
    ) -> None:
        self.suits, self.wild_masks = suits, wild_masks
        self.printed, self.wild_total = printed, wild_total
        self.rules, self.profile, self.discard_mode = rules, profile, discard_mode
        self.comb = combine_table(rules)
        # Three printed jokers make a tunnela (Marriage): laid from the pool, not from a suit.
        tunnelas = printed // 3 if profile.printed_joker_tunnela else 0
        self.joker_tunnelas = _joker_tunnelas(rules, profile, tunnelas)
        self.best: _Best | None = None
        # Penalties at or above the cap all score the cap, so the cap bounds the search too.
        self.limit = min(incumbent, profile.cap)
        self.tables = suit_tables(rules, wild_total, discard_mode, JOKER_BOUND)
        # Pure sequences the suits must lay themselves (sets and jokers never make one).
        self.need_pure = profile.min_pure_sequences - tunnelas
        # While walking: how many each suit can lay of what the sets left it.
        self.laid = [pure_count(vec, rules.triple) for vec in suits]
        self.base = [self.tables.table(suits[s], wild_masks[s]) for s in range(4)]
        self.current = list(suits)  # while walking: the suits less the cards sets took
        self.taken = [0, 0, 0, 0]  # while walking: points of each suit's cards sets took
        # Joined pairs of suits, found by the tables' identity (a search meets a handful).
        self.pairs: list[tuple[SuitTable, SuitTable, _Joined]] = []
        self.capped: list[tuple[SuitTable, SuitTable, int, list[_Pair], int]] = []
        self.without_sets: list[int] = []
        # budget -> each suit's least leftover with that many jokers, for the leaves' bound.
        self.base_least = [tuple(t[b][0][0] for t in self.base) for b in range(wild_total + 1)]
        self.set_ranks: list[tuple[int, tuple[_SetMove, ...]]] = []
        # open_points[i]: points of the natural cards at the set ranks from the i-th on.
        self.open_points = [0]
        held = [(vec | vec >> 1) & LOW_BITS for vec in suits]
        for s, mask in enumerate(wild_masks):
            while mask:  # bit r (a wild rank) -> bit 2(r - 1) (its position)
                bit = mask & -mask
                mask ^= bit
                held[s] &= ~(1 << (2 * bit.bit_length() - 4))
        h0, h1, h2, h3 = held
        # Ranks held (not wild) in two suits or more, the highest first.
        ranks = (h0 | h1) & (h2 | h3) | h0 & h1 | h2 & h3
        while ranks:
            top = ranks.bit_length() - 1
            ranks ^= 1 << top
            r = top // 2 + 1
            have = (
                count_at(suits[0], r) if h0 >> top & 1 else 0,
                count_at(suits[1], r) if h1 >> top & 1 else 0,
                count_at(suits[2], r) if h2 >> top & 1 else 0,
                count_at(suits[3], r) if h3 >> top & 1 else 0,
            )
            moves = _set_moves(r, have, wild_total, profile)
            if len(moves) > 1:
                self.set_ranks.append((r, moves))
                held_here = have[0] + have[1] + have[2] + have[3]  # sum(), without a call
                self.open_points.append(self.open_points[-1] + held_here * POINTS[r - 1])
        self.set_ranks.reverse()
        self.open_points.reverse()
        # No join of two suits is ever used above this (it only counts below the limit, or
        # below the limit plus what sets could take, for the bound of the leaves with sets).
        self.pair_cap = self.limit + self.open_points[0]

    def run(self) -> _Best | None:
        # Best first: the leaf without sets, then every other leaf in the order of its bound,
        # until the bounds reach what the best leaf so far scores. A leaf's bound from the walk
        # is refined (see _refine) only when it comes first, and the leaf goes back in line.
        self._leaf((), 0, 1, self.suits)
        if self.best is not None and self.best.declarable:
            return self.best
        leaves: list[_Leaf] = []
        if self.set_ranks:
            self.without_sets = self._without_sets_all()
            self._walk(0, (), 0, 1, 0, leaves)
        leaves.sort(key=_FIRST)
        # (bound, position, tables once refined, leaf); sorted, so already a heap.
        queue: list[tuple[int, int, _Tables | None, _Leaf]] = [
            (leaf[0], i, None, leaf) for i, leaf in enumerate(leaves)
        ]
        while queue:
            bound, i, tabs, leaf = queue[0]
            if self._hopeless(bound) or (self.best is not None and self.best.declarable):
                break
            _, chosen, jokers, extra, current = leaf
            if tabs is None:
                refined = self._refine(jokers, current)
                if self._hopeless(refined[0]):
                    heappop(queue)
                else:
                    heapreplace(queue, (max(bound, refined[0]), i, refined[1], leaf))
                continue
            heappop(queue)
            self._leaf(chosen, jokers, extra, current, tabs)
        return self.best

    def _refine(self, set_jokers: int, current: Sequence[int]) -> tuple[int, _Tables]:
        """A lower bound on what the leaf whose sets took ``set_jokers`` jokers and left the
        suits ``current`` scores with the requirement met, and the suits' tables. The bound
        lets every suit take its cheapest option (within the jokers left) on its own, except
        that one suit must hold a pure sequence and at most one the discard."""
        wild_masks = self.wild_masks
        need = self.need_pure > 0
        # The method called on its object, not through a bound method kept in a variable: that
        # is a generic call, compiled.
        tables = self.tables
        tabs = (
            tables.table(current[0], wild_masks[0]),
            tables.table(current[1], wild_masks[1]),
            tables.table(current[2], wild_masks[2]),
            tables.table(current[3], wild_masks[3]),
        )
        budget = self.wild_total - set_jokers
        marriage = self.rules.marriage
        sums = [_summary(t[budget], marriage) for t in tabs]
        base = sums[0][1] + sums[1][1] + sums[2][1] + sums[3][1]
        # What a pure sequence costs on top of each suit's cheapest option without discard.
        pure_cost = [x[3] - x[1] for x in sums] if need else [0, 0, 0, 0]
        cheapest_pure = pure_cost[0]  # min(pure_cost), without a generic call (compiled)
        for cost in pure_cost:
            cheapest_pure = min(cheapest_pure, cost)
        if not self.discard_mode:
            return base + cheapest_pure, tabs
        # The discard: a spare joker (when any is left), or the natural card of one suit d.
        extra = cheapest_pure if budget > 0 else _NO_LIMIT
        for d, (_, m0, m1, _, p1) in enumerate(sums):
            pick = p1 - m1 if need else 0
            for s in range(4):
                if s != d and pure_cost[s] < pick:
                    pick = pure_cost[s]
            extra = min(extra, m1 - m0 + pick)
        return base + extra, tabs

    def _hopeless(self, bound: int) -> bool:
        """Nothing scoring ``bound`` or more can win: no better, and above 0 no declaration."""
        return bound > 0 and bound >= self.limit

    def _pair(self, first: SuitTable, second: SuitTable) -> _Joined:
        """Two suits joined with every joker the hand has, and grouped by state, short of
        :attr:`pair_cap` (nothing at or above it is ever looked at); memoised for the hand: set
        choices that leave two suits alone reuse their pair."""
        for known_first, known_second, found in self.pairs:  # a handful per hand
            if known_first is first and known_second is second:
                return found
        budget = self.wild_total
        joined = _combine_pair(first[budget], second[budget], self.pair_cap, self.comb, budget)
        # The entries read as plain objects: read as _Pair (a fixed-length tuple type), each
        # was unpacked into its fields and packed again into a new tuple for its group. The
        # groups in the order their states first come, found by state in a list (a dict
        # hashed every entry's state).
        groups: list[list[object] | None] = [None] * len(self.comb)
        by_state: list[tuple[int, list[object]]] = []
        for entry in cast(list[tuple[object, ...]], joined):
            state = cast(int, entry[2])
            group = groups[state]
            if group is None:
                group = groups[state] = []
                by_state.append((state, group))
            group.append(entry)
        found = (joined, cast(list[tuple[int, list[_Pair]]], by_state))
        self.pairs.append((first, second, found))
        return found

    def _capped_pair(
        self, first: SuitTable, second: SuitTable, budget: int, cap: int
    ) -> list[_Pair]:
        """Two suits joined with ``budget`` jokers, without what scores ``cap`` or more (and
        more than 0); memoised with its cap (the limit only falls, so a pair stays good for
        the leaves after)."""
        capped = self.capped
        for i, (known_first, known_second, known_budget, joined, known_cap) in enumerate(capped):
            if known_first is first and known_second is second and known_budget == budget:
                if known_cap >= cap:
                    return joined
                del capped[i]
                break
        joined = _combine_pair(first[budget], second[budget], cap, self.comb, budget)
        capped.append((first, second, budget, joined, cap))
        return joined

    def _without_sets_all(self) -> list[int]:
        """For every number of jokers sets may take, the least leftover meeting the requirement
        with no sets (or a lower bound on it at which everything is hopeless). A leaf whose sets
        took cards worth X scores at least this less X: turn its sets back into unmelded cards
        and it is an arrangement without sets. All from one join: an arrangement with ``spare``
        jokers to spare stands when sets take up to that many. The join stops where nothing
        improves an entry (at the least leftover that stands with every joker taken) and where
        no leaf could use it: whatever sets take, the bound is hopeless (the limit only falls)."""
        most = self.wild_total
        least = [_NO_LIMIT] * (most + 1)
        stop = self.limit + self.open_points[0]
        left = self._pair(self.base[0], self.base[1])[0]
        entries_right, right_states = self._pair(self.base[2], self.base[3])
        if not left or not entries_right:
            return [min(lo, stop) for lo in least]
        # The join of the two pairs (see _leaf), written out: a generator costs an object, and
        # a tuple for each entry, where the loops cost next to nothing.
        least_right = entries_right[0][0]
        discard_mode = self.discard_mode
        for t, _, met_with in self.joker_tunnelas:
            room = self.printed - 3 * t
            for a in left:
                lo_a, j_a, st_a, d_a = a[0], a[1], a[2], a[3]
                lo = lo_a + least_right
                if lo > 0 and lo >= stop:
                    break
                meets = met_with[st_a]
                room_a = room - j_a
                for st_b, entries in right_states:
                    if not meets[st_b]:
                        continue
                    for b in entries:
                        lo = lo_a + b[0]
                        if lo > 0 and lo >= stop:
                            break
                        d = d_a + b[3]
                        spare = room_a - b[1] - (discard_mode and d == 0)
                        if spare >= 0 and d < 2:
                            for j in range(min(spare, most) + 1):
                                least[j] = min(least[j], lo)
                            if spare >= most:
                                stop = lo
        return [min(lo, stop) for lo in least]

    def _leaf(
        self,
        chosen: tuple[tuple[int, _SetChoice], ...],
        set_jokers: int,
        extra: int,
        current: Sequence[int],
        tabs: Sequence[SuitTable] = (),
    ) -> None:
        order: tuple[int, ...] = (0, 1, 2, 3)
        if chosen:
            if not tabs:
                tabs = [self.tables.table(current[s], self.wild_masks[s]) for s in range(4)]
            # Pair the suits the sets changed, so the untouched two reuse their memoised pair.
            suits = self.suits
            order = (
                *[s for s in range(4) if current[s] != suits[s]],
                *[s for s in range(4) if current[s] == suits[s]],
            )
        else:
            tabs = self.base
        first, second, third, fourth = (tabs[s] for s in order)
        right = self._pair(third, fourth)
        if not right[0]:
            return
        if chosen:
            # This pair serves this leaf alone, mostly: drop what cannot beat the limit.
            budget = self.wild_total - set_jokers
            left = self._capped_pair(first, second, budget, self.limit - right[0][0][0])
        else:
            left = self._pair(first, second)[0]
        entries_right, right_states = right
        if not left or not entries_right:
            return
        # The join of the two pairs (with t tunnelas of printed jokers): the entries that meet
        # the requirement and can stand, fewest leftover first within each left entry, short
        # of the limit (or 0), which falls as the best improves. An entry stands with jokers
        # enough and one discard when the hand has one more card than it keeps; a discard no
        # suit holds is a spare joker.
        marriage = self.rules.marriage
        least_right = entries_right[0][0]
        comb, discard_mode = self.comb, self.discard_mode
        for t, t_state, met_with in self.joker_tunnelas:
            room = self.printed - set_jokers - 3 * t
            for a in left:
                lo_a, j_a, st_a, d_a = a[0], a[1], a[2], a[3]
                lo = lo_a + least_right
                if lo > 0 and lo >= self.limit:
                    break
                meets = met_with[st_a]
                room_a = room - j_a
                for st_b, entries in right_states:
                    if not meets[st_b]:
                        continue
                    st = comb[comb[st_a][st_b]][t_state]
                    for b in entries:
                        lo = lo_a + b[0]
                        if lo > 0 and lo >= self.limit:
                            break
                        # Tables without a discard have no entry holding one.
                        d = d_a + b[3]
                        spare = room_a - b[1] - (discard_mode and d == 0)
                        if spare < 0 or d > 1:
                            continue
                        declarable = lo == 0 and (
                            not marriage
                            or spare == 0
                            or (a[4] | b[4]) == 1
                            or st == 9
                            or extra >> spare & 1 == 1
                        )
                        cur = self.best
                        # (lo, not declarable) < (cur.penalty, not cur.declarable), spelt out:
                        # compiled, the tuples were built and compared as objects.
                        if (
                            cur is None
                            or lo < cur.penalty
                            or (lo == cur.penalty and declarable and not cur.declarable)
                        ):
                            # Each suit's option, back in suit order (``order`` lists the
                            # suits in the order the pairs joined them).
                            by_suit: list[Option] = [a[5], a[6], b[5], b[6]]
                            by_suit[order[0]], by_suit[order[1]] = a[5], a[6]
                            by_suit[order[2]], by_suit[order[3]] = b[5], b[6]
                            picks = tuple(by_suit)
                            discard_joker = discard_mode and not (a[3] + b[3])
                            self.best = _Best(lo, declarable, chosen, picks, discard_joker, t)
                            self.limit = min(self.limit, lo)
                            if declarable:
                                return

    def _walk(
        self,
        i: int,
        chosen: tuple[tuple[int, _SetChoice], ...],
        jokers: int,
        extra: int,
        taken_total: int,
        leaves: list[_Leaf],
    ) -> None:
        """Every way to take sets out of the ranks from the i-th on, as leaves with their bound:
        turning a leaf's sets back into unmelded cards gives an arrangement without sets, so it
        scores at least the best one without sets (with the jokers its sets took) less the
        points its sets took; and each suit keeps at least its least leftover less what it
        lost."""
        if self.best is not None and self.best.declarable:
            return
        without = self.without_sets[jokers] - taken_total
        limit = self.limit
        # No leaf below can beat the best without sets (fewer jokers only make that better)
        # less all the points sets could still take.
        if i and 0 < without - self.open_points[i] >= limit:
            return
        current, taken = self.current, self.taken
        if i == len(self.set_ranks):
            if chosen:
                tops = self.base_least[self.wild_total - jokers]
                bound = max(
                    without,
                    max(0, tops[0] - taken[0])
                    + max(0, tops[1] - taken[1])
                    + max(0, tops[2] - taken[2])
                    + max(0, tops[3] - taken[3]),
                )
                if 0 < bound >= limit:
                    return
                if limit == 0:
                    # Only a declaration can improve on 0: look at once, stop at the first.
                    refined = self._refine(jokers, current)
                    if not self._hopeless(refined[0]):
                        self._leaf(chosen, jokers, extra, current, refined[1])
                else:
                    leaves.append((bound, chosen, jokers, extra, tuple(current)))
            return
        r, moves = self.set_ranks[i]
        room = self.wild_total - jokers
        laid, need, triple = self.laid, self.need_pure, self.rules.triple
        laid_here = tuple(laid)
        # Looking for a declaration (nothing else beats 0), bigger sets first: a declaration
        # melds every card.
        # A tuple either way, iterated natively (reversed() is an object of its own).
        for choice, take, points in moves[::-1] if limit == 0 else moves:
            if choice.jokers > room:
                continue
            if choice is _NO_SETS:
                self._walk(i + 1, chosen, jokers, extra, taken_total, leaves)
                continue
            for s, cards, lost in take:
                # Not ``current[s] -= cards``: an augmented assignment to an item is a generic
                # operation, compiled.
                current[s] = current[s] - cards
                taken[s] = taken[s] + lost
                laid[s] = pure_count(current[s], triple)
            # Taking cards never lays more pure sequences: below sets that leave too few for
            # the requirement, no leaf meets it.
            if laid[0] + laid[1] + laid[2] + laid[3] >= need:
                self._walk(
                    i + 1,
                    (*chosen, (r, choice)),
                    jokers + choice.jokers,
                    _add_extras(extra, choice.extra),
                    taken_total + points,
                    leaves,
                )
            for s, cards, lost in take:
                current[s] = current[s] + cards
                taken[s] = taken[s] - lost
            laid[0], laid[1], laid[2], laid[3] = laid_here


def _build_unmet(
    codes: list[int],
    wilds: Wilds,
    profile: Profile,
    penalty: int,
    picks: tuple[Witness, ...] | None,
    discard: int | None,
    discard_mode: bool,
) -> _Skeleton:
    remaining = sorted(codes)
    groups: list[tuple[int, ...]] = []
    kinds: list[Kind] = []
    if picks is not None:
        for s, witness in enumerate(picks):
            for meld in melds(witness):
                if meld[0] == "D":
                    discard = _code(s, meld[1])
                    continue
                group = _meld_codes(s, meld)
                for code in group:
                    remaining.remove(code)
                groups.append(group)
                kinds.append(_TUNNELA if meld[0] == "T" else _PURE_SEQUENCE)
    if discard_mode and discard is None:
        discard = next(c for c in remaining if c in wilds.codes)
    if discard is not None:
        remaining.remove(discard)
    return _finish(groups, kinds, tuple(remaining), penalty, False, discard, codes, wilds, profile)


def _code(suit: int, position: int) -> int:
    return suit * 13 + (0 if position == 14 else position - 1)


def _meld_codes(suit: int, meld: Meld) -> tuple[int, ...]:
    """Natural cards of a witness meld, jokers as -1 placeholders, in sequence order."""
    kind, start, length, mask = meld
    if kind == "T":
        return (_code(suit, start),) * 3
    return tuple(_code(suit, start + i) if mask >> i & 1 else -1 for i in range(length))


def _build_met(best: _Best, codes: list[int], wilds: Wilds, profile: Profile) -> _Skeleton:
    remaining = sorted(codes)
    seqs: list[list[int]] = []
    tunnelas: list[tuple[int, ...]] = []
    discard: int | None = None
    for s, option in enumerate(best.options):
        for meld in melds(option[WITNESS]):
            if meld[0] == "D":
                discard = _code(s, meld[1])
                remaining.remove(discard)
                continue
            laid = _meld_codes(s, meld)
            for code in laid:
                if code >= 0:
                    remaining.remove(code)
            if meld[0] == "T":
                tunnelas.append(laid)
            else:
                seqs.append(list(laid))
    # The joker pool: printed jokers and every wild card not used as itself.
    wild = wilds.codes
    jokers = [c for c in remaining if c in wild]
    pure = [-1 not in group for group in seqs]
    for _ in range(best.joker_tunnelas):
        for _ in range(3):
            jokers.remove(JOKER_CODE)
        tunnelas.append((JOKER_CODE,) * 3)
    if best.discard_joker:
        discard = jokers.pop()
    # Loops rather than zip(), sum() of a generator, all() or sorted() with a key: compiled,
    # each of those called the builtin through the generic call protocol, once a result.
    spare = len(jokers)
    for group in seqs:
        spare -= group.count(-1)
    for _, choice in best.sets:
        spare -= choice.jokers
    # A declaration melds its spare jokers: into an impure sequence if there is one, else into
    # the sets (as more sets, or fourth cards), else into a pure sequence (the search only
    # declares when enough pure ones are left).
    extras = [0] * len(best.sets)
    absorb_in_sets = (
        best.declarable
        and spare > 0
        and not profile.loose_jokers
        and False not in pure
        and best.sets
    )
    if absorb_in_sets:
        split = _split_extras(spare, [choice.extra for _, choice in best.sets])
        if split is not None:
            extras = split
    sets: list[list[int]] = []
    for index, (r, choice) in enumerate(best.sets):
        sizes, set_jokers = choice.layout(extras[index])
        # Deal each suit's cards round the sets, fullest suits first, so no set repeats a suit.
        members: list[list[int]] = [[] for _ in sizes]
        slot = 0
        take = choice.take
        # Fullest suits first, ties in suit order (a stable sort by count, descending).
        for _, s in sorted([(-take[0], 0), (-take[1], 1), (-take[2], 2), (-take[3], 3)]):
            for _ in range(take[s]):
                members[slot % len(members)].append(s * 13 + r - 1)
                slot += 1
        for group in members:
            for code in group:
                remaining.remove(code)
        fill = set_jokers
        for group in members:
            need = max(0, 3 - len(group))
            group.extend([-1] * need)
            fill -= need
        for group in members:
            if fill and len(group) == 3:
                group.append(-1)
                fill -= 1
        sets.extend(members)
    leftover = [c for c in remaining if c not in wild]
    for group in (*seqs, *sets):
        for i, code in enumerate(group):
            if code == -1:
                group[i] = jokers.pop()
    if best.declarable and jokers and not profile.loose_jokers:
        # What the sets did not take goes into a sequence: an impure one, else a pure one.
        target = next((i for i, is_pure in enumerate(pure) if not is_pure), len(seqs) - 1)
        pure[target] = False
        seqs[target].extend(jokers)
        jokers.clear()
    leftover.extend(jokers)
    groups: list[tuple[int, ...]] = []
    kinds: list[Kind] = []
    # Pure sequences first, each kind in its order.
    for index, group in enumerate(seqs):
        if pure[index]:
            groups.append(tuple(group))
            kinds.append(_PURE_SEQUENCE)
    for index, group in enumerate(seqs):
        if not pure[index]:
            groups.append(tuple(group))
            kinds.append(_IMPURE_SEQUENCE)
    for triple in tunnelas:
        groups.append(triple)
        kinds.append(_TUNNELA)
    for group in sets:
        groups.append(tuple(group))
        kinds.append(_SET)
    penalty = min(best.penalty, profile.cap)
    return _finish(
        groups, kinds, tuple(leftover), penalty, best.declarable, discard, codes, wilds, profile
    )


def _split_extras(total: int, masks: list[int]) -> list[int] | None:
    """Amounts e_i, each with bit e_i set in ``masks[i]``, that add up to ``total``; None if
    there are none."""
    # reach[i]: the totals the first i masks can make.
    reach = [1]
    for mask in masks:
        reach.append(_add_extras(reach[-1], mask))
    if not reach[-1] >> total & 1:
        return None
    out = [0] * len(masks)
    for i in range(len(masks) - 1, -1, -1):
        e = next(e for e in range(total + 1) if masks[i] >> e & 1 and reach[i] >> (total - e) & 1)
        out[i] = e
        total -= e
    return out


def _finish(
    groups: list[tuple[int, ...]],
    kinds: list[Kind],
    leftover: tuple[int, ...],
    penalty: int,
    declarable: bool,
    discard: int | None,
    codes: list[int],
    wilds: Wilds,
    profile: Profile,
) -> _Skeleton:
    wild = wilds.codes
    # A wild card standing in may happen to sit in its own place: name the group's true kind,
    # and lay a sequence that turns out pure in its natural order.
    for i, group in enumerate(groups):
        kind = kinds[i]
        # Only a group of one suit, no printed joker in it, can be more than impure: a printed
        # joker or a card of another suit always stands in.
        if kind is _IMPURE_SEQUENCE and _may_be_natural(group, wild):
            kinds[i] = _natural_kind(group, wilds, profile)
            if kinds[i] is _PURE_SEQUENCE:
                high = any(c % 13 >= 11 for c in group)  # a queen or king: the ace plays high
                groups[i] = tuple(sorted(group, key=lambda c: 14 if high and c % 13 == 0 else c))
    two_point: tuple[tuple[int, ...], ...] | None = None
    if profile.dublees:
        shaped = None if declarable else _marriage_shapes(codes, wilds, profile)
        if shaped is not None:
            groups, kinds, leftover, discard = shaped
            declarable = True
        two_point = _two_point(codes, discard, wilds, profile, declarable, groups, kinds, leftover)
    return (
        tuple(groups),
        tuple([_VALUE[kind] for kind in kinds]),
        leftover,
        penalty,
        declarable,
        -1 if discard is None else discard,
        two_point or (),
    )


def _may_be_natural(group: tuple[int, ...], wild: frozenset[int]) -> bool:
    """Whether an impure sequence as laid may classify as more: it holds a wild card that is not
    a printed joker, and every card is of one suit (no printed joker)."""
    suit = group[0] // 13
    has_wild = False
    for code in group:
        if code == JOKER_CODE or code // 13 != suit:
            return False
        if code in wild:
            has_wild = True
    return has_wild


def _natural_kind(group: tuple[int, ...], wilds: Wilds, profile: Profile) -> Kind:
    """:func:`classify` of a valid sequence of one suit with no printed joker: three identical
    cards (where that is a tunnela), else pure exactly when every card can take its own place in
    one window of positions, else impure. Past 12 cards a window may hold the ace at both ends:
    :func:`classify` itself decides."""
    size = len(group)
    if size > 12:
        return kind_of(group, wilds, profile)
    if size == 3 and group[0] == group[1] == group[2] and profile.identical_triple_pure:
        return _TUNNELA
    held = 0  # positions 1..13, bit p
    for code in group:
        bit = 2 << (code % 13)
        if held & bit:
            return _IMPURE_SEQUENCE  # two cards want one place
        held |= bit
    low = held & -held
    if held == low * ((1 << size) - 1):
        return _PURE_SEQUENCE
    if held & 2:  # an ace: played high, at 14
        high = held ^ 2 | 1 << 14
        low = high & -high
        if high == low * ((1 << size) - 1):
            return _PURE_SEQUENCE
    return _IMPURE_SEQUENCE


def _identical(codes: list[int], size: int) -> list[tuple[int, ...]]:
    """Disjoint groups of ``size`` identical cards (tunnelas, dublees)."""
    counts: dict[int, int] = {}
    for code in codes:
        counts[code] = counts.get(code, 0) + 1
    return [(c,) * size for c, n in sorted(counts.items()) for _ in range(n // size)]


def _marriage_shapes(
    codes: list[int], wilds: Wilds, profile: Profile
) -> tuple[list[tuple[int, ...]], list[Kind], tuple[int, ...], int | None] | None:
    """A winning grouping through Marriage's special shapes (3 tunnelas, 8 dublees, 8 wild cards in
    one group), for a hand with no ordinary declaration; the rest is left as it is."""
    discard_mode = len(codes) == profile.hand_size + 1
    chosen: list[tuple[int, ...]] = []
    kind = Kind.INVALID
    triples = _identical(codes, 3)
    pairs = _identical(codes, 2)
    wild_cards = tuple(c for c in codes if c in wilds.codes)
    if len(triples) >= profile.win_tunnelas:
        chosen, kind = triples[: profile.win_tunnelas], Kind.TUNNELA
    elif len(pairs) >= profile.win_dublees:
        chosen, kind = pairs[: profile.win_dublees], Kind.DUBLEE
    elif len(wild_cards) >= profile.win_jokers:
        chosen, kind = [wild_cards[: profile.hand_size]], Kind.JOKERS
    else:
        return None
    rest = sorted(codes)
    for group in chosen:
        for c in group:
            rest.remove(c)
    discard = rest.pop() if discard_mode else None
    # A group of wild cards may also read as a sequence or set: name what it really is.
    kinds = [kind if kind is not Kind.JOKERS else classify(g, wilds, profile) for g in chosen]
    return chosen, kinds, tuple(rest), discard


def _two_point(
    codes: list[int],
    discard: int | None,
    wilds: Wilds,
    profile: Profile,
    declarable: bool,
    groups: list[tuple[int, ...]],
    kinds: list[Kind],
    leftover: tuple[int, ...],
) -> tuple[tuple[int, ...], ...] | None:
    """A grouping that limits a Marriage loser to 2 points, if the hand has one: the requirement
    met with everything melded, 6 dublees, or 7 wild cards in one group."""
    if declarable and not leftover and all(k.is_meld for k in kinds):
        return tuple(groups)
    held = list(codes)
    if discard is not None:
        held.remove(discard)
    pairs = _identical(held, 2)
    if len(pairs) >= profile.two_point_dublees:
        return tuple(pairs)
    wild_cards = tuple(c for c in held if c in wilds.codes)
    if len(wild_cards) >= profile.two_point_jokers:
        return (wild_cards,)
    return None

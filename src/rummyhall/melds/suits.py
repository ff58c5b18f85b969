"""Per-suit tables: every useful way to lay one suit's cards into sequences.

The solver splits a hand by suit: sequences live inside one suit, sets cross suits and are chosen
by the solver before it asks these tables about what is left of each suit. A table lists the
Pareto-best *options* for a suit: how many jokers they take from the pool, how they advance the
declaration requirement, and how many points they leave unmelded. Tables are memoised on the suit's
card counts packed into an int, so across many hands the same small suits are solved once.
Where a suit's cards fall apart (two empty positions or more between them) the parts are solved
alone and put together, so a suit shares the tables of its parts with every other suit that has
them.

Positions run 1..14 (the ace is 1 or 14). A suit is a tuple of 14 counts, index ``p - 1``, with all
aces at position 1 on the way in; the table itself decides which aces play high.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from rummyhall.cards import CODE_POINTS

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


RELEASE_PER_ENTRY: Final = 3
"""Entries of forgotten generations freed with each new entry (see :class:`Budget`)."""


class Budget:
    """How many new entries a group of memos (:class:`Memo`) may take before each of them forgets
    what it has not used lately; a running server solves hands for ever, and its memory must
    stay bounded.

    A generation that is forgotten is freed a few entries at a time, with each new entry
    (:data:`RELEASE_PER_ENTRY`), not all at once: freeing the 60,000 entries of the per-suit
    memos in one go took 35-40 ms, all of it billed to the one hand whose new entry turned the
    budget (bench/solver.py's slowest hint). So for a while after a turn a third generation is
    still partly held; it is gone after a third of the next one's entries."""

    __slots__ = ("dropped", "fresh", "limit", "memos")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.fresh = 0  # entries added since the last turn
        self.memos: list[Memo[Any, Any]] = []
        self.dropped: list[dict[Any, Any]] = []
        """Forgotten generations' dicts, still being freed."""

    def turn(self) -> None:
        """A new generation: every memo's entries become its previous generation."""
        self.fresh = 0
        for memo in self.memos:
            if memo.previous:
                self.dropped.append(memo.previous)
            memo.previous = memo.current
            memo.current = {}

    def release(self) -> None:
        """Free a few entries of the forgotten generations."""
        dropped = self.dropped
        for _ in range(RELEASE_PER_ENTRY):
            if not dropped:
                return
            last = dropped[-1]
            if last:
                last.popitem()
            else:
                dropped.pop()


class Memo(Generic[K, V]):
    """A memo that holds at most two generations of its budget's entries: entries go into
    ``current``; when the budget turns, ``current`` becomes ``previous`` and the previous one is
    dropped; an entry found in ``previous`` moves back into ``current``. What is in use stays
    (an LRU's effect at a dict lookup's cost); hot loops read ``current`` directly and ask
    :meth:`get` on a miss."""

    __slots__ = ("budget", "current", "previous")

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.current: dict[K, V] = {}
        self.previous: dict[K, V] = {}
        budget.memos.append(self)

    def get(self, key: K) -> V | None:
        found = self.current.get(key)
        if found is None:
            found = self.previous.get(key)
            if found is not None:
                self.put(key, found)
        return found

    def put(self, key: K, value: V) -> None:
        budget = self.budget
        budget.fresh += 1
        if budget.fresh > budget.limit:
            budget.turn()
        self.current[key] = value
        if budget.dropped:
            budget.release()

    def __len__(self) -> int:
        return len(self.current) + len(self.previous)


SUIT_MEMOS: Final = Budget(60_000)
"""The per-suit memos' budget (sub-suits, suit tables, pure tables, pure counts; and the solver's
memos of set choices and table summaries): about 40 MB a generation."""

POINTS: Final = (*CODE_POINTS[:13], CODE_POINTS[0])
"""Points of a natural card at positions 1..14 (index p - 1; the ace is 1 and 14)."""

# A meld in a witness: ("S", start, length, natural_mask) for a sequence whose positions
# start..start+length-1 hold natural cards where bit (p - start) of natural_mask is set and jokers
# elsewhere; ("T", position, 3, 0) for three identical cards; ("D", position, 0, 0) for the card
# discarded.
Meld = tuple[str, int, int, int]

# A witness (the melds of an option) is packed into an int, 15 bits a meld, so that the memoised
# tables hold nothing but ints and tuples of ints: the garbage collector stops looking at those
# after its first pass, which keeps its full collections short however large the tables grow.
Witness = int
_KINDS: Final[tuple[str, ...]] = ("", "S", "T", "D")  # of any length: indexed as is


def pack_meld(kind: str, start: int, length: int, mask: int) -> int:
    return _KINDS.index(kind) | start << 2 | length << 6 | mask << 9


DISCARD_MELD: Final = pack_meld("D", 0, 0, 0)
TRIPLE_MELD: Final = pack_meld("T", 0, 3, 0)
"""A discard and a tunnela packed, less their position (``| position << 2`` adds it)."""


def melds(witness: Witness) -> list[Meld]:
    out: list[Meld] = []
    while witness:
        m = witness & 0x7FFF
        witness >>= 15
        out.append((_KINDS[m & 3], m >> 2 & 15, m >> 6 & 7, m >> 9))
    return out


# One way to lay a suit, as a plain tuple because the solver's inner loops unpack millions of them:
# (leftover points, jokers taken from the pool less wild cards of this suit given to it, state
# towards the requirement, discard 0/1 whether it holds the hand's discard, absorber 0/1 whether
# it has an impure sequence that can take spare jokers (Marriage), witness).
# Typed as a tuple of any length on purpose: mypyc keeps a fixed-length tuple type unboxed (a C
# struct of its fields), so every option merely passed on (kept by the Pareto filter, put in a
# join's entry, picked for a result) was boxed again into a new tuple, its witness into a new int.
# As a plain tuple object it is passed on by reference; its fields are read as before.
Option = tuple[int, ...]
LEFTOVER: Final = 0
JOKERS: Final = 1
STATE: Final = 2
DISCARD: Final = 3
ABSORBER: Final = 4
WITNESS: Final = 5


@dataclass(frozen=True, slots=True)
class SuitRules:
    """What the per-suit search needs to know of a profile."""

    max_jokers: int | None
    triple: bool
    long: int | None
    marriage: bool

    @property
    def max_length(self) -> int:
        # Longer sequences split into sequences of 3-5 cards with a natural card each, which only
        # helps the requirement; a long-sequence rule needs 6 (6 cannot split into two of 4+).
        return 6 if self.long is not None else 5


# --- requirement states -----------------------------------------------------------------------
# Indian 13-card: bit 0 has a pure sequence, bit 1 a pure one of the long length, bit 2 an impure
# long one, bits 3-4 the number of sequences capped at 2. Marriage: ``n + 5 * f`` where n is the
# number of pure sequences (tunnelas included) capped at 4, and f whether one of them is a real
# sequence: with 4, a spare joker can turn a real one impure and still leave 3 (a tunnela cannot
# take a joker).


def indian_combine(a: int, b: int) -> int:
    return ((a | b) & 7) | (min(2, (a >> 3) + (b >> 3)) << 3)


def marriage_combine(a: int, b: int) -> int:
    return min(4, a % 5 + b % 5) + 5 * (a // 5 | b // 5)


INDIAN_STATES: Final = 24
MARRIAGE_STATES: Final = 10
INDIAN_TABLE: Final = tuple(
    tuple(indian_combine(a, b) for b in range(INDIAN_STATES)) for a in range(INDIAN_STATES)
)
MARRIAGE_TABLE: Final = tuple(
    tuple(marriage_combine(a, b) for b in range(MARRIAGE_STATES)) for a in range(MARRIAGE_STATES)
)


def combine_table(rules: SuitRules) -> tuple[tuple[int, ...], ...]:
    return MARRIAGE_TABLE if rules.marriage else INDIAN_TABLE


def meld_state(rules: SuitRules, pure: bool, length: int, tunnela: bool = False) -> int:
    if rules.marriage:
        return 0 if not pure else 1 if tunnela else 6
    long = rules.long is not None and length >= rules.long
    return 8 | (1 if pure else 0) | (2 if pure and long else 0) | (4 if long and not pure else 0)


def state_leq(rules: SuitRules, a: int, b: int) -> bool:
    """Whether state ``a`` is no better than ``b`` (everything ``a`` has, ``b`` has too)."""
    if rules.marriage:
        return a % 5 <= b % 5 and a // 5 <= b // 5
    return (a & 7 & ~b) == 0 and (a >> 3) <= (b >> 3)


_LEQ: dict[SuitRules, tuple[tuple[bool, ...], ...]] = {}


def _leq_table(rules: SuitRules) -> tuple[tuple[bool, ...], ...]:
    table = _LEQ.get(rules)
    if table is None:
        n = MARRIAGE_STATES if rules.marriage else INDIAN_STATES
        table = tuple(tuple(state_leq(rules, a, b) for b in range(n)) for a in range(n))
        _LEQ[rules] = table
    return table


def _pareto(
    options: list[Option], leq: tuple[tuple[bool, ...], ...], marriage: bool
) -> tuple[Option, ...]:
    """Drop options another option beats on every count: no more leftover, a state at least as
    good (``leq``), the same discard, an absorber if it has one, and no more jokers. In Marriage
    a spare joker must be melded somewhere, so fewer jokers only wins with an absorber to put the
    rest in. (A better state is a larger number too, so it sorts first among equals.)"""
    if len(options) < 2:
        return tuple(options)
    # Sorted by (leftover, jokers, -absorber, -state), ties in their order: one int per option
    # holds those and its place (a sort of plain ints, no key function called per option).
    keys = [
        ((((o[0] << 8 | o[1] + 128) << 1 | 1 - o[4]) << 5 | 31 - o[2]) << 16) + i
        for i, o in enumerate(options)
    ]
    keys.sort()
    # The options kept so far without and with the discard: two lists, not a pair of them (a
    # pair indexed by a variable is boxed into a new tuple at every access, compiled).
    kept_plain: list[Option] = []
    kept_discard: list[Option] = []
    out: list[Option] = []
    for key in keys:
        o = options[key & 0xFFFF]
        _, j, st, d, ab, _ = o
        beaten_by = leq[st]
        kept = kept_discard if d else kept_plain
        for k in kept:  # kept ones have no more leftover
            kj, kab = k[1], k[4]
            if kab >= ab and beaten_by[k[2]] and (kj == j or (kj < j and (kab or not marriage))):
                break
        else:
            kept.append(o)
            out.append(o)
    return tuple(out)


_EMPTY: Final[tuple[Option, ...]] = ((0, 0, 0, 0, 0, 0),)


def pack(ranks: Sequence[int]) -> int:
    """A suit's counts by rank (``ranks[r - 1]``, r = 1..13, at most 3 copies) as an int: two
    bits per position, position p at bit 2(p - 1). It hashes fast; taking a card subtracts."""
    vec = 0
    for i, n in enumerate(ranks):
        vec |= n << (2 * i)
    return vec


def count(vec: int, position: int) -> int:
    return (vec >> (2 * position - 2)) & 3


LOW_BITS: Final = sum(1 << (2 * i) for i in range(14))
Window = tuple[int, int, int, int, int]
"""A sequence to lay: (packed naturals used, jokers, requirement state, absorber, packed meld)."""


def _make_windows(low: int, ahead: int, rules: SuitRules) -> tuple[Window, ...]:
    """Sequences whose lowest natural card is at position ``low``; bit 2k of ``ahead`` says whether
    position low + 1 + k holds a card. Jokers only fill gaps, pad a sequence to 3 cards, or (long
    sequence rule) pad three naturals to a long one; other padding is the absorber's job."""
    found: list[Window] = []
    limit = rules.max_jokers
    for length in range(3, rules.max_length + 1):
        start = low if low + length - 1 <= 14 else 15 - length
        if start < 1:
            continue
        end = start + length - 1
        # Positions after `low` in the window: each natural (if we hold one) or a joker.
        free = [p for p in range(low + 1, end + 1) if ahead >> (2 * (p - low - 1)) & 1]
        for choice in range(1 << len(free)):
            mask = 1 << (low - start)
            for bit, p in enumerate(free):
                if choice >> bit & 1:
                    mask |= 1 << (p - start)
            jokers = length - mask.bit_count()
            if limit is not None and jokers > limit:
                continue
            if length > 3:
                ends_natural = mask >> (length - 1) & 1 and mask & 1
                padded_long = (
                    rules.long is not None
                    and length == rules.long
                    and jokers == 1
                    and (mask == (1 << length) - 2 or mask == (1 << (length - 1)) - 1)
                )
                if not ends_natural and not padded_long:
                    continue
            used = sum(1 << (2 * (start + i - 1)) for i in range(length) if mask >> i & 1)
            pure = jokers == 0
            state = meld_state(rules, pure, length)
            absorber = 1 if rules.marriage and not pure else 0
            found.append((used, jokers, state, absorber, pack_meld("S", start, length, mask)))
    return tuple(found)


FEWEST_JOKERS: Final = 3 * 14
"""Most wild cards one suit can give to the pool (an option's jokers never fall below minus
that): three copies of every position, more than any shoe holds."""


SuitTable = tuple[tuple[Option, ...], ...]
"""The options of one suit by joker budget: ``table[b]`` holds those taking at most ``b`` jokers
from the pool, fewest leftover points first (no suit can take more than the hand's wild cards less
what its sets took). ``table[-1]`` holds them all. A plain tuple, for the garbage collector."""


class SuitSolver:
    """Per-suit tables for one rule set, joker limit and discard mode, memoised on the counts.

    ``jmax`` is the most jokers a suit may take from the pool (the hand's wild cards); ``discard``
    lets one unmelded natural card be the hand's discard. Suits are packed ints (:func:`pack`).
    An option may take more jokers than a given hand can afford (the solver checks the pool over
    all four suits), but every arrangement that takes at most ``jmax`` has an option as good: no
    part of it takes more than the whole, so cutting parts at ``jmax`` loses none of them."""

    def __init__(self, rules: SuitRules, jmax: int, discard: bool) -> None:
        self.rules = rules
        self.jmax = jmax
        self.discard = discard
        self.comb = combine_table(rules)
        self._leq = _leq_table(rules)
        self._memo: Memo[int, tuple[Option, ...]] = Memo(SUIT_MEMOS)
        # A solver for more jokers whose results serve too, less what takes more than jmax.
        self.fallback: SuitSolver | None = None
        self.tables: Memo[int, SuitTable] = Memo(SUIT_MEMOS)
        self._windows: dict[int, tuple[Window, ...]] = {}  # by low << 10 | ahead
        self._triple = meld_state(rules, True, 3, tunnela=True) if rules.triple else 0
        # Where a node's merge keeps, per (state, discard, absorber, jokers), its best option so
        # far: a place in the node's list of options, -1 for none. A list indexed by a small int
        # instead of a dict keyed by a larger one: compiled, every dict access boxed its key into
        # a new int object. A merge takes a list from the spares (or makes one) and gives it
        # back cleared: a node merges only once its sub-suits are solved, so one list serves
        # every node, and a thread that solves at the same time takes a list of its own.
        self._span = jmax + FEWEST_JOKERS + 1
        self._spare_slots: list[list[int]] = []

    def table(self, ranks: int, wild_ranks: int) -> SuitTable:
        """Options for a suit given its packed counts by rank (aces at position 1) and the mask of
        its wild ranks (bit r). Every choice of how many aces play high is considered."""
        key = ranks << 14 | wild_ranks  # wild_ranks: bits 1..13
        cached = self.tables.get(key)
        if cached is not None:
            return cached
        aces = ranks & 3
        # The wild positions in the packed layout (bit 2(p - 1)); a wild ace stays wild played high.
        wild = 0
        while wild_ranks:
            bit = wild_ranks & -wild_ranks
            wild |= 1 << (2 * bit.bit_length() - 4)
            wild_ranks ^= bit
        wild |= (wild & 1) << 26
        if aces:
            options: list[Option] = []
            for high in range(aces + 1):
                vec = ranks - high + (high << 26)
                options.extend(self._search(vec, wild & (vec | vec >> 1)))
            found = _pareto(options, self._leq, self.rules.marriage)
        else:
            # One search, whose options the Pareto filter has kept already (it keeps them all
            # and in their order a second time).
            found = self._search(ranks, wild & (ranks | ranks >> 1))
        # No two options left share their first five fields (the Pareto filter keeps one of
        # such twins), so sorting whole tuples is sorting by those and never compares witnesses.
        ordered = tuple(sorted(found))
        most = 0
        for o in ordered:
            most = max(most, o[1])
        result = tuple(
            [
                ordered if budget >= most else tuple([o for o in ordered if o[1] <= budget])
                for budget in range(self.jmax + 1)
            ]
        )
        self.tables.put(key, result)
        return result

    def _search(self, vec: int, wild: int) -> tuple[Option, ...]:
        """Options for the packed cards ``vec`` (positions 1..14) whose wild positions are the
        ``wild`` bits (packed layout, only positions ``vec`` holds, so that the memo is shared by
        every suit with the same cards). The lowest card is left over, given to the pool if wild,
        discarded, or starts a meld; or, where the cards fall apart, the parts are solved alone."""
        key = vec << 28 | wild
        memo = self._memo
        cached = memo.get(key)
        if cached is not None:
            return cached
        if self.fallback is not None:
            cached = self.fallback._memo.get(key)
            if cached is not None:
                jmax = self.jmax
                result = tuple([o for o in cached if o[1] <= jmax])
                memo.put(key, result)
                return result
        if not vec:
            memo.put(key, _EMPTY)
            return _EMPTY
        held = (vec | vec >> 1) & LOW_BITS
        # Positions a held with a + 1 and a + 2 empty (the highest held one trivially).
        gaps = held & ~(held >> 2) & ~(held >> 4)
        gaps ^= 1 << (held.bit_length() - 1)
        if gaps:
            result = self._split(vec, wild, (gaps & -gaps) << 2)
        else:
            result = self._lay_lowest(vec, wild)
        memo.put(key, result)
        return result

    def _lay_lowest(self, vec: int, wild: int) -> tuple[Option, ...]:
        low = (vec & -vec).bit_length() + 1 >> 1
        shift = 2 * low - 2
        one = 1 << shift
        # Every move's sub-suit first (solving one merges a node of its own), then the merge.
        # Read the memo's current generation directly; _search looks further on a miss.
        jmax, comb, memo = self.jmax, self.comb, self._memo.current
        rest = vec - one
        rest_wild = wild & (rest | rest >> 1)
        left = memo.get(rest << 28 | rest_wild)
        if left is None:
            left = self._search(rest, rest_wild)
        ahead = ((vec | vec >> 1) & LOW_BITS) >> (shift + 2) & 0x3FF
        wkey = low << 10 | ahead
        windows = self._windows.get(wkey)
        if windows is None:
            windows = self._windows[wkey] = _make_windows(low, ahead, self.rules)
        moves: list[tuple[int, int, int, int, int]] = list(windows)
        if self._triple and (vec >> shift) & 3 >= 3:
            moves.append((3 * one, 0, self._triple, 0, TRIPLE_MELD | low << 2))
        subs: list[tuple[Option, ...] | None] = []
        for used, dj, _, _, _ in moves:
            if dj > jmax:  # jmax is at least the hand's whole joker pool
                subs.append(None)
                continue
            rest = vec - used
            rest_wild = wild & (rest | rest >> 1)
            sub = memo.get(rest << 28 | rest_wild)
            subs.append(self._search(rest, rest_wild) if sub is None else sub)

        # Per (state, discard, absorber, jokers) the option with the least leftover, the first
        # found among equals; the Pareto-best of those are kept (also at inner nodes: every
        # option above would grow from a beaten one into one beaten the same way). The first
        # move maps the options of what is left one to one (they differ in those already).
        slots, span = self._take_slots(), self._span
        found: list[Option] = []
        if wild >> shift & 1:  # a wild card not used as itself goes to the pool
            for lo, j, st, d, ab, w in left:
                slots[(st << 2 | d << 1 | ab) * span + j - 1 + FEWEST_JOKERS] = len(found)
                found.append((lo, j - 1, st, d, ab, w))
        else:
            points = POINTS[low - 1]
            for lo, j, st, d, ab, w in left:
                slots[(st << 2 | d << 1 | ab) * span + j + FEWEST_JOKERS] = len(found)
                found.append((lo + points, j, st, d, ab, w))
            if self.discard:
                meld = DISCARD_MELD | low << 2  # pack_meld("D", low, 0, 0)
                for lo, j, st, d, ab, w in left:
                    if not d:
                        k = (st << 2 | 2 | ab) * span + j + FEWEST_JOKERS
                        at = slots[k]
                        if at < 0:
                            slots[k] = len(found)
                            found.append((lo, j, st, 1, ab, w << 15 | meld))
                        elif lo < found[at][0]:
                            found[at] = (lo, j, st, 1, ab, w << 15 | meld)
        for index, sub in enumerate(subs):  # zip() would be a generic call, compiled
            if sub is None:
                continue
            _, dj, dstate, dab, meld = moves[index]
            room = jmax - dj
            add = comb[dstate]  # the state tables are symmetric
            for lo, j, st, d, ab, w in sub:
                if j > room:
                    continue
                j += dj
                st = add[st]
                ab |= dab
                k = (st << 2 | d << 1 | ab) * span + j + FEWEST_JOKERS
                at = slots[k]
                if at < 0:
                    slots[k] = len(found)
                    found.append((lo, j, st, d, ab, w << 15 | meld))
                elif lo < found[at][0]:
                    found[at] = (lo, j, st, d, ab, w << 15 | meld)
        self._give_back(slots, found)
        return _pareto(found, self._leq, self.rules.marriage)

    def _take_slots(self) -> list[int]:
        """Slots for a merge, all free (-1): see ``_spare_slots``."""
        spare = self._spare_slots
        return spare.pop() if spare else [-1] * (len(self.comb) * 4 * self._span)

    def _give_back(self, slots: list[int], found: list[Option]) -> None:
        """A merge's slots, freed (each one it took is the slot of one of its options) and
        spare again. A merge that raised never gives its slots back: they are dropped."""
        span = self._span
        for o in found:
            slots[(o[2] << 2 | o[3] << 1 | o[4]) * span + o[1] + FEWEST_JOKERS] = -1
        self._spare_slots.append(slots)

    def _split(self, vec: int, wild: int, cut: int) -> tuple[Option, ...]:
        """Options for cards that fall apart below bit ``cut``: the lower part holds a highest
        card at a, and the upper part nothing below a + 3. A sequence that takes cards of both
        parts must lay jokers at a + 1 and a + 2 and span a and the upper part's lowest card b;
        at most 5 (6) cards long, it has its lowest natural card at b - 4 (b - 5) or above. So
        the options are those of the parts solved alone, put together, and those of each such
        sequence with the options of the cards it leaves (which fall apart in turn). The parts
        are memoised on their own, so they serve every suit that has them."""
        lower = vec & (cut - 1)
        upper = vec - lower
        jmax, comb, memo = self.jmax, self.comb, self._memo.current
        rules = self.rules
        first = self._search(lower, wild & (lower | lower >> 1))
        second = self._search(upper, wild & (upper | upper >> 1))
        # The crossing sequences and what each leaves, solved before the merge (see
        # _lay_lowest).
        crossing: list[tuple[int, int, int, int, tuple[Option, ...]]] = []
        a = lower.bit_length() + 1 >> 1
        b = (upper & -upper).bit_length() + 1 >> 1
        limit = jmax if rules.max_jokers is None else min(jmax, rules.max_jokers)
        if b - a - 1 <= limit and b - a + 1 <= rules.max_length:
            upper_bits = -(1 << (2 * b - 2))  # a crossing window uses a natural at b or above
            for low in range(max(1, b - rules.max_length + 1), a + 1):
                shift = 2 * low - 2
                if not (vec >> shift) & 3:
                    continue
                ahead = ((vec | vec >> 1) & LOW_BITS) >> (shift + 2) & 0x3FF
                wkey = low << 10 | ahead
                windows = self._windows.get(wkey)
                if windows is None:
                    windows = self._windows[wkey] = _make_windows(low, ahead, rules)
                for used, dj, dstate, dab, meld in windows:
                    if dj > jmax or not used & upper_bits:
                        continue
                    rest = vec - used
                    rest_wild = wild & (rest | rest >> 1)
                    sub = memo.get(rest << 28 | rest_wild)
                    if sub is None:
                        sub = self._search(rest, rest_wild)
                    crossing.append((dj, dstate, dab, meld, sub))

        # The merge, as in _lay_lowest: per (state, discard, absorber, jokers) the least
        # leftover, the first found among equals.
        slots, span = self._take_slots(), self._span
        found: list[Option] = []
        for lo1, j1, st1, d1, ab1, w1 in first:
            row = comb[st1]
            # Witnesses are 15-bit melds, none zero: the second's go above the first's.
            above = 15 * ((w1.bit_length() + 14) // 15)
            for lo2, j2, st2, d2, ab2, w2 in second:
                jokers = j1 + j2
                disc = d1 + d2
                if jokers > jmax or disc > 1:
                    continue
                state = row[st2]
                ab = ab1 | ab2
                lo = lo1 + lo2
                k = (state << 2 | disc << 1 | ab) * span + jokers + FEWEST_JOKERS
                at = slots[k]
                if at < 0:
                    slots[k] = len(found)
                    found.append((lo, jokers, state, disc, ab, w1 | w2 << above))
                elif lo < found[at][0]:
                    found[at] = (lo, jokers, state, disc, ab, w1 | w2 << above)
        for dj, dstate, dab, meld, sub in crossing:
            for lo, jokers, state, disc, ab, w in sub:
                jokers += dj
                if jokers > jmax:
                    continue
                state = comb[state][dstate]
                ab |= dab
                k = (state << 2 | disc << 1 | ab) * span + jokers + FEWEST_JOKERS
                at = slots[k]
                if at < 0:
                    slots[k] = len(found)
                    found.append((lo, jokers, state, disc, ab, w << 15 | meld))
                elif lo < found[at][0]:
                    found[at] = (lo, jokers, state, disc, ab, w << 15 | meld)
        self._give_back(slots, found)
        return _pareto(found, self._leq, rules.marriage)


_SOLVERS: dict[tuple[SuitRules, bool], dict[int, SuitSolver]] = {}


BIG_SUIT: Final = 6
"""Suits of this many cards or more are rarely met twice (most of their tables are built for
one hand), and a table costs more the more jokers it provides for: see :class:`SuitTables`."""


def card_count(ranks: int) -> int:
    """The number of cards of a packed suit."""
    return (ranks & LOW_BITS).bit_count() + 2 * (ranks >> 1 & LOW_BITS).bit_count()


class SuitTables:
    """Where a hand with ``jokers`` wild cards gets its suit tables. Small suits come back hand
    after hand: their tables are built for ``shared`` jokers (or more), so that every hand with
    no more wild cards shares them. Big suits (:data:`BIG_SUIT`) are built for the hand's own
    wild cards, which is cheaper. Any memoised table built for at least the hand's wild cards
    serves too (a superset of the options, so just as exact)."""

    __slots__ = ("_by_jokers", "_exact", "_jokers", "_known", "_others", "_shared")

    def __init__(self, rules: SuitRules, jokers: int, discard: bool, shared: int) -> None:
        by_jokers = _SOLVERS.setdefault((rules, discard), {})
        for jmax in (jokers, max(jokers, shared)):
            if jmax not in by_jokers:
                by_jokers[jmax] = SuitSolver(rules, jmax, discard)
        self._by_jokers = by_jokers
        self._jokers = jokers
        self._exact = by_jokers[jokers]
        self._shared = by_jokers[max(jokers, shared)]
        if self._exact is not self._shared:
            # Most of what a big suit leaves after its lowest cards is small, and solved already.
            self._exact.fallback = self._shared
        self._known = 0
        self._others: list[Memo[int, SuitTable]] = []
        self.refresh()

    def refresh(self) -> None:
        """Look in every solver for at least the hand's wild cards there is now (a hand with
        more wild cards may have added one since)."""
        by_jokers = self._by_jokers
        if len(by_jokers) != self._known:
            self._known = len(by_jokers)
            self._others = [
                by_jokers[k].tables
                for k in sorted(by_jokers)
                if k >= self._jokers and by_jokers[k] is not self._shared
            ]

    def table(self, ranks: int, wild_ranks: int) -> SuitTable:
        key = ranks << 14 | wild_ranks  # wild_ranks: bits 1..13
        found = self._shared.tables.get(key)
        if found is not None:
            return found
        for tables in self._others:
            found = tables.get(key)
            if found is not None:
                return found
        if card_count(ranks) >= BIG_SUIT:
            return self._exact.table(ranks, wild_ranks)
        return self._shared.table(ranks, wild_ranks)


_SUIT_TABLES: dict[tuple[int, int, bool, int], SuitTables] = {}
"""By id(rules) (one SuitRules object per profile, kept alive by the tables it keys), jokers,
discard and shared: a dataclass's hash is an interpreted call, once a search."""


def suit_tables(rules: SuitRules, jokers: int, discard: bool, shared: int) -> SuitTables:
    """:class:`SuitTables` for these arguments, made once and brought up to date."""
    key = (id(rules), jokers, discard, shared)
    found = _SUIT_TABLES.get(key)
    if found is None:
        found = _SUIT_TABLES[key] = SuitTables(rules, jokers, discard, shared)
    else:
        found.refresh()
    return found


PureSummary = tuple[int, Witness, int, Witness, int]
"""One suit under the count rule "only pure sequences are exempt", as a plain tuple (see
:data:`Witness` on why): the fewest points left outside pure sequences with no discard, its
witness, the same with this suit's dearest unmelded card discarded (-1 if no natural card is left
to discard), its witness, and the most pure sequences the suit can lay (capped at 4)."""


class PureTables:
    """Per-suit :class:`PureSummary` tables, memoised on the counts. Wild cards count 0 wherever
    they end up, so the search may give them to the pool for free."""

    def __init__(self, triple: bool, discard: bool) -> None:
        rules = SuitRules(max_jokers=0, triple=triple, long=None, marriage=True)
        self._triple = triple
        self._discard = discard
        self._solver = SuitSolver(rules, 0, discard)
        self._tables: Memo[int, PureSummary] = Memo(SUIT_MEMOS)

    def table(self, ranks: int, wild_ranks: int) -> PureSummary:
        key = ranks << 14 | wild_ranks  # wild_ranks: bits 1..13
        cached = self._tables.get(key)
        if cached is not None:
            return cached
        # Most suits of a random hand lay no pure sequence: their summary needs no search.
        if lays_pure(ranks, self._triple):
            result = self.searched(ranks, wild_ranks)
        else:
            result = _unmelded(ranks, wild_ranks, self._discard)
        self._tables.put(key, result)
        return result

    def searched(self, ranks: int, wild_ranks: int) -> PureSummary:
        """The summary from the suit's table (any suit; :meth:`table` asks it of suits that lay
        a pure sequence)."""
        best: list[tuple[int, Witness] | None] = [None, None]
        most = 0
        for lo, _, state, disc, _, witness in self._solver.table(ranks, wild_ranks)[-1]:
            most = max(most, state % 5)
            old = best[disc]
            if old is None or lo < old[0]:
                best[disc] = (lo, witness)
        plain, discarding = best
        assert plain is not None
        if discarding is None:
            discarding = (-1, 0)
        return (plain[0], plain[1], discarding[0], discarding[1], most)


def _unmelded(ranks: int, wild_ranks: int, discard: bool) -> PureSummary:
    """:meth:`PureTables.searched` of a suit that lays no pure sequence: every non-wild card is
    left over, or all but the discard, one with the most points (:func:`discard_position`)."""
    points = top = wild = 0
    for r in range(1, 14):
        n = ranks >> (2 * r - 2) & 3
        if not n:
            continue
        if wild_ranks >> r & 1:
            wild |= 1 << (2 * r - 2)
            continue
        points += n * POINTS[r - 1]
        top = max(top, POINTS[r - 1])
    if not discard or not top:
        return (points, 0, -1, 0, 0)
    position = discard_position(ranks, wild, top)
    return (points, 0, points - top, pack_meld("D", position, 0, 0), 0)


def worth(value: int) -> int:
    """Positions 1..13 of the cards worth ``value`` points, as packed bits."""
    return sum(1 << (2 * p - 2) for p in range(1, 14) if POINTS[p - 1] == value)


_WORTHS: Final = {value: worth(value) for value in set(POINTS)}


def discard_position(ranks: int, wild: int, top: int) -> int:
    """The position (1..13, the ace at 1) of the card a suit that lays no pure sequence
    discards: of its non-wild cards worth ``top`` points (the most), the one the search would
    pick where several are: in the lowest stretch of held positions (no two empty positions in
    a row) that holds one, the highest. ``wild``: the wild positions, packed like ``ranks``."""
    held = (ranks | ranks >> 1) & LOW_BITS
    candidates = held & ~wild & _WORTHS[top]
    # A stretch ends at a held position whose next two are empty (:meth:`SuitSolver._search`).
    ends = held & ~(held >> 2) & ~(held >> 4)
    lowest = candidates & -candidates
    ends &= -lowest  # the ends at or above the lowest candidate
    end = ends & -ends
    return ((candidates & (2 * end - 1)).bit_length() + 1) // 2


_PURE: dict[tuple[bool, bool], PureTables] = {}


def pure_tables(triple: bool, discard: bool) -> PureTables:
    found = _PURE.get((triple, discard))
    if found is None:
        found = _PURE[(triple, discard)] = PureTables(triple, discard)
    return found


_PURE_COUNTS: Final[Memo[int, int]] = Memo(SUIT_MEMOS)
_RUNS: Final[Memo[int, int]] = Memo(SUIT_MEMOS)


def lays_pure(ranks: int, triple: bool) -> bool:
    """Whether the packed suit ``ranks`` can lay a pure sequence: three positions in a row held
    (the ace at 1 or 14), or three copies of a card where that is a tunnela."""
    held = (ranks | ranks >> 1) & LOW_BITS
    held |= (held & 1) << 26  # the ace plays high too
    return bool(held & held >> 2 & held >> 4) or (triple and bool(ranks & ranks >> 1 & LOW_BITS))


def pure_count(ranks: int, triple: bool) -> int:
    """The most pure sequences (tunnelas too, if ``triple``) the packed suit ``ranks`` can lay at
    once, capped at 4: the last field of :meth:`PureTables.table`, without building the table
    (the set search asks this of many suits it then drops). Memoised."""
    key = ranks << 1 | triple
    found = _PURE_COUNTS.get(key)
    if found is not None:
        return found
    found = _melds_apart(ranks, triple)
    aces = ranks & 3
    # Played high, an ace melds nothing it could not played low, unless there is a king.
    if aces and ranks >> 24 & 3:
        for high in range(1, aces + 1):
            found = max(found, _melds_apart(ranks - high + (high << 26), triple))
    found = min(4, found)
    _PURE_COUNTS.put(key, found)
    return found


def _melds_apart(vec: int, triple: bool) -> int:
    """The most pure melds of the packed positions ``vec``: the sum over its stretches of
    held positions, which no meld crosses."""
    total = 0
    while vec:
        vec >>= (vec & -vec).bit_length() - 1 & ~1
        n = 1
        while vec >> 2 * n & 3:
            n += 1
        stretch = vec & (1 << 2 * n) - 1
        vec >>= 2 * n
        if n >= 3:
            total += _runs(stretch, n, triple)
        elif triple:
            total += (stretch & 3 == 3) + (stretch >> 2 == 3)
    return total


def _runs(stretch: int, n: int, triple: bool) -> int:
    """The most pure melds of ``n`` held positions in a row: runs of three (longer ones make no
    more) and tunnelas, by a walk that tracks the runs still waiting for cards. Memoised."""
    key = stretch << 1 | triple
    found = _RUNS.get(key)
    if found is not None:
        return found
    # (runs that need this position and the next, runs that need this one) -> most melds.
    states = {(0, 0): 0}
    for p in range(n):
        held = stretch >> 2 * p & 3
        after: dict[tuple[int, int], int] = {}
        for (x, y), laid in states.items():
            free = held - x - y
            if free < 0:
                continue
            for k in range(free + 1 if p + 2 < n else 1):
                got = laid + k + int(triple and free - k == 3)
                if after.get((k, x), -1) < got:
                    after[(k, x)] = got
        states = after
    found = max(states.values())
    _RUNS.put(key, found)
    return found

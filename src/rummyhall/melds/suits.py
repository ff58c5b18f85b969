"""Per-suit tables: every useful way to lay one suit's cards into sequences.

The solver splits a hand by suit: sequences live inside one suit, sets cross suits and are chosen
by the solver before it asks these tables about what is left of each suit. A table lists the
Pareto-best *options* for a suit: how many jokers they take from the pool, how they advance the
declaration requirement, and how many points they leave unmelded. Tables are memoised on the suit's
card counts packed into an int, so across many hands the same small suits are solved once.

Positions run 1..14 (the ace is 1 or 14). A suit is a tuple of 14 counts, index ``p - 1``, with all
aces at position 1 on the way in; the table itself decides which aces play high.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from rummyhall.cards import CODE_POINTS

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
_KINDS: Final = ("", "S", "T", "D")


def pack_meld(kind: str, start: int, length: int, mask: int) -> int:
    return _KINDS.index(kind) | start << 2 | length << 6 | mask << 9


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
Option = tuple[int, int, int, int, int, Witness]
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


def _pareto(options: list[Option], rules: SuitRules) -> tuple[Option, ...]:
    """Drop options another option beats on every count: no more leftover, a state at least as
    good, the same discard, an absorber if it has one, and no more jokers. In Marriage a spare joker
    must be melded somewhere, so fewer jokers only wins with an absorber to put the rest in."""
    options.sort(key=lambda o: (o[0], o[1], -o[4]))
    leq = _leq_table(rules)
    strict_jokers = rules.marriage
    kept: tuple[list[Option], list[Option]] = ([], [])
    out: list[Option] = []
    for o in options:
        _, j, st, d, ab, _ = o
        beaten_by = leq[st]
        for k in kept[d]:  # kept ones have no more leftover
            kj, kab = k[1], k[4]
            if (
                kab >= ab
                and beaten_by[k[2]]
                and (kj == j or (kj < j and (kab or not strict_jokers)))
            ):
                break
        else:
            kept[d].append(o)
            out.append(o)
    return tuple(out)


def _frontier(best: dict[int, Option], marriage: bool) -> tuple[Option, ...]:
    """The cheap half of :func:`_pareto`, for the inner nodes of the search: among options with
    the same state, discard and absorber (``key >> 8``), drop those with more jokers (``key &
    255``) and no less leftover. The full comparison across states is left to the table. In
    Marriage a spare joker needs an absorber, so without one fewer jokers do not dominate."""
    if len(best) < 3:
        return tuple(best.values())
    out: list[Option] = []
    group = -1
    floor = 0
    for key in sorted(best):
        o = best[key]
        if key >> 8 != group:
            group, floor = key >> 8, o[0] + 1
        if o[0] < floor or (marriage and not o[4]):
            out.append(o)
            floor = min(floor, o[0])
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


_LOW_BITS: Final = sum(1 << (2 * i) for i in range(14))
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


SuitTable = tuple[tuple[Option, ...], ...]
"""The options of one suit by joker budget: ``table[b]`` holds those taking at most ``b`` jokers
from the pool, fewest leftover points first (no suit can take more than the hand's wild cards less
what its sets took). ``table[-1]`` holds them all. A plain tuple, for the garbage collector."""


class SuitSolver:
    """Per-suit tables for one rule set, joker limit and discard mode, memoised on the counts.

    ``jmax`` is the most jokers a suit may take from the pool (the hand's wild cards); ``discard``
    lets one unmelded natural card be the hand's discard. Suits are packed ints (:func:`pack`)."""

    def __init__(self, rules: SuitRules, jmax: int, discard: bool) -> None:
        self.rules = rules
        self.jmax = jmax
        self.discard = discard
        self.comb = combine_table(rules)
        self._memo: dict[int, tuple[Option, ...]] = {}
        self._tables: dict[tuple[int, int], SuitTable] = {}
        self._windows: dict[tuple[int, int], tuple[Window, ...]] = {}
        self._triple = meld_state(rules, True, 3, tunnela=True) if rules.triple else 0

    def table(self, ranks: int, wild_ranks: int) -> SuitTable:
        """Options for a suit given its packed counts by rank (aces at position 1) and the mask of
        its wild ranks (bit r). Every choice of how many aces play high is considered."""
        key = (ranks, wild_ranks)
        cached = self._tables.get(key)
        if cached is not None:
            return cached
        aces = ranks & 3
        wmask = wild_ranks | ((wild_ranks >> 1 & 1) << 14)  # a wild ace stays wild played high
        options: list[Option] = []
        for high in range(aces + 1):
            options.extend(self._search(ranks - high + (high << 26), wmask))
        kept = _pareto(options, self.rules)
        ordered = sorted(kept, key=lambda o: o[:5])
        result = tuple(
            tuple(o for o in ordered if o[JOKERS] <= budget) for budget in range(self.jmax + 1)
        )
        self._tables[key] = result
        return result

    def _search(self, vec: int, wmask: int) -> tuple[Option, ...]:
        """Options for the packed cards ``vec`` (positions 1..14), wild positions the ``wmask``
        bits: the lowest card is left over, given to the pool if wild, discarded, or starts a
        meld."""
        key = vec << 15 | wmask
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        if not vec:
            self._memo[key] = _EMPTY
            return _EMPTY
        low = (vec & -vec).bit_length() + 1 >> 1
        shift = 2 * low - 2
        one = 1 << shift
        rules, jmax, comb, memo = self.rules, self.jmax, self.comb, self._memo
        # Each move: (cards left, jokers taken, state added, discard, absorber, points, meld).
        moves: list[tuple[int, int, int, int, int, int, int]] = []
        if wmask >> low & 1:
            moves.append((vec - one, -1, 0, 0, 0, 0, 0))  # a wild card not used as itself: pool
        else:
            moves.append((vec - one, 0, 0, 0, 0, POINTS[low - 1], 0))
            if self.discard:
                moves.append((vec - one, 0, 0, 1, 0, 0, pack_meld("D", low, 0, 0)))
        ahead = ((vec | vec >> 1) & _LOW_BITS) >> (shift + 2) & 0x3FF
        wkey = (low, ahead)
        windows = self._windows.get(wkey)
        if windows is None:
            windows = self._windows[wkey] = _make_windows(low, ahead, rules)
        for used, jokers, state, absorber, meld in windows:
            if jokers <= jmax:  # jmax is at least the hand's whole joker pool
                moves.append((vec - used, jokers, state, 0, absorber, 0, meld))
        if self._triple and (vec >> shift) & 3 >= 3:
            moves.append((vec - 3 * one, 0, self._triple, 0, 0, 0, pack_meld("T", low, 3, 0)))
        # Per key (see _frontier) the option with the least leftover.
        best: dict[int, Option] = {}
        for rest, dj, dstate, dd, dab, dlo, meld in moves:
            sub = memo.get(rest << 15 | wmask)
            if sub is None:
                sub = self._search(rest, wmask)
            for lo, jokers, state, disc, ab, w in sub:
                jokers += dj
                disc += dd
                if jokers > jmax or disc > 1:
                    continue
                if dstate:
                    state = comb[state][dstate]
                ab |= dab
                lo += dlo
                k = (state << 3 | disc << 1 | ab) << 8 | (jokers + 64)
                old = best.get(k)
                if old is None or lo < old[0]:
                    best[k] = (lo, jokers, state, disc, ab, w << 15 | meld if meld else w)
        result = _frontier(best, rules.marriage)
        self._memo[key] = result
        return result


_SOLVERS: dict[tuple[SuitRules, bool], dict[int, SuitSolver]] = {}


class SuitTables:
    """Where a hand gets its suit tables: from the solver for its own number of wild cards, or
    from any memoised table built for more (a superset of the options, so just as exact)."""

    __slots__ = ("_larger", "_own")

    def __init__(self, rules: SuitRules, jmax: int, discard: bool) -> None:
        by_jokers = _SOLVERS.setdefault((rules, discard), {})
        own = by_jokers.get(jmax)
        if own is None:
            own = by_jokers[jmax] = SuitSolver(rules, jmax, discard)
        self._own = own
        self._larger = [by_jokers[k]._tables for k in sorted(by_jokers) if k > jmax]

    def table(self, ranks: int, wild_ranks: int) -> SuitTable:
        key = (ranks, wild_ranks)
        found = self._own._tables.get(key)
        if found is not None:
            return found
        for tables in self._larger:
            found = tables.get(key)
            if found is not None:
                return found
        return self._own.table(ranks, wild_ranks)


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
        self._solver = SuitSolver(rules, 0, discard)
        self._tables: dict[tuple[int, int], PureSummary] = {}

    def table(self, ranks: int, wild_ranks: int) -> PureSummary:
        key = (ranks, wild_ranks)
        cached = self._tables.get(key)
        if cached is not None:
            return cached
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
        result = (plain[0], plain[1], discarding[0], discarding[1], most)
        self._tables[key] = result
        return result


_PURE: dict[tuple[bool, bool], PureTables] = {}


def pure_tables(triple: bool, discard: bool) -> PureTables:
    found = _PURE.get((triple, discard))
    if found is None:
        found = _PURE[(triple, discard)] = PureTables(triple, discard)
    return found

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

from dataclasses import dataclass
from typing import Final

POINTS: Final = (10, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 10)
"""Points of a natural card at positions 1..14 (index p - 1)."""

# A meld in a witness: ("S", start, length, natural_mask) for a sequence whose positions
# start..start+length-1 hold natural cards where bit (p - start) of natural_mask is set and jokers
# elsewhere; ("T", position, 3, 0) for three identical cards; ("D", position, 0, 0) for the card
# discarded. A witness is a linked list (meld, rest) ending in None, so extending one is O(1).
Meld = tuple[str, int, int, int]
Witness = tuple[Meld, "Witness"] | None

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


def melds(witness: Witness) -> list[Meld]:
    out: list[Meld] = []
    while witness is not None:
        meld, witness = witness
        out.append(meld)
    return out


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
# long one, bits 3-4 the number of sequences capped at 2. Marriage: the number of pure sequences
# capped at 4 (4 lets a spare joker turn one pure sequence impure and still keep 3).


def indian_combine(a: int, b: int) -> int:
    return ((a | b) & 7) | (min(2, (a >> 3) + (b >> 3)) << 3)


def marriage_combine(a: int, b: int) -> int:
    return min(4, a + b)


INDIAN_STATES: Final = 24
MARRIAGE_STATES: Final = 5
INDIAN_TABLE: Final = tuple(
    tuple(indian_combine(a, b) for b in range(INDIAN_STATES)) for a in range(INDIAN_STATES)
)
MARRIAGE_TABLE: Final = tuple(
    tuple(marriage_combine(a, b) for b in range(MARRIAGE_STATES)) for a in range(MARRIAGE_STATES)
)


def combine_table(rules: SuitRules) -> tuple[tuple[int, ...], ...]:
    return MARRIAGE_TABLE if rules.marriage else INDIAN_TABLE


def meld_state(rules: SuitRules, pure: bool, length: int) -> int:
    if rules.marriage:
        return 1 if pure else 0
    long = rules.long is not None and length >= rules.long
    return 8 | (1 if pure else 0) | (2 if pure and long else 0) | (4 if long and not pure else 0)


def state_leq(rules: SuitRules, a: int, b: int) -> bool:
    """Whether state ``a`` is no better than ``b`` (everything ``a`` has, ``b`` has too)."""
    if rules.marriage:
        return a <= b
    return (a & 7 & ~b) == 0 and (a >> 3) <= (b >> 3)


def _pareto(options: list[Option], rules: SuitRules) -> tuple[Option, ...]:
    """Drop options another option beats on every count: no more leftover, a state at least as
    good, the same discard, an absorber if it has one, and no more jokers. In Marriage a spare joker
    must be melded somewhere, so fewer jokers only wins with an absorber to put the rest in."""
    options.sort(key=lambda o: (o[0], o[1], -o[4]))
    kept: list[Option] = []
    marriage = rules.marriage
    for o in options:
        _, j, st, d, ab, _ = o
        if not any(
            k[3] == d
            and k[4] >= ab
            and (k[1] == j or (k[1] < j and (k[4] or not marriage)))
            and state_leq(rules, st, k[2])
            for k in kept  # kept ones have no more leftover
        ):
            kept.append(o)
    return tuple(kept)


_EMPTY: Final[tuple[Option, ...]] = ((0, 0, 0, 0, 0, None),)


def _windows(vec: tuple[int, ...], low: int, rules: SuitRules) -> list[tuple[int, int, int, int]]:
    """Sequences whose lowest natural card is at position ``low`` (1-based), as
    (start, length, natural_mask, jokers). Jokers only fill gaps, pad a sequence to 3 cards, or
    (long-sequence rule) pad three naturals to a long one; other padding is the absorber's job."""
    found: list[tuple[int, int, int, int]] = []
    limit = rules.max_jokers
    for length in range(3, rules.max_length + 1):
        start = low if low + length - 1 <= 14 else 15 - length
        if start < 1:
            continue
        end = start + length - 1
        # Positions after `low` in the window: each natural (if we hold one) or a joker.
        free = [p for p in range(low + 1, end + 1) if vec[p - 1] > 0]
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
            found.append((start, length, mask, jokers))
    return found


class SuitTable:
    """The options of one suit, fewest leftover points first, and that least leftover (a bound)."""

    __slots__ = ("_upto", "least", "options")

    def __init__(self, options: tuple[Option, ...]) -> None:
        self.options = options
        self.least = options[0][LEFTOVER]
        self._upto: dict[int, tuple[Option, ...]] = {}

    def upto(self, jokers: int) -> tuple[Option, ...]:
        """The options taking at most ``jokers`` from the pool: no suit can take more than the
        hand's wild cards less what its sets already took."""
        found = self._upto.get(jokers)
        if found is None:
            found = tuple(o for o in self.options if o[JOKERS] <= jokers)
            self._upto[jokers] = found
        return found


class SuitSolver:
    """Per-suit tables for one rule set, joker limit and discard mode, memoised on the counts.

    ``jmax`` is the most jokers a suit may take from the pool (the hand's wild cards); ``discard``
    lets one unmelded natural card be the hand's discard."""

    def __init__(self, rules: SuitRules, jmax: int, discard: bool) -> None:
        self.rules = rules
        self.jmax = jmax
        self.discard = discard
        self.comb = combine_table(rules)
        self._memo: dict[tuple[tuple[int, ...], int], tuple[Option, ...]] = {}
        self._tables: dict[tuple[tuple[int, ...], int], SuitTable] = {}

    def table(self, ranks: tuple[int, ...], wild_ranks: int) -> SuitTable:
        """Options for a suit given its counts by rank (``ranks[r - 1]`` for r = 1..13) and the bit
        mask of its wild ranks (bit r). Every choice of how many aces play high is considered."""
        key = (ranks, wild_ranks)
        cached = self._tables.get(key)
        if cached is not None:
            return cached
        aces = ranks[0]
        wmask = wild_ranks | ((wild_ranks >> 1 & 1) << 14)  # a wild ace stays wild played high
        options: list[Option] = []
        for high in range(aces + 1):
            vec = (aces - high, *ranks[1:], high)
            options.extend(self._search(vec, wmask))
        kept = _pareto(options, self.rules) if aces else tuple(options)
        result = SuitTable(tuple(sorted(kept, key=lambda o: o[:5])))
        self._tables[key] = result
        return result

    def _search(self, vec: tuple[int, ...], wmask: int) -> tuple[Option, ...]:
        """Options for the cards in ``vec`` (positions 1..14), wild positions the ``wmask`` bits:
        the lowest card is left over, given to the pool if wild, discarded, or starts a meld."""
        key = (vec, wmask)
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        low = next((p for p in range(1, 15) if vec[p - 1]), 0)
        if not low:
            self._memo[key] = _EMPTY
            return _EMPTY
        rules, jmax, comb = self.rules, self.jmax, self.comb
        best: dict[tuple[int, int, int, int], Option] = {}

        def extend(
            rest: tuple[int, ...],
            dj: int,
            dstate: int,
            dd: int,
            dab: int,
            dlo: int,
            meld: Meld | None,
        ) -> None:
            for lo, jokers, state, disc, ab, w in self._search(rest, wmask):
                jokers += dj
                disc += dd
                if jokers > jmax or disc > 1:
                    continue
                if dstate:
                    state = comb[state][dstate]
                ab |= dab
                lo += dlo
                k = (jokers, state, disc, ab)
                old = best.get(k)
                if old is None or lo < old[0]:
                    best[k] = (lo, jokers, state, disc, ab, w if meld is None else (meld, w))

        one_less = _take(vec, ((low, 1),))
        if wmask >> low & 1:
            extend(one_less, -1, 0, 0, 0, 0, None)  # a wild card not used as itself joins the pool
        else:
            extend(one_less, 0, 0, 0, 0, POINTS[low - 1], None)
            if self.discard:
                extend(one_less, 0, 0, 1, 0, 0, ("D", low, 0, 0))
        for start, length, mask, jokers in _windows(vec, low, rules):
            used = tuple((start + i, 1) for i in range(length) if mask >> i & 1)
            pure = jokers == 0
            dstate = meld_state(rules, pure, length)
            dab = 1 if rules.marriage and not pure else 0
            extend(_take(vec, used), jokers, dstate, 0, dab, 0, ("S", start, length, mask))
        if rules.triple and vec[low - 1] >= 3:
            triple = meld_state(rules, True, 3)
            extend(_take(vec, ((low, 3),)), 0, triple, 0, 0, 0, ("T", low, 3, 0))
        result = _pareto(list(best.values()), rules)
        self._memo[key] = result
        return result

    def clear(self) -> None:
        self._memo.clear()
        self._tables.clear()


def _take(vec: tuple[int, ...], used: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    out = list(vec)
    for p, n in used:
        out[p - 1] -= n
    return tuple(out)


_SOLVERS: dict[tuple[SuitRules, int, bool], SuitSolver] = {}


def suit_solver(rules: SuitRules, jmax: int, discard: bool) -> SuitSolver:
    """The shared (memoised) per-suit solver for these settings."""
    key = (rules, jmax, discard)
    found = _SOLVERS.get(key)
    if found is None:
        found = _SOLVERS[key] = SuitSolver(rules, jmax, discard)
    return found


@dataclass(frozen=True, slots=True)
class PureSummary:
    """One suit under the count rule "only pure sequences are exempt": the fewest points left
    outside pure sequences with no discard (``points``) and with this suit's dearest card discarded
    (``points_discarding``, None if no natural card is left to discard), their witnesses, and the
    most pure sequences the suit can lay (capped at 4)."""

    points: int
    witness: Witness
    points_discarding: int | None
    witness_discarding: Witness
    most_pure: int


class PureTables:
    """Per-suit :class:`PureSummary` tables, memoised on the counts. Wild cards count 0 wherever
    they end up, so the search may give them to the pool for free."""

    def __init__(self, triple: bool, discard: bool) -> None:
        rules = SuitRules(max_jokers=0, triple=triple, long=None, marriage=True)
        self._solver = SuitSolver(rules, 0, discard)
        self._tables: dict[tuple[tuple[int, ...], int], PureSummary] = {}

    def table(self, ranks: tuple[int, ...], wild_ranks: int) -> PureSummary:
        key = (ranks, wild_ranks)
        cached = self._tables.get(key)
        if cached is not None:
            return cached
        best: list[tuple[int, Witness] | None] = [None, None]
        most = 0
        for lo, _, state, disc, _, witness in self._solver.table(ranks, wild_ranks).options:
            most = max(most, state)
            old = best[disc]
            if old is None or lo < old[0]:
                best[disc] = (lo, witness)
        plain, discarding = best
        assert plain is not None
        result = PureSummary(
            plain[0],
            plain[1],
            None if discarding is None else discarding[0],
            None if discarding is None else discarding[1],
            most,
        )
        self._tables[key] = result
        return result

    def clear(self) -> None:
        self._solver.clear()
        self._tables.clear()


_PURE: dict[tuple[bool, bool], PureTables] = {}


def pure_tables(triple: bool, discard: bool) -> PureTables:
    found = _PURE.get((triple, discard))
    if found is None:
        found = _PURE[(triple, discard)] = PureTables(triple, discard)
    return found


def clear_caches() -> None:
    """Forget every memoised table (for benchmarks that measure cold starts)."""
    _SOLVERS.clear()
    _PURE.clear()

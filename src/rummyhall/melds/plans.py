"""The search behind hints (hints.py): the plan of a hand's cards closest to a declaration.

A *plan* keeps the solver's melds as they are and lays the other cards out as groups one or two
cards short of a meld (runs of one suit, sets of one rank, tunnelas), loose cards and a joker pool.
:func:`find_plan` finds the best plan by a branch and bound, exact within a step budget
(:data:`SEARCH_BUDGET`, docs/solver.md "Hints"). Each natural card, lowest first, is left loose,
starts a set with cards of its rank, or starts a run that takes every card of its suit in a window
of positions; a wild card may also join the joker pool. A group may miss at most two cards (a lone
card is a run missing two). Everything is keyed by card codes, so the order of a hand does not
matter.

This module is compiled with mypyc where the build can (setup.py, rummyhall.native); it is
written for that as much as for CPython: the search's groups and plans are plain classes (native
classes once compiled, whose fields are read without unpacking a tuple), the unplaced cards and
the wild ones small ints (bits), sorts order plain ints, and a profile's rules are read once per
search. What the searches of a hand work out is memoised for that hand (:class:`HandMemo`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Generic, TypeVar

from rummyhall.cards import CODE_POINTS, JOKER_CODE
from rummyhall.melds.arrangement import Arrangement
from rummyhall.melds.kinds import Kind
from rummyhall.melds.profiles import Profile, Wilds

SEARCH_BUDGET: Final = 300
"""Steps (nodes of the walk) one plan search may take, so that a hint costs a bounded time (a few
milliseconds at worst) however the cards fall. Nearly every 13- or 14-card hand finishes well
within it (the bound and the move order find and prove the best plan in tens of steps); a
21-card Marriage hand may hit it, and then the best plan found so far is the answer (still a
plan, so ``distance`` is at worst an overestimate). Deterministic: the search always takes the
same steps."""

_MAX_GAPS: Final = 2
"""Most cards a group of the plan may miss: further starts help a beginner little."""

RUN: Final = 0
"""A group of the plan: cards of one suit in a window of positions (``low`` the first)."""
SET: Final = 1
"""Cards of one rank in different suits."""
TUNNELA: Final = 2
"""Three identical cards (a profile with tunnelas)."""
FIXED: Final = 3
"""A meld of the solver's, kept as it is (``fixed`` is its kind)."""


# The unplaced cards of a search, two bits a code (at most three copies of a card), are kept in
# two ints of 52 bits, the codes of the first two suits and of the last two, so that they stay
# small ints (a compiled module keeps those unboxed: no new int object for each card taken); the
# groups a card can start are looked up by them. (And in the hand's own places: HandMemo.)
_SPLIT: Final = 26
"""The first code of the second word."""
_SHIFT: Final = tuple(2 * (c % _SPLIT) for c in range(JOKER_CODE))
"""Where a code's two bits sit in its word."""
_SUIT_MASK: Final = (1 << 26) - 1
"""The 13 two-bit counts of one suit."""


class Group:
    """A group of a plan while searching: what it is (``kind``, one of :data:`RUN`, :data:`SET`,
    :data:`TUNNELA`, :data:`FIXED`), its natural codes in display order, the cards it is missing
    (``gaps``), its size once complete, its first position (runs; else 0) and, for a meld of the
    solver's, its kind. ``others``: the cards it takes besides the card that starts it (the
    search's moves), and what taking them subtracts from each word of the unplaced cards."""

    def __init__(
        self,
        kind: int,
        codes: tuple[int, ...],
        gaps: int,
        size: int,
        low: int,
        fixed: Kind | None = None,
        others: tuple[int, ...] = (),
    ) -> None:
        self.kind = kind
        self.codes = codes
        self.gaps = gaps
        self.size = size
        self.low = low
        self.fixed = fixed
        self.others = others
        self.first_word = 0
        self.second_word = 0
        for x in others:
            if x < _SPLIT:
                self.first_word += 1 << _SHIFT[x]
            else:
                self.second_word += 1 << _SHIFT[x]
        # Read for every leaf by judge(): a Kind's properties are Python calls, so once here.
        self.sequence = kind in (RUN, TUNNELA) or (fixed is not None and fixed.is_sequence)
        self.pure = kind in (RUN, TUNNELA) or (fixed is not None and fixed.is_pure)

    def __repr__(self) -> str:
        return (
            f"Group({self.kind}, {self.codes}, gaps={self.gaps}, size={self.size},"
            f" low={self.low}, fixed={self.fixed})"
        )


class Plan:
    """The best plan so far: its key (distance, missing cards, loose points; None before the first
    plan), its groups (the solver's first), its loose cards and joker pool, and the groups kept
    pure (bit i for ``groups[i]``, see :func:`judge`)."""

    def __init__(
        self,
        key: tuple[int, int, int] | None = None,
        groups: tuple[Group, ...] = (),
        loose: tuple[int, ...] = (),
        pool: tuple[int, ...] = (),
        pure: int = 0,
    ) -> None:
        self.key = key
        self.groups = groups
        self.loose = loose
        self.pool = pool
        self.pure = pure


class Rules:
    """What :func:`judge` reads of a profile, read once (a profile's fields are Python attribute
    lookups from compiled code): ``cap`` is -1 for no cap on jokers, ``long_sequence`` 0 for
    none."""

    def __init__(self, profile: Profile) -> None:
        self.min_pure = profile.min_pure_sequences
        self.min_sequences = profile.min_sequences
        self.long_sequence = profile.long_sequence or 0
        cap = profile.max_jokers_per_meld
        self.cap = -1 if cap is None else cap


V = TypeVar("V")

_SHARDS: Final = 127
"""Dicts a memo is split into (a prime: the remainder of a key mixes all of its bits)."""


class Memo(Generic[V]):
    """A memo of at most about ``limit`` entries keyed by ints, kept in :data:`_SHARDS` small dicts,
    each cleared alone when full. A dict grows by building a new table and empties by freeing
    every entry, both in time proportional to its size, and the one call that does it pays for
    all: a dict of 20,000 entries of groups took 18 ms to clear (measured; growing one of 200,000
    ints to the next size took 8 ms); a shard costs a hundredth of that. ``spread`` picks the
    shard: an int that varies with the key."""

    def __init__(self, limit: int) -> None:
        self.shards: list[dict[int, V]] = [{} for _ in range(_SHARDS)]
        self.shard_limit = limit // _SHARDS

    def get(self, key: int, spread: int) -> V | None:
        return self.shards[spread % _SHARDS].get(key)

    def put(self, key: int, spread: int, value: V) -> None:
        shard = self.shards[spread % _SHARDS]
        if len(shard) >= self.shard_limit:
            shard.clear()
        shard[key] = value

    def __len__(self) -> int:
        return sum([len(shard) for shard in self.shards])


_CORES: Final[Memo[tuple[Group, ...]]] = Memo(50_000)
"""The groups a card can start (:func:`_make_cores`), shared across searches and calls (Final: a
compiled module reads it without a lookup in its globals)."""
_POINTS: Final = CODE_POINTS
"""Points of a card by code (this module's own name for it: read without a global lookup)."""


def _code(suit: int, position: int) -> int:
    return suit * 13 + (0 if position == 14 else position - 1)


def position(code: int, low: int) -> int:
    """Place of a card in a run starting at ``low``: the ace high when the run cannot hold it
    low."""
    rank = code % 13 + 1
    if rank == 1 and low > 1:
        return 14
    return rank


_SINGLES: Final = tuple(Group(RUN, (c,), 2, 3, position(c, 1)) for c in range(JOKER_CODE))
"""A loose card as a run of one card (two draws from a run), by code: the leaves' extra plans."""


class _Moves:
    """The moves of a node of the walk, in the order they are tried (:meth:`_Search._moves`)."""

    def __init__(self, groups: tuple[Group, ...], order: list[int]) -> None:
        self.groups = groups
        self.order = order


class HandMemo:
    """What the searches of one hand work out about its unplaced cards (a hint makes two for a
    hand with a card to throw, and they share most of their states), keyed by those cards as
    counts in the hand's own places: two bits for each code the hand holds, a small int.
    ``least``: the lower bounds of :meth:`_Search._least`; ``moves``: the moves of the nodes of
    the walks, half to two thirds of which come back with the same cards unplaced. ``codes``: every
    card the searches may see; their wild cards and profile are one hint's.

    The lower bounds were memoised across hands, on all 52 codes and the wild cards (a big int):
    on the bench's fresh hands that memo answered at most 3 lookups in 100 that this one does
    not, and cost more in keys and inserts than the misses it saved, besides its memory."""

    def __init__(self, codes: Sequence[int]) -> None:
        self.shift = [-1] * (JOKER_CODE + 1)
        for place, code in enumerate(sorted({c for c in codes if c != JOKER_CODE})):
            self.shift[code] = 2 * place
        self.least: dict[int, int] = {}
        self.moves: dict[int, _Moves] = {}
        """A node's moves by its unplaced cards (the same key)."""


class _Search:
    """Branch and bound over the plans of the cards outside the solver's melds."""

    def __init__(
        self,
        codes: Sequence[int],
        fixed: Sequence[Group],
        wilds: Wilds,
        profile: Profile,
        discard_mode: bool,
        memo: HandMemo,
    ) -> None:
        # Bit c set: the code c is wild (the printed joker's too).
        self.wild = sum([1 << c for c in wilds.codes])
        self.rules = Rules(profile)
        self.triples = profile.identical_triple_pure
        self.discard_mode = discard_mode
        self.codes = sorted(codes)
        # The unplaced cards, two bits a code in two words (see _SPLIT).
        self.first_word = 0
        self.second_word = 0
        # And the same cards in the hand's own places (the key of ``memo``).
        self.memo = memo
        self.shift = memo.shift
        self.local = 0
        self.pool: list[int] = []
        for code in codes:
            if code == JOKER_CODE:
                self.pool.append(code)
            else:
                self._put_back(code)
        # The codes held, lowest first, then JOKER_CODE, which counts as always unplaced: the
        # end of every walk through ``order`` by index (never a scan of all 52 codes).
        self.order = sorted({*codes, JOKER_CODE})
        # Wild cards not yet placed: each may still join the joker pool (for the bound).
        self.wild_left = len([c for c in codes if self._is_wild(c) and c != JOKER_CODE])
        # Natural cards loose or unplaced, by points (what a plan's loose cards may be).
        self.free = [0] * 11
        for c in codes:
            if not self._is_wild(c):
                self.free[_POINTS[c]] += 1
        self.fixed = tuple(fixed)
        self.cores: list[Group] = []
        self.loose: list[int] = []
        self.gaps = 0
        self.steps = 0
        self.best = Plan()

    def run(self) -> Plan:
        self._walk(0, self._least(0))
        return self.best

    def seed_loose(self, *, force: bool = False) -> None:
        """Start from the plan that leaves every card loose (wild cards in the pool): one with
        no groups to keep, as the search from scratch has, always fits in the hand."""
        start = self.pool
        self.loose = [c for c in self.codes if not self._is_wild(c)]
        self.pool = [c for c in self.codes if self._is_wild(c)]
        self._leaf(force=force)
        self.loose, self.pool = [], start

    def seed(self, plan: Plan, drop: int) -> None:
        """Start from ``plan`` (of these cards and ``drop``, around the same melds of the
        solver) less the card ``drop``, when it is one: a hand of ``hand_size + 1`` cards lays
        out the cards it keeps after its discard, whose best plan is nearly always the plan
        that chose the discard, so the search begins with its bound already tight."""
        if sorted(g.codes for g in plan.groups if g.kind == FIXED) != sorted(
            g.codes for g in self.fixed
        ):
            return
        ours = [g for g in plan.groups if g.kind != FIXED and len(g.codes) > 1]
        # Runs of one card are loose cards the leaf turned into runs: they are loose again.
        loose = [*plan.loose, *[g.codes[0] for g in plan.groups if len(g.codes) == 1]]
        pool = list(plan.pool)
        if drop in loose:
            loose.remove(drop)
        elif drop in pool:
            pool.remove(drop)
        else:
            return
        held = sorted([*[x for g in ours for x in g.codes], *loose, *pool])
        if held != self.codes:
            return
        start = self.pool
        self.cores, self.loose, self.pool = ours, loose, pool
        self._leaf()
        self.cores, self.loose, self.pool = [], [], start

    # --- the unplaced cards -------------------------------------------------------------------

    def _is_wild(self, c: int) -> bool:
        return bool(self.wild >> c & 1)

    def _next(self, start: int) -> int:
        """The index in ``order`` of the lowest unplaced card from ``start`` on."""
        order = self.order
        shift = self.shift
        local = self.local
        i = start
        while True:
            c = order[i]
            if c == JOKER_CODE or local >> shift[c] & 3:
                return i
            i += 1

    def _take_out(self, c: int) -> None:
        if c < _SPLIT:
            self.first_word -= 1 << _SHIFT[c]
        else:
            self.second_word -= 1 << _SHIFT[c]
        self.local -= 1 << self.shift[c]

    def _put_back(self, c: int) -> None:
        if c < _SPLIT:
            self.first_word += 1 << _SHIFT[c]
        else:
            self.second_word += 1 << _SHIFT[c]
        self.local += 1 << self.shift[c]

    def _local_bits(self, group: Group) -> int:
        """What taking the other cards of ``group`` subtracts from ``local``."""
        bits = 0
        for x in group.others:
            bits += 1 << self.shift[x]
        return bits

    # --- the walk ---------------------------------------------------------------------------

    def _beaten(self, best: tuple[int, int, int], least: int) -> bool:
        """Whether no plan below this node beats the key ``best``.

        At a leaf with loose cards L (the card thrown now aside), k of them turned into runs of
        one card and raw gaps R in all its groups, the jokers J fill at most J gaps, so the gaps
        left are at least R + 2k - J and may not exceed the count L - k: hence
        3 * count >= 2L + R - J. Every unplaced natural card adds at least 2 to 2L + R if loose,
        at least 1 per card in a group of two, maybe 0 in a bigger group; ``least`` is the
        exact least the unplaced cards add (jokers aside, :meth:`_least`)."""
        best_count, best_gaps, best_points = best
        jokers = len(self.pool) + self.wild_left
        gaps = max(0, self.gaps - jokers)
        weight = 2 * len(self.loose) + self.gaps + least - jokers
        if self.discard_mode:
            weight -= 2
        count = max(-(-weight // 3), gaps)  # (gaps >= 0)
        if count != best_count:
            return count > best_count
        # A plan of exactly that count turns k = L - count cards into runs of one: its gaps are
        # at least R + 2k - J = weight - 2 * count.
        gaps = max(gaps, weight - 2 * count)
        if gaps != best_gaps:
            return gaps > best_gaps
        # Its loose cards are the cheapest of L, which holds only cards loose now or unplaced.
        left = count + 1 if self.discard_mode and count else count
        points = 0
        free = self.free
        for value in range(len(free)):
            if left <= 0:
                break
            n = min(left, free[value])
            points += n * value
            left -= n
        return points >= best_points

    def _least(self, start: int) -> int:
        """The least 2 * loose + gaps the unplaced cards (all at ``order[start]`` or above) add,
        wild cards free (they may join the pool). Memoised for the hand (:class:`HandMemo`) on
        the unplaced cards: the wild cards and the profile's tunnelas, all else it reads, are
        the hand's."""
        local = self.local
        known = self.memo.least.get(local)
        if known is not None:
            return known
        i = self._next(start)
        c = self.order[i]
        if c == JOKER_CODE:
            return 0
        self._take_out(c)
        best = (0 if self._is_wild(c) else 2) + self._least(i)
        if best:
            for group in self._cores(c):
                if group.gaps >= best:
                    continue
                bits = self._local_bits(group)
                self.first_word -= group.first_word
                self.second_word -= group.second_word
                self.local -= bits
                best = min(best, group.gaps + self._least(i))
                self.first_word += group.first_word
                self.second_word += group.second_word
                self.local += bits
                if not best:
                    break
        self._put_back(c)
        self.memo.least[local] = best
        return best

    def _walk(self, start: int, least: int) -> None:
        """The plans of the unplaced cards (from ``order[start]`` on), whose :meth:`_least` is
        ``least`` (the parent worked it out to order its moves)."""
        self.steps += 1
        if self.steps > SEARCH_BUDGET and (
            self.best.key is not None or self.steps > 4 * SEARCH_BUDGET
        ):
            return  # out of budget (with no plan yet, find_plan falls back on one from scratch)
        i = self._next(start)
        c = self.order[i]
        best_key = self.best.key
        if best_key is not None and self._beaten(best_key, least):
            return
        if c == JOKER_CODE:
            self._leaf()
            return
        is_wild = self._is_wild(c)
        # The moves depend on the unplaced cards alone, and half to two thirds of the nodes of a
        # hand's searches have unplaced cards an earlier node had (other groups, the same left).
        node = self.local
        found = self.memo.moves.get(node)
        self._take(c)
        if found is None:
            groups = self._cores(c)
            moves = self._moves(i, groups, is_wild)
            self.memo.moves[node] = _Moves(groups, moves)
        else:
            groups, moves = found.groups, found.order
        alone = len(groups)
        for move in moves:
            n = move & 63
            if n == alone:
                if is_wild:
                    # A wild card in the pool fills a gap anywhere; loose it would only be worse.
                    self.pool.append(c)
                    self._walk(i, move >> 6)
                    self.pool.pop()
                else:
                    self.loose.append(c)
                    self.free[_POINTS[c]] += 1
                    self._walk(i, (move >> 6) - 2)
                    self.free[_POINTS[c]] -= 1
                    self.loose.pop()
                continue
            group = groups[n]
            for x in group.others:
                self._take(x)
            self.cores.append(group)
            self.gaps += group.gaps
            self._walk(i, (move >> 6) - group.gaps)
            self.gaps -= group.gaps
            self.cores.pop()
            for x in group.others:
                self._put(x)
        self._put(c)

    def _moves(self, i: int, groups: tuple[Group, ...], is_wild: bool) -> list[int]:
        """The moves of the card at ``order[i]`` (taken already), which starts ``groups``: each
        group, then the card alone (loose, or in the pool if wild), best first by what they add
        to the bound's weight and the least the cards left must add: good plans come early, so
        the bound bites from the start. Ties keep the fullest group first. Each move is one int,
        (that sum) << 6 | (its index in ``groups``, ``len(groups)`` for the card alone), so that
        a plain sort orders them (a card starts far fewer than 63 groups)."""
        moves: list[int] = []
        for n, group in enumerate(groups):
            # (Only the unplaced cards are read by _least.)
            bits = self._local_bits(group)
            self.first_word -= group.first_word
            self.second_word -= group.second_word
            self.local -= bits
            moves.append((group.gaps + self._least(i)) << 6 | n)
            self.first_word += group.first_word
            self.second_word += group.second_word
            self.local += bits
        moves.append(((0 if is_wild else 2) + self._least(i)) << 6 | len(groups))
        moves.sort()
        return moves

    def _take(self, x: int) -> None:
        """Place ``x``: the unplaced cards, and the wild or free ones, lose it."""
        self._take_out(x)
        if self.wild >> x & 1:
            self.wild_left -= 1
        else:
            self.free[_POINTS[x]] -= 1

    def _put(self, x: int) -> None:
        self._put_back(x)
        if self.wild >> x & 1:
            self.wild_left += 1
        else:
            self.free[_POINTS[x]] += 1

    def _cores(self, c: int) -> tuple[Group, ...]:
        """:func:`_make_cores` for the cards unplaced now, memoised across searches and calls
        on what it reads: the counts of ``c``'s suit and of its rank (never the wild cards)."""
        suit = c // 13
        rank = c % 13
        word = self.first_word if suit < 2 else self.second_word
        suit_counts = word >> 26 * (suit & 1) & _SUIT_MASK
        # The counts of c's rank in each suit (its two bits in each suit's field of the words).
        low, high = 2 * rank, 2 * rank + 26
        first, second = self.first_word, self.second_word
        rank_counts = (first >> low & 3) | (first >> high & 3) << 2
        rank_counts |= (second >> low & 3) << 4 | (second >> high & 3) << 6
        key = c | int(self.triples) << 6 | suit_counts << 7 | rank_counts << 33
        moves = _CORES.get(key, key)
        if moves is None:
            moves = _make_cores(c, suit_counts, rank_counts, self.triples)
            _CORES.put(key, key, moves)
        return moves

    # --- a finished plan ----------------------------------------------------------------------

    def _leaf(self, *, force: bool = False) -> None:
        """Judge the plan, and the same plan with its dearest loose cards as runs of one card
        each (a card two draws from a run is worth keeping when the hand has draws to spare)."""
        # The dearest first, then the highest code: one int each, sorted high to low.
        dearest = sorted([_POINTS[c] << 6 | c for c in self.loose])
        loose = [key & 63 for key in reversed(dearest)]
        base = (*self.fixed, *self.cores)
        for k in range(len(loose) + 1):
            groups = base + tuple([_SINGLES[c] for c in loose[:k]])
            left = loose[k:]
            gaps, spare, pure = _judge(groups, len(self.pool), self.rules)
            count = len(left)
            if self.discard_mode:
                if count:
                    count -= 1
                elif not spare:
                    break  # nothing to throw now
            if gaps > count:
                if force and k == 0:
                    count = gaps  # (a short hand: see find_plan)
                else:
                    break  # the finished melds would need more cards than the hand holds
            points = 0
            for c in left:
                points += _POINTS[c]
            key = (count, gaps, points)
            best = self.best.key
            if best is None or key < best:
                self.best = Plan(key, groups, tuple(sorted(left)), tuple(self.pool), pure)


def _make_cores(c: int, suit_counts: int, rank_counts: int, triples: bool) -> tuple[Group, ...]:
    """The groups the lowest card left can start (``c`` itself already taken from the counts),
    the fullest first (good plans early make the bound bite), each with the other cards it
    takes. ``suit_counts``: the copies unplaced of each card of c's suit, two bits a rank (the ace
    lowest); ``rank_counts``: those of c's rank, two bits a suit."""
    suit, rank = divmod(c, 13)
    rank += 1
    found: list[Group] = []
    # Runs: c at the low end of a window of positions, taking every card of the suit in it.
    starts = [(1, 1), (14, -1)] if rank == 1 else [(rank, 1)]
    for first, step in starts:
        held = [c]
        missing = 0
        pos = first
        while True:
            pos += step
            if not 1 <= pos <= 14:
                break
            if first == 1 and pos == 14:
                break  # A to A: the ace twice, longer than any hand needs
            code = _code(suit, pos)
            if not suit_counts >> 2 * (code % 13) & 3:
                missing += 1
                if missing > _MAX_GAPS:
                    break
                continue
            held.append(code)
            span = abs(pos - first) + 1
            gaps = span - len(held) + max(0, 3 - span)
            if gaps <= _MAX_GAPS:
                low = min(first, pos)
                # In run order: by position (each card of the window has its own), as one int.
                ordered = tuple([p & 63 for p in sorted([position(x, low) << 6 | x for x in held])])
                others = list(ordered)
                others.remove(c)
                found.append(Group(RUN, ordered, gaps, max(3, span), low, None, tuple(others)))
    # Sets: c with cards of its rank in other suits (only later suits are left).
    mates = [s * 13 + rank - 1 for s in range(suit + 1, 4) if rank_counts >> 2 * s & 3]
    for mask in range(1, 1 << len(mates)):
        members = tuple([mates[i] for i in range(len(mates)) if mask >> i & 1])
        n = len(members) + 1
        found.append(Group(SET, (c, *members), max(0, 3 - n), max(3, n), 0, None, members))
    if triples and rank_counts >> 2 * suit & 3 >= 2:
        found.append(Group(TUNNELA, (c, c, c), 0, 3, 0, None, (c, c)))
    # The fullest first, then the fewest missing (a stable sort: ties keep the order above).
    order = sorted([(g.gaps - len(g.codes)) << 16 | g.gaps << 8 | i for i, g in enumerate(found)])
    return tuple([found[key & 255] for key in order])


def judge(groups: Sequence[Group], jokers: int, profile: Profile) -> tuple[int, int, int]:
    """For a plan's groups and pool of ``jokers``: (cards still missing after the pool's jokers
    fill what they may, spare jokers, the groups kept pure as bits: bit i for ``groups[i]``), the
    declaration's requirement met by finishing them (new sequences from nothing where there are
    too few)."""
    return _judge(groups, jokers, Rules(profile))


def _judge(groups: Sequence[Group], jokers: int, rules: Rules) -> tuple[int, int, int]:
    # The pure sequences: the solver's pure ones first, then the runs missing fewest cards
    # (jokers cannot make them; drawn cards can). Sorted as ints: (not the solver's pure one,
    # the solver's, gaps, index), the index keeping the order of equals.
    runs = sorted(
        [
            (not (g.kind == FIXED and g.pure)) << 20 | (g.kind == FIXED) << 19 | g.gaps << 8 | i
            for i, g in enumerate(groups)
            if g.sequence
        ]
    )
    pure = 0
    chosen = 0
    missing = 0
    long = False
    for key in runs:
        group = groups[key & 255]
        if group.pure and chosen < rules.min_pure:
            pure |= 1 << (key & 255)
            chosen += 1
            missing += group.gaps
        long = long or group.size >= rules.long_sequence
    scratch_pure = rules.min_pure - chosen
    missing += 3 * scratch_pure
    sequences = len(runs) + scratch_pure
    scratch_other = max(0, rules.min_sequences - sequences)
    if rules.long_sequence and not long:
        missing += 1  # one sequence grows by a drawn card
    cap = rules.cap
    fill = 0
    other_missing = 0
    for i, g in enumerate(groups):
        if g.kind != TUNNELA and not pure >> i & 1:
            fill += g.gaps if cap < 0 else min(g.gaps, cap)
            other_missing += g.gaps
    # A sequence from nothing needs one natural card; the rest may be jokers.
    fill += scratch_other * (2 if cap < 0 else min(2, cap))
    other_missing += 3 * scratch_other
    used = min(jokers, fill)
    return missing + other_missing - used, jokers - used, pure


def find_plan(
    codes: list[int],
    best: Arrangement,
    wilds: Wilds,
    profile: Profile,
    *,
    discard_mode: bool,
    seed: tuple[Plan, int] | None = None,
    memo: HandMemo | None = None,
) -> Plan:
    """The plan closest to a declaration that keeps the solver's melds (``best``) as they are;
    from scratch if they leave the other cards no way to one. ``seed``: a plan of these cards
    and one more, and that card (see :meth:`_Search.seed`). ``memo``: the memo of this hand's
    searches, made for ``codes`` (or more) and the same wild cards and profile, if one is
    shared."""
    if memo is None:
        memo = HandMemo(codes)
    fixed = [
        Group(FIXED, tuple([card.code for card in group]), 0, len(group), 0, kind)
        for group, kind in zip(best.groups, best.kinds, strict=True)
    ]
    rest = [card.code for card in best.leftover]
    if best.discard is not None:
        rest.append(best.discard.code)
    search = _Search(rest, fixed, wilds, profile, discard_mode, memo)
    if seed is not None:
        search.seed(seed[0], seed[1])
    plan = search.run()
    if plan.key is None:
        search = _Search(codes, (), wilds, profile, discard_mode, memo)
        search.seed_loose()
        if seed is not None:
            search.seed(seed[0], seed[1])
        plan = search.run()
        if plan.key is None:
            # So few cards that even every card loose cannot hold the melds a declaration
            # needs (a 13-card hand always can): that plan anyway, its distance the cards missing.
            search.seed_loose(force=True)
            plan = search.best
    assert plan.key is not None
    return plan


__all__ = [
    "FIXED",
    "RUN",
    "SEARCH_BUDGET",
    "SET",
    "TUNNELA",
    "Group",
    "HandMemo",
    "Plan",
    "find_plan",
    "judge",
    "position",
]

"""Hints for a beginner: the best partial arrangement of a hand (docs/melds.md, "Hints").

``hint(hand, joker=..., profile=...)`` keeps the melds of the solver's best arrangement (so the
hint's groups score exactly the solver's penalty) and lays the other cards out as the plan that
is closest to a declaration: the melds they still make, *near* melds one card short (a run with
a gap or an open end, a pair towards a set), spare jokers and loose cards. It names the card to
throw, says why in plain words, and counts how many cards the hand is from a declaration. In
Marriage it also counts how far the hand is from each of the four winning shapes (``shapes``).

The plan is found by a branch-and-bound search over the cards outside the solver's melds, exact
within a step budget (:data:`SEARCH_BUDGET`, docs/solver.md "Hints"). Each natural card, lowest
first, is left loose, starts a set with cards of its rank, or starts a run that takes every card
of its suit in a window of positions; a wild card may also join the joker pool. A group may miss
at most two cards (a lone card is a run missing two). Pure, deterministic and typed; everything
is keyed by card codes, so the order of ``hand`` does not matter.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import partial
from typing import Final

from rummyhall.cards import CODE_POINTS, JOKER_CODE, Card, from_code, sort_key
from rummyhall.melds.arrangement import Arrangement
from rummyhall.melds.kinds import Kind, card_points, classify
from rummyhall.melds.profiles import Profile, Wilds, get_profile
from rummyhall.melds.solver import arrange


class Role(StrEnum):
    """What a group of a hint is for."""

    MELD = "meld"
    """A valid sequence, set or tunnela (its ``kind`` says which)."""
    NEAR_RUN = "near_run"
    """Cards of one suit one card short of a sequence (``needs`` lists the cards that finish it)."""
    NEAR_SET = "near_set"
    """Two cards of one rank in different suits: a pair, one card short of a set. In a Marriage
    declaration of dublees, also a dublee: two identical cards, one copy short of a tunnela."""
    JOKERS = "jokers"
    """Wild cards no group of the plan needs (vengala may show them apart at a declaration)."""
    LOOSE = "loose"
    """Cards that fit no group of the plan: the first to throw."""
    DISCARD = "discard"
    """The card to throw now (a hand with one card more than it keeps)."""


@dataclass(frozen=True, slots=True)
class HintGroup:
    """One group of a hint: its cards in the order to show them, what it is for (``role``),
    its kind as :func:`~rummyhall.melds.kinds.classify` judges it, the cards any one of which
    would finish it (near melds only) and a short label in plain words."""

    cards: list[Card]
    role: Role
    kind: Kind
    needs: list[Card]
    label: str


@dataclass(frozen=True, slots=True)
class ShapeDistance:
    """How far a hand is from one winning shape of a profile with dublees (Marriage).

    ``name`` is stable, for programs: ``sequences`` (the profile's pure sequences with every
    other card melded), ``tunnelas``, ``dublees``, ``jokers`` (wild cards in one group).
    ``cards`` is how many cards the hand still needs to show the shape, each drawn card replacing
    one the shape does not use (0: it shows the shape now). ``label`` names the shape in plain
    words ("3 tunnelas")."""

    name: str
    cards: int
    label: str


@dataclass(frozen=True, slots=True)
class Hint:
    """The best partial arrangement of a hand.

    ``groups`` hold every card of the hand exactly once, the discard (if any) alone in the last
    group. ``distance`` is how many cards the hand is from a declaration: the draws it still
    needs, each replacing a card that fits nowhere, if the right cards come (0: it can declare
    now). ``discard`` and ``reason`` name the card to throw and why (hands of ``hand_size + 1``
    cards only). ``penalty`` and ``declarable`` are the solver's; ``summary`` is one line for
    people. ``shapes``: for a profile with dublees (Marriage), how far the hand is from each
    winning shape, in a fixed order (see :func:`shape_distances`); empty for other profiles."""

    groups: list[HintGroup]
    distance: int
    declarable: bool
    penalty: int
    discard: Card | None
    reason: str | None
    summary: str
    shapes: list[ShapeDistance]


SEARCH_BUDGET: Final = 300
"""Steps (nodes of the walk) one plan search may take, so that a hint costs a bounded time (a few
milliseconds at worst) however the cards fall. Nearly every 13- or 14-card hand finishes well
within it (the bound and the move order find and prove the best plan in tens of steps); a
21-card Marriage hand may hit it, and then the best plan found so far is the answer (still a
plan, so ``distance`` is at worst an overestimate). Deterministic: the search always takes the
same steps."""

_MAX_GAPS: Final = 2
"""Most cards a group of the plan may miss: further starts help a beginner little."""

# A group of the plan while searching: (kind, natural codes in display order, missing cards,
# size once complete, first position for runs (else 0), fixed kind for the solver's melds).
# kind: "R" run, "S" set, "T" tunnela, "F" a meld of the solver's, kept as it is.
_Core = tuple[str, tuple[int, ...], int, int, int, Kind | None]
# The groups a card can start, each with the other cards it takes.
_Moves = tuple[tuple[_Core, tuple[int, ...]], ...]

_READS: Final = tuple(
    sum(3 << 2 * o for o in range(JOKER_CODE) if o // 13 == c // 13 or o % 13 == c % 13)
    for c in range(JOKER_CODE)
)
"""The bits of the unplaced cards (``_Search.state``) that the groups a card can start depend on:
its suit and its rank."""

_CORES: dict[tuple[int, int, bool], _Moves] = {}
_CORES_LIMIT: Final = 50_000
_LEAST: dict[int, int] = {}
_LEAST_LIMIT: Final = 200_000
_BIT: Final = tuple(1 << 2 * c for c in range(JOKER_CODE))


def _code(suit: int, position: int) -> int:
    return suit * 13 + (0 if position == 14 else position - 1)


def _pretty(code: int) -> str:
    return from_code(code).pretty


@dataclass(slots=True)
class _Plan:
    """The best plan so far: its key (distance, missing cards, loose points) and its parts."""

    key: tuple[int, int, int] | None = None
    cores: tuple[_Core, ...] = ()
    loose: tuple[int, ...] = ()
    pool: tuple[int, ...] = ()
    pure: frozenset[int] = frozenset()


class _Search:
    """Branch and bound over the plans of the cards outside the solver's melds."""

    def __init__(
        self,
        codes: Sequence[int],
        fixed: Sequence[_Core],
        wilds: Wilds,
        profile: Profile,
        discard_mode: bool,
    ) -> None:
        self.wild = wilds.codes
        self.profile = profile
        self.triples = profile.identical_triple_pure
        self.discard_mode = discard_mode
        self.codes = sorted(codes)
        # counts[JOKER_CODE] stays 1: the end of ``order``, the codes held lowest first, which
        # the walks step through by index (never a scan of all 52 codes).
        self.counts = [0] * (JOKER_CODE + 1)
        self.counts[JOKER_CODE] = 1
        self.pool: list[int] = []
        for code in codes:
            if code == JOKER_CODE:
                self.pool.append(code)
            else:
                self.counts[code] += 1
        self.order = [c for c in range(JOKER_CODE + 1) if self.counts[c]]
        # Wild cards not yet placed: each may still join the joker pool (for the bound).
        self.wild_left = sum(self.counts[c] for c in self.wild if c != JOKER_CODE)
        # The unplaced cards as one int, two bits a code (at most three copies of a card): the
        # key of the lower bounds in ``self.least``.
        self.state = sum(n << 2 * c for c, n in enumerate(self.counts[:JOKER_CODE]))
        # Told apart in the shared memo of :meth:`_least` by the wild cards and the tunnelas.
        wild_bits = sum(1 << c for c in self.wild if c < JOKER_CODE)
        self.salt = (wild_bits << 2 * JOKER_CODE) | (int(self.triples) << 3 * JOKER_CODE + 1)
        # Natural cards loose or unplaced, by points (what a plan's loose cards may be).
        self.free = [0] * 11
        for c in range(JOKER_CODE):
            if c not in self.wild:
                self.free[CODE_POINTS[c]] += self.counts[c]
        self.fixed = tuple(fixed)
        self.cores: list[_Core] = []
        self.loose: list[int] = []
        self.gaps = 0
        self.steps = 0
        self.best = _Plan()

    def run(self) -> _Plan:
        self._walk(0)
        return self.best

    def seed_loose(self, *, force: bool = False) -> None:
        """Start from the plan that leaves every card loose (wild cards in the pool): one with
        no groups to keep, as the search from scratch has, always fits in the hand."""
        start = self.pool
        self.loose = [c for c in self.codes if c not in self.wild]
        self.pool = [c for c in self.codes if c in self.wild]
        self._leaf(force=force)
        self.loose, self.pool = [], start

    def seed(self, plan: _Plan, drop: int) -> None:
        """Start from ``plan`` (of these cards and ``drop``, around the same melds of the
        solver) less the card ``drop``, when it is one: a hand of ``hand_size + 1`` cards lays
        out the cards it keeps after its discard, whose best plan is nearly always the plan
        that chose the discard, so the search begins with its bound already tight."""
        if sorted(core[1] for core in plan.cores if core[0] == "F") != sorted(
            core[1] for core in self.fixed
        ):
            return
        ours = [core for core in plan.cores if core[0] != "F" and len(core[1]) > 1]
        # Runs of one card are loose cards the leaf turned into runs: they are loose again.
        loose = [*plan.loose, *(core[1][0] for core in plan.cores if len(core[1]) == 1)]
        pool = list(plan.pool)
        if drop in loose:
            loose.remove(drop)
        elif drop in pool:
            pool.remove(drop)
        else:
            return
        held = sorted([*(x for core in ours for x in core[1]), *loose, *pool])
        if held != self.codes:
            return
        start = self.pool
        self.cores, self.loose, self.pool = ours, loose, pool
        self._leaf()
        self.cores, self.loose, self.pool = [], [], start

    # --- the walk ---------------------------------------------------------------------------

    def _beaten(self, best: tuple[int, int, int], start: int) -> bool:
        """Whether no plan below this node beats the key ``best``.

        At a leaf with loose cards L (the card thrown now aside), k of them turned into runs of
        one card and raw gaps R in all its groups, the jokers J fill at most J gaps, so the gaps
        left are at least R + 2k - J and may not exceed the count L - k: hence
        3 * count >= 2L + R - J. Every unplaced natural card adds at least 2 to 2L + R if loose,
        at least 1 per card in a group of two, maybe 0 in a bigger group; :meth:`_least` is the
        exact least the unplaced cards add (jokers aside), memoised on the unplaced cards."""
        jokers = len(self.pool) + self.wild_left
        gaps = max(0, self.gaps - jokers)
        weight = 2 * len(self.loose) + self.gaps + self._least(start) - jokers
        if self.discard_mode:
            weight -= 2
        count = max(-(-weight // 3), gaps, 0)
        if count != best[0]:
            return count > best[0]
        # A plan of exactly that count turns k = L - count cards into runs of one: its gaps are
        # at least R + 2k - J = weight - 2 * count.
        gaps = max(gaps, weight - 2 * count)
        if gaps != best[1]:
            return gaps > best[1]
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
        return points >= best[2]

    def _least(self, start: int) -> int:
        """The least 2 * loose + gaps the unplaced cards (all at ``order[start]`` or above) add,
        wild cards free (they may join the pool). Memoised across searches and calls on the
        unplaced cards, the wild cards and the profile's tunnelas (all that it reads)."""
        state = self.state
        key = state | self.salt
        known = _LEAST.get(key)
        if known is not None:
            return known
        counts = self.counts
        order = self.order
        i = start
        while not counts[order[i]]:
            i += 1
        c = order[i]
        if c == JOKER_CODE:
            return 0
        counts[c] -= 1
        self.state = state - _BIT[c]
        best = (0 if c in self.wild else 2) + self._least(i)
        if best:
            for core, taken in self._cores(c):
                if core[2] >= best:
                    continue
                for x in taken:
                    counts[x] -= 1
                    self.state -= _BIT[x]
                best = min(best, core[2] + self._least(i))
                for x in taken:
                    counts[x] += 1
                    self.state += _BIT[x]
                if not best:
                    break
        counts[c] += 1
        self.state = state
        if len(_LEAST) >= _LEAST_LIMIT:
            _LEAST.clear()
        _LEAST[key] = best
        return best

    def _walk(self, start: int) -> None:
        self.steps += 1
        if self.steps > SEARCH_BUDGET and (
            self.best.key is not None or self.steps > 4 * SEARCH_BUDGET
        ):
            return  # out of budget (with no plan yet, _plan falls back on one from scratch)
        counts = self.counts
        order = self.order
        i = start
        while not counts[order[i]]:
            i += 1
        c = order[i]
        if self.best.key is not None and self._beaten(self.best.key, i):
            return
        if c == JOKER_CODE:
            self._leaf()
            return
        is_wild = c in self.wild
        self._take(c)
        # The groups c can start, and c alone (loose, or in the pool if wild), best first by
        # what they add to the bound's weight and the least the cards left must add: good plans
        # come early, so the bound bites from the start. Ties keep the fullest group first.
        moves: list[tuple[int, int, _Core | None, tuple[int, ...]]] = []
        for n, (core, taken) in enumerate(self._cores(c)):
            # (Only the counts and the state are read by _least.)
            for x in taken:
                counts[x] -= 1
                self.state -= _BIT[x]
            moves.append((core[2] + self._least(i), n, core, taken))
            for x in taken:
                counts[x] += 1
                self.state += _BIT[x]
        moves.append(((0 if is_wild else 2) + self._least(i), len(moves), None, ()))
        moves.sort()
        for _, _, group, taken in moves:
            if group is None:
                if is_wild:
                    # A wild card in the pool fills a gap anywhere; loose it would only be worse.
                    self.pool.append(c)
                    self._walk(i)
                    self.pool.pop()
                else:
                    self.loose.append(c)
                    self.free[CODE_POINTS[c]] += 1
                    self._walk(i)
                    self.free[CODE_POINTS[c]] -= 1
                    self.loose.pop()
                continue
            for x in taken:
                self._take(x)
            self.cores.append(group)
            self.gaps += group[2]
            self._walk(i)
            self.gaps -= group[2]
            self.cores.pop()
            for x in taken:
                self._put(x)
        self._put(c)

    def _take(self, x: int) -> None:
        self.counts[x] -= 1
        self.state -= _BIT[x]
        if x in self.wild:
            self.wild_left -= 1
        else:
            self.free[CODE_POINTS[x]] -= 1

    def _put(self, x: int) -> None:
        self.counts[x] += 1
        self.state += _BIT[x]
        if x in self.wild:
            self.wild_left += 1
        else:
            self.free[CODE_POINTS[x]] += 1

    def _cores(self, c: int) -> _Moves:
        """:func:`_make_cores` for the cards unplaced now, memoised across searches and calls
        on what it reads: the counts of ``c``'s suit and of its rank (never the wild cards)."""
        key = (c, self.state & _READS[c], self.triples)
        moves = _CORES.get(key)
        if moves is None:
            if len(_CORES) >= _CORES_LIMIT:
                _CORES.clear()
            moves = _CORES[key] = _make_cores(c, self.counts, self.triples)
        return moves

    # --- a finished plan ----------------------------------------------------------------------

    def _leaf(self, *, force: bool = False) -> None:
        """Judge the plan, and the same plan with its dearest loose cards as runs of one card
        each (a card two draws from a run is worth keeping when the hand has draws to spare)."""
        loose = sorted(self.loose, key=lambda c: (-CODE_POINTS[c], -c))
        base = (*self.fixed, *self.cores)
        for k in range(len(loose) + 1):
            singles = tuple(("R", (c,), 2, 3, _position(c, 1), None) for c in loose[:k])
            cores = base + singles
            left = loose[k:]
            judged = _judge(cores, len(self.pool), self.profile)
            gaps, spare, pure = judged
            count = len(left)
            if self.discard_mode:
                if count:
                    count -= 1
                elif not spare:
                    break  # nothing to throw now
            if gaps > count:
                if force and k == 0:
                    count = gaps  # (a short hand: see _plan)
                else:
                    break  # the finished melds would need more cards than the hand holds
            key = (count, gaps, sum(CODE_POINTS[c] for c in left))
            if self.best.key is None or key < self.best.key:
                self.best = _Plan(key, cores, tuple(sorted(left)), tuple(self.pool), pure)


def _make_cores(c: int, counts: Sequence[int], triples: bool) -> _Moves:
    """The groups the lowest card left can start (``c`` itself already taken from ``counts``),
    the fullest first (good plans early make the bound bite), each with the other cards it
    takes."""
    suit, rank = divmod(c, 13)
    rank += 1
    found: list[_Core] = []
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
            if not counts[code]:
                missing += 1
                if missing > _MAX_GAPS:
                    break
                continue
            held.append(code)
            span = abs(pos - first) + 1
            gaps = span - len(held) + max(0, 3 - span)
            if gaps <= _MAX_GAPS:
                low = min(first, pos)
                ordered = tuple(sorted(held, key=partial(_position, low=low)))
                found.append(("R", ordered, gaps, max(3, span), low, None))
    # Sets: c with cards of its rank in other suits (only later suits are left).
    others = [s * 13 + rank - 1 for s in range(suit + 1, 4) if counts[s * 13 + rank - 1]]
    for mask in range(1, 1 << len(others)):
        members = (c, *(others[i] for i in range(len(others)) if mask >> i & 1))
        n = len(members)
        found.append(("S", members, max(0, 3 - n), max(3, n), 0, None))
    if triples and counts[c] >= 2:
        found.append(("T", (c, c, c), 0, 3, 0, None))
    found.sort(key=lambda core: (core[2] - len(core[1]), core[2]))
    # c is taken already; a run lists its cards in order, c among them.
    return tuple(
        (core, _without_one(core[1], c) if core[0] == "R" else core[1][1:]) for core in found
    )


def _without_one(codes: tuple[int, ...], c: int) -> tuple[int, ...]:
    out = list(codes)
    out.remove(c)
    return tuple(out)


def _position(code: int, low: int) -> int:
    """Place of a card in a run starting at ``low``: the ace high when the run cannot hold it
    low."""
    rank = code % 13 + 1
    if rank == 1 and low > 1:
        return 14
    return rank


def _judge(
    cores: Sequence[_Core], jokers: int, profile: Profile
) -> tuple[int, int, frozenset[int]]:
    """For a plan's groups and pool: (cards still missing after the pool's jokers fill what they
    may, spare jokers, indices of the groups kept pure), the declaration's requirement met by
    finishing them (new sequences from nothing where there are too few)."""
    runs = [i for i, core in enumerate(cores) if core[0] in "RT" or _fixed_seq(core)]
    # The pure sequences: the solver's pure ones first, then the runs missing fewest cards
    # (jokers cannot make them; drawn cards can).
    runs.sort(key=lambda i: (not _fixed_pure(cores[i]), cores[i][0] == "F", cores[i][2]))
    candidates = [i for i in runs if cores[i][0] in "RT" or _fixed_pure(cores[i])]
    pure = frozenset(candidates[: profile.min_pure_sequences])
    missing = sum(cores[i][2] for i in pure)
    scratch_pure = profile.min_pure_sequences - len(pure)
    missing += 3 * scratch_pure
    sequences = len(runs) + scratch_pure
    scratch_other = max(0, profile.min_sequences - sequences)
    if profile.long_sequence is not None:
        sizes = [cores[i][3] for i in runs]
        if not any(size >= profile.long_sequence for size in sizes):
            missing += 1  # one sequence grows by a drawn card
    cap = profile.max_jokers_per_meld
    others = [cores[i][2] for i in range(len(cores)) if i not in pure and cores[i][0] != "T"]
    fill = sum(g if cap is None else min(g, cap) for g in others)
    # A sequence from nothing needs one natural card; the rest may be jokers.
    fill += scratch_other * (2 if cap is None else min(2, cap))
    other_missing = sum(others) + 3 * scratch_other
    used = min(jokers, fill)
    return missing + other_missing - used, jokers - used, pure


def _fixed_seq(core: _Core) -> bool:
    return core[5] is not None and core[5].is_sequence


def _fixed_pure(core: _Core) -> bool:
    return core[5] is not None and core[5].is_pure


# --- the hint ------------------------------------------------------------------------------------

_KIND_LABEL: Final = {
    Kind.PURE_SEQUENCE: "Pure sequence",
    Kind.IMPURE_SEQUENCE: "Impure sequence",
    Kind.SET: "Set",
    Kind.TUNNELA: "Tunnela",
    Kind.DUBLEE: "Dublee",
    Kind.JOKERS: "Jokers",
    Kind.INVALID: "Loose",
}


def hint(hand: Sequence[Card], *, joker: Card, profile: Profile | str) -> Hint:
    """The best partial arrangement of ``hand`` with ``joker`` as the cut card (see
    :class:`Hint` and docs/melds.md)."""
    prof = get_profile(profile)
    wilds = Wilds.of(joker, prof)
    best = arrange(hand, joker=joker, profile=prof)
    discard_mode = len(hand) == prof.hand_size + 1
    if best.declarable:
        shapes: list[ShapeDistance] = []
        if prof.dublees:
            sequences = 0
            if not _standard(best):
                # Declarable through a special shape only: how far the sequences are is the
                # distance of the same hand judged without those shapes.
                sequences = hint(hand, joker=joker, profile=_without_shapes(prof)).distance
            shapes = shape_distances(hand, wilds, prof, sequences)
        return _declared(best, wilds, prof, shapes)
    pool = _CardPool(hand)
    codes = [card.code for card in hand]
    discard_code: int | None = None
    if discard_mode:
        # Choose the card to throw from the plan of all the cards; then lay out the cards kept
        # around their own best melds, so that the groups shown score the least they can.
        first = _plan(codes, best, wilds, prof, discard_mode=True)
        discard_code = _lay_out(first, wilds, prof, True, hand)[2]
        assert discard_code is not None
        codes.remove(discard_code)
        if best.discard is not None and best.discard.code == discard_code:
            # The solver threw the same card: its groups are already the best of the cards kept.
            best_kept = Arrangement(best.groups, best.leftover, best.penalty, False, best.kinds)
        else:
            best_kept = arrange([from_code(c) for c in codes], joker=joker, profile=prof)
        plan = _plan(codes, best_kept, wilds, prof, discard_mode=False, seed=(first, discard_code))
    else:
        plan = _plan(codes, best, wilds, prof, discard_mode=False)
    assert plan.key is not None
    groups, loose, _ = _lay_out(plan, wilds, prof, False, hand)

    out: list[HintGroup] = []
    for codes_, role, needs, label in groups:
        cards = [pool.take(code) for code in codes_]
        kind = classify([c.code for c in cards], wilds, prof)
        out.append(HintGroup(cards, role, kind, [from_code(n) for n in needs], label))
    if loose:
        cards = sorted((pool.take(code) for code in loose), key=sort_key)
        kind = classify([c.code for c in cards], wilds, prof)
        out.append(HintGroup(cards, Role.LOOSE, kind, [], "Loose"))
    discard: Card | None = None
    reason: str | None = None
    if discard_code is not None:
        discard = pool.take(discard_code)
        kind = classify([discard.code], wilds, prof)
        out.append(HintGroup([discard], Role.DISCARD, kind, [], "Discard"))
        reason = _reason(discard_code, hand, wilds)
    distance = max(1, plan.key[0])  # not declarable: at least one card away
    return Hint(
        groups=out,
        distance=distance,
        declarable=False,
        penalty=best.penalty,
        discard=discard,
        reason=reason,
        summary=_summary(distance, discard, reason, [n for g in out for n in g.needs]),
        shapes=shape_distances(hand, wilds, prof, distance) if prof.dublees else [],
    )


def shape_distances(
    hand: Sequence[Card], wilds: Wilds, profile: Profile, sequences: int
) -> list[ShapeDistance]:
    """How far ``hand`` is from each winning shape of ``profile`` (one with dublees), in this
    order: its pure sequences with the rest melded (``sequences``: the hint's distance, passed
    in), tunnelas, dublees, wild cards in one group (each only when the profile has it).

    The special shapes are counted from the cards held alone, as :func:`~.kinds.classify` groups
    them: a tunnela is three identical cards and a dublee two (printed jokers too, where three of
    them are a tunnela; a wild card never stands in for a copy), the joker group any wild cards.

    * tunnelas: the copies missing from the cards held most often, as many of them as the shape
      needs (a card not held at all is three copies away);
    * dublees: a card held two or three times is one dublee (a third copy makes no second); each
      dublee missing takes one draw for a card held once, two for a card not held;
    * jokers: the wild cards missing.

    The shapes use at most 16 of the hand's cards, so the cards they do not use always leave
    room for the draws; in a hand of ``hand_size + 1`` the card thrown now is one of those."""
    counts = Counter(card.code for card in hand)
    out: list[ShapeDistance] = [
        ShapeDistance("sequences", sequences, f"{profile.min_pure_sequences} pure sequences")
    ]
    if profile.win_tunnelas:
        jokers = profile.printed_joker_tunnela
        held = sorted(
            (n for code, n in counts.items() if code != JOKER_CODE or jokers), reverse=True
        )[: profile.win_tunnelas]
        held += [0] * (profile.win_tunnelas - len(held))
        missing = sum(3 - min(n, 3) for n in held)
        out.append(ShapeDistance("tunnelas", missing, f"{profile.win_tunnelas} tunnelas"))
    if profile.win_dublees:
        pairs = sum(1 for n in counts.values() if n >= 2)
        singles = sum(1 for n in counts.values() if n == 1)
        wanted = max(0, profile.win_dublees - pairs)
        missing = min(wanted, singles) + 2 * max(0, wanted - singles)
        out.append(ShapeDistance("dublees", missing, f"{profile.win_dublees} dublees"))
    if profile.win_jokers:
        wild = sum(n for code, n in counts.items() if code in wilds.codes)
        missing = max(0, profile.win_jokers - wild)
        out.append(ShapeDistance("jokers", missing, f"{profile.win_jokers} jokers"))
    return out


def _standard(best: Arrangement) -> bool:
    """Whether a declarable arrangement is the ordinary declaration (every card in a meld, the
    discard aside): the solver shows a special shape only when the hand has no ordinary one, and
    a special shape leaves cards over."""
    return not best.leftover and all(kind.is_meld for kind in best.kinds)


def _without_shapes(profile: Profile) -> Profile:
    """``profile`` without its special winning shapes, under a name of its own (the solver's
    caches are keyed by the profile's name)."""
    return replace(profile, name=f"{profile.name} (sequences only)", dublees=False)


def _plan(
    codes: list[int],
    best: Arrangement,
    wilds: Wilds,
    profile: Profile,
    *,
    discard_mode: bool,
    seed: tuple[_Plan, int] | None = None,
) -> _Plan:
    """The plan closest to a declaration that keeps the solver's melds (``best``) as they are;
    from scratch if they leave the other cards no way to one. ``seed``: a plan of these cards
    and one more, and that card (see :meth:`_Search.seed`)."""
    fixed: list[_Core] = [
        ("F", tuple(card.code for card in group), 0, len(group), 0, kind)
        for group, kind in zip(best.groups, best.kinds, strict=True)
    ]
    rest = [card.code for card in best.leftover]
    if best.discard is not None:
        rest.append(best.discard.code)
    search = _Search(rest, fixed, wilds, profile, discard_mode)
    if seed is not None:
        search.seed(*seed)
    plan = search.run()
    if plan.key is None:
        search = _Search(codes, (), wilds, profile, discard_mode)
        search.seed_loose()
        if seed is not None:
            search.seed(*seed)
        plan = search.run()
        if plan.key is None:
            # So few cards that even every card loose cannot hold the melds a declaration
            # needs (a 13-card hand always can): that plan anyway, its distance the cards missing.
            search.seed_loose(force=True)
            plan = search.best
    assert plan.key is not None
    return plan


class _CardPool:
    """Hands the caller's own physical cards back by code."""

    def __init__(self, hand: Sequence[Card]) -> None:
        self.cards: dict[int, list[Card]] = {}
        for card in hand:
            self.cards.setdefault(card.code, []).append(card)

    def take(self, code: int) -> Card:
        return self.cards[code].pop()


def _declared(
    best: Arrangement, wilds: Wilds, profile: Profile, shapes: list[ShapeDistance]
) -> Hint:
    """A hand that can declare: the solver's declaration, anything left over apart (vengala's
    spare jokers, the rest of a Marriage shape), the discard last."""
    out = [
        HintGroup(
            list(group),
            _declared_role(kind),
            kind,
            # A near group names what finishes it: a dublee's third copy makes a tunnela.
            [group[0]] if kind is Kind.DUBLEE else [],
            _KIND_LABEL[kind],
        )
        for group, kind in zip(best.groups, best.kinds, strict=True)
    ]
    if best.leftover:
        cards = sorted(best.leftover, key=sort_key)
        kind = classify([card.code for card in cards], wilds, profile)
        if all(card.code in wilds.codes for card in cards):
            out.append(HintGroup(cards, Role.JOKERS, kind, [], "Jokers (spare)"))
        else:
            out.append(HintGroup(cards, Role.LOOSE, kind, [], "Loose"))
    discard = best.discard
    reason = None
    if discard is not None:
        kind = classify([discard.code], wilds, profile)
        out.append(HintGroup([discard], Role.DISCARD, kind, [], "Discard"))
        reason = f"every other card has its place: declare with the {discard.pretty}"
    return Hint(
        groups=out,
        distance=0,
        declarable=True,
        penalty=best.penalty,
        discard=discard,
        reason=reason,
        summary=_summary(0, discard, reason, []),
        shapes=shapes,
    )


def _declared_role(kind: Kind) -> Role:
    if kind.is_meld:
        return Role.MELD
    if kind is Kind.JOKERS:
        return Role.JOKERS
    return Role.NEAR_SET if kind is Kind.DUBLEE else Role.LOOSE


# (codes in display order, role, codes that finish it, label)
_Laid = tuple[tuple[int, ...], Role, tuple[int, ...], str]


def _lay_out(
    plan: _Plan, wilds: Wilds, profile: Profile, discard_mode: bool, hand: Sequence[Card]
) -> tuple[list[_Laid], list[int], int | None]:
    """The plan as groups: jokers fill the gaps of the groups closest to done (melds first),
    groups then missing one card are near melds, the others' cards loose. Returns the groups,
    the loose cards and the discard."""
    cap = profile.max_jokers_per_meld
    jokers = sorted(plan.pool)
    order = sorted(
        range(len(plan.cores)), key=lambda i: (plan.cores[i][2], plan.cores[i][0] != "F")
    )
    laid: list[tuple[int, _Laid]] = []
    loose = list(plan.loose)
    for i in order:
        kind, codes, gaps, _, low, fixed = plan.cores[i]
        if fixed is not None:
            laid.append((_rank_of(fixed), (codes, Role.MELD, (), _KIND_LABEL[fixed])))
            continue
        fill: list[int] = []
        if i not in plan.pure and kind != "T":
            room = gaps if cap is None else min(gaps, cap)
            take = min(room, len(jokers))
            fill, jokers = jokers[:take], jokers[take:]
        left = gaps - len(fill)
        if kind == "R":
            shown, needs = _run_layout(codes, low, fill)
        else:
            shown = codes + tuple(fill)
            needs = _set_needs(codes) if kind == "S" else ()
        meld = classify(shown, wilds, profile)
        if left == 0 or meld.is_meld:
            # (A wild card kept as itself may already make the group a meld with a stand-in.)
            laid.append((_rank_of(meld), (shown, Role.MELD, (), _KIND_LABEL[meld])))
        elif left == 1 and kind == "R":
            label = "Near run (needs " + " or ".join(_pretty(n) for n in needs) + ")"
            laid.append((10, (shown, Role.NEAR_RUN, needs, label)))
        elif left == 1 and kind == "S":
            label = "Pair (needs " + " or ".join(_pretty(n) for n in needs) + ")"
            laid.append((11, (shown, Role.NEAR_SET, needs, label)))
        else:
            loose.extend(codes)
            jokers = sorted((*jokers, *fill))
    laid.sort(key=lambda entry: entry[0])
    groups = [entry[1] for entry in laid]
    discard: int | None = None
    if discard_mode:
        if plan.loose:
            discard = _pick_discard(plan.loose, hand)
            loose.remove(discard)
        else:
            discard = jokers.pop()
    if jokers:
        groups.append((tuple(jokers), Role.JOKERS, (), "Jokers (spare)"))
    return groups, loose, discard


def _rank_of(kind: Kind) -> int:
    """Display order of meld kinds: pure sequences first (the requirement), sets last."""
    return {
        Kind.PURE_SEQUENCE: 0,
        Kind.TUNNELA: 1,
        Kind.IMPURE_SEQUENCE: 2,
        Kind.SET: 3,
    }.get(kind, 4)


def _run_layout(
    codes: tuple[int, ...], low: int, fill: list[int]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A run's cards in order, jokers in its gaps (then at an open end), and the cards that
    would finish what is still missing (the gaps inside, else either open end)."""
    suit = codes[0] // 13
    places = sorted(_position(c, low) for c in codes)
    first, last = places[0], places[-1]
    holes = [p for p in range(first, last + 1) if p not in places]
    slots: dict[int, int] = {p: _code(suit, p) for p in places}
    jokers = list(fill)
    for p in holes:
        if jokers:
            slots[p] = jokers.pop(0)
    ordered = [slots.get(p) for p in range(first, last + 1)]
    shown = [c for c in ordered if c is not None]
    open_holes = [p for p in holes if p not in slots]
    # Jokers beyond the holes go on an open end (the high end unless it is past the ace).
    shown_tuple = tuple(shown) + tuple(jokers) if last < 14 else tuple(jokers) + tuple(shown)
    span_after = last - first + 1 + len(jokers)
    if open_holes:
        needs = tuple(_code(suit, p) for p in open_holes)
    elif span_after < 3:
        ends = []
        if first > 1:
            ends.append(_code(suit, first - 1))
        if last + len(jokers) < 14:
            ends.append(_code(suit, last + len(jokers) + 1))
        needs = tuple(ends)
    else:
        needs = ()
    return shown_tuple, needs


def _set_needs(codes: tuple[int, ...]) -> tuple[int, ...]:
    rank = codes[0] % 13
    suits = {c // 13 for c in codes}
    return tuple(s * 13 + rank for s in range(4) if s not in suits)


def _reach(code: int, hand: Sequence[Card]) -> tuple[int, int]:
    """How far a card is from any meld with the other cards held: (cards a meld around it
    still needs: 1 with a neighbour of its suit two places away or less or a card of its rank in
    another suit, else 2; the gap to its nearest card of the same suit, 14 for none)."""
    suit, rank = divmod(code, 13)
    places = (1, 14) if rank == 0 else (rank + 1,)
    seen_self = False
    nearest = 14
    pair = False
    for card in hand:
        other = card.code
        if other == code and not seen_self:
            seen_self = True
            continue
        if other == JOKER_CODE:
            continue
        o_suit, o_rank = divmod(other, 13)
        if o_suit != suit and o_rank == rank:
            pair = True
        if o_suit == suit and other != code:
            o_places = (1, 14) if o_rank == 0 else (o_rank + 1,)
            gap = min(abs(a - b) for a in places for b in o_places)
            nearest = min(nearest, gap)
    needs = 1 if pair or nearest <= 2 else 2
    return needs, nearest


def _pick_discard(loose: Sequence[int], hand: Sequence[Card]) -> int:
    """The loose card furthest from any meld; among equals the one that counts most (it costs
    most if someone declares), then the highest card, so the choice is always the same."""

    def worth(code: int) -> tuple[int, int, int, int]:
        needs, nearest = _reach(code, hand)
        return needs, CODE_POINTS[code], nearest, code

    return max(loose, key=worth)


def _reason(code: int, hand: Sequence[Card], wilds: Wilds) -> str:
    card = from_code(code).pretty
    if code in wilds.codes:
        return f"the {card} is a joker no group needs: every other card has its place"
    needs, _ = _reach(code, hand)
    points = card_points(code, wilds.codes)
    worth = f", and it counts {points} points" if points else ""
    if needs == 2:
        return f"the {card} is furthest from any meld: no card of yours is near it{worth}"
    return f"the {card} is furthest from any meld: it fits none of these groups{worth}"


def _summary(distance: int, discard: Card | None, reason: str | None, needs: Sequence[Card]) -> str:
    if distance == 0:
        if discard is not None:
            return f"Ready to declare: put the {discard.pretty} in the finish slot."
        return "Ready to declare: every card has its place."
    text = "1 card" if distance == 1 else f"{distance} cards"
    text += " from a declaration"
    wanted: list[str] = []
    for card in needs:
        if card.pretty not in wanted:
            wanted.append(card.pretty)
    if wanted:
        text += "; look for " + ", ".join(wanted[:4])
    if reason is not None:
        text += f". Discard: {reason}"
    return text + "."


__all__ = ["SEARCH_BUDGET", "Hint", "HintGroup", "Role", "ShapeDistance", "hint", "shape_distances"]

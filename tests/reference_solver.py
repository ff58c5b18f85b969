"""A brute-force reference for docs/melds.md: slow, direct, and independent of the code under test.

It reads only the card model (``rummyhall.cards``) and profile lookup (``get_profile``); the rules
themselves (wild cards, what a meld is, the requirement, the scores, the declarations) are written
out again here from docs/melds.md, keyed by profile name, so that a mistake in
``rummyhall.melds.kinds``, ``rummyhall.melds.solver`` or ``rummyhall.melds.profiles`` shows up as a
disagreement instead of being copied.

Cards are handled as their dense codes (0..51 natural, 52 the printed joker); a hand is a multiset.

* :func:`classify_codes` decides what one group is, by trying every suit, every window of positions
  and every way to lay each card (natural in one of its own places, or standing in if wild).
* :func:`judge_grouping` scores one grouping of a hand word for word from the docs.
* :func:`hand_melds` lists every meld that is a sub-multiset of a hand.
* :func:`solve` searches every collection of disjoint melds of the hand (the cards outside melds are
  what a grouping leaves unmelded), and returns the smallest score and whether any grouping is a
  declaration. For a hand of ``hand_size + 1`` cards it also tries every discard.
* :func:`partitions` and :func:`solve_by_partitions` are the even slower check of :func:`solve` on
  tiny hands: every way to split the hand into groups, judged one by one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import product

from rummyhall.cards import Card
from rummyhall.melds.profiles import Profile, get_profile

JK = 52
"""Code of the printed joker."""

TUNNELA = "tunnela"
PURE = "pure_sequence"
IMPURE = "impure_sequence"
SET = "set"
DUBLEE = "dublee"
JOKERS = "jokers"
INVALID = "invalid"

MELD_KINDS = frozenset({TUNNELA, PURE, IMPURE, SET})
SEQUENCE_KINDS = frozenset({TUNNELA, PURE, IMPURE})
PURE_KINDS = frozenset({TUNNELA, PURE})


@dataclass(frozen=True)
class Rules:
    """The rules of one profile as docs/melds.md states them."""

    name: str
    hand_size: int
    cap: int
    max_standins: int | None
    tunnelas: bool
    joker_tunnela: bool
    dublees: bool
    value_jokers: bool
    unmet_counts_all: bool
    loose_jokers: bool


RULES = {
    "indian13/classic": Rules(
        name="indian13/classic",
        hand_size=13,
        cap=80,
        max_standins=None,
        tunnelas=False,
        joker_tunnela=False,
        dublees=False,
        value_jokers=False,
        unmet_counts_all=False,
        loose_jokers=False,
    ),
    "indian13/vengala": Rules(
        name="indian13/vengala",
        hand_size=13,
        cap=80,
        max_standins=1,
        tunnelas=True,
        joker_tunnela=False,
        dublees=False,
        value_jokers=False,
        unmet_counts_all=True,
        loose_jokers=True,
    ),
    "marriage21": Rules(
        name="marriage21",
        hand_size=21,
        cap=120,
        max_standins=None,
        tunnelas=True,
        joker_tunnela=True,
        dublees=True,
        value_jokers=True,
        unmet_counts_all=False,
        loose_jokers=False,
    ),
}


def rules_of(profile: Profile | str) -> Rules:
    return RULES[get_profile(profile).name]


# --------------------------------------------------------------------------------------- cards


def rank_of(code: int) -> int:
    """1 (ace) .. 13 (king); 0 for the printed joker."""
    return 0 if code == JK else code % 13 + 1


def suit_of(code: int) -> int | None:
    return None if code == JK else code // 13


def code_of(rank: int, suit: int) -> int:
    return suit * 13 + rank - 1


def wild_codes(cut: Card, profile: Profile | str) -> frozenset[int]:
    """Every printed joker, every card of the cut rank (aces if a printed joker is cut), and in
    Marriage the cards one rank above and below the cut card in its suit (A♠ if a joker is cut)."""
    rules = rules_of(profile)
    if cut.is_joker:
        rank, suit = 1, 0  # aces wild; in Marriage the A♠ is the cut joker
    else:
        assert cut.suit is not None
        rank, suit = cut.rank, int(cut.suit)
    wild = {JK} | {code_of(rank, s) for s in range(4)}
    if rules.value_jokers:
        upper = 1 if rank == 13 else rank + 1
        lower = 13 if rank == 1 else rank - 1
        wild |= {code_of(upper, suit), code_of(lower, suit)}
    return frozenset(wild)


def points(code: int, wild: frozenset[int]) -> int:
    if code == JK or code in wild:
        return 0
    rank = rank_of(code)
    return 10 if rank == 1 or rank >= 10 else rank


# -------------------------------------------------------------------------------------- groups


def _places(rank: int) -> tuple[int, ...]:
    return (1, 14) if rank == 1 else (rank,)


def sequence_standins(
    codes: Sequence[int], wild: frozenset[int], max_standins: int | None
) -> int | None:
    """Fewest cards standing in over every way to lay ``codes`` as a sequence, or None.

    Tries every suit and every window of positions, and for each card every choice: one of its own
    places in the window (natural) or, for a wild card, standing in for whatever place is free."""
    n = len(codes)
    if not 3 <= n <= 14:
        return None
    best: int | None = None
    for suit in range(4):
        for low in range(1, 16 - n):
            high = low + n - 1
            options: list[list[int | None]] = []
            for code in codes:
                choices: list[int | None] = []
                if suit_of(code) == suit:
                    choices.extend(p for p in _places(rank_of(code)) if low <= p <= high)
                if code in wild:
                    choices.append(None)
                if not choices:
                    break
                options.append(choices)
            else:
                for choice in product(*options):
                    placed = [p for p in choice if p is not None]
                    if not placed or len(set(placed)) != len(placed):
                        continue  # no natural card, or a place used twice
                    standins = n - len(placed)  # the free places, filled by wild cards
                    if max_standins is not None and standins > max_standins:
                        continue
                    if best is None or standins < best:
                        best = standins
    return best


def is_set(codes: Sequence[int], wild: frozenset[int], max_standins: int | None) -> bool:
    """3 or 4 cards of one rank: natural cards of different suits, wild cards standing in."""
    if len(codes) not in (3, 4):
        return False
    for rank in range(1, 14):
        options: list[list[int | None]] = []
        for code in codes:
            choices: list[int | None] = []
            if code != JK and rank_of(code) == rank:
                choices.append(suit_of(code))
            if code in wild:
                choices.append(None)
            if not choices:
                break
            options.append(choices)
        else:
            for choice in product(*options):
                suits = [s for s in choice if s is not None]
                if not suits or len(set(suits)) != len(suits):
                    continue
                if max_standins is not None and len(codes) - len(suits) > max_standins:
                    continue
                return True
    return False


@cache
def _classify(codes: tuple[int, ...], wild: frozenset[int], rules: Rules) -> str:
    n = len(codes)
    identical = n >= 2 and len(set(codes)) == 1
    if n == 3 and identical and rules.tunnelas and (codes[0] != JK or rules.joker_tunnela):
        return TUNNELA
    standins = sequence_standins(codes, wild, rules.max_standins)
    if standins is not None:
        return PURE if standins == 0 else IMPURE
    if is_set(codes, wild, rules.max_standins):
        return SET
    if n == 2 and identical and rules.dublees:
        return DUBLEE
    if n and all(code in wild for code in codes):
        return JOKERS
    return INVALID


def classify_codes(codes: Sequence[int], wild: frozenset[int], profile: Profile | str) -> str:
    """The best kind (a ``Kind`` value) a group of card codes can be."""
    return _classify(tuple(sorted(codes)), wild, rules_of(profile))


# ------------------------------------------------------------------------------------- scoring


def requirement_met(rules: Rules, sequences: Sequence[tuple[bool, int]]) -> bool:
    """Whether melded sequences, as (pure, length) pairs, meet the requirement."""
    if rules.name == "indian13/classic":
        return len(sequences) >= 2 and any(pure for pure, _ in sequences)
    if rules.name == "indian13/vengala":
        return any(
            p_pure and (p_len >= 4 or q_len >= 4)
            for i, (p_pure, p_len) in enumerate(sequences)
            for j, (_, q_len) in enumerate(sequences)
            if i != j
        )
    return sum(1 for pure, _ in sequences if pure) >= 3


@dataclass(frozen=True)
class Judgement:
    score: int
    declarable: bool
    two_point: bool
    special_shape: bool
    """Marriage: the grouping shows 3 tunnelas, 8 dublees or a group of 8+ wild cards."""


def judge_grouping(
    groups: Sequence[Sequence[int]], wild: frozenset[int], profile: Profile | str
) -> Judgement:
    """Score and declarability of one grouping (card codes), straight from docs/melds.md."""
    rules = rules_of(profile)
    kinds = [classify_codes(group, wild, rules.name) for group in groups]
    sequences = [
        (k in PURE_KINDS, len(g)) for g, k in zip(groups, kinds, strict=True) if k in SEQUENCE_KINDS
    ]
    met = requirement_met(rules, sequences)

    def count(exempt: frozenset[str]) -> int:
        return sum(
            points(code, wild)
            for group, kind in zip(groups, kinds, strict=True)
            if kind not in exempt
            for code in group
        )

    if met:
        score = count(MELD_KINDS)
    elif rules.unmet_counts_all:
        score = count(frozenset())
    else:
        score = count(PURE_KINDS)
    score = min(score, rules.cap)
    all_melds = all(kind in MELD_KINDS for kind in kinds)
    declarable = met and all(
        kind in MELD_KINDS or (rules.loose_jokers and all(c in wild for c in group))
        for group, kind in zip(groups, kinds, strict=True)
    )
    two_point = special = False
    if rules.dublees:
        tunnelas = kinds.count(TUNNELA)
        dublees = kinds.count(DUBLEE)
        joker_group = max(
            (len(g) for g in groups if g and all(c in wild for c in g)),
            default=0,
        )
        special = tunnelas >= 3 or dublees >= 8 or joker_group >= 8
        declarable = declarable or special
        two_point = (met and all_melds) or dublees >= 6 or joker_group >= 7
    return Judgement(score, declarable, two_point, special)


# ------------------------------------------------------------------------------ meld listing


def _submultisets(codes: Sequence[int]) -> list[tuple[int, ...]]:
    """Every sub-multiset of ``codes`` (as sorted tuples), the empty one included."""
    counter = sorted(Counter(codes).items())
    result = []
    for takes in product(*(range(k + 1) for _, k in counter)):
        result.append(tuple(c for (c, _), t in zip(counter, takes, strict=True) for _ in range(t)))
    return result


def hand_melds(
    codes: Sequence[int], wild: frozenset[int], profile: Profile | str
) -> dict[tuple[int, ...], str]:
    """Every meld that is a sub-multiset of the hand ``codes``, with its kind.

    Candidates: (non-wild cards all of one suit, or all of one rank, or none) plus any wild cards.
    That covers every meld: the non-wild cards of a sequence or tunnela share the suit, those of a
    set share the rank. Each candidate is then judged by :func:`classify_codes`."""
    nonwild = [c for c in codes if c not in wild]
    wilds = [c for c in codes if c in wild]
    bases: set[tuple[int, ...]] = {()}
    for suit in range(4):
        bases.update(_submultisets([c for c in nonwild if suit_of(c) == suit]))
    for rank in range(1, 14):
        bases.update(_submultisets([c for c in nonwild if rank_of(c) == rank]))
    melds: dict[tuple[int, ...], str] = {}
    wild_parts = _submultisets(wilds)
    for base in bases:
        for extra in wild_parts:
            if len(base) + len(extra) < 3 or len(base) + len(extra) > 14:
                continue
            group = tuple(sorted(base + extra))
            if group in melds:
                continue
            kind = classify_codes(group, wild, profile)
            if kind in MELD_KINDS:
                melds[group] = kind
    return melds


def hand_melds_by_subsets(
    codes: Sequence[int], wild: frozenset[int], profile: Profile | str
) -> dict[tuple[int, ...], str]:
    """The same list, the dumb way: judge every sub-multiset of the hand (small hands only)."""
    melds: dict[tuple[int, ...], str] = {}
    for group in _submultisets(codes):
        if len(group) >= 3:
            kind = classify_codes(group, wild, profile)
            if kind in MELD_KINDS:
                melds[group] = kind
    return melds


# ---------------------------------------------------------------------------------- the search

# Which sequences a collection of melds holds, as counts capped at 3 of: pure short, pure long
# (4+ cards), impure short, impure long. Every requirement is met by at most 3 sequences and more
# sequences never hurt, so the cap loses nothing; `_met` rebuilds a representative list and asks
# `requirement_met` about it.
Signature = tuple[int, int, int, int]
_EMPTY: Signature = (0, 0, 0, 0)


def _signature_of(kind: str, size: int) -> int | None:
    if kind not in SEQUENCE_KINDS:
        return None
    return (0 if kind in PURE_KINDS else 2) + (1 if size >= 4 else 0)


@cache
def _add(sig: Signature, slot: int | None) -> Signature:
    if slot is None:
        return sig
    values = list(sig)
    values[slot] = min(3, values[slot] + 1)
    return (values[0], values[1], values[2], values[3])


def _met(rules: Rules, sig: Signature) -> bool:
    sequences = (
        [(True, 3)] * sig[0] + [(True, 4)] * sig[1] + [(False, 3)] * sig[2] + [(False, 4)] * sig[3]
    )
    return requirement_met(rules, sequences)


# For each signature: fewest points outside melds, fewest points outside pure sequences, and
# whether some collection with that signature leaves out nothing that must be melded.
Outcome = tuple[int, int, bool]

# A multiset of cards is packed into one integer, 4 bits per code (counts up to 7), so that taking
# a meld out of the remaining cards and testing that it fits are single integer operations.
_BITS = 4
_GUARD = sum(1 << (_BITS * code + _BITS - 1) for code in range(53))


def pack(codes: Sequence[int]) -> int:
    return sum(1 << (_BITS * code) for code in codes)


def _fits(remaining: int, meld: int) -> bool:
    """Whether the multiset ``meld`` is inside ``remaining`` (no 4-bit field borrows)."""
    return ((remaining | _GUARD) - meld) & _GUARD == _GUARD


class _Search:
    def __init__(self, codes: Sequence[int], wild: frozenset[int], rules: Rules) -> None:
        assert max(Counter(codes).values(), default=0) < 1 << (_BITS - 1)
        self.wild = wild
        self.rules = rules
        # Melds by their lowest card: when that is the lowest card left, only they can fit.
        self.melds_from: dict[int, list[tuple[int, int | None, int, bool]]] = {}
        for group, kind in hand_melds(codes, wild, rules.name).items():
            self.melds_from.setdefault(min(group), []).append(
                (
                    pack(group),
                    _signature_of(kind, len(group)),
                    sum(points(c, wild) for c in group),
                    kind in PURE_KINDS,
                )
            )
        self.memo: dict[int, dict[Signature, Outcome]] = {}

    def outcomes(self, remaining: int) -> dict[Signature, Outcome]:
        """Every collection of disjoint melds of the ``remaining`` cards (packed), summarised."""
        found = self.memo.get(remaining)
        if found is not None:
            return found
        result: dict[Signature, Outcome] = {}
        if not remaining:
            result[_EMPTY] = (0, 0, True)
            self.memo[remaining] = result
            return result
        # Each branch below yields (signature, points outside melds, points outside pure
        # sequences, nothing left out that must be melded); `result` keeps per signature the
        # smallest points and whether any branch left nothing out.
        branches: list[tuple[Signature, int, int, bool]] = []
        # The lowest card left is either left out of every meld ...
        first = ((remaining & -remaining).bit_length() - 1) // _BITS
        p = points(first, self.wild)
        may_be_loose = self.rules.loose_jokers and first in self.wild
        for sig, (a, b, cover) in self.outcomes(remaining - (1 << _BITS * first)).items():
            branches.append((sig, a + p, b + p, cover and may_be_loose))
        # ... or it is in one of the melds that fit.
        guarded = remaining | _GUARD
        for meld, slot, meld_points, pure in self.melds_from.get(first, []):
            if (guarded - meld) & _GUARD != _GUARD:
                continue  # does not fit (see _fits)
            extra = 0 if pure else meld_points
            for sig, (a, b, cover) in self.outcomes(remaining - meld).items():
                branches.append((_add(sig, slot), a, b + extra, cover))
        for sig, a, b, cover in branches:
            old = result.get(sig)
            if old is None:
                result[sig] = (a, b, cover)
            elif a < old[0] or b < old[1] or (cover and not old[2]):
                result[sig] = (min(old[0], a), min(old[1], b), old[2] or cover)
        self.memo[remaining] = result
        return result


@dataclass(frozen=True)
class Reference:
    penalty: int
    declarable: bool
    two_point: bool
    """Marriage: some grouping shows a 2-point shape."""


def _special_shapes(codes: Sequence[int], wild: frozenset[int], rules: Rules) -> tuple[bool, bool]:
    """(a Marriage winning shape, a 2-point dublee/joker shape) that the cards can show.

    Tunnelas are groups of three identical cards, dublees pairs of identical cards, and all the
    wild cards can go in one group; each needs only its own cards, the rest may be anything."""
    if not rules.dublees:
        return False, False
    counter = Counter(codes)
    tunnelas = sum(k // 3 for c, k in counter.items() if c != JK or rules.joker_tunnela)
    dublees = sum(k // 2 for k in counter.values())
    jokers = sum(1 for c in codes if c in wild)
    return tunnelas >= 3 or dublees >= 8 or jokers >= 8, dublees >= 6 or jokers >= 7


def _solve_exact(codes: Sequence[int], search: _Search) -> Reference:
    rules, wild = search.rules, search.wild
    total = sum(points(c, wild) for c in codes)
    penalty = rules.cap
    normal_declaration = False
    for sig, (out_melds, out_pure, cover) in search.outcomes(pack(codes)).items():
        met = _met(rules, sig)
        if met:
            score = out_melds
        elif rules.unmet_counts_all:
            score = total
        else:
            score = out_pure
        penalty = min(penalty, score)
        normal_declaration = normal_declaration or (met and cover)
    win_shape, two_point_shape = _special_shapes(codes, wild, rules)
    return Reference(
        penalty=min(penalty, rules.cap),
        declarable=normal_declaration or win_shape,
        two_point=rules.dublees and (normal_declaration or two_point_shape),
    )


def solve(hand: Sequence[Card], joker: Card, profile: Profile | str) -> Reference:
    """Best penalty and declarability of ``hand`` (docs/melds.md, "The solver")."""
    rules = rules_of(profile)
    wild = wild_codes(joker, profile)
    codes = [card.code for card in hand]
    search = _Search(codes, wild, rules)
    if len(codes) != rules.hand_size + 1:
        return _solve_exact(codes, search)
    results = []
    for discard in sorted(set(codes)):
        rest = list(codes)
        rest.remove(discard)
        results.append(_solve_exact(rest, search))
    return Reference(
        penalty=min(r.penalty for r in results),
        declarable=any(r.declarable for r in results),
        two_point=any(r.two_point for r in results),
    )


# ------------------------------------------------------------------ the slowest way: partitions


def partitions(items: Sequence[int]) -> Iterator[list[list[int]]]:
    """Every way to split ``items`` into non-empty groups (distinct up to group order; identical
    items make some of them repeat, which is harmless)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partial in partitions(rest):
        for i in range(len(partial)):
            yield [*partial[:i], [first, *partial[i]], *partial[i + 1 :]]
        yield [[first], *partial]


def distinct_partitions(codes: Sequence[int]) -> list[list[list[int]]]:
    seen: set[tuple[tuple[int, ...], ...]] = set()
    result = []
    for grouping in partitions(sorted(codes)):
        key = tuple(sorted(tuple(sorted(g)) for g in grouping))
        if key not in seen:
            seen.add(key)
            result.append([list(g) for g in key])
    return result


def solve_by_partitions(
    hand: Sequence[Card],
    joker: Card,
    profile: Profile | str,
    judge: Callable[[list[list[int]]], Judgement] | None = None,
) -> Reference:
    """Penalty and declarability as the min / any over every grouping of a (tiny) hand, judged
    by :func:`judge_grouping` or by ``judge``. Only for hands judged as they are (not
    hand_size + 1)."""
    wild = wild_codes(joker, profile)
    if judge is None:

        def judge(groups: list[list[int]]) -> Judgement:
            return judge_grouping(groups, wild, profile)

    judged = [judge(g) for g in distinct_partitions([c.code for c in hand])]
    return Reference(
        penalty=min(j.score for j in judged),
        declarable=any(j.declarable for j in judged),
        two_point=any(j.two_point for j in judged),
    )

"""The baseline bench/solver.py times `arrange` against: a plain memoised search for the best
arrangement, the kind a competent engineer writes in an afternoon (docs/melds.md says what it
computes). It is exact, and simple on purpose: no per-suit tables, no bounds.

The search takes the lowest card left (cards as sorted codes) and tries every way to place it:
left over, given to the joker pool if it is wild, or laid in a meld with cards above it (a
sequence of its suit, any place a natural card or a joker; a set of its rank; a tunnela),
jokers filling what the naturals do not. ``functools.lru_cache`` memoises every state (the cards
left, the jokers in the pool) with the cut card, across hands. A melded joker may come from a wild
card higher up that is still to be reached, so the pool may run short on the way (jokers owed),
as long as it is even at the end. A hand of ``hand_size + 1`` cards carries a flag: one card
(or a joker of the pool) is still to be thrown. Each state keeps, per requirement signature, the
fewest points left outside melds, outside pure sequences and of all cards kept, and whether a
grouping melds every card; a second walk through the memo lays out one grouping that reaches the
penalty.

Covers the three profiles; for Marriage it finds the special winning shapes (3 tunnelas, 8
dublees, 8 wild cards) but not the 2-point groupings.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import product

from rummyhall.cards import CODE_POINTS, JOKER_CODE, Card
from rummyhall.melds.profiles import Profile, Wilds, get_profile

# (pure short, pure long, impure short, impure long) sequences, each counted up to 3; "long" only
# under a long-sequence rule (vengala). Every requirement needs 3 sequences or fewer.
Signature = tuple[int, int, int, int]
# Per signature: fewest points outside melds, outside pure sequences, of every card kept (not the
# discard), and whether a grouping melds every card.
Outcomes = dict[Signature, tuple[int, int, int, bool]]
# A meld laid from the lowest card: (natural codes it takes, jokers, signature slot or -1 for a
# set, the cards' codes as laid with -1 for a joker).
Move = tuple[tuple[int, ...], int, int, tuple[int, ...]]

EMPTY: Signature = (0, 0, 0, 0)


@dataclass(frozen=True, eq=False)
class Context:
    """What a state's outcomes depend on besides its cards: the profile and the wild cards. One
    per pair (:func:`context`), hashed by identity, so the memo's keys hash fast."""

    profile: Profile
    wild: frozenset[int]


@dataclass(frozen=True)
class Baseline:
    penalty: int
    declarable: bool
    groups: list[list[int]]
    """One grouping reaching ``penalty`` (a declaration when declarable), as card codes."""
    leftover: list[int]
    discard: int | None


_CONTEXTS: dict[tuple[str, frozenset[int]], Context] = {}


def context(profile: Profile, cut: Card) -> Context:
    wild = Wilds.of(cut, profile).codes
    found = _CONTEXTS.get((profile.name, wild))
    if found is None:
        found = _CONTEXTS[(profile.name, wild)] = Context(profile, wild)
    return found


def add(sig: Signature, slot: int) -> Signature:
    if slot < 0:
        return sig
    values = list(sig)
    values[slot] = min(3, values[slot] + 1)
    return (values[0], values[1], values[2], values[3])


def met(profile: Profile, sig: Signature) -> bool:
    pure_short, pure_long, impure_short, impure_long = sig
    pure = pure_short + pure_long
    if pure + impure_short + impure_long < profile.min_sequences:
        return False
    if pure < profile.min_pure_sequences:
        return False
    if profile.long_sequence is None:
        return True
    # A pure sequence P and another Q, one of them long.
    return (pure_long >= 1 and pure + impure_short + impure_long >= 2) or (
        pure >= 1 and impure_long >= 1
    )


def points(ctx: Context, code: int) -> int:
    return 0 if code in ctx.wild else CODE_POINTS[code]


def _slot(ctx: Context, pure: bool, length: int) -> int:
    long = ctx.profile.long_sequence is not None and length >= ctx.profile.long_sequence
    return (0 if pure else 2) + int(long)


def _remove(cards: tuple[int, ...], taken: Sequence[int]) -> tuple[int, ...]:
    rest = list(cards)
    for code in taken:
        rest.remove(code)
    return tuple(rest)


def moves(ctx: Context, cards: tuple[int, ...], budget: int) -> Iterator[Move]:
    """Every meld holding the lowest card ``cards[0]`` and other cards of ``cards``, with at most
    ``budget`` jokers."""
    low = cards[0]
    rest = cards[1:]
    suit, rank = divmod(low, 13)
    rank += 1
    most = ctx.profile.max_jokers_per_meld
    if most is not None:
        budget = min(budget, most)
    # Sequences: every window of positions 1..14 holding the card, each other place a natural
    # card of the suit (if one is left) or a joker.
    for place in (1, 14) if rank == 1 else (rank,):
        for start in range(max(1, place - 13), place + 1):
            choices: list[tuple[int, ...]] = []
            gaps = 0  # places no natural card can take: a joker each
            for p in range(start, min(14, start + 13) + 1):
                code = suit * 13 + (0 if p == 14 else p - 1)
                if p == place:
                    choices.append((code,))
                elif code in rest:
                    choices.append((code, -1))
                else:
                    choices.append((-1,))
                    gaps += 1
                if gaps > budget:
                    break
                if p < place or len(choices) < 3:
                    continue
                for laid in product(*choices):
                    naturals = tuple(c for c in laid if c >= 0)
                    jokers = len(laid) - len(naturals)
                    if jokers <= budget:
                        yield naturals, jokers, _slot(ctx, jokers == 0, len(laid)), laid
    # Sets: the card and naturals of its rank in other suits (all above it), jokers for the rest.
    others = [c for c in sorted(set(rest)) if c % 13 == low % 13 and c // 13 != suit]
    for k in range(len(others) + 1):
        for chosen in _subsets(others, k):
            for size in (3, 4):
                jokers = size - 1 - k
                if 0 <= jokers <= budget:
                    naturals = (low, *chosen)
                    yield naturals, jokers, -1, naturals + (-1,) * jokers
    if ctx.profile.identical_triple_pure and rest[:2] == (low, low):
        yield (low, low, low), 0, _slot(ctx, True, 3), (low, low, low)


def _subsets(items: list[int], k: int) -> Iterator[tuple[int, ...]]:
    if k == 0:
        yield ()
        return
    for i, item in enumerate(items):
        for tail in _subsets(items[i + 1 :], k - 1):
            yield (item, *tail)


# A way to place the lowest card: (cards left, pool left, whether the discard is still to
# come, signature slot, its points counted outside melds, outside pure sequences and as a kept
# card, whether it is melded (or discarded, or a loose joker), the meld laid or None).
Branch = tuple[tuple[int, ...], int, bool, int, int, int, int, bool, tuple[int, ...] | None]


def branches(ctx: Context, cards: tuple[int, ...], pool: int, discard: bool) -> Iterator[Branch]:
    low = cards[0]
    wild = low in ctx.wild
    lost = points(ctx, low)
    loose = wild and ctx.profile.loose_jokers
    yield cards[1:], pool, discard, -1, lost, lost, lost, loose, None
    if wild:
        yield cards[1:], pool + 1, discard, -1, 0, 0, 0, True, None
    if discard:
        yield cards[1:], pool, False, -1, 0, 0, 0, True, None
    # The pool may owe jokers that wild cards further up will pay.
    owed = sum(1 for c in cards[1:] if c in ctx.wild)
    for naturals, jokers, slot, laid in moves(ctx, cards, pool + owed):
        left = _remove(cards, naturals)
        if pool - jokers + sum(1 for c in left if c in ctx.wild) < 0:
            continue
        kept = sum(points(ctx, c) for c in naturals)
        unpure = 0 if slot in (0, 1) else kept
        yield left, pool - jokers, discard, slot, 0, unpure, kept, True, laid


@lru_cache(maxsize=200_000)
def outcomes(ctx: Context, cards: tuple[int, ...], pool: int, discard: bool) -> Outcomes:
    """Every grouping of ``cards`` with ``pool`` jokers (negative: owed) and, if ``discard``, one
    card (or a joker of the pool) discarded, summarised."""
    if not cards:
        if discard:
            pool -= 1  # the discard is a joker of the pool
        if pool < 0:
            return {}
        return {EMPTY: (0, 0, 0, pool == 0 or ctx.profile.loose_jokers)}
    result: Outcomes = {}
    for left, pool_left, disc, slot, lost_a, lost_b, lost_c, melded, _ in branches(
        ctx, cards, pool, discard
    ):
        for sig, (a, b, c, cover) in outcomes(ctx, left, pool_left, disc).items():
            key = add(sig, slot)
            found = (a + lost_a, b + lost_b, c + lost_c, cover and melded)
            old = result.get(key)
            if old is None:
                result[key] = found
            else:
                result[key] = (
                    min(old[0], found[0]),
                    min(old[1], found[1]),
                    min(old[2], found[2]),
                    old[3] or found[3],
                )
    return result


def _criterion(ctx: Context, sig: Signature) -> int:
    """Which outcome value scores a grouping with signature ``sig``: 0 the points outside melds
    (requirement met), else 1 outside pure sequences, or 2 every card (vengala)."""
    if met(ctx.profile, sig):
        return 0
    return 2 if ctx.profile.unmet == "all_count" else 1


def _full(ctx: Context, sig: Signature, joker_tunnelas: int) -> Signature:
    for _ in range(joker_tunnelas):
        sig = add(sig, _slot(ctx, True, 3))
    return sig


def _special_shape(ctx: Context, cards: Sequence[int]) -> bool:
    """Marriage: 3 tunnelas, 8 dublees or 8 wild cards."""
    profile = ctx.profile
    tunnelas = sum(
        cards.count(c) // 3 for c in set(cards) if c != JOKER_CODE or profile.printed_joker_tunnela
    )
    dublees = sum(cards.count(c) // 2 for c in set(cards))
    wild = sum(1 for c in cards if c in ctx.wild)
    return (
        tunnelas >= profile.win_tunnelas
        or dublees >= profile.win_dublees
        or wild >= profile.win_jokers
    )


def _lay_out(
    ctx: Context,
    cards: tuple[int, ...],
    pool: int,
    discard: bool,
    sig: Signature,
    want: int,
    criterion: int,
) -> tuple[list[list[int]], list[int], list[int], list[int]]:
    """One grouping of ``cards`` with signature ``sig`` whose outcome value ``criterion`` is
    ``want``, found by walking the memo: (melds, leftover, wild cards given to the pool, the
    discard if a card of ``cards``)."""
    if not cards:
        return [], [], [], []
    for left, pool_left, disc, slot, *lost, _, laid in branches(ctx, cards, pool, discard):
        for sub, outcome in outcomes(ctx, left, pool_left, disc).items():
            if add(sub, slot) != sig or outcome[criterion] + lost[criterion] != want:
                continue
            groups, leftover, pooled, thrown = _lay_out(
                ctx, left, pool_left, disc, sub, want - lost[criterion], criterion
            )
            if laid is not None:
                groups.insert(0, list(laid))
            elif disc != discard:
                thrown.append(cards[0])
            elif pool_left > pool:
                pooled.append(cards[0])
            else:
                leftover.append(cards[0])
            return groups, leftover, pooled, thrown
    raise AssertionError("the memo has no such grouping")


def solve(hand: Sequence[Card], joker: Card, profile: Profile | str) -> Baseline:
    """The best arrangement of ``hand``; a hand of ``hand_size + 1`` cards also throws one."""
    prof = get_profile(profile)
    ctx = context(prof, joker)
    cards = tuple(sorted(card.code for card in hand))
    discard = len(cards) == prof.hand_size + 1
    naturals = tuple(c for c in cards if c != JOKER_CODE)
    printed = len(cards) - len(naturals)
    # The best (score, joker tunnelas, signature, its outcome value), declarable or not.
    best: tuple[int, int, Signature, int] | None = None
    declarable = False
    tunnelas = printed // 3 if prof.printed_joker_tunnela else 0
    for t in range(tunnelas + 1):
        for sig, outcome in outcomes(ctx, naturals, printed - 3 * t, discard).items():
            full = _full(ctx, sig, t)
            criterion = _criterion(ctx, full)
            if best is None or outcome[criterion] < best[0]:
                best = (outcome[criterion], t, sig, criterion)
            declarable = declarable or (criterion == 0 and outcome[3])
    assert best is not None
    if prof.dublees and not declarable:
        kept = [cards[:i] + cards[i + 1 :] for i in range(len(cards))] if discard else [cards]
        declarable = any(_special_shape(ctx, k) for k in kept)
    score, t, sig, criterion = best
    groups, leftover, pooled, thrown = _lay_out(
        ctx, naturals, printed - 3 * t, discard, sig, score, criterion
    )
    jokers = [JOKER_CODE] * printed + pooled
    for group in groups:
        for i, code in enumerate(group):
            if code == -1:
                group[i] = jokers.pop()
    for _ in range(t):
        groups.append([JOKER_CODE] * 3)
        for _ in range(3):
            jokers.remove(JOKER_CODE)
    if discard and not thrown:
        thrown.append(jokers.pop())
    return Baseline(
        min(score, prof.cap), declarable, groups, leftover + jokers, thrown[0] if thrown else None
    )

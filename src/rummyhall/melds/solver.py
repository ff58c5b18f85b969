"""The exact optimal-arrangement solver (docs/melds.md says what it computes).

How it works, in three steps:

1. **Count rule without the requirement.** If a loser's melds miss the requirement, only pure
   sequences are exempt (or nothing is, in vengala). Pure sequences never cross suits, so the best
   such score is the sum of per-suit tables (:func:`suits.pure_table`).
2. **Can the requirement be met at all?** Every declaration needs pure sequences; if the suits
   cannot lay enough of them, step 1 is the answer. Most random hands end here.
3. **Search with the requirement.** Sets are the only melds that cross suits, so the solver
   enumerates the ways to take sets out of the ranks where a set is possible, and for each asks
   the per-suit tables (:func:`suits.suit_table`) about what is left of each suit, combining the
   four suits and the joker pool with a small dynamic programme over (jokers, requirement state).

Everything is keyed by card counts; per-suit tables and whole results are memoised across calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from typing import Final

from rummyhall.cards import JOKER_CODE, Card
from rummyhall.melds.kinds import Kind, classify
from rummyhall.melds.profiles import Profile, Wilds, get_profile
from rummyhall.melds.suits import (
    LEFTOVER,
    POINTS,
    WITNESS,
    Meld,
    Option,
    PureSummary,
    SuitRules,
    SuitTable,
    Witness,
    combine_table,
    melds,
    pure_tables,
    suit_solver,
)


@dataclass(frozen=True, slots=True)
class Arrangement:
    """The best arrangement of a hand (see docs/melds.md)."""

    groups: list[list[Card]]
    leftover: list[Card]
    penalty: int
    declarable: bool
    kinds: list[Kind]
    discard: Card | None = None
    two_point_groups: list[list[Card]] | None = None


# A set choice at one rank: cards taken from each suit, the sets' sizes (naturals each), the
# jokers they need and how many more jokers they could take (Marriage absorbs spare jokers).
@dataclass(frozen=True, slots=True)
class _SetChoice:
    take: tuple[int, int, int, int]
    sizes: tuple[int, ...]
    jokers: int
    room: int


@dataclass(slots=True)
class _Best:
    penalty: int
    declarable: bool
    sets: tuple[tuple[int, _SetChoice], ...]
    options: tuple[Option, ...]
    discard_joker: bool


@dataclass(frozen=True, slots=True)
class _Skeleton:
    """A result in card codes; turned into the caller's physical cards by :func:`_realise`."""

    groups: tuple[tuple[int, ...], ...]
    kinds: tuple[Kind, ...]
    leftover: tuple[int, ...]
    penalty: int
    declarable: bool
    discard: int | None
    two_point: tuple[tuple[int, ...], ...] | None


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
        return state >= profile.min_pure_sequences
    if rules.long is None:
        return state & 1 == 1 and state >> 3 >= 2
    # A long pure sequence and any other, or a pure one and a long impure one.
    return (state & 2 == 2 and state >> 3 >= 2) or (state & 5 == 5)


def _set_choices(have: tuple[int, int, int, int], pool: int, profile: Profile) -> list[_SetChoice]:
    """Ways to make sets of one rank from ``have[s]`` natural cards of each suit. A set holds 2-4
    naturals of different suits (2 only with a joker); one natural and two jokers is never better
    than the same as a sequence, which also counts towards the requirement."""
    choices = [_SetChoice((0, 0, 0, 0), (), 0, 0)]
    want_room = profile.min_pure_sequences >= 3
    for taken in product(*(range(n + 1) for n in have)):
        take = (taken[0], taken[1], taken[2], taken[3])
        total = sum(take)
        if total < 2 or (total < 3 and pool == 0):
            continue
        top = max(take)
        fewest = max(top, -(-total // 4))
        for count in range(fewest, total // 2 + 1):
            base, extra = divmod(total, count)
            sizes = (base + 1,) * extra + (base,) * (count - extra)
            jokers = sum(max(0, 3 - size) for size in sizes)
            if jokers > pool:
                break
            room = 4 * count - max(total, 3 * count)
            choices.append(_SetChoice(take, sizes, jokers, room))
            if not want_room:
                break  # more sets only cost jokers
    return choices


JOKER_BOUND: Final = {False: 4, True: 6}
"""Per-suit tables are built for up to this many jokers (13-card, Marriage) and shared by every
hand with no more wild cards than that; a hand with more gets tables of its own size."""

_WILDS: dict[tuple[int, str], Wilds] = {}
_RESULTS: dict[tuple[str, int, bool, tuple[int, ...]], _Skeleton] = {}
_RESULTS_LIMIT: Final = 200_000


def arrange(hand: Sequence[Card], *, joker: Card, profile: Profile | str) -> Arrangement:
    """The exact best arrangement of ``hand`` with ``joker`` as the cut card (docs/melds.md)."""
    prof = get_profile(profile)
    wkey = (joker.code, prof.name)
    wilds = _WILDS.get(wkey)
    if wilds is None:
        wilds = _WILDS[wkey] = Wilds.of(joker, prof)
    counts = [0] * (JOKER_CODE + 1)
    for card in hand:
        counts[card.code] += 1
    discard_mode = len(hand) == prof.hand_size + 1
    key = (
        prof.name,
        joker.code if prof.value_jokers else wilds.wild_rank,
        discard_mode,
        tuple(counts),
    )
    skeleton = _RESULTS.get(key)
    if skeleton is None:
        skeleton = _solve([card.code for card in hand], counts, wilds, prof, discard_mode)
        if len(_RESULTS) >= _RESULTS_LIMIT:
            _RESULTS.clear()
        _RESULTS[key] = skeleton
    return _realise(skeleton, hand)


def _realise(sk: _Skeleton, hand: Sequence[Card]) -> Arrangement:
    """Hand the caller its own physical cards back, placed as the skeleton says."""
    pool: dict[int, list[Card]] = {}
    for card in hand:
        pool.setdefault(card.code, []).append(card)

    def take(code: int) -> Card:
        return pool[code].pop()

    groups = [[take(code) for code in group] for group in sk.groups]
    discard = take(sk.discard) if sk.discard is not None else None
    leftover = [take(code) for code in sk.leftover]
    two_point = None
    if sk.two_point is not None:
        lookup: dict[int, list[Card]] = {}
        for card in hand:
            lookup.setdefault(card.code, []).append(card)
        two_point = [[lookup[code].pop() for code in group] for group in sk.two_point]
    return Arrangement(
        groups=groups,
        leftover=leftover,
        penalty=sk.penalty,
        declarable=sk.declarable,
        kinds=list(sk.kinds),
        discard=discard,
        two_point_groups=two_point,
    )


_CODE_POINTS: Final = (*(POINTS[c % 13] for c in range(JOKER_CODE)), 0)


def _solve(
    codes: list[int], counts: list[int], wilds: Wilds, profile: Profile, discard_mode: bool
) -> _Skeleton:
    rules = _rules(profile)
    wild = wilds.codes
    printed = counts[JOKER_CODE]
    suits = [tuple(counts[s * 13 : s * 13 + 13]) for s in range(4)]
    wild_masks = [0, 0, 0, 0]
    wild_total = printed
    for code in wilds.natural_codes:
        n = counts[code]
        if n:
            wild_masks[code // 13] |= 1 << (code % 13 + 1)
            wild_total += n
    total_points = 0
    dearest = -1  # a non-wild card with the most points (the discard when nothing melds)
    for code in codes:
        if code not in wild:
            points = _CODE_POINTS[code]
            total_points += points
            if dearest < 0 or points > _CODE_POINTS[dearest]:
                dearest = code

    # Step 1: the score when the requirement is missed.
    pure = pure_tables(rules.triple, discard_mode)
    summaries = [pure.table(suits[s], wild_masks[s]) for s in range(4)]
    unmet_pick: tuple[Witness, ...] | None = None
    unmet_disc: int | None = None
    if profile.unmet == "all_count":
        unmet = total_points
        if discard_mode and dearest >= 0:
            unmet -= _CODE_POINTS[dearest]
            unmet_disc = dearest
    else:
        unmet, unmet_pick = _best_pure(summaries, discard_mode, wild_total > 0)

    # Step 2: is the requirement within reach? Sets and jokers never make a pure sequence.
    reachable = sum(t.most_pure for t in summaries) >= profile.min_pure_sequences

    best: _Best | None = None
    if reachable:
        best = _search_sets(
            suits, wild_masks, printed, wild_total, rules, profile, discard_mode, unmet
        )
    if best is not None and (best.penalty <= unmet or best.declarable):
        return _build_met(best, codes, wilds, profile)
    return _build_unmet(
        codes, wilds, profile, min(unmet, profile.cap), unmet_pick, unmet_disc, discard_mode
    )


def _best_pure(
    tabs: list[PureSummary], discard_mode: bool, wild_discard: bool
) -> tuple[int, tuple[Witness, ...]]:
    """Fewest points outside pure sequences over the four suits, with exactly one discard when
    ``discard_mode``: the dearest card of one suit, or a wild card (worth 0 anyway)."""
    total = sum(t.points for t in tabs)
    plain = tuple(t.witness for t in tabs)
    if not discard_mode:
        return total, plain
    best: tuple[int, tuple[Witness, ...]] | None = (total, plain) if wild_discard else None
    for s, t in enumerate(tabs):
        if t.points_discarding is None:
            continue
        cand = total - t.points + t.points_discarding
        if best is None or cand < best[0]:
            best = (cand, (*plain[:s], t.witness_discarding, *plain[s + 1 :]))
    assert best is not None
    return best


def _search_sets(
    suits: list[tuple[int, ...]],
    wild_masks: list[int],
    printed: int,
    wild_total: int,
    rules: SuitRules,
    profile: Profile,
    discard_mode: bool,
    incumbent: int,
) -> _Best | None:
    """Best arrangement that meets the requirement, over every way to take sets out."""
    comb = combine_table(rules)
    set_ranks: list[tuple[int, list[_SetChoice]]] = []
    for r in range(1, 14):
        have = tuple(0 if wild_masks[s] >> r & 1 else suits[s][r - 1] for s in range(4))
        if sum(1 for n in have if n) >= 2:
            choices = _set_choices(have, wild_total, profile)  # type: ignore[arg-type]
            if len(choices) > 1:
                set_ranks.append((r, choices))
    current = [list(ranks) for ranks in suits]
    best: list[_Best | None] = [None]
    # Penalties at or above the cap all score the cap, so the cap bounds the search too.
    limit = [min(incumbent, profile.cap)]
    # Points of the cards of each suit that sets at ranks from i on could still take.
    open_points = [[0] * 4 for _ in range(len(set_ranks) + 1)]
    for i in range(len(set_ranks) - 1, -1, -1):
        r = set_ranks[i][0]
        for s in range(4):
            open_points[i][s] = open_points[i + 1][s] + suits[s][r - 1] * POINTS[r - 1]

    tables = suit_solver(rules, max(wild_total, JOKER_BOUND[rules.marriage]), discard_mode)

    def table(s: int) -> SuitTable:
        return tables.table(tuple(current[s]), wild_masks[s])

    def hopeless(bound: int) -> bool:
        """No arrangement at least ``bound`` can win: it is not better and, above 0, not a
        declaration either."""
        return bound > 0 and bound >= limit[0]

    def leaf(chosen: tuple[tuple[int, _SetChoice], ...], set_jokers: int, room: int) -> None:
        tables = [table(s) for s in range(4)]
        budget = wild_total - set_jokers
        if hopeless(sum(t.upto(budget)[0][LEFTOVER] for t in tables)):
            return
        # Combine the suits: per (jokers, state, discard, absorber) the least leftover, keeping
        # one back-pointer per layer to recover the options of the best entry.
        cap = limit[0]
        layers: list[
            dict[
                tuple[int, int, int, int],
                tuple[int, Option | None, tuple[int, int, int, int] | None],
            ]
        ] = []
        acc: dict[
            tuple[int, int, int, int], tuple[int, Option | None, tuple[int, int, int, int] | None]
        ] = {(0, 0, 0, 0): (0, None, None)}
        for tab in tables:
            nxt: dict[
                tuple[int, int, int, int],
                tuple[int, Option | None, tuple[int, int, int, int] | None],
            ] = {}
            rows = tab.upto(budget)
            for key, (lo, _, _) in acc.items():
                j, st, d, ab = key
                row = comb[st]
                for o in rows:
                    olo, oj, ost, od, oab, _ = o
                    cand = lo + olo
                    if cand >= cap and cand > 0:
                        break  # rows come sorted by leftover
                    nd = d + od
                    if nd > 1:
                        continue
                    k = (j + oj, row[ost], nd, ab | oab)
                    old = nxt.get(k)
                    if old is None or cand < old[0]:
                        nxt[k] = (cand, o, key)
            layers.append(nxt)
            acc = nxt
        for (j, st, d, ab), (lo, _, _) in acc.items():
            if not _met(rules, profile, st):
                continue
            spare = printed - set_jokers - j
            if spare < 0:
                continue
            discard_joker = False
            if discard_mode and d == 0:
                if spare < 1:
                    continue
                spare -= 1
                discard_joker = True
            elif not discard_mode and d:
                continue
            declarable = lo == 0 and (
                not rules.marriage or spare == 0 or ab == 1 or st >= 4 or spare <= room
            )
            cur = best[0]
            if cur is None or (lo, not declarable) < (cur.penalty, not cur.declarable):
                picks: list[Option] = []
                back: tuple[int, int, int, int] | None = (j, st, d, ab)
                for layer in reversed(layers):
                    assert back is not None
                    _, option, back = layer[back]
                    assert option is not None
                    picks.append(option)
                best[0] = _Best(lo, declarable, chosen, tuple(reversed(picks)), discard_joker)
                limit[0] = min(limit[0], lo)

    def walk(i: int, chosen: tuple[tuple[int, _SetChoice], ...], jokers: int, room: int) -> None:
        cur = best[0]
        if cur is not None and cur.declarable:
            return
        if i == len(set_ranks):
            leaf(chosen, jokers, room)
            return
        # Whatever sets are taken from here on, a suit keeps at least its least leftover now
        # less the points of the cards those sets could take.
        if i and hopeless(sum(max(0, table(s).least - open_points[i][s]) for s in range(4))):
            return
        r, choices = set_ranks[i]
        for choice in choices:
            if jokers + choice.jokers > wild_total:
                continue
            for s in range(4):
                current[s][r - 1] -= choice.take[s]
            walk(
                i + 1,
                (*chosen, (r, choice)) if choice.sizes else chosen,
                jokers + choice.jokers,
                room + choice.room,
            )
            for s in range(4):
                current[s][r - 1] += choice.take[s]

    walk(0, (), 0, 0)
    return best[0]


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
                kinds.append(Kind.TUNNELA if meld[0] == "T" else Kind.PURE_SEQUENCE)
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
    sets: list[list[int]] = []
    discard: int | None = None
    for r, choice in best.sets:
        # Deal each suit's cards round the sets, fullest suits first, so no set repeats a suit.
        members: list[list[int]] = [[] for _ in choice.sizes]
        slot = 0
        for s in sorted(range(4), key=lambda s: -choice.take[s]):
            for _ in range(choice.take[s]):
                members[slot % len(members)].append(s * 13 + r - 1)
                slot += 1
        for group in members:
            for code in group:
                remaining.remove(code)
            sets.append(group + [-1] * max(0, 3 - len(group)))
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
    leftover = [c for c in remaining if c not in wild]
    pure = [-1 not in group for group in seqs]
    for group in (*seqs, *sets):
        for i, code in enumerate(group):
            if code == -1:
                group[i] = jokers.pop()
    if best.discard_joker:
        discard = jokers.pop()
    if best.declarable and jokers and not profile.loose_jokers:
        _absorb(jokers, seqs, pure, sets)
    leftover.extend(jokers)
    groups: list[tuple[int, ...]] = []
    kinds: list[Kind] = []
    for group, is_pure in sorted(zip(seqs, pure, strict=True), key=lambda gp: not gp[1]):
        groups.append(tuple(group))
        kinds.append(Kind.PURE_SEQUENCE if is_pure else Kind.IMPURE_SEQUENCE)
    for triple in tunnelas:
        groups.append(triple)
        kinds.append(Kind.TUNNELA)
    for group in sets:
        groups.append(tuple(group))
        kinds.append(Kind.SET)
    penalty = min(best.penalty, profile.cap)
    return _finish(
        groups, kinds, tuple(leftover), penalty, best.declarable, discard, codes, wilds, profile
    )


def _absorb(
    jokers: list[int], seqs: list[list[int]], pure: list[bool], sets: list[list[int]]
) -> None:
    """Meld spare jokers for a declaration: into an impure sequence, else one joker per 3-card set,
    else into a pure sequence (the solver only declares when enough pure ones remain)."""
    target = next((i for i, is_pure in enumerate(pure) if not is_pure), None)
    if target is None:
        for group in sets:
            if jokers and len(group) == 3:
                group.append(jokers.pop())
        if not jokers:
            return
        target = len(seqs) - 1
        pure[target] = False
    seqs[target].extend(jokers)
    jokers.clear()


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
    # A wild card standing in may happen to sit in its own place: name the group's true kind.
    kinds = [
        classify(group, wilds, profile)
        if kind is Kind.IMPURE_SEQUENCE and any(c in wild and c != JOKER_CODE for c in group)
        else kind
        for group, kind in zip(groups, kinds, strict=True)
    ]
    two_point: tuple[tuple[int, ...], ...] | None = None
    if profile.dublees:
        shaped = _marriage_shapes(codes, wilds, profile, declarable, groups, kinds, leftover)
        if shaped is not None:
            groups, kinds, leftover, discard = shaped
            declarable = True
        two_point = _two_point(codes, discard, wilds, profile, declarable, groups, kinds, leftover)
    return _Skeleton(
        groups=tuple(groups),
        kinds=tuple(kinds),
        leftover=leftover,
        penalty=penalty,
        declarable=declarable,
        discard=discard,
        two_point=two_point,
    )


def _identical(codes: list[int], size: int) -> list[tuple[int, ...]]:
    """Disjoint groups of ``size`` identical cards (tunnelas, dublees)."""
    counts: dict[int, int] = {}
    for code in codes:
        counts[code] = counts.get(code, 0) + 1
    return [(c,) * size for c, n in sorted(counts.items()) for _ in range(n // size)]


def _marriage_shapes(
    codes: list[int],
    wilds: Wilds,
    profile: Profile,
    declarable: bool,
    groups: list[tuple[int, ...]],
    kinds: list[Kind],
    leftover: tuple[int, ...],
) -> tuple[list[tuple[int, ...]], list[Kind], tuple[int, ...], int | None] | None:
    """A winning grouping through Marriage's special shapes (3 tunnelas, 8 dublees, 8 wild cards in
    one group) when the hand has no ordinary declaration; the rest is left as it is."""
    if declarable:
        return None
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
    return chosen, [kind] * len(chosen), tuple(rest), discard


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

"""Hints for a beginner: the best partial arrangement of a hand (docs/melds.md, "Hints").

``hint(hand, joker=..., profile=...)`` keeps the melds of the solver's best arrangement (so the
hint's groups score exactly the solver's penalty) and lays the other cards out as the plan that
is closest to a declaration: the melds they still make, *near* melds one card short (a run with
a gap or an open end, a pair towards a set), spare jokers and loose cards. It names the card to
throw, says why in plain words, and counts how many cards the hand is from a declaration. In
Marriage it also counts how far the hand is from each of the four winning shapes (``shapes``).

The plan is found by :func:`rummyhall.melds.plans.find_plan`, a branch-and-bound search over the
cards outside the solver's melds, exact within a step budget (:data:`SEARCH_BUDGET`, docs/solver.md
"Hints"); this module turns it into groups of the caller's own cards, with labels and reasons in
plain words. Pure, deterministic and typed; everything is keyed by card codes, so the order of
``hand`` does not matter. Compiled with mypyc where the build can, as plans.py is (the result's
types are in hint_types.py, never compiled, so they are the same classes either way).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from rummyhall.cards import CODE_POINTS, JOKER_CODE, Card, from_code, sort_key
from rummyhall.melds.arrangement import Arrangement
from rummyhall.melds.hint_types import Hint, HintGroup, Role, ShapeDistance
from rummyhall.melds.kinds import Kind, card_points, kind_of
from rummyhall.melds.plans import (
    FIXED,
    RUN,
    SEARCH_BUDGET,
    SET,
    TUNNELA,
    HandMemo,
    Plan,
    find_plan,
    position,
)
from rummyhall.melds.profiles import Profile, Wilds, get_profile
from rummyhall.melds.solver import arrange


def _code(suit: int, position: int) -> int:
    return suit * 13 + (0 if position == 14 else position - 1)


def _pretty(code: int) -> str:
    return from_code(code).pretty


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
    memo = HandMemo(codes)  # shared by the searches below
    discard_code: int | None = None
    if discard_mode:
        # Choose the card to throw from the plan of all the cards; then lay out the cards kept
        # around their own best melds, so that the groups shown score the least they can.
        first = find_plan(codes, best, wilds, prof, discard_mode=True, memo=memo)
        # (The layout picks the loosest card when the plan has one: no need to lay it out.)
        if first.loose:
            discard_code = _pick_discard(first.loose, _held(codes))
        else:
            discard_code = _lay_out(first, wilds, prof, _held(codes))[2]
        assert discard_code is not None
        codes.remove(discard_code)
        if best.discard is not None and best.discard.code == discard_code:
            # The solver threw the same card: its groups are already the best of the cards kept.
            best_kept = Arrangement(best.groups, best.leftover, best.penalty, False, best.kinds)
        else:
            best_kept = arrange([from_code(c) for c in codes], joker=joker, profile=prof)
        seed = (first, discard_code)
        plan = find_plan(codes, best_kept, wilds, prof, discard_mode=False, seed=seed, memo=memo)
    else:
        plan = find_plan(codes, best, wilds, prof, discard_mode=False, memo=memo)
    assert plan.key is not None
    groups, loose, _ = _lay_out(plan, wilds, prof, None)

    out: list[HintGroup] = []
    for codes_, role, needs, label in groups:
        cards = [pool.take(code) for code in codes_]
        kind = kind_of([c.code for c in cards], wilds, prof)
        out.append(HintGroup(cards, role, kind, [from_code(n) for n in needs], label))
    if loose:
        cards = sorted((pool.take(code) for code in loose), key=sort_key)
        kind = kind_of([c.code for c in cards], wilds, prof)
        out.append(HintGroup(cards, Role.LOOSE, kind, [], "Loose"))
    discard: Card | None = None
    reason: str | None = None
    if discard_code is not None:
        discard = pool.take(discard_code)
        kind = kind_of([discard.code], wilds, prof)
        out.append(HintGroup([discard], Role.DISCARD, kind, [], "Discard"))
        reason = _reason(discard_code, _held([card.code for card in hand]), wilds)
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
    counts = Counter([card.code for card in hand])
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
        kind = kind_of([card.code for card in cards], wilds, profile)
        if all(card.code in wilds.codes for card in cards):
            out.append(HintGroup(cards, Role.JOKERS, kind, [], "Jokers (spare)"))
        else:
            out.append(HintGroup(cards, Role.LOOSE, kind, [], "Loose"))
    discard = best.discard
    reason = None
    if discard is not None:
        kind = kind_of([discard.code], wilds, profile)
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


# The natural cards of a hand as masks: the ranks held in each suit (bit = rank, 0 for the ace)
# and the suits holding each rank (bit = suit).
_Held = tuple[list[int], list[int]]


# (codes in display order, role, codes that finish it, label)
_Laid = tuple[tuple[int, ...], Role, tuple[int, ...], str]


def _lay_out(
    plan: Plan, wilds: Wilds, profile: Profile, held: _Held | None
) -> tuple[list[_Laid], list[int], int | None]:
    """The plan as groups: jokers fill the gaps of the groups closest to done (melds first),
    groups then missing one card are near melds, the others' cards loose. Returns the groups,
    the loose cards and the discard: a hand with a card to throw passes its cards as ``held``
    (see :func:`_pick_discard`)."""
    cap = profile.max_jokers_per_meld
    jokers = sorted(plan.pool)
    # Fewest gaps first, the solver's melds first among equals, as ints (the index in the low
    # byte keeps the plan's order of the rest).
    order = sorted([g.gaps << 9 | (g.kind != FIXED) << 8 | i for i, g in enumerate(plan.groups)])
    laid: list[tuple[int, _Laid]] = []
    loose = list(plan.loose)
    for key in order:
        i = key & 255
        group = plan.groups[i]
        kind, codes, gaps, low, fixed = group.kind, group.codes, group.gaps, group.low, group.fixed
        if fixed is not None:
            laid.append((_rank_of(fixed), (codes, Role.MELD, (), _KIND_LABEL[fixed])))
            continue
        fill: list[int] = []
        if not plan.pure >> i & 1 and kind != TUNNELA:
            room = gaps if cap is None else min(gaps, cap)
            take = min(room, len(jokers))
            fill, jokers = jokers[:take], jokers[take:]
        left = gaps - len(fill)
        if kind == RUN:
            shown, needs = _run_layout(codes, low, fill)
        else:
            shown = codes + tuple(fill)
            needs = _set_needs(codes) if kind == SET else ()
        meld = kind_of(shown, wilds, profile)
        if left == 0 or meld.is_meld:
            # (A wild card kept as itself may already make the group a meld with a stand-in.)
            laid.append((_rank_of(meld), (shown, Role.MELD, (), _KIND_LABEL[meld])))
        elif left == 1 and kind == RUN:
            label = "Near run (needs " + " or ".join(_pretty(n) for n in needs) + ")"
            laid.append((10, (shown, Role.NEAR_RUN, needs, label)))
        elif left == 1 and kind == SET:
            label = "Pair (needs " + " or ".join(_pretty(n) for n in needs) + ")"
            laid.append((11, (shown, Role.NEAR_SET, needs, label)))
        else:
            loose.extend(codes)
            jokers = sorted((*jokers, *fill))
    # By display rank, in the order above among equals.
    shown_order = sorted([entry[0] << 8 | n for n, entry in enumerate(laid)])
    groups = [laid[key & 255][1] for key in shown_order]
    discard: int | None = None
    if held is not None:
        if plan.loose:
            discard = _pick_discard(plan.loose, held)
            loose.remove(discard)
        else:
            discard = jokers.pop()
    if jokers:
        groups.append((tuple(jokers), Role.JOKERS, (), "Jokers (spare)"))
    return groups, loose, discard


_RANKS: Final = {Kind.PURE_SEQUENCE: 0, Kind.TUNNELA: 1, Kind.IMPURE_SEQUENCE: 2, Kind.SET: 3}


def _rank_of(kind: Kind) -> int:
    """Display order of meld kinds: pure sequences first (the requirement), sets last."""
    return _RANKS.get(kind, 4)


def _run_layout(
    codes: tuple[int, ...], low: int, fill: list[int]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A run's cards in order, jokers in its gaps (then at an open end), and the cards that
    would finish what is still missing (the gaps inside, else either open end)."""
    suit = codes[0] // 13
    places = sorted(position(c, low) for c in codes)
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


def _places(rank: int) -> tuple[int, ...]:
    """Positions of a rank (0 for the ace) in a run: the ace at both ends."""
    return (1, 14) if rank == 0 else (rank + 1,)


_GAPS: Final = tuple(
    tuple(min([abs(a - b) for a in _places(r) for b in _places(o)]) for o in range(13))
    for r in range(13)
)
"""How many places apart two ranks (0 for the ace) are in a run, at the closest."""


def _held(codes: Sequence[int]) -> _Held:
    """The cards of a hand (``codes``) as :data:`_Held` masks."""
    ranks_by_suit = [0] * 4
    suits_by_rank = [0] * 13
    for code in codes:
        if code != JOKER_CODE:
            suit = code // 13
            rank = code % 13
            ranks_by_suit[suit] |= 1 << rank
            suits_by_rank[rank] |= 1 << suit
    return ranks_by_suit, suits_by_rank


def _reach(code: int, held: _Held) -> tuple[int, int]:
    """How far a card is from any meld with the other cards held (``held``: see :func:`_held`):
    (cards a meld around it still needs: 1 with a neighbour of its suit two places away or less
    or a card of its rank in another suit, else 2; the gap to its nearest card of the same suit,
    14 for none). Other copies of the card itself count for neither."""
    ranks_by_suit, suits_by_rank = held
    suit, rank = divmod(code, 13)
    pair = suits_by_rank[rank] & ~(1 << suit) != 0
    others = ranks_by_suit[suit] & ~(1 << rank)
    nearest = 14
    gaps = _GAPS[rank]
    for other in range(13):
        if others >> other & 1:
            nearest = min(nearest, gaps[other])
    needs = 1 if pair or nearest <= 2 else 2
    return needs, nearest


def _pick_discard(loose: Sequence[int], held: _Held) -> int:
    """The loose card furthest from any meld; among equals the one that counts most (it costs
    most if someone declares), then the one whose nearest card of its suit is furthest, then the
    highest card, so the choice is always the same. (Each card's worth is one int, those fields
    from the top bits down.)"""
    best = -1
    for code in loose:
        needs, nearest = _reach(code, held)
        best = max(best, needs << 16 | CODE_POINTS[code] << 10 | nearest << 6 | code)
    return best & 63


def _reason(code: int, held: _Held, wilds: Wilds) -> str:
    card = from_code(code).pretty
    if code in wilds.codes:
        return f"the {card} is a joker no group needs: every other card has its place"
    needs, _ = _reach(code, held)
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

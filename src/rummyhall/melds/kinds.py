"""Meld kinds and the judge of a player's own grouping (`check`).

A group of cards is classified as the best kind it can be: a pure sequence beats an impure one,
which beats a set (a sequence counts towards the declaration, a set does not). Wild cards may act as
themselves, so ``6S 7S 8S`` is pure even when sevens are wild.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from rummyhall.cards import CODE_POINTS, JOKER_CODE, Card, indian_points
from rummyhall.melds.profiles import Profile, Wilds, get_profile


class Kind(StrEnum):
    PURE_SEQUENCE = "pure_sequence"
    IMPURE_SEQUENCE = "impure_sequence"
    SET = "set"
    TUNNELA = "tunnela"
    """Three identical natural cards (or, in Marriage, three printed jokers); a pure sequence."""
    DUBLEE = "dublee"
    """Two identical natural cards or two printed jokers (Marriage only; not a meld)."""
    JOKERS = "jokers"
    """Wild cards only, and no meld: vengala's loose jokers, Marriage's joker group."""
    INVALID = "invalid"

    @property
    def is_meld(self) -> bool:
        return self in _MELDS

    @property
    def is_sequence(self) -> bool:
        return self in _SEQUENCES

    @property
    def is_pure(self) -> bool:
        return self in _PURE


_MELDS = frozenset({Kind.PURE_SEQUENCE, Kind.IMPURE_SEQUENCE, Kind.SET, Kind.TUNNELA})
_SEQUENCES = frozenset({Kind.PURE_SEQUENCE, Kind.IMPURE_SEQUENCE, Kind.TUNNELA})
_PURE = frozenset({Kind.PURE_SEQUENCE, Kind.TUNNELA})


def card_points(code: int, wild: frozenset[int]) -> int:
    """Points of a card left unmelded: jokers (printed or wild) 0, aces and courts 10, else face."""
    return 0 if code in wild else CODE_POINTS[code]


def _positions(rank: int) -> tuple[int, ...]:
    """Places a rank can take in a run of positions 1..14 (the ace is low or high, never both)."""
    return (1, 14) if rank == 1 else (rank,)


_PLACES: Final = tuple(sum(1 << p for p in _positions(r)) if r else 0 for r in range(14))
"""By rank (1 to 13): a bit for each place it can take (bit p: position p), low place first."""


def _window_jokers(start: int, end: int, fixed: list[int], optional: list[int]) -> int | None:
    """Jokers needed to fill positions start..end when the ``fixed`` ranks must take a place of
    their own and the ``optional`` (wild) ranks may take theirs; None if a fixed card has none.
    Each card takes the lowest free place it has in the window (the ace: 1 before 14), as bits
    of one int: the engine judges every group shown, a window at a time."""
    window = (1 << end + 1) - (1 << start)
    taken = 0
    for rank in fixed:
        free = _PLACES[rank] & window & ~taken
        if not free:
            return None
        taken |= free & -free
    for rank in optional:
        free = _PLACES[rank] & window & ~taken
        taken |= free & -free
    return end - start + 1 - taken.bit_count()


def sequence_jokers(codes: Sequence[int], wild: frozenset[int], profile: Profile) -> int | None:
    """Fewest cards that must stand in for others to read ``codes`` as one sequence, or None."""
    size = len(codes)
    if not 3 <= size <= 14:
        return None
    fixed = [c for c in codes if c not in wild]
    optional = [c for c in codes if c in wild and c != JOKER_CODE]
    suits = {c // 13 for c in fixed} if fixed else {c // 13 for c in optional}
    if fixed and len(suits) != 1:
        return None
    best: int | None = None
    fixed_ranks = [c % 13 + 1 for c in fixed]
    most = profile.max_jokers_per_meld
    for suit in suits:
        # Aces last: they have two places to go.
        option_ranks = sorted(
            (c % 13 + 1 for c in optional if c // 13 == suit), key=lambda r: r == 1
        )
        for start in range(1, 16 - size):
            jokers = _window_jokers(start, start + size - 1, fixed_ranks, option_ranks)
            if jokers is None or jokers == size:
                continue
            if most is not None and jokers > most:
                continue
            if best is None or jokers < best:
                best = jokers
    return best


def is_set(codes: Sequence[int], wild: frozenset[int], profile: Profile) -> bool:
    """Three or four cards of one rank in different suits, jokers standing for missing suits."""
    if len(codes) not in (3, 4):
        return False
    fixed = [c for c in codes if c not in wild]
    ranks = {c % 13 for c in fixed} if fixed else {c % 13 for c in codes if c != JOKER_CODE}
    for rank in ranks:
        fixed_suits = [c // 13 for c in fixed]
        if any(c % 13 != rank for c in fixed) or len(set(fixed_suits)) != len(fixed_suits):
            continue
        naturals = set(fixed_suits)
        for c in codes:
            if c in wild and c != JOKER_CODE and c % 13 == rank:
                naturals.add(c // 13)
        jokers = len(codes) - len(naturals)
        if naturals and (
            profile.max_jokers_per_meld is None or jokers <= profile.max_jokers_per_meld
        ):
            return True
    return False


def classify(codes: Sequence[int], wilds: Wilds, profile: Profile) -> Kind:
    """The best kind the group can be under the profile."""
    wild = wilds.codes
    size = len(codes)
    identical = size > 1 and all(c == codes[0] for c in codes)
    if (
        size == 3
        and identical
        and profile.identical_triple_pure
        and (codes[0] != JOKER_CODE or profile.printed_joker_tunnela)
    ):
        return Kind.TUNNELA
    jokers = sequence_jokers(codes, wild, profile)
    if jokers is not None:
        return Kind.PURE_SEQUENCE if jokers == 0 else Kind.IMPURE_SEQUENCE
    if is_set(codes, wild, profile):
        return Kind.SET
    if size == 2 and identical and profile.dublees:
        return Kind.DUBLEE
    if size and all(c in wild for c in codes):
        return Kind.JOKERS
    return Kind.INVALID


def requirement_met(sequences: Iterable[tuple[bool, int]], profile: Profile) -> bool:
    """Whether melded sequences, given as (pure, length), meet the declaration's requirement."""
    seqs = list(sequences)
    pure = [length for is_pure, length in seqs if is_pure]
    if len(seqs) < profile.min_sequences or len(pure) < profile.min_pure_sequences:
        return False
    if profile.long_sequence is None:
        return True
    # One pure sequence and another one, either of them long.
    long = profile.long_sequence
    if any(length >= long for length in pure):
        return True
    return any(length >= long for is_pure, length in seqs if not is_pure)


def counts(kind: Kind, met: bool, profile: Profile) -> bool:
    """Whether the card points of a group of this kind count towards the grouping's score, the
    requirement met or not (docs/melds.md): met, every group but the melds; not met, every group
    but the pure sequences (``pure_exempt``) or every group (``all_count``)."""
    if met:
        return not kind.is_meld
    return profile.unmet != "pure_exempt" or not kind.is_pure


@dataclass(frozen=True, slots=True)
class Group:
    """One group of a judged grouping: its cards, its kind, the card points of its cards
    (``points``) and whether those points count towards the grouping's score (``counted``)."""

    cards: list[Card]
    kind: Kind
    points: int
    counted: bool


@dataclass(frozen=True, slots=True)
class Verdict:
    """How a player's own grouping is judged.

    ``declarable``: the grouping is a valid declaration. ``score``: the card points it scores for a
    loser, the points of its counted groups capped at the profile's cap (fixed scores such as drops
    are the engine's). ``requirement``: its sequences meet the declaration's requirement (which
    decides which groups count). ``two_point``: Marriage only, the grouping shows a shape that
    limits a loser to 2 points. ``reason``: why it is no declaration."""

    groups: list[Group]
    declarable: bool
    score: int
    requirement: bool
    two_point: bool
    reason: str | None


def _reason(kinds: list[Kind], sizes: list[int], met: bool, profile: Profile) -> str | None:
    seqs = [(k.is_pure, n) for k, n in zip(kinds, sizes, strict=True) if k.is_sequence]
    if not met:
        pure = sum(1 for is_pure, _ in seqs if is_pure)
        if pure < profile.min_pure_sequences:
            need = profile.min_pure_sequences
            return "no pure sequence" if need == 1 else f"needs {need} pure sequences, has {pure}"
        if len(seqs) < profile.min_sequences:
            return f"needs {profile.min_sequences} sequences, has {len(seqs)}"
        return f"one of the two sequences needs {profile.long_sequence} or more cards"
    for number, (kind, size) in enumerate(zip(kinds, sizes, strict=True), 1):
        if not kind.is_meld and not (kind is Kind.JOKERS and profile.loose_jokers):
            what = "jokers alone are" if kind is Kind.JOKERS else f"{size} cards are"
            return f"group {number}: {what} not a valid sequence or set"
    return None


_KIND_OF: Final = tuple(Kind)
_KINDS: Final[dict[tuple[tuple[int, ...], int, str], int]] = {}
"""classify()'s kinds, as their place in :data:`_KIND_OF` (a memo of ints only, which the cycle
collector stops looking at), by codes, which of them are wild and the profile's name."""
_KINDS_LIMIT: Final = 20_000
_WILDS: Final[dict[tuple[int, str], Wilds]] = {}
"""The wild cards of a cut card's code under a profile, for :func:`check`."""


def kind_of(codes: Sequence[int], wilds: Wilds, profile: Profile) -> Kind:
    """:func:`classify`, memoised: the engine judges every show and declaration, a hint
    classifies every group it shows, and the same small groups come back deal after deal.
    classify() reads the wild cards only as whether each of these codes is one, so that is what
    the key holds (bit i: ``codes[i]`` is wild), with the codes in their order and the profile's
    name (as the solver's memos), and the memo is cleared when full, as theirs are."""
    wild = wilds.codes
    wild_bits = 0
    for i, code in enumerate(codes):
        if code in wild:
            wild_bits |= 1 << i
    key = (tuple(codes), wild_bits, profile.name)
    found = _KINDS.get(key)
    if found is not None:
        return _KIND_OF[found]
    if len(_KINDS) >= _KINDS_LIMIT:
        _KINDS.clear()
    kind = classify(codes, wilds, profile)
    _KINDS[key] = _KIND_OF.index(kind)
    return kind


def _wilds(joker: Card, profile: Profile) -> Wilds:
    """:meth:`Wilds.of`, memoised by the cut card's code: every show of a deal has the same."""
    key = (joker.code, profile.name)
    wilds = _WILDS.get(key)
    if wilds is None:
        wilds = _WILDS[key] = Wilds.of(joker, profile)
    return wilds


def check(groups: Sequence[Sequence[Card]], *, joker: Card, profile: Profile | str) -> Verdict:
    """Judge a player's grouping of their cards under ``profile`` with ``joker`` as the cut card."""
    prof = get_profile(profile)
    wilds = _wilds(joker, prof)
    wild = wilds.codes
    code_groups = [tuple([card.code for card in group]) for group in groups]
    kinds = [kind_of(codes, wilds, prof) for codes in code_groups]
    sizes = [len(codes) for codes in code_groups]
    seqs = [(k.is_pure, n) for k, n in zip(kinds, sizes, strict=True) if k.is_sequence]
    met = requirement_met(seqs, prof)
    judged = [
        Group(list(cards), kind, sum(card_points(c, wild) for c in codes), counts(kind, met, prof))
        for cards, codes, kind in zip(groups, code_groups, kinds, strict=True)
    ]
    score = min(sum(group.points for group in judged if group.counted), prof.cap)

    reason = _reason(kinds, sizes, met, prof)
    declarable = reason is None
    two_point = False
    if prof.dublees:
        tunnelas = kinds.count(Kind.TUNNELA)
        dublees = kinds.count(Kind.DUBLEE)
        joker_group = max(
            (len(codes) for codes in code_groups if codes and all(c in wild for c in codes)),
            default=0,
        )
        shape = tunnelas >= prof.win_tunnelas or dublees >= prof.win_dublees
        if not declarable and (shape or joker_group >= prof.win_jokers):
            declarable, reason = True, None
        two_point = (
            (met and all(k.is_meld for k in kinds))
            or dublees >= prof.two_point_dublees
            or joker_group >= prof.two_point_jokers
        )
    return Verdict(
        groups=judged,
        declarable=declarable,
        score=score,
        requirement=met,
        two_point=two_point,
        reason=reason,
    )


__all__ = [
    "Group",
    "Kind",
    "Verdict",
    "card_points",
    "check",
    "classify",
    "counts",
    "indian_points",
    "kind_of",
    "requirement_met",
]

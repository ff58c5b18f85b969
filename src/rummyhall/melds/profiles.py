"""Rule profiles of the Indian-rummy family: the meld and scoring rules as frozen data.

A profile answers what a meld may contain, what a declaration needs and how a loser's cards are
counted. The solver and the group checker read only these fields; no rule literal lives in logic.
See docs/rules/ for the rules in words and ../shared/rules/DECISIONS.md for where they come from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from rummyhall.cards import ACE, JOKER, KING, Card, Suit

UnmetRule = Literal["pure_exempt", "all_count"]


@dataclass(frozen=True, slots=True)
class Profile:
    """Meld and scoring rules of one game variant."""

    name: str
    hand_size: int
    """Cards a player holds between turns (a declaration shows this many)."""
    cap: int
    """Most card points a loser can score."""
    max_jokers_per_meld: int | None
    """Jokers standing in for other cards in one sequence or set (None: any number)."""
    identical_triple_pure: bool
    """Three identical natural cards (same rank and suit) count as a pure sequence (a tunnela)."""
    printed_joker_tunnela: bool
    """Three printed jokers together also form a tunnela (Marriage)."""
    min_sequences: int
    """Sequences a declaration needs (tunnelas count where ``identical_triple_pure``)."""
    min_pure_sequences: int
    """Of those, how many must be pure."""
    long_sequence: int | None
    """If set, one of the two sequences that meet the requirement (a pure one and another) must
    have at least this many cards (vengala: 4)."""
    loose_jokers: bool
    """A declaration may show unused jokers as a separate group worth 0 (vengala)."""
    unmet: UnmetRule
    """How a loser whose melds miss the requirement is counted: only pure sequences exempt, or
    every card counts."""
    value_jokers: bool
    """The cards one rank above and below the cut card, in its suit, are wild too (Marriage)."""
    dublees: bool
    """Dublees (identical pairs) and the special winning and 2-point shapes exist (Marriage)."""
    win_tunnelas: int = 0
    win_dublees: int = 0
    win_jokers: int = 0
    two_point_dublees: int = 0
    two_point_jokers: int = 0

    def __str__(self) -> str:
        return self.name


INDIAN13_CLASSIC: Final = Profile(
    name="indian13/classic",
    hand_size=13,
    cap=80,
    max_jokers_per_meld=None,
    identical_triple_pure=False,
    printed_joker_tunnela=False,
    min_sequences=2,
    min_pure_sequences=1,
    long_sequence=None,
    loose_jokers=False,
    unmet="pure_exempt",
    value_jokers=False,
    dublees=False,
)

INDIAN13_VENGALA: Final = Profile(
    name="indian13/vengala",
    hand_size=13,
    cap=80,
    max_jokers_per_meld=1,
    identical_triple_pure=True,
    printed_joker_tunnela=False,
    min_sequences=2,
    min_pure_sequences=1,
    long_sequence=4,
    loose_jokers=True,
    unmet="all_count",
    value_jokers=False,
    dublees=False,
)

MARRIAGE21: Final = Profile(
    name="marriage21",
    hand_size=21,
    cap=120,
    max_jokers_per_meld=None,
    identical_triple_pure=True,
    printed_joker_tunnela=True,
    min_sequences=3,
    min_pure_sequences=3,
    long_sequence=None,
    loose_jokers=False,
    unmet="pure_exempt",
    value_jokers=True,
    dublees=True,
    win_tunnelas=3,
    win_dublees=8,
    win_jokers=8,
    two_point_dublees=6,
    two_point_jokers=7,
)

PROFILES: Final[dict[str, Profile]] = {
    p.name: p for p in (INDIAN13_CLASSIC, INDIAN13_VENGALA, MARRIAGE21)
}
DEFAULT_PROFILE: Final = INDIAN13_CLASSIC
"""The profile a request that names none is judged by (``rummyhall arrange``, /api/arrange)."""
# Short names for command lines: "classic", "vengala", "marriage".
ALIASES: Final = {"classic": INDIAN13_CLASSIC, "vengala": INDIAN13_VENGALA, "marriage": MARRIAGE21}


def get_profile(profile: Profile | str) -> Profile:
    """The profile itself, or the one with that name (``"indian13/classic"``, ``"vengala"``...)."""
    if isinstance(profile, Profile):
        return profile
    found = PROFILES.get(profile) or ALIASES.get(profile)
    if found is None:
        names = ", ".join(sorted(PROFILES))
        raise ValueError(f"unknown profile {profile!r}; known profiles: {names}")
    return found


@dataclass(frozen=True, slots=True)
class Wilds:
    """Which cards are wild in one deal, derived from the cut card and the profile.

    ``codes`` are the card codes that may stand in for any card: printed jokers, every card of the
    wild rank and (Marriage) the upper and lower jokers. ``value_codes`` are Marriage's value cards
    (cut, upper, lower). A wild card may also be used as itself."""

    cut: Card
    wild_rank: int
    codes: frozenset[int]
    value_codes: tuple[int, int, int] | None

    @property
    def natural_codes(self) -> tuple[int, ...]:
        """The wild cards that are not printed jokers (they can also be used as themselves)."""
        return tuple(sorted(c for c in self.codes if c != JOKER.code))

    @staticmethod
    def of(cut: Card, profile: Profile) -> Wilds:
        if cut.is_joker:
            # A printed joker cut makes aces wild; in Marriage A♠ becomes the cut joker.
            wild_rank = ACE
            value_cut = Card(ACE, Suit.S)
        else:
            wild_rank = cut.rank
            value_cut = cut
        codes = {JOKER.code} | {int(suit) * 13 + wild_rank - 1 for suit in Suit}
        value_codes: tuple[int, int, int] | None = None
        if profile.value_jokers:
            assert value_cut.suit is not None
            suit_base = int(value_cut.suit) * 13
            upper = value_cut.rank % KING + 1  # the ace follows the king
            lower = (value_cut.rank - 2) % KING + 1  # and precedes the two
            value_codes = (value_cut.code, suit_base + upper - 1, suit_base + lower - 1)
            codes.update(value_codes)
        return Wilds(cut, wild_rank, frozenset(codes), value_codes)
